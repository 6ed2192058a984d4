//! SPEC §5 (what the security default must never allow), as properties over generated
//! sessions (issue 4, "Properties" items 1, 2 and 7).
//!
//! A generated case is a whole session: a managed folder (deny/ask/allow rules from a
//! small pool, `env`, `processWrapper`, the plugin's two options, managed MCP servers,
//! `prependPlugins`/`appendPlugins`/`enabledPlugins`, `allowedMcpServers`, a drop-in, and
//! unreadable files: a broken or empty `managed-settings.json`, a broken drop-in, a
//! garbage `managed-mcp.json`), a chain of `prepend`/`user`/`append`/`builtin` plugins
//! (batches through shared workers) whose hooks follow every scenario behaviour, and a
//! list of events. Each case is run by the scenario crate's own scripted plugins
//! ([`scenario::run::scripted_plugin`]) in a real [`session::Session`], and, as a
//! property needs it, in twins:
//!
//! - **past users**: the same session with the hooks of the `user` plugins stripped
//!   (the plugins stay listed, so they still raise events). That is "the same question
//!   evaluated past the user tier": the security default's `next.to(e, append)` skips
//!   the `user` tier and nothing else, so the organization's other `prepend` plugins
//!   still run (SPEC §1.1 **[decision, revised]**, §3.6 step 5: "the two runs differ by
//!   the user tier alone"). It is the `$held` twin of SCENARIOS.md.
//! - **unseated**: the same session with `seated: false` (SCENARIOS.md `$unchanged`).
//!
//! Every oracle here is written from the SPEC, independently of the plugin's code: the
//! fold (§3.4.1), the reserved scopes and the exemption (§3.4), the pinned variables
//! (§3.8), seating and the options (§2.3), what is held (§3.1–§3.8).
//!
//! Case counts: `PROPTEST_CASES` (default 10 000, issue 4). A failure prints the
//! scenario file (SCENARIOS.md format) that reproduces it; `PROPTEST_RNG_SEED` replays
//! a run.

use fnhooks::{answer_to_json, Decision, Event, Tier, Verdict};
use policy::SEC_DEFAULT_ID;
use proptest::prelude::*;
use proptest::test_runner::Config;
use scenario::format::PluginSpec;
use scenario::run::scripted_plugin;
use serde_json::{json, Map, Value};
use session::{Session, SessionConfig};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

// ---------------------------------------------------------------------------------
// Configuration

/// Cases per property: `PROPTEST_CASES`, default 10 000 (issue 4).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

fn config() -> Config {
    Config {
        cases: cases(),
        // The failure message carries the reproducing scenario; no files beside the source.
        failure_persistence: None,
        max_shrink_time: std::env::var("PROPTEST_MAX_SHRINK_TIME")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(120_000),
        ..Config::default()
    }
}

/// The per-hook timeout of generated sessions: hangs cost this much each.
const HOOK_TIMEOUT_MS: u64 = 5;

/// Scripted `panic` behaviours panic on purpose (the engine catches them): keep them off
/// stderr. Every other panic is reported as usual.
fn quiet_scripted_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let scripted = info
                .payload()
                .downcast_ref::<String>()
                .is_some_and(|s| s.starts_with("scripted panic"));
            if !scripted {
                previous(info);
            }
        }));
    });
}

// ---------------------------------------------------------------------------------
// Pools

const DENY_RULES: &[&str] = &[
    "Bash(rm:*)",
    "Bash(curl:*)",
    "Read(//etc/**)",
    "WebFetch(domain:evil.example)",
    "Bash(git push:*)",
    "Write",
];
const ASK_RULES: &[&str] = &["Bash(git:*)", "Read(~/.ssh/**)", "WebFetch", "Bash(cat:*)"];
const ALLOW_RULES: &[&str] = &[
    "Bash(ls:*)",
    "Bash(curl:*)",
    "Read",
    "WebFetch(domain:docs.corp.example)",
    "Bash(rm:*)",
    "Write",
];

