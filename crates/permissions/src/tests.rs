//! Decide-level tests: rule forms, precedence, modes, hosts, outcomes (SPEC §1.6, §2.1, §4).

use crate::*;
use crate::{Decision, Verdict};
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{json, Value};

fn facts() -> SessionFacts {
    SessionFacts::new("/home/dev/repo", "/home/dev")
}

fn facts_in(mode: Mode) -> SessionFacts {
    SessionFacts { mode, ..facts() }
}

fn policy(perms: Value) -> RuleSet {
    let settings = json!({ "permissions": perms });
    RuleSet::from_sources(&[(SettingsSource::Policy, &settings)]).0
}

fn ask(rules: &RuleSet, tool: &str, input: Value, f: &SessionFacts) -> Verdict {
    decide(
        rules,
        &Question {
            tool,
            input: &input,
        },
        f,
    )
}

fn bash(rules: &RuleSet, cmd: &str) -> Verdict {
    ask(rules, "Bash", json!({ "command": cmd }), &facts())
}

fn d(v: &Verdict) -> (Decision, Option<&str>) {
    (v.decision, v.rule.as_deref())
}

// ---------------------------------------------------------------- rule forms

#[test]
fn bare_tool_names() {
    let r = policy(json!({"deny": ["WebFetch"], "ask": ["deploy_agent", "Bash"]}));
    let v = ask(
        &r,
        "WebFetch",
        json!({"url": "https://example.com", "prompt": "read"}),
        &facts(),
    );
    assert_eq!(d(&v), (Decision::Deny, Some("WebFetch")));
    assert_eq!(v.source.as_deref(), Some("policy"));
    let v = ask(&r, "deploy_agent", json!({"target": "prod"}), &facts());
    assert_eq!(d(&v), (Decision::Ask, Some("deploy_agent")));
    assert_eq!(d(&bash(&r, "make build")), (Decision::Ask, Some("Bash")));
    assert_eq!(d(&bash(&r, "ls")), (Decision::Ask, Some("Bash")));
    // Bash(*) is Bash.
    let r = policy(json!({"ask": ["Bash(*)"]}));
    assert_eq!(d(&bash(&r, "ls")), (Decision::Ask, Some("Bash(*)")));
}

#[test]
fn bash_prefix_and_wildcards() {
    let r = policy(
        json!({"deny": ["Bash(rm:*)", "Bash(curl *)", "Bash(git push --force *)", "Bash(npm run build)"]}),
    );
    for (cmd, rule) in [
        ("rm -rf x", Some("Bash(rm:*)")),
        ("rm", Some("Bash(rm:*)")),
        ("rmdir x", None),
        ("curl https://example.invalid", Some("Bash(curl *)")),
        ("curl", Some("Bash(curl *)")),
        ("curlx", None),
        (
            "git push --force origin main",
            Some("Bash(git push --force *)"),
        ),
        ("git push origin main", None),
        ("npm run build", Some("Bash(npm run build)")),
        ("npm run build2", None),
    ] {
        let v = bash(&r, cmd);
        assert_eq!(v.rule.as_deref(), rule, "{cmd}");
        assert_eq!(v.decision == Decision::Deny, rule.is_some(), "{cmd}");
    }
}

#[test]
fn compound_commands_deny_any_part() {
    let r = policy(json!({"deny": ["Bash(rm:*)"]}));
    for cmd in [
        "ls && rm -rf /",
        "ls; rm x",
        "false || rm x",
        "cat x | rm y",
        "sleep 1 & rm x",
        "ls\nrm x",
        "echo $(rm x)",
        "echo `rm x`",
        "echo \"$(rm x)\"",
        "(cd /; rm x)",
        "diff <(rm x) y",
        "sudo rm -rf /",
        "sudo -u root rm x",
        "FOO=bar rm -rf x",
        "env -i PATH=/bin rm x",
        "timeout 5 rm x",
        "nice -n 10 rm x",
        "nohup rm x",
        "stdbuf -oL rm x",
        "command rm x",
        "builtin rm x",
        "time rm x",
        "doas rm x",
        "xargs -0 rm",
        "find . | xargs rm",
        "/bin/rm -rf /",
        "sudo /usr/bin/rm x",
        "bash -c 'rm -rf /'",
        "sh -c \"ls && rm x\"",
        "eval rm x",
        "find . -exec rm {} \\;",
        "if true; then rm x; fi",
        "r\\m x",
        "'rm' x",
        "RM x",
        "rm -rf / 'unbalanced",
    ] {
        assert_eq!(
            d(&bash(&r, cmd)),
            (Decision::Deny, Some("Bash(rm:*)")),
            "{cmd}"
        );
    }
    for cmd in ["ls", "echo 'rm x'", "echo rm", "rmdir x", "echo a # rm x"] {
        assert_ne!(bash(&r, cmd).decision, Decision::Deny, "{cmd}");
    }
}

#[test]
fn sudo_rule_meets_sudo_as_written() {
    let r = policy(json!({"deny": ["Bash(sudo:*)", "Bash(rm:*)"]}));
    assert_eq!(
        d(&bash(&r, "sudo ls")),
        (Decision::Deny, Some("Bash(sudo:*)"))
    );
    // Both match; the first in file order is named.
    assert_eq!(
        d(&bash(&r, "sudo rm -rf /")),
        (Decision::Deny, Some("Bash(sudo:*)"))
    );
}

