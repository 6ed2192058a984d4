//! The scenario file format, as serde types (SCENARIOS.md, the whole file).
//!
//! A file holds one [`Scenario`] object, or `{"scenarios": [ ... ]}` (see
//! [`crate::load_file`]). Every object of the format is closed: an unknown key is an
//! error, so a typo never silently passes. The values that are free JSON by contract
//! stay [`serde_json::Value`]s: a step's `event` and `core`, a plugin's `manifest`, a
//! hook's `filter`, policy and settings file contents, and the answer patterns of
//! `expect` (validated for operators, see [`crate::expect`]).
//!
//! Shapes with more than one form (behaviours, file specs, `policy`, steps, `expect`)
//! have hand-written `Deserialize` impls that say what was expected, so that
//! [`crate::load_file`] can report `file: /json/pointer: message`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Component, Path, PathBuf};

use fnhooks::{CopySource, Tier};
use schemars::JsonSchema;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{FileSpecError, RelPathError};
use crate::expect::Expectation;

/// Permission modes a session may be in (SCENARIOS.md `session.mode`).
pub const MODES: &[&str] = &[
    "default",
    "acceptEdits",
    "plan",
    "dontAsk",
    "bypassPermissions",
    "auto",
];
/// Loops a session may run in (SCENARIOS.md `session.loop`).
pub const LOOPS: &[&str] = &["main", "subagent", "background"];
/// Hosts that may answer asks (SCENARIOS.md `session.host`).
pub const HOSTS: &[&str] = &["none", "sdk", "prompt-tool", "served", "cloud"];
/// The security default's own id: placed by `seated`, never listed in `plugins`
/// (SCENARIOS.md "Plugins"); `from` may name it.
pub use policy::SEC_DEFAULT_ID;
/// Tiers a listed plugin may sit in (`core` is the engine's own link).
pub const PLUGIN_TIERS: &[&str] = &["prepend", "user", "append", "builtin"];
/// Behaviour names (SCENARIOS.md "Behaviours").
pub const BEHAVIOURS: &[&str] = &[
    "pass",
    "answer",
    "replace",
    "patch",
    "hand",
    "drop",
    "skip_to",
    "fail",
    "fail_after_next",
    "panic",
    "hang",
];

// ---------------------------------------------------------------------------------
// Scenario

/// One scenario: a session set up, plugins with scripted behaviour, steps raised in
/// order with expectations (SCENARIOS.md, the top-level object).
///
/// Shape: `{name, about?, seated?, policy?, settings?, session?, plugins?, steps?, load?}`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The scenario's name, printed on its pass/fail line.
    pub name: String,
    /// Free text shown on failure (a SPEC section, a public report).
    #[serde(default)]
    pub about: Option<String>,
    /// `true` (default): the engine seats sec-default as it would (SPEC §2.3);
    /// `false`: never seated.
    #[serde(default = "default_true")]
    pub seated: bool,
    /// The managed folder (default: an empty managed folder, every file absent).
    #[serde(default)]
    pub policy: PolicySpec,
    /// The other settings sources.
    #[serde(default)]
    pub settings: SettingsSpec,
    /// The session's mode, loop, host, folders and tools.
    #[serde(default)]
    pub session: SessionSpec,
    /// Plugins in chain order within their tier (sec-default is not listed).
    #[serde(default)]
    pub plugins: Vec<PluginSpec>,
    /// Steps, run in order after every plugin was admitted.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// Plugins the loader finds from the scenario's settings (an extension of
    /// SCENARIOS.md; SPEC §6 "Loading"), listed after `plugins`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadSpec>,
}

/// `load` (SPEC §6 "Loading"): the loader runs on the scenario's managed
/// settings (`policy`) and `settings.user`/`project`/`local`/`flag`, and the plugins it
/// finds are loaded as the engine loads them and listed after `plugins`. In a scenario
/// every relative path the settings give (a `directory` marketplace's `path`) resolves
/// from the scenario file's folder, and `~/` from `session.home`.
///
/// Shape: `{plugin_root?, plugin_dirs?, found?, skipped?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadSpec {
    /// The person's plugin root (`~/.claude/plugins`: cached copies under
    /// `marketplaces/<name>/` and `cache/<marketplace>/<plugin>/`), relative to the
    /// scenario file. Absent: an empty one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_root: Option<String>,
    /// `--plugin-dir` folders, relative to the scenario file, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plugin_dirs: Vec<String>,
    /// Expected: the plugins found, exactly and in chain order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<Vec<FoundSpec>>,
    /// Expected: the ids skipped, exactly and in order, each with its line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<Vec<SkippedSpec>>,
}

