//! The catalogue of SPEC §1.5, as the session hands it to the engine.

use crate::names::{self, CATALOGUE, FAMILIES};
use crate::types::{
    AgentOffer, AgentSpawn, AttributionText, CommandDescribe, EnvGet, EnvSet, PluginRegister,
    PromptAttachment, PromptCompose, PromptContext, PromptSection, SessionAppend, SettingsRead,
    SkillPrompt, ToolCall, ToolCheck, ToolDescribe, ToolList, ToolRegister, UiLog,
};
use crate::Verdict;
use fnhooks::Catalogue;

/// Every event of SPEC §1.5: those the engine, the core or the security default read,
/// as types (their pins of SPEC §1.2 **\[decision\]** and answer shapes of §1.7b); the
/// others SPEC names, untyped; and the families (`classic.`, `turn.`, ...).
/// `tool.check` fails closed (SPEC §1.8): an organization's hook that fails at it
/// answers [`Verdict::unchecked_deny`].
///
/// Takes nothing; returns the catalogue.
///
/// ```
/// let c = events::catalogue();
/// assert!(c.is_declared("tool.check") && c.is_declared("classic.PreToolUse"));
/// assert!(!c.is_declared("tool.chek"));
/// assert_eq!(c.pins("env.set"), fnhooks::Pins::Fields(&["name"]));
/// assert!(!c.answer_ok("prompt.section", &serde_json::json!({"text": null})));
/// ```
#[must_use]
pub fn catalogue() -> Catalogue {
    let typed = Catalogue::new()
        .fail_closed::<ToolCheck>("denied", |plugin, failure| {
            Verdict::unchecked_deny(&plugin.name, failure.kind.as_str())
        })
        .event::<ToolCall>()
        .event::<ToolRegister>()
        .event::<ToolList>()
        .event::<ToolDescribe>()
        .event::<CommandDescribe>()
        .event::<AgentOffer>()
        .event::<AgentSpawn>()
        .event::<EnvGet>()
        .event::<EnvSet>()
        .event::<PluginRegister>()
        .event::<SettingsRead>()
        .event::<UiLog>()
        .event::<SessionAppend>()
        .event::<PromptSection>()
        .event::<PromptContext>()
        .event::<PromptAttachment>()
        .event::<PromptCompose>()
        .event::<SkillPrompt>()
        .event::<AttributionText>();
    // `untyped` leaves a typed declaration as it is.
    let untyped = CATALOGUE.iter().fold(typed, |c, n| c.untyped(n));
    debug_assert!(untyped.is_declared(names::SESSION_COMPACT));
    FAMILIES.iter().fold(untyped, |c, f| c.family(f))
}
