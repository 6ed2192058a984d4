//! The pinned Claude Code release, installed from the npm registry into a cache
//! folder (`npm install --prefix CACHE @anthropic-ai/claude-code@VERSION`): a native
//! Linux binary of about 370 MB, through the optional dependency
//! `@anthropic-ai/claude-code-linux-x64`.

use crate::CLAUDE_CODE_VERSION;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Errors of installing Claude Code.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// `npm` could not be run.
    #[error("npm could not be run: {0}")]
    Npm(#[source] std::io::Error),
    /// `npm install` failed.
    #[error("npm install @anthropic-ai/claude-code@{version} into {folder} failed: {stderr}")]
    Failed {
        /// The version asked for.
        version: String,
        /// The cache folder.
        folder: PathBuf,
        /// What npm said.
        stderr: String,
    },
    /// The package installed, but the binary is not where it should be.
    #[error("{0}: the Claude Code binary is not there after npm install")]
    NoBinary(PathBuf),
}

/// The default cache folder: `$SEC_DEFAULT_CONFORMANCE_CACHE`, else
/// `$XDG_CACHE_HOME/sec-default-conformance`, else `~/.cache/sec-default-conformance`.
#[must_use]
pub fn default_cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("SEC_DEFAULT_CONFORMANCE_CACHE") {
        return PathBuf::from(dir);
    }
    let base = std::env::var_os("XDG_CACHE_HOME").map_or_else(
        || {
            std::env::var_os("HOME")
                .map_or_else(|| PathBuf::from("/tmp"), PathBuf::from)
                .join(".cache")
        },
        PathBuf::from,
    );
    base.join("sec-default-conformance")
}

/// Where the binary of [`CLAUDE_CODE_VERSION`] is under `cache`.
#[must_use]
pub fn binary_in(cache: &Path) -> PathBuf {
    cache
        .join(format!("claude-code@{CLAUDE_CODE_VERSION}"))
        .join("node_modules/@anthropic-ai/claude-code/bin/claude.exe")
}

/// The binary of [`CLAUDE_CODE_VERSION`] under `cache`, installed first if it is not
/// there yet.
///
/// # Errors
/// When npm cannot install it.
pub fn ensure_installed(cache: &Path) -> Result<PathBuf, InstallError> {
    let bin = binary_in(cache);
    if bin.is_file() {
        return Ok(bin);
    }
    let folder = cache.join(format!("claude-code@{CLAUDE_CODE_VERSION}"));
    std::fs::create_dir_all(&folder).map_err(InstallError::Npm)?;
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&folder)
        .arg(format!("@anthropic-ai/claude-code@{CLAUDE_CODE_VERSION}"))
        .output()
        .map_err(InstallError::Npm)?;
    if !out.status.success() {
        return Err(InstallError::Failed {
            version: CLAUDE_CODE_VERSION.to_owned(),
            folder,
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(InstallError::NoBinary(bin))
    }
}
