//! A session that blocks on its own futures, for programs with no async runtime (the
//! CLI, the scenario runner).

use crate::{RaiseError, Raised, Session, SessionConfig, SessionError, SessionRaise, ToolUse};
use events::ToolCall;
use fnhooks::{Answer, Event, Plugin};
use futures::executor::block_on;
use serde_json::Value;
use std::ops::Deref;

/// [`Session`] with each async method run to its end on the calling thread
/// (`futures::executor::block_on`). Never use it on an async runtime's thread: there,
/// await [`Session`]'s methods. Every other method is [`Session`]'s, through `Deref`.
#[derive(Debug)]
pub struct BlockingSession(Session);

impl BlockingSession {
    /// [`Session::start`], blocking.
    ///
    /// # Errors
    ///
    /// As [`Session::start`].
    pub fn start(config: SessionConfig, plugins: Vec<Plugin>) -> Result<Self, SessionError> {
        block_on(Session::start(config, plugins)).map(BlockingSession)
    }

    /// [`Session::start_listed`], blocking.
    ///
    /// # Errors
    ///
    /// As [`Session::start`].
    pub fn start_listed(
        config: SessionConfig,
        plugins: Vec<crate::Listed>,
    ) -> Result<Self, SessionError> {
        block_on(Session::start_listed(config, plugins)).map(BlockingSession)
    }

    /// [`Session::raise`], blocking.
    ///
    /// # Errors
    ///
    /// As [`Session::raise`].
    pub fn raise(&self, event: Event) -> Result<Value, RaiseError> {
        block_on(self.0.raise(event))
    }

    /// [`Session::raise_from`], blocking.
    ///
    /// # Errors
    ///
    /// As [`Session::raise_from`].
    pub fn raise_from(&self, id: &str, event: Event) -> Result<Value, RaiseError> {
        block_on(self.0.raise_from(id, event))
    }

    /// [`Session::raise_traced`], blocking.
    ///
    /// # Errors
    ///
    /// As [`Session::raise_traced`].
    pub fn raise_traced(&self, raise: SessionRaise) -> Result<Raised, RaiseError> {
        block_on(self.0.raise_traced(raise))
    }

    /// [`Session::tool_use`], blocking.
    #[must_use]
    pub fn tool_use(&self, call: ToolCall) -> ToolUse {
        block_on(self.0.tool_use(call))
    }

    /// [`Session::reload`], blocking.
    ///
    /// # Errors
    ///
    /// As [`Session::reload`].
    pub fn reload(&self, id: &str) -> Result<Answer, RaiseError> {
        block_on(self.0.reload(id))
    }

    /// The async session beneath.
    #[must_use]
    pub fn session(&self) -> &Session {
        &self.0
    }
}

impl Deref for BlockingSession {
    type Target = Session;

    fn deref(&self) -> &Session {
        &self.0
    }
}
