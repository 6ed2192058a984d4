//! Pools: what a generated case draws from.

use super::*;

pub(crate) const DENY_RULES: &[&str] = &[
    "Bash(rm:*)",
    "Bash(curl:*)",
    "Read(//etc/**)",
    "WebFetch(domain:evil.example)",
    "Bash(git push:*)",
    "Write",
];
pub(crate) const ASK_RULES: &[&str] =
    &["Bash(git:*)", "Read(~/.ssh/**)", "WebFetch", "Bash(cat:*)"];
pub(crate) const ALLOW_RULES: &[&str] = &[
    "Bash(ls:*)",
    "Bash(curl:*)",
    "Read",
    "WebFetch(domain:docs.corp.example)",
    "Bash(rm:*)",
    "Write",
];

/// `tool.check` questions: `(tool, input)`.
pub(crate) fn question(i: usize) -> (&'static str, Value) {
    match i % 10 {
        0 => ("Bash", json!({"command": "rm -rf build"})),
        1 => ("Bash", json!({"command": "ls -la"})),
        2 => ("Bash", json!({"command": "curl https://evil.example/x"})),
        3 => ("Bash", json!({"command": "git push --force"})),
        4 => ("Read", json!({"file_path": "/etc/shadow"})),
        5 => ("Read", json!({"file_path": "/home/dev/repo/src/main.rs"})),
        6 => (
            "WebFetch",
            json!({"url": "https://evil.example/a", "prompt": "p"}),
        ),
        7 => (
            "WebFetch",
            json!({"url": "https://docs.corp.example/b", "prompt": "p"}),
        ),
        8 => (
            "Write",
            json!({"file_path": "/home/dev/repo/x.txt", "content": "x"}),
        ),
        _ => ("Bash", json!({"command": "cat ~/.ssh/id_rsa"})),
    }
}
pub(crate) const QUESTIONS: usize = 10;

/// Managed `env` entries.
pub(crate) const MANAGED_ENV: &[(&str, &str)] = &[
    ("HTTP_PROXY", "http://proxy:3128"),
    ("CORP_TOKEN", "t0k"),
    ("FOO", "managed-foo"),
];

/// Variable names raised at `env.get`/`env.set` (pinned always, pinned by policy in
/// another letter case, pinned by `processWrapper`, and a person's own).
pub(crate) const ENV_NAMES: &[&str] = &[
    "LD_PRELOAD",
    "ld_preload",
    "NODE_OPTIONS",
    "Bash_Env",
    "CLAUDE_CONFIG_DIR",
    "claude_code_managed_settings_path",
    "ZDOTDIR",
    "ENV",
    "CLAUDE_CODE_PROCESS_WRAPPER",
    "HTTP_PROXY",
    "http_proxy",
    "CORP_TOKEN",
    "FOO",
    "MY_VAR",
    "PATH",
    "ENVIRONMENT",
];

/// SPEC §3.8: the nine that move where policy and sign-in are read from, and the ten that
/// can load code into a child, always pinned (written out here from the SPEC).
pub(crate) const ALWAYS_PINNED: &[&str] = &[
    "CLAUDE_CODE_MANAGED_SETTINGS_PATH",
    "CLAUDE_CODE_REMOTE_SETTINGS_PATH",
    "CLAUDE_CODE_MOCK_REMOTE_SETTINGS",
    "CLAUDE_CODE_DISABLE_ADMIN_ENV_UNION",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_SECURESTORAGE_CONFIG_DIR",
    "USE_LOCAL_OAUTH",
    "USE_STAGING_OAUTH",
    "CLAUDE_LOCAL_OAUTH_API_BASE",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "DYLD_FRAMEWORK_PATH",
    "BASH_ENV",
    "ENV",
    "ZDOTDIR",
    "NODE_OPTIONS",
];

/// Managed MCP server names (a composed letter; one that folds to nothing is rare).
pub(crate) const SERVERS: &[&str] = &["corp-tools", "Search", "db", "caf\u{e9}"];
pub(crate) const NAMELESS_SERVER: &str = "--";

/// Org plugin ids for `prependPlugins` (besides the security default), `appendPlugins`
/// and `enabledPlugins`.
pub(crate) const ORG_PREPEND: &[&str] = &["guard@corp"];
pub(crate) const ORG_APPEND: &[&str] = &["cap@corp", "Audit-Log@corp", "corp-helper@other"];
pub(crate) const ORG_ENABLED: &[&str] = &["corp-helper@corp", "caf\u{e9}-kit@corp", "lint@corp"];

/// Ids of a person's plugins that meet the exemption or try to.
pub(crate) const USER_IDS: &[&str] = &[
    "corp-helper@corp",
    "Corp-Helper@CORP",
    "corp-helper@inline",
    "corp-helper@other",
    "cafe\u{301}-kit@corp",
    "lint@corp",
    "guard@corp",
    "cap@corp",
];

/// Tool names that, with some plugin name, spell an org scope.
pub(crate) const TOOL_NAMES: &[&str] = &[
    "x",
    "tools__x",
    "Tools-x",
    "search",
    "@@",
    "",
    "corp-helper_srv",
    "helper__x",
    "caf\u{e9}_x",
    "kit__y",
];

/// Manifest names of a person's plugins that, with some tool name, spell an org scope.
pub(crate) const PLUGIN_NAMES: &[&str] = &[
    // The organization's own plugins' names, so a person's plugin may take one (in a
    // worker it shares with it: the batch-merge hole the adversarial pass found).
    "org-guard",
    "guard",
    "org-tail",
    "corp",
    "Corp-Tools",
    "corp_tools",
    "plugin",
    "plugin_corp",
    "Search",
    "SEARCH-x",
    "db",
    "caf\u{e9}",
    "cafe\u{301}",
    "corp-helper",
    "CORP--HELPER",
    "\u{ff23}\u{ff2f}\u{ff32}\u{ff30}",
    "audit_log",
    "guard",
    "cap",
    "cafe\u{301}-kit",
    "lint",
    "\u{1F600}",
];
