//! What an attacker puts where the binary expects a file (SPEC §2.1 "Reading never
//! hangs"): a FIFO at a mod's `hooks/hooks.json` or manifest, a FIFO `--settings` file,
//! transcript or decision log, a device, a folder. Each command answers at once with an
//! error naming the file and what it is; none waits on the FIFO.
//!
//! Every run is guarded by a deadline (20 s, far past the instant answer): a command
//! that hangs is killed and the test fails, it never hangs the suite.

#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Runs the binary in the workspace root with its output in files (no pipe to fill):
/// (exit code, stdout, stderr). Past 20 s it is killed and the test fails.
fn run(args: &[&str]) -> (i32, String, String) {
    let out = tempfile::tempdir().unwrap();
    let (stdout, stderr) = (out.path().join("stdout"), out.path().join("stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_sec-default"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(&stderr).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("sec-default {args:?} hung: no answer within 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (
        status.code().unwrap_or(-1),
        std::fs::read_to_string(stdout).unwrap(),
        std::fs::read_to_string(stderr).unwrap(),
    )
}

/// Makes a FIFO at `path`, in place of what is there (with the `mkfifo` command).
fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// A mod folder under `dir`: a manifest, `hooks/hooks.json`, a hooks module.
fn a_mod(dir: &Path) -> PathBuf {
    let m = dir.join("fifo-mod");
    std::fs::create_dir_all(m.join(".claude-plugin")).unwrap();
    std::fs::create_dir_all(m.join("hooks")).unwrap();
    std::fs::write(
        m.join(".claude-plugin/plugin.json"),
        r#"{"name": "fifo-mod"}"#,
    )
    .unwrap();
    std::fs::write(
        m.join("hooks/hooks.json"),
        r#"{"modules": ["./register.ts"]}"#,
    )
    .unwrap();
    std::fs::write(
        m.join("hooks/register.ts"),
        "export function register() {}\n",
    )
    .unwrap();
    m
}

const FIFO: &str = "it is a FIFO, not a regular file, so it is not read";

#[test]
fn mods_check_names_a_fifo_at_any_file_of_the_mod() {
    for file in [
        "hooks/hooks.json",
        ".claude-plugin/plugin.json",
        "hooks/register.ts",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let m = a_mod(dir.path());
        // Loads as it is.
        let (code, stdout, stderr) = run(&["mods", "check", m.to_str().unwrap()]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        mkfifo(&m.join(file));
        let (code, stdout, stderr) = run(&["mods", "check", m.to_str().unwrap()]);
        assert_eq!(code, 1, "{file}: {stdout}{stderr}");
        assert!(
            stdout.contains("cannot load")
                && stdout.contains(&format!("{file}: cannot read: {FIFO}")),
            "{file}: {stdout}"
        );
    }
}

#[test]
fn test_names_a_fifo_in_a_scenarios_mod_folder_as_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let m = a_mod(dir.path());
    let scenario = dir.path().join("fifo.json");
    std::fs::write(
        &scenario,
        r#"{"name": "a FIFO in a mod folder", "plugins": [
            {"id": "fifo-mod@x", "tier": "user", "path": "fifo-mod"}],
          "steps": [{"raise": "tool.check", "event": {"tool": "Read", "input": {"file_path": "/x"}, "tool_use_id": "t"},
                     "expect": {"decision": "allow"}}]}"#,
    )
    .unwrap();
    mkfifo(&m.join("hooks/hooks.json"));
    let (code, stdout, stderr) = run(&["test", scenario.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains(&format!("hooks/hooks.json: cannot read: {FIFO}")),
        "{stdout}{stderr}"
    );
}

#[test]
fn audit_names_a_fifo_device_or_folder_given_as_settings() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("settings.json");
    mkfifo(&fifo);
    let cases = [
        (fifo.clone(), "a FIFO"),
        (PathBuf::from("/dev/zero"), "a character device"),
        (dir.path().to_path_buf(), "a directory"),
    ];
    for (file, what) in cases {
        let (code, _, stderr) = run(&["audit", "--example", "--settings", file.to_str().unwrap()]);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: the --settings file cannot be read: it is {what}, not a regular file, so it is not read",
                file.display()
            )),
            "{what}: {stderr}"
        );
    }
}

