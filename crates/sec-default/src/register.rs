//! The plugin's registrations, event by event: the seed's table (`register.ts`), one
//! registration per row, each delegating to a named module.

use crate::state::State;
use crate::{
    admission, held_verdict, managed_tools, past_users, pinned_variables, skill_row,
    tool_register_refusal,
};
use events::names::{
    AGENT_OFFER, AGENT_SPAWN, ATTRIBUTION_TEXT, COMMAND_DESCRIBE, ENV_GET, ENV_SET,
    PLUGIN_REGISTER, PROMPT_ATTACHMENT, PROMPT_COMPOSE, PROMPT_CONTEXT, PROMPT_SECTION,
    SESSION_APPEND, SESSION_COMPACT, SETTINGS_READ, SKILL_PROMPT, TOOL_CHECK, TOOL_DESCRIBE,
    TOOL_LIST, TOOL_REGISTER, UI_LOG,
};
use fnhooks::{Hook, Plugin, PluginInfo, Registration, Tier};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The built-in's recorded id, under which its options are read.
///
/// SPEC §2.3
pub const ID: &str = ::policy::SEC_DEFAULT_ID;

/// The built-in's manifest name.
///
/// SPEC §0
pub const NAME: &str = "cc-plugin-sec-default";

fn on(pattern: &str, hook: impl Hook) -> Registration {
    Registration::on(pattern, hook)
}

/// `on(pattern, {key: value}, hook)`.
fn on_where(pattern: &str, key: &str, value: &str, hook: impl Hook) -> Registration {
    let mut filter = Map::new();
    filter.insert(key.to_owned(), Value::String(value.to_owned()));
    Registration::on(pattern, hook).filter(filter)
}

/// A fresh security default: a fresh notice set and id map (SPEC §2.3), seated by the
/// engine with `engine.seat_first(..)` as the first link of the `prepend` tier (tier
/// `prepend`, no worker).
///
/// Takes nothing; returns the plugin with every registration of SPEC §3 (the seed's
/// `register.ts`).
///
/// SPEC §3; seed `hooks/register.ts`
#[must_use]
pub fn plugin() -> Plugin {
    plugin_observed(None)
}

/// [`plugin`], telling `observer` what it did with each `tool.check` (which
/// person's plugins rewrote the verdict, and whether it held), for the engine's decision
/// log.
///
/// SPEC §3.6
#[must_use]
pub fn plugin_observed(observer: Option<crate::state::CheckObserver>) -> Plugin {
    let state = Arc::new(State::observed(observer));
    let (s1, s2, s3) = (state.clone(), state.clone(), state);
    let info = PluginInfo {
        id: ID.to_owned(),
        name: NAME.to_owned(),
        tier: Tier::Prepend,
        worker: None,
        source: None,
    };
    Plugin::new(info)
        // §3.1 continue past the user tier, always
        .with(on("classic.*", past_users::always))
        .with(on(PROMPT_SECTION, past_users::always))
        .with(on(PROMPT_CONTEXT, past_users::always))
        .with(on(PROMPT_ATTACHMENT, past_users::always))
        .with(on(PROMPT_COMPOSE, past_users::always))
        .with(on(SKILL_PROMPT, past_users::always))
        .with(on(ATTRIBUTION_TEXT, past_users::always))
        // §3.2 session.append, by door
        .with(on_where(
            SESSION_APPEND,
            "door",
            "attachment",
            past_users::always,
        ))
        .with(on_where(
            SESSION_APPEND,
            "door",
            "hook-context",
            past_users::always,
        ))
        .with(on_where(
            SESSION_APPEND,
            "door",
            "compaction",
            past_users::always,
        ))
        .with(on_where(
            SESSION_APPEND,
            "door",
            "tool-message",
            skill_row::held_if_skill,
        ))
        .with(on_where(
            SESSION_APPEND,
            "door",
            "note",
            past_users::if_org_caller,
        ))
        .with(on(SESSION_COMPACT, past_users::always))
        .with(on(SETTINGS_READ, past_users::always))
        // §3.3 subjects by provenance
        .with(on(TOOL_DESCRIBE, past_users::if_provided_by_org))
        .with(on(COMMAND_DESCRIBE, past_users::if_provided_by_org))
        .with(on(AGENT_OFFER, past_users::if_provided_by_org))
        .with(on(AGENT_SPAWN, past_users::if_provided_by_org))
        // §3.4 tool.register
        .with(
            on(TOOL_REGISTER, move |cx, e, next| {
                tool_register_refusal::tool_register(s1.clone(), cx, e, next)
            })
            .catch(tool_register_refusal::tool_register_failed),
        )
        // §3.5 tool.list
        .with(on(TOOL_LIST, managed_tools::tool_list))
        // §3.6 tool.check — deny rules hold
        .with(
            on(TOOL_CHECK, move |cx, e, next| {
                held_verdict::check(s2.clone(), cx, e, next)
            })
            .catch(held_verdict::check_failed),
        )
        // §3.7 ui.log, env.get
        .with(on(UI_LOG, past_users::if_org_caller))
        .with(on(ENV_GET, past_users::if_org_caller))
        // §3.8 env.set — pinned variables
        .with(on(ENV_SET, pinned_variables::env_set).catch(pinned_variables::env_set_failed))
        // §3.9 plugin.register — managed mods only
        .with(
            on_where(PLUGIN_REGISTER, "tier", "user", move |cx, e, next| {
                admission::admit(s3.clone(), cx, e, next)
            })
            .catch(admission::admit_failed),
        )
}
