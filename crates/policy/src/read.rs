//! One read of the managed folder (SPEC §2.1).

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::json::{self, BoundedReadError, JsonDoc};
use crate::managed::ManagedSettings;
use crate::merge::merge_file;
use crate::salvage::{
    salvage_file, type_name, MANAGED_ENV_DROPPED, MANAGED_MCP_SERVERS,
    MANAGED_MCP_SERVERS_UNREADABLE,
};
use crate::{ManagedLocation, PolicyError, SourceFile, SourceKind, Warning};

/// The base managed settings file's name.
///
/// SPEC §2.1
pub const SETTINGS_FILE: &str = "managed-settings.json";
/// The drop-in folder's name.
///
/// SPEC §2.1
pub const DROP_IN_DIR: &str = "managed-settings.d";
/// The managed MCP servers file's name.
///
/// SPEC §2.1
pub const MCP_FILE: &str = "managed-mcp.json";

/// The result of one successful read: the merged, salvaged managed settings,
/// the warnings the salvage and the merge gave, and the files read.
///
/// `settings` holds the managed settings object plus the read's own keys:
/// - `"managedMcpServers"`: object server name -> its config object (`{}`
///   when only a name was given): the union of managed settings'
///   `managedMcpServers` and `managed-mcp.json`'s `mcpServers`; absent when
///   neither names any (a `managed-mcp.json` read whole with `{}` servers
///   gives `{}`);
/// - `"managedMcpServersUnreadable": true`, only when `managed-mcp.json` is
///   present but cannot be read whole, or managed settings'
///   `managedMcpServers` has a shape that names nobody;
/// - `"managedEnvDropped": [names]`, only when non-empty: names under managed
///   `env` whose value the salvage dropped (they stay pinned).
///
/// SPEC §2.1
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Policy {
    /// The merged, salvaged managed settings plus the read's own keys.
    pub settings: Map<String, Value>,
    /// What the salvage dropped or repaired and what the merge overrode.
    pub warnings: Vec<Warning>,
    /// The files found present, in merge order (`managed-mcp.json` last).
    pub sources: Vec<SourceFile>,
    /// Where each permission rule of the merged settings is written: (list, rule text)
    /// -> the file that first gives it, its pointer there and its line (SPEC §2.1: the
    /// merge concatenates the lists, so a merged pointer names no file).
    #[serde(skip)]
    pub rule_origins: HashMap<(String, String), RuleOrigin>,
}

/// Where a permission rule of the merged managed settings is written.
///
/// SPEC §2.1, §4
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleOrigin {
    /// The managed file (the base file or a drop-in) that first gives the rule.
    pub file: PathBuf,
    /// The rule's JSON pointer within that file (`/permissions/deny/2`).
    pub pointer: String,
    /// Its 1-based line there.
    pub line: Option<usize>,
}

impl Policy {
    /// The policy of a machine with no managed files: `{}`, no warnings, no
    /// sources.
    ///
    /// SPEC §2.1 "Absent is not unreadable"
    pub fn empty() -> Policy {
        Policy {
            settings: Map::new(),
            warnings: Vec::new(),
            sources: Vec::new(),
            rule_origins: HashMap::new(),
        }
    }

    /// Where the permission rule at `pointer` of the merged settings
    /// (`/permissions/<list>/<index>`) with text `rule` is written: the file that
    /// first gives it (a drop-in, where it comes from one), its own pointer and line.
    ///
    /// Takes the merged pointer and the rule's text; returns `None` for a pointer
    /// outside the permission lists or a rule no file gives.
    ///
    /// SPEC §2.1, §4
    #[must_use]
    pub fn rule_origin(&self, pointer: &str, rule: &str) -> Option<&RuleOrigin> {
        let list = pointer.strip_prefix("/permissions/")?.split('/').next()?;
        self.rule_origins.get(&(list.to_owned(), rule.to_owned()))
    }

    /// The typed view of [`Policy::settings`] ([`ManagedSettings::from_map`]).
    ///
    /// SPEC §2.2
    pub fn managed(&self) -> ManagedSettings {
        ManagedSettings::from_map(&self.settings)
    }

    /// The settings as a JSON value (`settings.read({source: "policy"})`'s answer).
    ///
    /// SPEC §2.1
    pub fn to_value(&self) -> Value {
        Value::Object(self.settings.clone())
    }
}

