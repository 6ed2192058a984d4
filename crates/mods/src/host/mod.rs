//! One mod's JavaScript runtime (SPEC §6): a QuickJS runtime and context of its own, the
//! bridge's JavaScript half evaluated in it first, the module graph loaded, and
//! `register(on, options)` run. The Rust half of the bridge is here too: it pumps the
//! runtime's jobs, takes the messages the JavaScript half leaves, and routes each to
//! the hook run (the call) it belongs to.
//!
//! Every piece of JavaScript runs on the mod's worker ([`crate::worker`], SPEC §6
//! "Workers"): a pump is a job sent there, and every `next` and `$` call is answered by
//! a Rust future that awaits on the chain's side. A runtime that hit its memory or
//! stack cap, or a job that never came back, tears the worker down: the runs in flight
//! fail with kind `crash`, and so does every later one (SPEC §6 "Limits").
//!
//! Concerns, by file:
//! - this file: [`Host`], one mod's context in its worker's runtime, and its start
//!   ([`Host::start`]: the worker claimed, the context made on it, the bridge installed,
//!   the module graph loaded and `register` run); what a value JavaScript threw says.
//! - `runtime`: a worker's runtime and its limits (memory and stack caps, the garbage
//!   collector's threshold, the interrupt's deadline, the rejection tracker, the module
//!   loader), and the worker several mods share ([`SharedWorker`]).
//! - `bridge`: the bridge's JavaScript half installed in a context, with the host
//!   functions, the `$` calls it may make and the wire's kinds; the Rust half's handle
//!   on it, unsealed for each read.
//! - `graph`: the mod's module graph in the runtime: its imports resolved and loaded,
//!   the hooks module evaluated and `register` run, and the line naming where in the
//!   mod's source a load failed.
//! - `calls`: the hook runs in flight: their mailboxes, the pump that runs the runtime's
//!   jobs and routes what the JavaScript half said to its run, and the matcher's RegExp
//!   tests.
//! - `crash`: caps and teardowns (SPEC §6 "Limits"): which cap an error names, the
//!   worker torn down for every mod in it, and the teardowns the session has not taken.

mod bridge;
mod calls;
mod crash;
mod graph;
mod runtime;

pub(crate) use calls::PumpError;
pub(crate) use crash::CrashLog;
pub use runtime::SharedWorker;

use crate::load::ModSource;
use crate::HostConfig;
use calls::Calls;
use parking_lot::Mutex;
use rquickjs::{Context, Ctx, Value};
use runtime::WorkerRuntime;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A registration as `register` left it.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct RegSpec {
    pub(crate) pattern: String,
    pub(crate) matcher: Option<serde_json::Value>,
    #[serde(rename = "catch")]
    pub(crate) has_catch: bool,
}

/// One mod's runtime, loaded and registered.
pub(crate) struct Host {
    ctx: Context,
    // The worker's runtime outlives the context (declared after it: dropped after it).
    wr: Arc<WorkerRuntime>,
    calls: Arc<Mutex<Calls>>,
    source: Arc<ModSource>,
    crashes: Arc<CrashLog>,
    crash_told: AtomicBool,
    /// Set by the Rust half just before it reads the bridge off the global object; the
    /// bridge's getter answers once and clears it ([`Host::bridge`]).
    unseal: Arc<AtomicBool>,
    pub(crate) config: HostConfig,
}

impl Drop for Host {
    fn drop(&mut self) {
        self.wr
            .sources
            .lock()
            .remove(&self.ctx.as_raw().as_ptr().addr());
    }
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("root", &self.source.root)
            .finish_non_exhaustive()
    }
}

