//! Tests of `sec-default audit` (issue #2 item 7): the example and every real managed
//! folder hold; the unseated control breaches in every family; one row per rule;
//! bad input and unreadable policies; snapshots of the rendered table.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::*;
use std::fs;

const CRATE: &str = env!("CARGO_MANIFEST_DIR");

fn example() -> PathBuf {
    Path::new(CRATE).join("../../examples/managed")
}

fn real_inputs() -> PathBuf {
    Path::new(CRATE).join("../../../shared/real-inputs/managed")
}

/// The report with the clone location taken out of printed paths.
fn relative(text: &str) -> String {
    text.replace(&format!("{CRATE}/../../../"), "../")
        .replace(&format!("{CRATE}/../../"), "")
}

fn audit(folder: &Path) -> AuditReport {
    run(
        &AuditSource::Folder(folder.to_path_buf()),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap()
}

fn breached(report: &AuditReport) -> Vec<String> {
    report
        .rows
        .iter()
        .filter(|r| !r.seated.held)
        .map(|r| format!("{:?} {}: {}", r.family, r.attack, r.seated.achieved))
        .collect()
}

/// A managed folder holding `settings` (and `mcp`, when given).
fn folder(settings: &Value, mcp: Option<&Value>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("managed-settings.json"),
        settings.to_string(),
    )
    .unwrap();
    if let Some(mcp) = mcp {
        fs::write(dir.path().join("managed-mcp.json"), mcp.to_string()).unwrap();
    }
    dir
}

#[test]
fn the_example_holds_and_its_control_breaches_in_every_family() {
    let report = audit(&example());
    assert!(report.seated);
    assert_eq!(breached(&report), Vec::<String>::new());
    assert_eq!(report.breaches(), 0);
    assert!(
        report.not_exercised.is_empty(),
        "{:?}",
        report.not_exercised
    );
    for family in Family::ALL {
        if family == Family::LoadModule {
            continue; // allowManagedModsOnly is off in the example: see the next test
        }
        let rows: Vec<&Row> = report.rows.iter().filter(|r| r.family == family).collect();
        assert!(!rows.is_empty(), "no {family:?} rows");
        for r in rows {
            assert!(
                !r.unseated.held,
                "{family:?} {}: the control held ({})",
                r.attack, r.unseated.achieved
            );
        }
    }
    let json = report.to_json();
    assert_eq!(json["breaches"], 0);
    assert_eq!(json["source"]["kind"], "folder");
}

#[test]
fn managed_mods_only_keeps_a_persons_module_out() {
    let mut settings: Value = serde_json::from_str(crate::source::EXAMPLE_SETTINGS).unwrap();
    settings["pluginConfigs"][policy::SEC_DEFAULT_ID]["options"]["allowManagedModsOnly"] =
        json!(true);
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    assert_eq!(breached(&report), Vec::<String>::new());
    let mods: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.family == Family::LoadModule)
        .collect();
    assert_eq!(mods.len(), 1);
    assert_eq!(mods[0].unseated.achieved, "loaded");
    assert_eq!(mods[0].seated.achieved, "refused at load");
    // Every other attacker is kept out at load, so it achieves nothing seated.
    let env = report
        .rows
        .iter()
        .find(|r| r.family == Family::PinnedVariable)
        .unwrap();
    assert_eq!(env.seated.achieved, "module not loaded");
    assert!(!report
        .advice
        .iter()
        .any(|a| a.starts_with("allowManagedModsOnly")));
}

#[test]
fn every_real_managed_folder_holds() {
    let mut folders: Vec<PathBuf> = fs::read_dir(real_inputs())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(folders.len() >= 9, "{folders:?}");
    for f in folders {
        let report = audit(&f);
        assert_eq!(breached(&report), Vec::<String>::new(), "{}", f.display());
        assert!(
            report.not_exercised.is_empty(),
            "{}: {:?}",
            f.display(),
            report.not_exercised
        );
    }
}

