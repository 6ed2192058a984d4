//! The rule attacks' calls (SPEC §4 "Rule syntax", §5.1): each deny or ask rule tried
//! with realistic calls until one is decided by it, or found inert or not exercised.

use super::{config, tool_check, verdict_of};
use crate::audit::synth::{self, Call};
use permissions::{Decision, Verdict};
use serde_json::{json, Value};
use session::{BlockingSession, HookRunner};
use std::path::Path;

/// Tries every rule of `todo` ([`exercise`]), in order: the first half against
/// `oracle`, the second on another thread against an oracle session of its own, so
/// both of the machine's cores work.
pub(super) fn try_rules(
    folder: &Path,
    oracle: &BlockingSession,
    todo: &[(Decision, &String)],
    hooks: HookRunner,
) -> Vec<Tried> {
    let facts = config(folder, false, hooks).facts;
    let run = |oracle: &BlockingSession, part: &[(Decision, &String)], base: usize| {
        let mut n = base;
        part.iter()
            .map(|(behavior, rule)| exercise(&facts, oracle, rule, *behavior, &mut n))
            .collect::<Vec<Tried>>()
    };
    // The policy's own hooks, when run, run one at a time, as in a session.
    if matches!(hooks, HookRunner::Sandboxed { .. }) {
        return run(oracle, todo, 0);
    }
    let (first, second) = todo.split_at(todo.len() / 2);
    if first.is_empty() {
        return run(oracle, second, 0);
    }
    std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            match BlockingSession::start(config(folder, false, hooks), Vec::new()) {
                Ok(own) => run(&own, second, 1 << 40),
                Err(e) => second
                    .iter()
                    .map(|_| Tried::NotMet(format!("no oracle session: {e}")))
                    .collect(),
            }
        });
        let mut out = run(oracle, first, 0);
        match other.join() {
            Ok(rest) => out.extend(rest),
            Err(_) => out.extend(
                second
                    .iter()
                    .map(|_| Tried::NotMet("the second oracle thread failed".to_owned())),
            ),
        }
        out
    })
}

/// What trying a deny or ask rule with realistic calls found.
pub(super) enum Tried {
    /// A realistic call the oracle decides by the rule (or at least as strictly by
    /// another rule, named), with the shell variants of it the rule does not meet.
    Met {
        call: Call,
        verdict: Verdict,
        shadow: Option<String>,
        evaded: Vec<String>,
    },
    /// No realistic call meets it; only a call spelled like its own text, if any.
    Inert {
        reason: String,
        literal: Option<Call>,
    },
    /// No call at all meets it.
    NotMet(String),
}

/// The verdict the oracle gives `call`, when it is `behavior` or stricter, with the
/// rule it names.
fn strict_verdict(
    oracle: &BlockingSession,
    call: &Call,
    behavior: Decision,
    n: &mut usize,
) -> Option<Verdict> {
    *n += 1;
    let v = verdict_of(&oracle.raise(tool_check(call, *n)));
    // Nobody reads the oracle's lines: they must not pile up over a large policy.
    drop(oracle.session().take_log());
    v.filter(|v| v.decision >= behavior)
}

/// Whether `v` is decided by `rule` itself, as `behavior`.
fn by_rule(v: &Verdict, rule: &str, behavior: Decision) -> bool {
    v.decision == behavior && v.rule.as_deref().is_some_and(|r| r.trim() == rule.trim())
}

/// One deny or ask rule alone, compiled as the engine compiles it: whether it meets
/// a call is then what the engine's matchers say, whatever other rule would be named
/// first in the whole policy.
struct Alone {
    rules: permissions::RuleSet,
    facts: permissions::SessionFacts,
    rule: String,
    behavior: Decision,
}

