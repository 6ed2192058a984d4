//! `env.set` — pinned variables (SPEC §3.8).
//!
//! A variable is pinned when managed `env` sets it (any letter case), when it is
//! `CLAUDE_CODE_PROCESS_WRAPPER` and managed `processWrapper` names a launcher, and
//! always for the nine [`POLICY_SOURCE_VARIABLES`] and the ten
//! [`CODE_LOADING_VARIABLES`]. With no policy to read every variable counts as pinned.
//! All names are compared case-insensitively; `allowModsToOverrideDenyRules` does not
//! unpin.

use crate::policy;
use crate::refusals;
pub use crate::refusals::PinReason;
use ::policy::ManagedSettings;
use events::EnvSet;
use fnhooks::{Cx, Event, EventType, HookResult, Next, Tier};
use serde_json::json;

/// The nine variables that move where policy and sign-in are read from or how policy
/// tiers compose: always pinned.
///
/// SPEC §3.8
pub const POLICY_SOURCE_VARIABLES: [&str; 9] = [
    "CLAUDE_CODE_MANAGED_SETTINGS_PATH",
    "CLAUDE_CODE_REMOTE_SETTINGS_PATH",
    "CLAUDE_CODE_MOCK_REMOTE_SETTINGS",
    "CLAUDE_CODE_DISABLE_ADMIN_ENV_UNION",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_SECURESTORAGE_CONFIG_DIR",
    "USE_LOCAL_OAUTH",
    "USE_STAGING_OAUTH",
    "CLAUDE_LOCAL_OAUTH_API_BASE",
];

/// The ten variables that can load code into a child the engine starts: always pinned.
///
/// SPEC §3.8
pub const CODE_LOADING_VARIABLES: [&str; 10] = [
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "DYLD_FRAMEWORK_PATH",
    "BASH_ENV",
    "ENV",
    "ZDOTDIR",
    "NODE_OPTIONS",
];

/// The variable managed `processWrapper` pins.
///
/// SPEC §3.8
pub const PROCESS_WRAPPER_VARIABLE: &str = "CLAUDE_CODE_PROCESS_WRAPPER";

fn same_name(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b) || a.to_lowercase() == b.to_lowercase()
}

/// Why `name` is pinned, if it is.
///
/// Takes the policy read (`None` when it failed) and the variable's name; returns the
/// first reason that applies, in the order managed `env`, `processWrapper`, the nine,
/// the ten, and (with no policy) `the policy cannot be read`; `None` when the variable
/// is a person's plugin's to set.
///
/// SPEC §3.8
#[must_use]
pub fn pinned_why(policy: Option<&ManagedSettings>, name: &str) -> Option<PinReason> {
    if let Some(p) = policy {
        if p.env_names.iter().any(|n| same_name(n, name)) {
            return Some(PinReason::ManagedEnv);
        }
        if p.process_wrapper.is_some() && same_name(PROCESS_WRAPPER_VARIABLE, name) {
            return Some(PinReason::ProcessWrapper);
        }
    }
    if POLICY_SOURCE_VARIABLES.iter().any(|n| same_name(n, name)) {
        return Some(PinReason::PolicySource);
    }
    if CODE_LOADING_VARIABLES.iter().any(|n| same_name(n, name)) {
        return Some(PinReason::CodeLoading);
    }
    policy.is_none().then_some(PinReason::PolicyUnreadable)
}

/// Every name pinned under this policy (SPEC §3.8): the managed `env` names (dropped
/// ones included), `CLAUDE_CODE_PROCESS_WRAPPER` where `processWrapper` names a launcher,
/// the nine policy-source variables and the ten code-loading ones; deduplicated in any
/// letter case, in that order. What `sec-default policy show` lists.
#[must_use]
pub fn pinned_names(policy: &ManagedSettings) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let wrapper = policy
        .process_wrapper
        .is_some()
        .then_some(PROCESS_WRAPPER_VARIABLE);
    let all = policy
        .env_names
        .iter()
        .map(String::as_str)
        .chain(wrapper)
        .chain(POLICY_SOURCE_VARIABLES)
        .chain(CODE_LOADING_VARIABLES);
    for n in all {
        if !names.iter().any(|m| same_name(m, n)) {
            names.push(n.to_owned());
        }
    }
    names
}

/// The `env.set` hook: an org caller continues past the user tier; a pinned variable
/// refuses a `user` caller by name and continues past the user tier for a
/// `builtin`/`core` caller; any other variable passes.
///
/// Takes the hook's `cx`, the event `{name, value}` and `next`; returns `{}` (from the
/// chain) or `{deny: message}`.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.8
pub async fn env_set(cx: Cx, e: Event, next: Next) -> HookResult {
    let origin = next.origin().clone();
    if origin.tier.is_managed() {
        return Ok(next.to(e, Tier::Append).await?);
    }
    // An `env.set` that names no variable is the core's to refuse (SPEC §3.8).
    let Some(EnvSet { name, .. }) = EnvSet::read(&e) else {
        return Ok(next.run(e).await?);
    };
    let policy = policy::read(&cx).await.ok();
    let Some(why) = pinned_why(policy.as_deref(), &name) else {
        return Ok(next.run(e).await?);
    };
    if origin.tier == Tier::User {
        Ok(json!({ "deny": refusals::pinned_refusal(&name, why) }).into())
    } else {
        Ok(next.to(e, Tier::Append).await?)
    }
}

