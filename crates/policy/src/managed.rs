//! The typed view of a policy read (SPEC §2.2, §2.3).

use serde_json::{Map, Value};

use crate::ids::SEC_DEFAULT_ID;
use crate::salvage::{
    check_plugin_configs, MANAGED_ENV_DROPPED, MANAGED_MCP_SERVERS, MANAGED_MCP_SERVERS_UNREADABLE,
};

/// What managed `enabledPlugins` says of one id.
///
/// SPEC §2.2
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnabledPlugin {
    /// `true`: force-enabled.
    On,
    /// `false`: blocked.
    Off,
    /// A list of versions: the id is *on by versions*.
    Versions(Vec<String>),
}

impl EnabledPlugin {
    /// `true` for [`EnabledPlugin::On`] and [`EnabledPlugin::Versions`] (a
    /// version list turns the id on).
    ///
    /// SPEC §2.2
    pub fn is_on(&self) -> bool {
        !matches!(self, EnabledPlugin::Off)
    }
}

/// The security default's two options (SPEC §2.3), read only under
/// `pluginConfigs["cc-plugin-sec-default@builtin"].options`.
///
/// SPEC §2.3
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SecDefaultOptions {
    /// `allowManagedModsOnly`: on unless absent or `false` (a mistyped
    /// `"true"` or `1` still locks).
    pub allow_managed_mods_only: bool,
    /// `allowModsToOverrideDenyRules`: off unless the literal `true`.
    pub allow_mods_to_override_deny_rules: bool,
}

impl SecDefaultOptions {
    /// Reads the options from a whole settings object: both unset when
    /// `pluginConfigs` breaks its schema (it is then ignored whole), when the
    /// security default has no entry, or when the entry has no `options`.
    ///
    /// SPEC §2.3
    pub fn from_settings(settings: &Map<String, Value>) -> SecDefaultOptions {
        let Some(configs) = settings.get("pluginConfigs") else {
            return SecDefaultOptions::default();
        };
        if check_plugin_configs(configs, "/pluginConfigs").is_err() {
            return SecDefaultOptions::default();
        }
        let options = configs
            .get(SEC_DEFAULT_ID)
            .and_then(|entry| entry.get("options"))
            .and_then(Value::as_object);
        let Some(options) = options else {
            return SecDefaultOptions::default();
        };
        SecDefaultOptions {
            allow_managed_mods_only: !matches!(
                options.get("allowManagedModsOnly"),
                None | Some(Value::Bool(false))
            ),
            allow_mods_to_override_deny_rules: matches!(
                options.get("allowModsToOverrideDenyRules"),
                Some(Value::Bool(true))
            ),
        }
    }
}

/// The keys the plugin reads, typed (SPEC §2.2). Built leniently from a
/// settings object: it never fails, since the read already salvaged; given
/// raw input, it reads fail-closed keys strictly (a present, non-`false`
/// `allowManaged*Only` is on; a present, non-array `allowedMcpServers` is
/// `[]`).
///
/// SPEC §2.2
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManagedSettings {
    /// `permissions.deny`, as written.
    pub deny: Vec<String>,
    /// `permissions.ask`, as written.
    pub ask: Vec<String>,
    /// `permissions.allow`, as written.
    pub allow: Vec<String>,
    /// Managed `env` entries with string values, in file order.
    pub env: Vec<(String, String)>,
    /// Every name under managed `env`, the dropped ones
    /// (`managedEnvDropped`) included: all pinned.
    pub env_names: Vec<String>,
    /// `processWrapper`, if set (not `null`): it names a launcher.
    pub process_wrapper: Option<Value>,
    /// `prependPlugins`.
    pub prepend_plugins: Vec<String>,
    /// `appendPlugins`.
    pub append_plugins: Vec<String>,
    /// `enabledPlugins`, in file order.
    pub enabled_plugins: Vec<(String, EnabledPlugin)>,
    /// `allowedMcpServers`: `Some` when set at all, even `[]` (an allowlist is
    /// then in force).
    pub allowed_mcp_servers: Option<Vec<Value>>,
    /// The managed MCP server names (the read's `managedMcpServers`).
    pub managed_mcp_servers: Vec<String>,
    /// The read's `managedMcpServersUnreadable`.
    pub managed_mcp_servers_unreadable: bool,
    /// The security default's options.
    pub options: SecDefaultOptions,
    /// `allowManagedPermissionRulesOnly`.
    pub allow_managed_permission_rules_only: bool,
    /// `allowManagedHooksOnly` (classic settings hooks only).
    pub allow_managed_hooks_only: bool,
    /// `allowManagedMcpServersOnly`.
    pub allow_managed_mcp_servers_only: bool,
    /// `permissions.blockReadsOutsideWorkingDirectories` is `true`.
    pub block_reads_outside_working_directories: bool,
    /// `permissions.disableBypassPermissionsMode` is `"disable"`.
    pub disable_bypass_permissions_mode: bool,
    /// `strictKnownMarketplaces`, when set.
    pub strict_known_marketplaces: Option<Vec<Value>>,
}

