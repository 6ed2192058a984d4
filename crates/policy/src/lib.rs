#![doc = include_str!("../README.md")]
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
