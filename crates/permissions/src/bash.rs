//! Shell commands, split into the parts permission rules meet (SPEC §4 "Compound
//! shell commands").
//!
//! **Interim.** [`split`] is a small hand-written lexer, the one function a real shell
//! parser replaces later: it splits on unquoted `&&`, `||`, `;`, `|`, `|&`, `&` and
//! newlines, treats `(`, `)`, `$(...)`, backticks, `<(...)` and `>(...)` as
//! separators (the commands inside substitutions become parts of their own),
//! resolves quotes and escapes, records redirects, skips comments and here-document
//! bodies, and refuses (with a [`SplitError`]) what it cannot split with confidence.
//!
//! [`parse_command`] then turns each simple command into a [`Part`]: the forms deny
//! and ask rules meet (as written, and after each stripping step of leading
//! `VAR=value` assignments, shell keywords and wrappers such as `sudo`, `env`,
//! `timeout`, `xargs`; a program given by path also by its basename), the forms allow
//! rules meet, and whether the part is in the read-only command set. `sh -c`/`bash -c`
//! strings, `eval` arguments and `find -exec` commands become parts too.
//!
//! A command that cannot be split is still met by deny and ask rules through a
//! coarse fallback split, but [`ParsedCommand::certain`] is `false`: no rule and no
//! mode default allows it.

use std::fmt;

/// How deep substitutions, `sh -c` strings and `eval` may nest before a command is
/// taken as one that cannot be split.
const MAX_DEPTH: usize = 16;

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
}

/// What a redirect does with its target.
///
/// SPEC §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&file`: writes the target.
    Write,
    /// `<`, `<<<`: reads the target (or a string).
    Read,
    /// `<<`, `<<-`: a here-document; the target is the delimiter.
    HereDoc,
    /// `>&2`, `<&0`, `>&-`: duplicates or closes a descriptor.
    Duplicate,
}

/// One redirect of a simple command.
///
/// SPEC §4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// What the redirect does.
    pub kind: RedirectKind,
    /// The target word (a path, a delimiter, a descriptor).
    pub target: Word,
}

/// A simple command as [`split`] found it.
///
/// SPEC §4.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// Its words, redirects taken out.
    pub words: Vec<Word>,
    /// Its redirects, in order.
    pub redirects: Vec<Redirect>,
    /// Its text as written, trimmed.
    pub raw: String,
}

