//! Salvage: one managed file's JSON object checked against the settings
//! schema (reference §7.3 plus the SPEC's keys), entry by entry.
//!
//! What breaks the schema is dropped at its own pointer with a [`Warning`];
//! its siblings stay. A known key is dropped whole only when its own type is
//! wrong. The keys that fail closed keep their strict reading. Permission
//! rules that are strings are never dropped. `pluginConfigs` has its own,
//! all-or-nothing rule (SPEC §2.3).

use std::path::Path;

use serde_json::{Map, Value};

use crate::pointer;
use crate::Warning;

/// The read's own key: the merged managed MCP servers (SPEC §2.1).
pub(crate) const MANAGED_MCP_SERVERS: &str = "managedMcpServers";
/// The read's own key: some source naming managed MCP servers could not be read whole.
pub(crate) const MANAGED_MCP_SERVERS_UNREADABLE: &str = "managedMcpServersUnreadable";
/// The read's own key: names under managed `env` whose value was dropped.
pub(crate) const MANAGED_ENV_DROPPED: &str = "managedEnvDropped";

/// The top-level shape the salvage checks a known key against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Str,
    Num,
    Int,
    Obj,
    Arr,
    StrArr,
    /// Known, handled by its own rule, or not modelled: kept as written.
    Any,
}

/// The documented settings keys (reference §7.3) and the SPEC's additions,
/// with the top-level type the salvage holds them to. `Any` marks keys with a
/// rule of their own (handled before this table) or not modelled here.
const SCHEMA: &[(&str, Kind)] = &[
    ("apiKeyHelper", Kind::Str),
    ("autoMemoryEnabled", Kind::Bool),
    ("autoUpdatesChannel", Kind::Str),
    ("awsCredentialExport", Kind::Str),
    ("awsAuthRefresh", Kind::Str),
    ("claudeMdExcludes", Kind::StrArr),
    ("cleanupPeriodDays", Kind::Int),
    ("env", Kind::Any),
    ("attribution", Kind::Obj),
    ("includeGitInstructions", Kind::Bool),
    ("includeCoAuthoredBy", Kind::Bool),
    ("plansDirectory", Kind::Str),
    ("respectGitignore", Kind::Bool),
    ("permissions", Kind::Any),
    ("language", Kind::Str),
    ("model", Kind::Str),
    ("availableModels", Kind::Any),
    ("modelOverrides", Kind::Obj),
    ("effortLevel", Kind::Any),
    ("fastMode", Kind::Bool),
    ("fastModePerSessionOptIn", Kind::Bool),
    ("feedbackSurveyRate", Kind::Num),
    ("enableAllProjectMcpServers", Kind::Bool),
    ("enabledMcpjsonServers", Kind::StrArr),
    ("disabledMcpjsonServers", Kind::StrArr),
    ("allowedMcpServers", Kind::Any),
    ("deniedMcpServers", Kind::Any),
    ("httpHookAllowedEnvVars", Kind::StrArr),
    ("hooks", Kind::Any),
    ("disableAllHooks", Kind::Bool),
    ("allowedChannelPlugins", Kind::Arr),
    ("allowedHttpHookUrls", Kind::StrArr),
    ("allowManagedHooksOnly", Kind::Any),
    ("allowManagedPermissionRulesOnly", Kind::Any),
    ("statusLine", Kind::Obj),
    ("fileSuggestion", Kind::Obj),
    ("enabledPlugins", Kind::Any),
    ("extraKnownMarketplaces", Kind::Obj),
    ("strictKnownMarketplaces", Kind::Any),
    ("skippedMarketplaces", Kind::Arr),
    ("skippedPlugins", Kind::Arr),
    ("forceLoginMethod", Kind::Str),
    ("forceLoginOrgUUID", Kind::Any),
    ("otelHeadersHelper", Kind::Str),
    ("outputStyle", Kind::Str),
    ("skipWebFetchPreflight", Kind::Bool),
    ("sandbox", Kind::Obj),
    ("spinnerVerbs", Kind::Obj),
    ("spinnerTipsEnabled", Kind::Bool),
    ("spinnerTipsOverride", Kind::Obj),
    ("terminalProgressBarEnabled", Kind::Bool),
    ("showTurnDuration", Kind::Bool),
    ("skillOverrides", Kind::Obj),
    ("prefersReducedMotion", Kind::Bool),
    ("prUrlTemplate", Kind::Str),
    ("alwaysThinkingEnabled", Kind::Bool),
    ("companyAnnouncements", Kind::StrArr),
    ("teammateMode", Kind::Any),
    ("worktree", Kind::Obj),
    ("parentSettingsBehavior", Kind::Str),
    ("pluginTrustMessage", Kind::Str),
    ("pluginConfigs", Kind::Any),
    ("allowManagedMcpServersOnly", Kind::Any),
    ("blockedMarketplaces", Kind::Arr),
    ("agent", Kind::Str),
    ("autoMemoryDirectory", Kind::Str),
    ("autoMode", Kind::Obj),
    ("channelsEnabled", Kind::Bool),
    ("defaultShell", Kind::Str),
    ("disableDeepLinkRegistration", Kind::Any),
    ("disableSkillShellExecution", Kind::Bool),
    ("forceRemoteSettingsRefresh", Kind::Bool),
    ("minimumVersion", Kind::Str),
    ("showClearContextOnPlanAccept", Kind::Bool),
    ("showThinkingSummaries", Kind::Bool),
    ("skipDangerousModePermissionPrompt", Kind::Bool),
    ("strictPluginOnlyCustomization", Kind::Any),
    ("tui", Kind::Any),
    ("viewMode", Kind::Any),
    ("useAutoModeDuringPlan", Kind::Bool),
    ("voiceEnabled", Kind::Bool),
    ("wslInheritsWindowsSettings", Kind::Bool),
    ("subagentStatusLine", Kind::Obj),
    ("advisorModel", Kind::Str),
    ("autoCompactEnabled", Kind::Bool),
    ("disableAgentView", Kind::Bool),
    ("editorMode", Kind::Any),
    ("enforceAvailableModels", Kind::Any),
    ("fallbackModel", Kind::Any),
    ("fileCheckpointingEnabled", Kind::Bool),
    ("gcpAuthRefresh", Kind::Str),
    ("managedMcpServers", Kind::Any),
    ("skillListingMaxDescChars", Kind::Int),
    ("preferredNotifChannel", Kind::Str),
    ("pluginSuggestionMarketplaces", Kind::StrArr),
    ("requiredMaximumVersion", Kind::Str),
    ("requiredMinimumVersion", Kind::Str),
    ("respondToBashCommands", Kind::Bool),
    ("skillListingBudgetFraction", Kind::Num),
    ("sshConfigs", Kind::Arr),
    ("sshHostAllowlist", Kind::StrArr),
    ("theme", Kind::Str),
    ("voice", Kind::Obj),
    ("wheelScrollAccelerationEnabled", Kind::Bool),
    ("disableBundledSkills", Kind::Bool),
    ("awaySummaryEnabled", Kind::Bool),
    ("autoScrollEnabled", Kind::Bool),
    ("allowAllClaudeAiMcps", Kind::Bool),
    ("agentPushNotifEnabled", Kind::Bool),
    ("axScreenReader", Kind::Bool),
    ("claudeMd", Kind::Str),
    ("disableArtifact", Kind::Bool),
    ("disableAutoMode", Kind::Str),
    ("disableClaudeAiConnectors", Kind::Bool),
    ("disableRemoteControl", Kind::Bool),
    ("disableWorkflows", Kind::Bool),
    ("footerLinksRegexes", Kind::Arr),
    ("inputNeededNotifEnabled", Kind::Bool),
    ("policyHelper", Kind::Obj),
    ("remoteControlAtStartup", Kind::Bool),
    ("syntaxHighlightingDisabled", Kind::Bool),
    ("verbose", Kind::Bool),
    ("workflowKeywordTriggerEnabled", Kind::Bool),
    ("leftArrowOpensAgents", Kind::Bool),
    // The SPEC's additions (SPEC §2.1) and documented keys this schema version lacks.
    ("prependPlugins", Kind::Any),
    ("appendPlugins", Kind::Any),
    ("processWrapper", Kind::Any),
    ("disableCommandPluginSources", Kind::Any),
    ("disableSideloadFlags", Kind::Any),
    ("forceLoginGatewayUrl", Kind::Any),
    ("crossSessionInbound", Kind::Any),
    ("isolatePeerMachines", Kind::Any),
    ("syncClaudeAiSkills", Kind::Any),
    ("enableWorkflows", Kind::Any),
    ("workflowSizeGuideline", Kind::Any),
    ("skipAutoPermissionPrompt", Kind::Any),
    ("additionalMarketplaces", Kind::Any),
    ("allowedMarketplaces", Kind::Any),
];

