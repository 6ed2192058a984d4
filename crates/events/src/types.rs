//! Each event of SPEC §1.5, declared once: its input and answer as serde types, its
//! pinned fields (SPEC §1.2) and its name.
//!
//! Every input and answer keeps the fields it does not name in `rest`, so that a typed
//! hook hands on what it did not read. An answer field SPEC §1.7 gives a type to may be
//! absent, never of another type (`{"text": null}` is no `prompt.section` answer).

use crate::names;
use crate::Verdict;
use fnhooks::{CopySource, Event, EventType, Pins, Tier};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// A JSON object: the fields of an event or answer no type names.
pub type Fields = Map<String, Value>;

/// An optional field that, when present, is of its type (`null` is not absence).
fn present<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// An optional string that a value of another type leaves unset.
fn string_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// `ui.log`'s `to`: `debug`, else the screen (any other value).
fn channel_or_screen<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<fnhooks::Channel>, D::Error> {
    Ok(Some(match Value::deserialize(d)? {
        Value::String(s) if s == "debug" => fnhooks::Channel::Debug,
        _ => fnhooks::Channel::Screen,
    }))
}

macro_rules! event_type {
    ($(#[$doc:meta])* $marker:ident, $name:expr, $pins:expr, $input:ty, $output:ty) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $marker;
        impl EventType for $marker {
            const NAME: &'static str = $name;
            const PINS: Pins = $pins;
            type Input = $input;
            type Output = $output;
        }
    };
}

macro_rules! input_type {
    ($ty:ident, $name:expr, $pins:expr, $output:ty) => {
        impl EventType for $ty {
            const NAME: &'static str = $name;
            const PINS: Pins = $pins;
            type Input = $ty;
            type Output = $output;
        }
    };
}

/// An answer with one optional string field `$key`, present only as a string.
macro_rules! string_answer {
    ($(#[$doc:meta])* $ty:ident, $(#[$kdoc:meta])* $key:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
        pub struct $ty {
            $(#[$kdoc])*
            #[serde(
                default,
                deserialize_with = "present",
                skip_serializing_if = "Option::is_none"
            )]
            pub $key: Option<String>,
            /// Fields no type names.
            #[serde(flatten)]
            pub rest: Fields,
        }
    };
}

/// `tool.check`: the pinned question (SPEC §1.2, §1.6); every field is pinned. Its
/// answer is a [`Verdict`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCheck {
    /// The tool's name (`Bash`, `mcp__corp__search`).
    pub tool: String,
    /// The tool's input as the model gave it (`null` when absent).
    #[serde(default)]
    pub input: Value,
    /// The tool use's id (empty when absent).
    #[serde(default)]
    pub tool_use_id: String,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(ToolCheck, names::TOOL_CHECK, Pins::All, Verdict);

/// `tool.call`: the model's call is about to run; rewrites belong here (SPEC §1.5, §4
/// "Rewrites"). Its answer `{tool?, input?}` is the call to check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub tool: String,
    /// The tool's input.
    #[serde(default)]
    pub input: Value,
    /// The tool use's id.
    #[serde(default)]
    pub tool_use_id: String,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(ToolCall, names::TOOL_CALL, Pins::NONE, Fields);

impl ToolCall {
    /// The model's call of `tool` with `input`, under the tool use's id.
    #[must_use]
    pub fn new(tool: impl Into<String>, input: Value, tool_use_id: impl Into<String>) -> Self {
        ToolCall {
            tool: tool.into(),
            input,
            tool_use_id: tool_use_id.into(),
            rest: Fields::new(),
        }
    }
}

/// `env.set`: a plugin sets (`value`) or unsets (`None`) a variable of the engine's
/// children (SPEC §3.8). Answer `{}` or `{deny}` ([`Refusal`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvSet {
    /// The variable's name (pinned).
    pub name: String,
    /// The new value; `None` (null, absent, or not a string) unsets.
    #[serde(default, deserialize_with = "string_or_none")]
    pub value: Option<String>,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(EnvSet, names::ENV_SET, Pins::Fields(&["name"]), Refusal);

/// `env.get`: a plugin reads a variable (SPEC §3.7). Answer `{value}` (`null` when
/// unset).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvGet {
    /// The variable's name (pinned).
    pub name: String,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(EnvGet, names::ENV_GET, Pins::Fields(&["name"]), Fields);

/// `tool.register`: a plugin registers a tool at run time (SPEC §3.4). Answer
/// [`Registered`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRegister {
    /// The tool's own name (pinned); the full name is `mcp__<plugin>__<name>`.
    pub name: String,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(
    ToolRegister,
    names::TOOL_REGISTER,
    Pins::Fields(&["name"]),
    Registered
);

/// `tool.register`'s answer (SPEC §1.7): `{registered: "<full name>"}` or `{deny}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registered {
    /// The tool's full name, when registered.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub registered: Option<String>,
    /// Why it was refused.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub deny: Option<String>,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}

string_answer!(
    /// An answer that may refuse (`env.set`, SPEC §1.7): `{}` or `{deny}`.
    Refusal,
    /// Why it was refused.
    deny
);

/// `plugin.register`: a hooks module is admitted (SPEC §3.9). Answer [`Admission`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginRegister {
    /// The module's manifest name (pinned).
    pub name: String,
    /// The module's tier (pinned).
    pub tier: Tier,
    /// The id the loader resolved: `<name>@<marketplace>`, `<name>@inline` (pinned).
    pub provenance: String,
    /// How the loader found this copy (pinned; SPEC §3.4 exemption); absent when the
    /// embedding program does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<CopySource>,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(
    PluginRegister,
    names::PLUGIN_REGISTER,
    Pins::Fields(&["name", "tier", "provenance", "source"]),
    Admission
);

