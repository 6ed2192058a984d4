//! Words and expansion: one word of a simple command resolved into a [`Word`]
//! (quotes, escapes and `$'...'` removed, and whether its value is known only at run
//! time), the commands inside its substitutions, `${...}` operands and arithmetic
//! walked in their turn (SPEC §4 "Compound shell commands"); and the word helpers the
//! other files share.

use super::expand::Seg;
use super::walker::{SplitError, Walker, MAX_DEPTH};
use brush_parser::word::{self as bword, WordPiece, WordPieceWithSource};
use brush_parser::ParserOptions;

/// One word of a simple command, quotes and escapes resolved.
///
/// SPEC §4.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The word's text after quote removal (expansions are kept as written).
    pub text: String,
    /// Whether the word's value is only known when the shell runs: it holds a
    /// parameter expansion, a command/process substitution, or an unquoted glob.
    pub dynamic: bool,
    /// Whether any part of the word was quoted or escaped.
    pub quoted: bool,
    /// The word's pieces as written, for expansion (empty for a word made up by the
    /// core, which is literal).
    pub(super) segs: Vec<Seg>,
}

impl Word {
    /// A literal word: no expansion, nothing quoted.
    pub(super) fn literal(text: impl Into<String>) -> Self {
        Word {
            text: text.into(),
            ..Word::default()
        }
    }

    /// This word with its text replaced, keeping whether it was dynamic or quoted
    /// (an option's value cut from it); its pieces are dropped, so it is not
    /// expanded again.
    pub(super) fn with_text(&self, text: &str) -> Self {
        Word {
            text: text.to_owned(),
            dynamic: self.dynamic,
            quoted: self.quoted,
            segs: Vec::new(),
        }
    }
}

