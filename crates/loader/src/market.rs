//! Marketplaces (reference §5.2, §5.4): a source's kind, where a `directory` one is,
//! where a plugin is inside one, and whether managed settings let a source be used.

use crate::error::FolderError;
use policy::PluginId;
use serde_json::{Map, Value};
use std::path::{Component, Path, PathBuf};

/// A marketplace source's kind (`directory`, `github`, `git`, `npm`, `url`, `file`,
/// `settings`, ...): its `source` field.
pub(crate) fn kind(source: &Value) -> Option<&str> {
    source.get("source").and_then(Value::as_str)
}

/// `~/x` against `home`, a relative path against `base`, an absolute one as it is.
fn resolve(path: &str, base: &Path, home: &Path) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/") {
        return home.join(rest);
    }
    if path == "~" {
        return home.to_path_buf();
    }
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// The folder of a `directory` marketplace.
pub(crate) fn directory_root(source: &Value, base: &Path, home: &Path) -> Option<PathBuf> {
    source
        .get("path")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .map(|p| resolve(p, base, home))
}

/// `path` with `.` and `..` resolved, through symbolic links where it exists (so two
/// spellings of one folder compare equal), lexically where it does not.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Where the relative paths of a marketplace check resolve from (reference §5.4).
#[derive(Debug, Clone, Copy)]
pub struct PathBases<'a> {
    /// The folder the managed settings' relative paths resolve from.
    pub managed: &'a Path,
    /// The folder the checked source's relative path resolves from (the settings
    /// source that named it).
    pub source: &'a Path,
    /// What `~/` means.
    pub home: &'a Path,
}