/// Why a command could not be split with confidence.
///
/// SPEC §4.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// A quote, substitution or brace was opened and never closed.
    #[error("unbalanced {0}")]
    Unbalanced(&'static str),
    /// Substitutions nest deeper than this splitter follows.
    #[error("nested more than {MAX_DEPTH} levels deep")]
    TooDeep,
    /// A construct this interim splitter does not follow.
    #[error("unsupported shell construct: {0}")]
    Unsupported(&'static str),
}

/// Splits `command` into simple commands (SPEC §4 "Compound shell commands").
///
/// Commands found inside `$(...)`, backticks, `<(...)` and `>(...)` are returned as
/// simple commands of their own, before the command that holds them.
///
/// # Errors
///
/// [`SplitError`] when the command has an unbalanced quote, substitution or brace,
/// nests too deep, or uses a construct this interim splitter cannot follow (a
/// substitution inside `${...}` or inside an unquoted here-document body).
pub fn split(command: &str) -> Result<Vec<SimpleCommand>, SplitError> {
    split_at(command, 0)
}

fn split_at(command: &str, depth: usize) -> Result<Vec<SimpleCommand>, SplitError> {
    if depth > MAX_DEPTH {
        return Err(SplitError::TooDeep);
    }
    let chars: Vec<char> = command.chars().collect();
    let mut lx = Lexer {
        chars: &chars,
        depth,
        out: Vec::new(),
        cur: SimpleCommand::default(),
        word: None,
        pending: None,
        raw_start: 0,
        heredocs: Vec::new(),
    };
    lx.run()?;
    Ok(lx.out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pending {
    Write,
    Read,
    HereDoc { strip_tabs: bool },
    DupOrWrite,
}

struct Lexer<'a> {
    chars: &'a [char],
    depth: usize,
    out: Vec<SimpleCommand>,
    cur: SimpleCommand,
    word: Option<Word>,
    pending: Option<Pending>,
    raw_start: usize,
    /// Here-documents whose bodies start after the next newline: (delimiter,
    /// strip tabs, delimiter quoted).
    heredocs: Vec<(String, bool, bool)>,
}

impl Lexer<'_> {
    fn at(&self, i: usize) -> Option<char> {
        self.chars.get(i).copied()
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.chars
            .get(from..to)
            .map(|s| s.iter().collect())
            .unwrap_or_default()
    }

    fn word_mut(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    fn push_char(&mut self, c: char) {
        self.word_mut().text.push(c);
    }

    fn push_dynamic(&mut self, s: &str) {
        let w = self.word_mut();
        w.text.push_str(s);
        w.dynamic = true;
    }

    fn end_word(&mut self) -> Result<(), SplitError> {
        let Some(word) = self.word.take() else {
            return Ok(());
        };
        match self.pending.take() {
            None => self.cur.words.push(word),
            Some(p) => {
                let kind = match p {
                    Pending::Write => RedirectKind::Write,
                    Pending::Read => RedirectKind::Read,
                    Pending::HereDoc { strip_tabs } => {
                        if word.dynamic {
                            return Err(SplitError::Unsupported(
                                "a here-document delimiter with an expansion",
                            ));
                        }
                        self.heredocs
                            .push((word.text.clone(), strip_tabs, word.quoted));
                        RedirectKind::HereDoc
                    }
                    Pending::DupOrWrite => {
                        if word.text == "-"
                            || (!word.text.is_empty()
                                && word.text.chars().all(|c| c.is_ascii_digit()))
                        {
                            RedirectKind::Duplicate
                        } else {
                            RedirectKind::Write
                        }
                    }
                };
                self.cur.redirects.push(Redirect { kind, target: word });
            }
        }
        Ok(())
    }

    /// Ends the current simple command at `end` (exclusive); the next starts at `next`.
    fn end_command(&mut self, end: usize, next: usize) -> Result<(), SplitError> {
        self.end_word()?;
        if self.pending.is_some() {
            return Err(SplitError::Unsupported("a redirect without a target"));
        }
        let mut cmd = std::mem::take(&mut self.cur);
        if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
            cmd.raw = self.text(self.raw_start, end).trim().to_owned();
            self.out.push(cmd);
        }
        self.raw_start = next;
        Ok(())
    }

    /// Splits the text between `from` and `to` as a nested command.
    fn nested(&mut self, from: usize, to: usize) -> Result<(), SplitError> {
        let inner = self.text(from, to);
        let mut cmds = split_at(&inner, self.depth + 1)?;
        self.out.append(&mut cmds);
        Ok(())
    }

    fn run(&mut self) -> Result<(), SplitError> {
        let mut i = 0;
        while let Some(c) = self.at(i) {
            i = match c {
                '\\' => match self.at(i + 1) {
                    Some('\n') => i + 2,
                    Some(n) => {
                        self.push_char(n);
                        self.word_mut().quoted = true;
                        i + 2
                    }
                    None => {
                        self.push_char('\\');
                        i + 1
                    }
                },
                '\'' => {
                    let end = find_char(self.chars, i + 1, '\'')
                        .ok_or(SplitError::Unbalanced("single quote"))?;
                    let s = self.text(i + 1, end);
                    let w = self.word_mut();
                    w.text.push_str(&s);
                    w.quoted = true;
                    end + 1
                }
                '"' => self.double_quoted(i + 1)?,
                '`' => self.backtick(i)?,
                '$' => self.dollar(i)?,
                '<' | '>' if self.at(i + 1) == Some('(') => {
                    let end = find_close(self.chars, i + 1)
                        .ok_or(SplitError::Unbalanced("process substitution"))?;
                    self.nested(i + 2, end)?;
                    let raw = self.text(i, end + 1);
                    self.push_dynamic(&raw);
                    end + 1
                }
                '<' | '>' => self.redirect(i)?,
                '&' => match self.at(i + 1) {
                    Some('&') => {
                        self.end_command(i, i + 2)?;
                        i + 2
                    }
                    Some('>') => {
                        self.end_word()?;
                        self.pending = Some(Pending::Write);
                        if self.at(i + 2) == Some('>') {
                            i + 3
                        } else {
                            i + 2
                        }
                    }
                    _ => {
                        self.end_command(i, i + 1)?;
                        i + 1
                    }
                },
                '|' => {
                    let len = if matches!(self.at(i + 1), Some('|' | '&')) {
                        2
                    } else {
                        1
                    };
                    self.end_command(i, i + len)?;
                    i + len
                }
                ';' | '(' | ')' => {
                    self.end_command(i, i + 1)?;
                    i + 1
                }
                '\n' => {
                    self.end_command(i, i + 1)?;
                    let next = self.skip_heredocs(i + 1)?;
                    self.raw_start = next;
                    next
                }
                '#' if self.word.is_none() => {
                    let mut j = i;
                    while let Some(c) = self.at(j) {
                        if c == '\n' {
                            break;
                        }
                        j += 1;
                    }
                    // The comment is no part of the command's text.
                    self.end_command(i, j)?;
                    j
                }
                ' ' | '\t' | '\r' => {
                    self.end_word()?;
                    i + 1
                }
                c => {
                    // An unquoted glob makes the word's value known only at run time.
                    let glob = matches!(c, '*' | '?') || (c == '[' && self.word.is_some());
                    self.push_char(c);
                    if glob {
                        self.word_mut().dynamic = true;
                    }
                    i + 1
                }
            };
        }
        self.end_command(self.chars.len(), self.chars.len())?;
        if !self.heredocs.is_empty() {
            return Err(SplitError::Unbalanced("here-document"));
        }
        Ok(())
    }

    fn double_quoted(&mut self, start: usize) -> Result<usize, SplitError> {
        self.word_mut().quoted = true;
        let mut i = start;
        loop {
            let Some(c) = self.at(i) else {
                return Err(SplitError::Unbalanced("double quote"));
            };
            i = match c {
                '"' => return Ok(i + 1),
                '\\' => match self.at(i + 1) {
                    Some('\n') => i + 2,
                    Some(n @ ('$' | '`' | '"' | '\\')) => {
                        self.push_char(n);
                        i + 2
                    }
                    _ => {
                        self.push_char('\\');
                        i + 1
                    }
                },
                '`' => self.backtick(i)?,
                '$' => self.dollar(i)?,
                c => {
                    self.push_char(c);
                    i + 1
                }
            };
        }
    }

    fn backtick(&mut self, i: usize) -> Result<usize, SplitError> {
        let end = find_backtick(self.chars, i + 1).ok_or(SplitError::Unbalanced("backtick"))?;
        self.nested(i + 1, end)?;
        let raw = self.text(i, end + 1);
        self.push_dynamic(&raw);
        Ok(end + 1)
    }

    fn dollar(&mut self, i: usize) -> Result<usize, SplitError> {
        match self.at(i + 1) {
            Some('(') => {
                let end = find_close(self.chars, i + 1)
                    .ok_or(SplitError::Unbalanced("command substitution"))?;
                self.nested(i + 2, end)?;
                let raw = self.text(i, end + 1);
                self.push_dynamic(&raw);
                Ok(end + 1)
            }
            Some('{') => {
                let end = find_brace(self.chars, i + 1).ok_or(SplitError::Unbalanced("brace"))?;
                let raw = self.text(i, end + 1);
                if raw.contains("$(")
                    || raw.contains('`')
                    || raw.contains("<(")
                    || raw.contains(">(")
                {
                    return Err(SplitError::Unsupported("a substitution inside ${...}"));
                }
                self.push_dynamic(&raw);
                Ok(end + 1)
            }
            Some('\'') => {
                // ANSI-C quoting: the text is kept as written, escapes unresolved.
                let mut j = i + 2;
                loop {
                    match self.at(j) {
                        None => return Err(SplitError::Unbalanced("$'...' quote")),
                        Some('\\') => j += 2,
                        Some('\'') => break,
                        Some(_) => j += 1,
                    }
                }
                let s = self.text(i + 2, j);
                let w = self.word_mut();
                w.text.push_str(&s);
                w.quoted = true;
                Ok(j + 1)
            }
            Some(c) if c.is_ascii_alphanumeric() || "_?#@*!$-".contains(c) => {
                self.push_dynamic("$");
                Ok(i + 1)
            }
            _ => {
                self.push_char('$');
                Ok(i + 1)
            }
        }
    }

    fn redirect(&mut self, i: usize) -> Result<usize, SplitError> {
        // A word of digits right before the operator is a descriptor number.
        let fd_word = self.word.as_ref().is_some_and(|w| {
            !w.quoted && !w.text.is_empty() && w.text.chars().all(|c| c.is_ascii_digit())
        });
        if fd_word {
            self.word = None;
        } else {
            self.end_word()?;
        }
        if self.pending.is_some() {
            return Err(SplitError::Unsupported("a redirect without a target"));
        }
        let c0 = self.at(i);
        let c1 = self.at(i + 1);
        let c2 = self.at(i + 2);
        let (pending, len) = match (c0, c1, c2) {
            (Some('>'), Some('>'), _) | (Some('>'), Some('|'), _) => (Pending::Write, 2),
            (Some('>'), Some('&'), _) | (Some('<'), Some('&'), _) => (Pending::DupOrWrite, 2),
            (Some('>'), _, _) => (Pending::Write, 1),
            (Some('<'), Some('<'), Some('<')) => (Pending::Read, 3),
            (Some('<'), Some('<'), Some('-')) => (Pending::HereDoc { strip_tabs: true }, 3),
            (Some('<'), Some('<'), _) => (Pending::HereDoc { strip_tabs: false }, 2),
            (Some('<'), Some('>'), _) => (Pending::Write, 2),
            _ => (Pending::Read, 1),
        };
        self.pending = Some(pending);
        Ok(i + len)
    }

    /// Skips the bodies of the here-documents opened on the line that just ended.
    fn skip_heredocs(&mut self, start: usize) -> Result<usize, SplitError> {
        let mut j = start;
        for (delim, strip_tabs, quoted) in std::mem::take(&mut self.heredocs) {
            loop {
                if j >= self.chars.len() {
                    return Err(SplitError::Unbalanced("here-document"));
                }
                let mut end = j;
                while self.at(end).is_some_and(|c| c != '\n') {
                    end += 1;
                }
                let line = self.text(j, end);
                j = end + 1;
                let cmp = if strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if cmp == delim {
                    break;
                }
                if !quoted && (line.contains("$(") || line.contains('`')) {
                    return Err(SplitError::Unsupported(
                        "a substitution inside a here-document",
                    ));
                }
            }
        }
        Ok(j.min(self.chars.len()))
    }
}

fn find_char(chars: &[char], from: usize, target: char) -> Option<usize> {
    chars
        .get(from..)?
        .iter()
        .position(|&c| c == target)
        .map(|p| p + from)
}

fn find_backtick(chars: &[char], from: usize) -> Option<usize> {
    let mut j = from;
    loop {
        match chars.get(j)? {
            '\\' => j += 2,
            '`' => return Some(j),
            _ => j += 1,
        }
    }
}

/// Skips a double-quoted string whose opening quote is at `open`; returns the index
/// of the closing quote.
fn skip_double(chars: &[char], open: usize) -> Option<usize> {
    let mut j = open + 1;
    loop {
        match chars.get(j)? {
            '\\' => j += 2,
            '"' => return Some(j),
            _ => j += 1,
        }
    }
}

/// The index of the `)` that closes the `(` at `open`, quotes respected.
fn find_close(chars: &[char], open: usize) -> Option<usize> {
    find_matching(chars, open, '(', ')')
}

/// The index of the `}` that closes the `{` at `open`, quotes respected.
fn find_brace(chars: &[char], open: usize) -> Option<usize> {
    find_matching(chars, open, '{', '}')
}

fn find_matching(chars: &[char], open: usize, left: char, right: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = open;
    loop {
        let c = *chars.get(j)?;
        if c == '\\' {
            j += 2;
            continue;
        }
        if c == '\'' {
            j = find_char(chars, j + 1, '\'')? + 1;
            continue;
        }
        if c == '"' {
            j = skip_double(chars, j)? + 1;
            continue;
        }
        if c == '`' {
            j = find_backtick(chars, j + 1)? + 1;
            continue;
        }
        if c == left {
            depth += 1;
        } else if c == right {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(j);
            }
        }
        j += 1;
    }
}