#[test]
fn compound_commands_allow_every_part() {
    let settings = json!({"permissions": {"allow": ["Bash(npm test *)", "Bash(make:*)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::User, &settings)]);
    assert_eq!(
        d(&bash(&r, "npm test")),
        (Decision::Allow, Some("Bash(npm test *)"))
    );
    assert_eq!(
        d(&bash(&r, "npm test && make")),
        (Decision::Allow, Some("Bash(npm test *)"))
    );
    assert_eq!(
        d(&bash(&r, "make && npm test")),
        (Decision::Allow, Some("Bash(npm test *)"))
    );
    // Read-only parts need no rule.
    assert_eq!(
        d(&bash(&r, "ls && make all")),
        (Decision::Allow, Some("Bash(make:*)"))
    );
    // A part no rule covers: ask.
    for cmd in [
        "npm test && curl x",
        "npm test; rm x",
        "npm test $(curl x)",
        "FOO=1 npm test",
        "sudo npm test",
        "npm test 'unbalanced",
        "npm test > out.log",
        "$CMD test",
    ] {
        assert_eq!(bash(&r, cmd).decision, Decision::Ask, "{cmd}");
    }
    // Harmless wrappers are stripped for allow rules too.
    assert_eq!(
        d(&bash(&r, "timeout 60 npm test")),
        (Decision::Allow, Some("Bash(npm test *)"))
    );
    // A redirect to /dev/null is no write.
    assert_eq!(
        d(&bash(&r, "npm test > /dev/null 2>&1")),
        (Decision::Allow, Some("Bash(npm test *)"))
    );
}

#[test]
fn whole_bash_allow_still_needs_a_splittable_command() {
    let settings = json!({"permissions": {"allow": ["Bash"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Local, &settings)]);
    assert_eq!(d(&bash(&r, "make && ls")), (Decision::Allow, Some("Bash")));
    // A program known only at run time that no deny or ask rule could meet is judged
    // as any part (SPEC §4 "What the core cannot see"): a bare `Bash` covers it.
    assert_eq!(d(&bash(&r, "make && $X")), (Decision::Allow, Some("Bash")));
    let v = bash(&r, "echo 'oops");
    assert_eq!(d(&v), (Decision::Ask, None));
    assert!(!v.names_a_cause());
}

#[test]
fn redirects_are_judged_as_edits() {
    let r = policy(json!({"deny": ["Edit(~/.bashrc)"], "allow": ["Bash(echo *)"]}));
    assert_eq!(
        d(&bash(&r, "echo x >> ~/.bashrc")),
        (Decision::Deny, Some("Edit(~/.bashrc)"))
    );
    assert_eq!(d(&bash(&r, "echo x > out.txt")), (Decision::Ask, None));
    let settings = json!({"permissions": {"allow": ["Bash(echo *)", "Edit(./out/**)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Project, &settings)]);
    assert_eq!(
        d(&bash(&r, "echo x > out/a.txt")),
        (Decision::Allow, Some("Bash(echo *)"))
    );
    assert_eq!(d(&bash(&r, "make > out/a.txt")), (Decision::Ask, None));
    assert_eq!(
        d(&bash(&r, "cd /etc && echo x > out/a.txt")),
        (Decision::Ask, None)
    );
    assert_eq!(d(&bash(&r, "echo x > $F")), (Decision::Ask, None));
}

#[test]
fn mcp_rules() {
    let r = policy(json!({"deny": ["mcp__github"], "ask": ["mcp__jira__*", "mcp__slack__post"]}));
    let i = json!({});
    assert_eq!(
        d(&ask(&r, "mcp__github__get_issue", i.clone(), &facts())),
        (Decision::Deny, Some("mcp__github"))
    );
    assert_eq!(
        d(&ask(&r, "mcp__jira__create", i.clone(), &facts())),
        (Decision::Ask, Some("mcp__jira__*"))
    );
    assert_eq!(
        d(&ask(&r, "mcp__slack__post", i.clone(), &facts())),
        (Decision::Ask, Some("mcp__slack__post"))
    );
    assert_eq!(
        d(&ask(&r, "mcp__slack__read", i.clone(), &facts())),
        (Decision::Ask, None)
    );
    assert_eq!(
        d(&ask(&r, "mcp__githubx__a", i.clone(), &facts())),
        (Decision::Ask, None)
    );
    let settings = json!({"permissions": {"allow": ["mcp__github__get_*", "mcp__*"]}});
    let (r, w) = RuleSet::from_sources(&[(SettingsSource::User, &settings)]);
    assert_eq!(w.len(), 1, "the unanchored allow glob is dropped");
    assert_eq!(
        d(&ask(&r, "mcp__github__get_issue", i.clone(), &facts())),
        (Decision::Allow, Some("mcp__github__get_*"))
    );
    assert_eq!(
        d(&ask(&r, "mcp__other__x", i, &facts())),
        (Decision::Ask, None)
    );
}

#[test]
fn tool_name_globs_in_deny_and_ask() {
    let r = policy(json!({"deny": ["mcp__*"], "ask": ["*"]}));
    assert_eq!(
        d(&ask(&r, "mcp__a__b", json!({}), &facts())),
        (Decision::Deny, Some("mcp__*"))
    );
    assert_eq!(
        d(&ask(&r, "Read", json!({"file_path": "/x"}), &facts())),
        (Decision::Ask, Some("*"))
    );
}

#[test]
fn path_rules() {
    let r = policy(json!({
        "deny": ["Read(./.env)", "Read(**/secrets/**)", "Read(~/.ssh/**)", "Edit(//etc/**)", "Read(**/*.pem)"],
    }));
    let read = |p: &str| ask(&r, "Read", json!({"file_path": p}), &facts());
    assert_eq!(
        d(&read("/home/dev/repo/.env")),
        (Decision::Deny, Some("Read(./.env)"))
    );
    assert_eq!(d(&read(".env")), (Decision::Deny, Some("Read(./.env)")));
    assert_eq!(
        d(&read("/home/dev/repo/a/secrets/k")),
        (Decision::Deny, Some("Read(**/secrets/**)"))
    );
    assert_eq!(
        d(&read("/home/dev/.ssh/id_rsa")),
        (Decision::Deny, Some("Read(~/.ssh/**)"))
    );
    assert_eq!(
        d(&read("/home/dev/repo/sub/../.ssh/../.env")),
        (Decision::Deny, Some("Read(./.env)"))
    );
    assert_eq!(
        d(&read("/home/dev/repo/KEY.PEM")),
        (Decision::Deny, Some("Read(**/*.pem)"))
    );
    assert_eq!(
        d(&read("/home/dev/repo/src/main.rs")),
        (Decision::Allow, None)
    );
    // A Read deny also blocks edits of the path; Edit rules cover every edit tool.
    let v = ask(
        &r,
        "Write",
        json!({"file_path": "/home/dev/repo/.env", "content": ""}),
        &facts(),
    );
    assert_eq!(d(&v), (Decision::Deny, Some("Read(./.env)")));
    let v = ask(
        &r,
        "MultiEdit",
        json!({"file_path": "/etc/hosts", "edits": []}),
        &facts(),
    );
    assert_eq!(d(&v), (Decision::Deny, Some("Edit(//etc/**)")));
    let v = ask(
        &r,
        "Grep",
        json!({"pattern": "x", "path": "/home/dev/.ssh"}),
        &facts(),
    );
    assert_eq!(d(&v), (Decision::Deny, Some("Read(~/.ssh/**)")));
    // Allow path rules: case-sensitive, every path.
    let settings = json!({"permissions": {"allow": ["Edit(/src/**)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Project, &settings)]);
    let edit = |p: &str| ask(&r, "Edit", json!({"file_path": p}), &facts());
    assert_eq!(
        d(&edit("/home/dev/repo/src/a.rs")),
        (Decision::Allow, Some("Edit(/src/**)"))
    );
    assert_eq!(d(&edit("/home/dev/repo/SRC/a.rs")), (Decision::Ask, None));
    assert_eq!(d(&edit("/home/dev/repo/lib/a.rs")), (Decision::Ask, None));
}

#[test]
fn webfetch_domains() {
    let r = policy(
        json!({"deny": ["WebFetch(domain:*.evil.com)"], "allow": ["WebFetch(domain:docs.rs)"]}),
    );
    let fetch = |u: &str| ask(&r, "WebFetch", json!({"url": u, "prompt": "p"}), &facts());
    assert_eq!(
        d(&fetch("https://a.b.EVIL.com./x")),
        (Decision::Deny, Some("WebFetch(domain:*.evil.com)"))
    );
    assert_eq!(d(&fetch("https://evil.com/x")), (Decision::Ask, None));
    assert_eq!(
        d(&fetch("https://DOCS.rs/serde")),
        (Decision::Allow, Some("WebFetch(domain:docs.rs)"))
    );
    assert_eq!(
        d(&fetch("https://docs.rs.evil.com/")),
        (Decision::Deny, Some("WebFetch(domain:*.evil.com)"))
    );
    assert_eq!(d(&fetch("not a url")), (Decision::Ask, None));
}

#[test]
fn agent_skill_and_param_rules() {
    let r = policy(
        json!({"deny": ["Agent(Explore)", "Agent(model:opus)", "Bash(run_in_background:true)"], "ask": ["Skill(deploy *)"]}),
    );
    let agent = |i: Value| ask(&r, "Agent", i, &facts());
    assert_eq!(
        d(&agent(json!({"subagent_type": "Explore", "prompt": "x"}))),
        (Decision::Deny, Some("Agent(Explore)"))
    );
    assert_eq!(
        d(&ask(
            &r,
            "Task",
            json!({"subagent_type": "explore"}),
            &facts()
        )),
        (Decision::Deny, Some("Agent(Explore)"))
    );
    assert_eq!(
        d(&agent(json!({"subagent_type": "Plan", "model": "opus"}))),
        (Decision::Deny, Some("Agent(model:opus)"))
    );
    assert_eq!(
        d(&agent(json!({"subagent_type": "Plan"}))),
        (Decision::Ask, None)
    );
    let v = ask(
        &r,
        "Bash",
        json!({"command": "ls", "run_in_background": true}),
        &facts(),
    );
    assert_eq!(
        d(&v),
        (Decision::Deny, Some("Bash(run_in_background:true)"))
    );
    let v = ask(&r, "Skill", json!({"skill": "deploy"}), &facts());
    assert_eq!(d(&v), (Decision::Ask, Some("Skill(deploy *)")));
    let v = ask(&r, "Skill", json!({"skill": "deployer"}), &facts());
    assert_eq!(d(&v), (Decision::Ask, None));
}

#[test]
fn unparseable_rules_are_never_inert() {
    let (r, w) = RuleSet::from_sources(&[(
        SettingsSource::Policy,
        &json!({"permissions": {"deny": ["Read([)", "WebFetch(https://x.com)"], "ask": ["Bash("], "allow": ["Edit(["]}}),
    )]);
    assert_eq!(w.len(), 4);
    let v = ask(
        &r,
        "Read",
        json!({"file_path": "/home/dev/repo/a"}),
        &facts(),
    );
    assert_eq!(d(&v), (Decision::Deny, Some("Read([)")));
    let v = ask(&r, "WebFetch", json!({"url": "https://ok.com"}), &facts());
    assert_eq!(d(&v), (Decision::Deny, Some("WebFetch(https://x.com)")));
    assert_eq!(d(&bash(&r, "ls")), (Decision::Ask, Some("Bash(")));
    // SPEC §4 [decision, revised]: a string that names no tool is not a rule: dropped,
    // it never denies every tool (a comment in a deny list, prose, an empty string).
    for not_a_rule in ["(oops", "// block secrets", "block every secret", "", "   "] {
        let r = policy(json!({"deny": [not_a_rule], "ask": [not_a_rule]}));
        assert_eq!(
            d(&ask(&r, "Glob", json!({"pattern": "*"}), &facts())),
            (Decision::Allow, None),
            "{not_a_rule:?}"
        );
    }
    // WebFetch(*) is bare WebFetch (Claude Code 2.1.20), in every list.
    let r = policy(json!({"deny": ["WebFetch(*)"]}));
    let v = ask(&r, "WebFetch", json!({"url": "https://ok.com"}), &facts());
    assert_eq!(d(&v), (Decision::Deny, Some("WebFetch(*)")));
    let r = policy(json!({"allow": ["WebFetch(*)"]}));
    let v = ask(&r, "WebFetch", json!({"url": "https://ok.com"}), &facts());
    assert_eq!(d(&v), (Decision::Allow, Some("WebFetch(*)")));
}

// ---------------------------------------------------------------- precedence

#[test]
fn deny_beats_ask_beats_allow_whatever_the_source() {
    let user = json!({"permissions": {"deny": ["Bash(git:*)"]}});
    let pol = json!({"permissions": {"ask": ["Bash(git push:*)"], "allow": ["Bash(git push origin main)"]}});
    let (r, _) = RuleSet::from_sources(&[
        (SettingsSource::User, &user),
        (SettingsSource::Policy, &pol),
    ]);
    let v = bash(&r, "git push origin main");
    assert_eq!(d(&v), (Decision::Deny, Some("Bash(git:*)")));
    assert_eq!(v.source.as_deref(), Some("user"));

    let pol = json!({"permissions": {"ask": ["Bash(git push:*)"]}});
    let local = json!({"permissions": {"allow": ["Bash(git push:*)"]}});
    let (r, _) = RuleSet::from_sources(&[
        (SettingsSource::Local, &local),
        (SettingsSource::Policy, &pol),
    ]);
    assert_eq!(
        d(&bash(&r, "git push")),
        (Decision::Ask, Some("Bash(git push:*)"))
    );
}

#[test]
fn naming_follows_source_order_then_file_order() {
    let mk = |rule: &str| json!({"permissions": {"deny": [rule]}});
    let (u, p, l, f, c, s, pol) = (
        mk("Bash(u:*)"),
        mk("Bash(p:*)"),
        mk("Bash(l:*)"),
        mk("Bash(f:*)"),
        mk("Bash(c:*)"),
        mk("Bash(s:*)"),
        json!({"permissions": {"deny": ["Bash(x *)", "Bash(pol:*)"]}}),
    );
    let all = [
        (SettingsSource::User, &u),
        (SettingsSource::Project, &p),
        (SettingsSource::Local, &l),
        (SettingsSource::Flag, &f),
        (SettingsSource::Cli, &c),
        (SettingsSource::Session, &s),
        (SettingsSource::Policy, &pol),
    ];
    let (r, _) = RuleSet::from_sources(&all);
    let v = bash(&r, "u; p; l; f; c; s; pol");
    assert_eq!(
        (v.rule.as_deref(), v.source.as_deref()),
        (Some("Bash(pol:*)"), Some("policy"))
    );
    let expect = [
        ("u; p; l; f; c; s", "cli"),
        ("u; p; l; f; s", "flag"),
        ("u; p; l; s", "session"),
        ("u; p; l", "local"),
        ("u; p", "project"),
        ("u", "user"),
    ];
    for (cmd, source) in expect {
        assert_eq!(bash(&r, cmd).source.as_deref(), Some(source), "{cmd}");
    }
}

#[test]
fn managed_rules_only_ignores_other_sources() {
    let user = json!({"permissions": {"allow": ["Bash(curl:*)"], "deny": ["Read"]}});
    let pol =
        json!({"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["Bash(curl:*)"]}});
    let (r, _) = RuleSet::from_sources(&[
        (SettingsSource::User, &user),
        (SettingsSource::Policy, &pol),
    ]);
    assert_eq!(
        d(&bash(&r, "curl x")),
        (Decision::Deny, Some("Bash(curl:*)"))
    );
    assert_eq!(
        d(&ask(&r, "Read", json!({"file_path": "/x"}), &facts())),
        (Decision::Allow, None)
    );
}

#[test]
fn the_held_verdict_cases() {
    // cases/held-verdict/user-settings-allow.json
    let pol = json!({"permissions": {"deny": ["Bash(curl:*)"]}});
    let user = json!({"permissions": {"allow": ["Bash(curl:*)"]}});
    let local = json!({"permissions": {"allow": ["Bash"]}});
    let (r, _) = RuleSet::from_sources(&[
        (SettingsSource::Policy, &pol),
        (SettingsSource::User, &user),
        (SettingsSource::Local, &local),
    ]);
    let v = bash(&r, "curl https://example.invalid/install.sh");
    assert_eq!(
        (d(&v), v.source.as_deref()),
        ((Decision::Deny, Some("Bash(curl:*)")), Some("policy"))
    );
    // allow-all-vs-managed-deny.json: make build is allowed by nobody here but the local Bash allow.
    assert_eq!(d(&bash(&r, "make build")), (Decision::Allow, Some("Bash")));
    let r = policy(json!({"deny": ["Bash(rm:*)"]}));
    assert_eq!(
        d(&bash(&r, "rm -rf build")),
        (Decision::Deny, Some("Bash(rm:*)"))
    );
    // subagent-loop.json
    let r = policy(json!({"ask": ["Bash", "Write"]}));
    let f = SessionFacts {
        loop_kind: Loop::Subagent,
        ..facts()
    };
    let v = ask(
        &r,
        "Write",
        json!({"file_path": "/home/dev/repo/a.txt", "content": "x"}),
        &f,
    );
    assert_eq!(d(&v), (Decision::Ask, Some("Write")));
}

// ---------------------------------------------------------------- modes

#[test]
fn default_mode() {
    let r = RuleSet::default();
    for tool in READ_ONLY_TOOLS {
        assert_eq!(
            ask(&r, tool, json!({}), &facts()).decision,
            Decision::Allow,
            "{tool}"
        );
    }
    let v = ask(
        &r,
        "Edit",
        json!({"file_path": "/home/dev/repo/a"}),
        &facts(),
    );
    assert_eq!(d(&v), (Decision::Ask, None));
    assert!(!v.names_a_cause());
    assert_eq!(
        ask(&r, "deploy_agent", json!({}), &facts()).decision,
        Decision::Ask
    );
    assert_eq!(
        d(&bash(&r, "git log --oneline | head -5")),
        (Decision::Allow, None)
    );
    assert_eq!(d(&bash(&r, "git push")), (Decision::Ask, None));
    let auto = facts_in(Mode::Auto);
    assert_eq!(
        ask(&r, "Bash", json!({"command": "make"}), &auto).decision,
        Decision::Ask
    );
    assert_eq!(
        ask(&r, "Bash", json!({"command": "ls"}), &auto).decision,
        Decision::Allow
    );
    // No command at all: asked.
    assert_eq!(ask(&r, "Bash", json!({}), &facts()).decision, Decision::Ask);
}

#[test]
fn accept_edits_mode() {
    let r = RuleSet::default();
    let f = facts_in(Mode::AcceptEdits);
    let edit = |p: &str| ask(&r, "Edit", json!({"file_path": p}), &f).decision;
    assert_eq!(edit("/home/dev/repo/src/a.rs"), Decision::Allow);
    assert_eq!(edit("src/a.rs"), Decision::Allow);
    assert_eq!(edit("/home/dev/other/a.rs"), Decision::Ask);
    assert_eq!(edit("/home/dev/repo/../other/a.rs"), Decision::Ask);
    assert_eq!(edit("/home/dev/repo/.git/config"), Decision::Ask);
    assert_eq!(edit("/home/dev/repo/.claude/settings.json"), Decision::Ask);
    assert_eq!(
        ask(
            &r,
            "Write",
            json!({"file_path": "/home/dev/repo/n.txt"}),
            &f
        )
        .decision,
        Decision::Allow
    );
    assert_eq!(
        ask(&r, "Bash", json!({"command": "echo x > notes.txt"}), &f).decision,
        Decision::Allow
    );
    assert_eq!(
        ask(&r, "Bash", json!({"command": "echo x > /etc/x"}), &f).decision,
        Decision::Ask
    );
    assert_eq!(
        ask(&r, "Bash", json!({"command": "make"}), &f).decision,
        Decision::Ask
    );
    // Deny rules still win.
    let r = policy(json!({"deny": ["Edit(./src/**)"]}));
    assert_eq!(
        ask(
            &r,
            "Edit",
            json!({"file_path": "/home/dev/repo/src/a.rs"}),
            &f
        )
        .decision,
        Decision::Deny
    );
}

#[test]
fn plan_mode_asks_for_anything_that_changes() {
    let settings = json!({"permissions": {"allow": ["Bash(make:*)", "Edit"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::User, &settings)]);
    let f = facts_in(Mode::Plan);
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "make"}), &f)),
        (Decision::Ask, None)
    );
    assert_eq!(
        d(&ask(
            &r,
            "Edit",
            json!({"file_path": "/home/dev/repo/a"}),
            &f
        )),
        (Decision::Ask, None)
    );
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "ls"}), &f)),
        (Decision::Allow, None)
    );
    assert_eq!(
        d(&ask(&r, "Read", json!({"file_path": "/x"}), &f)),
        (Decision::Allow, None)
    );
}

#[test]
fn dont_ask_mode_leaves_a_plain_ask() {
    let settings = json!({"permissions": {"allow": ["Bash(make:*)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::User, &settings)]);
    let f = SessionFacts {
        host: Host::Sdk,
        ..facts_in(Mode::DontAsk)
    };
    let v = ask(&r, "Bash", json!({"command": "curl x"}), &f);
    assert_eq!(v.decision, Decision::Ask);
    assert!(!v.names_a_cause());
    assert_eq!(outcome(&v, &f), Outcome::Refused);
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "make"}), &f)),
        (Decision::Allow, Some("Bash(make:*)"))
    );
}

#[test]
fn bypass_mode() {
    let pol = json!({"permissions": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Policy, &pol)]);
    let f = facts_in(Mode::BypassPermissions);
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "curl x"}), &f)),
        (Decision::Allow, None)
    );
    assert_eq!(
        d(&ask(&r, "Edit", json!({"file_path": "/etc/x"}), &f)),
        (Decision::Allow, None)
    );
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "rm x"}), &f)),
        (Decision::Deny, Some("Bash(rm:*)"))
    );
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "git push"}), &f)),
        (Decision::Ask, Some("Bash(git push:*)"))
    );
    // A command the parser refuses may run anything: it may meet the deny rule.
    let v = ask(&r, "Bash", json!({"command": "echo 'x"}), &f);
    assert_eq!(d(&v), (Decision::Ask, Some("Bash(rm:*)")));
    assert!(v.uncertain);
    // disableBypassPermissionsMode: behave as default.
    let pol = json!({"permissions": {"disableBypassPermissionsMode": "disable"}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Policy, &pol)]);
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "curl x"}), &f)),
        (Decision::Ask, None)
    );
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "ls"}), &f)),
        (Decision::Allow, None)
    );
}

