//! The managed folder's files: `managed-settings.json` (with a drop-in) and
//! `managed-mcp.json`, read by `policy::read_policy`.

use std::fs;
use std::path::{Path, PathBuf};

use policy::{
    keys, read_policy, ManagedLocation, ManagedSettings, DROP_IN_DIR, MCP_FILE, SETTINGS_FILE,
};
use serde_json::Value;

use crate::{finding, shown, shown_bytes, Outcome, MAX_INPUT};

/// The byte that splits a `managed_settings` input into a base file and a
/// drop-in (NUL: it never occurs in JSON text, so a valid pair stays valid).
pub const SEPARATOR: u8 = 0;

/// The drop-in's file name in `managed-settings.d/`.
const DROP_IN_NAME: &str = "50-fuzz.json";

/// Target `managed_settings`: `data` as a `managed-settings.json` alone, and,
/// when it holds a [`SEPARATOR`], split at the first one into a base file and
/// a drop-in `managed-settings.d/50-fuzz.json` (an empty half is an absent
/// file).
///
/// The oracle, for each folder so written:
/// - `policy::read_policy` does not panic and returns;
/// - it fails exactly when some file present is not a JSON object (empty,
///   not JSON, another JSON type), and then with a `PolicyError` about the
///   first such file in merge order, whose Display names that file;
/// - on success `ManagedSettings::from_value` of the result does not panic,
///   and every rule string of a file's `permissions.deny` and
///   `permissions.ask` (an array's strings, or a lone string) and of its
///   `permissions.allow` array is still in the read's lists: the salvage and
///   the merge never drop a rule string.
///
/// # Errors
///
/// A description of the finding when the oracle does not hold (or the temp
/// folder cannot be written).
pub fn managed_settings(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    check_settings_read(Some(data), None)?;
    if let Some(at) = data.iter().position(|b| *b == SEPARATOR) {
        let (base, rest) = data.split_at(at);
        let drop_in = rest.get(1..).unwrap_or_default();
        let base = (!base.is_empty()).then_some(base);
        let drop_in = (!drop_in.is_empty()).then_some(drop_in);
        check_settings_read(base, drop_in)?;
    }
    Ok(())
}