// ---------------------------------------------------------------------------------
// Parts: what rules meet.
// ---------------------------------------------------------------------------------

/// One part of a command as the rules meet it (SPEC §4 "Compound shell commands").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Part {
    /// The part's text as written.
    pub raw: String,
    /// Its words, quotes resolved, redirects taken out.
    pub words: Vec<String>,
    /// What deny and ask rules meet: the part as written, its words, and the words
    /// after each stripping step (assignments, keywords, wrappers), each also with a
    /// program given by path reduced to its basename.
    pub strict_forms: Vec<String>,
    /// What allow rules meet: the words, the text as written, and the words after
    /// stripping the wrappers that change nothing (`timeout`, `time`, `nice`,
    /// `nohup`, `stdbuf`, `command`, `builtin`, `noglob`, bare `xargs`).
    pub allow_forms: Vec<String>,
    /// Whether an allow rule with a pattern may cover the part: `false` when the
    /// program is only known at run time (`$CMD`, `$(...)`).
    pub allowable: bool,
    /// Whether the part's command is in the read-only command set (SPEC §4
    /// "Defaults"); what it writes through redirects is in
    /// [`ParsedCommand::write_targets`].
    pub read_only: bool,
}

/// A file a command writes through a redirect (SPEC §4: judged as `Edit(<path>)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget {
    /// The target as written (quotes resolved).
    pub path: String,
    /// Whether the path can be resolved: `false` when it holds an expansion, or when
    /// it is relative and the command changes directory first.
    pub resolvable: bool,
}