#[test]
fn audit_names_a_fifo_marketplace_of_a_persons_settings() {
    let dir = tempfile::tempdir().unwrap();
    let market = dir.path().join("market");
    std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
    mkfifo(&market.join(".claude-plugin/marketplace.json"));
    let settings = dir.path().join("settings.json");
    std::fs::write(
        &settings,
        r#"{"extraKnownMarketplaces": {"dev": {"source": {"source": "directory", "path": "./market"}}},
            "enabledPlugins": {"fifo-mod@dev": true}}"#,
    )
    .unwrap();
    let (code, stdout, stderr) = run(&[
        "audit",
        "--example",
        "--json",
        "--settings",
        settings.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let lines = v["loading_lines"].as_array().unwrap();
    assert!(
        lines.iter().any(|l| {
            let l = l.as_str().unwrap();
            l.starts_with("fifo-mod@dev: ")
                && l.ends_with(&format!(
                    "/market/.claude-plugin/marketplace.json: cannot read: {FIFO}; skipped"
                ))
        }),
        "{lines:?}"
    );
}

#[test]
fn replay_and_log_verify_refuse_a_fifo_or_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("session.jsonl");
    mkfifo(&fifo);
    for (file, what) in [
        (fifo.as_path(), "a FIFO"),
        (Path::new("/dev/zero"), "a character device"),
    ] {
        let (code, stdout, stderr) = run(&["replay", "--example", file.to_str().unwrap()]);
        assert_eq!(code, 2, "{what}: {stdout}{stderr}");
        assert!(
            format!("{stdout}{stderr}").contains(&format!("it is {what}, not a regular file")),
            "{what}: {stdout}{stderr}"
        );
        // In a folder of transcripts (as ~/.claude/projects is walked), too.
        if what == "a FIFO" {
            let (code, stdout, stderr) =
                run(&["replay", "--example", dir.path().to_str().unwrap()]);
            assert_eq!(code, 2, "{stdout}{stderr}");
            assert!(
                format!("{stdout}{stderr}").contains("it is a FIFO, not a regular file"),
                "{stdout}{stderr}"
            );
        }
        let (code, stdout, stderr) = run(&["log", "verify", file.to_str().unwrap()]);
        assert_eq!(code, 2, "{what}: {stdout}{stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: it is {what}, not a regular file, so it is no decision log",
                file.display()
            )),
            "{what}: {stderr}"
        );
    }
}

/// A file of 256 GiB whose every byte past its first line reads as zero (a sparse hole:
/// no disk is used). `replay` skips a line over 64 MiB without loading it, and gives
/// the rest of a file up once one line runs past 256 MiB: a hole costs that much
/// reading, not 256 GiB, and the report names the line.
#[test]
fn replay_of_a_sparse_hole_gives_the_file_up() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let hole = |first: &str| {
        let path = dir.path().join(format!("{}.jsonl", first.len()));
        std::fs::write(&path, format!("{first}\n")).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(256 << 30)
            .unwrap();
        path
    };
    // A first line of no transcript: named as no transcript (exit 2).
    let path = hole(r#"{"a":1}"#);
    let (code, out, err) = run(&["replay", "--example", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(out.contains("not a known transcript format"), "{out}");
    // A Claude Code transcript's line, then the hole: the line past the cap is named.
    let path = hole(
        r#"{"type":"user","message":{"role":"user","content":"hi"},"cwd":"/tmp","sessionId":"s1","uuid":"u1"}"#,
    );
    let (_, out, err) = run(&["replay", "--example", path.to_str().unwrap()]);
    assert!(
        out.contains(":2: runs past 268435456 bytes")
            && out.contains("the rest of the file is not read"),
        "{out}{err}"
    );
}
