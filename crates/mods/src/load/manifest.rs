//! `.claude-plugin/plugin.json` and `hooks/hooks.json` (SPEC §6 "A mod"; reference §1.1,
//! §1.2).

use super::resolve::{resolve_entry, Ctx, Found};
use super::{LoadError, Manifest};
use serde_json::{Map, Value};

const MANIFEST: &str = ".claude-plugin/plugin.json";
const HOOKS: &str = "hooks/hooks.json";

/// Reads a JSON file of the folder; `Ok(None)` if it does not exist. A FIFO, a device,
/// a socket or a folder there, or a file over [`MAX_FILE_BYTES`], is an error naming
/// the file ([`super::read_capped`]; SPEC §2.1 "Reading never hangs").
fn read_json(ctx: &Ctx<'_>, file: &str) -> Result<Option<Value>, LoadError> {
    let Some(bytes) = super::read_capped(ctx, file, &ctx.root.join(file))? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| LoadError::NotUtf8 {
        folder: ctx.folder(),
        file: file.to_owned(),
    })?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| LoadError::BadJson {
            folder: ctx.folder(),
            file: file.to_owned(),
            line: e.line(),
            column: e.column(),
            reason: json_reason(&e),
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

/// Reads `.claude-plugin/plugin.json`: an object with a string `name`; `version` a
/// string, `userConfig` an object, `dependencies` an array of strings, when present.
pub(crate) fn read_manifest(ctx: &Ctx<'_>) -> Result<Manifest, LoadError> {
    let Some(raw) = read_json(ctx, MANIFEST)? else {
        return Err(LoadError::NoManifest {
            folder: ctx.folder(),
        });
    };
    let bad = |reason: &str| LoadError::BadManifest {
        folder: ctx.folder(),
        file: MANIFEST.to_owned(),
        reason: reason.to_owned(),
    };
    let Some(obj) = raw.as_object() else {
        return Err(bad("not a JSON object"));
    };
    let name = match obj.get("name") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(bad("`name` is empty")),
        Some(_) => return Err(bad("`name` is not a string")),
        None => return Err(bad("no `name`: a plugin manifest names its plugin")),
    };
    let version = match obj.get("version") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(bad("`version` is not a string")),
    };
    let user_config = match obj.get("userConfig") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(bad("`userConfig` is not an object")),
    };
    let dependencies = match obj.get("dependencies") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => out.push(s.clone()),
                    _ => return Err(bad(&format!("`dependencies[{i}]` is not a string"))),
                }
            }
            out
        }
        Some(_) => return Err(bad("`dependencies` is not an array of strings")),
    };
    Ok(Manifest {
        name,
        version,
        user_config,
        dependencies,
        raw,
    })
}

/// Reads `hooks/hooks.json` and resolves its one module (`modules`, relative to it).
pub(crate) fn read_entry(ctx: &Ctx<'_>) -> Result<Found, LoadError> {
    let Some(raw) = read_json(ctx, HOOKS)? else {
        return Err(LoadError::NoHooksFile {
            folder: ctx.folder(),
        });
    };
    let bad = |reason: String| LoadError::BadModules {
        folder: ctx.folder(),
        file: HOOKS.to_owned(),
        reason,
    };
    let Some(obj) = raw.as_object() else {
        return Err(bad("not a JSON object".to_owned()));
    };
    let modules = match obj.get("modules") {
        None => {
            return Err(bad(
                "no `modules`: it names the hooks module, as an array of one path".to_owned(),
            ))
        }
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(bad(
                "`modules` is not an array: it holds exactly one path".to_owned()
            ))
        }
    };
    let path = match modules.as_slice() {
        [] => {
            return Err(bad(
                "`modules` is empty: it holds exactly one path".to_owned()
            ))
        }
        [Value::String(s)] if s.trim().is_empty() => {
            return Err(bad("`modules[0]` is an empty path".to_owned()))
        }
        [Value::String(s)] => s.clone(),
        [_] => return Err(bad("`modules[0]` is not a string: it is a path".to_owned())),
        many => {
            return Err(bad(format!(
                "`modules` holds {} entries: a mod has exactly one hooks module",
                many.len()
            )))
        }
    };
    resolve_entry(ctx, &path)
}
