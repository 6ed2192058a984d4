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

use crate::load::{ModSource, Module as Source};
use crate::translate;
use crate::wire::{self, Msg, Outbox, ANSWERED_OPS};
use crate::worker::Worker;
use crate::HostConfig;
use fnhooks::Next;
use parking_lot::Mutex;
use rquickjs::loader::{Loader, Resolver};
use rquickjs::promise::PromiseState;
use rquickjs::{Array, Context, Ctx, Function, Module, Object, Promise, Runtime, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::task::Waker;
use std::time::{Duration, Instant};

/// The global the bridge's JavaScript half is kept under: a getter that answers it only
/// while the Rust half has unsealed it for its own read ([`Host::bridge`]); a mod reads
/// `undefined` there, and can neither replace nor delete it.
const BRIDGE_GLOBAL: &str = "__secDefaultBridge";

/// The deadline of forgetting a run dropped halfway.
const CLOSE_BUDGET: Duration = Duration::from_millis(100);

/// Allocated bytes past which the runtime collects garbage.
const GC_THRESHOLD: usize = 4 * 1024 * 1024;

/// The bridge's JavaScript half.
pub(crate) const BRIDGE_JS: &str = include_str!("js/bridge.js");

#[derive(Default)]
struct Mailbox {
    msgs: Vec<Msg>,
    waker: Option<Waker>,
    /// The highest request number the run has sent: each new one must be above it.
    last_req: u32,
}

/// The hook runs in flight: their mailboxes, and their `next` (for `next.trace` and
/// `next.origin`, which the JavaScript half reads lazily through the host functions).
#[derive(Default)]
pub(crate) struct Calls {
    last: u32,
    mail: HashMap<u32, Mailbox>,
    nexts: HashMap<u32, (Next, Arc<str>)>,
}

/// A deadline the interrupt handler checks: nanoseconds after `epoch`, 0 for none.
struct Deadline {
    epoch: Instant,
    at: AtomicU64,
    fired: AtomicBool,
    /// The worker was torn down: whatever still runs stops at the next poll.
    dead: Arc<AtomicBool>,
}

impl Deadline {
    fn set(&self, within: Duration) {
        let at = self.epoch.elapsed().saturating_add(within);
        let nanos = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.fired.store(false, Ordering::Relaxed);
        self.at.store(nanos, Ordering::Relaxed);
    }

    fn clear(&self) {
        self.at.store(0, Ordering::Relaxed);
    }

    /// The interrupt handler: whether the running code must stop now.
    fn passed(&self) -> bool {
        if self.dead.load(Ordering::Relaxed) {
            self.fired.store(true, Ordering::Relaxed);
            return true;
        }
        let at = self.at.load(Ordering::Relaxed);
        if at == 0 {
            return false;
        }
        let now = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let passed = now >= at;
        if passed {
            self.fired.store(true, Ordering::Relaxed);
        }
        passed
    }
}

/// Why a pump (or the load) stopped short.
#[derive(Debug)]
pub(crate) enum PumpError {
    /// The deadline passed while JavaScript ran: interrupted.
    Timeout,
    /// JavaScript threw where the bridge does not expect it.
    Js(String),
    /// The worker was torn down (SPEC §6 "Limits"): why.
    Crash(String),
}

/// The engine's own errors when a runtime hits its caps (QuickJS): a hook that meets
/// one uncaught crashes its worker (SPEC §6 "Limits").
const CAP_ERRORS: [(&str, &str); 3] = [
    ("InternalError: out of memory", "memory"),
    ("RangeError: Maximum call stack size exceeded", "stack"),
    // The regular-expression compiler's own stack check.
    ("SyntaxError: stack overflow", "stack"),
];

/// Which cap a thrown message says the runtime hit.
fn cap_hit(message: &str) -> Option<&'static str> {
    CAP_ERRORS
        .iter()
        .find(|(m, _)| {
            message
                .strip_prefix(m)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        })
        .map(|(_, cap)| *cap)
}

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

/// The teardowns of a mod's workers not yet taken by the session (SPEC §6 "Limits":
/// the session restarts the worker and admits the mod again, or unloads it).
#[derive(Debug, Default)]
pub(crate) struct CrashLog {
    any: AtomicBool,
    /// The teardowns this mod's own runs brought about: why.
    own: Mutex<Vec<String>>,
    /// The teardowns of a worker it shares, another mod's run the cause: why.
    shared: Mutex<Vec<String>>,
}