string_answer!(
    /// `plugin.register`'s answer (SPEC §1.7): `{admitted: true}` or `{refuse}`; the
    /// other fields (`admitted`) in `rest`.
    Admission,
    /// Why the module was refused.
    refuse
);

/// `settings.read`: anyone reads settings (SPEC §1.5). Answer: the settings object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsRead {
    /// `policy`, `merged` (when absent or not a string), `user`, `project`, `local`,
    /// `flag`.
    #[serde(
        default,
        deserialize_with = "string_or_none",
        skip_serializing_if = "Option::is_none"
    )]
    pub source: Option<String>,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(SettingsRead, names::SETTINGS_READ, Pins::NONE, Fields);

/// `ui.log`: a plugin or the engine writes a log line (SPEC §1.5). Answer `{}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UiLog {
    /// The line.
    pub line: String,
    /// `screen` or `debug`; any other value, or none, is the screen.
    #[serde(
        default,
        deserialize_with = "channel_or_screen",
        skip_serializing_if = "Option::is_none"
    )]
    pub to: Option<fnhooks::Channel>,
    /// Fields no type names.
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(UiLog, names::UI_LOG, Pins::NONE, Fields);

/// `session.append`'s pinned door and tool (SPEC §3.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionAppend {
    /// Which door the row comes through (`attachment`, `tool-message`, `note`, ...).
    pub door: String,
    /// For `tool-message` rows: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Fields no type names (the row's text).
    #[serde(flatten)]
    pub rest: Fields,
}
input_type!(
    SessionAppend,
    names::SESSION_APPEND,
    Pins::Fields(&["door", "tool"]),
    Text
);

string_answer!(
    /// An answer with text (`prompt.section`, `session.append`, ...): `{text?}`.
    Text,
    /// The text.
    text
);

/// An answer with a list under `$key` (`prompt.context` `items`, `prompt.compose`
/// `sections`, `tool.list` `tools`).
macro_rules! list_answer {
    ($(#[$doc:meta])* $ty:ident, $key:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        pub struct $ty {
            /// The list.
            #[serde(
                default,
                deserialize_with = "present",
                skip_serializing_if = "Option::is_none"
            )]
            pub $key: Option<Vec<Value>>,
            /// Fields no type names.
            #[serde(flatten)]
            pub rest: Fields,
        }
    };
}

list_answer!(
    /// `prompt.context`'s answer: `{items?}`.
    Items,
    items
);
list_answer!(
    /// `prompt.compose`'s answer: `{sections?}`.
    Sections,
    sections
);
list_answer!(
    /// `tool.list`'s answer: `{tools?}`, each `{name, description?, provider?}`.
    Tools,
    tools
);

/// Who provides a described or offered subject (SPEC §1.5 `provider`, pinned).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provider {
    /// The provider's tier.
    pub tier: Tier,
    /// The providing plugin, if a plugin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// The providing MCP server, if a server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

impl Provider {
    /// The pinned `provider` of an event (`tool.describe`, `command.describe`,
    /// `agent.offer`, `agent.spawn`), if it is an object of this shape (an array or any
    /// other value is none: SPEC §3.3, provenance fails closed).
    #[must_use]
    pub fn of(event: &Event) -> Option<Provider> {
        let provider = event.fields.get("provider").filter(|p| p.is_object())?;
        Provider::deserialize(provider).ok()
    }
}

const PROVIDER: Pins = Pins::Fields(&["provider"]);

event_type!(
    /// `tool.list`: the list of tools given to the model. Answer [`Tools`].
    ToolList, names::TOOL_LIST, Pins::NONE, Fields, Tools
);
event_type!(
    /// `tool.describe`: a tool is described to the model; `provider` pinned.
    ToolDescribe, names::TOOL_DESCRIBE, PROVIDER, Fields, Fields
);
event_type!(
    /// `command.describe`: a command is described to the model; `provider` pinned.
    CommandDescribe, names::COMMAND_DESCRIBE, PROVIDER, Fields, Fields
);
event_type!(
    /// `agent.offer`: an agent is offered; `provider` pinned.
    AgentOffer, names::AGENT_OFFER, PROVIDER, Fields, Fields
);
event_type!(
    /// `agent.spawn`: an agent is spawned; `provider` pinned.
    AgentSpawn, names::AGENT_SPAWN, PROVIDER, Fields, Fields
);
event_type!(
    /// `prompt.section`: a section of the system prompt. Answer [`Text`].
    PromptSection, names::PROMPT_SECTION, Pins::NONE, Fields, Text
);
event_type!(
    /// `prompt.attachment`: an attachment of the prompt. Answer [`Text`].
    PromptAttachment, names::PROMPT_ATTACHMENT, Pins::NONE, Fields, Text
);
event_type!(
    /// `skill.prompt`: a skill's body. Answer [`Text`].
    SkillPrompt, names::SKILL_PROMPT, Pins::NONE, Fields, Text
);
event_type!(
    /// `attribution.text`: attribution text. Answer [`Text`].
    AttributionText, names::ATTRIBUTION_TEXT, Pins::NONE, Fields, Text
);
event_type!(
    /// `prompt.context`: the prompt's context items. Answer [`Items`].
    PromptContext, names::PROMPT_CONTEXT, Pins::NONE, Fields, Items
);
event_type!(
    /// `prompt.compose`: the prompt's sections. Answer [`Sections`].
    PromptCompose, names::PROMPT_COMPOSE, Pins::NONE, Fields, Sections
);
