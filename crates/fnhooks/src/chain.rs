//! The engine and its chain: `next`, `next.to`, `next.origin`, `next.trace`, pins,
//! failure handlers and timeouts (SPEC §1.1, §1.2, §1.3, §1.8, §1.9). The run itself,
//! its driver and its trace arena are in `run.rs`.

use crate::catalogue::Catalogue;
use crate::event::{Event, EventName, FailureKind, HookFailure, Origin};
use crate::plugin::{Pattern, Plugin, PluginInfo, Registration};
use crate::reply::Reply;
use crate::run::{Driver, HookKey, NextAnswer, Run};
use crate::Tier;
use futures::future::BoxFuture;
use futures::FutureExt;
use parking_lot::RwLock;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

/// The link index's hasher: fast on short names, seeded.
type NameHash = foldhash::fast::RandomState;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// An error that came back from a chain in place of an answer (SPEC §1.1: "a core that
/// cannot read the policy answers an error"; a dropped link whose last run failed).
/// Cheap to clone; two clones of one error are the same error ([`ChainError::same`]).
#[derive(Clone)]
pub struct ChainError(Arc<HookFailure>, Refused);

/// Whether a [`ChainError`] is a raise refused for a limit (SPEC §6 "Limits").
#[derive(Clone, Copy, PartialEq, Eq)]
enum Refused {
    /// An error like any other.
    No,
    /// A raise refused for a limit a person's mod can drive (the nesting cap), or the
    /// answer of an organization's or built-in link that met such a refusal: whoever
    /// waits on an organization's, a built-in's or the core's answer treats it as a
    /// deny (SPEC §1.8 **\[revised\]**).
    ForLimit,
}

impl ChainError {
    pub(crate) fn from_failure(failure: HookFailure) -> Self {
        ChainError(Arc::new(failure), Refused::No)
    }

    /// A refusal for a limit (SPEC §6 "Limits"): see [`ChainError::is_limit`].
    pub(crate) fn limit(failure: HookFailure) -> Self {
        ChainError(Arc::new(failure), Refused::ForLimit)
    }

    /// A new error of this kind with this message.
    #[must_use]
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        ChainError(Arc::new(HookFailure::new(kind, message)), Refused::No)
    }

    /// How the chain failed.
    #[must_use]
    pub fn failure(&self) -> &HookFailure {
        &self.0
    }

    /// Whether this error is a raise the engine refused for a limit (the nesting cap of
    /// [`MAX_RAISE_DEPTH`]), or the answer of an organization's or built-in link whose
    /// own raise was so refused. Whoever waits on an organization's, a built-in's or the
    /// core's answer must treat it as a deny, never as a missing answer.
    ///
    /// SPEC §6 "Limits", §1.8 **\[revised 2026-12-07\]**
    #[must_use]
    pub fn is_limit(&self) -> bool {
        self.1 == Refused::ForLimit
    }

    /// Whether `other` is this very error (not merely an equal one).
    #[must_use]
    pub fn same(&self, other: &ChainError) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// How deep events raised from hooks nest: a hook's `cx` raises at most this many
/// levels below the embedding program's own raise; a deeper raise is refused (SPEC §6
/// "Limits" **\[revised 2026-12-07\]**: "events raised from hooks nest at most 8
/// deep"). The engine's own nesting (the core's `cx` raising `classic.PreToolUse`
/// inside `tool.check`) does not count.
pub const MAX_RAISE_DEPTH: u8 = 8;

