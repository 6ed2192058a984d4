//! Session facts and the small enums the core decides by (SPEC §4, §1.6).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A value that is not one of the spellings a [`FromStr`] of this crate accepts.
///
/// SPEC §4 (settings sources, modes), SPEC §3.6 (loops and hosts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {value:?}: expected one of {expected}")]
pub struct ParseNameError {
    /// What was being parsed (`settings source`, `permission mode`, `loop`, `host`).
    pub kind: &'static str,
    /// The text that did not parse.
    pub value: String,
    /// The accepted spellings, comma separated.
    pub expected: &'static str,
}

macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $kind:literal, [$($(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)*),+ $(,)?]
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $(
                $(#[$vmeta])*
                #[serde(rename = $text $(, alias = $alias)*)]
                $variant,
            )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value as SPEC and scenario files spell it.
            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = ParseNameError;

            /// Parses the spelling of [`Self::as_str`] (and documented aliases).
            ///
            /// # Errors
            ///
            /// [`ParseNameError`] for any other text.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($text $(| $alias)* => Ok($name::$variant),)+
                    _ => Err(ParseNameError {
                        kind: $kind,
                        value: s.to_owned(),
                        expected: concat!($($text, " "),+),
                    }),
                }
            }
        }
    };
}

named_enum!(
    /// A settings source (SPEC §4, §1.6 `source`): where a permission rule was written.
    ///
    /// `as_str`: `user`, `project`, `local`, `flag`, `policy`, `cli`, `session`.
    SettingsSource, "settings source", [
        /// `~/.claude/settings.json`.
        User = "user",
        /// `.claude/settings.json`.
        Project = "project",
        /// `.claude/settings.local.json`.
        Local = "local",
        /// A file given with `--settings`.
        Flag = "flag",
        /// The organization's managed settings.
        Policy = "policy",
        /// Command-line flags (`--allowedTools`, `--disallowedTools`).
        Cli = "cli",
        /// Rules added during the session.
        Session = "session",
    ]
);

impl SettingsSource {
    /// Where this source stands when several rules match at the deciding stage: `0`
    /// first. Order: policy, cli, flag, session, local, project, user (SPEC §4).
    #[must_use]
    pub fn precedence(self) -> u8 {
        match self {
            SettingsSource::Policy => 0,
            SettingsSource::Cli => 1,
            SettingsSource::Flag => 2,
            SettingsSource::Session => 3,
            SettingsSource::Local => 4,
            SettingsSource::Project => 5,
            SettingsSource::User => 6,
        }
    }
}

named_enum!(
    /// A permission mode (SPEC §4 "Defaults"; reference §3.4). `manual` is accepted as an
    /// alias of `default`.
    Mode, "permission mode", [
        /// Prompts on first use; read-only tools and commands run.
        Default = "default" | "manual",
        /// Also allows file edits inside the working directory.
        AcceptEdits = "acceptEdits",
        /// Read and plan only: nothing that changes things runs without asking.
        Plan = "plan",
        /// Only pre-approved calls run; every ask is refused (the verdict stays an ask).
        DontAsk = "dontAsk",
        /// Allows every call no rule denies or asks (unless the policy disables it).
        BypassPermissions = "bypassPermissions",
        /// A classifier answers in the person's place; the core's verdict is as in `default`.
        Auto = "auto",
    ]
);

named_enum!(
    /// The agent loop a call comes from (SPEC §3.6, §4 "Hosts").
    Loop, "loop", [
        /// The main conversation.
        Main = "main",
        /// A subagent's loop.
        Subagent = "subagent",
        /// A background agent's loop: no prompt can show there.
        Background = "background",
    ]
);

named_enum!(
    /// Who besides a local dialog answers asks (SPEC §3.6 "Asks and hosts", §4 "Hosts").
    Host, "host", [
        /// Nobody: asks go to the person's dialog.
        None = "none",
        /// An SDK callback such as `can_use_tool`.
        Sdk = "sdk",
        /// A permission prompt tool.
        PromptTool = "prompt-tool",
        /// A served call.
        Served = "served",
        /// A cloud session's host.
        Cloud = "cloud",
    ]
);

/// What the core knows of the session when it decides (SPEC §4, §1.6).
///
/// Serialized as scenario files write a session: `{mode, loop, host, interactive, cwd, home}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionFacts {
    /// The permission mode in force.
    pub mode: Mode,
    /// The loop the call comes from.
    #[serde(rename = "loop")]
    pub loop_kind: Loop,
    /// Who answers asks in the person's place, if anybody.
    pub host: Host,
    /// Whether a person can be prompted at all.
    pub interactive: bool,
    /// The working directory (absolute).
    pub cwd: PathBuf,
    /// The person's home directory (absolute).
    pub home: PathBuf,
    /// The session's environment, as the shell that runs a command inherits it
    /// (SPEC §4: variables "in the session's environment" are expanded); `None` when
    /// it is not known, and then every variable a command does not set itself is
    /// unknown (`HOME` and `PWD` excepted). Not part of a scenario's `session`
    /// serialization.
    #[serde(skip)]
    pub env: Option<std::sync::Arc<std::collections::BTreeMap<String, String>>>,
}