/// One plugin `load.found` expects.
///
/// Shape: `{id, tier, source?, loaded?, admitted?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FoundSpec {
    /// The resolved id, `<name>@<marketplace>`.
    pub id: String,
    /// `prepend`, `user` or `append`.
    #[serde(deserialize_with = "de_plugin_tier")]
    #[schemars(schema_with = "crate::schema::plugin_tier_schema")]
    pub tier: Tier,
    /// How its copy was read: `directory`, `github`, `git`, `npm`, `cached`, `inline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Whether its mod loaded (`false`: it is listed as a module that could not be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded: Option<bool>,
    /// Whether `plugin.register` admitted it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted: Option<bool>,
}

/// One id `load.skipped` expects.
///
/// Shape: `{id, line?}`: `line` a text the skip line contains.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkippedSpec {
    /// The id as the settings wrote it (or the folder, for `--plugin-dir`).
    pub id: String,
    /// Text the line contains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
}

fn default_true() -> bool {
    true
}

impl Scenario {
    /// The listed plugin with this id, if any.
    #[must_use]
    pub fn plugin(&self, id: &str) -> Option<&PluginSpec> {
        self.plugins.iter().find(|p| p.id == id)
    }
}

// ---------------------------------------------------------------------------------
// Relative paths

/// A path relative to a folder the runner owns (the managed folder, the session's
/// working folder): not empty, not absolute, no `.`/`..`/empty components, no NUL.
///
/// Shape: a JSON string such as `"managed-settings.d/20-mcp.json"`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct RelPath(String);

impl RelPath {
    /// Checks and wraps a relative path.
    ///
    /// # Errors
    ///
    /// [`RelPathError`] saying why the path is not a plain relative path.
    pub fn parse(s: &str) -> Result<RelPath, RelPathError> {
        let path = || s.to_owned();
        if s.is_empty() {
            return Err(RelPathError::Empty);
        }
        if s.contains('\0') {
            return Err(RelPathError::Nul { path: path() });
        }
        if s.starts_with('/') || s.starts_with('\\') || Path::new(s).is_absolute() {
            return Err(RelPathError::Absolute { path: path() });
        }
        if s.split('/').any(|c| c.is_empty() || c == "." || c == "..") {
            return Err(RelPathError::BadComponent { path: path() });
        }
        if Path::new(s)
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(RelPathError::NotPlain { path: path() });
        }
        Ok(RelPath(s.to_owned()))
    }

    /// The path as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The path as a [`Path`].
    #[must_use]
    pub fn as_path(&self) -> &Path {
        Path::new(&self.0)
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for RelPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        RelPath::parse(&s).map_err(de::Error::custom)
    }
}

impl JsonSchema for RelPath {
    fn schema_name() -> String {
        "RelPath".to_owned()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::schema::string_schema(
            "A path relative to the folder it is written into (no `..`, not absolute).",
        )
    }
}

/// Reports `message` as an error located at the value of the key just read, so that
/// `serde_path_to_error` names `/parent/key` rather than `/parent`.
pub(crate) fn fail_at_value<'de, A: MapAccess<'de>, T>(
    map: &mut A,
    message: String,
) -> Result<T, A::Error> {
    struct Fail(String);
    impl<'de> DeserializeSeed<'de> for Fail {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<(), D::Error> {
            Err(de::Error::custom(self.0))
        }
    }
    map.next_value_seed(Fail(message))?;
    Err(de::Error::custom("unreachable: the value was rejected"))
}

// ---------------------------------------------------------------------------------
// File contents

/// The content of one file of the managed folder or one settings source
/// (SCENARIOS.md `policy`, `settings`, `change_policy`).
///
/// Shape: any JSON value (the file's content, written pretty-printed), except the
/// one-key objects `{"$raw": "text"}` (raw bytes, written as-is) and
/// `{"$unreadable": true}` (the file exists but reading it fails).
#[derive(Debug, Clone, PartialEq)]
pub enum FileSpec {
    /// The file holds this JSON value.
    Content(Value),
    /// The file holds these bytes, as-is (`{"$raw": "text"}`).
    Raw(String),
    /// The file exists but reading it fails (`{"$unreadable": true}`).
    Unreadable,
}

