//! SPEC §5.1 and §5.7 over generated chains of a person's plugins at `tool.check`.

use fnhooks::testing::{answers, passes, plugin_on, rewrites, Recorder};
use fnhooks::{Engine, Event, Plugin, Tier};
use permissions::{Decision, Verdict};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The core: `tool.check` answers `verdict`; the policy read (an empty policy) and
/// every other event answer `{}`.
fn fixed_core(verdict: &Value) -> Arc<Recorder> {
    let verdict = verdict.clone();
    Recorder::new(move |e| {
        if e.name == "tool.check" {
            verdict.clone()
        } else {
            json!({})
        }
    })
}

#[derive(Debug, Clone)]
enum Behaviour {
    Pass,
    Answer(Value),
    Rewrite(Value),
}

fn verdicts() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"decision": "allow"})),
        Just(json!({"decision": "ask"})),
        Just(json!({"decision": "ask", "rule": "Bash", "source": "policy"})),
        Just(json!({"decision": "ask", "decider": "host"})),
        Just(json!({"decision": "ask", "hook": "PreToolUse", "reason": "hook says"})),
        Just(json!({"decision": "deny"})),
        Just(json!({"decision": "deny", "rule": "Bash(rm:*)", "source": "policy"})),
        Just(json!({"decision": "deny", "reason": "mine"})),
    ]
}

fn behaviours() -> impl Strategy<Value = Behaviour> {
    prop_oneof![
        Just(Behaviour::Pass),
        verdicts().prop_map(Behaviour::Answer),
        verdicts().prop_map(Behaviour::Rewrite),
    ]
}

fn person(i: usize, b: Behaviour, worker: bool) -> Plugin {
    let id = format!("p{i}@community");
    let mut p = match b {
        Behaviour::Pass => plugin_on(&id, Tier::User, "tool.check", passes()),
        Behaviour::Answer(v) => plugin_on(&id, Tier::User, "tool.check", answers(v)),
        Behaviour::Rewrite(v) => plugin_on(&id, Tier::User, "tool.check", rewrites(v)),
    };
    p.info.worker = worker.then(|| "w".to_owned());
    p
}

#[allow(clippy::unwrap_used)]
fn run(core: &Value, people: &[(Behaviour, bool)], seated: bool) -> Verdict {
    let engine = Engine::new(
        fixed_core(core),
        events::catalogue(),
        Duration::from_secs(2),
    );
    if seated {
        engine.seat_first(sec_default::plugin());
    }
    for (i, (b, w)) in people.iter().enumerate() {
        engine.seat(person(i, b.clone(), *w));
    }
    let e = Event::from_value(
        "tool.check",
        json!({"tool": "Bash", "input": {}, "tool_use_id": "t"}),
    );
    Verdict::from_value(&engine.raise_blocking(e).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_held_verdict_is_never_loosened_or_reworded(
        core in verdicts(),
        people in proptest::collection::vec((behaviours(), any::<bool>()), 0..4),
    ) {
        let held = Verdict::from_value(&core).unwrap();
        let holds = held.decision == Decision::Deny || (held.decision == Decision::Ask && held.names_a_cause());
        let with = run(&core, &people, true);
        let without = run(&core, &people, false);
        if holds {
            // Never looser; as strict only whole — except a bare `{decision: deny}` a link
            // answered without calling next, which SPEC §3.6 step 2 does not count as a
            // rewrite (the decision is kept, the rule's name is not).
            let bare_deny = with == Verdict::plain(Decision::Deny);
            prop_assert!(
                with.decision > held.decision || with == held || (held.decision == Decision::Deny && bare_deny),
                "{with:?} over {held:?}"
            );
            if without.decision > held.decision {
                prop_assert_eq!(with, without, "a stricter answer of theirs stands");
            }
        } else {
            prop_assert_eq!(with, without, "nothing else changes");
        }
    }
}