impl SessionFacts {
    /// Facts of an interactive main-loop session in `default` mode with no host, in `cwd`
    /// with home `home` (SPEC §4).
    #[must_use]
    pub fn new(cwd: impl Into<PathBuf>, home: impl Into<PathBuf>) -> Self {
        SessionFacts {
            mode: Mode::Default,
            loop_kind: Loop::Main,
            host: Host::None,
            interactive: true,
            cwd: cwd.into(),
            home: home.into(),
            env: None,
        }
    }

    /// Whether an ask here carries `decider: "host"`: the session has a host, the loop
    /// is `main` or `subagent`, and the mode is not `dontAsk` (SPEC §4 "Hosts").
    ///
    /// This is the rule for every tool but the Chrome tools; an ask on a known tool is
    /// decided by [`SessionFacts::host_decides_for`].
    #[must_use]
    pub fn host_decides(&self) -> bool {
        self.host != Host::None
            && matches!(self.loop_kind, Loop::Main | Loop::Subagent)
            && self.mode != Mode::DontAsk
    }

    /// Whether an ask on `tool` carries `decider: "host"`: as [`SessionFacts::host_decides`],
    /// and also in `dontAsk` when `tool` is a tool of the `claude-in-chrome` MCP server
    /// ([`is_chrome_tool`]): a site grant sends that ask on to the host (SPEC §3.6 "What
    /// is not certain holds" **\[decision\]**, §4 "Hosts" **\[decision\]**).
    #[must_use]
    pub fn host_decides_for(&self, tool: &str) -> bool {
        self.host != Host::None
            && matches!(self.loop_kind, Loop::Main | Loop::Subagent)
            && (self.mode != Mode::DontAsk || is_chrome_tool(tool))
    }
}

/// The MCP server of Claude in Chrome, whose tools' asks go on to the host in `dontAsk`
/// too (SPEC §3.6, §4 "Hosts").
pub const CHROME_SERVER: &str = "claude-in-chrome";

/// Whether `tool` is a tool of the `claude-in-chrome` MCP server: its name starts with
/// `mcp__claude-in-chrome__` (the rule pattern `mcp__claude-in-chrome__*`), compared as
/// written (SPEC §3.6, §4 "Hosts").
#[must_use]
pub fn is_chrome_tool(tool: &str) -> bool {
    tool.strip_prefix("mcp__")
        .and_then(|rest| rest.strip_prefix(CHROME_SERVER))
        .is_some_and(|rest| rest.starts_with("__"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip() {
        for s in SettingsSource::ALL {
            assert_eq!(s.as_str().parse::<SettingsSource>(), Ok(*s));
            assert_eq!(
                serde_json::to_value(s).ok(),
                Some(serde_json::json!(s.as_str()))
            );
        }
        for m in Mode::ALL {
            assert_eq!(m.as_str().parse::<Mode>(), Ok(*m));
        }
        for l in Loop::ALL {
            assert_eq!(l.as_str().parse::<Loop>(), Ok(*l));
        }
        for h in Host::ALL {
            assert_eq!(h.as_str().parse::<Host>(), Ok(*h));
        }
        assert_eq!("manual".parse::<Mode>(), Ok(Mode::Default));
        assert!("Default".parse::<Mode>().is_err());
        assert_eq!(Host::PromptTool.as_str(), "prompt-tool");
    }

    #[test]
    fn facts_deserialize_from_a_scenario_session() {
        let facts: SessionFacts = serde_json::from_value(serde_json::json!({
            "mode": "acceptEdits", "loop": "subagent", "host": "prompt-tool",
            "interactive": false, "cwd": "/home/dev/repo", "home": "/home/dev"
        }))
        .unwrap();
        assert_eq!(facts.mode, Mode::AcceptEdits);
        assert_eq!(facts.loop_kind, Loop::Subagent);
        assert_eq!(facts.host, Host::PromptTool);
        assert!(facts.host_decides());
    }

    #[test]
    fn chrome_tools_are_named_by_their_server() {
        assert!(is_chrome_tool("mcp__claude-in-chrome__navigate"));
        assert!(is_chrome_tool("mcp__claude-in-chrome__"));
        assert!(!is_chrome_tool("mcp__claude-in-chrome"));
        assert!(!is_chrome_tool("mcp__claude-in-chromex__navigate"));
        assert!(!is_chrome_tool("mcp__other__claude-in-chrome__x"));
        assert!(!is_chrome_tool("Bash"));
    }

    #[test]
    fn a_chrome_ask_goes_to_the_host_in_dont_ask_too() {
        let chrome = "mcp__claude-in-chrome__navigate";
        let mut facts = SessionFacts::new("/home/dev/repo", "/home/dev");
        facts.mode = Mode::DontAsk;
        for host in Host::ALL {
            for l in Loop::ALL {
                facts.host = *host;
                facts.loop_kind = *l;
                let hosted = *host != Host::None && *l != Loop::Background;
                assert_eq!(facts.host_decides_for(chrome), hosted, "{host} {l}");
                assert!(!facts.host_decides_for("mcp__github__get_issue"));
                assert!(!facts.host_decides_for("Bash"));
                assert!(!facts.host_decides());
            }
        }
        for mode in Mode::ALL {
            facts.mode = *mode;
            facts.host = Host::Sdk;
            facts.loop_kind = Loop::Main;
            assert!(facts.host_decides_for(chrome), "{mode}");
            assert_eq!(facts.host_decides_for("Bash"), *mode != Mode::DontAsk);
            assert_eq!(facts.host_decides_for("Bash"), facts.host_decides());
        }
    }
}