/// A shell command split into parts (SPEC §4 "Compound shell commands").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedCommand {
    /// The whole command, trimmed (deny and ask rules meet it too).
    pub full: String,
    /// Its parts, nested ones included.
    pub parts: Vec<Part>,
    /// Files written through redirects (`/dev/null` excepted).
    pub write_targets: Vec<WriteTarget>,
    /// Whether the command was split with confidence. When `false`, no rule and no
    /// mode default allows it.
    pub certain: bool,
}

impl ParsedCommand {
    /// Whether every part is read-only and nothing is written: the command is in the
    /// read-only command set (SPEC §4 "Defaults").
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        self.certain
            && !self.parts.is_empty()
            && self.parts.iter().all(|p| p.read_only)
            && self.write_targets.is_empty()
    }
}

/// Splits and analyses `command` (SPEC §4 "Compound shell commands"). Never fails:
/// a command [`split`] refuses is met by a coarse split and marked not
/// [`certain`](ParsedCommand::certain).
#[must_use]
pub fn parse_command(command: &str) -> ParsedCommand {
    parse_at(command, 0)
}

fn parse_at(command: &str, depth: usize) -> ParsedCommand {
    let mut parsed = ParsedCommand {
        full: command.trim().to_owned(),
        parts: Vec::new(),
        write_targets: Vec::new(),
        certain: true,
    };
    match split_at(command, depth) {
        Ok(simples) => {
            let changes_dir = simples.iter().any(|s| {
                s.words
                    .first()
                    .is_some_and(|w| matches!(w.text.as_str(), "cd" | "pushd" | "popd"))
            });
            for simple in &simples {
                analyse(simple, depth, changes_dir, &mut parsed);
            }
        }
        Err(_) => coarse(command, &mut parsed),
    }
    parsed
}

