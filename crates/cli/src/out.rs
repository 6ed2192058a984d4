//! Standard output as Unix tools use it: every write is checked, and
//! a reader that went away (`| head`) ends the command quietly with the exit code of
//! what it had done, never a panic.

use std::io::{self, Write};

/// Whether a write error means the reader closed standard output (a broken pipe, or
/// standard output closed outright).
pub(crate) fn is_closed(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::BrokenPipe || e.raw_os_error() == Some(9)
}

/// The exit code after a write to standard output failed: `code` (what the command
/// had settled on) when the reader closed it; otherwise the error is said on standard
/// error and the exit code is 2 (the report could not be delivered).
pub(crate) fn after_write_error(e: &io::Error, code: u8, command: &str) -> u8 {
    if is_closed(e) {
        code
    } else {
        say(command, &format!("cannot write to standard output: {e}"));
        crate::exit::BAD_INPUT
    }
}

/// Prints a command's report on standard output: `value` as pretty JSON with `json`,
/// else the words `render` gives. Returns `code`, or what [`after_write_error`] makes
/// of a write that failed.
pub(crate) fn report<T: serde::Serialize + ?Sized>(
    command: &str,
    json: bool,
    value: &T,
    render: impl FnOnce() -> String,
    code: u8,
) -> u8 {
    let text = if json {
        let mut t = serde_json::to_string_pretty(value).unwrap_or_default();
        t.push('\n');
        t
    } else {
        render()
    };
    match print(&text) {
        Ok(()) => code,
        Err(e) => after_write_error(&e, code, command),
    }
}

/// Writes `text` to standard output and flushes it.
///
/// # Errors
///
/// The write's error (a closed pipe among them).
pub(crate) fn print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// Writes a line on standard error, `sec-default <command>: <text>`; a standard error
/// that cannot be written is not reported anywhere.
pub(crate) fn say(command: &str, text: &str) {
    let _ = writeln!(io::stderr().lock(), "sec-default {command}: {text}");
}

/// Reports `error`: its line on standard error, and with `json` its JSON object on
/// standard output. Returns its exit code.
pub(crate) fn fail(command: &str, error: &crate::error::CommandError, json: bool) -> u8 {
    say(command, &error.message);
    if json {
        let text = serde_json::to_string_pretty(&error.to_json()).unwrap_or_default();
        // A closed standard output leaves the code as it is.
        let _ = print(&format!("{text}\n"));
    }
    error.exit_code
}