impl CrashLog {
    fn push(&self, why: String, own: bool) {
        if own {
            self.own.lock().push(why);
        } else {
            self.shared.lock().push(why);
        }
        self.any.store(true, Ordering::Release);
    }

    /// The oldest teardown not taken yet that this mod's run brought about (`own`), or
    /// that another mod's in its worker did: why.
    pub(crate) fn take(&self, own: bool) -> Option<String> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        let first = {
            let mut p = if own {
                self.own.lock()
            } else {
                self.shared.lock()
            };
            (!p.is_empty()).then(|| p.remove(0))
        };
        if self.own.lock().is_empty() && self.shared.lock().is_empty() {
            self.any.store(false, Ordering::Release);
        }
        first
    }
}

/// A worker several mods share (SPEC §6 "Workers" **\[decision\]**: each mod runs in a
/// worker of its own unless the session puts several in one): one JavaScript runtime on
/// one thread, each mod in a context of its own within it, the caps the runtime's (the
/// first mod's [`HostConfig`] sets them). Adjacent links of mods that share a worker
/// form a batch (SPEC §1.1; [`fnhooks::PluginInfo::worker`] names it).
///
/// A teardown tears down every mod in it (their runs in flight fail with kind `crash`);
/// each is started afresh in a fresh worker when admitted again, and only the mod whose
/// run brought the teardown about counts a crash. A worker is either a person's or the
/// organization's: a mod of the other side is refused when it is activated in it.
/// Cheap to clone (shared).
#[derive(Clone)]
pub struct SharedWorker {
    name: Arc<str>,
    live: Arc<Mutex<Option<Arc<WorkerRuntime>>>>,
    side: Arc<Mutex<Option<Side>>>,
}

/// Whose a worker is: a person's (`user`) or the organization's (`prepend`, `append`, and the
/// engine's `builtin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Person,
    Organization,
}

impl Side {
    fn of(tier: fnhooks::Tier) -> Side {
        if tier == fnhooks::Tier::User {
            Side::Person
        } else {
            Side::Organization
        }
    }
}

impl std::fmt::Debug for SharedWorker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedWorker")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl SharedWorker {
    /// A worker named `name` (what [`fnhooks::PluginInfo::worker`] says), started when
    /// its first mod is activated.
    #[must_use]
    pub fn new(name: &str) -> Self {
        SharedWorker {
            name: Arc::from(name),
            live: Arc::default(),
            side: Arc::default(),
        }
    }

    /// Its name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Claims the worker for `tier`'s side.
    fn claim(&self, tier: fnhooks::Tier, mod_name: &str) -> Result<(), String> {
        let side = Side::of(tier);
        let mut s = self.side.lock();
        match *s {
            None => {
                *s = Some(side);
                Ok(())
            }
            Some(had) if had == side => Ok(()),
            Some(had) => Err(format!(
                "{mod_name} ({}) may not run in worker {:?}, which runs {}: a worker shared by a person's mod and an organization's is refused (SPEC §6 Workers)",
                if side == Side::Person { "a person's mod" } else { "an organization's mod" },
                self.name,
                if had == Side::Person { "a person's mods" } else { "the organization's mods" },
            )),
        }
    }

    /// The live runtime, or a fresh one when there is none or it was torn down.
    fn runtime(&self, config: &HostConfig) -> Result<Arc<WorkerRuntime>, String> {
        let mut live = self.live.lock();
        if let Some(wr) = live.as_ref().filter(|wr| !wr.worker.is_dead()) {
            return Ok(Arc::clone(wr));
        }
        let wr = WorkerRuntime::start(&self.name, config)?;
        *live = Some(Arc::clone(&wr));
        Ok(wr)
    }
}

/// One worker's runtime (SPEC §6 "Workers": one JavaScript runtime on a thread of its
/// own) and the mods whose contexts it holds.
pub(crate) struct WorkerRuntime {
    worker: Arc<Worker>,
    rt: Runtime,
    deadline: Arc<Deadline>,
    /// Each context's mod, by the context's address (what the module loader resolves
    /// by).
    sources: Arc<Mutex<HashMap<usize, Arc<ModSource>>>>,
    members: Mutex<Vec<Weak<Host>>>,
}