impl FileSpec {
    /// Classifies a JSON value as a file spec.
    ///
    /// # Errors
    ///
    /// [`FileSpecError`] when `$raw` is not given a string or `$unreadable` is not given
    /// `true`.
    pub fn from_value(value: Value) -> Result<FileSpec, FileSpecError> {
        if let Value::Object(map) = &value {
            if map.len() == 1 {
                if let Some(raw) = map.get("$raw") {
                    return match raw {
                        Value::String(s) => Ok(FileSpec::Raw(s.clone())),
                        other => Err(FileSpecError::RawNotString {
                            found: kind_of(other),
                        }),
                    };
                }
                if let Some(flag) = map.get("$unreadable") {
                    return match flag {
                        Value::Bool(true) => Ok(FileSpec::Unreadable),
                        other => Err(FileSpecError::UnreadableNotTrue {
                            found: other.to_string(),
                        }),
                    };
                }
            }
        }
        Ok(FileSpec::Content(value))
    }
}

impl<'de> Deserialize<'de> for FileSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        FileSpec::from_value(value).map_err(de::Error::custom)
    }
}

/// How a JSON value is named in error messages (`a string`, `an object`, ...).
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ---------------------------------------------------------------------------------
// Policy

/// The managed folder (SCENARIOS.md `policy`).
///
/// Shape: `{"$dir": "path/to/folder"}` (relative to the scenario file; must exist), or
/// an object mapping relative paths to [`FileSpec`]s (absent file = absent). When the
/// scenario leaves `policy` out, the managed folder is empty.
#[derive(Debug, Clone, PartialEq)]
pub enum PolicySpec {
    /// A real folder, copied into the runner's temporary managed folder. The path is as
    /// written, relative to the scenario file's folder.
    Dir(PathBuf),
    /// The folder, file by file.
    Files(BTreeMap<RelPath, FileSpec>),
}

impl Default for PolicySpec {
    fn default() -> Self {
        PolicySpec::Files(BTreeMap::new())
    }
}

impl PolicySpec {
    /// The `$dir` folder resolved against the scenario file's folder; `None` for
    /// [`PolicySpec::Files`].
    #[must_use]
    pub fn resolved_dir(&self, scenario_file: &Path) -> Option<PathBuf> {
        match self {
            PolicySpec::Dir(dir) => Some(resolve_beside(scenario_file, dir)),
            PolicySpec::Files(_) => None,
        }
    }
}

/// `rel` resolved against the folder holding `file` (`.` when `file` has no parent).
#[must_use]
pub fn resolve_beside(file: &Path, rel: &Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.join(rel),
        _ => rel.to_path_buf(),
    }
}

impl<'de> Deserialize<'de> for PolicySpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PolicySpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a policy: {\"$dir\": \"folder\"} or an object of relative file paths to contents",
                )
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PolicySpec, A::Error> {
                let mut files = BTreeMap::new();
                let mut dir: Option<PathBuf> = None;
                let mut seen = 0usize;
                while let Some(key) = map.next_key::<String>()? {
                    seen += 1;
                    if key == "$dir" {
                        if seen > 1 {
                            return fail_at_value(
                                &mut map,
                                "\"$dir\" must be the only key of policy".to_owned(),
                            );
                        }
                        let d: String = map.next_value()?;
                        if d.is_empty() {
                            return Err(de::Error::custom(
                                "\"$dir\" takes a folder path, found an empty string",
                            ));
                        }
                        dir = Some(PathBuf::from(d));
                        continue;
                    }
                    if dir.is_some() {
                        return fail_at_value(
                            &mut map,
                            "\"$dir\" must be the only key of policy".to_owned(),
                        );
                    }
                    if key.starts_with('$') {
                        return fail_at_value(
                            &mut map,
                            format!("unknown policy key {key:?}, expected \"$dir\" or a relative file path"),
                        );
                    }
                    let path = match RelPath::parse(&key) {
                        Ok(p) => p,
                        Err(msg) => return fail_at_value(&mut map, msg.to_string()),
                    };
                    if files.contains_key(&path) {
                        return fail_at_value(&mut map, format!("file {key:?} is listed twice"));
                    }
                    let spec: FileSpec = map.next_value()?;
                    files.insert(path, spec);
                }
                Ok(match dir {
                    Some(d) => PolicySpec::Dir(d),
                    None => PolicySpec::Files(files),
                })
            }
        }
        deserializer.deserialize_map(V)
    }
}

