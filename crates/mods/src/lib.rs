#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod hook;
mod host;
mod inline;
pub mod load;
mod matcher;
mod plugin;
mod translate;

pub use inline::INLINE_MODULE;
pub use load::{load_folder, LoadError, Manifest, ModSource};
pub use plugin::{ModPlugin, OptionsError};

use std::time::Duration;

/// How a mod's runtime runs (SPEC §6 "Sandbox", "Limits").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// A hook's own time (and the load's: top-level code and `register`): past it the
    /// running JavaScript is interrupted (kind `timeout`). The session's hook timeout.
    pub hook_timeout: Duration,
    /// The runtime's memory cap, in bytes (default 256 MiB).
    pub memory_limit: usize,
    /// The runtime's stack cap, in bytes (default 1 MiB): deep JavaScript recursion
    /// throws a `RangeError` in the mod instead of overflowing the thread's stack.
    pub stack_limit: usize,
    /// `$` calls the embedding program's core answers beyond SPEC §6's eight (for
    /// example `fs.read` in a harness with files); every other one rejects with
    /// `no implementation for <event>` without raising anything.
    pub extra_ops: Vec<String>,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            hook_timeout: fnhooks::DEFAULT_HOOK_TIMEOUT,
            memory_limit: 256 * 1024 * 1024,
            stack_limit: 1024 * 1024,
            extra_ops: Vec::new(),
        }
    }
}
