//! Reading tokens as oxc's lexer reads them: trivia (whitespace, comments, line
//! terminators), identifiers and keywords with their escapes, numbers, strings and
//! regular expressions.

pub(super) fn byte(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

pub(super) fn is_ident_start_ascii(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'$' || b == b'_' || b == b'\\'
}

pub(super) fn is_ident_part_ascii(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'$' || b == b'_'
}

/// The non-ASCII char at `pos`, if `pos` starts one.
pub(super) fn char_at(src: &str, pos: usize) -> Option<char> {
    src.get(pos..).and_then(|rest| rest.chars().next())
}

pub(super) fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JavaScript white space outside ASCII (the Zs category, BOM; also anything else Unicode
/// calls white space, which can only split words more finely than oxc does).
pub(super) fn is_unicode_space(c: char) -> bool {
    c == '\u{feff}' || (c.is_whitespace() && !is_line_terminator(c))
}

/// Does a (possibly non-ASCII) identifier start at `pos`?
pub(super) fn ident_starts(src: &str, pos: usize) -> bool {
    let b = byte(src.as_bytes(), pos);
    if b.is_ascii() {
        return is_ident_start_ascii(b);
    }
    char_at(src, pos).is_some_and(|c| !is_line_terminator(c) && !is_unicode_space(c))
}

/// Skips white space, line terminators and comments from `pos`. Returns the new position,
/// whether a line terminator was crossed, and whether the file ended inside a comment.
pub(super) fn skip_trivia(src: &str, mut pos: usize) -> (usize, bool, bool) {
    let s = src.as_bytes();
    let mut newline = false;
    loop {
        let b = byte(s, pos);
        match b {
            b' ' | b'\t' | 0x0b | 0x0c => pos += 1,
            b'\n' | b'\r' => {
                newline = true;
                pos += 1;
            }
            b'/' if byte(s, pos + 1) == b'/' => {
                pos += 2;
                loop {
                    if pos >= s.len() {
                        return (pos, newline, false);
                    }
                    let c = byte(s, pos);
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    if c.is_ascii() {
                        pos += 1;
                    } else {
                        match char_at(src, pos) {
                            Some(ch) if is_line_terminator(ch) => break,
                            Some(ch) => pos += ch.len_utf8(),
                            None => pos += 1,
                        }
                    }
                }
            }
            b'/' if byte(s, pos + 1) == b'*' => {
                pos += 2;
                loop {
                    if pos >= s.len() {
                        return (pos, newline, true);
                    }
                    let c = byte(s, pos);
                    if c == b'*' && byte(s, pos + 1) == b'/' {
                        pos += 2;
                        break;
                    }
                    if c == b'\n' || c == b'\r' {
                        newline = true;
                    }
                    if c.is_ascii() {
                        pos += 1;
                    } else {
                        match char_at(src, pos) {
                            Some(ch) => {
                                if is_line_terminator(ch) {
                                    newline = true;
                                }
                                pos += ch.len_utf8();
                            }
                            None => pos += 1,
                        }
                    }
                }
            }
            _ if !b.is_ascii() => match char_at(src, pos) {
                Some(ch) if is_line_terminator(ch) => {
                    newline = true;
                    pos += ch.len_utf8();
                }
                Some(ch) if is_unicode_space(ch) => pos += ch.len_utf8(),
                _ => return (pos, newline, false),
            },
            _ => return (pos, newline, false),
        }
    }
}

/// The value of a hex digit.
pub(super) fn hex_value(b: u8) -> Option<u32> {
    char::from(b).to_digit(16)
}

/// Reads an identifier from `pos` (ASCII parts, escapes, other non-space chars; `jsx`:
/// also `-`), consuming exactly what oxc's lexer consumes: after `\`, a `u` escape (its hex
/// digits, as far as they go) or else any one char. Returns its end and its text as oxc
/// reads it (valid escapes decoded, invalid ones dropped) when short enough to be a
/// keyword. (oxc ends an identifier at a char that is not an identifier part and then
/// stops with an error; the scan reads on, which can only see more.)
pub(super) fn read_word(src: &str, mut pos: usize, jsx: bool) -> (usize, Option<String>) {
    let s = src.as_bytes();
    let mut text = String::new();
    let mut keyword_like = true;
    loop {
        if pos >= s.len() {
            break;
        }
        let b = byte(s, pos);
        if is_ident_part_ascii(b) || (jsx && b == b'-') {
            text.push(char::from(b));
            pos += 1;
        } else if b == b'\\' {
            pos += 1;
            if byte(s, pos) == b'u' {
                pos += 1;
                let value = if byte(s, pos) == b'{' {
                    pos += 1;
                    match hex_value(byte(s, pos)) {
                        None => None,
                        Some(first) => {
                            pos += 1;
                            let mut value = first;
                            let mut fits = true;
                            while let Some(d) = hex_value(byte(s, pos)) {
                                pos += 1;
                                value = (value << 4) | d;
                                if value > 0x0010_FFFF {
                                    fits = false;
                                    break;
                                }
                            }
                            if fits && byte(s, pos) == b'}' {
                                pos += 1;
                                Some(value)
                            } else {
                                None
                            }
                        }
                    }
                } else {
                    let mut value = 0;
                    let mut digits = 0;
                    while digits < 4 {
                        let Some(d) = hex_value(byte(s, pos)) else {
                            break;
                        };
                        pos += 1;
                        value = (value << 4) | d;
                        digits += 1;
                    }
                    (digits == 4).then_some(value)
                };
                match value.and_then(char::from_u32) {
                    Some(c) if c.is_ascii_alphanumeric() || c == '$' || c == '_' => text.push(c),
                    Some(c) if !c.is_ascii() => keyword_like = false,
                    _ => {}
                }
            } else if pos < s.len() {
                pos += char_at(src, pos).map_or(1, char::len_utf8);
            }
        } else if !b.is_ascii() {
            match char_at(src, pos) {
                Some(c) if !is_line_terminator(c) && !is_unicode_space(c) => {
                    keyword_like = false;
                    pos += c.len_utf8();
                }
                Some(_) => break,
                None => pos += 1,
            }
        } else {
            break;
        }
        if text.len() > 16 {
            keyword_like = false;
        }
    }
    (pos, keyword_like.then_some(text))
}

/// Reads a number literal starting at `pos` (a digit, or `.` and a digit).
pub(super) fn read_number(s: &[u8], mut pos: usize) -> usize {
    let digits = |s: &[u8], mut p: usize, hex: bool| {
        while byte(s, p).is_ascii_digit()
            || byte(s, p) == b'_'
            || (hex && byte(s, p).is_ascii_hexdigit())
        {
            p += 1;
        }
        p
    };
    if byte(s, pos) == b'0' && matches!(byte(s, pos + 1), b'x' | b'X' | b'o' | b'O' | b'b' | b'B') {
        pos = digits(s, pos + 2, true);
    } else {
        pos = digits(s, pos, false);
        if byte(s, pos) == b'.' {
            pos = digits(s, pos + 1, false);
        }
        if matches!(byte(s, pos), b'e' | b'E') {
            let mut p = pos + 1;
            if matches!(byte(s, p), b'+' | b'-') {
                p += 1;
            }
            if byte(s, p).is_ascii_digit() {
                pos = digits(s, p, false);
            }
        }
    }
    if byte(s, pos) == b'n' {
        pos += 1;
    }
    pos
}

/// Reads a string literal whose quote is at `pos`. Returns its end and whether it was
/// terminated (an unterminated string ends after the line terminator, as oxc's lexer does).
pub(super) fn read_string(src: &str, pos: usize) -> (usize, bool) {
    let s = src.as_bytes();
    let quote = byte(s, pos);
    let mut p = pos + 1;
    loop {
        if p >= s.len() {
            return (p, false);
        }
        let b = byte(s, p);
        if b == quote {
            return (p + 1, true);
        }
        match b {
            b'\\' => {
                p += 1;
                let e = byte(s, p);
                if e == b'\r' && byte(s, p + 1) == b'\n' {
                    p += 2;
                } else if e.is_ascii() {
                    p += 1;
                } else {
                    p += char_at(src, p).map_or(1, char::len_utf8);
                }
            }
            b'\n' | b'\r' => return (p + 1, false),
            _ => p += 1,
        }
    }
}

/// Reads a regular expression whose `/` is at `pos`. `None`: oxc reports it unterminated
/// and skips to the end of the file.
pub(super) fn read_regex(src: &str, pos: usize) -> Option<usize> {
    let s = src.as_bytes();
    let mut p = pos + 1;
    let mut class = false;
    loop {
        if p >= s.len() {
            return None;
        }
        let b = byte(s, p);
        match b {
            b'\n' | b'\r' => return None,
            b'\\' => {
                p += 1;
                let e = byte(s, p);
                if p >= s.len() || e == b'\n' || e == b'\r' {
                    return None;
                }
                if e.is_ascii() {
                    p += 1;
                } else {
                    match char_at(src, p) {
                        Some(c) if is_line_terminator(c) => return None,
                        Some(c) => p += c.len_utf8(),
                        None => p += 1,
                    }
                }
            }
            b'[' => {
                class = true;
                p += 1;
            }
            b']' => {
                class = false;
                p += 1;
            }
            b'/' if !class => {
                p += 1;
                break;
            }
            _ if !b.is_ascii() => match char_at(src, p) {
                Some(c) if is_line_terminator(c) => return None,
                Some(c) => p += c.len_utf8(),
                None => p += 1,
            },
            _ => p += 1,
        }
    }
    while matches!(byte(s, p), b'$' | b'_' | b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9') {
        p += 1;
    }
    Some(p)
}
