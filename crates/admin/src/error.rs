//! The error a command ends with: the file, the position and the pointer (each when
//! known), the reason, and the exit code ([`crate::exit`]). The `sec-default` binary
//! prints its line on standard error and, with `--json`, its JSON object on standard
//! output.

use crate::exit::{BAD_INPUT as EXIT_BAD_INPUT, POLICY_UNREADABLE as EXIT_POLICY_UNREADABLE};
use scenario::FormatError;
use serde_json::{json, Value};
use std::path::Path;

/// One error: where (file, line and column, JSON pointer, each when known), why, and the
/// exit code it ends the command with (SPEC §2.1 "Fail closed" for exit 3; SCENARIOS.md
/// "Running" for exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandError {
    /// The line printed on standard error (after `sec-default <command>: `).
    pub message: String,
    /// The file or folder the error is about.
    pub file: Option<String>,
    /// 1-based line, when the error has a position in the file.
    pub line: Option<usize>,
    /// 1-based column, with `line`.
    pub column: Option<usize>,
    /// RFC 6901 pointer within the file, when the error is about one value.
    pub pointer: Option<String>,
    /// Why, without the file and position.
    pub reason: String,
    /// The exit code ([`crate::exit`]).
    pub exit_code: u8,
}

/// Building and printing errors.
impl CommandError {
    /// An error about `file` (when there is one) with no position.
    pub fn new(file: Option<&Path>, reason: impl Into<String>, exit_code: u8) -> CommandError {
        let reason = reason.into();
        let file = file.map(|f| f.display().to_string());
        let message = match &file {
            Some(f) => format!("{f}: {reason}"),
            None => reason.clone(),
        };
        CommandError {
            message,
            file,
            line: None,
            column: None,
            pointer: None,
            reason,
            exit_code,
        }
    }

    /// An error whose human line is `message` (`<file>: ...` or `<file>:<line>:<col>:
    /// ...`, as the crates' errors print): the file, line and column are read back
    /// from its start, the rest is the reason.
    pub fn parsed(message: String, file: &Path, exit_code: u8) -> CommandError {
        let shown = file.display().to_string();
        let mut out = CommandError::new(Some(file), message.clone(), exit_code);
        out.message = message.clone();
        let Some(rest) = message.strip_prefix(&shown) else {
            return out;
        };
        let mut rest = rest;
        if let Some(after) = rest.strip_prefix(':') {
            let mut parts = after.splitn(3, ':');
            let (l, c, tail) = (parts.next(), parts.next(), parts.next());
            match (
                l.and_then(|l| l.parse::<usize>().ok()),
                c.and_then(|c| c.parse::<usize>().ok()),
                tail,
            ) {
                (Some(l), Some(c), Some(tail)) => {
                    out.line = Some(l);
                    out.column = Some(c);
                    rest = tail;
                }
                _ => rest = after,
            }
        }
        out.reason = rest.trim_start().to_owned();
        out
    }

    /// A managed policy that cannot be read (exit 3, fail closed) or a folder that does
    /// not exist (exit 2), SPEC §2.1.
    pub fn from_policy(e: &policy::PolicyError) -> CommandError {
        let code = if e.is_fail_closed() {
            EXIT_POLICY_UNREADABLE
        } else {
            EXIT_BAD_INPUT
        };
        CommandError::parsed(e.to_string(), e.path(), code)
    }

    /// A scenario file that is not valid (exit 2; SCENARIOS.md "Running"): the file,
    /// the line and column of a syntax error, the pointer of an invalid value.
    pub fn from_format(e: &FormatError) -> CommandError {
        let mut out = CommandError::parsed(e.to_string(), e.path(), EXIT_BAD_INPUT);
        if let FormatError::Invalid {
            pointer,
            message,
            location,
            ..
        } = e
        {
            out.pointer = (!pointer.is_empty()).then(|| pointer.clone());
            out.reason = message.clone();
            if let Some((l, c)) = location {
                out.line = Some(*l);
                out.column = Some(*c);
            }
        }
        out
    }

    /// This error at `pointer` (when the error itself has none).
    #[must_use]
    pub fn at_pointer(mut self, pointer: String) -> CommandError {
        if self.pointer.is_none() && !pointer.is_empty() {
            self.pointer = Some(pointer);
        }
        self
    }

    /// The error's fields as JSON: `file`, `line`, `column`, `pointer` (each `null`
    /// when unknown), `reason`, `exit_code`.
    pub fn fields(&self) -> Value {
        json!({
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "pointer": self.pointer,
            "reason": self.reason,
            "exit_code": self.exit_code,
        })
    }

    /// The one JSON object `--json` prints on an error: `{"error": {...}}`.
    pub fn to_json(&self) -> Value {
        json!({ "error": self.fields() })
    }
}
