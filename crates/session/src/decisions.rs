//! The decision log: one JSON line per `tool.check`, each carrying the
//! SHA-256 of the line before it, so that a line removed, added or edited shows
//! ([`verify_log`]). OPA's decision logs are the anchor: what was asked (a digest of
//! the input, not the input), what was decided, by which rule, and what changed it.
//!
//! A line, keys in this order:
//!
//! ```json
//! {"time":"2026-12-03T14:00:00.123Z","session":"…","tool":"Bash","tool_use_id":"t1",
//!  "input_sha256":"…","decision":"deny","reason":"…","rule":"Bash(rm:*)","source":"policy",
//!  "file":"/etc/claude-code/managed-settings.json","line":4,"rewritten_by":["yes-man"],
//!  "held":true,"outcome":"refused","prev":"<64 hex digits>"}
//! ```
//!
//! `prev` of the first line is 64 zeros; of every other line, the SHA-256 (lower-case
//! hex) of the previous line's bytes, its newline excluded.

use fnhooks::{HookFailure, Reply};
use parking_lot::Mutex;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::{BufRead, Write};
use std::sync::{mpsc, Arc};
use std::time::{SystemTime, UNIX_EPOCH};

/// How many records may wait for the log's thread before a check waits for it.
const QUEUE: usize = 8192;

/// The `prev` of a log's first line.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One `tool.check` as the session saw it. It holds the check's
/// fields and answer as shared handles, so that making one costs no copy: the digest,
/// the line and its hash are made by the sink ([`DecisionLog`] does it on a thread of
/// its own).
#[derive(Debug, Clone)]
pub struct DecisionRecord {
    /// The session's id.
    pub session: Arc<str>,
    /// The `tool.check` event's fields (`tool`, `input`, `tool_use_id`).
    pub fields: Arc<Map<String, Value>>,
    /// The verdict the chain answered, or how it failed.
    pub verdict: Result<Reply, HookFailure>,
    /// The managed file and line of the rule that decided, when a managed rule did.
    pub file: Option<String>,
    /// Its 1-based line.
    pub line: Option<usize>,
    /// The person's plugins whose answer differs from what came back to them (or that
    /// answered without asking the rest of the chain), by name.
    pub rewritten_by: Vec<String>,
    /// Whether the security default put back the verdict beneath the person's plugins
    /// (SPEC §3.6): its answer differs from what the user tier answered it.
    pub held: bool,
    /// What the engine did with it (`run`, `prompt`, `host`, `refused`).
    pub outcome: &'static str,
}

impl DecisionRecord {
    /// The SHA-256 of `input`'s JSON text (`input.to_string()`), lower-case hex.
    #[must_use]
    pub fn digest(input: &Value) -> String {
        let mut hasher = Sha256::new();
        // Writing into a hasher cannot fail.
        let _ = serde_json::to_writer(HashWriter(&mut hasher), input);
        hex(&hasher.finalize())
    }

    /// The tool asked about.
    #[must_use]
    pub fn tool(&self) -> &str {
        self.fields
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// What receives each `tool.check` of a session ([`crate::SessionConfig::decisions`]).
/// Called on the thread that raised the check, after the chain answered: keep it short
/// (hand the record on; [`DecisionLog`] does).
pub trait DecisionSink: Send + Sync + 'static {
    /// Records one decision.
    fn record(&self, decision: DecisionRecord);
}

/// A hash-chained decision log written to any writer, on a thread of its own (a file:
/// [`DecisionLog::create`]); [`DecisionLog::flush`] waits until every record handed to it
/// is written. Dropping it writes what is left.
pub struct DecisionLog {
    tx: Mutex<Option<mpsc::SyncSender<Msg>>>,
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    error: Arc<Mutex<Option<String>>>,
}

enum Msg {
    Record(Box<DecisionRecord>),
    Flush(mpsc::Sender<std::io::Result<()>>),
}

impl fmt::Debug for DecisionLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecisionLog").finish_non_exhaustive()
    }
}

impl DecisionLog {
    /// A log writing to `out`, its first line chained to `prev` ([`GENESIS`] for a new
    /// log, or the hash of the last line of the log it continues).
    #[must_use]
    pub fn to_writer(out: Box<dyn Write + Send>, prev: String) -> Self {
        // Bounded: a flood of checks waits for the disk rather than filling memory.
        let (tx, rx) = mpsc::sync_channel::<Msg>(QUEUE);
        let error = Arc::new(Mutex::new(None));
        let errors = Arc::clone(&error);
        let writer = std::thread::Builder::new()
            .name("decision-log".to_owned())
            .spawn(move || write_lines(out, prev, &rx, &errors))
            .ok();
        if writer.is_none() {
            *error.lock() = Some("cannot start the decision log's thread".to_owned());
        }
        DecisionLog {
            tx: Mutex::new(Some(tx)),
            writer: Mutex::new(writer),
            error,
        }
    }

