//! One raise's chain run and its driver (SPEC §1.1, §1.2, §1.8, §1.9).
//!
//! The driver is a trampoline: it owns every running link's future in a stack of its
//! own, on the heap, and polls one at a time. A hook's `next(e)` does not poll the rest of
//! the chain itself: it leaves a request in its frame's state and returns `Pending`; the
//! driver sees the request, pushes the next link's frame and polls that; when a frame
//! answers, the driver pops it, leaves the answer in its caller's frame and polls the
//! caller again. So the thread's stack holds one link's poll at a time, whatever the
//! chain's length (a chain of 100,000 links runs on the default stack), and each link
//! costs its hook's boxed future and nothing else that allocates: its `next` and `cx`
//! are handles on the run, its state is a slot of the run's vectors, and its trace entry
//! a slot of the run's arena.
//!
//! Wake-ups: on its first poll the driver polls only the frames it is working on; each
//! time it is woken after that it polls every live frame once (a hook may wait on
//! something besides its `next`), then goes on as before. A chain whose hooks never
//! suspend is never woken.

use crate::catalogue::Catalogue;
use crate::chain::{Answer, ChainError, Channel, Cx, EngineInner, Link, TierSet, TraceEntry};
use crate::event::{Event, EventName, FailureKind, HookFailure, Origin};
use crate::plugin::{HookError, HookResult};
use crate::reply::Reply;
use crate::timer::Clock;
use crate::Tier;
use futures::future::{BoxFuture, CatchUnwind};
use futures::FutureExt;
use parking_lot::Mutex;
use std::cell::Cell;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

/// Which registration of which seated plugin a link runs: a hook's identity, so that an
/// event a hook raises runs without that hook (SPEC §1.1: no re-entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HookKey {
    pub(crate) plugin: usize,
    pub(crate) reg: usize,
}

/// One raise's run: what its driver, and every `next` and `cx` of its links, share.
pub(crate) struct Run {
    pub(crate) engine: Arc<EngineInner>,
    pub(crate) links: Arc<[Link]>,
    pub(crate) origin: Arc<Origin>,
    /// The hooks of the raises this one is nested in (SPEC §1.1: no re-entry).
    pub(crate) excluded: Arc<[HookKey]>,
    /// The answer the embedding program gave for this raise's event at the core link
    /// (`Raise::core_answer`), with the event's name.
    given: Option<(EventName, Reply)>,
    /// The engine's seating epoch when the run began: a `cx` raising under the same
    /// epoch belongs to a plugin still seated.
    pub(crate) epoch: u64,
    /// How many raises from hooks this run is nested in (SPEC §6 "Limits": at most
    /// [`crate::MAX_RAISE_DEPTH`]; the core's own raises keep their run's depth).
    pub(crate) depth: u8,
    pub(crate) state: Mutex<RunState>,
}

pub(crate) struct RunState {
    /// One slot per frame of the driver's stack, in the same order.
    pub(crate) frames: Vec<FrameState>,
    /// The trace arena: every entry this run recorded.
    nodes: Vec<TraceNode>,
    /// What the core answered in this run, and to which event: within one raise the core
    /// answers an event once, and a re-run (`next.to` after `next`) that reaches it with
    /// the same event reuses that answer (SPEC §3.6 step 5 **\[decision\]**).
    core_answer: Option<(Event, u32)>,
    /// The driver's waker, while it waits on something outside its own polls.
    driver: Option<Waker>,
    gens: u64,
}

/// What a frame's `next`, `cx` and failure handler read and write (SPEC §1.1).
pub(crate) struct FrameState {
    /// Which hook run the slot holds now: a `next` or `cx` of another reads nothing.
    pub(crate) gen: u64,
    /// The event as the hook received it (the pins are kept against it, SPEC §1.2).
    received: Event,
    pub(crate) called: bool,
    /// The trace (arena index) of the last `next` run.
    pub(crate) last: Option<u32>,
    pub(crate) broke: Option<HookFailure>,
    /// The hook (an organization's or a built-in's) met a raise refused for a limit
    /// (SPEC §6 "Limits"): its failure fails closed (SPEC §1.8 **\[revised\]**).
    pub(crate) limited: bool,
    pub(crate) error: Option<HookFailure>,
    /// A failure handler's `next` replays the failed hook's last run instead of running
    /// the chain again (SPEC §1.1 **\[decision\]**).
    replay: Option<u32>,
    asked: Option<Asked>,
    queued: Vec<Asked>,
    in_flight: Option<u32>,
    /// The answers to `next` calls not yet taken: the trace entry that holds each, by the
    /// call's ticket (a hook may await its calls in any order).
    replies: Tickets<u32>,
    /// The wakers of the `next` calls polled outside the driver's own polls, by ticket.
    waiters: Tickets<Waker>,
    cancelled: bool,
    tickets: u32,
    pub(crate) clock: Clock,
}

