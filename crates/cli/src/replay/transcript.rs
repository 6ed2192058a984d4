//! Reading transcripts for `replay`, one line at a time: Claude Code
//! session files (inline sidechains and `subagents/agent-*.jsonl` files included),
//! Codex CLI rollouts, and the `--json` of a previous replay. The formats are those
//! `shared/real-inputs/transcripts/README.md` documents from real files.
//!
//! Memory stays flat however long the file: a line is read into one reused buffer of at
//! most [`MAX_LINE_BYTES`], and every line is parsed into a small typed view in which
//! only a tool call's `input` becomes a JSON tree; everything else (results, thinking,
//! file contents) is skipped by the parser without being kept.

use serde::de::{self, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead};
use std::sync::Arc;

/// The longest line read (64 MiB); a longer line is counted bad and skipped unread.
pub(crate) const MAX_LINE_BYTES: usize = 64 << 20;

/// The longest line skipped before the rest of its file is given up (256 MiB): a file
/// that is one endless line, or a sparse hole of terabytes, costs this much reading and
/// no more, and the replay names the line.
const MAX_SKIPPED_LINE: u64 = 256 << 20;

/// How many non-empty lines may pass before one is of a known format; past that the
/// file is no known transcript (exit 2).
const DETECT_LINES: u32 = 64;

/// A transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Claude Code's `~/.claude/projects/<project>/<session>.jsonl` (and subagent files).
    Claude,
    /// Codex CLI's `~/.codex/sessions/.../rollout-*.jsonl`.
    Codex,
    /// The `--json` of a previous `replay` (calls already extracted).
    Replay,
}

impl Format {
    /// Its name in reports.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Format::Claude => "claude-code",
            Format::Codex => "codex",
            Format::Replay => "replay-json",
        }
    }
}

