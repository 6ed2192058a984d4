//! Hosts and outcomes.

use super::*;
use pretty_assertions::assert_eq;

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
