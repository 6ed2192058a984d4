//! What `sec-default policy show` says of a managed policy, the view of what the
//! security default reads from it (SPEC §2): sources found, warnings (file, pointer, reason), the two options,
//! reserved tool-name scopes, pinned variables, rule counts, and whether it is seated.

use crate::source::first_line;
use permissions::{RuleSet, SettingsSource};
use policy::{ManagedLocation, Policy};
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;

/// Which managed folder was read, as `audit --json` says it.
#[derive(Debug, Serialize)]
pub struct SourceOfRead {
    /// `folder` (`--managed`), `platform` or `embedded` (`--example`).
    pub kind: String,
    /// The folder read (`None` for the embedded example).
    pub folder: Option<String>,
    /// The first line of the human output.
    pub description: String,
}

/// One file found in the managed folder.
#[derive(Debug, Serialize)]
pub struct SourceView {
    /// The file, relative to the managed folder.
    pub file: String,
    /// `settings`, `drop-in` or `mcp`.
    pub kind: policy::SourceKind,
}

/// One warning: the file, the JSON pointer within it, and the reason (SPEC §2.1).
#[derive(Debug, Clone, Serialize)]
pub struct WarningView {
    /// The file, relative to the managed folder (for a rule: the file that gives it, a
    /// drop-in where it comes from one).
    pub file: String,
    /// The 1-based line within it, where the read could tell it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The JSON pointer within it.
    pub pointer: String,
    /// Why the entry was dropped or changed.
    pub reason: String,
}

/// The warning in one line, as `policy show` and `audit` print it.
impl WarningView {
    /// `file:line: pointer: reason` (`(whole file)` for the empty pointer; no line
    /// where the read could not tell it).
    pub fn line_text(&self) -> String {
        let pointer = if self.pointer.is_empty() {
            "(whole file)"
        } else {
            self.pointer.as_str()
        };
        let line = self.line.map(|l| format!(":{l}")).unwrap_or_default();
        format!("{}{line}: {pointer}: {}", self.file, self.reason)
    }
}

/// The two options of SPEC §2.3, as the security default reads them.
#[derive(Debug, Serialize)]
pub struct OptionsView {
    /// On unless absent or `false`.
    pub allow_managed_mods_only: bool,
    /// Off unless the literal `true`.
    pub allow_mods_to_override_deny_rules: bool,
}

/// Counts of the managed permission rules.
#[derive(Debug, Serialize)]
pub struct RuleCounts {
    /// Deny rules.
    pub deny: usize,
    /// Ask rules.
    pub ask: usize,
    /// Allow rules.
    pub allow: usize,
}

/// What `policy show` reports (the `--json` output; [`render`] prints it). Keys are
/// `snake_case`, as in every command's JSON.
#[derive(Debug, Serialize)]
pub struct PolicyView {
    /// Which managed folder was read, and the first line that says so.
    pub source: SourceOfRead,
    /// The managed folder read.
    pub folder: String,
    /// The files found.
    pub sources: Vec<SourceView>,
    /// Salvage and rule warnings.
    pub warnings: Vec<WarningView>,
    /// Whether the engine seats the security default under this policy (SPEC §2.3).
    pub seated: bool,
    /// The plugin's two options.
    pub options: OptionsView,
    /// Reserved tool-name scopes, each with why (SPEC §3.4 step 4).
    pub reserved_scopes: Vec<String>,
    /// Pinned variables (SPEC §3.8).
    pub pinned_variables: Vec<String>,
    /// Managed permission rule counts.
    pub rules: RuleCounts,
    /// `allowedMcpServers`: the number of entries when set at all.
    pub allowed_mcp_servers: Option<usize>,
    /// The organization's MCP servers.
    pub managed_mcp_servers: Vec<String>,
    /// Whether `managed-mcp.json` is present but cannot be read whole.
    pub managed_mcp_servers_unreadable: bool,
    /// Whether the managed folder exists at all (the platform folder may not).
    pub folder_exists: bool,
    /// The classic settings hooks managed settings configure, by event (handler counts).
    pub managed_hooks: Vec<(String, usize)>,
    /// `allowManagedHooksOnly`, `disableAllHooks`, `allowManagedPermissionRulesOnly`,
    /// `allowManagedMcpServersOnly`, and `disableBypassPermissionsMode` is `"disable"`.
    pub controls: Vec<(String, bool)>,
}

