//! The nesting pre-scan (SPEC §6 caps: "nesting 2,000 deep, checked before parsing").
//!
//! oxc's parser, its semantic builder, the transformer and the code generator all recurse
//! without a depth limit, and a stack overflow aborts the process. Before a file is parsed,
//! this scan computes a *depth measure* that is at least the depth of recursion any of them
//! can reach on it (in units of a bounded number of stack frames; see [`MAX_DEPTH`] and the
//! stack the loader gives the compiler thread), and refuses the file past 2,000.
//!
//! # The measure
//!
//! The scan tokenizes the file (strings, template literals with a `${` stack, comments,
//! regular expressions, JSX text, attributes and tags) and keeps a stack of *levels*: the
//! open brackets `(` `[` `{`, template literals and their `${`, JSX elements and their
//! `{…}` containers, and TypeScript's `<` (which may open type arguments). Each level holds
//! two counters:
//!
//! - `chain`: every operator-like token at that level — prefix operators (`! ~ + - ++ --
//!   typeof void delete await yield new ...`, TS `keyof unique readonly infer asserts`),
//!   every binary and assignment operator (the right-associative `= ** ?:` and `=>` recurse
//!   in the parser; the left-associative ones build left-deep trees the later passes recurse
//!   on), `.` and `?.`, calls and index brackets after an operand, tagged templates, TS
//!   non-null `!`, a decorator's `@`. It is reset only where every expression at that level
//!   has ended: at `,` and `;`, and where an operand starts right after an operand (no
//!   expression continues that way: the statement ended, by ASI, or oxc stops with an
//!   error).
//! - `stmt`: statements nested without braces — `if`, `else`, `for`, `while`, `with`, `do`
//!   and labels. It is reset only where the statement they nest around has ended and the
//!   next token is not `else`, `while`, `catch` or `finally` (so an `else if` chain keeps
//!   counting): after a `;` or the `}` of a block, where an operand starts right after an
//!   operand (ASI), or at a line break after `return`, `break` or `continue`.
//!
//! The depth is the sum over open levels of `1 + chain + stmt` (the file's own level
//! counts 0), and the file's measure is its maximum over the whole scan.
//!
//! # Why it never under-counts
//!
//! Every construct oxc parses (or a later pass walks) recursively is opened by a token
//! counted above, and its count is kept until the construct has certainly ended; the
//! constant number of frames each unit stands for is what the compiler thread's stack is
//! sized by (measured: at the cap, every construct compiles in 8 MiB in a debug build).
//!
//! The tokenizer follows oxc's lexer exactly where a mistake could hide code: strings end
//! at their quote or a line break (after which oxc's lexer goes on, and so does the scan),
//! line comments at any of the four line terminators, identifiers consume after `\` what
//! oxc consumes (and their escapes decode to the keyword oxc sees), JSX strings come only
//! right after `=`. Where the tokenizer cannot know what oxc will do, the scan *forks*:
//! `/` (regular expression or division) and, in `.tsx`, `<` (JSX or type parameters),
//! after a token that leaves it open (the `}` of a brace of unknown kind, `>`, a contextual
//! keyword, an operand followed by a line break: `let x` / `type T = A` end a statement
//! there), and `<ident>(` or `<ident extends` in `.tsx`. It follows both readings, keeps
//! the maximum, and merges readings that meet again in the same state (taking the larger
//! counters). A reading is dropped only where oxc itself stops (a lexer error after which
//! it skips to the end of the file: an unterminated regular expression or JSX string, `>`
//! or `}` in JSX text, a token JSX cannot start with, a mismatched JSX tag end). Past
//! [`MAX_BRANCHES`] live readings the file is refused as too ambiguous to scan.
//!
//! Tests: `compile::tests` compiles every recursive construct, and constructs built to
//! fool the tokenizer, at the deepest nesting the scan accepts on 1/16 of the loader's
//! stack; `compile::fuzz` does the same for repeated random token patterns.

/// The nesting cap (SPEC §6): a depth measure above this refuses the file.
pub(crate) const MAX_DEPTH: u32 = 2000;

/// How many readings of an ambiguous file the scan follows at once.
pub(crate) const MAX_BRANCHES: usize = 16;

/// Which syntax a file is parsed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// TypeScript (`.ts .tsx .mts .cts`).
    pub(crate) ts: bool,
    /// JSX (`.tsx .jsx`).
    pub(crate) jsx: bool,
}

/// Why a file is refused before parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// The depth measure passed [`MAX_DEPTH`] at this byte offset.
    TooDeep { offset: usize },
    /// More than [`MAX_BRANCHES`] readings were live at this byte offset.
    Ambiguous { offset: usize },
}

/// Scans `src`; `Ok` holds the depth measure (at most [`MAX_DEPTH`]).
pub(crate) fn scan(src: &str, dialect: Dialect) -> Result<u32, ScanError> {
    let mut live: Vec<Branch> = vec![Branch::new(src)];
    let mut best = 0u32;
    while !live.is_empty() {
        // The branch furthest behind steps, as long as it stays behind all the others (it
        // can meet another, and merge, only where it reaches one's position).
        let mut index = 0;
        let mut min = usize::MAX;
        let mut next = usize::MAX;
        for (i, branch) in live.iter().enumerate() {
            if branch.pos < min {
                next = min;
                min = branch.pos;
                index = i;
            } else if branch.pos < next {
                next = branch.pos;
            }
        }
        let Some(branch) = live.get_mut(index) else {
            break;
        };
        let step = loop {
            match branch.step(src, dialect) {
                Step::Go if branch.pos < next => {}
                other => break other,
            }
        };
        match step {
            Step::Go => {
                if live.len() > 1 {
                    merge_into_others(&mut live, index);
                }
            }
            Step::Fork(other) => {
                let at = other.pos;
                live.push(*other);
                if live.len() > MAX_BRANCHES {
                    return Err(ScanError::Ambiguous { offset: at });
                }
            }
            Step::End => {
                best = best.max(branch.max);
                live.swap_remove(index);
            }
            Step::TooDeep(offset) => return Err(ScanError::TooDeep { offset }),
        }
    }
    Ok(best)
}