/// Why a mod's runtime could not be started and its `register(on, options)` run: the
/// one line the session writes, naming the module file and, where known, the line in
/// its source (SPEC §6).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum StartError {
    /// The shared worker runs the other side's mods.
    #[error("{0}")]
    Side(#[from] runtime::SideRefused),
    /// The worker's runtime could not be had.
    #[error("{0}")]
    Runtime(#[from] runtime::RuntimeError),
    /// The worker did not run the load (it was torn down, or the load ran past its
    /// time).
    #[error("hooks module {entry}: did not load: {why}")]
    DidNotLoad {
        /// The hooks module's key.
        entry: String,
        /// Why the worker did not answer.
        why: String,
    },
    /// QuickJS refused to make the mod's context.
    #[error("the JavaScript engine did not start: {reason}")]
    Context {
        /// The hooks module's key.
        entry: String,
        /// The engine's reason.
        reason: String,
    },
    /// The bridge's JavaScript half did not install.
    #[error("the mod host did not start: {0}")]
    Install(#[from] bridge::InstallError),
    /// The module graph's evaluation or `register` failed.
    #[error("{0}")]
    Load(#[from] graph::LoadFailure),
}

impl Host {
    /// Starts a runtime for `source` and runs its hooks module and `register(on,
    /// options)`: the registrations it made.
    ///
    /// # Errors
    ///
    /// Why the module could not be activated, as one line naming the module file and,
    /// where known, the line in its source (SPEC §6).
    ///
    /// `shared`: the worker it runs in with other mods (claimed for `tier`'s side); a
    /// worker of its own when `None`.
    pub(crate) fn start(
        source: Arc<ModSource>,
        plugin_name: &str,
        tier: fnhooks::Tier,
        options: &serde_json::Value,
        config: HostConfig,
        crashes: Arc<CrashLog>,
        shared: Option<&SharedWorker>,
    ) -> Result<(Arc<Host>, Vec<RegSpec>), StartError> {
        let wr = match shared {
            Some(w) => {
                w.claim(tier, plugin_name)?;
                w.runtime(&config)?
            }
            None => WorkerRuntime::start(plugin_name, &config)?,
        };
        // The context is made on the worker: another mod's job may hold the runtime.
        let rt = wr.rt.clone();
        let ctx = wr
            .worker
            .run_blocking(config.hook_timeout, move || Context::full(&rt))
            .map_err(|why| StartError::DidNotLoad {
                entry: source.entry.clone(),
                why: why.to_string(),
            })?
            .map_err(|e| StartError::Context {
                entry: source.entry.clone(),
                reason: e.to_string(),
            })?;
        wr.sources
            .lock()
            .insert(ctx.as_raw().as_ptr().addr(), Arc::clone(&source));
        let host = Arc::new(Host {
            ctx,
            wr: Arc::clone(&wr),
            calls: Arc::new(Mutex::new(Calls::default())),
            source,
            crashes,
            crash_told: AtomicBool::new(false),
            unseal: Arc::new(AtomicBool::new(false)),
            config,
        });
        {
            let mut members = wr.members.lock();
            members.retain(|m| m.strong_count() > 0);
            members.push(Arc::downgrade(&host));
        }
        // Top-level code and `register` run on the worker, under the hook timeout (and
        // the watchdog past it: a module stuck in native code at load is torn down).
        let h = Arc::clone(&host);
        let (name, options) = (plugin_name.to_owned(), options.clone());
        let within = host.config.hook_timeout;
        let regs = wr
            .worker
            .run_blocking(within, move || {
                h.install(&name)?;
                h.load_and_register(&options).map_err(StartError::from)
            })
            .map_err(|why| StartError::DidNotLoad {
                entry: host.source.entry.clone(),
                why: why.to_string(),
            })??;
        Ok((host, regs))
    }

    /// The JavaScript engine's own count of the memory it holds, in bytes (0 when the
    /// worker is dead).
    pub(crate) fn memory_used(self: &Arc<Self>) -> i64 {
        let host = Arc::clone(self);
        self.wr
            .worker
            .run_blocking(self.config.hook_timeout, move || {
                host.wr.rt.memory_usage().memory_used_size
            })
            .unwrap_or(0)
    }
}

/// The thrown value of an exception error.
fn caught_value<'js>(ctx: &Ctx<'js>, e: &rquickjs::Error) -> Value<'js> {
    if e.is_exception() {
        ctx.catch()
    } else {
        rquickjs::String::from_str(ctx.clone(), &e.to_string())
            .map_or_else(|_| Value::new_undefined(ctx.clone()), |s| s.into_value())
    }
}

/// `(message, stack)` of an error a call into JavaScript returned.
pub(crate) fn caught(ctx: &Ctx<'_>, e: &rquickjs::Error) -> (String, String) {
    describe(&caught_value(ctx, e))
}

/// `(message, stack)` of a thrown value: `Name: message` for an error object.
fn describe(v: &Value<'_>) -> (String, String) {
    if let Some(o) = v.as_object() {
        let name: String = o.get("name").unwrap_or_else(|_| "Error".to_owned());
        let message: Option<String> = o.get("message").ok();
        let stack: String = o.get("stack").unwrap_or_default();
        if let Some(m) = message {
            return (format!("{name}: {m}"), stack);
        }
    }
    if let Some(s) = v.as_string().and_then(|s| s.to_string().ok()) {
        return (s, String::new());
    }
    if v.is_undefined() {
        return ("undefined".to_owned(), String::new());
    }
    (format!("{v:?}"), String::new())
}