/// What `policy show` reports for the policy `p` read from `location`.
#[must_use]
pub fn view(location: &ManagedLocation, p: &Policy) -> PolicyView {
    let folder = location.folder();
    let rel = |path: &std::path::Path| {
        path.strip_prefix(&folder)
            .unwrap_or(path)
            .display()
            .to_string()
    };
    let m = p.managed();
    let policy_value = Value::Object(p.settings.clone());
    let (rules, rule_warnings) = RuleSet::from_sources(&[(SettingsSource::Policy, &policy_value)]);
    let (deny, ask, allow) = rules.counts();
    let seated = !p.settings.contains_key("prependPlugins")
        || m.prepend_plugins
            .iter()
            .any(|id| policy::ids_equal(id, sec_default::ID));
    let mut warnings: Vec<WarningView> = p
        .warnings
        .iter()
        .map(|w| WarningView {
            file: rel(&w.file),
            line: w.line,
            pointer: w.pointer.clone(),
            reason: w.reason.clone(),
        })
        .collect();
    warnings.extend(
        rule_warnings
            .iter()
            .map(|w| match p.rule_origin(&w.pointer, &w.rule) {
                Some(origin) => WarningView {
                    file: rel(&origin.file),
                    line: origin.line,
                    pointer: origin.pointer.clone(),
                    reason: format!("{}: {}", w.rule, w.reason),
                },
                None => WarningView {
                    file: "managed settings (merged)".to_owned(),
                    line: None,
                    pointer: w.pointer.clone(),
                    reason: format!("{}: {}", w.rule, w.reason),
                },
            }),
    );
    PolicyView {
        source: {
            let kind = match location {
                ManagedLocation::Platform => "platform",
                ManagedLocation::Explicit(_) => "folder",
            };
            SourceOfRead {
                kind: kind.to_owned(),
                folder: Some(folder.display().to_string()),
                description: first_line(kind, &folder, folder.is_dir()),
            }
        },
        folder: folder.display().to_string(),
        sources: p
            .sources
            .iter()
            .map(|s| SourceView {
                file: rel(&s.path),
                kind: s.kind,
            })
            .collect(),
        warnings,
        seated,
        options: OptionsView {
            allow_managed_mods_only: m.options.allow_managed_mods_only,
            allow_mods_to_override_deny_rules: m.options.allow_mods_to_override_deny_rules,
        },
        reserved_scopes: sec_default::tool_register_refusal::reserved_scopes(&m)
            .iter()
            .map(|r| format!("{} ({})", r.scope, r.why))
            .collect(),
        pinned_variables: sec_default::pinned_variables::pinned_names(&m),
        rules: RuleCounts { deny, ask, allow },
        allowed_mcp_servers: m.allowed_mcp_servers.as_ref().map(Vec::len),
        managed_mcp_servers: m.managed_mcp_servers.clone(),
        managed_mcp_servers_unreadable: m.managed_mcp_servers_unreadable,
        folder_exists: folder.is_dir(),
        managed_hooks: p
            .settings
            .get("hooks")
            .and_then(Value::as_object)
            .map(|hooks| {
                hooks
                    .iter()
                    .map(|(event, groups)| {
                        let handlers = groups
                            .as_array()
                            .map(|g| {
                                g.iter()
                                    .filter_map(|x| x.get("hooks")?.as_array().map(Vec::len))
                                    .sum()
                            })
                            .unwrap_or(0);
                        (event.clone(), handlers)
                    })
                    .collect()
            })
            .unwrap_or_default(),
        controls: vec![
            (
                "allowManagedHooksOnly".to_owned(),
                m.allow_managed_hooks_only,
            ),
            (
                "disableAllHooks".to_owned(),
                p.settings
                    .get("disableAllHooks")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            ),
            (
                "allowManagedPermissionRulesOnly".to_owned(),
                m.allow_managed_permission_rules_only,
            ),
            (
                "allowManagedMcpServersOnly".to_owned(),
                m.allow_managed_mcp_servers_only,
            ),
            (
                "disableBypassPermissionsMode".to_owned(),
                m.disable_bypass_permissions_mode,
            ),
        ],
    }
}

