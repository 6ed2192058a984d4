//! The policy memo: one read serves a burst (SPEC §2.1).

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{managed_folder, write_file};
use policy::{
    Clock, FakeClock, ManagedLocation, PolicyError, PolicyMemo, SystemClock, POLICY_MEMO_MS,
};
use serde_json::{json, Value};

const WINDOW: Duration = Duration::from_millis(POLICY_MEMO_MS);

fn memo_over(files: Value) -> (tempfile::TempDir, Arc<FakeClock>, PolicyMemo) {
    let dir = managed_folder(&files);
    let clock = Arc::new(FakeClock::new());
    let memo = PolicyMemo::new(
        ManagedLocation::Explicit(dir.path().to_path_buf()),
        clock.clone(),
        WINDOW,
    );
    (dir, clock, memo)
}

#[test]
fn ten_thousand_reads_inside_one_window_read_the_folder_once() {
    let (_dir, clock, memo) =
        memo_over(json!({"managed-settings.json": {"permissions": {"deny": ["Bash(rm:*)"]}}}));
    let first = memo.read().unwrap();
    assert!(first.first_sight);
    for _ in 1..10_000 {
        let again = memo.read().unwrap();
        assert!(!again.first_sight);
        assert!(
            Arc::ptr_eq(&first.policy, &again.policy),
            "one shared value"
        );
        clock.advance(Duration::from_nanos(1));
    }
    assert_eq!(memo.disk_reads(), 1);
}

#[test]
fn the_window_expiring_causes_a_new_read() {
    let (_dir, clock, memo) = memo_over(json!({"managed-settings.json": {}}));
    memo.read().unwrap();
    clock.advance(WINDOW - Duration::from_nanos(1));
    memo.read().unwrap();
    assert_eq!(memo.disk_reads(), 1, "still inside the window");
    clock.advance(Duration::from_nanos(1));
    let read = memo.read().unwrap();
    assert_eq!(memo.disk_reads(), 2);
    assert!(!read.first_sight, "same content: not first sight");
}

#[test]
fn invalidate_sends_the_next_read_to_disk_and_new_content_is_first_sight() {
    let (dir, _clock, memo) =
        memo_over(json!({"managed-settings.json": {"permissions": {"deny": ["A"]}}}));
    assert_eq!(memo.read().unwrap().policy.managed().deny, vec!["A"]);
    write_file(
        dir.path(),
        "managed-settings.json",
        &json!({"permissions": {"deny": ["B"]}}),
    );
    // Inside the window, the memo still answers without touching the disk.
    assert_eq!(memo.read().unwrap().policy.managed().deny, vec!["A"]);
    memo.invalidate();
    let read = memo.read().unwrap();
    assert_eq!(read.policy.managed().deny, vec!["B"]);
    assert!(read.first_sight);
    assert_eq!(memo.disk_reads(), 2);
}

#[test]
fn a_failed_read_is_not_kept() {
    let (dir, _clock, memo) = memo_over(json!({"managed-settings.json": {"model": "a"}}));
    memo.read().unwrap();
    write_file(
        dir.path(),
        "managed-settings.json",
        &json!({"$unreadable": true}),
    );
    memo.invalidate();
    assert!(matches!(memo.read(), Err(PolicyError::Io { .. })));
    assert!(matches!(memo.read(), Err(PolicyError::Io { .. })));
    assert_eq!(
        memo.disk_reads(),
        3,
        "every call after a failure reads again"
    );
    // Fixed: the next call reads it, with no invalidate and no clock change.
    write_file(dir.path(), "managed-settings.json", &json!({"model": "a"}));
    let read = memo.read().unwrap();
    assert_eq!(memo.disk_reads(), 4);
    assert!(
        !read.first_sight,
        "same content as the last successful read"
    );
    memo.read().unwrap();
    assert_eq!(memo.disk_reads(), 4);
}

#[test]
fn first_sight_tracks_warnings_too() {
    let (dir, _clock, memo) = memo_over(json!({"managed-settings.json": {"env": {"A": "1"}}}));
    assert!(memo.read().unwrap().first_sight);
    write_file(
        dir.path(),
        "managed-settings.json",
        &json!({"env": {"A": "1"}}),
    );
    memo.invalidate();
    assert!(!memo.read().unwrap().first_sight);
    write_file(
        dir.path(),
        "managed-settings.json",
        &json!({"env": {"A": "1", "B": 2}}),
    );
    memo.invalidate();
    let read = memo.read().unwrap();
    assert!(read.first_sight);
    assert_eq!(read.policy.warnings.len(), 1);
}

#[test]
fn concurrent_callers_share_one_read() {
    let (_dir, _clock, memo) = memo_over(json!({"managed-settings.json": {"model": "m"}}));
    let memo = Arc::new(memo);
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let memo = Arc::clone(&memo);
            std::thread::spawn(move || {
                for _ in 0..1_000 {
                    memo.read().unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(memo.disk_reads(), 1);
}

#[test]
fn the_memo_is_send_and_sync_and_knows_its_location() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<PolicyMemo>();
    let memo = PolicyMemo::new(ManagedLocation::Platform, Arc::new(SystemClock), WINDOW);
    assert_eq!(memo.location(), &ManagedLocation::Platform);
    assert_eq!(memo.window(), WINDOW);
    assert_eq!(memo.disk_reads(), 0);
}

#[test]
fn clocks_move_forward() {
    let fake = FakeClock::new();
    assert_eq!(fake.now(), Duration::ZERO);
    fake.advance(Duration::from_millis(5));
    assert_eq!(fake.now(), Duration::from_millis(5));
    fake.advance(Duration::MAX);
    assert_eq!(fake.now(), Duration::from_nanos(u64::MAX), "saturates");
    let system = SystemClock;
    let a = system.now();
    assert!(system.now() >= a);
}
