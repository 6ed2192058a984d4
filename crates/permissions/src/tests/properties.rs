//! Properties.

use super::*;

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