// ---------------------------------------------------------------------------------
// Settings

/// The other settings sources (SCENARIOS.md `settings`), each a settings.json object,
/// `{"$raw": ...}` or `{"$unreadable": true}`; a source left out is absent.
///
/// Shape: `{user?, project?, local?, flag?}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsSpec {
    /// `~/.claude/settings.json`.
    #[serde(default)]
    pub user: Option<FileSpec>,
    /// `.claude/settings.json` of the project.
    #[serde(default)]
    pub project: Option<FileSpec>,
    /// `.claude/settings.local.json` of the project.
    #[serde(default)]
    pub local: Option<FileSpec>,
    /// `--settings` given on the command line.
    #[serde(default)]
    pub flag: Option<FileSpec>,
}

// ---------------------------------------------------------------------------------
// Session

/// The session (SCENARIOS.md `session`), every field defaulted as the contract says.
///
/// Shape: `{mode?, loop?, host?, interactive?, hook_timeout_ms?, cwd?, home?, tools?, files?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionSpec {
    /// One of [`MODES`]: the mode the session was given. Absent: none given, so the
    /// session starts as SPEC §4 "Mode at start" says (a managed or other
    /// `defaultMode`, else `default`).
    #[serde(
        default,
        deserialize_with = "de_mode",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(schema_with = "crate::schema::mode_schema")]
    pub mode: Option<String>,
    /// One of [`LOOPS`]; default `"main"`.
    #[serde(
        rename = "loop",
        default = "default_loop",
        deserialize_with = "de_loop"
    )]
    #[schemars(schema_with = "crate::schema::loop_schema")]
    pub r#loop: String,
    /// One of [`HOSTS`]; default `"none"`.
    #[serde(default = "default_host", deserialize_with = "de_host")]
    #[schemars(schema_with = "crate::schema::host_schema")]
    pub host: String,
    /// Whether a person is there to be asked; default `true`.
    #[serde(default = "default_true")]
    pub interactive: bool,
    /// The engine's per-hook timeout in milliseconds; default 1000.
    #[serde(default = "default_hook_timeout_ms")]
    pub hook_timeout_ms: u64,
    /// The working folder; default `/home/dev/repo` (replaced by a temporary folder
    /// when `files` is given).
    #[serde(default = "default_cwd")]
    pub cwd: String,
    /// The home folder; default `/home/dev`.
    #[serde(default = "default_home")]
    pub home: String,
    /// Tools the engine provides; default none.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Files created in a fresh temporary working folder (relative path → entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<BTreeMap<RelPath, FileEntry>>,
}

impl Default for SessionSpec {
    fn default() -> Self {
        SessionSpec {
            mode: None,
            r#loop: default_loop(),
            host: default_host(),
            interactive: true,
            hook_timeout_ms: default_hook_timeout_ms(),
            cwd: default_cwd(),
            home: default_home(),
            tools: Vec::new(),
            files: None,
        }
    }
}

fn default_loop() -> String {
    "main".to_owned()
}
fn default_host() -> String {
    "none".to_owned()
}
fn default_hook_timeout_ms() -> u64 {
    1000
}
fn default_cwd() -> String {
    "/home/dev/repo".to_owned()
}
fn default_home() -> String {
    "/home/dev".to_owned()
}

fn de_one_of<'de, D: Deserializer<'de>>(
    deserializer: D,
    what: &str,
    allowed: &[&str],
) -> Result<String, D::Error> {
    let s = String::deserialize(deserializer)?;
    if allowed.contains(&s.as_str()) {
        Ok(s)
    } else {
        Err(de::Error::custom(format!(
            "unknown {what} {s:?}, expected one of {}",
            allowed.join(", ")
        )))
    }
}

fn de_mode<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    de_one_of(d, "mode", MODES).map(Some)
}
fn de_loop<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    de_one_of(d, "loop", LOOPS)
}
fn de_host<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    de_one_of(d, "host", HOSTS)
}

/// A tool the engine provides (SCENARIOS.md `session.tools`).
///
/// Shape: `{name, description?, provider?: {tier, plugin?, server?}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    /// The tool's name (`Bash`, `mcp__corp__search`).
    pub name: String,
    /// Its description, as given to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Who provides it (SPEC §1.5 `provider`); absent: the engine itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderSpec>,
}

