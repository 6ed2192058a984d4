//! Attacks on the bounded readers of the binary (SPEC §2.1 "Reading never hangs"), each
//! asserting the safe behaviour: a test here fails while its hole is open. Every run is
//! killed past 20 s, so none hangs the suite.

#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary with its output in files: (exit code, stderr). Past 20 s it is
/// killed and the test fails.
fn run(args: &[&str]) -> (i32, String) {
    let out = tempfile::tempdir().unwrap();
    let stderr = out.path().join("stderr");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sec-default"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
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
        std::fs::read_to_string(stderr).unwrap_or_default(),
    )
}

/// A "transcript" whose first line is no transcript's, followed by a hole of 256 GiB
/// (a sparse file: no disk is used, every byte reads as zero). `replay` decides at the
/// first line that the file is not a transcript, and the second line is past its
/// 64 MiB line cap, yet it reads the whole line to skip it: 256 GiB of reading.
#[test]
fn replay_of_a_sparse_file_ends() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("huge.jsonl");
    std::fs::write(&path, "{\"a\":1}\n").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(256 << 30)
        .unwrap();
    let (code, err) = run(&["replay", "--example", path.to_str().unwrap()]);
    assert_ne!(code, 0, "{err}");
    assert!(Path::new(&path).exists());
}
