//! The bypass corpus's families.

use super::*;
use pretty_assertions::assert_eq;

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
