//! SPEC §4 "Classic hooks": how a session runs classic hooks'
//! commands is its embedder's choice. The default runs them as before; `NotRun` starts
//! nothing and answers "not run" (deciding nothing, logged on the debug channel);
//! `Sandboxed` runs each in a scratch folder of its own.

use fnhooks::Event;
use serde_json::{json, Value};
use session::{BlockingSession, HookRunner, SessionConfig};
use std::path::Path;
use std::time::Duration;

/// A managed folder whose `PreToolUse` hook appends a line to `marker` and denies.
#[allow(clippy::unwrap_used)]
fn managed(marker: &std::path::Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": format!("pwd >> '{}'; echo no >&2; exit 2", marker.display())}
    ]}]}});
    std::fs::write(
        dir.path().join("managed-settings.json"),
        settings.to_string(),
    )
    .unwrap();
    dir
}

#[allow(clippy::unwrap_used)]
fn check(runner: HookRunner) -> (Value, Vec<String>, String) {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().join("marker");
    let dir = managed(&marker);
    let config = SessionConfig {
        hook_runner: runner,
        ..SessionConfig::new(
            dir.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    let s = BlockingSession::start(config, Vec::new()).unwrap();
    let v = s
        .raise(Event::from_value(
            "tool.check",
            json!({"tool": "Bash", "input": {"command": "ls"}, "tool_use_id": "t1"}),
        ))
        .unwrap();
    let debug = s.take_log().into_iter().map(|l| l.text).collect();
    (
        v,
        debug,
        std::fs::read_to_string(&marker).unwrap_or_default(),
    )
}

#[test]
fn the_default_runs_the_hook_as_before() {
    assert_eq!(
        SessionConfig::new(
            std::path::Path::new("/x"),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev")
        )
        .hook_runner,
        HookRunner::Normal
    );
    let (v, _, ran) = check(HookRunner::Normal);
    assert_eq!(v["decision"], "deny", "{v}");
    assert_eq!(v["hook"], "PreToolUse");
    assert_eq!(ran.lines().count(), 1);
}

#[test]
fn not_run_starts_nothing_and_says_so_on_the_debug_log() {
    let (v, debug, ran) = check(HookRunner::NotRun);
    assert_eq!(ran, "", "the hook ran");
    assert_eq!(v["decision"], "allow", "{v}");
    assert!(
        debug
            .iter()
            .any(|l| l.contains("/hooks/PreToolUse/0/hooks/0") && l.contains("not run")),
        "{debug:?}"
    );
}

#[test]
fn sandboxed_runs_it_in_a_scratch_folder_and_keeps_its_answer() {
    let (v, _, ran) = check(HookRunner::Sandboxed {
        cap: Duration::from_secs(10),
    });
    assert_eq!(v["decision"], "deny", "{v}");
    let pwd = ran.trim();
    assert!(
        pwd.starts_with(&std::env::temp_dir().display().to_string()),
        "{pwd}"
    );
    assert!(pwd.ends_with("/work"), "{pwd}");
    assert!(
        !std::path::Path::new(pwd).exists(),
        "the scratch folder outlived the run"
    );
}