/// Booleans that fail closed: present but not a boolean reads as `true`
/// (SPEC §2.1; reference §1.7).
const FAIL_CLOSED_BOOLS: &[&str] = &[
    "allowManagedHooksOnly",
    "allowManagedMcpServersOnly",
    "allowManagedPermissionRulesOnly",
    "disableCommandPluginSources",
    "enforceAvailableModels",
];

/// The hook events of the schema (reference §7.3) plus the documented `DirectoryAdded`.
const HOOK_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "Notification",
    "UserPromptSubmit",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Elicitation",
    "ElicitationResult",
    "TeammateIdle",
    "TaskCompleted",
    "Setup",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "SessionStart",
    "SessionEnd",
    "PostToolBatch",
    "TaskCreated",
    "PermissionDenied",
    "UserPromptExpansion",
    "MessageDisplay",
    "DirectoryAdded",
];

const DEFAULT_MODES: &[&str] = &[
    "acceptEdits",
    "bypassPermissions",
    "default",
    "delegate",
    "dontAsk",
    "plan",
    "auto",
    "manual",
];

/// Whether `key` is a documented top-level settings key (or one of the SPEC's).
pub(crate) fn is_known_key(key: &str) -> bool {
    SCHEMA.iter().any(|(k, _)| *k == key)
}

/// Keys of `permissions` that do nothing at the top level (SPEC §4 "Mode at start": a
/// known key at the wrong level does nothing, as in Claude Code).
const PERMISSIONS_KEYS: &[&str] = &[
    "allow",
    "ask",
    "deny",
    "defaultMode",
    "disableBypassPermissionsMode",
    "additionalDirectories",
    "blockReadsOutsideWorkingDirectories",
];

/// What to say of an unknown top-level key (SPEC §2.1 **\[decision\]**): a key of
/// `permissions` given at the top level, a `permissionRules` block, or a key one edit
/// (or a letter case) away from a known key; `None` to stay silent.
pub(crate) fn unknown_key_advice(key: &str) -> Option<String> {
    if PERMISSIONS_KEYS.contains(&key) {
        return Some(format!(
            "`{key}` belongs under `permissions`; at the top level it does nothing (as in Claude Code)"
        ));
    }
    if key == "permissionRules" {
        return Some(
            "a `permissionRules` block does nothing; permission rules belong in `permissions.allow`, `permissions.ask` and `permissions.deny`".to_owned(),
        );
    }
    if key.starts_with('$') || key.starts_with('_') {
        return None;
    }
    let meant = SCHEMA
        .iter()
        .map(|(k, _)| *k)
        .chain(["permissions"])
        .find(|known| known.eq_ignore_ascii_case(key) || one_edit_apart(known, key))?;
    Some(format!(
        "unknown key, ignored; did you mean `{meant}`? (one edit away from a known key)"
    ))
}

/// Whether `a` and `b` differ by exactly one insertion, deletion, substitution or swap
/// of two neighbouring characters (compared by Unicode scalar values).
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return false;
    }
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => {
            let diffs: Vec<usize> = (0..short.len())
                .filter(|&i| short.get(i) != long.get(i))
                .collect();
            match diffs.as_slice() {
                [_] => true,
                [i, j] if *j == i + 1 => {
                    short.get(*i) == long.get(*j) && short.get(*j) == long.get(*i)
                }
                _ => false,
            }
        }
        1 => {
            let skip = (0..short.len())
                .find(|&i| short.get(i) != long.get(i))
                .unwrap_or(short.len());
            short.get(skip..) == long.get(skip + 1..)
        }
        _ => false,
    }
}

fn kind_of(key: &str) -> Option<Kind> {
    SCHEMA
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, kind)| *kind)
}