/// `tool.check` questions: `(tool, input)`.
fn question(i: usize) -> (&'static str, Value) {
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
const QUESTIONS: usize = 10;

/// Managed `env` entries.
const MANAGED_ENV: &[(&str, &str)] = &[
    ("HTTP_PROXY", "http://proxy:3128"),
    ("CORP_TOKEN", "t0k"),
    ("FOO", "managed-foo"),
];

/// Variable names raised at `env.get`/`env.set` (pinned always, pinned by policy in
/// another letter case, pinned by `processWrapper`, and a person's own).
const ENV_NAMES: &[&str] = &[
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
const ALWAYS_PINNED: &[&str] = &[
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
const SERVERS: &[&str] = &["corp-tools", "Search", "db", "caf\u{e9}"];
const NAMELESS_SERVER: &str = "--";

/// Org plugin ids for `prependPlugins` (besides the security default), `appendPlugins`
/// and `enabledPlugins`.
const ORG_PREPEND: &[&str] = &["guard@corp"];
const ORG_APPEND: &[&str] = &["cap@corp", "Audit-Log@corp", "corp-helper@other"];
const ORG_ENABLED: &[&str] = &["corp-helper@corp", "caf\u{e9}-kit@corp", "lint@corp"];

/// Ids of a person's plugins that meet the exemption or try to.
const USER_IDS: &[&str] = &[
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
const TOOL_NAMES: &[&str] = &[
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
const PLUGIN_NAMES: &[&str] = &[
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

// ---------------------------------------------------------------------------------
// The generated case

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SettingsFile {
    Absent,
    Content,
    /// `{"$raw": "{ not json"}`: the read fails.
    Broken,
    /// A 0-byte file: the read fails (SPEC §2.1).
    Empty,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum McpFile {
    Absent,
    Valid,
    /// Not JSON, not an object, or no `mcpServers` object: names nobody.
    Garbage(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opt {
    Absent,
    False,
    True,
    StrTrue,
    One,
}

#[derive(Debug, Clone, PartialEq)]
enum Enabled {
    True,
    False,
    Versions,
}

#[derive(Debug, Clone)]
struct PolicyGen {
    file: SettingsFile,
    deny: Vec<&'static str>,
    ask: Vec<&'static str>,
    allow: Vec<&'static str>,
    env: Vec<(&'static str, &'static str)>,
    process_wrapper: bool,
    mods_only: Opt,
    override_deny: Opt,
    /// A `null` under `pluginConfigs` voids the whole key (SPEC §2.3).
    configs_void: bool,
    servers: Vec<&'static str>,
    mcp: McpFile,
    mcp_servers: Vec<&'static str>,
    /// `None`: key absent. `Some((names_us, others))`.
    prepend: Option<(Option<&'static str>, Vec<&'static str>)>,
    append: Vec<&'static str>,
    enabled: Vec<(&'static str, Enabled)>,
    allowed: Option<Vec<&'static str>>,
    /// `Some(true)`: a drop-in adding a deny rule; `Some(false)`: a drop-in that is not JSON.
    dropin: Option<bool>,
}

#[derive(Debug, Clone)]
struct HookGen {
    on: &'static str,
    filter: Option<Value>,
    do_: Value,
    catch: Option<Value>,
}

#[derive(Debug, Clone)]
struct PluginGen {
    tier: Tier,
    id: String,
    name: Option<String>,
    worker: Option<u8>,
    hooks: Vec<HookGen>,
}

#[derive(Debug, Clone, Copy)]
enum FromGen {
    Engine,
    Plugin(Tier, usize),
    SecDefault,
}

#[derive(Debug, Clone)]
enum StepGen {
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
struct Case {
    policy: PolicyGen,
    plugins: Vec<PluginGen>,
    steps: Vec<StepGen>,
    mode: &'static str,
    loop_: &'static str,
    host: &'static str,
}

// ---------------------------------------------------------------------------------
// Strategies

fn subset<T: Clone + std::fmt::Debug + 'static>(
    pool: &'static [T],
    max: usize,
) -> impl Strategy<Value = Vec<T>> {
    proptest::sample::subsequence(pool.to_vec(), 0..=max.min(pool.len()))
}

fn opt() -> impl Strategy<Value = Opt> {
    prop_oneof![
        3 => Just(Opt::Absent),
        2 => Just(Opt::False),
        2 => Just(Opt::True),
        1 => Just(Opt::StrTrue),
        1 => Just(Opt::One),
    ]
}

/// How the policy may be broken: `readable` weights a readable managed-settings file.
fn policy(readable: u32, broken: u32) -> impl Strategy<Value = PolicyGen> {
    let file = prop_oneof![
        readable => Just(SettingsFile::Content),
        1 => Just(SettingsFile::Absent),
        broken => Just(SettingsFile::Broken),
        broken.div_ceil(2) => Just(SettingsFile::Empty),
    ];
    let mcp = prop_oneof![
        4 => Just(McpFile::Absent),
        3 => Just(McpFile::Valid),
        broken => (0u8..4).prop_map(McpFile::Garbage),
    ];
    let enabled = proptest::sample::subsequence(ORG_ENABLED.to_vec(), 0..=3).prop_flat_map(|ids| {
        let n = ids.len();
        (
            Just(ids),
            proptest::collection::vec(
                prop_oneof![
                    3 => Just(Enabled::True),
                    1 => Just(Enabled::False),
                    1 => Just(Enabled::Versions)
                ],
                n,
            ),
        )
            .prop_map(|(ids, states)| ids.into_iter().zip(states).collect::<Vec<_>>())
    });
    let prepend = prop_oneof![
        3 => Just(None),
        3 => (
            prop_oneof![
                3 => Just(Some(SEC_DEFAULT_ID)),
                1 => Just(Some("CC-Plugin-Sec-Default@BuiltIn")),
                1 => Just(None)
            ],
            subset(ORG_PREPEND, 1)
        )
            .prop_map(Some),
    ];
    let servers = (subset(SERVERS, 3), proptest::bool::weighted(0.03)).prop_map(|(mut s, n)| {
        if n {
            s.push(NAMELESS_SERVER);
        }
        s
    });
    let options = (opt(), opt(), proptest::bool::weighted(0.1));
    let lists = (
        subset(DENY_RULES, 4),
        subset(ASK_RULES, 3),
        subset(ALLOW_RULES, 4),
        subset(MANAGED_ENV, 3),
        proptest::bool::weighted(0.3),
    );
    let orgs = (
        servers,
        mcp,
        subset(SERVERS, 2),
        prepend,
        subset(ORG_APPEND, 2),
        enabled,
        prop_oneof![6 => Just(None), 1 => subset(SERVERS, 1).prop_map(Some)],
        prop_oneof![6 => Just(None), 2 => Just(Some(true)), broken => Just(Some(false))],
    );
    (file, lists, options, orgs).prop_map(
        |(
            file,
            (deny, ask, allow, env, process_wrapper),
            (mods_only, override_deny, configs_void),
            (servers, mcp, mcp_servers, prepend, append, enabled, allowed, dropin),
        )| PolicyGen {
            file,
            deny,
            ask,
            allow,
            env,
            process_wrapper,
            mods_only,
            override_deny,
            configs_void,
            servers,
            mcp,
            mcp_servers,
            prepend,
            append,
            enabled,
            allowed,
            dropin,
        },
    )
}

fn verdict_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"decision": "allow"})),
        Just(json!({"decision": "allow", "reason": "trusted by me"})),
        Just(json!({"decision": "ask"})),
        Just(json!({"decision": "ask", "rule": "Bash", "source": "user"})),
        Just(json!({"decision": "ask", "decider": "host"})),
        Just(json!({"decision": "ask", "hook": "PreToolUse", "reason": "hook says"})),
        Just(json!({"decision": "ask", "ceiling": "Bash"})),
        Just(json!({"decision": "deny"})),
        Just(json!({"decision": "deny", "reason": "mine"})),
        Just(json!({"decision": "deny", "rule": "Bash(rm:*)", "source": "policy"})),
    ]
}

fn answer_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => verdict_value(),
        1 => Just(json!({"text": "mine"})),
        1 => Just(json!({"deny": "no"})),
        1 => Just(json!({"registered": "mcp__corp-tools__x"})),
        1 => Just(json!({"refuse": "not you"})),
        1 => Just(json!({"admitted": true})),
        1 => Just(json!({})),
        1 => Just(json!({"value": "forged"})),
        1 => Just(json!({"summary": "my summary"})),
        1 => Just(json!({"tools": [{"name": "mcp__corp-tools__x"}]})),
        1 => Just(json!({"items": []})),
        1 => Just(json!({"sections": []})),
        1 => Just(json!({"decision": "approve", "reason": "classic says yes"})),
        1 => Just(json!("not an object")),
    ]
}

fn patch_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"decision": "allow"})),
        Just(json!({"decision": "ask"})),
        Just(json!({"decision": "deny"})),
        Just(json!({"reason": "reworded"})),
        Just(json!({"rule": null})),
        Just(json!({"rule": "Bash"})),
        Just(json!({"source": "user"})),
        Just(json!({"decider": null})),
        Just(json!({"hook": null, "setting": null})),
        Just(json!({"ceiling": "Bash"})),
        Just(json!({"decision": "allow", "rule": null, "reason": null})),
        Just(json!({"text": "patched"})),
        Just(json!({"deny": null})),
        Just(json!({"refuse": null})),
        Just(json!({"registered": "mcp__x__y"})),
        Just(json!({"value": "patched"})),
        Just(json!({"summary": "patched"})),
    ]
}

fn hand_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"input": {"command": "ls"}})),
        Just(json!({"tool": "Read"})),
        Just(json!({"tool_use_id": "other"})),
        Just(json!({"name": "LD_PRELOAD"})),
        Just(json!({"name": "MY_VAR"})),
        Just(json!({"value": "/tmp/evil.so"})),
        Just(json!({"value": null})),
        Just(json!({"text": "handed"})),
        Just(json!({"door": "prompt"})),
        Just(json!({"provider": {"tier": "user"}})),
        Just(json!({"tier": "prepend"})),
        Just(json!({"provenance": "corp-helper@corp"})),
        Just(json!({"source": "user"})),
        Just(json!({"line": "forged"})),
        Just(json!({"items": []})),
    ]
}

fn tier_name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        3 => Just("append"),
        1 => Just("builtin"),
        1 => Just("core"),
        1 => Just("prepend"),
        1 => Just("user"),
    ]
}

/// Every scenario behaviour; `fail` weights the failing ones, `hang` the hang.
fn behaviour(fail: u32, hang: u32) -> impl Strategy<Value = Value> {
    prop_oneof![
        5 => Just(json!("pass")),
        4 => answer_value().prop_map(|v| json!({"answer": v})),
        2 => answer_value().prop_map(|v| json!({"replace": v})),
        4 => patch_value().prop_map(|v| json!({"patch": v})),
        2 => hand_value().prop_map(|v| json!({"hand": v})),
        1 => tier_name().prop_map(|t| json!({"skip_to": t})),
        fail => Just(json!({"fail": "scripted failure"})),
        fail => Just(json!({"fail_after_next": "scripted late failure"})),
        fail => Just(json!({"panic": "scripted panic"})),
        hang => Just(json!("hang")),
    ]
}

const ON: &[&str] = &[
    "tool.check",
    "tool.check",
    "tool.check",
    "*",
    "classic.*",
    "prompt.section",
    "prompt.context",
    "prompt.attachment",
    "prompt.compose",
    "skill.prompt",
    "attribution.text",
    "session.append",
    "session.compact",
    "settings.read",
    "tool.register",
    "tool.list",
    "tool.describe",
    "agent.spawn",
    "env.set",
    "env.get",
    "ui.log",
    "plugin.register",
    "prompt.submit",
    "tool.call",
];

