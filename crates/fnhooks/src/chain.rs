//! The engine and its chain: `next`, `next.to`, `next.origin`, `next.trace`, pins,
//! failure handlers and timeouts (SPEC §1.1, §1.2, §1.3, §1.8, §1.9).

use crate::catalogue::Catalogue;
use crate::event::{Event, FailureKind, HookFailure, Origin};
use crate::plugin::{HookError, HookResult, Plugin, PluginInfo, Registration};
use crate::timer::own_time_limit;
use crate::Tier;
use futures::future::BoxFuture;
use futures::FutureExt;
use parking_lot::{Mutex, RwLock};
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

/// An error that came back from a chain in place of an answer (SPEC §1.1: "a core that
/// cannot read the policy answers an error"; a dropped link whose last run failed).
/// Cheap to clone; two clones of one error are the same error ([`ChainError::same`]).
#[derive(Clone)]
pub struct ChainError(Arc<HookFailure>);

impl ChainError {
    /// A new error of this kind with this message.
    #[must_use]
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        ChainError(Arc::new(HookFailure::new(kind, message)))
    }

    /// How the chain failed.
    #[must_use]
    pub fn failure(&self) -> &HookFailure {
        &self.0
    }

    /// Whether `other` is this very error (not merely an equal one).
    #[must_use]
    pub fn same(&self, other: &ChainError) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl fmt::Debug for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ChainError({})", self.0)
    }
}

impl fmt::Display for ChainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.message_or_default())
    }
}

impl std::error::Error for ChainError {}

impl PartialEq for ChainError {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// What a chain (or `next`) answers: the event's result, or an error.
pub type Answer = Result<Value, ChainError>;

/// A log channel (SPEC §1.5 `ui.log`): `screen` or `debug`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// Shown to the person.
    Screen,
    /// The debug log.
    Debug,
}

impl Channel {
    /// `screen` or `debug`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Screen => "screen",
            Channel::Debug => "debug",
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of tiers a run passes over (SPEC §1.1 `next.to`: the tiers strictly between the
/// caller's and the target, skipped for the rest of that run).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct TierSet(u8);

impl TierSet {
    fn bit(t: Tier) -> u8 {
        1 << (t as u8)
    }

    fn of(tiers: &[Tier]) -> Self {
        TierSet(tiers.iter().fold(0, |acc, t| acc | Self::bit(*t)))
    }

    fn contains(self, t: Tier) -> bool {
        self.0 & Self::bit(t) != 0
    }

    /// This set with every tier strictly between `from` and `to` added.
    fn with_between(self, from: Tier, to: Tier) -> Self {
        let between = Tier::ALL
            .iter()
            .filter(|t| **t > from && **t < to)
            .fold(0, |acc, t| acc | Self::bit(*t));
        TierSet(self.0 | between)
    }
}

/// Which registration of which seated plugin a link runs: a hook's identity, so that an
/// event a hook raises runs without that hook (SPEC §1.1: no re-entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HookKey {
    plugin: usize,
    reg: usize,
}

/// The engine's own answer of every event (the `core` tier), and its log sink.
/// The embedding program implements it (SPEC §0, §1.5).
pub trait Core: Send + Sync + 'static {
    /// The core link's answer to `event`, raised by `cx.origin()`.
    fn answer(&self, cx: Cx, event: Event) -> BoxFuture<'static, Answer>;

    /// Writes an engine line (SPEC §1.9) straight to the log, past the `ui.log` chain.
    fn engine_log(&self, channel: Channel, line: String);
}

/// One entry of `next.trace` (SPEC §1.1): what one link (or one batch of plugins
/// sharing a worker) beneath the caller did in that run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceEntry {
    /// The link's pinned tier (a batch: its first member's).
    pub tier: Tier,
    /// The plugin names the entry stands for (empty for `core`).
    pub plugins: Vec<String>,
    /// The plugins' pinned tiers, member by member.
    #[serde(skip)]
    pub member_tiers: Vec<Tier>,
    /// Whether the link handed the event on (called `next` or `next.to`).
    pub called_next: bool,
    /// What its own `next` returned to it (`None` when it never called `next`).
    #[serde(serialize_with = "ser_opt_answer")]
    pub handed: Option<Answer>,
    /// What it answered to the link above.
    #[serde(serialize_with = "ser_answer")]
    pub answer: Answer,
    /// How it failed, when its answer is not its own (dropped, or replaced by the
    /// engine's deny of SPEC §1.8). A batch entry carries it only when every member
    /// failed so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    #[serde(skip)]
    batch: Option<usize>,
}

impl TraceEntry {
    /// Whether the entry's answer is the plugins' own (not a dropped link's).
    #[must_use]
    pub fn answered_itself(&self) -> bool {
        self.failure.is_none()
    }
}

/// An answer as JSON: the value, or `{"$error": {kind, message}}`.
#[must_use]
pub fn answer_to_json(answer: &Answer) -> Value {
    match answer {
        Ok(v) => v.clone(),
        Err(e) => json!({ "$error": e.failure() }),
    }
}

