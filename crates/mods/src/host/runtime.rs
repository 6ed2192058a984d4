//! A worker's JavaScript runtime and its limits (SPEC §6 "Workers", "Limits"): one
//! QuickJS runtime on the worker's thread, its memory and stack caps, the interrupt
//! that stops JavaScript past its deadline, the rejection tracker, and the module
//! loader; and the worker several mods share.

use super::graph::{GraphLoader, GraphResolver};
use super::Host;
use crate::load::ModSource;
use crate::worker::Worker;
use crate::HostConfig;
use parking_lot::Mutex;
use rquickjs::{Function, Runtime, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Allocated bytes past which the runtime collects garbage.
const GC_THRESHOLD: usize = 4 * 1024 * 1024;

/// A deadline the interrupt handler checks: nanoseconds after `epoch`, 0 for none.
pub(super) struct Deadline {
    pub(super) epoch: Instant,
    pub(super) at: AtomicU64,
    pub(super) fired: AtomicBool,
    /// The worker was torn down: whatever still runs stops at the next poll.
    pub(super) dead: Arc<AtomicBool>,
}

impl Deadline {
    pub(super) fn set(&self, within: Duration) {
        let at = self.epoch.elapsed().saturating_add(within);
        let nanos = u64::try_from(at.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.fired.store(false, Ordering::Relaxed);
        self.at.store(nanos, Ordering::Relaxed);
    }

    pub(super) fn clear(&self) {
        self.at.store(0, Ordering::Relaxed);
    }

    /// The interrupt handler: whether the running code must stop now.
    pub(super) fn passed(&self) -> bool {
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

/// A mod may not join a shared worker that already runs the other side's mods (SPEC §6
/// "Workers").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{mod_name} ({}) may not run in worker {worker:?}, which runs {}: a worker shared by a person's mod and an organization's is refused (SPEC §6 Workers)",
    if *side == Side::Person { "a person's mod" } else { "an organization's mod" },
    if *had == Side::Person { "a person's mods" } else { "the organization's mods" },
)]
pub(crate) struct SideRefused {
    /// The mod that asked to join.
    mod_name: String,
    /// Its side.
    side: Side,
    /// The worker's name.
    worker: String,
    /// The side the worker already runs.
    had: Side,
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
    pub(super) fn claim(&self, tier: fnhooks::Tier, mod_name: &str) -> Result<(), SideRefused> {
        let side = Side::of(tier);
        let mut s = self.side.lock();
        match *s {
            None => {
                *s = Some(side);
                Ok(())
            }
            Some(had) if had == side => Ok(()),
            Some(had) => Err(SideRefused {
                mod_name: mod_name.to_owned(),
                side,
                worker: self.name.to_string(),
                had,
            }),
        }
    }

    /// The live runtime, or a fresh one when there is none or it was torn down.
    pub(super) fn runtime(&self, config: &HostConfig) -> Result<Arc<WorkerRuntime>, RuntimeError> {
        let mut live = self.live.lock();
        if let Some(wr) = live.as_ref().filter(|wr| !wr.worker.is_dead()) {
            return Ok(Arc::clone(wr));
        }
        let wr = WorkerRuntime::start(&self.name, config)?;
        *live = Some(Arc::clone(&wr));
        Ok(wr)
    }
}

/// Why a worker's runtime could not be had: what a mod's activation then fails with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RuntimeError {
    /// The worker's thread did not start.
    #[error("{0}")]
    Spawn(#[from] crate::worker::SpawnError),
    /// QuickJS refused to make a runtime.
    #[error("the JavaScript engine did not start: {reason}")]
    Engine {
        /// The worker's name.
        worker: String,
        /// The engine's reason.
        reason: String,
    },
}

/// One worker's runtime (SPEC §6 "Workers": one JavaScript runtime on a thread of its
/// own) and the mods whose contexts it holds.
pub(crate) struct WorkerRuntime {
    pub(super) worker: Arc<Worker>,
    pub(super) rt: Runtime,
    pub(super) deadline: Arc<Deadline>,
    /// Each context's mod, by the context's address (what the module loader resolves
    /// by).
    pub(super) sources: Arc<Mutex<HashMap<usize, Arc<ModSource>>>>,
    pub(super) members: Mutex<Vec<Weak<Host>>>,
}

impl WorkerRuntime {
    /// A runtime with the caps of `config`, on a worker thread named `name`.
    pub(super) fn start(
        name: &str,
        config: &HostConfig,
    ) -> Result<Arc<WorkerRuntime>, RuntimeError> {
        let worker = Arc::new(Worker::spawn(name)?);
        let rt = Runtime::new().map_err(|e| RuntimeError::Engine {
            worker: name.to_owned(),
            reason: e.to_string(),
        })?;
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
}
