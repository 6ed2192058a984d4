//! The events a hook raises most, as methods of its `cx` (SPEC §1.5 `settings.read`,
//! `ui.log`).

use crate::types::{SettingsRead, UiLog};
use fnhooks::{Answer, Channel, Cx, EventType};
use futures::future::BoxFuture;

/// `cx.settings.read` and `cx.ui.log` (SPEC §1.5), raised as the hook's own plugin
/// through [`Cx::raise`].
pub trait CxExt {
    /// `settings.read({source})`: `policy`, `merged`, `user`, `project`, `local`, `flag`.
    ///
    /// # Errors
    ///
    /// The chain's error (e.g. the policy cannot be read).
    fn settings_read(&self, source: &str) -> BoxFuture<'static, Answer>;

    /// `ui.log(line, {to})`.
    ///
    /// # Errors
    ///
    /// The chain's error.
    fn log(&self, line: impl Into<String>, channel: Channel) -> BoxFuture<'static, Answer>;
}

impl CxExt for Cx {
    fn settings_read(&self, source: &str) -> BoxFuture<'static, Answer> {
        self.raise(SettingsRead::event(&SettingsRead {
            source: Some(source.to_owned()),
            rest: serde_json::Map::new(),
        }))
    }

    fn log(&self, line: impl Into<String>, channel: Channel) -> BoxFuture<'static, Answer> {
        self.raise(UiLog::event(&UiLog {
            line: line.into(),
            to: Some(channel),
            rest: serde_json::Map::new(),
        }))
    }
}