impl ManagedSettings {
    /// The typed view of a settings value; a value that is not an object reads
    /// as the empty policy.
    ///
    /// SPEC §2.2
    pub fn from_value(settings: &Value) -> ManagedSettings {
        match settings {
            Value::Object(map) => ManagedSettings::from_map(map),
            _ => ManagedSettings::default(),
        }
    }

    /// The typed view of a settings object (see [`ManagedSettings`]).
    ///
    /// SPEC §2.2
    pub fn from_map(settings: &Map<String, Value>) -> ManagedSettings {
        let permissions = settings.get("permissions").and_then(Value::as_object);
        let rules = |key: &str| -> Vec<String> {
            match permissions.and_then(|p| p.get(key)) {
                Some(Value::String(rule)) if key != "allow" => vec![rule.clone()],
                other => strings(other),
            }
        };
        let permission = |key: &str| permissions.and_then(|p| p.get(key));

        let env_map = settings.get("env").and_then(Value::as_object);
        let env: Vec<(String, String)> = env_map
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
            .collect();
        let mut env_names: Vec<String> = env_map
            .into_iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect();
        for name in strings(settings.get(MANAGED_ENV_DROPPED)) {
            if !env_names.contains(&name) {
                env_names.push(name);
            }
        }

        let enabled_plugins = settings
            .get("enabledPlugins")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(id, v)| {
                let state = match v {
                    Value::Bool(true) => EnabledPlugin::On,
                    Value::Bool(false) => EnabledPlugin::Off,
                    Value::Array(_) => EnabledPlugin::Versions(strings(Some(v))),
                    _ => return None,
                };
                Some((id.clone(), state))
            })
            .collect();

        let allowed_mcp_servers = match settings.get("allowedMcpServers") {
            None => None,
            Some(Value::Array(entries)) => Some(entries.clone()),
            Some(_) => Some(Vec::new()),
        };

        let (managed_mcp_servers, servers_shape_ok) = match settings.get(MANAGED_MCP_SERVERS) {
            None => (Vec::new(), true),
            Some(Value::Object(servers)) => (servers.keys().cloned().collect(), true),
            Some(Value::Array(items)) => {
                let mut ok = true;
                let mut names = Vec::new();
                for item in items {
                    match item {
                        Value::String(name) => names.push(name.clone()),
                        Value::Object(o) => match o.get("name").and_then(Value::as_str) {
                            Some(name) => names.push(name.to_owned()),
                            None => ok = false,
                        },
                        _ => ok = false,
                    }
                }
                (names, ok)
            }
            Some(_) => (Vec::new(), false),
        };

        ManagedSettings {
            deny: rules("deny"),
            ask: rules("ask"),
            allow: rules("allow"),
            env,
            env_names,
            process_wrapper: settings
                .get("processWrapper")
                .filter(|v| !v.is_null())
                .cloned(),
            prepend_plugins: strings(settings.get("prependPlugins")),
            append_plugins: strings(settings.get("appendPlugins")),
            enabled_plugins,
            allowed_mcp_servers,
            managed_mcp_servers,
            managed_mcp_servers_unreadable: !servers_shape_ok
                || fail_closed_bool(settings.get(MANAGED_MCP_SERVERS_UNREADABLE)),
            options: SecDefaultOptions::from_settings(settings),
            allow_managed_permission_rules_only: fail_closed_bool(
                settings.get("allowManagedPermissionRulesOnly"),
            ),
            allow_managed_hooks_only: fail_closed_bool(settings.get("allowManagedHooksOnly")),
            allow_managed_mcp_servers_only: fail_closed_bool(
                settings.get("allowManagedMcpServersOnly"),
            ),
            block_reads_outside_working_directories: matches!(
                permission("blockReadsOutsideWorkingDirectories"),
                Some(Value::Bool(true))
            ),
            disable_bypass_permissions_mode: permission("disableBypassPermissionsMode")
                .and_then(Value::as_str)
                == Some("disable"),
            strict_known_marketplaces: settings
                .get("strictKnownMarketplaces")
                .and_then(Value::as_array)
                .cloned(),
        }
    }
}

/// The strings of an array value (other entries skipped).
fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// Absent: off. `false`: off. Anything else (a mistyped value included): on.
fn fail_closed_bool(value: Option<&Value>) -> bool {
    !matches!(value, None | Some(Value::Bool(false)))
}

#[cfg(test)]
mod tests {

    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn options(value: Value) -> SecDefaultOptions {
        ManagedSettings::from_value(&json!({
            "pluginConfigs": { SEC_DEFAULT_ID: { "options": value } }
        }))
        .options
    }

