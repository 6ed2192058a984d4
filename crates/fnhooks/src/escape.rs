//! Strings supplied by plugins, tools and policies, as engine lines write them (SPEC
//! §3.6.1 **\[decision\]**).

/// `s` escaped as Rust's `char::escape_debug` escapes each of its characters, so that a
/// name holding a line break, a bidirectional control or a NUL cannot forge lines (or
/// hide words) on a person's screen when the engine writes it into one of its lines
/// (notices, refusals, the §1.9 lines, load and unload lines).
///
/// Takes any string; returns it escaped (ASCII letters, digits, spaces and common
/// punctuation unchanged; `\n` as `\\n`, `"` as `\\"`, U+202E as `\\u{202e}`).
///
/// SPEC §3.6.1, §1.9
///
/// ```
/// assert_eq!(fnhooks::escaped("yes-man"), "yes-man");
/// assert_eq!(fnhooks::escaped("a\nb"), "a\\nb");
/// assert_eq!(fnhooks::escaped("x\u{202e}y"), "x\\u{202e}y");
/// ```
#[must_use]
pub fn escaped(s: &str) -> String {
    s.chars().flat_map(char::escape_debug).collect()
}

/// A whole line a plugin or a program wrote (a plugin's refusal, a classic hook's
/// output), as the engine writes it: every character `char::escape_debug` escapes is
/// escaped that way — line breaks, other controls, bidirectional and other invisible
/// format characters — except `\`, `'` and `"`, which forge nothing. So a line that
/// [`escaped`] already made safe is written unchanged (the security default's own
/// refusals, whose supplied parts it escaped), and one that was not cannot start a new
/// line on a person's screen.
///
/// Takes the text; returns it safe to write as one line.
///
/// SPEC §3.6.1, §1.9
///
/// ```
/// assert_eq!(fnhooks::escaped_line("nope\nforged line"), "nope\\nforged line");
/// assert_eq!(fnhooks::escaped_line("it's \"fine\""), "it's \"fine\"");
/// let once = fnhooks::escaped("a\nb");
/// assert_eq!(fnhooks::escaped_line(&once), once);
/// ```
#[must_use]
pub fn escaped_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '\'' | '"') {
            out.push(c);
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}
