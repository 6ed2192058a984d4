//! The loader (SPEC §6 "Loading (ids and tiers)", §3.4's exemption): from a machine's
//! settings, which plugins load, from which copy, in which tier, and why every other
//! one named is skipped. It reads folders and JSON files only (no JavaScript, no
//! network): what a plugin's folder holds is the mods host's to load.
//!
//! The rules, as Claude Code loads plugins and as the organization needs them:
//!
//! - A person's plugin is a key `<name>@<marketplace>` that `enabledPlugins` turns on
//!   (any value but `false`) in a settings source, found through the marketplace of
//!   that name in `extraKnownMarketplaces` (alias `additionalMarketplaces`) of the
//!   sources (a higher source's entry replaces a lower one's whole; managed settings
//!   are the highest). A `directory` marketplace is read in place; a `github`, `git`,
//!   `npm`, `url` or `file` one from its cached copy under the plugin root
//!   (`<root>/marketplaces/<name>/`). A plugin entry whose `source` is a relative path
//!   is found inside the marketplace; a remote one at `<root>/cache/<marketplace>/<name>/`
//!   (or the last of its version folders). Managed `strictKnownMarketplaces` (alias
//!   `allowedMarketplaces`) and `blockedMarketplaces` decide which marketplace sources
//!   may be used at all; a managed `false` blocks an id.
//! - **\[decision\]** Managed `prependPlugins` / `appendPlugins` seat, in their order,
//!   only the organization's own plugins: an id managed `enabledPlugins` turns on with
//!   the literal `true`, found in a `directory` marketplace that managed settings name,
//!   read in place, with a hooks module. Any other id they list is skipped with the line
//!   `prependPlugins names <id>, which is not an enabled managed plugin with a hooks
//!   module; skipped` (`appendPlugins` likewise); the security default's own id is the
//!   engine's and never skipped.
//! - Every other enabled plugin is the person's (`user`), in settings order, except that
//!   a plugin runs before the plugins its manifest's `dependencies` name.
//! - `--plugin-dir DIR` loads `<name>@inline` (`user`), which replaces an enabled
//!   plugin of the same name unless managed settings force-enable that one.
//! - The resolved id is `plugin.register`'s `provenance`; [`Found::copy`] says how the
//!   copy was read (SPEC §3.4: only [`CopySource::Directory`] read in place can be
//!   vouched for).

#![forbid(unsafe_code)]

mod error;
mod manifest;
mod market;
mod options;

use error::NotSeated;
use fnhooks::{CopySource, Tier};
use policy::{EnabledPlugin, ManagedSettings, PluginId, SEC_DEFAULT_ID};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use manifest::{read_manifest, Manifest, ManifestError, MANIFEST_FILE, MAX_MANIFEST_BYTES};
pub use market::{source_allowed, PathBases, SourceCheck};
pub use options::options_for;

/// One settings source of a person (SPEC §2.1): its name and settings, and the folder
/// its relative `directory` paths resolve from.
#[derive(Debug, Clone, Copy)]
pub struct PersonSettings<'a> {
    /// `user`, `project`, `local` or `flag` (what lines name).
    pub source: &'a str,
    /// The file's settings object.
    pub settings: &'a Map<String, Value>,
    /// The folder relative paths resolve from (the home folder for `user`, the
    /// project's root for `project` and `local`).
    pub base: &'a Path,
}

/// What the loader reads (SPEC §6 "Loading").
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The managed settings, merged (SPEC §2.1).
    pub managed: &'a Map<String, Value>,
    /// The folder managed relative paths resolve from (the managed folder).
    pub managed_base: &'a Path,
    /// A person's settings sources, lowest precedence first.
    pub person: &'a [PersonSettings<'a>],
    /// `--plugin-dir` folders, in the order given.
    pub plugin_dirs: &'a [PathBuf],
    /// The person's plugin root (`~/.claude/plugins`, or `CLAUDE_CODE_PLUGIN_CACHE_DIR`).
    pub plugin_root: &'a Path,
    /// The person's home folder (what `~/` in a path means).
    pub home: &'a Path,
}

