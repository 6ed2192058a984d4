//! Claude Code as the oracle: the same tool calls run through the pinned Claude Code
//! release and through this engine, side by side, and every difference either
//! declared (with its reason and SPEC section) or listed as known-open.
//!
//! Concerns, by file:
//! - `install`: the pinned release ([`CLAUDE_CODE_VERSION`]) installed from the npm
//!   registry into a cache folder.
//! - `fake_api`: the fake Anthropic Messages API that scripts batches of tool calls.
//! - `sandbox`: one Claude Code process in namespaces of its own (mount, network,
//!   pid), as an unprivileged uid, with the policy under test on its own
//!   `/etc/claude-code`.
//! - `stream`: Claude Code's `stream-json` read for each call's decision.
//! - `corpus`: the corpora (the scenarios' calls, a developer's day under the real
//!   managed policies), grouped into sessions.
//! - `engine`: the same calls through this engine.
//! - `compare`: each pair of answers classified, and matched against the checked-in
//!   list of declared and known-open differences (`differences.json`).
//! - `run`: the whole run, and the table it writes (`CONFORMANCE.md`).
//!
//! Run it with `cargo run -p conformance -- run` (the whole corpora) or `-- run
//! --slice` (the fixed slice CI runs). It needs Linux, root (for the namespaces), and
//! `npm`, `unshare`, `mount`, `ip`, `setpriv` and `chown` on `PATH`.
#![forbid(unsafe_code)]

pub mod compare;
pub mod corpus;
pub mod engine;
pub mod fake_api;
pub mod install;
pub mod run;
pub mod sandbox;
pub mod stream;

/// A decision, ordered by strictness (`Allow < Ask < Deny`): the engine's own type.
pub use permissions::Decision;

/// The Claude Code release the harness runs against, named in this one place.
pub const CLAUDE_CODE_VERSION: &str = "2.1.328";
