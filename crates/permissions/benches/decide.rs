//! Benches of the core's decision (SPEC §4; issue #3 item 7): a decision over 10,
//! 100, 1,000 and 10,000 rules, with and without a shell parse, and the parse memo.
//!
//! Run with `cargo bench -p permissions`.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use divan::{black_box, Bencher};
use permissions::bash::{parse_command, parse_command_cached};
use permissions::{decide, Question, RuleSet, SessionFacts, SettingsSource};
use serde_json::{json, Value};

fn main() {
    divan::main();
}

const COUNTS: &[usize] = &[10, 100, 1_000, 10_000];

/// `n` rules in all three lists, none of which matches the benched questions, so
/// every decision scans them all.
fn rules(n: usize) -> RuleSet {
    let deny: Vec<String> = (0..n / 3).map(|i| format!("Bash(tool{i}:*)")).collect();
    let ask: Vec<String> = (0..n / 3)
        .map(|i| format!("Read(./secret{i}/**)"))
        .collect();
    let allow: Vec<String> = (0..n - 2 * (n / 3))
        .map(|i| format!("Bash(build{i} *)"))
        .collect();
    let settings = json!({"permissions": {"deny": deny, "ask": ask, "allow": allow}});
    RuleSet::from_sources(&[(SettingsSource::Policy, &settings)]).0
}

fn facts() -> SessionFacts {
    SessionFacts::new("/home/dev/repo", "/home/dev")
}

const COMMAND: &str = "git status && FOO=1 timeout 5 npm test -- --watch=false | tee out.log; \
                       cat src/main.rs | grep -n fn > /dev/null";

/// A decision on a file tool: no shell parse.
#[divan::bench(args = COUNTS)]
fn read_no_parse(bencher: Bencher, n: usize) {
    let r = rules(n);
    let f = facts();
    let input = json!({"file_path": "/home/dev/repo/src/main.rs"});
    bencher.bench(|| {
        decide(
            black_box(&r),
            &Question {
                tool: "Read",
                input: &input,
            },
            &f,
        )
    });
}

/// A decision on a shell command whose parse is in the memo (the usual case: the
/// same command is decided more than once).
#[divan::bench(args = COUNTS)]
fn bash_memo_hit(bencher: Bencher, n: usize) {
    let r = rules(n);
    let f = facts();
    let input = json!({ "command": COMMAND });
    bencher.bench(|| {
        decide(
            black_box(&r),
            &Question {
                tool: "Bash",
                input: &input,
            },
            &f,
        )
    });
}

/// A decision on a shell command never seen before: a full parse each time.
#[divan::bench(args = COUNTS)]
fn bash_with_parse(bencher: Bencher, n: usize) {
    let r = rules(n);
    let f = facts();
    let counter = std::sync::atomic::AtomicU64::new(0);
    bencher
        .with_inputs(|| {
            let i = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            json!({ "command": format!("{COMMAND} # {i}") })
        })
        .bench_refs(|input: &mut Value| {
            decide(
                black_box(&r),
                &Question {
                    tool: "Bash",
                    input,
                },
                &f,
            )
        });
}

/// The shell parse alone, and the memo hit alone.
#[divan::bench]
fn parse_only() -> usize {
    parse_command(black_box(COMMAND)).parts.len()
}

#[divan::bench]
fn parse_memo_hit() -> usize {
    parse_command_cached(black_box(COMMAND)).parts.len()
}