// ---------------------------------------------------------------- hosts and outcomes

#[test]
fn host_decider() {
    let r = policy(json!({"ask": ["Bash(git push:*)"]}));
    for host in [Host::Sdk, Host::PromptTool, Host::Served, Host::Cloud] {
        for loop_kind in [Loop::Main, Loop::Subagent] {
            let f = SessionFacts {
                host,
                loop_kind,
                ..facts()
            };
            let v = ask(&r, "Bash", json!({"command": "git push"}), &f);
            assert_eq!(v.decider.as_deref(), Some("host"));
            assert_eq!(v.rule.as_deref(), Some("Bash(git push:*)"));
            assert_eq!(outcome(&v, &f), Outcome::Host);
            let v = ask(&r, "Bash", json!({"command": "make"}), &f);
            assert_eq!(
                (v.decision, v.decider.as_deref(), v.rule.as_deref()),
                (Decision::Ask, Some("host"), None)
            );
            // Allows and denies carry no decider.
            assert_eq!(ask(&r, "Bash", json!({"command": "ls"}), &f).decider, None);
        }
        let f = SessionFacts {
            host,
            loop_kind: Loop::Background,
            ..facts()
        };
        assert_eq!(
            ask(&r, "Bash", json!({"command": "make"}), &f).decider,
            None
        );
        let f = SessionFacts {
            host,
            ..facts_in(Mode::DontAsk)
        };
        assert_eq!(
            ask(&r, "Bash", json!({"command": "make"}), &f).decider,
            None
        );
    }
    assert_eq!(
        ask(&r, "Bash", json!({"command": "make"}), &facts()).decider,
        None
    );
}