/// Reads the managed folder once: `managed-settings.json`, then
/// `managed-settings.d/*.json` in file-name order (hidden and non-`.json`
/// files skipped), each salvaged then merged; then `managed-mcp.json`.
///
/// A platform folder that does not exist reads as [`Policy::empty`].
///
/// # Errors
///
/// - [`PolicyError::FolderNotFound`]: an explicit folder that does not exist;
/// - [`PolicyError::Io`]: a present file (or the folder, or the drop-in
///   folder) that cannot be read, a directory where a file should be included;
/// - [`PolicyError::Json`]: a settings file or drop-in that is not JSON;
/// - [`PolicyError::Empty`]: a settings file or drop-in of 0 bytes;
/// - [`PolicyError::NotObject`]: a settings file or drop-in whose JSON is not
///   an object.
///
/// `managed-mcp.json` never fails the read: see [`Policy`].
///
/// SPEC §2.1
pub fn read_policy(location: &ManagedLocation) -> Result<Policy, PolicyError> {
    let folder = location.folder();
    match fs::metadata(&folder) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(PolicyError::Io {
                path: folder,
                message: "the managed folder is not a directory".to_owned(),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return match location {
                ManagedLocation::Platform => Ok(Policy::empty()),
                ManagedLocation::Explicit(_) => Err(PolicyError::FolderNotFound { path: folder }),
            }
        }
        Err(e) => return Err(io_error(folder, &e)),
    }

    let mut warnings = Vec::new();
    let mut sources = Vec::new();
    let mut settings = Map::new();
    let mut env_dropped: Vec<String> = Vec::new();
    let mut mcp_unreadable = false;
    let mut rule_origins = HashMap::new();

    let mut files = vec![(folder.join(SETTINGS_FILE), SourceKind::Settings)];
    files.extend(
        drop_ins(&folder.join(DROP_IN_DIR))?
            .into_iter()
            .map(|p| (p, SourceKind::DropIn)),
    );
    for (path, kind) in files {
        let Some(bytes) = read_optional(&path)? else {
            continue;
        };
        let (object, doc) = parse_object(&path, &bytes)?;
        sources.push(SourceFile {
            path: path.clone(),
            kind,
        });
        let first_of_file = warnings.len();
        warn_of_reading(&path, &doc, &mut warnings);
        let rules = new_rules(object.get("permissions"), &rule_origins);
        let salvaged = salvage_file(&path, object, &mut warnings);
        merge_file(&mut settings, salvaged.settings, &path, &mut warnings);
        // One pass over the file finds the lines of its warnings and of its rules.
        let rule_pointers: Vec<&str> = rules.iter().map(|(_, _, p)| p.as_str()).collect();
        let lines = locate(
            &doc,
            warnings.get_mut(first_of_file..).unwrap_or_default(),
            &rule_pointers,
        );
        for (list, text, pointer) in rules {
            let line = lines.get(&pointer).map(|p| p.line);
            rule_origins.entry((list, text)).or_insert(RuleOrigin {
                file: path.clone(),
                pointer,
                line,
            });
        }
        for name in salvaged.env_dropped {
            if !env_dropped.contains(&name) {
                env_dropped.push(name);
            }
        }
        mcp_unreadable |= salvaged.mcp_unreadable;
    }

    // The read's own keys go last, whatever position a file gave them.
    let from_settings = settings.remove(MANAGED_MCP_SERVERS);
    let mcp_path = folder.join(MCP_FILE);
    let mcp = read_mcp(&mcp_path, &mut warnings);
    if mcp.present {
        sources.push(SourceFile {
            path: mcp_path,
            kind: SourceKind::Mcp,
        });
    }
    mcp_unreadable |= mcp.unreadable;
    let mut servers = match from_settings {
        Some(Value::Object(servers)) => Some(servers),
        _ => None,
    };
    if let Some(from_file) = mcp.servers {
        let servers = servers.get_or_insert_with(Map::new);
        for (name, config) in from_file {
            servers.insert(name, config);
        }
    }
    if let Some(servers) = servers {
        settings.insert(MANAGED_MCP_SERVERS.to_owned(), Value::Object(servers));
    }
    if mcp_unreadable {
        settings.insert(MANAGED_MCP_SERVERS_UNREADABLE.to_owned(), Value::Bool(true));
    }
    if !env_dropped.is_empty() {
        settings.insert(
            MANAGED_ENV_DROPPED.to_owned(),
            Value::Array(env_dropped.into_iter().map(Value::String).collect()),
        );
    }
    Ok(Policy {
        settings,
        warnings,
        sources,
        rule_origins,
    })
}

