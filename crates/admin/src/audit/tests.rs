//! Tests of `sec-default audit`: the example and every real managed
//! folder hold; the unseated control breaches in every family; one row per rule;
//! bad input and unreadable policies; snapshots of the rendered table.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::attacks::Family;
use super::report::{shown, WIDTH};
use super::*;
use serde_json::json;
use std::fs;
use std::path::PathBuf;

const CRATE: &str = env!("CARGO_MANIFEST_DIR");

fn example() -> PathBuf {
    Path::new(CRATE).join("../../examples/managed")
}

fn real_inputs() -> PathBuf {
    Path::new(CRATE).join("../../../shared/real-inputs/managed")
}

/// Every real managed folder of `shared/real-inputs`, in name order.
fn real_folders() -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = fs::read_dir(real_inputs())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
}

/// The report with the clone location taken out of printed paths.
fn relative(text: &str) -> String {
    text.replace(&format!("{CRATE}/../../../"), "../")
        .replace(&format!("{CRATE}/../../"), "")
}

/// The audit, its progress untold.
fn run(
    source: &PolicySource,
    hooks: HookRunner,
    person: &PersonInputs,
) -> Result<AuditReport, AuditError> {
    super::audit(source, hooks, person, &crate::progress::Silent)
}

fn audit(folder: &Path) -> AuditReport {
    run(
        &PolicySource::Folder(folder.to_path_buf()),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap()
}

fn breached(report: &AuditReport) -> Vec<String> {
    report
        .rows
        .iter()
        .filter(|r| !r.seated.held)
        .map(|r| format!("{:?} {}: {}", r.family, r.attack, r.seated.achieved))
        .collect()
}

/// A managed folder holding `settings` (and `mcp`, when given).
fn folder(settings: &Value, mcp: Option<&Value>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("managed-settings.json"),
        settings.to_string(),
    )
    .unwrap();
    if let Some(mcp) = mcp {
        fs::write(dir.path().join("managed-mcp.json"), mcp.to_string()).unwrap();
    }
    dir
}

#[test]
fn the_example_holds_and_its_control_breaches_in_every_family() {
    let report = audit(&example());
    assert!(report.seated);
    assert_eq!(breached(&report), Vec::<String>::new());
    assert_eq!(report.breaches(), 0);
    assert!(
        report.not_exercised.is_empty(),
        "{:?}",
        report.not_exercised
    );
    for family in Family::ALL {
        if family == Family::LoadModule {
            continue; // allowManagedModsOnly is off in the example: see the next test
        }
        if family == Family::AllowlistRegister {
            continue; // no allowedMcpServers in the example: see every_control_is_exercised_or_named
        }
        let rows: Vec<&Row> = report.rows.iter().filter(|r| r.family == family).collect();
        assert!(!rows.is_empty(), "no {family:?} rows");
        for r in rows {
            assert!(
                !r.unseated.held,
                "{family:?} {}: the control held ({})",
                r.attack, r.unseated.achieved
            );
        }
    }
    let json = report.to_json();
    assert_eq!(json["breaches"], 0);
    assert_eq!(json["source"]["kind"], "folder");
}

#[test]
fn managed_mods_only_keeps_a_persons_module_out() {
    let mut settings: Value = serde_json::from_str(crate::source::EXAMPLE_SETTINGS).unwrap();
    settings["pluginConfigs"][policy::SEC_DEFAULT_ID]["options"]["allowManagedModsOnly"] =
        json!(true);
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    assert_eq!(breached(&report), Vec::<String>::new());
    let mods: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.family == Family::LoadModule)
        .collect();
    assert_eq!(mods.len(), 1);
    assert_eq!(mods[0].unseated.achieved, "loaded");
    assert_eq!(mods[0].seated.achieved, "refused at load");
    // Every other attacker is kept out at load, so it achieves nothing seated.
    let env = report
        .rows
        .iter()
        .find(|r| r.family == Family::PinnedVariable)
        .unwrap();
    assert_eq!(env.seated.achieved, "module not loaded");
    assert!(!report
        .advice
        .iter()
        .any(|a| a.starts_with("allowManagedModsOnly")));
}

#[test]
fn every_real_managed_folder_holds() {
    let folders = real_folders();
    assert!(folders.len() >= 9, "{folders:?}");
    for f in folders {
        let report = audit(&f);
        assert_eq!(breached(&report), Vec::<String>::new(), "{}", f.display());
        assert!(
            report.not_exercised.is_empty(),
            "{}: {:?}",
            f.display(),
            report.not_exercised
        );
    }
}

