//! `session.append` rows of the `Skill` tool (SPEC §3.2).

use events::SessionAppend;
use fnhooks::{Cx, Event, EventType, HookResult, Next, Tier};

/// The tool whose `tool-message` rows are held: every `Skill` row, since the row does
/// not say whose skill it is.
///
/// SPEC §3.2
pub const SKILL_TOOL: &str = "Skill";

/// Whether a `session.append` row is a row of the `Skill` tool (its pinned `tool`).
///
/// Takes the event; returns the answer.
///
/// SPEC §3.2
#[must_use]
pub fn is_skill_row(e: &Event) -> bool {
    SessionAppend::read(e).is_some_and(|row| row.tool.as_deref() == Some(SKILL_TOOL))
}

/// The `tool-message` door: continue past the user tier for a `Skill` row; pass others.
///
/// Takes what a hook takes; returns the row as stored.
///
/// # Errors
///
/// The chain's own error, returned as it came.
///
/// SPEC §3.2
pub async fn held_if_skill(_cx: Cx, e: Event, next: Next) -> HookResult {
    if is_skill_row(&e) {
        Ok(next.to(e, Tier::Append).await?)
    } else {
        Ok(next.run(e).await?)
    }
}
