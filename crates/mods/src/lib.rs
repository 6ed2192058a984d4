#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod hook;
mod host;
mod inline;
pub mod inspect;
pub mod load;
mod matcher;
mod plugin;
mod translate;
mod wire;
mod worker;

pub use host::SharedWorker;
pub use inline::INLINE_MODULE;
pub use inspect::{inspect, Inspection};
pub use load::{load_folder, LoadError, Manifest, ModSource};
pub use plugin::{ModPlugin, OptionsError};
pub use worker::SpawnError;

use std::time::Duration;

/// One empty job sent to a fresh worker's thread and its reply awaited, `n` times: the
/// thread hop every hook run of a mod pays (SPEC §6 "Workers"), measured apart from the
/// JavaScript (the bridge bench). Returns how many jobs came back.
///
/// # Errors
///
/// The line saying the worker thread could not be started.
#[doc(hidden)]
pub fn worker_round_trips(n: usize) -> Result<usize, SpawnError> {
    let worker = std::sync::Arc::new(worker::Worker::spawn("hop")?);
    let mut back = 0;
    for _ in 0..n {
        let job = worker.run(Duration::from_secs(1), || 1usize);
        back += futures::executor::block_on(job).unwrap_or(0);
    }
    Ok(back)
}

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