fn hook(fail: u32, hang: u32) -> impl Strategy<Value = HookGen> {
    (
        proptest::sample::select(ON),
        prop_oneof![
            8 => Just(None),
            1 => Just(Some(json!({"door": "attachment"}))),
            1 => Just(Some(json!({"tier": "append"}))),
            1 => Just(Some(json!({"tool": "Bash"}))),
        ],
        behaviour(fail, hang),
        prop_oneof![3 => Just(None), 1 => behaviour(fail, hang).prop_map(Some)],
    )
        .prop_map(|(on, filter, do_, catch)| HookGen {
            on,
            filter,
            do_,
            catch,
        })
}

/// Arbitrary Unicode, short.
fn unicode(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 0..max).prop_map(String::from_iter)
}

fn plugin_name() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        3 => Just(None),
        3 => proptest::sample::select(PLUGIN_NAMES).prop_map(|s| Some(s.to_owned())),
        1 => unicode(8).prop_map(Some),
        1 => "[A-Za-z_-]{1,10}".prop_map(Some),
    ]
}

fn plugin(tier: Tier, fail: u32, hang: u32) -> impl Strategy<Value = PluginGen> {
    let id = match tier {
        Tier::User => prop_oneof![
            2 => Just("user@community".to_owned()),
            1 => proptest::sample::select(USER_IDS).prop_map(str::to_owned),
        ]
        .boxed(),
        Tier::Prepend => prop_oneof![
            2 => Just("org-guard@corp".to_owned()),
            1 => Just("guard@corp".to_owned())
        ]
        .boxed(),
        Tier::Append => prop_oneof![
            2 => Just("org-tail@corp".to_owned()),
            1 => Just("cap@corp".to_owned())
        ]
        .boxed(),
        _ => Just("kit@builtin".to_owned()).boxed(),
    };
    (
        id,
        plugin_name(),
        prop_oneof![3 => Just(None), 1 => Just(Some(0u8)), 1 => Just(Some(1u8))],
        proptest::collection::vec(hook(fail, hang), 0..4),
    )
        .prop_map(move |(id, name, worker, hooks)| PluginGen {
            tier,
            id,
            name,
            worker,
            hooks,
        })
}

/// The organization's other `prepend` plugins, its `append` plugins and the engine's
/// built-ins answer every policy read the security default makes (`settings.read`
/// continues past the user tier, and only past it, SPEC §1.1 **[decision, revised]**):
/// what they answer *is* the policy it decides by, by design. So their hooks that
/// can see `settings.read` only pass or fail there (fail, panic, hang), else every
/// oracle below would have to guess the policy they made up. (A hang there once made the
/// security default itself time out:
/// `examples/scenarios/regressions/nested-policy-read-timeout.json`.)
fn trusted_policy_read(b: &mut Value) {
    let name = b
        .as_str()
        .map(str::to_owned)
        .or_else(|| b.as_object().and_then(|o| o.keys().next().cloned()))
        .unwrap_or_default();
    let keep = matches!(
        name.as_str(),
        "pass" | "hang" | "fail" | "fail_after_next" | "panic"
    );
    if !keep {
        *b = json!("pass");
    }
}

fn plugins(fail: u32, hang: u32) -> impl Strategy<Value = Vec<PluginGen>> {
    (
        proptest::collection::vec(plugin(Tier::Prepend, fail, hang), 0..3),
        proptest::collection::vec(plugin(Tier::User, fail, hang), 0..4),
        proptest::collection::vec(plugin(Tier::Append, fail, hang), 0..3),
        proptest::collection::vec(plugin(Tier::Builtin, fail, hang), 0..2),
    )
        .prop_map(|(p, u, a, b)| {
            let mut all: Vec<PluginGen> = p.into_iter().chain(u).chain(a).chain(b).collect();
            for pl in &mut all {
                if matches!(pl.tier, Tier::Prepend | Tier::Append | Tier::Builtin) {
                    for h in &mut pl.hooks {
                        if matches!(h.on, "settings.read" | "*") {
                            trusted_policy_read(&mut h.do_);
                            if let Some(c) = &mut h.catch {
                                trusted_policy_read(c);
                            }
                        }
                    }
                }
            }
            // Ids are unique within a session.
            let mut seen: Vec<String> = Vec::new();
            for (i, pl) in all.iter_mut().enumerate() {
                if seen.contains(&pl.id) {
                    let name = pl
                        .id
                        .rsplit_once('@')
                        .map_or(pl.id.clone(), |(n, _)| n.to_owned());
                    pl.id = format!("{name}@m{i}");
                }
                seen.push(pl.id.clone());
            }
            all
        })
}

fn from() -> impl Strategy<Value = FromGen> {
    prop_oneof![
        4 => (0usize..4).prop_map(|i| FromGen::Plugin(Tier::User, i)),
        2 => (0usize..4).prop_map(|i| FromGen::Plugin(Tier::Prepend, i)),
        2 => (0usize..4).prop_map(|i| FromGen::Plugin(Tier::Append, i)),
        2 => (0usize..4).prop_map(|i| FromGen::Plugin(Tier::Builtin, i)),
        1 => Just(FromGen::Engine),
        1 => Just(FromGen::SecDefault),
    ]
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(TOOL_NAMES).prop_map(str::to_owned),
        1 => unicode(10),
        1 => "[A-Za-z_-]{0,12}",
    ]
}

/// Simple events: `(raise, event, core)`.
fn simple(i: usize) -> (&'static str, Value, Option<Value>) {
    match i {
        0 => (
            "prompt.section",
            json!({"id": "managed", "text": "managed text", "source": "policy"}),
            Some(json!({"text": "core text"})),
        ),
        1 => (
            "prompt.context",
            json!({"items": [{"source": "CLAUDE.md", "text": "rules"}]}),
            Some(json!({"items": [{"source": "CLAUDE.md", "text": "rules"}]})),
        ),
        2 => (
            "prompt.attachment",
            json!({"text": "reminder"}),
            Some(json!({"text": "reminder"})),
        ),
        3 => (
            "prompt.compose",
            json!({"facts": {}}),
            Some(json!({"sections": [{"id": "a"}, {"id": "b"}]})),
        ),
        4 => (
            "skill.prompt",
            json!({"skill": "policy-skill", "body": "b"}),
            Some(json!({"text": "skill body"})),
        ),
        5 => ("attribution.text", json!({"text": "by corp"}), None),
        6 => (
            "session.compact",
            json!({"conversation": []}),
            Some(json!({"summary": "core summary"})),
        ),
        7 => ("settings.read", json!({"source": "policy"}), None),
        8 => ("settings.read", json!({"source": "merged"}), None),
        9 => ("settings.read", json!({"source": "user"}), None),
        10 => (
            "classic.PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
            Some(json!({"decision": "block", "reason": "org hook"})),
        ),
        11 => (
            "classic.Stop",
            json!({"stop_hook_active": false}),
            Some(json!({"decision": "block", "reason": "keep going"})),
        ),
        12 => ("tool.list", json!({}), None),
        13 => (
            "prompt.submit",
            json!({"prompt": "hi"}),
            Some(json!({"prompt": "hi"})),
        ),
        14 => (
            "tool.call",
            json!({"tool": "Bash", "input": {"command": "ls"}, "tool_use_id": "c1"}),
            None,
        ),
        _ => ("turn.start", json!({"turn": 1}), None),
    }
}
const SIMPLE: usize = 16;

fn step() -> impl Strategy<Value = StepGen> {
    prop_oneof![
        6 => (0..QUESTIONS).prop_map(StepGen::Check),
        3 => (from(), 0..ENV_NAMES.len(), any::<bool>())
            .prop_map(|(from, name, value)| StepGen::EnvSet { from, name, value }),
        1 => (from(), 0..ENV_NAMES.len()).prop_map(|(from, name)| StepGen::EnvGet { from, name }),
        3 => (from(), tool_name()).prop_map(|(from, tool)| StepGen::Register { from, tool }),
        1 => (0usize..12).prop_map(StepGen::Reload),
        2 => (
            prop_oneof![
                Just(("attachment", None)),
                Just(("hook-context", None)),
                Just(("compaction", None)),
                Just(("tool-message", Some("Skill"))),
                Just(("tool-message", Some("Bash"))),
                Just(("note", None)),
                Just(("prompt", None)),
                Just(("response", None)),
                Just(("tool-result", None)),
            ],
            from()
        )
            .prop_map(|((door, tool), from)| StepGen::Append { door, tool, from }),
        1 => (
            proptest::sample::select(&["tool.describe", "command.describe", "agent.offer", "agent.spawn"][..]),
            prop_oneof![
                proptest::sample::select(&["prepend", "user", "append", "builtin", "core"][..])
                    .prop_map(|t| Some(json!({"tier": t, "server": "corp-tools"}))),
                Just(None),
                Just(Some(json!({"server": "corp-tools"}))),
                Just(Some(json!({"tier": "organization", "server": "corp-tools"}))),
            ]
        )
            .prop_map(|(raise, provider)| StepGen::Describe { raise, provider }),
        1 => from().prop_map(|from| StepGen::UiLog { from }),
        4 => (0..SIMPLE).prop_map(StepGen::Simple),
    ]
}

