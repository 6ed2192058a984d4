//! Rule forms.

use super::*;
use pretty_assertions::assert_eq;

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

/// SPEC §4 "What the core cannot see, it never lets through": a file tool whose path
/// cannot be read from its input (a string input, a path that is no string, no path) is
/// never allowed, in any mode; where a deny or ask rule of its kind exists, the ask
/// carries it, uncertain, so it holds over a person's plugin. Found by replaying
/// hostile transcripts: `Read("~/.ssh/id_rsa")` was allowed as "Read only reads".
#[test]
fn a_file_tool_whose_path_cannot_be_read_is_asked_carrying_the_rules_it_may_meet() {
    let rules =
        policy(json!({"deny": ["Read(~/.ssh/**)", "Edit(/etc/**)"], "allow": ["Read", "Edit"]}));
    let inputs = [
        json!("~/.ssh/id_rsa"),
        json!({"file_path": ["~/.ssh/id_rsa"]}),
        json!({"file_path": 7}),
        json!({}),
        json!(null),
    ];
    for mode in Mode::ALL.iter().copied() {
        for input in &inputs {
            let read = ask(&rules, "Read", input.clone(), &facts_in(mode));
            assert_eq!(read.decision, Decision::Ask, "{mode:?} {input}: {read:?}");
            assert_eq!(read.rule.as_deref(), Some("Read(~/.ssh/**)"), "{input}");
            assert!(read.uncertain, "{input}");
            // A Read deny also covers writing the file (SPEC §4), so the first rule
            // a write may meet is the Read rule.
            let edit = ask(&rules, "Write", input.clone(), &facts_in(mode));
            assert_eq!(
                d(&edit),
                (Decision::Ask, Some("Read(~/.ssh/**)")),
                "{mode:?} {input}"
            );
            assert!(edit.uncertain, "{input}");
        }
    }
    // With no rule of its kind, still asked (never "only reads"), and named as such.
    let none = policy(json!({}));
    for tool in [
        "Read",
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
    ] {
        let v = ask(
            &none,
            tool,
            json!({"file_path": false}),
            &facts_in(Mode::BypassPermissions),
        );
        assert_eq!(d(&v), (Decision::Ask, None), "{tool}");
        assert!(
            v.reason.unwrap_or_default().contains("cannot be read"),
            "{tool}"
        );
    }
    // Search tools default to the working folder; a `path` that is no string is unknown.
    assert_eq!(
        ask(&none, "Grep", json!({"pattern": "x"}), &facts()).decision,
        Decision::Allow
    );
    assert_eq!(
        ask(
            &none,
            "Grep",
            json!({"pattern": "x", "path": null}),
            &facts()
        )
        .decision,
        Decision::Allow
    );
    assert_eq!(
        ask(&none, "Glob", json!({"pattern": "x", "path": 7}), &facts()).decision,
        Decision::Ask
    );
    // A readable path is judged as before.
    let ok = ask(
        &rules,
        "Read",
        json!({"file_path": "/home/dev/repo/a.txt"}),
        &facts(),
    );
    assert_eq!(d(&ok), (Decision::Allow, Some("Read")));
}

/// A command too long to parse word by word in bounded memory is read coarsely: its
/// deny and ask rules still meet it (held, uncertain), and nothing in it is allowed, in
/// any mode (SPEC §4). Found by an adversarial replay: a 14 MB `ls && ls && ...` took
/// 2.4 GB to parse.
#[test]
fn a_command_too_long_to_parse_is_read_coarsely_and_never_allowed() {
    let rules = policy(json!({"deny": ["Bash(rm:*)"], "allow": ["Bash(ls:*)"]}));
    let padding = " && ls".repeat(crate::bash::MAX_PARSED_COMMAND_BYTES / 6 + 1);
    let long_rm = format!("ls{padding} && rm -rf /");
    let long_ls = format!("ls{padding}");
    assert!(long_ls.len() > crate::bash::MAX_PARSED_COMMAND_BYTES);
    for mode in Mode::ALL.iter().copied() {
        let v = ask(&rules, "Bash", json!({"command": long_rm}), &facts_in(mode));
        assert_ne!(v.decision, Decision::Allow, "{mode:?}");
        assert_eq!(v.rule.as_deref(), Some("Bash(rm:*)"), "{mode:?}");
        let v = ask(&rules, "Bash", json!({"command": long_ls}), &facts_in(mode));
        assert_ne!(v.decision, Decision::Allow, "{mode:?}: {v:?}");
    }
    // Just under the cap, the command is parsed as usual.
    let short = format!("ls{}", " && ls".repeat(100));
    assert_eq!(bash(&rules, &short).decision, Decision::Allow);
}
