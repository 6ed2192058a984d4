//! The held notice's kind and text (SPEC §3.6.1).

use crate::refusals::{self, Attempt};
use fnhooks::escaped;
use permissions::{Decision, Verdict};

/// The kind of a held verdict (SPEC §3.6.1): `deny rule` (deny with `rule`), `refusal`
/// (deny without `rule`), `ask rule` (ask with `rule`), `<event> hook's ask` (with
/// `hook`), `<key> setting's ask` (with `setting`), `<decider>'s ask` (with `decider`),
/// or `ask cap` (an ask naming only `ceiling`, or nothing).
///
/// Takes the held verdict; returns its kind, the names it takes from the verdict
/// escaped (SPEC §3.6.1 **\[decision\]**).
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
        ) => format!("{} hook's ask", escaped(hook)),
        (
            _,
            Verdict {
                setting: Some(key), ..
            },
        ) => format!("{} setting's ask", escaped(key)),
        (
            _,
            Verdict {
                decider: Some(decider),
                ..
            },
        ) => format!("{}'s ask", escaped(decider)),
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
/// reword `held` on a call of `tool`, the kind being [`held_kind`]'s.
///
/// Takes the plugins' names as one string, the tool's name, the held verdict and the
/// attempt; returns the line for the screen.
///
/// SPEC §3.6.1
#[must_use]
pub fn held_notice(plugins: &str, tool: &str, held: &Verdict, attempt: Attempt) -> String {
    held_notice_as(plugins, tool, held, &held_kind(held), attempt)
}

/// [`held_notice`] with the kind given: an uncertain ask (SPEC §4) is named by its rule's
/// own kind (`deny rule` or `ask rule`), which the verdict alone does not say.
///
/// Takes the plugins' names as one string, the tool's name, the held verdict, its kind
/// and the attempt; returns the line for the screen.
///
/// SPEC §3.6.1
#[must_use]
pub fn held_notice_as(
    plugins: &str,
    tool: &str,
    held: &Verdict,
    kind: &str,
    attempt: Attempt,
) -> String {
    let rule = if is_rule_kind(kind) {
        held.rule.as_deref()
    } else {
        None
    };
    refusals::held_notice(plugins, tool, kind, rule, held.uncertain, attempt)
}
