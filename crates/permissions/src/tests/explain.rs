//! `explain`: the verdict with the rules that meet the call (SPEC §4).

use super::*;

/// A rule met: its behavior, its text, whether only uncertainly.
type Seen<'r> = (Behavior, &'r str, bool);

fn met<'r>(e: &Explanation<'r>) -> Vec<Seen<'r>> {
    e.met
        .iter()
        .map(|m| (m.behavior(), m.rule.text.as_str(), m.uncertain))
        .collect()
}

fn explain_bash<'r>(rules: &'r RuleSet, cmd: &str, f: &SessionFacts) -> Explanation<'r> {
    let input = json!({ "command": cmd });
    explain(
        rules,
        &Question {
            tool: "Bash",
            input: &input,
        },
        f,
    )
}

#[test]
fn a_deny_rule_meets_what_it_denies_and_an_allow_rule_what_it_alone_allows() {
    let rules = policy(json!({
        "deny": ["Bash(rm:*)"],
        "ask": ["Bash(git push:*)"],
        "allow": ["Bash(ls:*)", "Bash(rm -rf out)"],
    }));
    let e = explain_bash(&rules, "rm -rf out", &facts());
    assert_eq!(d(&e.verdict), (Decision::Deny, Some("Bash(rm:*)")));
    assert_eq!(e.verdict, bash(&rules, "rm -rf out"));
    assert_eq!(
        met(&e),
        vec![
            (Behavior::Deny, "Bash(rm:*)", false),
            (Behavior::Allow, "Bash(rm -rf out)", false),
        ]
    );
}

#[test]
fn an_allow_rule_meets_only_a_command_the_core_sees_through() {
    let rules = policy(json!({"deny": ["Bash(rm:*)"], "allow": ["Bash(git:*)"]}));
    let e = explain_bash(&rules, "git status", &facts());
    assert_eq!(d(&e.verdict), (Decision::Allow, Some("Bash(git:*)")));
    assert_eq!(met(&e), vec![(Behavior::Allow, "Bash(git:*)", false)]);

    // `$X` may be anything: it may be an `rm`, and no allow rule covers it.
    let e = explain_bash(&rules, "git status && $X", &facts());
    assert_eq!(d(&e.verdict), (Decision::Ask, Some("Bash(rm:*)")));
    assert!(e.verdict.uncertain);
    assert_eq!(met(&e), vec![(Behavior::Deny, "Bash(rm:*)", true)]);
}

#[test]
fn each_part_of_a_compound_meets_its_own_rules() {
    let rules =
        policy(json!({"deny": ["Bash(rm:*)"], "ask": ["Bash(curl:*)"], "allow": ["Bash(git:*)"]}));
    let f = facts();
    let parsed = bash::parse_command_in(
        "git status && curl -s x | $SHELL",
        &bash::ShellContext::new(&f.cwd, &f.home, None),
    );
    let explainer = Explainer::new(&rules);
    let parts: Vec<(String, Vec<Seen<'_>>)> = parsed
        .parts
        .iter()
        .map(|p| {
            let input = json!({ "command": p.raw });
            let e = explainer.explain(
                &Question {
                    tool: "Bash",
                    input: &input,
                },
                &f,
            );
            (p.raw.clone(), met(&e))
        })
        .collect();
    assert_eq!(
        parts,
        vec![
            (
                "git status".to_owned(),
                vec![(Behavior::Allow, "Bash(git:*)", false)]
            ),
            (
                "curl -s x".to_owned(),
                vec![(Behavior::Ask, "Bash(curl:*)", false)]
            ),
            (
                "$SHELL".to_owned(),
                vec![
                    (Behavior::Deny, "Bash(rm:*)", true),
                    (Behavior::Ask, "Bash(curl:*)", true),
                ]
            ),
        ]
    );
}

#[test]
fn every_other_setting_stays_when_a_rule_is_judged_alone() {
    // In plan mode no allow rule is consulted, so none meets a call.
    let rules = policy(json!({"allow": ["Bash(make:*)"]}));
    let e = explain_bash(&rules, "make", &facts_in(Mode::Plan));
    assert!(e.met.is_empty(), "{:?}", met(&e));
    let e = explain_bash(&rules, "make", &facts());
    assert_eq!(met(&e), vec![(Behavior::Allow, "Bash(make:*)", false)]);

    // bypassPermissions allows by itself, unless the policy disables it.
    let e = explain_bash(&rules, "make", &facts_in(Mode::BypassPermissions));
    assert!(e.met.is_empty(), "{:?}", met(&e));
    let rules =
        policy(json!({"allow": ["Bash(make:*)"], "disableBypassPermissionsMode": "disable"}));
    let e = explain_bash(&rules, "make", &facts_in(Mode::BypassPermissions));
    assert_eq!(met(&e), vec![(Behavior::Allow, "Bash(make:*)", false)]);

    // The read block denies a read outside before any ask rule is asked.
    let rules =
        policy(json!({"ask": ["Read(//etc/**)"], "blockReadsOutsideWorkingDirectories": true}));
    let input = json!({"file_path": "/etc/passwd"});
    let q = Question {
        tool: "Read",
        input: &input,
    };
    let e = explain(&rules, &q, &facts());
    assert_eq!(e.verdict.decision, Decision::Deny);
    assert_eq!(e.verdict.setting.as_deref(), Some(BLOCK_READS_SETTING));
    assert!(e.met.is_empty(), "{:?}", met(&e));
}

#[test]
fn the_rules_met_come_in_deciding_order_and_serialize_with_their_place() {
    let user = json!({"permissions": {"deny": ["Read(./secrets/**)"]}});
    let pol = json!({"permissions": {"ask": ["Read"], "deny": ["Bash", "Read(**/k)"]}});
    let (rules, _) = RuleSet::from_sources(&[
        (SettingsSource::User, &user),
        (SettingsSource::Policy, &pol),
    ]);
    let input = json!({"file_path": "secrets/k"});
    let e = explain(
        &rules,
        &Question {
            tool: "Read",
            input: &input,
        },
        &facts(),
    );
    assert_eq!(
        serde_json::to_value(&e).ok(),
        Some(json!({
            "verdict": serde_json::to_value(decide(&rules, &Question { tool: "Read", input: &input }, &facts())).ok(),
            "met": [
                {"behavior": "deny", "rule": "Read(**/k)", "source": "policy", "index": 1, "uncertain": false},
                {"behavior": "ask", "rule": "Read", "source": "policy", "index": 0, "uncertain": false},
                {"behavior": "deny", "rule": "Read(./secrets/**)", "source": "user", "index": 0, "uncertain": false},
            ],
        }))
    );
}