/// The refusal of a raise past [`MAX_RAISE_DEPTH`], of kind `error`: the hook did
/// nothing the other kinds name (it did not panic, run past its own time, break a pin,
/// answer the wrong shape, jump, or lose its worker); the engine said no to its call,
/// as a core says no to a read it cannot make.
fn depth_refusal(event: &EventName) -> HookFailure {
    HookFailure::new(
        FailureKind::Error,
        format!(
            "{} was not raised: events raised from hooks nest at most {MAX_RAISE_DEPTH} deep, and the nesting cap of {MAX_RAISE_DEPTH} was reached",
            crate::escaped(event)
        ),
    )
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

/// What a chain (or `next`) answers: the event's result (a shared [`Reply`]), or an
/// error.
pub type Answer = Result<Reply, ChainError>;

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
pub(crate) struct TierSet(u8);

impl TierSet {
    fn bit(t: Tier) -> u8 {
        1 << (t as u8)
    }

    fn of(tiers: &[Tier]) -> Self {
        TierSet(tiers.iter().fold(0, |acc, t| acc | Self::bit(*t)))
    }

    pub(crate) fn contains(self, t: Tier) -> bool {
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
    pub(crate) batch: Option<usize>,
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
        Ok(v) => Value::clone(v),
        Err(e) => json!({ "$error": e.failure() }),
    }
}

fn ser_answer<S: serde::Serializer>(a: &Answer, s: S) -> Result<S::Ok, S::Error> {
    answer_to_json(a).serialize(s)
}

fn ser_opt_answer<S: serde::Serializer>(a: &Option<Answer>, s: S) -> Result<S::Ok, S::Error> {
    a.as_ref().map(answer_to_json).serialize(s)
}

/// Merges adjacent entries of one batch into one entry under the first member's tier
/// (SPEC §1.1 **\[decision\]**).
fn merge_batches(entries: Vec<TraceEntry>) -> Vec<TraceEntry> {
    if entries.iter().all(|e| e.batch.is_none()) {
        return entries;
    }
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
        out.push(e);
    }
    out
}

/// A seated plugin, with what every link of it shares: its info and its origin, made
/// once at seating (no per-link copies).
pub(crate) struct Seated {
    pub(crate) info: Arc<PluginInfo>,
    pub(crate) origin: Arc<Origin>,
    pub(crate) registrations: Vec<Registration>,
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

/// The seated plugins, in chain order, and the epoch of this seating (bumped at every
/// seat and unseat).
struct Seating {
    /// In chain order, so in tier order: a seat finds its place by binary search.
    plugins: Vec<Arc<Seated>>,
    /// The ids seated, so that a seat looks for a plugin to replace only on a reload.
    ids: HashSet<String, NameHash>,
    epoch: u64,
}

/// How many event names the link index keeps before it starts afresh: a plugin that
/// raises endless names of a hooked family cannot grow it without bound.
const INDEX_NAMES: usize = 1024;

/// The links of each event name, found once per seating (a raise does not
/// rescan every registration of every plugin). Filled as names are raised, emptied at
/// every seat and unseat.
#[derive(Default)]
struct LinkIndex {
    epoch: u64,
    /// Every event name some registration names exactly.
    exact: HashSet<String, NameHash>,
    /// Every prefix some registration listens to (`classic.`; `""` for `*`).
    prefixes: Vec<String>,
    /// What each name raised so far found, a name no link hooks included: one hash of
    /// the name a raise (foldhash, seeded; the map is bounded by [`INDEX_NAMES`]).
    by_name: HashMap<EventName, Candidates, NameHash>,
}

impl LinkIndex {
    fn may_match(&self, name: &str) -> bool {
        self.exact.contains(name) || self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }
}

/// The links whose pattern matches one event name, in chain order, batched as if every
/// one runs; `filtered` when some of them narrow by the event's fields.
#[derive(Clone)]
struct Candidates {
    links: Arc<[Link]>,
    filtered: bool,
}

pub(crate) struct EngineInner {
    seating: RwLock<Seating>,
    index: RwLock<LinkIndex>,
    pub(crate) core: Arc<dyn Core>,
    pub(crate) catalogue: Catalogue,
    pub(crate) hook_timeout: Duration,
    /// [`Origin::engine`], made once.
    engine_origin: Arc<Origin>,
    no_links: Arc<[Link]>,
    no_hooks: Arc<[HookKey]>,
}

impl EngineInner {
    fn epoch(&self) -> u64 {
        self.seating.read().epoch
    }

    /// Whether `info` is the info of a plugin seated now.
    fn is_seated(&self, info: &Arc<PluginInfo>) -> bool {
        self.seating
            .read()
            .plugins
            .iter()
            .any(|p| Arc::ptr_eq(&p.info, info))
    }