/// A whole session. `readable`/`broken` weight the policy files, `fail`/`hang` the
/// failing behaviours.
fn case(readable: u32, broken: u32, fail: u32, hang: u32) -> impl Strategy<Value = Case> {
    (
        policy(readable, broken),
        plugins(fail, hang),
        proptest::collection::vec(step(), 1..8),
        prop_oneof![
            4 => Just("default"),
            1 => Just("dontAsk"),
            1 => Just("acceptEdits"),
            1 => Just("plan"),
            1 => Just("bypassPermissions")
        ],
        prop_oneof![4 => Just("main"), 1 => Just("background")],
        prop_oneof![2 => Just("none"), 1 => Just("sdk")],
    )
        .prop_map(|(policy, plugins, steps, mode, loop_, host)| Case {
            policy,
            plugins,
            steps,
            mode,
            loop_,
            host,
        })
}

/// The ordinary mix.
fn any_case() -> impl Strategy<Value = Case> {
    case(8, 1, 1, 1)
}

// ---------------------------------------------------------------------------------
// Rendering a case as a scenario (the reproduction) and as a session

fn opt_value(o: Opt) -> Option<Value> {
    match o {
        Opt::Absent => None,
        Opt::False => Some(json!(false)),
        Opt::True => Some(json!(true)),
        Opt::StrTrue => Some(json!("true")),
        Opt::One => Some(json!(1)),
    }
}

impl PolicyGen {
    fn settings(&self) -> Value {
        let mut s = Map::new();
        let mut perms = Map::new();
        for (k, v) in [
            ("deny", &self.deny),
            ("ask", &self.ask),
            ("allow", &self.allow),
        ] {
            if !v.is_empty() {
                perms.insert(k.into(), json!(v));
            }
        }
        if !perms.is_empty() {
            s.insert("permissions".into(), Value::Object(perms));
        }
        if !self.env.is_empty() {
            let env: Map<String, Value> = self
                .env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), json!(v)))
                .collect();
            s.insert("env".into(), Value::Object(env));
        }
        if self.process_wrapper {
            s.insert("processWrapper".into(), json!("/opt/corp/launch"));
        }
        let mut options = Map::new();
        if let Some(v) = opt_value(self.mods_only) {
            options.insert("allowManagedModsOnly".into(), v);
        }
        if let Some(v) = opt_value(self.override_deny) {
            options.insert("allowModsToOverrideDenyRules".into(), v);
        }
        if self.configs_void {
            options.insert("note".into(), Value::Null);
        }
        if !options.is_empty() {
            s.insert(
                "pluginConfigs".into(),
                json!({ SEC_DEFAULT_ID: { "options": options } }),
            );
        }
        if !self.servers.is_empty() {
            s.insert("managedMcpServers".into(), json!(self.servers));
        }
        if let Some((us, others)) = &self.prepend {
            let mut ids: Vec<&str> = us.iter().copied().collect();
            ids.extend(others.iter().copied());
            s.insert("prependPlugins".into(), json!(ids));
        }
        if !self.append.is_empty() {
            s.insert("appendPlugins".into(), json!(self.append));
        }
        if !self.enabled.is_empty() {
            let e: Map<String, Value> = self
                .enabled
                .iter()
                .map(|(id, st)| {
                    let v = match st {
                        Enabled::True => json!(true),
                        Enabled::False => json!(false),
                        Enabled::Versions => json!(["1.0.0"]),
                    };
                    ((*id).to_owned(), v)
                })
                .collect();
            s.insert("enabledPlugins".into(), Value::Object(e));
        }
        if let Some(a) = &self.allowed {
            let entries: Vec<Value> = a.iter().map(|n| json!({"serverName": n})).collect();
            s.insert("allowedMcpServers".into(), json!(entries));
        }
        Value::Object(s)
    }

    /// The managed folder, file by file, as SCENARIOS.md writes it.
    fn files(&self) -> Map<String, Value> {
        let mut files = Map::new();
        match self.file {
            SettingsFile::Absent => {}
            SettingsFile::Content => {
                files.insert("managed-settings.json".into(), self.settings());
            }
            SettingsFile::Broken => {
                files.insert(
                    "managed-settings.json".into(),
                    json!({"$raw": "{ \"permissions\": { not json"}),
                );
            }
            SettingsFile::Empty => {
                files.insert("managed-settings.json".into(), json!({"$raw": ""}));
            }
        }
        match self.dropin {
            None => {}
            Some(true) => {
                files.insert(
                    "managed-settings.d/20-extra.json".into(),
                    json!({"permissions": {"deny": ["Bash(git push:*)"]}}),
                );
            }
            Some(false) => {
                files.insert(
                    "managed-settings.d/20-extra.json".into(),
                    json!({"$raw": "deny everything"}),
                );
            }
        }
        match self.mcp {
            McpFile::Absent => {}
            McpFile::Valid => {
                let servers: Map<String, Value> = self
                    .mcp_servers
                    .iter()
                    .map(|s| ((*s).to_owned(), json!({"command": "corp-mcp"})))
                    .collect();
                files.insert(
                    "managed-mcp.json".into(),
                    json!({"_comment": "corp", "mcpServers": servers}),
                );
            }
            McpFile::Garbage(k) => {
                let v = match k {
                    0 => json!({"$raw": "{ not json"}),
                    1 => json!(["corp-tools"]),
                    2 => json!({"servers": {"corp-tools": {}}}),
                    _ => json!({"mcpServers": ["corp-tools"]}),
                };
                files.insert("managed-mcp.json".into(), v);
            }
        }
        files
    }
}

/// A step, resolved against the listed plugins.
#[derive(Debug, Clone)]
struct RStep {
    raise: String,
    event: Value,
    from: Option<String>,
    core: Option<Value>,
    /// `plugin.register` of a listed plugin: a reload.
    reload: Option<String>,
}

#[derive(Debug, Clone)]
struct Rendered {
    case: Case,
    plugins: Vec<Value>,
    steps: Vec<RStep>,
    /// The managed folder, written once and read by every world of the case.
    folder: Arc<tempfile::TempDir>,
}

fn plugin_json(p: &PluginGen) -> Value {
    let hooks: Vec<Value> = p
        .hooks
        .iter()
        .map(|h| {
            let mut o = Map::new();
            o.insert("on".into(), json!(h.on));
            if let Some(f) = &h.filter {
                o.insert("filter".into(), f.clone());
            }
            o.insert("do".into(), h.do_.clone());
            if let Some(c) = &h.catch {
                o.insert("catch".into(), c.clone());
            }
            Value::Object(o)
        })
        .collect();
    let mut o = Map::new();
    o.insert("id".into(), json!(p.id));
    if let Some(n) = &p.name {
        o.insert("name".into(), json!(n));
    }
    o.insert("tier".into(), json!(p.tier));
    if let Some(w) = p.worker {
        o.insert("worker".into(), json!(format!("w{w}")));
    }
    o.insert("hooks".into(), json!(hooks));
    Value::Object(o)
}

impl Case {
    fn of_tier(&self, tier: Tier) -> Vec<&PluginGen> {
        self.plugins.iter().filter(|p| p.tier == tier).collect()
    }