impl FrameState {
    fn new(gen: u64, received: Event) -> Self {
        FrameState {
            gen,
            received,
            called: false,
            last: None,
            broke: None,
            limited: false,
            error: None,
            replay: None,
            asked: None,
            queued: Vec::new(),
            in_flight: None,
            replies: Tickets::default(),
            waiters: Tickets::default(),
            cancelled: false,
            tickets: 0,
            clock: Clock::default(),
        }
    }

    fn take_asked(&mut self) -> Option<Asked> {
        self.asked.take().or_else(|| {
            if self.queued.is_empty() {
                None
            } else {
                Some(self.queued.remove(0))
            }
        })
    }
}

/// Values by `next` call (its ticket): the first kept apart, so that the common case, one
/// call at a time, allocates nothing.
#[derive(Debug)]
struct Tickets<T> {
    first: Option<(u32, T)>,
    more: Vec<(u32, T)>,
}

impl<T> Default for Tickets<T> {
    fn default() -> Self {
        Tickets {
            first: None,
            more: Vec::new(),
        }
    }
}

impl<T> Tickets<T> {
    /// Keeps `value` for `ticket`, in place of what it held.
    fn put(&mut self, ticket: u32, value: T) {
        let _ = self.take(ticket);
        if self.first.is_none() {
            self.first = Some((ticket, value));
        } else {
            self.more.push((ticket, value));
        }
    }

    /// What `ticket` holds, taken out.
    fn take(&mut self, ticket: u32) -> Option<T> {
        if self.first.as_ref().is_some_and(|(t, _)| *t == ticket) {
            return self.first.take().map(|(_, v)| v);
        }
        let at = self.more.iter().position(|(t, _)| *t == ticket)?;
        Some(self.more.swap_remove(at).1)
    }

    fn clear(&mut self) {
        self.first = None;
        self.more.clear();
    }
}

thread_local! {
    /// The frame the driver on this thread is polling now: (its run's address, its
    /// slot). A `next` polled inside its own hook's poll on the driver's thread needs no
    /// waker of its own (the driver polls the hook again when the answer is there); one
    /// polled anywhere else, on any thread, registers its waker.
    static POLLING: Cell<(usize, usize)> = const { Cell::new((0, usize::MAX)) };
}

/// Whether this thread's driver is polling frame `slot` of `run` now.
fn polling_inside(run: &Arc<Run>, slot: usize) -> bool {
    POLLING.with(|p| p.get() == (Arc::as_ptr(run) as usize, slot))
}

/// A `next` call waiting to be run.
struct Asked {
    ticket: u32,
    event: Event,
    skip: TierSet,
}

/// One entry of the trace arena: what one link did (the core: `link` `None`). What its
/// own `next` returned is the answer of the entry below.
struct TraceNode {
    link: Option<u32>,
    called_next: bool,
    answer: Answer,
    failure: Option<FailureKind>,
    below: Option<u32>,
}

impl RunState {
    /// The frame slot `slot` when it still holds hook run `gen`.
    pub(crate) fn frame(&mut self, slot: usize, gen: u64) -> Option<&mut FrameState> {
        self.frames.get_mut(slot).filter(|f| f.gen == gen)
    }

    fn push_node(&mut self, node: TraceNode) -> u32 {
        let at = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        self.nodes.push(node);
        at
    }

    fn answer_of(&self, node: u32) -> Answer {
        self.nodes
            .get(node as usize)
            .map_or_else(|| Err(lost_answer()), |n| n.answer.clone())
    }

    /// Whether the last `next` of a frame answered this very error.
    pub(crate) fn last_is_error(&self, last: Option<u32>, e: &ChainError) -> bool {
        last.and_then(|n| self.nodes.get(n as usize))
            .is_some_and(|n| matches!(&n.answer, Err(l) if l.same(e)))
    }

    /// Whether the last `next` of a frame answered this very shared value.
    fn last_is_reply(&self, last: Option<u32>, v: &Reply) -> bool {
        last.and_then(|n| self.nodes.get(n as usize))
            .is_some_and(|n| matches!(&n.answer, Ok(r) if Reply::ptr_eq(r, v)))
    }

    /// Whether every entry from `node` down answered what the entry below it answered,
    /// the very value or the very error (see [`crate::Next::handed_on_unchanged`]).
    pub(crate) fn unchanged_from(&self, node: Option<u32>) -> bool {
        let mut at = node.and_then(|i| self.nodes.get(i as usize));
        while let Some(n) = at {
            let Some(below) = n.below.and_then(|b| self.nodes.get(b as usize)) else {
                // The bottom: the core's own answer (a link that answered without
                // calling `next` answered something of its own).
                return n.link.is_none();
            };
            let same = match (&n.answer, &below.answer) {
                (Ok(a), Ok(b)) => Reply::ptr_eq(a, b),
                (Err(a), Err(b)) => a.same(b),
                _ => false,
            };
            if !same {
                return false;
            }
            at = Some(below);
        }
        true
    }

    fn node(&self, at: Option<u32>) -> Option<&TraceNode> {
        at.and_then(|i| self.nodes.get(i as usize))
    }