    /// A log appended to the file at `path`, created when missing; an existing log is
    /// continued: its last line's hash is the first new line's `prev`.
    ///
    /// # Errors
    ///
    /// The file cannot be opened or read.
    pub fn create(path: &std::path::Path) -> std::io::Result<Self> {
        // Both opens are the bounded opener's (SPEC §2.1 "Reading never hangs"): a FIFO
        // or a device at the path is refused on the opened file, never waited on.
        let refused = |e: boundedfs::Error| match e.reason {
            boundedfs::Reason::NotRegular(kind) => std::io::Error::other(format!(
                "it is {kind}, not a regular file, so it is no decision log"
            )),
            boundedfs::Reason::Io(e) => e,
            reason => std::io::Error::other(reason.to_string()),
        };
        let prev = match boundedfs::open_regular(path) {
            Err(e) if e.is_not_found() => GENESIS.to_owned(),
            Err(e) => return Err(refused(e)),
            Ok(file) => {
                // Only a log whose chain holds is continued: a line glued onto a broken
                // or foreign file would hide where it broke.
                verify_log(std::io::BufReader::new(file))
                    .map_err(|b| {
                        std::io::Error::other(format!(
                            "it is not an intact decision log ({b}); check it with `sec-default log verify`"
                        ))
                    })?
                    .last
            }
        };
        let file = boundedfs::open_append(path).map_err(refused)?;
        Ok(Self::to_writer(
            Box::new(std::io::BufWriter::new(file)),
            prev,
        ))
    }

    /// The first write error, if any (a log that cannot be written stops there; the
    /// session goes on).
    #[must_use]
    pub fn error(&self) -> Option<String> {
        self.error.lock().clone()
    }

    /// Waits until every record handed to the log is written and flushed.
    ///
    /// # Errors
    ///
    /// The writer's, or the log's thread is gone.
    pub fn flush(&self) -> std::io::Result<()> {
        let (ack, done) = mpsc::channel();
        let sent = self
            .tx
            .lock()
            .as_ref()
            .is_some_and(|tx| tx.send(Msg::Flush(ack)).is_ok());
        let gone = || std::io::Error::other("the decision log's thread is gone");
        if !sent {
            return Err(gone());
        }
        done.recv().map_err(|_| gone())?
    }
}

impl Drop for DecisionLog {
    fn drop(&mut self) {
        // Closing the channel ends the thread once it wrote what is queued.
        drop(self.tx.lock().take());
        if let Some(w) = self.writer.lock().take() {
            let _ = w.join();
        }
    }
}

impl DecisionSink for DecisionLog {
    fn record(&self, d: DecisionRecord) {
        if let Some(tx) = self.tx.lock().as_ref() {
            let _ = tx.send(Msg::Record(Box::new(d)));
        }
    }
}

/// The log's thread: each record made a line, chained, written; a flush answered.
fn write_lines(
    mut out: Box<dyn Write + Send>,
    mut prev: String,
    rx: &mpsc::Receiver<Msg>,
    error: &Mutex<Option<String>>,
) {
    let mut line: Vec<u8> = Vec::with_capacity(512);
    let mut failed = false;
    while let Ok(msg) = rx.recv() {
        match msg {
            Msg::Flush(ack) => {
                let _ = ack.send(out.flush());
            }
            Msg::Record(_) if failed => {}
            Msg::Record(d) => {
                line.clear();
                let null = Value::Null;
                let verdict = d.verdict.as_ref().map(|r| &**r);
                let field = |k: &str| verdict.ok().and_then(|v| v.get(k)).filter(|x| !x.is_null());
                let failure = d
                    .verdict
                    .as_ref()
                    .err()
                    .map(|e| Value::String(e.to_string()));
                let entry = Line {
                    time: now_rfc3339(),
                    session: &d.session,
                    tool: d.tool(),
                    tool_use_id: d.fields.get("tool_use_id").and_then(Value::as_str),
                    input_sha256: DecisionRecord::digest(d.fields.get("input").unwrap_or(&null)),
                    decision: field("decision"),
                    reason: field("reason"),
                    rule: field("rule"),
                    source: field("source"),
                    error: failure.as_ref(),
                    file: d.file.as_deref(),
                    line: d.line,
                    rewritten_by: &d.rewritten_by,
                    held: d.held,
                    outcome: d.outcome,
                    prev: &prev,
                };
                if serde_json::to_writer(&mut line, &entry).is_err() {
                    continue;
                }
                prev = hex(&Sha256::digest(&line));
                line.push(b'\n');
                if let Err(e) = out.write_all(&line) {
                    *error.lock() = Some(e.to_string());
                    failed = true;
                }
            }
        }
    }
    if let Err(e) = out.flush() {
        error.lock().get_or_insert(e.to_string());
    }
}