/// A plugin the loader found: where, in which tier, and how its copy was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// `<name>@<marketplace>`, as resolved (`plugin.register`'s `provenance`).
    pub id: String,
    /// Its manifest's `name` (the id's name when there is no manifest).
    pub name: String,
    /// The tier it is seated in.
    pub tier: Tier,
    /// The plugin folder.
    pub folder: PathBuf,
    /// How the copy was read (SPEC §3.4 exemption).
    pub copy: CopySource,
    /// Whether it was read in place (a `directory` marketplace, `--plugin-dir`), not
    /// from a cached copy.
    pub in_place: bool,
    /// Whether the folder holds a hooks module (`hooks/hooks.json`): a mod.
    pub is_mod: bool,
    /// Which settings source enabled it (`managed`, `user`, ..., `--plugin-dir`).
    pub enabled_by: String,
    /// `Some(why)` for an organization's own plugin of `prependPlugins` /
    /// `appendPlugins` whose copy could not be read (not in its marketplace, a manifest
    /// that is not JSON, ...): it is still the organization's, so it is listed as a
    /// module that could not be loaded, and its `tool.check` link stands as SPEC §1.8's
    /// unchecked deny (bad input fails closed). Always `None` for a person's.
    pub unreadable: Option<String>,
}

/// An id the settings name that does not load, and the line that says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The id as written (or the folder, for `--plugin-dir`).
    pub id: String,
    /// The line: names the id and the reason.
    pub line: String,
    /// The tier it was named for.
    pub tier: Tier,
}

/// The loader's answer: the plugins found, in chain order, and the ones skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// In chain order: `prepend`, then `user`, then `append`.
    pub found: Vec<Found>,
    /// In the order they were met.
    pub skipped: Vec<Skipped>,
}

impl Plan {
    /// The plugin found under `id` (as resolved).
    #[must_use]
    pub fn get(&self, id: &str) -> Option<&Found> {
        self.found.iter().find(|f| policy::ids_equal(&f.id, id))
    }
}

/// A marketplace as the sources name it.
#[derive(Debug, Clone)]
struct Market {
    source: Value,
    /// Where relative paths of its source resolve from.
    base: PathBuf,
    /// Named by managed settings.
    managed: bool,
}

/// What the loader reads of a plugin folder's manifest.
#[derive(Debug, Clone)]
struct Named {
    name: String,
    dependencies: Vec<String>,
}

/// The managed settings the loader reads from a policy read (SPEC §2.1 "Fail closed"):
/// the merged settings, except that a marketplace control the read could not use is in
/// force at its strictest. Where `strictKnownMarketplaces` (`allowedMarketplaces`) or
/// `blockedMarketplaces` was dropped whole (not an array), no marketplace is allowed
/// (`strictKnownMarketplaces: []`): dropping it would let every marketplace in. A policy
/// that cannot be read at all allows none the same way (what it would allow is not
/// known); an `Err` also names no organization plugin, so none is seated.
#[must_use]
pub fn managed_settings(read: &Result<policy::Policy, policy::PolicyError>) -> Map<String, Value> {
    let strictest = |mut m: Map<String, Value>| {
        m.remove("allowedMarketplaces");
        m.insert(
            "strictKnownMarketplaces".to_owned(),
            Value::Array(Vec::new()),
        );
        m
    };
    match read {
        Err(_) => strictest(Map::new()),
        Ok(p) => {
            let dropped_whole = p.warnings.iter().any(|w| {
                matches!(
                    w.pointer.as_str(),
                    "/strictKnownMarketplaces" | "/allowedMarketplaces" | "/blockedMarketplaces"
                )
            });
            if dropped_whole {
                strictest(p.settings.clone())
            } else {
                p.settings.clone()
            }
        }
    }
}

const PREPEND: &str = "prependPlugins";
const APPEND: &str = "appendPlugins";

