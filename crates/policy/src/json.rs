//! A thin layer over `serde_json` that keeps positions (SPEC §2.1 **\[decision\]**
//! "Reading never hangs, never floods memory, never loses a rule in silence").
//!
//! `serde_json` decides what is JSON (exactly as strict, with its recursion limit and
//! its `line:column` errors) and builds the value; a key given twice in one object keeps
//! the last, as Claude Code's parser does. What `serde_json` does not say, this module
//! finds with a small scanner over the bytes `serde_json` already accepted:
//!
//! - every key given twice in one object, with the line and column of both places
//!   ([`JsonDoc::duplicates`]): the first one's content is lost on every machine that
//!   reads the file, so the read warns;
//! - the line and column of any JSON pointer ([`JsonDoc::positions_of`]), so that a
//!   warning names the file, the line and the pointer.
//!
//! A UTF-8 byte-order mark at the start is skipped and reported ([`JsonDoc::bom`]).
//! Files are opened by [`read_bounded`]: non-blocking, checked on the opened file (a
//! FIFO, a device or a socket is refused, never read), and capped at
//! [`MAX_FILE_BYTES`].
//!
//! Lines and columns are 1-based and counted as `serde_json` counts them (columns in
//! bytes), in the file as written (a byte-order mark included).
//!
//! ```
//! let doc = policy::json::parse(br#"{"permissions": {"deny": ["Bash(rm:*)"]},
//! "permissions": {"allow": ["Read"]}}"#).unwrap();
//! assert_eq!(doc.value["permissions"]["allow"][0], "Read"); // the last is kept
//! let dup = &doc.duplicates[0];
//! assert_eq!(dup.pointer, "/permissions");
//! assert_eq!((dup.first.line, dup.last.line), (1, 2));
//! ```

use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::Path;

/// The most bytes a managed file may hold: 16 MiB. A larger file is not read (SPEC
/// §2.1: the read fails, fail closed).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A 1-based line and column (the column in bytes, as `serde_json` counts).
///
/// SPEC §2.1
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
}

/// A key given twice in one object: where it was first and where the kept (last) one
/// is.
///
/// SPEC §2.1
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKey {
    /// The JSON pointer of the member (`/permissions`).
    pub pointer: String,
    /// The earlier occurrence, whose content is lost.
    pub first: Position,
    /// The later occurrence, which is kept.
    pub last: Position,
}

/// Why bytes are not a JSON document: `serde_json`'s reason and position.
///
/// SPEC §2.1
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Where `serde_json` stopped.
    pub at: Position,
    /// `serde_json`'s reason, without its position suffix.
    pub message: String,
}

/// A parsed document and what the scanner found in it.
///
/// SPEC §2.1
#[derive(Debug, Clone)]
pub struct JsonDoc {
    /// The value, as `serde_json` builds it (a key given twice keeps the last).
    pub value: Value,
    /// Every key given twice in one object, in document order.
    pub duplicates: Vec<DuplicateKey>,
    /// Whether a UTF-8 byte-order mark was skipped.
    pub bom: bool,
    bytes: Vec<u8>,
}

impl JsonDoc {
    /// The positions of these JSON pointers, found in one pass: for an object member
    /// the position of its (last) key, for an array element where it starts, for `""`
    /// the document's start. A pointer the document does not hold is left out.
    ///
    /// Takes RFC 6901 pointers; returns a map pointer -> position.
    ///
    /// SPEC §2.1
    #[must_use]
    pub fn positions_of(&self, pointers: &[&str]) -> HashMap<String, Position> {
        let wanted: HashSet<&str> = pointers.iter().copied().collect();
        let mut found = HashMap::new();
        if wanted.is_empty() {
            return found;
        }
        let offset = if self.bom { BOM.len() } else { 0 };
        scan(&self.bytes, offset, |event| {
            if let Event::Node { pointer, at } = event {
                if wanted.contains(pointer) {
                    found.insert(pointer.to_owned(), at);
                }
            }
        });
        if wanted.contains("") {
            found.insert(String::new(), Position { line: 1, column: 1 });
        }
        found
    }
}