#[test]
fn one_row_per_deny_and_ask_rule() {
    let settings = json!({"permissions": {
        "deny": ["Bash(sudo:*)", "Edit(//etc/**)", "WebFetch(domain:*.internal.example)", "mcp__github"],
        "ask": ["Bash(git push *)", "Agent(deploy)", "Bash(sudo:*)"]
    }});
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    assert_eq!(breached(&report), Vec::<String>::new());
    let labels = |family: Family| -> Vec<String> {
        report
            .rows
            .iter()
            .filter(|r| r.family == family)
            .map(|r| r.attack.clone())
            .collect()
    };
    let expected = [
        "deny Bash(sudo:*)",
        "deny Edit(//etc/**)",
        "deny WebFetch(domain:*.internal.example)",
        "deny mcp__github",
        "ask Bash(git push *)",
        "ask Agent(deploy)",
        "ask Bash(sudo:*)",
    ];
    assert_eq!(labels(Family::LiftRule), expected);
    assert_eq!(labels(Family::RewordVerdict), expected);
    // The ask rule a deny rule shadows is still attacked, against the deny it gets.
    let shadowed = report
        .rows
        .iter()
        .find(|r| r.attack == "ask Bash(sudo:*)")
        .unwrap();
    assert_eq!(shadowed.detail["decided_by_another_rule"], "Bash(sudo:*)");
    assert!(
        report.not_exercised.is_empty(),
        "{:?}",
        report.not_exercised
    );
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("no managed env")));
}

#[test]
fn a_rule_no_call_meets_is_listed_not_skipped() {
    // A glob no synthesized path meets: `[!a-z]` never matches the filled-in letter.
    let settings = json!({"permissions": {"deny": ["Read(//nowhere/[!a-z]x)"]}});
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    let rendered = report.render();
    assert_eq!(report.not_exercised.len(), 1, "{rendered}");
    assert!(!report.rows.iter().any(|r| r.family == Family::LiftRule));
    assert!(
        rendered.contains("not exercised (listed, not judged):"),
        "{rendered}"
    );
    assert!(
        rendered.contains("  deny Read(//nowhere/[!a-z]x): no synthesized call"),
        "{rendered}"
    );
    assert_eq!(
        report.to_json()["not_exercised"][0]["rule"],
        "Read(//nowhere/[!a-z]x)"
    );
}

#[test]
fn a_policy_that_does_not_seat_the_security_default_breaches() {
    let settings = json!({
        "permissions": {"deny": ["Bash(rm:*)"]},
        "prependPlugins": ["corp-guard@corp"]
    });
    let dir = folder(&settings, None);
    let report = audit(dir.path());
    assert!(!report.seated);
    assert!(report.breaches() > 0);
    assert!(report
        .render()
        .lines()
        .nth(1)
        .unwrap()
        .contains("NOT seated"));
    assert!(report.advice[0].starts_with("prependPlugins does not name"));
}

#[test]
fn an_empty_folder_is_all_advice() {
    let dir = tempfile::tempdir().unwrap();
    let report = audit(dir.path());
    assert_eq!(report.breaches(), 0);
    assert!(report.rows.iter().all(|r| r.family != Family::LiftRule));
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("no managed deny rules")));
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("allowedMcpServers is not set")));
}

