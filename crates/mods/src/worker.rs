//! A worker (SPEC §6 "Workers"): a thread of its own that runs every piece of a mod's
//! JavaScript, one job at a time, and the watchdog that tears it down when a job does
//! not come back within its time plus [`GRACE`] (SPEC §6 "Limits").
//!
//! The chain never runs JavaScript on its own thread: a hook run sends a job and awaits
//! its reply. A job that spins in JavaScript is stopped by the runtime's interrupt at
//! the hook timeout and comes back (kind `timeout`); one stuck where the interrupt is
//! never polled (native code of the engine) does not come back, and past its time plus
//! the grace the worker is declared dead: every job queued behind it is dropped (its
//! waiter learns `crash`), and the thread, when it comes back at last, runs nothing more
//! and drops the runtime.

use parking_lot::Mutex;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// How long past its own time a job may go without coming back before its worker is
/// torn down (SPEC §6 "Limits": the timeout plus 1 s of grace).
pub(crate) const GRACE: Duration = Duration::from_secs(1);

/// The worker thread's stack, in bytes: room for the runtime's stack cap (1 MiB by
/// default) and the engine's native frames beneath it.
const THREAD_STACK: usize = 16 * 1024 * 1024;

/// How long each side of a hop spins before it parks its thread: a hook run's next job
/// (or its reply) usually comes within a few µs, and parking and waking a thread costs
/// more than that. Bounded, so an idle worker costs no CPU.
const SPIN: Duration = Duration::from_micros(40);

type Job = Box<dyn FnOnce() + Send>;

/// Why a job did not come back: the worker is dead, and whether this job's own
/// watchdog tore it down (the job ran past its time plus the grace).
#[derive(Debug, Clone)]
pub(crate) struct Down {
    pub(crate) why: String,
    pub(crate) mine: bool,
}

impl Down {
    fn other(why: String) -> Down {
        Down { why, mine: false }
    }
}

impl std::fmt::Display for Down {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// The next job: spun for up to [`SPIN`], then waited for; `None` once the queue closed.
fn next_job(rx: &mpsc::Receiver<Job>) -> Option<Job> {
    let began = Instant::now();
    loop {
        match rx.try_recv() {
            Ok(job) => return Some(job),
            Err(mpsc::TryRecvError::Disconnected) => return None,
            Err(mpsc::TryRecvError::Empty) if began.elapsed() < SPIN => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Empty) => return rx.recv().ok(),
        }
    }
}

/// One worker: its job queue, and whether (and why) it was torn down.
pub(crate) struct Worker {
    tx: Mutex<Option<mpsc::Sender<Job>>>,
    dead: Arc<AtomicBool>,
    why: Mutex<Option<String>>,
}