    /// The links of `name`'s chain whose pattern matches, from the index.
    fn candidates(&self, name: &EventName) -> Candidates {
        {
            let ix = self.index.read();
            if let Some(c) = ix.by_name.get(name.as_str()) {
                return c.clone();
            }
            if !ix.may_match(name) {
                let epoch = ix.epoch;
                drop(ix);
                let none = Candidates {
                    links: Arc::clone(&self.no_links),
                    filtered: false,
                };
                self.remember(name, &none, epoch);
                return none;
            }
        }
        let seating = self.seating.read();
        let mut links = Vec::new();
        let mut filtered = false;
        for p in &seating.plugins {
            for (reg, r) in p.registrations.iter().enumerate() {
                if r.pattern.matches(name) {
                    filtered |= r.narrows();
                    links.push(Link {
                        plugin: Arc::clone(p),
                        reg,
                        batch: None,
                    });
                }
            }
        }
        batch(&mut links);
        let found = Candidates {
            links: Arc::from(links),
            filtered,
        };
        self.remember(name, &found, seating.epoch);
        found
    }

    /// Keeps what `name` found, when the seating has not changed since it was found
    /// under seating `epoch`.
    fn remember(&self, name: &EventName, found: &Candidates, epoch: u64) {
        let mut ix = self.index.write();
        if epoch == ix.epoch {
            if ix.by_name.len() >= INDEX_NAMES {
                ix.by_name.clear();
            }
            ix.by_name.insert(name.clone(), found.clone());
        }
    }

    /// The links of `event`'s chain, without the hooks in `excluded`, with their batches
    /// (SPEC §1.1, §1.3).
    fn links_for(&self, event: &Event, excluded: &[HookKey]) -> Arc<[Link]> {
        let found = self.candidates(&event.name);
        // Most raises from inside a chain exclude no link of this event's chain (the
        // raising hook hooks another event): the index's links serve as they are.
        if !found.filtered && !found.links.iter().any(|l| excluded.contains(&l.key())) {
            return found.links;
        }
        let mut links: Vec<Link> = found
            .links
            .iter()
            .filter(|l| {
                l.plugin
                    .registrations
                    .get(l.reg)
                    .is_some_and(|r| r.matches(event))
                    && !excluded.contains(&l.key())
            })
            .map(|l| Link {
                batch: None,
                ..l.clone()
            })
            .collect();
        if links.is_empty() {
            return Arc::clone(&self.no_links);
        }
        batch(&mut links);
        Arc::from(links)
    }

    /// Brings the index up to a seat or unseat (under the seating's write lock). What
    /// a name found stays when the change cannot touch it: a plugin seated anew changes
    /// only the names its own patterns match, and a plugin replaced or unseated
    /// (`gone`) only the names whose links hold it. So a session that admits plugins
    /// one by one, raising between seats, does not find every name again at every seat.
    /// The patterns of a plugin seated are added; a plugin unseated leaves its patterns
    /// behind: they only make [`LinkIndex::may_match`] look further, never miss a link.
    fn reindex(&self, seating: &Seating, seated: Option<&Seated>, gone: Option<&str>) {
        let mut ix = self.index.write();
        ix.epoch = seating.epoch;
        if let Some(p) = seated {
            ix.by_name
                .retain(|name, _| !p.registrations.iter().any(|r| r.pattern.matches(name)));
        }
        if let Some(id) = gone {
            ix.by_name
                .retain(|_, c| !c.links.iter().any(|l| l.plugin.info.id == id));
        }
        if let Some(p) = seated {
            for r in &p.registrations {
                match &r.pattern {
                    Pattern::Exact(n) => {
                        ix.exact.insert(n.clone());
                    }
                    Pattern::Prefix(pre) => {
                        if !ix.prefixes.contains(pre) {
                            ix.prefixes.push(pre.clone());
                        }
                    }
                }
            }
        }
    }
}

/// Marks batches: adjacent links whose plugins share a worker, never across the
/// user/append boundary (SPEC §1.1 **\[decision\]**).
fn batch(links: &mut [Link]) {
    let mut batch_id = 0usize;
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
            .seating
            .read()
            .plugins
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
    /// `None`: the engine.
    origin: Option<Origin>,
    skipped: Vec<Tier>,
    core_answer: Option<Value>,
}

impl Raise {
    /// `event`, raised by the engine ([`Origin::engine`]).
    #[must_use]
    pub fn new(event: Event) -> Self {
        Raise {
            event,
            origin: None,
            skipped: Vec::new(),
            core_answer: None,
        }
    }