/// SPEC §3.6 "What is not certain holds" and §4 "Hosts" **[decision]**: a Chrome tool's
/// ask under `dontAsk` goes on to the host where the session has one.
#[test]
fn a_chrome_tools_ask_in_dont_ask_goes_to_the_host() {
    let chrome = "mcp__claude-in-chrome__navigate";
    let input = json!({"url": "https://example.com"});
    let r = policy(json!({"ask": ["mcp__claude-in-chrome__javascript_tool"]}));
    for host in [Host::Sdk, Host::PromptTool, Host::Served, Host::Cloud] {
        for loop_kind in [Loop::Main, Loop::Subagent] {
            let f = SessionFacts {
                host,
                loop_kind,
                ..facts_in(Mode::DontAsk)
            };
            // The mode's own ask, and a rule's ask, both name the host.
            let v = ask(&r, chrome, input.clone(), &f);
            assert_eq!(
                (v.decision, v.decider.as_deref(), v.rule.as_deref()),
                (Decision::Ask, Some("host"), None),
                "{host} {loop_kind}"
            );
            assert!(v.names_a_cause());
            assert_eq!(outcome(&v, &f), Outcome::Host);
            let js = "mcp__claude-in-chrome__javascript_tool";
            let v = ask(&r, js, json!({}), &f);
            assert_eq!(
                (v.decider.as_deref(), v.rule.as_deref()),
                (Some("host"), Some(js))
            );
            assert_eq!(outcome(&v, &f), Outcome::Host);
            // Any other tool's ask in dontAsk still names nobody and is refused.
            for other in [
                "mcp__github__get_issue",
                "mcp__claude-in-chromium__x",
                "WebFetch",
            ] {
                let v = ask(&r, other, json!({"url": "https://example.com"}), &f);
                assert_eq!((v.decision, v.decider.as_deref()), (Decision::Ask, None));
                assert_eq!(outcome(&v, &f), Outcome::Refused);
            }
        }
        // A background loop: no host is asked, dontAsk refuses.
        let f = SessionFacts {
            host,
            loop_kind: Loop::Background,
            ..facts_in(Mode::DontAsk)
        };
        let v = ask(&r, chrome, input.clone(), &f);
        assert_eq!(v.decider, None);
        assert_eq!(outcome(&v, &f), Outcome::Refused);
    }
    // No host: nobody is asked.
    let f = facts_in(Mode::DontAsk);
    let v = ask(&r, chrome, input.clone(), &f);
    assert_eq!(v.decider, None);
    assert_eq!(outcome(&v, &f), Outcome::Refused);
    // The unreadable policy's ask names the host for a Chrome tool in dontAsk too.
    let f = SessionFacts {
        host: Host::Sdk,
        ..facts_in(Mode::DontAsk)
    };
    let v = decide_unreadable_policy(
        &RuleSet::default(),
        &Question {
            tool: chrome,
            input: &input,
        },
        &f,
    );
    assert_eq!(
        (v.setting.as_deref(), v.decider.as_deref()),
        (Some(MANAGED_SETTINGS), Some("host"))
    );
}

#[test]
fn outcomes() {
    let f = facts();
    assert_eq!(outcome(&Verdict::plain(Decision::Allow), &f), Outcome::Run);
    assert_eq!(
        outcome(&Verdict::plain(Decision::Deny), &f),
        Outcome::Refused
    );
    assert_eq!(outcome(&Verdict::plain(Decision::Ask), &f), Outcome::Prompt);
    let mut host = Verdict::plain(Decision::Ask);
    host.decider = Some("host".to_owned());
    assert_eq!(
        outcome(
            &host,
            &SessionFacts {
                interactive: false,
                ..facts()
            }
        ),
        Outcome::Host
    );
    assert_eq!(
        outcome(&Verdict::plain(Decision::Ask), &facts_in(Mode::DontAsk)),
        Outcome::Refused
    );
    assert_eq!(
        outcome(
            &Verdict::plain(Decision::Ask),
            &SessionFacts {
                loop_kind: Loop::Background,
                ..facts()
            }
        ),
        Outcome::Refused
    );
    assert_eq!(
        outcome(
            &Verdict::plain(Decision::Ask),
            &SessionFacts {
                interactive: false,
                ..facts()
            }
        ),
        Outcome::Refused
    );
    assert_eq!(
        serde_json::to_value(Outcome::Refused).unwrap(),
        json!("refused")
    );
    assert_eq!(Outcome::Host.as_str(), "host");
}

#[test]
fn unreadable_policy() {
    let user = json!({"permissions": {"deny": ["Bash(rm:*)"], "allow": ["Bash(make:*)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::User, &user)]);
    let q = |c: &str| json!({"command": c});
    let v = decide_unreadable_policy(
        &r,
        &Question {
            tool: "Bash",
            input: &q("rm x"),
        },
        &facts(),
    );
    assert_eq!(
        (d(&v), v.source.as_deref()),
        ((Decision::Deny, Some("Bash(rm:*)")), Some("user"))
    );
    for cmd in ["make", "ls", "curl x"] {
        let v = decide_unreadable_policy(
            &r,
            &Question {
                tool: "Bash",
                input: &q(cmd),
            },
            &facts(),
        );
        assert_eq!(
            (v.decision, v.setting.as_deref(), v.rule.as_deref()),
            (Decision::Ask, Some("managed-settings"), None)
        );
        assert!(v.reason.as_deref().unwrap_or_default().contains("policy"));
    }
    let f = SessionFacts {
        host: Host::Cloud,
        ..facts_in(Mode::BypassPermissions)
    };
    let v = decide_unreadable_policy(
        &r,
        &Question {
            tool: "Read",
            input: &json!({"file_path": "/x"}),
        },
        &f,
    );
    assert_eq!(
        (v.decision, v.decider.as_deref()),
        (Decision::Ask, Some("host"))
    );
}

#[test]
fn reasons_are_deterministic_and_say_what_decided() {
    let r = policy(json!({"deny": ["Bash(rm:*)"], "ask": ["Bash"]}));
    assert_eq!(
        bash(&r, "rm x").reason.as_deref(),
        Some("denied by the permission rule Bash(rm:*) in policy settings")
    );
    assert_eq!(
        bash(&r, "make").reason.as_deref(),
        Some("the permission rule Bash in policy settings asks before this call")
    );
    assert_eq!(bash(&r, "make"), bash(&r, "make"));
}

#[test]
fn never_panics_on_odd_input() {
    let r = policy(
        json!({"deny": ["Read(./x)", "WebFetch(domain:a.com)", "Agent(x)", "Skill(y)", "Bash(z:*)"]}),
    );
    for tool in ["Bash", "Read", "WebFetch", "Agent", "Skill", "Edit", ""] {
        for input in [
            json!(null),
            json!(1),
            json!([]),
            json!({"command": 3, "file_path": [], "url": {}}),
        ] {
            let _ = ask(&r, tool, input, &facts());
        }
    }
}

// ---------------------------------------------------------------- properties

fn arb_rule() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Bash".to_owned()),
        Just("Read".to_owned()),
        Just("*".to_owned()),
        "[a-z]{1,4}".prop_map(|p| format!("Bash({p}:*)")),
        "[a-z]{1,4}".prop_map(|p| format!("Bash({p} *)")),
        "[a-z]{1,3}".prop_map(|p| format!("Read(./{p}/**)")),
        "[a-z]{1,3}".prop_map(|p| format!("mcp__{p}")),
        "[ -~]{0,8}",
    ]
}

fn arb_command() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        "[a-z]{1,4}",
        Just("sudo".to_owned()),
        Just("ls".to_owned()),
        Just("&&".to_owned()),
        Just("|".to_owned()),
        Just(";".to_owned()),
        Just("$(".to_owned()),
        Just(")".to_owned()),
        Just("'".to_owned()),
        Just("\"".to_owned()),
        Just("> f".to_owned()),
        Just("/bin/rm".to_owned()),
        Just("FOO=1".to_owned()),
    ];
    proptest::collection::vec(word, 0..8).prop_map(|w| w.join(" "))
}

