//! `read_policy` over every real managed folder in
//! /work/shared/real-inputs/managed (see real-inputs/SOURCES.md), snapshotted.
//! Paths are printed relative to that folder.

use std::path::{Path, PathBuf};

use policy::{read_policy, ManagedLocation, Policy};
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/real-inputs/managed")
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn view(policy: &Policy, root: &Path) -> Value {
    json!({
        "settings": policy.settings,
        "warnings": policy.warnings.iter().map(|w| json!({
            "file": relative(&w.file, root),
            "pointer": w.pointer,
            "reason": w.reason,
        })).collect::<Vec<_>>(),
        "sources": policy.sources.iter().map(|s| json!({
            "path": relative(&s.path, root),
            "kind": s.kind,
        })).collect::<Vec<_>>(),
    })
}

#[allow(clippy::unwrap_used)]
fn folders() -> Vec<(String, PathBuf)> {
    let root = root();
    let Ok(entries) = std::fs::read_dir(&root) else {
        eprintln!("{} is not there; skipping", root.display());
        return Vec::new();
    };
    let mut folders: Vec<(String, PathBuf)> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    folders.sort();
    folders
}

#[test]
fn every_real_managed_folder_reads() {
    let root = root();
    for (name, folder) in folders() {
        let policy = read_policy(&ManagedLocation::Explicit(folder.clone()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        insta::assert_json_snapshot!(name.clone(), view(&policy, &root));
        insta::assert_debug_snapshot!(format!("{name}-managed"), policy.managed());
    }
}

#[test]
fn hardening_keeps_the_deny_rules_beside_the_misplaced_key() {
    let Some((_, folder)) = folders().into_iter().find(|(n, _)| n == "hardening") else {
        return;
    };
    let policy = read_policy(&ManagedLocation::Explicit(folder)).unwrap();
    let managed = policy.managed();
    assert_eq!(managed.deny.len(), 12);
    assert!(managed.disable_bypass_permissions_mode);
    assert!(
        !managed.allow_managed_permission_rules_only,
        "misplaced, so dropped"
    );
    assert!(managed.allow_managed_hooks_only);
    assert_eq!(managed.strict_known_marketplaces, Some(vec![]));
    assert_eq!(policy.warnings.len(), 1);
    assert_eq!(
        policy.warnings[0].pointer,
        "/permissions/allowManagedPermissionRulesOnly"
    );
}

#[test]
fn security_numeric_env_pins_the_dropped_name() {
    let Some((_, folder)) = folders()
        .into_iter()
        .find(|(n, _)| n == "security-numeric-env")
    else {
        return;
    };
    let policy = read_policy(&ManagedLocation::Explicit(folder)).unwrap();
    let managed = policy.managed();
    assert!(managed.env.is_empty());
    assert_eq!(
        managed.env_names,
        vec!["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"]
    );
    assert_eq!(managed.deny.len(), 7);
}

#[test]
fn raven_names_raven_and_array_mcp_names_nobody() {
    let by_name = |name: &str| {
        folders()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
    };
    if let Some(folder) = by_name("raven-mcp") {
        let managed = read_policy(&ManagedLocation::Explicit(folder))
            .unwrap()
            .managed();
        assert_eq!(managed.managed_mcp_servers, vec!["raven"]);
        assert!(!managed.managed_mcp_servers_unreadable);
    }
    if let Some(folder) = by_name("array-mcp") {
        let policy = read_policy(&ManagedLocation::Explicit(folder)).unwrap();
        let managed = policy.managed();
        assert!(managed.managed_mcp_servers.is_empty());
        assert!(managed.managed_mcp_servers_unreadable);
        assert_eq!(policy.warnings.len(), 1);
    }
}