/// The failure handler of [`env_set`]: if the hook had called `next`, that run's
/// result; otherwise a `user` caller is refused (`the policy cannot be read`, since the
/// check could not be completed) and any other caller continues past the user tier.
///
/// Takes what a hook takes; returns what [`env_set`] returns.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.8 (failure handler)
pub async fn env_set_failed(_cx: Cx, e: Event, next: Next) -> HookResult {
    if next.called() {
        return Ok(next.run(e).await?);
    }
    let origin = next.origin().clone();
    if origin.tier == Tier::User {
        // An `env.set` that names no variable is the core's to refuse (SPEC §3.8).
        let Some(EnvSet { name, .. }) = EnvSet::read(&e) else {
            return Ok(next.run(e).await?);
        };
        Ok(json!({
            "deny": refusals::pinned_refusal(&name, PinReason::PolicyUnreadable)
        })
        .into())
    } else {
        Ok(next.to(e, Tier::Append).await?)
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;
    use serde_json::json;

    fn policy(v: serde_json::Value) -> ManagedSettings {
        ManagedSettings::from_value(&v)
    }

    #[test]
    fn the_nineteen_are_always_pinned_in_any_case() {
        let empty = policy(json!({}));
        for name in POLICY_SOURCE_VARIABLES {
            assert_eq!(
                pinned_why(Some(&empty), name),
                Some(PinReason::PolicySource)
            );
            assert_eq!(
                pinned_why(Some(&empty), &name.to_lowercase()),
                Some(PinReason::PolicySource)
            );
            assert_eq!(pinned_why(None, name), Some(PinReason::PolicySource));
        }
        for name in CODE_LOADING_VARIABLES {
            assert_eq!(pinned_why(Some(&empty), name), Some(PinReason::CodeLoading));
            assert_eq!(
                pinned_why(Some(&empty), &name.to_lowercase()),
                Some(PinReason::CodeLoading)
            );
        }
        assert_eq!(
            pinned_why(Some(&empty), "Ld_Preload"),
            Some(PinReason::CodeLoading)
        );
        assert_eq!(
            POLICY_SOURCE_VARIABLES.len() + CODE_LOADING_VARIABLES.len(),
            19
        );
    }

    #[test]
    fn managed_env_in_any_case_and_dropped_names() {
        let p = policy(json!({
            "env": { "HTTPS_PROXY": "http://proxy" },
            "managedEnvDropped": ["RETRIES"]
        }));
        assert_eq!(
            pinned_why(Some(&p), "HTTPS_PROXY"),
            Some(PinReason::ManagedEnv)
        );
        assert_eq!(
            pinned_why(Some(&p), "https_proxy"),
            Some(PinReason::ManagedEnv)
        );
        assert_eq!(pinned_why(Some(&p), "Retries"), Some(PinReason::ManagedEnv));
        assert_eq!(pinned_why(Some(&p), "EDITOR"), None);
        // a managed env name that is also always pinned reads as managed env
        let p = policy(json!({ "env": { "NODE_OPTIONS": "--x" } }));
        assert_eq!(
            pinned_why(Some(&p), "node_options"),
            Some(PinReason::ManagedEnv)
        );
    }

    #[test]
    fn process_wrapper_pins_its_variable_only_when_set() {
        let p = policy(json!({ "processWrapper": "/usr/bin/wrap" }));
        assert_eq!(
            pinned_why(Some(&p), "claude_code_process_wrapper"),
            Some(PinReason::ProcessWrapper)
        );
        let p = policy(json!({}));
        assert_eq!(pinned_why(Some(&p), PROCESS_WRAPPER_VARIABLE), None);
    }

    #[test]
    fn with_no_policy_every_variable_is_pinned() {
        assert_eq!(
            pinned_why(None, "EDITOR"),
            Some(PinReason::PolicyUnreadable)
        );
        assert_eq!(pinned_why(None, ""), Some(PinReason::PolicyUnreadable));
    }

    #[test]
    fn override_option_does_not_unpin() {
        let p = policy(json!({
            "pluginConfigs": { "cc-plugin-sec-default@builtin": { "options": { "allowModsToOverrideDenyRules": true } } }
        }));
        assert_eq!(
            pinned_why(Some(&p), "LD_PRELOAD"),
            Some(PinReason::CodeLoading)
        );
    }
}