fn arb_question() -> impl Strategy<Value = (String, Value)> {
    prop_oneof![
        arb_command().prop_map(|c| ("Bash".to_owned(), json!({ "command": c }))),
        "[a-z./]{0,12}".prop_map(|p| ("Read".to_owned(), json!({ "file_path": p }))),
        "[a-z./]{0,12}".prop_map(|p| ("Edit".to_owned(), json!({ "file_path": p }))),
        "[a-z]{1,3}".prop_map(|s| (format!("mcp__{s}__t"), json!({}))),
    ]
}

fn arb_mode() -> impl Strategy<Value = Mode> {
    proptest::sample::select(Mode::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Adding a deny rule never loosens a verdict: deny stays deny, ask never becomes allow.
    #[test]
    fn adding_a_deny_rule_never_loosens(
        rules in proptest::collection::vec((0usize..3, arb_rule()), 0..6),
        extra in arb_rule(),
        (tool, input) in arb_question(),
        mode in arb_mode(),
    ) {
        let lists = |with_extra: bool| {
            let mut deny: Vec<String> = rules.iter().filter(|(k, _)| *k == 0).map(|(_, r)| r.clone()).collect();
            let ask: Vec<String> = rules.iter().filter(|(k, _)| *k == 1).map(|(_, r)| r.clone()).collect();
            let allow: Vec<String> = rules.iter().filter(|(k, _)| *k == 2).map(|(_, r)| r.clone()).collect();
            if with_extra { deny.push(extra.clone()); }
            json!({"permissions": {"deny": deny, "ask": ask, "allow": allow}})
        };
        let f = facts_in(mode);
        let before_s = lists(false);
        let after_s = lists(true);
        let (before, _) = RuleSet::from_sources(&[(SettingsSource::User, &before_s)]);
        let (after, _) = RuleSet::from_sources(&[(SettingsSource::User, &after_s)]);
        let q = Question { tool: &tool, input: &input };
        let b = decide(&before, &q, &f);
        let a = decide(&after, &q, &f);
        prop_assert!(a.decision >= b.decision, "{:?} -> {:?}", b, a);
    }

    /// A deny or ask rule that matches a command keeps matching when the command is
    /// chained after another one; no command that does not split is allowed, nor one
    /// that may run any program while a `Bash` deny rule stands (SPEC §4 "What the
    /// core cannot see").
    #[test]
    fn chaining_never_escapes_a_deny(cmd in arb_command(), prefix in "[a-z]{1,4}") {
        let r = policy(json!({"deny": ["Bash(rm:*)"], "allow": ["Bash"]}));
        let alone = bash(&r, &cmd);
        let chained = bash(&r, &format!("{prefix} && {cmd}"));
        if alone.decision == Decision::Deny {
            prop_assert_eq!(chained.decision, Decision::Deny);
        }
        let parsed = crate::bash::parse_command(&cmd);
        if !parsed.parsed || parsed.parts.iter().any(|p| p.runs_anything) {
            prop_assert_ne!(alone.decision, Decision::Allow);
        }
    }

    /// The splitter never panics, whatever the text.
    #[test]
    fn splitting_never_panics(s in "\\PC{0,40}") {
        let _ = crate::bash::parse_command(&s);
    }
}

// ---------------------------------------------------------------- shared cases (../shared/cases/permissions)

#[test]
fn case_compound_commands() {
    let r = policy(json!({"deny": ["Bash(rm:*)"], "allow": ["Bash(git:*)"]}));
    for cmd in [
        "git status && rm -rf important/",
        "git status; rm -rf important/",
        "git status || rm -rf important/",
        "git log | rm -rf important/",
        "echo $(rm -rf important/)",
        "(cd sub && rm -rf important/)",
        "FOO=1 rm -rf important/",
        "timeout 5 rm -rf important/",
    ] {
        assert_eq!(
            d(&bash(&r, cmd)),
            (Decision::Deny, Some("Bash(rm:*)")),
            "{cmd}"
        );
    }
    assert_eq!(d(&bash(&r, "git status && make")), (Decision::Ask, None));
    assert_eq!(
        d(&bash(&r, "git status")),
        (Decision::Allow, Some("Bash(git:*)"))
    );
}

#[test]
fn case_symlink() {
    let dir = std::env::temp_dir().join(format!("perm-symlink-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.join("notes.txt")).unwrap();
    let f = SessionFacts::new(&dir, "/home/dev");
    let r = policy(json!({"deny": ["Read(//etc/passwd)"]}));
    let path = dir.join("notes.txt").to_string_lossy().into_owned();
    let v = ask(&r, "Read", json!({ "file_path": path }), &f);
    assert_eq!(d(&v), (Decision::Deny, Some("Read(//etc/passwd)")));
    // Through the shell, and through a symlinked directory, too.
    let v = ask(&r, "Bash", json!({"command": "cat notes.txt"}), &f);
    assert_eq!(d(&v), (Decision::Deny, Some("Read(//etc/passwd)")));
    std::os::unix::fs::symlink("/etc", dir.join("conf")).unwrap();
    let v = ask(&r, "Read", json!({"file_path": "conf/passwd"}), &f);
    assert_eq!(d(&v), (Decision::Deny, Some("Read(//etc/passwd)")));
    // An allow needs both the link and its target.
    let settings = json!({"permissions": {"allow": ["Edit(./**)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Project, &settings)]);
    let v = ask(&r, "Edit", json!({"file_path": "notes.txt"}), &f);
    assert_eq!(d(&v), (Decision::Ask, None));
    std::fs::write(dir.join("plain.txt"), "x").unwrap();
    let v = ask(&r, "Edit", json!({"file_path": "plain.txt"}), &f);
    assert_eq!(d(&v), (Decision::Allow, Some("Edit(./**)")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn case_unicode_normalization() {
    let r = policy(json!({"deny": ["Read(secrets/caf\u{e9}.env)"]}));
    for p in [
        "/home/dev/repo/secrets/cafe\u{301}.env",
        "/home/dev/repo/secrets/caf\u{e9}.env",
        "/home/dev/repo/SECRETS/CAF\u{c9}.env",
    ] {
        let v = ask(&r, "Read", json!({ "file_path": p }), &facts());
        assert_eq!(
            d(&v),
            (Decision::Deny, Some("Read(secrets/caf\u{e9}.env)")),
            "{p}"
        );
    }
    let r = policy(json!({"deny": ["Read(secrets/cafe\u{301}.env)"]}));
    let v = ask(
        &r,
        "Bash",
        json!({"command": "cat secrets/caf\u{e9}.env"}),
        &facts(),
    );
    assert_eq!(v.decision, Decision::Deny);
}

#[test]
fn case_unparseable_deny() {
    let (r, w) = RuleSet::from_sources(&[(
        SettingsSource::Policy,
        &json!({"permissions": {"deny": ["Bash(rm -rf"]}}),
    )]);
    assert_eq!(w.len(), 1);
    assert_eq!(w.first().unwrap().pointer, "/permissions/deny/0");
    for cmd in ["ls -la", "git status", "echo hi"] {
        assert_eq!(
            d(&bash(&r, cmd)),
            (Decision::Deny, Some("Bash(rm -rf")),
            "{cmd}"
        );
    }
    // An ask rule that does not parse asks for its whole tool.
    let r = policy(json!({"ask": ["Read(["]}));
    assert_eq!(
        d(&ask(&r, "Read", json!({"file_path": "/x"}), &facts())),
        (Decision::Ask, Some("Read(["))
    );
}

// ---------------------------------------------------------------- shell files, paths, modes

#[test]
fn read_deny_meets_the_shells_file_commands() {
    let r = policy(json!({"deny": ["Read(./.env)", "Read(~/.ssh/**)", "Edit(//etc/**)"]}));
    for cmd in [
        "cat .env",
        "head -n 5 .env",
        "grep -r password .env",
        "sed -n 1p .env",
        "awk '{print}' .env",
        "jq . .env",
        "sort < .env",
        "cd sub && cat ../.env",
        "cd /tmp; cat /home/dev/repo/.env",
        "sudo cat ~/.ssh/id_rsa",
        "cat $HOME/.ssh/id_rsa",
        "bash -c 'tail ~/.ssh/config'",
        "cp ~/.ssh/id_rsa /tmp/x",
        "tee /etc/hosts < x",
        "echo x > /etc/hosts",
        "rm -rf /etc/ssh",
        "xargs cat .env",
        "cat .ENV",
        "find ~/.ssh -name '*'",
    ] {
        assert_eq!(bash(&r, cmd).decision, Decision::Deny, "{cmd}");
    }
    for cmd in [
        "cat README.md",
        "grep .env README.md",
        "echo .env",
        "cat /etc/hosts",
    ] {
        assert_ne!(bash(&r, cmd).decision, Decision::Deny, "{cmd}");
    }
}

#[test]
fn windows_paths_are_posix() {
    let r = policy(json!({"deny": ["Read(//c/Users/**/.env)"]}));
    let v = ask(
        &r,
        "Read",
        json!({"file_path": "C:\\Users\\a\\.env"}),
        &facts(),
    );
    assert_eq!(v.decision, Decision::Deny);
    let r = policy(json!({"deny": ["Read(./secrets/**)"]}));
    let v = ask(&r, "Read", json!({"file_path": "secrets\\key"}), &facts());
    assert_eq!(v.decision, Decision::Deny);
}

#[test]
fn protected_paths_are_never_auto_approved() {
    let settings = json!({"permissions": {"allow": ["Edit", "Bash(echo *)", "Bash(tee *)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::User, &settings)]);
    for mode in [Mode::Default, Mode::AcceptEdits, Mode::BypassPermissions] {
        let f = facts_in(mode);
        let v = ask(
            &r,
            "Edit",
            json!({"file_path": "/home/dev/repo/.git/config"}),
            &f,
        );
        assert_eq!(v.decision, Decision::Ask, "{mode}");
        let v = ask(&r, "Bash", json!({"command": "echo x >> ~/.bashrc"}), &f);
        assert_eq!(v.decision, Decision::Ask, "{mode}");
        let v = ask(
            &r,
            "Bash",
            json!({"command": "tee .claude/settings.json"}),
            &f,
        );
        assert_eq!(v.decision, Decision::Ask, "{mode}");
    }
    let v = ask(
        &r,
        "Edit",
        json!({"file_path": "/home/dev/repo/src/a.rs"}),
        &facts(),
    );
    assert_eq!(d(&v), (Decision::Allow, Some("Edit")));
}

#[test]
fn accept_edits_accepts_common_file_commands_inside() {
    let r = RuleSet::default();
    let f = facts_in(Mode::AcceptEdits);
    for cmd in [
        "mkdir -p build/out",
        "touch a.txt",
        "cp a b",
        "mv a b && ls",
    ] {
        assert_eq!(
            ask(&r, "Bash", json!({ "command": cmd }), &f).decision,
            Decision::Allow,
            "{cmd}"
        );
    }
    for cmd in ["touch /etc/x", "cp a ../../x", "mv a .git/x", "rm a"] {
        assert_eq!(
            ask(&r, "Bash", json!({ "command": cmd }), &f).decision,
            Decision::Ask,
            "{cmd}"
        );
    }
}

#[test]
fn auto_and_bypass_can_be_disabled() {
    let pol = json!({"disableAutoMode": "disable", "permissions": {"disableBypassPermissionsMode": "disable"}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Policy, &pol)]);
    assert_eq!(r.effective_mode(Mode::Auto), Mode::Default);
    assert_eq!(r.effective_mode(Mode::BypassPermissions), Mode::Default);
    assert_eq!(r.effective_mode(Mode::Plan), Mode::Plan);
    let v = ask(
        &r,
        "Bash",
        json!({"command": "make"}),
        &facts_in(Mode::BypassPermissions),
    );
    assert_eq!(v.decision, Decision::Ask);
}

#[test]
fn the_read_block() {
    let pol = json!({"permissions": {"blockReadsOutsideWorkingDirectories": true, "additionalDirectories": ["../docs", "~/shared"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Policy, &pol)]);
    assert!(r.blocks_reads_outside());
    let read = |p: &str| ask(&r, "Read", json!({ "file_path": p }), &facts());
    let v = read("/etc/hosts");
    assert_eq!(
        (v.decision, v.setting.as_deref()),
        (Decision::Deny, Some(BLOCK_READS_SETTING))
    );
    assert_eq!(read("/home/dev/repo/a").decision, Decision::Allow);
    assert_eq!(read("/home/dev/docs/a").decision, Decision::Allow);
    assert_eq!(read("/home/dev/shared/a").decision, Decision::Allow);
    assert_eq!(read("/home/dev/repo/../secret").decision, Decision::Deny);
    for cmd in [
        "cat /etc/hosts",
        "cd / && cat etc/hosts",
        "cat $F",
        "grep x ~/.bashrc",
    ] {
        let v = bash(&r, cmd);
        assert_eq!(
            (v.decision, v.setting.as_deref()),
            (Decision::Ask, Some(BLOCK_READS_SETTING)),
            "{cmd}"
        );
    }
    assert_eq!(bash(&r, "cat a.txt").decision, Decision::Allow);
    let v = ask(
        &r,
        "Bash",
        json!({"command": "ls", "dangerouslyDisableSandbox": true}),
        &facts(),
    );
    assert_eq!(v.setting.as_deref(), Some(BLOCK_READS_SETTING));
    // Deny rules still come first.
    let pol = json!({"permissions": {"blockReadsOutsideWorkingDirectories": true, "deny": ["Read(//etc/**)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Policy, &pol)]);
    assert_eq!(
        d(&ask(&r, "Read", json!({"file_path": "/etc/x"}), &facts())),
        (Decision::Deny, Some("Read(//etc/**)"))
    );
}

#[test]
fn warnings_for_rules_that_never_apply() {
    let s = json!({"permissions": {"deny": ["Bash", "Wirte(x)", "Write(./a)"], "allow": ["Bash(ls *)", "Glob(./src/**)"]}});
    let (_, w) = RuleSet::from_sources(&[(SettingsSource::Project, &s)]);
    let pointers: Vec<_> = w.iter().map(|w| w.pointer.as_str()).collect();
    assert!(pointers.contains(&"/permissions/allow/0"), "{w:?}");
    assert!(pointers.contains(&"/permissions/allow/1"), "{w:?}");
    assert!(pointers.contains(&"/permissions/deny/2"), "{w:?}");
    assert!(w.iter().all(|w| w.source == SettingsSource::Project));
}

// ---------------------------------------------------------------- the reference model

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

fn ref_rule() -> impl Strategy<Value = String> {
    let word = proptest::sample::select(vec!["ls", "rm", "git", "cat", "echo", "make", "x"]);
    let dir = proptest::sample::select(vec!["src", "out", ".git", "secrets"]);
    prop_oneof![
        Just("Bash".to_owned()),
        Just("Bash(*)".to_owned()),
        Just("Read".to_owned()),
        Just("Edit".to_owned()),
        Just("*".to_owned()),
        word.clone().prop_map(|w| format!("Bash({w}:*)")),
        word.clone().prop_map(|w| format!("Bash({w} *)")),
        word.clone().prop_map(|w| format!("Bash({w})")),
        (word.clone(), word).prop_map(|(a, b)| format!("Bash({a} {b} *)")),
        dir.clone().prop_map(|d| format!("Read(./{d}/**)")),
        dir.clone().prop_map(|d| format!("Edit(./{d}/**)")),
        dir.prop_map(|d| format!("Edit({d}/**)")),
        Just("Read(//etc/**)".to_owned()),
        Just("Read(~/x/**)".to_owned()),
        Just("Edit(/src/**)".to_owned()),
        Just("Read(**/*.RS)".to_owned()),
        Just("Read(src)".to_owned()),
        Just("Edit(./out/x)".to_owned()),
        Just("Bash(* a)".to_owned()),
        Just("Bash(ca*)".to_owned()),
        Just("Bash(sudo rm *)".to_owned()),
        Just("Bash(find . *)".to_owned()),
        Just("Bash(setsid:*)".to_owned()),
        Just("Bash(RM -rf *)".to_owned()),
        Just("mcp__s".to_owned()),
        Just("mcp__s__*".to_owned()),
        Just("mcp__s__t".to_owned()),
        Just("Bash(rm -rf".to_owned()),
        Just("Read([)".to_owned()),
    ]
}

fn ref_simple() -> impl Strategy<Value = String> {
    let program = proptest::sample::select(vec![
        "ls",
        "rm",
        "git",
        "cat",
        "echo",
        "make",
        "x",
        "sudo rm",
        "FOO=1 rm",
        "/bin/rm",
        "timeout 5 make",
        "env cat",
        "xargs rm",
        "git status",
        "bash -c 'rm y'",
        "setsid make",
        "find . -delete",
        "RM",
        "$X",
        "echo x | sh",
    ]);
    let arg = proptest::sample::select(vec![
        "",
        " a",
        " src/a",
        " secrets/k",
        " .git/config",
        " /etc/passwd",
        " -rf out",
        " > out/f",
        " > src/f",
        " 2>&1",
        " >/dev/null",
        " $X",
        " $(echo y)",
        " 'q w'",
    ]);
    (program, arg).prop_map(|(p, a)| format!("{p}{a}"))
}

fn ref_command() -> impl Strategy<Value = String> {
    let sep = proptest::sample::select(vec![" && ", " || ", "; ", " | ", "\n", " & "]);
    prop_oneof![
        ref_simple(),
        (ref_simple(), sep, ref_simple()).prop_map(|(a, s, b)| format!("{a}{s}{b}")),
        ref_simple().prop_map(|a| format!("({a})")),
        ref_simple().prop_map(|a| format!("{a} 'unbalanced")),
    ]
}

fn ref_question() -> impl Strategy<Value = (String, Value)> {
    let path = proptest::sample::select(vec![
        "src/a.rs",
        "out/x",
        ".git/config",
        "secrets/k",
        "/etc/passwd",
        "/home/dev/x",
        "a",
        "SRC/a.rs",
        "sub/../secrets/k",
        "/home/dev/.claude/src/a",
        "/src/x",
        "~/x/k",
        "src",
        "out",
        "/home/dev/repo",
        "lib/a.rs",
    ]);
    prop_oneof![
        ref_command().prop_map(|c| ("Bash".to_owned(), json!({ "command": c }))),
        path.clone()
            .prop_map(|p| ("Read".to_owned(), json!({ "file_path": p }))),
        path.clone()
            .prop_map(|p| ("Edit".to_owned(), json!({ "file_path": p }))),
        path.prop_map(|p| ("Write".to_owned(), json!({ "file_path": p }))),
        proptest::sample::select(vec!["mcp__s__t", "mcp__s__u", "mcp__r__t"])
            .prop_map(|t| (t.to_owned(), json!({}))),
    ]
}

type Lists = (Vec<String>, Vec<String>, Vec<String>);

fn ref_lists() -> impl Strategy<Value = Lists> {
    let l = || proptest::collection::vec(ref_rule(), 0..3);
    (l(), l(), l())
}

fn settings_of((deny, ask, allow): &Lists) -> Value {
    json!({"permissions": {"deny": deny, "ask": ask, "allow": allow}})
}

fn real(
    sources: &[(SettingsSource, &Value)],
    tool: &str,
    input: &Value,
    f: &SessionFacts,
) -> Verdict {
    let (rules, _) = RuleSet::from_sources(sources);
    decide(&rules, &Question { tool, input }, f)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// The real evaluator answers as the reference model does: the same decision,
    /// naming the same rule.
    #[test]
    fn decide_agrees_with_the_reference_model(
        user in ref_lists(),
        project in ref_lists(),
        pol in ref_lists(),
        managed_only in proptest::bool::weighted(0.1),
        (tool, input) in ref_question(),
        mode in arb_mode(),
    ) {
        let u = settings_of(&user);
        let p = settings_of(&project);
        let mut po = settings_of(&pol);
        if managed_only {
            po["allowManagedPermissionRulesOnly"] = json!(true);
        }
        let sources = [
            (SettingsSource::User, &u),
            (SettingsSource::Project, &p),
            (SettingsSource::Policy, &po),
        ];
        let f = facts_in(mode);
        let v = real(&sources, &tool, &input, &f);
        let (decision, rule) = crate::reference::reference_decide(&sources, &tool, &input, &f);
        prop_assert_eq!((v.decision, v.rule.clone()), (decision, rule), "{} {}", tool, input);
    }
}

proptest! {
    // The metamorphic properties (issue #4 items 4-6): 10,000 cases each, as required.
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Adding a deny rule never loosens; adding an allow rule never lifts a deny, nor
    /// an ask a rule made.
    #[test]
    fn adding_rules_never_loosens_a_rule_verdict(
        lists in ref_lists(),
        extra in ref_rule(),
        (tool, input) in ref_question(),
        mode in arb_mode(),
    ) {
        let f = facts_in(mode);
        let before_s = settings_of(&lists);
        let before = real(&[(SettingsSource::Project, &before_s)], &tool, &input, &f);
        let mut with_deny = lists.clone();
        with_deny.0.push(extra.clone());
        let s = settings_of(&with_deny);
        let after = real(&[(SettingsSource::Project, &s)], &tool, &input, &f);
        prop_assert!(after.decision >= before.decision, "{:?} -> {:?}", before, after);
        let mut with_allow = lists.clone();
        with_allow.2.push(extra);
        let s = settings_of(&with_allow);
        let after = real(&[(SettingsSource::Project, &s)], &tool, &input, &f);
        if before.decision == Decision::Deny || (before.decision == Decision::Ask && before.names_a_cause()) {
            prop_assert_eq!((after.decision, after.rule), (before.decision, before.rule));
        }
    }

    /// The order of the rules within a source never changes the decision.
    #[test]
    fn rule_order_within_a_source_never_matters(
        lists in ref_lists(),
        (tool, input) in ref_question(),
        mode in arb_mode(),
    ) {
        let f = facts_in(mode);
        let s = settings_of(&lists);
        let a = real(&[(SettingsSource::Local, &s)], &tool, &input, &f);
        let (mut d, mut k, mut l) = lists;
        d.reverse();
        k.reverse();
        l.reverse();
        let s = settings_of(&(d, k, l));
        let b = real(&[(SettingsSource::Local, &s)], &tool, &input, &f);
        prop_assert_eq!(a.decision, b.decision);
    }

    /// A compound command is at least as strict as the strictest of its parts.
    #[test]
    fn a_compound_is_the_strictest_of_its_parts(
        lists in ref_lists(),
        a in ref_simple(),
        b in ref_simple(),
        sep in proptest::sample::select(vec![" && ", " || ", "; ", " | ", "\n"]),
        mode in arb_mode(),
    ) {
        let f = facts_in(mode);
        let s = settings_of(&lists);
        let src = [(SettingsSource::User, &s)];
        let one = |c: &str| real(&src, "Bash", &json!({ "command": c }), &f).decision;
        let both = one(&format!("{a}{sep}{b}"));
        prop_assert!(both >= one(&a).max(one(&b)), "{a:?} {sep:?} {b:?}");
    }
}

// ---------------------------------------------------------------- the bypass corpus's families

#[test]
fn a_program_known_only_at_run_time_is_never_allowed() {
    let pol = json!({"permissions": {"deny": ["Bash(rm:*)"]}});
    let user = json!({"permissions": {"allow": ["Bash(*)"]}});
    let (r, _) = RuleSet::from_sources(&[
        (SettingsSource::User, &user),
        (SettingsSource::Policy, &pol),
    ]);
    for cmd in [
        "X=rm; $X -rf build",
        "f=rm; \"$f\" -rf build",
        "$(echo rm) -rf build",
        "`printf rm` -rf build",
        "${CMD:-rm} -rf build",
        "r${EMPTY}m -rf build",
        "{rm,-rf,build}",
        "./r? -rf build",
        "./r[m] -rf build",
        "rm${IFS}-rf${IFS}build",
        "eval 'rm -rf build'",
        "echo cm0gLXJmIGJ1aWxk | base64 -d | sh",
        "bash -s <<< 'rm -rf build'",
        "bash <<< 'ls'",
        "sh <<EOF\nls\nEOF",
        ". <(echo 'rm -rf build')",
        "source $F",
        "echo 'rm -rf build' | xargs -I{} sh -c '{}'",
        "echo x | xargs sh -c",
        "sudo $X",
    ] {
        for mode in [Mode::Default, Mode::BypassPermissions, Mode::AcceptEdits] {
            let v = ask(&r, "Bash", json!({ "command": cmd }), &facts_in(mode));
            assert_ne!(v.decision, Decision::Allow, "{cmd} in {mode:?}");
        }
    }
    // Where the visible text meets a deny rule, it is still denied.
    for cmd in [
        "eval 'rm -rf build'",
        "bash -s <<< 'rm -rf build'",
        "sh <<EOF\nrm -rf build\nEOF",
        "rm${IFS}-rf${IFS}build",
        "flock /tmp/lock -c 'rm -rf build'",
        "busybox rm -rf build",
        "( (rm -rf build) )",
        "rm\\ -rf build",
    ] {
        assert_eq!(
            d(&ask(&r, "Bash", json!({ "command": cmd }), &facts())),
            (Decision::Deny, Some("Bash(rm:*)")),
            "{cmd}"
        );
    }
    // A static program is still allowed: expansions in arguments are fine.
    for cmd in ["ls $X", "echo $(pwd)", "sh script.sh", "bash --version"] {
        assert_eq!(
            d(&ask(&r, "Bash", json!({ "command": cmd }), &facts())),
            (Decision::Allow, Some("Bash(*)")),
            "{cmd}"
        );
    }
    // A sourced file, inline code: what runs is unknown, so the deny rule may meet it
    // (SPEC §4 "What the core cannot see"), whatever `Bash(*)` says.
    for cmd in ["source ./env.sh", "python3 -c 'print(1)'", "X=$(cat f); $X"] {
        let v = ask(&r, "Bash", json!({ "command": cmd }), &facts());
        assert_eq!(d(&v), (Decision::Ask, Some("Bash(rm:*)")), "{cmd}");
        assert!(v.uncertain, "{cmd}");
    }
}

#[test]
fn a_prefix_allow_never_covers_a_wrapper_by_its_own_name() {
    let r = policy(json!({"allow": [
        "Bash(watch:*)", "Bash(setsid:*)", "Bash(ionice:*)", "Bash(flock:*)", "Bash(find:*)",
        "Bash(timeout:*)", "Bash(sudo apt update)", "Bash(sudo npm test *)"
    ]}));
    for cmd in [
        "watch -n 5 make deploy",
        "setsid make deploy",
        "ionice -c3 make deploy",
        "flock /tmp/lock make deploy",
        "timeout 5 make deploy",
        "find . -name '*.sh' -exec sh {} \\;",
        "find . -name '*.log' -delete",
        "sudo apt upgrade",
        "sudo npm testx",
        "timeout 5 ls",
    ] {
        assert_eq!(d(&bash(&r, cmd)), (Decision::Ask, None), "{cmd}");
    }
    for (cmd, rule) in [
        ("find . -name '*.rs'", "Bash(find:*)"),
        ("sudo apt update", "Bash(sudo apt update)"),
        ("sudo npm test -- --watch", "Bash(sudo npm test *)"),
    ] {
        assert_eq!(d(&bash(&r, cmd)), (Decision::Allow, Some(rule)), "{cmd}");
    }
    // A rule for the wrapped command covers it past a harmless wrapper.
    let r = policy(json!({"allow": ["Bash(make deploy)"]}));
    assert_eq!(
        d(&bash(&r, "timeout 5 make deploy")),
        (Decision::Allow, Some("Bash(make deploy)"))
    );
    assert_eq!(d(&bash(&r, "setsid make deploy")), (Decision::Ask, None));
}

#[test]
fn an_rm_of_a_critical_path_is_never_auto_approved() {
    let r = policy(json!({"allow": ["Bash(rm:*)"]}));
    for mode in [Mode::BypassPermissions, Mode::Default, Mode::AcceptEdits] {
        let f = facts_in(mode);
        for cmd in [
            "rm -rf /",
            "rm -rf ~",
            "rm -rf /*",
            "rm -rf ~/",
            "rm -rf $HOME",
            "rm -rf /etc",
            "rm -rf ..",
            "sudo rm -rf /usr",
            "rmdir /home",
        ] {
            let v = ask(&r, "Bash", json!({ "command": cmd }), &f);
            assert_eq!(d(&v), (Decision::Ask, None), "{cmd} in {mode:?}");
        }
        let v = ask(&r, "Bash", json!({"command": "rm -rf build"}), &f);
        assert_eq!(v.decision, Decision::Allow, "{mode:?}");
    }
}

#[test]
fn the_file_reading_commands_of_spec_4_meet_read_rules() {
    let r = policy(json!({"deny": ["Read(~/.ssh/**)"]}));
    for cmd in [
        "cat -n ~/.ssh/id_rsa",
        "head -n 5 ~/.ssh/id_rsa",
        "tail -F ~/.ssh/id_rsa",
        "less -N ~/.ssh/id_rsa",
        "more +3 ~/.ssh/id_rsa",
        "grep -T key ~/.ssh/id_rsa",
        "egrep key ~/.ssh/id_rsa",
        "fgrep key ~/.ssh/id_rsa",
        "rg -E utf8 key ~/.ssh/id_rsa",
        "sed -n 1p ~/.ssh/id_rsa",
        "awk '{print}' ~/.ssh/id_rsa",
        "cut -d: -f1 ~/.ssh/id_rsa",
        "sort -u ~/.ssh/id_rsa",
        "uniq -c ~/.ssh/id_rsa",
        "wc -l ~/.ssh/id_rsa",
        "diff -u a ~/.ssh/id_rsa",
        "cmp -l a ~/.ssh/id_rsa",
        "file -b ~/.ssh/id_rsa",
        "stat -t ~/.ssh/id_rsa",
        "strings -a ~/.ssh/id_rsa",
        "xxd -C ~/.ssh/id_rsa",
        "od -c ~/.ssh/id_rsa",
        "hexdump -C ~/.ssh/id_rsa",
        "base64 -d ~/.ssh/id_rsa",
        "nl -ba ~/.ssh/id_rsa",
        "tac -r ~/.ssh/id_rsa",
        "jq . ~/.ssh/id_rsa",
    ] {
        assert_eq!(
            d(&bash(&r, cmd)),
            (Decision::Deny, Some("Read(~/.ssh/**)")),
            "{cmd}"
        );
    }
}

#[test]
fn hosts_are_read_as_a_url_parser_reads_them() {
    let r = policy(json!({
        "deny": ["WebFetch(domain:evil.example.com)", "WebFetch(domain:bücher.example)",
                 "WebFetch(domain:*.xn--caf-dma.example)"],
        "allow": ["WebFetch(domain:good.example)"]
    }));
    let fetch = |u: &str| {
        let v = ask(&r, "WebFetch", json!({"url": u, "prompt": "p"}), &facts());
        (v.decision, v.rule)
    };
    for u in [
        "https://%65vil.example.com/",
        "https://evil.exa\tmple.com/",
        "https://evil.example.com%2e/",
        "https://evil\u{ff0e}example\u{ff0e}com/",
        "https://evil\u{3002}example\u{3002}com/",
        "https://EVIL.example.com./",
        "evil.example.com/x",
    ] {
        assert_eq!(
            fetch(u),
            (
                Decision::Deny,
                Some("WebFetch(domain:evil.example.com)".to_owned())
            ),
            "{u}"
        );
    }
    assert_eq!(
        fetch("https://xn--bcher-kva.example/"),
        (
            Decision::Deny,
            Some("WebFetch(domain:bücher.example)".to_owned())
        )
    );
    assert_eq!(
        fetch("https://BÜCHER.example/"),
        (
            Decision::Deny,
            Some("WebFetch(domain:bücher.example)".to_owned())
        )
    );
    assert_eq!(
        fetch("https://a.café.example/"),
        (
            Decision::Deny,
            Some("WebFetch(domain:*.xn--caf-dma.example)".to_owned())
        )
    );
    assert_eq!(
        fetch("https://good.example/x"),
        (
            Decision::Allow,
            Some("WebFetch(domain:good.example)".to_owned())
        )
    );
    // Every reading must be allowed: a host the lexical reading sees otherwise is asked.
    assert_eq!(fetch("https://%67ood.example/"), (Decision::Ask, None));
    assert_eq!(fetch("https://[::1/"), (Decision::Ask, None));
}

#[test]
fn a_dangling_link_is_met_by_its_target() {
    let dir = std::env::temp_dir().join(format!("perm-dangling-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(
        "/etc/sec-default-does-not-exist.conf",
        dir.join("future.conf"),
    )
    .unwrap();
    std::os::unix::fs::symlink("future.conf", dir.join("hop")).unwrap();
    let f = SessionFacts::new(&dir, "/home/dev");
    let r = policy(json!({"deny": ["Edit(//etc/**)"], "allow": ["Edit(./**)"]}));
    for p in ["future.conf", "hop"] {
        let path = dir.join(p).to_string_lossy().into_owned();
        let v = ask(
            &r,
            "Write",
            json!({ "file_path": path, "content": "x" }),
            &f,
        );
        assert_eq!(d(&v), (Decision::Deny, Some("Edit(//etc/**)")), "{p}");
        let v = ask(
            &r,
            "Bash",
            json!({ "command": format!("echo x > {p}") }),
            &f,
        );
        assert_eq!(d(&v), (Decision::Deny, Some("Edit(//etc/**)")), "{p}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Found by fuzzing (crates/fuzzing, shell_split): the shell parser backtracks
/// exponentially on runs of unclosed `(`; such a command is not parsed at all, and so is
/// never allowed (SPEC §4), while deny rules still meet its visible parts.
#[test]
fn deeply_nested_parens_are_not_parsed_and_never_allowed() {
    let rules = policy(json!({"allow": ["Bash"], "deny": ["Bash(rm:*)"]}));
    let dos = format!("( (ls w{}e", "(".repeat(24));
    assert_eq!(bash(&rules, &dos).decision, Decision::Ask);
    let with_rm = format!("rm -rf / ; ( (ls w{}e", "(".repeat(24));
    assert_eq!(bash(&rules, &with_rm).decision, Decision::Deny);
}