/// Whether a relative path stays inside the folder it is joined to.
fn stays_inside(rel: &Path) -> bool {
    rel.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// The most bytes a marketplace's `.claude-plugin/marketplace.json` may hold: a settings
/// file's cap, 16 MiB (SPEC §2.1 "Reading never hangs, never floods memory"). It is read
/// with the bounded opener: a FIFO, a device or a folder there is refused by name.
pub(crate) const MAX_MARKETPLACE_BYTES: u64 = policy::json::MAX_FILE_BYTES;

/// The folder of plugin `pid` in the marketplace at `root` (its
/// `.claude-plugin/marketplace.json`), and whether it is read in place (a relative
/// source) or from the cached copy of a remote one under `plugin_root`.
pub(crate) fn plugin_folder(
    root: &Path,
    pid: &PluginId,
    plugin_root: &Path,
) -> Result<(PathBuf, bool), FolderError> {
    let file = root.join(".claude-plugin").join("marketplace.json");
    let bytes = boundedfs::read_bounded(&file, MAX_MARKETPLACE_BYTES).map_err(|e| {
        if e.is_not_found() {
            FolderError::MarketplaceMissing {
                marketplace: pid.marketplace.clone(),
                file: file.clone(),
            }
        } else {
            FolderError::Unreadable {
                file: file.clone(),
                reason: e.reason.to_string(),
            }
        }
    })?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|e| FolderError::NotJson {
        file: file.clone(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let entry = v
        .get("plugins")
        .and_then(Value::as_array)
        .and_then(|ps| {
            ps.iter()
                .find(|p| p.get("name").and_then(Value::as_str) == Some(pid.name.as_str()))
        })
        .ok_or_else(|| FolderError::NoSuchPlugin {
            marketplace: pid.marketplace.clone(),
            name: pid.name.clone(),
            file: file.clone(),
        })?;
    match entry.get("source") {
        Some(Value::String(rel)) => {
            let plugin_root_rel = v
                .get("metadata")
                .and_then(|m| m.get("pluginRoot"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let rel_path = Path::new(rel);
            let prefix = Path::new(plugin_root_rel);
            if !stays_inside(rel_path) || !stays_inside(prefix) {
                return Err(FolderError::Outside {
                    marketplace: pid.marketplace.clone(),
                    name: pid.name.clone(),
                    rel: rel.clone(),
                });
            }
            let folder = root.join(prefix).join(rel_path);
            // A symbolic link inside the marketplace must not lead out of it: what is
            // read in place is what the marketplace's owner put there.
            if folder.exists() && !canonical(&folder).starts_with(canonical(root)) {
                return Err(FolderError::OutsideByLink {
                    marketplace: pid.marketplace.clone(),
                    name: pid.name.clone(),
                    rel: rel.clone(),
                });
            }
            Ok((folder, true))
        }
        Some(Value::Object(_)) => {
            let cached = plugin_root
                .join("cache")
                .join(&pid.marketplace)
                .join(&pid.name);
            if cached.join(crate::MANIFEST_FILE).is_file() {
                return Ok((cached, false));
            }
            let mut versions: Vec<PathBuf> = std::fs::read_dir(&cached)
                .map(|rd| {
                    rd.filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|p| p.is_dir())
                        .collect()
                })
                .unwrap_or_default();
            versions.sort();
            versions
                .pop()
                .map(|v| (v, false))
                .ok_or_else(|| FolderError::CacheMissing {
                    name: pid.name.clone(),
                    marketplace: pid.marketplace.clone(),
                    cached,
                })
        }
        _ => Err(FolderError::NoSource {
            marketplace: pid.marketplace.clone(),
            name: pid.name.clone(),
        }),
    }
}

/// Whether managed settings let a marketplace source be used (reference §5.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceCheck {
    /// No allowlist, or the allowlist lists it; not blocked.
    Allowed,
    /// `strictKnownMarketplaces` (or `allowedMarketplaces`) is set and does not list it.
    NotListed,
    /// `blockedMarketplaces` lists it.
    Blocked,
}

/// Whether managed settings let the marketplace `source` be used: `blockedMarketplaces`
/// first, then `strictKnownMarketplaces` (unset: no restriction; `[]`: none may).
/// URLs and package names match exactly (no URL normalisation); a `github` repo
/// `owner/*` matches every repository of the owner; a `directory` or `file` path matches
/// the folder it resolves to (`bases`: `..`, `.`, a trailing `/` and symbolic links do
/// not make another folder of it); `hostPattern` and `pathPattern` are regular
/// expressions on the source's host and path (an allowlist's on the path resolved, a
/// blocklist's on the path as written or resolved). Reference §5.4.
///
/// `managed` is the merged managed settings. A list key that is present but not an
/// array counts as an empty allowlist (fail closed) and as no blocklist.
#[must_use]
pub fn source_allowed(
    managed: &Map<String, Value>,
    source: &Value,
    bases: &PathBases<'_>,
) -> SourceCheck {
    if let Some(Value::Array(blocked)) = managed.get("blockedMarketplaces") {
        if blocked
            .iter()
            .any(|entry| matches_entry(entry, source, bases, true))
        {
            return SourceCheck::Blocked;
        }
    }
    let allow = managed
        .get("strictKnownMarketplaces")
        .or_else(|| managed.get("allowedMarketplaces"));
    match allow {
        None => SourceCheck::Allowed,
        Some(Value::Array(list)) if list.iter().any(|e| matches_entry(e, source, bases, false)) => {
            SourceCheck::Allowed
        }
        Some(_) => SourceCheck::NotListed,
    }
}

fn field<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// The host of a `github` source (`github.com`) or of a `git`/`url` source's URL.
fn host_of(source: &Value) -> Option<String> {
    match kind(source)? {
        "github" => Some("github.com".to_owned()),
        "git" | "url" => {
            let u = field(source, "url")?;
            let after = u.split_once("://").map_or(u, |(_, r)| r);
            let after = after.split_once('@').map_or(after, |(_, r)| r);
            let host = after
                .split(['/', ':'])
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            (!host.is_empty()).then_some(host)
        }
        _ => None,
    }
}

fn regex_matches(pattern: &str, text: &str) -> bool {
    regex_automata::meta::Regex::new(pattern).is_ok_and(|re| re.is_match(text))
}

/// Whether allowlist (or blocklist, `loose`) entry `entry` matches `source`.
fn matches_entry(entry: &Value, source: &Value, bases: &PathBases<'_>, loose: bool) -> bool {
    let resolved = |path: &str, base: &Path| canonical(&resolve(path, base, bases.home));
    let Some(ek) = kind(entry) else {
        return false;
    };
    match ek {
        "hostPattern" => field(entry, "hostPattern")
            .zip(host_of(source))
            .is_some_and(|(p, h)| regex_matches(p, &h)),
        "pathPattern" => field(entry, "pathPattern")
            .zip(field(source, "path"))
            .is_some_and(|(p, path)| {
                let at = resolved(path, bases.source);
                regex_matches(p, &at.to_string_lossy()) || (loose && regex_matches(p, path))
            }),
        _ if Some(ek) != kind(source) => false,
        "github" => {
            let (Some(want), Some(have)) = (field(entry, "repo"), field(source, "repo")) else {
                return false;
            };
            let repo_ok = match want.strip_suffix("/*") {
                Some(owner) => have
                    .split_once('/')
                    .is_some_and(|(o, _)| o.eq_ignore_ascii_case(owner)),
                None if loose => want.eq_ignore_ascii_case(have),
                None => want == have,
            };
            repo_ok
                && same_optional(entry, source, "ref", loose)
                && same_optional(entry, source, "path", loose)
        }
        "git" | "url" => {
            field(entry, "url").is_some()
                && field(entry, "url") == field(source, "url")
                && same_optional(entry, source, "ref", loose)
                && same_optional(entry, source, "path", loose)
        }
        "npm" => {
            field(entry, "package").is_some() && field(entry, "package") == field(source, "package")
        }
        "directory" | "file" => {
            field(entry, "path")
                .zip(field(source, "path"))
                .is_some_and(|(want, have)| {
                    resolved(want, bases.managed) == resolved(have, bases.source)
                })
        }
        _ => false,
    }
}

/// `ref` / `path`: both absent or equal; a blocklist entry without one matches all.
fn same_optional(entry: &Value, source: &Value, k: &str, loose: bool) -> bool {
    match (field(entry, k), field(source, k)) {
        (None, _) if loose => true,
        (a, b) => a == b,
    }
}
