//! `fnhooks`: function hooks for coding agents — the engine's chain.
//!
//! SPEC §1: tiers in chain order ([`Tier`]); hooks registered by event name or
//! `prefix.*`, with filters ([`Registration`]); async hooks `hook(cx, e, next)`;
//! [`Next::run`] (the seed's `next(e)`), [`Next::to`] (managed tiers only),
//! [`Next::origin`], [`Next::trace`] (batches merged); failure handlers with
//! [`Next::called`] and [`Next::error`]; pinned fields (a hook that hands on a changed
//! pinned field fails, kind `pin`, and the chain goes on without it); every failure
//! (error, panic, timeout, broken pin, invalid answer, forbidden jump) is caught — the
//! engine never panics; an organization's plugin that fails at `tool.check` answers an
//! unchecked deny (SPEC §1.8).
//!
//! The engine knows no policy and no plugin: the embedding program gives it a [`Core`]
//! (the `core` tier's answer of every event, and the log sink).
//!
//! ```
//! use fnhooks::{Answer, Channel, Core, Cx, Engine, Event, Origin, Plugin, PluginInfo, Registration, Tier};
//! use futures::future::BoxFuture;
//! use serde_json::{json, Map};
//! use std::sync::Arc;
//!
//! struct Echo;
//! impl Core for Echo {
//!     fn answer(&self, _cx: Cx, e: Event) -> BoxFuture<'static, Answer> {
//!         Box::pin(async move { Ok(e.to_value()) })
//!     }
//!     fn engine_log(&self, _channel: Channel, _line: String) {}
//! }
//!
//! let engine = Engine::new(Arc::new(Echo), fnhooks::DEFAULT_HOOK_TIMEOUT);
//! let info = PluginInfo { id: "shout@example".into(), name: "shout".into(), tier: Tier::User, worker: None, source: None };
//! engine.seat(Plugin::new(info).with(Registration::on("prompt.section", |_cx, e: Event, next: fnhooks::Next| async move {
//!     let mut answer = next.run(e).await?;
//!     answer["text"] = json!(answer["text"].as_str().unwrap_or_default().to_uppercase());
//!     Ok(answer)
//! })));
//! let e = Event::from_value("prompt.section", json!({"text": "hello"}));
//! assert_eq!(engine.raise_blocking(e, Origin::engine()).unwrap(), json!({"text": "HELLO"}));
//! ```
#![forbid(unsafe_code)]

mod chain;
mod escape;
mod event;
pub mod events;
mod names_spell;
mod plugin;
mod tier;
mod timer;
mod verdict;

pub use chain::{
    answer_to_json, Answer, ChainError, Channel, Core, Cx, Engine, Next, TraceEntry,
    DEFAULT_HOOK_TIMEOUT,
};
pub use escape::{escaped, escaped_line};
pub use event::{
    answer_shape_ok, keeps_pins, names, pinned_fields, restore_pins, Event, FailureKind,
    HookFailure, Origin,
};
pub use names_spell::{registered_tool_name, spell};
pub use plugin::{
    CopySource, Hook, HookError, HookResult, Pattern, Plugin, PluginInfo, Registration,
};
pub use tier::Tier;
pub use verdict::{Decision, Verdict};