/// One line of the log, in key order (the module's docs).
#[derive(serde::Serialize)]
struct Line<'a> {
    time: String,
    session: &'a str,
    tool: &'a str,
    tool_use_id: Option<&'a str>,
    input_sha256: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a Value>,
    file: Option<&'a str>,
    line: Option<usize>,
    rewritten_by: &'a [String],
    held: bool,
    outcome: &'a str,
    prev: &'a str,
}

/// A decision log whose chain holds ([`verify_log`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEnd {
    /// How many lines it holds.
    pub lines: u64,
    /// The SHA-256 of its last line ([`GENESIS`] when empty): no later line covers the
    /// last one, so an auditor keeps this to tell if it is edited or removed later.
    pub last: String,
}

/// The longest line [`verify_log`] reads (16 MiB); a longer one breaks the chain.
pub const MAX_LINE_BYTES: u64 = 16 << 20;

/// Where a decision log's chain breaks (`sec-default log verify`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogBreak {
    /// The 1-based line.
    pub line: u64,
    /// Why: not JSON, no `prev`, or a `prev` that is not the previous line's hash.
    pub reason: String,
}

impl fmt::Display for LogBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// Checks a decision log's chain line by line (streaming, at most [`MAX_LINE_BYTES`] a
/// line): each line JSON, ending in a newline, with a `prev` that is the SHA-256 of the
/// line before (the first's [`GENESIS`]). The bytes are hashed as they are: a line
/// whose ending was changed (`\r\n`) breaks the next line's `prev`.
///
/// # Errors
///
/// The first line that breaks the chain ([`LogBreak`]), or one that cannot be read.
pub fn verify_log(mut reader: impl BufRead) -> Result<LogEnd, LogBreak> {
    let mut prev = GENESIS.to_owned();
    let mut n = 0u64;
    let mut buf: Vec<u8> = Vec::new();
    loop {
        buf.clear();
        let read = std::io::Read::take(&mut reader, MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| LogBreak {
                line: n + 1,
                reason: format!("cannot be read: {e}"),
            })?;
        if read == 0 {
            break;
        }
        n += 1;
        let Some(line) = buf.strip_suffix(b"\n") else {
            return Err(LogBreak {
                line: n,
                reason: if buf.len() as u64 > MAX_LINE_BYTES {
                    format!("longer than {MAX_LINE_BYTES} bytes: no line of a decision log is")
                } else {
                    "ends without a newline: the line is incomplete (cut short, or glued to)"
                        .to_owned()
                },
            });
        };
        let v: Value = serde_json::from_slice(line).map_err(|e| LogBreak {
            line: n,
            reason: format!("not JSON: {e}"),
        })?;
        let Some(got) = v.get("prev").and_then(Value::as_str) else {
            return Err(LogBreak {
                line: n,
                reason: "has no \"prev\"".to_owned(),
            });
        };
        if got != prev {
            return Err(LogBreak {
                line: n,
                reason: if n == 1 {
                    format!("\"prev\" is {got}, not 64 zeros: lines before it were removed")
                } else {
                    format!(
                        "\"prev\" is {got}, but line {} hashes to {prev}: a line was removed, added or edited",
                        n - 1
                    )
                },
            });
        }
        prev = hex(&Sha256::digest(line));
    }
    Ok(LogEnd {
        lines: n,
        last: prev,
    })
}

/// Lower-case hex.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digit = |n: u8| char::from(DIGITS.get(usize::from(n)).copied().unwrap_or(b'0'));
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(digit(b >> 4));
        s.push(digit(b & 0xf));
    }
    s
}

/// Feeds what is written to a hasher (the input's JSON text, digested without being
/// kept).
struct HashWriter<'a>(&'a mut Sha256);

impl Write for HashWriter<'_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.update(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Now, as RFC 3339 UTC with milliseconds.
fn now_rfc3339() -> String {
    utc_timestamp(SystemTime::now())
}

/// A time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC), as the decision log writes it; a time
/// before 1970 is written as 1970-01-01.
#[must_use]
pub fn utc_timestamp(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    rfc3339(d.as_secs(), d.subsec_millis())
}