/// "a string", "an object", ... for messages.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One file, salvaged.
#[derive(Debug, Default)]
pub(crate) struct SalvagedFile {
    /// What survived (with `managedMcpServers` normalised to an object).
    pub settings: Map<String, Value>,
    /// Names under `env` whose value was dropped.
    pub env_dropped: Vec<String>,
    /// `managedMcpServers` (or an entry of it) had a shape that names nobody.
    pub mcp_unreadable: bool,
}

struct Salvager<'a> {
    file: &'a Path,
    warnings: &'a mut Vec<Warning>,
    env_dropped: Vec<String>,
    mcp_unreadable: bool,
    /// Warnings written for this file, and those past [`MAX_WARNINGS_PER_FILE`].
    written: usize,
    suppressed: usize,
}

/// The most warnings one file's salvage lists; past it they are counted in one line.
pub(crate) const MAX_WARNINGS_PER_FILE: usize = 1_000;

/// Salvages one managed settings file's top-level object. Warnings point
/// inside `file`.
///
/// SPEC §2.1 "Entries that parse but break the schema"
pub(crate) fn salvage_file(
    file: &Path,
    object: Map<String, Value>,
    warnings: &mut Vec<Warning>,
) -> SalvagedFile {
    let mut s = Salvager {
        file,
        warnings,
        env_dropped: Vec::new(),
        mcp_unreadable: false,
        written: 0,
        suppressed: 0,
    };
    let mut settings = Map::new();
    for (key, value) in object {
        if let Some(kept) = s.top_level(&key, value) {
            settings.insert(key, kept);
        }
    }
    if s.suppressed > 0 {
        s.warnings.push(Warning {
            file: file.to_path_buf(),
            line: None,
            pointer: String::new(),
            reason: format!(
                "{} more entries were dropped or repaired like those above; only the first {MAX_WARNINGS_PER_FILE} are listed",
                s.suppressed
            ),
        });
    }
    SalvagedFile {
        settings,
        env_dropped: s.env_dropped,
        mcp_unreadable: s.mcp_unreadable,
    }
}

