//! Reading transcripts for `replay`, one line at a time: Claude Code
//! session files (inline sidechains and `subagents/agent-*.jsonl` files included),
//! Codex CLI rollouts, and the `--json` of a previous replay. The formats are those
//! `shared/real-inputs/transcripts/README.md` documents from real files.
//!
//! Memory stays flat however long the file: a line is read into one reused buffer of at
//! most [`MAX_LINE_BYTES`], and every line is parsed into a small typed view in which
//! only a tool call's `input` becomes a JSON tree; everything else (results, thinking,
//! file contents) is skipped by the parser without being kept.
//!
//! This file detects a file's format and reads its lines; each format's lines are read
//! in a file of their own: `transcript/claude.rs` (Claude Code), `transcript/codex.rs`
//! (Codex CLI, with the engine calls a Codex call stands for) and
//! `transcript/replayed.rs` (a replay's own `--json`).

/// Claude Code session files.
mod claude;
/// Codex CLI rollouts.
mod codex;
/// A previous replay's `--json`.
mod replayed;

use claude::ClaudeLine;
use codex::CodexLine;
pub(crate) use replayed::parts_json;
use replayed::ReplayLine;
use serde_json::Value;
use std::fmt;
use std::io::{self, BufRead};
use std::sync::Arc;

/// The longest line read (64 MiB); a longer line is counted bad and skipped unread.
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// The longest line skipped before the rest of its file is given up (256 MiB): a file
/// that is one endless line, or a sparse hole of terabytes, costs this much reading and
/// no more, and the replay names the line.
const MAX_SKIPPED_LINE: u64 = 256 << 20;

/// How many non-empty lines may pass before one is of a known format; past that the
/// file is no known transcript (exit 2).
const DETECT_LINES: u32 = 64;

/// A transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Claude Code's `~/.claude/projects/<project>/<session>.jsonl` (and subagent files).
    Claude,
    /// Codex CLI's `~/.codex/sessions/.../rollout-*.jsonl`.
    Codex,
    /// The `--json` of a previous `replay` (calls already extracted).
    Replay,
}

impl Format {
    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Claude => "claude-code",
            Format::Codex => "codex",
            Format::Replay => "replay-json",
        }
    }
}

/// What the transcript records of a call after it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Seen {
    /// Its result came back (the person approved it, or nothing asked).
    Ran,
    /// Its result is an error (the tool failed).
    Failed,
    /// The person rejected it ("User rejected tool use").
    Rejected,
    /// The person interrupted it.
    Interrupted,
    /// No result in the file.
    NoResult,
}

impl Seen {
    /// Every value, in report order.
    pub const ALL: [Seen; 5] = [
        Seen::Ran,
        Seen::Failed,
        Seen::Rejected,
        Seen::Interrupted,
        Seen::NoResult,
    ];

    /// Its name in reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Seen::Ran => "ran",
            Seen::Failed => "failed",
            Seen::Rejected => "rejected",
            Seen::Interrupted => "interrupted",
            Seen::NoResult => "no_result",
        }
    }

    fn parse(s: &str) -> Option<Seen> {
        Seen::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

/// One tool call as the transcript records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The transcript file and the 1-based line of the call.
    pub file: Arc<str>,
    /// 1-based.
    pub line: u64,
    /// The session's id (`sessionId`; Codex: `session_meta`'s id, else the file's stem).
    pub session: Arc<str>,
    /// The subagent it ran in: `agentId` of a subagent file, `sidechain` for an inline
    /// sidechain; `None`: the main loop.
    pub agent: Option<Arc<str>>,
    /// `tool_use` id / Codex `call_id`.
    pub id: String,
    /// The tool as recorded (`Bash`, `mcp__github__create_issue`, `shell_command`).
    pub tool: String,
    /// Its input as recorded.
    pub input: Value,
    /// The engine calls it stands for (`tool`, `input`), when not itself: a Codex shell
    /// call is `Bash`, an `apply_patch` one `Write`/`Edit` per file.
    pub judged_as: Option<Vec<(String, Value)>>,
    /// The working folder the transcript records for it.
    pub cwd: Option<Arc<str>>,
    /// The permission mode the transcript records (`None`: none recorded).
    pub mode: Option<Arc<str>>,
    /// What the transcript says became of it (a replayed `--json` carries it).
    pub seen: Option<Seen>,
    /// The length of the line it was read from (what keeping it costs, about).
    pub bytes: usize,
}

