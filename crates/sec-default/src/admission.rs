//! `plugin.register` — managed mods only (SPEC §3.9).

use crate::policy;
use crate::refusals;
use crate::state::State;
use events::{CxExt, PluginRegister};
use fnhooks::{Channel, Cx, Event, EventType, FailureKind, HookFailure, HookResult, Next, Tier};
use serde_json::json;
use std::sync::Arc;

/// The `plugin.register` hook (registered for `user`-tier modules only): record the
/// provenance heard, keyed by id; then refuse when `allowManagedModsOnly` is on, else
/// pass.
///
/// Takes the plugin instance's state, the hook's `cx`, the event `{name, tier,
/// provenance}` and `next`; returns `{admitted: true}` from the chain or
/// `{refuse: message}`.
///
/// # Errors
///
/// A failure when the policy cannot be read (the failure handler then refuses), or the
/// chain's own error, returned as it came.
///
/// SPEC §3.9
pub(crate) async fn admit(state: Arc<State>, cx: Cx, e: Event, next: Next) -> HookResult {
    let module = PluginRegister::read(&e);
    // Only the engine admits modules: a `plugin.register` a plugin raises itself (through
    // its `cx`) is judged like any other, but what it claims is never recorded as heard
    // at admission, so no plugin can forge the provenance §3.4's exemption keys on.
    if let (Some(m), Tier::Core) = (&module, next.origin().tier) {
        state.admit(&m.provenance, m.source);
    }
    let policy = policy::read(&cx).await?;
    if policy::managed_mods_only(Some(&policy)) {
        // A module the event does not name is refused under no name.
        let name = module.map(|m| m.name).unwrap_or_default();
        return Ok(json!({ "refuse": refusals::managed_mods_only(&name) }).into());
    }
    Ok(next.run(e).await?)
}

/// The failure handler of [`admit`]: write the failure to the debug log; if the hook had
/// called `next`, return that result, else refuse with the `allowManagedModsOnly` line.
///
/// Takes what a hook takes; returns what [`admit`] returns.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.9 (failure handler)
pub(crate) async fn admit_failed(cx: Cx, e: Event, next: Next) -> HookResult {
    // A module the event does not name is refused under no name.
    let name = PluginRegister::read(&e).map(|m| m.name).unwrap_or_default();
    let failure = next.error().unwrap_or(HookFailure {
        kind: FailureKind::Error,
        message: None,
    });
    // Best effort: a log line that fails changes no admission.
    let _logged = cx
        .log(refusals::admission_failure(&name, &failure), Channel::Debug)
        .await;
    if next.called() {
        return Ok(next.run(e).await?);
    }
    Ok(json!({ "refuse": refusals::managed_mods_only(&name) }).into())
}