/// Merges `live[index]` into another branch in the same state, if there is one.
fn merge_into_others(live: &mut Vec<Branch>, index: usize) {
    let Some(me) = live.get(index) else { return };
    let found = live
        .iter()
        .enumerate()
        .position(|(j, other)| j != index && other.mergeable(me));
    if let Some(j) = found {
        let me = live.swap_remove(index);
        // `swap_remove` moved the last branch into `index`; `j` may have been that one.
        let j = if j == live.len() { index } else { j };
        if let Some(other) = live.get_mut(j) {
            other.absorb(&me);
        }
    }
}

/// What one step of a branch did.
enum Step {
    /// Consumed input; go on.
    Go,
    /// This branch took one reading; the other is returned (neither consumed input).
    Fork(Box<Branch>),
    /// The branch ended: end of file, or a point where oxc stops parsing.
    End,
    /// The measure passed the cap at this offset.
    TooDeep(usize),
}

/// Where the previous token leaves the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// A statement may start (an expression is expected too).
    Stmt,
    /// An operand is expected.
    Prefix,
    /// An operand just ended: an operator may follow.
    Operator,
    /// Either (the scan cannot tell).
    Unknown,
    /// After `.` or `?.`: a property name.
    Prop,
}

/// What the previous token was, where it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    Other,
    /// An identifier, and whether it may be a statement label if `:` follows.
    Word {
        label: Label,
    },
    /// `if for while with switch catch`: the next `(` is a condition.
    Cond {
        is_for: bool,
    },
    /// `=>`.
    Arrow,
    /// `as` (so `const` after it is an operand).
    As,
    /// `return break continue`: a line break ends the statement.
    Restricted,
    /// The `}` of a brace whose kind is not known.
    CloseBrace,
    /// A `:` that is not a label's (a ternary's, a `case`'s, a type annotation's...).
    Colon,
    /// `class` (an anonymous class's body follows: `export default class {}` ends a
    /// declaration, `x = class {}` an operand).
    Class,
}

/// Whether an identifier followed by `:` is a statement label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// No (it came where an operand was expected: an object key, a ternary's branch).
    No,
    /// Yes: it came where a statement starts.
    Sure,
    /// Perhaps: the scan did not know where it was.
    Maybe,
}