/// Asking one rule.
impl Alone {
    /// `rule` alone as a managed `behavior` rule, judged in `facts`.
    fn new(facts: &permissions::SessionFacts, rule: &str, behavior: Decision) -> Self {
        let key = match behavior {
            Decision::Ask => "ask",
            _ => "deny",
        };
        let settings = json!({ "permissions": { key: [rule] } });
        let (rules, _) =
            permissions::RuleSet::from_sources(&[(permissions::SettingsSource::Policy, &settings)]);
        Alone {
            rules,
            facts: facts.clone(),
            rule: rule.trim().to_owned(),
            behavior,
        }
    }

    /// Whether the rule meets `call` (SPEC §4): the verdict names it.
    fn meets(&self, call: &Call) -> bool {
        let q = permissions::Question {
            tool: &call.tool,
            input: &call.input,
        };
        let v = permissions::decide(&self.rules, &q, &self.facts);
        v.decision == self.behavior && v.rule.as_deref().is_some_and(|r| r.trim() == self.rule)
    }
}

/// Tries `rule` with realistic calls: the calls synthesized from
/// its text that people run, then what the text means ([`synth::intended`]), then the
/// tool's corpus. The first the rule meets, and the whole policy (the oracle session)
/// decides as strictly, is the attack's call (the rule the policy names, when another,
/// is named). A rule no realistic call meets is inert, with why; the shell variants of
/// the call that get past the whole policy are listed.
fn exercise(
    facts: &permissions::SessionFacts,
    oracle: &BlockingSession,
    rule: &str,
    behavior: Decision,
    n: &mut usize,
) -> Tried {
    let alone = Alone::new(facts, rule, behavior);
    let candidates = synth::candidates(rule);
    let (realistic, literal): (Vec<Call>, Vec<Call>) = candidates
        .iter()
        .cloned()
        .partition(|c| synth::is_realistic(rule, c));
    let tool = candidates
        .last()
        .map(|c| c.tool.clone())
        .unwrap_or_default();
    let tried = realistic
        .into_iter()
        .chain(synth::intended(rule))
        .chain(synth::corpus(&tool));
    for call in tried {
        if !alone.meets(&call) {
            continue;
        }
        let Some(verdict) = strict_verdict(oracle, &call, behavior, n) else {
            continue;
        };
        let shadow = (!by_rule(&verdict, rule, behavior))
            .then(|| verdict.rule.clone())
            .flatten();
        let evaded = match call.input.get("command").and_then(Value::as_str) {
            Some(command) if call.tool == "Bash" => synth::shell_variants(command)
                .into_iter()
                .filter(|variant| {
                    // What the rule alone meets, the whole policy decides at least as
                    // strictly: only the others need the oracle.
                    let c = Call::new_command(variant);
                    !alone.meets(&c) && strict_verdict(oracle, &c, behavior, n).is_none()
                })
                .collect(),
            _ => Vec::new(),
        };
        return Tried::Met {
            call,
            verdict,
            shadow,
            evaded,
        };
    }
    let literal = literal.into_iter().find(|call| alone.meets(call));
    match (synth::inert_reason(rule), literal) {
        (Some(reason), literal) => Tried::Inert { reason, literal },
        (None, Some(literal)) => Tried::Inert {
            reason: format!(
                "only a call spelled like the rule's own text meets it ({}), no call people run",
                describe_call(&literal)
            ),
            literal: Some(literal),
        },
        (None, None) => {
            let tried: Vec<String> = candidates.iter().take(2).map(describe_call).collect();
            Tried::NotMet(format!(
                "no synthesized call is decided by it (tried {})",
                tried.join(", ")
            ))
        }
    }
}

/// A call in a few words: the tool and its main input field.
pub(super) fn describe_call(call: &Call) -> String {
    let field = [
        "command",
        "file_path",
        "notebook_path",
        "path",
        "url",
        "subagent_type",
        "skill",
    ]
    .iter()
    .find_map(|k| call.input.get(*k).and_then(Value::as_str));
    match field {
        Some(f) => format!("{} {f:?}", call.tool),
        None => call.tool.clone(),
    }
}
