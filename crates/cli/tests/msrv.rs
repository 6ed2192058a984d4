//! The minimum Rust version the project declares is the one its locked dependencies
//! need: the workspace's `rust-version`, the README's "Rust toolchain
//! (X or later", and the highest `rust-version` among the crates `Cargo.lock` pins for
//! this host are one and the same. Clippy's `incompatible_msrv` lint (on in
//! `cargo clippy`) checks the workspace's own code against the declared version.

use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(clippy::unwrap_used)]
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `1.88` → `(1, 88, 0)`.
#[allow(clippy::unwrap_used)]
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.trim().split('.').map(|p| p.parse::<u64>().unwrap());
    (
        parts.next().unwrap(),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

/// The text between `start` and the next `end` after it, in `text`.
#[allow(clippy::panic, clippy::unwrap_used)]
fn between<'a>(text: &'a str, start: &str, end: &str) -> &'a str {
    let from = text.find(start).unwrap_or_else(|| panic!("no {start:?}")) + start.len();
    let rest = &text[from..];
    &rest[..rest.find(end).unwrap()]
}

#[allow(clippy::unwrap_used)]
fn host() -> String {
    let out = Command::new("rustc").arg("-vV").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap()
        .to_owned()
}

#[test]
fn the_declared_minimum_rust_is_what_the_locked_dependencies_need() {
    let root = root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let workspace = between(
        between(&manifest, "[workspace.package]", "\n["),
        "rust-version = \"",
        "\"",
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let documented = between(&readme, "the Rust toolchain (", " or later");

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .args(["--filter-platform", &host()])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: Vec<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let (needed, by) = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !members.contains(&p["id"].as_str().unwrap()))
        .filter_map(|p| {
            let v = p["rust_version"].as_str()?;
            Some((version(v), format!("{} {}", p["name"], p["version"])))
        })
        .max()
        .unwrap();
    assert_eq!(
        version(workspace),
        needed,
        "Cargo.toml's rust-version is {workspace}; the locked dependencies need {needed:?} ({by})"
    );
    assert_eq!(
        version(documented),
        needed,
        "the README says Rust {documented}; the locked dependencies need {needed:?} ({by})"
    );
}