/// A forced reading of a `<`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Force {
    Jsx,
    Soft,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Brace {
    /// A block statement (opened where a statement may start).
    Block,
    /// An object literal (opened where an operand is expected).
    Object,
    /// Anything else: function, class, interface, enum or namespace body, type literal...
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The file itself.
    Top,
    Paren {
        cond: bool,
    },
    Bracket,
    Brace(Brace),
    /// TypeScript `<`: type arguments or parameters, or a comparison.
    Soft,
    /// Template literal text.
    Template,
    /// A template literal's `${ … }`.
    TemplateExpr,
    /// A JSX element's opening tag.
    JsxTag {
        after_eq: bool,
    },
    /// A JSX element's (or fragment's) children.
    JsxChildren,
    /// A JSX `{ … }` container (`child`: among children, else an attribute).
    JsxExpr {
        child: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Level {
    kind: Kind,
    chain: u32,
    stmt: u32,
    /// A `;` or a block's `}` ended a statement here: reset `stmt` unless the next token
    /// continues the statement (`else`, `while`, `catch`, `finally`).
    pending: bool,
}

impl Level {
    fn new(kind: Kind) -> Self {
        Self {
            kind,
            chain: 0,
            stmt: 0,
            pending: false,
        }
    }

    fn cost(&self) -> u32 {
        let own = u32::from(self.kind != Kind::Top);
        own.saturating_add(self.chain).saturating_add(self.stmt)
    }
}

#[derive(Debug, Clone)]
struct Branch {
    pos: usize,
    levels: Vec<Level>,
    sum: u32,
    max: u32,
    at: At,
    prev: Prev,
    /// A line terminator since the previous token.
    newline: bool,
    force: Option<Force>,
}

/// Keywords and contextual words, as far as the scan cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// An identifier.
    Plain,
    /// `this super null true false`.
    Operand,
    /// `if for while with` (counted statements with a condition).
    CondStmt { is_for: bool },
    /// `switch catch` (a condition, then braces).
    CondBraced,
    /// `else do`.
    ElseDo,
    /// `try finally`.
    Try,
    /// `return break continue`.
    Restricted,
    /// `throw case default`: an operand follows.
    Lead,
    /// `typeof void delete new`.
    PrefixOp,
    /// `in instanceof extends`.
    Infix,
    /// `export import`.
    Module,
    /// `let const var function class`: a name or pattern follows.
    Decl,
    /// `const` right after `as`.
    AsConst,
    /// `class`.
    Class,
    /// Contextual words that may be identifiers: `async get set static type ...`.
    Contextual,
    /// Contextual prefix operators: `await yield keyof infer unique readonly asserts`.
    ContextualOp,
    /// Contextual infix operators: `as satisfies is of implements`.
    ContextualInfix,
}

fn classify(word: &str, prev: Prev) -> Word {
    match word {
        "this" | "super" | "null" | "true" | "false" => Word::Operand,
        "if" | "while" | "with" => Word::CondStmt { is_for: false },
        "for" => Word::CondStmt { is_for: true },
        "switch" | "catch" => Word::CondBraced,
        "else" | "do" => Word::ElseDo,
        "try" | "finally" => Word::Try,
        "return" | "break" | "continue" => Word::Restricted,
        "throw" | "case" | "default" => Word::Lead,
        "typeof" | "void" | "delete" | "new" => Word::PrefixOp,
        "in" | "instanceof" | "extends" => Word::Infix,
        "export" | "import" => Word::Module,
        "const" if prev == Prev::As => Word::AsConst,
        "let" | "const" | "var" | "function" => Word::Decl,
        "class" => Word::Class,
        "await" | "yield" | "keyof" | "infer" | "unique" | "readonly" | "asserts" => {
            Word::ContextualOp
        }
        "as" | "satisfies" | "is" | "of" | "implements" => Word::ContextualInfix,
        "async" | "get" | "set" | "static" | "declare" | "abstract" | "type" | "namespace"
        | "module" | "interface" | "enum" | "public" | "private" | "protected" | "override"
        | "accessor" | "using" | "from" | "global" | "out" | "debugger" | "package" => {
            Word::Contextual
        }
        _ => Word::Plain,
    }
}

fn byte(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

fn is_ident_start_ascii(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'$' || b == b'_' || b == b'\\'
}

fn is_ident_part_ascii(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'$' || b == b'_'
}

/// The non-ASCII char at `pos`, if `pos` starts one.
fn char_at(src: &str, pos: usize) -> Option<char> {
    src.get(pos..).and_then(|rest| rest.chars().next())
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JavaScript white space outside ASCII (the Zs category, BOM; also anything else Unicode
/// calls white space, which can only split words more finely than oxc does).
fn is_unicode_space(c: char) -> bool {
    c == '\u{feff}' || (c.is_whitespace() && !is_line_terminator(c))
}

/// Does a (possibly non-ASCII) identifier start at `pos`?
fn ident_starts(src: &str, pos: usize) -> bool {
    let b = byte(src.as_bytes(), pos);
    if b.is_ascii() {
        return is_ident_start_ascii(b);
    }
    char_at(src, pos).is_some_and(|c| !is_line_terminator(c) && !is_unicode_space(c))
}

/// Skips white space, line terminators and comments from `pos`. Returns the new position,
/// whether a line terminator was crossed, and whether the file ended inside a comment.
fn skip_trivia(src: &str, mut pos: usize) -> (usize, bool, bool) {
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
fn hex_value(b: u8) -> Option<u32> {
    char::from(b).to_digit(16)
}

/// Reads an identifier from `pos` (ASCII parts, escapes, other non-space chars; `jsx`:
/// also `-`), consuming exactly what oxc's lexer consumes: after `\`, a `u` escape (its hex
/// digits, as far as they go) or else any one char. Returns its end and its text as oxc
/// reads it (valid escapes decoded, invalid ones dropped) when short enough to be a
/// keyword. (oxc ends an identifier at a char that is not an identifier part and then
/// stops with an error; the scan reads on, which can only see more.)
fn read_word(src: &str, mut pos: usize, jsx: bool) -> (usize, Option<String>) {
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
fn read_number(s: &[u8], mut pos: usize) -> usize {
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
fn read_string(src: &str, pos: usize) -> (usize, bool) {
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
fn read_regex(src: &str, pos: usize) -> Option<usize> {
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

impl Branch {
    fn new(src: &str) -> Self {
        let s = src.as_bytes();
        // A hashbang line is a comment.
        let mut pos = 0;
        if s.starts_with(b"#!") {
            pos = s
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
                .unwrap_or(s.len());
        }
        Self {
            pos,
            levels: vec![Level::new(Kind::Top)],
            sum: 0,
            max: 0,
            at: At::Stmt,
            prev: Prev::Other,
            newline: false,
            force: None,
        }
    }

    fn mergeable(&self, other: &Self) -> bool {
        self.pos == other.pos
            && self.at == other.at
            && self.prev == other.prev
            && self.newline == other.newline
            && self.force == other.force
            && self.levels.len() == other.levels.len()
            && self
                .levels
                .iter()
                .zip(&other.levels)
                .all(|(a, b)| a.kind == b.kind)
    }

    /// Takes in `other` (mergeable with `self`): the larger counters of both, so that
    /// whatever follows, the merged branch counts at least what either would.
    fn absorb(&mut self, other: &Self) {
        for (mine, theirs) in self.levels.iter_mut().zip(&other.levels) {
            mine.chain = mine.chain.max(theirs.chain);
            mine.stmt = mine.stmt.max(theirs.stmt);
            mine.pending = mine.pending && theirs.pending;
        }
        self.sum = self
            .levels
            .iter()
            .map(Level::cost)
            .fold(0, u32::saturating_add);
        self.max = self.max.max(other.max).max(self.sum);
    }

    fn top(&self) -> Kind {
        self.levels.last().map_or(Kind::Top, |l| l.kind)
    }

    fn top_mut(&mut self) -> Option<&mut Level> {
        self.levels.last_mut()
    }

    fn check(&mut self) -> bool {
        self.max = self.max.max(self.sum);
        self.sum <= MAX_DEPTH
    }

    fn add_chain(&mut self) -> bool {
        if let Some(top) = self.levels.last_mut() {
            top.chain = top.chain.saturating_add(1);
        }
        self.sum = self.sum.saturating_add(1);
        self.check()
    }

    fn add_stmt(&mut self) -> bool {
        if let Some(top) = self.levels.last_mut() {
            top.stmt = top.stmt.saturating_add(1);
        }
        self.sum = self.sum.saturating_add(1);
        self.check()
    }

    fn reset_chain(&mut self) {
        if let Some(top) = self.levels.last_mut() {
            self.sum = self.sum.saturating_sub(top.chain);
            top.chain = 0;
        }
    }

    fn reset_stmt(&mut self) {
        if let Some(top) = self.levels.last_mut() {
            self.sum = self.sum.saturating_sub(top.stmt);
            top.stmt = 0;
        }
    }

    /// An operand starts right after an operand (or after a `}` whose kind is not
    /// known): no expression continues that way, so the one at this level ended, and so
    /// did its statement (by ASI; without a line break oxc stops with an error), and with
    /// it the statements nested without braces around it, unless the token goes on with
    /// one of them (`continues`: `else`, `while`, `catch`, `finally`).
    ///
    /// Open `<` levels end too: inside type arguments an operand never follows an operand,
    /// so each was a comparison (or oxc stops with an error).
    fn end_statement(&mut self, continues: bool) {
        self.pop_soft();
        self.reset_chain();
        if !continues {
            self.reset_stmt();
        }
    }

    fn push(&mut self, kind: Kind) -> bool {
        self.levels.push(Level::new(kind));
        self.sum = self.sum.saturating_add(1);
        self.check()
    }

    fn pop(&mut self) {
        if self.levels.len() > 1 {
            if let Some(level) = self.levels.pop() {
                self.sum = self.sum.saturating_sub(level.cost());
            }
        }
    }

    fn pop_soft(&mut self) {
        while self.top() == Kind::Soft {
            self.pop();
        }
    }

    fn too_deep(&self) -> Step {
        Step::TooDeep(self.pos)
    }

    /// One step: a token in code, a run of template or JSX text, a piece of a JSX tag.
    fn step(&mut self, src: &str, d: Dialect) -> Step {
        match self.top() {
            Kind::Template => self.template_step(src),
            Kind::JsxTag { after_eq } => self.tag_step(src, d, after_eq),
            Kind::JsxChildren => self.children_step(src),
            _ => self.code_step(src, d),
        }
    }

    fn template_step(&mut self, src: &str) -> Step {
        let s = src.as_bytes();
        let mut p = self.pos;
        loop {
            if p >= s.len() {
                return Step::End;
            }
            match byte(s, p) {
                b'\\' => p += 2,
                b'`' => {
                    self.pos = p + 1;
                    self.pop();
                    self.at = At::Operator;
                    self.prev = Prev::Other;
                    self.newline = false;
                    return Step::Go;
                }
                b'$' if byte(s, p + 1) == b'{' => {
                    self.pos = p + 2;
                    self.at = At::Prefix;
                    self.prev = Prev::Other;
                    self.newline = false;
                    return if self.push(Kind::TemplateExpr) {
                        Step::Go
                    } else {
                        self.too_deep()
                    };
                }
                _ => p += 1,
            }
        }
    }

    /// After a JSX element closed: go on where it was.
    fn after_element(&mut self) {
        if let Some(top) = self.top_mut() {
            if let Kind::JsxTag { .. } = top.kind {
                top.kind = Kind::JsxTag { after_eq: false };
            }
        }
        self.at = At::Operator;
        self.prev = Prev::Other;
        self.newline = false;
    }

    fn tag_step(&mut self, src: &str, d: Dialect, after_eq: bool) -> Step {
        let s = src.as_bytes();
        let (p, _, _) = skip_trivia(src, self.pos);
        self.pos = p;
        if p >= s.len() {
            return Step::End;
        }
        let b = byte(s, p);
        let set_after_eq = |me: &mut Self, v: bool| {
            if let Some(top) = me.top_mut() {
                top.kind = Kind::JsxTag { after_eq: v };
            }
        };
        match b {
            b'.' => {
                self.pos = p + 1;
                if self.add_chain() {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b':' => {
                self.pos = p + 1;
                Step::Go
            }
            b'=' => {
                self.pos = p + 1;
                set_after_eq(self, true);
                Step::Go
            }
            b'"' | b'\'' if after_eq => {
                let rest = s.get(p + 1..).unwrap_or_default();
                match rest.iter().position(|&c| c == b) {
                    Some(len) => {
                        self.pos = p + 1 + len + 1;
                        set_after_eq(self, false);
                        Step::Go
                    }
                    None => Step::End,
                }
            }
            b'"' | b'\'' => {
                let (end, _) = read_string(src, p);
                self.pos = end;
                Step::Go
            }
            b'{' => {
                self.pos = p + 1;
                set_after_eq(self, false);
                self.at = At::Prefix;
                self.prev = Prev::Other;
                self.newline = false;
                if self.push(Kind::JsxExpr { child: false }) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'<' if after_eq => {
                set_after_eq(self, false);
                self.open_jsx(src, p)
            }
            b'<' if d.ts => {
                self.pos = p + 1;
                self.at = At::Prefix;
                self.prev = Prev::Other;
                self.newline = false;
                if self.push(Kind::Soft) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'/' => {
                let (q, _, _) = skip_trivia(src, p + 1);
                if byte(s, q) == b'>' {
                    self.pos = q + 1;
                    self.pop();
                    self.after_element();
                    Step::Go
                } else {
                    Step::End
                }
            }
            b'>' => {
                self.pos = p + 1;
                if let Some(top) = self.top_mut() {
                    top.kind = Kind::JsxChildren;
                }
                Step::Go
            }
            _ if !after_eq && ident_starts(src, p) => {
                let (end, _) = read_word(src, p, true);
                self.pos = end.max(p + 1);
                Step::Go
            }
            _ => Step::End,
        }
    }

    fn children_step(&mut self, src: &str) -> Step {
        let s = src.as_bytes();
        let rest = s.get(self.pos..).unwrap_or_default();
        let Some(off) = rest
            .iter()
            .position(|&c| matches!(c, b'{' | b'<' | b'}' | b'>'))
        else {
            return Step::End;
        };
        let p = self.pos + off;
        match byte(s, p) {
            b'{' => {
                self.pos = p + 1;
                self.at = At::Prefix;
                self.prev = Prev::Other;
                self.newline = false;
                if self.push(Kind::JsxExpr { child: true }) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'<' => {
                let (q, _, _) = skip_trivia(src, p + 1);
                if byte(s, q) == b'/' {
                    // A closing tag: its name, then `>`.
                    let mut r = q + 1;
                    loop {
                        let (t, _, _) = skip_trivia(src, r);
                        r = t;
                        let c = byte(s, r);
                        if c == b'.' || c == b':' || c == b'-' {
                            r += 1;
                        } else if ident_starts(src, r) {
                            let (end, _) = read_word(src, r, true);
                            r = end.max(r + 1);
                        } else {
                            break;
                        }
                    }
                    if byte(s, r) == b'>' {
                        self.pos = r + 1;
                        self.pop();
                        self.after_element();
                        Step::Go
                    } else {
                        Step::End
                    }
                } else {
                    self.open_jsx(src, p)
                }
            }
            _ => Step::End,
        }
    }

    /// A JSX element or fragment opens at `p` (a `<` where oxc reads JSX).
    fn open_jsx(&mut self, src: &str, p: usize) -> Step {
        let s = src.as_bytes();
        let (q, _, _) = skip_trivia(src, p + 1);
        if byte(s, q) == b'>' {
            self.pos = q + 1;
            if self.push(Kind::JsxChildren) {
                Step::Go
            } else {
                self.too_deep()
            }
        } else if ident_starts(src, q) {
            self.pos = q;
            if self.push(Kind::JsxTag { after_eq: false }) {
                Step::Go
            } else {
                self.too_deep()
            }
        } else {
            Step::End
        }
    }

    /// How a `<` where an operand is expected reads in `.tsx`: JSX, type parameters, or
    /// either (then fork). See the module docs.
    fn tsx_angle(src: &str, p: usize) -> Option<Force> {
        let s = src.as_bytes();
        let (q, _, _) = skip_trivia(src, p + 1);
        if byte(s, q) == b'>' || !ident_starts(src, q) {
            return Some(Force::Jsx);
        }
        let (end, w1) = read_word(src, q, false);
        let (r, _, _) = skip_trivia(src, end);
        let t2 = byte(s, r);
        if t2 == b',' || t2 == b'=' {
            return Some(Force::Soft);
        }
        if ident_starts(src, r) {
            let (_, w2) = read_word(src, r, false);
            if w2.as_deref() == Some("extends")
                || matches!(w1.as_deref(), Some("const" | "in" | "out"))
            {
                return None;
            }
            return Some(Force::Jsx);
        }
        if t2 == b'>' {
            let (t, _, _) = skip_trivia(src, r + 1);
            if byte(s, t) == b'(' {
                return None;
            }
        }
        Some(Force::Jsx)
    }

    /// Forks before the current token: this branch reads it with `first`, the returned
    /// one with `second`. (The line-break flag is cleared: it has decided this already.)
    fn fork_at(&mut self, first: At, second: At) -> Step {
        self.newline = false;
        let mut other = self.clone();
        self.at = first;
        other.at = second;
        Step::Fork(Box::new(other))
    }

    fn code_step(&mut self, src: &str, d: Dialect) -> Step {
        let s = src.as_bytes();
        let (p, newline, _) = skip_trivia(src, self.pos);
        self.pos = p;
        self.newline |= newline;
        if p >= s.len() {
            return Step::End;
        }
        let b = byte(s, p);
        let nl = self.newline;
        // `return`, `break`, `continue` and a line break: a statement may start.
        if self.prev == Prev::Restricted && nl {
            self.at = At::Stmt;
        }
        let at = self.at;

        // A word, read first: whether it continues a statement decides the resets below.
        let word = if ident_starts(src, p) && at != At::Prop {
            let (end, text) = read_word(src, p, false);
            Some((end, text.map_or(Word::Plain, |t| classify(&t, self.prev))))
        } else {
            None
        };
        let continues_stmt = matches!(
            word,
            Some((_, Word::ElseDo | Word::Try | Word::CondStmt { .. }))
        ) && {
            let (_, text) = read_word(src, p, false);
            matches!(
                text.as_deref(),
                Some("else" | "while" | "catch" | "finally")
            )
        };

        // `return`, `break`, `continue` and a line break: the statement ended.
        if self.prev == Prev::Restricted && nl {
            self.reset_chain();
            if let Some(top) = self.top_mut() {
                top.pending = true;
            }
        }
        // A `;` or a block's `}` ended a statement: unless it goes on, its nesting ended.
        if self.levels.last().is_some_and(|l| l.pending) {
            if !continues_stmt {
                self.reset_stmt();
            }
            if let Some(top) = self.top_mut() {
                top.pending = false;
            }
        }

        if let Some((end, w)) = word {
            return self.word_step(end, w, at, nl, continues_stmt);
        }

        // An operand right after an operand: the expression before it ended.
        let operand_start = b.is_ascii_digit()
            || (b == b'.' && byte(s, p + 1).is_ascii_digit())
            || b == b'"'
            || b == b'\''
            || b == b'#';
        if operand_start && (at == At::Operator || self.prev == Prev::CloseBrace) {
            self.end_statement(false);
        }

        let force = self.force.take();
        self.newline = false;
        let prev = self.prev;
        self.prev = Prev::Other;
        macro_rules! chain {
            ($len:expr, $at:expr) => {{
                self.pos = p + $len;
                self.at = $at;
                if self.add_chain() {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }};
        }
        let b1 = byte(s, p + 1);
        let b2 = byte(s, p + 2);
        let b3 = byte(s, p + 3);
        match b {
            b'0'..=b'9' => {
                self.pos = read_number(s, p).max(p + 1);
                self.at = At::Operator;
                Step::Go
            }
            b'.' if b1.is_ascii_digit() => {
                self.pos = read_number(s, p).max(p + 1);
                self.at = At::Operator;
                Step::Go
            }
            b'"' | b'\'' => {
                let (end, terminated) = read_string(src, p);
                self.pos = end;
                if terminated {
                    self.at = At::Operator;
                } else {
                    self.at = At::Unknown;
                    self.newline = true;
                }
                Step::Go
            }
            b'#' => {
                let (end, _) = read_word(src, p + 1, false);
                self.pos = end.max(p + 1);
                self.at = At::Operator;
                Step::Go
            }
            b'`' => {
                self.pos = p + 1;
                if matches!(at, At::Operator | At::Prop | At::Unknown) && !self.add_chain() {
                    return self.too_deep();
                }
                if self.push(Kind::Template) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'(' => {
                self.pos = p + 1;
                let cond = matches!(prev, Prev::Cond { .. });
                if !cond && matches!(at, At::Operator | At::Prop | At::Unknown) && !self.add_chain()
                {
                    return self.too_deep();
                }
                self.at = At::Prefix;
                if self.push(Kind::Paren { cond }) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'[' => {
                self.pos = p + 1;
                if matches!(at, At::Operator | At::Prop | At::Unknown) && !self.add_chain() {
                    return self.too_deep();
                }
                self.at = At::Prefix;
                if self.push(Kind::Bracket) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b'{' => {
                self.pos = p + 1;
                let kind = match at {
                    At::Stmt => Brace::Block,
                    // `catch {` and `switch (x) {`.
                    At::Prefix if matches!(prev, Prev::Cond { .. }) => Brace::Block,
                    // An arrow function's body; after a `:`, a `case`'s block or a type.
                    At::Prefix if matches!(prev, Prev::Arrow | Prev::Class) => Brace::Other,
                    At::Prefix
                        if prev == Prev::Colon
                            && !matches!(self.top(), Kind::Brace(Brace::Object)) =>
                    {
                        Brace::Other
                    }
                    At::Prefix => Brace::Object,
                    _ => Brace::Other,
                };
                // Inside a block a statement starts; inside a brace of unknown kind (it may
                // be an object literal) nothing is assumed.
                self.at = match kind {
                    Brace::Block => At::Stmt,
                    Brace::Object => At::Prefix,
                    Brace::Other => At::Unknown,
                };
                if self.push(Kind::Brace(kind)) {
                    Step::Go
                } else {
                    self.too_deep()
                }
            }
            b')' | b']' | b'}' => {
                self.pos = p + 1;
                self.pop_soft();
                match (b, self.top()) {
                    (b')', Kind::Paren { cond }) => {
                        self.pop();
                        self.at = if cond { At::Stmt } else { At::Operator };
                    }
                    (b']', Kind::Bracket) => {
                        self.pop();
                        self.at = At::Operator;
                    }
                    (b'}', Kind::Brace(kind)) => {
                        self.pop();
                        match kind {
                            Brace::Block => {
                                self.at = At::Stmt;
                                if let Some(top) = self.top_mut() {
                                    top.pending = true;
                                }
                            }
                            Brace::Object => self.at = At::Operator,
                            Brace::Other => {
                                self.at = At::Unknown;
                                self.prev = Prev::CloseBrace;
                            }
                        }
                    }
                    (b'}', Kind::TemplateExpr) => self.pop(),
                    (b'}', Kind::JsxExpr { .. }) => self.pop(),
                    // A closer that matches nothing: oxc reports it; keep every level.
                    _ => self.at = At::Unknown,
                }
                Step::Go
            }
            b';' => {
                self.pos = p + 1;
                self.pop_soft();
                if !self.in_code() {
                    return Step::End;
                }
                self.reset_chain();
                if let Some(top) = self.top_mut() {
                    top.pending = true;
                }
                // In a `for (;;)` head an expression follows, not a statement.
                self.at = if matches!(self.top(), Kind::Paren { .. }) {
                    At::Prefix
                } else {
                    At::Stmt
                };
                Step::Go
            }
            b',' => {
                self.pos = p + 1;
                self.reset_chain();
                self.at = At::Prefix;
                Step::Go
            }
            b':' => {
                self.pos = p + 1;
                if let Prev::Word {
                    label: sure @ (Label::Sure | Label::Maybe),
                } = prev
                {
                    // Where the scan knew a statement could start, this is a label; else
                    // count it as one but assume nothing after it.
                    self.at = if sure == Label::Sure {
                        At::Stmt
                    } else {
                        At::Unknown
                    };
                    if self.add_stmt() {
                        Step::Go
                    } else {
                        self.too_deep()
                    }
                } else {
                    self.at = At::Prefix;
                    self.prev = Prev::Colon;
                    Step::Go
                }
            }
            b'?' => {
                if b1 == b'.' && !b2.is_ascii_digit() {
                    chain!(2, At::Prop)
                } else if b1 == b'?' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'?' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'.' => {
                if b1 == b'.' && b2 == b'.' {
                    chain!(3, At::Prefix)
                } else {
                    chain!(1, At::Prop)
                }
            }
            b'=' => {
                if b1 == b'>' {
                    self.prev = Prev::Arrow;
                    chain!(2, At::Prefix)
                } else if b1 == b'=' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'!' => {
                if b1 == b'=' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else if d.ts && at == At::Operator && !nl {
                    chain!(1, At::Operator)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'+' | b'-' => {
                if b1 == b {
                    if at == At::Operator && !nl {
                        self.pos = p + 2;
                        self.at = At::Operator;
                        Step::Go
                    } else {
                        if at == At::Operator {
                            self.reset_chain();
                        }
                        chain!(2, At::Prefix)
                    }
                } else if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'*' => {
                if b1 == b'*' && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b'*' || b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'&' | b'|' => {
                if b1 == b && b2 == b'=' {
                    chain!(3, At::Prefix)
                } else if b1 == b || b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'%' | b'^' => {
                if b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'~' => chain!(1, At::Prefix),
            // A decorator: its expression may itself be a decorated class (`@@@x`).
            b'@' => chain!(1, At::Prefix),
            // After an operand and a line break, `/` divides in an expression but starts a
            // regular expression after a statement that ended there (`let x`, `import x
            // from 'y'`, `break label`, a TypeScript type): both readings.
            b'/' if at == At::Operator && nl => {
                self.prev = prev;
                self.fork_at(At::Operator, At::Prefix)
            }
            b'/' => match at {
                At::Stmt | At::Prefix => match read_regex(src, p) {
                    Some(end) => {
                        self.pos = end;
                        self.at = At::Operator;
                        Step::Go
                    }
                    None => Step::End,
                },
                At::Operator | At::Prop => {
                    if b1 == b'=' {
                        chain!(2, At::Prefix)
                    } else {
                        chain!(1, At::Prefix)
                    }
                }
                At::Unknown => {
                    self.prev = prev;
                    self.fork_at(At::Operator, At::Prefix)
                }
            },
            b'>' => {
                if self.top() == Kind::Soft {
                    self.pos = p + 1;
                    self.pop();
                    self.at = At::Unknown;
                    Step::Go
                } else if b1 == b'>' && b2 == b'>' && b3 == b'=' {
                    chain!(4, At::Prefix)
                } else if b1 == b'>' && (b2 == b'>' || b2 == b'=') {
                    chain!(3, At::Prefix)
                } else if b1 == b'>' || b1 == b'=' {
                    chain!(2, At::Prefix)
                } else {
                    chain!(1, At::Prefix)
                }
            }
            b'<' => self.angle(src, d, p, at, prev, nl, force),
            _ => {
                // Not a token oxc knows (it reports it): skip the char, assume nothing.
                self.pos = p + char_at(src, p).map_or(1, char::len_utf8);
                self.at = At::Unknown;
                Step::Go
            }
        }
    }

    fn in_code(&self) -> bool {
        !matches!(
            self.top(),
            Kind::Template | Kind::JsxTag { .. } | Kind::JsxChildren
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn angle(
        &mut self,
        src: &str,
        d: Dialect,
        p: usize,
        at: At,
        prev: Prev,
        nl: bool,
        force: Option<Force>,
    ) -> Step {
        let s = src.as_bytes();
        let b1 = byte(s, p + 1);
        let b2 = byte(s, p + 2);
        if b1 == b'=' {
            self.pos = p + 2;
            self.at = At::Prefix;
            return if self.add_chain() {
                Step::Go
            } else {
                self.too_deep()
            };
        }
        if b1 == b'<' && b2 == b'=' {
            self.pos = p + 3;
            self.at = At::Prefix;
            return if self.add_chain() {
                Step::Go
            } else {
                self.too_deep()
            };
        }
        if b1 == b'<' {
            // A shift, or (TypeScript) two `<` opening type arguments and parameters.
            self.pos = p + 2;
            self.at = At::Prefix;
            if !self.add_chain() || !self.add_chain() {
                return self.too_deep();
            }
            if d.ts && (!self.push(Kind::Soft) || !self.push(Kind::Soft)) {
                return self.too_deep();
            }
            return Step::Go;
        }
        let soft = |me: &mut Self| {
            me.pos = p + 1;
            me.at = At::Prefix;
            if !me.add_chain() {
                return me.too_deep();
            }
            if d.ts && !me.push(Kind::Soft) {
                return me.too_deep();
            }
            Step::Go
        };
        if !d.jsx {
            return soft(self);
        }
        let prefix = match at {
            At::Stmt | At::Prefix => true,
            // After a line break, a statement may have ended (see `/`).
            At::Unknown | At::Operator if at == At::Unknown || nl => {
                self.prev = prev;
                return self.fork_at(At::Operator, At::Prefix);
            }
            At::Operator | At::Prop | At::Unknown => false,
        };
        if !prefix {
            return soft(self);
        }
        let choice = if d.ts {
            force.or_else(|| Self::tsx_angle(src, p))
        } else {
            Some(Force::Jsx)
        };
        match choice {
            Some(Force::Jsx) => self.open_jsx(src, p),
            Some(Force::Soft) => soft(self),
            None => {
                let mut other = self.clone();
                self.prev = prev;
                self.newline = nl;
                self.force = Some(Force::Jsx);
                other.prev = prev;
                other.newline = nl;
                other.force = Some(Force::Soft);
                Step::Fork(Box::new(other))
            }
        }
    }

    fn word_step(&mut self, end: usize, w: Word, at: At, nl: bool, continues: bool) -> Step {
        let prev = self.prev;
        self.newline = false;
        self.force = None;
        self.pos = end.max(self.pos + 1);
        // An operand right after an operand (or an unknown `}`): the expression ended.
        let infix = matches!(w, Word::Infix | Word::ContextualInfix);
        if !infix && (at == At::Operator || prev == Prev::CloseBrace) {
            self.end_statement(continues);
        }
        let label = match at {
            At::Stmt => Label::Sure,
            At::Operator if nl => Label::Sure,
            At::Unknown => Label::Maybe,
            _ => Label::No,
        };
        self.prev = Prev::Other;
        let ok = match w {
            Word::Plain => {
                self.at = At::Operator;
                self.prev = Prev::Word { label };
                true
            }
            Word::Operand | Word::AsConst => {
                self.at = At::Operator;
                true
            }
            Word::CondStmt { is_for } => {
                self.at = At::Prefix;
                self.prev = Prev::Cond { is_for };
                self.add_stmt()
            }
            Word::CondBraced => {
                self.at = At::Prefix;
                self.prev = Prev::Cond { is_for: false };
                true
            }
            Word::ElseDo => {
                self.at = At::Stmt;
                self.add_stmt()
            }
            Word::Try | Word::Module => {
                self.at = At::Stmt;
                true
            }
            Word::Restricted => {
                self.at = At::Prefix;
                self.prev = Prev::Restricted;
                true
            }
            Word::Lead | Word::Decl => {
                self.at = At::Prefix;
                true
            }
            Word::Class => {
                self.at = At::Prefix;
                self.prev = Prev::Class;
                true
            }
            Word::PrefixOp | Word::Infix => {
                self.at = At::Prefix;
                self.add_chain()
            }
            Word::Contextual => {
                self.at = At::Unknown;
                self.prev = Prev::Word { label };
                true
            }
            Word::ContextualOp => {
                self.at = At::Unknown;
                // `for await (`: the paren is still the loop's.
                self.prev = if let Prev::Cond { is_for: true } = prev {
                    prev
                } else {
                    Prev::Word { label }
                };
                self.add_chain()
            }
            Word::ContextualInfix => {
                self.at = At::Unknown;
                self.prev = Prev::As;
                self.add_chain()
            }
        };
        if ok {
            Step::Go
        } else {
            self.too_deep()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TS: Dialect = Dialect {
        ts: true,
        jsx: false,
    };
    const TSX: Dialect = Dialect {
        ts: true,
        jsx: true,
    };
    const JS: Dialect = Dialect {
        ts: false,
        jsx: false,
    };

    fn depth(src: &str, d: Dialect) -> u32 {
        match scan(src, d) {
            Ok(n) => n,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn brackets_count() {
        assert_eq!(depth("((((1))))", TS), 4);
        assert_eq!(depth("a = [1, [2, [3]]];", JS), 4);
        assert_eq!(depth("x; y; z;", JS), 0);
    }

    #[test]
    fn strings_comments_regex_hide_brackets() {
        assert_eq!(depth("'((((' + \"[[[[\" // ((((\n/* {{{{ */", JS), 1);
        assert_eq!(depth("x = /((((/g;", JS), 1);
        assert_eq!(depth("x = a / (b) / c;", JS), 3);
    }

    #[test]
    fn template_nesting() {
        assert_eq!(depth("`${`${`${1}`}`}`", JS), 6);
    }

    #[test]
    fn chains_reset() {
        let src = "a = b + c;\nd = e.f.g;\nh = 1\ni = 2\n";
        assert!(depth(src, TS) <= 3);
    }

    #[test]
    fn else_if_chain_counts() {
        let src = "if (a) {} else if (b) {} else if (c) {} else {}";
        assert!(depth(src, TS) >= 5);
    }

    #[test]
    fn jsx_elements_count() {
        assert!(depth("x = <a><b><c>{d}</c></b></a>;", TSX) >= 4);
        assert_eq!(depth("x = <p>it's (not) code</p>;", TSX), 2);
    }

    #[test]
    fn too_deep_is_refused() {
        let src = "(".repeat(2001);
        assert!(matches!(scan(&src, TS), Err(ScanError::TooDeep { .. })));
        let src = format!("{}1{}", "(".repeat(2000), ")".repeat(2000));
        assert_eq!(depth(&src, TS), 2000);
    }
}

#[cfg(test)]
mod cost {
    use super::*;

    /// Readings that never merge, then a long tail: each reads the tail, and no more than
    /// [`MAX_BRANCHES`] of them ever live (a 4 MiB file scans in under a second in
    /// release, worst case).
    #[test]
    fn many_readings_and_a_long_tail_scan_quickly() {
        let d = Dialect {
            ts: false,
            jsx: false,
        };
        for forks in [0usize, 6, 40] {
            let head = "x = function(){} /(/ /;\n".repeat(forks);
            let src = format!("{head}{}", "a = b + c.d(e);\n".repeat(60_000));
            let t = std::time::Instant::now();
            let r = scan(&src, d);
            eprintln!(
                "{forks} forks: {r:?} in {:?} ({} bytes)",
                t.elapsed(),
                src.len()
            );
            assert!(r.is_ok() || matches!(r, Err(ScanError::Ambiguous { .. })));
        }
    }
}