fn ser_answer<S: serde::Serializer>(a: &Answer, s: S) -> Result<S::Ok, S::Error> {
    answer_to_json(a).serialize(s)
}

fn ser_opt_answer<S: serde::Serializer>(a: &Option<Answer>, s: S) -> Result<S::Ok, S::Error> {
    a.as_ref().map(answer_to_json).serialize(s)
}

/// A trace as the chain builds it: a persistent list, outermost first, so that a link
/// prepends its own entry to what ran beneath it without copying (SPEC §1.1 `next.trace`;
/// DESIGN: no copying on the hot path).
type Trace = Option<Arc<TraceNode>>;

struct TraceNode {
    entry: TraceEntry,
    below: Trace,
}

/// A trace of any length drops without recursing: each node hands the rest of the list
/// it owns alone to a loop, so a chain of 100,000 links does not overflow the stack when
/// its trace goes.
impl Drop for TraceNode {
    fn drop(&mut self) {
        let mut below = self.below.take();
        while let Some(node) = below {
            match Arc::try_unwrap(node) {
                Ok(mut owned) => below = owned.below.take(),
                Err(_) => break,
            }
        }
    }
}

fn trace_node(entry: TraceEntry, below: Trace) -> Trace {
    Some(Arc::new(TraceNode { entry, below }))
}

/// The entries of a trace, outermost first.
fn trace_entries(trace: &Trace) -> Vec<TraceEntry> {
    let mut out = Vec::new();
    let mut at = trace.as_ref();
    while let Some(node) = at {
        out.push(node.entry.clone());
        at = node.below.as_ref();
    }
    out
}

/// Merges adjacent entries of one batch into one entry under the first member's tier
/// (SPEC §1.1 **\[decision\]**).
fn merge_batches(entries: &[TraceEntry]) -> Vec<TraceEntry> {
    let mut out: Vec<TraceEntry> = Vec::with_capacity(entries.len());
    for e in entries {
        if let (Some(last), Some(b)) = (out.last_mut(), e.batch) {
            if last.batch == Some(b) {
                // A member is the same member only by name *and* pinned tier: a person's
                // plugin that takes an organization's plugin's name keeps its own tier.
                for (p, t) in e.plugins.iter().zip(&e.member_tiers) {
                    let seen = last
                        .plugins
                        .iter()
                        .zip(&last.member_tiers)
                        .any(|(lp, lt)| lp == p && lt == t);
                    if !seen {
                        last.plugins.push(p.clone());
                        last.member_tiers.push(*t);
                    }
                }
                last.called_next = e.called_next;
                last.handed.clone_from(&e.handed);
                // The batch's answer is its own when any member answered itself: a
                // dropped member passes on what a later member answered.
                if e.failure.is_none() {
                    last.failure = None;
                }
                continue;
            }
        }
        out.push(e.clone());
    }
    out
}

/// A seated plugin, with what every link of it shares: its info and its origin, made
/// once at seating (no per-link copies).
struct Seated {
    info: Arc<PluginInfo>,
    origin: Arc<Origin>,
    registrations: Vec<Registration>,
}

impl Seated {
    fn new(plugin: Plugin) -> Self {
        let origin = Origin {
            tier: plugin.info.tier,
            plugin: plugin.info.name.clone(),
            id: plugin.info.id.clone(),
        };
        Seated {
            info: Arc::new(plugin.info),
            origin: Arc::new(origin),
            registrations: plugin.registrations,
        }
    }
}

struct EngineInner {
    plugins: RwLock<Vec<Arc<Seated>>>,
    core: Arc<dyn Core>,
    catalogue: Catalogue,
    hook_timeout: Duration,
}

/// The engine: its seated plugins in chain order, its core and its catalogue (SPEC §0,
/// §1). Cheap to clone (shared). Only the embedding program holds it: a hook reaches the
/// engine through its own [`Cx`] alone (SPEC §1.1).
#[derive(Clone)]
pub struct Engine {
    inner: Arc<EngineInner>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<String> = self
            .inner
            .plugins
            .read()
            .iter()
            .map(|p| p.info.id.clone())
            .collect();
        f.debug_struct("Engine")
            .field("plugins", &ids)
            .field("catalogue", &self.inner.catalogue)
            .field("hook_timeout", &self.inner.hook_timeout)
            .finish_non_exhaustive()
    }
}

/// One raise (SPEC §1.1): an event, who raises it, the tiers passed over for the whole
/// run, and an answer the embedding program gives at the core link in place of the
/// core's own (a prompt section's text, which only the host knows).
#[derive(Debug, Clone, PartialEq)]
pub struct Raise {
    event: Event,
    origin: Origin,
    skipped: Vec<Tier>,
    core_answer: Option<Value>,
}

impl Raise {
    /// `event`, raised by the engine ([`Origin::engine`]).
    #[must_use]
    pub fn new(event: Event) -> Self {
        Raise {
            event,
            origin: Origin::engine(),
            skipped: Vec::new(),
            core_answer: None,
        }
    }