    #[allow(clippy::indexing_slicing)]
    fn resolve(&self, f: FromGen) -> Option<String> {
        match f {
            FromGen::Engine => None,
            FromGen::SecDefault => Some(SEC_DEFAULT_ID.to_owned()),
            FromGen::Plugin(t, i) => {
                let ps = self.of_tier(t);
                if ps.is_empty() {
                    None
                } else {
                    Some(ps[i % ps.len()].id.clone())
                }
            }
        }
    }

    #[allow(clippy::unwrap_used)]
    fn render(&self) -> Rendered {
        let steps = self
            .steps
            .iter()
            .filter_map(|s| self.render_step(s))
            .collect();
        let folder = tempfile::tempdir().unwrap();
        let managed = folder.path().join("managed");
        std::fs::create_dir_all(&managed).unwrap();
        for (path, v) in self.policy.files() {
            write_file(&managed.join(path), &v);
        }
        Rendered {
            case: self.clone(),
            plugins: self.plugins.iter().map(plugin_json).collect(),
            steps,
            folder: Arc::new(folder),
        }
    }

    #[allow(clippy::indexing_slicing)]
    fn render_step(&self, s: &StepGen) -> Option<RStep> {
        let plain = |raise: &str, event: Value, from: Option<String>, core: Option<Value>| RStep {
            raise: raise.to_owned(),
            event,
            from,
            core,
            reload: None,
        };
        Some(match s {
            StepGen::Check(q) => {
                let (tool, input) = question(*q);
                plain(
                    "tool.check",
                    json!({"tool": tool, "input": input, "tool_use_id": format!("t{q}")}),
                    None,
                    None,
                )
            }
            StepGen::EnvSet { from, name, value } => {
                let mut e = json!({"name": ENV_NAMES[*name]});
                if *value {
                    e["value"] = json!("/tmp/evil.so");
                } else {
                    e["value"] = Value::Null;
                }
                plain("env.set", e, self.resolve(*from), None)
            }
            StepGen::EnvGet { from, name } => plain(
                "env.get",
                json!({"name": ENV_NAMES[*name]}),
                self.resolve(*from),
                None,
            ),
            StepGen::Register { from, tool } => plain(
                "tool.register",
                json!({"name": tool, "schema": {"type": "object"}}),
                self.resolve(*from),
                None,
            ),
            StepGen::Reload(i) => {
                if self.plugins.is_empty() {
                    return None;
                }
                let id = self.plugins[i % self.plugins.len()].id.clone();
                RStep {
                    raise: "plugin.register".into(),
                    event: json!({"plugin": id}),
                    from: None,
                    core: None,
                    reload: Some(id),
                }
            }
            StepGen::Append { door, tool, from } => {
                let mut e = json!({"door": door, "text": "row text"});
                if let Some(t) = tool {
                    e["tool"] = json!(t);
                }
                let from = if *door == "note" {
                    self.resolve(*from)
                } else {
                    None
                };
                plain(
                    "session.append",
                    e,
                    from,
                    Some(json!({"text": "row text", "stored": true})),
                )
            }
            StepGen::Describe { raise, provider } => plain(
                raise,
                match provider {
                    Some(p) => json!({"subject": "corp-search", "provider": p}),
                    None => json!({"subject": "corp-search"}),
                },
                None,
                Some(json!({"description": "the org's search"})),
            ),
            StepGen::UiLog { from } => plain(
                "ui.log",
                json!({"line": "a line", "to": "screen"}),
                self.resolve(*from),
                None,
            ),
            StepGen::Simple(i) => {
                let (raise, event, core) = simple(*i);
                plain(raise, event, None, core)
            }
        })
    }
}

impl Rendered {
    /// The case as a scenario file (SCENARIOS.md), each step expecting `expect(step)`.
    fn scenario(&self, name: &str, expect: impl Fn(usize, &RStep) -> Option<Value>) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut o = Map::new();
                o.insert("raise".into(), json!(s.raise));
                o.insert("event".into(), s.event.clone());
                if let Some(f) = &s.from {
                    o.insert("from".into(), json!(f));
                }
                if let Some(c) = &s.core {
                    o.insert("core".into(), c.clone());
                }
                if let Some(e) = expect(i, s) {
                    o.insert("expect".into(), e);
                }
                Value::Object(o)
            })
            .collect();
        json!({
            "name": name,
            "about": "generated by crates/scenario/tests/invariants.rs (SPEC §5)",
            "policy": self.case.policy.files(),
            "session": {
                "mode": self.case.mode,
                "loop": self.case.loop_,
                "host": self.case.host,
                "hook_timeout_ms": HOOK_TIMEOUT_MS,
            },
            "plugins": self.plugins,
            "steps": steps,
        })
    }

    fn repro(&self, name: &str) -> String {
        serde_json::to_string_pretty(&self.scenario(name, |_, _| None)).unwrap_or_default()
    }
}

// ---------------------------------------------------------------------------------
// Running

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Twin {
    Main,
    /// `user` hooks stripped: the chain past the user tier (SCENARIOS.md `$held`'s twin;
    /// SPEC §1.1 **[decision, revised]**: the organization's other `prepend` plugins
    /// still run).
    PastUsers,
    /// `seated: false`.
    Unseated,
}

struct World {
    session: Session,
    ran: Arc<Mutex<Vec<String>>>,
    /// The temporary folder's path, written `$TMP` in answers and traces (messages name
    /// the managed files).
    root: String,
    _temp: Arc<tempfile::TempDir>,
}

#[derive(Debug, Clone, PartialEq)]
struct Out {
    answer: Value,
    trace: String,
    ran: Vec<String>,
}

#[allow(clippy::unwrap_used)]
fn write_file(path: &std::path::Path, v: &Value) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    let bytes = match v.as_object().and_then(|o| o.get("$raw")) {
        Some(Value::String(raw)) if v.as_object().is_some_and(|o| o.len() == 1) => raw.clone(),
        _ => serde_json::to_string_pretty(v).unwrap(),
    };
    std::fs::write(path, bytes).unwrap();
}

#[allow(clippy::unwrap_used)]
fn world(r: &Rendered, twin: Twin) -> World {
    quiet_scripted_panics();
    let temp = Arc::clone(&r.folder);
    let managed = temp.path().join("managed");
    let mut facts = permissions::SessionFacts::new("/home/dev/repo", "/home/dev");
    facts.loop_kind = r.case.loop_.parse().unwrap();
    facts.host = r.case.host.parse().unwrap();
    let config = SessionConfig {
        mode: Some(r.case.mode.parse().unwrap()),
        facts,
        hook_timeout: Duration::from_millis(HOOK_TIMEOUT_MS),
        seated: twin != Twin::Unseated,
        ..SessionConfig::new(&managed)
    };
    let ran = Arc::new(Mutex::new(Vec::new()));
    let plugins = r
        .plugins
        .iter()
        .map(|p| {
            let spec: PluginSpec = serde_json::from_value(p.clone()).unwrap();
            let strip = match twin {
                Twin::PastUsers => spec.tier == Tier::User,
                Twin::Main | Twin::Unseated => false,
            };
            scripted_plugin(&spec, &ran, strip)
        })
        .collect();
    let session = Session::start(config, plugins).unwrap();
    World {
        session,
        ran,
        root: temp.path().to_string_lossy().into_owned(),
        _temp: temp,
    }
}

impl World {
    #[allow(clippy::unwrap_used)]
    fn step(&self, s: &RStep) -> Out {
        self.ran.lock().unwrap().clear();
        let (answer, trace) = if let Some(id) = &s.reload {
            match self.session.reload(id) {
                Ok(a) => (answer_to_json(&a), Vec::new()),
                Err(e) => (json!({"$raise_error": e.to_string()}), Vec::new()),
            }
        } else {
            match self.session.raise_traced(
                Event::from_value(s.raise.clone(), s.event.clone()),
                s.from.as_deref(),
                s.core.clone(),
            ) {
                Ok((a, t)) => (answer_to_json(&a), t),
                Err(e) => (json!({"$raise_error": e.to_string()}), Vec::new()),
            }
        };
        let ran = std::mem::take(&mut *self.ran.lock().unwrap());
        let answer = serde_json::from_str(&self.untemp(&answer.to_string())).unwrap();
        Out {
            answer,
            trace: self.untemp(&serde_json::to_string(&trace).unwrap()),
            ran,
        }
    }

