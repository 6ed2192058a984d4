//! The loading rules of SPEC §6 on folders made for each test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;
use std::fs;

/// A machine: a managed folder, a home with its plugin root, a project.
struct Machine {
    dir: tempfile::TempDir,
    managed: Map<String, Value>,
    user: Map<String, Value>,
    project: Map<String, Value>,
    plugin_dirs: Vec<PathBuf>,
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        for d in ["managed", "home/.claude/plugins", "project"] {
            fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Machine {
            dir,
            managed: Map::new(),
            user: Map::new(),
            project: Map::new(),
            plugin_dirs: Vec::new(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    /// A plugin folder at `rel` named `name`, a mod (with a hooks module) or not.
    fn plugin(&self, rel: &str, name: &str, is_mod: bool, manifest_extra: Value) {
        let mut m = obj(json!({ "name": name }));
        m.extend(obj(manifest_extra));
        self.write(
            &format!("{rel}/.claude-plugin/plugin.json"),
            &Value::Object(m).to_string(),
        );
        if is_mod {
            self.write(
                &format!("{rel}/hooks/hooks.json"),
                r#"{"modules": ["./register.ts"]}"#,
            );
            self.write(
                &format!("{rel}/hooks/register.ts"),
                "export function register() {}",
            );
        }
    }

    /// A marketplace folder at `rel` named `name` listing `plugins` (`[name, source]`).
    fn market(&self, rel: &str, name: &str, plugins: &[(&str, Value)]) {
        let ps: Vec<Value> = plugins
            .iter()
            .map(|(n, s)| json!({ "name": n, "source": s }))
            .collect();
        self.write(
            &format!("{rel}/.claude-plugin/marketplace.json"),
            &json!({ "name": name, "owner": { "name": "x" }, "plugins": ps }).to_string(),
        );
    }

    fn plan(&self) -> Plan {
        self.with_inputs(plan)
    }

    /// `f` of this machine's loader inputs.
    fn with_inputs<T>(&self, f: impl FnOnce(&Inputs<'_>) -> T) -> T {
        let (managed_base, home, root, project) = (
            self.path("managed"),
            self.path("home"),
            self.path("home/.claude/plugins"),
            self.path("project"),
        );
        let person = [
            PersonSettings {
                source: "user",
                settings: &self.user,
                base: &home,
            },
            PersonSettings {
                source: "project",
                settings: &self.project,
                base: &project,
            },
        ];
        f(&Inputs {
            managed: &self.managed,
            managed_base: &managed_base,
            person: &person,
            plugin_dirs: &self.plugin_dirs,
            plugin_root: &root,
            home: &home,
        })
    }
}

/// The organization's guard: a directory marketplace the managed settings name,
/// enabled with `true`, seated in `prependPlugins`.
fn org_machine() -> Machine {
    let mut m = Machine::new();
    m.market("managed/market", "acme", &[("guard", json!("./guard"))]);
    m.plugin("managed/market/guard", "guard", true, json!({}));
    m.managed = obj(json!({
        "extraKnownMarketplaces": { "acme": { "source": { "source": "directory", "path": "./market" } } },
        "enabledPlugins": { "guard@acme": true },
        "prependPlugins": ["cc-plugin-sec-default@builtin", "guard@acme"],
    }));
    m
}

fn lines(plan: &Plan) -> Vec<String> {
    plan.skipped.iter().map(|s| s.line.clone()).collect()
}

#[test]
fn the_organizations_own_mod_is_seated_in_its_tier_read_in_place() {
    let m = org_machine();
    let plan = m.plan();
    assert_eq!(lines(&plan), Vec::<String>::new());
    let f = plan.get("guard@acme").expect("seated");
    assert_eq!(f.tier, Tier::Prepend);
    assert_eq!(f.copy, CopySource::Directory);
    assert!(f.in_place && f.is_mod);
    assert_eq!(f.folder, m.path("managed/market/guard"));
}

#[test]
fn prepend_plugins_skips_every_id_that_is_not_the_organizations_own_mod() {
    // Each way an id listed in prependPlugins falls short, with the SPEC's line.
    type Change = Box<dyn Fn(&mut Machine)>;
    let cases: Vec<(&str, Change, &str)> = vec![
        (
            "not enabled with true",
            Box::new(|m| {
                m.managed["enabledPlugins"] = json!({ "guard@acme": ["1.0.0"] });
            }),
            "managed enabledPlugins does not turn it on with true",
        ),
        (
            "a marketplace only the person names",
            Box::new(|m| {
                m.managed.remove("extraKnownMarketplaces");
                m.user = obj(json!({
                    "extraKnownMarketplaces": { "acme": { "source": { "source": "directory", "path": m.path("managed/market").display().to_string() } } },
                }));
            }),
            "managed settings name no marketplace \"acme\"",
        ),
        (
            "a remote marketplace",
            Box::new(|m| {
                m.managed["extraKnownMarketplaces"] =
                    json!({ "acme": { "source": { "source": "github", "repo": "acme/plugins" } } });
            }),
            "is not a directory marketplace read in place",
        ),
        (
            "no hooks module",
            Box::new(|m| {
                fs::remove_dir_all(m.path("managed/market/guard/hooks")).unwrap();
            }),
            "holds no hooks module",
        ),
    ];
    for (what, change, why) in cases {
        let mut m = org_machine();
        change(&mut m);
        let plan = m.plan();
        assert!(
            plan.get("guard@acme").is_none_or(|f| f.tier == Tier::User),
            "{what}"
        );
        let l = lines(&plan);
        // Then, enabled by managed settings, it is tried as the person's: its own line.
        assert!(
            !l.is_empty() && l.iter().skip(1).all(|x| x.starts_with("guard@acme: ")),
            "{what}: {l:?}"
        );
        assert!(
            l[0].starts_with(
                "prependPlugins names guard@acme, which is not an enabled managed plugin with a hooks module; skipped ("
            ) && l[0].contains(why),
            "{what}: {l:?}"
        );
    }
}

#[test]
fn the_organizations_own_plugin_whose_copy_cannot_be_read_stays_listed_as_failed() {
    // Enabled with true, in a directory marketplace managed settings name, read in
    // place: the organization's own. A copy that cannot be read does not make it an id
    // to skip (the session would then run without the policy it carries): it is listed,
    // in its tier, as unreadable, with why (bad input fails closed, SPEC §1.8).
    type Change = Box<dyn Fn(&mut Machine)>;
    let cases: Vec<(&str, Change, &str)> = vec![
        (
            "not in the marketplace",
            Box::new(|m| m.market("managed/market", "acme", &[])),
            "has no plugin named \"guard\"",
        ),
        (
            "a manifest that is not JSON",
            Box::new(|m| {
                fs::write(
                    m.path("managed/market/guard/.claude-plugin/plugin.json"),
                    "{ \"name\": ",
                )
                .unwrap();
            }),
            "plugin.json:1:",
        ),
        (
            "a marketplace folder that is missing",
            Box::new(|m| fs::remove_dir_all(m.path("managed/market")).unwrap()),
            "does not exist",
        ),
    ];
    for (what, change, why) in cases {
        let mut m = org_machine();
        change(&mut m);
        let plan = m.plan();
        let found = plan.get("guard@acme").ok_or(what).unwrap();
        assert_eq!(found.tier, Tier::Prepend, "{what}");
        let unreadable = found.unreadable.as_deref().unwrap_or_default();
        assert!(unreadable.contains(why), "{what}: {unreadable}");
        assert!(lines(&plan).is_empty(), "{what}: {:?}", lines(&plan));
    }
    // Read whole, nothing is unreadable.
    let plan = org_machine().plan();
    assert_eq!(
        plan.get("guard@acme").map(|f| f.unreadable.clone()),
        Some(None)
    );
}

#[test]
fn a_persons_own_marketplace_under_the_organizations_name_never_reaches_prepend() {
    let mut m = org_machine();
    // The organization names its marketplace only in enabledPlugins/prependPlugins; the
    // person brings a folder marketplace called "acme" with their own "guard".
    m.managed.remove("extraKnownMarketplaces");
    m.market("home/mine", "acme", &[("guard", json!("./guard"))]);
    m.plugin("home/mine/guard", "guard", true, json!({}));
    m.user = obj(json!({
        "extraKnownMarketplaces": { "acme": { "source": { "source": "directory", "path": "~/mine" } } },
    }));
    let plan = m.plan();
    let f = plan.get("guard@acme").expect("loaded as the person's");
    assert_eq!(f.tier, Tier::User);
    assert_eq!(f.folder, m.path("home/mine/guard"));
    assert!(lines(&plan)[0].starts_with("prependPlugins names guard@acme"));
}

#[test]
fn a_persons_plugins_come_through_their_marketplaces_remote_ones_from_the_cache() {
    let mut m = Machine::new();
    m.market("home/dev", "dev", &[("fmt", json!("./fmt"))]);
    m.plugin("home/dev/fmt", "fmt", true, json!({}));
    m.market(
        "home/.claude/plugins/marketplaces/tools",
        "tools",
        &[
            ("lint", json!("./lint")),
            ("deploy", json!({ "source": "github", "repo": "x/deploy" })),
        ],
    );
    m.plugin(
        "home/.claude/plugins/marketplaces/tools/lint",
        "lint",
        true,
        json!({}),
    );
    m.plugin(
        "home/.claude/plugins/cache/tools/deploy/1.2.0",
        "deploy",
        false,
        json!({}),
    );
    m.user = obj(json!({
        "extraKnownMarketplaces": {
            "dev": { "source": { "source": "directory", "path": "./dev" } },
            "tools": { "source": { "source": "github", "repo": "corp/tools" } },
        },
        "enabledPlugins": { "fmt@dev": true, "lint@tools": true, "deploy@tools": true, "off@dev": false },
    }));
    let plan = m.plan();
    assert_eq!(lines(&plan), Vec::<String>::new());
    let got: Vec<(&str, CopySource, bool, bool)> = plan
        .found
        .iter()
        .map(|f| (f.id.as_str(), f.copy, f.in_place, f.is_mod))
        .collect();
    assert_eq!(
        got,
        vec![
            ("fmt@dev", CopySource::Directory, true, true),
            ("lint@tools", CopySource::Github, false, true),
            ("deploy@tools", CopySource::Github, false, false),
        ]
    );
    assert_eq!(
        plan.get("deploy@tools").unwrap().folder,
        m.path("home/.claude/plugins/cache/tools/deploy/1.2.0")
    );
    assert!(plan.found.iter().all(|f| f.tier == Tier::User));
}

#[test]
fn managed_marketplace_lists_decide_which_sources_a_person_may_use() {
    let github = json!({ "source": "github", "repo": "corp/tools" });
    for (lists, loads, why) in [
        (json!({}), true, ""),
        (
            json!({ "strictKnownMarketplaces": [] }),
            false,
            "is not in managed strictKnownMarketplaces",
        ),
        (
            json!({ "strictKnownMarketplaces": [github.clone()] }),
            true,
            "",
        ),
        (
            json!({ "allowedMarketplaces": [{ "source": "github", "repo": "corp/*" }] }),
            true,
            "",
        ),
        (
            json!({ "strictKnownMarketplaces": [{ "source": "github", "repo": "Corp/tools" }] }),
            false,
            "strictKnownMarketplaces",
        ),
        (
            json!({ "strictKnownMarketplaces": [{ "source": "github", "repo": "corp/tools", "ref": "v1" }] }),
            false,
            "strictKnownMarketplaces",
        ),
        (
            json!({ "strictKnownMarketplaces": [{ "source": "hostPattern", "hostPattern": "^github\\.com$" }] }),
            true,
            "",
        ),
        (
            json!({ "strictKnownMarketplaces": "everything" }),
            false,
            "strictKnownMarketplaces",
        ),
        (
            json!({ "blockedMarketplaces": [{ "source": "github", "repo": "CORP/*" }] }),
            false,
            "is in managed blockedMarketplaces",
        ),
    ] {
        let mut m = Machine::new();
        m.market(
            "home/.claude/plugins/marketplaces/tools",
            "tools",
            &[("lint", json!("./lint"))],
        );
        m.plugin(
            "home/.claude/plugins/marketplaces/tools/lint",
            "lint",
            true,
            json!({}),
        );
        m.user = obj(json!({
            "extraKnownMarketplaces": { "tools": { "source": github } },
            "enabledPlugins": { "lint@tools": true },
        }));
        m.managed = obj(lists.clone());
        let plan = m.plan();
        assert_eq!(plan.get("lint@tools").is_some(), loads, "{lists}");
        if !loads {
            assert!(
                lines(&plan)[0].starts_with("lint@tools: ") && lines(&plan)[0].contains(why),
                "{lists}: {:?}",
                lines(&plan)
            );
        }
    }
}

#[test]
fn bad_input_is_a_line_naming_the_id_and_the_reason_and_the_rest_loads() {
    let mut m = Machine::new();
    m.market(
        "home/dev",
        "dev",
        &[
            ("ok", json!("./ok")),
            ("broken", json!("./broken")),
            ("twin", json!("./twin")),
        ],
    );
    m.plugin("home/dev/ok", "ok", true, json!({}));
    m.write(
        "home/dev/broken/.claude-plugin/plugin.json",
        "{\n  \"name\": \"broken\",\n}",
    );
    m.plugin("home/dev/twin", "ok", true, json!({}));
    m.user = obj(json!({
        "extraKnownMarketplaces": {
            "dev": { "source": { "source": "directory", "path": "./dev" } },
            "gone": { "source": { "source": "github", "repo": "x/gone" } },
        },
        "enabledPlugins": {
            "ok@dev": true, "broken@dev": true, "twin@dev": true, "missing@dev": true,
            "x@nowhere": true, "y@gone": true, "no-at-sign": true,
        },
    }));
    let plan = m.plan();
    assert_eq!(
        plan.found.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
        vec!["ok@dev"]
    );
    let l = lines(&plan);
    let want = [
        (
            "broken@dev: ",
            ".claude-plugin/plugin.json:3:1: the manifest is not JSON",
        ),
        (
            "twin@dev: ",
            "another enabled plugin, ok@dev, has the name ok",
        ),
        (
            "missing@dev: ",
            "marketplace \"dev\" has no plugin named \"missing\"",
        ),
        (
            "x@nowhere: ",
            "no settings source names the marketplace \"nowhere\"",
        ),
        (
            "y@gone: ",
            "the cached copy of marketplace \"gone\" is missing",
        ),
        ("no-at-sign: ", "it is not <name>@<marketplace>"),
    ];
    assert_eq!(l.len(), want.len(), "{l:#?}");
    for ((start, has), line) in want.iter().zip(&l) {
        assert!(
            line.starts_with(start) && line.contains(has) && line.ends_with("; skipped"),
            "{line}"
        );
    }
}

#[test]
fn managed_false_blocks_and_managed_true_enables_for_the_person() {
    let mut m = Machine::new();
    m.market(
        "home/dev",
        "dev",
        &[("a", json!("./a")), ("b", json!("./b"))],
    );
    m.plugin("home/dev/a", "a", true, json!({}));
    m.plugin("home/dev/b", "b", true, json!({}));
    m.user = obj(json!({
        "extraKnownMarketplaces": { "dev": { "source": { "source": "directory", "path": "./dev" } } },
        "enabledPlugins": { "a@dev": true },
    }));
    m.managed = obj(json!({ "enabledPlugins": { "a@dev": false, "b@dev": true } }));
    let plan = m.plan();
    let b = plan.get("b@dev").expect("force-enabled");
    assert_eq!((b.tier, b.enabled_by.as_str()), (Tier::User, "managed"));
    assert!(plan.get("a@dev").is_none());
    assert_eq!(
        lines(&plan),
        vec!["a@dev: managed enabledPlugins blocks it (false); skipped"]
    );
}

#[test]
fn a_later_source_disables_what_an_earlier_one_enabled() {
    let mut m = Machine::new();
    m.market("home/dev", "dev", &[("a", json!("./a"))]);
    m.plugin("home/dev/a", "a", true, json!({}));
    m.user = obj(json!({
        "extraKnownMarketplaces": { "dev": { "source": { "source": "directory", "path": "./dev" } } },
        "enabledPlugins": { "a@dev": true },
    }));
    m.project = obj(json!({ "enabledPlugins": { "a@dev": false } }));
    assert!(m.plan().found.is_empty());
}

#[test]
fn plugin_dir_loads_name_at_inline_and_replaces_a_same_named_plugin_unless_forced() {
    let mut m = Machine::new();
    m.market("home/dev", "dev", &[("fmt", json!("./fmt"))]);
    m.plugin("home/dev/fmt", "fmt", true, json!({}));
    m.plugin("work/fmt-dev", "fmt", true, json!({}));
    m.user = obj(json!({
        "extraKnownMarketplaces": { "dev": { "source": { "source": "directory", "path": "./dev" } } },
        "enabledPlugins": { "fmt@dev": true },
    }));
    m.plugin_dirs = vec![m.path("work/fmt-dev"), m.path("work/nothing-here")];
    let plan = m.plan();
    let ids: Vec<&str> = plan.found.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, vec!["fmt@inline"]);
    let f = plan.get("fmt@inline").unwrap();
    assert_eq!(
        (f.copy, f.in_place, f.tier),
        (CopySource::Inline, true, Tier::User)
    );
    assert!(lines(&plan)[0].contains("work/nothing-here: no such folder; skipped"));

    m.managed = obj(json!({ "enabledPlugins": { "fmt@dev": true } }));
    let plan = m.plan();
    assert_eq!(
        plan.found.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
        vec!["fmt@dev"]
    );
    assert!(lines(&plan)[0]
        .contains("fmt@inline may not replace the plugin of that name the organization enables"));
}

#[test]
fn a_persons_mod_runs_before_the_mods_it_depends_on() {
    let mut m = Machine::new();
    m.market(
        "home/dev",
        "dev",
        &[
            ("base", json!("./base")),
            ("top", json!("./top")),
            ("mid", json!("./mid")),
        ],
    );
    m.plugin("home/dev/base", "base", true, json!({}));
    m.plugin(
        "home/dev/mid",
        "mid",
        true,
        json!({ "dependencies": ["base"] }),
    );
    m.plugin(
        "home/dev/top",
        "top",
        true,
        json!({ "dependencies": [{ "name": "mid", "version": "^1" }, "base@dev"] }),
    );
    m.user = obj(json!({
        "extraKnownMarketplaces": { "dev": { "source": { "source": "directory", "path": "./dev" } } },
        "enabledPlugins": { "base@dev": true, "mid@dev": true, "top@dev": true },
    }));
    let plan = m.plan();
    assert_eq!(
        plan.found.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
        vec!["top@dev", "mid@dev", "base@dev"]
    );
    // A cycle: settings order, with a line.
    m.plugin(
        "home/dev/base",
        "base",
        true,
        json!({ "dependencies": ["top"] }),
    );
    let plan = m.plan();
    assert_eq!(
        plan.found.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(),
        vec!["base@dev", "mid@dev", "top@dev"]
    );
    assert!(
        lines(&plan)[0].contains("form a cycle"),
        "{:?}",
        lines(&plan)
    );
}

#[test]
fn a_marketplace_may_not_place_a_plugin_outside_its_folder() {
    let mut m = Machine::new();
    m.market("home/dev", "dev", &[("esc", json!("../../escape"))]);
    m.plugin("escape", "esc", true, json!({}));
    m.user = obj(json!({
        "extraKnownMarketplaces": { "dev": { "source": { "source": "directory", "path": "./dev" } } },
        "enabledPlugins": { "esc@dev": true },
    }));
    let plan = m.plan();
    assert!(plan.found.is_empty());
    assert!(lines(&plan)[0].contains("outside its folder"));
}

// ---------------------------------------------------------------------------------------
// What is not a regular file (SPEC §2.1 "Reading never hangs"): a FIFO at a
// marketplace's or a plugin's JSON would block a plain open for ever. Each is refused
// by name at once: the organization's plugin stays listed as unreadable (fail closed),
// a person's is a line naming the file.

/// Makes a FIFO at `path` in place of what is there (with the `mkfifo` command).
#[cfg(unix)]
fn mkfifo(path: &Path) {
    let _ = fs::remove_file(path);
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// `f(m)` on a thread of its own, within 20 s: a guard, so that a read that blocks
/// fails the test instead of hanging it.
fn within<T: Send + 'static>(m: Machine, f: fn(&Machine) -> T) -> (Machine, T) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let out = f(&m);
        let _ = tx.send((m, out));
    });
    rx.recv_timeout(std::time::Duration::from_secs(20))
        .expect("answered within 20 s, not hung")
}

#[cfg(unix)]
#[test]
fn a_fifo_marketplace_or_manifest_of_the_organization_fails_closed_naming_it() {
    for (rel, named) in [
        (
            "managed/market/.claude-plugin/marketplace.json",
            "/market/.claude-plugin/marketplace.json",
        ),
        (
            "managed/market/guard/.claude-plugin/plugin.json",
            "/guard/.claude-plugin/plugin.json",
        ),
    ] {
        let m = org_machine();
        mkfifo(&m.path(rel));
        let (_m, plan) = within(m, Machine::plan);
        let found = plan.get("guard@acme").expect("listed, not skipped");
        assert_eq!(found.tier, Tier::Prepend);
        let why = found.unreadable.as_deref().unwrap_or_default();
        assert!(
            why.ends_with(&format!(
                "{named}: cannot read: it is a FIFO, not a regular file, so it is not read"
            )),
            "{rel}: {why}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_persons_fifo_device_or_folder_marketplace_is_a_line_naming_it() {
    let person = || {
        let mut m = Machine::new();
        m.market("home/dev", "dev", &[("ok", json!("./ok"))]);
        m.plugin("home/dev/ok", "ok", true, json!({}));
        m.user = obj(json!({
            "extraKnownMarketplaces": {
                "dev": { "source": { "source": "directory", "path": "./dev" } },
            },
            "enabledPlugins": { "ok@dev": true },
        }));
        m
    };
    let rel = "home/dev/.claude-plugin/marketplace.json";
    type Make = fn(&Path);
    let cases: [(Make, &str); 3] = [
        (mkfifo, "a FIFO"),
        (
            |p| {
                fs::remove_file(p).unwrap();
                std::os::unix::fs::symlink("/dev/zero", p).unwrap();
            },
            "a character device",
        ),
        (
            |p| {
                fs::remove_file(p).unwrap();
                fs::create_dir(p).unwrap();
            },
            "a directory",
        ),
    ];
    for (make, what) in cases {
        let m = person();
        make(&m.path(rel));
        let (_m, plan) = within(m, Machine::plan);
        assert!(plan.found.is_empty(), "{what}");
        let l = lines(&plan);
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(
            l[0].starts_with("ok@dev: ") && l[0].ends_with(&format!(
                "/dev/.claude-plugin/marketplace.json: cannot read: it is {what}, not a regular file, so it is not read; skipped"
            )),
            "{}", l[0]
        );
    }
}
