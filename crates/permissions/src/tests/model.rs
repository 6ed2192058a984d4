//! The reference model.

use super::*;

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

/// A machine and a call for the model properties: user, project and policy rule lists,
/// whether only managed rules count, the call, the mode.
fn ref_machine() -> impl Strategy<Value = ([Lists; 3], bool, (String, Value), Mode)> {
    (
        [ref_lists(), ref_lists(), ref_lists()],
        proptest::bool::weighted(0.1),
        ref_question(),
        arb_mode(),
    )
}

/// The user, project and policy settings of three rule lists, each with its source;
/// the policy with `allowManagedPermissionRulesOnly` when `managed_only`.
fn three_sources(
    [user, project, policy]: &[Lists; 3],
    managed_only: bool,
) -> [(SettingsSource, Value); 3] {
    let mut po = settings_of(policy);
    if managed_only {
        po["allowManagedPermissionRulesOnly"] = json!(true);
    }
    [
        (SettingsSource::User, settings_of(user)),
        (SettingsSource::Project, settings_of(project)),
        (SettingsSource::Policy, po),
    ]
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
        (lists, managed_only, (tool, input), mode) in ref_machine(),
    ) {
        let owned = three_sources(&lists, managed_only);
        let sources = owned.each_ref().map(|(s, v)| (*s, v));
        let f = facts_in(mode);
        let v = real(&sources, &tool, &input, &f);
        let (decision, rule) = crate::reference::reference_decide(&sources, &tool, &input, &f);
        prop_assert_eq!((v.decision, v.rule.clone()), (decision, rule), "{} {}", tool, input);
    }
}

proptest! {
    // The metamorphic properties: 10,000 cases each, as required.
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

/// `sources` with every permission rule list emptied, then `rule` written alone in
/// its own list of its own source: the reference model's machine with that rule
/// alone, every other setting (the policy's `allowManagedPermissionRulesOnly`) kept.
fn only(sources: &[(SettingsSource, &Value)], rule: &Rule) -> Vec<(SettingsSource, Value)> {
    sources
        .iter()
        .map(|(s, v)| {
            let mut v = (*v).clone();
            let mut lists: Lists = Default::default();
            if *s == rule.source {
                let list = match rule.behavior {
                    Behavior::Deny => &mut lists.0,
                    Behavior::Ask => &mut lists.1,
                    Behavior::Allow => &mut lists.2,
                };
                list.push(rule.text.clone());
            }
            v["permissions"] = settings_of(&lists)["permissions"].clone();
            (*s, v)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// `explain` answers `decide`'s verdict, and names a rule as meeting the call
    /// exactly when the reference model, given that rule alone (every other setting
    /// kept), decides the call by it, with the same `uncertain`.
    #[test]
    fn explain_meets_what_each_rule_alone_decides_in_the_reference_model(
        (lists, managed_only, (tool, input), mode) in ref_machine(),
    ) {
        let owned = three_sources(&lists, managed_only);
        let sources = owned.each_ref().map(|(s, v)| (*s, v));
        let f = facts_in(mode);
        let (rules, _) = RuleSet::from_sources(&sources);
        let q = Question { tool: &tool, input: &input };
        let e = explain(&rules, &q, &f);
        prop_assert_eq!(&e.verdict, &decide(&rules, &q, &f));
        let mut expected_met = 0;
        for r in rules.rules() {
            let alone = only(&sources, r);
            let refs: Vec<(SettingsSource, &Value)> = alone.iter().map(|(s, v)| (*s, v)).collect();
            let (_, named, uncertain) =
                crate::reference::reference_answer(&refs, &tool, &input, &f);
            let expected = (named.as_deref() == Some(r.text.as_str())).then_some(uncertain);
            let got = e.met.iter().find(|m| std::ptr::eq(m.rule, r)).map(|m| m.uncertain);
            prop_assert_eq!(
                got, expected,
                "{} {} in {} settings, {} {}", r.behavior, r.text, r.source, tool, input
            );
            expected_met += usize::from(expected.is_some());
        }
        prop_assert_eq!(e.met.len(), expected_met, "each rule met once");
    }
}
