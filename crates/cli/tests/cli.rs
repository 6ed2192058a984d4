//! The `sec-default` binary as an administrator runs it: `policy show` on every real
//! managed folder, `test` on the shared cases, and the exit codes of issue #2.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn shared() -> PathBuf {
    root().join("../shared")
}

/// Runs the binary in the workspace root; returns (exit code, stdout, stderr) with the
/// shared folder's absolute path replaced by `<shared>` so snapshots do not depend on
/// where the repository is cloned.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sec-default"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let shared = shared().canonicalize().unwrap().display().to_string();
    let clean = |b: &[u8]| String::from_utf8_lossy(b).replace(&shared, "<shared>");
    (
        out.status.code().unwrap_or(-1),
        clean(&out.stdout),
        clean(&out.stderr),
    )
}

#[test]
fn policy_show_reads_every_real_managed_folder_with_the_warnings_it_deserves() {
    let dir = shared().join("real-inputs/managed");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    assert!(folders.len() >= 9);
    for f in folders {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let rel = format!("../shared/real-inputs/managed/{name}");
        let (code, stdout, stderr) = run(&["policy", "show", "--managed", &rel]);
        assert_eq!(code, 0, "{name}: {stderr}");
        insta::assert_snapshot!(format!("policy_show_{name}"), stdout);
    }
}

#[test]
fn policy_show_json_names_warnings_by_file_and_pointer() {
    let f = shared().join("real-inputs/managed/hardening");
    let (code, stdout, _) = run(&["policy", "show", "--json", "--managed", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let warnings = v["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w["file"] == "managed-settings.json"
            && w["pointer"] == "/permissions/allowManagedPermissionRulesOnly"),
        "{warnings:?}"
    );
    assert_eq!(v["rules"]["deny"], 12);
    assert!(v["pinnedVariables"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n == "CLAUDE_CODE_ENABLE_TELEMETRY"));
}

#[test]
fn a_managed_folder_that_does_not_exist_is_bad_input_for_every_command() {
    for args in [
        &["policy", "show", "--managed", "no/such/folder"][..],
        &["audit", "--managed", "no/such/folder"][..],
        &["test", "--managed", "no/such/folder", "examples/scenarios"][..],
    ] {
        let (code, _, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("no/such/folder"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_managed_policy_that_cannot_be_read_exits_3_naming_the_file_and_position() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("managed-settings.json"),
        "{\n  \"permissions\": { \"deny\": [\"Bash(rm:*)\"] \n",
    )
    .unwrap();
    for cmd in [&["policy", "show"][..], &["audit"][..]] {
        let mut args = cmd.to_vec();
        args.extend(["--managed", dir.path().to_str().unwrap()]);
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 3, "{args:?}: {stderr}");
        assert!(
            stderr.contains("managed-settings.json:3:"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn an_invalid_scenario_file_is_bad_input_with_file_and_pointer() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("typo.json");
    std::fs::write(
        &f,
        r#"{"name": "x", "steps": [{"raise": "tool.check", "expct": {}}]}"#,
    )
    .unwrap();
    let (code, _, stderr) = run(&["test", f.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("typo.json") && stderr.contains("/steps/0"),
        "{stderr}"
    );
}

#[test]
fn test_runs_the_shared_cases_and_compare_shows_what_changed() {
    let cases = shared().join("cases");
    let mut args = vec!["test", "--compare"];
    let dirs: Vec<String> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "permissions")
        .map(|p| p.display().to_string())
        .collect();
    args.extend(dirs.iter().map(String::as_str));
    let (code, stdout, stderr) = run(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout
            .lines()
            .last()
            .unwrap()
            .ends_with(" passed, 0 failed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("compare: step 0 (tool.check): seated {\"decision\":\"deny\""),
        "{stdout}"
    );
}

#[test]
fn a_failing_scenario_exits_1_and_prints_the_step_expectation_answer_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("wrong.json");
    std::fs::write(
        &f,
        r#"{"name": "expects the wrong verdict",
            "policy": {"managed-settings.json": {"permissions": {"deny": ["Bash(rm:*)"]}}},
            "steps": [{"raise": "tool.check", "event": {"tool": "Bash", "input": {"command": "rm x"}, "tool_use_id": "t"},
                       "expect": {"decision": "allow"}}]}"#,
    )
    .unwrap();
    let (code, stdout, _) = run(&["test", f.to_str().unwrap()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("FAIL  expects the wrong verdict"),
        "{stdout}"
    );
    assert!(
        stdout.contains("step 0:") && stdout.contains("trace:") && stdout.contains("core"),
        "{stdout}"
    );
    assert!(stdout.ends_with("0 passed, 1 failed\n"), "{stdout}");
}