/// Checks `pluginConfigs` against its own schema (SPEC §2.3): an object; each
/// entry's value an object; an entry's `options`, if present, an object whose
/// values are scalars (string, number, boolean — not null) or arrays of
/// scalars. On failure returns the pointer (below `at`) and the reason.
pub(crate) fn check_plugin_configs(value: &Value, at: &str) -> Result<(), (String, String)> {
    let Value::Object(entries) = value else {
        return Err((
            at.to_owned(),
            format!("expected an object, found {}", type_name(value)),
        ));
    };
    for (id, entry) in entries {
        let entry_at = pointer::key(at, id);
        let Value::Object(entry) = entry else {
            return Err((
                entry_at,
                format!(
                    "a plugin's configuration must be an object, found {}",
                    type_name(entry)
                ),
            ));
        };
        let Some(options) = entry.get("options") else {
            continue;
        };
        let options_at = pointer::key(&entry_at, "options");
        let Value::Object(options) = options else {
            return Err((
                options_at,
                format!("options must be an object, found {}", type_name(options)),
            ));
        };
        for (name, option) in options {
            let option_at = pointer::key(&options_at, name);
            match option {
                Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        if !is_scalar(item) {
                            return Err((
                                pointer::index(&option_at, i),
                                format!(
                                    "an option's list may hold only strings, numbers and booleans, found {}",
                                    type_name(item)
                                ),
                            ));
                        }
                    }
                }
                Value::Null | Value::Object(_) => {
                    return Err((
                        option_at,
                        format!(
                            "an option must be a string, number, boolean or a list of them, found {}",
                            type_name(option)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn is_scalar(value: &Value) -> bool {
    matches!(value, Value::Bool(_) | Value::Number(_) | Value::String(_))
}

impl Salvager<'_> {
    fn warn(&mut self, pointer: &str, reason: impl Into<String>) {
        // A hostile file with millions of bad entries must not flood memory with as many
        // warnings: past the cap they are counted, and one line says how many.
        if self.written >= MAX_WARNINGS_PER_FILE {
            self.suppressed += 1;
            return;
        }
        self.written += 1;
        self.warnings.push(Warning {
            file: self.file.to_path_buf(),
            line: None,
            pointer: pointer.to_owned(),
            reason: reason.into(),
        });
    }

    fn drop_whole(&mut self, at: &str, expected: &str, found: &Value) -> Option<Value> {
        self.warn(
            at,
            format!("expected {expected}, found {}; dropped", type_name(found)),
        );
        None
    }

    fn top_level(&mut self, key: &str, value: Value) -> Option<Value> {
        let at = pointer::key("", key);
        match key {
            MANAGED_MCP_SERVERS_UNREADABLE | MANAGED_ENV_DROPPED => {
                self.warn(
                    &at,
                    "this key is set by the policy read itself, never by a file; ignored",
                );
                None
            }
            "pluginConfigs" => match check_plugin_configs(&value, &at) {
                Ok(()) => Some(value),
                Err((where_, why)) => {
                    self.warn(
                        &where_,
                        format!("{why}; the whole pluginConfigs key is ignored"),
                    );
                    None
                }
            },
            "permissions" => self.permissions(value, &at),
            "env" => self.env(value, &at),
            "hooks" => self.hooks(value, &at),
            "enabledPlugins" => self.enabled_plugins(value, &at),
            "allowedMcpServers" => Some(self.mcp_list(value, &at, true).unwrap_or_default()),
            "deniedMcpServers" => self.mcp_list(value, &at, false),
            "availableModels" => Some(self.fail_closed_strings(value, &at)),
            MANAGED_MCP_SERVERS => self.managed_mcp_servers(value, &at),
            "strictKnownMarketplaces" => self.marketplaces(value, &at),
            "prependPlugins" | "appendPlugins" => self.strings(value, &at),
            k if FAIL_CLOSED_BOOLS.contains(&k) => match value {
                Value::Bool(_) => Some(value),
                other => {
                    self.warn(
                        &at,
                        format!(
                            "expected a boolean, found {}; read as true (this key fails closed)",
                            type_name(&other)
                        ),
                    );
                    Some(Value::Bool(true))
                }
            },
            k => match kind_of(k) {
                Some(kind) => self.typed(kind, value, &at),
                // Unknown top-level keys ($schema, _comment, newer keys): kept, silently,
                // unless the key is a known key of another level or one edit away from a
                // known key (SPEC §2.1 [decision]): then a warning names the key meant.
                None => {
                    if let Some(why) = unknown_key_advice(k) {
                        self.warn(&at, why);
                    }
                    Some(value)
                }
            },
        }
    }

    fn typed(&mut self, kind: Kind, value: Value, at: &str) -> Option<Value> {
        let (ok, expected) = match kind {
            Kind::Any => (true, ""),
            Kind::Bool => (value.is_boolean(), "a boolean"),
            Kind::Str => (value.is_string(), "a string"),
            Kind::Num => (value.is_number(), "a number"),
            Kind::Int => (value.is_i64() || value.is_u64(), "an integer"),
            Kind::Obj => (value.is_object(), "an object"),
            Kind::Arr => (value.is_array(), "an array"),
            Kind::StrArr => return self.strings(value, at),
        };
        if ok {
            Some(value)
        } else {
            self.drop_whole(at, expected, &value)
        }
    }

    /// An array of strings: other entries dropped one by one.
    fn strings(&mut self, value: Value, at: &str) -> Option<Value> {
        let Value::Array(items) = value else {
            return self.drop_whole(at, "an array of strings", &value);
        };
        Some(Value::Array(self.keep_strings(items, at)))
    }

    fn keep_strings(&mut self, items: Vec<Value>, at: &str) -> Vec<Value> {
        let mut kept = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            if item.is_string() {
                kept.push(item);
            } else {
                self.warn(
                    &pointer::index(at, i),
                    format!("expected a string, found {}; dropped", type_name(&item)),
                );
            }
        }
        kept
    }

    /// `availableModels`: fails closed to `[]`, bad entries stripped.
    fn fail_closed_strings(&mut self, value: Value, at: &str) -> Value {
        match value {
            Value::Array(items) => Value::Array(self.keep_strings(items, at)),
            other => {
                self.warn(
                    at,
                    format!(
                        "expected an array of strings, found {}; read as [] (this key fails closed)",
                        type_name(&other)
                    ),
                );
                Value::Array(Vec::new())
            }
        }
    }

    fn permissions(&mut self, value: Value, at: &str) -> Option<Value> {
        let Value::Object(map) = value else {
            return self.drop_whole(at, "an object", &value);
        };
        let mut out = Map::new();
        for (key, v) in map {
            let here = pointer::key(at, &key);
            let kept = match key.as_str() {
                "allow" => self.rules(v, &here, false),
                "deny" | "ask" => self.rules(v, &here, true),
                "defaultMode" => self.one_of(v, &here, DEFAULT_MODES),
                "disableBypassPermissionsMode" | "disableAutoMode" => {
                    self.one_of(v, &here, &["disable"])
                }
                "additionalDirectories" => self.strings(v, &here),
                "blockReadsOutsideWorkingDirectories" => self.typed(Kind::Bool, v, &here),
                other => {
                    let why = if is_known_key(other) {
                        format!(
                            "`{other}` is not a key of `permissions` (it is a top-level setting); dropped"
                        )
                    } else {
                        format!("`{other}` is not a key of `permissions`; dropped")
                    };
                    self.warn(&here, why);
                    None
                }
            };
            if let Some(kept) = kept {
                out.insert(key, kept);
            }
        }
        Some(Value::Object(out))
    }

    /// A rule list: strings kept as written (never dropped), other entries
    /// dropped. A lone string where a `deny`/`ask` list is due is kept as a
    /// one-rule list (it is the organization's rule; dropping it would fail
    /// open).
    fn rules(&mut self, value: Value, at: &str, wrap_lone_string: bool) -> Option<Value> {
        match value {
            Value::Array(items) => {
                let mut kept = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    if item.is_string() {
                        kept.push(item);
                    } else {
                        self.warn(
                            &pointer::index(at, i),
                            format!(
                                "a permission rule must be a string, found {}; dropped (the other rules stay)",
                                type_name(&item)
                            ),
                        );
                    }
                }
                Some(Value::Array(kept))
            }
            Value::String(rule) if wrap_lone_string => {
                self.warn(
                    at,
                    "expected an array of rules, found a string; kept as a one-rule list",
                );
                Some(Value::Array(vec![Value::String(rule)]))
            }
            other => self.drop_whole(at, "an array of permission rules", &other),
        }
    }

    fn one_of(&mut self, value: Value, at: &str, allowed: &[&str]) -> Option<Value> {
        match value.as_str() {
            Some(s) if allowed.contains(&s) => Some(value),
            Some(s) => {
                self.warn(
                    at,
                    format!("`{s}` is not one of {}; dropped", allowed.join(", ")),
                );
                None
            }
            None => self.drop_whole(at, "a string", &value),
        }
    }

    fn env(&mut self, value: Value, at: &str) -> Option<Value> {
        let Value::Object(map) = value else {
            return self.drop_whole(at, "an object of names to string values", &value);
        };
        let mut out = Map::new();
        for (name, v) in map {
            if v.is_string() {
                out.insert(name, v);
            } else {
                self.warn(
                    &pointer::key(at, &name),
                    format!(
                        "an env value must be a string, found {}; dropped ({name} stays pinned)",
                        type_name(&v)
                    ),
                );
                if !self.env_dropped.contains(&name) {
                    self.env_dropped.push(name);
                }
            }
        }
        Some(Value::Object(out))
    }

    /// A managed hook's command that uses `${CLAUDE_PLUGIN_ROOT}`, which managed settings
    /// never define (only a plugin's own hooks have a plugin root): the command runs
    /// with it empty, so the hook likely does nothing, or something else.
    fn warn_plugin_root(&mut self, hook: &Value, at: &str) {
        let Some(command) = hook.get("command").and_then(Value::as_str) else {
            return;
        };
        if command.contains("${CLAUDE_PLUGIN_ROOT}") || command.contains("$CLAUDE_PLUGIN_ROOT") {
            self.warn(
                &pointer::key(at, "command"),
                "the command uses ${CLAUDE_PLUGIN_ROOT}, which managed settings never define (only a plugin's own hooks have a plugin root); it runs with it empty",
            );
        }
    }

    fn hooks(&mut self, value: Value, at: &str) -> Option<Value> {
        let Value::Object(map) = value else {
            return self.drop_whole(at, "an object of hook events", &value);
        };
        let mut out = Map::new();
        for (event, matchers) in map {
            let here = pointer::key(at, &event);
            if !HOOK_EVENTS.contains(&event.as_str()) {
                self.warn(&here, format!("`{event}` is not a hook event; dropped"));
                continue;
            }
            let Value::Array(matchers) = matchers else {
                self.drop_whole(&here, "an array of hook matchers", &matchers);
                continue;
            };
            let mut kept = Vec::with_capacity(matchers.len());
            for (i, matcher) in matchers.into_iter().enumerate() {
                if let Some(m) = self.hook_matcher(matcher, &pointer::index(&here, i)) {
                    kept.push(m);
                }
            }
            out.insert(event, Value::Array(kept));
        }
        Some(Value::Object(out))
    }

    fn hook_matcher(&mut self, value: Value, at: &str) -> Option<Value> {
        let Value::Object(map) = value else {
            return self.drop_whole(at, "a hook matcher object", &value);
        };
        if let Some(m) = map.get("matcher") {
            if !m.is_string() {
                self.warn(
                    &pointer::key(at, "matcher"),
                    format!(
                        "a matcher must be a string, found {}; this hook matcher is dropped",
                        type_name(m)
                    ),
                );
                return None;
            }
        }
        let mut out = Map::new();
        for (key, v) in map {
            let here = pointer::key(at, &key);
            match key.as_str() {
                "matcher" => {
                    out.insert(key, v);
                }
                "hooks" => {
                    let Value::Array(hooks) = v else {
                        self.warn(
                            &here,
                            format!(
                                "expected an array of hooks, found {}; this hook matcher is dropped",
                                type_name(&v)
                            ),
                        );
                        return None;
                    };
                    let mut kept = Vec::with_capacity(hooks.len());
                    for (i, hook) in hooks.into_iter().enumerate() {
                        let hook_at = pointer::index(&here, i);
                        match hook_command_problem(&hook) {
                            None => {
                                self.warn_plugin_root(&hook, &hook_at);
                                kept.push(hook);
                            }
                            Some(why) => self.warn(&hook_at, format!("{why}; dropped")),
                        }
                    }
                    out.insert(key, Value::Array(kept));
                }
                other => self.warn(
                    &here,
                    format!("`{other}` is not a key of a hook matcher; dropped"),
                ),
            }
        }
        if !out.contains_key("hooks") {
            self.warn(at, "a hook matcher needs `hooks`; dropped");
            return None;
        }
        Some(Value::Object(out))
    }

    fn enabled_plugins(&mut self, value: Value, at: &str) -> Option<Value> {
        let Value::Object(map) = value else {
            return self.drop_whole(at, "an object of plugin ids", &value);
        };
        let mut out = Map::new();
        for (id, v) in map {
            let here = pointer::key(at, &id);
            match v {
                Value::Bool(_) => {
                    out.insert(id, v);
                }
                Value::Array(versions) => {
                    let kept = self.keep_strings(versions, &here);
                    out.insert(id, Value::Array(kept));
                }
                other => {
                    self.warn(
                        &here,
                        format!(
                            "expected true, false or a list of versions, found {}; dropped",
                            type_name(&other)
                        ),
                    );
                }
            }
        }
        Some(Value::Object(out))
    }

    /// `allowedMcpServers` (`fail_closed`: a wrong type reads as `[]`) and
    /// `deniedMcpServers` (a wrong type is dropped); bad entries stripped.
    fn mcp_list(&mut self, value: Value, at: &str, fail_closed: bool) -> Option<Value> {
        let Value::Array(items) = value else {
            if fail_closed {
                self.warn(
                    at,
                    format!(
                        "expected an array of server entries, found {}; read as [] (this key fails closed)",
                        type_name(&value)
                    ),
                );
                return Some(Value::Array(Vec::new()));
            }
            return self.drop_whole(at, "an array of server entries", &value);
        };
        let mut kept = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match mcp_entry_problem(&item) {
                None => kept.push(item),
                Some(why) => self.warn(&pointer::index(at, i), format!("{why}; dropped")),
            }
        }
        Some(Value::Array(kept))
    }

    /// `managedMcpServers`: an object (names are its keys) or an array of names
    /// or of objects with `name`; normalised to an object name -> config. Any
    /// other shape names nobody: the read is marked unreadable.
    fn managed_mcp_servers(&mut self, value: Value, at: &str) -> Option<Value> {
        let mut servers = Map::new();
        match value {
            Value::Object(map) => {
                for (name, config) in map {
                    let config = match config {
                        Value::Object(_) => config,
                        other => {
                            self.warn(
                                &pointer::key(at, &name),
                                format!(
                                    "a server's configuration must be an object, found {}; the server is still named",
                                    type_name(&other)
                                ),
                            );
                            Value::Object(Map::new())
                        }
                    };
                    servers.insert(name, config);
                }
            }
            Value::Array(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(name) if !name.is_empty() => {
                            servers.insert(name, Value::Object(Map::new()));
                        }
                        Value::Object(mut config) => match config.remove("name") {
                            Some(Value::String(name)) if !name.is_empty() => {
                                servers.insert(name, Value::Object(config));
                            }
                            _ => {
                                self.mcp_unreadable = true;
                                self.warn(
                                    &pointer::index(at, i),
                                    "a server entry without a string `name` names nobody; managed MCP servers are marked unreadable",
                                );
                            }
                        },
                        other => {
                            self.mcp_unreadable = true;
                            self.warn(
                                &pointer::index(at, i),
                                format!(
                                    "expected a server name or an object with `name`, found {}; managed MCP servers are marked unreadable",
                                    type_name(&other)
                                ),
                            );
                        }
                    }
                }
            }
            other => {
                self.mcp_unreadable = true;
                self.warn(
                    at,
                    format!(
                        "expected an object or an array of server names, found {}; managed MCP servers are marked unreadable",
                        type_name(&other)
                    ),
                );
                return None;
            }
        }
        Some(Value::Object(servers))
    }

    fn marketplaces(&mut self, value: Value, at: &str) -> Option<Value> {
        let Value::Array(items) = value else {
            return self.drop_whole(at, "an array of marketplace sources", &value);
        };
        let mut kept = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match marketplace_problem(&item) {
                None => kept.push(item),
                Some(why) => self.warn(&pointer::index(at, i), format!("{why}; dropped")),
            }
        }
        Some(Value::Array(kept))
    }
}