/// `secs` since 1970 (UTC) and `millis`, as `YYYY-MM-DDTHH:MM:SS.mmmZ` (the civil-from-
/// days conversion of the proleptic Gregorian calendar).
fn rfc3339(secs: u64, millis: u32) -> String {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (h, mi, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{mi:02}:{s:02}.{millis:03}Z")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;
    use std::sync::Arc;

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn record(n: usize) -> DecisionRecord {
        let fields = json!({"tool": "Bash", "input": {"command": format!("echo {n}")}, "tool_use_id": format!("t{n}")});
        DecisionRecord {
            session: Arc::from("s1"),
            fields: Arc::new(fields.as_object().cloned().unwrap()),
            verdict: Ok(Reply::new(
                json!({"decision": "deny", "rule": "Bash(rm:*)", "source": "policy"}),
            )),
            file: Some("/etc/claude-code/managed-settings.json".into()),
            line: Some(4),
            rewritten_by: vec!["yes-man".into()],
            held: true,
            outcome: "refused",
        }
    }

    fn log_of(n: usize) -> String {
        let buf = Shared::default();
        let log = DecisionLog::to_writer(Box::new(buf.clone()), GENESIS.to_owned());
        for i in 0..n {
            log.record(record(i));
        }
        log.flush().unwrap();
        let bytes = buf.0.lock().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_written_log_verifies_and_each_line_chains_to_the_one_before() {
        let text = log_of(5);
        assert_eq!(verify_log(text.as_bytes()).map(|e| e.lines), Ok(5));
        let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["prev"], GENESIS);
        assert_eq!(first["decision"], "deny");
        assert_eq!(first["held"], true);
        assert_eq!(first["input_sha256"].as_str().unwrap().len(), 64);
        assert!(first["time"].as_str().unwrap().ends_with('Z'));
    }

    #[test]
    fn a_removed_edited_or_added_line_is_named() {
        let text = log_of(4);
        let lines: Vec<&str> = text.lines().collect();
        // Removed: the line after it breaks.
        let joined = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
        let removed = joined(&[lines[0], lines[2], lines[3]]);
        assert_eq!(verify_log(removed.as_bytes()).unwrap_err().line, 2);
        // Edited: the line after the edited one breaks.
        let edited = text.replacen("\"deny\"", "\"allow\"", 2);
        let e = verify_log(edited.as_bytes()).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        // The first line removed: the new first line's prev is not zeros.
        let headless = joined(&lines[1..]);
        assert_eq!(verify_log(headless.as_bytes()).unwrap_err().line, 1);
        // Not JSON.
        let garbage = format!("{}\n{{ nope\n", lines[0]);
        let e = verify_log(garbage.as_bytes()).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.starts_with("not JSON"), "{e}");
        // A changed line ending breaks the next line; a last line cut short is named.
        let crlf = text.replacen('\n', "\r\n", 1);
        assert_eq!(verify_log(crlf.as_bytes()).unwrap_err().line, 2);
        let cut = &text[..text.len() - 3];
        let e = verify_log(cut.as_bytes()).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
        assert!(e.reason.contains("without a newline"), "{e}");
        // The end's hash is the last line's.
        let end = verify_log(text.as_bytes()).unwrap();
        assert_eq!(end.last, hex(&Sha256::digest(lines[3].as_bytes())));
    }

    #[test]
    fn a_log_that_does_not_verify_is_never_continued() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("decisions.jsonl");
        std::fs::write(&path, "Linux version 6.1\n").unwrap();
        let e = DecisionLog::create(&path).unwrap_err();
        assert!(e.to_string().contains("not an intact decision log"), "{e}");
        std::fs::write(&path, log_of(2).trim_end()).unwrap();
        assert!(DecisionLog::create(&path).is_err());
        assert!(DecisionLog::create(dir.path()).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_where_the_log_goes_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("decisions.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(DecisionLog::create(&path).map(|_| ()));
        });
        // A guard only: the refusal is immediate.
        let e = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("answered, not hung")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is a FIFO, not a regular file, so it is no decision log"
        );
    }

    #[test]
    fn a_continued_log_chains_to_its_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("decisions.jsonl");
        for _ in 0..2 {
            let log = DecisionLog::create(&path).unwrap();
            log.record(record(1));
            log.record(record(2));
            log.flush().unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(verify_log(text.as_bytes()).map(|e| e.lines), Ok(4));
    }

    #[test]
    fn digests_are_of_the_inputs_json_text() {
        let input = json!({"command": "ls -la", "n": 1});
        assert_eq!(
            DecisionRecord::digest(&input),
            hex(&Sha256::digest(input.to_string().as_bytes()))
        );
        assert_eq!(
            hex(&Sha256::digest(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(rfc3339(1_796_300_000, 999), "2026-12-03T12:13:20.999Z");
    }
}