    /// This raise, raised by `origin` (a plugin the embedding program hosts).
    #[must_use]
    pub fn origin(mut self, origin: Origin) -> Self {
        self.origin = Some(origin);
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
                seating: RwLock::new(Seating {
                    plugins: Vec::new(),
                    ids: HashSet::default(),
                    epoch: 0,
                }),
                index: RwLock::new(LinkIndex::default()),
                core,
                catalogue,
                hook_timeout,
                engine_origin: Arc::new(Origin::engine()),
                no_links: Arc::from([]),
                no_hooks: Arc::from([]),
            }),
        }
    }

    /// The catalogue this engine was handed.
    #[must_use]
    pub fn catalogue(&self) -> &Catalogue {
        &self.inner.catalogue
    }

    /// Seats a plugin at the end of its tier. A plugin already seated under the same
    /// id is replaced (a reload): in place when its tier is the same, else it moves to
    /// the end of its new tier.
    pub fn seat(&self, plugin: Plugin) {
        self.seat_at(plugin, false);
    }

    /// Seats a plugin as the first link of its tier (how the engine seats the
    /// security default, SPEC §0).
    pub fn seat_first(&self, plugin: Plugin) {
        self.seat_at(plugin, true);
    }

    fn seat_at(&self, plugin: Plugin, first: bool) {
        let mut seating = self.inner.seating.write();
        seating.epoch += 1;
        let seated = Arc::new(Seated::new(plugin));
        let reload = !seating.ids.insert(seated.info.id.clone());
        let plugins = &mut seating.plugins;
        let same_id = if reload {
            plugins.iter().position(|p| p.info.id == seated.info.id)
        } else {
            None
        };
        // A reload in the same tier keeps its place; one in another tier moves to that
        // tier (chain order is tier order, SPEC §1.1).
        if let Some(at) = same_id.filter(|&i| {
            plugins
                .get(i)
                .is_some_and(|p| p.info.tier == seated.info.tier)
        }) {
            if let Some(slot) = plugins.get_mut(at) {
                *slot = Arc::clone(&seated);
            }
        } else {
            if let Some(at) = same_id {
                plugins.remove(at);
            }
            let tier = seated.info.tier;
            let at = if first {
                plugins.partition_point(|p| p.info.tier < tier)
            } else {
                plugins.partition_point(|p| p.info.tier <= tier)
            };
            plugins.insert(at, Arc::clone(&seated));
        }
        let gone = reload.then_some(seated.info.id.as_str());
        self.inner.reindex(&seating, Some(&seated), gone);
    }

    /// Unseats the plugin with this id; `false` when none was seated.
    pub fn unseat(&self, id: &str) -> bool {
        let mut seating = self.inner.seating.write();
        if !seating.ids.remove(id) {
            return false;
        }
        seating.plugins.retain(|p| p.info.id != id);
        seating.epoch += 1;
        self.inner.reindex(&seating, None, Some(id));
        true
    }

    /// The seated plugins, in chain order.
    #[must_use]
    pub fn plugins(&self) -> Vec<PluginInfo> {
        self.inner
            .seating
            .read()
            .plugins
            .iter()
            .map(|p| PluginInfo::clone(&p.info))
            .collect()
    }

    /// The seated plugin with this id, if any.
    #[must_use]
    pub fn plugin(&self, id: &str) -> Option<PluginInfo> {
        self.inner
            .seating
            .read()
            .plugins
            .iter()
            .find(|p| p.info.id == id)
            .map(|p| PluginInfo::clone(&p.info))
    }

    /// Whether some seated plugin hooks `event` (SPEC §1.3).
    #[must_use]
    pub fn is_hooked(&self, event: &Event) -> bool {
        !self.inner.links_for(event, &[]).is_empty()
    }

    /// Raises an event through its chain (SPEC §1.1): `raise` is an [`Event`] (raised by
    /// the engine) or a [`Raise`] (another origin, skipped tiers, a core answer given).
    /// Where no seated plugin hooks the event, the core answers directly (SPEC §1.3).
    /// The future runs on any executor; the chain's links run one at a time inside it,
    /// on the heap (a chain's length does not grow the stack).
    ///
    /// # Errors
    ///
    /// The chain's error, when the chain answers one (a core that cannot read the
    /// policy, a dropped link whose last run failed).
    pub fn raise(&self, raise: impl Into<Raise>) -> BoxFuture<'static, Answer> {
        match self.start(raise.into(), true) {
            Ok(driver) => Box::pin(driver.map(|(answer, _)| answer)),
            Err(core) => core,
        }
    }

    /// A raise made ready to run: its chain's driver, or, where `direct` and no link is
    /// left to run, the core's own answer (SPEC §1.3).
    #[inline]
    fn start(&self, raise: Raise, direct: bool) -> Result<Driver, BoxFuture<'static, Answer>> {
        let skip = TierSet::of(&raise.skipped);
        let links = self.inner.links_for(&raise.event, &[]);
        let origin = match raise.origin {
            Some(o) => Arc::new(o),
            None => Arc::clone(&self.inner.engine_origin),
        };
        let none_left = links.iter().all(|l| skip.contains(l.plugin.info.tier));
        if direct && raise.core_answer.is_none() && none_left {
            let core_cx = Cx::bare(
                Arc::clone(&self.inner),
                origin,
                Arc::clone(&self.inner.no_hooks),
                0,
            );
            return Err(self.inner.core.answer(core_cx, raise.event));
        }
        let given = raise
            .core_answer
            .map(|v| (raise.event.name.clone(), Reply::new(v)));
        let run = Run::new(
            Arc::clone(&self.inner),
            links,
            origin,
            Arc::clone(&self.inner.no_hooks),
            given,
            self.inner.epoch(),
            0,
        );
        Ok(Driver::new(run, raise.event, skip))
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
        let driver = match self.start(raise.into(), false) {
            Ok(driver) => driver,
            Err(core) => return Box::pin(core.map(|answer| (answer, Vec::new()))),
        };
        let run = Arc::clone(&driver.run);
        Box::pin(async move {
            let (answer, node) = driver.await;
            let entries = run.state.lock().entries(&run.links, node);
            (answer, merge_batches(entries))
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
}

/// A raise from inside a chain (a hook's or the core's `cx`), without the hooks in
/// `excluded`, at nesting `depth` (how many raises from hooks it is nested in, SPEC §6
/// "Limits").
fn raise_within(
    inner: &Arc<EngineInner>,
    event: Event,
    origin: Arc<Origin>,
    excluded: Arc<[HookKey]>,
    depth: u8,
) -> BoxFuture<'static, Answer> {
    let links = inner.links_for(&event, &excluded);
    if links.is_empty() {
        let core_cx = Cx::bare(Arc::clone(inner), origin, excluded, depth);
        return inner.core.answer(core_cx, event);
    }
    let run = Run::new(
        Arc::clone(inner),
        links,
        origin,
        excluded,
        None,
        inner.epoch(),
        depth,
    );
    Box::pin(Driver::new(run, event, TierSet::default()).map(|(answer, _)| answer))
}