    /// This raise, raised by `origin` (a plugin the embedding program hosts).
    #[must_use]
    pub fn origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }

    /// This raise with the links of the `skipped` tiers passed over for the whole run,
    /// as if a `next.to` from above the first link had skipped them (SPEC §3.9
    /// **\[decision\]**: `plugin.register` for an organization's or built-in module is
    /// raised with the `user` tier skipped).
    #[must_use]
    pub fn skipping(mut self, skipped: &[Tier]) -> Self {
        self.skipped = skipped.to_vec();
        self
    }

    /// This raise with `answer` as the core link's answer of this event (not of events
    /// its hooks raise).
    #[must_use]
    pub fn core_answer(mut self, answer: Value) -> Self {
        self.core_answer = Some(answer);
        self
    }

    /// The event raised.
    #[must_use]
    pub fn event(&self) -> &Event {
        &self.event
    }
}

impl From<Event> for Raise {
    fn from(event: Event) -> Self {
        Raise::new(event)
    }
}

/// The engine's default hook timeout: 10 seconds per hook (SPEC §1.1).
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(10);

impl Engine {
    /// An engine with no plugins, this core, this catalogue of events (their pins and
    /// answer shapes, SPEC §1.2, §1.7b, §1.8), and this per-hook timeout (a hook's own
    /// time, never the time spent inside `next`; SPEC §1.1).
    pub fn new(core: Arc<dyn Core>, catalogue: Catalogue, hook_timeout: Duration) -> Self {
        Engine {
            inner: Arc::new(EngineInner {
                plugins: RwLock::new(Vec::new()),
                core,
                catalogue,
                hook_timeout,
            }),
        }
    }

    /// The catalogue this engine was handed.
    #[must_use]
    pub fn catalogue(&self) -> &Catalogue {
        &self.inner.catalogue
    }

    /// Seats a plugin at the end of its tier. A plugin already seated under the same
    /// id is replaced in place (a reload).
    pub fn seat(&self, plugin: Plugin) {
        self.seat_at(plugin, false);
    }

    /// Seats a plugin as the first link of its tier (how the engine seats the
    /// security default, SPEC §0).
    pub fn seat_first(&self, plugin: Plugin) {
        self.seat_at(plugin, true);
    }

    fn seat_at(&self, plugin: Plugin, first: bool) {
        let mut plugins = self.inner.plugins.write();
        if let Some(slot) = plugins.iter_mut().find(|p| p.info.id == plugin.info.id) {
            *slot = Arc::new(Seated::new(plugin));
            return;
        }
        let tier = plugin.info.tier;
        let at = if first {
            plugins.iter().position(|p| p.info.tier >= tier)
        } else {
            plugins.iter().position(|p| p.info.tier > tier)
        }
        .unwrap_or(plugins.len());
        plugins.insert(at, Arc::new(Seated::new(plugin)));
    }

    /// Unseats the plugin with this id; `false` when none was seated.
    pub fn unseat(&self, id: &str) -> bool {
        let mut plugins = self.inner.plugins.write();
        let before = plugins.len();
        plugins.retain(|p| p.info.id != id);
        plugins.len() != before
    }

    /// The seated plugins, in chain order.
    #[must_use]
    pub fn plugins(&self) -> Vec<PluginInfo> {
        self.inner
            .plugins
            .read()
            .iter()
            .map(|p| PluginInfo::clone(&p.info))
            .collect()
    }

    /// The seated plugin with this id, if any.
    #[must_use]
    pub fn plugin(&self, id: &str) -> Option<PluginInfo> {
        self.inner
            .plugins
            .read()
            .iter()
            .find(|p| p.info.id == id)
            .map(|p| PluginInfo::clone(&p.info))
    }

    /// Whether some seated plugin hooks `event` (SPEC §1.3).
    #[must_use]
    pub fn is_hooked(&self, event: &Event) -> bool {
        self.inner
            .plugins
            .read()
            .iter()
            .any(|p| p.registrations.iter().any(|r| r.matches(event)))
    }