impl Call {
    /// The engine calls it stands for.
    pub(crate) fn parts(&self) -> Vec<(&str, &Value)> {
        match &self.judged_as {
            Some(parts) => parts.iter().map(|(t, i)| (t.as_str(), i)).collect(),
            None => vec![(self.tool.as_str(), &self.input)],
        }
    }
}

/// What one line gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A tool call.
    Call(Box<Call>),
    /// The result of the call `id`.
    Result {
        /// The call's id.
        id: String,
        /// What became of it.
        seen: Seen,
    },
    /// A line that could not be read: its 1-based number and why.
    Bad {
        /// 1-based.
        line: u64,
        /// Why.
        why: String,
    },
}

/// A streaming reader of one transcript file.
pub struct Reader<R> {
    /// The lines of the stream, each at most [`MAX_LINE_BYTES`] (SPEC §2.1 "never floods
    /// memory": a longer one is consumed and counted bad, never loaded).
    lines: boundedfs::Lines<R>,
    file: Arc<str>,
    stem: Arc<str>,
    line: u64,
    buf: Vec<u8>,
    format: Option<Format>,
    /// Lines before the format was known, and their problems.
    undecided: Vec<Item>,
    first_problem: Option<String>,
    seen_lines: u32,
    /// Bytes read so far (for progress).
    pub bytes: u64,
    /// The length of the line being read.
    line_bytes: usize,
    session: Option<Arc<str>>,
    cwd: Option<Arc<str>>,
    mode: Option<Arc<str>>,
    agent: Option<Arc<str>>,
    /// The mode and working folder each other session of the file was last in: a file
    /// may hold lines of several sessions, and one's are never another's.
    modes: std::collections::HashMap<Arc<str>, SessionState>,
    markers: Markers,
}

/// A session's mode and working folder, as last seen in a file.
type SessionState = (Option<Arc<str>>, Option<Arc<str>>);

/// The most sessions of one file whose mode is remembered.
const MAX_SESSIONS_PER_FILE: usize = 4096;

/// What tells a line worth parsing from one to skip, per format.
struct Markers {
    claude: FormatMarkers,
    codex: FormatMarkers,
}

struct FormatMarkers {
    /// A line holding one of these strings is parsed whole: each is a prefix searched
    /// for once, then any of its endings after it (one pass per prefix).
    wanted: Vec<(memchr::memmem::Finder<'static>, &'static [&'static str])>,
    /// The line types the format knows, as `"type":"<t>"` (compact, as written).
    types: &'static [&'static str],
}

/// `"type":"`, searched for once per skipped line.
static TYPE_KEY: &str = "\"type\":\"";

impl FormatMarkers {
    fn new(wanted: &[(&str, &'static [&'static str])], types: &'static [&'static str]) -> Self {
        FormatMarkers {
            wanted: wanted
                .iter()
                .map(|(p, ends)| {
                    (
                        memchr::memmem::Finder::new(p.as_bytes()).into_owned(),
                        *ends,
                    )
                })
                .collect(),
            types,
        }
    }

    /// Whether the line holds a wanted string.
    fn wanted(&self, text: &[u8]) -> bool {
        self.wanted.iter().any(|(finder, ends)| {
            finder.find_iter(text).any(|at| {
                let after = text.get(at + finder.needle().len()..).unwrap_or_default();
                ends.iter().any(|e| after.starts_with(e.as_bytes()))
            })
        })
    }

    /// Whether the line names one of the format's known types.
    fn typed(&self, text: &[u8]) -> bool {
        memchr::memmem::find_iter(text, TYPE_KEY.as_bytes()).any(|at| {
            let after = text.get(at + TYPE_KEY.len()..).unwrap_or_default();
            self.types
                .iter()
                .any(|t| after.starts_with(t.as_bytes()) && after.get(t.len()) == Some(&b'"'))
        })
    }
}

impl Markers {
    fn new() -> Self {
        Markers {
            claude: FormatMarkers::new(
                // The values themselves, whatever the spacing around their keys: a call
                // is never skipped for how its line is spaced.
                &[
                    ("\"tool_", &["use\"", "result\""]),
                    ("\"permissionMode", &["\""]),
                    // A line that records a working folder is read too: a call's folder
                    // is the last one its session recorded.
                    ("\"cwd", &["\""]),
                ],
                CLAUDE_TYPES,
            ),
            codex: FormatMarkers::new(
                &[
                    ("_call", &["\"", "_output\""]),
                    ("\"turn_context", &["\""]),
                    ("\"session_meta", &["\""]),
                ],
                CODEX_TYPES,
            ),
        }
    }
}