impl Walker<'_> {
    /// Resolves one word; the commands inside it are walked.
    pub(super) fn word(&mut self, raw: &str) -> Word {
        let mut w = Word::default();
        if unclosed_subscripts(raw) > MAX_UNCLOSED_SUBSCRIPTS {
            // brush-parser's word parser backtracks exponentially on these (found by
            // fuzzing: `"a${IF[}b" x 6` took minutes); bash refuses them as a bad
            // substitution. Not parsed: the command is one that cannot be parsed.
            self.fail(SplitError::Unsupported(
                "a word with unclosed array subscripts",
            ));
            w.text = raw.to_owned();
            w.dynamic = true;
            w.segs = vec![Seg::Unknown];
            return w;
        }
        match bword::parse(raw, &ParserOptions::default()) {
            Ok(pieces) => {
                self.pieces(&pieces, raw, &mut w, false);
                // An expansion brush left as text (`${P~~}`): known only when the
                // shell runs.
                let unread = w.segs.iter().any(|s| {
                    matches!(s, Seg::Lit { text, active: true }
                        if text.contains("${") || text.contains("$(") || text.contains("$["))
                });
                if unread {
                    w.dynamic = true;
                    w.segs = vec![Seg::Unknown];
                }
            }
            Err(_) => {
                self.fail(SplitError::Syntax(format!("the word {raw:?}")));
                w.text = raw.to_owned();
                w.dynamic = true;
                w.segs = vec![Seg::Unknown];
            }
        }
        w
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource], src: &str, w: &mut Word, in_dq: bool) {
        for p in pieces {
            let piece_src = src.get(p.start_index..p.end_index).unwrap_or_default();
            match &p.piece {
                WordPiece::Text(t) => {
                    // A `$` brush left as text (`${P~~}`) is an expansion it did not
                    // read: known only when the shell runs.
                    if t.contains("${") || t.contains("$(") || t.contains("$[") {
                        w.dynamic = true;
                        w.text.push_str(t);
                        w.segs.push(Seg::Unknown);
                        continue;
                    }
                    // Unquoted, glob characters and extended patterns (`@(rm)`, `+(x)`,
                    // `!(x)`) are expanded against the file system.
                    if !in_dq
                        && (t.contains(['*', '?'])
                            || ["@(", "+(", "!("].iter().any(|o| t.contains(o))
                            || t.find('[')
                                .is_some_and(|i| t.get(i + 1..).is_some_and(|r| r.contains(']')))
                            || brace_expansion(t))
                    {
                        w.dynamic = true;
                    }
                    w.text.push_str(t);
                    lit(w, t, !in_dq);
                }
                WordPiece::SingleQuotedText(t) => {
                    w.quoted = true;
                    w.text.push_str(t);
                    lit(w, t, false);
                }
                WordPiece::AnsiCQuotedText(t) => {
                    w.quoted = true;
                    let text = ansi_c(t);
                    w.text.push_str(&text);
                    lit(w, &text, false);
                }
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    w.quoted = true;
                    self.pieces(inner, src, w, true);
                }
                WordPiece::TildePrefix(user) => {
                    w.text.push('~');
                    w.text.push_str(user);
                    if !user.is_empty() {
                        w.dynamic = true;
                    }
                    w.segs.push(Seg::Tilde(user.clone()));
                }
                WordPiece::ParameterExpansion(_) => {
                    w.dynamic = true;
                    w.text.push_str(piece_src);
                    w.segs.push(Seg::Param {
                        src: piece_src.to_owned(),
                        quoted: in_dq,
                    });
                    let inner = piece_src
                        .strip_prefix("${")
                        .and_then(|s| s.strip_suffix('}'))
                        .unwrap_or_default();
                    self.scan(inner);
                    self.parameter_code(inner);
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    w.dynamic = true;
                    w.text.push_str(&format!("$({s})"));
                    w.segs.push(Seg::Unknown);
                    self.nested(s);
                }
                WordPiece::EscapeSequence(e) => {
                    w.quoted = true;
                    let c = e.strip_prefix('\\').unwrap_or(e);
                    if c != "\n" {
                        w.text.push_str(c);
                        lit(w, c, false);
                    }
                }
                WordPiece::ArithmeticExpression(a) => {
                    w.dynamic = true;
                    w.text.push_str(&format!("$(({}))", a.value));
                    w.segs.push(Seg::Arith);
                    self.arithmetic(&a.value);
                }
            }
        }
    }

    /// Walks the substitutions inside text that is expanded like a double-quoted
    /// string (here-document bodies, `${...}` operands, arithmetic).
    pub(super) fn scan(&mut self, text: &str) {
        if !(text.contains("$(") || text.contains('`') || text.contains("${")) {
            return;
        }
        if self.depth > MAX_DEPTH {
            self.fail(SplitError::TooDeep);
            return;
        }
        self.depth += 1;
        for sub in substitutions(text) {
            match sub {
                Sub::Command(c) => self.nested(c),
                Sub::Arithmetic(a) => self.arithmetic(a),
                Sub::Parameter(p) => self.scan(p),
            }
        }
        self.depth -= 1;
    }
}