/// The fallback when the command cannot be split: every run of text between
/// operator characters is a part for deny and ask rules; nothing is allowed.
fn coarse(command: &str, parsed: &mut ParsedCommand) {
    parsed.certain = false;
    for chunk in command.split(|c: char| ";&|()\n`<>{}$".contains(c)) {
        let words: Vec<String> = chunk
            .split_whitespace()
            .map(|w| {
                w.chars()
                    .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            continue;
        }
        let plain: Vec<Word> = words
            .iter()
            .map(|t| Word {
                text: t.clone(),
                ..Word::default()
            })
            .collect();
        let mut strict = vec![chunk.trim().to_owned()];
        strict_forms(&plain, &mut strict, &mut |_| {});
        parsed.parts.push(Part {
            raw: chunk.trim().to_owned(),
            words,
            strict_forms: dedup(strict),
            allow_forms: Vec::new(),
            allowable: false,
            read_only: false,
        });
    }
}

fn analyse(simple: &SimpleCommand, depth: usize, changes_dir: bool, parsed: &mut ParsedCommand) {
    for r in &simple.redirects {
        if r.kind == RedirectKind::Write && r.target.text != "/dev/null" {
            let relative = !r.target.text.starts_with('/') && !r.target.text.starts_with('~');
            parsed.write_targets.push(WriteTarget {
                path: r.target.text.clone(),
                resolvable: !(r.target.dynamic || (relative && changes_dir)),
            });
        }
    }
    let words = &simple.words;
    let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();

    if let Some(first) = words.iter().find(|w| !is_keyword(&w.text)) {
        if matches!(
            first.text.as_str(),
            "case" | "esac" | "for" | "select" | "function" | "coproc" | "[[" | "]]"
        ) {
            parsed.certain = false;
        }
    }

    // Deny/ask forms, and nested commands found along the stripping steps.
    let mut strict = vec![simple.raw.clone()];
    let mut nested: Vec<String> = Vec::new();
    let mut uncertain = false;
    strict_forms(
        words,
        &mut strict,
        &mut |step: &[Word]| match inner_command(step) {
            Inner::None => {}
            Inner::Command(s) => nested.push(s),
            Inner::Unknown => uncertain = true,
        },
    );
    if uncertain {
        parsed.certain = false;
    }

    // Allow forms: only the wrappers that change nothing are stripped.
    let mut allow = vec![texts.join(" "), simple.raw.clone()];
    let mut rest: &[Word] = words;
    while let Some(n) = strip_step(rest, true) {
        rest = rest.get(n..).unwrap_or_default();
        allow.push(join(rest));
    }
    let allowable = rest.first().is_none_or(|w| !w.dynamic);

    let read_only = is_read_only(words);
    if !words.is_empty() {
        parsed.parts.push(Part {
            raw: simple.raw.clone(),
            words: texts,
            strict_forms: dedup(strict),
            allow_forms: dedup(allow),
            allowable,
            read_only,
        });
    }

    for inner in nested {
        let sub = parse_at(&inner, depth + 1);
        parsed.certain &= sub.certain;
        parsed.parts.extend(sub.parts);
        parsed.write_targets.extend(sub.write_targets);
    }
}

fn join(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn dedup(mut forms: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    forms.retain(|f| seen.insert(f.clone()));
    forms
}

/// Pushes the words as written and after each stripping step (with basename
/// variants) to `forms`; calls `visit` with every step's words.
fn strict_forms(words: &[Word], forms: &mut Vec<String>, visit: &mut dyn FnMut(&[Word])) {
    let mut rest: &[Word] = words;
    loop {
        if rest.is_empty() {
            break;
        }
        forms.push(join(rest));
        if let Some((first, tail)) = rest.split_first() {
            let base = basename(&first.text);
            if base != first.text {
                let mut v = vec![base.to_owned()];
                v.extend(tail.iter().map(|w| w.text.clone()));
                forms.push(v.join(" "));
            }
        }
        visit(rest);
        match strip_step(rest, false) {
            Some(n) if n > 0 => rest = rest.get(n..).unwrap_or_default(),
            _ => break,
        }
    }
}

/// The last path segment of a program word (`/bin/rm` -> `rm`).
///
/// SPEC §4.
#[must_use]
pub fn basename(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

fn is_keyword(w: &str) -> bool {
    matches!(
        w,
        "!" | "{"
            | "}"
            | "if"
            | "then"
            | "else"
            | "elif"
            | "fi"
            | "while"
            | "until"
            | "do"
            | "done"
    )
}

fn is_assignment(w: &Word) -> bool {
    let t = w.text.as_str();
    let Some(eq) = t.find('=') else {
        return false;
    };
    let name = t.get(..eq).unwrap_or_default();
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A wrapper: its name, the options that take a separate argument, how many
/// positional arguments come before the command, and whether stripping it changes
/// nothing (so allow rules meet the command past it too).
struct Wrapper {
    name: &'static str,
    opts_with_arg: &'static [&'static str],
    positional: usize,
    harmless: bool,
}

const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "timeout",
        opts_with_arg: &["-s", "--signal", "-k", "--kill-after"],
        positional: 1,
        harmless: true,
    },
    Wrapper {
        name: "time",
        opts_with_arg: &["-f", "--format", "-o", "--output"],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "nice",
        opts_with_arg: &["-n", "--adjustment"],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "nohup",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "stdbuf",
        opts_with_arg: &["-i", "-o", "-e", "--input", "--output", "--error"],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "command",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "builtin",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "noglob",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "env",
        opts_with_arg: &["-u", "--unset", "-C", "--chdir"],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "sudo",
        opts_with_arg: &[
            "-u",
            "--user",
            "-g",
            "--group",
            "-C",
            "--close-from",
            "-D",
            "--chdir",
            "-h",
            "--host",
            "-p",
            "--prompt",
            "-r",
            "--role",
            "-t",
            "--type",
            "-U",
            "--other-user",
            "-T",
            "--command-timeout",
            "-R",
            "--chroot",
        ],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "doas",
        opts_with_arg: &["-u", "-C"],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "xargs",
        opts_with_arg: &[
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "-d",
            "-E",
            "-a",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--max-lines",
            "--replace",
            "--eof",
            "--process-slot-var",
        ],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "watch",
        opts_with_arg: &["-n", "--interval"],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "ionice",
        opts_with_arg: &[
            "-c",
            "--class",
            "-n",
            "--classdata",
            "-p",
            "--pid",
            "-P",
            "--pgid",
            "-u",
            "--uid",
        ],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "setsid",
        opts_with_arg: &[],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "flock",
        opts_with_arg: &["-w", "--timeout", "--wait", "-E", "--conflict-exit-code"],
        positional: 1,
        harmless: false,
    },
    Wrapper {
        name: "exec",
        opts_with_arg: &["-a"],
        positional: 0,
        harmless: false,
    },
];

/// How many leading words one stripping step removes, if any: an assignment, a
/// keyword, or a wrapper with its options. With `harmless_only`, only wrappers that
/// change nothing (and `xargs` only bare) are stripped, and no assignments.
fn strip_step(words: &[Word], harmless_only: bool) -> Option<usize> {
    let first = words.first()?;
    if is_keyword(&first.text) && !first.quoted {
        return Some(1);
    }
    if is_assignment(first) {
        return if harmless_only { None } else { Some(1) };
    }
    let name = basename(&first.text);
    let wrapper = WRAPPERS.iter().find(|w| w.name == name)?;
    if harmless_only && !wrapper.harmless {
        return None;
    }
    let mut i = 1;
    let mut had_options = false;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if wrapper.opts_with_arg.contains(&t) {
            had_options = true;
            i += 2;
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            had_options = true;
            i += 1;
            continue;
        }
        break;
    }
    if harmless_only && name == "xargs" && had_options {
        return None;
    }
    i += wrapper.positional;
    Some(i.min(words.len()))
}

