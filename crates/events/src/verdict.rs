//! Verdicts: the answer of `tool.check` (SPEC §1.6), the permission core's decision.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// A permission decision, ordered by strictness: `Allow < Ask < Deny` (SPEC §1.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The call runs.
    Allow,
    /// Somebody (the person, or a host in their place) is asked.
    Ask,
    /// The call is refused.
    Deny,
}

impl Decision {
    /// The decision as SPEC spells it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A verdict of `tool.check`: `{decision, reason?, rule?, source?, hook?, setting?,
/// ceiling?, decider?}` (SPEC §1.6). This JSON shape is also what scenario files and
/// `--json` output use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// `allow` < `ask` < `deny`.
    pub decision: Decision,
    /// Words for the person (shown in the prompt, written into a refusal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The settings permission rule that decided it, exactly as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The settings source `rule` came from (`policy`, `flag`, `local`, `project`, `user`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The classic hook event whose answer decided it (`PreToolUse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook: Option<String>,
    /// A setting whose own check asked (`permissions.blockReadsOutsideWorkingDirectories`,
    /// `managed-settings` when the policy cannot be read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setting: Option<String>,
    /// The organization's ask cap on this tool (never produced by the core).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<String>,
    /// Who answers the ask in the person's place (`host`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decider: Option<String>,
    /// The core could not see what the command does, and `rule` is a deny or ask rule
    /// it may meet (SPEC §4 "What the core cannot see, it never lets through"); written
    /// only when `true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub uncertain: bool,
}

impl Verdict {
    /// A verdict with this decision and nothing named.
    #[must_use]
    pub fn plain(decision: Decision) -> Self {
        Verdict {
            decision,
            reason: None,
            rule: None,
            source: None,
            hook: None,
            setting: None,
            ceiling: None,
            decider: None,
            uncertain: false,
        }
    }

    /// The engine's answer in place of an organization's hook that failed at
    /// `tool.check` (SPEC §1.8): an unchecked deny naming the plugin (its manifest name,
    /// escaped as `char::escape_debug` escapes it, SPEC §3.6.1) and how it failed
    /// (`error`, `timeout`, ...).
    ///
    /// ```
    /// let v = events::Verdict::unchecked_deny("corp\nguard", "timeout");
    /// assert_eq!(v.decision, events::Decision::Deny);
    /// assert_eq!(v.reason.as_deref(), Some("corp\\nguard, a plugin of your organization, failed while checking this call (timeout); denied"));
    /// ```
    #[must_use]
    pub fn unchecked_deny(plugin: &str, failed: &str) -> Self {
        let plugin: String = plugin.chars().flat_map(char::escape_debug).collect();
        Verdict::plain(Decision::Deny).with_reason(format!(
            "{plugin}, a plugin of your organization, failed while checking this call ({failed}); denied"
        ))
    }

    /// This verdict with `reason` set.
    #[must_use]
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// Whether the verdict names something that stands behind it: `rule`, `hook`,
    /// `setting`, `ceiling` or `decider` (SPEC §3.6 step 6).
    #[must_use]
    pub fn names_a_cause(&self) -> bool {
        self.rule.is_some()
            || self.hook.is_some()
            || self.setting.is_some()
            || self.ceiling.is_some()
            || self.decider.is_some()
    }

    /// Reads a verdict from a chain answer; `None` when the value is not a verdict
    /// (not an object, no valid `decision`, or a named field that is not a string);
    /// fields beyond SPEC §1.6's are ignored.
    #[must_use]
    pub fn from_value(value: &Value) -> Option<Verdict> {
        Verdict::deserialize(value).ok()
    }

    /// The verdict as a JSON object (the shape of SPEC §1.6).
    #[must_use]
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
