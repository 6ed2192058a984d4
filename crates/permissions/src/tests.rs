//! Decide-level tests: rule forms, precedence, modes, hosts, outcomes (SPEC §1.6, §2.1, §4).

use crate::*;
use fnhooks::{Decision, Verdict};
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
        (Decision::Allow, Some("Edit(./out/**)"))
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
    // A deny rule with no readable tool name denies every tool.
    let r = policy(json!({"deny": ["(oops"]}));
    assert_eq!(
        d(&ask(&r, "Glob", json!({"pattern": "*"}), &facts())),
        (Decision::Deny, Some("(oops"))
    );
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
    assert_eq!(
        d(&ask(&r, "Bash", json!({"command": "echo 'x"}), &f)),
        (Decision::Ask, None)
    );
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
    /// chained after another one, and no command that does not split is allowed.
    #[test]
    fn chaining_never_escapes_a_deny(cmd in arb_command(), prefix in "[a-z]{1,4}") {
        let r = policy(json!({"deny": ["Bash(rm:*)"], "allow": ["Bash"]}));
        let alone = bash(&r, &cmd);
        let chained = bash(&r, &format!("{prefix} && {cmd}"));
        if alone.decision == Decision::Deny {
            prop_assert_eq!(chained.decision, Decision::Deny);
        }
        if !crate::bash::parse_command(&cmd).certain {
            prop_assert_ne!(alone.decision, Decision::Allow);
        }
    }

    /// The splitter never panics, whatever the text.
    #[test]
    fn splitting_never_panics(s in "\\PC{0,40}") {
        let _ = crate::bash::parse_command(&s);
    }
}
