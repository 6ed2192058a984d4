#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

use fnhooks::{PluginInfo, Registration};
use loader::{options_for, Found, Inputs, Plan};
use session::Listed;
use std::sync::Arc;

/// A loaded mod as a session lists it ([`session::Activate`]): its registrations made
/// when `plugin.register` admitted it, its worker's crashes and restarts told.
pub struct ModModule(pub mods::ModPlugin);

impl std::fmt::Debug for ModModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModModule")
    }
}

/// SPEC §6: `register(on, options)` runs when the module is admitted.
impl session::Activate for ModModule {
    fn activate(&self, info: &PluginInfo) -> Result<Vec<Registration>, String> {
        self.0.activate(info)
    }

    fn take_crash(&self) -> Option<String> {
        self.0.take_crash()
    }

    fn take_restart(&self) -> Option<String> {
        self.0.take_restart()
    }
}

/// One plugin of a [`Listing`]: what the loader found, and how it loaded.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// What the loader found.
    pub found: Found,
    /// `Ok(())` when its mod loaded (or it holds no hooks module), else why not: its
    /// [`Display`](std::fmt::Display) form is the line naming its folder and the reason
    /// (SPEC §6 "A mod"), as the session will refuse it.
    pub load: Result<(), NotLoaded>,
}

/// Why a found plugin's mod is listed as unloadable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotLoaded {
    /// The loader could not read its copy ([`Found::unreadable`]).
    #[error("{id}: {reason}")]
    Unreadable {
        /// The plugin's id.
        id: String,
        /// The loader's reason.
        reason: String,
    },
    /// Its folder did not load as a mod.
    #[error("{0}")]
    Load(#[from] mods::LoadError),
    /// Its options do not fit its manifest's `userConfig`.
    #[error("{id}: {error} (pluginConfigs[{id:?}])")]
    Options {
        /// The plugin's id (its `pluginConfigs` key).
        id: String,
        /// How they do not fit.
        error: mods::OptionsError,
    },
}

/// What [`list`] makes of a plan: the plugins to list, in chain order, and for each what
/// loaded.
#[derive(Debug)]
pub struct Listing {
    /// In chain order (`prepend`, `user`, `append`), for
    /// [`session::Session::start_listed`].
    pub listed: Vec<Listed>,
    /// One per entry of `listed`, in the same order.
    pub loaded: Vec<Loaded>,
}

/// Loads every plugin of `plan` (SPEC §6): a folder with a hooks module is read and
/// compiled ([`mods::load_folder`]) and configured with its options
/// ([`options_for`]), to run under `host`; a folder without one is listed as a plugin
/// with no hooks. A mod that cannot be loaded or configured is listed with
/// [`Listed::unloadable`] and its line: a person's is refused and the session goes on;
/// an organization's stands at `tool.check` as SPEC §1.8's unchecked deny.
///
/// Blocks while the mods compile (each on a thread of its own with a large stack).
#[must_use]
pub fn list(plan: &Plan, inputs: &Inputs<'_>, host: &mods::HostConfig) -> Listing {
    list_with(plan, inputs, host, &|_, plugin| plugin)
}

/// [`list`], each loaded mod passed through `wrap` before it is listed (to observe its
/// runs, [`mods::ModPlugin::observed`], or seat it in a shared worker).
#[must_use]
pub fn list_with(
    plan: &Plan,
    inputs: &Inputs<'_>,
    host: &mods::HostConfig,
    wrap: &dyn Fn(&Found, mods::ModPlugin) -> mods::ModPlugin,
) -> Listing {
    let mut listing = Listing {
        listed: Vec::new(),
        loaded: Vec::new(),
    };
    for found in &plan.found {
        let info = PluginInfo {
            id: found.id.clone(),
            name: found.name.clone(),
            tier: found.tier,
            worker: None,
            source: Some(found.copy),
        };
        let (listed, load) = match load_one(found, inputs, host) {
            Ok(Some(plugin)) => (
                Listed::module(info, Arc::new(ModModule(wrap(found, plugin)))),
                Ok(()),
            ),
            Ok(None) => (Listed::from(fnhooks::Plugin::new(info)), Ok(())),
            Err(why) => (Listed::unloadable(info, why.to_string()), Err(why)),
        };
        listing.listed.push(listed);
        listing.loaded.push(Loaded {
            found: found.clone(),
            load,
        });
    }
    listing
}

/// The mod of `found`, loaded and configured; `None` for a plugin with no hooks module.
fn load_one(
    found: &Found,
    inputs: &Inputs<'_>,
    host: &mods::HostConfig,
) -> Result<Option<mods::ModPlugin>, NotLoaded> {
    if let Some(why) = &found.unreadable {
        return Err(NotLoaded::Unreadable {
            id: found.id.clone(),
            reason: why.clone(),
        });
    }
    if !found.is_mod {
        return Ok(None);
    }
    let source = mods::load_folder(&found.folder)?;
    let options = options_for(found, inputs);
    mods::ModPlugin::new(source, &options, host.clone())
        .map(Some)
        .map_err(|error| NotLoaded::Options {
            id: found.id.clone(),
            error,
        })
}
