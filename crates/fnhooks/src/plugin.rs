//! Plugins and their registrations (SPEC §1.1).

use crate::chain::{Cx, Next};
use crate::event::{Event, HookFailure};
use crate::typed::TypedNext;
use crate::{ChainError, EventType, Reply, Tier};
use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// What a hook returns: its answer (a shared [`Reply`]), or an error (SPEC §1.1).
pub type HookResult = Result<Reply, HookError>;

/// A hook's error. `Chain` carries an error that came back from `next` (or from an
/// event the hook raised); returning the very error its own `next` returned is not a
/// failure (SPEC §1.1 **\[decision\]**), any other error is (kind `error`).
#[derive(Debug, Clone)]
pub enum HookError {
    /// The hook failed on its own.
    Failed(HookFailure),
    /// An error that came back from a chain (`?` on `next.run(e).await`).
    Chain(ChainError),
}

impl From<ChainError> for HookError {
    fn from(e: ChainError) -> Self {
        HookError::Chain(e)
    }
}

impl From<HookFailure> for HookError {
    fn from(f: HookFailure) -> Self {
        HookError::Failed(f)
    }
}

/// A hook: `hook(cx, e, next) -> answer` (SPEC §1.1). Implemented for every
/// `Fn(Cx, Event, Next) -> impl Future<Output = Result<T, HookError>>` whose answer `T`
/// is a [`Reply`] (what `next` answered, handed on without a copy) or a
/// [`serde_json::Value`] (a new answer).
pub trait Hook: Send + Sync + 'static {
    /// Runs the hook on `event`; `next` runs the rest of the chain.
    fn call(&self, cx: Cx, event: Event, next: Next) -> BoxFuture<'static, HookResult>;

    /// Whether the hook meters its own time (SPEC §6 "Limits": a mod's hook is timed in
    /// its worker, which interrupts it past the hook timeout and tears the worker down
    /// past the timeout plus its grace). The driver then arms no timer for it: such a
    /// hook must end on its own (answer, or fail with kind `timeout` or `crash`).
    /// `false` for every other hook: the driver times it (SPEC §1.1).
    fn meters_own_time(&self) -> bool {
        false
    }
}

impl<F, Fut, T> Hook for F
where
    F: Fn(Cx, Event, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<T, HookError>> + Send + 'static,
    T: Into<Reply> + 'static,
{
    fn call(&self, cx: Cx, event: Event, next: Next) -> BoxFuture<'static, HookResult> {
        Box::pin(IntoReply {
            fut: self(cx, event, next),
        })
    }
}

pin_project_lite::pin_project! {
    /// A hook's future, its answer made a [`Reply`]: what the blanket [`Hook`] impl
    /// boxes (a `Reply` passes as it is; a `Value` is wrapped).
    struct IntoReply<F> {
        #[pin]
        fut: F,
    }
}

impl<F, T> Future for IntoReply<F>
where
    F: Future<Output = Result<T, HookError>>,
    T: Into<Reply>,
{
    type Output = HookResult;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<HookResult> {
        self.project().fut.poll(cx).map(|r| r.map(Into::into))
    }
}

/// What a registration listens to: an event name, or a prefix wildcard `prefix.*`
/// (SPEC §1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pattern {
    /// Exactly this event.
    Exact(String),
    /// Every event whose name starts with this prefix (kept with its dot: `classic.`).
    Prefix(String),
}

impl Pattern {
    /// Parses `name` or `prefix.*` (a lone `*` matches every event).
    #[must_use]
    pub fn parse(s: &str) -> Pattern {
        match s.strip_suffix('*') {
            Some(prefix) => Pattern::Prefix(prefix.to_owned()),
            None => Pattern::Exact(s.to_owned()),
        }
    }

    /// Whether the pattern matches this event name.
    #[must_use]
    pub fn matches(&self, name: &str) -> bool {
        match self {
            Pattern::Exact(n) => n == name,
            Pattern::Prefix(p) => name.starts_with(p.as_str()),
        }
    }
}

/// A predicate over an event (see [`Registration::when`]).
pub type EventPredicate = dyn Fn(&Event) -> bool + Send + Sync;