/// Why a hook command entry breaks the schema, if it does.
fn hook_command_problem(hook: &Value) -> Option<String> {
    let Value::Object(map) = hook else {
        return Some(format!("expected a hook object, found {}", type_name(hook)));
    };
    let required: &[&str] = match map.get("type").and_then(Value::as_str) {
        Some("command") => &["command"],
        Some("prompt") | Some("agent") => &["prompt"],
        Some("http") => &["url"],
        Some("mcp_tool") => &["server", "tool"],
        Some(other) => return Some(format!("`{other}` is not a hook type")),
        None => return Some("a hook needs a string `type`".to_owned()),
    };
    for field in required {
        match map.get(*field).and_then(Value::as_str) {
            Some(s) if !s.is_empty() => {}
            _ => {
                return Some(format!(
                    "a hook of this type needs a non-empty string `{field}`"
                ))
            }
        }
    }
    None
}

/// Why an `allowedMcpServers`/`deniedMcpServers` entry breaks the schema:
/// exactly one of `serverName` (`^[a-zA-Z0-9_-]+$`), `serverCommand`
/// (non-empty array of strings) or `serverUrl` (string).
fn mcp_entry_problem(entry: &Value) -> Option<String> {
    let Value::Object(map) = entry else {
        return Some(format!(
            "expected a server entry object, found {}",
            type_name(entry)
        ));
    };
    let mut fields = map.iter();
    let (Some((key, value)), None) = (fields.next(), fields.next()) else {
        return Some(
            "a server entry needs exactly one of serverName, serverCommand, serverUrl".to_owned(),
        );
    };
    let ok = match key.as_str() {
        "serverName" => value.as_str().is_some_and(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        }),
        "serverCommand" => value
            .as_array()
            .is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string)),
        "serverUrl" => value.is_string(),
        other => {
            return Some(format!(
                "`{other}` is not a server entry key (serverName, serverCommand, serverUrl)"
            ))
        }
    };
    if ok {
        None
    } else {
        Some(format!("`{key}` has the wrong shape"))
    }
}

