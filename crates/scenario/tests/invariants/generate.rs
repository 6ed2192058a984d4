//! Strategies.

use super::*;

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
pub(crate) fn simple(i: usize) -> (&'static str, Value, Option<Value>) {
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
pub(crate) fn case(
    readable: u32,
    broken: u32,
    fail: u32,
    hang: u32,
) -> impl Strategy<Value = Case> {
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
pub(crate) fn any_case() -> impl Strategy<Value = Case> {
    case(8, 1, 1, 1)
}
