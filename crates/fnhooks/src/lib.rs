//! `fnhooks`: function hooks for coding agents — the engine's chain.
//!
//! SPEC §1: tiers in chain order, hooks registered by event name or `prefix.*`,
//! `next`, `next.to`, `next.origin`, `next.trace`, pinned fields, failure handlers.
#![forbid(unsafe_code)]

mod tier;
mod verdict;

pub use tier::Tier;
pub use verdict::{Decision, Verdict};
