//! Caps and teardowns (SPEC §6 "Limits"): which cap a thrown error says the runtime
//! hit, the worker torn down for every mod in it (the runs in flight fail with kind
//! `crash`), and the teardowns the session has not taken yet (it restarts the worker
//! and admits the mod again, or unloads it at its third crash).

use super::calls::PumpError;
use super::runtime::WorkerRuntime;
use super::Host;
use crate::wire::Msg;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

/// The engine's own errors when a runtime hits its caps (QuickJS): a hook that meets
/// one uncaught crashes its worker (SPEC §6 "Limits").
const CAP_ERRORS: [(&str, &str); 3] = [
    ("InternalError: out of memory", "memory"),
    ("RangeError: Maximum call stack size exceeded", "stack"),
    // The regular-expression compiler's own stack check.
    ("SyntaxError: stack overflow", "stack"),
];

/// Which cap a thrown message says the runtime hit.
pub(super) fn cap_hit(message: &str) -> Option<&'static str> {
    CAP_ERRORS
        .iter()
        .find(|(m, _)| {
            message
                .strip_prefix(m)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        })
        .map(|(_, cap)| *cap)
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

impl WorkerRuntime {
    /// Tears the worker down for every mod in it: `culprit` is the mod whose run
    /// brought it about, if any (it counts a crash; the others only start afresh).
    pub(super) fn teardown(&self, why: String, culprit: Option<&Host>, mine: bool) {
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

impl Host {
    /// Why the worker was torn down, if it was.
    pub(crate) fn crashed(&self) -> Option<String> {
        self.wr.worker.dead()
    }

    /// Tears the worker down (SPEC §6 "Limits"), this mod's run the cause: every run in
    /// flight, of every mod in the worker, is told, and fails with kind `crash`.
    pub(super) fn crash(&self, why: String) {
        self.wr.teardown(why, Some(self), false);
    }

    /// A job of this mod's did not come back: the worker is torn down (by this mod's
    /// run when its own watchdog fired).
    pub(super) fn crash_down(&self, down: crate::worker::Down) -> String {
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

    /// `its worker was torn down: the runtime hit its memory cap of 256 MiB`.
    pub(super) fn cap_line(&self, cap: &str) -> String {
        format!(
            "its worker was torn down: the runtime hit its {cap} cap of {}",
            mib(self.cap_size(cap))
        )
    }

    /// The size of cap `cap` (`memory` or `stack`), in bytes.
    pub(super) fn cap_size(&self, cap: &str) -> usize {
        if cap == "memory" {
            self.config.memory_limit
        } else {
            self.config.stack_limit
        }
    }

    /// The worker is torn down: the JavaScript half sent what the honest bridge never
    /// sends (SPEC §6 "Sandbox"). Every run in flight fails with kind `crash`; nothing
    /// it asked for is raised.
    pub(super) fn tampered(&self, why: &str) -> PumpError {
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
}

/// `256 MiB`, `512 KiB`.
pub(super) fn mib(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}
