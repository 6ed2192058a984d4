#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod bash;
pub mod classic;
mod decide;
mod explain;
mod facts;
mod index;
mod matcher;
pub mod path;
pub mod rule;
mod ruleset;
pub mod wildcard;

pub use decide::{
    decide, decide_unreadable_policy, outcome, Outcome, Question, BLOCK_READS_SETTING,
    MANAGED_SETTINGS, READ_ONLY_TOOLS,
};
/// The answer of `tool.check` (SPEC §1.6), owned by `events` with the other event
/// shapes and used here as the core's decision.
pub use events::{Decision, Verdict};
pub use explain::{explain, Explainer, Explanation, Met};
pub use facts::{
    is_chrome_tool, Host, Loop, Mode, ParseNameError, SessionFacts, SettingsSource, CHROME_SERVER,
};
pub use rule::{Behavior, Rule, RuleSpec, RuleWarning};
pub use ruleset::RuleSet;

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