/// The permission rules of one file that no earlier file gave (the merge keeps the
/// first of duplicates): `(list, text, pointer in this file)`, to be located.
fn new_rules(
    permissions: Option<&Value>,
    origins: &HashMap<(String, String), RuleOrigin>,
) -> Vec<(String, String, String)> {
    let Some(Value::Object(perms)) = permissions else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for list in ["allow", "ask", "deny"] {
        let Some(Value::Array(rules)) = perms.get(list) else {
            continue;
        };
        for (i, text) in rules.iter().enumerate() {
            let Some(text) = text.as_str() else { continue };
            if !origins.contains_key(&(list.to_owned(), text.to_owned())) {
                found.push((
                    list.to_owned(),
                    text.to_owned(),
                    format!("/permissions/{list}/{i}"),
                ));
            }
        }
    }
    found
}

fn io_error(path: PathBuf, e: &io::Error) -> PolicyError {
    PolicyError::Io {
        path,
        message: e.to_string(),
    }
}

/// The file's bytes, `None` when it does not exist. A file that is not a regular file
/// (a FIFO, a device, a socket, a directory) or is over [`json::MAX_FILE_BYTES`] is
/// never read: the read fails, naming it and why (SPEC §2.1, fail closed).
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, PolicyError> {
    match json::read_bounded(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(BoundedReadError::NotFound) => Ok(None),
        Err(e) => Err(PolicyError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }),
    }
}

/// The warnings of the reading itself (SPEC §2.1 **\[decision\]**): a byte-order mark
/// skipped, and every key given twice in one object (the last is kept, as Claude Code
/// keeps it; the first one's content is lost on every machine that reads the file).
fn warn_of_reading(path: &Path, doc: &JsonDoc, warnings: &mut Vec<Warning>) {
    if doc.bom {
        warnings.push(Warning {
            file: path.to_path_buf(),
            line: Some(1),
            pointer: String::new(),
            reason: "a UTF-8 byte-order mark at the start was skipped".to_owned(),
        });
    }
    for dup in &doc.duplicates {
        warnings.push(Warning {
            file: path.to_path_buf(),
            line: Some(dup.last.line),
            pointer: dup.pointer.clone(),
            reason: format!(
                "this key is given twice in one object (line {}, then line {}); the last is kept, and what line {} gives is lost on every machine that reads this file",
                dup.first.line, dup.last.line, dup.first.line
            ),
        });
    }
}

/// Fills in the line of every warning about this document that has none, from its
/// pointer, and finds the positions of `also`, in one pass over the file.
fn locate(
    doc: &JsonDoc,
    warnings: &mut [Warning],
    also: &[&str],
) -> HashMap<String, crate::json::Position> {
    let wanted: Vec<&str> = warnings
        .iter()
        .filter(|w| w.line.is_none())
        .map(|w| w.pointer.as_str())
        .chain(also.iter().copied())
        .collect();
    let found = doc.positions_of(&wanted);
    for w in warnings.iter_mut().filter(|w| w.line.is_none()) {
        w.line = found.get(&w.pointer).map(|p| p.line);
    }
    found
}

/// The drop-ins to merge, in file-name order: `*.json`, hidden files skipped.
fn drop_ins(dir: &Path) -> Result<Vec<PathBuf>, PolicyError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(dir.to_path_buf(), &e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_error(dir.to_path_buf(), &e))?;
        let name = entry.file_name();
        let bytes = name.as_encoded_bytes();
        if bytes.starts_with(b".") || !bytes.ends_with(b".json") {
            continue;
        }
        names.push(name);
    }
    names.sort_by(|a, b| a.as_encoded_bytes().cmp(b.as_encoded_bytes()));
    Ok(names.into_iter().map(|n| dir.join(n)).collect())
}