/// Decides which plugins load (SPEC §6 "Loading"); every id the settings name that does
/// not load is in [`Plan::skipped`] with its line. Never fails: a file that cannot be
/// read is a skipped id's reason.
#[must_use]
pub fn plan(inputs: &Inputs<'_>) -> Plan {
    let managed = ManagedSettings::from_map(inputs.managed);
    let markets = markets(inputs);
    let mut plan = Plan::default();
    let mut names: BTreeMap<String, String> = BTreeMap::new();

    // The organization's tiers first: only its own plugins.
    let mut org = Vec::new();
    for (key, tier, ids) in [
        (PREPEND, Tier::Prepend, &managed.prepend_plugins),
        (APPEND, Tier::Append, &managed.append_plugins),
    ] {
        for id in ids {
            if policy::ids_equal(id, SEC_DEFAULT_ID) {
                continue;
            }
            if let Some(first) = org.iter().find(|f: &&Found| policy::ids_equal(&f.id, id)) {
                plan.skipped.push(Skipped {
                    id: id.clone(),
                    line: format!(
                        "{key} names {id} again; it is seated once, in {}",
                        first.tier.as_str()
                    ),
                    tier,
                });
                continue;
            }
            match org_plugin(inputs, &managed, &markets, id, tier) {
                Ok(found) => {
                    names.insert(policy::id_key(&found.name), found.id.clone());
                    org.push(found);
                }
                Err(why) => plan.skipped.push(Skipped {
                    id: id.clone(),
                    line: format!(
                        "{key} names {id}, which is not an enabled managed plugin with a hooks module; skipped ({why})"
                    ),
                    tier,
                }),
            }
        }
    }

    // A person's: enabled in settings order, less the organization's and the blocked.
    let mut user = Vec::new();
    for (id, by) in enabled(inputs, &managed) {
        if org.iter().any(|f| policy::ids_equal(&f.id, &id)) {
            continue;
        }
        if blocked(&managed, &id) {
            plan.skipped
                .push(skip(&id, "managed enabledPlugins blocks it (false)"));
            continue;
        }
        match user_plugin(inputs, &markets, &id, &by) {
            Ok((found, deps)) => {
                let key = policy::id_key(&found.name);
                if let Some(other) = names.get(&key) {
                    plan.skipped.push(skip(
                        &id,
                        &format!(
                            "another enabled plugin, {other}, has the name {}",
                            found.name
                        ),
                    ));
                    continue;
                }
                names.insert(key, found.id.clone());
                user.push((found, deps));
            }
            Err(why) => plan.skipped.push(skip(&id, &why.to_string())),
        }
    }

    // `--plugin-dir`: `<name>@inline`, replacing a same-named person's plugin.
    for dir in inputs.plugin_dirs {
        match inline_plugin(dir) {
            Ok((found, deps)) => {
                let forced = managed
                    .enabled_plugins
                    .iter()
                    .any(|(id, e)| *e == EnabledPlugin::On && ids_name_equal(id, &found.name));
                if forced || org.iter().any(|f| names_equal(&f.name, &found.name)) {
                    plan.skipped.push(Skipped {
                        id: found.id.clone(),
                        line: format!(
                            "--plugin-dir {}: {} may not replace the plugin of that name the organization enables; skipped",
                            dir.display(),
                            found.id
                        ),
                        tier: Tier::User,
                    });
                    continue;
                }
                user.retain(|(f, _)| !names_equal(&f.name, &found.name));
                user.push((found, deps));
            }
            Err(why) => plan.skipped.push(Skipped {
                id: dir.display().to_string(),
                line: format!("--plugin-dir {}: {why}; skipped", dir.display()),
                tier: Tier::User,
            }),
        }
    }

    let (user, cycle) = dependencies_first(user);
    if let Some(names) = cycle {
        plan.skipped.push(Skipped {
            id: names.clone(),
            line: format!("the dependencies of {names} form a cycle: they load in settings order"),
            tier: Tier::User,
        });
    }
    let (prepend, append): (Vec<Found>, Vec<Found>) =
        org.into_iter().partition(|f| f.tier == Tier::Prepend);
    plan.found = prepend.into_iter().chain(user).chain(append).collect();
    plan
}

