//! One read serves a burst: the policy memo (SPEC §2.1).

use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::{read_policy, ManagedLocation, Policy, PolicyError};

/// How long a successful read serves later callers, in milliseconds.
///
/// SPEC §2.1 "One read serves a burst" (**\[decision\]** 1 second)
pub const POLICY_MEMO_MS: u64 = 1000;

/// A monotonic clock: the time elapsed since some fixed origin.
///
/// SPEC §2.1 (the memo takes an injectable clock)
pub trait Clock: Send + Sync {
    /// The time since this clock's origin; never decreases.
    ///
    /// SPEC §2.1
    fn now(&self) -> Duration;
}

/// The real clock: [`Instant`]-based, its origin the first time any
/// `SystemClock` was asked.
///
/// SPEC §2.1
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        static ORIGIN: OnceLock<Instant> = OnceLock::new();
        ORIGIN.get_or_init(Instant::now).elapsed()
    }
}

/// A clock tests move by hand; it starts at zero.
///
/// SPEC §2.1 (a test shows the memo with a fake clock, not a timer)
#[derive(Debug, Default)]
pub struct FakeClock {
    nanos: AtomicU64,
}

impl FakeClock {
    /// A fake clock at zero.
    ///
    /// SPEC §2.1
    pub fn new() -> Self {
        FakeClock::default()
    }

    /// Moves the clock forward by `d` (saturating).
    ///
    /// SPEC §2.1
    pub fn advance(&self, d: Duration) {
        let step = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let _ = self
            .nanos
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                Some(n.saturating_add(step))
            });
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

/// What [`PolicyMemo::read`] returns.
///
/// SPEC §2.1
#[derive(Debug, Clone)]
pub struct MemoRead {
    /// The policy (shared: one value per disk read).
    pub policy: Arc<Policy>,
    /// This content (settings and warnings) differs from the previous
    /// successful read's (`true` on the very first): the session writes the
    /// warnings to the debug log once, on first sight.
    pub first_sight: bool,
}

#[derive(Debug, Default)]
struct State {
    /// The memo: when it was read, and what. `None` after a failure or an
    /// invalidation.
    fresh: Option<(Duration, Arc<Policy>)>,
    /// The last successful read, kept to tell first sight.
    last_seen: Option<Arc<Policy>>,
}

/// The memo every consumer of the policy goes through: within `window` of
/// the last successful read, a read returns it without touching the disk.
/// Concurrent callers share one in-flight read (the lock is held during the
/// read). A failed read is never kept past the call that saw it fail.
///
/// SPEC §2.1 "One read serves a burst"
pub struct PolicyMemo {
    location: ManagedLocation,
    clock: Arc<dyn Clock>,
    window: Duration,
    state: Mutex<State>,
    disk_reads: AtomicU64,
}

impl std::fmt::Debug for PolicyMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyMemo")
            .field("location", &self.location)
            .field("window", &self.window)
            .field("disk_reads", &self.disk_reads())
            .finish_non_exhaustive()
    }
}

impl PolicyMemo {
    /// A memo over `location`, timed by `clock`, serving each read for
    /// `window` (normally `Duration::from_millis(POLICY_MEMO_MS)`).
    ///
    /// SPEC §2.1
    pub fn new(location: ManagedLocation, clock: Arc<dyn Clock>, window: Duration) -> Self {
        PolicyMemo {
            location,
            clock,
            window,
            state: Mutex::new(State::default()),
            disk_reads: AtomicU64::new(0),
        }
    }

    /// The policy: the memo when it is fresh, else a new [`read_policy`].
    ///
    /// # Errors
    ///
    /// The [`PolicyError`] of a read that failed (never kept: the next call
    /// reads the disk again).
    ///
    /// SPEC §2.1
    pub fn read(&self) -> Result<MemoRead, PolicyError> {
        let mut state = self.state.lock();
        let now = self.clock.now();
        if let Some((at, policy)) = &state.fresh {
            if now.saturating_sub(*at) < self.window {
                return Ok(MemoRead {
                    policy: Arc::clone(policy),
                    first_sight: false,
                });
            }
        }
        self.disk_reads.fetch_add(1, Ordering::SeqCst);
        match read_policy(&self.location) {
            Ok(policy) => {
                let first_sight = state.last_seen.as_deref().is_none_or(|seen| {
                    seen.settings != policy.settings || seen.warnings != policy.warnings
                });
                let policy = Arc::new(policy);
                // Stamp with the time the read finished, so a slow read still
                // serves a whole window.
                let at = self.clock.now();
                state.fresh = Some((at, Arc::clone(&policy)));
                state.last_seen = Some(Arc::clone(&policy));
                Ok(MemoRead {
                    policy,
                    first_sight,
                })
            }
            Err(e) => {
                state.fresh = None;
                Err(e)
            }
        }
    }

    /// The embedder says the managed files changed: the next read goes to disk.
    ///
    /// SPEC §2.1 (an embedding program can tell the memo the files changed)
    pub fn invalidate(&self) {
        self.state.lock().fresh = None;
    }

    /// How many times the managed folder was read through this memo.
    ///
    /// SPEC §2.1 (10,000 checks, 1 read)
    pub fn disk_reads(&self) -> u64 {
        self.disk_reads.load(Ordering::SeqCst)
    }

    /// The folder this memo reads.
    ///
    /// SPEC §2.1
    pub fn location(&self) -> &ManagedLocation {
        &self.location
    }

    /// The window a successful read serves.
    ///
    /// SPEC §2.1
    pub fn window(&self) -> Duration {
        self.window
    }
}
