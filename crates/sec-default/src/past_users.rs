//! The plugin's first move: continue past the user tier (`next.to(e, append)`), for
//! every event, for org callers, or for org-provided subjects (SPEC §3.1, §3.3, §3.7).

use fnhooks::{Cx, Event, HookResult, Next, Tier};

/// Whether `tier` is one of the organization's (`prepend`, `append`), whose callers and
/// subjects are held past the user tier.
///
/// SPEC §3.2, §3.3, §3.7
#[must_use]
pub fn is_orgs(tier: Tier) -> bool {
    tier.is_managed()
}

/// Whether the subject is held as the organization's: its pinned `provider.tier` is
/// `prepend` or `append`, or **\[decision\]** its provenance cannot be told (no
/// `provider`, no `tier`, or a tier that is not one of the five): provenance fails
/// closed.
///
/// Takes the event; returns `false` only for a subject provided by `user`, `builtin` or
/// `core`.
///
/// SPEC §3.3
#[must_use]
pub fn is_provided_by_org(e: &Event) -> bool {
    events::Provider::of(e).is_none_or(|p| is_orgs(p.tier))
}

/// Continue past the user tier, always: `next.to(e, append)`.
///
/// Takes what a hook takes; returns the chain's answer from the `append` tier on.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.1
pub async fn always(_cx: Cx, e: Event, next: Next) -> HookResult {
    Ok(next.to(e, Tier::Append).await?)
}

/// Continue past the user tier when the caller (`next.origin.tier`) is the
/// organization's; otherwise pass.
///
/// Takes what a hook takes; returns the chain's answer.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.2 (`note` rows), §3.7
pub async fn if_org_caller(_cx: Cx, e: Event, next: Next) -> HookResult {
    if is_orgs(next.origin().tier) {
        Ok(next.to(e, Tier::Append).await?)
    } else {
        Ok(next.run(e).await?)
    }
}

/// Continue past the user tier when the subject's pinned `e.provider.tier` is the
/// organization's; otherwise pass.
///
/// Takes what a hook takes; returns the chain's answer.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.3
pub async fn if_provided_by_org(_cx: Cx, e: Event, next: Next) -> HookResult {
    if is_provided_by_org(&e) {
        Ok(next.to(e, Tier::Append).await?)
    } else {
        Ok(next.run(e).await?)
    }
}
