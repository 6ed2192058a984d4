//! `sec-default replay` as an administrator runs it: the seven real
//! transcripts of `shared/real-inputs/transcripts` replayed under real policies, its
//! `--json` checked against the counts their README gives, a backtest, a person's mod
//! held, the decision log, and bad input.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

const TRANSCRIPTS: &str = "../shared/real-inputs/transcripts";

/// Runs the binary in the workspace root: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sec-default"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `--json` lines: the calls, then the summary.
fn json_lines(stdout: &str) -> (Vec<Value>, Value) {
    let mut lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let summary = lines.pop().unwrap();
    assert_eq!(summary["replay"], "summary");
    assert!(lines.iter().all(|l| l["replay"] == "call"));
    (lines, summary)
}

fn file_name(v: &Value) -> String {
    Path::new(v["file"].as_str().unwrap())
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

#[test]
fn replay_counts_every_tool_call_the_transcripts_readme_counts() {
    let (code, stdout, stderr) = run(&["replay", "--example", "--json", TRANSCRIPTS]);
    assert_eq!(code, 0, "{stderr}");
    let (calls, summary) = json_lines(&stdout);
    assert_eq!(calls.len(), 225);
    assert_eq!(summary["calls"], 225);
    assert_eq!(summary["bad_lines"]["count"], 0);

    // Per file and tool, the README's table ("Tool-use counts").
    let mut per: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for c in &calls {
        *per.entry(file_name(c))
            .or_default()
            .entry(c["tool"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    let expect = |file: &str, tools: &[(&str, u64)]| {
        let got = &per[file];
        let want: BTreeMap<String, u64> =
            tools.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect();
        assert_eq!(got, &want, "{file}");
    };
    expect(
        "posthog-bash-monitor",
        &[
            ("Bash", 16),
            ("TaskCreate", 9),
            ("Write", 9),
            ("TaskUpdate", 3),
            ("ToolSearch", 2),
            ("Edit", 1),
            ("Read", 1),
            ("Monitor", 1),
        ],
    );
    expect(
        "bhavana-webfetch-skill",
        &[
            ("Bash", 16),
            ("Write", 12),
            ("Skill", 4),
            ("WebFetch", 4),
            ("ToolSearch", 1),
            ("Read", 1),
        ],
    );
    expect(
        "fundwise-agent-memory",
        &[
            ("Read", 8),
            ("Bash", 7),
            ("Write", 5),
            ("Edit", 4),
            ("Agent", 1),
        ],
    );
    expect(
        "attio-mcp-task-sidechain",
        &[
            ("mcp__clear-thought-server__sequentialthinking", 8),
            ("Bash", 6),
            ("mcp__github__get_issue", 4),
            ("TodoWrite", 3),
            ("Task", 1),
            ("mcp__github__create_issue", 1),
            ("mcp__github__add_issue_comment", 1),
            ("mcp__clear-thought-server__decisionframework", 1),
        ],
    );
    expect(
        "voicehooks-mcp-desktop-commander",
        &[
            ("mcp__desktop-commander__read_file", 20),
            ("Bash", 9),
            ("mcp__desktop-commander__edit_block", 8),
            ("mcp__desktop-commander__start_search", 3),
            ("TodoWrite", 3),
            ("mcp__desktop-commander__list_directory", 2),
            ("mcp__desktop-commander__write_file", 1),
        ],
    );
    expect(
        "sniffly-notebook-websearch",
        &[
            ("TodoWrite", 9),
            ("NotebookEdit", 4),
            ("Read", 3),
            ("Write", 3),
            ("Bash", 3),
            ("Edit", 1),
            ("WebSearch", 1),
        ],
    );
    expect(
        "codex-raveera-rollout",
        &[("shell_command", 19), ("apply_patch", 5), ("view_image", 1)],
    );

    // 22 of attio's 25 calls ran inside the inline sidechain.
    let sidechain = calls
        .iter()
        .filter(|c| file_name(c) == "attio-mcp-task-sidechain" && c["agent"] == "sidechain")
        .count();
    assert_eq!(sidechain, 22);

    // Every call has its one result: the two calls the person rejected are bhavana
    // lines 29 and 30, and no call is left without a result.
    let rejected: Vec<(String, u64)> = calls
        .iter()
        .filter(|c| c["transcript"] == "rejected")
        .map(|c| (file_name(c), c["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        rejected,
        vec![
            ("bhavana-webfetch-skill".to_owned(), 29),
            ("bhavana-webfetch-skill".to_owned(), 30)
        ]
    );
    assert!(calls.iter().all(|c| c["transcript"] != "no_result"));
    assert_eq!(
        summary["transcript_vs_now"]["rejected"]["allow"]
            .as_u64()
            .unwrap()
            + summary["transcript_vs_now"]["rejected"]["ask"]
                .as_u64()
                .unwrap()
            + summary["transcript_vs_now"]["rejected"]["deny"]
                .as_u64()
                .unwrap(),
        2
    );

    // Each call is judged in the mode its transcript records.
    for c in &calls {
        let want = match file_name(c).as_str() {
            "posthog-bash-monitor" => "bypassPermissions",
            "fundwise-agent-memory" => "acceptEdits",
            _ => "default",
        };
        assert_eq!(c["judged_in_mode"], want, "{c}");
    }
    // The Codex calls are judged as the engine tools they stand for.
    let patch = calls.iter().find(|c| c["tool"] == "apply_patch").unwrap();
    let parts = patch["judged_as"].as_array().unwrap();
    assert!(
        parts
            .iter()
            .all(|p| p["tool"] == "Write" || p["tool"] == "Edit"),
        "{patch}"
    );

    // The summary's counts agree with the lines.
    let mut by_decision: BTreeMap<String, u64> = BTreeMap::new();
    for c in &calls {
        *by_decision
            .entry(c["decision"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    for (d, n) in &by_decision {
        assert_eq!(summary["by_decision"][d], *n, "{d}");
    }
    // Every deny and ask names what decided it; a rule names its file and line.
    for c in calls.iter().filter(|c| c["decision"] != "allow") {
        if c.get("rule").is_some() && c["source"] == "policy" {
            assert!(
                c["rule_file"]
                    .as_str()
                    .unwrap()
                    .starts_with("examples/managed/"),
                "{c}"
            );
            assert!(c["rule_line"].as_u64().unwrap() > 0, "{c}");
        }
    }
}

#[test]
fn replay_reports_per_tool_per_session_and_per_rule() {
    let (code, stdout, stderr) = run(&["replay", "--example", TRANSCRIPTS]);
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!("replay_real_transcripts_example_policy", stdout);
}

#[test]
fn a_backtest_lists_the_calls_whose_verdict_differs_and_how() {
    let args = [
        "replay",
        "--managed",
        "examples/managed",
        "--against",
        "../shared/real-inputs/managed/hardening",
        TRANSCRIPTS,
    ];
    let (code, text, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    insta::assert_snapshot!("replay_backtest_hardening", text);

    let mut json_args = args.to_vec();
    json_args.insert(1, "--json");
    let (code, stdout, _) = run(&json_args);
    assert_eq!(code, 0);
    let (calls, summary) = json_lines(&stdout);
    let differ: Vec<&Value> = calls.iter().filter(|c| c["differs"] == true).collect();
    assert!(!differ.is_empty());
    assert_eq!(summary["against"]["differ"], differ.len());
    for c in &differ {
        let a = &c["against"];
        assert!(
            a["decision"] != c["decision"] || a.get("rule") != c.get("rule"),
            "{c}"
        );
    }
    for c in calls.iter().filter(|c| c["differs"] == false) {
        assert_eq!(c["against"]["decision"], c["decision"], "{c}");
    }
    // A policy against itself differs nowhere.
    let (code, stdout, _) = run(&[
        "replay",
        "--json",
        "--managed",
        "examples/managed",
        "--against",
        "examples/managed",
        TRANSCRIPTS,
    ]);
    assert_eq!(code, 0);
    assert_eq!(json_lines(&stdout).1["against"]["differ"], 0);
}

#[test]
fn a_replays_json_fed_back_gives_the_same_verdicts() {
    let (_, first, _) = run(&["replay", "--example", "--json", TRANSCRIPTS]);
    let dir = tempfile::tempdir().unwrap();
    let extracted = dir.path().join("calls.jsonl");
    std::fs::write(&extracted, &first).unwrap();
    let (code, second, stderr) =
        run(&["replay", "--example", "--json", extracted.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (a, sa) = json_lines(&first);
    let (b, sb) = json_lines(&second);
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        for k in [
            "file",
            "line",
            "session",
            "tool",
            "tool_use_id",
            "decision",
            "rule",
            "transcript",
            "judged_in_mode",
        ] {
            assert_eq!(x.get(k), y.get(k), "{k}: {x} / {y}");
        }
    }
    assert_eq!(sa["by_decision"], sb["by_decision"]);
    assert_eq!(sa["transcript_vs_now"], sb["transcript_vs_now"]);
}

#[test]
fn a_persons_allow_everything_mod_is_held_where_the_policy_decides_and_nowhere_else() {
    let (_, plain, _) = run(&["replay", "--example", "--json", TRANSCRIPTS]);
    let (code, lifted, stderr) = run(&[
        "replay",
        "--example",
        "--json",
        "--plugin-dir",
        "examples/mods/yes-man",
        TRANSCRIPTS,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (a, _) = json_lines(&plain);
    let (b, summary) = json_lines(&lifted);
    assert_eq!(
        summary["person_plugins"],
        serde_json::json!(["yes-man@inline"])
    );
    assert_eq!(a.len(), b.len());
    let mut held = 0;
    for (x, y) in a.iter().zip(&b) {
        let policy_decides = x["source"] == "policy" && x["decision"] != "allow";
        if policy_decides {
            // SPEC §3.6: the organization's deny and ask rules hold over the person's
            // plugin, which is named as the one that tried.
            assert_eq!(x["decision"], y["decision"], "{y}");
            assert_eq!(y["held"], true, "{y}");
            assert_eq!(y["rewritten_by"], serde_json::json!(["yes-man"]), "{y}");
            held += 1;
        } else {
            // Everything else is the person's to decide: yes-man allows it unheld.
            assert_eq!(y["decision"], "allow", "{y}");
            assert!(y.get("held").is_none(), "{y}");
        }
    }
    assert!(held > 0);
    assert_eq!(summary["held_over_person_plugin"]["calls"], held);
}

#[test]
fn replay_log_writes_a_decision_log_that_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("decisions.jsonl");
    let (code, _, stderr) = run(&[
        "replay",
        "--example",
        "--log",
        log.to_str().unwrap(),
        TRANSCRIPTS,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&log).unwrap();
    // One line per engine call: a Codex patch of several files is one per file.
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.len() >= 225, "{}", lines.len());
    assert!(lines
        .iter()
        .any(|l| l["session"] == "dc7128ad-e5e3-4f3d-871e-d5e65a807546"));
    let (code, stdout, _) = run(&["log", "verify", "--json", log.to_str().unwrap()]);
    assert_eq!(code, 0, "{stdout}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["lines"], lines.len());
}

#[test]
fn bad_lines_are_counted_with_file_and_line_and_the_replay_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("s.jsonl");
    let good = r#"{"type":"assistant","sessionId":"s","cwd":"/tmp","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
    let text = format!(
        "{good}\nnot json\n{{\"type\":\"brand-new\"}}\n{}\n{{\"type\":\"user\",\"message\":{{\"content\":\"cut",
        good.replace("t1", "t2")
    );
    std::fs::write(&f, text).unwrap();
    let (code, stdout, stderr) = run(&["replay", "--example", "--json", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let (calls, summary) = json_lines(&stdout);
    assert_eq!(calls.len(), 2);
    assert_eq!(summary["bad_lines"]["count"], 3);
    let at: Vec<u64> = summary["bad_lines"]["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            assert_eq!(b["file"], f.to_str().unwrap());
            b["line"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(at, vec![2, 3, 5]);
    let (code, text, _) = run(&["replay", "--example", f.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(
        text.contains(&format!("{}:2: not JSON", f.display())),
        "{text}"
    );
}

#[test]
fn a_file_of_no_known_format_is_exit_2_naming_it_and_the_others_still_replay() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.jsonl");
    std::fs::write(&junk, "PK\u{3}\u{4} this is a zip\n").unwrap();
    let real = format!("{TRANSCRIPTS}/fundwise-agent-memory.jsonl");
    let (code, stdout, stderr) = run(&[
        "replay",
        "--example",
        "--json",
        junk.to_str().unwrap(),
        &real,
    ]);
    assert_eq!(code, 2, "{stderr}");
    let (calls, summary) = json_lines(&stdout);
    assert_eq!(calls.len(), 25);
    let unknown = &summary["not_transcripts"][0];
    assert_eq!(unknown["file"], junk.to_str().unwrap());
    assert!(
        unknown["reason"]
            .as_str()
            .unwrap()
            .contains("not a known transcript format"),
        "{unknown}"
    );
    // A path that does not exist is bad input too, naming it.
    let (code, _, stderr) = run(&["replay", "--example", "no/such/file.jsonl"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no/such/file.jsonl"), "{stderr}");
}

#[test]
fn an_unreadable_policy_counts_as_in_force_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("managed-settings.json"), "{ not json").unwrap();
    let real = format!("{TRANSCRIPTS}/fundwise-agent-memory.jsonl");
    let (code, stdout, _) = run(&[
        "replay",
        "--json",
        "--managed",
        dir.path().to_str().unwrap(),
        &real,
    ]);
    assert_eq!(code, 3);
    let (calls, summary) = json_lines(&stdout);
    assert_eq!(calls.len(), 25);
    assert!(
        calls.iter().all(|c| c["decision"] != "allow"),
        "fail closed"
    );
    assert!(summary["policy"]["error"].as_str().is_some());
}