    fn untemp(&self, s: &str) -> String {
        s.replace(&self.root, "$TMP")
    }

    fn admitted(&self, id: &str) -> bool {
        self.session.engine().plugin(id).is_some()
    }

    fn env(&self) -> Vec<Option<String>> {
        ENV_NAMES
            .iter()
            .map(|n| self.session.core().env_var(n))
            .collect()
    }
}

// ---------------------------------------------------------------------------------
// Oracles, from the SPEC

/// `fold(s)` (SPEC §3.4.1): every character outside ASCII letters and digits becomes a
/// separator, letters are lower-cased, and every run of separators is one `_`.
fn fold(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out
}

/// The composed and decomposed forms of a name of the pools (the only non-ASCII letter
/// they use is `é`).
fn forms(name: &str) -> Vec<String> {
    let nfc = name.replace("e\u{301}", "\u{e9}");
    let nfd = nfc.replace('\u{e9}', "e\u{301}");
    if nfc == nfd {
        vec![nfc]
    } else {
        vec![nfc, nfd]
    }
}

/// Ids compared as the engine compares them: NFC, then lower case (SPEC §2.2).
#[allow(clippy::indexing_slicing)]
fn ids_eq(a: &str, b: &str) -> bool {
    forms(a)[0].to_lowercase() == forms(b)[0].to_lowercase()
}

fn id_name(id: &str) -> &str {
    id.rsplit_once('@').map_or(id, |(n, _)| n)
}

/// What the policy means, computed from the generated model (SPEC §2).
#[derive(Debug, Clone)]
struct Facts {
    readable: bool,
    content: bool,
    seated: bool,
    /// Deny rules hold (SPEC §3.6 step 4): seated, and not `allowModsToOverrideDenyRules`
    /// literal `true` in a policy that was read.
    deny_holds: bool,
    /// No `user` module may be admitted (SPEC §3.9, §5.5).
    mods_locked: bool,
}

fn facts(c: &Case) -> Facts {
    let p = &c.policy;
    let readable =
        !matches!(p.file, SettingsFile::Broken | SettingsFile::Empty) && p.dropin != Some(false);
    let content = readable && p.file == SettingsFile::Content;
    let seated = !readable
        || !content
        || match &p.prepend {
            None => true,
            Some((us, _)) => us.is_some_and(|id| ids_eq(id, SEC_DEFAULT_ID)),
        };
    let options = content && !p.configs_void;
    let override_deny = options && p.override_deny == Opt::True;
    let mods_only = options && !matches!(p.mods_only, Opt::Absent | Opt::False);
    Facts {
        readable,
        content,
        seated,
        deny_holds: seated && (!readable || !override_deny),
        mods_locked: seated && (!readable || mods_only),
    }
}

/// Whether a variable is pinned (SPEC §3.8), names compared in any letter case.
fn pinned(c: &Case, f: &Facts, name: &str) -> bool {
    let eq = |a: &str, b: &str| a.to_lowercase() == b.to_lowercase();
    if !f.readable {
        return true;
    }
    ALWAYS_PINNED.iter().any(|n| eq(n, name))
        || (f.content && c.policy.env.iter().any(|(n, _)| eq(n, name)))
        || (f.content && c.policy.process_wrapper && eq("CLAUDE_CODE_PROCESS_WRAPPER", name))
}

/// Whether a `user` plugin's registration of `tool` must be refused (SPEC §3.4 steps
/// 1–5, the exemption), by an oracle of its own.
fn must_refuse_registration(c: &Case, f: &Facts, plugin: &PluginGen, tool: &str) -> bool {
    let p = &c.policy;
    if !f.readable || matches!(p.mcp, McpFile::Garbage(_)) {
        return true;
    }
    if f.content && p.allowed.is_some() {
        return true;
    }
    // Servers: managed settings' and managed-mcp.json's.
    let mut servers: Vec<&str> = Vec::new();
    if f.content {
        servers.extend(&p.servers);
    }
    if p.mcp == McpFile::Valid {
        servers.extend(&p.mcp_servers);
    }
    // Org plugins: (id, owner id) by key.
    let mut org: Vec<&str> = Vec::new();
    if f.content {
        if let Some((us, others)) = &p.prepend {
            org.extend(us.iter().copied());
            org.extend(others.iter().copied());
        }
        org.extend(&p.append);
        org.extend(
            p.enabled
                .iter()
                .filter(|(_, s)| *s != Enabled::False)
                .map(|(id, _)| *id),
        );
    }
    let nothing = |s: &str| !s.chars().any(|c| c.is_ascii_alphanumeric());
    if servers.iter().any(|s| nothing(s))
        || org
            .iter()
            .any(|id| forms(id_name(id)).iter().any(|n| nothing(n)))
    {
        return true;
    }
    let name = plugin
        .name
        .clone()
        .unwrap_or_else(|| id_name(&plugin.id).to_owned());
    let full = fold(&format!("mcp__{name}__{tool}"));
    let reads_as = |scope: &str| full.starts_with(&fold(scope));
    if servers.iter().any(|s| reads_as(&format!("mcp__{s}__"))) {
        return true;
    }
    // The exemption: the caller's recorded id is turned on by `enabledPlugins: true`.
    let vouched: Vec<&str> = if f.content {
        p.enabled
            .iter()
            .filter(|(id, s)| *s == Enabled::True && ids_eq(id, &plugin.id))
            .map(|(id, _)| *id)
            .collect()
    } else {
        Vec::new()
    };
    org.iter()
        .filter(|id| !vouched.iter().any(|v| ids_eq(v, id)))
        .any(|id| {
            forms(id_name(id))
                .iter()
                .any(|n| reads_as(&format!("mcp__{n}__")) || reads_as(&format!("mcp__plugin_{n}_")))
        })
}

fn tier_of(c: &Case, from: Option<&str>) -> Tier {
    match from {
        None => Tier::Core,
        Some(SEC_DEFAULT_ID) => Tier::Prepend,
        Some(id) => c
            .plugins
            .iter()
            .find(|p| p.id == id)
            .map_or(Tier::Core, |p| p.tier),
    }
}

const PAST_USERS_ALWAYS: &[&str] = &[
    "prompt.section",
    "prompt.context",
    "prompt.attachment",
    "prompt.compose",
    "skill.prompt",
    "attribution.text",
    "session.compact",
    "settings.read",
];

/// Whether the security default holds this step past the user tier (SPEC §3.1–§3.8,
/// the list of §5 invariant 2), or refuses it without calling `next` (a pinned
/// variable set by a `user` caller). `false` when it is not seated.
fn held(c: &Case, f: &Facts, s: &RStep) -> bool {
    if !f.seated || s.reload.is_some() {
        return false;
    }
    let caller = tier_of(c, s.from.as_deref());
    let org_caller = caller.is_managed();
    let field = |k: &str| s.event.get(k).and_then(Value::as_str);
    match s.raise.as_str() {
        r if r.starts_with("classic.") => true,
        r if PAST_USERS_ALWAYS.contains(&r) => true,
        "session.append" => match field("door") {
            Some("attachment" | "hook-context" | "compaction") => true,
            Some("tool-message") => field("tool") == Some("Skill"),
            Some("note") => org_caller,
            _ => false,
        },
        // SPEC §3.3: a subject provided by `user`, `builtin` or `core` passes; every other
        // (the organization's, or one whose provenance cannot be told) is held.
        "tool.describe" | "command.describe" | "agent.offer" | "agent.spawn" => !s
            .event
            .pointer("/provider/tier")
            .and_then(Value::as_str)
            .is_some_and(|t| matches!(t, "user" | "builtin" | "core")),
        "ui.log" | "env.get" | "tool.register" => org_caller,
        "env.set" => org_caller || pinned(c, f, field("name").unwrap_or_default()),
        _ => false,
    }
}