/// What the transcript records of a call after it was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Seen {
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
    pub(crate) const ALL: [Seen; 5] = [
        Seen::Ran,
        Seen::Failed,
        Seen::Rejected,
        Seen::Interrupted,
        Seen::NoResult,
    ];

    /// Its name in reports and JSON.
    pub(crate) fn as_str(self) -> &'static str {
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
pub(crate) struct Call {
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
pub(crate) enum Item {
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
pub(crate) struct Reader<R> {
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

impl<R: BufRead> Reader<R> {
    /// A reader of `inner`, named `file` in reports; `stem` names its session when the
    /// lines do not.
    pub(crate) fn new(inner: R, file: &str, stem: &str) -> Self {
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
    pub(crate) fn format(&self) -> Option<Format> {
        self.format
    }

    /// The items of the next line (calls, results, a bad line), appended to `out`;
    /// `Ok(false)` at the end of the file.
    ///
    /// # Errors
    ///
    /// The read's error, or [`NotATranscript`] (as an `InvalidData` error whose text
    /// says why) when no line of the first [`DETECT_LINES`] is of a known format.
    pub(crate) fn next_items(&mut self, out: &mut Vec<Item>) -> io::Result<bool> {
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

    fn claude(&mut self, l: ClaudeLine<'_>, out: &mut Vec<Item>) -> Result<(), String> {
        let kind = l.kind.ok_or("a JSON object with no \"type\"")?;
        if !CLAUDE_TYPES.contains(&&*kind) {
            return Err(format!(
                "a line of type {kind:?}, never seen in Claude Code transcripts; skipped"
            ));
        }
        if let Some(id) = l.session_id.as_deref() {
            self.switch_session(id);
        }
        keep(&mut self.cwd, l.cwd.as_deref());
        keep(&mut self.mode, l.permission_mode.as_deref());
        if let Some(a) = l.agent_id.as_deref() {
            keep(&mut self.agent, Some(a));
        } else if l.is_sidechain {
            self.agent = Some(Arc::from("sidechain"));
        } else {
            self.agent = None;
        }
        let Some(message) = l.message else {
            return Ok(());
        };
        for block in message.content.0 {
            match &*block.kind {
                "tool_use" if kind == "assistant" => {
                    let id = block.id.unwrap_or_default();
                    let tool = block.name.ok_or("a tool_use block with no \"name\"")?;
                    let input = block.input.unwrap_or_else(|| json!({}));
                    out.push(Item::Call(Box::new(self.call(id, tool, input))));
                }
                "tool_result" => {
                    let id = block.tool_use_id.map(Cow::into_owned).unwrap_or_default();
                    let seen = if block.is_error {
                        let raw = |r: Option<&RawValue>, text: &str| {
                            r.is_some_and(|r| {
                                memchr::memmem::find(r.get().as_bytes(), text.as_bytes()).is_some()
                            })
                        };
                        if raw(l.tool_use_result, "User rejected")
                            || raw(block.content, "doesn't want to proceed")
                        {
                            Seen::Rejected
                        } else if raw(block.content, "interrupted by user")
                            || raw(l.tool_use_result, "interrupted by user")
                        {
                            Seen::Interrupted
                        } else {
                            Seen::Failed
                        }
                    } else {
                        Seen::Ran
                    };
                    out.push(Item::Result { id, seen });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Makes `id` the session the following lines are of, in its own mode and working
    /// folder as last seen (none, for a session not seen before).
    fn switch_session(&mut self, id: &str) {
        if self.session.as_deref() == Some(id) {
            return;
        }
        if let Some(old) = self.session.take() {
            if self.modes.len() < MAX_SESSIONS_PER_FILE || self.modes.contains_key(&old) {
                self.modes.insert(old, (self.mode.take(), self.cwd.take()));
            }
        }
        let id: Arc<str> = Arc::from(id);
        (self.mode, self.cwd) = self.modes.get(&id).cloned().unwrap_or_default();
        self.agent = None;
        self.session = Some(id);
    }

    fn codex(&mut self, l: CodexLine<'_>, out: &mut Vec<Item>) -> Result<(), String> {
        let kind = l.kind.ok_or("a JSON object with no \"type\"")?;
        if !CODEX_TYPES.contains(&&*kind) {
            return Err(format!(
                "a line of type {kind:?}, never seen in Codex rollouts; skipped"
            ));
        }
        let Some(p) = l.payload else {
            return Ok(());
        };
        match (&*kind, p.kind.as_deref()) {
            ("session_meta", _) => {
                if let Some(id) = p.id {
                    self.session = Some(Arc::from(id));
                }
                if let Some(c) = p.cwd {
                    self.cwd = Some(Arc::from(c));
                }
            }
            ("turn_context", _) => {
                if let Some(c) = p.cwd {
                    self.cwd = Some(Arc::from(c));
                }
                let approval = raw_text(p.approval_policy).unwrap_or_default();
                let sandbox = p
                    .sandbox_policy
                    .as_ref()
                    .and_then(|s| s.get("type").or(Some(s)))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.mode = Some(Arc::from(format!(
                    "codex approval_policy={approval} sandbox={sandbox}"
                )));
            }
            (
                "response_item",
                Some(k @ ("function_call" | "custom_tool_call" | "local_shell_call")),
            ) => {
                let id = p.call_id.or(p.id).unwrap_or_default();
                let name = p.name.unwrap_or_else(|| k.to_owned());
                let input = if k == "function_call" {
                    let raw = p.arguments.unwrap_or_default();
                    // Arguments that are not JSON, or name a key twice (which value
                    // would run?), are kept as text: nothing is read from them.
                    match policy::json::parse(raw.as_bytes()) {
                        Ok(doc) if doc.duplicates.is_empty() => doc.value,
                        _ => json!({ "arguments": raw }),
                    }
                } else if k == "local_shell_call" {
                    p.action.unwrap_or_else(|| json!({}))
                } else {
                    p.input.unwrap_or(Value::Null)
                };
                let mut call = self.call(id, name, input);
                let (parts, cwd) = codex_parts(&call.tool, &call.input);
                if let Some(cwd) = cwd {
                    call.cwd = Some(Arc::from(cwd));
                }
                call.judged_as = Some(parts);
                out.push(Item::Call(Box::new(call)));
            }
            ("response_item", Some("function_call_output" | "custom_tool_call_output")) => {
                // The output's first bytes tell a refusal; it is never decoded whole.
                let head = p
                    .output
                    .map(|o| o.get().as_bytes())
                    .and_then(|b| b.get(..b.len().min(600)))
                    .unwrap_or_default();
                let lower = String::from_utf8_lossy(head).to_ascii_lowercase();
                let lower = lower.trim_start_matches('"');
                let seen = if lower.contains("rejected by user") || lower.starts_with("aborted") {
                    Seen::Rejected
                } else {
                    Seen::Ran
                };
                out.push(Item::Result {
                    id: p.call_id.unwrap_or_default(),
                    seen,
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn replayed(&mut self, l: ReplayLine, out: &mut Vec<Item>) -> Result<(), String> {
        match l.replay.as_deref() {
            Some("call") => {}
            Some("summary") => return Ok(()),
            Some(other) => {
                return Err(format!(
                    "a replay line of kind {other:?}, never written by replay; skipped"
                ))
            }
            None => return Err("a line with no \"replay\" key in a replay's JSON lines".to_owned()),
        }
        let tool = l.tool.ok_or("a replayed call with no \"tool\"")?;
        let judged_as = l.judged_as.map(|parts| {
            parts
                .into_iter()
                .map(|p| (p.tool, p.input.unwrap_or_else(|| json!({}))))
                .collect()
        });
        out.push(Item::Call(Box::new(Call {
            file: l.file.map_or_else(|| Arc::clone(&self.file), Arc::from),
            line: l.line.unwrap_or(self.line),
            session: l.session.map_or_else(|| Arc::clone(&self.stem), Arc::from),
            agent: l.agent.map(Arc::from),
            id: l.tool_use_id.unwrap_or_default(),
            tool,
            input: l.input.unwrap_or_else(|| json!({})),
            judged_as,
            cwd: l.cwd.map(Arc::from),
            mode: l.mode.map(Arc::from),
            seen: l.transcript.as_deref().and_then(Seen::parse),
            bytes: self.line_bytes,
        })));
        Ok(())
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
pub(crate) struct NotATranscriptError(pub String);

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

/// The most files of one patch judged one by one; past them, one more part whose path
/// is unknown (asked: SPEC §4).
const MAX_PATCH_FILES: usize = 1000;

/// The engine calls a Codex call stands for, and the working folder it names. A shell
/// tool whose command cannot be read is a `Bash` call with no command (asked: the core
/// never allows what it cannot read); a shell command that runs `apply_patch` (as Codex
/// lets one) also writes the patch's files.
fn codex_parts(tool: &str, input: &Value) -> (Vec<(String, Value)>, Option<String>) {
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_owned);
    let workdir = text("workdir").or_else(|| text("working_directory"));
    let shell = |command: Option<String>| -> Vec<(String, Value)> {
        let Some(command) = command else {
            return vec![("Bash".to_owned(), json!({}))];
        };
        let mut parts = Vec::new();
        if command.contains("apply_patch") || command.contains("applypatch") {
            parts = patch_parts(&command);
            // A patch read from elsewhere (`< p.diff`, a pipe), or applied after a `cd`,
            // writes files the text does not place: one more part of unknown path.
            let moves = command
                .split(|c: char| c.is_whitespace() || ";&|()".contains(c))
                .any(|w| matches!(w, "cd" | "pushd" | "popd"));
            if parts.is_empty() || moves {
                parts.push(("Edit".to_owned(), json!({})));
            }
        }
        parts.insert(0, ("Bash".to_owned(), json!({ "command": command })));
        parts
    };
    match tool {
        "shell_command" | "exec_command" => {
            (shell(text("command").or_else(|| text("cmd"))), workdir)
        }
        "shell" | "local_shell_call" | "container.exec" => match input.get("command") {
            Some(Value::Array(argv)) => (shell(argv_command(argv)), workdir),
            Some(Value::String(c)) => (shell(Some(c.clone())), workdir),
            _ => (shell(None), workdir),
        },
        // Text written to a running command's standard input runs as that shell reads
        // it; `unified_exec` runs an argv (or a string) as `shell` does.
        "write_stdin" => (shell(text("chars")), workdir),
        "unified_exec" => match input.get("input").or_else(|| input.get("command")) {
            Some(Value::Array(argv)) => (shell(argv_command(argv)), workdir),
            Some(Value::String(c)) => (shell(Some(c.clone())), workdir),
            _ => (shell(None), workdir),
        },
        "exec" => match input {
            Value::String(c) => (shell(Some(c.clone())), None),
            _ => (shell(text("command").or_else(|| text("cmd"))), workdir),
        },
        "view_image" => match text("path") {
            Some(p) => (vec![("Read".to_owned(), json!({ "file_path": p }))], None),
            None => (vec![("Read".to_owned(), json!({}))], None),
        },
        "apply_patch" => {
            let patch = match input {
                Value::String(s) => Some(s.as_str()),
                _ => input.get("input").and_then(Value::as_str),
            };
            let parts = patch.map(patch_parts).unwrap_or_default();
            if parts.is_empty() {
                // A patch that names no file is judged as an edit of an unknown path.
                (vec![("Edit".to_owned(), json!({}))], None)
            } else {
                (parts, None)
            }
        }
        _ => (vec![(tool.to_owned(), input.clone())], workdir),
    }
}

/// The script an argv runs: `bash -lc SCRIPT` and `powershell -Command SCRIPT` run
/// their script; any other argv is joined with shell quoting.
fn argv_command(argv: &[Value]) -> Option<String> {
    // An argv that is empty or holds anything but strings runs nothing readable.
    let words: Vec<&str> = argv.iter().map(Value::as_str).collect::<Option<_>>()?;
    if words.is_empty() {
        return None;
    }
    if let [program, flag, script] = words.as_slice() {
        let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
        let base = base
            .strip_suffix(".exe")
            .unwrap_or(base)
            .to_ascii_lowercase();
        let shell =
            ["bash", "sh", "zsh", "dash", "powershell", "pwsh", "cmd"].contains(&base.as_str());
        let runs = ["-c", "-lc", "-Command", "/c", "/C", "-command"].contains(flag);
        if shell && runs {
            return Some((*script).to_owned());
        }
    }
    let joined = words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b))
            {
                (*w).to_owned()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    // A patch given as the argument of `apply_patch` is the patch, as written.
    if matches!(words.first(), Some(&("apply_patch" | "applypatch"))) {
        return Some(words.join("\n"));
    }
    Some(joined)
}

/// The file operations of an `apply_patch` text: `*** Add File: P` is a `Write` of P,
/// `*** Update File: P` and `*** Delete File: P` an `Edit` of P, `*** Move to: P` an
/// `Edit` of P too.
fn patch_parts(patch: &str) -> Vec<(String, Value)> {
    let mut parts: Vec<(String, Value)> = patch
        .lines()
        .filter_map(|l| {
            let l = l.trim_end_matches('\r');
            let (tool, path) = if let Some(p) = l.strip_prefix("*** Add File: ") {
                ("Write", p)
            } else if let Some(p) = l
                .strip_prefix("*** Update File: ")
                .or_else(|| l.strip_prefix("*** Delete File: "))
                .or_else(|| l.strip_prefix("*** Move to: "))
            {
                ("Edit", p)
            } else {
                return None;
            };
            Some((tool.to_owned(), json!({ "file_path": path.trim() })))
        })
        .take(MAX_PATCH_FILES + 1)
        .collect();
    if parts.len() > MAX_PATCH_FILES {
        parts.truncate(MAX_PATCH_FILES);
        parts.push(("Edit".to_owned(), json!({})));
    }
    parts
}

// The typed views of lines: only what the replay reads; the parser skips the rest.

// Strings are borrowed from the line where they hold no escape, and results' texts
// are kept as raw JSON (scanned, never decoded) and looked into only for an error.

#[derive(Deserialize)]
struct ClaudeLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    cwd: Option<Cow<'a, str>>,
    #[serde(rename = "permissionMode", borrow)]
    permission_mode: Option<Cow<'a, str>>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: bool,
    #[serde(rename = "agentId", borrow)]
    agent_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Message<'a>>,
    #[serde(rename = "toolUseResult", borrow, default)]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow)]
    content: Blocks<'a>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: Cow<'a, str>,
    id: Option<String>,
    name: Option<String>,
    input: Option<Value>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(default)]
    is_error: bool,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
}

/// A message's content blocks (a plain-text content has none).
#[derive(Default)]
struct Blocks<'a>(Vec<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for Blocks<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Blocks<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a message's content")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Blocks<'a>, E> {
                Ok(Blocks::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Blocks<'a>, E> {
                Ok(Blocks::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Blocks<'a>, A::Error> {
                let mut out = Vec::new();
                // Blocks are objects; anything else in the array is skipped (a block of
                // a shape never seen is no reason to lose the line's calls).
                while let Some(b) = seq.next_element::<BlockOrSkip>()? {
                    if let Some(b) = b.0 {
                        out.push(b);
                    }
                }
                Ok(Blocks(out))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, _map: A) -> Result<Blocks<'a>, A::Error> {
                // The API's content is text or a list of blocks; an object is neither,
                // and a call inside it must not pass unseen.
                Err(de::Error::custom(
                    "message.content is an object, neither text nor a list of blocks",
                ))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A content element: a block object, or anything else (skipped).
struct BlockOrSkip<'a>(Option<Block<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for BlockOrSkip<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = BlockOrSkip<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a content block")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<BlockOrSkip<'a>, A::Error> {
                Block::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|b| BlockOrSkip(Some(b)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BlockOrSkip<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(BlockOrSkip(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<BlockOrSkip<'a>, E> {
                Ok(BlockOrSkip(None))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct CodexLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    payload: Option<CodexPayload<'a>>,
}

#[derive(Deserialize)]
struct CodexPayload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    id: Option<String>,
    cwd: Option<String>,
    #[serde(default, borrow)]
    approval_policy: Option<&'a RawValue>,
    sandbox_policy: Option<Value>,
    name: Option<String>,
    arguments: Option<String>,
    input: Option<Value>,
    action: Option<Value>,
    call_id: Option<String>,
    #[serde(default, borrow)]
    output: Option<&'a RawValue>,
}

/// The text of a raw JSON string (`None`: not a string).
fn raw_text(raw: Option<&RawValue>) -> Option<String> {
    raw.and_then(|r| serde_json::from_str::<String>(r.get()).ok())
}

#[derive(Deserialize)]
struct ReplayLine {
    replay: Option<String>,
    file: Option<String>,
    line: Option<u64>,
    session: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
    tool_use_id: Option<String>,
    input: Option<Value>,
    judged_as: Option<Vec<ReplayPart>>,
    cwd: Option<String>,
    mode: Option<String>,
    transcript: Option<String>,
}

#[derive(Deserialize)]
struct ReplayPart {
    tool: String,
    input: Option<Value>,
}

/// `{tool, input}` of each part, as the `--json` writes `judged_as`.
pub(crate) fn parts_json(parts: &[(String, Value)]) -> Value {
    Value::Array(
        parts
            .iter()
            .map(|(t, i)| {
                let mut m = Map::new();
                m.insert("tool".into(), json!(t));
                m.insert("input".into(), i.clone());
                Value::Object(m)
            })
            .collect(),
    )
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