    /// Raises an event through its chain (SPEC §1.1): `raise` is an [`Event`] (raised by
    /// the engine) or a [`Raise`] (another origin, skipped tiers, a core answer given).
    /// Where no seated plugin hooks the event, the core answers directly (SPEC §1.3).
    /// The future runs on any executor.
    ///
    /// # Errors
    ///
    /// The chain's error, when the chain answers one (a core that cannot read the
    /// policy, a dropped link whose last run failed).
    pub fn raise(&self, raise: impl Into<Raise>) -> BoxFuture<'static, Answer> {
        let raise = raise.into();
        let skip = TierSet::of(&raise.skipped);
        let links = self.links_for(&raise.event, &[]);
        if raise.core_answer.is_none() && links.iter().all(|l| skip.contains(l.plugin.info.tier)) {
            let core_cx = Cx {
                inner: Arc::clone(&self.inner),
                plugin: None,
                origin: Arc::new(raise.origin),
                clock: None,
                excluded: Arc::from([]),
                own: None,
            };
            return self.inner.core.answer(core_cx, raise.event);
        }
        let run = self.run_of(links, &raise, &Arc::from([]));
        Box::pin(async move { run.run_from(0, raise.event, skip).await.0 })
    }

    /// [`Engine::raise`], also answering the trace of the whole chain run (the entries
    /// beneath an imaginary caller above the first link), batches merged.
    ///
    /// # Errors
    ///
    /// As [`Engine::raise`], in the answer.
    pub fn raise_traced(
        &self,
        raise: impl Into<Raise>,
    ) -> BoxFuture<'static, (Answer, Vec<TraceEntry>)> {
        let raise = raise.into();
        let skip = TierSet::of(&raise.skipped);
        let links = self.links_for(&raise.event, &[]);
        let run = self.run_of(links, &raise, &Arc::from([]));
        Box::pin(async move {
            let (answer, trace) = run.run_from(0, raise.event, skip).await;
            (answer, merge_batches(&trace_entries(&trace)))
        })
    }

    /// [`Engine::raise`] on the current thread (`futures::executor::block_on`); never
    /// call it inside an async runtime's task.
    ///
    /// # Errors
    ///
    /// As [`Engine::raise`].
    pub fn raise_blocking(&self, raise: impl Into<Raise>) -> Answer {
        futures::executor::block_on(self.raise(raise))
    }

    fn run_of(&self, links: Vec<Link>, raise: &Raise, excluded: &Arc<[HookKey]>) -> Arc<ChainRun> {
        Arc::new(ChainRun {
            engine: Arc::clone(&self.inner),
            links,
            origin: Arc::new(raise.origin.clone()),
            excluded: Arc::clone(excluded),
            core_answer: Mutex::new(None),
            given: raise
                .core_answer
                .clone()
                .map(|v| (raise.event.name.clone(), v)),
        })
    }

    fn links_for(&self, event: &Event, excluded: &[HookKey]) -> Vec<Link> {
        links_for(&self.inner, event, excluded)
    }
}

/// The links of `event`'s chain, without the hooks in `excluded`, with their batches.
fn links_for(inner: &EngineInner, event: &Event, excluded: &[HookKey]) -> Vec<Link> {
    let plugins = inner.plugins.read();
    let mut links: Vec<Link> = Vec::new();
    let mut batch_id = 0usize;
    for p in plugins.iter() {
        let at = Arc::as_ptr(p) as usize;
        for (reg, r) in p.registrations.iter().enumerate() {
            if r.matches(event) && !excluded.contains(&HookKey { plugin: at, reg }) {
                links.push(Link {
                    plugin: Arc::clone(p),
                    reg,
                    batch: None,
                });
            }
        }
    }
    // Batches: adjacent links whose plugins share a worker, never across the
    // user/append boundary (SPEC §1.1 [decision]).
    let mut i = 0;
    while i < links.len() {
        let mut j = i + 1;
        if let Some(w) = links.get(i).and_then(|l| l.plugin.info.worker.clone()) {
            let start_user = links
                .get(i)
                .is_some_and(|l| l.plugin.info.tier <= Tier::User);
            while links.get(j).is_some_and(|l| {
                l.plugin.info.worker.as_deref() == Some(w.as_str())
                    && (l.plugin.info.tier <= Tier::User) == start_user
            }) {
                j += 1;
            }
            if j - i > 1 {
                batch_id += 1;
                for l in links.iter_mut().take(j).skip(i) {
                    l.batch = Some(batch_id);
                }
            }
        }
        i = j;
    }
    links
}

#[derive(Clone)]
struct Link {
    plugin: Arc<Seated>,
    reg: usize,
    batch: Option<usize>,
}

impl Link {
    fn key(&self) -> HookKey {
        HookKey {
            plugin: Arc::as_ptr(&self.plugin) as usize,
            reg: self.reg,
        }
    }
}

/// A hook's own door to the engine (SPEC §1.1 `cx`): it raises events as the hook's
/// own plugin and as nothing else; it cannot seat, unseat or raise under another origin.
/// The core's `cx` raises as the engine.
///
/// There is no way from a `cx` to the engine:
///
/// ```compile_fail
/// fn reach(cx: fnhooks::Cx) { let _ = cx.engine(); }
/// ```
///
/// ```compile_fail
/// fn unseat(cx: fnhooks::Cx) { cx.unseat("cc-plugin-sec-default@builtin"); }
/// ```
///
/// ```compile_fail
/// fn seat(cx: fnhooks::Cx, p: fnhooks::Plugin) { cx.seat(p); }
/// ```
///
/// A `cx` kept past its plugin's seat (stored by a hook, and used after a reload refused
/// the plugin) raises nothing: its raise answers an error.
#[derive(Clone)]
pub struct Cx {
    inner: Arc<EngineInner>,
    plugin: Option<Arc<PluginInfo>>,
    origin: Arc<Origin>,
    /// The running hook's own-time clock: time spent in events it raises does not count
    /// as its own (each of their hooks has its own timeout), as time inside `next` does
    /// not (SPEC §1.1).
    clock: Option<Arc<Mutex<NextState>>>,
    /// The hooks an event raised through this `cx` runs without: those it is nested in,
    /// and `own`, this hook (SPEC §1.1: no re-entry). Joined only when the hook raises,
    /// so a link that raises nothing allocates nothing for it.
    excluded: Arc<[HookKey]>,
    own: Option<HookKey>,
}