/// One link of a chain: a registration of a seated plugin, and its batch.
#[derive(Clone)]
pub(crate) struct Link {
    pub(crate) plugin: Arc<Seated>,
    pub(crate) reg: usize,
    pub(crate) batch: Option<usize>,
}

impl Link {
    pub(crate) fn key(&self) -> HookKey {
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
    at: CxAt,
}

#[derive(Clone)]
enum CxAt {
    /// The core answering an event no link hooks (SPEC §1.3).
    Bare {
        engine: Arc<EngineInner>,
        origin: Arc<Origin>,
        excluded: Arc<[HookKey]>,
        /// The nesting of the raise the core answers (SPEC §6 "Limits"): what the
        /// core's own raises keep, uncounted.
        depth: u8,
    },
    /// Inside a chain run: the core's (`link` `None`) or a hook's, in frame `slot` of
    /// hook run `gen` (its own-time clock: time spent in events it raises does not count
    /// as its own, SPEC §1.1).
    Run {
        run: Arc<Run>,
        link: Option<usize>,
        slot: usize,
        gen: u64,
    },
}

impl fmt::Debug for Cx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cx")
            .field("plugin", &self.plugin().map(|p| &p.id))
            .field("origin", self.origin())
            .finish_non_exhaustive()
    }
}