/// Who provides a tool: `{tier, plugin?, server?}` (SPEC §1.5, pinned `provider`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProviderSpec {
    /// The provider's tier (any of the five, `core` included).
    #[serde(deserialize_with = "de_any_tier")]
    #[schemars(schema_with = "crate::schema::any_tier_schema")]
    pub tier: Tier,
    /// The providing plugin's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// The MCP server's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

fn tier_of<E: de::Error>(s: &str, allowed: &[&str]) -> Result<Tier, E> {
    match Tier::parse(s) {
        Some(t) if allowed.contains(&t.as_str()) => Ok(t),
        _ => Err(E::custom(format!(
            "unknown tier {s:?}, expected one of {}",
            allowed.join(", ")
        ))),
    }
}

/// Every tier name, `core` included (a provider's tier, a `skip_to` target).
pub const ALL_TIER_NAMES: &[&str] = &["prepend", "user", "append", "builtin", "core"];

fn de_any_tier<'de, D: Deserializer<'de>>(d: D) -> Result<Tier, D::Error> {
    let s = String::deserialize(d)?;
    tier_of(&s, ALL_TIER_NAMES)
}

/// The spellings of SCENARIOS.md `source`.
pub const SOURCES: &[&str] = &["directory", "github", "git", "npm", "cached", "inline"];

fn de_source<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    de_one_of(d, "source", SOURCES).map(Some)
}

fn de_plugin_tier<'de, D: Deserializer<'de>>(d: D) -> Result<Tier, D::Error> {
    let s = String::deserialize(d)?;
    tier_of(&s, PLUGIN_TIERS)
}

/// An entry of `session.files` (SCENARIOS.md "Files and the tool-use flow").
///
/// Shape: `"content"` | `{"symlink": "target"}` | `{"dir": true}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FileEntry {
    /// A regular file with this text.
    Content(String),
    /// A symbolic link to `target` (as written; may be absolute).
    Symlink {
        /// The link's target.
        symlink: String,
    },
    /// An empty folder.
    Dir {
        /// Always `true`.
        dir: bool,
    },
}

impl<'de> Deserialize<'de> for FileEntry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        const EXPECTED: &str =
            "expected a file entry: \"content\", {\"symlink\": \"target\"} or {\"dir\": true}";
        let value = Value::deserialize(deserializer)?;
        match value {
            Value::String(s) => Ok(FileEntry::Content(s)),
            Value::Object(map) if map.len() == 1 => match map.iter().next() {
                Some((k, Value::String(t))) if k == "symlink" => {
                    Ok(FileEntry::Symlink { symlink: t.clone() })
                }
                Some((k, Value::Bool(true))) if k == "dir" => Ok(FileEntry::Dir { dir: true }),
                Some((k, v)) if k == "symlink" => Err(de::Error::custom(format!(
                    "\"symlink\" takes a string (the link's target), found {}",
                    kind_of(v)
                ))),
                Some((k, v)) if k == "dir" => {
                    Err(de::Error::custom(format!("\"dir\" takes true, found {v}")))
                }
                Some((k, _)) => Err(de::Error::custom(format!(
                    "unknown file entry key {k:?}, {EXPECTED}"
                ))),
                None => Err(de::Error::custom(EXPECTED)),
            },
            other => Err(de::Error::custom(format!(
                "{EXPECTED}, found {}",
                kind_of(&other)
            ))),
        }
    }
}

// ---------------------------------------------------------------------------------
// Plugins

/// A listed plugin with scripted hooks (SCENARIOS.md `plugins`).
///
/// Shape: `{id, name?, tier, worker?, manifest?, admitted?, hooks?}`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PluginSpec {
    /// The id the loader recorded: `<name>@<marketplace>`. Unique within a scenario.
    pub id: String,
    /// The manifest name; default: the id's name (see [`PluginSpec::manifest_name`]).
    #[serde(default)]
    pub name: Option<String>,
    /// `prepend` | `user` | `append` | `builtin` (never `core`).
    #[serde(deserialize_with = "de_plugin_tier")]
    #[schemars(schema_with = "crate::schema::plugin_tier_schema")]
    pub tier: Tier,
    /// Adjacent plugins with one worker form a batch (SPEC §1.1).
    #[serde(default)]
    pub worker: Option<String>,
    /// How the loader found the plugin's copy, for SPEC §3.4's exemption: `directory`
    /// (the default), `github`, `git`, `npm`, `cached` or `inline` (implied by an
    /// `@inline` id); see [`PluginSpec::copy_source`].
    #[serde(
        default,
        deserialize_with = "de_source",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(schema_with = "crate::schema::source_schema")]
    pub source: Option<String>,
    /// The plugin's manifest (free JSON).
    #[serde(default)]
    pub manifest: Option<Value>,
    /// Expectation on admission at load (`plugin.register`), if given.
    #[serde(default)]
    pub admitted: Option<bool>,
    /// The plugin's hooks, in registration order.
    #[serde(default)]
    pub hooks: Vec<HookSpec>,
    /// A mod's folder, relative to the scenario file, loaded as the engine loads a mod
    /// (SCENARIOS.md "Mods", SPEC §6); never given with `hooks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// For a mod (`path`): what stands for `pluginConfigs["<id>"].options`, over the
    /// manifest's `userConfig` defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Map<String, Value>>,
}