#[test]
fn bad_input_and_unreadable_policies() {
    let missing = run(
        &PolicySource::Folder(PathBuf::from("/nonexistent/managed")),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap_err();
    assert!(matches!(missing, AuditError::BadInput(_)));
    assert_eq!(
        missing.to_string(),
        "/nonexistent/managed: the managed folder given does not exist"
    );

    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("managed-settings.json"),
        "{\n  \"permissions\": {,\n}",
    )
    .unwrap();
    let err = run(
        &PolicySource::Folder(dir.path().to_path_buf()),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap_err();
    assert!(matches!(err, AuditError::PolicyUnreadable(_)));
    assert!(
        err.to_string().contains("managed-settings.json:2:"),
        "{err}"
    );

    let file = dir.path().join("managed-settings.json");
    assert!(matches!(
        run(
            &PolicySource::Folder(file),
            HookRunner::NotRun,
            &PersonInputs::default()
        )
        .unwrap_err(),
        AuditError::BadInput(_)
    ));

    // Garbage managed-mcp.json names nobody: every person-tier registration is refused.
    let dir = folder(&json!({}), None);
    fs::write(dir.path().join("managed-mcp.json"), "not json").unwrap();
    let report = audit(dir.path());
    assert_eq!(report.breaches(), 0);
    assert!(report
        .advice
        .iter()
        .any(|a| a.starts_with("managed-mcp.json")));
}

#[test]
fn no_platform_folder_is_the_empty_policy_and_the_example_is_asked_for() {
    let missing = PathBuf::from("/nonexistent/claude-code");
    let report = run(
        &PolicySource::Platform(missing.clone()),
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap();
    assert_eq!(
        report.render().lines().next().unwrap(),
        "managed folder: /nonexistent/claude-code (the platform folder; it does not exist: an \
         empty policy, as the engine reads it)"
    );
    assert_eq!(report.to_json()["source"]["kind"], "platform");
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(report.attacks(), audit(empty.path()).attacks());
    assert_eq!(report.breaches(), 0);

    let embedded = run(
        &PolicySource::Embedded,
        HookRunner::NotRun,
        &PersonInputs::default(),
    )
    .unwrap();
    assert_eq!(
        embedded.render().lines().next().unwrap(),
        "managed folder: none; the example policy embedded in this binary (--example)"
    );
    assert_eq!(embedded.to_json()["source"]["kind"], "embedded");
    assert_eq!(embedded.attacks(), audit(&example()).attacks());
}

/// A managed folder whose hooks append to `marker`: a `PreToolUse` hook on Bash and a
/// `SessionStart` hook.
fn hooked(marker: &Path) -> tempfile::TempDir {
    let cmd = format!("echo ran >> '{}'", marker.display());
    folder(
        &json!({
            "permissions": {"deny": ["Bash(rm:*)", "Read(./.env)"]},
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [
                    {"type": "command", "command": cmd, "timeout": 600_000}
                ]}],
                "SessionStart": [{"hooks": [{"type": "command", "command": cmd}]}]
            }
        }),
        None,
    )
}

#[test]
fn the_policys_hooks_are_listed_with_the_attacks_they_were_not_exercised_against() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().join("marker");
    let dir = hooked(&marker);
    let report = audit(dir.path());
    assert!(!marker.exists(), "the audit ran the policy's hook");
    assert_eq!(report.hooks.len(), 2);
    let pre = &report.hooks[0];
    assert_eq!(pre.event, "PreToolUse");
    assert_eq!(pre.matcher.as_deref(), Some("Bash"));
    assert_eq!(pre.file, "managed-settings.json");
    assert_eq!(pre.pointer, "/hooks/PreToolUse/0/hooks/0");
    // Bash(rm:*) is lifted and reworded: two rows; Read(./.env) never reaches a Bash hook.
    assert_eq!(pre.attacks, vec!["deny Bash(rm:*)".to_owned()]);
    assert_eq!(pre.rows, 2);
    let text = report.render();
    assert!(text.contains("NOT RUN"), "{text}");
    assert!(
        text.contains("not exercised against 2 attack(s): deny Bash(rm:*)"),
        "{text}"
    );
    // A hook on another event: a person's plugin answers its event in its place;
    // the command itself is not run.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("exercised on classic.SessionStart: a person's plugin answered in the organization's hooks' place (row classic.SessionStart (org settings hook)); the command itself is not run"),
        "{text}"
    );
    let j = report.to_json();
    assert_eq!(j["classic_hooks"]["run"], "not_run");
    assert_eq!(j["classic_hooks"]["hooks"][0]["attack_rows"], 2);
    for line in text.lines() {
        assert!(line.chars().count() <= WIDTH, "{line:?}");
    }
}

#[test]
fn run_hooks_runs_them_sandboxed_with_the_audits_cap() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().join("marker");
    let dir = hooked(&marker);
    let report = run(
        &PolicySource::Folder(dir.path().to_path_buf()),
        HookRunner::Sandboxed {
            cap: std::time::Duration::from_secs(10),
        },
        &PersonInputs::default(),
    )
    .unwrap();
    assert!(marker.exists(), "the hook did not run");
    assert_eq!(report.breaches(), 0);
    let text = report.render();
    assert!(
        text.contains("ran in 2 attack(s): deny Bash(rm:*)"),
        "{text}"
    );
    assert_eq!(report.to_json()["classic_hooks"]["cap_seconds"], 10.0);
}

#[test]
fn the_table_keeps_within_100_columns() {
    let report = audit(&example());
    for line in report.render().lines() {
        assert!(line.chars().count() <= WIDTH, "{line:?}");
    }
}

#[test]
fn snapshot_example() {
    insta::assert_snapshot!("audit_example", relative(&audit(&example()).render()));
}

