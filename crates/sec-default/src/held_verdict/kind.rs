//! The held notice's kind and text (SPEC §3.6.1).

use crate::refusals::{self, Attempt};
use fnhooks::{Decision, Verdict};

/// The kind of a held verdict (SPEC §3.6.1): `deny rule` (deny with `rule`), `refusal`
/// (deny without `rule`), `ask rule` (ask with `rule`), `<event> hook's ask` (with
/// `hook`), `<key> setting's ask` (with `setting`), `<decider>'s ask` (with `decider`),
/// or `ask cap` (an ask naming only `ceiling`, or nothing).
///
/// Takes the held verdict; returns its kind.
///
/// SPEC §3.6.1
#[must_use]
pub fn held_kind(held: &Verdict) -> String {
    match (held.decision, held) {
        (Decision::Deny, Verdict { rule: Some(_), .. }) => "deny rule".to_owned(),
        (Decision::Deny, _) => "refusal".to_owned(),
        (_, Verdict { rule: Some(_), .. }) => "ask rule".to_owned(),
        (
            _,
            Verdict {
                hook: Some(hook), ..
            },
        ) => format!("{hook} hook's ask"),
        (
            _,
            Verdict {
                setting: Some(key), ..
            },
        ) => format!("{key} setting's ask"),
        (
            _,
            Verdict {
                decider: Some(decider),
                ..
            },
        ) => format!("{decider}'s ask"),
        _ => "ask cap".to_owned(),
    }
}

/// Whether `kind` is one of the two rule kinds, which carry "in your settings" and the
/// rule.
///
/// SPEC §3.6.1
#[must_use]
pub fn is_rule_kind(kind: &str) -> bool {
    kind == "deny rule" || kind == "ask rule"
}

/// The held notice (SPEC §3.6.1) for `plugins` (named together) having tried to lift or
/// reword `held` on a call of `tool`.
///
/// Takes the plugins' names as one string, the tool's name, the held verdict and the
/// attempt; returns the line for the screen.
///
/// SPEC §3.6.1
#[must_use]
pub fn held_notice(plugins: &str, tool: &str, held: &Verdict, attempt: Attempt) -> String {
    let kind = held_kind(held);
    let rule = if is_rule_kind(&kind) {
        held.rule.as_deref()
    } else {
        None
    };
    refusals::held_notice(plugins, tool, &kind, rule, attempt)
}