impl PluginSpec {
    /// How the loader found this copy (SCENARIOS.md `source`; SPEC §3.4 exemption):
    /// `inline` for an `@inline` id (any letter case), else `source` when given, else
    /// `directory` (read in place from a folder marketplace managed settings name).
    #[must_use]
    pub fn copy_source(&self) -> CopySource {
        if policy::is_inline_id(&self.id) {
            return CopySource::Inline;
        }
        self.source
            .as_deref()
            .and_then(CopySource::parse)
            .unwrap_or(CopySource::Directory)
    }

    /// The manifest name: `name` when given, else everything before the last `@` of
    /// the id (the whole id when it has no `@`).
    #[must_use]
    pub fn manifest_name(&self) -> &str {
        match &self.name {
            Some(n) => n,
            None => id_name(&self.id),
        }
    }
}

/// The name part of a plugin id: everything before its last `@` (the whole id when
/// it has none).
#[must_use]
pub fn id_name(id: &str) -> &str {
    policy::id_name(id)
}

/// One scripted hook (SCENARIOS.md `hooks`, SPEC §1.1 `on(pattern, [filter], hook)`).
///
/// Shape: `{on, filter?, do, catch?}`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookSpec {
    /// An event name or a `prefix.*` pattern.
    pub on: String,
    /// Narrows the hook by event fields (`{"door": ...}`, `{"tier": ...}`, `{"tool": ...}`).
    #[serde(default)]
    pub filter: Option<Map<String, Value>>,
    /// What the hook does.
    #[serde(rename = "do")]
    pub do_: Behaviour,
    /// The failure handler (SPEC §1.1 `.catch`), run when the hook fails.
    #[serde(default)]
    pub catch: Option<Behaviour>,
}

/// What a scripted hook (or its failure handler) does (SCENARIOS.md "Behaviours").
///
/// Shape: `"pass"`, `"hang"`, or a one-key object `{"answer": V}`, `{"replace": V}`,
/// `{"patch": {...}}`, `{"hand": {...}}`, `{"drop": [fields]}`, `{"skip_to": "<tier>"}`, `{"fail": "msg"}`,
/// `{"fail_after_next": "msg"}`, `{"panic": "msg"}`.
#[derive(Debug, Clone, PartialEq)]
pub enum Behaviour {
    /// Returns `next(e)`.
    Pass,
    /// Returns the value without calling `next`.
    Answer(Value),
    /// Calls `next(e)`, then returns the value.
    Replace(Value),
    /// Calls `next(e)`, returns its answer with these top-level fields set (`null`
    /// removes one); a non-object answer makes the hook fail (`invalid-answer`).
    Patch(Map<String, Value>),
    /// Calls `next` with the event's top-level fields set as given, returns what
    /// comes back.
    Hand(Map<String, Value>),
    /// Calls `next` with these top-level fields left out of the event, returns what
    /// comes back (SPEC §1.2: a pinned field left out is put back). An extension of
    /// SCENARIOS.md's behaviours.
    Drop(Vec<String>),
    /// Returns `next.to(e, tier)` (any tier: a forbidden jump is a scenario too).
    SkipTo(Tier),
    /// Fails without calling `next`.
    Fail(String),
    /// Calls `next(e)`, then fails.
    FailAfterNext(String),
    /// Panics with the message.
    Panic(String),
    /// Never returns.
    Hang,
}

