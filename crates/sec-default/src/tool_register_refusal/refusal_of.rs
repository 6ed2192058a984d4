//! The judgement of a `user` registration (SPEC §3.4 steps 2–6 and the exemption).

use crate::fold::{folds_to_nothing, reads_as};
use crate::policy::org_plugins;
use crate::refusals::{register_refusal, RegisterWhy};
use policy::{ids_equal, EnabledPlugin, ManagedSettings};

/// The id that vouches for the caller (SPEC §3.4 exemption): its recorded id, when
/// managed `enabledPlugins` turns that id on with the literal `true` (compared NFC then
/// lower case). A version list, `<name>@inline`, another marketplace or an id listed only
/// in `prependPlugins`/`appendPlugins` never vouches.
///
/// Takes the policy read and the caller's recorded id (the provenance heard at its
/// admission); returns the `enabledPlugins` id that vouches, if any.
///
/// SPEC §3.4 (exemption)
#[must_use]
pub fn vouched_id<'p>(policy: &'p ManagedSettings, recorded_id: Option<&str>) -> Option<&'p str> {
    let recorded = recorded_id?;
    policy
        .enabled_plugins
        .iter()
        .find(|(id, state)| *state == EnabledPlugin::On && ids_equal(id, recorded))
        .map(|(id, _)| id.as_str())
}

/// Why a `user` plugin's registration is refused (SPEC §3.4 steps 2–5), if it is.
///
/// Takes the policy read, the registering plugin's manifest name, the tool's own name
/// and the caller's recorded id (for the exemption); returns the reason, `None` to pass.
/// Step 5 (a reserved name that folds to nothing) is judged before step 4, whose scopes
/// such a name would cover anyway, so that the message says why.
///
/// SPEC §3.4
#[must_use]
pub fn why_refused(
    policy: &ManagedSettings,
    plugin: &str,
    tool: &str,
    recorded_id: Option<&str>,
) -> Option<RegisterWhy> {
    if policy.managed_mcp_servers_unreadable {
        return Some(RegisterWhy::ServersUnreadable);
    }
    if policy.allowed_mcp_servers.is_some() {
        return Some(RegisterWhy::Allowlist);
    }
    let plugins = org_plugins(policy);
    let nameless = policy
        .managed_mcp_servers
        .iter()
        .any(|s| folds_to_nothing(s))
        || plugins
            .iter()
            .any(|p| p.name_forms().iter().any(|n| folds_to_nothing(n)));
    if nameless {
        return Some(RegisterWhy::NamelessReserved);
    }

    let full = fnhooks::registered_tool_name(plugin, tool);
    let vouched = vouched_id(policy, recorded_id);
    reserved_scopes(policy)
        .into_iter()
        .filter(|r| {
            // A plugin keeps its own name: the exemption lifts its own plugin scopes only.
            !(r.plugin_id.as_deref()).is_some_and(|id| vouched.is_some_and(|v| ids_equal(v, id)))
        })
        .find(|r| reads_as(&full, &r.scope))
        .map(|r| r.why)
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
/// and the caller's recorded id; returns the message
/// `<plugin> may not register <full name>: <why>`, or `None` to pass.
///
/// SPEC §3.4, §3.4.1
#[must_use]
pub fn register_refusal_of(
    policy: &ManagedSettings,
    plugin: &str,
    tool: &str,
    recorded_id: Option<&str>,
) -> Option<String> {
    let why = why_refused(policy, plugin, tool, recorded_id)?;
    Some(register_refusal(
        plugin,
        &fnhooks::registered_tool_name(plugin, tool),
        &why,
    ))
}
