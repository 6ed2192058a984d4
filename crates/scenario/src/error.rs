//! Errors of loading and materializing scenario files (SCENARIOS.md "Running": a file
//! that is not a valid scenario names the file, the JSON pointer and what was expected).

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A scenario file (or path given to load) that is not a valid scenario.
///
/// `sec-default test` exits with code 2 on this error (SCENARIOS.md "Running").
/// Display shapes:
///
/// - `cases/x.json: /plugins/0/hooks/0/do: unknown behaviour "answr", expected one of ... (line 30, column 18)`
/// - `cases/x.json:3:5: invalid JSON: expected value`
/// - `cases/missing: no such file or folder`
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// A path given to load does not exist.
    #[error("{}: no such file or folder", .path.display())]
    NotFound {
        /// The path as given.
        path: PathBuf,
    },
    /// A file or folder could not be read.
    #[error("{}: cannot read: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
    /// The file is not JSON at all.
    #[error("{}:{line}:{column}: invalid JSON: {message}", .file.display())]
    Syntax {
        /// The scenario file.
        file: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the JSON parser expected.
        message: String,
    },
    /// The file is JSON, but not a scenario: `pointer` says where, `message` what was expected.
    #[error("{}", Invalid { file, pointer, message, location: *location })]
    Invalid {
        /// The scenario file.
        file: PathBuf,
        /// JSON pointer (RFC 6901) of the offending value, `""` for the whole file.
        pointer: String,
        /// What was wrong and what was expected.
        message: String,
        /// `(line, column)`, 1-based, where the parser was when it stopped (absent for
        /// checks made after parsing).
        location: Option<(usize, usize)>,
    },
}

/// Display helper of [`FormatError::Invalid`].
struct Invalid<'a> {
    file: &'a PathBuf,
    pointer: &'a str,
    message: &'a str,
    location: Option<(usize, usize)>,
}

impl fmt::Display for Invalid<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file.display())?;
        if !self.pointer.is_empty() {
            write!(f, "{}: ", self.pointer)?;
        }
        f.write_str(self.message)?;
        if let Some((line, column)) = self.location {
            write!(f, " (line {line}, column {column})")?;
        }
        Ok(())
    }
}

impl FormatError {
    /// The file (or path) the error is about.
    #[must_use]
    pub fn path(&self) -> &PathBuf {
        match self {
            FormatError::NotFound { path } | FormatError::Io { path, .. } => path,
            FormatError::Syntax { file, .. } | FormatError::Invalid { file, .. } => file,
        }
    }
}

/// Writing a scenario's files (managed folder, settings, `session.files`) failed.
///
/// These are failures of the runner's own temporary folder or of a `$dir` copy, not of
/// the scenario's format. Display: `cannot write /tmp/x/managed-settings.json: <io error>`.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {}: {source}", .path.display())]
pub struct MaterializeError {
    /// What was being done (`write`, `copy`, `remove`, `create folder`, `link`, `read`).
    pub action: &'static str,
    /// The path it was done to.
    pub path: PathBuf,
    /// The I/O error.
    #[source]
    pub source: io::Error,
}

impl MaterializeError {
    pub(crate) fn new(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        MaterializeError {
            action,
            path: path.into(),
            source,
        }
    }
}

/// A scenario's file path that is not a plain relative path ([`crate::format::RelPath`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelPathError {
    /// The path is empty.
    #[error("expected a relative file path, found an empty string")]
    Empty,
    /// The path holds a NUL character.
    #[error("path {path:?} contains a NUL character")]
    Nul {
        /// The path as written.
        path: String,
    },
    /// The path is absolute (or starts with a separator).
    #[error("expected a relative file path, found {path:?}")]
    Absolute {
        /// The path as written.
        path: String,
    },
    /// A component is empty, `.` or `..`.
    #[error("path {path:?} must not have empty, \".\" or \"..\" components")]
    BadComponent {
        /// The path as written.
        path: String,
    },
    /// A component is no plain name (a drive prefix, a root).
    #[error("expected a plain relative file path, found {path:?}")]
    NotPlain {
        /// The path as written.
        path: String,
    },
}

/// A `$raw` or `$unreadable` file spec given the wrong kind of value
/// ([`crate::format::FileSpec`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileSpecError {
    /// `$raw` given something other than a string.
    #[error("\"$raw\" takes a string (the file's raw text), found {found}")]
    RawNotString {
        /// How the value given is named (`a number`, `an object`, ...).
        found: &'static str,
    },
    /// `$unreadable` given something other than `true`.
    #[error("\"$unreadable\" takes true, found {found}")]
    UnreadableNotTrue {
        /// The value given, as JSON text.
        found: String,
    },
}
