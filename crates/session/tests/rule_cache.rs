//! The compiled-rule cache is a handle the embedding program owns: sessions given
//! clones of one cache compile a set of sources once, and two caches never share.

use fnhooks::Event;
use serde_json::json;
use session::{BlockingSession, RuleCache, SessionConfig};
use std::path::Path;

#[allow(
    clippy::unwrap_used,
    reason = "a test helper: a session that does not start fails the test"
)]
fn check_in(dir: &Path, cache: &RuleCache) -> serde_json::Value {
    let config = SessionConfig {
        rule_cache: cache.clone(),
        ..SessionConfig::new(dir, Path::new("/home/dev/repo"), Path::new("/home/dev"))
    };
    let s = BlockingSession::start(config, Vec::new()).unwrap();
    s.raise(Event::from_value(
        "tool.check",
        json!({"tool": "Bash", "input": {"command": "rm -rf build"}, "tool_use_id": "t1"}),
    ))
    .unwrap()
}

#[test]
fn sessions_sharing_a_cache_compile_once_and_caches_stay_apart() {
    let deny = tempfile::tempdir().unwrap();
    std::fs::write(
        deny.path().join("managed-settings.json"),
        json!({"permissions": {"deny": ["Bash(rm:*)"]}}).to_string(),
    )
    .unwrap();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(
        other.path().join("managed-settings.json"),
        json!({"permissions": {"ask": ["Bash(rm:*)"]}}).to_string(),
    )
    .unwrap();

    let shared = RuleCache::new();
    assert!(shared.is_empty());
    assert_eq!(check_in(deny.path(), &shared)["decision"], "deny");
    assert_eq!(shared.len(), 1);
    // The same sources again: the compiled set is reused, not added.
    assert_eq!(check_in(deny.path(), &shared)["decision"], "deny");
    assert_eq!(shared.len(), 1);
    // Another embedder's cache holds its own, and leaves this one alone.
    let apart = RuleCache::new();
    assert_eq!(check_in(other.path(), &apart)["decision"], "ask");
    assert_eq!((shared.len(), apart.len()), (1, 1));
    // A new policy on the shared cache is compiled beside the first.
    assert_eq!(check_in(other.path(), &shared)["decision"], "ask");
    assert_eq!(shared.len(), 2);
    // A config made by SessionConfig::new brings a cache of its own.
    let fresh = SessionConfig::new(deny.path(), Path::new("/r"), Path::new("/h"));
    assert!(fresh.rule_cache.is_empty());
}
