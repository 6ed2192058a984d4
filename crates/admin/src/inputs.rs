//! The inputs several commands share, as the command line names them
//! (the `sec-default` binary's shared flags) and as they are read: where the managed policy is
//! read ([`PolicySource`]), the person's plugins named ([`PersonInputs`]) and read as
//! the loader reads them ([`PersonMods`], SPEC §6 "Loading"), and the machine they
//! make together ([`MachineInputs`]).

use fnhooks::{PluginInfo, Tier};
use serde_json::{Map, Value};
use session::{HookRunner, Listed};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Which managed folder a command reads (SPEC §2.1 "Locations").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicySource {
    /// A folder named with `--managed`; it must exist (bad input otherwise).
    Folder(PathBuf),
    /// The platform folder; when it does not exist, the command reads the empty policy
    /// the engine reads there and says so.
    Platform(PathBuf),
    /// The example policy embedded in the binary (`examples/managed/`, `--example`).
    Embedded,
}

/// A machine's inputs, as a command's shared flags name them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineInputs {
    /// Where the managed policy is read (SPEC §2.1 "Locations").
    pub policy: PolicySource,
    /// The person's user settings file (`--user`), when given; what is read when it is
    /// not is the command's to say.
    pub user: Option<PathBuf>,
    /// The person's `--settings` file and `--plugin-dir` folders.
    pub person: PersonInputs,
    /// How classic hooks' commands run: not at all unless `--run-hooks`.
    pub hooks: HookRunner,
}

impl MachineInputs {
    /// The machine of the managed policy `policy` names alone: no user settings file
    /// named, no person's plugin, classic hooks not run.
    #[must_use]
    pub fn new(policy: PolicySource) -> MachineInputs {
        MachineInputs {
            policy,
            user: None,
            person: PersonInputs::default(),
            hooks: HookRunner::NotRun,
        }
    }
}

/// What names a person's mods: `--plugin-dir DIR` and `--settings FILE` (`audit`,
/// `replay`), or the folder `mods check DIR` judges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PersonInputs {
    /// `--plugin-dir` folders, in order: each `<name>@inline`.
    pub plugin_dirs: Vec<PathBuf>,
    /// A person's settings file whose `enabledPlugins` (through its
    /// `extraKnownMarketplaces`) name their plugins.
    pub settings: Option<PathBuf>,
}

impl PersonInputs {
    /// Whether any person's plugin is named.
    pub fn is_empty(&self) -> bool {
        self.plugin_dirs.is_empty() && self.settings.is_none()
    }
}

/// One person's plugin the loader found, with its mod read once (each session makes
/// a fresh instance of it).
#[derive(Debug, Clone)]
pub struct PersonMod {
    /// Its id, name, tier (`user`) and copy source.
    pub info: PluginInfo,
    /// The plugin folder.
    pub folder: PathBuf,
    /// Its mod (`None`: no hooks module), or the line saying why it cannot load.
    pub source: Result<Option<mods::ModSource>, mods::LoadError>,
    /// The events its `register` hooks, as `mods check` reads them (static).
    pub hooks: Vec<String>,
    /// `pluginConfigs` options, as [`loader::options_for`] reads them.
    pub options: Map<String, Value>,
}

/// The person's plugins, and the loader's lines about the ids it skipped.
#[derive(Debug, Clone, Default)]
pub struct PersonMods {
    /// In chain order.
    pub mods: Vec<PersonMod>,
    /// One line per id skipped (SPEC §6 "Loading").
    pub lines: Vec<String>,
}

impl PersonMods {
    /// Reads the person's plugins `inputs` names, against the managed settings the
    /// command reads (`managed`, from `managed_folder`): only `user`-tier plugins (the
    /// organization's are the policy's, not the person's).
    ///
    /// # Errors
    ///
    /// Bad input: a `--plugin-dir` that is not a folder, a `--settings` file that
    /// cannot be read or is not a JSON object (its path and position).
    pub fn read(
        inputs: &PersonInputs,
        managed: &Map<String, Value>,
        managed_folder: &Path,
    ) -> Result<PersonMods, PersonInputsError> {
        for dir in &inputs.plugin_dirs {
            if !dir.is_dir() {
                return Err(PersonInputsError::NotAFolder(dir.clone()));
            }
        }
        let settings = match &inputs.settings {
            Some(file) => read_settings(file)?,
            None => Map::new(),
        };
        let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
        let plugin_root = std::env::var_os("CLAUDE_CODE_PLUGIN_CACHE_DIR")
            .map_or_else(|| home.join(".claude").join("plugins"), PathBuf::from);
        let base = inputs
            .settings
            .as_deref()
            .and_then(Path::parent)
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let person = [loader::PersonSettings {
            source: "user",
            settings: &settings,
            base: &base,
        }];
        let loader_inputs = loader::Inputs {
            managed,
            managed_base: managed_folder,
            person: &person,
            plugin_dirs: &inputs.plugin_dirs,
            plugin_root: &plugin_root,
            home: &home,
        };
        let plan = loader::plan(&loader_inputs);
        let mods = plan
            .found
            .iter()
            .filter(|f| f.tier == Tier::User)
            .map(|f| {
                let source = if f.is_mod {
                    mods::load_folder(&f.folder).map(Some)
                } else {
                    Ok(None)
                };
                PersonMod {
                    hooks: match &source {
                        Ok(Some(s)) => hooked(s),
                        _ => Vec::new(),
                    },
                    source,
                    info: PluginInfo {
                        id: f.id.clone(),
                        name: f.name.clone(),
                        tier: Tier::User,
                        worker: None,
                        source: Some(f.copy),
                    },
                    folder: f.folder.clone(),
                    options: loader::options_for(f, &loader_inputs),
                }
            })
            .collect();
        Ok(PersonMods {
            mods,
            lines: plan
                .skipped
                .into_iter()
                .filter(|s| s.tier == Tier::User)
                .map(|s| s.line)
                .collect(),
        })
    }