impl fmt::Debug for Cx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cx")
            .field("plugin", &self.plugin.as_ref().map(|p| &p.id))
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl Cx {
    /// The plugin this `cx` belongs to (`None` for the core).
    #[must_use]
    pub fn plugin(&self) -> Option<&PluginInfo> {
        self.plugin.as_deref()
    }

    /// For the core: who raised the event it answers. For a hook: the hook's own plugin
    /// as an origin.
    #[must_use]
    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// The origin of events this `cx` raises: its plugin, or the engine.
    #[must_use]
    pub fn raiser(&self) -> Origin {
        match &self.plugin {
            Some(_) => Origin::clone(&self.origin),
            None => Origin::engine(),
        }
    }

    /// Raises an event as this plugin (or as the engine, for the core's `cx`), through
    /// the whole chain but the hooks it is nested in (SPEC §1.1: no re-entry).
    ///
    /// # Errors
    ///
    /// The chain's error.
    pub fn raise(&self, event: Event) -> BoxFuture<'static, Answer> {
        // A `cx` kept past its plugin's seat (a reload refused it, or it was unseated)
        // raises nothing: only a seated plugin raises events (SPEC §1.4, §3.9).
        if let Some(plugin) = &self.plugin {
            let seated = self
                .inner
                .plugins
                .read()
                .iter()
                .any(|p| Arc::ptr_eq(&p.info, plugin));
            if !seated {
                let msg = format!(
                    "{} is no longer seated, so it cannot raise events",
                    crate::escaped(&plugin.id)
                );
                return Box::pin(async move { Err(ChainError::new(FailureKind::Error, msg)) });
            }
        }
        let excluded: Arc<[HookKey]> = match self.own {
            Some(own) => self.excluded.iter().copied().chain([own]).collect(),
            None => Arc::clone(&self.excluded),
        };
        let raised = raise_within(&self.inner, event, Arc::new(self.raiser()), &excluded);
        match self.clock.clone() {
            None => raised,
            Some(clock) => Box::pin(async move {
                pause(&clock);
                let answer = raised.await;
                resume(&clock);
                answer
            }),
        }
    }
}

/// A raise from inside a chain (a hook's or the core's `cx`), without the hooks in
/// `excluded`.
fn raise_within(
    inner: &Arc<EngineInner>,
    event: Event,
    origin: Arc<Origin>,
    excluded: &Arc<[HookKey]>,
) -> BoxFuture<'static, Answer> {
    let links = links_for(inner, &event, excluded);
    if links.is_empty() {
        let core_cx = Cx {
            inner: Arc::clone(inner),
            plugin: None,
            origin,
            clock: None,
            excluded: Arc::clone(excluded),
            own: None,
        };
        return inner.core.answer(core_cx, event);
    }
    let run = Arc::new(ChainRun {
        engine: Arc::clone(inner),
        links,
        origin,
        excluded: Arc::clone(excluded),
        core_answer: Mutex::new(None),
        given: None,
    });
    Box::pin(async move { run.run_from(0, event, TierSet::default()).await.0 })
}

struct ChainRun {
    engine: Arc<EngineInner>,
    links: Vec<Link>,
    origin: Arc<Origin>,
    /// The hooks of the raises this one is nested in (SPEC §1.1: no re-entry).
    excluded: Arc<[HookKey]>,
    /// What the core answered in this raise, and to which event: within one raise the
    /// core answers an event once, and a re-run (`next.to` after `next`) that reaches it
    /// with the same event reuses that answer (SPEC §3.6 step 5 **\[decision\]**: a
    /// classic hook runs once per tool call, however often the chain is re-run).
    core_answer: Mutex<Option<(Event, Answer)>>,
    /// The answer the embedding program gave for this raise's event at the core link
    /// ([`Raise::core_answer`]), with the event's name.
    given: Option<(String, Value)>,
}

#[derive(Default)]
struct NextState {
    called: bool,
    last: Option<(Answer, Trace)>,
    broke: Option<HookFailure>,
    error: Option<HookFailure>,
    /// A failure handler's `next` replays the failed hook's last run instead of running
    /// the chain again (SPEC §1.1 [decision]).
    replay: Option<(Answer, Trace)>,
    in_next: Duration,
    entered: Option<std::time::Instant>,
    /// How many `next` calls and raised events are under way (the clock is paused
    /// while any is).
    depth: u32,
    /// Whether the hook has suspended, so that its own time is being measured.
    timing: bool,
}

/// The rest of the chain, as a hook sees it (SPEC §1.1): `next.run(e)` (the seed's
/// `next(e)`), `next.to(e, tier)`, `next.origin()`, `next.trace()`, and in a failure
/// handler `next.called()` and `next.error()`.
#[derive(Clone)]
pub struct Next {
    run: Arc<ChainRun>,
    /// Index of the caller's link.
    pos: usize,
    /// The tiers this run passes over at the caller's link (SPEC §1.1 `next.to`).
    skip: TierSet,
    received: Event,
    state: Arc<Mutex<NextState>>,
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next")
            .field("event", &self.received.name)
            .field("origin", &self.run.origin)
            .finish_non_exhaustive()
    }
}

