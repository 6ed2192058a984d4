//! `sec-default replay` throughput as a process (targets: 20,000 tool calls a
//! second over the real transcripts, parsing included, and 100,000 a second over calls
//! already extracted, on one core, with the security default seated and a 100-rule
//! policy). divan prints the rate as items (tool calls) a second.
//!
//! The input is the seven real transcripts of `shared/real-inputs/transcripts`, each
//! repeated 20 times into one file (4,500 calls, 39 MB), and the `--json` of a replay of
//! them. Run with `cargo bench -p sec-default-cli --bench replay`.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use divan::counter::ItemsCount;
use divan::Bencher;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn main() {
    divan::main();
}

/// How many times each real transcript is repeated.
const COPIES: usize = 20;
/// Tool calls in the seven real transcripts (their README counts them).
const REAL_CALLS: u64 = 225;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Inputs {
    _dir: tempfile::TempDir,
    transcripts: PathBuf,
    extracted: PathBuf,
}

fn replay(paths: &[&Path], out: Stdio) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sec-default"));
    cmd.current_dir(root())
        .args([
            "replay",
            "--managed",
            "examples/replay/policy-100",
            "--json",
        ])
        .args(paths)
        .stdout(out)
        .stderr(Stdio::null());
    cmd.output().unwrap()
}

fn inputs() -> &'static Inputs {
    static INPUTS: OnceLock<Inputs> = OnceLock::new();
    INPUTS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let transcripts = dir.path().join("transcripts");
        std::fs::create_dir(&transcripts).unwrap();
        let real = root().join("../shared/real-inputs/transcripts");
        for entry in std::fs::read_dir(&real).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "jsonl") {
                let text = std::fs::read(&path).unwrap();
                let many: Vec<u8> = text.repeat(COPIES);
                std::fs::write(transcripts.join(path.file_name().unwrap()), many).unwrap();
            }
        }
        let extracted = dir.path().join("extracted.jsonl");
        let out = replay(&[&transcripts], Stdio::piped());
        assert!(out.status.success());
        std::fs::write(&extracted, &out.stdout).unwrap();
        Inputs {
            _dir: dir,
            transcripts,
            extracted,
        }
    })
}

/// Seven real transcripts, 20 copies each: read, parsed, every call judged.
#[divan::bench(sample_count = 10)]
fn replay_real_transcripts_100_rules(bencher: Bencher) {
    let inputs = inputs();
    bencher
        .counter(ItemsCount::new(REAL_CALLS * COPIES as u64))
        .bench(|| {
            let out = replay(&[&inputs.transcripts], Stdio::null());
            assert!(out.status.success());
        });
}

/// The same calls, already extracted (a previous replay's `--json`), fed back.
#[divan::bench(sample_count = 10)]
fn replay_extracted_calls_100_rules(bencher: Bencher) {
    let inputs = inputs();
    bencher
        .counter(ItemsCount::new(REAL_CALLS * COPIES as u64))
        .bench(|| {
            let out = replay(&[&inputs.extracted], Stdio::null());
            assert!(out.status.success());
        });
}
