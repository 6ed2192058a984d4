//! The catalogue an engine is handed: which events it knows as types, which fields of
//! each are pinned, what shape each answer has, and which events fail closed when an
//! organization's hook fails (SPEC §1.2, §1.5, §1.7b, §1.8).
//!
//! The engine itself knows no event: an embedding program declares its events once, as
//! types ([`EventType`]), and hands the [`Catalogue`] to [`crate::Engine::new`]. Every
//! other event name is accepted as untyped JSON: nothing of it is pinned and any JSON
//! object answers it.

use crate::event::{Event, HookFailure};
use crate::plugin::PluginInfo;
use serde::de::{Deserialize, DeserializeOwned};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Which fields of an event the engine pins (SPEC §1.2): a hook that hands on the event
/// with a pinned field changed fails, kind `pin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pins {
    /// Every field is pinned (a question no hook may change, such as `tool.check`'s).
    All,
    /// These fields are pinned; the others a hook may rewrite.
    Fields(&'static [&'static str]),
}

impl Pins {
    /// No field is pinned.
    pub const NONE: Pins = Pins::Fields(&[]);
}

/// An event declared once as a type (SPEC §1.5): its name, its pinned fields, its input
/// and its answer.
///
/// `Input` and `Output` are the JSON shapes of the event and its answer; give them a
/// `#[serde(flatten)]` map of the fields they do not name, so that a typed hook hands on
/// what it did not read. The engine checks a JSON hook's answer against `Output` (SPEC
/// §1.7b); a typed hook's answer is of the type already.
///
/// ```
/// use fnhooks::{EventType, Pins};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Greet { name: String }
/// #[derive(Serialize, Deserialize)]
/// struct Greeting { text: String }
///
/// struct GreetEvent;
/// impl EventType for GreetEvent {
///     const NAME: &'static str = "greet";
///     const PINS: Pins = Pins::Fields(&["name"]);
///     type Input = Greet;
///     type Output = Greeting;
/// }
/// let catalogue = fnhooks::Catalogue::new().event::<GreetEvent>();
/// assert!(catalogue.is_declared("greet"));
/// ```
pub trait EventType: Send + Sync + 'static {
    /// The event's name, as the embedding program's catalogue spells it.
    const NAME: &'static str;
    /// Its pinned fields (SPEC §1.2).
    const PINS: Pins;
    /// The event's fields.
    type Input: Serialize + DeserializeOwned + Send + 'static;
    /// Its answer.
    type Output: Serialize + DeserializeOwned + Send + 'static;

    /// Reads the typed input of an event of this name; `None` when the event has
    /// another name or its fields are not of this shape.
    fn read(event: &Event) -> Option<Self::Input> {
        if event.name != Self::NAME {
            return None;
        }
        Self::Input::deserialize(&*event.fields).ok()
    }

    /// The event carrying `input` (an input that is not a JSON object gives no fields).
    fn event(input: &Self::Input) -> Event {
        Event::from_value(
            Self::NAME,
            serde_json::to_value(input).unwrap_or(Value::Null),
        )
    }
}

/// What an event answers in place of a managed-tier hook that failed (SPEC §1.8): the
/// answer, given who failed and how; and the word the engine's debug line ends with
/// (`denied`).
type FailClosedAnswer = Arc<dyn Fn(&PluginInfo, &HookFailure) -> Value + Send + Sync>;

#[derive(Clone)]
struct FailClosed {
    answer: FailClosedAnswer,
    said: &'static str,
}

#[derive(Clone)]
struct Declared {
    pins: Pins,
    answer_ok: fn(&Value) -> bool,
    fail_closed: Option<FailClosed>,
}

fn answer_is<T: DeserializeOwned>(v: &Value) -> bool {
    v.is_object() && T::deserialize(v).is_ok()
}

/// The events an engine knows (SPEC §1.5): declared ones by type, families by prefix
/// (`classic.`), and the rest as untyped JSON. Cheap to clone.
#[derive(Clone, Default)]
pub struct Catalogue {
    declared: HashMap<&'static str, Declared>,
    families: Vec<&'static str>,
}

impl fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&&str> = self.declared.keys().collect();
        names.sort();
        f.debug_struct("Catalogue")
            .field("declared", &names)
            .field("families", &self.families)
            .finish()
    }
}

impl Catalogue {
    /// A catalogue declaring nothing: every event is untyped JSON, nothing is pinned,
    /// and any JSON object answers.
    #[must_use]
    pub fn new() -> Self {
        Catalogue::default()
    }

    /// This catalogue with `E` declared (a second declaration of the name replaces the
    /// first, keeping its fail-closed answer).
    #[must_use]
    pub fn event<E: EventType>(mut self) -> Self {
        let fail_closed = self
            .declared
            .get(E::NAME)
            .and_then(|d| d.fail_closed.clone());
        self.declared.insert(
            E::NAME,
            Declared {
                pins: E::PINS,
                answer_ok: answer_is::<E::Output>,
                fail_closed,
            },
        );
        self
    }

    /// This catalogue with `name` declared as an untyped event: nothing of it is
    /// pinned, and any JSON object answers it (an event SPEC names but gives no shape).
    #[must_use]
    pub fn untyped(mut self, name: &'static str) -> Self {
        self.declared.entry(name).or_insert(Declared {
            pins: Pins::NONE,
            answer_ok: Value::is_object,
            fail_closed: None,
        });
        self
    }

