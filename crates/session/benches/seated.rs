//! What seating the security default costs, measured in one run so the
//! ratios compare like with like:
//!
//! - `tool.check` through a chain of 8 plugins (2 prepend, 3 user, 2 append, 1 builtin),
//!   every hook passing: unseated vs seated (target ≤ 1.3×), and seated with one user
//!   plugin rewording the verdict, which makes the security default run the check again
//!   past the user tier (target ≤ 2.3× unseated);
//! - `env.set` of a pinned variable by a person's plugin (refused), and of a free one;
//! - `plugin.register` of a person's module under `allowManagedModsOnly`;
//! - `tool.register` by a person's plugin against 1,000 reserved server scopes;
//! - the policy read: cold (from disk) and a memo hit.
//!
//! Run with `cargo bench -p session`; `scripts/bench-summary` prints the ratios and
//! `scripts/bench-callgrind` the instruction counts; the figures of record are in
//! `crates/fnhooks/benches/BASELINE.md`.

#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use divan::{black_box, Bencher};
use fnhooks::{Event, HookError, Next, Plugin, PluginInfo, Registration, Tier};
use policy::{ManagedLocation, PolicyMemo, SystemClock, POLICY_MEMO_MS};
use serde_json::{json, Value};
use session::{BlockingSession, SessionConfig};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn main() {
    divan::main();
}

/// The code a bench measures. `scripts/bench-callgrind` counts instructions inside
/// this function only (callgrind `--toggle-collect='*measured*'`): the answer's drop is
/// counted, the making of the bench's input and divan's own loop are not.
#[inline(never)]
fn measured<T>(f: impl FnOnce() -> T) {
    drop(black_box(f()));
}

fn folder(settings: &Value, mcp: Option<&Value>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("managed-settings.json"),
        settings.to_string(),
    )
    .unwrap();
    if let Some(m) = mcp {
        std::fs::write(dir.path().join("managed-mcp.json"), m.to_string()).unwrap();
    }
    dir
}

fn pass(id: &str, tier: Tier, event: &str) -> Plugin {
    let info = PluginInfo {
        id: format!("{id}@bench"),
        name: id.to_owned(),
        tier,
        worker: None,
        source: None,
    };
    Plugin::new(info).with(Registration::on(
        event,
        |_cx, e: Event, n: Next| async move { n.run(e).await.map_err(HookError::from) },
    ))
}

fn reworder() -> Plugin {
    let info = PluginInfo {
        id: "reword@bench".into(),
        name: "reword".into(),
        tier: Tier::User,
        worker: None,
        source: None,
    };
    Plugin::new(info).with(Registration::on(
        "tool.check",
        |_cx, e: Event, n: Next| async move {
            let mut v = n.run(e).await?;
            v["reason"] = json!("reworded");
            Ok(v)
        },
    ))
}

/// 2 prepend, 3 user, 2 append, 1 builtin; `rewrite` makes the last user plugin reword.
fn chain(rewrite: bool) -> Vec<Plugin> {
    let mut p = vec![
        pass("p1", Tier::Prepend, "tool.check"),
        pass("p2", Tier::Prepend, "tool.check"),
        pass("u1", Tier::User, "tool.check"),
        pass("u2", Tier::User, "tool.check"),
    ];
    p.push(if rewrite {
        reworder()
    } else {
        pass("u3", Tier::User, "tool.check")
    });
    p.extend([
        pass("a1", Tier::Append, "tool.check"),
        pass("a2", Tier::Append, "tool.check"),
        pass("b1", Tier::Builtin, "tool.check"),
    ]);
    p
}

fn start(dir: &Path, seated: bool, plugins: Vec<Plugin>) -> BlockingSession {
    BlockingSession::start(
        SessionConfig {
            seated,
            ..SessionConfig::new(dir, Path::new("/home/dev/repo"), Path::new("/home/dev"))
        },
        plugins,
    )
    .unwrap()
}

fn policy() -> Value {
    json!({"permissions": {"deny": ["Bash(rm:*)", "Read(~/.ssh/**)"], "ask": ["Bash(git push:*)"]},
           "env": {"HTTPS_PROXY": "http://proxy.example.com"}})
}

fn check_event() -> Event {
    Event::from_value(
        "tool.check",
        json!({"tool": "Read", "input": {"file_path": "/home/dev/repo/src/main.rs"}, "tool_use_id": "t"}),
    )
}

fn bench_check(bencher: Bencher, seated: bool, rewrite: bool) {
    let dir = folder(&policy(), None);
    let s = start(dir.path(), seated, chain(rewrite));
    bencher
        .with_inputs(check_event)
        .bench_local_values(|e| measured(|| s.raise(e)));
}

