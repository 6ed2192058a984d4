//! The hook runs in flight (SPEC §6 "A hook"): each run's mailbox and `next`, the pump
//! that runs a piece of JavaScript on the worker and then every job it left, reads the
//! outbox ([`crate::wire`]) and routes each message to its run, and the matcher's RegExp
//! tests. Nothing runs in JavaScript without a deadline.

use super::crash::cap_hit;
use super::{caught, Host};
use crate::wire::{self, Msg, Outbox, Tampered};
use fnhooks::Next;
use rquickjs::{Array, Ctx, Function, Object, Value};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

/// The deadline of forgetting a run dropped halfway.
const CLOSE_BUDGET: Duration = Duration::from_millis(100);

#[derive(Default)]
pub(super) struct Mailbox {
    pub(super) msgs: Vec<Msg>,
    pub(super) waker: Option<Waker>,
    /// The highest request number the run has sent: each new one must be above it.
    last_req: u32,
}

/// The hook runs in flight: their mailboxes, and their `next` (for `next.trace` and
/// `next.origin`, which the JavaScript half reads lazily through the host functions).
#[derive(Default)]
pub(crate) struct Calls {
    last: u32,
    pub(super) mail: HashMap<u32, Mailbox>,
    pub(super) nexts: HashMap<u32, (Next, Arc<str>)>,
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

impl Host {
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
            .with(|ctx| -> Result<Result<Outbox, Tampered>, PumpError> {
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
            Err(why) => return Err(self.tampered(&why.to_string())),
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
            return Err(self.tampered(&why.to_string()));
        }
        if fired {
            return Err(PumpError::Timeout);
        }
        Ok(())
    }

    /// Hands each message to the run it names. A run's requests must come numbered above
    /// every request it sent before.
    ///
    /// # Errors
    ///
    /// Why the messages cannot have come from the honest bridge; none is routed then.
    fn route(&self, msgs: Vec<(u32, Msg)>) -> Result<(), Tampered> {
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
}
