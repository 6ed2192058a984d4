//! Events, origins, pinned fields and answer shapes (SPEC §1.2, §1.5, §1.7, §1.7b).

use crate::Tier;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// An event raised through a chain: its name (`tool.check`, `classic.PreToolUse`, ...)
/// and its input fields (SPEC §1.5). Field names are those of SPEC §1.5 and
/// `SCENARIOS.md`; the engine never reads more than it pins and the core needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's name, e.g. `tool.check`.
    pub name: String,
    /// The input fields, a JSON object.
    pub fields: Map<String, Value>,
}

impl Event {
    /// An event with this name and these fields.
    #[must_use]
    pub fn new(name: impl Into<String>, fields: Map<String, Value>) -> Self {
        Event {
            name: name.into(),
            fields,
        }
    }

    /// An event from a JSON value: an object becomes the fields; any other value gives
    /// no fields.
    #[must_use]
    pub fn from_value(name: impl Into<String>, value: Value) -> Self {
        let fields = match value {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Event::new(name, fields)
    }

    /// A field as a string, `None` when absent or not a string.
    #[must_use]
    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    /// The fields as a JSON object value.
    #[must_use]
    pub fn to_value(&self) -> Value {
        Value::Object(self.fields.clone())
    }

    /// This event with a field set (a `null` value is kept as `null`).
    #[must_use]
    pub fn with(mut self, key: &str, value: Value) -> Self {
        self.fields.insert(key.to_owned(), value);
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

/// The names of the pinned fields of an event (SPEC §1.2 **\[decision\]**, complete).
/// `None` means every field is pinned (`tool.check`'s question).
#[must_use]
pub fn pinned_fields(event: &str) -> Option<&'static [&'static str]> {
    match event {
        names::TOOL_CHECK => None,
        names::ENV_GET | names::ENV_SET | names::TOOL_REGISTER => Some(&["name"]),
        names::PLUGIN_REGISTER => Some(&["name", "tier", "provenance", "source"]),
        names::TOOL_DESCRIBE
        | names::COMMAND_DESCRIBE
        | names::AGENT_OFFER
        | names::AGENT_SPAWN => Some(&["provider"]),
        names::SESSION_APPEND => Some(&["door", "tool"]),
        _ => Some(&[]),
    }
}

/// `handed` with every pinned field of `received` that it left out put back (SPEC §1.2
/// **\[decision\]**: a pinned field a hook leaves out of the event it hands on is put
/// back, as Claude Code does). A pinned field given another value is left as handed, for
/// [`keeps_pins`] to refuse.
///
/// Takes the event the hook received and the event it hands on; returns the latter,
/// completed.
///
/// SPEC §1.2
#[must_use]
pub fn restore_pins(received: &Event, mut handed: Event) -> Event {
    if received.name != handed.name {
        return handed;
    }
    match pinned_fields(&received.name) {
        None => {
            for (k, v) in &received.fields {
                if !handed.fields.contains_key(k) {
                    handed.fields.insert(k.clone(), v.clone());
                }
            }
        }
        Some(keys) => {
            for k in keys {
                if let (Some(v), false) = (received.fields.get(*k), handed.fields.contains_key(*k))
                {
                    handed.fields.insert((*k).to_owned(), v.clone());
                }
            }
        }
    }
    handed
}

/// Whether `handed` keeps every pinned field of `received` (SPEC §1.2). The event's
/// name is pinned too.
#[must_use]
pub fn keeps_pins(received: &Event, handed: &Event) -> bool {
    if received.name != handed.name {
        return false;
    }
    match pinned_fields(&received.name) {
        None => received.fields == handed.fields,
        Some(keys) => keys
            .iter()
            .all(|k| received.fields.get(*k) == handed.fields.get(*k)),
    }
}

/// Whether `answer` has the shape of `event`'s result (SPEC §1.7, §1.7b): every answer is
/// a JSON object; a `tool.check` answer is a verdict (SPEC §1.6).
#[must_use]
pub fn answer_shape_ok(event: &str, answer: &Value) -> bool {
    let Some(obj) = answer.as_object() else {
        return false;
    };
    let str_or_absent = |k: &str| obj.get(k).is_none_or(Value::is_string);
    match event {
        names::TOOL_CHECK => crate::Verdict::from_value(answer).is_some(),
        names::TOOL_REGISTER => str_or_absent("registered") && str_or_absent("deny"),
        names::ENV_SET => str_or_absent("deny"),
        names::PLUGIN_REGISTER => str_or_absent("refuse"),
        names::PROMPT_SECTION
        | names::PROMPT_ATTACHMENT
        | names::SKILL_PROMPT
        | names::ATTRIBUTION_TEXT
        | names::SESSION_APPEND => str_or_absent("text"),
        names::PROMPT_CONTEXT => obj.get("items").is_none_or(Value::is_array),
        names::PROMPT_COMPOSE => obj.get("sections").is_none_or(Value::is_array),
        names::TOOL_LIST => obj.get("tools").is_none_or(Value::is_array),
        _ => true,
    }
}

/// The names of the events of SPEC §1.5 that the engine or the security default reads,
/// and the catalogue every event name is checked against.
pub mod names {
    /// Every event of SPEC §1.5 named whole (besides the families of [`FAMILIES`]).
    pub const CATALOGUE: &[&str] = &[
        TOOL_CHECK,
        TOOL_CALL,
        TOOL_REGISTER,
        TOOL_LIST,
        TOOL_DESCRIBE,
        COMMAND_DESCRIBE,
        AGENT_OFFER,
        AGENT_SPAWN,
        ENV_GET,
        ENV_SET,
        PLUGIN_REGISTER,
        SETTINGS_READ,
        UI_LOG,
        SESSION_APPEND,
        SESSION_COMPACT,
        PROMPT_SECTION,
        PROMPT_CONTEXT,
        PROMPT_ATTACHMENT,
        PROMPT_COMPOSE,
        PROMPT_SUBMIT,
        SKILL_PROMPT,
        ATTRIBUTION_TEXT,
        "command.run",
        "command.register",
        "command.list",
        "agent.register",
        "agent.list",
        "prompt.fill",
        "prompt.suggest",
        "prompt.edit",
        "prompt.read",
        "http.fetch",
        "process.run",
        "mcp.call",
        "engine.create",
    ];

    /// The event families of SPEC §1.5 named by prefix (`classic.<Event>`, `turn.*`, ...).
    pub const FAMILIES: &[&str] = &[
        "classic.", "turn.", "command.", "config.", "session.", "ui.", "fs.", "store.", "clock.",
        "model.", "audio.",
    ];

    /// Whether `name` is an event of SPEC §1.5: catalogued whole, or a member of a
    /// family (`classic.PreToolUse`, `turn.start`). A misspelt name (`tool.chek`) is not.
    #[must_use]
    pub fn is_catalogued(name: &str) -> bool {
        CATALOGUE.contains(&name)
            || FAMILIES
                .iter()
                .any(|f| name.len() > f.len() && name.starts_with(f))
    }

    /// Whether a registration pattern (an event name or `prefix.*`) can match some event
    /// of SPEC §1.5: `*`, a family, or a prefix of a catalogued name.
    #[must_use]
    pub fn pattern_is_catalogued(pattern: &str) -> bool {
        match pattern.strip_suffix('*') {
            Some(prefix) => {
                prefix.is_empty()
                    || FAMILIES
                        .iter()
                        .any(|f| f.starts_with(prefix) || prefix.starts_with(f))
                    || CATALOGUE.iter().any(|n| n.starts_with(prefix))
            }
            None => is_catalogued(pattern),
        }
    }

    /// `tool.check`: the permission decision for a pinned question.
    pub const TOOL_CHECK: &str = "tool.check";
    /// `tool.call`: the model's tool call is about to run (rewrites belong here).
    pub const TOOL_CALL: &str = "tool.call";
    /// `tool.register`: a plugin registers a tool at run time.
    pub const TOOL_REGISTER: &str = "tool.register";
    /// `tool.list`: the list of tools given to the model.
    pub const TOOL_LIST: &str = "tool.list";
    /// `tool.describe`: a tool is described to the model.
    pub const TOOL_DESCRIBE: &str = "tool.describe";
    /// `command.describe`: a command is described to the model.
    pub const COMMAND_DESCRIBE: &str = "command.describe";
    /// `agent.offer`: an agent is offered.
    pub const AGENT_OFFER: &str = "agent.offer";
    /// `agent.spawn`: an agent is spawned.
    pub const AGENT_SPAWN: &str = "agent.spawn";
    /// `env.get`: a plugin reads an environment variable of the engine's children.
    pub const ENV_GET: &str = "env.get";
    /// `env.set`: a plugin sets or unsets an environment variable.
    pub const ENV_SET: &str = "env.set";
    /// `plugin.register`: a hooks module is admitted.
    pub const PLUGIN_REGISTER: &str = "plugin.register";
    /// `settings.read`: anyone reads settings.
    pub const SETTINGS_READ: &str = "settings.read";
    /// `ui.log`: a plugin or the engine writes a log line.
    pub const UI_LOG: &str = "ui.log";
    /// `session.append`: a row is appended to the conversation.
    pub const SESSION_APPEND: &str = "session.append";
    /// `session.compact`: a compaction is made.
    pub const SESSION_COMPACT: &str = "session.compact";
    /// `prompt.section`: one section of the system prompt.
    pub const PROMPT_SECTION: &str = "prompt.section";
    /// `prompt.context`: context gathered for the model.
    pub const PROMPT_CONTEXT: &str = "prompt.context";
    /// `prompt.attachment`: an attachment the engine injects.
    pub const PROMPT_ATTACHMENT: &str = "prompt.attachment";
    /// `prompt.compose`: the system prompt's list of sections.
    pub const PROMPT_COMPOSE: &str = "prompt.compose";
    /// `prompt.submit`: a person submits a prompt.
    pub const PROMPT_SUBMIT: &str = "prompt.submit";
    /// `skill.prompt`: a skill's body.
    pub const SKILL_PROMPT: &str = "skill.prompt";
    /// `attribution.text`: attribution text.
    pub const ATTRIBUTION_TEXT: &str = "attribution.text";
}