impl WorkerRuntime {
    /// A runtime with the caps of `config`, on a worker thread named `name`.
    fn start(name: &str, config: &HostConfig) -> Result<Arc<WorkerRuntime>, String> {
        let worker = Arc::new(Worker::spawn(name)?);
        let rt = Runtime::new().map_err(|e| format!("the JavaScript engine did not start: {e}"))?;
        rt.set_memory_limit(config.memory_limit);
        rt.set_max_stack_size(config.stack_limit);
        // A hook run leaves a few KiB of garbage: collect past 4 MiB, not QuickJS's
        // 256 KiB, so that a collection (which walks the whole heap) runs a sixteenth as
        // often.
        rt.set_gc_threshold(GC_THRESHOLD);
        let deadline = Arc::new(Deadline {
            epoch: Instant::now(),
            at: AtomicU64::new(0),
            fired: AtomicBool::new(false),
            dead: worker.dead_flag(),
        });
        let d = Arc::clone(&deadline);
        rt.set_interrupt_handler(Some(Box::new(move || d.passed())));
        // A rejection nobody handles is a catch too (SPEC §6 "Limits").
        rt.set_host_promise_rejection_tracker(Some(Box::new(|ctx, _promise, reason, handled| {
            if !handled {
                if let Ok(note) = ctx
                    .globals()
                    .get::<_, Function>(crate::load::caught::CAUGHT_HOOK)
                {
                    let _ = note.call::<_, Value>((reason,));
                }
            }
        })));
        let sources: Arc<Mutex<HashMap<usize, Arc<ModSource>>>> = Arc::default();
        rt.set_loader(
            GraphResolver(Arc::clone(&sources)),
            GraphLoader(Arc::clone(&sources)),
        );
        Ok(Arc::new(WorkerRuntime {
            worker,
            rt,
            deadline,
            sources,
            members: Mutex::new(Vec::new()),
        }))
    }

    /// Tears the worker down for every mod in it: `culprit` is the mod whose run
    /// brought it about, if any (it counts a crash; the others only start afresh).
    fn teardown(&self, why: String, culprit: Option<&Host>, mine: bool) {
        let first = self.worker.kill(why) || mine;
        let why = self.worker.dead().unwrap_or_default();
        let members: Vec<Arc<Host>> = self
            .members
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for m in &members {
            let own = first && culprit.is_some_and(|c| std::ptr::eq(c, Arc::as_ptr(m)));
            m.told_crash(&why, own);
        }
        // A host not listed yet (still starting) or already gone is told by itself.
        if let Some(c) = culprit {
            if !members.iter().any(|m| std::ptr::eq(c, Arc::as_ptr(m))) {
                c.told_crash(&why, first);
            }
        }
    }
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

/// Resolves import specifiers by the graph the loader resolved (SPEC §6: relative
/// imports inside the plugin folder, `claude-code`); nothing else loads.
/// The contexts of one runtime each resolve by their own mod's graph: found by the
/// context's address.
struct GraphResolver(Arc<Mutex<HashMap<usize, Arc<ModSource>>>>);

const ENGINE_MODULE: &str = "claude-code";

fn source_of(
    sources: &Mutex<HashMap<usize, Arc<ModSource>>>,
    ctx: &Ctx<'_>,
) -> Option<Arc<ModSource>> {
    sources.lock().get(&ctx.as_raw().as_ptr().addr()).cloned()
}

impl Resolver for GraphResolver {
    fn resolve<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        let source = source_of(&self.0, ctx);
        match source
            .as_ref()
            .and_then(|s| s.modules.get(base))
            .and_then(|m| m.imports.get(name))
        {
            Some(crate::load::Import::Module(key)) => Ok(key.clone()),
            Some(crate::load::Import::Engine) => Ok(ENGINE_MODULE.to_owned()),
            None => Err(rquickjs::Error::new_resolving(base, name)),
        }
    }
}

struct GraphLoader(Arc<Mutex<HashMap<usize, Arc<ModSource>>>>);