    /// This catalogue with `prefix` (kept with its dot: `classic.`) declared as a family
    /// of untyped events (`classic.PreToolUse`, SPEC §1.5).
    #[must_use]
    pub fn family(mut self, prefix: &'static str) -> Self {
        self.families.push(prefix);
        self
    }

    /// This catalogue with `E` declared (if it was not) and failing closed (SPEC §1.8):
    /// when a hook of a managed tier (`prepend`, `append`) fails at `E` and no failure
    /// handler of its answers, `answer` stands in its place, and the engine's debug
    /// line about the failure ends with `said` (`denied`).
    #[must_use]
    pub fn fail_closed<E: EventType>(
        mut self,
        said: &'static str,
        answer: impl Fn(&PluginInfo, &HookFailure) -> E::Output + Send + Sync + 'static,
    ) -> Self {
        if !self.declared.contains_key(E::NAME) {
            self = self.event::<E>();
        }
        let answer = Arc::new(move |p: &PluginInfo, f: &HookFailure| {
            serde_json::to_value(answer(p, f)).unwrap_or(Value::Null)
        });
        if let Some(d) = self.declared.get_mut(E::NAME) {
            d.fail_closed = Some(FailClosed { answer, said });
        }
        self
    }

    /// Whether `name` is an event of this catalogue: declared whole, or a member of a
    /// family (`classic.PreToolUse`). A misspelt name (`tool.chek`) is not.
    #[must_use]
    pub fn is_declared(&self, name: &str) -> bool {
        self.declared.contains_key(name)
            || self
                .families
                .iter()
                .any(|f| name.len() > f.len() && name.starts_with(f))
    }

    /// Whether a registration pattern (an event name or `prefix.*`) can match some
    /// event of this catalogue: `*`, a family, or a prefix of a declared name.
    #[must_use]
    pub fn pattern_is_declared(&self, pattern: &str) -> bool {
        match pattern.strip_suffix('*') {
            Some(prefix) => {
                prefix.is_empty()
                    || self
                        .families
                        .iter()
                        .any(|f| f.starts_with(prefix) || prefix.starts_with(f))
                    || self.declared.keys().any(|n| n.starts_with(prefix))
            }
            None => self.is_declared(pattern),
        }
    }

    /// The pinned fields of `event` (SPEC §1.2): its declaration's, or none.
    #[must_use]
    pub fn pins(&self, event: &str) -> Pins {
        self.declared.get(event).map_or(Pins::NONE, |d| d.pins)
    }

    /// Whether `answer` has the shape of `event`'s answer (SPEC §1.7b): a JSON object,
    /// of the declared `Output` where the event is declared.
    #[must_use]
    pub fn answer_ok(&self, event: &str, answer: &Value) -> bool {
        match self.declared.get(event) {
            Some(d) => (d.answer_ok)(answer),
            None => answer.is_object(),
        }
    }

    /// What `event` answers in place of `plugin`'s failed hook, and the word its debug
    /// line ends with, where the event fails closed and the plugin is the
    /// organization's (SPEC §1.8), or a built-in whose raise was refused for a limit
    /// (`limited`; SPEC §1.8 **\[revised\]**, §6 "Limits").
    pub(crate) fn fail_closed_answer(
        &self,
        event: &str,
        plugin: &PluginInfo,
        failure: &HookFailure,
        limited: bool,
    ) -> Option<(Value, &'static str)> {
        let builtin_limited = limited && plugin.tier == crate::Tier::Builtin;
        if !plugin.tier.is_managed() && !builtin_limited {
            return None;
        }
        let fc = self.declared.get(event)?.fail_closed.as_ref()?;
        Some(((fc.answer)(plugin, failure), fc.said))
    }

    /// `handed` with every pinned field of `received` that it left out put back (SPEC
    /// §1.2 **\[decision\]**: a pinned field a hook leaves out of the event it hands on
    /// is put back, as Claude Code does). A pinned field given another value is left as
    /// handed, for [`Catalogue::keeps_pins`] to refuse.
    #[must_use]
    pub fn restore_pins(&self, received: &Event, mut handed: Event) -> Event {
        // Fields handed on as received (a pass-through) keep every pin: nothing to do.
        if received.name != handed.name || Arc::ptr_eq(&received.fields, &handed.fields) {
            return handed;
        }
        let put_back = |handed: &mut Map<String, Value>, k: &str, v: &Value| {
            if !handed.contains_key(k) {
                handed.insert(k.to_owned(), v.clone());
            }
        };
        match self.pins(&received.name) {
            Pins::All => {
                for (k, v) in received.fields.iter() {
                    if !handed.fields.contains_key(k) {
                        put_back(handed.fields_mut(), k, v);
                    }
                }
            }
            Pins::Fields(keys) => {
                for k in keys {
                    if let Some(v) = received.fields.get(*k) {
                        if !handed.fields.contains_key(*k) {
                            put_back(handed.fields_mut(), k, v);
                        }
                    }
                }
            }
        }
        handed
    }

    /// Whether `handed` keeps every pinned field of `received` (SPEC §1.2). The event's
    /// name is pinned too.
    #[must_use]
    pub fn keeps_pins(&self, received: &Event, handed: &Event) -> bool {
        if received.name != handed.name {
            return false;
        }
        // The very fields received: a pointer comparison, no walk.
        if Arc::ptr_eq(&received.fields, &handed.fields) {
            return true;
        }
        match self.pins(&received.name) {
            Pins::All => received.fields == handed.fields,
            Pins::Fields(keys) => keys
                .iter()
                .all(|k| received.fields.get(*k) == handed.fields.get(*k)),
        }
    }
}