impl std::fmt::Debug for Worker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Worker")
            .field("dead", &self.dead.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

/// A mod's worker thread could not be started: the system refused it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the mod's worker thread did not start: {message}")]
pub struct SpawnError {
    /// The operating system's reason.
    pub message: String,
}

impl Worker {
    /// Starts a worker thread named after the mod.
    ///
    /// # Errors
    ///
    /// The line saying the thread could not be started (the system refused it).
    pub(crate) fn spawn(name: &str) -> Result<Worker, SpawnError> {
        let (tx, rx) = mpsc::channel::<Job>();
        let dead = Arc::new(AtomicBool::new(false));
        let dead_t = Arc::clone(&dead);
        std::thread::Builder::new()
            .name(format!("mod {name}"))
            .stack_size(THREAD_STACK)
            .spawn(move || {
                while let Some(job) = next_job(&rx) {
                    // A worker torn down runs nothing more: the job is dropped, and its
                    // waiter learns the worker crashed.
                    if dead_t.load(Ordering::Acquire) {
                        drop(job);
                        continue;
                    }
                    job();
                }
            })
            .map_err(|e| SpawnError {
                message: e.to_string(),
            })?;
        Ok(Worker {
            tx: Mutex::new(Some(tx)),
            dead,
            why: Mutex::new(None),
        })
    }

    /// Why the worker was torn down, if it was.
    pub(crate) fn dead(&self) -> Option<String> {
        if !self.dead.load(Ordering::Acquire) {
            return None;
        }
        Some(
            self.why
                .lock()
                .clone()
                .unwrap_or_else(|| "its worker was torn down".to_owned()),
        )
    }

    /// Why the worker can take no job: torn down (and why), or its thread gone.
    fn why_dead(&self) -> String {
        self.dead()
            .unwrap_or_else(|| "its worker stopped".to_owned())
    }

    /// Whether the worker was torn down (cheap: for the runtime's interrupt handler).
    pub(crate) fn is_dead(&self) -> bool {
        self.dead.load(Ordering::Acquire)
    }

    /// The flag the runtime's interrupt handler reads: set when the worker is torn
    /// down, so that JavaScript still running on it stops at the next poll.
    pub(crate) fn dead_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.dead)
    }

    /// Tears the worker down (the first reason given is kept): no job runs on it again.
    /// Whether this call was the one that tore it down.
    pub(crate) fn kill(&self, why: String) -> bool {
        let first = {
            let mut w = self.why.lock();
            let first = w.is_none();
            if first {
                *w = Some(why);
            }
            first
        };
        self.dead.store(true, Ordering::Release);
        self.tx.lock().take();
        first
    }

    fn send(&self, job: Job) -> bool {
        match self.tx.lock().as_ref() {
            Some(tx) => tx.send(job).is_ok(),
            None => false,
        }
    }

    /// Runs `job` on the worker and waits for it (blocking the caller) at most
    /// `within` plus [`GRACE`]; past that the worker is torn down.
    ///
    /// # Errors
    ///
    /// Why the worker is dead (torn down before, or now: `mine` when by this job).
    pub(crate) fn run_blocking<R: Send + 'static>(
        &self,
        within: Duration,
        job: impl FnOnce() -> R + Send + 'static,
    ) -> Result<R, Down> {
        if let Some(why) = self.dead() {
            return Err(Down::other(why));
        }
        let (tx, rx) = mpsc::sync_channel(1);
        let sent = self.send(Box::new(move || {
            let _ = tx.send(job());
        }));
        if !sent {
            return Err(Down::other(self.why_dead()));
        }
        match rx.recv_timeout(within.saturating_add(GRACE)) {
            Ok(r) => Ok(r),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let mine = self.kill(stuck(within));
                Err(Down {
                    why: self.dead().unwrap_or_default(),
                    mine,
                })
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(Down::other(self.why_dead())),
        }
    }

    /// [`Worker::run_blocking`] as a future: the caller's thread is free while the job
    /// runs (the thread hop of a hook run).
    pub(crate) fn run<R: Send + 'static>(
        self: &Arc<Self>,
        within: Duration,
        job: impl FnOnce() -> R + Send + 'static,
    ) -> impl Future<Output = Result<R, Down>> + Send + 'static {
        let worker = Arc::clone(self);
        let dead = self.dead();
        let (tx, rx) = futures::channel::oneshot::channel();
        let sent = dead.is_none()
            && self.send(Box::new(move || {
                let _ = tx.send(job());
            }));
        async move {
            if let Some(why) = dead {
                return Err(Down::other(why));
            }
            if !sent {
                return Err(Down::other(worker.why_dead()));
            }
            let mut rx = rx;
            // A short job's reply is there within a few µs: spin for it before
            // handing the wait to the executor.
            let began = Instant::now();
            while began.elapsed() < SPIN {
                match rx.try_recv() {
                    Ok(Some(r)) => return Ok(r),
                    Ok(None) => std::hint::spin_loop(),
                    Err(_) => break,
                }
            }
            let timer = futures_timer::Delay::new(within.saturating_add(GRACE));
            match futures::future::select(rx, timer).await {
                futures::future::Either::Left((Ok(r), _)) => Ok(r),
                futures::future::Either::Left((Err(_), _)) => Err(Down::other(worker.why_dead())),
                futures::future::Either::Right(((), _)) => {
                    let mine = worker.kill(stuck(within));
                    Err(Down {
                        why: worker.dead().unwrap_or_default(),
                        mine,
                    })
                }
            }
        }
    }

    /// Queues `job` and does not wait (closing a run: nothing waits on it).
    pub(crate) fn post(&self, job: impl FnOnce() + Send + 'static) {
        let _ = self.send(Box::new(job));
    }
}

fn stuck(within: Duration) -> String {
    format!(
        "its worker was torn down: a hook ran {} ms past its time of {} ms without yielding to the interrupt",
        GRACE.as_millis(),
        within.as_millis()
    )
}
