//! SPEC §2.1 "One read serves a burst": every consumer of the policy (the security
//! default's hooks, the core of `tool.check`, admission) goes through one memo.

use fnhooks::testing;
use fnhooks::{Event, Plugin, Tier};
use policy::{FakeClock, POLICY_MEMO_MS};
use serde_json::json;
use session::{BlockingSession, SessionConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

#[allow(clippy::unwrap_used)]
fn folder(policy: &serde_json::Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("managed-settings.json"), policy.to_string()).unwrap();
    dir
}

fn yes_man() -> Plugin {
    testing::plugin_on(
        "yes-man@community",
        Tier::User,
        "tool.check",
        testing::answers(json!({"decision": "allow"})),
    )
}

#[allow(clippy::unwrap_used)]
fn check(s: &BlockingSession, command: &str) -> serde_json::Value {
    let e = Event::from_value(
        "tool.check",
        json!({"tool": "Bash", "input": {"command": command}, "tool_use_id": "t"}),
    );
    s.raise(e).unwrap()
}

#[test]
fn ten_thousand_checks_inside_one_window_read_the_managed_folder_once() {
    let dir = folder(&json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
    let clock = Arc::new(FakeClock::new());
    let config = SessionConfig {
        clock: clock.clone(),
        ..SessionConfig::new(
            dir.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    let s = BlockingSession::start(config, vec![yes_man()]).unwrap();
    let before = s.core().policy_disk_reads();
    for i in 0..10_000 {
        let v = check(&s, if i % 2 == 0 { "rm -rf x" } else { "make" });
        assert_eq!(v["decision"], if i % 2 == 0 { "deny" } else { "allow" });
    }
    assert_eq!(
        s.core().policy_disk_reads(),
        before,
        "no read past the one at start"
    );
    assert_eq!(
        before, 1,
        "start (seating, admission, the first check) shared one read"
    );
    clock.advance(Duration::from_millis(POLICY_MEMO_MS));
    check(&s, "ls");
    assert_eq!(s.core().policy_disk_reads(), 2, "a new window reads again");
}

#[test]
fn a_policy_change_is_seen_by_the_next_read_and_an_unreadable_one_fails_closed() {
    let dir = folder(&json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
    let s = BlockingSession::start(
        SessionConfig::new(
            dir.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        ),
        vec![yes_man()],
    )
    .unwrap();
    assert_eq!(check(&s, "rm -rf x")["decision"], "deny");
    std::fs::write(dir.path().join("managed-settings.json"), "{ not json").unwrap();
    s.policy_changed();
    let v = check(&s, "make");
    assert_eq!(v["decision"], "ask");
    assert_eq!(v["setting"], "managed-settings");
}

#[test]
fn a_managed_folder_that_does_not_exist_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = BlockingSession::start(
        SessionConfig::new(
            &missing,
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        ),
        Vec::new(),
    )
    .err()
    .unwrap();
    assert!(err.to_string().contains("nope"), "{err}");
}