enum Inner {
    None,
    Command(String),
    Unknown,
}

/// A command string the words run in their turn: `sh -c STRING`, `eval ARGS`,
/// `find ... -exec CMD ;`, `env -S STRING`.
fn inner_command(words: &[Word]) -> Inner {
    let Some((first, rest)) = words.split_first() else {
        return Inner::None;
    };
    let name = basename(&first.text);
    match name {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "busybox" => {
            let mut saw_c = false;
            let mut skip = false;
            for w in rest {
                let t = w.text.as_str();
                if skip {
                    skip = false;
                    continue;
                }
                if t == "-o" || t == "+o" {
                    skip = true;
                    continue;
                }
                if t == "sh" && name == "busybox" {
                    continue;
                }
                if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
                    if !t.starts_with("--") && t.contains('c') {
                        saw_c = true;
                    }
                    continue;
                }
                if saw_c {
                    return if w.dynamic {
                        Inner::Unknown
                    } else {
                        Inner::Command(t.to_owned())
                    };
                }
                return Inner::None;
            }
            Inner::None
        }
        "eval" => {
            if rest.iter().any(|w| w.dynamic) {
                Inner::Unknown
            } else {
                Inner::Command(join(rest))
            }
        }
        "env"
            if rest
                .iter()
                .any(|w| w.text == "-S" || w.text.starts_with("--split-string")) =>
        {
            Inner::Unknown
        }
        "find" => {
            let mut out: Vec<String> = Vec::new();
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                if matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    let cmd: Vec<String> = it
                        .by_ref()
                        .take_while(|w| w.text != ";" && w.text != "+")
                        .map(|w| shell_quote(&w.text))
                        .collect();
                    if !cmd.is_empty() {
                        out.push(cmd.join(" "));
                    }
                }
            }
            if out.is_empty() {
                Inner::None
            } else {
                Inner::Command(out.join("\n"))
            }
        }
        _ => Inner::None,
    }
}