/// The human form of [`view`].
#[must_use]
pub fn render(v: &PolicyView) -> String {
    let mut s = String::new();
    if v.source.kind == "folder" && !v.folder_exists {
        let _ = writeln!(
            s,
            "managed folder: {} (does not exist: an empty policy)",
            v.folder
        );
    } else {
        let _ = writeln!(s, "{}", v.source.description);
    }
    if v.sources.is_empty() {
        let _ = writeln!(s, "sources: none (an empty policy: only the always-pinned variables and the engine's defaults apply)");
    } else {
        let _ = writeln!(s, "sources:");
        for src in &v.sources {
            let _ = writeln!(
                s,
                "  {} ({})",
                src.file,
                serde_json::to_value(src.kind)
                    .ok()
                    .and_then(|k| k.as_str().map(str::to_owned))
                    .unwrap_or_default()
            );
        }
    }
    let _ = writeln!(s, "warnings: {}", v.warnings.len());
    for w in &v.warnings {
        let _ = writeln!(s, "  {}", w.line_text());
    }
    let _ = writeln!(
        s,
        "security default: {}",
        if v.seated {
            "seated (first link of the prepend tier)"
        } else {
            "not seated (prependPlugins does not name cc-plugin-sec-default@builtin)"
        }
    );
    let _ = writeln!(s, "options:");
    let _ = writeln!(
        s,
        "  allowManagedModsOnly: {}",
        v.options.allow_managed_mods_only
    );
    let _ = writeln!(
        s,
        "  allowModsToOverrideDenyRules: {}",
        v.options.allow_mods_to_override_deny_rules
    );
    let _ = writeln!(
        s,
        "permission rules: {} deny, {} ask, {} allow",
        v.rules.deny, v.rules.ask, v.rules.allow
    );
    let _ = writeln!(s, "managed controls:");
    for (key, on) in &v.controls {
        let _ = writeln!(s, "  {key}: {}", if *on { "on" } else { "off" });
    }
    if v.managed_hooks.is_empty() {
        let _ = writeln!(s, "managed classic hooks: none");
    } else {
        let _ = writeln!(s, "managed classic hooks:");
        for (event, n) in &v.managed_hooks {
            let _ = writeln!(s, "  {event}: {n} handler(s)");
        }
    }
    match v.allowed_mcp_servers {
        Some(n) => {
            let _ = writeln!(s, "allowedMcpServers: set ({n} entries): every person-tier tool registration is refused");
        }
        None => {
            let _ = writeln!(s, "allowedMcpServers: not set");
        }
    }
    if v.managed_mcp_servers_unreadable {
        let _ = writeln!(s, "managed-mcp.json: cannot be read whole: every person-tier tool registration is refused");
    }
    let _ = writeln!(s, "reserved tool-name scopes: {}", v.reserved_scopes.len());
    for sc in &v.reserved_scopes {
        let _ = writeln!(s, "  {sc}");
    }
    let _ = writeln!(s, "pinned variables: {}", v.pinned_variables.len());
    for p in &v.pinned_variables {
        let _ = writeln!(s, "  {p}");
    }
    s
}
