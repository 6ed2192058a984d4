//! Shell commands, split into the parts permission rules meet (SPEC §4 "Compound
//! shell commands").
//!
//! [`split`] parses a command with a real shell parser (`brush-parser`, a POSIX/bash
//! grammar) and walks the syntax tree: `&&`, `||`, `;`, `|`, `|&`, `&`, newlines,
//! subshells, brace groups, `if`/`while`/`until`/`for`/`case`, function bodies,
//! `[[ ... ]]` and arithmetic. Every word is resolved (quotes, escapes, `$'...'`
//! removed); the commands inside `$(...)`, backticks, `<(...)`/`>(...)`, `${...}`
//! defaults, arithmetic and unquoted here-documents are parsed and walked too and
//! become simple commands of their own. What it cannot parse is an error.
//!
//! [`parse_command`] then turns each simple command into a [`Part`]: the forms deny
//! and ask rules meet (as written, and after each stripping step of leading
//! `VAR=value` assignments, shell keywords and wrappers such as `sudo`, `env`,
//! `timeout`, `xargs`; a program given by path also by its basename), the forms allow
//! rules meet, and whether the part is in the read-only command set. The `-c` string
//! of `sh`/`bash`/`zsh`/`dash`/`ksh`, `eval` arguments, `watch` commands and the
//! commands of `find -exec/-execdir/-ok` are parsed recursively and become parts too.
//! The path arguments of the file commands the core recognises, and redirect
//! targets, become [`FileArg`]s, with the directories a `cd` earlier in the command
//! may have moved to.
//!
//! A command that cannot be parsed is still met by deny and ask rules through a
//! coarse fallback split, but [`ParsedCommand::certain`] is `false`: no rule and no
//! mode default allows it. [`parse_command_cached`] memoizes whole parses in a
//! bounded LRU keyed by the command string.

use brush_parser::ast;
use brush_parser::word::{self as bword, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions, SourceInfo};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// How deep substitutions, `sh -c` strings and `eval` may nest before a command is
/// taken as one that cannot be parsed.
const MAX_DEPTH: usize = 16;
/// Commands longer than this are not parsed (a plain ask; deny rules still meet them).
const MAX_LEN: usize = 64 * 1024;
/// Bracket nesting deeper than this is not parsed (the parser recurses).
const MAX_NESTING: usize = 64;

/// How deep `(` may nest before a command counts as one that cannot be parsed.
/// brush-parser backtracks exponentially on runs of unclosed `(` (found by fuzzing:
/// `( (ls w((((((((((((((((((((((((e` took seconds, doubling per `(`), so a deeper
/// command is never parsed: it gets at least a plain ask (SPEC §4).
const MAX_PAREN_NESTING: usize = 12;
/// How many directories a command may have moved to before the next one is unknown.
const MAX_BASES: usize = 8;
/// How many parses [`parse_command_cached`] keeps.
pub const MEMO_CAPACITY: usize = 1024;

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
    /// `<`: reads the target.
    Read,
    /// `<<`, `<<-`: a here-document; the target is the delimiter.
    HereDoc,
    /// `<<<`: a here-string; the target is the string.
    HereString,
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
    /// A here-document's text (`None` for every other redirect).
    pub body: Option<String>,
}

/// The directories a command may be in when one of its parts runs, as written by the
/// `cd`s before it (`""` is the session's working directory). SPEC §4 "Read and Edit
/// rules meet shell commands".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bases {
    /// Every directory the part may run in, relative ones relative to the working
    /// directory. Always holds `""` unless a `cd` is certain to have run.
    pub dirs: Vec<String>,
    /// Whether the part may also run somewhere not known before the shell runs
    /// (`cd $X`, `cd -`, a `cd` in a loop).
    pub unknown: bool,
}

impl Default for Bases {
    fn default() -> Self {
        Bases {
            dirs: vec![String::new()],
            unknown: false,
        }
    }
}

impl Bases {
    /// `path` taken from directory `base` (both as written): an absolute or `~` path
    /// stays as it is.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn join(base: &str, path: &str) -> String {
        if base.is_empty() || path.starts_with('/') || path.starts_with('~') {
            path.to_owned()
        } else if path.is_empty() {
            base.to_owned()
        } else {
            format!("{}/{path}", base.trim_end_matches('/'))
        }
    }

    fn cd(&mut self, target: Option<&Word>, certain_to_run: bool) {
        match target {
            Some(w) if !w.dynamic && w.text != "-" => {
                let moved: Vec<String> =
                    self.dirs.iter().map(|b| Bases::join(b, &w.text)).collect();
                if !certain_to_run {
                    self.dirs.extend(moved);
                } else {
                    self.dirs = moved;
                }
            }
            None => {
                if !certain_to_run {
                    self.dirs.push("~".to_owned());
                } else {
                    self.dirs = vec!["~".to_owned()];
                }
            }
            Some(_) => self.unknown = true,
        }
        self.tidy();
    }

    fn tidy(&mut self) {
        let mut seen = std::collections::HashSet::new();
        self.dirs.retain(|d| seen.insert(d.clone()));
        if self.dirs.len() > MAX_BASES {
            self.dirs.truncate(MAX_BASES);
            self.unknown = true;
        }
    }
}

/// A simple command as [`split`] found it.
///
/// SPEC §4.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SimpleCommand {
    /// Its words (leading assignments included), redirects taken out.
    pub words: Vec<Word>,
    /// Its redirects, in order.
    pub redirects: Vec<Redirect>,
    /// Its text as written (words and redirects as the parser read them).
    pub raw: String,
    /// The directories it may run in.
    pub bases: Bases,
}

/// Why a command could not be parsed with confidence.
///
/// SPEC §4.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    /// The shell parser refused the command (an unbalanced quote, a syntax error).
    #[error("the shell parser refused it: {0}")]
    Syntax(String),
    /// Substitutions nest deeper than this crate follows.
    #[error("nested more than {MAX_DEPTH} levels deep")]
    TooDeep,
    /// A construct whose commands cannot be known before the shell runs.
    #[error("unsupported shell construct: {0}")]
    Unsupported(&'static str),
}

/// Parses `command` into simple commands (SPEC §4 "Compound shell commands").
///
/// Commands found inside `$(...)`, backticks, `<(...)`, `>(...)`, `${...}`,
/// arithmetic and unquoted here-documents are returned as simple commands of their
/// own, before the command that holds them.
///
/// # Errors
///
/// [`SplitError`] when the parser refuses the command, it nests too deep, or a word
/// cannot be resolved.
pub fn split(command: &str) -> Result<Vec<SimpleCommand>, SplitError> {
    split_at(command, 0)
}

fn split_at(command: &str, depth: usize) -> Result<Vec<SimpleCommand>, SplitError> {
    let mut w = Walker::new(depth, Bases::default());
    w.text(command)?;
    match w.error {
        Some(e) => Err(e),
        None => Ok(w.out),
    }
}

/// Whether `s` has a `(` followed, past whitespace, by another `(` (quotes ignored).
fn spaced_double_paren(s: &str) -> bool {
    let mut after_open_space = false;
    let mut prev_open = false;
    for c in s.chars() {
        match c {
            '(' if after_open_space => return true,
            '(' => {
                prev_open = true;
                after_open_space = false;
            }
            c if c.is_whitespace() && (prev_open || after_open_space) => {
                prev_open = false;
                after_open_space = true;
            }
            _ => {
                prev_open = false;
                after_open_space = false;
            }
        }
    }
    false
}