impl Behaviour {
    /// The behaviour's name as the format spells it (`pass`, `skip_to`, ...).
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Behaviour::Pass => "pass",
            Behaviour::Answer(_) => "answer",
            Behaviour::Replace(_) => "replace",
            Behaviour::Patch(_) => "patch",
            Behaviour::Hand(_) => "hand",
            Behaviour::Drop(_) => "drop",
            Behaviour::SkipTo(_) => "skip_to",
            Behaviour::Fail(_) => "fail",
            Behaviour::FailAfterNext(_) => "fail_after_next",
            Behaviour::Panic(_) => "panic",
            Behaviour::Hang => "hang",
        }
    }
}

fn unknown_behaviour(name: &str) -> String {
    format!(
        "unknown behaviour {name:?}, expected one of {}",
        BEHAVIOURS.join(", ")
    )
}

impl<'de> Deserialize<'de> for Behaviour {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Behaviour;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a behaviour: \"pass\", \"hang\" or a one-key object such as {\"answer\": ...}",
                )
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Behaviour, E> {
                match s {
                    "pass" => Ok(Behaviour::Pass),
                    "hang" => Ok(Behaviour::Hang),
                    other if BEHAVIOURS.contains(&other) => Err(E::custom(format!(
                        "behaviour {other:?} takes an argument: write {{\"{other}\": ...}}"
                    ))),
                    other => Err(E::custom(unknown_behaviour(other))),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Behaviour, A::Error> {
                let Some(key) = map.next_key::<String>()? else {
                    return Err(de::Error::custom(format!(
                        "expected a behaviour, found an empty object; one of {}",
                        BEHAVIOURS.join(", ")
                    )));
                };
                let behaviour = match key.as_str() {
                    "answer" => Behaviour::Answer(map.next_value()?),
                    "replace" => Behaviour::Replace(map.next_value()?),
                    "patch" => Behaviour::Patch(map.next_value_seed(ObjectSeed("patch"))?),
                    "hand" => Behaviour::Hand(map.next_value_seed(ObjectSeed("hand"))?),
                    "drop" => Behaviour::Drop(map.next_value()?),
                    "skip_to" => Behaviour::SkipTo(map.next_value_seed(TierSeed(ALL_TIER_NAMES))?),
                    "fail" => Behaviour::Fail(map.next_value()?),
                    "fail_after_next" => Behaviour::FailAfterNext(map.next_value()?),
                    "panic" => Behaviour::Panic(map.next_value()?),
                    "pass" | "hang" => {
                        return Err(de::Error::custom(format!(
                            "behaviour {key:?} takes no argument: write \"{key}\""
                        )))
                    }
                    other => return Err(de::Error::custom(unknown_behaviour(other))),
                };
                if let Some(extra) = map.next_key::<String>()? {
                    return Err(de::Error::custom(format!(
                        "a behaviour is a one-key object; {extra:?} follows {:?}",
                        behaviour.name()
                    )));
                }
                Ok(behaviour)
            }
        }
        deserializer.deserialize_any(V)
    }
}

/// Deserializes a tier name among `allowed`.
struct TierSeed(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for TierSeed {
    type Value = Tier;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tier, D::Error> {
        let s = String::deserialize(deserializer)?;
        tier_of(&s, self.0)
    }
}

/// Deserializes a JSON object, naming the behaviour in the error otherwise.
struct ObjectSeed(&'static str);

impl<'de> DeserializeSeed<'de> for ObjectSeed {
    type Value = Map<String, Value>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(map) => Ok(map),
            other => Err(de::Error::custom(format!(
                "{:?} takes an object of top-level fields, found {}",
                self.0,
                kind_of(&other)
            ))),
        }
    }
}

// ---------------------------------------------------------------------------------
// Steps

/// One step (SCENARIOS.md `steps`).
///
/// Shape: `{raise, event?, from?, core?, expect?}` or `{change_policy: {...}}`.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "one per step, built once at load; boxing would only obscure matching on it"
)]
pub enum Step {
    /// An event raised through the engine.
    Raise(RaiseStep),
    /// The managed folder changed mid-session.
    ChangePolicy(PolicyChange),
}

/// A step that raises an event (SCENARIOS.md "Events").
///
/// Shape: `{raise, event?, from?, core?, expect?}`.
#[derive(Debug, Clone, PartialEq)]
pub struct RaiseStep {
    /// The event's name (SPEC §1.5).
    pub raise: String,
    /// The event's input fields: always a JSON object (default `{}`).
    pub event: Value,
    /// The id of the plugin that raises it; absent: the engine raises it.
    pub from: Option<String>,
    /// What the engine's own link answers, where it is not computed from the session.
    pub core: Option<Value>,
    /// The expectation on the answer (see [`crate::expect`]); absent: no expectation.
    pub expect: Option<Expectation>,
}