    #[test]
    fn allow_managed_mods_only_is_on_unless_absent_or_false() {
        let on = |v: Value| options(json!({ "allowManagedModsOnly": v })).allow_managed_mods_only;
        assert!(on(json!(true)));
        assert!(on(json!("true")));
        assert!(on(json!(1)));
        assert!(on(json!("false")), "a mistyped value still locks");
        assert!(on(json!([false])));
        assert!(!on(json!(false)));
        assert!(!options(json!({})).allow_managed_mods_only);
        // null breaks pluginConfigs' schema: the whole key is ignored.
        assert!(!on(json!(null)));
    }

    #[test]
    fn allow_mods_to_override_deny_rules_is_off_unless_literal_true() {
        let on = |v: Value| {
            options(json!({ "allowModsToOverrideDenyRules": v })).allow_mods_to_override_deny_rules
        };
        assert!(on(json!(true)));
        assert!(!on(json!("true")));
        assert!(!on(json!(1)));
        assert!(!on(json!(false)));
        assert!(!on(json!(null)));
        assert!(!options(json!({})).allow_mods_to_override_deny_rules);
    }

    #[test]
    fn options_are_read_only_under_the_exact_key() {
        let s = ManagedSettings::from_value(&json!({
            "pluginConfigs": { "CC-Plugin-Sec-Default@builtin": { "options": { "allowManagedModsOnly": true } } },
            "options": { "allowManagedModsOnly": true },
            "allowManagedModsOnly": true
        }));
        assert_eq!(s.options, SecDefaultOptions::default());
    }

    #[test]
    fn a_bad_value_anywhere_under_plugin_configs_voids_both_options() {
        let s = ManagedSettings::from_value(&json!({
            "pluginConfigs": {
                SEC_DEFAULT_ID: { "options": { "allowManagedModsOnly": true, "allowModsToOverrideDenyRules": true } },
                "other@m": { "options": { "nested": { "x": 1 } } }
            }
        }));
        assert_eq!(s.options, SecDefaultOptions::default());
    }

    #[test]
    fn typed_view_of_the_keys() {
        let s = ManagedSettings::from_value(&json!({
            "permissions": {
                "deny": ["Bash(rm:*)", 3], "ask": "Bash", "allow": "Read",
                "disableBypassPermissionsMode": "disable",
                "blockReadsOutsideWorkingDirectories": true
            },
            "env": { "A": "1", "B": 2 },
            "managedEnvDropped": ["B", "C"],
            "processWrapper": "/usr/bin/wrap",
            "prependPlugins": ["cc-plugin-sec-default@builtin"],
            "appendPlugins": ["x@y", 1],
            "enabledPlugins": { "a@m": true, "b@m": false, "c@m": ["1.0"], "d@m": "x" },
            "allowedMcpServers": [],
            "managedMcpServers": { "raven": {} },
            "allowManagedHooksOnly": "yes",
            "allowManagedMcpServersOnly": false,
            "strictKnownMarketplaces": []
        }));
        assert_eq!(s.deny, vec!["Bash(rm:*)"]);
        assert_eq!(s.ask, vec!["Bash"]);
        assert!(s.allow.is_empty());
        assert_eq!(s.env, vec![("A".to_owned(), "1".to_owned())]);
        assert_eq!(s.env_names, vec!["A", "B", "C"]);
        assert_eq!(s.process_wrapper, Some(json!("/usr/bin/wrap")));
        assert_eq!(s.prepend_plugins, vec![SEC_DEFAULT_ID]);
        assert_eq!(s.append_plugins, vec!["x@y"]);
        assert_eq!(
            s.enabled_plugins,
            vec![
                ("a@m".to_owned(), EnabledPlugin::On),
                ("b@m".to_owned(), EnabledPlugin::Off),
                (
                    "c@m".to_owned(),
                    EnabledPlugin::Versions(vec!["1.0".to_owned()])
                ),
            ]
        );
        assert!(EnabledPlugin::Versions(vec![]).is_on());
        assert_eq!(s.allowed_mcp_servers, Some(vec![]));
        assert_eq!(s.managed_mcp_servers, vec!["raven"]);
        assert!(!s.managed_mcp_servers_unreadable);
        assert!(s.allow_managed_hooks_only);
        assert!(!s.allow_managed_mcp_servers_only);
        assert!(!s.allow_managed_permission_rules_only);
        assert!(s.block_reads_outside_working_directories);
        assert!(s.disable_bypass_permissions_mode);
        assert_eq!(s.strict_known_marketplaces, Some(vec![]));
    }

    #[test]
    fn unset_keys_read_as_unset() {
        let s = ManagedSettings::from_value(&json!({}));
        assert_eq!(s, ManagedSettings::default());
        assert_eq!(
            ManagedSettings::from_value(&json!([1])),
            ManagedSettings::default()
        );
        let s = ManagedSettings::from_value(
            &json!({"allowedMcpServers": "x", "managedMcpServers": 3, "processWrapper": null}),
        );
        assert_eq!(s.allowed_mcp_servers, Some(vec![]), "fails closed");
        assert!(s.managed_mcp_servers_unreadable);
        assert_eq!(s.process_wrapper, None);
    }
}
