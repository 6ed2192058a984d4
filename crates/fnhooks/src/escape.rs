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