impl Cx {
    fn bare(
        engine: Arc<EngineInner>,
        origin: Arc<Origin>,
        excluded: Arc<[HookKey]>,
        depth: u8,
    ) -> Self {
        Cx {
            at: CxAt::Bare {
                engine,
                origin,
                excluded,
                depth,
            },
        }
    }

    pub(crate) fn of_link(run: Arc<Run>, link: usize, slot: usize, gen: u64) -> Self {
        Cx {
            at: CxAt::Run {
                run,
                link: Some(link),
                slot,
                gen,
            },
        }
    }

    pub(crate) fn of_core(run: Arc<Run>, slot: usize, gen: u64) -> Self {
        Cx {
            at: CxAt::Run {
                run,
                link: None,
                slot,
                gen,
            },
        }
    }

    fn link(&self) -> Option<&Link> {
        match &self.at {
            CxAt::Run {
                run, link: Some(i), ..
            } => run.links.get(*i),
            _ => None,
        }
    }

    /// The plugin this `cx` belongs to (`None` for the core).
    #[must_use]
    pub fn plugin(&self) -> Option<&PluginInfo> {
        self.link().map(|l| &*l.plugin.info)
    }

    /// For the core: who raised the event it answers. For a hook: the hook's own plugin
    /// as an origin.
    #[must_use]
    pub fn origin(&self) -> &Origin {
        match (&self.at, self.link()) {
            (_, Some(l)) => &l.plugin.origin,
            (CxAt::Bare { origin, .. }, None) => origin,
            (CxAt::Run { run, .. }, None) => &run.origin,
        }
    }

    /// Tells the engine this hook was cut by a limit a person's plugin can drive (SPEC
    /// §6 "Limits": the wall time a mod's hook waits on its own `$` calls), as a raise
    /// refused for the nesting cap tells it: an organization's or a built-in hook so cut
    /// fails closed whatever it answers (its failure handler decides, else the event's
    /// fail-closed answer, else the failure is the chain's answer: SPEC §1.8
    /// **\[revised 2026-12-07\]**). A person's hook is not marked: it fails as any
    /// failure does. The core's `cx`, and a `cx` outside its hook's run, mark nothing. A
    /// failure handler running already is that plugin's own answer to a failure: it is
    /// told of the limit and decides (its frame is not marked again).
    pub fn hit_limit(&self, failure: &HookFailure) {
        let CxAt::Run {
            run,
            link: Some(i),
            slot,
            gen,
        } = &self.at
        else {
            return;
        };
        let Some(link) = run.links.get(*i) else {
            return;
        };
        let tier = link.plugin.info.tier;
        if !(tier.is_managed() || tier == Tier::Builtin) {
            return;
        }
        if let Some(f) = run.state.lock().frame(*slot, *gen) {
            if f.error.is_none() {
                f.broke.get_or_insert_with(|| failure.clone());
                f.limited = true;
            }
        }
    }

    /// The origin of events this `cx` raises: its plugin, or the engine.
    #[must_use]
    pub fn raiser(&self) -> Origin {
        match self.link() {
            Some(l) => Origin::clone(&l.plugin.origin),
            None => Origin::engine(),
        }
    }