/// The deepest bracket nesting of `s`, counted coarsely (quotes ignored).
fn nesting(s: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in s.chars() {
        match c {
            '(' | '{' | '[' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max.max(s.matches('`').count() / 2)
}

/// The deepest run of `(` in `s`, counting every `(` whether or not it is closed.
fn paren_nesting(s: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in s.chars() {
        match c {
            '(' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn parse_program(command: &str) -> Result<ast::Program, SplitError> {
    if command.len() > MAX_LEN {
        return Err(SplitError::Unsupported("a command this long"));
    }
    if nesting(command) > MAX_NESTING || paren_nesting(command) > MAX_PAREN_NESTING {
        return Err(SplitError::TooDeep);
    }
    let run = || {
        let mut parser = Parser::new(
            std::io::BufReader::new(command.as_bytes()),
            &ParserOptions::default(),
            &SourceInfo::default(),
        );
        parser.parse_program()
    };
    match std::panic::catch_unwind(run) {
        Ok(Ok(p)) => Ok(p),
        Ok(Err(e)) => Err(SplitError::Syntax(e.to_string())),
        Err(_) => Err(SplitError::Unsupported(
            "a command the shell parser fails on",
        )),
    }
}

/// Walks a syntax tree, collecting simple commands.
struct Walker {
    depth: usize,
    out: Vec<SimpleCommand>,
    error: Option<SplitError>,
    bases: Bases,
    /// Inside a loop or a function body: a `cd` there moves somewhere unknown.
    repeated: usize,
    /// Inside a conditional or asynchronous context: a `cd` there may not run.
    uncertain_flow: usize,
    /// The text holds `(` and `(` apart (`( (cmd) )`), which the parser may read as
    /// an arithmetic command.
    spaced_parens: bool,
}

impl Walker {
    fn new(depth: usize, bases: Bases) -> Self {
        Walker {
            depth,
            out: Vec::new(),
            error: None,
            bases,
            repeated: 0,
            uncertain_flow: 0,
            spaced_parens: false,
        }
    }

    fn fail(&mut self, e: SplitError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Parses and walks `command` as a nested program.
    fn text(&mut self, command: &str) -> Result<(), SplitError> {
        if self.depth > MAX_DEPTH {
            return Err(SplitError::TooDeep);
        }
        let program = parse_program(command)?;
        self.spaced_parens |= spaced_double_paren(command);
        for list in &program.complete_commands {
            self.list(list);
        }
        Ok(())
    }

    fn nested(&mut self, command: &str) {
        let mut inner = Walker::new(self.depth + 1, self.bases.clone());
        inner.repeated = self.repeated;
        inner.uncertain_flow = self.uncertain_flow + 1;
        if let Err(e) = inner.text(command) {
            self.fail(e);
        }
        if let Some(e) = inner.error.take() {
            self.fail(e);
        }
        // A substitution runs in a subshell: its `cd` stays there, but keep the
        // directories anyway (more candidates only make matching stricter).
        self.bases.dirs.extend(inner.bases.dirs);
        self.bases.unknown |= inner.bases.unknown;
        self.bases.tidy();
        self.out.append(&mut inner.out);
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for item in &list.0 {
            let asynchronous = matches!(item.1, ast::SeparatorOperator::Async);
            self.uncertain_flow += usize::from(asynchronous);
            self.and_or(&item.0);
            self.uncertain_flow -= usize::from(asynchronous);
        }
    }

    /// A `cd` is certain to have moved the commands after it only when it ran (all
    /// operators before it are `&&`) and they run only if it succeeded (`&&` after it).
    fn and_or(&mut self, list: &ast::AndOrList) {
        let ands: Vec<bool> = list
            .additional
            .iter()
            .map(|a| matches!(a, ast::AndOr::And(_)))
            .collect();
        let pipelines =
            std::iter::once(&list.first).chain(list.additional.iter().map(|a| match a {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            }));
        for (i, p) in pipelines.enumerate() {
            let certain = ands.get(..i).is_some_and(|b| b.iter().all(|x| *x))
                && ands.get(i).copied().unwrap_or(false);
            let flag = usize::from(!certain);
            self.uncertain_flow += flag;
            self.pipeline(p);
            self.uncertain_flow -= flag;
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        let piped = usize::from(p.seq.len() > 1);
        self.uncertain_flow += piped;
        for c in &p.seq {
            self.command(c);
        }
        self.uncertain_flow -= piped;
    }

    fn command(&mut self, c: &ast::Command) {
        match c {
            ast::Command::Simple(s) => self.simple(s),
            ast::Command::Compound(cc, redirects) => {
                self.compound(cc);
                self.redirect_only(redirects.as_ref().map(|r| r.0.as_slice()));
            }
            ast::Command::Function(f) => {
                self.repeated += 1;
                self.uncertain_flow += 1;
                self.compound(&f.body.0);
                self.redirect_only(f.body.1.as_ref().map(|r| r.0.as_slice()));
                self.repeated -= 1;
                self.uncertain_flow -= 1;
            }
            ast::Command::ExtendedTest(e) => self.extended_test(e),
        }
    }

    fn redirect_only(&mut self, redirects: Option<&[ast::IoRedirect]>) {
        let Some(redirects) = redirects else { return };
        let mut cmd = SimpleCommand {
            bases: self.bases.clone(),
            ..SimpleCommand::default()
        };
        for r in redirects {
            self.redirect(r, &mut cmd);
        }
        if !cmd.redirects.is_empty() {
            self.out.push(cmd);
        }
    }

    fn extended_test(&mut self, e: &ast::ExtendedTestExpr) {
        match e {
            ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
                self.extended_test(a);
                self.extended_test(b);
            }
            ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
                self.extended_test(a);
            }
            ast::ExtendedTestExpr::UnaryTest(_, w) => {
                self.word(&w.value);
            }
            ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
                self.word(&a.value);
                self.word(&b.value);
            }
        }
    }

    fn compound(&mut self, cc: &ast::CompoundCommand) {
        match cc {
            ast::CompoundCommand::Arithmetic(a) => {
                self.scan(&a.expr.value);
                // The parser reads `( (cmd) )` as the arithmetic `((cmd))`; the shell
                // runs nested subshells. Where the text has a `(` and another `(`
                // apart, the expression is also walked as commands.
                if self.spaced_parens {
                    let before = self.error.clone();
                    self.nested(&a.expr.value);
                    // An arithmetic expression that is no command is not an error.
                    if before.is_none() && matches!(self.error, Some(SplitError::Syntax(_))) {
                        self.error = None;
                    }
                }
            }
            ast::CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.scan(&e.value);
                }
                self.looped(|w| w.list(&f.body.0));
            }
            ast::CompoundCommand::BraceGroup(b) => self.list(&b.0),
            ast::CompoundCommand::Subshell(s) => self.list(&s.0),
            ast::CompoundCommand::ForClause(f) => {
                for v in f.values.iter().flatten() {
                    self.word(&v.value);
                }
                self.looped(|w| w.list(&f.body.0));
            }
            ast::CompoundCommand::CaseClause(c) => {
                self.word(&c.value.value);
                self.uncertain_flow += 1;
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(&p.value);
                    }
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd);
                    }
                }
                self.uncertain_flow -= 1;
            }
            ast::CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                self.uncertain_flow += 1;
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c);
                    }
                    self.list(&e.body);
                }
                self.uncertain_flow -= 1;
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                self.looped(|me| {
                    me.list(&w.0);
                    me.list(&w.1 .0);
                });
            }
        }
    }

    fn looped(&mut self, f: impl FnOnce(&mut Self)) {
        self.repeated += 1;
        self.uncertain_flow += 1;
        f(self);
        self.repeated -= 1;
        self.uncertain_flow -= 1;
    }

    fn simple(&mut self, s: &ast::SimpleCommand) {
        let mut cmd = SimpleCommand::default();
        let mut raw: Vec<String> = Vec::new();
        let items = s
            .prefix
            .iter()
            .flat_map(|p| p.0.iter().map(Some))
            .chain(std::iter::once(None))
            .chain(s.suffix.iter().flat_map(|p| p.0.iter().map(Some)));
        for item in items {
            match item {
                None => {
                    if let Some(w) = &s.word_or_name {
                        raw.push(w.value.clone());
                        let word = self.word(&w.value);
                        cmd.words.push(word);
                    }
                }
                Some(ast::CommandPrefixOrSuffixItem::Word(w)) => {
                    raw.push(w.value.clone());
                    let word = self.word(&w.value);
                    cmd.words.push(word);
                }
                Some(ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w)) => {
                    raw.push(w.value.clone());
                    let word = self.word(&w.value);
                    cmd.words.push(word);
                }
                Some(ast::CommandPrefixOrSuffixItem::IoRedirect(r)) => {
                    raw.push(r.to_string().trim().to_owned());
                    self.redirect(r, &mut cmd);
                }
                Some(ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub)) => {
                    let text = format!("{kind}({sub})");
                    raw.push(text.clone());
                    self.list(&sub.0);
                    cmd.words.push(Word {
                        text,
                        dynamic: true,
                        quoted: false,
                    });
                }
            }
        }
        cmd.raw = raw.join(" ");
        cmd.bases = self.bases.clone();
        self.track_cd(&cmd.words);
        if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
            self.out.push(cmd);
        }
    }

    /// Follows a `cd`/`pushd`/`popd` among `words` (past wrappers).
    fn track_cd(&mut self, words: &[Word]) {
        let mut rest = words;
        while let Some(n) = strip_step(rest, false) {
            if n == 0 {
                break;
            }
            rest = rest.get(n..).unwrap_or_default();
        }
        let Some((first, args)) = rest.split_first() else {
            return;
        };
        let certain = self.uncertain_flow == 0;
        match first.text.as_str() {
            "cd" | "pushd" | "chdir" => {
                let target = args
                    .iter()
                    .find(|a| a.text == "--" || !a.text.starts_with('-') || a.text == "-");
                let target = match target {
                    Some(t) if t.text == "--" => args.iter().skip_while(|a| a.text != "--").nth(1),
                    t => t,
                };
                if self.repeated > 0 {
                    self.bases.unknown = true;
                } else {
                    self.bases.cd(target, certain);
                }
            }
            "popd" => self.bases.unknown = true,
            _ => {}
        }
    }

    fn redirect(&mut self, r: &ast::IoRedirect, cmd: &mut SimpleCommand) {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T};
        match r {
            ast::IoRedirect::File(_, kind, target) => {
                let word = match target {
                    T::Filename(w) | T::Duplicate(w) => self.word(&w.value),
                    T::Fd(n) => Word {
                        text: n.to_string(),
                        ..Word::default()
                    },
                    T::ProcessSubstitution(_, sub) => {
                        self.list(&sub.0);
                        return;
                    }
                };
                let kind = match (kind, target) {
                    (_, T::Fd(_)) => RedirectKind::Duplicate,
                    (K::Read, _) => RedirectKind::Read,
                    (K::DuplicateInput | K::DuplicateOutput, _)
                        if word.text == "-"
                            || (!word.text.is_empty()
                                && word.text.chars().all(|c| c.is_ascii_digit())) =>
                    {
                        RedirectKind::Duplicate
                    }
                    (K::DuplicateInput, _) => RedirectKind::Read,
                    _ => RedirectKind::Write,
                };
                cmd.redirects.push(Redirect {
                    kind,
                    target: word,
                    body: None,
                });
            }
            ast::IoRedirect::HereDocument(_, doc) => {
                if doc.requires_expansion {
                    self.scan(&doc.doc.value);
                }
                cmd.redirects.push(Redirect {
                    kind: RedirectKind::HereDoc,
                    target: Word {
                        text: doc.here_end.value.clone(),
                        ..Word::default()
                    },
                    body: Some(doc.doc.value.clone()),
                });
            }
            ast::IoRedirect::HereString(_, w) => {
                let target = self.word(&w.value);
                cmd.redirects.push(Redirect {
                    kind: RedirectKind::HereString,
                    target,
                    body: None,
                });
            }
            ast::IoRedirect::OutputAndError(w, _) => {
                let target = self.word(&w.value);
                cmd.redirects.push(Redirect {
                    kind: RedirectKind::Write,
                    target,
                    body: None,
                });
            }
        }
    }

    /// Resolves one word; the commands inside it are walked.
    fn word(&mut self, raw: &str) -> Word {
        let mut w = Word::default();
        match bword::parse(raw, &ParserOptions::default()) {
            Ok(pieces) => self.pieces(&pieces, raw, &mut w, false),
            Err(_) => {
                self.fail(SplitError::Syntax(format!("the word {raw:?}")));
                w.text = raw.to_owned();
                w.dynamic = true;
            }
        }
        w
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource], src: &str, w: &mut Word, in_dq: bool) {
        for p in pieces {
            let piece_src = src.get(p.start_index..p.end_index).unwrap_or_default();
            match &p.piece {
                WordPiece::Text(t) => {
                    if !in_dq
                        && (t.contains(['*', '?'])
                            || t.find('[')
                                .is_some_and(|i| t.get(i + 1..).is_some_and(|r| r.contains(']')))
                            || brace_expansion(t))
                    {
                        w.dynamic = true;
                    }
                    w.text.push_str(t);
                }
                WordPiece::SingleQuotedText(t) => {
                    w.quoted = true;
                    w.text.push_str(t);
                }
                WordPiece::AnsiCQuotedText(t) => {
                    w.quoted = true;
                    w.text.push_str(&ansi_c(t));
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
                }
                WordPiece::ParameterExpansion(_) => {
                    w.dynamic = true;
                    w.text.push_str(piece_src);
                    let inner = piece_src
                        .strip_prefix("${")
                        .and_then(|s| s.strip_suffix('}'))
                        .unwrap_or_default();
                    self.scan(inner);
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    w.dynamic = true;
                    w.text.push_str(&format!("$({s})"));
                    self.nested(s);
                }
                WordPiece::EscapeSequence(e) => {
                    w.quoted = true;
                    let c = e.strip_prefix('\\').unwrap_or(e);
                    if c != "\n" {
                        w.text.push_str(c);
                    }
                }
                WordPiece::ArithmeticExpression(a) => {
                    w.dynamic = true;
                    w.text.push_str(&format!("$(({}))", a.value));
                    self.scan(&a.value);
                }
            }
        }
    }

    /// Walks the substitutions inside text that is expanded like a double-quoted
    /// string (here-document bodies, `${...}` operands, arithmetic).
    fn scan(&mut self, text: &str) {
        if !(text.contains("$(") || text.contains('`') || text.contains("${")) {
            return;
        }
        if self.depth > MAX_DEPTH {
            self.fail(SplitError::TooDeep);
            return;
        }
        let quoted = format!("\"{}\"", text.replace('"', "\\\""));
        self.depth += 1;
        let _ = self.word(&quoted);
        self.depth -= 1;
    }
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
fn ansi_c(s: &str) -> String {
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
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '\\' | '\'' | '"' | '?' => Some(e),
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
    /// For each of [`Part::allow_forms`], how many of its leading characters an allow
    /// rule's literal text (before its first `*`) must spell out to cover it
    /// ([`crate::wildcard::Wildcard::literal_prefix_len`]); 0 for most forms.
    ///
    /// **An allow rule never covers a wrapper by its own name** (reference §3.2: exec
    /// wrappers are never auto-approved by a prefix allow rule): for a form that
    /// starts with a wrapper (`setsid`, `sudo`, `timeout`, `flock`, `xargs`, ...), the
    /// rule must spell out everything up to and including the wrapped command's
    /// name, so `Bash(setsid:*)` does not allow `setsid make deploy` while
    /// `Bash(sudo apt update)` allows `sudo apt update`. A `find` with an action that
    /// runs, deletes or writes (`-exec`, `-delete`, `-fprint`, ...) must be spelled
    /// out whole: `Bash(find:*)` does not allow `find . -delete`.
    pub allow_guards: Vec<usize>,
    /// Whether an allow rule with a pattern may cover the part: `false` when the
    /// program is only known at run time (`$CMD`, `$(...)`).
    pub allowable: bool,
    /// Whether the part's command is in the read-only command set (SPEC §4
    /// "Defaults"); what it writes through redirects is in
    /// [`ParsedCommand::files`].
    pub read_only: bool,
    /// Whether the part is a common filesystem command `acceptEdits` mode accepts in
    /// the working directories (`mkdir`, `touch`, `mv`, `cp`; reference §3.4).
    pub edits_files: bool,
    /// Whether what the part runs is known only when the shell runs (see
    /// [`ParsedCommand::certain`] for the cases); such a part makes its whole
    /// command uncertain.
    pub uncertain: bool,
}