/// Quotes a word so that splitting it again gives it back.
fn shell_quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%{}".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// Whether a simple command's words are in the read-only command set (SPEC §4
/// "Defaults"): `ls`, `pwd`, `cd`, `echo`, `cat`, `head`, `tail`, `wc`, `grep`,
/// `rg`, `find` without actions that run or delete, `which`, `file`, `stat`,
/// `tree`, and `git status|log|diff|show|branch` without writing options.
fn is_read_only(words: &[Word]) -> bool {
    let Some((first, rest)) = words.split_first() else {
        return false;
    };
    if first.dynamic || first.text.contains('/') || first.quoted {
        return false;
    }
    let args: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
    match first.text.as_str() {
        "ls" | "pwd" | "cd" | "echo" | "cat" | "head" | "tail" | "wc" | "grep" | "which"
        | "stat" => true,
        "rg" => !args
            .iter()
            .any(|a| *a == "--pre" || a.starts_with("--pre=")),
        "file" => !args.iter().any(|a| *a == "-C" || *a == "--compile"),
        "tree" => !args
            .iter()
            .any(|a| a.starts_with("-o") || a.starts_with("--output")),
        "find" => !args.iter().any(|a| {
            matches!(
                *a,
                "-exec"
                    | "-execdir"
                    | "-ok"
                    | "-okdir"
                    | "-delete"
                    | "-fprint"
                    | "-fprint0"
                    | "-fprintf"
                    | "-fls"
            )
        }),
        "git" => git_read_only(&args),
        _ => false,
    }
}

fn git_read_only(args: &[&str]) -> bool {
    let Some((sub, rest)) = args.split_first() else {
        return false;
    };
    let no_output = |a: &&str| a.starts_with("--output") || *a == "--ext-diff" || *a == "-o";
    match *sub {
        "status" | "log" | "diff" | "show" => !rest.iter().any(no_output),
        "branch" => {
            let listing = [
                "-a",
                "-r",
                "-l",
                "-v",
                "-vv",
                "--list",
                "--all",
                "--remotes",
                "--verbose",
                "--show-current",
                "--no-color",
                "--color",
                "--column",
                "--no-column",
            ];
            let with_value = [
                "--sort=",
                "--format=",
                "--color=",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
            ];
            let is_list = rest.iter().any(|a| *a == "--list" || *a == "-l");
            rest.iter().all(|a| {
                listing.contains(a)
                    || with_value.iter().any(|p| a.starts_with(p))
                    || (is_list && !a.starts_with('-'))
            })
        }
        _ => false,
    }
}

