//! What tests of the engine and of its embedders share (cargo feature `testing`, meant
//! for `[dev-dependencies]` only): plugins of a tier built in one call, the hooks
//! tests seat most ([`answers`], [`passes`], [`rewrites`]), a core that answers from a
//! function and records what reached it ([`Recorder`]), and one traced raise
//! ([`traced`]).
//!
//! A plugin's id: [`info`] takes a recorded id `<name>@<marketplace>` and reads the
//! name off it; a bare name is given the marketplace `t` (`"b"` is `b@t`, named `b`).
//!
//! ```
//! use fnhooks::testing::{self, Recorder};
//! use fnhooks::{Catalogue, Engine, Event, Tier};
//! use serde_json::json;
//! use std::time::Duration;
//!
//! // The core answers every event `{"decision": "deny"}` and records what reached it.
//! let core = Recorder::answering(json!({"decision": "deny"}));
//! let engine = Engine::new(core.clone(), Catalogue::new(), Duration::from_secs(1));
//! engine.seat(testing::plugin_on("yes-man@community", Tier::User, "tool.check",
//!     testing::answers(json!({"decision": "allow"}))));
//! engine.seat(testing::plugin_on("org", Tier::Prepend, "tool.check", testing::passes()));
//!
//! let (answer, trace) = testing::traced(&engine, Event::from_value("tool.check", json!({})));
//! assert_eq!(answer.map(|a| a.into_value()).ok(), Some(json!({"decision": "allow"})));
//! // The person's plugin answered without calling next: the core was never asked.
//! assert_eq!(core.calls(), 0);
//! assert_eq!(trace.len(), 2);
//! assert_eq!(testing::info("b", Tier::User).id, "b@t");
//! ```

use crate::{Answer, Channel, Core, Cx, Engine, Event, Hook, Next, Plugin, PluginInfo};
use crate::{HookError, Registration, Tier, TraceEntry};
use futures::future::BoxFuture;
use parking_lot::Mutex;
use serde_json::Value;
use std::fmt;
use std::sync::Arc;

/// The marketplace of a plugin whose test gave only its name.
const TEST_MARKETPLACE: &str = "t";

/// Who a test's plugin is: `id` is its recorded id `<name>@<marketplace>` (the name is
/// what comes before the `@`), or a bare name, then recorded as `<name>@t`. In no
/// shared worker, with no copy source said.
#[must_use]
pub fn info(id: &str, tier: Tier) -> PluginInfo {
    match id.split_once('@') {
        Some((name, _)) => PluginInfo::new(id, name, tier),
        None => PluginInfo::new(format!("{id}@{TEST_MARKETPLACE}"), id, tier),
    }
}

/// A plugin of [`info`]`(id, tier)` with no registrations (add them with
/// [`Plugin::with`]).
#[must_use]
pub fn plugin(id: &str, tier: Tier) -> Plugin {
    Plugin::new(info(id, tier))
}

/// A plugin of [`info`]`(id, tier)` with one registration: `hook` on `event` (an event
/// name or `prefix.*`).
#[must_use]
pub fn plugin_on(id: &str, tier: Tier, event: &str, hook: impl Hook) -> Plugin {
    plugin(id, tier).with(Registration::on(event, hook))
}

/// A hook that answers `value` without calling `next`.
pub fn answers(value: Value) -> impl Hook {
    move |_cx: Cx, _e: Event, _next: Next| {
        let value = value.clone();
        async move { Ok::<_, HookError>(value) }
    }
}

/// A hook that hands on the event it gets and answers what `next` answered.
pub fn passes() -> impl Hook {
    |_cx: Cx, e: Event, next: Next| async move { Ok::<_, HookError>(next.run(e).await?) }
}

/// A hook that calls `next` (failing as it fails) and answers `value` in its place.
pub fn rewrites(value: Value) -> impl Hook {
    move |_cx: Cx, e: Event, next: Next| {
        let value = value.clone();
        async move {
            next.run(e).await?;
            Ok::<_, HookError>(value)
        }
    }
}

/// Raises `event` on `engine` to its end on this thread; its answer and its trace
/// (every link that ran, the core last when it was reached).
pub fn traced(engine: &Engine, event: Event) -> (Answer, Vec<TraceEntry>) {
    futures::executor::block_on(engine.raise_traced(event))
}

/// What a [`Recorder`] answers an event with.
type AnswerFn = dyn Fn(&Event) -> Value + Send + Sync;

/// A core that answers each event with a function of it, and records every event that
/// reached it (its fields shared, not copied) and every line the engine wrote.
pub struct Recorder {
    answer: Box<AnswerFn>,
    reached: Mutex<Vec<Event>>,
    lines: Mutex<Vec<(Channel, String)>>,
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("reached", &*self.reached.lock())
            .field("lines", &*self.lines.lock())
            .finish_non_exhaustive()
    }
}

impl Recorder {
    /// A core that answers every event with `answer(&event)`.
    pub fn new(answer: impl Fn(&Event) -> Value + Send + Sync + 'static) -> Arc<Recorder> {
        Arc::new(Recorder {
            answer: Box::new(answer),
            reached: Mutex::new(Vec::new()),
            lines: Mutex::new(Vec::new()),
        })
    }

    /// A core that answers every event with `value`.
    #[must_use]
    pub fn answering(value: Value) -> Arc<Recorder> {
        Recorder::new(move |_| value.clone())
    }

    /// The events that reached the core, in order.
    #[must_use]
    pub fn reached(&self) -> Vec<Event> {
        self.reached.lock().clone()
    }

    /// How many events reached the core.
    #[must_use]
    pub fn calls(&self) -> usize {
        self.reached.lock().len()
    }

    /// The lines the engine wrote, with their channels, in order.
    #[must_use]
    pub fn lines(&self) -> Vec<(Channel, String)> {
        self.lines.lock().clone()
    }

    /// The text of the lines the engine wrote, in order.
    #[must_use]
    pub fn line_texts(&self) -> Vec<String> {
        self.lines.lock().iter().map(|(_, l)| l.clone()).collect()
    }
}

impl Core for Recorder {
    fn answer(&self, _cx: Cx, e: Event) -> BoxFuture<'static, Answer> {
        let answer = (self.answer)(&e);
        self.reached.lock().push(e);
        Box::pin(async move { Ok(answer.into()) })
    }

    fn engine_log(&self, channel: Channel, line: String) {
        self.lines.lock().push((channel, line));
    }
}
