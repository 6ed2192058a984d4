//! Every scenario of `../shared/cases` and of the project's own `examples/scenarios`
//! passes (issue #2 item 8; `permissions/` is issue #3's).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use scenario::run::{run_scenario, RunOptions};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs every scenario under `dir` (relative to the workspace root), seated and with
/// `--compare`, and fails listing every failure with its path relative to the root.
fn run_dir(rel: &str) {
    let dir = root().join(rel);
    let loaded = scenario::load_paths(&[dir]).unwrap_or_else(|e| panic!("{e}"));
    assert!(!loaded.is_empty(), "no scenario under {rel}");
    let mut failures = Vec::new();
    for l in &loaded {
        let report = run_scenario(
            l,
            &RunOptions {
                managed: None,
                compare: true,
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", l.file.display()));
        for f in &report.failures {
            let file = l
                .file
                .strip_prefix(root())
                .unwrap_or(&l.file)
                .display()
                .to_string();
            failures.push(format!(
                "{file}{} {:?} step {:?}: {}\n  expected {}\n  actual {}\n  trace {}",
                l.pointer(),
                report.name,
                f.step,
                f.why,
                f.expected,
                f.actual,
                serde_json::to_string(&f.trace).unwrap_or_default()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn shared_cases_admission() {
    run_dir("../shared/cases/admission");
}

#[test]
fn shared_cases_env() {
    run_dir("../shared/cases/env");
}

#[test]
fn shared_cases_fail_closed() {
    run_dir("../shared/cases/fail-closed");
}

#[test]
fn shared_cases_held_verdict() {
    run_dir("../shared/cases/held-verdict");
}

/// Issue #3: the permission core's own cases (classic hooks, the tool-use flow, modes;
/// the rule-language files depend on the rule core).
#[test]
fn shared_cases_permissions() {
    run_dir("../shared/cases/permissions");
}

#[test]
fn shared_cases_prompt() {
    run_dir("../shared/cases/prompt");
}

#[test]
fn shared_cases_real_inputs() {
    run_dir("../shared/cases/real-inputs");
}

#[test]
fn shared_cases_register() {
    run_dir("../shared/cases/register");
}

#[test]
fn project_scenarios_one_per_spec_row_attack_and_control() {
    run_dir("examples/scenarios/rows");
}

#[test]
fn regressions_found_by_the_properties() {
    run_dir("examples/scenarios/regressions");
}