impl Loader for GraphLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, rquickjs::module::Declared>> {
        if name == ENGINE_MODULE {
            return Module::declare(ctx.clone(), name, "");
        }
        let source = source_of(&self.0, ctx);
        match source.as_ref().and_then(|s| s.modules.get(name)) {
            Some(m) => Module::declare(ctx.clone(), name, m.js.as_str()),
            None => Err(rquickjs::Error::new_loading(name)),
        }
    }
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
    ) -> Result<(Arc<Host>, Vec<RegSpec>), String> {
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
            .map_err(|why| format!("hooks module {}: did not load: {why}", source.entry))?
            .map_err(|e| format!("the JavaScript engine did not start: {e}"))?;
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
                h.install(&name)
                    .map_err(|e| format!("the mod host did not start: {e}"))?;
                h.load_and_register(&options)
            })
            .map_err(|why| format!("hooks module {}: did not load: {why}", host.source.entry))??;
        Ok((host, regs))
    }

    /// Evaluates the bridge's JavaScript half with the host functions.
    fn install(&self, plugin_name: &str) -> Result<(), String> {
        let calls_o = Arc::clone(&self.calls);
        let calls_t = Arc::clone(&self.calls);
        let epoch = self.wr.deadline.epoch;
        let root = self.source.root.to_string_lossy().into_owned();
        let extra: Vec<String> = ANSWERED_OPS
            .iter()
            .map(|s| (*s).to_owned())
            .chain(self.config.extra_ops.iter().cloned())
            .collect();
        self.ctx.with(|ctx| -> Result<(), String> {
            let js = |e: rquickjs::Error| caught(&ctx, &e).0;
            let make: Function = ctx.eval(BRIDGE_JS).map_err(js)?;
            let host = Object::new(ctx.clone()).map_err(js)?;
            host.set(
                "now",
                Function::new(ctx.clone(), move || epoch.elapsed().as_secs_f64() * 1000.0)
                    .map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "random",
                Function::new(ctx.clone(), |n: usize| random_bytes(n.min(65536))).map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "url",
                Function::new(ctx.clone(), |input: String, base: String| {
                    translate::url_parts(&input, &base)
                })
                .map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "origin",
                Function::new(ctx.clone(), move |id: u32| {
                    let calls = calls_o.lock();
                    calls.nexts.get(&id).map_or_else(
                        || "null".to_owned(),
                        |(n, _)| translate::origin_to_mod(n.origin()),
                    )
                })
                .map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "trace",
                Function::new(ctx.clone(), move |id: u32| {
                    let next = calls_t.lock().nexts.get(&id).cloned();
                    next.map_or_else(
                        || "[]".to_owned(),
                        |(n, event)| translate::trace_to_mod(&event, &n.trace()),
                    )
                })
                .map_err(js)?,
            )
            .map_err(js)?;
            host.set("caughtHook", crate::load::caught::CAUGHT_HOOK)
                .map_err(js)?;
            host.set("capTake", crate::load::caught::CAP_TAKE)
                .map_err(js)?;
            host.set("pluginName", plugin_name).map_err(js)?;
            host.set("pluginRoot", root).map_err(js)?;
            let unseal = Arc::clone(&self.unseal);
            host.set(
                "unsealed",
                Function::new(ctx.clone(), move || unseal.swap(false, Ordering::AcqRel))
                    .map_err(js)?,
            )
            .map_err(js)?;
            host.set("bridgeGlobal", BRIDGE_GLOBAL).map_err(js)?;
            let kinds = wire::kinds_for_js(&ctx).map_err(js)?;
            let _: Object = make.call((host, extra, kinds)).map_err(js)?;
            Ok(())
        })
    }

    /// Evaluates the module graph and runs `register`: under the hook timeout, as a
    /// hook (SPEC §6 "top-level code that never ends").
    fn load_and_register(&self, options: &serde_json::Value) -> Result<Vec<RegSpec>, String> {
        let entry = self.source.entry.clone();
        let timeout = self.config.hook_timeout;
        let options = options.to_string();
        self.wr.deadline.set(timeout);
        let out = self.ctx.with(|ctx| -> Result<String, String> {
            let module = Module::declare(ctx.clone(), entry.as_str(), self.entry_js())
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let (module, promise) = module
                .eval()
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            self.settle_promise(&ctx, &promise, "did not load")?;
            let ns = module
                .namespace()
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let register: Value = ns
                .get("register")
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let bridge = self
                .bridge(&ctx)
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let run: Function = bridge
                .get("register")
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let promise: Promise = run
                .call((register, options))
                .map_err(|e| self.failure(&ctx, &e, "register threw"))?;
            self.settle_promise(&ctx, &promise, "register threw")?;
            let take: Function = bridge
                .get("take")
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let outbox: Array = take
                .call(())
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let read = wire::read_outbox(&outbox, &|name| self.answers(name)).map_err(|why| {
                format!(
                    "hooks module {}: did not load: the bridge was tampered with: {why}",
                    self.source.entry
                )
            })?;
            if let Some(cap) = read.cap {
                return Err(format!(
                    "hooks module {}: did not load: the runtime hit its {cap} cap of {} while it loaded",
                    self.source.entry,
                    mib(self.cap_size(cap))
                ));
            }
            promise
                .result::<String>()
                .unwrap_or(Ok(String::new()))
                .map_err(|e| self.failure(&ctx, &e, "register threw"))
        });
        self.wr.deadline.clear();
        let text = out?;
        serde_json::from_str(&text).map_err(|e| format!("{}: the registrations: {e}", entry))
    }

    fn entry_js(&self) -> &str {
        self.source
            .modules
            .get(&self.source.entry)
            .map_or("", |m| m.js.as_str())
    }

    /// Runs jobs until `promise` settles; its rejection (or the deadline) as the line.
    fn settle_promise<'js>(
        &self,
        ctx: &Ctx<'js>,
        promise: &Promise<'js>,
        what: &str,
    ) -> Result<(), String> {
        loop {
            match promise.state() {
                PromiseState::Resolved => return Ok(()),
                PromiseState::Rejected if self.wr.deadline.fired.load(Ordering::Relaxed) => {
                    return Err(self.timeout_line(what));
                }
                PromiseState::Rejected => {
                    let reason: Value =
                        promise.result::<Value>().and_then(Result::err).map_or_else(
                            || Value::new_undefined(ctx.clone()),
                            |e| caught_value(ctx, &e),
                        );
                    let (message, stack) = describe(&reason);
                    return Err(self.line(what, &message, &stack));
                }
                PromiseState::Pending => {}
            }
            if self.wr.deadline.fired.load(Ordering::Relaxed) || self.wr.deadline.passed() {
                return Err(self.timeout_line(what));
            }
            if !ctx.execute_pending_job() {
                if self.wr.deadline.fired.load(Ordering::Relaxed) {
                    return Err(self.timeout_line(what));
                }
                return Err(self.line(
                    what,
                    "its promise never settles (it awaits something nothing resolves)",
                    "",
                ));
            }
        }
    }

    fn timeout_line(&self, what: &str) -> String {
        let msg = format!(
            "ran past the hook timeout of {} ms",
            self.config.hook_timeout.as_millis()
        );
        format!("hooks module {}: {what}: {msg}", self.source.entry)
    }

    /// The line for an exception thrown at load.
    fn failure(&self, ctx: &Ctx<'_>, e: &rquickjs::Error, what: &str) -> String {
        if self.wr.deadline.fired.load(Ordering::Relaxed) {
            return self.timeout_line(what);
        }
        let (message, stack) = caught(ctx, e);
        self.line(what, &message, &stack)
    }

    /// `hooks module <file>: <what>: <message> (<file>:<line>)`, the place mapped to the
    /// source file (SPEC §6: "naming the module file and the line in its source").
    fn line(&self, what: &str, message: &str, stack: &str) -> String {
        let place = self.place(stack);
        let place = place.map(|p| format!(" ({p})")).unwrap_or_default();
        format!(
            "hooks module {}: {what}: {message}{place}",
            self.source.entry
        )
    }

    /// The first place of the graph's modules a stack names, mapped to its source:
    /// `hooks/register.ts:12:5`.
    pub(crate) fn place(&self, stack: &str) -> Option<String> {
        for line in stack.lines() {
            for (key, module) in &self.source.modules {
                if let Some(at) = line.find(key.as_str()) {
                    let rest = line.get(at + key.len()..).unwrap_or("");
                    let nums: Vec<u32> = rest
                        .trim_start_matches(':')
                        .split(|c: char| !c.is_ascii_digit())
                        .take(2)
                        .filter_map(|s| s.parse().ok())
                        .collect();
                    let (l, c) = match nums.as_slice() {
                        [l, c, ..] => (*l, *c),
                        [l] => (*l, 1),
                        _ => continue,
                    };
                    return Some(source_place(key, module, l, c));
                }
            }
        }
        None
    }

    /// Opens a hook run: its id, its mailbox, its `next`.
    pub(crate) fn open_call(&self, next: Next, event: Arc<str>) -> u32 {
        let mut calls = self.calls.lock();
        calls.last = calls.last.wrapping_add(1).max(1);
        let id = calls.last;
        calls.mail.insert(id, Mailbox::default());
        calls.nexts.insert(id, (next, event));
        id
    }

    /// Closes a hook run (answered, failed, or dropped halfway): its promises in the
    /// JavaScript half are forgotten, its mail dropped.
    pub(crate) fn close_call(self: &Arc<Self>, id: u32, in_js: bool) {
        {
            let mut calls = self.calls.lock();
            calls.mail.remove(&id);
            calls.nexts.remove(&id);
        }
        if !in_js || self.wr.worker.is_dead() {
            return;
        }
        let host = Arc::clone(self);
        self.wr.worker.post(move || {
            // Never into JavaScript without a deadline: the mod may have replaced what
            // the bridge calls.
            host.wr
                .deadline
                .set(host.config.hook_timeout.min(CLOSE_BUDGET));
            host.ctx.with(|ctx| {
                if let Ok(f) = host
                    .bridge(&ctx)
                    .and_then(|b| b.get::<_, Function>("forget"))
                {
                    let _ = f.call::<_, Value>((id,));
                }
            });
            host.wr.deadline.clear();
            host.wr.deadline.fired.store(false, Ordering::Relaxed);
        });
    }

    /// Takes the mail of hook run `id`.
    pub(crate) fn take_mail(&self, id: u32) -> Vec<Msg> {
        self.calls
            .lock()
            .mail
            .get_mut(&id)
            .map(|m| std::mem::take(&mut m.msgs))
            .unwrap_or_default()
    }

    /// Whether run `id` has mail; if not, `waker` is woken when some arrives.
    pub(crate) fn has_mail_or_park(&self, id: u32, waker: &Waker) -> bool {
        let mut calls = self.calls.lock();
        match calls.mail.get_mut(&id) {
            Some(m) if !m.msgs.is_empty() => true,
            Some(m) => {
                m.waker = Some(waker.clone());
                false
            }
            None => true,
        }
    }

    /// Why the worker was torn down, if it was.
    pub(crate) fn crashed(&self) -> Option<String> {
        self.wr.worker.dead()
    }

    /// Tears the worker down (SPEC §6 "Limits"), this mod's run the cause: every run in
    /// flight, of every mod in the worker, is told, and fails with kind `crash`.
    fn crash(&self, why: String) {
        self.wr.teardown(why, Some(self), false);
    }

    /// A job of this mod's did not come back: the worker is torn down (by this mod's
    /// run when its own watchdog fired).
    fn crash_down(&self, down: crate::worker::Down) -> String {
        self.wr.teardown(down.why.clone(), Some(self), down.mine);
        self.wr.worker.dead().unwrap_or(down.why)
    }

    /// The worker was torn down (`own`: by this mod's run): the runs in flight fail.
    fn told_crash(&self, why: &str, own: bool) {
        let why = why.to_owned();
        // Told once a teardown, whoever saw it first (a pump, the watchdog, a matcher).
        if !self.crash_told.swap(true, Ordering::AcqRel) {
            self.crashes.push(why.clone(), own);
        }
        let mut wake = Vec::new();
        {
            let mut calls = self.calls.lock();
            for m in calls.mail.values_mut() {
                m.msgs.push(Msg::Crashed(why.clone()));
                wake.extend(m.waker.take());
            }
        }
        for w in wake {
            w.wake();
        }
    }

    /// [`Host::pump_here`] on the worker: `used` is the hook's own time so far; what
    /// comes back is its own time after, and how the pump went. A pump that does not
    /// come back within the time left plus the grace tears the worker down.
    pub(crate) fn pump(
        self: &Arc<Self>,
        used: Duration,
        enter: impl FnOnce(&Ctx<'_>, &Object<'_>) -> rquickjs::Result<()> + Send + 'static,
    ) -> impl std::future::Future<Output = (Duration, Result<(), PumpError>)> + Send + 'static {
        let host = Arc::clone(self);
        let left = self.config.hook_timeout.saturating_sub(used);
        let job = self.wr.worker.run(left, move || {
            let mut used = used;
            let out = host.pump_here(&mut used, enter);
            (used, out)
        });
        let host = Arc::clone(self);
        async move {
            match job.await {
                Ok(done) => done,
                Err(down) => {
                    let why = host.crash_down(down);
                    (used.saturating_add(left), Err(PumpError::Crash(why)))
                }
            }
        }
    }

    /// Runs `enter` in the runtime for run `id`, then every pending job, then routes
    /// what the JavaScript half said to the runs it belongs to. The deadline is `left`
    /// from now; the time spent is added to `used`. Runs on the worker's thread.
    fn pump_here(
        &self,
        used: &mut Duration,
        enter: impl FnOnce(&Ctx<'_>, &Object<'_>) -> rquickjs::Result<()>,
    ) -> Result<(), PumpError> {
        let left = self.config.hook_timeout.saturating_sub(*used);
        let began = Instant::now();
        self.wr.deadline.set(left);
        let out = self
            .ctx
            .with(|ctx| -> Result<Result<Outbox, String>, PumpError> {
                let bridge = self
                    .bridge(&ctx)
                    .map_err(|e| PumpError::Js(caught(&ctx, &e).0))?;
                if let Err(e) = enter(&ctx, &bridge) {
                    if !self.wr.deadline.fired.load(Ordering::Relaxed) {
                        return Err(PumpError::Js(caught(&ctx, &e).0));
                    }
                }
                loop {
                    if self.wr.deadline.fired.load(Ordering::Relaxed) || !ctx.execute_pending_job()
                    {
                        break;
                    }
                }
                let take: Function = bridge
                    .get("take")
                    .map_err(|e| PumpError::Js(caught(&ctx, &e).0))?;
                let out: Array = take
                    .call(())
                    .map_err(|e| PumpError::Js(caught(&ctx, &e).0))?;
                Ok(wire::read_outbox(&out, &|name| self.answers(name)))
            });
        self.wr.deadline.clear();
        *used += began.elapsed();
        let fired = self.wr.deadline.fired.swap(false, Ordering::Relaxed);
        let read = match out {
            Err(PumpError::Js(m)) => match cap_hit(&m) {
                Some(cap) => {
                    let why = self.cap_line(cap);
                    self.crash(why.clone());
                    return Err(PumpError::Crash(why));
                }
                None => return Err(PumpError::Js(m)),
            },
            other => other?,
        };
        let Outbox { msgs, cap: caught } = match read {
            Ok(read) => read,
            Err(why) => return Err(self.tampered(&why)),
        };
        let cap = caught.or_else(|| {
            msgs.iter().find_map(|(_, m)| match m {
                Msg::Threw { message, .. } => cap_hit(message),
                _ => None,
            })
        });
        if let Some(cap) = cap {
            let why = self.cap_line(cap);
            self.crash(why.clone());
            return Err(PumpError::Crash(why));
        }
        if let Err(why) = self.route(msgs) {
            return Err(self.tampered(&why));
        }
        if fired {
            return Err(PumpError::Timeout);
        }
        Ok(())
    }

    /// The bridge's JavaScript half, read off the global object: unsealed for this one
    /// read (the mod, reading the same global, gets `undefined`).
    fn bridge<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
        self.unseal.store(true, Ordering::Release);
        let bridge = ctx.globals().get(BRIDGE_GLOBAL);
        self.unseal.store(false, Ordering::Release);
        bridge
    }

    /// `its worker was torn down: the runtime hit its memory cap of 256 MiB`.
    fn cap_line(&self, cap: &str) -> String {
        format!(
            "its worker was torn down: the runtime hit its {cap} cap of {}",
            mib(self.cap_size(cap))
        )
    }

    /// The size of cap `cap` (`memory` or `stack`), in bytes.
    fn cap_size(&self, cap: &str) -> usize {
        if cap == "memory" {
            self.config.memory_limit
        } else {
            self.config.stack_limit
        }
    }

    /// The worker is torn down: the JavaScript half sent what the honest bridge never
    /// sends (SPEC §6 "Sandbox"). Every run in flight fails with kind `crash`; nothing
    /// it asked for is raised.
    fn tampered(&self, why: &str) -> PumpError {
        self.torn_down(format!(
            "its worker was torn down: the mod tampered with the bridge ({why})"
        ))
    }

    /// Tears the worker down for `why` (this mod's run the cause): every run in flight
    /// fails with kind `crash`.
    pub(crate) fn torn_down(&self, why: String) -> PumpError {
        self.crash(why.clone());
        PumpError::Crash(why)
    }

    /// Whether the session answers a `$` call of this name (SPEC §6 `$`), or the
    /// embedding program declared it.
    pub(crate) fn answers(&self, name: &str) -> bool {
        ANSWERED_OPS.contains(&name) || self.config.extra_ops.iter().any(|o| o == name)
    }

    /// Hands each message to the run it names. A run's requests must come numbered above
    /// every request it sent before.
    ///
    /// # Errors
    ///
    /// Why the messages cannot have come from the honest bridge; none is routed then.
    fn route(&self, msgs: Vec<(u32, Msg)>) -> Result<(), String> {
        if msgs.is_empty() {
            return Ok(());
        }
        let mut wake = Vec::new();
        {
            let mut calls = self.calls.lock();
            for (id, msg) in &msgs {
                if let (Some(m), Some(req)) = (calls.mail.get_mut(id), msg.request()) {
                    wire::in_order(&mut m.last_req, req)?;
                }
            }
            for (id, msg) in msgs {
                if let Some(m) = calls.mail.get_mut(&id) {
                    m.msgs.push(msg);
                    if let Some(w) = m.waker.take() {
                        wake.push(w);
                    }
                }
            }
        }
        for w in wake {
            w.wake();
        }
        Ok(())
    }

    /// Runs `judge` with a tester of the registrations' RegExps (SPEC §6 matcher): one
    /// deadline, the hook timeout, for the whole matcher of one event; past it every test
    /// says "no match".
    ///
    /// Each test runs on the worker (the caller blocks: a matcher is judged before the
    /// hook runs), with what is left of the deadline.
    pub(crate) fn with_regexps<R>(
        self: &Arc<Self>,
        judge: impl FnOnce(&dyn Fn(u32, &str) -> bool) -> R,
    ) -> R {
        let began = Instant::now();
        let budget = self.config.hook_timeout;
        let test = |i: u32, s: &str| {
            let left = budget.saturating_sub(began.elapsed());
            if left.is_zero() {
                return false;
            }
            let host = Arc::clone(self);
            let s = s.to_owned();
            match self
                .wr
                .worker
                .run_blocking(left, move || host.test_regexp(left, i, &s))
            {
                Ok(hit) => hit,
                Err(down) => {
                    self.crash_down(down);
                    false
                }
            }
        };
        judge(&test)
    }

    /// One RegExp test of the matcher, on the worker, within `left`.
    fn test_regexp(&self, left: Duration, i: u32, s: &str) -> bool {
        self.wr.deadline.set(left);
        let out = self.ctx.with(|ctx| {
            self.bridge(&ctx)
                .and_then(|b| b.get::<_, Function>("testRegExp"))
                .and_then(|f| f.call::<_, bool>((i, s)))
                .unwrap_or(false)
        });
        let fired = self.wr.deadline.fired.swap(false, Ordering::Relaxed);
        self.wr.deadline.clear();
        out && !fired
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

/// `256 MiB`, `512 KiB`.
fn mib(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
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

fn source_place(key: &str, module: &Source, line: u32, column: u32) -> String {
    match module.lines.source_position(line, column) {
        Some((l, c)) => format!("{key}:{l}:{c}"),
        None => format!("{key}:{line}:{column} of its compiled JavaScript"),
    }
}

/// `n` random bytes from the operating system (`crypto.getRandomValues`); zeros if it
/// has none to give (never a panic).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    let _ = getrandom::fill(&mut buf);
    buf
}