    /// Raises an event as this plugin (or as the engine, for the core's `cx`), through
    /// the whole chain but the hooks it is nested in (SPEC §1.1: no re-entry).
    ///
    /// Events raised from hooks nest at most [`MAX_RAISE_DEPTH`] deep: a hook's raise
    /// one level deeper is refused (the answer is an error saying the nesting cap was
    /// reached, [`ChainError::is_limit`]); the core's raises keep the depth of the
    /// event they answer and are never refused for it (SPEC §6 "Limits": the engine's
    /// own nesting does not count). A hook of an organization's or built-in plugin whose
    /// raise is refused so has failed, whatever it does with the refusal: its failure
    /// handler decides, else the event's fail-closed answer (at `tool.check`, §1.8's
    /// unchecked deny), else the refusal is the chain's answer. The organization's
    /// answer never goes missing for a limit a person's mod can drive (SPEC §1.8
    /// **\[revised 2026-12-07\]**).
    ///
    /// # Errors
    ///
    /// The chain's error, or the refusal.
    pub fn raise(&self, event: Event) -> BoxFuture<'static, Answer> {
        match &self.at {
            CxAt::Bare {
                engine,
                excluded,
                depth,
                ..
            } => raise_within(
                engine,
                event,
                Arc::clone(&engine.engine_origin),
                Arc::clone(excluded),
                *depth,
            ),
            CxAt::Run {
                run, link: None, ..
            } => raise_within(
                &run.engine,
                event,
                Arc::clone(&run.engine.engine_origin),
                Arc::clone(&run.excluded),
                run.depth,
            ),
            CxAt::Run {
                run,
                link: Some(i),
                slot,
                gen,
            } => {
                let Some(link) = run.links.get(*i) else {
                    return Box::pin(async { Err(ChainError::new(FailureKind::Error, "no link")) });
                };
                // A `cx` kept past its plugin's seat (a reload refused it, or it was
                // unseated) raises nothing: only a seated plugin raises events (SPEC
                // §1.4, §3.9). Under the seating the run began with, it is seated.
                let engine = &run.engine;
                if engine.epoch() != run.epoch && !engine.is_seated(&link.plugin.info) {
                    let msg = format!(
                        "{} is no longer seated, so it cannot raise events",
                        crate::escaped(&link.plugin.info.id)
                    );
                    return Box::pin(async move { Err(ChainError::new(FailureKind::Error, msg)) });
                }
                let depth = run.depth.saturating_add(1);
                if depth > MAX_RAISE_DEPTH {
                    let failure = depth_refusal(&event.name);
                    // An organization's or built-in hook fails closed (SPEC §1.8): the
                    // refusal breaks it even if it catches the error.
                    self.hit_limit(&failure);
                    let refused = ChainError::limit(failure);
                    return Box::pin(async move { Err(refused) });
                }
                let excluded: Arc<[HookKey]> =
                    run.excluded.iter().copied().chain([link.key()]).collect();
                let raised = raise_within(
                    engine,
                    event,
                    Arc::clone(&link.plugin.origin),
                    excluded,
                    depth,
                );
                let (run, slot, gen) = (Arc::clone(run), *slot, *gen);
                Box::pin(async move {
                    let _paused = ClockPause::new(run, slot, gen);
                    raised.await
                })
            }
        }
    }
}

/// A hook's own-time clock stands still while an event it raised runs (SPEC §1.1); it
/// runs again when the raise answers or is dropped.
struct ClockPause {
    run: Arc<Run>,
    slot: usize,
    gen: u64,
}

impl ClockPause {
    fn new(run: Arc<Run>, slot: usize, gen: u64) -> Self {
        if let Some(f) = run.state.lock().frame(slot, gen) {
            f.clock.pause();
        }
        ClockPause { run, slot, gen }
    }
}

impl Drop for ClockPause {
    fn drop(&mut self) {
        if let Some(f) = self.run.state.lock().frame(self.slot, self.gen) {
            f.clock.resume();
        }
    }
}

/// The rest of the chain, as a hook sees it (SPEC §1.1): `next.run(e)` (the seed's
/// `next(e)`), `next.to(e, tier)`, `next.origin()`, `next.trace()`, and in a failure
/// handler `next.called()` and `next.error()`. A handle on the chain's run: cloning it
/// copies nothing. A `next` kept past its hook's answer runs nothing (its calls answer
/// an error) and reads an empty trace.
#[derive(Clone)]
pub struct Next {
    run: Arc<Run>,
    /// The caller's frame, and which hook run it holds.
    slot: usize,
    gen: u64,
    /// Index of the caller's link.
    pos: usize,
    /// The tiers this run passes over at the caller's link (SPEC §1.1 `next.to`).
    skip: TierSet,
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Next")
            .field("link", &self.pos)
            .field("origin", &self.run.origin)
            .finish_non_exhaustive()
    }
}

impl Next {
    pub(crate) fn new(run: Arc<Run>, slot: usize, gen: u64, pos: usize, skip: TierSet) -> Self {
        Next {
            run,
            slot,
            gen,
            pos,
            skip,
        }
    }

