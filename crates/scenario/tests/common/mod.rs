//! Helpers shared by the scenario test files: run every scenario under a path and fail
//! listing each failing step with its path relative to the workspace root.

use scenario::run::{run_scenario, RunOptions};
use std::path::{Path, PathBuf};

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs every scenario under `dir` (relative to the workspace root), seated and with
/// `--compare`, and fails listing every failure with its path relative to the root.
pub(crate) fn run_dir(rel: &str) {
    run_dir_with(rel, false);
}

/// [`run_dir`], with [`RunOptions::embedder_batches`] as given.
#[allow(clippy::panic)]
pub(crate) fn run_dir_with(rel: &str, embedder_batches: bool) {
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
                embedder_batches,
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
