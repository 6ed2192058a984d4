//! `sec-default log verify FILE`: a decision log's hash chain checked, as `check --log`
//! and `replay --log` write it (`session::verify_log`).

use crate::error::CommandError;
use crate::out;
use serde_json::json;
use std::path::Path;

/// `sec-default log verify FILE`: exit 0 with the number of lines
/// when the chain holds; 1 naming the first line that breaks it (not JSON, no `prev`, a
/// `prev` that is not the line before's hash); 2 when the file cannot be opened.
pub(crate) fn run(file: &Path, json: bool) -> u8 {
    let bad = |why: String| {
        let e = CommandError::parsed(
            format!("{}: {why}", file.display()),
            file,
            crate::exit::BAD_INPUT,
        );
        out::fail("log verify", &e, json)
    };
    // A FIFO or a device is no log (and could hang the open or never end): the bounded
    // opener refuses it on the opened file (SPEC §2.1 "Reading never hangs"); the
    // log's lines are capped by `verify_log`.
    let f = match boundedfs::open_regular(file) {
        Ok(f) => f,
        Err(e) => {
            return bad(match e.reason {
                boundedfs::Reason::NotRegular(kind) => {
                    format!("it is {kind}, not a regular file, so it is no decision log")
                }
                reason => format!("the log cannot be opened: {reason}"),
            })
        }
    };
    let (code, text) = match session::verify_log(std::io::BufReader::new(f)) {
        Ok(end) => (
            crate::exit::OK,
            if json {
                json!({"file": file.display().to_string(), "intact": true, "lines": end.lines, "last_line_sha256": end.last}).to_string()
            } else {
                format!(
                    "{}: the chain holds over {} line(s); the last line's SHA-256 is {} (no later line covers it: keep it to tell if it is edited or removed)",
                    file.display(),
                    end.lines,
                    end.last
                )
            },
        ),
        Err(b) => (
            crate::EXIT_FAILED,
            if json {
                json!({"file": file.display().to_string(), "intact": false, "line": b.line, "reason": b.reason}).to_string()
            } else {
                format!(
                    "{}:{}: the chain breaks: {}",
                    file.display(),
                    b.line,
                    b.reason
                )
            },
        ),
    };
    match out::print(&format!("{text}\n")) {
        Ok(()) => code,
        Err(e) => out::after_write_error(&e, code, "log verify"),
    }
}
