//! The judgement of a `user` registration (SPEC §3.4 steps 2–6 and the exemption).

use crate::fold::{fold, folds_to_nothing};
use crate::policy::org_plugins;
use crate::refusals::{register_refusal, RegisterWhy};
use crate::state::Admitted;
use fnhooks::CopySource;
use policy::{ids_equal, EnabledPlugin, ManagedSettings};
use std::collections::HashMap;

/// The id that vouches for the caller (SPEC §3.4 exemption): its recorded id, when
/// managed `enabledPlugins` turns that id on with the literal `true` (compared NFC then
/// lower case) **and** the loader read this copy in place from a `directory`
/// marketplace that managed settings name (**\[decision\]**). A version list,
/// `<name>@inline` (in any letter case, even where managed `enabledPlugins` lists it), a
/// copy from a `git`, `github` or `npm` marketplace, a cached copy, a copy whose source
/// the engine did not say, another marketplace, or an id listed only in
/// `prependPlugins`/`appendPlugins` never vouches.
///
/// Takes the policy read and what was heard at the caller's admission (its provenance
/// and copy source); returns the `enabledPlugins` id that vouches, if any.
///
/// SPEC §3.4 (exemption)
#[must_use]
pub fn vouched_id<'p>(policy: &'p ManagedSettings, heard: Option<&Admitted>) -> Option<&'p str> {
    let heard = heard?;
    if heard.source != Some(CopySource::Directory) || ::policy::is_inline_id(&heard.provenance) {
        return None;
    }
    policy
        .enabled_plugins
        .iter()
        .find(|(id, state)| *state == EnabledPlugin::On && ids_equal(id, &heard.provenance))
        .map(|(id, _)| id.as_str())
}

/// Why a `user` plugin's registration is refused (SPEC §3.4 steps 2–5), if it is.
///
/// Takes the policy read, the registering plugin's manifest name, the tool's own name
/// and what was heard at the caller's admission (for the exemption); returns the
/// reason, `None` to pass. Builds the policy's [`ReservedScopes`] for this one
/// judgement; a caller judging many registrations under one policy builds them once and
/// calls [`ReservedScopes::why_refused`].
///
/// SPEC §3.4
#[must_use]
pub fn why_refused(
    policy: &ManagedSettings,
    plugin: &str,
    tool: &str,
    heard: Option<&Admitted>,
) -> Option<RegisterWhy> {
    ReservedScopes::new(policy).why_refused(plugin, tool, vouched_id(policy, heard))
}

/// Everything a policy reserves against `user` registrations, compiled once (SPEC §3.4
/// steps 2–5): the two marks that refuse every registration, whether a reserved name
/// folds to nothing, and every reserved scope indexed by its fold, so that judging a
/// name costs a few look-ups, whatever the number of scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservedScopes {
    unreadable: bool,
    allowlist: bool,
    nameless: bool,
    scopes: Vec<ReservedScope>,
    /// `fold(scope)` -> indices into `scopes`, in policy order.
    by_fold: HashMap<String, Vec<usize>>,
}