    /// The entries of the trace from `node` down, outermost first.
    pub(crate) fn entries(&self, links: &[Link], node: Option<u32>) -> Vec<TraceEntry> {
        let mut out = Vec::new();
        let mut at = node;
        while let Some(n) = self.node(at) {
            out.push(self.entry_of(links, n));
            at = n.below;
        }
        out
    }

    /// The entries of the trace from `node` down of the links (not the core) whose
    /// batch, merged, answered something other than the very value its `next` answered
    /// (see [`crate::Next::trace_of_changes`]), outermost first, not yet merged. The
    /// other entries are walked in place and not copied.
    pub(crate) fn changed_entries(&self, links: &[Link], node: Option<u32>) -> Vec<TraceEntry> {
        let batch_of = |n: &TraceNode| {
            n.link
                .and_then(|i| links.get(i as usize))
                .and_then(|l| l.batch)
        };
        let mut out = Vec::new();
        let mut at = node;
        while let Some(first) = self.node(at).filter(|n| n.link.is_some()) {
            // The batch's last member: a batch is one entry (SPEC §1.1).
            let mut last = first;
            if let Some(b) = batch_of(first) {
                while let Some(n) = self
                    .node(last.below)
                    .filter(|n| n.link.is_some() && batch_of(n) == Some(b))
                {
                    last = n;
                }
            }
            let handed = self.node(last.below).map(|b| &b.answer);
            let unchanged = last.called_next
                && matches!((handed, &first.answer), (Some(Ok(h)), Ok(a)) if Reply::ptr_eq(h, a));
            let mut member = Some(first);
            while let Some(n) = member {
                if !unchanged {
                    out.push(self.entry_of(links, n));
                }
                if std::ptr::eq(n, last) {
                    break;
                }
                member = self.node(n.below);
            }
            at = last.below;
        }
        out
    }

    fn entry_of(&self, links: &[Link], n: &TraceNode) -> TraceEntry {
        let handed = self.node(n.below).map(|b| b.answer.clone());
        match n.link.and_then(|i| links.get(i as usize)) {
            Some(l) => TraceEntry {
                tier: l.plugin.info.tier,
                plugins: vec![l.plugin.info.name.clone()],
                member_tiers: vec![l.plugin.info.tier],
                called_next: n.called_next,
                handed,
                answer: n.answer.clone(),
                failure: n.failure,
                batch: l.batch,
            },
            None => TraceEntry {
                tier: Tier::Core,
                plugins: Vec::new(),
                member_tiers: Vec::new(),
                called_next: n.called_next,
                handed,
                answer: n.answer.clone(),
                failure: n.failure,
                batch: None,
            },
        }
    }
}

fn lost_answer() -> ChainError {
    ChainError::new(FailureKind::Error, "the chain's answer was lost")
}

fn stale_next() -> ChainError {
    ChainError::new(
        FailureKind::Error,
        "next was called after its hook had answered",
    )
}

impl Run {
    pub(crate) fn new(
        engine: Arc<EngineInner>,
        links: Arc<[Link]>,
        origin: Arc<Origin>,
        excluded: Arc<[HookKey]>,
        given: Option<(EventName, Reply)>,
        epoch: u64,
        depth: u8,
    ) -> Arc<Run> {
        let frames = links.len() + 1;
        Arc::new(Run {
            engine,
            origin,
            excluded,
            given,
            epoch,
            depth,
            state: Mutex::new(RunState {
                frames: Vec::with_capacity(frames),
                nodes: Vec::with_capacity(frames),
                core_answer: None,
                driver: None,
                gens: 0,
            }),
            links,
        })
    }

    fn catalogue(&self) -> &Catalogue {
        &self.engine.catalogue
    }

    fn log(&self, line: String) {
        self.engine.core.engine_log(Channel::Debug, line);
    }
}

/// What a hook's `next(e)` returns (SPEC §1.1; [`crate::Next::run`], [`crate::Next::to`]): a future
/// of the rest of the chain's answer. It runs nothing itself: the chain's driver runs
/// the rest of the chain when the hook waits on it.
///
/// # Errors
///
/// Its output is the rest of the chain's error, a pin failure (kind `pin`), a forbidden
/// jump (kind `forbidden-jump`), or, for a `next` kept past its hook's answer, an error
/// of kind `error`.
#[must_use = "the rest of the chain runs only when its answer is awaited"]
pub struct NextAnswer {
    state: NextAnswerState,
}

enum NextAnswerState {
    Ready(Option<Answer>),
    Start {
        run: Arc<Run>,
        slot: usize,
        gen: u64,
        event: Event,
        skip: TierSet,
    },
    Waiting {
        run: Arc<Run>,
        slot: usize,
        gen: u64,
        ticket: u32,
    },
}

impl std::fmt::Debug for NextAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = match &self.state {
            NextAnswerState::Ready(_) => "ready",
            NextAnswerState::Start { .. } => "not started",
            NextAnswerState::Waiting { .. } => "running",
        };
        f.debug_struct("NextAnswer")
            .field("state", &at)
            .finish_non_exhaustive()
    }
}

impl NextAnswer {
    pub(crate) fn ready(answer: Answer) -> Self {
        NextAnswer {
            state: NextAnswerState::Ready(Some(answer)),
        }
    }

