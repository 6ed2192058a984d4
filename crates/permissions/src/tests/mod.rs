//! Decide-level tests: rule forms, precedence, modes, hosts, outcomes (SPEC §1.6, §2.1, §4).

use crate::*;
use proptest::prelude::*;
use serde_json::{json, Value};

mod bypass;
mod cases;
mod explain;
mod hosts;
mod model;
mod modes;
mod precedence;
mod properties;
mod rules;
mod shell;

fn facts() -> SessionFacts {
    SessionFacts::new("/home/dev/repo", "/home/dev")
}

fn facts_in(mode: Mode) -> SessionFacts {
    SessionFacts { mode, ..facts() }
}

fn policy(perms: Value) -> RuleSet {
    let settings = json!({ "permissions": perms });
    RuleSet::from_sources(&[(SettingsSource::Policy, &settings)]).0
}

fn ask(rules: &RuleSet, tool: &str, input: Value, f: &SessionFacts) -> Verdict {
    decide(
        rules,
        &Question {
            tool,
            input: &input,
        },
        f,
    )
}

fn bash(rules: &RuleSet, cmd: &str) -> Verdict {
    ask(rules, "Bash", json!({ "command": cmd }), &facts())
}

fn d(v: &Verdict) -> (Decision, Option<&str>) {
    (v.decision, v.rule.as_deref())
}

fn arb_mode() -> impl Strategy<Value = Mode> {
    proptest::sample::select(Mode::ALL.to_vec())
}