#[test]
fn one_row_per_deny_and_ask_rule() {
    let settings = json!({"permissions": {
        "deny": ["Bash(sudo:*)", "Edit(//etc/**)", "WebFetch(domain:*.internal.example)", "mcp__github"],
        "ask": ["Bash(git push *)", "Agent(deploy)", "Bash(sudo:*)"]
    }});
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    assert_eq!(breached(&report), Vec::<String>::new());
    let labels = |family: Family| -> Vec<String> {
        report
            .rows
            .iter()
            .filter(|r| r.family == family)
            .map(|r| r.attack.clone())
            .collect()
    };
    let expected = [
        "deny Bash(sudo:*)",
        "deny Edit(//etc/**)",
        "deny WebFetch(domain:*.internal.example)",
        "deny mcp__github",
        "ask Bash(git push *)",
        "ask Agent(deploy)",
        "ask Bash(sudo:*)",
    ];
    assert_eq!(labels(Family::LiftRule), expected);
    assert_eq!(labels(Family::RewordVerdict), expected);
    // The ask rule a deny rule shadows is still attacked, against the deny it gets.
    let shadowed = report
        .rows
        .iter()
        .find(|r| r.attack == "ask Bash(sudo:*)")
        .unwrap();
    assert_eq!(shadowed.detail["decided_by_another_rule"], "Bash(sudo:*)");
    assert!(
        report.not_exercised.is_empty(),
        "{:?}",
        report.not_exercised
    );
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("no managed env")));
}

#[test]
fn a_rule_no_call_meets_is_listed_not_skipped() {
    // A glob no synthesized path meets: `[!a-z]` never matches the filled-in letter.
    let settings = json!({"permissions": {"deny": ["Read(//nowhere/[!a-z]x)"]}});
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    let rendered = report.render();
    assert_eq!(report.not_exercised.len(), 1, "{rendered}");
    assert!(!report.rows.iter().any(|r| r.family == Family::LiftRule));
    assert!(
        rendered.contains("not exercised (listed, not judged):"),
        "{rendered}"
    );
    assert!(
        rendered.contains("  deny Read(//nowhere/[!a-z]x): no synthesized call"),
        "{rendered}"
    );
    assert_eq!(
        report.to_json()["not_exercised"][0]["rule"],
        "Read(//nowhere/[!a-z]x)"
    );
}

#[test]
fn a_policy_that_does_not_seat_the_security_default_breaches() {
    let settings = json!({
        "permissions": {"deny": ["Bash(rm:*)"]},
        "prependPlugins": ["corp-guard@corp"]
    });
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    assert!(!report.seated);
    assert!(report.breaches() > 0);
    assert!(report
        .render()
        .lines()
        .nth(1)
        .unwrap()
        .contains("NOT seated"));
    assert!(report.advice[0].starts_with("prependPlugins does not name"));
}

#[test]
fn an_empty_folder_is_all_advice() {
    let dir = tempfile::tempdir().unwrap();
    let report = audit(dir.path());
    assert_eq!(report.breaches(), 0);
    assert!(report.rows.iter().all(|r| r.family != Family::LiftRule));
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("no managed deny rules")));
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("allowedMcpServers is not set")));
}

#[test]
fn bad_input_and_unreadable_policies() {
    let missing = run(
        &AuditSource::Folder(PathBuf::from("/nonexistent/managed")),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap_err();
    assert!(matches!(missing, AuditError::BadInput(_)));
    assert_eq!(
        missing.to_string(),
        "/nonexistent/managed: the managed folder given does not exist"
    );

    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("managed-settings.json"),
        "{\n  \"permissions\": {,\n}",
    )
    .unwrap();
    let err = run(
        &AuditSource::Folder(dir.path().to_path_buf()),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap_err();
    assert!(matches!(err, AuditError::PolicyUnreadable(_)));
    assert!(
        err.to_string().contains("managed-settings.json:2:"),
        "{err}"
    );

    let file = dir.path().join("managed-settings.json");
    assert!(matches!(
        run(
            &AuditSource::Folder(file),
            HookRunner::NotRun,
            &PersonInputs::default()
        )
        .unwrap_err(),
        AuditError::BadInput(_)
    ));

    // Garbage managed-mcp.json names nobody: every person-tier registration is refused.
    let dir = folder(&json!({}), None);
    fs::write(dir.path().join("managed-mcp.json"), "not json").unwrap();
    let report = audit(dir.path());
    assert_eq!(report.breaches(), 0);
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("managed-mcp.json")));
}