/// Parses `bytes` as one JSON document, keeping what [`JsonDoc`] keeps.
///
/// # Errors
///
/// [`JsonError`] when `serde_json` rejects the bytes (after a byte-order mark, if
/// any), with its position in the file as written.
///
/// SPEC §2.1
pub fn parse(bytes: &[u8]) -> Result<JsonDoc, JsonError> {
    let bom = bytes.starts_with(BOM);
    let body = bytes
        .get(if bom { BOM.len() } else { 0 }..)
        .unwrap_or_default();
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        let column = if bom && e.line() == 1 {
            e.column() + BOM.len()
        } else {
            e.column()
        };
        JsonError {
            at: Position {
                line: e.line(),
                column,
            },
            message: message_of(&e),
        }
    })?;
    let mut duplicates = Vec::new();
    scan(bytes, if bom { BOM.len() } else { 0 }, |event| {
        if let Event::Duplicate {
            pointer,
            first,
            last,
        } = event
        {
            duplicates.push(DuplicateKey {
                pointer: pointer.to_owned(),
                first,
                last,
            });
        }
    });
    Ok(JsonDoc {
        value,
        duplicates,
        bom,
        bytes: bytes.to_vec(),
    })
}

/// `serde_json`'s reason without its " at line L column C" suffix.
#[must_use]
pub fn message_of(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    full.strip_suffix(&suffix).unwrap_or(&full).to_owned()
}

/// Why a file was not read.
///
/// SPEC §2.1
#[derive(Debug)]
pub enum BoundedReadError {
    /// The file does not exist.
    NotFound,
    /// Not a regular file (a FIFO, a device, a socket, a directory): never read.
    NotRegular(&'static str),
    /// Over [`MAX_FILE_BYTES`].
    TooLarge(u64),
    /// The operating system refused.
    Io(io::Error),
}

impl std::fmt::Display for BoundedReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundedReadError::NotFound => f.write_str("the file does not exist"),
            BoundedReadError::NotRegular(kind) => {
                write!(f, "it is {kind}, not a regular file, so it is not read")
            }
            BoundedReadError::TooLarge(size) => write!(
                f,
                "it holds {size} bytes or more, over the {MAX_FILE_BYTES}-byte limit, so it is not read"
            ),
            BoundedReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Reads a whole file that must be a regular file of at most [`MAX_FILE_BYTES`], with
/// the workspace's one bounded opener ([`boundedfs::read_bounded`]): opened
/// non-blocking (so a FIFO cannot hang the open), then checked on the opened file (a
/// check before the open would race), then read with the cap (a file that grows while
/// read is refused too).
///
/// Takes the path; returns its bytes.
///
/// # Errors
///
/// [`BoundedReadError`]: absent, not a regular file, too large, or an I/O error.
///
/// SPEC §2.1 **\[decision\]**
pub fn read_bounded(path: &Path) -> Result<Vec<u8>, BoundedReadError> {
    boundedfs::read_bounded(path, MAX_FILE_BYTES).map_err(|e| match e.reason {
        boundedfs::Reason::NotFound => BoundedReadError::NotFound,
        boundedfs::Reason::NotRegular(kind) => BoundedReadError::NotRegular(kind.as_str()),
        boundedfs::Reason::TooLarge { size, .. } => BoundedReadError::TooLarge(size),
        boundedfs::Reason::Io(e) => BoundedReadError::Io(e),
    })
}

// ---------------------------------------------------------------------------------
// The scanner: walks bytes serde_json accepted, tracking the pointer and position.

enum Event<'a> {
    /// An object member (at its key) or an array element (at its start).
    Node { pointer: &'a str, at: Position },
    /// A key given again in the same object.
    Duplicate {
        pointer: &'a str,
        first: Position,
        last: Position,
    },
}

enum Frame {
    Object {
        /// The pointer's length before this object's members.
        base: usize,
        keys: HashMap<String, Position>,
        /// The next value is a member's (its pointer pushed).
        member: bool,
    },
    Array {
        base: usize,
        next: usize,
    },
}

struct Cursor<'b> {
    bytes: &'b [u8],
    at: usize,
    line: usize,
    line_start: usize,
}

