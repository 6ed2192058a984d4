//! Events, origins and hook failures (SPEC §1.1, §1.9).

use crate::Tier;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;
use std::sync::Arc;

/// An event's name (SPEC §1.5: `tool.check`, `classic.PreToolUse`, ...): a shared string, so that
/// handing an event on copies no name (DESIGN: no copying on the hot path). It reads as
/// a `&str` ([`EventName::as_str`], `Deref`) and compares with `&str` and `String`.
#[derive(Clone, Eq, PartialOrd, Ord)]
pub struct EventName(Arc<str>);

impl std::hash::Hash for EventName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// Names are equal when their text is; a name handed on (the same shared string) is
/// equal without a comparison of its text.
impl PartialEq for EventName {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl EventName {
    /// The name as a string slice.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for EventName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for EventName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for EventName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for EventName {
    fn from(s: &str) -> Self {
        EventName(Arc::from(s))
    }
}

impl From<String> for EventName {
    fn from(s: String) -> Self {
        EventName(Arc::from(s))
    }
}

impl From<&String> for EventName {
    fn from(s: &String) -> Self {
        EventName(Arc::from(s.as_str()))
    }
}

impl From<EventName> for String {
    fn from(n: EventName) -> Self {
        n.0.as_ref().to_owned()
    }
}

impl PartialEq<str> for EventName {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for EventName {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for EventName {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl fmt::Debug for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An event raised through a chain: its name (`tool.check`, `classic.PreToolUse`, ...)
/// and its input fields, a JSON object (SPEC §1.5). The engine reads no field of it but
/// those its [`crate::Catalogue`] pins; typed views are [`crate::EventType::read`].
///
/// Cloning an event copies nothing: the name and the fields are shared, and a hook that
/// writes a field ([`Event::fields_mut`]) copies them first (copy on write), so a
/// pass-through hook hands on the very fields it received and the engine's pin check is
/// a pointer comparison (DESIGN).
#[derive(Debug, Clone)]
pub struct Event {
    /// The event's name, e.g. `tool.check`.
    pub name: EventName,
    /// The input fields, a JSON object, shared (write through [`Event::fields_mut`]).
    pub fields: Arc<Map<String, Value>>,
}

/// Events are equal when their names and fields are; fields shared by both are equal
/// without being compared.
impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && (Arc::ptr_eq(&self.fields, &other.fields) || self.fields == other.fields)
    }
}

impl Event {
    /// An event with this name and these fields.
    #[must_use]
    pub fn new(name: impl Into<EventName>, fields: Map<String, Value>) -> Self {
        Event {
            name: name.into(),
            fields: Arc::new(fields),
        }
    }

    /// An event from a JSON value: an object becomes the fields; any other value gives
    /// no fields.
    #[must_use]
    pub fn from_value(name: impl Into<EventName>, value: Value) -> Self {
        let fields = match value {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Event::new(name, fields)
    }

    /// The fields as a JSON object value (a copy).
    #[must_use]
    pub fn to_value(&self) -> Value {
        Value::Object(Map::clone(&self.fields))
    }

    /// The fields as a JSON object value: moved out when this event is their only
    /// holder, copied otherwise.
    #[must_use]
    pub fn into_value(self) -> Value {
        Value::Object(Arc::try_unwrap(self.fields).unwrap_or_else(|shared| Map::clone(&shared)))
    }

    /// The fields, to write (SPEC §1.2: a hook may rewrite the fields that are not
    /// pinned): copied first when another holder shares them (copy on
    /// write).
    pub fn fields_mut(&mut self) -> &mut Map<String, Value> {
        Arc::make_mut(&mut self.fields)
    }

    /// This event with a field set (a `null` value is kept as `null`).
    #[must_use]
    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.fields_mut().insert(key.to_owned(), value);
        self
    }
}

/// Who raised an event (SPEC §1.1 `next.origin`): `{tier, plugin, id}`, pinned by the
/// engine. `plugin` is the manifest name, `id` the id the loader recorded
/// (`<name>@<marketplace>`). Events the engine raises itself have [`Origin::engine`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Origin {
    /// The raiser's pinned tier (`core` for the engine).
    pub tier: Tier,
    /// The raiser's manifest name (`engine` for the engine).
    pub plugin: String,
    /// The id the loader recorded for the raiser (`engine` for the engine).
    pub id: String,
}

impl Origin {
    /// The origin of an event the engine raises itself (tier `core`).
    #[must_use]
    pub fn engine() -> Self {
        Origin {
            tier: Tier::Core,
            plugin: "engine".to_owned(),
            id: "engine".to_owned(),
        }
    }
}

/// How a hook failed (SPEC §1.9): `error`, `panic`, `timeout`, `pin`,
/// `invalid-answer`, `forbidden-jump`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// The hook returned an error of its own.
    Error,
    /// The hook panicked.
    Panic,
    /// The hook's own time ran past the engine's hook timeout.
    Timeout,
    /// The hook handed on an event whose pinned field it had changed (SPEC §1.2).
    Pin,
    /// The hook's answer was not of its event's shape (SPEC §1.7b).
    InvalidAnswer,
    /// The hook called `next.to` from a tier that may not, or backwards (SPEC §1.1).
    ForbiddenJump,
    /// The worker hosting the hook died or was torn down while the hook ran, or had
    /// been before it started (SPEC §1.9, §6 "Limits").
    Crash,
}

impl FailureKind {
    /// The kind as SPEC §1.9 spells it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Error => "error",
            FailureKind::Panic => "panic",
            FailureKind::Timeout => "timeout",
            FailureKind::Pin => "pin",
            FailureKind::InvalidAnswer => "invalid-answer",
            FailureKind::ForbiddenJump => "forbidden-jump",
            FailureKind::Crash => "crash",
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A hook's failure, as its failure handler reads it in `next.error` (SPEC §1.1):
/// `{kind, message?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HookFailure {
    /// How it failed.
    pub kind: FailureKind,
    /// What the failure said, when it said anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl HookFailure {
    /// A failure of this kind with this message.
    #[must_use]
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Self {
        HookFailure {
            kind,
            message: Some(message.into()),
        }
    }

    /// The message, or `no message`.
    #[must_use]
    pub fn message_or_default(&self) -> &str {
        self.message.as_deref().unwrap_or("no message")
    }
}

impl fmt::Display for HookFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message_or_default())
    }
}