/// Why a `strictKnownMarketplaces` entry breaks the schema.
fn marketplace_problem(entry: &Value) -> Option<String> {
    let Value::Object(map) = entry else {
        return Some(format!(
            "expected a marketplace source object, found {}",
            type_name(entry)
        ));
    };
    let required: &[&str] = match map.get("source").and_then(Value::as_str) {
        Some("hostPattern") => &["hostPattern"],
        Some("github") => &["repo"],
        Some("git") | Some("url") => &["url"],
        Some("npm") => &["package"],
        Some("file") | Some("directory") => &["path"],
        Some("pathPattern") => &["pathPattern"],
        Some("skills-dir") | Some("settings") => &[],
        Some(other) => return Some(format!("`{other}` is not a marketplace source")),
        None => return Some("a marketplace source needs a string `source`".to_owned()),
    };
    for field in required {
        if !map.get(*field).is_some_and(Value::is_string) {
            return Some(format!("this marketplace source needs a string `{field}`"));
        }
    }
    None
}

#[cfg(test)]
mod tests {

    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// Salvages `value`; returns what stays and the (pointer, reason) warnings.
    fn salvage(value: Value) -> (Value, Vec<(String, String)>, SalvagedFile) {
        let Value::Object(object) = value else {
            panic!("not an object")
        };
        let mut warnings = Vec::new();
        let mut out = salvage_file(Path::new("m.json"), object, &mut warnings);
        assert!(warnings.iter().all(|w| w.file == Path::new("m.json")));
        let settings = Value::Object(std::mem::take(&mut out.settings));
        let warnings = warnings
            .into_iter()
            .map(|w| (w.pointer, w.reason))
            .collect();
        (settings, warnings, out)
    }

    fn pointers(warnings: &[(String, String)]) -> Vec<&str> {
        warnings.iter().map(|(p, _)| p.as_str()).collect()
    }