impl Cursor<'_> {
    fn position(&self) -> Position {
        Position {
            line: self.line,
            column: self.at - self.line_start + 1,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn bump(&mut self) {
        if self.peek() == Some(b'\n') {
            self.line += 1;
            self.line_start = self.at + 1;
        }
        self.at += 1;
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.bump();
        }
    }

    /// Skips a string starting at `"`; returns its raw bytes, quotes included.
    fn string(&mut self) -> &[u8] {
        let start = self.at;
        self.bump();
        while let Some(b) = self.peek() {
            match b {
                b'\\' => {
                    self.bump();
                    self.bump();
                }
                b'"' => {
                    self.bump();
                    break;
                }
                _ => self.bump(),
            }
        }
        self.bytes.get(start..self.at).unwrap_or_default()
    }

    /// Skips a number or a literal (`true`, `false`, `null`).
    fn scalar(&mut self) {
        while let Some(b) = self.peek() {
            if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                break;
            }
            self.bump();
        }
    }
}

/// Walks a document `serde_json` accepted, from byte `start`, calling `on` for every
/// member, element and duplicate key. Iterative: no recursion, whatever the depth.
fn scan(bytes: &[u8], start: usize, mut on: impl FnMut(Event<'_>)) {
    let mut c = Cursor {
        bytes,
        at: start,
        line: 1,
        line_start: 0,
    };
    let mut pointer = String::new();
    let mut stack: Vec<Frame> = Vec::new();
    loop {
        c.skip_ws();
        let Some(b) = c.peek() else { return };
        match b {
            b'{' => {
                stack.push(Frame::Object {
                    base: pointer.len(),
                    keys: HashMap::new(),
                    member: false,
                });
                c.bump();
            }
            b'[' => {
                let base = pointer.len();
                c.bump();
                c.skip_ws();
                let next = 0;
                stack.push(Frame::Array { base, next });
                if c.peek() != Some(b']') {
                    element_start(&mut stack, &mut pointer, &c, &mut on);
                }
            }
            b'}' | b']' => {
                c.bump();
                if let Some(Frame::Object { base, .. } | Frame::Array { base, .. }) = stack.pop() {
                    pointer.truncate(base);
                }
                end_value(&mut stack, &mut pointer);
            }
            b',' => {
                c.bump();
                c.skip_ws();
                if let Some(Frame::Array { .. }) = stack.last() {
                    element_start(&mut stack, &mut pointer, &c, &mut on);
                }
            }
            b':' => c.bump(),
            b'"' => {
                let at = c.position();
                let is_key = matches!(stack.last(), Some(Frame::Object { member: false, .. }));
                let raw = c.string().to_vec();
                if is_key {
                    let key: String = serde_json::from_slice(&raw).unwrap_or_default();
                    if let Some(Frame::Object { base, keys, member }) = stack.last_mut() {
                        pointer.truncate(*base);
                        crate::pointer::push_key(&mut pointer, &key);
                        *member = true;
                        if let Some(first) = keys.insert(key, at) {
                            on(Event::Duplicate {
                                pointer: &pointer,
                                first,
                                last: at,
                            });
                        }
                        on(Event::Node {
                            pointer: &pointer,
                            at,
                        });
                    }
                } else {
                    end_value(&mut stack, &mut pointer);
                }
            }
            _ => {
                c.scalar();
                end_value(&mut stack, &mut pointer);
            }
        }
    }
}

/// An array element starts at the cursor: push its index and report it.
fn element_start(
    stack: &mut [Frame],
    pointer: &mut String,
    c: &Cursor<'_>,
    on: &mut impl FnMut(Event<'_>),
) {
    if let Some(Frame::Array { base, next }) = stack.last_mut() {
        pointer.truncate(*base);
        pointer.push('/');
        pointer.push_str(&next.to_string());
        *next += 1;
        on(Event::Node {
            pointer,
            at: c.position(),
        });
    }
}

/// A value ended: an object member's pointer is popped (its next token is a key).
fn end_value(stack: &mut [Frame], pointer: &mut String) {
    if let Some(Frame::Object { base, member, .. }) = stack.last_mut() {
        if *member {
            *member = false;
            pointer.truncate(*base);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn pos(line: usize, column: usize) -> Position {
        Position { line, column }
    }

    #[test]
    fn positions_of_members_and_elements() {
        let text = "{\n  \"a\": [1, {\"b/c\": true}],\n  \"d~\": {\"e\": null}\n}";
        let doc = parse(text.as_bytes()).unwrap();
        let found = doc.positions_of(&["", "/a", "/a/0", "/a/1", "/a/1/b~1c", "/d~0/e", "/x"]);
        assert_eq!(found[""], pos(1, 1));
        assert_eq!(found["/a"], pos(2, 3));
        assert_eq!(found["/a/0"], pos(2, 9));
        assert_eq!(found["/a/1"], pos(2, 12));
        assert_eq!(found["/a/1/b~1c"], pos(2, 13));
        assert_eq!(found["/d~0/e"], pos(3, 10));
        assert!(!found.contains_key("/x"));
        assert!(doc.duplicates.is_empty());
    }

    #[test]
    fn duplicates_at_any_depth_keep_the_last() {
        let text =
            r#"{"p": {"deny": ["x"], "deny": ["y"]}, "q": [{"k": 1, "k": 2}], "p": {"allow": []}}"#;
        let doc = parse(text.as_bytes()).unwrap();
        let dups: Vec<&str> = doc.duplicates.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(dups, ["/p/deny", "/q/0/k", "/p"]);
        assert_eq!(doc.value["p"], serde_json::json!({"allow": []}));
        assert_eq!(doc.duplicates[0].first, pos(1, 8));
        assert_eq!(doc.duplicates[0].last, pos(1, 23));
    }

    #[test]
    fn escaped_keys_are_compared_decoded() {
        let doc = parse(br#"{"a": 1, "\u0061": 2, "a\"b": 3, "a\"b": 4}"#).unwrap();
        let dups: Vec<&str> = doc.duplicates.iter().map(|d| d.pointer.as_str()).collect();
        assert_eq!(dups, ["/a", "/a\"b"]);
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_counted_in_columns() {
        let doc = parse(b"\xEF\xBB\xBF{\"a\": 1}").unwrap();
        assert!(doc.bom);
        assert_eq!(doc.value["a"], 1);
        assert_eq!(doc.positions_of(&["/a"])["/a"], pos(1, 5));
        let err = parse(b"\xEF\xBB\xBF{\"a\": }").unwrap_err();
        assert_eq!(err.at, pos(1, 10));
    }

    #[test]
    fn errors_carry_serde_jsons_position_and_reason() {
        let err = parse(b"{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!(err.at, pos(3, 1));
        assert_eq!(err.message, "trailing comma");
    }

    #[test]
    fn deep_nesting_is_refused_by_serde_json_and_never_recursed() {
        let deep = "[".repeat(100_000);
        assert!(parse(deep.as_bytes()).is_err());
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(parse(ok.as_bytes()).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_device_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("managed-settings.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let err = read_bounded(&fifo).unwrap_err();
            assert!(
                matches!(err, BoundedReadError::NotRegular("a FIFO")),
                "{err}"
            );
        }
        let link = dir.path().join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let err = read_bounded(&link).unwrap_err();
        assert!(matches!(err, BoundedReadError::NotRegular(_)), "{err}");
        assert!(matches!(
            read_bounded(dir.path()).unwrap_err(),
            BoundedReadError::NotRegular("a directory")
        ));
        assert!(matches!(
            read_bounded(&dir.path().join("absent")).unwrap_err(),
            BoundedReadError::NotFound
        ));
    }

    #[test]
    fn a_file_over_the_cap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(MAX_FILE_BYTES + 1).unwrap();
        assert!(matches!(
            read_bounded(&big).unwrap_err(),
            BoundedReadError::TooLarge(_)
        ));
        let f = std::fs::File::create(&big).unwrap();
        f.set_len(10).unwrap();
        assert_eq!(read_bounded(&big).unwrap().len(), 10);
    }
}
