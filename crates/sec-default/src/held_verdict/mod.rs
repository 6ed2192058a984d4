//! `tool.check` — deny rules hold (SPEC §3.6, §3.6.1).
//!
//! After the chain answers, [`rewritten_by_users`] reads `next.trace` for entries that
//! stand for a person's plugin (a `user` entry, or a batch holding a `user` member) and
//! rewrote the verdict they were handed without tightening it; the organization's own
//! plugins never count. When some did and deny rules hold, the same question is evaluated
//! past the user tier (`next.to(e, append)`); that verdict is returned whole when it
//! [`holds_over`] the chain's answer, and the person is told once per (plugins, kind)
//! ([`held_kind`], [`held_notice`]).

mod caught;
mod hook;
mod kind;
mod verdicts;

pub use caught::{caught_answer, unchecked_deny};
pub use hook::{check, check_failed};
pub use kind::{held_kind, held_notice, held_notice_as, is_rule_kind};
pub use verdicts::{holds_over, is_looser, rewritten_by_users, verdict_of};

#[cfg(test)]
mod tests;