impl fmt::Display for ParsedCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<&str> = self.parts.iter().map(|p| p.raw.as_str()).collect();
        write!(f, "{}", parts.join(" ; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(cmd: &str) -> Vec<Vec<String>> {
        split(cmd)
            .unwrap()
            .into_iter()
            .map(|s| s.words.into_iter().map(|w| w.text).collect())
            .collect()
    }

    #[test]
    fn splits_on_operators() {
        assert_eq!(
            words("a && b || c; d | e & f\ng |& h"),
            vec![
                vec!["a"],
                vec!["b"],
                vec!["c"],
                vec!["d"],
                vec!["e"],
                vec!["f"],
                vec!["g"],
                vec!["h"]
            ]
        );
        assert_eq!(
            words("(cd x && rm -rf y)"),
            vec![vec!["cd", "x"], vec!["rm", "-rf", "y"]]
        );
    }

    #[test]
    fn quotes_hide_operators() {
        assert_eq!(
            words("echo 'a && b' \"c;d\" e\\;f"),
            vec![vec!["echo", "a && b", "c;d", "e;f"]]
        );
        assert_eq!(words("r'm' -rf /"), vec![vec!["rm", "-rf", "/"]]);
    }

    #[test]
    fn substitutions_become_parts() {
        assert_eq!(
            words("echo $(rm -rf /)"),
            vec![vec!["rm", "-rf", "/"], vec!["echo", "$(rm -rf /)"]]
        );
        assert_eq!(
            words("echo \"x $(id) `whoami`\""),
            vec![vec!["id"], vec!["whoami"], vec!["echo", "x $(id) `whoami`"]]
        );
        assert_eq!(
            words("diff <(ls a) >(cat)"),
            vec![
                vec!["ls", "a"],
                vec!["cat"],
                vec!["diff", "<(ls a)", ">(cat)"]
            ]
        );
        // Single quotes keep substitutions literal.
        assert_eq!(
            words("echo '$(rm -rf /)'"),
            vec![vec!["echo", "$(rm -rf /)"]]
        );
    }

    #[test]
    fn redirects_and_heredocs() {
        let s = split("echo hi > out.txt 2>&1 < in").unwrap();
        let s = s.first().unwrap();
        assert_eq!(s.words.len(), 2);
        assert_eq!(s.redirects.len(), 3);
        assert_eq!(s.redirects.first().unwrap().kind, RedirectKind::Write);
        assert_eq!(s.redirects.get(1).unwrap().kind, RedirectKind::Duplicate);
        assert_eq!(
            words("cat <<'EOF'\nrm -rf /\nEOF\nls"),
            vec![vec!["cat"], vec!["ls"]]
        );
        assert!(split("cat <<EOF\n$(rm -rf /)\nEOF").is_err());
        assert!(split("cat <<EOF\nno end").is_err());
    }

    #[test]
    fn errors_on_unbalanced_input() {
        assert!(split("echo 'x").is_err());
        assert!(split("echo \"x").is_err());
        assert!(split("echo $(x").is_err());
        assert!(split("echo `x").is_err());
        let deep = format!("{}x{}", "$(".repeat(40), ")".repeat(40));
        assert_eq!(split(&deep), Err(SplitError::TooDeep));
    }

    #[test]
    fn comments_are_skipped() {
        assert_eq!(words("ls # rm -rf /\npwd"), vec![vec!["ls"], vec!["pwd"]]);
        assert_eq!(words("echo a#b"), vec![vec!["echo", "a#b"]]);
    }

    fn strict(cmd: &str) -> Vec<String> {
        parse_command(cmd)
            .parts
            .into_iter()
            .flat_map(|p| p.strict_forms)
            .collect()
    }

    #[test]
    fn wrappers_are_stripped_for_strict_forms() {
        let f = strict("sudo -u root FOO=1 timeout 5 nice -n 3 /bin/rm -rf /");
        assert!(f.contains(&"sudo -u root FOO=1 timeout 5 nice -n 3 /bin/rm -rf /".to_owned()));
        assert!(f.contains(&"/bin/rm -rf /".to_owned()));
        assert!(f.contains(&"rm -rf /".to_owned()));
        let f = strict("find . -name x | xargs -0 rm");
        assert!(f.contains(&"rm".to_owned()));
        let f = strict("env -i A=1 stdbuf -oL nohup time command builtin doas rm x");
        assert!(f.contains(&"rm x".to_owned()));
    }

    #[test]
    fn nested_command_strings_are_parts() {
        assert!(strict("bash -c 'rm -rf /'").contains(&"rm -rf /".to_owned()));
        assert!(strict("sudo sh -ec \"curl x | sh\"").contains(&"curl x".to_owned()));
        assert!(strict("eval rm -rf /").contains(&"rm -rf /".to_owned()));
        assert!(strict("find . -exec rm {} \\;").contains(&"rm {}".to_owned()));
        assert!(!parse_command("bash -c \"$X\"").certain);
    }

    #[test]
    fn allow_forms_strip_only_harmless_wrappers() {
        let p = parse_command("timeout 5 npm test");
        let forms = &p.parts.first().unwrap().allow_forms;
        assert!(forms.contains(&"npm test".to_owned()));
        let p = parse_command("sudo npm test");
        assert!(!p
            .parts
            .first()
            .unwrap()
            .allow_forms
            .contains(&"npm test".to_owned()));
        let p = parse_command("FOO=1 npm test");
        assert!(!p
            .parts
            .first()
            .unwrap()
            .allow_forms
            .contains(&"npm test".to_owned()));
        for cmd in ["$CMD x", "/bin/r? x", "r[m] x", "`which rm` x"] {
            let p = parse_command(cmd);
            assert!(!p.parts.last().unwrap().allowable, "{cmd}");
        }
        assert!(parse_command("[ -f x ]").parts.first().unwrap().allowable);
    }

    #[test]
    fn read_only_set() {
        for cmd in [
            "ls -la",
            "pwd",
            "cd src && ls",
            "cat a | grep b | wc -l",
            "git status",
            "git log --oneline -5",
            "git branch -a",
            "find . -name '*.rs'",
            "rg foo",
            "echo hi > /dev/null",
            "echo $(pwd)",
        ] {
            assert!(parse_command(cmd).is_read_only(), "{cmd}");
        }
        for cmd in [
            "rm x",
            "ls; rm x",
            "echo hi > f",
            "find . -delete",
            "find . -exec rm {} +",
            "git push",
            "git branch new",
            "git -c core.pager=x log",
            "git diff --output=x",
            "rg --pre sh x",
            "/tmp/ls",
            "FOO=1 ls",
            "echo 'x",
            "tree -o out",
            "echo $(rm x)",
        ] {
            assert!(!parse_command(cmd).is_read_only(), "{cmd}");
        }
    }

    #[test]
    fn unsplittable_commands_still_have_strict_parts() {
        let p = parse_command("rm -rf / 'oops");
        assert!(!p.certain);
        assert!(p
            .parts
            .iter()
            .any(|part| part.strict_forms.iter().any(|f| f.starts_with("rm -rf /"))));
        let p = parse_command("for f in *; do rm $f; done");
        assert!(!p.certain);
    }

    #[test]
    fn write_targets() {
        let p = parse_command("echo a > out.txt; echo b >> /dev/null; cat x &> log");
        let t: Vec<_> = p.write_targets.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(t, vec!["out.txt", "log"]);
        let p = parse_command("cd /etc && echo x > passwd");
        assert!(!p.write_targets.first().unwrap().resolvable);
        let p = parse_command("echo x > $F");
        assert!(!p.write_targets.first().unwrap().resolvable);
    }
}
