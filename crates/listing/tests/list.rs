//! What a plan lists: each found plugin's mod loaded, or listed as unloadable with why.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use serde_json::{json, Map, Value};
use std::fs;
use std::path::{Path, PathBuf};

/// A machine with the organization's guard: a directory marketplace the managed
/// settings name, enabled with `true`, seated in `prependPlugins`, a mod.
struct Machine {
    dir: tempfile::TempDir,
    managed: Map<String, Value>,
}

impl Machine {
    fn org() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        for d in ["managed", "home/.claude/plugins"] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let m = Machine {
            dir,
            managed: json!({
                "extraKnownMarketplaces": { "acme": { "source": { "source": "directory", "path": "./market" } } },
                "enabledPlugins": { "guard@acme": true },
                "prependPlugins": ["cc-plugin-sec-default@builtin", "guard@acme"],
            })
            .as_object()
            .cloned()
            .unwrap(),
        };
        m.write(
            "managed/market/.claude-plugin/marketplace.json",
            &json!({ "name": "acme", "owner": { "name": "x" },
                     "plugins": [{ "name": "guard", "source": "./guard" }] })
            .to_string(),
        );
        m.write(
            "managed/market/guard/.claude-plugin/plugin.json",
            r#"{"name": "guard"}"#,
        );
        m.write(
            "managed/market/guard/hooks/hooks.json",
            r#"{"modules": ["./register.ts"]}"#,
        );
        m.write(
            "managed/market/guard/hooks/register.ts",
            "export function register() {}",
        );
        m
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    /// `f` of this machine's loader inputs.
    fn with_inputs<T>(&self, f: impl FnOnce(&loader::Inputs<'_>) -> T) -> T {
        let (managed_base, home, root) = (
            self.path("managed"),
            self.path("home"),
            self.path("home/.claude/plugins"),
        );
        f(&loader::Inputs {
            managed: &self.managed,
            managed_base: &managed_base,
            person: &[],
            plugin_dirs: &[],
            plugin_root: &root,
            home: &home,
        })
    }
}

/// Each found plugin's id and how it loaded.
fn loads(m: &Machine) -> Vec<(String, Result<(), String>)> {
    m.with_inputs(|inputs| {
        let plan = loader::plan(inputs);
        listing::list(&plan, inputs, &mods::HostConfig::default())
            .loaded
            .into_iter()
            .map(|l| (l.found.id, l.load.map_err(|e| e.to_string())))
            .collect()
    })
}

#[test]
fn the_organizations_mod_loads_and_is_listed_in_its_tier() {
    let m = Machine::org();
    let listed = m.with_inputs(|inputs| {
        let plan = loader::plan(inputs);
        listing::list(&plan, inputs, &mods::HostConfig::default())
    });
    assert_eq!(listed.listed.len(), listed.loaded.len());
    let guard = listed
        .loaded
        .iter()
        .find(|l| l.found.id == "guard@acme")
        .expect("listed");
    assert!(guard.load.is_ok(), "{:?}", guard.load);
}

#[test]
fn a_mod_that_cannot_load_is_listed_with_the_line_naming_its_file() {
    let m = Machine::org();
    m.write(
        "managed/market/guard/hooks/register.ts",
        "export function (",
    );
    let loads = loads(&m);
    let (_, load) = loads
        .iter()
        .find(|(id, _)| id == "guard@acme")
        .expect("listed");
    let why = load.as_ref().expect_err("its load fails");
    assert!(why.contains("hooks/register.ts:1:"), "{why}");
}

/// Makes a FIFO at `path` in place of what is there (with the `mkfifo` command).
#[cfg(unix)]
fn mkfifo(path: &Path) {
    let _ = fs::remove_file(path);
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn a_fifo_hooks_json_of_the_organizations_mod_fails_its_load_naming_it() {
    let m = Machine::org();
    mkfifo(&m.path("managed/market/guard/hooks/hooks.json"));
    // A guard: a read that blocks fails the test instead of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(loads(&m));
    });
    let loads = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("answered, not hung");
    let (_, load) = loads
        .iter()
        .find(|(id, _)| id == "guard@acme")
        .expect("listed");
    let why = load.as_ref().expect_err("its load fails");
    assert!(
        why.ends_with(
            "hooks/hooks.json: cannot read: it is a FIFO, not a regular file, so it is not read"
        ),
        "{why}"
    );
}