/// A step that changes the managed folder (SCENARIOS.md `change_policy`).
///
/// Shape: `{"change_policy": {"path": FileSpec | null}}`; `null` deletes the file,
/// files not listed stay.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyChange {
    /// Files replaced (`Some`) or deleted (`None`).
    pub change_policy: BTreeMap<RelPath, Option<FileSpec>>,
}

const STEP_FIELDS: &[&str] = &["raise", "event", "from", "core", "expect", "change_policy"];

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Step;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a step: {\"raise\": ...} or {\"change_policy\": {...}}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Step, A::Error> {
                let mut raise: Option<String> = None;
                let mut event: Option<Value> = None;
                let mut from: Option<Option<String>> = None;
                let mut core: Option<Option<Value>> = None;
                let mut expect: Option<Option<Expectation>> = None;
                let mut change: Option<BTreeMap<RelPath, Option<FileSpec>>> = None;
                while let Some(key) = map.next_key::<String>()? {
                    let dup = match key.as_str() {
                        "raise" => raise.is_some(),
                        "event" => event.is_some(),
                        "from" => from.is_some(),
                        "core" => core.is_some(),
                        "expect" => expect.is_some(),
                        "change_policy" => change.is_some(),
                        other => {
                            let e: A::Error = de::Error::unknown_field(other, STEP_FIELDS);
                            return fail_at_value(&mut map, e.to_string());
                        }
                    };
                    if dup {
                        return fail_at_value(&mut map, format!("duplicate field `{key}`"));
                    }
                    match key.as_str() {
                        "raise" => {
                            let name: String = map.next_value()?;
                            if name.is_empty() {
                                return Err(de::Error::custom(
                                    "expected an event name, found an empty string",
                                ));
                            }
                            raise = Some(name);
                        }
                        "event" => event = Some(map.next_value_seed(EventSeed)?),
                        "from" => from = Some(map.next_value()?),
                        "core" => core = Some(map.next_value()?),
                        "expect" => expect = Some(map.next_value()?),
                        _ => change = Some(map.next_value()?),
                    }
                }
                let raising = raise.is_some()
                    || event.is_some()
                    || from.is_some()
                    || core.is_some()
                    || expect.is_some();
                match (change, raise) {
                    (Some(_), _) if raising => Err(de::Error::custom(
                        "a step either raises an event or changes the policy, not both",
                    )),
                    (Some(change_policy), _) => Ok(Step::ChangePolicy(PolicyChange { change_policy })),
                    (None, Some(raise)) => Ok(Step::Raise(RaiseStep {
                        raise,
                        event: event.unwrap_or_else(|| Value::Object(Map::new())),
                        from: from.flatten(),
                        core: core.flatten(),
                        expect: expect.flatten(),
                    })),
                    (None, None) => Err(de::Error::custom(
                        "missing field `raise` (or `change_policy`): a step raises an event or changes the policy",
                    )),
                }
            }
        }
        deserializer.deserialize_map(V)
    }
}

/// A step's `event`: a JSON object.
struct EventSeed;

impl<'de> DeserializeSeed<'de> for EventSeed {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        match Value::deserialize(deserializer)? {
            v @ Value::Object(_) => Ok(v),
            other => Err(de::Error::custom(format!(
                "expected an object of the event's input fields, found {}",
                kind_of(&other)
            ))),
        }
    }
}

// ---------------------------------------------------------------------------------
// The file as a whole

/// `{"scenarios": [...]}`: the list form of a scenario file.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenarioList {
    /// The scenarios, run in order.
    pub scenarios: Vec<Scenario>,
}

/// Deserializes a sequence of values with a seed per element (used by the pattern
/// validator of [`crate::expect`]).
pub(crate) fn seq_with<'de, A, S, F>(mut seq: A, mut seed: F) -> Result<Vec<Value>, A::Error>
where
    A: SeqAccess<'de>,
    S: DeserializeSeed<'de, Value = Value>,
    F: FnMut() -> S,
{
    let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
    while let Some(v) = seq.next_element_seed(seed())? {
        out.push(v);
    }
    Ok(out)
}
