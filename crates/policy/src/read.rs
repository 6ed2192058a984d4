//! One read of the managed folder (SPEC §2.1).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

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
        }
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
        let object = parse_object(&path, &bytes)?;
        sources.push(SourceFile {
            path: path.clone(),
            kind,
        });
        let salvaged = salvage_file(&path, object, &mut warnings);
        merge_file(&mut settings, salvaged.settings, &path, &mut warnings);
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
    })
}

fn io_error(path: PathBuf, e: &io::Error) -> PolicyError {
    PolicyError::Io {
        path,
        message: e.to_string(),
    }
}

/// The file's bytes, `None` when it does not exist.
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, PolicyError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(path.to_path_buf(), &e)),
    }
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

/// Parses a managed settings file: JSON whose top level is an object.
fn parse_object(path: &Path, bytes: &[u8]) -> Result<Map<String, Value>, PolicyError> {
    if bytes.is_empty() {
        return Err(PolicyError::Empty {
            path: path.to_path_buf(),
        });
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(PolicyError::NotObject {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(json_error(path, &e)),
    }
}

fn json_error(path: &Path, e: &serde_json::Error) -> PolicyError {
    PolicyError::Json {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: json_message(e),
    }
}

/// What `managed-mcp.json` gave.
struct McpRead {
    present: bool,
    unreadable: bool,
    servers: Option<Map<String, Value>>,
}

/// Reads `managed-mcp.json`. Absent: nothing. Present but not readable whole
/// (I/O error, empty, not JSON, not an object, no `mcpServers` object): names
/// nobody, marked unreadable, one warning. A server whose config is not an
/// object is still named (config `{}`), with a warning.
fn read_mcp(path: &Path, warnings: &mut Vec<Warning>) -> McpRead {
    let mut warn = |pointer: &str, reason: String| {
        warnings.push(Warning {
            file: path.to_path_buf(),
            pointer: pointer.to_owned(),
            reason,
        });
    };
    const NOBODY: &str = "it names nobody, and managed MCP servers are marked unreadable";
    let unreadable = |present| McpRead {
        present,
        unreadable: true,
        servers: None,
    };
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return McpRead {
                present: false,
                unreadable: false,
                servers: None,
            }
        }
        Err(e) => {
            warn("", format!("cannot be read ({e}); {NOBODY}"));
            return unreadable(true);
        }
    };
    if bytes.is_empty() {
        warn("", format!("the file is empty (0 bytes); {NOBODY}"));
        return unreadable(true);
    }
    let object = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(object)) => object,
        Ok(other) => {
            warn(
                "",
                format!("expected an object, found {}; {NOBODY}", type_name(&other)),
            );
            return unreadable(true);
        }
        Err(e) => {
            warn(
                "",
                format!(
                    "not JSON ({}:{}: {}); {NOBODY}",
                    e.line(),
                    e.column(),
                    json_message(&e)
                ),
            );
            return unreadable(true);
        }
    };
    let servers = match object.get("mcpServers") {
        Some(Value::Object(servers)) => servers,
        Some(other) => {
            warn(
                "/mcpServers",
                format!("expected an object, found {}; {NOBODY}", type_name(other)),
            );
            return unreadable(true);
        }
        None => {
            warn("", format!("there is no `mcpServers` object; {NOBODY}"));
            return unreadable(true);
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
    McpRead {
        present: true,
        unreadable: false,
        servers: Some(named),
    }
}

/// `serde_json`'s reason without its " at line L column C" suffix.
fn json_message(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_owned()
}