#[test]
fn snapshot_hardening() {
    let report = audit(&real_inputs().join("hardening"));
    insta::assert_snapshot!("audit_hardening", relative(&report.render()));
}

/// The sections after the attack table: what the table does not show.
fn after_table(rendered: &str) -> String {
    let mut lines = rendered.lines().skip_while(|l| !l.starts_with("-----"));
    let rest: Vec<&str> = lines.by_ref().skip_while(|l| !l.is_empty()).collect();
    rest.join("\n")
}

#[test]
fn snapshot_the_new_sections_on_every_real_folder() {
    let folders = real_folders();
    let mut out = String::new();
    for f in &folders {
        let report = audit(f);
        out.push_str(&format!(
            "== {}\n{}\n\n",
            f.file_name().unwrap().to_string_lossy(),
            after_table(&report.render())
        ));
    }
    insta::assert_snapshot!("audit_real_folders_sections", relative(&out));
}

/// A policy setting the controls no real folder here sets (the field policies
/// did): an MCP allowlist and denylist, a managed `defaultMode`, `disableAllHooks`,
/// `strictKnownMarketplaces`, hooks on other events, and rules people write wrong.
fn controls_policy(extra: &Value) -> tempfile::TempDir {
    let mut settings = json!({
        "permissions": {
            "deny": ["Bash(curl*|wget*)", "Bash(> /dev/sda*)", "Bash(curl *)", "Read(~/.ssh/**)", "Read(C:/Users/**)"],
            "ask": ["Bash(git push:*)"],
            "defaultMode": "acceptEdits"
        },
        "allowedMcpServers": [{"serverName": "github"}],
        "deniedMcpServers": [{"serverName": "filesystem"}],
        "disableAllHooks": true,
        "strictKnownMarketplaces": [{"source": "github", "repo": "acme/plugins"}],
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "audit-stop"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "scan"}]}]
        }
    });
    if let (Some(s), Some(e)) = (settings.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            s.insert(k.clone(), v.clone());
        }
    }
    folder(&settings, None)
}

#[test]
fn inert_rules_are_named_with_why_and_never_read_holds() {
    let dir = controls_policy(&json!({}));
    let report = audit(dir.path());
    let inert: Vec<(&str, &str)> = report
        .inert
        .iter()
        .map(|r| (r.rule.as_str(), r.reason.as_str()))
        .collect();
    assert_eq!(inert.len(), 3, "{inert:?}");
    assert!(inert[0].0 == "Bash(curl*|wget*)" && inert[0].1.contains("a literal `|`"));
    assert!(
        inert[1].0 == "Bash(> /dev/sda*)" && inert[1].1.contains("a redirect is not a command")
    );
    assert!(inert[2].0 == "Read(C:/Users/**)" && inert[2].1.contains("Windows path"));
    for (rule, _) in &inert {
        assert!(
            report.rows.iter().all(|r| !r.attack.ends_with(rule)),
            "an inert rule has no HOLDS row: {rule}"
        );
    }
    // The rules people write right are attacked with the calls they run.
    let curl = report
        .rows
        .iter()
        .find(|r| r.attack == "deny Bash(curl *)")
        .unwrap();
    assert_eq!(
        curl.detail["call"]["input"]["command"],
        "curl https://example.invalid"
    );
    assert!(curl.seated.held && !curl.unseated.held);
    let json = report.to_json();
    assert_eq!(json["inert_rules"].as_array().unwrap().len(), 3);
    assert!(report.render().contains("inert rules: 3"));
}

