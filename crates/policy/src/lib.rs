//! `policy`: the organization's managed settings, read the way the security
//! default needs them (SPEC §2).
//!
//! The managed folder holds `managed-settings.json`, drop-ins in
//! `managed-settings.d/*.json` and `managed-mcp.json`
//! (`/etc/claude-code` on Linux, see [`platform_folder`]). [`read_policy`]
//! reads it once:
//!
//! 1. **Absent is not unreadable.** A platform folder with no managed files
//!    reads as an empty policy `{}`; an explicitly named folder that does not
//!    exist is bad input ([`PolicyError::FolderNotFound`]).
//! 2. **Fail closed.** A settings file or drop-in that is present but cannot
//!    be read, is empty (0 bytes), is not JSON or whose JSON is not an object
//!    fails the whole read ([`PolicyError`]); whoever depends on the policy
//!    then acts as if it were in force. This is stricter than Claude Code,
//!    where a managed file that is not JSON contributes nothing.
//! 3. **Salvage.** Each file is checked against the settings schema: an
//!    entry that breaks it is dropped at its own JSON pointer with a
//!    [`Warning`], its siblings kept; a known key is dropped whole only when
//!    its own type is wrong; `allowedMcpServers` and the `allowManaged*Only`
//!    keys fail closed; permission rules that are strings are never dropped;
//!    `pluginConfigs` that breaks its schema is ignored whole (SPEC §2.3).
//! 4. **Merge.** Base file first, then drop-ins in file-name order: scalars
//!    later wins, arrays concatenated without duplicates, objects key by key.
//!    An empty drop-in never erases the base file's rules.
//! 5. **`managed-mcp.json`** adds its servers to `managedMcpServers`; when it
//!    is present but cannot be read whole it names nobody and the read marks
//!    `managedMcpServersUnreadable` (a warning, never a failure).
//!
//! [`Policy::managed`] gives the typed view of the keys the security default
//! reads ([`ManagedSettings`]), and [`PolicyMemo`] makes one read serve a
//! burst of checks (SPEC §2.1 "One read serves a burst").
//!
//! # Example
//!
//! ```
//! use policy::{read_policy, ManagedLocation, PolicyMemo, FakeClock, POLICY_MEMO_MS};
//! use std::{fs, sync::Arc, time::Duration};
//!
//! let folder = tempfile::tempdir()?;
//! fs::write(
//!     folder.path().join("managed-settings.json"),
//!     r#"{ "permissions": { "deny": ["Bash(rm:*)"], "allowManagedPermissionRulesOnly": true },
//!          "env": { "HTTPS_PROXY": "http://proxy:3128", "RETRIES": 3 } }"#,
//! )?;
//! fs::create_dir(folder.path().join("managed-settings.d"))?;
//! fs::write(
//!     folder.path().join("managed-settings.d/50-empty.json"),
//!     r#"{ "permissions": { "deny": [] } }"#,
//! )?;
//! fs::write(
//!     folder.path().join("managed-mcp.json"),
//!     r#"{ "mcpServers": { "corp": { "command": "corp-mcp" } } }"#,
//! )?;
//!
//! let location = ManagedLocation::Explicit(folder.path().to_path_buf());
//! let policy = read_policy(&location)?;
//! let managed = policy.managed();
//! assert_eq!(managed.deny, ["Bash(rm:*)"]); // the empty drop-in erased nothing
//! assert_eq!(managed.managed_mcp_servers, ["corp"]);
//! assert_eq!(managed.env_names, ["HTTPS_PROXY", "RETRIES"]); // RETRIES stays pinned
//! // The misplaced key and the numeric env value were dropped, each with a warning.
//! let pointers: Vec<_> = policy.warnings.iter().map(|w| w.pointer.as_str()).collect();
//! assert_eq!(pointers, ["/permissions/allowManagedPermissionRulesOnly", "/env/RETRIES"]);
//!
//! // One read serves a burst.
//! let clock = Arc::new(FakeClock::new());
//! let memo = PolicyMemo::new(location, clock.clone(), Duration::from_millis(POLICY_MEMO_MS));
//! for _ in 0..100 {
//!     memo.read()?;
//! }
//! assert_eq!(memo.disk_reads(), 1);
//! clock.advance(Duration::from_millis(POLICY_MEMO_MS));
//! assert!(!memo.read()?.first_sight); // read again, same content
//! assert_eq!(memo.disk_reads(), 2);
//!
//! // A folder that is not JSON fails the read, naming the file and position.
//! fs::write(folder.path().join("managed-settings.d/60-bad.json"), "{\n  \"a\": 1,\n}")?;
//! memo.invalidate();
//! let err = memo.read().unwrap_err();
//! assert!(err.to_string().ends_with(
//!     "60-bad.json:3:1: trailing comma; the managed policy cannot be read, so everything it guards holds"
//! ));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]

mod error;
mod ids;
pub mod json;
mod location;
mod managed;
mod memo;
mod merge;
pub mod pointer;
mod read;
mod salvage;

pub use error::{PolicyError, SourceFile, SourceKind, Warning};
pub use ids::{id_key, id_name, ids_equal, is_inline_id, PluginId, SEC_DEFAULT_ID};
pub use location::{platform_folder, ManagedLocation};
pub use managed::{EnabledPlugin, ManagedSettings, SecDefaultOptions};
pub use memo::{Clock, FakeClock, MemoRead, PolicyMemo, SystemClock, POLICY_MEMO_MS};
pub use read::{read_policy, Policy, RuleOrigin, DROP_IN_DIR, MCP_FILE, SETTINGS_FILE};

/// The keys a read adds to the managed settings object.
///
/// SPEC §2.1
pub mod keys {
    /// `managedMcpServers`: object server name -> config.
    pub const MANAGED_MCP_SERVERS: &str = crate::salvage::MANAGED_MCP_SERVERS;
    /// `managedMcpServersUnreadable`: `true`, only when some source naming
    /// managed MCP servers could not be read whole.
    pub const MANAGED_MCP_SERVERS_UNREADABLE: &str = crate::salvage::MANAGED_MCP_SERVERS_UNREADABLE;
    /// `managedEnvDropped`: names under managed `env` whose value was dropped.
    pub const MANAGED_ENV_DROPPED: &str = crate::salvage::MANAGED_ENV_DROPPED;
}