/// A file a command reads or writes: a path argument of a file command the core
/// recognises, or a redirect target (SPEC §4: judged as `Read(<path>)` or
/// `Edit(<path>)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileArg {
    /// The path as written (quotes resolved).
    pub path: String,
    /// Whether the command writes it (else it only reads it).
    pub write: bool,
    /// Whether it is a redirect target (an allow rule for the command does not
    /// cover a redirect write: it needs an Edit allow of its own).
    pub redirect: bool,
    /// Whether the path holds an expansion or a glob (known only at run time).
    pub dynamic: bool,
    /// The directories a relative path is taken from.
    pub bases: Bases,
    /// Whether the command removes it (`rm`, `rmdir`): removing a critical path is
    /// never approved automatically (reference §3.3).
    pub remove: bool,
}

impl FileArg {
    /// Whether the path can be resolved before the shell runs: no expansion, and
    /// absolute or `~`, or relative to directories all known.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn resolvable(&self) -> bool {
        !self.dynamic
            && (self.path.starts_with('/') || self.path.starts_with('~') || !self.bases.unknown)
    }

    /// The path as written, taken from each of the directories it may be relative
    /// to (absolute and `~` paths as they are).
    ///
    /// SPEC §4.
    #[must_use]
    pub fn candidates(&self) -> Vec<String> {
        self.bases
            .dirs
            .iter()
            .map(|b| Bases::join(b, &self.path))
            .collect()
    }
}

