//! Resolving a mod's paths (SPEC §6 "A mod"): `modules[0]` and import specifiers, inside
//! the plugin folder only.

use super::{Import, LoadError, MODULE_EXTENSIONS};
use std::path::{Component, Path, PathBuf};

/// The folder being loaded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'a> {
    /// As given (what errors name).
    pub(crate) folder: &'a Path,
    /// Canonical.
    pub(crate) root: &'a Path,
}

impl Ctx<'_> {
    pub(crate) fn folder(&self) -> PathBuf {
        self.folder.to_path_buf()
    }
}

/// A file of the graph: its key (relative to the root, `/`-separated) and canonical path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub(crate) key: String,
    pub(crate) path: PathBuf,
}

/// `claude-code` and `claude-code/*`: the engine's own modules.
pub(crate) fn is_engine(specifier: &str) -> bool {
    specifier == "claude-code" || specifier.starts_with("claude-code/")
}

fn is_relative(specifier: &str) -> bool {
    specifier == "."
        || specifier == ".."
        || specifier.starts_with("./")
        || specifier.starts_with("../")
}

fn is_loadable(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MODULE_EXTENSIONS.contains(&e))
}

/// The key of a canonical path inside the root.
fn key_of(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => return None,
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join("/"))
    }
}

/// `dir` (components relative to the root) joined with the relative `specifier`,
/// lexically; `None` if it climbs above the root. The flag: it names a folder
/// (ends in `/`, `.` or `..`).
fn join(dir: &[String], specifier: &str) -> Option<(Vec<String>, bool)> {
    let mut parts: Vec<String> = dir.to_vec();
    let mut folder = false;
    for seg in specifier.split('/') {
        match seg {
            "" | "." => folder = true,
            ".." => {
                parts.pop()?;
                folder = true;
            }
            other => {
                parts.push(other.to_owned());
                folder = false;
            }
        }
    }
    Some((parts, folder))
}

/// What a candidate path leads to.
enum Candidate {
    /// Nothing (or a folder).
    Missing,
    /// A file: canonical path. Anything but a folder counts: a FIFO, a device or a
    /// socket is found here and refused when read, naming what it is (the bounded
    /// opener checks the opened file, SPEC §2.1), rather than passed over unnamed.
    File(PathBuf),
}

fn candidate(path: &Path) -> Candidate {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_dir() => match path.canonicalize() {
            Ok(p) => Candidate::File(p),
            Err(_) => Candidate::Missing,
        },
        _ => Candidate::Missing,
    }
}

/// The candidates of a relative specifier, in the order they are tried (SPEC §6 "A
/// mod"): the exact file; for `x.js` (`.jsx .mjs .cjs`) the TypeScript file it was
/// compiled from (`x.ts`, `x.tsx`; `x.tsx`; `x.mts`; `x.cts`); each extension appended;
/// the folder's `index.*`.
fn candidates(root: &Path, parts: &[String], folder: bool) -> Vec<PathBuf> {
    let mut base = root.to_path_buf();
    for p in parts {
        base.push(p);
    }
    let mut out = Vec::new();
    if !folder && !parts.is_empty() {
        out.push(base.clone());
        if let Some(name) = parts.last() {
            let remaps: &[(&str, &[&str])] = &[
                (".js", &["ts", "tsx"]),
                (".jsx", &["tsx"]),
                (".mjs", &["mts"]),
                (".cjs", &["cts"]),
            ];
            for (suffix, tos) in remaps {
                if let Some(stem) = name.strip_suffix(suffix) {
                    for to in *tos {
                        out.push(base.with_file_name(format!("{stem}.{to}")));
                    }
                }
            }
            for ext in MODULE_EXTENSIONS {
                out.push(base.with_file_name(format!("{name}.{ext}")));
            }
        }
    }
    for ext in MODULE_EXTENSIONS {
        out.push(base.join(format!("index.{ext}")));
    }
    out
}