fn skip(id: &str, why: &str) -> Skipped {
    Skipped {
        id: id.to_owned(),
        line: format!("{id}: {why}; skipped"),
        tier: Tier::User,
    }
}

fn names_equal(a: &str, b: &str) -> bool {
    policy::id_key(a) == policy::id_key(b)
}

fn ids_name_equal(id: &str, name: &str) -> bool {
    names_equal(policy::id_name(id), name)
}

/// The marketplaces the sources name, by name; a higher source's entry replaces a
/// lower one's whole, managed settings last.
fn markets(inputs: &Inputs<'_>) -> BTreeMap<String, Market> {
    let mut out = BTreeMap::new();
    let sources = inputs
        .person
        .iter()
        .map(|p| (p.settings, p.base, false))
        .chain(std::iter::once((inputs.managed, inputs.managed_base, true)));
    for (settings, base, managed) in sources {
        for key in ["extraKnownMarketplaces", "additionalMarketplaces"] {
            let Some(Value::Object(entries)) = settings.get(key) else {
                continue;
            };
            for (name, entry) in entries {
                let source = entry.get("source").cloned().unwrap_or(Value::Null);
                out.insert(
                    name.clone(),
                    Market {
                        source,
                        base: base.to_path_buf(),
                        managed,
                    },
                );
            }
        }
    }
    out
}

/// The ids the sources enable, in settings order (first seen), each with the source
/// that enabled it: a person's `true` (or any value but `false`) enables, a later
/// source's `false` disables again; managed `true` (or a version list) force-enables.
fn enabled(inputs: &Inputs<'_>, managed: &ManagedSettings) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for p in inputs.person {
        let Some(Value::Object(map)) = p.settings.get("enabledPlugins") else {
            continue;
        };
        for (id, v) in map {
            let at = out.iter().position(|(i, _)| policy::ids_equal(i, id));
            match (v, at) {
                (Value::Bool(false), Some(i)) => {
                    out.remove(i);
                }
                (Value::Bool(false), None) => {}
                (_, Some(_)) => {}
                (_, None) => out.push((id.clone(), p.source.to_owned())),
            }
        }
    }
    for (id, e) in &managed.enabled_plugins {
        if e.is_on() && !out.iter().any(|(i, _)| policy::ids_equal(i, id)) {
            out.push((id.clone(), "managed".to_owned()));
        }
    }
    out
}

fn blocked(managed: &ManagedSettings, id: &str) -> bool {
    managed
        .enabled_plugins
        .iter()
        .any(|(i, e)| *e == EnabledPlugin::Off && policy::ids_equal(i, id))
}

/// An id of `prependPlugins` / `appendPlugins` that is the organization's own, found;
/// else why not.
fn org_plugin(
    inputs: &Inputs<'_>,
    managed: &ManagedSettings,
    markets: &BTreeMap<String, Market>,
    id: &str,
    tier: Tier,
) -> Result<Found, NotSeated> {
    let on = managed
        .enabled_plugins
        .iter()
        .any(|(i, e)| *e == EnabledPlugin::On && policy::ids_equal(i, id));
    if !on {
        return Err(NotSeated::NotTurnedOn);
    }
    let pid = PluginId::parse(id).ok_or(NotSeated::NotAnId)?;
    let market = markets
        .get(&pid.marketplace)
        .filter(|m| m.managed)
        .ok_or_else(|| NotSeated::NoManagedMarketplace {
            marketplace: pid.marketplace.clone(),
        })?;
    if market::kind(&market.source) != Some("directory") {
        return Err(NotSeated::NotDirectory {
            marketplace: pid.marketplace.clone(),
        });
    }
    let root =
        market::directory_root(&market.source, &market.base, inputs.home).ok_or_else(|| {
            NotSeated::NoPath {
                marketplace: pid.marketplace.clone(),
            }
        })?;
    // From here on the id is the organization's own: a copy that cannot be read is a
    // policy plugin that failed to load (fail closed), not an id to skip.
    let found = |name: String, folder: PathBuf, unreadable: Option<String>| Found {
        id: id.to_owned(),
        name,
        tier,
        folder,
        copy: CopySource::Directory,
        in_place: true,
        is_mod: true,
        enabled_by: "managed".to_owned(),
        unreadable,
    };
    let (folder, in_place) = match market::plugin_folder(&root, &pid, inputs.plugin_root) {
        Ok(f) => f,
        Err(why) => return Ok(found(pid.name.clone(), root, Some(why.to_string()))),
    };
    if !in_place {
        return Err(NotSeated::RemoteOnly {
            marketplace: pid.marketplace.clone(),
        });
    }
    let manifest = match manifest(&folder, &pid.name) {
        Ok(m) => m,
        Err(why) => return Ok(found(pid.name.clone(), folder, Some(why.to_string()))),
    };
    if !holds_hooks_file(&folder) {
        return Err(NotSeated::NoHooksModule { folder });
    }
    Ok(found(manifest.name, folder, None))
}