impl Next {
    /// Runs the rest of the chain with `event` and returns its answer (SPEC §1.1
    /// `next(e)`). An event whose pinned fields differ from what this hook received
    /// runs nothing and fails the hook (kind `pin`, SPEC §1.2).
    ///
    /// # Errors
    ///
    /// The rest of the chain's error, or the pin failure.
    pub fn run(&self, event: Event) -> BoxFuture<'static, Answer> {
        let this = self.clone();
        Box::pin(async move { this.hand_on(event, this.skip).await })
    }

    /// Runs the rest of the chain with the tiers strictly between the caller's and
    /// `tier` skipped, for the rest of that run (SPEC §1.1 `next.to`, **\[decision,
    /// revised\]**): the remaining links of the caller's own tier still run, in order, and
    /// a link beneath that calls `next` does not bring a skipped tier back. So a
    /// `prepend` plugin's `next.to(e, append)` skips the `user` tier and nothing else.
    /// Only a plugin of a managed tier (`prepend`, `append`) may call it, and only toward
    /// a later tier (`append`, `builtin`, `core`); otherwise it runs nothing and fails the
    /// hook (kind `forbidden-jump`).
    ///
    /// # Errors
    ///
    /// The chain's error, a pin failure, or the forbidden jump.
    pub fn to(&self, event: Event, tier: Tier) -> BoxFuture<'static, Answer> {
        let this = self.clone();
        Box::pin(async move {
            let caller = this.caller_tier();
            if !caller.is_managed() || tier <= caller || tier < Tier::Append {
                let msg = format!("a {caller} plugin may not continue at the {tier} tier");
                return Err(this.break_hook(FailureKind::ForbiddenJump, msg));
            }
            this.hand_on(event, this.skip.with_between(caller, tier))
                .await
        })
    }

    /// Who raised the event (SPEC §1.1 `next.origin`), pinned by the engine.
    #[must_use]
    pub fn origin(&self) -> &Origin {
        &self.run.origin
    }

    /// What each link beneath did in the last `next`/`next.to` run, outermost first,
    /// batches merged (SPEC §1.1 `next.trace`). Empty before any call.
    #[must_use]
    pub fn trace(&self) -> Vec<TraceEntry> {
        let st = self.state.lock();
        st.last
            .as_ref()
            .map(|(_, t)| merge_batches(&trace_entries(t)))
            .unwrap_or_default()
    }

    /// In a failure handler: whether the failed hook had called `next` (or `next.to`).
    /// In a hook: whether it has so far.
    #[must_use]
    pub fn called(&self) -> bool {
        self.state.lock().called
    }

    /// In a failure handler: how the hook failed (SPEC §1.1 `next.error`).
    #[must_use]
    pub fn error(&self) -> Option<HookFailure> {
        self.state.lock().error.clone()
    }

    fn caller_tier(&self) -> Tier {
        self.run
            .links
            .get(self.pos)
            .map_or(Tier::Core, |l| l.plugin.info.tier)
    }

    fn break_hook(&self, kind: FailureKind, message: String) -> ChainError {
        let failure = HookFailure::new(kind, message);
        let err = ChainError(Arc::new(failure.clone()));
        let mut st = self.state.lock();
        if st.broke.is_none() {
            st.broke = Some(failure);
        }
        err
    }

    async fn hand_on(&self, event: Event, skip: TierSet) -> Answer {
        let replay = self.state.lock().replay.clone();
        if let Some((answer, trace)) = replay {
            self.state.lock().last = Some((answer.clone(), trace));
            return answer;
        }
        let catalogue = &self.run.engine.catalogue;
        let event = catalogue.restore_pins(&self.received, event);
        if !catalogue.keeps_pins(&self.received, &event) {
            let msg = format!("handed on a changed pinned field of {}", event.name);
            return Err(self.break_hook(FailureKind::Pin, msg));
        }
        self.state.lock().called = true;
        pause(&self.state);
        let (answer, trace) = Arc::clone(&self.run)
            .run_from(self.pos + 1, event, skip)
            .await;
        resume(&self.state);
        self.state.lock().last = Some((answer.clone(), trace));
        answer
    }
}

/// Stops a hook's own-time clock (entering `next` or a raised event). The clock is read
/// only once the hook has suspended ([`NextState::timing`]): a hook that never does
/// costs no clock read.
fn pause(state: &Mutex<NextState>) {
    let mut st = state.lock();
    if st.depth == 0 && st.timing {
        st.entered = Some(std::time::Instant::now());
    }
    st.depth += 1;
}

/// Starts a hook's own-time clock at `now`, when it first suspends: inside `next` (or a
/// raised event) already, that time is not its own.
fn start_timing(state: &Mutex<NextState>, now: std::time::Instant) {
    let mut st = state.lock();
    st.timing = true;
    if st.depth > 0 && st.entered.is_none() {
        st.entered = Some(now);
    }
}

