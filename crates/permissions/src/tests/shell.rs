//! Shell files, paths, modes.

use super::*;
use pretty_assertions::assert_eq;

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

/// A folder read whole by a command that follows the symbolic links inside it reads
/// wherever they point: a read of unknown path, which meets every Read rule, uncertain,
/// so it is asked carrying the rule (and held). The same commands without following
/// links are judged by the folders they name. Found by an adversarial replay pass:
/// `grep -R x other` with `other/lnk -> ../secrets` was allowed under `Read(./secrets)`.
#[test]
fn a_folder_read_that_follows_links_meets_every_read_rule() {
    let rules = policy(json!({
        "deny": ["Read(./secrets/**)"],
        "allow": ["Bash(grep:*)", "Bash(rg:*)", "Bash(ag:*)", "Bash(ack:*)", "Bash(tar:*)", "Bash(cp:*)", "Bash(rsync:*)", "Bash(zip:*)"]
    }));
    for cmd in [
        "grep -R x other",
        "grep --dereference-recursive x other",
        "grep -Rn x other",
        "rg -L x other",
        "rg --follow x other",
        "ag -f x other",
        "ack --follow x other",
        "tar -chf /tmp/x.tar other",
        "tar chf /tmp/x.tar other",
        "tar -cf /tmp/x.tar --dereference other",
        "cp -rL other /tmp/q",
        "cp -r --dereference other /tmp/q",
        "rsync -aL other /tmp/q",
        "rsync -a --copy-links other /tmp/q",
        "rsync -ak other /tmp/q",
        "zip -r /tmp/q.zip other",
    ] {
        let v = bash(&rules, cmd);
        assert_eq!(v.decision, Decision::Ask, "{cmd}: {v:?}");
        assert_eq!(v.rule.as_deref(), Some("Read(./secrets/**)"), "{cmd}");
        assert!(v.uncertain, "{cmd}");
    }
    for cmd in [
        "grep -r x other",
        "rg x other",
        "tar -cf /tmp/x.tar other",
        "cp -r other /tmp/q",
        "rsync -a other /tmp/q",
        "zip -ry /tmp/q.zip other",
    ] {
        let v = bash(&rules, cmd);
        assert_eq!(v.decision, Decision::Allow, "{cmd}: {v:?}");
    }
}

#[test]
fn cdpath_sends_cd_where_the_core_looks() {
    // bash 5.2: `CDPATH=secrets; cd sub && cat key` reads `secrets/sub/key`.
    let r = policy(json!({"deny": ["Read(**/secrets/**)"]}));
    for cmd in [
        "CDPATH=secrets; cd sub && cat key",
        "export CDPATH=secrets; cd sub && cat key",
        "CDPATH=secrets cd sub && cat key",
        "CDPATH=secrets; pushd sub && cat key",
        "CDPATH=/home/dev/repo/secrets; cd sub && head key",
    ] {
        assert_eq!(
            d(&bash(&r, cmd)),
            (Decision::Deny, Some("Read(**/secrets/**)")),
            "{cmd}"
        );
    }
    // Set in the session's environment (a person's `env.set`): no assignment in sight.
    let env: std::collections::BTreeMap<String, String> =
        [("CDPATH".to_owned(), "secrets".to_owned())].into();
    let f = SessionFacts {
        env: Some(std::sync::Arc::new(env)),
        ..facts()
    };
    let v = ask(&r, "Bash", json!({"command": "cd sub && cat key"}), &f);
    assert_eq!(d(&v), (Decision::Deny, Some("Read(**/secrets/**)")));
    // An entry from `~` is the home folder (bash 5.2 expands it).
    let r2 = policy(json!({"deny": ["Read(~/.ssh/**)"]}));
    assert_eq!(
        d(&bash(&r2, "CDPATH='~'; cd .ssh && cat id_rsa")),
        (Decision::Deny, Some("Read(~/.ssh/**)"))
    );
    assert_ne!(
        bash(&r2, "CDPATH='~'; cd ssh && cat id_rsa").decision,
        Decision::Deny
    );
    // Not known: the paths after it are uncertain, never allowed.
    let v = bash(&r, "read CDPATH < list; cd sub && cat key");
    assert_eq!(d(&v), (Decision::Ask, Some("Read(**/secrets/**)")));
    assert!(v.uncertain);
    // Without CDPATH, or from `./`, `cd` goes where it says.
    let v = ask(&r, "Bash", json!({"command": "cd ./sub && cat key"}), &f);
    assert_eq!(v.decision, Decision::Allow);
    assert_eq!(bash(&r, "cd sub && cat key").decision, Decision::Allow);
}