impl Walker<'_> {
    /// What a parameter expansion `${inner}` runs or sets as it expands (SPEC §4
    /// "Arithmetic is code"): an indexed subscript and substring offsets are
    /// arithmetic; `${!x}` reads the variable `x` names (its subscript too);
    /// `${p@P}` expands `p`'s value as a prompt, substitutions included;
    /// `${X:=w}` sets `X`.
    fn parameter_code(&mut self, inner: &str) {
        let (indirect, body) = match inner.strip_prefix('!') {
            Some(b) => (true, b),
            None => (false, inner.strip_prefix('#').unwrap_or(inner)),
        };
        let end = match body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(body.len())
        {
            // A special parameter (`${@:1:n}`, `${*:n}`): its offsets are arithmetic.
            0 if body.starts_with(['@', '*', '#', '?', '-', '$', '!']) => 1,
            end => end,
        };
        let (name, mut rest) = body.split_at(end);
        if let Some(after) = rest.strip_prefix('[') {
            let close = after.rfind(']').unwrap_or(after.len());
            let sub = after.get(..close).unwrap_or_default();
            if !matches!(sub, "@" | "*") {
                self.arithmetic(sub);
            }
            rest = after.get(close + 1..).unwrap_or_default();
        }
        if indirect && rest.is_empty() {
            // `${!x}`: the value of `x` is a name, perhaps with a subscript.
            self.names_read(name);
        }
        if rest == "@P" {
            self.values_as_code(name);
        }
        if let Some(offsets) = rest.strip_prefix(':') {
            if !offsets.starts_with(['-', '=', '+', '?']) {
                for expr in offsets.splitn(2, ':') {
                    self.arithmetic(expr);
                }
            }
        }
        if let Some(word) = rest.strip_prefix(":=").or_else(|| rest.strip_prefix('=')) {
            self.integer_default(name, word);
            self.assigned_by_expansion.push(name.to_owned());
        }
    }

    /// Reads each of `values` with `read`; values not known may be code: the command
    /// then runs something unknown (SPEC §4 "Arithmetic is code").
    pub(super) fn read_each(&mut self, values: Option<Vec<String>>, read: fn(&mut Self, &str)) {
        match values {
            Some(values) => {
                for v in values {
                    read(self, &v);
                }
            }
            None => self.arith_unknown = true,
        }
    }

    /// The values of `name` are names of variables read in their turn (`${!x}`,
    /// `test -v "$x"`): a subscript in one is arithmetic; an unknown value may be
    /// code.
    pub(super) fn names_read(&mut self, name: &str) {
        self.read_each(self.values_of(name), Self::name_subscript);
    }

    /// A variable's values run as code where they are expanded again (`${p@P}`,
    /// `PS4` under `set -x`): their substitutions are walked; an unknown value may
    /// be code.
    pub(super) fn values_as_code(&mut self, name: &str) {
        self.read_each(self.values_of(name), Self::scan);
    }

    /// A name with a subscript (`a[$(cmd)]`, `a[i]`): the subscript is arithmetic.
    pub(super) fn name_subscript(&mut self, text: &str) {
        if let Some((_, after)) = text.split_once('[') {
            let close = after.rfind(']').unwrap_or(after.len());
            self.arithmetic(after.get(..close).unwrap_or_default());
        }
    }
}

