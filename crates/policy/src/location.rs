//! Where the managed folder is.

use std::path::PathBuf;

/// Which managed folder a read looks at.
///
/// **\[decision\]** `CLAUDE_CODE_MANAGED_SETTINGS_PATH` is never honoured: the
/// folder is the platform's or one the embedding program (or the CLI's
/// `--managed`) names explicitly.
///
/// SPEC §2.1 "Locations"
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManagedLocation {
    /// The platform's system folder ([`platform_folder`]). Absent reads as an
    /// empty policy.
    Platform,
    /// A folder named by the embedder. Absent is bad input
    /// ([`PolicyError::FolderNotFound`](crate::PolicyError::FolderNotFound)).
    Explicit(PathBuf),
}

impl ManagedLocation {
    /// The folder this location names.
    ///
    /// SPEC §2.1
    pub fn folder(&self) -> PathBuf {
        match self {
            ManagedLocation::Platform => platform_folder(),
            ManagedLocation::Explicit(path) => path.clone(),
        }
    }
}

/// The platform's managed folder: `/etc/claude-code` on Linux (and any other
/// Unix), `/Library/Application Support/ClaudeCode` on macOS,
/// `C:\Program Files\ClaudeCode` on Windows.
///
/// SPEC §2.1; reference §1.1
pub fn platform_folder() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode")
    } else if cfg!(target_os = "windows") {
        PathBuf::from(r"C:\Program Files\ClaudeCode")
    } else {
        PathBuf::from("/etc/claude-code")
    }
}