    /// Runs the rest of the chain with `event` and returns its answer (SPEC §1.1
    /// `next(e)`). An event whose pinned fields differ from what this hook received
    /// runs nothing and fails the hook (kind `pin`, SPEC §1.2). Handing on the event as
    /// received copies nothing.
    ///
    /// # Errors
    ///
    /// The rest of the chain's error, or the pin failure.
    pub fn run(&self, event: Event) -> NextAnswer {
        NextAnswer::start(Arc::clone(&self.run), self.slot, self.gen, event, self.skip)
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
    pub fn to(&self, event: Event, tier: Tier) -> NextAnswer {
        let caller = self.caller_tier();
        if !caller.is_managed() || tier <= caller || tier < Tier::Append {
            let msg = format!("a {caller} plugin may not continue at the {tier} tier");
            return NextAnswer::ready(Err(self.break_hook(FailureKind::ForbiddenJump, msg)));
        }
        NextAnswer::start(
            Arc::clone(&self.run),
            self.slot,
            self.gen,
            event,
            self.skip.with_between(caller, tier),
        )
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
        self.with_last_run(|st, last| merge_batches(st.entries(&self.run.links, Some(last))))
            .unwrap_or_default()
    }

    /// `read` of the run's state and the trace (arena index) of this hook's last
    /// `next` run, under the run's lock; `None` before any call or for a `next` kept
    /// past its hook.
    fn with_last_run<R>(&self, read: impl FnOnce(&crate::run::RunState, u32) -> R) -> Option<R> {
        let mut st = self.run.state.lock();
        let last = st.frame(self.slot, self.gen).and_then(|f| f.last)?;
        Some(read(&st, last))
    }

    /// The entries of [`Next::trace`] (SPEC §1.1) that changed something: those of the links (not
    /// the core) whose entry, batches merged, answered other than the very value its own
    /// `next` answered (a rewrite, an answer of their own without `next`, a fail-closed
    /// answer), in order. The other entries are walked in place and not copied (issue
    /// #11: a reader that looks for rewrites copies only the rewrites). Empty before any
    /// call.
    #[must_use]
    pub fn trace_of_changes(&self) -> Vec<TraceEntry> {
        self.with_last_run(|st, last| {
            merge_batches(st.changed_entries(&self.run.links, Some(last)))
        })
        .unwrap_or_default()
    }

    /// SPEC §1.1 `next.trace`, read in place: whether every link beneath, in the last
    /// `next`/`next.to` run, answered the very value its own `next` answered: then the
    /// run's answer is the core's, unchanged by any link, and no entry of
    /// [`Next::trace`] rewrote anything. A walk of pointer
    /// comparisons over the trace in place, with no entry copied. `false`
    /// before any call, and when a link answered anything of its own (a fail-closed
    /// answer included).
    #[must_use]
    pub fn handed_on_unchanged(&self) -> bool {
        self.with_last_run(|st, last| st.unchanged_from(Some(last)))
            .unwrap_or(false)
    }

    /// In a failure handler: whether the failed hook had called `next` (or `next.to`).
    /// In a hook: whether it has so far.
    #[must_use]
    pub fn called(&self) -> bool {
        self.run
            .state
            .lock()
            .frame(self.slot, self.gen)
            .is_some_and(|f| f.called)
    }

    /// In a failure handler: how the hook failed (SPEC §1.1 `next.error`).
    #[must_use]
    pub fn error(&self) -> Option<HookFailure> {
        self.run
            .state
            .lock()
            .frame(self.slot, self.gen)
            .and_then(|f| f.error.clone())
    }

    fn caller_tier(&self) -> Tier {
        self.run
            .links
            .get(self.pos)
            .map_or(Tier::Core, |l| l.plugin.info.tier)
    }

    fn break_hook(&self, kind: FailureKind, message: String) -> ChainError {
        let failure = HookFailure::new(kind, message);
        let err = ChainError::from_failure(failure.clone());
        if let Some(f) = self.run.state.lock().frame(self.slot, self.gen) {
            f.broke.get_or_insert(failure);
        }
        err
    }
}