    #[test]
    fn valid_settings_pass_untouched_and_silently() {
        let input = json!({
            "$schema": "https://json.schemastore.org/claude-code-settings.json",
            "_comment": "ignored",
            "aNewerKey": {"x": [1]},
            "permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)", "not a rule (("], "ask": ["Bash"],
                "defaultMode": "plan", "disableBypassPermissionsMode": "disable",
                "additionalDirectories": ["../x"], "blockReadsOutsideWorkingDirectories": true},
            "env": {"A": "1"},
            "hooks": {"PostToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "x.sh"}]}]},
            "sandbox": {"network": {"httpProxyPort": null}},
            "enabledPlugins": {"a@m": true, "b@m": ["1.0"]},
            "allowedMcpServers": [{"serverName": "corp"}, {"serverCommand": ["x"]}, {"serverUrl": "https://*"}],
            "strictKnownMarketplaces": [{"source": "github", "repo": "acme/plugins"}],
            "prependPlugins": ["cc-plugin-sec-default@builtin"],
            "processWrapper": {"command": "/usr/bin/wrap"},
            "pluginConfigs": {"cc-plugin-sec-default@builtin": {"options": {"allowManagedModsOnly": true, "l": [1, "a", false]}}},
            "allowManagedHooksOnly": false,
            "cleanupPeriodDays": 7,
            "companyAnnouncements": ["hi"]
        });
        let (out, warnings, _) = salvage(input.clone());
        assert_eq!(warnings, vec![]);
        assert_eq!(out, input);
    }

    #[test]
    fn misplaced_key_inside_permissions_is_dropped_siblings_stay() {
        let (out, warnings, _) = salvage(json!({
            "permissions": {"deny": ["Read(./.env)"], "allowManagedPermissionRulesOnly": true, "bogus": 1}
        }));
        assert_eq!(out, json!({"permissions": {"deny": ["Read(./.env)"]}}));
        assert_eq!(
            pointers(&warnings),
            [
                "/permissions/allowManagedPermissionRulesOnly",
                "/permissions/bogus"
            ]
        );
        assert!(
            warnings[0].1.contains("top-level setting"),
            "{}",
            warnings[0].1
        );
    }

    #[test]
    fn rule_strings_are_never_dropped_non_strings_are() {
        let (out, warnings, _) = salvage(json!({
            "permissions": {"deny": ["(((", 1, null, "Bash(x)"], "ask": "Bash", "allow": "Read"}
        }));
        assert_eq!(
            out,
            json!({"permissions": {"deny": ["(((", "Bash(x)"], "ask": ["Bash"]}})
        );
        assert_eq!(
            pointers(&warnings),
            [
                "/permissions/deny/1",
                "/permissions/deny/2",
                "/permissions/ask",
                "/permissions/allow"
            ]
        );
    }

    #[test]
    fn permissions_sub_keys_of_the_wrong_shape_are_dropped() {
        let (out, warnings, _) = salvage(json!({
            "permissions": {"defaultMode": "yolo", "disableBypassPermissionsMode": true,
                "additionalDirectories": ["a", 2], "blockReadsOutsideWorkingDirectories": "true"}
        }));
        assert_eq!(
            out,
            json!({"permissions": {"additionalDirectories": ["a"]}})
        );
        assert_eq!(
            pointers(&warnings),
            [
                "/permissions/defaultMode",
                "/permissions/disableBypassPermissionsMode",
                "/permissions/additionalDirectories/1",
                "/permissions/blockReadsOutsideWorkingDirectories"
            ]
        );
        let (out, warnings, _) = salvage(json!({"permissions": ["Bash"]}));
        assert_eq!(out, json!({}));
        assert_eq!(pointers(&warnings), ["/permissions"]);
    }

    #[test]
    fn non_string_env_values_are_dropped_and_their_names_kept() {
        let (out, warnings, file) = salvage(json!({
            "env": {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": 1, "A": "x", "B": null, "C": {"x": 1}}
        }));
        assert_eq!(out, json!({"env": {"A": "x"}}));
        assert_eq!(
            pointers(&warnings),
            [
                "/env/CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
                "/env/B",
                "/env/C"
            ]
        );
        assert_eq!(
            file.env_dropped,
            ["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "B", "C"]
        );
        let (out, warnings, file) = salvage(json!({"env": ["A=1"]}));
        assert_eq!(out, json!({}));
        assert_eq!(pointers(&warnings), ["/env"]);
        assert!(file.env_dropped.is_empty());
    }

    #[test]
    fn fail_closed_keys_keep_their_strict_reading() {
        let (out, warnings, _) = salvage(json!({
            "allowManagedHooksOnly": "true",
            "allowManagedMcpServersOnly": 0,
            "allowManagedPermissionRulesOnly": null,
            "allowedMcpServers": {"serverName": "x"},
            "availableModels": "opus"
        }));
        assert_eq!(
            out,
            json!({
                "allowManagedHooksOnly": true,
                "allowManagedMcpServersOnly": true,
                "allowManagedPermissionRulesOnly": true,
                "allowedMcpServers": [],
                "availableModels": []
            })
        );
        assert_eq!(warnings.len(), 5);
        assert!(warnings.iter().all(|(_, r)| r.contains("fails closed")));
    }

    #[test]
    fn allowed_and_denied_mcp_server_entries_are_stripped_one_by_one() {
        let (out, warnings, _) = salvage(json!({
            "allowedMcpServers": [{"serverName": "ok"}, {"serverName": "bad name"}, {"serverName": "a", "serverUrl": "b"}, "x", {"serverCommand": []}],
            "deniedMcpServers": [{"serverUrl": "https://evil/*"}, {"other": 1}]
        }));
        assert_eq!(
            out,
            json!({"allowedMcpServers": [{"serverName": "ok"}], "deniedMcpServers": [{"serverUrl": "https://evil/*"}]})
        );
        assert_eq!(
            pointers(&warnings),
            [
                "/allowedMcpServers/1",
                "/allowedMcpServers/2",
                "/allowedMcpServers/3",
                "/allowedMcpServers/4",
                "/deniedMcpServers/1"
            ]
        );
        let (out, warnings, _) = salvage(json!({"deniedMcpServers": "x"}));
        assert_eq!(
            out,
            json!({}),
            "deniedMcpServers of the wrong type is dropped"
        );
        assert_eq!(pointers(&warnings), ["/deniedMcpServers"]);
    }

    #[test]
    fn known_keys_of_the_wrong_type_are_dropped_whole() {
        let (out, warnings, _) = salvage(json!({
            "disableAllHooks": "yes",
            "cleanupPeriodDays": 1.5,
            "model": 3,
            "sandbox": true,
            "companyAnnouncements": ["a", 1],
            "prependPlugins": "cc-plugin-sec-default@builtin",
            "strictKnownMarketplaces": [{"source": "github"}, {"source": "npm", "package": "p"}, {"source": "nope"}],
            "enabledPlugins": {"a@m": "yes", "b@m": ["1", 2], "c@m": false}
        }));
        assert_eq!(
            out,
            json!({
                "companyAnnouncements": ["a"],
                "strictKnownMarketplaces": [{"source": "npm", "package": "p"}],
                "enabledPlugins": {"b@m": ["1"], "c@m": false}
            })
        );
        assert_eq!(
            pointers(&warnings),
            [
                "/disableAllHooks",
                "/cleanupPeriodDays",
                "/model",
                "/sandbox",
                "/companyAnnouncements/1",
                "/prependPlugins",
                "/strictKnownMarketplaces/0",
                "/strictKnownMarketplaces/2",
                "/enabledPlugins/a@m",
                "/enabledPlugins/b@m/1"
            ]
        );
    }

    #[test]
    fn a_file_with_millions_of_bad_entries_lists_a_thousand_warnings_and_counts_the_rest() {
        let (out, warnings, _) = salvage(
            json!({"env": (0..5_000).map(|i| (format!("V{i}"), json!(i))).collect::<serde_json::Map<String, Value>>()}),
        );
        assert_eq!(warnings.len(), MAX_WARNINGS_PER_FILE + 1);
        assert!(warnings[MAX_WARNINGS_PER_FILE]
            .1
            .starts_with("4000 more entries"));
        assert_eq!(out["env"].as_object().map(|m| m.len()), Some(0));
    }

    #[test]
    fn a_managed_hook_using_the_plugin_root_is_reported() {
        let (out, warnings, _) = salvage(json!({
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "node ${CLAUDE_PLUGIN_ROOT}/guard.js"},
                {"type": "command", "command": "echo ok"}
            ]}]}
        }));
        assert_eq!(pointers(&warnings), ["/hooks/PreToolUse/0/hooks/0/command"]);
        assert!(warnings[0].1.contains("never define"));
        assert_eq!(
            out["hooks"]["PreToolUse"][0]["hooks"]
                .as_array()
                .map(Vec::len),
            Some(2),
            "kept"
        );
    }

    #[test]
    fn hooks_entries_are_salvaged_at_their_pointers() {
        let (out, warnings, _) = salvage(json!({
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}, {"type": "command"}, {"type": "nope"}], "extra": 1},
                    {"matcher": 3, "hooks": []},
                    {"matcher": "x"}
                ],
                "NotAnEvent": [],
                "Stop": {}
            }
        }));
        assert_eq!(
            out,
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}]}]}})
        );
        assert_eq!(
            pointers(&warnings),
            [
                "/hooks/PreToolUse/0/hooks/1",
                "/hooks/PreToolUse/0/hooks/2",
                "/hooks/PreToolUse/0/extra",
                "/hooks/PreToolUse/1/matcher",
                "/hooks/PreToolUse/2",
                "/hooks/NotAnEvent",
                "/hooks/Stop"
            ]
        );
    }

    #[test]
    fn plugin_configs_is_all_or_nothing() {
        for bad in [
            json!([]),
            json!({"cc-plugin-sec-default@builtin": true}),
            json!({"cc-plugin-sec-default@builtin": {"options": []}}),
            json!({"cc-plugin-sec-default@builtin": {"options": {"allowManagedModsOnly": null}}}),
            json!({"cc-plugin-sec-default@builtin": {"options": {"allowManagedModsOnly": true}},
                   "other@m": {"options": {"x": {"nested": 1}}}}),
            json!({"x@m": {"options": {"l": [1, [2]]}}}),
        ] {
            let (out, warnings, _) = salvage(json!({"pluginConfigs": bad, "model": "m"}));
            assert_eq!(out, json!({"model": "m"}), "{bad}");
            assert_eq!(warnings.len(), 1, "one warning: {warnings:?}");
            assert!(warnings[0].0.starts_with("/pluginConfigs"));
            assert!(warnings[0]
                .1
                .contains("the whole pluginConfigs key is ignored"));
        }
        let (_, warnings, _) =
            salvage(json!({"pluginConfigs": {"x@m": {"options": {"l": [1, [2]]}}}}));
        assert_eq!(pointers(&warnings), ["/pluginConfigs/x@m/options/l/1"]);
        // Other keys of an entry are not constrained.
        let ok = json!({"pluginConfigs": {"x@m": {"mcpServers": {"a": {"b": null}}}}});
        assert_eq!(salvage(ok.clone()).0, ok);
    }

    #[test]
    fn managed_mcp_servers_shapes() {
        let (out, warnings, file) =
            salvage(json!({"managedMcpServers": {"a": {"command": "x"}, "b": true}}));
        assert_eq!(
            out,
            json!({"managedMcpServers": {"a": {"command": "x"}, "b": {}}})
        );
        assert_eq!(pointers(&warnings), ["/managedMcpServers/b"]);
        assert!(!file.mcp_unreadable);

        let (out, warnings, file) =
            salvage(json!({"managedMcpServers": ["a", {"name": "b", "url": "u"}]}));
        assert_eq!(
            out,
            json!({"managedMcpServers": {"a": {}, "b": {"url": "u"}}})
        );
        assert!(warnings.is_empty());
        assert!(!file.mcp_unreadable);

        let (out, warnings, file) = salvage(json!({"managedMcpServers": ["a", 3, {"url": "u"}]}));
        assert_eq!(out, json!({"managedMcpServers": {"a": {}}}));
        assert_eq!(
            pointers(&warnings),
            ["/managedMcpServers/1", "/managedMcpServers/2"]
        );
        assert!(file.mcp_unreadable);

        let (out, warnings, file) = salvage(json!({"managedMcpServers": "a"}));
        assert_eq!(out, json!({}));
        assert_eq!(pointers(&warnings), ["/managedMcpServers"]);
        assert!(file.mcp_unreadable);
    }

    #[test]
    fn the_reads_own_keys_cannot_come_from_a_file() {
        let (out, warnings, file) = salvage(json!({
            "managedMcpServersUnreadable": false, "managedEnvDropped": ["X"]
        }));
        assert_eq!(out, json!({}));
        assert_eq!(warnings.len(), 2);
        assert!(file.env_dropped.is_empty());
    }

    #[test]
    fn pointers_are_escaped() {
        let (_, warnings, _) = salvage(json!({"env": {"A/B~C": 1}}));
        assert_eq!(pointers(&warnings), ["/env/A~1B~0C"]);
    }
}