    /// Fresh instances of every plugin, to list in one session.
    pub fn listed(&self) -> Vec<Listed> {
        self.mods.iter().map(|m| m.listed(None)).collect()
    }
}

impl PersonMod {
    /// A fresh instance, listed as the session lists a mod; `ran` is set when one of its
    /// hooks runs.
    pub fn listed(&self, ran: Option<Arc<AtomicBool>>) -> Listed {
        let host = mods::HostConfig::default();
        match &self.source {
            Ok(None) => Listed::from(fnhooks::Plugin::new(self.info.clone())),
            Err(why) => Listed::unloadable(self.info.clone(), why.to_string()),
            Ok(Some(source)) => match mods::ModPlugin::new(source.clone(), &self.options, host) {
                Ok(p) => {
                    let p = match ran {
                        Some(ran) => p.observed(move || ran.store(true, Ordering::Relaxed)),
                        None => p,
                    };
                    Listed::module(self.info.clone(), Arc::new(listing::ModModule(p)))
                }
                Err(e) => Listed::unloadable(
                    self.info.clone(),
                    format!("{}: {e} (pluginConfigs[{:?}])", self.info.id, self.info.id),
                ),
            },
        }
    }

    /// Whether its mod loads.
    ///
    /// # Errors
    ///
    /// Why it does not (the file, position and reason).
    pub fn load(&self) -> Result<(), mods::LoadError> {
        self.source.as_ref().map(|_| ()).map_err(Clone::clone)
    }
}

/// The event patterns a mod's modules hook, each once, in source order (`mods check`'s
/// analysis, SPEC §6).
fn hooked(source: &mods::ModSource) -> Vec<String> {
    let catalogue = events::catalogue();
    let inspection = mods::inspect(source, &|p| catalogue.pattern_is_declared(p));
    let mut out: Vec<String> = Vec::new();
    for m in &inspection.modules {
        for h in &m.hooks {
            if !out.contains(&h.event) {
                out.push(h.event.clone());
            }
        }
    }
    out
}

/// A settings file as a JSON object, or why not (path, line, column). Read as the
/// managed policy is (SPEC §2.1 "Reading never hangs"): a FIFO, a device or a folder is
/// refused by name, never read, and the file is capped at 16 MiB.
fn read_settings(file: &Path) -> Result<Map<String, Value>, PersonInputsError> {
    let bytes =
        policy::json::read_bounded(file).map_err(|reason| PersonInputsError::Unreadable {
            file: file.to_path_buf(),
            reason,
        })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(PersonInputsError::NotAnObject(file.to_path_buf())),
        Err(source) => Err(PersonInputsError::NotJson {
            file: file.to_path_buf(),
            line: source.line(),
            column: source.column(),
            source,
        }),
    }
}

/// Why the person's plugins a command names cannot be read (bad input, exit 2).
#[derive(Debug, thiserror::Error)]
pub enum PersonInputsError {
    /// A `--plugin-dir` that is not a folder.
    #[error("{}: the --plugin-dir given is not a folder", .0.display())]
    NotAFolder(PathBuf),
    /// A `--settings` file that cannot be read (missing, not a regular file, too large).
    #[error("{}: the --settings file cannot be read: {reason}", file.display())]
    Unreadable {
        /// The file.
        file: PathBuf,
        /// Why.
        reason: policy::json::BoundedReadError,
    },
    /// A `--settings` file that is JSON but not an object.
    #[error("{}: the --settings file is not a JSON object", .0.display())]
    NotAnObject(PathBuf),
    /// A `--settings` file that is not JSON.
    #[error("{}:{line}:{column}: the --settings file is not JSON: {source}", file.display())]
    NotJson {
        /// The file.
        file: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's error.
        source: serde_json::Error,
    },
}
