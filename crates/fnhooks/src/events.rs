//! Typed inputs of the events the engine and the security default read (SPEC §1.5).
//!
//! Chains carry events as JSON objects ([`Event`]) so that any plugin, the scenario
//! format and `--json` output agree on one shape; these types are the typed view of the
//! fields SPEC §1.5 names, read with [`EventInput::read`] and written with
//! [`EventInput::to_event`]. Fields beyond these are kept in the [`Event`] untouched.

use crate::event::{names, Event};
use crate::Tier;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A typed event input: its event name and its fields as a serde type.
pub trait EventInput: Serialize + DeserializeOwned {
    /// The event's name (SPEC §1.5).
    const NAME: &'static str;

    /// Reads the typed input from an event's fields; `None` when the event has another
    /// name or its fields do not have this shape.
    fn read(event: &Event) -> Option<Self> {
        if event.name != Self::NAME {
            return None;
        }
        serde_json::from_value(event.to_value()).ok()
    }

    /// The event carrying this input.
    fn to_event(&self) -> Event {
        Event::from_value(
            Self::NAME,
            serde_json::to_value(self).unwrap_or(Value::Null),
        )
    }
}

/// `tool.check`: the pinned question (SPEC §1.2, §1.6). Its answer is a [`crate::Verdict`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCheck {
    /// The tool's name (`Bash`, `mcp__corp__search`).
    pub tool: String,
    /// The tool's input as the model gave it.
    #[serde(default)]
    pub input: Value,
    /// The tool use's id.
    #[serde(default)]
    pub tool_use_id: String,
}

impl EventInput for ToolCheck {
    const NAME: &'static str = names::TOOL_CHECK;
}

/// `env.set`: a plugin sets (`value`) or unsets (`None`) a variable of the engine's
/// children (SPEC §3.8). Answer `{}` or `{deny}` (SPEC §1.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvSet {
    /// The variable's name (pinned).
    pub name: String,
    /// The new value; `None` (null or absent) unsets.
    #[serde(default)]
    pub value: Option<String>,
}

impl EventInput for EnvSet {
    const NAME: &'static str = names::ENV_SET;
}

/// `env.get`: a plugin reads a variable (SPEC §3.7). Answer `{value}` (`null` when unset).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvGet {
    /// The variable's name (pinned).
    pub name: String,
}

impl EventInput for EnvGet {
    const NAME: &'static str = names::ENV_GET;
}

/// `tool.register`: a plugin registers a tool at run time (SPEC §3.4). Answer
/// `{registered: "<full name>"}` or `{deny}` (SPEC §1.7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRegister {
    /// The tool's own name (pinned); the full name is `mcp__<plugin>__<name>`.
    pub name: String,
}

impl EventInput for ToolRegister {
    const NAME: &'static str = names::TOOL_REGISTER;
}

/// `plugin.register`: a hooks module is admitted (SPEC §3.9). Answer `{admitted: true}`
/// or `{refuse}` (SPEC §1.7).
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
    pub source: Option<crate::CopySource>,
}

impl EventInput for PluginRegister {
    const NAME: &'static str = names::PLUGIN_REGISTER;
}

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
        serde_json::from_value(provider.clone()).ok()
    }
}

/// `session.append`'s pinned door and tool (SPEC §3.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionAppend {
    /// Which door the row comes through (`attachment`, `tool-message`, `note`, ...).
    pub door: String,
    /// For `tool-message` rows: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl EventInput for SessionAppend {
    const NAME: &'static str = names::SESSION_APPEND;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn typed_inputs_round_trip_through_events() {
        let e = EnvSet {
            name: "LD_PRELOAD".into(),
            value: None,
        }
        .to_event();
        assert_eq!(e.name, "env.set");
        assert_eq!(EnvSet::read(&e).unwrap().value, None);
        let e = Event::from_value(
            "plugin.register",
            json!({"name": "x", "tier": "user", "provenance": "x@m"}),
        );
        assert_eq!(PluginRegister::read(&e).unwrap().tier, Tier::User);
        assert_eq!(
            ToolCheck::read(&e),
            None,
            "another event's fields are not a tool.check"
        );
        let e = Event::from_value(
            "tool.describe",
            json!({"provider": {"tier": "prepend", "server": "corp"}}),
        );
        assert_eq!(Provider::of(&e).unwrap().server.as_deref(), Some("corp"));
    }
}