#[test]
fn every_control_is_exercised_or_named() {
    let dir = controls_policy(&json!({}));
    let report = audit(dir.path());
    assert_eq!(report.breaches(), 0, "{:?}", breached(&report));
    // allowedMcpServers: a person's registration under an allowed and an unlisted
    // server is refused seated; the control shows the breach it prevents.
    let allowlist: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.family == Family::AllowlistRegister)
        .collect();
    // A person's plugin, then a person's mod ($.tool.register), under each.
    assert_eq!(allowlist.len(), 4);
    assert!(
        allowlist[2].attack.contains("a mod as github"),
        "{allowlist:?}"
    );
    assert_eq!(allowlist[3].seated.achieved, "refused");
    assert_eq!(allowlist[3].unseated.achieved, "registered");
    for r in &allowlist {
        assert!(r.seated.held && !r.unseated.held, "{r:?}");
    }
    // Managed hooks on every event: each event's answer is attacked.
    for event in ["Stop", "UserPromptSubmit"] {
        let label = attacks::managed_hook_label(event);
        let row = report.rows.iter().find(|r| r.attack == label).unwrap();
        assert!(row.seated.held && !row.unseated.held);
    }
    // The engine's controls read in force, with what that means.
    let keys: Vec<(&str, &str)> = report
        .controls
        .iter()
        .map(|c| (c.key.as_str(), c.standing.as_str()))
        .collect();
    for key in [
        "disableAllHooks",
        "strictKnownMarketplaces",
        "permissions.defaultMode",
    ] {
        assert!(keys.contains(&(key, "in force")), "{key}: {keys:?}");
    }
    assert!(report
        .not_exercised
        .iter()
        .any(|n| n.rule == "deniedMcpServers" && n.behavior == "control"));
    // Every mode a person could start in, the managed defaultMode first of all.
    assert_eq!(report.start_mode, permissions::Mode::AcceptEdits);
    let modes: Vec<&str> = report.modes.iter().map(|m| m.mode.as_str()).collect();
    assert_eq!(
        modes,
        [
            "default",
            "acceptEdits",
            "plan",
            "dontAsk",
            "bypassPermissions",
            "auto"
        ]
    );
    assert!(report
        .modes
        .iter()
        .all(|m| m.ran == 3 && m.breached.is_empty()));

    // With bypass disabled, that mode is closed and the refusal is exercised.
    let dir = controls_policy(&json!({
        "permissions": {
            "deny": ["Bash(curl *)"],
            "defaultMode": "bypassPermissions",
            "disableBypassPermissionsMode": "disable"
        },
        "disableAllHooks": false
    }));
    let report = audit(dir.path());
    for event in ["Stop", "UserPromptSubmit"] {
        let hook = report.hooks.iter().find(|h| h.event == event).unwrap();
        assert_eq!(hook.attacks, vec![attacks::managed_hook_label(event)]);
        assert_eq!(hook.rows, 1);
    }
    assert_eq!(report.start_mode, permissions::Mode::Default);
    assert!(report
        .modes
        .iter()
        .all(|m| m.mode != permissions::Mode::BypassPermissions));
    let standing = |key: &str| {
        report
            .controls
            .iter()
            .find(|c| c.key == key)
            .map(|c| (c.standing.as_str(), c.meaning.clone()))
            .unwrap()
    };
    assert_eq!(
        standing("permissions.disableBypassPermissionsMode").0,
        "in force"
    );
    let (s, meaning) = standing("permissions.defaultMode");
    assert_eq!(s, "in force");
    assert!(meaning.contains("refused"), "{meaning}");
}

#[test]
fn a_marketplace_allowlist_that_lets_a_persons_in_is_not_in_force() {
    let dir = controls_policy(&json!({
        "strictKnownMarketplaces": [{"source": "hostPattern", "hostPattern": ".*"}]
    }));
    let report = audit(dir.path());
    let c = report
        .controls
        .iter()
        .find(|c| c.key == "strictKnownMarketplaces")
        .unwrap();
    assert_eq!(c.standing.as_str(), "not in force", "{c:?}");
}

#[test]
fn every_policy_warning_is_listed_as_policy_show_lists_it() {
    let folder = real_inputs().join("hardening");
    let report = audit(&folder);
    let policy = read(&folder).unwrap();
    let shown = crate::policy_view::view(&ManagedLocation::Explicit(folder.clone()), &policy);
    assert!(!shown.warnings.is_empty());
    assert_eq!(report.warnings.len(), shown.warnings.len());
    assert_eq!(report.to_json()["policy_warnings"], shown.warnings.len());
    let rendered = report
        .render()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for w in &shown.warnings {
        let text = w
            .line_text()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(rendered.contains(&text), "{text}");
    }
}

#[test]
fn snapshot_controls() {
    let dir = controls_policy(&json!({}));
    let text = audit(dir.path())
        .render()
        .replace(&dir.path().display().to_string(), "<managed>");
    insta::assert_snapshot!("audit_controls", after_table(&text));
}

#[test]
fn a_rule_is_shown_as_check_shows_it() {
    // `check`'s report writes this rule `Bash(curl\u{200b}:*)` (check.rs's tests): the
    // audit's, the same, and long rules cut after the escape.
    assert_eq!(shown("Bash(curl\u{200b}:*)"), "Bash(curl\\u{200b}:*)");
    assert_eq!(shown("Read(a\u{3164}b)"), "Read(a\\u{3164}b)");
    let long = format!("Bash({}:*)", "x".repeat(200));
    assert!(shown(&long).ends_with(&format!("… ({} characters)", long.chars().count())));
}