/// One `on(pattern, [filter], hook)` of a plugin, with its optional failure handler
/// (the seed's `.catch`), SPEC §1.1.
#[derive(Clone)]
pub struct Registration {
    pub(crate) pattern: Pattern,
    pub(crate) filter: Map<String, Value>,
    /// A predicate over the whole event, beside `filter` (a mod's matcher: RegExp,
    /// one-of arrays, nested partial objects; a negated pattern), SPEC §6.
    pub(crate) when: Option<Arc<EventPredicate>>,
    pub(crate) hook: Arc<dyn Hook>,
    pub(crate) catch: Option<Arc<dyn Hook>>,
    /// A typed hook's answer is of its event's type already: the engine checks only a
    /// JSON hook's answer (SPEC §1.7b).
    pub(crate) typed: bool,
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("pattern", &self.pattern)
            .field("filter", &self.filter)
            .field("when", &self.when.is_some())
            .field("catch", &self.catch.is_some())
            .field("typed", &self.typed)
            .finish_non_exhaustive()
    }
}

impl Registration {
    /// A registration of `hook` on `pattern` (an event name or `prefix.*`).
    pub fn on(pattern: &str, hook: impl Hook) -> Self {
        Registration {
            pattern: Pattern::parse(pattern),
            filter: Map::new(),
            when: None,
            hook: Arc::new(hook),
            catch: None,
            typed: false,
        }
    }

    /// A typed registration of `hook` on the event `E` (SPEC §1.1): the hook takes
    /// `E`'s input and a [`TypedNext`], and answers `E`'s output. An event whose fields
    /// are not of `E`'s input shape fails the hook (kind `error`).
    ///
    /// ```
    /// use fnhooks::{EventType, Pins, Registration, TypedNext, Cx, HookError};
    /// # use serde::{Deserialize, Serialize};
    /// # #[derive(Serialize, Deserialize)] struct Text { text: String }
    /// # struct Section;
    /// # impl EventType for Section {
    /// #     const NAME: &'static str = "prompt.section";
    /// #     const PINS: Pins = Pins::NONE;
    /// #     type Input = Text;
    /// #     type Output = Text;
    /// # }
    /// let shout = Registration::typed::<Section, _, _>(|_cx: Cx, e: Text, next: TypedNext<Section>| async move {
    ///     let below = next.run(&e).await?;
    ///     Ok::<_, HookError>(Text { text: below.text.to_uppercase() })
    /// });
    /// assert!(shout.matches(&fnhooks::Event::from_value("prompt.section", serde_json::json!({}))));
    /// ```
    pub fn typed<E, F, Fut>(hook: F) -> Self
    where
        E: EventType,
        F: Fn(Cx, E::Input, TypedNext<E>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<E::Output, HookError>> + Send + 'static,
    {
        let hook = Arc::new(hook);
        let adapter = move |cx: Cx, e: Event, next: Next| {
            let hook = Arc::clone(&hook);
            async move {
                let input = crate::typed::read_input::<E>(&e).map_err(HookError::Failed)?;
                let out = hook(cx, input, TypedNext::new(next)).await?;
                crate::typed::to_answer(&out)
                    .map(Reply::new)
                    .map_err(HookError::Failed)
            }
        };
        Registration {
            pattern: Pattern::Exact(E::NAME.to_owned()),
            filter: Map::new(),
            when: None,
            hook: Arc::new(adapter),
            catch: None,
            typed: true,
        }
    }

    /// Narrows the registration to events whose fields equal every field of `filter`
    /// (`{door: "attachment"}`, `{tier: "user"}`), SPEC §1.1.
    #[must_use]
    pub fn filter(mut self, filter: Map<String, Value>) -> Self {
        self.filter = filter;
        self
    }

    /// Narrows the registration to events `when` holds for (SPEC §6: a mod's matcher,
    /// compared field by field with RegExp, one-of and nested partial values; a negated
    /// pattern such as `!tool.*`). Kept beside [`Registration::filter`]: both must hold.
    /// The predicate runs on every raise of an event the pattern matches, so it should
    /// be cheap and must not raise events.
    #[must_use]
    pub fn when(mut self, when: impl Fn(&Event) -> bool + Send + Sync + 'static) -> Self {
        self.when = Some(Arc::new(when));
        self
    }

    /// Whether the registration narrows by the event's fields (a filter or a
    /// predicate), so the engine asks [`Registration::matches`] event by event.
    pub(crate) fn narrows(&self) -> bool {
        !self.filter.is_empty() || self.when.is_some()
    }

    /// Adds a failure handler: it runs when the hook fails, with `next.called` and
    /// `next.error` set (SPEC §1.1).
    #[must_use]
    pub fn catch(mut self, handler: impl Hook) -> Self {
        self.catch = Some(Arc::new(handler));
        self
    }

    /// Whether this registration hooks `event`.
    #[must_use]
    pub fn matches(&self, event: &Event) -> bool {
        self.pattern.matches(&event.name)
            && self
                .filter
                .iter()
                .all(|(k, v)| event.fields.get(k) == Some(v))
            && self.when.as_ref().is_none_or(|w| w(event))
    }

    /// The pattern this registration listens to.
    #[must_use]
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }
}