/// A person's enabled id, found (with its manifest's dependencies); else why not.
fn user_plugin(
    inputs: &Inputs<'_>,
    markets: &BTreeMap<String, Market>,
    id: &str,
    by: &str,
) -> Result<(Found, Vec<String>), NotSeated> {
    let pid = PluginId::parse(id).ok_or(NotSeated::NotAnId)?;
    if policy::is_inline_id(id) {
        return Err(NotSeated::Inline);
    }
    let market = markets
        .get(&pid.marketplace)
        .ok_or_else(|| NotSeated::UnknownMarketplace {
            marketplace: pid.marketplace.clone(),
        })?;
    let kind = market::kind(&market.source).unwrap_or("unknown");
    let bases = PathBases {
        managed: inputs.managed_base,
        source: &market.base,
        home: inputs.home,
    };
    match market::source_allowed(inputs.managed, &market.source, &bases) {
        SourceCheck::Allowed => {}
        SourceCheck::NotListed => {
            return Err(NotSeated::NotListed {
                marketplace: pid.marketplace.clone(),
                kind: kind.to_owned(),
            })
        }
        SourceCheck::Blocked => {
            return Err(NotSeated::Blocked {
                marketplace: pid.marketplace.clone(),
                kind: kind.to_owned(),
            })
        }
    }
    let (root, copy) = match kind {
        "directory" => (
            market::directory_root(&market.source, &market.base, inputs.home).ok_or_else(|| {
                NotSeated::NoPath {
                    marketplace: pid.marketplace.clone(),
                }
            })?,
            CopySource::Directory,
        ),
        "github" | "git" | "npm" | "url" | "file" => {
            let cached = inputs
                .plugin_root
                .join("marketplaces")
                .join(&pid.marketplace);
            if !cached.is_dir() {
                return Err(NotSeated::MarketplaceCacheMissing {
                    marketplace: pid.marketplace.clone(),
                    cached,
                });
            }
            let copy = match kind {
                "github" => CopySource::Github,
                "git" => CopySource::Git,
                "npm" => CopySource::Npm,
                _ => CopySource::Cached,
            };
            (cached, copy)
        }
        other => {
            return Err(NotSeated::UnknownSource {
                marketplace: pid.marketplace.clone(),
                kind: other.to_owned(),
            })
        }
    };
    let (folder, in_place) = market::plugin_folder(&root, &pid, inputs.plugin_root)?;
    let in_place = in_place && copy == CopySource::Directory;
    // A remote plugin of a directory marketplace is a cached copy all the same.
    let copy = if !in_place && copy == CopySource::Directory {
        CopySource::Cached
    } else {
        copy
    };
    let manifest = manifest(&folder, &pid.name)?;
    Ok((
        Found {
            id: id.to_owned(),
            name: manifest.name,
            tier: Tier::User,
            is_mod: holds_hooks_file(&folder),
            folder,
            copy,
            in_place,
            enabled_by: by.to_owned(),
            unreadable: None,
        },
        manifest.dependencies,
    ))
}