/// A file a command writes through a redirect (SPEC §4: judged as `Edit(<path>)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget {
    /// The target as written (quotes resolved).
    pub path: String,
    /// Whether the path can be resolved: `false` when it holds an expansion, or when
    /// it is relative and the command changes directory somewhere unknown first.
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
    /// Every file the command reads or writes that the core recognises: redirect
    /// targets (`/dev/null` excepted) and the path arguments of file commands.
    pub files: Vec<FileArg>,
    /// Whether the command was parsed with confidence. When `false`, no rule and no
    /// mode default allows it: at least a plain ask in every mode,
    /// `bypassPermissions` included; deny and ask rules still meet every part
    /// found.
    ///
    /// **\[decision\]** (SPEC §4: "a command that cannot be parsed is never allowed
    /// by a rule"; issue #3: no shell trick dodges the rules). Besides a command the
    /// parser refuses, a command is uncertain when one of its parts runs something
    /// known only at run time, which no deny or ask rule can be shown not to match:
    ///
    /// - a program word (past wrappers and assignments) holding an expansion, a
    ///   command substitution, a glob or a brace expansion (`$X`, `"$f"`,
    ///   `$(echo rm)`, `` `printf rm` ``, `${CMD:-rm}`, `r${EMPTY}m`,
    ///   `{rm,-rf,build}`, `/bin/r?`, `/bin/r[m]`, `rm${IFS}-rf`), or a word that
    ///   `xargs -I` replaces;
    /// - a shell fed code on its standard input: `sh`, `bash -s`, `… | sh`,
    ///   `sh <<EOF`, `bash <<< '…'` (a here-document's or here-string's text is still
    ///   parsed, so deny and ask rules meet it);
    /// - `eval` (its arguments are still parsed);
    /// - `source`/`.` of a process substitution, an expansion or standard input;
    /// - a `-c` string that is not a plain word (`sh -c "$X"`, `sh -c '{}'` under
    ///   `xargs -I{}`), `env -S`.
    ///
    /// Such a command is never allowed by any rule, a bare `Bash`/`Bash(*)` allow
    /// included, nor by any mode; where its visible text matches a deny rule it is
    /// still denied.
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
            && !self.files.iter().any(|f| f.write)
    }
}

/// Parses and analyses `command` (SPEC §4 "Compound shell commands"). Never fails:
/// a command [`split`] refuses is met by a coarse split and marked not
/// [`certain`](ParsedCommand::certain).
#[must_use]
pub fn parse_command(command: &str) -> ParsedCommand {
    parse_at(command, 0, &Bases::default())
}

/// [`parse_command`], memoized by the command string in a bounded LRU of
/// [`MEMO_CAPACITY`] entries shared by the process (SPEC §4 "Compound shell
/// commands").
#[must_use]
pub fn parse_command_cached(command: &str) -> Arc<ParsedCommand> {
    static MEMO: OnceLock<Mutex<Lru>> = OnceLock::new();
    let memo = MEMO.get_or_init(|| Mutex::new(Lru::new(MEMO_CAPACITY)));
    if let Ok(mut m) = memo.lock() {
        if let Some(hit) = m.get(command) {
            return hit;
        }
    }
    let parsed = Arc::new(parse_command(command));
    if let Ok(mut m) = memo.lock() {
        m.put(command.to_owned(), Arc::clone(&parsed));
    }
    parsed
}

/// A small least-recently-used map: entries stamped with a use counter, the oldest
/// evicted first.
struct Lru {
    capacity: usize,
    tick: u64,
    map: HashMap<String, (Arc<ParsedCommand>, u64)>,
    order: BTreeMap<u64, String>,
}

impl Lru {
    fn new(capacity: usize) -> Self {
        Lru {
            capacity: capacity.max(1),
            tick: 0,
            map: HashMap::new(),
            order: BTreeMap::new(),
        }
    }

    fn get(&mut self, key: &str) -> Option<Arc<ParsedCommand>> {
        self.tick += 1;
        let tick = self.tick;
        let (value, stamp) = self.map.get_mut(key)?;
        self.order.remove(stamp);
        *stamp = tick;
        self.order.insert(tick, key.to_owned());
        Some(Arc::clone(value))
    }

    fn put(&mut self, key: String, value: Arc<ParsedCommand>) {
        self.tick += 1;
        if let Some((_, old)) = self.map.remove(&key) {
            self.order.remove(&old);
        }
        while self.map.len() >= self.capacity {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.map.remove(&oldest);
        }
        self.order.insert(self.tick, key.clone());
        self.map.insert(key, (value, self.tick));
    }
}

fn parse_at(command: &str, depth: usize, outer: &Bases) -> ParsedCommand {
    let mut parsed = ParsedCommand {
        full: command.trim().to_owned(),
        certain: true,
        ..ParsedCommand::default()
    };
    let mut walker = Walker::new(depth, outer.clone());
    let walked = walker.text(command);
    let refused = walked.is_err() || walker.error.is_some();
    for simple in &walker.out {
        analyse(simple, depth, &mut parsed);
    }
    if refused {
        coarse(command, &mut parsed);
    }
    parsed
}

/// The fallback when the command cannot be parsed: every run of text between
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
        let stripped = final_words(&plain);
        let remove = removes(stripped);
        for (word, write) in file_words(stripped) {
            parsed.files.push(FileArg {
                path: word.text.clone(),
                write,
                redirect: false,
                dynamic: true,
                bases: Bases {
                    unknown: true,
                    ..Bases::default()
                },
                remove: remove && write,
            });
        }
        parsed.parts.push(Part {
            raw: chunk.trim().to_owned(),
            words,
            strict_forms: dedup(strict),
            allow_forms: Vec::new(),
            allow_guards: Vec::new(),
            allowable: false,
            read_only: false,
            edits_files: false,
            uncertain: true,
        });
    }
}

/// The words past every stripping step.
fn final_words(words: &[Word]) -> &[Word] {
    let mut rest = words;
    while let Some(n) = strip_step(rest, false) {
        if n == 0 {
            break;
        }
        rest = rest.get(n..).unwrap_or_default();
    }
    rest
}

fn analyse(simple: &SimpleCommand, depth: usize, parsed: &mut ParsedCommand) {
    for r in &simple.redirects {
        let write = match r.kind {
            RedirectKind::Write => true,
            RedirectKind::Read => false,
            _ => continue,
        };
        if r.target.text == "/dev/null" {
            continue;
        }
        let file = FileArg {
            path: r.target.text.clone(),
            write,
            redirect: true,
            dynamic: r.target.dynamic,
            bases: simple.bases.clone(),
            remove: false,
        };
        if write {
            parsed.write_targets.push(WriteTarget {
                path: file.path.clone(),
                resolvable: file.resolvable(),
            });
        }
        parsed.files.push(file);
    }
    let marked = mark_replaced(&simple.words);
    let words = marked.as_slice();
    let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();

    // Deny/ask forms, and nested commands found along the stripping steps.
    let mut strict = vec![simple.raw.clone()];
    let mut nested: Vec<(String, bool)> = Vec::new();
    let mut uncertain = false;
    strict_forms(words, &mut strict, &mut |step: &[Word]| {
        let (inner, unknown) = inner_command(step);
        uncertain |= unknown;
        if let Some(inner) = inner {
            nested.push(inner);
        }
    });
    // `rm${IFS}-rf`: also met with `$IFS` read as the space it usually is.
    for form in strict.clone() {
        if form.contains("$IFS") || form.contains("${IFS}") {
            strict.push(form.replace("${IFS}", " ").replace("$IFS", " "));
        }
    }

    // What runs: past every wrapper and assignment.
    let stripped = final_words(words);
    let (runs_unknown, fed) = runs_unknown_code(stripped, &simple.redirects);
    uncertain |= runs_unknown;
    nested.extend(fed.into_iter().map(|code| (code, false)));

    // Allow forms: only the wrappers that change nothing are stripped.
    let mut allow = vec![
        (texts.join(" "), allow_guard(words)),
        (simple.raw.clone(), raw_guard(words, &simple.raw)),
    ];
    let mut rest: &[Word] = words;
    while let Some(n) = strip_step(rest, true) {
        if n == 0 {
            break;
        }
        rest = rest.get(n..).unwrap_or_default();
        allow.push((join(rest), allow_guard(rest)));
    }
    // A program word only known at run time, or one holding whitespace (`rm\ -rf`
    // runs a program named "rm -rf"), is covered by no pattern.
    let allowable = rest.first().is_none_or(|w| !w.dynamic)
        && stripped
            .first()
            .is_none_or(|w| !w.text.contains(char::is_whitespace));
    let mut seen = std::collections::HashSet::new();
    allow.retain(|(f, _)| seen.insert(f.clone()));
    let (allow_forms, allow_guards): (Vec<String>, Vec<usize>) = allow.into_iter().unzip();

    // The files the command reads and writes, past every wrapper.
    let chdir = words_change_dir(words);
    let remove = removes(stripped);
    for (word, write) in file_words(stripped) {
        let mut bases = simple.bases.clone();
        bases.unknown |= chdir;
        parsed.files.push(FileArg {
            path: word.text.clone(),
            write,
            redirect: false,
            dynamic: word.dynamic,
            bases,
            remove: remove && write,
        });
    }
    let edits_files = stripped.first().is_some_and(|w| {
        !w.dynamic
            && !w.quoted
            && matches!(w.text.as_str(), "mkdir" | "touch" | "mv" | "cp")
            && stripped.len() == words.len()
    });

    let read_only = is_read_only(words);
    if uncertain {
        parsed.certain = false;
    }
    if !words.is_empty() {
        parsed.parts.push(Part {
            raw: simple.raw.clone(),
            words: texts,
            strict_forms: dedup(strict),
            allow_forms,
            allow_guards,
            allowable,
            read_only: read_only && !uncertain,
            edits_files,
            uncertain,
        });
    }

    for (inner, own_dir) in nested {
        let mut outer = simple.bases.clone();
        outer.unknown |= own_dir || chdir;
        let sub = parse_at(&inner, depth + 1, &outer);
        parsed.certain &= sub.certain;
        parsed.parts.extend(sub.parts);
        parsed.write_targets.extend(sub.write_targets);
        parsed.files.extend(sub.files);
    }
}