impl<R> fmt::Debug for Reader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader")
            .field("file", &self.file)
            .field("line", &self.line)
            .field("format", &self.format)
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl<R: BufRead> Reader<R> {
    /// A reader of `inner`, named `file` in reports; `stem` names its session when the
    /// lines do not.
    pub fn new(inner: R, file: &str, stem: &str) -> Self {
        Reader {
            lines: boundedfs::Lines::new(inner, MAX_LINE_BYTES).with_skip_cap(MAX_SKIPPED_LINE),
            file: Arc::from(file),
            stem: Arc::from(stem),
            line: 0,
            buf: Vec::new(),
            format: None,
            undecided: Vec::new(),
            first_problem: None,
            seen_lines: 0,
            bytes: 0,
            line_bytes: 0,
            session: None,
            cwd: None,
            mode: None,
            agent: None,
            modes: std::collections::HashMap::new(),
            markers: Markers::new(),
        }
    }

    /// The format, once a line showed it.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// The items of the next line (calls, results, a bad line), appended to `out`;
    /// `Ok(false)` at the end of the file.
    ///
    /// # Errors
    ///
    /// The read's error, or [`NotATranscriptError`] (as an `InvalidData` error whose text
    /// says why) when no line of the first 64 is of a known format.
    pub fn next_items(&mut self, out: &mut Vec<Item>) -> io::Result<bool> {
        let raw = self.lines.next_line(&mut self.buf);
        self.bytes = self.lines.bytes_read();
        let complete = match raw? {
            boundedfs::Line::End => {
                if self.format.is_none() {
                    if let Some(why) = self.first_problem.take() {
                        return Err(not_a_transcript(why));
                    }
                }
                return Ok(false);
            }
            boundedfs::Line::TooLong { .. } => {
                self.line += 1;
                let why = format!("longer than {} bytes; skipped unread", self.lines.cap());
                self.bad(out, why);
                return Ok(true);
            }
            boundedfs::Line::Abandoned { bytes } => {
                // A line past the skip cap (a file that is one endless line, a sparse
                // hole): the rest of the file is not read, and the replay says so.
                self.line += 1;
                let why = format!(
                    "runs past {} bytes ({bytes} read); the rest of the file is not read",
                    self.lines.skip_cap()
                );
                self.bad(out, why);
                return Ok(true);
            }
            boundedfs::Line::Read { complete } => complete,
        };
        self.line += 1;
        if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
            // A UTF-8 byte order mark opens the file, not its first line.
            self.buf.drain(..3);
        }
        self.line_bytes = self.buf.len();
        let text = trim_ascii(&self.buf);
        if text.is_empty() {
            return Ok(true);
        }
        let Some(format) = self.format else {
            return self.detect(out, complete);
        };
        let line = std::mem::take(&mut self.buf);
        let r = self.read_line(format, trim_ascii(&line), complete, out);
        self.buf = line;
        r.map(|()| true)
    }

    /// Tells the format from a line of a file whose format is not known yet.
    fn detect(&mut self, out: &mut Vec<Item>, complete: bool) -> io::Result<bool> {
        self.seen_lines += 1;
        let line_no = self.line;
        let found = match serde_json::from_slice::<Value>(trim_ascii(&self.buf)) {
            Err(e) => Err(parse_problem(&e, complete)),
            Ok(v) => format_of(&v),
        };
        match found {
            Ok(format) => {
                self.format = Some(format);
                out.append(&mut self.undecided);
                let line = std::mem::take(&mut self.buf);
                let r = self.read_line(format, trim_ascii(&line), complete, out);
                self.buf = line;
                r.map(|()| true)
            }
            Err(why) => {
                if self.first_problem.is_none() {
                    self.first_problem = Some(format!("line {line_no}: {why}"));
                }
                self.undecided.push(Item::Bad { line: line_no, why });
                if self.seen_lines >= DETECT_LINES {
                    let why = self.first_problem.take().unwrap_or_default();
                    return Err(not_a_transcript(format!(
                        "no line of the first {DETECT_LINES} is of a known transcript format ({why})"
                    )));
                }
                Ok(true)
            }
        }
    }

    fn bad(&mut self, out: &mut Vec<Item>, why: String) {
        let item = Item::Bad {
            line: self.line,
            why,
        };
        if self.format.is_some() {
            out.push(item);
        } else {
            if self.first_problem.is_none() {
                if let Item::Bad { line, why } = &item {
                    self.first_problem = Some(format!("line {line}: {why}"));
                }
            }
            self.undecided.push(item);
        }
    }

    fn read_line(
        &mut self,
        format: Format,
        text: &[u8],
        complete: bool,
        out: &mut Vec<Item>,
    ) -> io::Result<()> {
        if self.skips(format, text) {
            return Ok(());
        }
        let r = match format {
            Format::Claude => serde_json::from_slice::<ClaudeLine>(text)
                .map_err(|e| parse_problem(&e, complete))
                .and_then(|l| self.claude(l, out)),
            Format::Codex => serde_json::from_slice::<CodexLine>(text)
                .map_err(|e| parse_problem(&e, complete))
                .and_then(|l| self.codex(l, out)),
            Format::Replay => serde_json::from_slice::<ReplayLine>(text)
                .map_err(|e| parse_problem(&e, complete))
                .and_then(|l| self.replayed(l, out)),
        };
        if let Err(why) = r {
            self.bad(out, why);
        }
        Ok(())
    }

    /// Whether a line is skipped unparsed: it names nothing the
    /// replay reads (no call, result or mode), and it has a line's shape: an object,
    /// whole, of a known `type`. Any other line is parsed whole, so a truncated line, a
    /// line that is not JSON and a type never seen are still told apart.
    fn skips(&self, format: Format, text: &[u8]) -> bool {
        let markers = match format {
            Format::Claude => &self.markers.claude,
            Format::Codex => &self.markers.codex,
            Format::Replay => return false,
        };
        let shaped = text.first() == Some(&b'{') && text.last() == Some(&b'}');
        shaped && !markers.wanted(text) && markers.typed(text)
    }

    fn call(&self, id: String, tool: String, input: Value) -> Call {
        Call {
            file: Arc::clone(&self.file),
            line: self.line,
            session: self
                .session
                .clone()
                .unwrap_or_else(|| Arc::clone(&self.stem)),
            agent: self.agent.clone(),
            id,
            tool,
            input,
            judged_as: None,
            cwd: self.cwd.clone(),
            mode: self.mode.clone(),
            seen: None,
            bytes: self.line_bytes,
        }
    }
}