/// Whether the security default may change this step's answer at all: held events, and
/// the ones it judges (`tool.check`, `tool.list`, a `user` caller's `tool.register`,
/// `plugin.register`).
fn touched(c: &Case, f: &Facts, s: &RStep) -> bool {
    if !f.seated {
        return false;
    }
    held(c, f, s)
        || matches!(
            s.raise.as_str(),
            "tool.check" | "tool.list" | "plugin.register"
        )
        || (s.raise == "tool.register" && tier_of(c, s.from.as_deref()) == Tier::User)
}

fn verdict(v: &Value) -> Option<Verdict> {
    Verdict::from_value(v)
}

/// A verdict that holds (SPEC §3.6 step 6): a deny, or an ask naming a cause.
fn holds(v: &Verdict) -> bool {
    v.decision == Decision::Deny || (v.decision == Decision::Ask && v.names_a_cause())
}

fn user_ids(c: &Case) -> Vec<&str> {
    c.plugins
        .iter()
        .filter(|p| p.tier == Tier::User)
        .map(|p| p.id.as_str())
        .collect()
}

/// Whether the two worlds seat the same plugins of these tiers now (else their chains
/// differ for reasons of admission, not of the security default).
fn same_admissions(c: &Case, a: &World, b: &World, tiers: &[Tier]) -> bool {
    c.plugins
        .iter()
        .filter(|p| tiers.contains(&p.tier))
        .all(|p| a.admitted(&p.id) == b.admitted(&p.id))
}

/// Whether an `env.get` step reads the same value in both worlds (other steps do not
/// read the environment).
#[allow(clippy::indexing_slicing)]
fn same_env_for(a: &World, b: &World, s: &RStep) -> bool {
    match s.raise.as_str() {
        "env.get" => {
            let name = s.event["name"].as_str().unwrap_or_default();
            a.session.core().env_var(name) == b.session.core().env_var(name)
        }
        // The core expands a command's variables from the session's environment
        // (SPEC §4): a held `env.set` earlier may change what a check sees.
        "tool.check" | "tool.use" => a.session.core().env() == b.session.core().env(),
        _ => true,
    }
}

// ---------------------------------------------------------------------------------
// The checks, one per invariant, each over a whole case

type Check = Result<(), String>;

fn fail(r: &Rendered, i: usize, what: String) -> Check {
    Err(format!(
        "step {i} ({}): {what}\n--- scenario ---\n{}",
        r.steps.get(i).map_or("", |s| s.raise.as_str()),
        r.repro("generated counterexample")
    ))
}

/// SPEC §5.1: with deny rules holding, the final `tool.check` verdict is never looser
/// than the same question past the user tier (`past`) whenever that verdict holds, and
/// is returned whole unless stricter. The verdict past the user tier is that of the
/// chain with only the `user` hooks removed: the security default's `next.to(e,
/// append)` skips the `user` tier and nothing else (SPEC §1.1 **[decision, revised]**),
/// so the organization's other `prepend` plugins take part in it.
fn check_held_verdict(r: &Rendered, main: &World, past: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    for (i, s) in r.steps.iter().enumerate() {
        let tiers = [Tier::Prepend, Tier::Append, Tier::Builtin];
        let comparable = same_admissions(c, main, past, &tiers);
        let (a, b) = (main.step(s), past.step(s));
        if s.raise != "tool.check" || !f.deny_holds || !comparable {
            continue;
        }
        let Some(held) = verdict(&b.answer) else {
            continue;
        };
        if !holds(&held) {
            continue;
        }
        let got = verdict(&a.answer);
        // SPEC §3.6 step 2 (seed: a link that never called `next` is measured against a
        // deny): a bare `{decision: deny}` a link answered on its own is no rewrite, so
        // it stands over a held deny, as strict but without the rule's name — decided in
        // `examples/scenarios/regressions/bare-deny-over-held-deny.json`.
        if held.decision == Decision::Deny && got == Some(Verdict::plain(Decision::Deny)) {
            continue;
        }
        let whole = got
            .as_ref()
            .is_some_and(|v| v.decision > held.decision || *v == held);
        let looser = got.as_ref().is_none_or(|v| v.decision < held.decision);
        if a.answer != b.answer && (looser || !whole) {
            return fail(
                r,
                i,
                format!(
                    "held verdict {} not returned whole; got {} (trace {})",
                    b.answer, a.answer, a.trace
                ),
            );
        }
    }
    Ok(())
}

/// SPEC §5.2: no `user` plugin runs at a held event, and its answer is the answer past
/// the user tier.
fn check_no_user_hook_at_held(r: &Rendered, main: &World, past: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    let users = user_ids(c);
    for (i, s) in r.steps.iter().enumerate() {
        let comparable =
            same_admissions(c, main, past, &[Tier::Prepend, Tier::Append, Tier::Builtin])
                && same_env_for(main, past, s);
        let (a, b) = (main.step(s), past.step(s));
        if !held(c, &f, s) {
            continue;
        }
        if let Some(u) = a.ran.iter().find(|id| users.contains(&id.as_str())) {
            return fail(r, i, format!("user plugin {u} ran at a held event"));
        }
        // A caller admitted in one world only (a `prepend` or `user` hook refused it at
        // admission in the other) raises nothing to compare.
        let raised =
            a.answer.get("$raise_error").is_none() && b.answer.get("$raise_error").is_none();
        if comparable && raised && a.answer != b.answer {
            return fail(
                r,
                i,
                format!(
                    "answer {} differs from the answer past the user tier {}",
                    a.answer, b.answer
                ),
            );
        }
    }
    Ok(())
}

/// SPEC §5.3: no `user` registration is accepted whose name reads as an org scope.
#[allow(clippy::indexing_slicing)]
fn check_registrations(r: &Rendered, main: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    for (i, s) in r.steps.iter().enumerate() {
        let a = main.step(s);
        if s.raise != "tool.register" || !f.seated || a.answer.get("$raise_error").is_some() {
            continue;
        }
        let Some(p) = c.plugins.iter().find(|p| Some(&p.id) == s.from.as_ref()) else {
            continue;
        };
        if p.tier != Tier::User {
            continue;
        }
        let tool = s.event["name"].as_str().unwrap_or_default();
        if must_refuse_registration(c, &f, p, tool) && a.answer.get("deny").is_none() {
            return fail(
                r,
                i,
                format!(
                    "registration of {tool:?} by {:?} must be refused; got {}",
                    p.name, a.answer
                ),
            );
        }
    }
    Ok(())
}

/// SPEC §5.4: no `user` caller sets or unsets a pinned variable.
#[allow(clippy::indexing_slicing)]
fn check_pinned(r: &Rendered, main: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    for (i, s) in r.steps.iter().enumerate() {
        let before = main.env();
        let a = main.step(s);
        let after = main.env();
        if !f.seated {
            continue;
        }
        let caller = tier_of(c, s.from.as_deref());
        let writer = s.raise == "env.set" && caller != Tier::User;
        for (k, name) in ENV_NAMES.iter().enumerate() {
            if pinned(c, &f, name) && before[k] != after[k] && !writer {
                return fail(
                    r,
                    i,
                    format!(
                        "pinned {name} changed from {:?} to {:?} (answer {})",
                        before[k], after[k], a.answer
                    ),
                );
            }
        }
        let name = s.event["name"].as_str().unwrap_or_default();
        if s.raise == "env.set"
            && caller == Tier::User
            && pinned(c, &f, name)
            && a.answer.get("$raise_error").is_none()
            && a.answer.get("deny").is_none()
        {
            return fail(
                r,
                i,
                format!("a user set of pinned {name} was not refused: {}", a.answer),
            );
        }
    }
    Ok(())
}