#[test]
fn no_platform_folder_is_the_empty_policy_and_the_example_is_asked_for() {
    let missing = PathBuf::from("/nonexistent/claude-code");
    let report = run(
        &AuditSource::Platform(missing.clone()),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap();
    assert_eq!(
        report.render().lines().next().unwrap(),
        "managed folder: /nonexistent/claude-code (the platform folder; it does not exist: an \
         empty policy, as the engine reads it)"
    );
    assert_eq!(report.to_json()["source"]["kind"], "platform");
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(report.attacks(), audit(empty.path()).attacks());
    assert_eq!(report.breaches(), 0);

    let embedded = run(
        &AuditSource::Embedded,
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap();
    assert_eq!(
        embedded.render().lines().next().unwrap(),
        "managed folder: none; the example policy embedded in this binary (--example)"
    );
    assert_eq!(embedded.to_json()["source"]["kind"], "embedded");
    assert_eq!(embedded.attacks(), audit(&example()).attacks());
}

/// A managed folder whose hooks append to `marker`: a `PreToolUse` hook on Bash and a
/// `SessionStart` hook.
fn hooked(marker: &Path) -> tempfile::TempDir {
    let cmd = format!("echo ran >> '{}'", marker.display());
    folder(
        &json!({
            "permissions": {"deny": ["Bash(rm:*)", "Read(./.env)"]},
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": cmd, "timeout": 600_000}
                ]}],
                "SessionStart": [{"hooks": [{"type": "command", "command": cmd}]}]
            }
        }),
        None,
    )
}

#[test]
fn the_policys_hooks_are_listed_with_the_attacks_they_were_not_exercised_against() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().join("marker");
    let dir = hooked(&marker);
    let report = audit(dir.path());
    assert!(!marker.exists(), "the audit ran the policy's hook");
    assert_eq!(report.hooks.len(), 2);
    let pre = &report.hooks[0];
    assert_eq!(pre.event, "PreToolUse");
    assert_eq!(pre.matcher.as_deref(), Some("Bash"));
    assert_eq!(pre.file, "managed-settings.json");
    assert_eq!(pre.pointer, "/hooks/PreToolUse/0/hooks/0");
    // Bash(rm:*) is lifted and reworded: two rows; Read(./.env) never reaches a Bash hook.
    assert_eq!(pre.attacks, vec!["deny Bash(rm:*)".to_owned()]);
    assert_eq!(pre.rows, 2);
    let text = report.render();
    assert!(text.contains("NOT RUN"), "{text}");
    assert!(
        text.contains("not exercised against 2 attack(s): deny Bash(rm:*)"),
        "{text}"
    );
    assert!(
        text.contains("not exercised: no attack raises SessionStart"),
        "{text}"
    );
    let j = report.to_json();
    assert_eq!(j["classic_hooks"]["run"], "not_run");
    assert_eq!(j["classic_hooks"]["hooks"][0]["attack_rows"], 2);
    for line in text.lines() {
        assert!(line.chars().count() <= WIDTH, "{line:?}");
    }
}

#[test]
fn run_hooks_runs_them_sandboxed_with_the_audits_cap() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().join("marker");
    let dir = hooked(&marker);
    let report = run(
        &AuditSource::Folder(dir.path().to_path_buf()),
        HookRunner::Sandboxed {
            cap: std::time::Duration::from_secs(10),
        },
        &PersonInputs::default(),
    )
    .unwrap();
    assert!(marker.exists(), "the hook did not run");
    assert_eq!(report.breaches(), 0);
    let text = report.render();
    assert!(
        text.contains("ran in 2 attack(s): deny Bash(rm:*)"),
        "{text}"
    );
    assert_eq!(report.to_json()["classic_hooks"]["cap_seconds"], 10.0);
}

#[test]
fn the_table_keeps_within_100_columns() {
    let report = audit(&example());
    for line in report.render().lines() {
        assert!(line.chars().count() <= WIDTH, "{line:?}");
    }
}

#[test]
fn snapshot_example() {
    insta::assert_snapshot!("audit_example", relative(&audit(&example()).render()));
}

#[test]
fn snapshot_hardening() {
    let report = audit(&real_inputs().join("hardening"));
    insta::assert_snapshot!("audit_hardening", relative(&report.render()));
}
