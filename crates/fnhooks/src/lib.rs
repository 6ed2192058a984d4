#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod catalogue;
mod chain;
mod escape;
mod event;
mod plugin;
mod reply;
mod run;
#[cfg(feature = "testing")]
pub mod testing;
mod tier;
mod timer;
mod typed;

pub use catalogue::{Catalogue, EventType, Pins};
pub use chain::{
    answer_to_json, Answer, ChainError, Channel, Core, Cx, Engine, Next, Raise, TraceEntry,
    DEFAULT_HOOK_TIMEOUT, MAX_RAISE_DEPTH,
};
pub use escape::{escaped, escaped_line};
pub use event::{Event, EventName, FailureKind, HookFailure, Origin};
pub use plugin::{
    CopySource, EventPredicate, Hook, HookError, HookResult, Pattern, Plugin, PluginInfo,
    Registration,
};
pub use reply::Reply;
pub use run::NextAnswer;
pub use tier::Tier;
pub use typed::{Router, TypedNext};
