//! The transcript reader of `replay` (`admin::replay::transcript`): Claude Code
//! session files, Codex CLI rollouts and a replay's own `--json`, all of them a
//! person's (or an attacker's) to write.
//!
//! Oracle, on any bytes:
//! 1. reading ends (one `next_items` per line, and one more for the end) without a
//!    panic, and every byte is read;
//! 2. what is read does not depend on how the bytes arrive: a reader fed one byte at a
//!    time gives the same items, the same error and the same format as one fed the whole
//!    input at once;
//! 3. every item points inside the input: a bad line's number and a call's line are
//!    lines the input has, and a call holds no more bytes than the input.

use std::io::{BufReader, Cursor};

use admin::replay::transcript::{Format, Item, Reader};

use crate::{finding, shown_bytes, Finding, Outcome, MAX_INPUT};

/// What one reading gave: the items, the error that ended it (as text), the format and
/// the bytes read.
type Reading = (Vec<Item>, Option<String>, Option<Format>, u64);

/// Reads `data` through a buffer of `capacity` bytes, for at most `max_steps` lines.
fn read(data: &[u8], capacity: usize, max_steps: usize) -> Result<Reading, Finding> {
    let mut reader = Reader::new(
        BufReader::with_capacity(capacity, Cursor::new(data)),
        "fuzz.jsonl",
        "fuzz",
    );
    let mut items = Vec::new();
    let mut error = None;
    let mut steps = 0;
    loop {
        steps += 1;
        if steps > max_steps {
            return Err(finding!("the reader did not end after {max_steps} reads"));
        }
        match reader.next_items(&mut items) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                error = Some(e.to_string());
                break;
            }
        }
    }
    Ok((items, error, reader.format(), reader.bytes))
}

/// The body (see the module's oracle).
///
/// # Errors
///
/// A description of the finding, with the input.
pub fn transcript(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let lines = data.iter().filter(|b| **b == b'\n').count() + 1;
    let whole = read(data, data.len().max(1), lines + 1)
        .map_err(|e| finding!("{e}: {}", shown_bytes(data)))?;
    let (items, error, _, bytes) = &whole;
    if error.is_none() && *bytes != data.len() as u64 {
        return Err(finding!(
            "{bytes} of {} bytes read at the end: {}",
            data.len(),
            shown_bytes(data)
        ));
    }
    for item in items {
        let line = match item {
            Item::Call(call) => {
                if call.bytes > data.len() {
                    return Err(finding!(
                        "a call of {} bytes in {} bytes of input: {}",
                        call.bytes,
                        data.len(),
                        shown_bytes(data)
                    ));
                }
                call.line
            }
            Item::Bad { line, .. } => *line,
            Item::Result { .. } => continue,
        };
        if line == 0 || line > lines as u64 {
            return Err(finding!(
                "an item on line {line} of {lines}: {}",
                shown_bytes(data)
            ));
        }
    }
    let bytewise = read(data, 1, lines + 1).map_err(|e| finding!("{e}: {}", shown_bytes(data)))?;
    if bytewise != whole {
        return Err(finding!(
            "read a byte at a time, the input reads otherwise ({:?} then {:?}): {}",
            whole.1,
            bytewise.1,
            shown_bytes(data)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_claude_code_line_and_garbage_hold_the_oracle() {
        let line = br#"{"type":"assistant","sessionId":"s","cwd":"/w","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}"#;
        transcript(line).unwrap();
        let whole = read(line, 4096, 3).unwrap();
        assert!(
            matches!(whole.0.first(), Some(Item::Call(c)) if c.tool == "Bash"),
            "{:?}",
            whole.0
        );
        transcript(b"\xff\xfe{{{\n\n[").unwrap();
        transcript(b"").unwrap();
    }

    #[test]
    fn a_reader_that_never_ends_is_a_finding() {
        // Two lines cannot be read in one step.
        assert!(read(b"{}\n{}\n", 16, 1).is_err());
    }
}
