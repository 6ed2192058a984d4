//! Modes.

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn default_mode() {
    let r = RuleSet::default();
    for tool in READ_ONLY_TOOLS {
        // A path the core can read (a file tool with none is asked: rules.rs).
        let input = json!({"file_path": "/home/dev/repo/a", "pattern": "x"});
        assert_eq!(
            ask(&r, tool, input, &facts()).decision,
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