/// Whether the program past every wrapper removes its path arguments (`rm`, `rmdir`).
fn removes(stripped: &[Word]) -> bool {
    stripped
        .first()
        .is_some_and(|w| matches!(basename(&w.text), "rm" | "rmdir"))
}

/// The find actions that run, delete or write: a `find` with one is never allowed by
/// a prefix rule.
const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// How many leading characters of `join(words)` an allow rule's literal text must
/// spell out (see [`Part::allow_guards`]): through the program's name when a wrapper
/// comes before it, the whole form for a `find` that runs, deletes or writes.
fn allow_guard(words: &[Word]) -> usize {
    let mut rest = words;
    let mut wrapped = false;
    while let Some(n) = strip_step(rest, false) {
        if n == 0 {
            break;
        }
        wrapped |= rest
            .first()
            .is_some_and(|w| !is_assignment(w) && (w.quoted || !is_keyword(&w.text)));
        rest = rest.get(n..).unwrap_or_default();
    }
    let whole = || join(words).chars().count();
    let find_action = rest.first().is_some_and(|w| basename(&w.text) == "find")
        && rest.iter().any(|w| FIND_ACTIONS.contains(&w.text.as_str()));
    if find_action {
        return whole();
    }
    if !wrapped {
        return 0;
    }
    let through = words.len() - rest.len() + 1;
    match words.get(..through) {
        Some(head) => join(head).chars().count(),
        None => whole(),
    }
}

/// [`allow_guard`] for the text as written: all of it when a guard applies.
fn raw_guard(words: &[Word], raw: &str) -> usize {
    if allow_guard(words) == 0 {
        0
    } else {
        raw.chars().count()
    }
}

/// `words` with every word `xargs -I R` (or `-i`, `--replace`) replaces marked as
/// known only at run time.
fn mark_replaced(words: &[Word]) -> Vec<Word> {
    let mut out = words.to_vec();
    let mut at = 0;
    while let Some(n) = out.get(at..).and_then(|rest| strip_step(rest, false)) {
        if n == 0 {
            break;
        }
        let step = out.get(at..at + n).unwrap_or_default();
        let repl = if step.first().map(|w| basename(&w.text)) == Some("xargs") {
            xargs_replace(step)
        } else {
            None
        };
        at += n;
        if let Some(repl) = repl {
            for w in out.iter_mut().skip(at) {
                if w.text.contains(&repl) {
                    w.dynamic = true;
                }
            }
        }
    }
    out
}

/// The replace string of an `xargs` step, if it has one.
fn xargs_replace(step: &[Word]) -> Option<String> {
    let mut it = step.iter().skip(1);
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        if t == "-I" || t == "--replace" {
            return Some(
                it.next()
                    .map_or_else(|| "{}".to_owned(), |v| v.text.clone()),
            );
        }
        if let Some(v) = t.strip_prefix("--replace=") {
            return Some(v.to_owned());
        }
        if let Some(v) = t.strip_prefix("-I") {
            return Some(v.to_owned());
        }
        if let Some(v) = t.strip_prefix("-i") {
            return Some(if v.is_empty() {
                "{}".to_owned()
            } else {
                v.to_owned()
            });
        }
    }
    None
}

/// The shells whose code on standard input, or in a `-c` string, is shell code.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "fish", "rbash", "ash", "csh", "tcsh",
];

/// Paths that are a program's standard input.
const STDIN_PATHS: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// Whether the program `stripped` runs (past every wrapper) runs code known only at
/// run time (see [`ParsedCommand::certain`]), and the code it is fed by a
/// here-document or here-string, which is parsed so deny and ask rules meet it.
fn runs_unknown_code(stripped: &[Word], redirects: &[Redirect]) -> (bool, Vec<String>) {
    let Some((first, args)) = stripped.split_first() else {
        return (false, Vec::new());
    };
    if first.dynamic {
        return (true, Vec::new());
    }
    let name = basename(&first.text);
    match name {
        "eval" => (true, Vec::new()),
        "source" | "." => {
            let arg = args
                .iter()
                .find(|a| !a.text.starts_with('-') || a.text == "-");
            let unknown = arg.is_none_or(|a| a.dynamic || STDIN_PATHS.contains(&a.text.as_str()));
            (unknown, Vec::new())
        }
        n if SHELLS.contains(&n) => {
            if !shell_reads_stdin(args) {
                return (false, Vec::new());
            }
            let fed = redirects
                .iter()
                .filter_map(|r| match r.kind {
                    RedirectKind::HereDoc => r.body.clone(),
                    RedirectKind::HereString => Some(r.target.text.clone()),
                    _ => None,
                })
                .collect();
            (true, fed)
        }
        _ => (false, Vec::new()),
    }
}

/// Whether a shell with `args` reads its code from standard input: no `-c`, and `-s`,
/// no script, or a script that is standard input (`--version`/`--help` excepted).
fn shell_reads_stdin(args: &[Word]) -> bool {
    let mut skip = false;
    for w in args {
        let t = w.text.as_str();
        if skip {
            skip = false;
            continue;
        }
        if matches!(t, "--version" | "--help") {
            return false;
        }
        if matches!(t, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            skip = true;
            continue;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            if !t.starts_with("--") && t.contains('c') {
                return false;
            }
            if !t.starts_with("--") && t.contains('s') {
                return true;
            }
            continue;
        }
        return w.dynamic || STDIN_PATHS.contains(&t);
    }
    true
}

/// Whether a wrapper among the leading words runs the command in another directory
/// (`env -C`, `sudo -D`).
fn words_change_dir(words: &[Word]) -> bool {
    let mut rest = words;
    while let Some(n) = strip_step(rest, false) {
        if n == 0 {
            break;
        }
        let step = rest.get(..n).unwrap_or_default();
        let name = step.first().map(|w| basename(&w.text)).unwrap_or_default();
        if matches!(name, "env" | "sudo")
            && step.iter().any(|w| {
                matches!(w.text.as_str(), "-C" | "--chdir" | "-D") || w.text.starts_with("--chdir=")
            })
        {
            return true;
        }
        rest = rest.get(n..).unwrap_or_default();
    }
    false
}

/// How a file command takes its arguments.
struct FileCommand {
    names: &'static [&'static str],
    /// Options whose value is a separate word and not a path.
    opts_with_arg: &'static [&'static str],
    /// Options whose value is a path the command reads.
    read_opts: &'static [&'static str],
    /// Options whose value is a path the command writes.
    write_opts: &'static [&'static str],
    /// Options that supply the program/pattern, so no positional one is taken.
    program_opts: &'static [&'static str],
    /// Whether the first positional argument is a program or pattern, not a path.
    program_first: bool,
    /// Which positional paths are written.
    writes: Writes,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Writes {
    None,
    All,
    /// The last positional (cp: the target; the others are read).
    Last,
    /// The second positional (uniq, xxd: the output file).
    Second,
}

