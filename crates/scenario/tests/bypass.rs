//! The bypass corpus: every scenario under
//! `examples/scenarios/bypass` passes — one test per family file, each step a real
//! technique for getting around a managed deny or ask (wrappers, quoting,
//! separators, substitutions, dynamic code, paths, symlinks, Unicode, case,
//! redirects, modes, hooks, WebFetch hosts, other tools' rules; and the `shell-*`
//! files `scripts/gen-shell-bypass.py` writes: what the core cannot see it never
//! lets through, SPEC §4).

mod common;

use common::{root, run_dir};

/// The family files, one test each below.
const FAMILIES: &[&str] = &[
    "wrappers",
    "quoting",
    "separators",
    "substitutions",
    "dynamic",
    "paths",
    "symlinks",
    "unicode",
    "case",
    "redirects",
    "modes",
    "hooks",
    "webfetch",
    "tools",
    "shell-arithmetic",
    "shell-arithmetic-2",
    "shell-later-strings",
    "shell-runners",
    "shell-runtime-paths",
    "shell-folders",
    "shell-expansion",
    "shell-interpreters",
    "shell-adversary",
    "shell-adversary-2",
    "shell-cdpath-fc",
    "shell-sweep",
    "shell-extglob-git",
];

/// Runs every scenario of `examples/scenarios/bypass/<family>.json`.
fn run_family(family: &str) {
    run_dir(&format!("examples/scenarios/bypass/{family}.json"));
}

#[test]
fn bypass_wrappers() {
    run_family("wrappers");
}

#[test]
fn bypass_quoting() {
    run_family("quoting");
}

#[test]
fn bypass_separators() {
    run_family("separators");
}

#[test]
fn bypass_substitutions() {
    run_family("substitutions");
}

#[test]
fn bypass_dynamic() {
    run_family("dynamic");
}

#[test]
fn bypass_paths() {
    run_family("paths");
}

#[test]
fn bypass_symlinks() {
    run_family("symlinks");
}

#[test]
fn bypass_unicode() {
    run_family("unicode");
}

#[test]
fn bypass_case() {
    run_family("case");
}

#[test]
fn bypass_redirects() {
    run_family("redirects");
}

#[test]
fn bypass_modes() {
    run_family("modes");
}

#[test]
fn bypass_hooks() {
    run_family("hooks");
}

#[test]
fn bypass_webfetch() {
    run_family("webfetch");
}

#[test]
fn bypass_tools() {
    run_family("tools");
}

#[test]
fn bypass_shell_arithmetic() {
    run_family("shell-arithmetic");
}

#[test]
fn bypass_shell_arithmetic_2() {
    run_family("shell-arithmetic-2");
}

#[test]
fn bypass_shell_later_strings() {
    run_family("shell-later-strings");
}

#[test]
fn bypass_shell_runners() {
    run_family("shell-runners");
}

#[test]
fn bypass_shell_runtime_paths() {
    run_family("shell-runtime-paths");
}

#[test]
fn bypass_shell_folders() {
    run_family("shell-folders");
}

#[test]
fn bypass_shell_expansion() {
    run_family("shell-expansion");
}

#[test]
fn bypass_shell_interpreters() {
    run_family("shell-interpreters");
}

#[test]
fn bypass_shell_adversary() {
    run_family("shell-adversary");
}

#[test]
fn bypass_shell_adversary_2() {
    run_family("shell-adversary-2");
}

#[test]
fn bypass_shell_cdpath_fc() {
    run_family("shell-cdpath-fc");
}

#[test]
fn bypass_shell_sweep() {
    run_family("shell-sweep");
}

#[test]
fn bypass_shell_extglob_git() {
    run_family("shell-extglob-git");
}

/// Every family file in the folder has its test above, and the corpus keeps at least
/// 150 steps.
#[test]
fn bypass_every_family_file_has_a_test_and_the_corpus_is_large_enough() {
    let dir = root().join("examples/scenarios/bypass");
    let mut steps = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            FAMILIES.contains(&stem.as_str()),
            "{} has no test in crates/scenario/tests/bypass.rs",
            path.display()
        );
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        steps += v["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["steps"].as_array().unwrap().len())
            .sum::<usize>();
    }
    assert!(
        steps >= 150,
        "the bypass corpus has {steps} steps, fewer than 150"
    );
}