/// Keeps `now` in `slot` (a new shared string only when it changed).
fn keep(slot: &mut Option<Arc<str>>, now: Option<&str>) {
    if let Some(now) = now {
        if slot.as_deref() != Some(now) {
            *slot = Some(Arc::from(now));
        }
    }
}

fn not_a_transcript(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, NotATranscriptError(why))
}

/// The error a file of no known format reads as (see [`Reader::next_items`]).
#[derive(Debug)]
pub struct NotATranscriptError(pub String);

impl fmt::Display for NotATranscriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a known transcript format: {}", self.0)
    }
}

impl std::error::Error for NotATranscriptError {}

fn trim_ascii(b: &[u8]) -> &[u8] {
    b.trim_ascii()
}

/// Why a line did not parse, in words.
fn parse_problem(e: &serde_json::Error, complete: bool) -> String {
    match e.classify() {
        serde_json::error::Category::Eof => {
            if complete {
                "truncated: the JSON ends before it closes".to_owned()
            } else {
                "truncated: the file ends mid-line".to_owned()
            }
        }
        serde_json::error::Category::Syntax => format!("not JSON (column {}: {e})", e.column()),
        serde_json::error::Category::Data => format!("not a transcript line ({e})"),
        serde_json::error::Category::Io => format!("unreadable ({e})"),
    }
}

/// The `type`s of Claude Code transcript lines (README "Transcript line format").
const CLAUDE_TYPES: &[&str] = &[
    "user",
    "assistant",
    "system",
    "attachment",
    "progress",
    "summary",
    "file-history-snapshot",
    "file-history-delta",
    "permission-mode",
    "mode",
    "ai-title",
    "last-prompt",
    "queue-operation",
    "custom-title",
    "agent-name",
];

/// The `type`s of Codex rollout lines.
const CODEX_TYPES: &[&str] = &[
    "session_meta",
    "turn_context",
    "response_item",
    "event_msg",
    "compacted",
];

/// The format a first line shows, or why it shows none.
fn format_of(v: &Value) -> Result<Format, String> {
    let Value::Object(o) = v else {
        return Err("JSON, but not an object".to_owned());
    };
    if o.get("replay").is_some_and(Value::is_string) {
        return Ok(Format::Replay);
    }
    let Some(kind) = o.get("type").and_then(Value::as_str) else {
        return Err(
            "a JSON object with no \"type\" (neither a Claude Code nor a Codex line)".to_owned(),
        );
    };
    if o.contains_key("payload") && CODEX_TYPES.contains(&kind) {
        return Ok(Format::Codex);
    }
    if CLAUDE_TYPES.contains(&kind) {
        return Ok(Format::Claude);
    }
    Err(format!(
        "a line of type {kind:?}, of no known transcript format"
    ))
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