const FILE_COMMANDS: &[FileCommand] = &[
    FileCommand {
        names: &["cat", "zcat", "bzcat", "xzcat"],
        opts_with_arg: &[],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["tac"],
        opts_with_arg: &["-s", "--separator"],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["base64", "base32", "basenc"],
        opts_with_arg: &["-w", "--wrap"],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["less", "more", "most"],
        opts_with_arg: &[
            "-b",
            "-h",
            "-j",
            "-k",
            "-p",
            "-P",
            "-t",
            "-T",
            "-x",
            "-y",
            "-z",
            "-#",
            "-n",
            "--lines",
            "--pattern",
            "--tag",
            "--shift",
            "--tabs",
            "--max-back-scroll",
            "--max-forw-scroll",
            "--window",
            "--prompt",
        ],
        read_opts: &[],
        write_opts: &["-o", "-O", "--log-file", "--LOG-FILE"],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["nl"],
        opts_with_arg: &[
            "-b",
            "-d",
            "-f",
            "-h",
            "-i",
            "-l",
            "-n",
            "-s",
            "-v",
            "-w",
            "--body-numbering",
            "--section-delimiter",
            "--footer-numbering",
            "--header-numbering",
            "--line-increment",
            "--join-blank-lines",
            "--number-format",
            "--number-separator",
            "--starting-line-number",
            "--number-width",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["file"],
        opts_with_arg: &[
            "-F",
            "-e",
            "-P",
            "--separator",
            "--exclude",
            "--exclude-quiet",
            "--parameter",
        ],
        read_opts: &["-m", "--magic-file", "-f", "--files-from"],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["stat"],
        opts_with_arg: &["-c", "--format", "--printf"],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["strings"],
        opts_with_arg: &[
            "-n",
            "-t",
            "-e",
            "-T",
            "-s",
            "--bytes",
            "--radix",
            "--encoding",
            "--target",
            "--output-separator",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["od"],
        opts_with_arg: &[
            "-A",
            "-j",
            "-N",
            "-S",
            "-t",
            "--address-radix",
            "--skip-bytes",
            "--read-bytes",
            "--strings",
            "--format",
            "--width",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["hexdump", "hd"],
        opts_with_arg: &["-e", "-n", "-s"],
        read_opts: &["-f"],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["cut"],
        opts_with_arg: &[
            "-b",
            "-c",
            "-f",
            "-d",
            "--bytes",
            "--characters",
            "--fields",
            "--delimiter",
            "--output-delimiter",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["head"],
        opts_with_arg: &["-n", "-c", "--lines", "--bytes"],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["tail"],
        opts_with_arg: &[
            "-n",
            "-c",
            "-s",
            "--lines",
            "--bytes",
            "--sleep-interval",
            "--pid",
            "--max-unchanged-stats",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["wc"],
        opts_with_arg: &[],
        read_opts: &["--files0-from"],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["cmp"],
        opts_with_arg: &["-i", "-n", "--ignore-initial", "--bytes"],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["diff", "sdiff", "diff3"],
        opts_with_arg: &[
            "-C",
            "-U",
            "-F",
            "-I",
            "-L",
            "-x",
            "-S",
            "-D",
            "-W",
            "--label",
            "--ifdef",
            "--exclude",
            "--show-function-line",
            "--ignore-matching-lines",
            "--starting-file",
            "--line-format",
            "--old-line-format",
            "--new-line-format",
            "--unchanged-line-format",
            "--tabsize",
            "--width",
            "--context",
            "--unified",
            "--horizon-lines",
            "--color",
            "--palette",
        ],
        read_opts: &["-X", "--exclude-from", "--from-file", "--to-file"],
        write_opts: &["-o", "--output"],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["ls", "dir", "vdir"],
        opts_with_arg: &[
            "-I",
            "-w",
            "-T",
            "--ignore",
            "--hide",
            "--width",
            "--tabsize",
            "--format",
            "--sort",
            "--time",
            "--time-style",
            "--color",
            "--quoting-style",
            "--block-size",
            "--indicator-style",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["tree"],
        opts_with_arg: &[
            "-L",
            "-P",
            "-I",
            "-H",
            "-T",
            "--charset",
            "--filelimit",
            "--timefmt",
            "--sort",
        ],
        read_opts: &[],
        write_opts: &["-o"],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["grep", "egrep", "fgrep", "zgrep"],
        opts_with_arg: &[
            "-m",
            "-A",
            "-B",
            "-C",
            "-d",
            "-D",
            "--max-count",
            "--context",
            "--after-context",
            "--before-context",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--label",
            "--color",
            "--colour",
            "--binary-files",
            "--devices",
            "--directories",
            "--group-separator",
        ],
        read_opts: &["-f", "--file", "--exclude-from"],
        write_opts: &[],
        program_opts: &["-e", "--regexp", "-f", "--file"],
        program_first: true,
        writes: Writes::None,
    },
    FileCommand {
        names: &["rg"],
        opts_with_arg: &[
            "-m",
            "-A",
            "-B",
            "-C",
            "-g",
            "-t",
            "-T",
            "-j",
            "-M",
            "-E",
            "-r",
            "-d",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--type-add",
            "--threads",
            "--max-columns",
            "--encoding",
            "--replace",
            "--max-count",
            "--context",
            "--after-context",
            "--before-context",
            "--max-depth",
            "--sort",
            "--sortr",
            "--colors",
            "--color",
            "--path-separator",
            "--max-filesize",
            "--dfa-size-limit",
            "--regex-size-limit",
            "--engine",
            "--context-separator",
            "--field-match-separator",
            "--field-context-separator",
        ],
        read_opts: &["-f", "--file", "--ignore-file"],
        write_opts: &[],
        program_opts: &["-e", "--regexp", "-f", "--file"],
        program_first: true,
        writes: Writes::None,
    },
    FileCommand {
        names: &["sed"],
        opts_with_arg: &["-l", "--line-length"],
        read_opts: &["-f", "--file"],
        write_opts: &[],
        program_opts: &["-e", "--expression", "-f", "--file"],
        program_first: true,
        writes: Writes::None,
    },
    FileCommand {
        names: &["awk", "gawk", "mawk", "nawk"],
        opts_with_arg: &["-v", "-F"],
        read_opts: &["-f", "--file"],
        write_opts: &[],
        program_opts: &["-f", "--file"],
        program_first: true,
        writes: Writes::None,
    },
    FileCommand {
        names: &["jq"],
        opts_with_arg: &["--arg", "--argjson", "--indent", "-L"],
        read_opts: &["-f", "--from-file", "--slurpfile", "--rawfile"],
        write_opts: &[],
        program_opts: &["-f", "--from-file"],
        program_first: true,
        writes: Writes::None,
    },
    FileCommand {
        names: &["sort"],
        opts_with_arg: &[
            "-k",
            "-t",
            "-S",
            "-T",
            "--key",
            "--field-separator",
            "--buffer-size",
            "--temporary-directory",
            "--parallel",
            "--batch-size",
            "--compress-program",
        ],
        read_opts: &["--files0-from"],
        write_opts: &["-o", "--output"],
        program_opts: &[],
        program_first: false,
        writes: Writes::None,
    },
    FileCommand {
        names: &["uniq"],
        opts_with_arg: &[
            "-f",
            "-s",
            "-w",
            "--skip-fields",
            "--skip-chars",
            "--check-chars",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::Second,
    },
    FileCommand {
        names: &["xxd"],
        opts_with_arg: &[
            "-c",
            "-g",
            "-l",
            "-o",
            "-s",
            "-n",
            "-cols",
            "-len",
            "-seek",
            "-groupsize",
            "-offset",
            "-name",
        ],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::Second,
    },
    FileCommand {
        names: &["tee"],
        opts_with_arg: &[],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::All,
    },
    FileCommand {
        names: &["touch"],
        opts_with_arg: &["-d", "-t", "--date"],
        read_opts: &["-r", "--reference"],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::All,
    },
    FileCommand {
        names: &["rm", "rmdir", "unlink"],
        opts_with_arg: &[],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::All,
    },
    FileCommand {
        names: &["mkdir"],
        opts_with_arg: &["-m", "--mode", "--context"],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::All,
    },
    FileCommand {
        names: &["truncate"],
        opts_with_arg: &["-s", "--size"],
        read_opts: &["-r", "--reference"],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::All,
    },
    FileCommand {
        names: &["shred"],
        opts_with_arg: &["-n", "-s", "--iterations", "--size", "--random-source"],
        read_opts: &[],
        write_opts: &[],
        program_opts: &[],
        program_first: false,
        writes: Writes::All,
    },
    FileCommand {
        names: &["mv"],
        opts_with_arg: &["-S", "--suffix"],
        read_opts: &[],
        write_opts: &["-t", "--target-directory"],
        program_opts: &[],
        program_first: false,
        writes: Writes::All,
    },
    FileCommand {
        names: &["cp", "ln", "install"],
        opts_with_arg: &[
            "-S", "--suffix", "-m", "-o", "-g", "--mode", "--owner", "--group",
        ],
        read_opts: &[],
        write_opts: &["-t", "--target-directory"],
        program_opts: &[],
        program_first: false,
        writes: Writes::Last,
    },
];

/// The path arguments of a file command the core recognises (SPEC §4 "Read and Edit
/// rules meet shell commands"), each with whether it is written.
fn file_words(words: &[Word]) -> Vec<(Word, bool)> {
    let Some((first, args)) = words.split_first() else {
        return Vec::new();
    };
    let value = |a: &Word, text: &str| Word {
        text: text.to_owned(),
        dynamic: a.dynamic,
        quoted: a.quoted,
    };
    let name = basename(&first.text);
    let mut out: Vec<(Word, bool)> = Vec::new();
    if name == "dd" {
        for a in args {
            if let Some(p) = a.text.strip_prefix("if=") {
                out.push((value(a, p), false));
            } else if let Some(p) = a.text.strip_prefix("of=") {
                out.push((value(a, p), true));
            }
        }
        return out;
    }
    if name == "find" {
        // The starting points: the words before the first expression.
        for a in args {
            if a.text.starts_with('-') || a.text == "(" || a.text == "!" {
                break;
            }
            out.push((a.clone(), false));
        }
        return out;
    }
    let Some(spec) = FILE_COMMANDS.iter().find(|c| c.names.contains(&name)) else {
        return out;
    };
    let in_place = name == "sed"
        && args.iter().any(|a| {
            let t = a.text.as_str();
            t.starts_with("--in-place")
                || t.starts_with("-i")
                || (t.starts_with('-')
                    && !t.starts_with("--")
                    && t.len() > 1
                    && t.chars().skip(1).all(|c| c.is_ascii_alphabetic())
                    && t.contains('i'))
        });
    let mut positional: Vec<&Word> = Vec::new();
    let mut program_given = false;
    let mut target_given = false;
    let mut it = args.iter();
    let mut options_done = false;
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if t.starts_with('+') && matches!(name, "less" | "more" | "most" | "tail") {
            // `less +G f`, `tail +5 f`: a command or a line number, not a path.
            continue;
        }
        if options_done || !t.starts_with('-') || t == "-" {
            if t != "-" {
                positional.push(a);
            }
            continue;
        }
        if t == "--" {
            options_done = true;
            continue;
        }
        let (opt, inline) = match t.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v)),
            _ => (t, None),
        };
        if spec.program_opts.contains(&opt) {
            program_given = true;
        }
        let takes = |list: &[&str]| list.contains(&opt);
        if takes(spec.read_opts) || takes(spec.write_opts) {
            let write = takes(spec.write_opts);
            target_given |= write;
            if let Some(v) = inline {
                out.push((value(a, v), write));
            } else if let Some(v) = it.next() {
                // `--slurpfile name file`, `--rawfile name file`: the file is second.
                let v = if matches!(opt, "--slurpfile" | "--rawfile") {
                    it.next().unwrap_or(v)
                } else {
                    v
                };
                out.push((v.clone(), write));
            }
            continue;
        }
        if inline.is_none() && (takes(spec.opts_with_arg) || takes(spec.program_opts)) {
            let _ = it.next();
            if opt == "--arg" || opt == "--argjson" {
                let _ = it.next();
            }
        }
    }
    let mut positional = positional.into_iter();
    if spec.program_first && !program_given {
        let _ = positional.next();
    }
    let positional: Vec<&Word> = positional.collect();
    let n = positional.len();
    for (i, w) in positional.into_iter().enumerate() {
        let write = in_place
            || match spec.writes {
                Writes::None => false,
                Writes::All => true,
                Writes::Last => !target_given && i + 1 == n && n > 1,
                Writes::Second => i == 1,
            };
        out.push((w.clone(), write));
    }
    out
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
///
/// **A program word holding whitespace** (`rm\ -rf build`, `'rm -rf' build`,
/// `/bin/rm<U+00A0>`) makes the shell run a program of that odd name, which exists
/// only if someone made it. Deny and ask rules still meet it by the word's first
/// whitespace-separated token (any Unicode whitespace; a word of whitespace alone
/// gives way to the next word), the rest of the word and the other words
/// following, with the basename variant too: `rm\ -rf build` meets
/// `Bash(rm:*)` as `rm -rf build` and stays denied. Allow rules never cover such a
/// program by a pattern ([`Part::allowable`]).
fn strict_forms(words: &[Word], forms: &mut Vec<String>, visit: &mut dyn FnMut(&[Word])) {
    let mut rest: &[Word] = words;
    loop {
        if rest.is_empty() {
            break;
        }
        forms.push(join(rest));
        if let Some((first, tail)) = rest.split_first() {
            let tail = tail.iter().map(|w| w.text.as_str());
            let base = basename(&first.text);
            if base != first.text {
                forms.push(
                    std::iter::once(base)
                        .chain(tail.clone())
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            if first.text.contains(char::is_whitespace) {
                let tokens: Vec<&str> = first.text.split_whitespace().chain(tail).collect();
                if let Some((program, args)) = tokens.split_first() {
                    for p in [*program, basename(program)] {
                        forms.push(
                            std::iter::once(p)
                                .chain(args.iter().copied())
                                .collect::<Vec<_>>()
                                .join(" "),
                        );
                    }
                }
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
            | "coproc"
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
        name: "busybox",
        opts_with_arg: &[],
        positional: 0,
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

/// A command string the words run in their turn: `sh -c STRING`, `eval ARGS`,
/// `watch CMD`, `find ... -exec CMD ;`. Returns the string (and whether it runs in
/// a directory of its own, `-execdir`), and whether what runs is not known before the
/// shell runs (`sh -c "$X"`, `env -S`).
fn inner_command(words: &[Word]) -> (Option<(String, bool)>, bool) {
    let Some((first, rest)) = words.split_first() else {
        return (None, false);
    };
    let name = basename(&first.text);
    match name {
        n if SHELLS.contains(&n) => {
            let mut saw_c = false;
            let mut skip = false;
            for w in rest {
                let t = w.text.as_str();
                if skip {
                    skip = false;
                    continue;
                }
                if t == "-o"
                    || t == "+o"
                    || t == "-O"
                    || t == "+O"
                    || t == "--rcfile"
                    || t == "--init-file"
                {
                    skip = true;
                    continue;
                }
                if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
                    if !t.starts_with("--") && t.contains('c') {
                        saw_c = true;
                    }
                    continue;
                }
                if saw_c {
                    return (Some((t.to_owned(), false)), w.dynamic);
                }
                return (None, false);
            }
            // `-c` with no string here: the code comes from elsewhere (`xargs sh -c`).
            (None, saw_c)
        }
        "flock" => {
            // `flock [options] FILE -c COMMAND`: the command is a shell string.
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                let t = w.text.as_str();
                if t == "-c" || t == "--command" {
                    return match it.next() {
                        Some(c) => (Some((c.text.clone(), false)), c.dynamic),
                        None => (None, true),
                    };
                }
                if let Some(c) = t.strip_prefix("--command=") {
                    return (Some((c.to_owned(), false)), w.dynamic);
                }
            }
            (None, false)
        }
        "eval" => (Some((join(rest), false)), rest.iter().any(|w| w.dynamic)),
        "watch" => {
            let n = strip_step(words, false).unwrap_or(words.len());
            let cmd = words.get(n..).unwrap_or_default();
            if cmd.is_empty() {
                (None, false)
            } else {
                (Some((join(cmd), false)), cmd.iter().any(|w| w.dynamic))
            }
        }
        "env"
            if rest
                .iter()
                .any(|w| w.text == "-S" || w.text.starts_with("--split-string")) =>
        {
            (None, true)
        }
        "find" => {
            let mut out: Vec<String> = Vec::new();
            let mut own_dir = false;
            let mut unknown = false;
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                if matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    own_dir |= w.text.ends_with("dir");
                    let words: Vec<&Word> = it
                        .by_ref()
                        .take_while(|w| w.text != ";" && w.text != "+")
                        .collect();
                    // A found file name as the program, or as a shell's code.
                    let program = words.first().map(|w| basename(&w.text)).unwrap_or_default();
                    unknown |= words
                        .first()
                        .is_some_and(|w| w.dynamic || w.text.contains("{}"))
                        || (SHELLS.contains(&program)
                            && words.iter().skip(1).any(|w| w.text.contains("{}"))
                            && words.iter().any(|w| {
                                w.text.starts_with('-')
                                    && !w.text.starts_with("--")
                                    && w.text.contains('c')
                            }));
                    let cmd: Vec<String> = words.iter().map(|w| shell_quote(&w.text)).collect();
                    if !cmd.is_empty() {
                        out.push(cmd.join(" "));
                    }
                }
            }
            if out.is_empty() {
                (None, unknown)
            } else {
                (Some((out.join("\n"), own_dir)), unknown)
            }
        }
        _ => (None, false),
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
        assert_eq!(
            words("if a; then b; elif c; then d; else e; fi; while f; do g; done"),
            vec![
                vec!["a"],
                vec!["b"],
                vec!["c"],
                vec!["d"],
                vec!["e"],
                vec!["f"],
                vec!["g"]
            ]
        );
        assert_eq!(
            words("for x in a b; do rm $x; done; case y in a) rm z;; esac; f() { rm w; }"),
            vec![vec!["rm", "$x"], vec!["rm", "z"], vec!["rm", "w"]]
        );
    }

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

    #[test]
    fn substitutions_become_parts() {
        assert_eq!(
            words("echo $(rm -rf /)"),
            vec![vec!["rm", "-rf", "/"], vec!["echo", "$(rm -rf /)"]]
        );
        assert_eq!(
            words("echo \"x $(id) `whoami`\""),
            vec![
                vec!["id"],
                vec!["whoami"],
                vec!["echo", "x $(id) $(whoami)"]
            ]
        );
        let w = words("diff <(ls a) >(cat)");
        assert_eq!(w.first().unwrap(), &vec!["ls", "a"]);
        assert_eq!(w.get(1).unwrap(), &vec!["cat"]);
        // Single quotes keep substitutions literal.
        assert_eq!(
            words("echo '$(rm -rf /)'"),
            vec![vec!["echo", "$(rm -rf /)"]]
        );
        for cmd in [
            "echo ${X:-$(rm -rf /)}",
            "echo $((1 + $(rm -rf /)))",
            "cat <<EOF\n$(rm -rf /)\nEOF",
            "x=$(rm -rf /)",
            "[[ -f $(rm -rf /) ]]",
            "echo `echo \\`rm -rf /\\``",
        ] {
            assert!(
                words(cmd)
                    .iter()
                    .any(|w| w.first().map(String::as_str) == Some("rm")),
                "{cmd}"
            );
        }
        // A quoted here-document is text.
        assert_eq!(
            words("cat <<'EOF'\nrm -rf /\nEOF\nls"),
            vec![vec!["cat"], vec!["ls"]]
        );
    }

    #[test]
    fn redirects() {
        let s = split("echo hi > out.txt 2>&1 < in").unwrap();
        let s = s.first().unwrap();
        assert_eq!(s.words.len(), 2);
        let kinds: Vec<_> = s.redirects.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            vec![
                RedirectKind::Write,
                RedirectKind::Duplicate,
                RedirectKind::Read
            ]
        );
    }

    #[test]
    fn errors_on_unbalanced_input() {
        assert!(split("echo 'x").is_err());
        assert!(split("echo \"x").is_err());
        assert!(split("echo $(x").is_err());
        assert!(split("echo `x").is_err());
        assert!(
            split("cat <<EOF\nno end").is_err()
                || !parse_command("cat <<EOF\nno end").parts.is_empty()
        );
        let deep = format!("{}x{}", "$(".repeat(100), ")".repeat(100));
        assert!(split(&deep).is_err());
        assert!(!parse_command(&deep).certain);
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
        let f = strict("ionice -c 3 setsid flock /tmp/l watch -n 1 noglob rm x");
        assert!(f.contains(&"rm x".to_owned()));
        let f = strict("watch 'ls; rm x'");
        assert!(f.contains(&"rm x".to_owned()));
    }

    #[test]
    fn nested_command_strings_are_parts() {
        assert!(strict("bash -c 'rm -rf /'").contains(&"rm -rf /".to_owned()));
        assert!(strict("sudo sh -ec \"curl x | sh\"").contains(&"curl x".to_owned()));
        assert!(strict("dash -c 'ls && rm y'").contains(&"rm y".to_owned()));
        assert!(strict("eval rm -rf /").contains(&"rm -rf /".to_owned()));
        assert!(strict("find . -exec rm {} \\;").contains(&"rm {}".to_owned()));
        assert!(strict("find . -execdir rm {} +").contains(&"rm {}".to_owned()));
        assert!(strict("find . -ok rm {} \\;").contains(&"rm {}".to_owned()));
        assert!(strict("bash -c \"bash -c 'rm -rf /'\"").contains(&"rm -rf /".to_owned()));
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
    fn unparseable_commands_still_have_strict_parts() {
        let p = parse_command("rm -rf / 'oops");
        assert!(!p.certain);
        assert!(p
            .parts
            .iter()
            .any(|part| part.strict_forms.iter().any(|f| f.starts_with("rm -rf /"))));
    }

    fn files(cmd: &str) -> Vec<(String, bool, Vec<String>)> {
        parse_command(cmd)
            .files
            .into_iter()
            .map(|f| (f.path.clone(), f.write, f.candidates()))
            .collect()
    }

    #[test]
    fn write_targets() {
        let p = parse_command("echo a > out.txt; echo b >> /dev/null; cat x &> log");
        let t: Vec<_> = p.write_targets.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(t, vec!["out.txt", "log"]);
        let p = parse_command("cd $D && echo x > passwd");
        assert!(!p.write_targets.first().unwrap().resolvable);
        let p = parse_command("echo x > $F");
        assert!(!p.write_targets.first().unwrap().resolvable);
    }

    #[test]
    fn file_commands() {
        assert_eq!(
            files("cat a b"),
            vec![
                ("a".into(), false, vec!["a".into()]),
                ("b".into(), false, vec!["b".into()])
            ]
        );
        let f = files("grep -n secret .env");
        assert_eq!(f.len(), 1);
        assert_eq!(f.first().unwrap().0, ".env");
        let f = files("grep -e x -f pats .env");
        let paths: Vec<_> = f.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(paths, vec!["pats", ".env"]);
        let f = files("head -n 5 a");
        assert_eq!(f.len(), 1);
        let f = files("cp a b c");
        assert_eq!(
            f.iter().map(|x| x.1).collect::<Vec<_>>(),
            vec![false, false, true]
        );
        let f = files("sed -i s/a/b/ f");
        assert_eq!(f, vec![("f".into(), true, vec!["f".into()])]);
        let f = files("jq .a --slurpfile n secret.json in.json");
        let paths: Vec<_> = f.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(paths, vec!["secret.json", "in.json"]);
        let f = files("sudo cat /etc/shadow");
        assert_eq!(f.first().unwrap().0, "/etc/shadow");
        let f = files("cd /etc && cat passwd");
        assert_eq!(f.first().unwrap().2, vec!["/etc/passwd".to_owned()]);
        let f = files("cd /etc; cat passwd");
        assert_eq!(
            f.first().unwrap().2,
            vec!["passwd".to_owned(), "/etc/passwd".to_owned()]
        );
        let f = files("cd /etc && cd ssh && tee x < y");
        assert_eq!(f.first().unwrap().2, vec!["/etc/ssh/y".to_owned()]);
        let p = parse_command("for d in a b; do cd $d; cat x; done");
        assert!(p.files.iter().all(|f| !f.resolvable()));
        let f = files("bash -c 'cat ~/.ssh/id_rsa'");
        assert_eq!(f.first().unwrap().0, "~/.ssh/id_rsa");
        let f = files("od -c secret");
        assert_eq!(f.first().unwrap().0, "secret");
        let f = files("cat -n secret");
        assert_eq!(f.first().unwrap().0, "secret");
        let f = files("dd if=/dev/sda of=disk.img");
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn programs_known_only_at_run_time_are_uncertain() {
        for cmd in [
            "$X -rf b",
            "{rm,-rf,b}",
            "/bin/r? x",
            "eval ls",
            "ls | sh",
            "bash -s",
            "sh <<EOF\nls\nEOF",
            ". <(echo ls)",
            "xargs -I{} sh -c '{}'",
            "find . -exec {} \\;",
        ] {
            let p = parse_command(cmd);
            assert!(!p.certain, "{cmd}");
            assert!(p.parts.iter().any(|part| part.uncertain), "{cmd}");
        }
        for cmd in [
            "ls $X",
            "sh x.sh",
            "bash -c 'ls'",
            "echo {}",
            "find . -exec rm {} +",
        ] {
            assert!(parse_command(cmd).certain, "{cmd}");
        }
        // Fed code is parsed: deny rules meet it.
        assert!(strict("bash <<< 'rm -rf /'").contains(&"rm -rf /".to_owned()));
        assert!(strict("flock /l -c 'rm -rf /'").contains(&"rm -rf /".to_owned()));
        assert!(strict("busybox rm -rf /").contains(&"rm -rf /".to_owned()));
        assert!(strict("( (rm -rf /) )").contains(&"rm -rf /".to_owned()));
        assert!(strict("rm\\ -rf /").contains(&"rm -rf /".to_owned()));
    }

    #[test]
    fn allow_guards_reach_past_wrappers() {
        let p = parse_command("setsid make deploy");
        let part = p.parts.first().unwrap();
        assert_eq!(part.allow_forms, vec!["setsid make deploy".to_owned()]);
        assert_eq!(part.allow_guards, vec!["setsid make".len()]);
        let p = parse_command("find . -delete");
        assert_eq!(
            p.parts.first().unwrap().allow_guards,
            vec!["find . -delete".len()]
        );
        let p = parse_command("make deploy");
        assert_eq!(p.parts.first().unwrap().allow_guards, vec![0]);
    }

    #[test]
    fn the_memo_is_bounded() {
        let mut lru = Lru::new(2);
        for k in ["a", "b", "c"] {
            lru.put(k.to_owned(), Arc::new(parse_command(k)));
        }
        assert!(lru.get("a").is_none());
        assert!(lru.get("b").is_some());
        lru.put("d".to_owned(), Arc::new(parse_command("d")));
        assert!(lru.get("b").is_some());
        assert!(lru.get("c").is_none());
        let a = parse_command_cached("git status && rm x");
        let b = parse_command_cached("git status && rm x");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(*a, parse_command("git status && rm x"));
    }
}