#[cfg(test)]
mod advice_tests {
    use super::*;

    #[test]
    fn unknown_keys_are_silent_unless_they_look_meant() {
        for silent in ["$schema", "_comment", "someNewerKey", "x"] {
            assert_eq!(unknown_key_advice(silent), None, "{silent}");
        }
        let meant = |k: &str| unknown_key_advice(k).unwrap();
        assert!(meant("permisions").contains("did you mean `permissions`"));
        assert!(meant("Permissions").contains("did you mean `permissions`"));
        assert!(meant("permissoins").contains("did you mean `permissions`"));
        assert!(meant("enabledPlugin").contains("did you mean `enabledPlugins`"));
        assert!(meant("disableBypassPermissionsMode").contains("belongs under `permissions`"));
        assert!(meant("deny").contains("belongs under `permissions`"));
        assert!(meant("permissionRules").contains("does nothing"));
    }

    #[test]
    fn one_edit() {
        assert!(one_edit_apart("abc", "abd"));
        assert!(one_edit_apart("abc", "ab"));
        assert!(one_edit_apart("abc", "abcd"));
        assert!(one_edit_apart("abc", "acb"));
        assert!(!one_edit_apart("abc", "abc"));
        assert!(!one_edit_apart("abc", "cba"));
        assert!(!one_edit_apart("abc", "a"));
    }
}
