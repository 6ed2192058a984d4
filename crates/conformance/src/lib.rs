#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod compare;
pub mod corpus;
pub mod engine;
pub mod fake_api;
pub mod install;
pub mod run;
pub mod sandbox;
pub mod stream;
pub mod tree;

/// A decision, ordered by strictness (`Allow < Ask < Deny`): the engine's own type.
pub use permissions::Decision;

/// The Claude Code release the harness runs against, named in this one place.
pub const CLAUDE_CODE_VERSION: &str = "2.1.328";
