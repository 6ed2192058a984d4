//! What a read reports: the hard failures ([`PolicyError`]), the soft ones
//! ([`Warning`]) and the files it read ([`SourceFile`]).

use std::fmt;
use std::path::{Path, PathBuf};

/// The tail of every fail-closed message: a read that fails keeps everything
/// the policy guards in force (SPEC §2.1 "Fail closed").
const HOLDS: &str = "the managed policy cannot be read, so everything it guards holds";

/// Why a read of the managed folder failed.
///
/// Every variant but [`PolicyError::FolderNotFound`] is a *fail-closed*
/// failure: the consumers act as if the policy were in force.
/// `FolderNotFound` is bad input from whoever named the folder (an embedding
/// program or `--managed`). The [`Display`](fmt::Display) form names the file
/// and, for JSON errors, the line and column.
///
/// `managed-mcp.json` problems are never a `PolicyError`: they mark the read's
/// `managedMcpServersUnreadable` and add a [`Warning`].
///
/// SPEC §2.1
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// An explicitly given managed folder does not exist (the platform folder
    /// being absent is not an error: it reads as an empty policy).
    #[error("{}: the managed folder given does not exist", path.display())]
    FolderNotFound {
        /// The folder that was named.
        path: PathBuf,
    },
    /// A file (or folder) that is present could not be read: permissions, a
    /// directory where a file should be, an I/O error.
    #[error("{}: {message}; {HOLDS}", path.display())]
    Io {
        /// The path that could not be read.
        path: PathBuf,
        /// The operating system's reason.
        message: String,
    },
    /// A present managed settings file or drop-in is not JSON.
    #[error("{}:{line}:{column}: {message}; {HOLDS}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error, as `serde_json` reports it.
        line: usize,
        /// 1-based column of the error, as `serde_json` reports it.
        column: usize,
        /// `serde_json`'s reason, without its position suffix.
        message: String,
    },
    /// A present managed file is empty (0 bytes): empty is not absent.
    #[error("{}: the file is empty (0 bytes); {HOLDS}", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A managed file holds JSON whose top level is not an object.
    #[error("{}: the top level is not a JSON object; {HOLDS}", path.display())]
    NotObject {
        /// The file.
        path: PathBuf,
    },
}

impl PolicyError {
    /// The file or folder this error is about.
    ///
    /// SPEC §2.1
    pub fn path(&self) -> &Path {
        match self {
            PolicyError::FolderNotFound { path }
            | PolicyError::Io { path, .. }
            | PolicyError::Json { path, .. }
            | PolicyError::Empty { path }
            | PolicyError::NotObject { path } => path,
        }
    }

    /// `true` for the failures that make every dependent decision fail closed
    /// (all but [`PolicyError::FolderNotFound`], which is bad input).
    ///
    /// SPEC §2.1 "Fail closed"
    pub fn is_fail_closed(&self) -> bool {
        !matches!(self, PolicyError::FolderNotFound { .. })
    }
}

/// One entry the salvage dropped or repaired, or one conflict the merge
/// resolved: where (file and RFC 6901 JSON pointer *within that file*) and
/// why.
///
/// Displayed as `<file>:<line>: <pointer>: <reason>` (the line where the read could
/// tell it; `<file>: <reason>` when the pointer is the whole file, `""`).
///
/// SPEC §2.1 "Entries that parse but break the schema"
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// The managed file the entry is in.
    pub file: PathBuf,
    /// The 1-based line of the entry in `file`, where the read could tell it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// RFC 6901 pointer to the entry within `file` (`""` = the whole file).
    pub pointer: String,
    /// What was wrong and what the read did about it.
    pub reason: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if self.pointer.is_empty() {
            write!(f, ": {}", self.reason)
        } else {
            write!(f, ": {}: {}", self.pointer, self.reason)
        }
    }
}

/// What part a file played in a read.
///
/// SPEC §2.1
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// The base `managed-settings.json`.
    Settings,
    /// A `managed-settings.d/*.json` drop-in.
    DropIn,
    /// `managed-mcp.json`.
    Mcp,
}

/// A managed file a read found present, in the order it was merged.
///
/// SPEC §2.1
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SourceFile {
    /// Its path (the managed folder joined with its name).
    pub path: PathBuf,
    /// What it is.
    pub kind: SourceKind,
}
