//! Predicates over the policy read (SPEC §2.2, §2.3).
//!
//! The policy is read through `settings.read({source: "policy"})` (SPEC §2.1); a read
//! that fails, or answers something that is not a settings object, counts as a policy
//! in force: every predicate here takes `Option<&ManagedSettings>` and answers the
//! strict way for `None` (fail closed).

mod org_plugins;
mod read;

pub use org_plugins::{org_plugins, OrgPlugin};
pub use read::{read, SOURCE};

use policy::ManagedSettings;

/// Whether deny rules (and every held verdict) hold over the user tier: unless
/// `allowModsToOverrideDenyRules` is the literal `true` in a policy that was read.
///
/// Takes the policy read (`None` when it failed); returns `true` when they hold.
///
/// SPEC §2.3, §3.6 step 4
#[must_use]
pub fn deny_rules_hold(policy: Option<&ManagedSettings>) -> bool {
    policy.is_none_or(|p| !p.options.allow_mods_to_override_deny_rules)
}

/// Whether only the organization's mods load (`allowManagedModsOnly` on, or the policy
/// cannot be read).
///
/// Takes the policy read (`None` when it failed); returns `true` when a `user` module
/// is refused.
///
/// SPEC §2.3, §3.9
#[must_use]
pub fn managed_mods_only(policy: Option<&ManagedSettings>) -> bool {
    policy.is_none_or(|p| p.options.allow_managed_mods_only)
}
