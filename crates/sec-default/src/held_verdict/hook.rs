//! The `tool.check` hook and its failure handler (SPEC §3.6).

use super::{caught_answer, held_kind, held_notice_as, holds_over, is_looser, rewritten_by_users};
use crate::policy;
use crate::refusals::Attempt;
use crate::state::State;
use events::{CxExt, ToolCheck};
use fnhooks::{Channel, Cx, Event, EventType, FailureKind, HookFailure, HookResult, Next, Tier};
use permissions::Verdict;
use serde_json::Value;
use std::sync::Arc;

/// The `tool.check` hook (SPEC §3.6 steps 1–7): run the chain; when a `user`/`prepend`
/// link rewrote the verdict without tightening it and deny rules hold, evaluate the
/// question past the user tier and return that verdict whole when it holds, telling the
/// person once per (plugins, kind).
///
/// Takes the plugin instance's state, the hook's `cx`, the event and `next`; returns a
/// verdict.
///
/// # Errors
///
/// The chain's own error, returned as it came; a failure (so that the failure handler
/// answers) when the evaluation past the user tier gives no verdict.
///
/// SPEC §3.6
pub async fn check(state: Arc<State>, cx: Cx, e: Event, next: Next) -> HookResult {
    let tool_use_id = state.observer.as_ref().and_then(|_| {
        e.fields
            .get("tool_use_id")
            .and_then(serde_json::Value::as_str)
            .map(ToOwned::to_owned)
    });
    let answer = next.run(e.clone()).await;
    // Only the entries that changed something can have rewritten the verdict: the
    // others are not copied (SPEC §3.6 step 2).
    let mods = rewritten_by_users(&next.trace_of_changes());
    let tell = |held: bool| {
        if let Some(o) = &state.observer {
            (o.0)(&crate::state::CheckNote {
                tool_use_id: tool_use_id.clone(),
                rewritten_by: mods.clone(),
                held,
            });
        }
    };
    let result = held_or_answer(&state, &cx, e, &next, answer, &mods).await;
    tell(matches!(&result, Ok((_, true))));
    result.map(|(answer, _)| answer)
}

/// The rest of [`check`]: the answer, and whether it is the verdict past the user tier
/// held over theirs.
async fn held_or_answer(
    state: &State,
    cx: &Cx,
    e: Event,
    next: &Next,
    answer: fnhooks::Answer,
    mods: &[String],
) -> Result<(fnhooks::Reply, bool), fnhooks::HookError> {
    if mods.is_empty() {
        return Ok((answer?, false));
    }
    let policy = policy::read(cx).await.ok();
    if !policy::deny_rules_hold(policy.as_deref()) {
        return Ok((answer?, false));
    }

    // A question that is not a `tool.check` of its shape is the core's to refuse.
    let Some(question) = ToolCheck::read(&e) else {
        return Ok((answer?, false));
    };
    let tool = question.tool;
    let held_answer = next.to(e, Tier::Append).await;
    let (Ok(held_value), Some(held)) = (&held_answer, super::verdict_of(&held_answer)) else {
        return Err(HookFailure::new(
            FailureKind::Error,
            "the check past the user tier gave no verdict",
        )
        .into());
    };
    if !holds_over(&held, &answer) {
        return Ok((answer?, false));
    }

    let kind = if held.uncertain && held.rule.is_some() {
        uncertain_rule_kind(cx, &held).await
    } else {
        held_kind(&held)
    };
    let attempt = if is_looser(&answer, &held) {
        Attempt::Lift
    } else {
        Attempt::Reword
    };
    for plugins in mods {
        if state.first_telling(format!("{plugins} {kind}")) {
            // The notice is best effort: a log line that fails changes no verdict.
            let _logged = cx
                .log(
                    held_notice_as(plugins, &tool, &held, &kind, attempt),
                    Channel::Screen,
                )
                .await;
        }
    }
    Ok((held_value.clone(), true))
}

/// The failure handler of [`check`]: take what the failed hook's last run settled on
/// (or run the remainder now, when it never called `next`); where deny rules hold (fail
/// closed) return it only when it is a verdict no `user`/`prepend` link rewrote, else an
/// unchecked deny; where they do not hold, return it.
///
/// Takes what a hook takes; returns a verdict.
///
/// # Errors
///
/// Where deny rules do not hold, the last run's own error, returned as it came.
///
/// SPEC §3.6 (failure handler)
pub async fn check_failed(cx: Cx, e: Event, next: Next) -> HookResult {
    let last = next.run(e).await;
    let trace = next.trace();
    let policy = policy::read(&cx).await.ok();
    if policy::deny_rules_hold(policy.as_deref()) {
        let kind = next.error().map_or(FailureKind::Error, |f| f.kind);
        return Ok(caught_answer(last.as_ref().ok().map(|r| &**r), &trace, kind).into());
    }
    Ok(last?)
}

/// The own kind of the rule an uncertain ask carries (SPEC §3.6.1 **\[decision\]**): a
/// `deny rule` when the settings source the verdict names lists it under
/// `permissions.deny`, else an `ask rule`. The source is read through `settings.read`
/// (held past the user tier, §3.1); a source that cannot be read leaves it an ask rule.
async fn uncertain_rule_kind(cx: &Cx, held: &Verdict) -> String {
    let source = held.source.as_deref().unwrap_or("merged");
    let rule = held.rule.as_deref().unwrap_or_default();
    let settings = cx.settings_read(source).await;
    let denied = settings.ok().is_some_and(|s| {
        s.pointer("/permissions/deny")
            .and_then(Value::as_array)
            .is_some_and(|deny| deny.iter().any(|r| r.as_str() == Some(rule)))
    });
    if denied { "deny rule" } else { "ask rule" }.to_owned()
}
