//! Precedence.

use super::*;
use pretty_assertions::assert_eq;

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