/// The same `tool.check` with no plugin seated: the core's answer alone, so that
/// (8 plugins − none) / 8 is the cost of one `tool.check` link.
#[divan::bench]
fn tool_check_no_plugins_unseated(bencher: Bencher) {
    let dir = folder(&policy(), None);
    let s = start(dir.path(), false, Vec::new());
    bencher
        .with_inputs(check_event)
        .bench_local_values(|e| measured(|| s.raise(e)));
}

#[divan::bench]
fn tool_check_8_plugins_unseated(bencher: Bencher) {
    bench_check(bencher, false, false);
}

#[divan::bench]
fn tool_check_8_plugins_seated(bencher: Bencher) {
    bench_check(bencher, true, false);
}

#[divan::bench]
fn tool_check_8_plugins_seated_user_rewrite(bencher: Bencher) {
    bench_check(bencher, true, true);
}

#[divan::bench]
fn tool_check_8_plugins_unseated_user_rewrite(bencher: Bencher) {
    bench_check(bencher, false, true);
}

fn env_set(bencher: Bencher, name: &'static str) {
    let dir = folder(&policy(), None);
    let s = start(
        dir.path(),
        true,
        vec![pass("envy", Tier::User, "session.append")],
    );
    bencher
        .with_inputs(|| Event::from_value("env.set", json!({"name": name, "value": "x"})))
        .bench_local_values(|e| measured(|| s.raise_from("envy@bench", e)));
}

#[divan::bench]
fn env_set_pinned_by_a_person(bencher: Bencher) {
    env_set(bencher, "LD_PRELOAD");
}

#[divan::bench]
fn env_set_free_by_a_person(bencher: Bencher) {
    env_set(bencher, "MY_TOOL_COLOR");
}

#[divan::bench]
fn plugin_register_under_mods_only(bencher: Bencher) {
    let settings = json!({"pluginConfigs": {"cc-plugin-sec-default@builtin": {"options": {"allowManagedModsOnly": true}}}});
    let dir = folder(&settings, None);
    let s = start(
        dir.path(),
        true,
        vec![pass("mod", Tier::User, "session.append")],
    );
    bencher.bench_local(|| measured(|| s.reload("mod@bench")));
}

#[divan::bench]
fn tool_register_against_1000_reserved_scopes(bencher: Bencher) {
    let servers: serde_json::Map<String, Value> = (0..1000)
        .map(|i| (format!("corp-server-{i}"), json!({"command": "x"})))
        .collect();
    let dir = folder(&json!({}), Some(&json!({"mcpServers": servers})));
    let s = start(
        dir.path(),
        true,
        vec![pass("notes", Tier::User, "session.append")],
    );
    bencher
        .with_inputs(|| Event::from_value("tool.register", json!({"name": "add"})))
        .bench_local_values(|e| measured(|| s.raise_from("notes@bench", e)));
}

#[divan::bench]
fn policy_read_cold(bencher: Bencher) {
    let dir = folder(&policy(), None);
    let location = ManagedLocation::Explicit(dir.path().to_path_buf());
    bencher.bench_local(|| black_box(policy::read_policy(&location)));
}

#[divan::bench]
fn policy_read_memo_hit(bencher: Bencher) {
    let dir = folder(&policy(), None);
    let memo = PolicyMemo::new(
        ManagedLocation::Explicit(dir.path().to_path_buf()),
        Arc::new(SystemClock),
        Duration::from_millis(POLICY_MEMO_MS * 3600),
    );
    memo.read().unwrap();
    bencher.bench_local(|| black_box(memo.read()));
}

/// The decision log's cost (target: at most 2 µs a `tool.check`): the same seated
/// `tool.check` through 8 plugins with no log, and with a hash-chained log written to a
/// sink (the line built, hashed, chained and written; the disk's own time left out).
fn bench_logged(bencher: Bencher, logged: bool) {
    let dir = folder(&policy(), None);
    let decisions = logged.then(|| {
        Arc::new(session::DecisionLog::to_writer(
            Box::new(std::io::sink()),
            session::GENESIS.to_owned(),
        )) as Arc<dyn session::DecisionSink>
    });
    let s = BlockingSession::start(
        SessionConfig {
            decisions,
            ..SessionConfig::new(
                dir.path(),
                Path::new("/home/dev/repo"),
                Path::new("/home/dev"),
            )
        },
        chain(false),
    )
    .unwrap();
    bencher
        .with_inputs(check_event)
        .bench_local_values(|e| measured(|| s.raise(e)));
}

#[divan::bench]
fn tool_check_8_plugins_seated_no_decision_log(bencher: Bencher) {
    bench_logged(bencher, false);
}

#[divan::bench]
fn tool_check_8_plugins_seated_decision_log(bencher: Bencher) {
    bench_logged(bencher, true);
}
