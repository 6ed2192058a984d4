//! Text as the human reports write it: one escaper for what a policy, a settings file,
//! a plugin or a transcript chose ([`escape`]), so `audit`, `check` and `replay` show a
//! rule the same way, and one width-aware cut for table columns ([`fit`], [`truncate`]).

use std::fmt::Write as _;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The first character of `text` that does not show as itself: a control, a format
/// character (zero-width, direction marks), or a space other than the plain one.
pub fn hidden_char(text: &str) -> Option<char> {
    text.chars().find(|c| is_hidden(*c))
}

/// Whether `c` shows as nothing, or as a plain space it is not ([`hidden_char`]).
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{00a0}' | '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{115f}'
            | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180e}' | '\u{2000}'..='\u{200f}'
            | '\u{2028}'..='\u{202f}' | '\u{205f}'..='\u{206f}' | '\u{3000}' | '\u{3164}'
            | '\u{feff}' | '\u{ffa0}' | '\u{fff9}'..='\u{fffb}')
}

/// `s` as one line of a report: escaped as the engine escapes a line it writes (SPEC
/// §3.6.1, `fnhooks::escaped_line`: line breaks, other controls, bidirectional and
/// other invisible format characters and combining marks as `char::escape_debug`
/// writes them; `\`, `'` and `"` as they are), and every other character that shows
/// as nothing or as a plain space ([`hidden_char`]: the Hangul fillers) written as
/// `\u{…}` too. A rule that only looks like another never reads as it, and a name
/// cannot start a new line.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '\'' | '"') {
            out.push(c);
        } else if is_hidden(c) && !needs_escape_debug(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.extend(c.escape_debug());
        }
    }
    out
}

/// Whether `char::escape_debug` writes `c` otherwise than as itself.
fn needs_escape_debug(c: char) -> bool {
    c.escape_debug().nth(1).is_some()
}

/// `s` cut (with `…`) to at most `width` terminal columns (a wide character takes two,
/// a control none); unchanged when it fits.
pub fn truncate(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_owned();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        cut.push(c);
    }
    cut.push('…');
    cut
}

/// `s` padded with spaces or cut (with `…`, [`truncate`]) to exactly `width` terminal
/// columns: a table cell.
pub fn fit(s: &str, width: usize) -> String {
    let mut out = truncate(s, width);
    let used = out.width();
    out.push_str(&" ".repeat(width.saturating_sub(used)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_escaped_as_the_engine_escapes_it() {
        assert_eq!(escape("git push --force"), "git push --force");
        assert_eq!(escape("a\nb\tc\0"), "a\\nb\\tc\\0");
        assert_eq!(escape("it's \"fine\" \\o/"), "it's \"fine\" \\o/");
        for s in [
            "a\nb",
            "x\u{202e}y",
            "it's",
            "e\u{301}",
            "Bash(curl\u{200b}:*)",
        ] {
            assert_eq!(escape(s), fnhooks::escaped_line(s), "{s:?}");
        }
        // Escaped once, it is written unchanged.
        let once = escape("a\n\u{3164}b");
        assert_eq!(escape(&once), once);
    }

    #[test]
    fn what_shows_as_nothing_is_written_out() {
        assert_eq!(escape("Bash(curl\u{200b}:*)"), "Bash(curl\\u{200b}:*)");
        assert_eq!(escape("rm\u{00a0}-rf"), "rm\\u{a0}-rf");
        // The Hangul fillers show as nothing, yet `escape_debug` keeps them.
        assert_eq!(escape("a\u{3164}b\u{115f}"), "a\\u{3164}b\\u{115f}");
        assert_eq!(escape("x\u{ffa0}\u{1160}"), "x\\u{ffa0}\\u{1160}");
        // Text of any script that shows as itself stays itself.
        assert_eq!(escape("読む Read(~/ü.txt)"), "読む Read(~/ü.txt)");
        assert_eq!(hidden_char("ok"), None);
        assert_eq!(hidden_char("o\u{2060}k"), Some('\u{2060}'));
        assert_eq!(hidden_char("o\tk"), Some('\t'));
    }

    #[test]
    fn every_hidden_character_is_escaped() {
        for c in (0..=0x10ffff)
            .filter_map(char::from_u32)
            .filter(|c| is_hidden(*c))
        {
            let shown = escape(&c.to_string());
            assert!(
                shown.starts_with('\\'),
                "U+{:04X} shown as {shown:?}",
                u32::from(c)
            );
        }
    }

    #[test]
    fn a_cell_is_exactly_its_width_in_columns() {
        assert_eq!(fit("ab", 4), "ab  ");
        assert_eq!(fit("abcd", 4), "abcd");
        assert_eq!(fit("abcdef", 4), "abc…");
        // A wide character takes two columns, and is never cut in half.
        assert_eq!(fit("日本語", 6), "日本語");
        assert_eq!(fit("日本語", 5), "日本…");
        assert_eq!(fit("日本語", 4), "日… ");
        assert_eq!(fit("日本語x", 7).width(), 7);
        assert_eq!(fit("", 0), "");
        assert_eq!(fit("abc", 0), "…");
    }

    #[test]
    fn a_truncated_text_keeps_what_fits_and_pads_nothing() {
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("日本語", 5), "日本…");
        assert_eq!(truncate(&"x".repeat(300), 200).width(), 200);
    }
}