/// A substitution found in text.
enum Sub<'t> {
    /// `$(...)` or a backquoted command.
    Command(&'t str),
    /// `$((...))`.
    Arithmetic(&'t str),
    /// `${...}`.
    Parameter(&'t str),
}

/// The substitutions in text expanded like a double-quoted string, outermost first;
/// an unterminated one runs to the end of the text.
fn substitutions(text: &str) -> Vec<Sub<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b.get(i) {
            Some(b'\\') => i += 2,
            Some(b'`') => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b.get(j) != Some(&b'`') {
                    j += if b.get(j) == Some(&b'\\') { 2 } else { 1 };
                }
                out.push(Sub::Command(
                    text.get(start..j.min(b.len())).unwrap_or_default(),
                ));
                i = j + 1;
            }
            Some(b'$') if b.get(i + 1) == Some(&b'(') && b.get(i + 2) == Some(&b'(') => {
                let start = i + 3;
                let end = closing(b, start, b'(', b')');
                let inner = text.get(start..end).unwrap_or_default();
                out.push(Sub::Arithmetic(inner.strip_suffix(')').unwrap_or(inner)));
                i = end + 1;
            }
            Some(b'$') if b.get(i + 1) == Some(&b'(') => {
                let start = i + 2;
                let end = closing(b, start, b'(', b')');
                out.push(Sub::Command(text.get(start..end).unwrap_or_default()));
                i = end + 1;
            }
            Some(b'$') if b.get(i + 1) == Some(&b'{') => {
                let start = i + 2;
                let end = closing(b, start, b'{', b'}');
                out.push(Sub::Parameter(text.get(start..end).unwrap_or_default()));
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The index of the `close` that matches an `open` just before `start` (quotes and
/// escapes followed), or the text's end.
fn closing(b: &[u8], start: usize, open: u8, close: u8) -> usize {
    let mut depth = 1usize;
    let (mut single, mut double) = (false, false);
    let mut j = start;
    while let Some(&c) = b.get(j) {
        match c {
            b'\\' if !single => j += 1,
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            c if c == open && !single && !double => depth += 1,
            c if c == close && !single && !double => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// How many `${NAME[` without their `]` a word may hold before it is not parsed.
const MAX_UNCLOSED_SUBSCRIPTS: usize = 2;

/// How many parameter expansions in `raw` open a subscript that their `}` comes
/// before the `]` of (`${IF[}`).
fn unclosed_subscripts(raw: &str) -> usize {
    let b = raw.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while let Some(at) = raw.get(i..).and_then(|r| r.find("${")) {
        let mut j = i + at + 2;
        while b
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            j += 1;
        }
        if b.get(j) == Some(&b'[') {
            let rest = b.get(j..).unwrap_or_default();
            let close = rest.iter().position(|c| *c == b']');
            let brace = rest.iter().position(|c| *c == b'}');
            if close.is_none() || brace.is_some_and(|br| close.is_some_and(|c| br < c)) {
                count += 1;
            }
        }
        i = j.max(i + at + 2);
    }
    count
}

/// Appends literal text to a word's pieces (`active` when unquoted).
fn lit(w: &mut Word, text: &str, active: bool) {
    if let Some(Seg::Lit { text: t, active: a }) = w.segs.last_mut() {
        if *a == active {
            t.push_str(text);
            return;
        }
    }
    w.segs.push(Seg::Lit {
        text: text.to_owned(),
        active,
    });
}

/// Whether unquoted text holds a brace expansion: `{a,b}` or `{a..b}`.
fn brace_expansion(t: &str) -> bool {
    t.match_indices('{').any(|(i, _)| {
        t.get(i + 1..)
            .and_then(|r| r.find('}').and_then(|j| r.get(..j)))
            .is_some_and(|inner| inner.contains(',') || inner.contains(".."))
    })
}

/// Resolves the escapes of an ANSI-C quoted string (`$'...'`).
/// The shell cuts a `$'...'` string at its first NUL (`rm$'\0x'` is `rm`).
fn ansi_c(s: &str) -> String {
    let mut decoded = ansi_c_all(s);
    if let Some(nul) = decoded.find('\0') {
        decoded.truncate(nul);
    }
    decoded
}

fn ansi_c_all(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let radix_char = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
                          radix: u32,
                          max: usize,
                          first: Option<char>| {
            let mut digits = String::new();
            if let Some(f) = first {
                digits.push(f);
            }
            while digits.len() < max {
                match chars.peek() {
                    Some(d) if d.is_digit(radix) => {
                        digits.push(*d);
                        chars.next();
                    }
                    _ => break,
                }
            }
            u32::from_str_radix(&digits, radix)
                .ok()
                .and_then(char::from_u32)
        };
        let decoded = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'e' | 'E' => Some('\u{1b}'),
            // `\cX`: the control character of X (`\c@` is NUL).
            'c' => chars
                .next()
                .and_then(|x| char::from_u32(u32::from(x) & 0x1f)),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
            'x' if chars.peek() == Some(&'{') => {
                // `\x{72}`: any number of hex digits in braces.
                chars.next();
                let digits: String = chars.by_ref().take_while(|c| *c != '}').collect();
                u32::from_str_radix(&digits, 16)
                    .ok()
                    .and_then(char::from_u32)
            }
            'x' => radix_char(&mut chars, 16, 2, None),
            'u' => radix_char(&mut chars, 16, 4, None),
            'U' => radix_char(&mut chars, 16, 8, None),
            '0'..='7' => radix_char(&mut chars, 8, 3, Some(e)),
            other => {
                out.push('\\');
                Some(other)
            }
        };
        if let Some(d) = decoded {
            out.push(d);
        }
    }
    out
}

pub(super) fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last path segment of a program word (`/bin/rm` -> `rm`).
///
/// SPEC §4.
#[must_use]
pub fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

#[cfg(test)]
mod tests {
    use crate::bash::tests::words;

    #[test]
    fn quotes_hide_operators() {
        assert_eq!(
            words("echo 'a && b' \"c;d\" e\\;f"),
            vec![vec!["echo", "a && b", "c;d", "e;f"]]
        );
        assert_eq!(words("r'm' -rf /"), vec![vec!["rm", "-rf", "/"]]);
        assert_eq!(words("$'\\x72m' -rf /"), vec![vec!["rm", "-rf", "/"]]);
        assert_eq!(words("\"r\"\\m x"), vec![vec!["rm", "x"]]);
    }
}