/// Who a plugin is (SPEC §1.1, §2.2): its recorded id (`<name>@<marketplace>`), its
/// manifest name, its pinned tier, and the worker it runs in (adjacent plugins that
/// share a worker form a batch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginInfo {
    /// The id the loader recorded: `<name>@<marketplace>`.
    pub id: String,
    /// The manifest name.
    pub name: String,
    /// The plugin's pinned tier (never `core`).
    pub tier: Tier,
    /// The worker it runs in, if it shares one.
    pub worker: Option<String>,
    /// How the loader found the plugin's copy (SPEC §3.4 exemption, §6 "Loading");
    /// `None` when the embedding program does not say (never vouched for).
    pub source: Option<CopySource>,
}

impl PluginInfo {
    /// A plugin of this recorded id (`<name>@<marketplace>`), manifest name and tier,
    /// in no shared worker, with no copy source said.
    #[must_use]
    pub fn new(id: impl Into<String>, name: impl Into<String>, tier: Tier) -> Self {
        PluginInfo {
            id: id.into(),
            name: name.into(),
            tier,
            worker: None,
            source: None,
        }
    }
}

/// How the loader found a plugin's copy, heard at `plugin.register` as its pinned
/// `source` (SPEC §3.4 exemption **\[decision\]**: only a copy read in place from a
/// `directory` marketplace that managed settings name is vouched for).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CopySource {
    /// Read in place from a local folder marketplace of the id's marketplace name,
    /// named by managed settings.
    Directory,
    /// A cached copy of a GitHub marketplace.
    Github,
    /// A cached copy of a git marketplace.
    Git,
    /// A cached copy of an npm package.
    Npm,
    /// Another cached copy.
    Cached,
    /// `--plugin-dir DIR` (`<name>@inline`).
    Inline,
}

impl CopySource {
    /// Every source, as SCENARIOS.md spells them.
    pub const ALL: [CopySource; 6] = [
        CopySource::Directory,
        CopySource::Github,
        CopySource::Git,
        CopySource::Npm,
        CopySource::Cached,
        CopySource::Inline,
    ];

    /// The source's name as SCENARIOS.md `source` spells it (`directory`, `github`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CopySource::Directory => "directory",
            CopySource::Github => "github",
            CopySource::Git => "git",
            CopySource::Npm => "npm",
            CopySource::Cached => "cached",
            CopySource::Inline => "inline",
        }
    }

    /// Parses [`CopySource::as_str`]'s spelling; `None` for anything else.
    #[must_use]
    pub fn parse(s: &str) -> Option<CopySource> {
        CopySource::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// A plugin: who it is and what it hooks.
#[derive(Clone, Debug)]
pub struct Plugin {
    /// Who the plugin is.
    pub info: PluginInfo,
    /// Its registrations, in registration order.
    pub registrations: Vec<Registration>,
}

impl Plugin {
    /// A plugin with no registrations.
    #[must_use]
    pub fn new(info: PluginInfo) -> Self {
        Plugin {
            info,
            registrations: Vec::new(),
        }
    }

    /// Adds a registration.
    #[must_use]
    pub fn with(mut self, registration: Registration) -> Self {
        self.registrations.push(registration);
        self
    }
}
