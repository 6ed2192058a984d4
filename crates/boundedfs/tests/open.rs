//! The opener against what an attacker puts where a file is expected (SPEC §2.1
//! "Reading never hangs"): a FIFO (with and without a writer, behind a symbolic link), a
//! device, a socket, a folder, a file over the cap or growing past it while read; and
//! the line reader against a line over its cap.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use boundedfs::{open_bounded, open_lines, read_bounded, FileType, Line, Lines, Reason};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on a thread of its own; a hang fails the test after `secs` instead of
/// hanging it (a guard only: every case answers at once).
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung: no answer within {secs} s"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the reader panicked"),
    }
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

fn refused(path: PathBuf, cap: u64) -> boundedfs::Error {
    within(20, move || read_bounded(&path, cap)).unwrap_err()
}

#[test]
fn a_fifo_is_refused_at_once_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("settings.json");
    mkfifo(&fifo);
    let err = refused(fifo.clone(), 1 << 20);
    assert!(
        matches!(err.reason, Reason::NotRegular(FileType::Fifo)),
        "{err}"
    );
    assert_eq!(err.path, fifo);
    assert_eq!(
        err.to_string(),
        format!(
            "{}: it is a FIFO, not a regular file, so it is not read",
            fifo.display()
        )
    );
    // The opener alone, and the line reader, refuse it too.
    let again = fifo.clone();
    let err = within(20, move || open_bounded(&again, 1)).unwrap_err();
    assert!(matches!(err.reason, Reason::NotRegular(FileType::Fifo)));
    let err = within(20, move || open_lines(&fifo, 1).map(|_| ())).unwrap_err();
    assert!(matches!(err.reason, Reason::NotRegular(FileType::Fifo)));
}

#[test]
fn a_fifo_with_a_writer_or_behind_a_link_is_refused_too() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    // A writer holds the pipe open (non-blocking read-write open: it never waits) and
    // writes: a reader that accepted the FIFO would read bytes, not refuse.
    let mut writer = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    writer.write_all(b"{}").unwrap();
    let err = refused(fifo.clone(), 1 << 20);
    assert!(matches!(err.reason, Reason::NotRegular(FileType::Fifo)));
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let err = refused(link.clone(), 1 << 20);
    assert!(matches!(err.reason, Reason::NotRegular(FileType::Fifo)));
    assert_eq!(err.path, link);
}

#[test]
fn a_device_is_refused_never_read() {
    let err = refused(PathBuf::from("/dev/zero"), 1 << 20);
    assert!(
        matches!(err.reason, Reason::NotRegular(FileType::CharDevice)),
        "{err}"
    );
    assert!(err
        .to_string()
        .starts_with("/dev/zero: it is a character device"));
    let err = within(20, || open_lines(Path::new("/dev/zero"), 16).map(|_| ())).unwrap_err();
    assert!(matches!(
        err.reason,
        Reason::NotRegular(FileType::CharDevice)
    ));
}

#[test]
fn a_folder_where_a_file_is_expected_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = refused(dir.path().to_path_buf(), 1 << 20);
    assert!(matches!(
        err.reason,
        Reason::NotRegular(FileType::Directory)
    ));
    assert!(err
        .to_string()
        .ends_with("it is a directory, not a regular file, so it is not read"));
}

#[test]
fn a_socket_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let err = refused(sock, 1 << 20);
    assert!(
        matches!(err.reason, Reason::NotRegular(FileType::Socket)),
        "{err}"
    );
}

#[test]
fn an_absent_file_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let err = read_bounded(&dir.path().join("nothing.json"), 1).unwrap_err();
    assert!(err.is_not_found());
    assert!(err
        .to_string()
        .ends_with("nothing.json: the file does not exist"));
}

#[test]
fn the_cap_holds_at_the_open_and_while_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, b"0123456789").unwrap();
    // At the cap: read whole; one byte over: refused before reading.
    assert_eq!(read_bounded(&path, 10).unwrap(), b"0123456789");
    let err = read_bounded(&path, 9).unwrap_err();
    assert!(
        matches!(err.reason, Reason::TooLarge { size: 10, cap: 9 }),
        "{err}"
    );
    assert!(err
        .to_string()
        .ends_with("f: it holds 10 bytes or more, over the 9-byte limit, so it is not read"));
    // Grown after the open: the read stops one byte past the cap.
    let mut file = open_bounded(&path, 10).unwrap();
    assert_eq!(file.metadata().len(), 10);
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&[b'x'; 4096])
        .unwrap();
    let mut bytes = Vec::new();
    let err = file.read_to_end(&mut bytes).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::FileTooLarge);
    assert_eq!(bytes.len(), 10, "nothing past the cap is kept");
    assert_eq!(file.bytes_read(), 10);
}

#[test]
fn a_regular_file_reads_as_usual_in_pieces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big");
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &data).unwrap();
    assert_eq!(read_bounded(&path, data.len() as u64).unwrap(), data);
    let mut file = boundedfs::open_regular(&path).unwrap();
    let mut piece = [0u8; 7];
    file.read_exact(&mut piece).unwrap();
    assert_eq!(&piece, &data[..7]);
}

