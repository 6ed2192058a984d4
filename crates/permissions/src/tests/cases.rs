//! Shared cases (../shared/cases/permissions).

use super::*;
use pretty_assertions::assert_eq;

#[test]
fn case_compound_commands() {
    let r = policy(json!({"deny": ["Bash(rm:*)"], "allow": ["Bash(git:*)"]}));
    for cmd in [
        "git status && rm -rf important/",
        "git status; rm -rf important/",
        "git status || rm -rf important/",
        "git log | rm -rf important/",
        "echo $(rm -rf important/)",
        "(cd sub && rm -rf important/)",
        "FOO=1 rm -rf important/",
        "timeout 5 rm -rf important/",
    ] {
        assert_eq!(
            d(&bash(&r, cmd)),
            (Decision::Deny, Some("Bash(rm:*)")),
            "{cmd}"
        );
    }
    assert_eq!(d(&bash(&r, "git status && make")), (Decision::Ask, None));
    assert_eq!(
        d(&bash(&r, "git status")),
        (Decision::Allow, Some("Bash(git:*)"))
    );
}

#[test]
fn case_symlink() {
    let dir = std::env::temp_dir().join(format!("perm-symlink-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.join("notes.txt")).unwrap();
    let f = SessionFacts::new(&dir, "/home/dev");
    let r = policy(json!({"deny": ["Read(//etc/passwd)"]}));
    let path = dir.join("notes.txt").to_string_lossy().into_owned();
    let v = ask(&r, "Read", json!({ "file_path": path }), &f);
    assert_eq!(d(&v), (Decision::Deny, Some("Read(//etc/passwd)")));
    // Through the shell, and through a symlinked directory, too.
    let v = ask(&r, "Bash", json!({"command": "cat notes.txt"}), &f);
    assert_eq!(d(&v), (Decision::Deny, Some("Read(//etc/passwd)")));
    std::os::unix::fs::symlink("/etc", dir.join("conf")).unwrap();
    let v = ask(&r, "Read", json!({"file_path": "conf/passwd"}), &f);
    assert_eq!(d(&v), (Decision::Deny, Some("Read(//etc/passwd)")));
    // An allow needs both the link and its target.
    let settings = json!({"permissions": {"allow": ["Edit(./**)"]}});
    let (r, _) = RuleSet::from_sources(&[(SettingsSource::Project, &settings)]);
    let v = ask(&r, "Edit", json!({"file_path": "notes.txt"}), &f);
    assert_eq!(d(&v), (Decision::Ask, None));
    std::fs::write(dir.join("plain.txt"), "x").unwrap();
    let v = ask(&r, "Edit", json!({"file_path": "plain.txt"}), &f);
    assert_eq!(d(&v), (Decision::Allow, Some("Edit(./**)")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn case_unicode_normalization() {
    let r = policy(json!({"deny": ["Read(secrets/caf\u{e9}.env)"]}));
    for p in [
        "/home/dev/repo/secrets/cafe\u{301}.env",
        "/home/dev/repo/secrets/caf\u{e9}.env",
        "/home/dev/repo/SECRETS/CAF\u{c9}.env",
    ] {
        let v = ask(&r, "Read", json!({ "file_path": p }), &facts());
        assert_eq!(
            d(&v),
            (Decision::Deny, Some("Read(secrets/caf\u{e9}.env)")),
            "{p}"
        );
    }
    let r = policy(json!({"deny": ["Read(secrets/cafe\u{301}.env)"]}));
    let v = ask(
        &r,
        "Bash",
        json!({"command": "cat secrets/caf\u{e9}.env"}),
        &facts(),
    );
    assert_eq!(v.decision, Decision::Deny);
}

#[test]
fn case_unparseable_deny() {
    let (r, w) = RuleSet::from_sources(&[(
        SettingsSource::Policy,
        &json!({"permissions": {"deny": ["Bash(rm -rf"]}}),
    )]);
    assert_eq!(w.len(), 1);
    assert_eq!(w.first().unwrap().pointer, "/permissions/deny/0");
    for cmd in ["ls -la", "git status", "echo hi"] {
        assert_eq!(
            d(&bash(&r, cmd)),
            (Decision::Deny, Some("Bash(rm -rf")),
            "{cmd}"
        );
    }
    // An ask rule that does not parse asks for its whole tool.
    let r = policy(json!({"ask": ["Read(["]}));
    assert_eq!(
        d(&ask(&r, "Read", json!({"file_path": "/x"}), &facts())),
        (Decision::Ask, Some("Read(["))
    );
}
