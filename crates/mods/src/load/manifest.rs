//! `.claude-plugin/plugin.json` (read by [`loader::read_manifest`]) and `hooks/hooks.json`
//! (SPEC §6 "A mod"; reference §1.1, §1.2).

use super::resolve::{resolve_entry, Ctx, Found};
use super::{LoadError, Manifest};
use loader::{ManifestError, MANIFEST_FILE as MANIFEST};
use serde_json::Value;

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

/// Reads `.claude-plugin/plugin.json` with the workspace's one reader of it
/// ([`loader::read_manifest`], whose rules these are): a mod must have one.
pub(crate) fn read_manifest(ctx: &Ctx<'_>) -> Result<Manifest, LoadError> {
    let file = || MANIFEST.to_owned();
    let folder = ctx.folder();
    match loader::read_manifest(ctx.root) {
        Ok(Some(manifest)) => Ok(manifest),
        Ok(None) => Err(LoadError::NoManifest { folder }),
        Err(ManifestError::TooLarge { size, cap, .. }) => Err(LoadError::TooLarge {
            folder,
            file: file(),
            size,
            cap,
        }),
        Err(ManifestError::Unreadable { reason, .. }) => Err(LoadError::Io {
            folder,
            file: file(),
            reason,
        }),
        Err(ManifestError::NotUtf8 { .. }) => Err(LoadError::NotUtf8 {
            folder,
            file: file(),
        }),
        Err(ManifestError::NotJson {
            line,
            column,
            reason,
            ..
        }) => Err(LoadError::BadJson {
            folder,
            file: file(),
            line,
            column,
            reason,
        }),
        Err(ManifestError::Invalid { reason, .. }) => Err(LoadError::BadManifest {
            folder,
            file: file(),
            reason,
        }),
    }
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
