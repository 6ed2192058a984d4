//! A plugin's manifest, `.claude-plugin/plugin.json` (reference §5.1 of the formats;
//! claude-mods §1.2): the workspace's one reader of it, for the loader (a plugin's name
//! and the plugins it runs before) and the mods host (its options' declarations).

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Where a plugin folder holds its manifest, relative to the folder.
pub const MANIFEST_FILE: &str = ".claude-plugin/plugin.json";

/// The most bytes a manifest may hold: the mods host's cap of any file of a plugin
/// (SPEC §6 "A mod", 4 MiB).
pub const MAX_MANIFEST_BYTES: u64 = 4 << 20;

/// What of `.claude-plugin/plugin.json` the loader and the mods host read (SPEC §6;
/// claude-mods §1.2).
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// `name`.
    pub name: String,
    /// `version`, when given.
    pub version: Option<String>,
    /// `userConfig`: option name → its declaration (`type`, `default`, `required`, ...).
    pub user_config: Map<String, Value>,
    /// `dependencies`: the plugins this one runs before (ids or names, as written; the
    /// `name` of a `{name, version}` entry).
    pub dependencies: Vec<String>,
    /// The whole manifest as read.
    pub raw: Value,
}

/// Why a plugin folder's manifest cannot be read. Each names the file (the path it was
/// read at), and where there is one the place in it and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The bounded opener refused it (not a regular file), or the system did.
    #[error("{}: cannot read: {reason}", path.display())]
    Unreadable {
        /// The manifest's path.
        path: PathBuf,
        /// The opener's reason.
        reason: String,
    },
    /// Over [`MAX_MANIFEST_BYTES`].
    #[error(
        "{}: cannot read: it holds {size} bytes or more, over the {cap}-byte limit, so it is not read",
        path.display()
    )]
    TooLarge {
        /// The manifest's path.
        path: PathBuf,
        /// Its size (at least).
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// Not UTF-8 text.
    #[error("{}: not UTF-8 text", path.display())]
    NotUtf8 {
        /// The manifest's path.
        path: PathBuf,
    },
    /// Not JSON.
    #[error("{}:{line}:{column}: the manifest is not JSON: {reason}", path.display())]
    NotJson {
        /// The manifest's path.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's reason, without its own position.
        reason: String,
    },
    /// JSON, but not a manifest: not an object, no `name`, a field of the wrong type.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The manifest's path.
        path: PathBuf,
        /// The JSON pointer of the value at fault (`""` for the whole document,
        /// `/name`, `/dependencies/1`).
        pointer: String,
        /// What is wrong, naming the field (`` `name` is not a string ``).
        reason: String,
    },
}

impl ManifestError {
    /// The manifest's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            ManifestError::Unreadable { path, .. }
            | ManifestError::TooLarge { path, .. }
            | ManifestError::NotUtf8 { path }
            | ManifestError::NotJson { path, .. }
            | ManifestError::Invalid { path, .. } => path,
        }
    }
}

/// Reads `folder`'s `.claude-plugin/plugin.json`; `Ok(None)` when there is none.
///
/// The rules, as Claude Code reads a manifest:
///
/// - The file is optional (`Ok(None)`): the loader then names
///   the plugin after its folder; the mods host refuses a mod without one.
/// - It is read with the workspace's bounded opener, at most [`MAX_MANIFEST_BYTES`]: a
///   FIFO, a device or a folder in its place is refused naming it, never read (SPEC §2.1
///   "Reading never hangs").
/// - It is UTF-8 JSON text holding an object.
/// - `name` is required: a non-empty string with no space (Claude Code's "cannot contain
///   spaces", names are kebab-case).
/// - A field the host reads with the wrong type fails the plugin, as a recognised field
///   of the wrong type fails its load in Claude Code: `version` a string, `userConfig`
///   an object, `dependencies` an array whose entries are names or `{name, version}`
///   objects. `null` counts as absent.
/// - Unknown fields are ignored (they stay in [`Manifest::raw`]).
///
/// # Errors
///
/// [`ManifestError`] naming the file: it could not be read (not a regular file, over
/// [`MAX_MANIFEST_BYTES`], an I/O error), is not UTF-8 JSON, or is not a manifest.
pub fn read_manifest(folder: &Path) -> Result<Option<Manifest>, ManifestError> {
    let path = folder.join(MANIFEST_FILE);
    let bytes = match boundedfs::read_bounded(&path, MAX_MANIFEST_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => {
            return match e.reason {
                boundedfs::Reason::NotFound => Ok(None),
                boundedfs::Reason::TooLarge { size, cap } => {
                    Err(ManifestError::TooLarge { path, size, cap })
                }
                reason => Err(ManifestError::Unreadable {
                    path,
                    reason: reason.to_string(),
                }),
            }
        }
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(ManifestError::NotUtf8 { path });
    };
    let raw: Value = match serde_json::from_str(&text) {
        Ok(raw) => raw,
        Err(e) => {
            return Err(ManifestError::NotJson {
                line: e.line(),
                column: e.column(),
                reason: json_reason(&e),
                path,
            })
        }
    };
    parse(raw)
        .map(Some)
        .map_err(|(pointer, reason)| ManifestError::Invalid {
            path,
            pointer,
            reason,
        })
}

/// serde_json's message without its own " at line L column C".
fn json_reason(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text.get(..at).unwrap_or(&text).to_owned(),
        None => text,
    }
}

/// The manifest `raw` holds, or the pointer of what is wrong and why.
fn parse(raw: Value) -> Result<Manifest, (String, String)> {
    let bad = |pointer: &str, reason: &str| (pointer.to_owned(), reason.to_owned());
    let Some(obj) = raw.as_object() else {
        return Err(bad("", "not a JSON object"));
    };
    let name = match obj.get("name") {
        Some(Value::String(s)) if s.trim().is_empty() => {
            return Err(bad("/name", "`name` is empty"))
        }
        Some(Value::String(s)) if s.contains(' ') => {
            return Err(bad(
                "/name",
                "`name` holds a space: a plugin name is kebab-case",
            ))
        }
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(bad("/name", "`name` is not a string")),
        None => {
            return Err(bad(
                "/name",
                "no `name`: a plugin manifest names its plugin",
            ))
        }
    };
    let version = match obj.get("version") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(bad("/version", "`version` is not a string")),
    };
    let user_config = match obj.get("userConfig") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(bad("/userConfig", "`userConfig` is not an object")),
    };
    let dependencies = match obj.get("dependencies") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(dependency(item).map_err(|reason| {
                    (
                        format!("/dependencies/{i}"),
                        format!("`dependencies[{i}]` {reason}"),
                    )
                })?);
            }
            out
        }
        Some(_) => {
            return Err(bad(
                "/dependencies",
                "`dependencies` is not an array of strings",
            ))
        }
    };
    Ok(Manifest {
        name,
        version,
        user_config,
        dependencies,
        raw,
    })
}

/// The name of one `dependencies` entry: a name (or id), or `{name, version}`.
fn dependency(item: &Value) -> Result<String, &'static str> {
    match item {
        Value::String(s) => Ok(s.clone()),
        Value::Object(o) => {
            match o.get("version") {
                None | Some(Value::Null | Value::String(_)) => {}
                Some(_) => return Err("has a `version` that is not a string"),
            }
            match o.get("name") {
                Some(Value::String(s)) => Ok(s.clone()),
                _ => Err("has no string `name`"),
            }
        }
        _ => Err("is not a string"),
    }
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod tests;