/// Restarts a hook's own-time clock when the last `next` or raised event returns.
fn resume(state: &Mutex<NextState>) {
    let mut st = state.lock();
    st.depth = st.depth.saturating_sub(1);
    if st.depth == 0 {
        if let Some(t) = st.entered.take() {
            st.in_next += t.elapsed();
        }
    }
}

enum Outcome {
    Answered(Answer),
    Failed(HookFailure),
}

impl ChainRun {
    /// Runs the chain from link `pos` on, passing over the links of the `skip` tiers.
    fn run_from(
        self: Arc<Self>,
        pos: usize,
        event: Event,
        skip: TierSet,
    ) -> BoxFuture<'static, (Answer, Trace)> {
        Box::pin(async move {
            let at = self
                .links
                .iter()
                .enumerate()
                .skip(pos)
                .find(|(_, l)| !skip.contains(l.plugin.info.tier))
                .map(|(i, l)| (i, l.clone()));
            let Some((pos, link)) = at else {
                let answer = self.core_answer(event).await;
                let entry = TraceEntry {
                    tier: Tier::Core,
                    plugins: Vec::new(),
                    member_tiers: Vec::new(),
                    called_next: false,
                    handed: None,
                    answer: answer.clone(),
                    failure: None,
                    batch: None,
                };
                return (answer, trace_node(entry, None));
            };
            self.run_link(pos, &link, event, skip).await
        })
    }

    /// The core's answer to `event`, computed once per raise for the same event (SPEC
    /// §3.6 step 5 **\[decision\]**).
    async fn core_answer(&self, event: Event) -> Answer {
        if let Some((name, given)) = &self.given {
            if *name == event.name {
                return Ok(given.clone());
            }
        }
        if let Some((seen, answer)) = self.core_answer.lock().as_ref() {
            if *seen == event {
                return answer.clone();
            }
        }
        let cx = Cx {
            inner: Arc::clone(&self.engine),
            plugin: None,
            origin: self.origin.clone(),
            clock: None,
            excluded: Arc::clone(&self.excluded),
            own: None,
        };
        let answer = self.engine.core.answer(cx, event.clone()).await;
        *self.core_answer.lock() = Some((event, answer.clone()));
        answer
    }

    async fn run_link(
        self: Arc<Self>,
        pos: usize,
        link: &Link,
        event: Event,
        skip: TierSet,
    ) -> (Answer, Trace) {
        let info = Arc::clone(&link.plugin.info);
        let state = Arc::new(Mutex::new(NextState::default()));
        let next = Next {
            run: Arc::clone(&self),
            pos,
            skip,
            received: event.clone(),
            state: Arc::clone(&state),
        };
        let cx = Cx {
            inner: Arc::clone(&self.engine),
            plugin: Some(Arc::clone(&info)),
            origin: Arc::clone(&link.plugin.origin),
            clock: None,
            excluded: Arc::clone(&self.excluded),
            own: Some(link.key()),
        };
        let Some(registration) = link.plugin.registrations.get(link.reg) else {
            return Arc::clone(&self).run_from(pos + 1, event, skip).await;
        };
        let hook = Arc::clone(&registration.hook);
        let checked = !registration.typed;
        let outcome = self
            .drive(
                checked,
                &state,
                hook.as_ref(),
                cx.clone(),
                event.clone(),
                next.clone(),
            )
            .await;

        let entry = |answer: &Answer, failure: Option<FailureKind>, st: &NextState| TraceEntry {
            tier: info.tier,
            plugins: vec![info.name.clone()],
            member_tiers: vec![info.tier],
            called_next: st.called,
            handed: st.last.as_ref().map(|(a, _)| a.clone()),
            answer: answer.clone(),
            failure,
            batch: link.batch,
        };

        let failure = match outcome {
            Outcome::Answered(answer) => {
                let st = state.lock();
                let below = st.last.as_ref().and_then(|(_, t)| t.clone());
                let node = trace_node(entry(&answer, None, &st), below);
                return (answer, node);
            }
            Outcome::Failed(f) => f,
        };

        // A failure handler decides (SPEC §1.1).
        if let Some(catch) = registration.catch.clone() {
            let (called, last) = {
                let st = state.lock();
                (st.called, st.last.clone())
            };
            let handler_state = Arc::new(Mutex::new(NextState {
                called,
                error: Some(failure.clone()),
                replay: if called { last.clone() } else { None },
                last,
                ..NextState::default()
            }));
            let handler_next = Next {
                run: Arc::clone(&self),
                pos,
                skip,
                received: event.clone(),
                state: Arc::clone(&handler_state),
            };
            let handled = self
                .drive(
                    true,
                    &handler_state,
                    catch.as_ref(),
                    cx,
                    event.clone(),
                    handler_next,
                )
                .await;
            if let Outcome::Answered(answer) = handled {
                let st = handler_state.lock();
                let below = st.last.as_ref().and_then(|(_, t)| t.clone());
                let node = trace_node(entry(&answer, None, &st), below);
                return (answer, node);
            }
        }

        // SPEC §1.8: an organization's plugin that fails at an event that fails closed
        // (the catalogue says which: `tool.check`) answers the event's fail-closed answer.
        let fail_closed = self
            .engine
            .catalogue
            .fail_closed_answer(&event.name, &info, &failure);
        if let Some((answer, said)) = fail_closed {
            self.engine.core.engine_log(
                Channel::Debug,
                format!(
                    "hook of {} failed at {} ({}): {}; {said}",
                    crate::escaped(&info.name),
                    crate::escaped(&event.name),
                    failure.kind,
                    crate::escaped(failure.message_or_default())
                ),
            );
            let answer: Answer = Ok(answer);
            let st = state.lock();
            let below = st.last.as_ref().and_then(|(_, t)| t.clone());
            let node = trace_node(entry(&answer, Some(failure.kind), &st), below);
            return (answer, node);
        }

        // Drop the link and go on (SPEC §1.2).
        self.engine.core.engine_log(
            Channel::Debug,
            format!(
                "hook of {} failed at {} ({}): {}; the chain went on without it",
                crate::escaped(&info.name),
                crate::escaped(&event.name),
                failure.kind,
                crate::escaped(failure.message_or_default())
            ),
        );
        let (called, last) = {
            let st = state.lock();
            (st.called, st.last.clone())
        };
        let (answer, below) = match (called, last) {
            (true, Some(last)) => last,
            _ => Arc::clone(&self).run_from(pos + 1, event, skip).await,
        };
        let st = state.lock();
        let mut e = entry(&answer, Some(failure.kind), &st);
        e.handed = Some(answer.clone());
        (answer, trace_node(e, below))
    }

    /// Runs one hook (or failure handler) with panics caught, its own time limited, and
    /// its answer checked (SPEC §1.1, §1.2, §1.7b).
    async fn drive(
        &self,
        checked: bool,
        state: &Arc<Mutex<NextState>>,
        hook: &dyn crate::plugin::Hook,
        cx: Cx,
        event: Event,
        next: Next,
    ) -> Outcome {
        let mut cx = cx;
        cx.clock = Some(Arc::clone(state));
        // A JSON hook's answer is checked against its event's declared shape; a typed
        // hook's is of the type already (SPEC §1.7b).
        let checked_as = checked.then(|| event.name.clone());
        let started = std::panic::catch_unwind(AssertUnwindSafe(|| hook.call(cx, event, next)));
        let fut = match started {
            Ok(f) => f,
            Err(p) => {
                return Outcome::Failed(HookFailure::new(FailureKind::Panic, panic_message(&*p)))
            }
        };
        let fut = AssertUnwindSafe(fut).catch_unwind();
        let result = own_time_limit(
            fut,
            self.engine.hook_timeout,
            |now| start_timing(state, now),
            {
                let state = Arc::clone(state);
                move || {
                    let st = state.lock();
                    (st.in_next, st.entered)
                }
            },
        )
        .await;
        let broke = state.lock().broke.clone();
        let result: HookResult = match result {
            None => {
                return Outcome::Failed(HookFailure::new(
                    FailureKind::Timeout,
                    format!(
                        "ran past the hook timeout of {} ms",
                        self.engine.hook_timeout.as_millis()
                    ),
                ))
            }
            Some(Err(p)) => {
                return Outcome::Failed(HookFailure::new(FailureKind::Panic, panic_message(&*p)))
            }
            Some(Ok(r)) => r,
        };
        if let Some(b) = broke {
            return Outcome::Failed(b);
        }
        match result {
            Ok(v) => match checked_as {
                Some(name) if !self.engine.catalogue.answer_ok(&name, &v) => {
                    Outcome::Failed(HookFailure::new(
                        FailureKind::InvalidAnswer,
                        format!("answered {v}, which is not a {name} result"),
                    ))
                }
                _ => Outcome::Answered(Ok(v)),
            },
            Err(HookError::Chain(e)) => {
                let propagated = state
                    .lock()
                    .last
                    .as_ref()
                    .is_some_and(|(a, _)| matches!(a, Err(l) if l.same(&e)));
                if propagated {
                    Outcome::Answered(Err(e))
                } else {
                    Outcome::Failed(HookFailure {
                        kind: FailureKind::Error,
                        message: e.failure().message.clone(),
                    })
                }
            }
            Err(HookError::Failed(f)) => Outcome::Failed(f),
        }
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> TraceEntry {
        TraceEntry {
            tier: Tier::User,
            plugins: Vec::new(),
            member_tiers: Vec::new(),
            called_next: true,
            handed: None,
            answer: Ok(Value::Null),
            failure: None,
            batch: None,
        }
    }

    #[test]
    fn a_trace_of_a_million_links_drops_without_overflowing_the_stack() {
        let mut trace: Trace = None;
        for _ in 0..1_000_000 {
            trace = trace_node(entry(), trace);
        }
        assert_eq!(trace_entries(&trace).len(), 1_000_000);
        drop(trace);
    }

    #[test]
    fn a_trace_shared_below_a_dropped_head_stays_whole() {
        let shared = trace_node(entry(), trace_node(entry(), None));
        let head = trace_node(entry(), shared.clone());
        drop(head);
        assert_eq!(trace_entries(&shared).len(), 2);
    }
}
