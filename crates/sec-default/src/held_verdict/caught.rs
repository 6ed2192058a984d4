//! What the `tool.check` failure handler answers (SPEC §3.6, failure handler).

use super::verdicts::rewritten_by_users;
use crate::refusals;
use fnhooks::{FailureKind, TraceEntry};
use permissions::{Decision, Verdict};
use serde_json::Value;

/// The security default's unchecked deny: a deny naming no rule, its reason saying the
/// check could not be completed.
///
/// Takes how the hook failed; returns the verdict as JSON.
///
/// SPEC §1.9, §3.6
#[must_use]
pub fn unchecked_deny(kind: FailureKind) -> Value {
    Verdict::plain(Decision::Deny)
        .with_reason(refusals::unchecked_deny_reason(kind))
        .to_value()
}

/// The answer of the `tool.check` failure handler where deny rules hold: the failed
/// hook's last run's verdict when it exists and no `user`/`prepend` link of that run
/// rewrote it, else an unchecked deny.
///
/// Takes that run's answer (`None` when it failed), its trace, and how the hook
/// failed; returns the verdict as JSON.
///
/// SPEC §3.6 (failure handler)
#[must_use]
pub fn caught_answer(last: Option<&Value>, trace: &[TraceEntry], kind: FailureKind) -> Value {
    match last {
        Some(v) if Verdict::from_value(v).is_some() && rewritten_by_users(trace).is_empty() => {
            v.clone()
        }
        _ => unchecked_deny(kind),
    }
}
