//! What the audit says of the policy itself, beside the attacks: its classic hooks
//! with the attacks each met (SPEC §4 "Classic hooks"), whether the security default
//! is seated (SPEC §2.3), and what the policy leaves open (advice, not breaches).

use super::attacks::{self, Attack};
use super::report::HookRow;
use super::synth;
use permissions::classic::{ClassicHooks, HandlerKind, PRE_TOOL_USE};
use permissions::SettingsSource;
use policy::{ManagedSettings, Policy, SourceKind};
use serde_json::Value;
use session::SessionConfig;
use std::path::Path;

/// The policy's classic hooks (SPEC §4 "Classic hooks"), each with the attacks whose
/// `tool.check` call it matches: the calls a session would have run it for.
pub(super) fn hook_rows(policy: &Policy, folder: &Path, catalogue: &[Attack]) -> Vec<HookRow> {
    let settings = Value::Object(policy.settings.clone());
    let (hooks, _) = ClassicHooks::from_sources(&[(SettingsSource::Policy, &settings)]);
    let facts = SessionConfig::new(folder, Path::new(synth::CWD), Path::new(synth::HOME)).facts;
    let settings_files: Vec<&Path> = policy
        .sources
        .iter()
        .filter(|s| s.kind != SourceKind::Mcp)
        .map(|s| s.path.as_path())
        .collect();
    // With drop-ins, matcher groups are concatenated across files: the pointer is the
    // merged settings'.
    let file = match settings_files.as_slice() {
        [one] => one
            .strip_prefix(folder)
            .unwrap_or(one)
            .display()
            .to_string(),
        _ => "managed settings (merged)".to_owned(),
    };
    hooks
        .handlers()
        .map(|h| {
            let mut labels: Vec<String> = Vec::new();
            let mut rows = 0;
            let label = attacks::managed_hook_label(&h.event);
            if h.event != PRE_TOOL_USE && catalogue.iter().any(|a| a.label == label) {
                rows = 1;
                labels.push(label);
            }
            if h.event == PRE_TOOL_USE {
                for attack in catalogue {
                    let Some(call) = attack.call() else { continue };
                    let met = hooks
                        .matching(PRE_TOOL_USE, &call.tool, &call.input, &facts)
                        .iter()
                        .any(|m| m.pointer == h.pointer);
                    if met {
                        rows += 1;
                        if !labels.contains(&attack.label) {
                            labels.push(attack.label.clone());
                        }
                    }
                }
            }
            HookRow {
                event: h.event.clone(),
                matcher: h.matcher.clone(),
                command: h.name(),
                file: file.clone(),
                pointer: h.pointer.clone(),
                unrunnable: match &h.kind {
                    HandlerKind::Unrunnable(why) => Some(why.clone()),
                    HandlerKind::Command { .. } => None,
                },
                attacks: labels,
                rows,
            }
        })
        .collect()
}

/// Why the security default is or is not seated (SPEC §2.3).
pub(super) fn seating(policy: &Policy, seated: bool) -> String {
    let listed = policy.settings.contains_key("prependPlugins");
    match (seated, listed) {
        (true, true) => format!(
            "seated first in prepend ({} is in prependPlugins)",
            policy::SEC_DEFAULT_ID
        ),
        (true, false) => {
            "seated first in prepend (no prependPlugins: the engine seats it)".to_owned()
        }
        (false, _) => format!(
            "NOT seated: prependPlugins does not name {}, so none of its holds exist",
            policy::SEC_DEFAULT_ID
        ),
    }
}

/// What the policy itself leaves open: advice, not breaches.
pub(super) fn advice(policy: &Policy, m: &ManagedSettings) -> Vec<String> {
    let mut out = Vec::new();
    let listed_prepend = policy.settings.contains_key("prependPlugins");
    let names_us = m
        .prepend_plugins
        .iter()
        .any(|id| policy::ids_equal(id, policy::SEC_DEFAULT_ID));
    if listed_prepend && !names_us {
        out.push(format!(
            "prependPlugins does not name {}: the security default is not seated; add it first",
            policy::SEC_DEFAULT_ID
        ));
    }
    if m.deny.is_empty() {
        out.push("no managed deny rules (permissions.deny): nothing is denied over a person's plugins at tool.check".to_owned());
    }
    if m.ask.is_empty() {
        out.push(
            "no managed ask rules (permissions.ask): only the mode's own asks stand".to_owned(),
        );
    }
    if !m.allow_managed_permission_rules_only {
        out.push(
            "allowManagedPermissionRulesOnly is off: a person's settings may add allow rules (they never beat managed deny or ask rules)"
                .to_owned(),
        );
    }
    if !m.disable_bypass_permissions_mode {
        out.push(
            "permissions.disableBypassPermissionsMode is not \"disable\": in bypassPermissions mode, what no rule denies or asks runs unasked"
                .to_owned(),
        );
    }
    if m.env_names.is_empty() {
        out.push("no managed env: only the 19 always-pinned variables are pinned".to_owned());
    }
    if m.allowed_mcp_servers.is_none() {
        out.push(
            "allowedMcpServers is not set: a person's plugins may register MCP tools under any name that does not fold to the organization's servers or plugins"
                .to_owned(),
        );
    }
    if m.managed_mcp_servers.is_empty() && !m.managed_mcp_servers_unreadable {
        out.push("no managedMcpServers and no managed-mcp.json servers: no MCP server name is reserved for the organization".to_owned());
    }
    if m.managed_mcp_servers_unreadable {
        out.push(
            "managed-mcp.json (or managedMcpServers) cannot be read whole: every person-tier tool registration is refused until it is fixed"
                .to_owned(),
        );
    }
    if !m.options.allow_managed_mods_only {
        out.push(format!(
            "allowManagedModsOnly is off (pluginConfigs[\"{}\"].options): a person's hook modules load; what the security default holds still holds over them",
            policy::SEC_DEFAULT_ID
        ));
    }
    if m.options.allow_mods_to_override_deny_rules {
        out.push(
            "allowModsToOverrideDenyRules is on: a person's plugin may lift managed deny and ask rules (the rule attacks above show it)"
                .to_owned(),
        );
    }
    if !listed_prepend {
        out.push(
            "no prependPlugins: no organization plugin is seated ahead of the person's".to_owned(),
        );
    }
    if attacks::org_plugins(m).is_empty() {
        out.push("no org plugins (prependPlugins, appendPlugins, enabledPlugins): no plugin name is reserved for the organization".to_owned());
    }
    out
}
