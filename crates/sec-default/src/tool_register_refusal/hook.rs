//! The `tool.register` hook (SPEC §3.4).

use super::vouched_id;
use crate::policy;
use crate::refusals::{register_refusal, RegisterWhy};
use crate::state::State;
use events::{registered_tool_name, ToolRegister};
use fnhooks::{Cx, Event, EventType, HookResult, Next, Tier};
use serde_json::json;
use std::sync::Arc;

/// The `tool.register` hook: an org caller continues past the user tier; a `user`
/// caller is judged (a failed policy read refuses); a `builtin`/`core` caller passes.
///
/// Takes the plugin instance's state (the ids heard at admission), the hook's `cx`, the
/// event `{name}` (`next.origin` is the registering plugin) and `next`; returns
/// `{registered}` from the chain or `{deny: message}`.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.4
pub async fn tool_register(state: Arc<State>, cx: Cx, e: Event, next: Next) -> HookResult {
    let origin = next.origin().clone();
    if origin.tier.is_managed() {
        return Ok(next.to(e, Tier::Append).await?);
    }
    // A `tool.register` that names no tool is the core's to refuse.
    let Some(ToolRegister { name: tool, .. }) = ToolRegister::read(&e) else {
        return Ok(next.run(e).await?);
    };
    let tool = tool.as_str();
    if origin.tier == Tier::User {
        let recorded = state.admitted_as(&origin.id);
        let refusal = match policy::read(&cx).await {
            Ok(p) => state
                .reserved_scopes(&p)
                .why_refused(&origin.plugin, tool, vouched_id(&p, recorded.as_ref()))
                .map(|why| {
                    register_refusal(
                        &origin.plugin,
                        &registered_tool_name(&origin.plugin, tool),
                        &why,
                    )
                }),
            Err(_) => Some(register_refusal(
                &origin.plugin,
                &registered_tool_name(&origin.plugin, tool),
                &RegisterWhy::PolicyUnreadable,
            )),
        };
        if let Some(message) = refusal {
            return Ok(json!({ "deny": message }).into());
        }
    }
    Ok(next.run(e).await?)
}

/// The `tool.register` hook's failure handler (fail closed, SPEC §5 invariant 6; the
/// seed catches only the policy read inside the hook, this also covers a hook that timed
/// out or panicked): when the hook had called `next`, its last run stands; otherwise a
/// `user` caller is refused as when the policy cannot be read, and any other caller
/// continues past the user tier.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.4 step 1, §5
pub async fn tool_register_failed(_cx: Cx, e: Event, next: Next) -> HookResult {
    if next.called() {
        return Ok(next.run(e).await?);
    }
    let origin = next.origin().clone();
    if origin.tier == Tier::User {
        // A `tool.register` that names no tool is the core's to refuse.
        let Some(ToolRegister { name: tool, .. }) = ToolRegister::read(&e) else {
            return Ok(next.run(e).await?);
        };
        let tool = tool.as_str();
        let message = register_refusal(
            &origin.plugin,
            &registered_tool_name(&origin.plugin, tool),
            &RegisterWhy::PolicyUnreadable,
        );
        return Ok(json!({ "deny": message }).into());
    }
    Ok(next.to(e, Tier::Append).await?)
}
