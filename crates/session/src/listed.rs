//! What a session lists: plugins with their registrations made, and modules whose
//! registrations are made only once `plugin.register` admitted them (SPEC §6
//! `register(on, options)` "runs when the module is admitted").

use fnhooks::{Plugin, PluginInfo, Registration};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A module's activation: what runs when `plugin.register` admitted it, at start and at
/// every reload (SPEC §6: a mod's `register(on, options)`; §3.9 reload). Implemented by
/// the mods host; the session knows nothing of JavaScript.
pub trait Activate: Send + Sync + 'static {
    /// Activates the module `info` names afresh (a reload starts from nothing): its
    /// registrations, in order.
    ///
    /// # Errors
    ///
    /// The line that says why it could not activate, naming the module (a `register`
    /// that threw, with the module file and line). The session then treats the module
    /// as refused: `{refuse: line}`, the line on the debug log, nothing seated.
    fn activate(&self, info: &PluginInfo) -> Result<Vec<Registration>, String>;

    /// The oldest crash of the module's worker the session has not taken yet, and why
    /// (SPEC §6 "Limits": the session admits the module again, or unloads a person's
    /// after its third crash). `None` for a module that runs in no worker.
    fn take_crash(&self) -> Option<String> {
        None
    }

    /// The oldest teardown of a worker the module shares with others that another
    /// module's run brought about, not taken yet, and why (SPEC §6 "Workers"): the
    /// session admits the module again and counts no crash against it. `None` for a
    /// module that shares no worker.
    fn take_restart(&self) -> Option<String> {
        None
    }
}

/// A closure activates a module: `|info| Ok(registrations)`.
impl<F> Activate for F
where
    F: Fn(&PluginInfo) -> Result<Vec<Registration>, String> + Send + Sync + 'static,
{
    fn activate(&self, info: &PluginInfo) -> Result<Vec<Registration>, String> {
        self(info)
    }
}

/// How a listed module comes to its registrations.
#[derive(Clone)]
pub(crate) enum Module {
    /// Made when admitted.
    Activate(Arc<dyn Activate>),
    /// It could not be loaded at all (SPEC §6 "A mod": not a mod, a syntax error, past
    /// a cap): never raised at `plugin.register`, refused with this line.
    Unloadable(String),
}

/// One plugin a session lists: a [`Plugin`] with its registrations (a Rust plugin, a
/// scripted one), or a module activated when admitted ([`Listed::module`]), or one that
/// could not be loaded ([`Listed::unloadable`]). A `Vec<Plugin>` lists as it always did.
#[derive(Clone)]
pub struct Listed {
    pub(crate) plugin: Plugin,
    pub(crate) module: Option<Module>,
}

impl Listed {
    /// A module `info` names, whose registrations `activate` makes once `plugin.register`
    /// admitted it (SPEC §6).
    #[must_use]
    pub fn module(info: PluginInfo, activate: Arc<dyn Activate>) -> Self {
        Listed {
            plugin: Plugin::new(info),
            module: Some(Module::Activate(activate)),
        }
    }

    /// A module that could not be loaded (SPEC §6 "A mod"): listed, never asked about
    /// at `plugin.register`, its admission `{refuse: reason}` with `reason` on the debug
    /// log, and the session goes on.
    #[must_use]
    pub fn unloadable(info: PluginInfo, reason: impl Into<String>) -> Self {
        Listed {
            plugin: Plugin::new(info),
            module: Some(Module::Unloadable(reason.into())),
        }
    }
}

impl From<Plugin> for Listed {
    fn from(plugin: Plugin) -> Self {
        Listed {
            plugin,
            module: None,
        }
    }
}

impl Deref for Listed {
    type Target = Plugin;

    fn deref(&self) -> &Plugin {
        &self.plugin
    }
}

impl fmt::Debug for Listed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &self.module {
            None => "plugin",
            Some(Module::Activate(_)) => "module",
            Some(Module::Unloadable(_)) => "unloadable module",
        };
        f.debug_struct("Listed")
            .field("id", &self.plugin.info.id)
            .field("kind", &kind)
            .finish()
    }
}
