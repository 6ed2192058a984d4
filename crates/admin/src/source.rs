//! Which managed folder a command reads, and the first line that says so (SPEC §2.1
//! "Locations": with no managed folder, `audit` and `policy show`
//! read the same thing and say so on their first line).
//!
//! - `--managed DIR`: that folder; it must exist (bad input otherwise).
//! - neither flag: the platform folder; when it does not exist, the empty policy the
//!   engine reads there (a policy of nothing: only the always-pinned variables and the
//!   engine's defaults).
//! - `--example`: the example policy compiled into the binary (`examples/managed/`),
//!   written out to a temporary folder for the command's run.

use std::path::{Path, PathBuf};

/// The example managed settings compiled into the binary (SPEC §2.1 layout).
pub const EXAMPLE_SETTINGS: &str = include_str!("../../../examples/managed/managed-settings.json");
/// The example `managed-mcp.json` compiled into the binary.
const EXAMPLE_MCP: &str = include_str!("../../../examples/managed/managed-mcp.json");

/// The first line of `audit` and `policy show` (SPEC §2.1 "Locations"): the folder
/// read, and for the platform folder whether it exists.
pub fn first_line(kind: &str, folder: &Path, exists: bool) -> String {
    match kind {
        "embedded" => "managed folder: none; the example policy embedded in this binary \
                       (--example)"
            .to_owned(),
        "platform" if exists => {
            format!("managed folder: {} (the platform folder)", folder.display())
        }
        "platform" => format!(
            "managed folder: {} (the platform folder; it does not exist: an empty policy, \
             as the engine reads it)",
            folder.display()
        ),
        _ => format!("managed folder: {}", folder.display()),
    }
}

/// A temporary folder (the example written out, or an empty one), removed when
/// dropped.
#[derive(Debug)]
pub struct TempFolder(PathBuf);

/// Why a temporary managed folder could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum TempFolderError {
    /// The folder cannot be made.
    #[error("{}: cannot make a temporary managed folder: {source}", path.display())]
    Make {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The embedded example cannot be written into it.
    #[error("{}: cannot write the embedded example policy: {source}", path.display())]
    Write {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Making temporary managed folders.
impl TempFolder {
    /// A fresh, empty folder under the system's temporary folder.
    ///
    /// # Errors
    ///
    /// [`TempFolderError::Make`], with the folder's path, when it cannot be made.
    pub fn empty() -> Result<TempFolder, TempFolderError> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        // A count too: two threads asking in the same nanosecond get two folders.
        static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "sec-default-policy-{}-{stamp}-{n}",
            std::process::id()
        ));
        if let Err(source) = std::fs::create_dir_all(&dir) {
            return Err(TempFolderError::Make { path: dir, source });
        }
        Ok(TempFolder(dir))
    }

    /// Writes `examples/managed/` (compiled in) to a fresh folder (SPEC §2.1 layout).
    ///
    /// # Errors
    ///
    /// [`TempFolderError`], with the folder's path, when it cannot be made or written.
    pub fn example() -> Result<TempFolder, TempFolderError> {
        let folder = TempFolder::empty()?;
        let write = || -> std::io::Result<()> {
            std::fs::write(folder.0.join(policy::SETTINGS_FILE), EXAMPLE_SETTINGS)?;
            std::fs::write(folder.0.join(policy::MCP_FILE), EXAMPLE_MCP)?;
            Ok(())
        };
        write().map_err(|source| TempFolderError::Write {
            path: folder.0.clone(),
            source,
        })?;
        Ok(folder)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// The folder does not outlive the command.
impl Drop for TempFolder {
    /// Removes the folder; a failure to remove it is not the command's concern.
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