    pub(crate) fn start(run: Arc<Run>, slot: usize, gen: u64, event: Event, skip: TierSet) -> Self {
        NextAnswer {
            state: NextAnswerState::Start {
                run,
                slot,
                gen,
                event,
                skip,
            },
        }
    }
}

impl Future for NextAnswer {
    type Output = Answer;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let this = &mut *self;
        loop {
            match &mut this.state {
                NextAnswerState::Ready(a) => {
                    return Poll::Ready(a.take().unwrap_or_else(|| Err(lost_answer())))
                }
                NextAnswerState::Start { .. } => {
                    let NextAnswerState::Start {
                        run,
                        slot,
                        gen,
                        event,
                        skip,
                    } = std::mem::replace(&mut this.state, NextAnswerState::Ready(None))
                    else {
                        continue;
                    };
                    // Polled inside its hook's own poll, the driver polls the hook again
                    // when the answer is there; polled elsewhere, it must be woken.
                    let waker = (!polling_inside(&run, slot)).then(|| cx.waker().clone());
                    match ask(&run, slot, gen, event, skip, waker) {
                        Ok(ticket) => {
                            this.state = NextAnswerState::Waiting {
                                run,
                                slot,
                                gen,
                                ticket,
                            };
                            // The driver runs the request only once this poll returns.
                            return Poll::Pending;
                        }
                        Err(answer) => return Poll::Ready(answer),
                    }
                }
                NextAnswerState::Waiting {
                    run,
                    slot,
                    gen,
                    ticket,
                } => {
                    let inside = polling_inside(run, *slot);
                    let mut st = run.state.lock();
                    let Some(f) = st.frame(*slot, *gen) else {
                        drop(st);
                        this.state = NextAnswerState::Ready(None);
                        return Poll::Ready(Err(stale_next()));
                    };
                    if let Some(node) = f.replies.take(*ticket) {
                        let answer = st.answer_of(node);
                        drop(st);
                        this.state = NextAnswerState::Ready(None);
                        return Poll::Ready(answer);
                    }
                    if !inside {
                        f.waiters.put(*ticket, cx.waker().clone());
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}

/// A `next(e)` of the hook in `slot`: a replay, a pin failure, or a request the driver
/// will run (its ticket).
fn ask(
    run: &Run,
    slot: usize,
    gen: u64,
    event: Event,
    skip: TierSet,
    waker: Option<Waker>,
) -> Result<u32, Answer> {
    let mut st = run.state.lock();
    let Some(f) = st.frame(slot, gen) else {
        return Err(Err(stale_next()));
    };
    if let Some(r) = f.replay {
        f.last = Some(r);
        return Err(st.answer_of(r));
    }
    let catalogue = run.catalogue();
    // The event handed on as received (a pass-through) keeps its pins: no walk.
    let same = Arc::ptr_eq(&f.received.fields, &event.fields) && f.received.name == event.name;
    let event = if same {
        event
    } else {
        catalogue.restore_pins(&f.received, event)
    };
    if !same && !catalogue.keeps_pins(&f.received, &event) {
        let failure = HookFailure::new(
            FailureKind::Pin,
            format!("handed on a changed pinned field of {}", event.name),
        );
        let err = ChainError::from_failure(failure.clone());
        f.broke.get_or_insert(failure);
        return Err(Err(err));
    }
    f.called = true;
    let ticket = f.tickets;
    f.tickets = f.tickets.wrapping_add(1);
    let asked = Asked {
        ticket,
        event,
        skip,
    };
    if f.asked.is_none() {
        f.asked = Some(asked);
    } else {
        f.queued.push(asked);
    }
    f.clock.pause();
    if let Some(w) = waker {
        f.waiters.put(ticket, w);
    }
    // The driver may be waiting elsewhere (this `next` was polled off its own polls).
    let waker = st.driver.take();
    drop(st);
    if let Some(w) = waker {
        w.wake();
    }
    Ok(ticket)
}

impl Drop for NextAnswer {
    fn drop(&mut self) {
        let NextAnswerState::Waiting {
            run,
            slot,
            gen,
            ticket,
        } = &self.state
        else {
            return;
        };
        let mut st = run.state.lock();
        let Some(f) = st.frame(*slot, *gen) else {
            return;
        };
        if f.in_flight == Some(*ticket) {
            // The driver drops the child's frames and resumes the clock.
            f.cancelled = true;
        } else if f.asked.as_ref().is_some_and(|a| a.ticket == *ticket) {
            f.asked = None;
            f.clock.resume();
        } else if let Some(i) = f.queued.iter().position(|a| a.ticket == *ticket) {
            f.queued.remove(i);
            f.clock.resume();
        } else {
            let _ = f.replies.take(*ticket);
        }
        let _ = f.waiters.take(*ticket);
    }
}

type HookFuture = CatchUnwind<AssertUnwindSafe<BoxFuture<'static, HookResult>>>;

/// What a failed hook had done, kept while its failure handler runs: the handler's
/// own `next` calls do not change what the failed hook's link settles on.
struct Failed {
    failure: HookFailure,
    called: bool,
    last: Option<u32>,
}

enum Work {
    Hook {
        fut: HookFuture,
        /// Whether its answer is checked against its event's shape (a JSON hook's,
        /// SPEC §1.7b).
        checked: bool,
        /// Set while the frame runs the failure handler of a failed hook.
        handler: Option<Failed>,
        delay: Option<futures_timer::Delay>,
        /// The hook meters its own time ([`crate::Hook::meters_own_time`]): no timer
        /// is armed for it here.
        own_clock: bool,
    },
    Core(BoxFuture<'static, Answer>),
    /// A dropped link waiting on the rest of the chain, run in its place (SPEC §1.2).
    DropOn(HookFailure),
}

struct Frame {
    /// The link's index (`links.len()` for the core).
    pos: usize,
    skip: TierSet,
    work: Work,
}

/// What polling a frame came to.
enum Step {
    /// The frame (or a child it pushed) needs polling now.
    Again,
    /// The frame waits.
    Waits,
    /// The frame answered: its answer and trace.
    Answered(Answer, Option<FailureKind>),
}

/// The frames to poll, topmost last: a stack whose top is kept apart, so that a run
/// whose hooks never suspend (one frame to poll at a time) allocates nothing for it.
#[derive(Default)]
struct Todo {
    top: Option<usize>,
    rest: Vec<usize>,
}

impl Todo {
    fn push(&mut self, slot: usize) {
        if let Some(below) = self.top.replace(slot) {
            self.rest.push(below);
        }
    }

    fn pop(&mut self) -> Option<usize> {
        self.top.take().or_else(|| self.rest.pop())
    }

    fn clear(&mut self) {
        self.top = None;
        self.rest.clear();
    }
}

/// The future of one raise's chain run: its answer and its trace (arena index).
pub(crate) struct Driver {
    pub(crate) run: Arc<Run>,
    stack: Vec<Frame>,
    /// Frames to poll, topmost last.
    todo: Todo,
    started: bool,
    first: Option<(Event, TierSet)>,
}

impl Driver {
    pub(crate) fn new(run: Arc<Run>, event: Event, skip: TierSet) -> Self {
        Driver {
            stack: Vec::with_capacity(run.links.len() + 1),
            run,
            todo: Todo::default(),
            started: false,
            first: Some((event, skip)),
        }
    }

    /// Pushes the frame of the first link at or after `pos` not in `skip` (the core's
    /// when none is left).
    fn push_from(&mut self, pos: usize, event: Event, skip: TierSet) {
        let run = Arc::clone(&self.run);
        let found = run
            .links
            .iter()
            .enumerate()
            .skip(pos)
            .find(|(_, l)| !skip.contains(l.plugin.info.tier))
            .and_then(|(i, l)| {
                l.plugin
                    .registrations
                    .get(l.reg)
                    .map(|r| (i, Arc::clone(&r.hook), !r.typed))
            });
        let slot = self.stack.len();
        let gen = {
            let mut st = run.state.lock();
            st.gens += 1;
            let gen = st.gens;
            st.frames.push(FrameState::new(gen, event.clone()));
            gen
        };
        let Some((pos, hook, checked)) = found else {
            let work = self.core_work(slot, gen, event);
            self.stack.push(Frame {
                pos: run.links.len(),
                skip,
                work,
            });
            self.todo.push(slot);
            return;
        };
        let cx = Cx::of_link(Arc::clone(&run), pos, slot, gen);
        let next = crate::Next::new(Arc::clone(&run), slot, gen, pos, skip);
        let own_clock = hook.meters_own_time();
        let fut = hook_future(hook.as_ref(), cx, event, next);
        self.stack.push(Frame {
            pos,
            skip,
            work: Work::Hook {
                fut,
                checked,
                handler: None,
                delay: None,
                own_clock,
            },
        });
        self.todo.push(slot);
    }

    fn core_work(&self, slot: usize, gen: u64, event: Event) -> Work {
        let run = &self.run;
        if let Some((name, given)) = &run.given {
            if *name == event.name {
                let answer = Ok(given.clone());
                return Work::Core(Box::pin(async move { answer }));
            }
        }
        {
            let st = run.state.lock();
            if let Some((seen, node)) = st.core_answer.as_ref() {
                if *seen == event {
                    let answer = st.answer_of(*node);
                    return Work::Core(Box::pin(async move { answer }));
                }
            }
        }
        let cx = Cx::of_core(Arc::clone(run), slot, gen);
        Work::Core(run.engine.core.answer(cx, event))
    }

    /// Drops every frame above `slot` (their hooks' futures first, then their slots).
    fn truncate_above(&mut self, slot: usize) {
        let dropped: Vec<Frame> = self.stack.drain(slot + 1..).collect();
        drop(dropped);
        let mut st = self.run.state.lock();
        st.frames.truncate(slot + 1);
        if let Some(f) = st.frames.get_mut(slot) {
            if f.in_flight.take().is_some() {
                f.clock.resume();
            }
            f.cancelled = false;
        }
    }

    fn poll_frame(&mut self, slot: usize, cx: &mut Context<'_>) -> Step {
        let Some(frame) = self.stack.get_mut(slot) else {
            return Step::Waits;
        };
        let (polled, checked) = match &mut frame.work {
            Work::Core(fut) => {
                return match fut.as_mut().poll(cx) {
                    Poll::Ready(answer) => Step::Answered(answer, None),
                    Poll::Pending => Step::Waits,
                }
            }
            Work::DropOn(_) => return Step::Waits,
            Work::Hook { fut, checked, .. } => {
                // A hook's poll catches its own panics, so the marker is always put back
                // (a hook that raises an event polls another driver inside).
                let here = (Arc::as_ptr(&self.run) as usize, slot);
                let before = POLLING.with(|p| p.replace(here));
                let polled = fut.poll_unpin(cx);
                POLLING.with(|p| p.set(before));
                (polled, *checked)
            }
        };
        match polled {
            Poll::Ready(Err(p)) => self.failed(
                slot,
                HookFailure::new(FailureKind::Panic, panic_message(&*p)),
            ),
            Poll::Ready(Ok(result)) => self.judged(slot, checked, result),
            Poll::Pending => self.suspended(slot, cx),
        }
    }

    /// The hook in `slot` returned `Pending`: it asked for `next` (its child is pushed),
    /// it waits inside `next` or a raised event, or it waits on its own (its clock runs
    /// and its timer is armed, SPEC §1.1).
    fn suspended(&mut self, slot: usize, cx: &mut Context<'_>) -> Step {
        let budget = self.run.engine.hook_timeout;
        let run = Arc::clone(&self.run);
        let mut st = run.state.lock();
        if st.frames.get(slot).is_some_and(|f| f.cancelled) {
            drop(st);
            self.truncate_above(slot);
            st = run.state.lock();
        }
        let Some(f) = st.frames.get_mut(slot) else {
            return Step::Waits;
        };
        if f.in_flight.is_none() {
            if let Some(asked) = f.take_asked() {
                f.in_flight = Some(asked.ticket);
                drop(st);
                let pos = self.stack.get(slot).map_or(usize::MAX, |fr| fr.pos);
                self.clear_delay(slot);
                self.push_from(pos.saturating_add(1), asked.event, asked.skip);
                return Step::Again;
            }
        }
        let own_clock = matches!(
            self.stack.get(slot),
            Some(Frame {
                work: Work::Hook {
                    own_clock: true,
                    ..
                },
                ..
            })
        );
        if f.clock.paused() || own_clock {
            drop(st);
            self.clear_delay(slot);
            return Step::Waits;
        }
        let left = f.clock.suspended(budget);
        drop(st);
        if left.is_zero() {
            return self.failed(slot, timeout(budget));
        }
        let Some(Frame {
            work: Work::Hook { delay, .. },
            ..
        }) = self.stack.get_mut(slot)
        else {
            return Step::Waits;
        };
        let d = delay.get_or_insert_with(|| futures_timer::Delay::new(left));
        d.reset(left);
        if d.poll_unpin(cx).is_ready() {
            // The timer fired at once: look again.
            self.todo.push(slot);
            return Step::Again;
        }
        Step::Waits
    }

    fn clear_delay(&mut self, slot: usize) {
        if let Some(Frame {
            work: Work::Hook { delay, .. },
            ..
        }) = self.stack.get_mut(slot)
        {
            *delay = None;
        }
    }

    /// A hook's result, judged (SPEC §1.1, §1.2, §1.7b).
    fn judged(&mut self, slot: usize, checked: bool, result: HookResult) -> Step {
        let (broke, propagated, handed_on, name) = {
            let mut st = self.run.state.lock();
            let last = st.frames.get(slot).and_then(|f| f.last);
            let propagated = match &result {
                Err(HookError::Chain(e)) => st.last_is_error(last, e),
                _ => false,
            };
            // An answer handed on as `next` answered it was judged where it was made.
            let handed_on = match &result {
                Ok(v) => st.last_is_reply(last, v),
                Err(_) => false,
            };
            match st.frames.get_mut(slot) {
                Some(f) => (
                    f.broke.take(),
                    propagated,
                    handed_on,
                    f.received.name.clone(),
                ),
                None => (None, propagated, handed_on, EventName::from("")),
            }
        };
        if let Some(b) = broke {
            return self.failed(slot, b);
        }
        match result {
            Ok(v) => {
                if checked && !handed_on && !self.run.catalogue().answer_ok(&name, &v) {
                    let msg = format!("answered {v}, which is not a {name} result");
                    return self.failed(slot, HookFailure::new(FailureKind::InvalidAnswer, msg));
                }
                Step::Answered(Ok(v), None)
            }
            Err(HookError::Chain(e)) if propagated => Step::Answered(Err(e), None),
            Err(HookError::Chain(e)) => self.failed(
                slot,
                HookFailure {
                    kind: FailureKind::Error,
                    message: e.failure().message.clone(),
                },
            ),
            Err(HookError::Failed(f)) => self.failed(slot, f),
        }
    }

    /// A hook failed: its failure handler decides, or the event's fail-closed answer,
    /// or the link is dropped (SPEC §1.1, §1.2, §1.8).
    fn failed(&mut self, slot: usize, failure: HookFailure) -> Step {
        self.truncate_above(slot);
        let run = Arc::clone(&self.run);
        let Some(frame) = self.stack.get_mut(slot) else {
            return Step::Waits;
        };
        let Some(link) = run.links.get(frame.pos) else {
            return Step::Answered(Err(ChainError::from_failure(failure)), None);
        };
        let handler_of = match &mut frame.work {
            Work::Hook { handler, .. } => handler.take(),
            _ => None,
        };
        let in_handler = handler_of.is_some();
        // A failure handler decides (SPEC §1.1) — once: a handler that fails too leaves
        // the failed hook's failure to settle the link.
        let (failure, restore) = match handler_of {
            Some(f) => (f.failure, Some((f.called, f.last))),
            None => (failure, None),
        };
        let catch = link
            .plugin
            .registrations
            .get(link.reg)
            .and_then(|r| r.catch.clone());
        if let (false, Some(catch)) = (in_handler, catch) {
            let (gen, event, saved) = {
                let mut st = run.state.lock();
                st.gens += 1;
                let gen = st.gens;
                let Some(f) = st.frames.get_mut(slot) else {
                    return Step::Waits;
                };
                let saved = Failed {
                    failure: failure.clone(),
                    called: f.called,
                    last: f.last,
                };
                f.gen = gen;
                f.error = Some(failure.clone());
                f.replay = if f.called { f.last } else { None };
                f.broke = None;
                f.asked = None;
                f.queued.clear();
                f.replies.clear();
                f.waiters.clear();
                f.clock = Clock::default();
                (gen, f.received.clone(), saved)
            };
            let cx = Cx::of_link(Arc::clone(&run), frame.pos, slot, gen);
            let next = crate::Next::new(Arc::clone(&run), slot, gen, frame.pos, frame.skip);
            frame.work = Work::Hook {
                own_clock: catch.meters_own_time(),
                fut: hook_future(catch.as_ref(), cx, event, next),
                checked: true,
                handler: Some(saved),
                delay: None,
            };
            self.todo.push(slot);
            return Step::Again;
        }
        self.failed_for_good(slot, failure, restore)
    }

    /// The link's failure stands: the event's fail-closed answer (SPEC §1.8), or the
    /// link dropped and the chain going on without it (SPEC §1.2).
    fn failed_for_good(
        &mut self,
        slot: usize,
        failure: HookFailure,
        restore: Option<(bool, Option<u32>)>,
    ) -> Step {
        let run = Arc::clone(&self.run);
        let Some(frame) = self.stack.get_mut(slot) else {
            return Step::Waits;
        };
        let Some(link) = run.links.get(frame.pos) else {
            return Step::Answered(Err(ChainError::from_failure(failure)), None);
        };
        let info = &link.plugin.info;
        let (name, called, last, event, limited) = {
            let mut st = run.state.lock();
            let Some(f) = st.frames.get_mut(slot) else {
                return Step::Waits;
            };
            if let Some((called, last)) = restore {
                f.called = called;
                f.last = last;
            }
            (
                f.received.name.clone(),
                f.called,
                f.last,
                f.received.clone(),
                f.limited,
            )
        };
        let fail_closed = run
            .catalogue()
            .fail_closed_answer(&name, info, &failure, limited);
        let line = |said: &str| {
            format!(
                "hook of {} failed at {} ({}): {}; {said}",
                crate::escaped(&info.name),
                crate::escaped(&name),
                failure.kind,
                crate::escaped(&logged_message(failure.message_or_default()))
            )
        };
        if let Some((answer, said)) = fail_closed {
            run.log(line(said));
            return Step::Answered(Ok(Reply::new(answer)), Some(failure.kind));
        }
        if limited {
            // SPEC §1.8 **[revised]**: an organization's or built-in hook whose raise was
            // refused for a limit does not drop out where its event has no fail-closed
            // answer: the refusal is the answer, so whoever waits on it (a plugin's `$`
            // call, the core) is refused too, never handed what the rest of the chain
            // said without it.
            run.log(line("the event was refused"));
            let kind = failure.kind;
            return Step::Answered(Err(ChainError::limit(failure)), Some(kind));
        }
        run.log(line("the chain went on without it"));
        if let (true, Some(last)) = (called, last) {
            let answer = run.state.lock().answer_of(last);
            return Step::Answered(answer, Some(failure.kind));
        }
        let (pos, skip) = (frame.pos + 1, frame.skip);
        frame.work = Work::DropOn(failure);
        self.push_from(pos, event, skip);
        Step::Again
    }

    /// The frame at `slot` (the top) answered: its trace entry is recorded, it is popped
    /// and its answer goes to the frame beneath. Answers the run's result when it was the
    /// outermost.
    fn answered(
        &mut self,
        mut slot: usize,
        mut answer: Answer,
        mut failure: Option<FailureKind>,
    ) -> Option<(Answer, Option<u32>)> {
        loop {
            if slot + 1 < self.stack.len() {
                self.truncate_above(slot);
            }
            let frame = self.stack.pop()?;
            let mut st = self.run.state.lock();
            let is_core = frame.pos >= self.run.links.len();
            let (called, below, received) = {
                let f = st.frames.last()?;
                (f.called, f.last, is_core.then(|| f.received.clone()))
            };
            // The slot is dropped in place, not moved out.
            let depth = st.frames.len() - 1;
            st.frames.truncate(depth);
            let link = (!is_core).then(|| u32::try_from(frame.pos).unwrap_or(u32::MAX));
            // The answer goes on up by value only to the outermost caller or a dropped
            // link; a hook's `next` takes its copy from the trace entry.
            let parent_drops = slot > 0
                && matches!(
                    self.stack.get(slot - 1),
                    Some(Frame {
                        work: Work::DropOn(_),
                        ..
                    })
                );
            let carried = (slot == 0 || parent_drops).then(|| answer.clone());
            let node = st.push_node(TraceNode {
                link,
                called_next: called,
                answer,
                failure,
                below,
            });
            if let Some(received) = received {
                st.core_answer = Some((received, node));
            }
            let Some(answer_up) = carried else {
                // A hook's `next` answers: the frame beneath takes it from the entry.
                slot -= 1;
                let Some(pf) = st.frames.get_mut(slot) else {
                    return Some((Err(lost_answer()), Some(node)));
                };
                pf.last = Some(node);
                let waiter = match pf.in_flight.take() {
                    Some(ticket) => {
                        pf.replies.put(ticket, node);
                        pf.clock.resume();
                        pf.waiters.take(ticket)
                    }
                    None => None,
                };
                drop(st);
                if let Some(w) = waiter {
                    w.wake();
                }
                self.todo.push(slot);
                return None;
            };
            answer = answer_up;
            if slot == 0 {
                return Some((answer, Some(node)));
            }
            slot -= 1;
            if let Some(Frame {
                work: Work::DropOn(dropped),
                ..
            }) = self.stack.get(slot)
            {
                // A dropped link settles on what the rest of the chain answered.
                failure = Some(dropped.kind);
                if let Some(pf) = st.frames.get_mut(slot) {
                    pf.last = Some(node);
                }
                continue;
            }
            return Some((answer, Some(node)));
        }
    }
}

/// How much of a failure's message the engine's debug line keeps (SPEC §6 "Limits": a
/// hook that fails with a message of many megabytes at every event must not grow the
/// log the embedding program keeps by as much; the hook's failure handler still reads
/// the whole message in `next.error`).
const LOGGED_MESSAGE: usize = 4096;

/// `message` as the engine's failure line shows it: its first [`LOGGED_MESSAGE`]
/// characters, and `...` when cut.
fn logged_message(message: &str) -> std::borrow::Cow<'_, str> {
    match message.char_indices().nth(LOGGED_MESSAGE) {
        Some((at, _)) => format!("{}...", message.get(..at).unwrap_or_default()).into(),
        None => message.into(),
    }
}

fn timeout(budget: std::time::Duration) -> HookFailure {
    HookFailure::new(
        FailureKind::Timeout,
        format!("ran past the hook timeout of {} ms", budget.as_millis()),
    )
}

/// Calls a hook. A hook that panics before it returns a future answers a future that
/// panics again when polled, to be caught as any other panic (SPEC §1.9).
fn hook_future(
    hook: &dyn crate::plugin::Hook,
    cx: Cx,
    event: Event,
    next: crate::Next,
) -> HookFuture {
    let fut = match std::panic::catch_unwind(AssertUnwindSafe(|| hook.call(cx, event, next))) {
        Ok(fut) => fut,
        Err(p) => Box::pin(async move { std::panic::resume_unwind(p) }),
    };
    AssertUnwindSafe(fut).catch_unwind()
}

impl Future for Driver {
    type Output = (Answer, Option<u32>);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        this.run.state.lock().driver = None;
        if !this.started {
            this.started = true;
            if let Some((event, skip)) = this.first.take() {
                this.push_from(0, event, skip);
            }
        } else {
            // Woken: any live frame may have been (SPEC §1.1 timeouts, a hook's own waits).
            this.todo.clear();
            for slot in 0..this.stack.len() {
                this.todo.push(slot);
            }
        }
        while let Some(slot) = this.todo.pop() {
            if slot >= this.stack.len() {
                continue;
            }
            match this.poll_frame(slot, cx) {
                Step::Again | Step::Waits => {}
                Step::Answered(answer, failure) => {
                    if let Some(done) = this.answered(slot, answer, failure) {
                        return Poll::Ready(done);
                    }
                }
            }
        }
        let mut st = this.run.state.lock();
        // A request that came while the driver was not looking (a `next` polled
        // elsewhere) is run now; otherwise wait.
        let pending = st
            .frames
            .last()
            .is_some_and(|f| f.in_flight.is_none() && (f.asked.is_some() || !f.queued.is_empty()));
        if pending {
            drop(st);
            cx.waker().wake_by_ref();
        } else {
            st.driver = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked".to_owned()
    }
}