/// SPEC §5.5: with `allowManagedModsOnly` on, or the policy unreadable, no `user`
/// module is admitted, at load or reload.
#[allow(clippy::indexing_slicing)]
fn check_admission(r: &Rendered, main: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    if f.mods_locked {
        for (id, answer) in main.session.admissions() {
            let user = c.plugins.iter().any(|p| p.id == id && p.tier == Tier::User);
            if user && matches!(&answer, Ok(v) if v.get("refuse").is_none()) {
                return Err(format!(
                    "{id} admitted at load: {}\n--- scenario ---\n{}",
                    answer_to_json(&answer),
                    r.repro("generated counterexample")
                ));
            }
        }
    }
    for (i, s) in r.steps.iter().enumerate() {
        let a = main.step(s);
        if !f.mods_locked {
            continue;
        }
        for id in user_ids(c) {
            if main.admitted(id) {
                return fail(r, i, format!("{id} is seated (answer {})", a.answer));
            }
        }
        if s.reload.is_some()
            && user_ids(c).contains(&s.event["plugin"].as_str().unwrap_or_default())
            && a.answer.get("refuse").is_none()
        {
            return fail(r, i, format!("reload admitted: {}", a.answer));
        }
    }
    Ok(())
}

/// SPEC §5.7: every event and verdict the plugin does not hold is exactly what the chain
/// without it produces; a `tool.check` that differs is the held verdict, returned whole.
fn check_nothing_else(r: &Rendered, main: &World, unseated: &World, past: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    let all = [Tier::Prepend, Tier::User, Tier::Append, Tier::Builtin];
    for (i, s) in r.steps.iter().enumerate() {
        let comparable =
            same_admissions(c, main, unseated, &all) && same_env_for(main, unseated, s);
        let past_comparable =
            same_admissions(c, main, past, &[Tier::Prepend, Tier::Append, Tier::Builtin])
                && same_env_for(main, past, s);
        let (a, u, p) = (main.step(s), unseated.step(s), past.step(s));
        if !comparable || a.answer == u.answer {
            continue;
        }
        if s.raise == "tool.check" && f.seated && !f.deny_holds {
            // SPEC §3.6 step 4: deny rules do not hold, the chain's answer is returned.
            return fail(
                r,
                i,
                format!(
                    "tool.check {} differs from unseated {} although deny rules do not hold",
                    a.answer, u.answer
                ),
            );
        }
        if s.raise == "tool.check" && f.deny_holds && past_comparable {
            let ok = verdict(&p.answer).is_some_and(|h| holds(&h) && verdict(&a.answer) == Some(h));
            if ok {
                continue;
            }
            return fail(
                r,
                i,
                format!(
                    "tool.check {} differs from unseated {} and is not the held verdict {}",
                    a.answer, u.answer, p.answer
                ),
            );
        }
        if touched(c, &f, s) {
            continue;
        }
        return fail(
            r,
            i,
            format!(
                "an event sec-default does not hold changed: seated {} vs unseated {}",
                a.answer, u.answer
            ),
        );
    }
    Ok(())
}

/// The same session, step by step: answers and trace JSON.
fn transcript(r: &Rendered) -> Vec<(String, String)> {
    let w = world(r, Twin::Main);
    let mut out: Vec<(String, String)> = w
        .session
        .admissions()
        .iter()
        .map(|(id, a)| (id.clone(), w.untemp(&answer_to_json(a).to_string())))
        .collect();
    out.extend(r.steps.iter().map(|s| {
        let o = w.step(s);
        (o.answer.to_string(), o.trace)
    }));
    out
}

fn same_transcript(
    r: &Rendered,
    a: &[(String, String)],
    b: &[(String, String)],
    what: &str,
) -> Check {
    let admissions = r.plugins.len();
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            let at = if i < admissions {
                format!("admission {i}")
            } else {
                format!("step {}", i - admissions)
            };
            return Err(format!(
                "{what} differs at {at}:\n  {x:?}\n  {y:?}\n--- scenario ---\n{}",
                r.repro("determinism")
            ));
        }
    }
    if a.len() == b.len() {
        Ok(())
    } else {
        Err(format!("{what} has another length"))
    }
}

// ---------------------------------------------------------------------------------
// The properties

fn run(check: Check) -> Result<(), TestCaseError> {
    check.map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(config())]

    /// SPEC §5 invariant 1.
    #[test]
    fn held_verdict_never_loosened(c in any_case()) {
        let r = c.render();
        run(check_held_verdict(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
    }

    /// SPEC §5 invariant 2.
    #[test]
    fn no_user_hook_runs_at_held_events(c in any_case()) {
        let r = c.render();
        run(check_no_user_hook_at_held(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
    }

    /// SPEC §5 invariant 3, over arbitrary Unicode plugin and tool names.
    #[test]
    fn no_registration_reads_as_an_org_scope(c in any_case()) {
        let r = c.render();
        run(check_registrations(&r, &world(&r, Twin::Main)))?;
    }

    /// SPEC §5 invariant 4.
    #[test]
    fn no_pinned_variable_set(c in any_case()) {
        let r = c.render();
        run(check_pinned(&r, &world(&r, Twin::Main)))?;
    }

    /// SPEC §5 invariant 5.
    #[test]
    fn no_admission_under_mods_only_or_unreadable_policy(c in any_case()) {
        let r = c.render();
        run(check_admission(&r, &world(&r, Twin::Main)))?;
    }

    /// SPEC §5 invariant 6: invariants 1–5 under a failing policy read, a garbage
    /// `managed-mcp.json`, and hooks that fail, panic and time out.
    #[test]
    fn fail_closed_under_every_failure_kind(c in case(2, 4, 4, 2)) {
        let r = c.render();
        run(check_held_verdict(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
        run(check_no_user_hook_at_held(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
        let main = world(&r, Twin::Main);
        run(check_registrations(&r, &main))?;
        let main = world(&r, Twin::Main);
        run(check_pinned(&r, &main))?;
        let main = world(&r, Twin::Main);
        run(check_admission(&r, &main))?;
    }

    /// SPEC §5 invariant 7.
    #[test]
    fn nothing_else_changes(c in any_case()) {
        let r = c.render();
        run(check_nothing_else(&r, &world(&r, Twin::Main), &world(&r, Twin::Unseated), &world(&r, Twin::PastUsers)))?;
    }

    /// Issue 4 item 7: unseated vs seated differ only on events SPEC §3 holds — over
    /// sessions where nothing keeps a person's plugins out (readable policy, mods-only
    /// off), so that every step stays comparable.
    #[test]
    fn unseated_vs_seated_differ_only_on_held_events(c in case(8, 0, 1, 1).prop_map(|mut c| {
        c.policy.mods_only = Opt::False;
        c
    })) {
        let r = c.render();
        run(check_nothing_else(&r, &world(&r, Twin::Main), &world(&r, Twin::Unseated), &world(&r, Twin::PastUsers)))?;
    }

    /// Issue 4 item 2: the same session gives byte-identical answers and trace JSON
    /// every run, and on any thread count.
    #[test]
    fn determinism(c in any_case()) {
        let r = c.render();
        let first = transcript(&r);
        let again = transcript(&r);
        run(same_transcript(&r, &first, &again, "a second run"))?;
        let threads: Vec<Vec<(String, String)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| transcript(&r))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for t in &threads {
            run(same_transcript(&r, &first, t, "a run on one of 4 threads"))?;
        }
        // One session, its `tool.check`s raised from 4 threads at once.
        let checks: Vec<&RStep> = r.steps.iter().filter(|s| s.raise == "tool.check").collect();
        let alone = world(&r, Twin::Main);
        let sequential: Vec<Out> = checks.iter().map(|s| alone.step(s)).collect();
        let shared = world(&r, Twin::Main);
        let concurrent: Vec<Vec<Out>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| checks.iter().map(|s| shared.step(s)).collect::<Vec<_>>()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for outs in &concurrent {
            for (k, (a, b)) in sequential.iter().zip(outs).enumerate() {
                prop_assert!(
                    a.answer == b.answer && a.trace == b.trace,
                    "tool.check {} raised on 4 threads at once differs:\n  {} {}\n  {} {}\n--- scenario ---\n{}",
                    k, a.answer, a.trace, b.answer, b.trace, r.repro("determinism")
                );
            }
        }
    }
}
