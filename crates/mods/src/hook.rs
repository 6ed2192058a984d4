//! A mod's hook as a link of the chain (SPEC §6 "A hook", §1.1): the Rust future that
//! starts the hook in the mod's runtime, answers each `next(e)`, `next.to(e, tier)` and
//! `$` call it makes with the chain, and hands back its answer. Mods and Rust plugins
//! are links of one chain.

use crate::host::{Host, PumpError};
use crate::translate;
use crate::wire::{self, Msg, Settle};
use fnhooks::{
    Answer, ChainError, Cx, Event, FailureKind, Hook, HookError, HookFailure, HookResult, Next,
    Reply, Tier,
};
use futures::future::{BoxFuture, FutureExt};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

/// Registration `reg` of a mod (its `.catch` handler when `is_catch`).
pub(crate) struct JsHook {
    pub(crate) host: Arc<Host>,
    pub(crate) reg: u32,
    pub(crate) is_catch: bool,
    pub(crate) observer: Option<crate::plugin::Observer>,
}

impl Hook for JsHook {
    fn call(&self, cx: Cx, event: Event, next: Next) -> BoxFuture<'static, HookResult> {
        if let Some(seen) = &self.observer {
            seen();
        }
        let host = Arc::clone(&self.host);
        let (reg, is_catch) = (self.reg, self.is_catch);
        Box::pin(run(host, reg, is_catch, cx, event, next))
    }

    /// SPEC §6 "Limits": a mod's hook is timed in its worker (interrupted past the hook
    /// timeout, the worker torn down past the timeout plus the grace).
    fn meters_own_time(&self) -> bool {
        true
    }
}

/// How many hook timeouts a hook may wait on its own `$` calls and on its repeated
/// `next` calls (SPEC §6 "Limits").
const OPS_WAIT_FACTOR: u32 = 3;

/// What a request in flight asked of the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// The run's first `next(e)` or `next.to(e, tier)`: the rest of the chain, each link
    /// of it metered there. Its wait is the hook's to make, uncapped.
    Next,
    /// A later `next` of the same run: the rest of the chain again. **\[decision\]**
    /// Its wait counts toward the cap as a `$` call's does: a hook that loops on
    /// `next(e)`, or hands the event on by the thousand, above a link that spends just
    /// under its own timeout each time, would otherwise keep the raise from ending.
    NextAgain,
    /// A `$` call: an event raised as the plugin.
    Op,
}

/// Which of a hook's clocks ran out while it waited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RanOut {
    /// Its own time (SPEC §1.1).
    Own,
    /// Its wait on its own `$` calls and repeated `next` calls.
    Waits,
}

/// The hook waited on its own `$` calls and repeated `next` calls past
/// [`OPS_WAIT_FACTOR`] hook timeouts.
fn ops_failure(host: &Host) -> HookFailure {
    HookFailure::new(
        FailureKind::Timeout,
        format!(
            "waited on its $ calls and repeated next calls past {OPS_WAIT_FACTOR} times the hook timeout of {} ms",
            host.config.hook_timeout.as_millis()
        ),
    )
}

/// What one `next` or `$` request came back with.
enum Delivery {
    Next(Answer),
    Op(String, Answer),
    /// The request was refused before it ran: the promise rejects with this.
    Refused(String),
}

/// Closes the hook run however the future ends (answered, failed, dropped halfway).
struct Open {
    host: Arc<Host>,
    id: u32,
    /// The JavaScript half said the run ended (it forgot the run itself).
    settled: bool,
}

impl Drop for Open {
    fn drop(&mut self) {
        self.host.close_call(self.id, !self.settled);
    }
}

fn failed(kind: FailureKind, message: impl Into<String>) -> HookError {
    HookError::Failed(HookFailure::new(kind, message))
}

fn pump_failure(host: &Host, e: PumpError) -> HookError {
    match e {
        PumpError::Timeout => failed(
            FailureKind::Timeout,
            format!(
                "ran past the hook timeout of {} ms",
                host.config.hook_timeout.as_millis()
            ),
        ),
        PumpError::Js(message) => failed(FailureKind::Error, message),
        PumpError::Crash(why) => failed(FailureKind::Crash, why),
    }
}