impl ReservedScopes {
    /// Compiles the policy's reservations.
    ///
    /// SPEC §3.4
    #[must_use]
    pub fn new(policy: &ManagedSettings) -> Self {
        let scopes = reserved_scopes(policy);
        let nameless = policy
            .managed_mcp_servers
            .iter()
            .any(|s| folds_to_nothing(s))
            || org_plugins(policy)
                .iter()
                .any(|p| p.name_forms().iter().any(|n| folds_to_nothing(n)));
        let mut by_fold: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, r) in scopes.iter().enumerate() {
            by_fold.entry(fold(&r.scope)).or_default().push(i);
        }
        ReservedScopes {
            unreadable: policy.managed_mcp_servers_unreadable,
            allowlist: policy.allowed_mcp_servers.is_some(),
            nameless,
            scopes,
            by_fold,
        }
    }

    /// Why a `user` plugin's registration of `tool` is refused, if it is: steps 2, 3
    /// and 5, then the first reserved scope (in policy order) that `mcp__<plugin>__<tool>`
    /// reads as after folding, skipping the scopes of the plugin `vouched` names (the
    /// exemption: an id managed `enabledPlugins` turns on with `true`).
    ///
    /// SPEC §3.4, §3.4.1
    #[must_use]
    pub fn why_refused(
        &self,
        plugin: &str,
        tool: &str,
        vouched: Option<&str>,
    ) -> Option<RegisterWhy> {
        if self.unreadable {
            return Some(RegisterWhy::ServersUnreadable);
        }
        if self.allowlist {
            return Some(RegisterWhy::Allowlist);
        }
        if self.nameless {
            return Some(RegisterWhy::NamelessReserved);
        }
        let full = fold(&events::registered_tool_name(plugin, tool));
        // Every folded scope ends in `_`: the name reads as a scope exactly when one of
        // its prefixes that ends in `_` is that scope's fold.
        full.char_indices()
            .filter(|(_, c)| *c == '_')
            .filter_map(|(at, _)| full.get(..=at))
            .filter_map(|prefix| self.by_fold.get(prefix))
            .flatten()
            .copied()
            .filter(|i| {
                self.scopes.get(*i).is_some_and(|r| {
                    // A plugin keeps its own name: the exemption lifts its own scopes only.
                    !r.plugin_id
                        .as_deref()
                        .is_some_and(|id| vouched.is_some_and(|v| ids_equal(v, id)))
                })
            })
            .min()
            .and_then(|i| self.scopes.get(i))
            .map(|r| r.why.clone())
    }

    /// The reserved scopes, in policy order.
    #[must_use]
    pub fn scopes(&self) -> &[ReservedScope] {
        &self.scopes
    }
}

/// One reserved tool-name scope (SPEC §3.4 step 4): the scope as the engine spells it,
/// why it is reserved, and, for a plugin's scopes, the plugin's id as policy lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReservedScope {
    /// `mcp__<server>__`, `mcp__<plugin>__` or `mcp__plugin_<plugin>_`.
    pub scope: String,
    /// The refusal's reason when a registration reads as this scope.
    pub why: RegisterWhy,
    /// For a plugin's scopes: the plugin's id as policy lists it (the exemption's key).
    pub plugin_id: Option<String>,
}

/// Every reserved tool-name scope of the policy, servers first, then the plugins the
/// organization seats itself (each under its name composed and decomposed), in policy
/// order (SPEC §3.4 step 4). The one list both the registration check and
/// `sec-default policy show` read.
#[must_use]
pub fn reserved_scopes(policy: &ManagedSettings) -> Vec<ReservedScope> {
    let mut scopes: Vec<ReservedScope> = policy
        .managed_mcp_servers
        .iter()
        .map(|s| ReservedScope {
            scope: format!("mcp__{s}__"),
            why: RegisterWhy::OrgServer(s.clone()),
            plugin_id: None,
        })
        .collect();
    for p in org_plugins(policy) {
        for name in p.name_forms() {
            scopes.push(ReservedScope {
                scope: format!("mcp__{name}__"),
                why: RegisterWhy::OrgPlugin(p.name.clone(), p.key),
                plugin_id: Some(p.id.clone()),
            });
            scopes.push(ReservedScope {
                scope: format!("mcp__plugin_{name}_"),
                why: RegisterWhy::OrgPluginServer(p.name.clone(), p.key),
                plugin_id: Some(p.id.clone()),
            });
        }
    }
    scopes
}

/// The refusal of a `user` plugin's registration (SPEC §3.4 steps 2–6), if refused.
///
/// Takes the policy read, the registering plugin's manifest name, the tool's own name
/// and what was heard at the caller's admission; returns the message
/// `<plugin> may not register <full name>: <why>`, or `None` to pass.
///
/// SPEC §3.4, §3.4.1
#[must_use]
pub fn register_refusal_of(
    policy: &ManagedSettings,
    plugin: &str,
    tool: &str,
    heard: Option<&Admitted>,
) -> Option<String> {
    let why = why_refused(policy, plugin, tool, heard)?;
    Some(register_refusal(
        plugin,
        &events::registered_tool_name(plugin, tool),
        &why,
    ))
}