#[test]
fn history_reruns_are_uncertain_programs() {
    // bash 5.2 runs each of these strings from the history list.
    let r = policy(json!({"deny": ["Bash(rm:*)", "Read(./secrets/**)"]}));
    for cmd in [
        "history -s 'rm -rf build'; fc -s rm",
        "history -s 'rm -rf build'; fc -s",
        "history -s 'rm -rf build'; fc -e - -1",
        "history -s 'rm -rf build'; fc -l -s",
        "history -s 'rm -rf build'; builtin fc -s",
        "history -r hist.txt; fc -s",
        "history -s 'rm -rf build'; F=fc; $F -s",
        "history -s 'rm -rf build'; FCEDIT=: fc -1",
        "set -o history -H; history -s 'rm -rf build'\n!!",
        "set -o history -o histexpand; history -s 'rm -rf build'\n!!",
        "shopt -os history histexpand; history -s 'rm -rf build'\n!!",
        "bash -c \"history -s 'rm -rf build'; fc -s\"",
        "eval 'fc -s rm'",
    ] {
        let v = bash(&r, cmd);
        assert_eq!(d(&v), (Decision::Ask, Some("Bash(rm:*)")), "{cmd}");
        assert!(v.uncertain, "{cmd}");
    }
    // The history may read files too.
    let r = policy(json!({"deny": ["Read(./secrets/**)"]}));
    let v = bash(&r, "history -s 'cat secrets/key.pem'; fc -s");
    assert_eq!(d(&v), (Decision::Ask, Some("Read(./secrets/**)")));
    assert!(v.uncertain);
    // `history -r` with no file reads `$HISTFILE`; `-w`/`-a` write.
    let v = bash(&r, "HISTFILE=secrets/key.pem; history -r; history");
    assert_eq!(d(&v), (Decision::Ask, Some("Read(./secrets/**)")));
    assert!(v.uncertain);
    let e = policy(json!({"deny": ["Edit(./secrets/**)"]}));
    assert_eq!(
        d(&bash(&e, "history -w secrets/key.pem")),
        (Decision::Deny, Some("Edit(./secrets/**)"))
    );
    // `fc -e EDITOR` runs the editor as a command: read exactly.
    let r = policy(json!({"deny": ["Bash(rm:*)"]}));
    assert_eq!(
        d(&bash(&r, "fc -e 'rm -rf build;' -1")),
        (Decision::Deny, Some("Bash(rm:*)"))
    );
    // A listing runs nothing.
    for cmd in [
        "fc -l",
        "fc -ln -5",
        "fc -l -e vi",
        "history -p '!!'",
        "set +H",
    ] {
        let v = bash(&r, cmd);
        assert!(!v.uncertain && v.rule.is_none(), "{cmd}: {v:?}");
    }
}

#[test]
fn folder_stack_tildes_are_not_user_names() {
    // bash 5.2: `~1` is the second entry of `pushd`'s stack, here `secrets`.
    let r = policy(json!({"deny": ["Read(./secrets/**)"]}));
    for cmd in [
        "pushd secrets && pushd .. && cat ~1/key.pem",
        "pushd secrets && pushd .. && cat ~+1/key.pem",
        "pushd secrets && pushd .. && cat ~-1/key.pem",
        "cat ~2/key.pem",
    ] {
        let v = bash(&r, cmd);
        assert_eq!(d(&v), (Decision::Ask, Some("Read(./secrets/**)")), "{cmd}");
        assert!(v.uncertain, "{cmd}");
    }
    assert_eq!(
        d(&bash(&r, "pushd secrets && cat ~0/key.pem")),
        (Decision::Deny, Some("Read(./secrets/**)"))
    );
}