/// Parses a managed settings file: JSON whose top level is an object, with its
/// positions kept ([`json::parse`]).
fn parse_object(path: &Path, bytes: &[u8]) -> Result<(Map<String, Value>, JsonDoc), PolicyError> {
    if bytes.is_empty() {
        return Err(PolicyError::Empty {
            path: path.to_path_buf(),
        });
    }
    let mut doc = json::parse(bytes).map_err(|e| PolicyError::Json {
        path: path.to_path_buf(),
        line: e.at.line,
        column: e.at.column,
        message: e.message,
    })?;
    match std::mem::take(&mut doc.value) {
        Value::Object(object) => Ok((object, doc)),
        _ => Err(PolicyError::NotObject {
            path: path.to_path_buf(),
        }),
    }
}

/// What `managed-mcp.json` gave.
struct McpRead {
    present: bool,
    unreadable: bool,
    servers: Option<Map<String, Value>>,
}

/// Reads `managed-mcp.json`. Absent: nothing. Present but not readable whole
/// (I/O error, not a regular file, over the size cap, empty, not JSON, not an object,
/// no `mcpServers` object): names nobody, marked unreadable, one warning. A server whose
/// config is not an object is still named (config `{}`), with a warning. A key given
/// twice, or a byte-order mark, is warned of as in the settings files.
fn read_mcp(path: &Path, warnings: &mut Vec<Warning>) -> McpRead {
    let mut found = Vec::new();
    let (read, doc) = read_mcp_into(path, &mut found);
    if let Some(doc) = &doc {
        locate(doc, &mut found, &[]);
    }
    warnings.extend(found);
    read
}

fn read_mcp_into(path: &Path, found: &mut Vec<Warning>) -> (McpRead, Option<JsonDoc>) {
    let mut warn = |pointer: &str, reason: String| {
        found.push(Warning {
            file: path.to_path_buf(),
            line: None,
            pointer: pointer.to_owned(),
            reason,
        });
    };
    const NOBODY: &str = "it names nobody, and managed MCP servers are marked unreadable";
    let unreadable = McpRead {
        present: true,
        unreadable: true,
        servers: None,
    };
    let bytes = match json::read_bounded(path) {
        Ok(bytes) => bytes,
        Err(BoundedReadError::NotFound) => {
            let absent = McpRead {
                present: false,
                unreadable: false,
                servers: None,
            };
            return (absent, None);
        }
        Err(e) => {
            warn("", format!("cannot be read ({e}); {NOBODY}"));
            return (unreadable, None);
        }
    };
    if bytes.is_empty() {
        warn("", format!("the file is empty (0 bytes); {NOBODY}"));
        return (unreadable, None);
    }
    let doc = match json::parse(&bytes) {
        Ok(doc) => doc,
        Err(e) => {
            warn(
                "",
                format!(
                    "not JSON ({}:{}: {}); {NOBODY}",
                    e.at.line, e.at.column, e.message
                ),
            );
            return (unreadable, None);
        }
    };
    let mut reading = Vec::new();
    warn_of_reading(path, &doc, &mut reading);
    for w in reading {
        warn(&w.pointer, w.reason);
    }
    let Value::Object(object) = &doc.value else {
        warn(
            "",
            format!(
                "expected an object, found {}; {NOBODY}",
                type_name(&doc.value)
            ),
        );
        return (unreadable, Some(doc));
    };
    let servers = match object.get("mcpServers") {
        Some(Value::Object(servers)) => servers,
        Some(other) => {
            warn(
                "/mcpServers",
                format!("expected an object, found {}; {NOBODY}", type_name(other)),
            );
            return (unreadable, Some(doc));
        }
        None => {
            warn("", format!("there is no `mcpServers` object; {NOBODY}"));
            return (unreadable, Some(doc));
        }
    };
    let mut named = Map::new();
    for (name, config) in servers {
        let config = match config {
            Value::Object(_) => config.clone(),
            other => {
                warn(
                    &crate::pointer::key("/mcpServers", name),
                    format!(
                        "a server's configuration must be an object, found {}; the server is still named",
                        type_name(other)
                    ),
                );
                Value::Object(Map::new())
            }
        };
        named.insert(name.clone(), config);
    }
    let read = McpRead {
        present: true,
        unreadable: false,
        servers: Some(named),
    };
    (read, Some(doc))
}
