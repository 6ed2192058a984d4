//! `sec-default audit` time against the policy's size (target: linear, and
//! 30,000 rules in at most 10 s on the project's 2-core machine). divan prints the time
//! of one audit, as a process, of a generated policy of `n` deny and ask rules: a mix
//! of the shapes real policies write (`Bash(tool:*)`, `Bash(git push --force-n *)`,
//! `Read(~/secrets/...)`, `Edit(//etc/...)`, `WebFetch(domain:...)`, `mcp__srv__tool`),
//! one in five an ask rule. Run with `cargo bench -p sec-default-cli --bench audit`;
//! the 30,000-rule point takes a while and is measured with `--json` as the README's
//! note says.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use divan::Bencher;
use std::path::Path;
use std::process::{Command, Stdio};

fn main() {
    divan::main();
}

/// A managed folder of `n` rules in the mix above.
fn policy(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let (mut deny, mut ask) = (Vec::new(), Vec::new());
    for i in 0..n {
        let rule = match i % 6 {
            0 => format!("Bash(tool{i}:*)"),
            1 => format!("Bash(git push --force-{i} *)"),
            2 => format!("Read(~/secrets/s{i}/**)"),
            3 => format!("Edit(//etc/app{i}/**)"),
            4 => format!("WebFetch(domain:host{i}.example)"),
            _ => format!("mcp__srv{i}__tool"),
        };
        if i % 5 == 4 {
            ask.push(rule);
        } else {
            deny.push(rule);
        }
    }
    let settings = serde_json::json!({"permissions": {"deny": deny, "ask": ask}});
    std::fs::write(
        dir.path().join("managed-settings.json"),
        settings.to_string(),
    )
    .unwrap();
    dir
}

fn audit(folder: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_sec-default"))
        .args(["audit", "--json", "--managed"])
        .arg(folder)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// One audit of a policy of `n` rules.
#[divan::bench(args = [1_000, 3_000, 10_000], sample_count = 3, sample_size = 1)]
fn rules(bencher: Bencher, n: usize) {
    let dir = policy(n);
    bencher.bench(|| audit(dir.path()));
}
