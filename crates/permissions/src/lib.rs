#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod bash;
pub mod classic;
mod decide;
mod facts;
mod index;
mod matcher;
pub mod path;
pub mod rule;
mod ruleset;
mod verdict;
pub mod wildcard;

pub use decide::{
    decide, decide_unreadable_policy, outcome, Outcome, Question, BLOCK_READS_SETTING,
    MANAGED_SETTINGS, READ_ONLY_TOOLS,
};
pub use facts::{
    is_chrome_tool, Host, Loop, Mode, ParseNameError, SessionFacts, SettingsSource, CHROME_SERVER,
};
pub use rule::{Behavior, Rule, RuleSpec, RuleWarning};
pub use ruleset::RuleSet;
pub use verdict::{Decision, Verdict};

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