fn lines_of(text: &[u8], cap: usize) -> Vec<(Line, Vec<u8>)> {
    let mut lines = Lines::new(std::io::BufReader::with_capacity(4, text), cap);
    let mut buf = Vec::new();
    let mut out = Vec::new();
    loop {
        let line = lines.next_line(&mut buf).unwrap();
        if line == Line::End {
            assert_eq!(lines.bytes_read(), text.len() as u64);
            return out;
        }
        out.push((line, buf.clone()));
    }
}

#[test]
fn a_line_over_the_cap_is_skipped_unloaded_and_reading_goes_on() {
    let got = lines_of(b"short\nmuch too long a line\n\nlast", 8);
    assert_eq!(
        got,
        vec![
            (Line::Read { complete: true }, b"short".to_vec()),
            (Line::TooLong { bytes: 20 }, Vec::new()),
            (Line::Read { complete: true }, Vec::new()),
            (Line::Read { complete: false }, b"last".to_vec()),
        ]
    );
    // A last line over the cap without a newline; a line exactly at the cap.
    assert_eq!(
        lines_of(b"12345678\n123456789", 8),
        vec![
            (Line::Read { complete: true }, b"12345678".to_vec()),
            (Line::TooLong { bytes: 9 }, Vec::new()),
        ]
    );
    assert!(lines_of(b"", 8).is_empty());
}

#[test]
fn open_lines_reads_a_file_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, b"{\"a\":1}\n{\"b\":2}\n").unwrap();
    let mut lines = open_lines(&path, 1024).unwrap();
    let mut buf = Vec::new();
    assert_eq!(
        lines.next_line(&mut buf).unwrap(),
        Line::Read { complete: true }
    );
    assert_eq!(buf, b"{\"a\":1}");
    assert_eq!(
        lines.next_line(&mut buf).unwrap(),
        Line::Read { complete: true }
    );
    assert_eq!(lines.next_line(&mut buf).unwrap(), Line::End);
    assert_eq!(lines.get_ref().get_ref().path(), path);
}

#[test]
fn a_log_opened_for_appending_is_created_and_a_fifo_there_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("decisions.jsonl");
    let mut file = boundedfs::open_append(&log).unwrap();
    file.write_all(b"one\n").unwrap();
    boundedfs::open_append(&log)
        .unwrap()
        .write_all(b"two\n")
        .unwrap();
    assert_eq!(std::fs::read(&log).unwrap(), b"one\ntwo\n");
    // A FIFO with no reader (the open fails at once) and with one (the open succeeds,
    // the check on the descriptor refuses).
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let again = fifo.clone();
    let err = within(20, move || boundedfs::open_append(&again)).unwrap_err();
    assert!(
        matches!(err.reason, Reason::NotRegular(FileType::Fifo)),
        "{err}"
    );
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .unwrap();
    let err = within(20, move || boundedfs::open_append(&fifo)).unwrap_err();
    assert!(
        matches!(err.reason, Reason::NotRegular(FileType::Fifo)),
        "{err}"
    );
    let err = boundedfs::open_append(dir.path()).unwrap_err();
    assert!(
        matches!(err.reason, Reason::NotRegular(FileType::Directory)),
        "{err}"
    );
}

/// A line longer than the skip cap gives the stream up: it is consumed up to the cap
/// and no further, and every later call answers the end.
#[test]
fn a_line_past_the_skip_cap_gives_the_stream_up() {
    let text = format!("short\n{}\nafter\n", "x".repeat(10_000));
    // Read 64 bytes at a time, as a file is read a buffer at a time.
    let reader = |t: &'static str| std::io::BufReader::with_capacity(64, t.as_bytes());
    let text: &'static str = Box::leak(text.into_boxed_str());
    let mut lines = boundedfs::Lines::new(reader(text), 100).with_skip_cap(1_000);
    let mut buf = Vec::new();
    assert_eq!(
        lines.next_line(&mut buf).unwrap(),
        boundedfs::Line::Read { complete: true }
    );
    assert_eq!(buf, b"short");
    match lines.next_line(&mut buf).unwrap() {
        boundedfs::Line::Abandoned { bytes } => {
            assert!((1_000..10_000).contains(&bytes), "{bytes}")
        }
        other => panic!("{other:?}"),
    }
    assert!(lines.bytes_read() < 6 + 10_000, "{}", lines.bytes_read());
    assert_eq!(lines.next_line(&mut buf).unwrap(), boundedfs::Line::End);
    // Under the skip cap, the long line is skipped and the stream goes on.
    let mut lines = boundedfs::Lines::new(reader(text), 100).with_skip_cap(100_000);
    lines.next_line(&mut buf).unwrap();
    assert_eq!(
        lines.next_line(&mut buf).unwrap(),
        boundedfs::Line::TooLong { bytes: 10_000 }
    );
    assert_eq!(
        lines.next_line(&mut buf).unwrap(),
        boundedfs::Line::Read { complete: true }
    );
    assert_eq!(buf, b"after");
}
