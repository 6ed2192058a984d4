//! The generated case.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SettingsFile {
    Absent,
    Content,
    /// `{"$raw": "{ not json"}`: the read fails.
    Broken,
    /// A 0-byte file: the read fails (SPEC §2.1).
    Empty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum McpFile {
    Absent,
    Valid,
    /// Not JSON, not an object, or no `mcpServers` object: names nobody.
    Garbage(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Opt {
    Absent,
    False,
    True,
    StrTrue,
    One,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Enabled {
    True,
    False,
    Versions,
}

#[derive(Debug, Clone)]
pub(crate) struct PolicyGen {
    pub(crate) file: SettingsFile,
    pub(crate) deny: Vec<&'static str>,
    pub(crate) ask: Vec<&'static str>,
    pub(crate) allow: Vec<&'static str>,
    pub(crate) env: Vec<(&'static str, &'static str)>,
    pub(crate) process_wrapper: bool,
    pub(crate) mods_only: Opt,
    pub(crate) override_deny: Opt,
    /// A `null` under `pluginConfigs` voids the whole key (SPEC §2.3).
    pub(crate) configs_void: bool,
    pub(crate) servers: Vec<&'static str>,
    pub(crate) mcp: McpFile,
    pub(crate) mcp_servers: Vec<&'static str>,
    /// `None`: key absent. `Some((names_us, others))`.
    pub(crate) prepend: Option<(Option<&'static str>, Vec<&'static str>)>,
    pub(crate) append: Vec<&'static str>,
    pub(crate) enabled: Vec<(&'static str, Enabled)>,
    pub(crate) allowed: Option<Vec<&'static str>>,
    /// `Some(true)`: a drop-in adding a deny rule; `Some(false)`: a drop-in that is not JSON.
    pub(crate) dropin: Option<bool>,
}

#[derive(Debug, Clone)]
pub(crate) struct HookGen {
    pub(crate) on: &'static str,
    pub(crate) filter: Option<Value>,
    pub(crate) do_: Value,
    pub(crate) catch: Option<Value>,
}

#[derive(Debug, Clone)]
pub(crate) struct PluginGen {
    pub(crate) tier: Tier,
    pub(crate) id: String,
    pub(crate) name: Option<String>,
    pub(crate) worker: Option<u8>,
    pub(crate) hooks: Vec<HookGen>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum FromGen {
    Engine,
    Plugin(Tier, usize),
    SecDefault,
}

#[derive(Debug, Clone)]
pub(crate) enum StepGen {
    Check(usize),
    EnvSet {
        from: FromGen,
        name: usize,
        value: bool,
    },
    EnvGet {
        from: FromGen,
        name: usize,
    },
    Register {
        from: FromGen,
        tool: String,
    },
    Reload(usize),
    Append {
        door: &'static str,
        tool: Option<&'static str>,
        from: FromGen,
    },
    Describe {
        raise: &'static str,
        /// The pinned `provider`: `None` leaves it out (SPEC §3.3: provenance fails
        /// closed, as do a provider with no tier or an unknown one).
        provider: Option<Value>,
    },
    UiLog {
        from: FromGen,
    },
    Simple(usize),
}

#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub(crate) policy: PolicyGen,
    pub(crate) plugins: Vec<PluginGen>,
    pub(crate) steps: Vec<StepGen>,
    pub(crate) mode: &'static str,
    pub(crate) loop_: &'static str,
    pub(crate) host: &'static str,
}