/// Checks a found file: inside the root (after symbolic links), a loadable module.
fn admit(
    ctx: &Ctx<'_>,
    file: &str,
    specifier: &str,
    canonical: PathBuf,
) -> Result<Found, LoadError> {
    let Some(key) = key_of(ctx.root, &canonical) else {
        return Err(LoadError::OutsideFolder {
            folder: ctx.folder(),
            file: file.to_owned(),
            specifier: specifier.to_owned(),
        });
    };
    if !is_loadable(&canonical) {
        return Err(LoadError::NotLoadable {
            folder: ctx.folder(),
            file: file.to_owned(),
            specifier: specifier.to_owned(),
            target: key,
        });
    }
    Ok(Found {
        key,
        path: canonical,
    })
}

/// Resolves the hooks module `modules[0]` names, relative to `hooks/hooks.json`.
pub(crate) fn resolve_entry(ctx: &Ctx<'_>, written: &str) -> Result<Found, LoadError> {
    const FILE: &str = "hooks/hooks.json";
    let outside = || LoadError::OutsideFolder {
        folder: ctx.folder(),
        file: FILE.to_owned(),
        specifier: written.to_owned(),
    };
    if Path::new(written).is_absolute() {
        return Err(outside());
    }
    let Some((parts, _)) = join(&["hooks".to_owned()], written) else {
        return Err(outside());
    };
    let target = parts.join("/");
    let mut path = ctx.root.to_path_buf();
    for p in &parts {
        path.push(p);
    }
    match candidate(&path) {
        Candidate::File(canonical) => admit(ctx, FILE, written, canonical),
        Candidate::Missing => Err(LoadError::ModuleMissing {
            folder: ctx.folder(),
            file: FILE.to_owned(),
            path: written.to_owned(),
            target,
        }),
    }
}

/// Resolves `specifier`, imported by the module `key` (SPEC §6 "A mod").
pub(crate) fn resolve(
    ctx: &Ctx<'_>,
    key: &str,
    specifier: &str,
) -> Result<(Import, Option<Found>), LoadError> {
    if is_engine(specifier) {
        return Ok((Import::Engine, None));
    }
    if !is_relative(specifier) {
        return Err(LoadError::BareImport {
            folder: ctx.folder(),
            file: key.to_owned(),
            specifier: specifier.to_owned(),
        });
    }
    let mut dir: Vec<String> = key.split('/').map(str::to_owned).collect();
    dir.pop();
    let Some((parts, folder)) = join(&dir, specifier) else {
        return Err(LoadError::OutsideFolder {
            folder: ctx.folder(),
            file: key.to_owned(),
            specifier: specifier.to_owned(),
        });
    };
    let mut unloadable: Option<PathBuf> = None;
    for path in candidates(ctx.root, &parts, folder) {
        if let Candidate::File(canonical) = candidate(&path) {
            if is_loadable(&canonical) || key_of(ctx.root, &canonical).is_none() {
                let found = admit(ctx, key, specifier, canonical)?;
                return Ok((Import::Module(found.key.clone()), Some(found)));
            }
            if unloadable.is_none() {
                unloadable = Some(canonical);
            }
        }
    }
    if let Some(canonical) = unloadable {
        // Only a file of another kind: say so (this is an error).
        let found = admit(ctx, key, specifier, canonical)?;
        return Ok((Import::Module(found.key.clone()), Some(found)));
    }
    Err(LoadError::Unresolved {
        folder: ctx.folder(),
        file: key.to_owned(),
        specifier: specifier.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_lexically() {
        let dir = vec!["hooks".to_owned()];
        assert_eq!(
            join(&dir, "./a").map(|j| j.0),
            Some(vec!["hooks".into(), "a".into()])
        );
        assert_eq!(join(&dir, "../a").map(|j| j.0), Some(vec!["a".into()]));
        assert_eq!(join(&dir, "../../a"), None);
        assert_eq!(join(&dir, "./lib/").map(|j| j.1), Some(true));
    }
}