/// Writes the files given into a fresh managed folder and checks one read.
fn check_settings_read(base: Option<&[u8]>, drop_in: Option<&[u8]>) -> Outcome {
    let dir = tempfile::tempdir().map_err(|e| finding!("harness: no temp folder: {e}"))?;
    let mut written: Vec<(PathBuf, &[u8])> = Vec::new();
    if let Some(bytes) = base {
        let path = dir.path().join(SETTINGS_FILE);
        write(&path, bytes)?;
        written.push((path, bytes));
    }
    if let Some(bytes) = drop_in {
        let folder = dir.path().join(DROP_IN_DIR);
        fs::create_dir(&folder).map_err(|e| finding!("harness: {}: {e}", folder.display()))?;
        let path = folder.join(DROP_IN_NAME);
        write(&path, bytes)?;
        written.push((path, bytes));
    }
    let what = || {
        written
            .iter()
            .map(|(p, b)| format!("{} = {}", p.display(), shown_bytes(b)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let first_bad = written.iter().find(|(_, b)| !is_json_object(b));

    let result = read_policy(&ManagedLocation::Explicit(dir.path().to_path_buf()));
    match result {
        Err(e) => {
            let message = e.to_string();
            let Some((bad, _)) = first_bad else {
                return Err(finding!(
                    "read_policy failed ({message}) though every file is a JSON object: {}",
                    what()
                ));
            };
            if e.path() != bad.as_path() {
                return Err(finding!(
                    "read_policy failed about {} but the first file that is not a JSON object is {}: {message}; {}",
                    e.path().display(),
                    bad.display(),
                    what()
                ));
            }
            if !message.contains(&bad.display().to_string()) {
                return Err(finding!(
                    "the PolicyError's Display does not name the file {}: {message}; {}",
                    bad.display(),
                    what()
                ));
            }
            Ok(())
        }
        Ok(policy) => {
            if let Some((bad, _)) = first_bad {
                return Err(finding!(
                    "read_policy succeeded though {} is not a JSON object: {}",
                    bad.display(),
                    what()
                ));
            }
            let typed = ManagedSettings::from_value(&policy.to_value());
            for (path, bytes) in &written {
                let Ok(Value::Object(file)) = serde_json::from_slice::<Value>(without_bom(bytes))
                else {
                    continue;
                };
                let permissions = file.get("permissions").and_then(Value::as_object);
                for (key, read, lone) in [
                    ("deny", &typed.deny, true),
                    ("ask", &typed.ask, true),
                    ("allow", &typed.allow, false),
                ] {
                    let written_rules = rule_strings(permissions.and_then(|p| p.get(key)), lone);
                    if let Some(lost) = written_rules.iter().find(|r| !read.contains(r)) {
                        return Err(finding!(
                            "the {key} rule {} of {} is not in the read's {key} list {read:?}: {}",
                            shown(lost),
                            path.display(),
                            what()
                        ));
                    }
                }
            }
            Ok(())
        }
    }
}

/// Target `managed_mcp`: `data` as `managed-mcp.json`, alone in a managed
/// folder.
///
/// The oracle: `policy::read_policy` does not panic and succeeds
/// (`managed-mcp.json` problems are not read errors); measured against
/// `serde_json`'s own view of the bytes:
/// - an object with an `mcpServers` object: not marked
///   `managedMcpServersUnreadable`, and the servers named are exactly that
///   object's keys, in order;
/// - any other shape (empty, not JSON, not an object, no `mcpServers` object):
///   marked unreadable, and naming nobody.
///
/// # Errors
///
/// A description of the finding when the oracle does not hold.
pub fn managed_mcp(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let dir = tempfile::tempdir().map_err(|e| finding!("harness: no temp folder: {e}"))?;
    write(&dir.path().join(MCP_FILE), data)?;
    let policy =
        read_policy(&ManagedLocation::Explicit(dir.path().to_path_buf())).map_err(|e| {
            finding!(
                "read_policy failed on a managed-mcp.json alone: {e}; input {}",
                shown_bytes(data)
            )
        })?;
    let typed = ManagedSettings::from_value(&policy.to_value());
    let marked =
        policy.settings.get(keys::MANAGED_MCP_SERVERS_UNREADABLE) == Some(&Value::Bool(true));
    if marked != typed.managed_mcp_servers_unreadable {
        return Err(finding!(
            "the settings say managedMcpServersUnreadable = {marked} but the typed view says {}; input {}",
            typed.managed_mcp_servers_unreadable,
            shown_bytes(data)
        ));
    }
    let servers: Option<Vec<String>> = match serde_json::from_slice::<Value>(without_bom(data)) {
        Ok(Value::Object(file)) => match file.get("mcpServers") {
            Some(Value::Object(servers)) => Some(servers.keys().cloned().collect()),
            _ => None,
        },
        _ => None,
    };
    match servers {
        None if !marked => Err(finding!(
            "managed-mcp.json is not an object with an `mcpServers` object, yet the read did not mark managedMcpServersUnreadable (names {:?}); input {}",
            typed.managed_mcp_servers,
            shown_bytes(data)
        )),
        None if !typed.managed_mcp_servers.is_empty() => Err(finding!(
            "managed-mcp.json cannot be read whole, yet the read names servers {:?}; input {}",
            typed.managed_mcp_servers,
            shown_bytes(data)
        )),
        None => Ok(()),
        Some(_) if marked => Err(finding!(
            "managed-mcp.json is an object with an `mcpServers` object, yet the read marked managedMcpServersUnreadable; input {}",
            shown_bytes(data)
        )),
        Some(names) if names != typed.managed_mcp_servers => Err(finding!(
            "the read names {:?} but the file's mcpServers are {names:?}; input {}",
            typed.managed_mcp_servers,
            shown_bytes(data)
        )),
        Some(_) => Ok(()),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Outcome {
    fs::write(path, bytes).map_err(|e| finding!("harness: {}: {e}", path.display()))
}

/// Whether `serde_json` reads `bytes` as a JSON object.
fn is_json_object(bytes: &[u8]) -> bool {
    matches!(
        serde_json::from_slice::<Value>(without_bom(bytes)),
        Ok(Value::Object(_))
    )
}

/// The bytes after a leading UTF-8 byte-order mark, which the policy reader skips and
/// reports (`policy::json`: a file saved by a Windows editor is still read).
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// The rule strings of a `permissions` list: an array's strings; a lone
/// string too when `lone` (deny and ask keep it as a one-rule list).
fn rule_strings(value: Option<&Value>, lone: bool) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(rule)) if lone => vec![rule.clone()],
        _ => Vec::new(),
    }
}