async fn run(
    host: Arc<Host>,
    reg: u32,
    is_catch: bool,
    cx: Cx,
    event: Event,
    next: Next,
) -> HookResult {
    if let Some(why) = host.crashed() {
        return Err(failed(FailureKind::Crash, why));
    }
    let budget = host.config.hook_timeout.as_millis();
    let failed_text = if is_catch {
        translate::failed_to_mod(next.called(), next.error().as_ref(), budget)
    } else {
        String::new()
    };
    let e_text = translate::event_to_mod(&event);
    let name: Arc<str> = Arc::from(event.name.as_str());
    let id = host.open_call(next.clone(), Arc::clone(&name));
    let mut open = Open {
        host: Arc::clone(&host),
        id,
        settled: false,
    };
    let budget_js = f64::from(u32::try_from(budget).unwrap_or(u32::MAX));
    // A pump that ran out of time may still have brought the hook's answer (a hook that
    // answered at once, then left jobs that spin): the mail is read first.
    let started = Arc::clone(&name);
    let (mut used, pumped) = host
        .pump(Duration::ZERO, move |_ctx, bridge| {
            let start: rquickjs::Function = bridge.get("start")?;
            start.call::<_, rquickjs::Value>((
                id,
                reg,
                is_catch,
                started.as_ref(),
                e_text.as_str(),
                failed_text.as_str(),
                budget_js,
            ))?;
            Ok(())
        })
        .await;
    let mut stalled = pumped.err();
    let mut replies: HashMap<u32, Reply> = HashMap::new();
    let mut last_req: Option<u32> = None;
    let mut rejections: HashMap<u32, ChainError> = HashMap::new();
    // Polled all at each wake, not by a `FuturesUnordered`: a `next` polled inside its
    // hook's poll is not woken when its answer is there; the driver polls the hook again.
    let mut inflight: Vec<(Asked, BoxFuture<'static, (u32, Delivery)>)> = Vec::new();
    // SPEC §6 "Limits": the wall time the hook has waited on its own `$` calls (and on
    // its repeated `next` calls, `Asked::NextAgain`), capped at three times the hook
    // timeout, so that no chain of them keeps a raise from ending (time in the first
    // `next` is the rest of the chain's, each link metered there).
    let mut nexts_asked = 0u32;
    let mut waited_on_ops = Duration::ZERO;
    let ops_cap = host.config.hook_timeout.saturating_mul(OPS_WAIT_FACTOR);
    loop {
        for msg in host.take_mail(id) {
            open.settled |= msg.ends_run();
            match msg {
                Msg::Done(text) => {
                    let last = last_req.and_then(|r| replies.get(&r));
                    return translate::answer_from_mod(&event.name, &text, last)
                        .map_err(HookError::Failed);
                }
                Msg::DoneSame(req) => {
                    return replies.remove(&req).ok_or_else(|| {
                        failed(FailureKind::Error, "answered a next() that never resolved")
                    })
                }
                Msg::Threw { message, stack } => {
                    let place = host
                        .place(&stack)
                        .map(|p| format!(" ({p})"))
                        .unwrap_or_default();
                    return Err(failed(
                        FailureKind::Error,
                        format!("threw {message}{place}"),
                    ));
                }
                Msg::ThrewChain(req) => {
                    return Err(match rejections.remove(&req) {
                        Some(e) => HookError::Chain(e),
                        None => failed(FailureKind::Error, "threw a rejection of its next()"),
                    })
                }
                Msg::Invalid(why) => return Err(failed(FailureKind::InvalidAnswer, why)),
                Msg::Crashed(why) => return Err(failed(FailureKind::Crash, why)),
                Msg::Next {
                    req,
                    event: text,
                    tier,
                } => {
                    let asked = if nexts_asked == 0 {
                        Asked::Next
                    } else {
                        Asked::NextAgain
                    };
                    nexts_asked = nexts_asked.saturating_add(1);
                    inflight.push((asked, next_request(&next, &event, req, &text, &tier)));
                }
                Msg::Op { req, name, fields } => {
                    inflight.push((Asked::Op, op_request(&cx, req, name, fields)));
                }
            }
        }
        if inflight.len() > wire::MAX_IN_FLIGHT {
            return Err(pump_failure(
                &host,
                host.torn_down(format!(
                    "its worker was torn down: the hook had more than {} next and $ requests in flight at once",
                    wire::MAX_IN_FLIGHT
                )),
            ));
        }
        if let Some(e) = stalled.take() {
            return Err(pump_failure(&host, e));
        }
        // With nothing asked of the chain, the hook waits on itself (a promise of its own
        // that only its own code could settle): its own time runs (SPEC §1.1), and the
        // engine's driver arms no timer for it (`meters_own_time`).
        let waits_on_itself = inflight.is_empty();
        let left = host.config.hook_timeout.saturating_sub(used);
        if waits_on_itself && left.is_zero() {
            return Err(pump_failure(&host, PumpError::Timeout));
        }
        let waits_on_ops = inflight.iter().any(|(asked, _)| *asked != Asked::Next);
        let ops_left = ops_cap.saturating_sub(waited_on_ops);
        if waits_on_ops && ops_left.is_zero() {
            let failure = ops_failure(&host);
            cx.hit_limit(&failure);
            return Err(HookError::Failed(failure));
        }
        let mut own_timer = waits_on_itself.then(|| futures_timer::Delay::new(left));
        let mut ops_timer = waits_on_ops.then(|| futures_timer::Delay::new(ops_left));
        let waited = std::time::Instant::now();
        let got = futures::future::poll_fn(|w| {
            if let Some(t) = own_timer.as_mut() {
                if t.poll_unpin(w).is_ready() {
                    return Poll::Ready(Err(RanOut::Own));
                }
            }
            if let Some(t) = ops_timer.as_mut() {
                if t.poll_unpin(w).is_ready() {
                    return Poll::Ready(Err(RanOut::Waits));
                }
            }
            for (i, (_, f)) in inflight.iter_mut().enumerate() {
                if let Poll::Ready(done) = f.poll_unpin(w) {
                    drop(inflight.swap_remove(i));
                    return Poll::Ready(Ok(Some(done)));
                }
            }
            if host.has_mail_or_park(id, w.waker()) {
                return Poll::Ready(Ok(None));
            }
            Poll::Pending
        })
        .await;
        if waits_on_itself {
            used = used.saturating_add(waited.elapsed());
        }
        if waits_on_ops {
            waited_on_ops = waited_on_ops.saturating_add(waited.elapsed());
        }
        let got = match got {
            Ok(got) => got,
            Err(RanOut::Own) => return Err(pump_failure(&host, PumpError::Timeout)),
            // The raises it started are dropped with `inflight` as the run ends: their
            // chains are cancelled (SPEC §6 "Limits").
            Err(RanOut::Waits) => {
                // A limit a person's mod can drive (it spins under its own timeout in
                // every chain this hook waits on): an organization's hook so cut fails
                // closed (SPEC §1.8, revised).
                let failure = ops_failure(&host);
                cx.hit_limit(&failure);
                return Err(HookError::Failed(failure));
            }
        };
        let Some((req, delivery)) = got else {
            continue;
        };
        let (kind, text): (Settle, String) = match delivery {
            Delivery::Next(Ok(reply)) => {
                let text = translate::answer_to_mod(&event.name, &reply);
                replies.insert(req, reply);
                last_req = Some(req);
                (Settle::NextAnswer, text)
            }
            Delivery::Next(Err(e)) => {
                let message = e.failure().message_or_default().to_owned();
                rejections.insert(req, e);
                (Settle::Rejected, message)
            }
            Delivery::Op(name, Ok(reply)) => match translate::op_value(&name, &reply) {
                Ok(value) => (Settle::OpValue, value),
                Err(deny) => (Settle::Rejected, deny.message),
            },
            Delivery::Op(_, Err(e)) => (
                Settle::Rejected,
                e.failure().message_or_default().to_owned(),
            ),
            Delivery::Refused(message) => (Settle::Rejected, message),
        };
        let kind = kind as u32;
        let (now_used, pumped) = host
            .pump(used, move |_ctx, bridge| {
                let settle: rquickjs::Function = bridge.get("settle")?;
                settle.call::<_, rquickjs::Value>((id, req, kind, text.as_str()))?;
                Ok(())
            })
            .await;
        used = now_used;
        stalled = pumped.err();
    }
}

/// `next(e)` or `next.to(e, tier)`: the event as handed (`text` empty: as received).
fn next_request(
    next: &Next,
    received: &Event,
    req: u32,
    text: &str,
    tier: &str,
) -> BoxFuture<'static, (u32, Delivery)> {
    let event = if text.is_empty() {
        received.clone()
    } else {
        match translate::event_from_mod(received, text) {
            Ok(e) => e,
            Err(why) => {
                let why = why.to_string();
                return async move { (req, Delivery::Refused(why)) }.boxed();
            }
        }
    };
    let answer = if tier.is_empty() {
        next.run(event)
    } else {
        match Tier::parse(tier) {
            Some(t) => next.to(event, t),
            // A tier that is none of the five is a jump no hook may make: the engine
            // fails the hook as it fails a jump backwards (SPEC §1.1, kind
            // `forbidden-jump`), which a `prepend` target always is.
            None => next.to(event, Tier::Prepend),
        }
    };
    async move { (req, Delivery::Next(answer.await)) }.boxed()
}

/// A `$` call: raises `name` as this plugin, without the calling hook (SPEC §6 `$`),
/// once its fields are checked against its event ([`wire::check_op_fields`]).
fn op_request(
    cx: &Cx,
    req: u32,
    name: String,
    mut fields: Map<String, Value>,
) -> BoxFuture<'static, (u32, Delivery)> {
    if let Err(why) = wire::check_op_fields(&name, &mut fields) {
        let why = why.to_string();
        return async move { (req, Delivery::Refused(why)) }.boxed();
    }
    let raised = cx.raise(Event::new(name.as_str(), fields));
    async move { (req, Delivery::Op(name, raised.await)) }.boxed()
}
