//! Every scenario file under `shared/cases` loads (SCENARIOS.md is a fixed contract:
//! the real files are the proof).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests fail loudly"
)]

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use scenario::{
    load_file, load_paths, Behaviour, Expectation, FileEntry, FileSpec, PolicySpec, Step,
};

fn cases_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/cases")
}

#[test]
fn every_case_file_loads() {
    let dir = cases_dir();
    let files = scenario::load::scenario_files(&dir).unwrap();
    assert!(files.len() >= 30, "found only {} case files", files.len());
    for file in &files {
        let loaded = load_file(file).unwrap_or_else(|e| panic!("{e}"));
        assert!(!loaded.is_empty(), "{} holds no scenario", file.display());
    }
    let all = load_paths(&[dir]).unwrap_or_else(|e| panic!("{e}"));
    let mut seen: Vec<&PathBuf> = all.iter().map(|l| &l.file).collect();
    seen.dedup();
    assert_eq!(
        seen,
        files.iter().collect::<Vec<_>>(),
        "files in sorted order"
    );
}

#[test]
fn cases_parse_as_written() {
    let dir = cases_dir();
    let env = load_file(&dir.join("env/code-loading-variables.json")).unwrap();
    assert_eq!(env.len(), 1);
    assert_eq!(env[0].index, None);
    let s = &env[0].scenario;
    assert!(s.seated);
    assert_eq!(s.session.mode, "default");
    assert_eq!(s.session.hook_timeout_ms, 1000);
    assert_eq!(s.plugins[0].manifest_name(), "envy");
    let Step::Raise(step) = &s.steps[0] else {
        panic!("a raise step")
    };
    assert_eq!(step.raise, "env.set");
    assert_eq!(step.from.as_deref(), Some("envy@community"));
    let Some(Expectation::Match(spec)) = &step.expect else {
        panic!("a match expectation")
    };
    assert_eq!(
        spec.fields,
        serde_json::json!({"deny": {"$contains": "LD_PRELOAD"}})
    );

    let list = load_file(&dir.join("admission/managed-mods-only.json")).unwrap();
    assert!(list.len() > 1);
    assert_eq!(list[1].index, Some(1));
    assert_eq!(list[0].scenario.plugins[0].admitted, Some(false));

    let broken = load_file(&dir.join("fail-closed/policy-breaks-mid-session.json")).unwrap();
    let Step::ChangePolicy(change) = &broken[0].scenario.steps[1] else {
        panic!("a change_policy step")
    };
    let (path, spec) = change.change_policy.iter().next().unwrap();
    assert_eq!(path.as_str(), "managed-settings.json");
    assert!(matches!(spec, Some(FileSpec::Raw(_))));
    assert!(matches!(
        broken[0].scenario.plugins[0].hooks[0].do_,
        Behaviour::Answer(_)
    ));

    let real = load_file(&dir.join("real-inputs/array-mcp.json")).unwrap();
    let policy = &real[0].scenario.policy;
    assert!(matches!(policy, PolicySpec::Dir(_)));
    assert!(policy.resolved_dir(&real[0].file).unwrap().is_dir());

    let symlink = load_file(&dir.join("permissions/symlink.json")).unwrap();
    let files = symlink[0].scenario.session.files.as_ref().unwrap();
    assert_eq!(
        files.values().next(),
        Some(&FileEntry::Symlink {
            symlink: "/etc/passwd".to_owned()
        })
    );
}