/// A `--plugin-dir` folder: `<name>@inline`.
fn inline_plugin(dir: &Path) -> Result<(Found, Vec<String>), NotSeated> {
    if !dir.is_dir() {
        return Err(NotSeated::NoSuchFolder);
    }
    let fallback = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let manifest = manifest(dir, &fallback)?;
    Ok((
        Found {
            id: format!("{}@inline", manifest.name),
            name: manifest.name,
            tier: Tier::User,
            is_mod: holds_hooks_file(dir),
            folder: dir.to_path_buf(),
            copy: CopySource::Inline,
            in_place: true,
            enabled_by: "--plugin-dir".to_owned(),
            unreadable: None,
        },
        manifest.dependencies,
    ))
}

/// Whether `folder` holds a `hooks/hooks.json`: anything there but a folder makes it a
/// mod, so a FIFO or a device in its place is refused by name when the mod loads
/// (SPEC §2.1 "Reading never hangs"; an organization's then fails closed, SPEC §1.8),
/// never passed over as a plugin without hooks.
fn holds_hooks_file(folder: &Path) -> bool {
    std::fs::metadata(folder.join("hooks").join("hooks.json")).is_ok_and(|m| !m.is_dir())
}

/// The name and dependencies of the folder's manifest ([`read_manifest`]): without one,
/// `fallback` names the plugin (the manifest is optional); a folder that is missing, or
/// a manifest that cannot be read, is why not (its path and position).
fn manifest(folder: &Path, fallback: &str) -> Result<Named, NotSeated> {
    match read_manifest(folder)? {
        Some(m) => Ok(Named {
            name: m.name,
            dependencies: m.dependencies,
        }),
        None if !folder.is_dir() => Err(NotSeated::FolderMissing {
            folder: folder.to_path_buf(),
        }),
        None => Ok(Named {
            name: fallback.to_owned(),
            dependencies: Vec::new(),
        }),
    }
}

/// A person's plugins ordered so that each runs before the plugins its manifest's
/// `dependencies` name (by name or id), settings order otherwise; a cycle keeps
/// settings order for its members, and its names come back.
fn dependencies_first(user: Vec<(Found, Vec<String>)>) -> (Vec<Found>, Option<String>) {
    let n = user.len();
    // A dependency names a plugin by name, or by id when it holds an `@`.
    let index_of = |dep: &str| {
        user.iter().position(|(f, _)| {
            if dep.contains('@') {
                policy::ids_equal(&f.id, dep)
            } else {
                names_equal(&f.name, dep)
            }
        })
    };
    // `after[j]` holds every i that must come before j (i depends on j).
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, (_, deps)) in user.iter().enumerate() {
        for d in deps {
            if let Some(j) = index_of(d) {
                if j != i {
                    if let Some(b) = before.get_mut(j) {
                        b.push(i);
                    }
                }
            }
        }
    }
    let mut placed = vec![false; n];
    let mut order = Vec::with_capacity(n);
    while order.len() < n {
        let next = (0..n).find(|&j| {
            !placed.get(j).copied().unwrap_or(true)
                && before
                    .get(j)
                    .is_some_and(|b| b.iter().all(|&i| placed.get(i).copied().unwrap_or(true)))
        });
        match next {
            Some(j) => {
                if let Some(p) = placed.get_mut(j) {
                    *p = true;
                }
                order.push(j);
            }
            None => break,
        }
    }
    let mut cycle = None;
    if order.len() < n {
        let rest: Vec<usize> = (0..n)
            .filter(|j| !placed.get(*j).copied().unwrap_or(true))
            .collect();
        cycle = Some(
            rest.iter()
                .filter_map(|&j| user.get(j).map(|(f, _)| f.id.clone()))
                .collect::<Vec<_>>()
                .join(", "),
        );
        order.extend(rest);
    }
    let mut slots: Vec<Option<Found>> = user.into_iter().map(|(f, _)| Some(f)).collect();
    let found = order
        .into_iter()
        .filter_map(|j| slots.get_mut(j).and_then(Option::take))
        .collect();
    (found, cycle)
}

#[cfg(test)]
mod tests;
