//! Benches of the core's decision (SPEC §4): a decision over 10,
//! 100, 1,000 and 10,000 rules, with and without a shell parse, and the parse memo.
//!
//! Run with `cargo bench -p permissions`. `canonical_only` is the filesystem floor
//! of a file decision (one `lstat` per path component, SPEC §4: paths are met by
//! their canonical form too); `other_tool` the core's fixed cost.

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

/// Numbers the commands of [`bash_with_parse`] across all its runs, so that none is
/// ever in the parse memo.
static FRESH: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A decision on a shell command never seen before: a full parse each time.
#[divan::bench(args = COUNTS)]
fn bash_with_parse(bencher: Bencher, n: usize) {
    let r = rules(n);
    let f = facts();
    bencher
        .with_inputs(|| {
            let i = FRESH.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

/// The floor of a file decision: resolving one path's symbolic links (SPEC §4: a
/// path is met as typed and canonical), one `lstat` per existing component. What
/// `read_no_parse` costs above this is the rules' share.
#[divan::bench]
fn canonical_only() -> Option<Vec<String>> {
    permissions::path::canonical(
        black_box(std::path::Path::new("/home/dev/repo/src/main.rs")),
        std::path::Path::new("/home/dev/repo"),
        std::path::Path::new("/home/dev"),
    )
}

/// A decision no rule can apply to (an MCP tool no rule names): the core's fixed
/// cost, with no path and no shell command.
#[divan::bench(args = COUNTS)]
fn other_tool(bencher: Bencher, n: usize) {
    let r = rules(n);
    let f = facts();
    let input = json!({"q": "x"});
    bencher.bench(|| {
        decide(
            black_box(&r),
            &Question {
                tool: "mcp__docs__search",
                input: &input,
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
