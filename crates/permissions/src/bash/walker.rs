//! The walker: a command parsed with `brush-parser` and its syntax tree walked into
//! the simple commands it runs (SPEC §4 "Compound shell commands"): `&&`, `||`, `;`,
//! pipelines, subshells, brace groups, `if`/`while`/`until`/`for`/`case`, function
//! bodies, `[[ ... ]]` and arithmetic. Each simple command keeps its redirects and
//! the directories the `cd`s before it may have moved it to (SPEC §4 "Read and Edit
//! rules meet shell commands").
//!
//! [`split`] is the entry point. A command too long or nested too deep is not parsed
//! at all: it is a [`SplitError`].

use super::expand::Seg;
use super::expand::{expand_word, Scope, ShellContext, Var, Vars, MAX_ALTERNATIVES};
use super::words::{basename, Word};
use super::wrappers::{final_words, is_assignment, runs_history};
use brush_parser::ast;
use brush_parser::{Parser, ParserOptions, SourceInfo};
use std::borrow::Cow;
use std::sync::Arc;

/// How deep substitutions, `sh -c` strings and `eval` may nest before a command is
/// taken as one that cannot be parsed.
pub(super) const MAX_DEPTH: usize = 16;
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
    /// The directories the last `cd` left (`$OLDPWD`, `~-`), when one ran for sure.
    pub old: Option<Vec<String>>,
}

impl Default for Bases {
    fn default() -> Self {
        Bases {
            dirs: vec![String::new()],
            unknown: false,
            old: None,
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
        // Where `cd -` and `~-` lead afterwards: known when the `cd` surely ran.
        let before = self.dirs.clone();
        self.old = (certain_to_run && !self.unknown).then_some(before);
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

    /// `cd TARGET` where the shell searches `CDPATH` (SPEC §4 "Read and Edit rules
    /// meet shell commands": the folder a `cd` leads to): bash tries each of
    /// `entries` in turn (an empty one is the current folder), then the current
    /// folder, and goes to the first that exists, which the core cannot tell before
    /// the shell runs; every candidate is kept.
    fn cd_search(&mut self, target: &str, entries: &[String], certain_to_run: bool) {
        let before = self.dirs.clone();
        self.old = (certain_to_run && !self.unknown).then_some(before);
        let mut moved = Vec::new();
        for base in &self.dirs {
            for entry in entries {
                let found = if entry.is_empty() {
                    target.to_owned()
                } else {
                    Bases::join(entry, target)
                };
                moved.push(Bases::join(base, &found));
            }
            moved.push(Bases::join(base, target));
        }
        if certain_to_run {
            self.dirs = moved;
        } else {
            self.dirs.extend(moved);
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
    /// Its words after expansion as the shell would do it (SPEC §4 "What the core
    /// cannot see"), one list per value the command may take; a word that stays
    /// unknown is kept as written (and stays `dynamic`). Empty when expansion
    /// changes nothing.
    pub expanded: Vec<Vec<Word>>,
    /// The variables set before it, for the command strings it runs in its turn.
    pub(super) vars: Arc<Vars>,
    /// Whether it runs at some later time (a function body), where any variable may
    /// have changed.
    pub(super) late: bool,
    /// Whether it runs something not known before the shell runs beyond its words:
    /// arithmetic that reads a value which may be code.
    pub(super) runs_unknown: bool,
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
    let ctx = ShellContext::default();
    let mut w = Walker::new(depth, Bases::default(), &ctx);
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

/// `command` with every `$[ ... ]` written as `$(( ... ))`: the old arithmetic form
/// is arithmetic, and arithmetic is code (SPEC §4 "What the core cannot see").
/// Single-quoted text and escapes are left alone.
fn arithmetic_brackets(command: &str) -> Cow<'_, str> {
    if !command.contains("$[") {
        return Cow::Borrowed(command);
    }
    let mut out = String::with_capacity(command.len() + 8);
    let mut chars = command.chars().peekable();
    let (mut single, mut double) = (false, false);
    // One entry per open `$[`: the `[` nesting inside it.
    let mut open: Vec<usize> = Vec::new();
    while let Some(c) = chars.next() {
        if single {
            out.push(c);
            if c == '\'' {
                single = false;
            }
            continue;
        }
        match c {
            '\\' => {
                out.push(c);
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            '\'' if !double && open.is_empty() => {
                single = true;
                out.push(c);
            }
            '"' if open.is_empty() => {
                double = !double;
                out.push(c);
            }
            '$' if chars.peek() == Some(&'[') => {
                chars.next();
                out.push_str("$((");
                open.push(0);
            }
            '[' if !open.is_empty() => {
                if let Some(d) = open.last_mut() {
                    *d += 1;
                }
                out.push(c);
            }
            ']' if !open.is_empty() => match open.last_mut() {
                Some(0) => {
                    open.pop();
                    out.push_str("))");
                }
                Some(d) => {
                    *d -= 1;
                    out.push(c);
                }
                None => out.push(c),
            },
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn parse_program(command: &str) -> Result<ast::Program, SplitError> {
    if command.len() > MAX_LEN {
        return Err(SplitError::Unsupported("a command this long"));
    }
    if nesting(command) > MAX_NESTING || paren_nesting(command) > MAX_PAREN_NESTING {
        return Err(SplitError::TooDeep);
    }
    let command = arithmetic_brackets(command);
    let command = command.as_ref();
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

/// How many bytes a variable's values may hold in all before the walk stops following
/// it (the value is unknown from then on).
const MAX_VALUE_BYTES: usize = 64 * 1024;

/// The builtins that evaluate array subscripts in their arguments, quoted or not
/// (SPEC §4 "Arithmetic is code").
const SUBSCRIPT_BUILTINS: &[&str] = &[
    "test",
    "[",
    "let",
    "printf",
    "read",
    "declare",
    "local",
    "typeset",
    "readonly",
    "unset",
    "export",
    "mapfile",
    "readarray",
    "wait",
    "getopts",
    "shift",
    "return",
    "exit",
];

/// `NAME=value` (or `NAME+=value`) split into the name, the value's pieces, and
/// whether it appends; `None` when the word's name is not literal text.
fn split_assignment(w: &Word) -> Option<(String, Vec<Seg>, bool)> {
    let Some(Seg::Lit { text, active }) = w.segs.first() else {
        // A word made up by the core: its text is all there is.
        let (name, value) = w.text.split_once('=')?;
        let (name, append) = match name.strip_suffix('+') {
            Some(n) => (n, true),
            None => (name, false),
        };
        let value = vec![Seg::Lit {
            text: value.to_owned(),
            active: false,
        }];
        return Some((name.to_owned(), value, append));
    };
    let (name, first) = text.split_once('=')?;
    let (name, append) = match name.strip_suffix('+') {
        Some(n) => (n, true),
        None => (name, false),
    };
    let mut value = Vec::new();
    if !first.is_empty() {
        value.push(Seg::Lit {
            text: first.to_owned(),
            active: *active,
        });
    }
    value.extend(w.segs.iter().skip(1).cloned());
    Some((name.to_owned(), value, append))
}

/// Whether `cd TARGET` searches `CDPATH` for `TARGET`: a relative folder that does not
/// start from `.` or `..` (bash's `absolute_pathname`), written plainly.
fn cdpath_searched(target: &str) -> bool {
    !(target.is_empty()
        || target == "-"
        || target.starts_with('/')
        || target.starts_with('~')
        || target == "."
        || target == ".."
        || target.starts_with("./")
        || target.starts_with("../"))
}

/// Whether a `pushd` argument names an entry of the folder stack (`+N`, `-N`).
fn is_stack_index(arg: &str) -> bool {
    arg.strip_prefix('+')
        .or_else(|| arg.strip_prefix('-'))
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Walks a syntax tree, collecting simple commands.
pub(super) struct Walker<'c> {
    pub(super) depth: usize,
    pub(super) out: Vec<SimpleCommand>,
    pub(super) error: Option<SplitError>,
    pub(super) ctx: &'c ShellContext,
    /// The variables set so far, as far as the walk can tell.
    pub(super) vars: Vars,
    /// Inside a context where a variable set may not be set for what follows (a
    /// branch, a loop, a subshell, a pipeline, the right side of `&&`/`||`).
    var_flow: usize,
    /// Inside a function body or a string run later: every variable is unknown.
    pub(super) late: bool,
    /// Whether some expansion looked at the file system (a glob).
    pub(super) looked_at_files: bool,
    /// Whether arithmetic in the current command reads a value that may be code (an
    /// unknown variable: `(( $NOPE ))`, `a[$(cmd)]` held in a variable).
    pub(super) arith_unknown: bool,
    /// The attributes (`declare -i`, `-A`, `-n`) that make later words arithmetic.
    pub(super) attrs: super::arith::Attributes,
    /// Names `${X:=w}` set while the current command's words were expanded.
    pub(super) assigned_by_expansion: Vec<String>,
    /// Whether variables can no longer be followed: a nameref (`declare -n`), or code
    /// the walk does not follow ran in this shell (`eval`, `trap`, `source`).
    opaque_vars: bool,
    /// Whether a variable that makes the shell or the programs it starts run code
    /// (`BASH_ENV`, `LD_PRELOAD`, `GIT_SSH_COMMAND`, ...) was set for what follows.
    code_env: bool,
    /// The functions the command defines: calling one may set any variable and move
    /// to any folder.
    functions: std::collections::BTreeSet<String>,
    bases: Bases,
    /// Inside a loop or a function body: a `cd` there moves somewhere unknown.
    repeated: usize,
    /// Inside a conditional or asynchronous context: a `cd` there may not run.
    uncertain_flow: usize,
    /// The text holds `(` and `(` apart (`( (cmd) )`), which the parser may read as
    /// an arithmetic command.
    spaced_parens: bool,
}

impl<'c> Walker<'c> {
    pub(super) fn new(depth: usize, bases: Bases, ctx: &'c ShellContext) -> Self {
        Walker {
            depth,
            out: Vec::new(),
            error: None,
            ctx,
            vars: Vars::new(),
            var_flow: 0,
            late: false,
            looked_at_files: false,
            arith_unknown: false,
            attrs: super::arith::Attributes::default(),
            assigned_by_expansion: Vec::new(),
            opaque_vars: false,
            code_env: false,
            functions: std::collections::BTreeSet::new(),
            bases,
            repeated: 0,
            uncertain_flow: 0,
            spaced_parens: false,
        }
    }

    pub(super) fn fail(&mut self, e: SplitError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// Parses and walks `command` as a nested program.
    pub(super) fn text(&mut self, command: &str) -> Result<(), SplitError> {
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

    pub(super) fn nested(&mut self, command: &str) {
        let mut inner = Walker::new(self.depth + 1, self.bases.clone(), self.ctx);
        inner.repeated = self.repeated;
        inner.uncertain_flow = self.uncertain_flow + 1;
        inner.vars = self.vars.clone();
        inner.var_flow = self.var_flow + 1;
        inner.late = self.late;
        inner.opaque_vars = self.opaque_vars;
        inner.code_env = self.code_env;
        inner.attrs = self.attrs.clone();
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
        self.looked_at_files |= inner.looked_at_files;
        self.arith_unknown |= inner.arith_unknown;
        self.out.append(&mut inner.out);
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for item in &list.0 {
            let asynchronous = usize::from(matches!(item.1, ast::SeparatorOperator::Async));
            self.uncertain_flow += asynchronous;
            self.var_flow += asynchronous;
            self.and_or(&item.0);
            self.uncertain_flow -= asynchronous;
            self.var_flow -= asynchronous;
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
            // A variable set here is set for what follows only when it surely ran.
            let var_flag = usize::from(i > 0);
            self.uncertain_flow += flag;
            self.var_flow += var_flag;
            self.pipeline(p);
            self.uncertain_flow -= flag;
            self.var_flow -= var_flag;
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        let piped = usize::from(p.seq.len() > 1);
        self.uncertain_flow += piped;
        self.var_flow += piped;
        for c in &p.seq {
            self.command(c);
        }
        self.uncertain_flow -= piped;
        self.var_flow -= piped;
    }

    fn command(&mut self, c: &ast::Command) {
        match c {
            ast::Command::Simple(s) => self.simple(s),
            ast::Command::Compound(cc, redirects) => {
                self.compound(cc);
                self.redirect_only(redirects.as_ref().map(|r| r.0.as_slice()));
            }
            ast::Command::Function(f) => {
                self.functions.insert(f.fname.to_string());
                // A body runs whenever it is called: any variable may have changed.
                let late = std::mem::replace(&mut self.late, true);
                self.repeated += 1;
                self.uncertain_flow += 1;
                self.var_flow += 1;
                self.compound(&f.body.0);
                self.redirect_only(f.body.1.as_ref().map(|r| r.0.as_slice()));
                self.repeated -= 1;
                self.uncertain_flow -= 1;
                self.var_flow -= 1;
                self.late = late;
            }
            ast::Command::ExtendedTest(e) => {
                self.extended_test(e);
                self.arith_command("[[ ... ]]");
            }
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
            // `-v` and arithmetic comparisons evaluate array subscripts, quoted ones
            // too (SPEC §4 "Arithmetic is code").
            ast::ExtendedTestExpr::UnaryTest(op, w) => {
                let w = self.word(&w.value);
                self.subscripts(&w);
                // `[[ -v $x ]]`: the name `x` holds may carry a subscript.
                if w.dynamic && matches!(op, ast::UnaryPredicate::ShellVariableIsSetAndAssigned) {
                    let values = self.fields(&w);
                    self.read_each(values, Self::name_subscript);
                }
            }
            ast::ExtendedTestExpr::BinaryTest(op, a, b) => {
                use ast::BinaryPredicate as P;
                let arithmetic = matches!(
                    op,
                    P::ArithmeticEqualTo
                        | P::ArithmeticNotEqualTo
                        | P::ArithmeticLessThan
                        | P::ArithmeticLessThanOrEqualTo
                        | P::ArithmeticGreaterThan
                        | P::ArithmeticGreaterThanOrEqualTo
                );
                for w in [a, b] {
                    let w = self.word(&w.value);
                    self.subscripts(&w);
                    if arithmetic {
                        // Each operand's value is an arithmetic expression (expanded
                        // as an assignment's value is: no splitting, no globs).
                        let values = if w.dynamic {
                            expand_word(&w.segs, &self.scope(), true)
                                .map(|e| e.alternatives.into_iter().map(|f| f.join(" ")).collect())
                        } else {
                            Some(vec![w.text.clone()])
                        };
                        self.read_each(values, Self::arithmetic);
                    }
                }
            }
        }
    }

    fn compound(&mut self, cc: &ast::CompoundCommand) {
        match cc {
            ast::CompoundCommand::Arithmetic(a) => {
                self.arithmetic(&a.expr.value);
                self.arith_command(&format!("(( {} ))", a.expr.value));
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
                    self.arithmetic(&e.value);
                }
                self.arith_command("for (( ... ))");
                self.looped(|w| w.list(&f.body.0));
            }
            ast::CompoundCommand::BraceGroup(b) => self.list(&b.0),
            ast::CompoundCommand::Subshell(s) => {
                self.var_flow += 1;
                self.list(&s.0);
                self.var_flow -= 1;
            }
            ast::CompoundCommand::ForClause(f) => {
                let mut values = Some(Vec::new());
                match &f.values {
                    Some(words) => {
                        for v in words {
                            let w = self.word(&v.value);
                            let fields = self.fields(&w);
                            values = values.zip(fields).map(|(mut all, more)| {
                                all.extend(more);
                                all
                            });
                        }
                    }
                    None => values = None,
                }
                self.integer_loop(&f.variable_name, values.clone());
                self.arith_command("for ... in");
                let var = match values {
                    Some(v) if !self.late => Var::Values(v),
                    _ => Var::Unknown,
                };
                self.vars.insert(f.variable_name.clone(), var);
                self.looped(|w| w.list(&f.body.0));
            }
            ast::CompoundCommand::CaseClause(c) => {
                self.word(&c.value.value);
                self.uncertain_flow += 1;
                self.var_flow += 1;
                for item in &c.cases {
                    for p in &item.patterns {
                        self.word(&p.value);
                    }
                    if let Some(cmd) = &item.cmd {
                        self.list(cmd);
                    }
                }
                self.uncertain_flow -= 1;
                self.var_flow -= 1;
            }
            ast::CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                self.uncertain_flow += 1;
                self.var_flow += 1;
                self.list(&i.then);
                for e in i.elses.iter().flatten() {
                    if let Some(c) = &e.condition {
                        self.list(c);
                    }
                    self.list(&e.body);
                }
                self.uncertain_flow -= 1;
                self.var_flow -= 1;
            }
            ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
                self.looped(|me| {
                    me.list(&w.0);
                    me.list(&w.1 .0);
                });
            }
        }
    }

    /// Walks a loop body: once, and once more when the first pass set a variable (a
    /// later round sees what an earlier one set).
    /// Where arithmetic outside a simple command (`(( ))`, `for (( ))`) read a value
    /// that may be code, a part of its own that runs something unknown.
    fn arith_command(&mut self, raw: &str) {
        if std::mem::take(&mut self.arith_unknown) {
            self.out.push(SimpleCommand {
                words: vec![Word::literal("((")],
                raw: raw.to_owned(),
                bases: self.bases.clone(),
                runs_unknown: true,
                ..SimpleCommand::default()
            });
        }
    }

    fn looped(&mut self, f: impl Fn(&mut Self)) {
        self.repeated += 1;
        self.uncertain_flow += 1;
        self.var_flow += 1;
        let before = self.vars.clone();
        f(self);
        if self.vars != before {
            f(self);
        }
        self.repeated -= 1;
        self.uncertain_flow -= 1;
        self.var_flow -= 1;
    }

    /// Arithmetic is code (SPEC §4): the substitutions in `expr` are walked, and every
    /// variable it reads is read as arithmetic in its turn (a value `a[$(cmd)]`
    /// runs `cmd`); a variable whose value is not known may be such code, so the
    /// command is marked as running something unknown. A variable the expression
    /// assigns (`i=0`, `i++`) holds a number from then on.
    pub(super) fn arithmetic(&mut self, expr: &str) {
        let mut read = std::collections::BTreeSet::new();
        self.arithmetic_at(expr, 0, &mut read);
    }

    /// `read`: the variables already read as arithmetic in this expression (each is
    /// read once: a value naming itself does not recurse without end).
    fn arithmetic_at(
        &mut self,
        expr: &str,
        depth: usize,
        read: &mut std::collections::BTreeSet<String>,
    ) {
        self.scan(expr);
        if depth > 8 {
            self.arith_unknown = true;
            return;
        }
        let bytes: Vec<char> = expr.chars().collect();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes.get(i).copied().unwrap_or(' ');
            if c == '$' {
                // `$1`, `${2}`, `$@`: a positional parameter's value is arithmetic too.
                let mut j = i + 1;
                if bytes.get(j) == Some(&'{') {
                    j += 1;
                }
                let start = j;
                while bytes.get(j).is_some_and(char::is_ascii_digit) {
                    j += 1;
                }
                if j == start && bytes.get(j).is_some_and(|c| matches!(c, '@' | '*')) {
                    j += 1;
                }
                let name: String = bytes.get(start..j).unwrap_or_default().iter().collect();
                if !name.is_empty() {
                    if name != "0" {
                        match self.values_of(&name) {
                            Some(values) if read.insert(name) => {
                                for v in values {
                                    self.arithmetic_at(&v, depth + 1, read);
                                }
                            }
                            Some(_) => {}
                            None => self.arith_unknown = true,
                        }
                    }
                    i = j;
                    continue;
                }
            }
            if c.is_ascii_digit() {
                // A number, in any base (`0x1f`, `2#101`, `64#z_`).
                while bytes
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '#' | '_' | '@'))
                {
                    i += 1;
                }
                continue;
            }
            if !(c.is_ascii_alphabetic() || c == '_') {
                i += 1;
                continue;
            }
            let start = i;
            while bytes
                .get(i)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                i += 1;
            }
            let name: String = bytes.get(start..i).unwrap_or_default().iter().collect();
            let after: String = bytes.get(i..).unwrap_or_default().iter().collect();
            let after = after.trim_start();
            let before: String = bytes.get(..start).unwrap_or_default().iter().collect();
            let assigns = (after.starts_with('=') && !after.starts_with("=="))
                || [
                    "++", "--", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
                ]
                .iter()
                .any(|op| after.starts_with(op))
                || before.trim_end().ends_with("++")
                || before.trim_end().ends_with("--");
            let value = {
                let scope = self.scope();
                match self.vars.get(&name) {
                    Some(Var::Number) => Some(Vec::new()),
                    _ => super::expand::lookup(&name, &scope),
                }
            };
            let first_read = read.insert(name.clone());
            match value {
                Some(_) if !first_read => {}
                Some(values) => {
                    for v in values {
                        if v.chars()
                            .any(|c| c.is_ascii_alphabetic() || c == '_' || c == '[')
                        {
                            self.arithmetic_at(&v, depth + 1, read);
                        }
                    }
                }
                // `i=0`, `i++`: what it held is never read as code... except by
                // `i++` itself, which reads it first; an unknown `i` there is code.
                None if assigns && after.starts_with('=') => {}
                None => self.arith_unknown = true,
            }
            if assigns && !self.late {
                self.vars.insert(name, Var::Number);
            }
        }
    }

    /// Whether a variable set here is surely set for what follows.
    pub(super) fn certain_here(&self) -> bool {
        self.var_flow == 0 && !self.late
    }

    /// The scope a word of the current command is expanded in.
    fn scope(&self) -> Scope<'_> {
        Scope {
            ctx: self.ctx,
            vars: &self.vars,
            bases: &self.bases,
            late: self.late || self.opaque_vars,
        }
    }

    /// The values of variable `name` here, or `None` when unknown (a number too).
    pub(super) fn values_of(&self, name: &str) -> Option<Vec<String>> {
        let scope = self.scope();
        super::expand::lookup(name, &scope)
    }

    /// Every field `w` may expand to (all its alternatives together), or `None` when
    /// it stays unknown.
    pub(super) fn fields(&mut self, w: &Word) -> Option<Vec<String>> {
        if !w.dynamic {
            return Some(vec![w.text.clone()]);
        }
        let e = expand_word(&w.segs, &self.scope(), false)?;
        self.looked_at_files |= e.looked_at_files;
        Some(e.alternatives.into_iter().flatten().collect())
    }

    /// A word's text searched for substitutions where a builtin evaluates array
    /// subscripts (`test -v 'a[$(cmd)]'`, `let`, `declare`, ...): quoting does not
    /// keep them from running (SPEC §4 "Arithmetic is code").
    fn subscripts(&mut self, w: &Word) {
        if w.quoted && w.text.contains('[') {
            self.scan(&w.text);
        }
    }

    /// The words of a simple command after expansion: one list per value the command
    /// may take (empty when expansion changes nothing); words that stay unknown kept
    /// as written.
    fn expand_command(&mut self, words: &[Word]) -> Vec<Vec<Word>> {
        // `~` is `$HOME`: where the command set `HOME`, a tilde is expanded here.
        let home_set = self.vars.contains_key("HOME") || self.opaque_vars;
        let expands =
            |w: &Word| w.dynamic || (home_set && matches!(w.segs.first(), Some(Seg::Tilde(_))));
        if !words.iter().any(expands) {
            return Vec::new();
        }
        let program_at = words.iter().position(|w| !is_assignment(w));
        let mut alts: Vec<Vec<Word>> = vec![Vec::new()];
        for (i, w) in words.iter().enumerate() {
            let options: Vec<Vec<Word>> = if !expands(w) {
                vec![vec![w.clone()]]
            } else {
                let assignment = is_assignment(w);
                match expand_word(&w.segs, &self.scope(), assignment) {
                    // A program word that globs to several paths runs the first in
                    // the locale's collation order, which the core does not know
                    // (`/usr/bin/@(R*|rm)`): which program runs stays unknown.
                    Some(e)
                        if Some(i) == program_at
                            && e.looked_at_files
                            && e.alternatives.iter().any(|f| f.len() > 1) =>
                    {
                        self.looked_at_files = true;
                        let mut w = w.clone();
                        w.dynamic = true;
                        w.segs = vec![Seg::Unknown];
                        vec![vec![w]]
                    }
                    Some(e) => {
                        self.looked_at_files |= e.looked_at_files;
                        e.alternatives
                            .into_iter()
                            .map(|fields| fields.into_iter().map(Word::literal).collect())
                            .collect()
                    }
                    None => {
                        let mut w = w.clone();
                        w.dynamic = true;
                        vec![vec![w]]
                    }
                }
            };
            // One value (the common case): the words extend every alternative in place.
            if let [only] = options.as_slice() {
                for a in &mut alts {
                    a.extend(only.iter().cloned());
                }
                continue;
            }
            let mut next = Vec::new();
            for a in &alts {
                for o in &options {
                    let mut n = a.clone();
                    n.extend(o.iter().cloned());
                    next.push(n);
                }
            }
            if next.len() > MAX_ALTERNATIVES {
                return Vec::new();
            }
            alts = next;
        }
        alts
    }

    /// Follows the variables a simple command sets (SPEC §4: "variables set earlier
    /// in the same command"): `NAME=value` alone, `export`/`declare`/`local`/
    /// `typeset`/`readonly NAME=value`; the names `read`, `mapfile`, `printf -v`,
    /// `unset`, `getopts` and `declare` with options set become unknown. Where the
    /// command may not run (a branch, a loop, a pipeline), a variable may keep its
    /// old value too.
    fn track_vars(&mut self, words: &[Word]) {
        // `builtin read P`, `command declare ...`: the builtin past the wrapper.
        if let Some(at) = words
            .iter()
            .position(|w| !is_assignment(w) && matches!(w.text.as_str(), "builtin" | "command"))
        {
            if words.iter().take(at).all(is_assignment) {
                let rest: Vec<Word> = words.get(at + 1..).unwrap_or_default().to_vec();
                if !rest.is_empty() {
                    self.track_vars(&rest);
                    self.operand_names(&rest);
                }
                return;
            }
        }
        // `a[0]=rm`: an element of `a` (and `$a` is element 0).
        for w in words {
            if let Some((head, _)) = w.text.split_once('=') {
                if let Some((name, _)) = head.split_once('[') {
                    self.set_var(name, Var::Unknown);
                }
            }
        }
        let program = words.iter().position(|w| !is_assignment(w));
        let assigns: Vec<&Word> = match program {
            None => words.iter().collect(),
            Some(i) => {
                let Some(p) = words.get(i) else { return };
                let args = words.get(i + 1..).unwrap_or_default();
                match p.text.as_str() {
                    "export" | "declare" | "typeset" | "local" | "readonly" => {
                        let options = args.iter().any(|a| a.text.starts_with('-'));
                        // `declare -n r=P`: assigning `r` sets `P`; no variable can be
                        // followed from here on.
                        if args
                            .iter()
                            .any(|a| a.text.starts_with('-') && a.text.contains('n'))
                        {
                            self.opaque_vars = true;
                        }
                        for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                            let name = a.text.split(['=', '+', '[']).next().unwrap_or_default();
                            if options || !is_assignment(a) {
                                if options {
                                    self.set_var(name, Var::Unknown);
                                }
                                continue;
                            }
                        }
                        if options {
                            return;
                        }
                        args.iter().filter(|a| is_assignment(a)).collect()
                    }
                    "read" | "mapfile" | "readarray" | "unset" | "getopts" | "printf" | "let" => {
                        for a in args {
                            let name = a.text.split(['=', '+', '[']).next().unwrap_or_default();
                            self.set_var(name, Var::Unknown);
                        }
                        return;
                    }
                    _ => return,
                }
            }
        };
        for a in assigns {
            let Some((name, value, append)) = split_assignment(a) else {
                continue;
            };
            let numeric = !value.is_empty()
                && value.iter().all(|seg| match seg {
                    Seg::Arith => true,
                    Seg::Lit { text, .. } => text.chars().all(|c| c.is_ascii_digit()),
                    _ => false,
                })
                && value.iter().any(|seg| matches!(seg, Seg::Arith));
            let compound =
                matches!(value.first(), Some(Seg::Lit { text, .. }) if text.starts_with('('));
            let var = if numeric {
                Var::Number
            } else if append || compound {
                Var::Unknown
            } else {
                match expand_word(&value, &self.scope(), true) {
                    Some(e) => {
                        Var::Values(e.alternatives.into_iter().map(|f| f.join(" ")).collect())
                    }
                    None => Var::Unknown,
                }
            };
            self.set_var(&name, var);
        }
    }

    /// `declare -i NAME` makes later assignments to NAME arithmetic; an assignment to
    /// an integer variable is read as arithmetic.
    fn integer_assignments(&mut self, words: &[Word]) {
        self.declarations(words);
        // `y[0]=x` too (an element of an integer array).
        for w in words
            .iter()
            .take_while(|w| is_assignment(w) || super::arith::is_element_assignment(w))
        {
            if let Some((name, _)) = w.text.split_once('=') {
                if self.attrs.is_integer(name) {
                    let text = w.text.split_once('=').map_or("", |(_, v)| v);
                    let values = match split_assignment(w) {
                        // An assignment's value: no splitting, no globs.
                        Some((_, segs, _)) if w.dynamic => expand_word(&segs, &self.scope(), true)
                            .map(|e| {
                                self.looked_at_files |= e.looked_at_files;
                                e.alternatives.into_iter().flatten().collect()
                            }),
                        Some(_) => Some(vec![text.to_owned()]),
                        // `y[0]=x`: the text as written (arithmetic reads `$v` as `v`).
                        None => Some(vec![text.to_owned()]),
                    };
                    self.read_each(values, Self::arithmetic);
                }
            }
        }
    }

    /// Builtins whose operands are variable names that may carry a subscript, given
    /// by an expansion too (`test -v "$x"`, `printf -v "$x"`, `read "$x"`, `declare
    /// "$x=1"`): each name's subscript is arithmetic, and a name not known may be
    /// code (SPEC §4 "Arithmetic is code").
    fn operand_names(&mut self, words: &[Word]) {
        let Some(i) = words.iter().position(|w| !is_assignment(w)) else {
            return;
        };
        let program = words.get(i).map(|w| w.text.as_str()).unwrap_or_default();
        let args = words.get(i + 1..).unwrap_or_default();
        let names: Vec<&Word> = match program {
            "test" | "[" | "printf" => args
                .windows(2)
                .filter(|p| p.first().is_some_and(|f| f.text == "-v"))
                .filter_map(|p| p.get(1))
                .collect(),
            "read" | "declare" | "typeset" | "local" | "readonly" | "export" | "unset"
            | "mapfile" | "readarray" | "getopts" | "wait" => {
                args.iter().filter(|a| !a.text.starts_with('-')).collect()
            }
            _ => return,
        };
        for w in names {
            if w.dynamic {
                let values = self.fields(w);
                self.read_each(values, Self::name_subscript);
            } else {
                self.name_subscript(&w.text);
            }
        }
    }

    /// Whether the words set a variable that makes the shell, or the programs it
    /// starts, run code (`BASH_ENV`, `ENV`, `LD_PRELOAD`, `GIT_SSH_COMMAND`,
    /// `LESSOPEN`, `BASH_FUNC_*`, ...): the command may run anything. Set on its own
    /// or exported, it stays set for what follows.
    fn code_variables(&mut self, words: &[Word]) -> bool {
        let program = words.iter().find(|w| !is_assignment(w));
        let mut found = false;
        for w in words {
            let text = w.text.as_str();
            let Some((name, _)) = text.split_once('=') else {
                continue;
            };
            if super::expand::is_code_variable(name.trim_end_matches('+')) {
                found = true;
            }
        }
        let persists = program.is_none_or(|p| {
            matches!(
                p.text.as_str(),
                "export" | "declare" | "typeset" | "readonly" | "local"
            )
        });
        if found && persists {
            self.code_env = true;
        }
        found
    }

    /// After code this walk does not follow ran in this shell (`eval`, `trap`,
    /// `source`, a nameref), variables and the working directory are unknown; after
    /// `shopt` (`cdable_vars`, ...) the working directory is.
    fn code_run_here(&mut self, words: &[Word]) {
        let Some(p) = final_words(words).first() else {
            return;
        };
        if self.functions.contains(&p.text) {
            self.opaque_vars = true;
            self.bases.unknown = true;
            self.bases.old = None;
            return;
        }
        // `fc -s`, `set -H`: strings from the history list run here, unread.
        if runs_history(final_words(words)) {
            self.opaque_vars = true;
            self.bases.unknown = true;
            self.bases.old = None;
        }
        match basename(&p.text) {
            "eval" | "trap" | "source" | "." | "bind" | "complete" | "compgen" | "mapfile"
            | "readarray" | "alias" | "enable" => {
                self.opaque_vars = true;
                self.bases.unknown = true;
                self.bases.old = None;
            }
            "shopt" | "set" => {
                // `shopt -s cdable_vars`, `set -P`: where `cd` leads is not known.
                // `shopt -s extglob` changes nothing the core reads.
                let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
                if !super::analysis::only_sets_extglob(&texts) {
                    self.bases.unknown = true;
                }
                // `set -x`: PS4 is expanded before each command from now on.
                if words.iter().any(|w| {
                    w.text == "xtrace"
                        || (w.text.starts_with('-')
                            && !w.text.starts_with("--")
                            && w.text.contains('x'))
                }) {
                    self.values_as_code("PS4");
                }
            }
            _ => {}
        }
    }

    /// Prompt strings the shell expands later (`PS0`, `PS1`, `PS2`, `PS4` with `set
    /// -x`) are searched for substitutions; `PROMPT_COMMAND` is a command.
    fn prompt_strings(&mut self, words: &[Word]) {
        for w in words {
            let Some((name, value)) = w.text.split_once('=') else {
                continue;
            };
            if !matches!(
                name,
                "PS0" | "PS1" | "PS2" | "PS3" | "PS4" | "PROMPT_COMMAND"
            ) {
                continue;
            }
            // The value as assigned (`PS4=$X` holds what `X` holds).
            let values = match split_assignment(w) {
                Some((_, segs, _)) if w.dynamic => {
                    expand_word(&segs, &self.scope(), true).map(|e| {
                        e.alternatives
                            .into_iter()
                            .map(|f| f.join(" "))
                            .collect::<Vec<_>>()
                    })
                }
                _ => Some(vec![value.to_owned()]),
            };
            match values {
                Some(values) => {
                    for v in values {
                        if name == "PROMPT_COMMAND" {
                            self.nested(&v);
                        } else {
                            self.scan(&v);
                        }
                    }
                }
                None => self.arith_unknown = true,
            }
        }
    }

    fn set_var(&mut self, name: &str, var: Var) {
        if !super::expand::is_var_name(name) {
            return;
        }
        // A value past the bound is not kept (`a=$a$a` doubling): unknown.
        let var = match var {
            Var::Values(vs)
                if vs.len() > MAX_ALTERNATIVES
                    || vs.iter().map(String::len).sum::<usize>() > MAX_VALUE_BYTES =>
            {
                Var::Unknown
            }
            v => v,
        };
        let numeric = |vs: &[String]| {
            vs.iter()
                .all(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()))
        };
        let var = if self.late {
            Var::Unknown
        } else if self.var_flow > 0 && var == Var::Number {
            // A number, or what it held: still a number if that was one.
            match self.vars.get(name) {
                Some(Var::Number) => Var::Number,
                Some(Var::Values(vs)) if numeric(vs) => Var::Number,
                _ => Var::Unknown,
            }
        } else if self.var_flow > 0 {
            // It may or may not have been set: its old value stays possible.
            let old = {
                let scope = self.scope();
                super::expand::lookup(name, &scope)
            };
            match (old, var) {
                (Some(mut old), Var::Values(new)) => {
                    for v in new {
                        if !old.contains(&v) {
                            old.push(v);
                        }
                    }
                    Var::Values(old)
                }
                _ => Var::Unknown,
            }
        } else {
            var
        };
        self.vars.insert(name.to_owned(), var);
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
                Some(ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w)) => {
                    raw.push(w.value.clone());
                    if cmd.words.iter().all(is_assignment) {
                        self.assignment_subscripts(a);
                    }
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
                        segs: vec![Seg::Unknown],
                    });
                }
            }
        }
        cmd.raw = raw.join(" ");
        cmd.bases = self.bases.clone();
        if cmd
            .words
            .iter()
            .find(|w| !is_assignment(w))
            .is_some_and(|p| SUBSCRIPT_BUILTINS.contains(&p.text.as_str()))
        {
            for w in cmd.words.clone().iter().skip(1) {
                self.subscripts(w);
            }
        }
        // `let` evaluates its arguments; an `declare -i` variable's value too.
        if cmd
            .words
            .iter()
            .find(|w| !is_assignment(w))
            .is_some_and(|p| p.text == "let")
        {
            for w in cmd.words.clone().iter().skip(1) {
                let values = self.fields(w);
                self.read_each(values, Self::arithmetic);
            }
        }
        self.integer_assignments(&cmd.words);
        self.integer_builtins(&cmd.words);
        self.prompt_strings(&cmd.words);
        self.operand_names(&cmd.words);
        let code_env = self.code_variables(&cmd.words);
        cmd.expanded = self.expand_command(&cmd.words);
        cmd.runs_unknown = std::mem::take(&mut self.arith_unknown)
            || code_env
            || self.code_env
            || self.ctx.env_runs_code;
        for name in std::mem::take(&mut self.assigned_by_expansion) {
            self.set_var(&name, Var::Unknown);
        }
        self.code_run_here(&cmd.words);
        cmd.vars = Arc::new(self.vars.clone());
        cmd.late = self.late;
        self.track_vars(&cmd.words);
        let cd_words = match cmd.expanded.as_slice() {
            [one] => one.clone(),
            _ => cmd.words.clone(),
        };
        self.track_cd(&cd_words);
        if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
            self.out.push(cmd);
        }
    }

    /// Follows a `cd`/`pushd`/`popd` among `words` (past wrappers).
    fn track_cd(&mut self, words: &[Word]) {
        let program = final_words(words);
        let Some((first, args)) = program.split_first() else {
            return;
        };
        let certain = self.uncertain_flow == 0;
        let name = first.text.as_str();
        if !matches!(name, "cd" | "pushd" | "chdir" | "popd") {
            return;
        }
        // `pushd` with no folder swaps the top two of the stack, `pushd +N`/`-N`
        // rotates it, `popd` pops it: a folder the walk does not follow.
        let stack_move = name == "popd"
            || (name == "pushd"
                && (args
                    .iter()
                    .all(|a| a.text.starts_with('-') && a.text != "-")
                    || args.iter().any(|a| is_stack_index(&a.text))));
        if stack_move {
            self.bases.unknown = true;
            self.bases.old = None;
            return;
        }
        let target = args
            .iter()
            .find(|a| a.text == "--" || !a.text.starts_with('-') || a.text == "-");
        let target = match target {
            Some(t) if t.text == "--" => args.iter().skip_while(|a| a.text != "--").nth(1),
            t => t,
        };
        // `pushd -n DIR` adds to the stack without moving.
        if name == "pushd"
            && args
                .iter()
                .take_while(|a| a.text != "--" && a.text.starts_with('-'))
                .any(|a| a.text.contains('n'))
        {
            return;
        }
        // The command's own assignments (past wrappers too): `HOME=x cd`.
        let assigned = words.get(..words.len() - program.len()).unwrap_or_default();
        if assigned
            .iter()
            .any(|w| is_assignment(w) && w.text.starts_with("HOME="))
        {
            self.bases.unknown = true;
            return;
        }
        // A relative folder not written from `.` or `..` is searched for in
        // `CDPATH` first (`CDPATH=secrets; cd sub` goes to `secrets/sub`).
        if let Some(t) = target.filter(|t| !t.dynamic && cdpath_searched(&t.text)) {
            if self.repeated == 0 {
                match self.cdpath(assigned) {
                    Some(values) if values.iter().all(String::is_empty) => {}
                    Some(values) => {
                        let mut entries: Vec<String> = Vec::new();
                        for v in &values {
                            for e in v.split(':') {
                                if !entries.iter().any(|x| x == e) {
                                    entries.push(e.to_owned());
                                }
                            }
                        }
                        // bash 5.2 expands an entry's leading `~` to `$HOME`: kept as
                        // `~/...` (the session's home) unless the command set `HOME`;
                        // `~user` is not followed.
                        let home_set = self.vars.contains_key("HOME") || self.opaque_vars;
                        if entries.iter().any(|e| {
                            e.starts_with('~') && (home_set || !(e == "~" || e.starts_with("~/")))
                        }) {
                            self.bases.unknown = true;
                            self.bases.old = None;
                            return;
                        }
                        self.bases.cd_search(&t.text, &entries, certain);
                        return;
                    }
                    None => {
                        self.bases.cd(Some(t), certain);
                        self.bases.unknown = true;
                        return;
                    }
                }
            }
        }
        // A bare `cd` goes to `$HOME`: where the command set it, there.
        let home_set = self.vars.contains_key("HOME") || self.opaque_vars;
        if self.repeated > 0 || (target.is_none() && home_set) {
            match self.values_of("HOME").as_deref() {
                Some([home]) if self.repeated == 0 => {
                    self.bases.cd(Some(&Word::literal(home.clone())), certain);
                }
                _ => self.bases.unknown = true,
            }
        } else {
            self.bases.cd(target, certain);
        }
    }

    /// The values `CDPATH` may hold where a `cd` runs: the command's own assignment
    /// (`CDPATH=x cd sub`, the last one), else what the command set before, else the
    /// session's environment; no value when it is unset; `None` when it is not known
    /// (set by an expansion, a nameref, code the walk does not follow).
    fn cdpath(&self, assigned: &[Word]) -> Option<Vec<String>> {
        let own = assigned.iter().rev().find(|w| {
            is_assignment(w)
                && w.text.split('=').next().map(|n| n.trim_end_matches('+')) == Some("CDPATH")
        });
        if let Some(w) = own {
            if w.dynamic || w.text.starts_with("CDPATH+=") {
                return None;
            }
            let value = w.text.split_once('=').map_or("", |(_, v)| v);
            return Some(vec![value.to_owned()]);
        }
        if self.late || self.opaque_vars {
            return None;
        }
        match self.vars.get("CDPATH") {
            Some(Var::Values(vs)) => return Some(vs.clone()),
            Some(_) => return None,
            None => {}
        }
        // A session whose environment is not known: the shell's own, where
        // `CDPATH` is unset unless a person's profile exports it.
        Some(
            self.ctx
                .env
                .as_ref()
                .and_then(|e| e.get("CDPATH"))
                .into_iter()
                .cloned()
                .collect(),
        )
    }

    fn redirect(&mut self, r: &ast::IoRedirect, cmd: &mut SimpleCommand) {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T};
        match r {
            ast::IoRedirect::File(_, kind, target) => {
                let word = match target {
                    T::Filename(w) | T::Duplicate(w) => self.word(&w.value),
                    T::Fd(n) => Word::literal(n.to_string()),
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
                    target: Word::literal(doc.here_end.value.clone()),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bash::parse_command;
    use crate::bash::tests::words;

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

    /// The folders the last simple command of `cmd` may run in, the session's
    /// environment being `env` (`None`: not known).
    fn last_bases(cmd: &str, env: Option<&[(&str, &str)]>) -> Bases {
        let env = env.map(|e| {
            Arc::new(
                e.iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                    .collect(),
            )
        });
        let ctx = ShellContext::new(std::path::Path::new("/w"), std::path::Path::new("/h"), env);
        let mut w = Walker::new(0, Bases::default(), &ctx);
        w.text(cmd).unwrap();
        assert!(w.error.is_none(), "{cmd}");
        w.out.last().unwrap().bases.clone()
    }

    fn dirs(b: &Bases) -> Vec<&str> {
        let mut d: Vec<&str> = b.dirs.iter().map(String::as_str).collect();
        d.sort_unstable();
        d
    }

    #[test]
    fn cd_searches_cdpath_first() {
        // bash 5.2: `CDPATH=secrets; cd sub` goes to `secrets/sub` when it exists,
        // else to `./sub`; both are kept.
        for cmd in [
            "CDPATH=secrets; cd sub && cat key",
            "export CDPATH=secrets; cd sub && cat key",
            "CDPATH=secrets cd sub && cat key",
            "CDPATH=secrets builtin cd sub && cat key",
            "CDPATH=secrets; pushd sub && cat key",
            "CDPATH=secrets; cd -P -- sub && cat key",
            "CDPATH=secrets; cd sub/ && cat key",
        ] {
            let b = last_bases(cmd, None);
            let want = if cmd.contains("sub/") {
                vec!["secrets/sub/", "sub/"]
            } else {
                vec!["secrets/sub", "sub"]
            };
            assert_eq!(dirs(&b), want, "{cmd}");
            assert!(!b.unknown, "{cmd}");
        }
        // The session's environment (a person's `env.set`).
        let env: &[(&str, &str)] = &[("CDPATH", "secrets")];
        let b = last_bases("cd sub && cat key", Some(env));
        assert_eq!(dirs(&b), vec!["secrets/sub", "sub"]);
        // Each entry, absolute and empty ones too, then the current folder.
        let b = last_bases("CDPATH=/etc:.::x; cd ssl && cat k", None);
        assert_eq!(dirs(&b), vec!["./ssl", "/etc/ssl", "ssl", "x/ssl"]);
        // A leading `~` is `$HOME` (bash 5.2 expands it in each entry).
        let b = last_bases("CDPATH='~/x'; cd sub && cat key", None);
        assert_eq!(dirs(&b), vec!["sub", "~/x/sub"]);
        assert!(!b.unknown);
        // Folders written from `/`, `.` or `..` are not searched.
        for (cmd, want) in [
            ("CDPATH=secrets; cd ./sub && cat key", "./sub"),
            ("CDPATH=secrets; cd ../sub && cat key", "../sub"),
            ("CDPATH=secrets; cd /sub && cat key", "/sub"),
            ("CDPATH=secrets; cd .. && cat key", ".."),
            ("CDPATH=; cd sub && cat key", "sub"),
            ("cd sub && cat key", "sub"),
        ] {
            assert_eq!(dirs(&last_bases(cmd, None)), vec![want], "{cmd}");
            assert_eq!(dirs(&last_bases(cmd, Some(&[]))), vec![want], "{cmd}");
        }
    }

    #[test]
    fn cd_with_a_cdpath_not_known_goes_somewhere_unknown() {
        for cmd in [
            "CDPATH=$X; cd sub; cat key",
            "CDPATH=$X cd sub; cat key",
            "read CDPATH; cd sub; cat key",
            "printf -v CDPATH secrets; cd sub; cat key",
            ": ${CDPATH:=secrets}; cd sub; cat key",
            "declare -x CDPATH=secrets; cd sub; cat key",
            "CDPATH+=secrets; cd sub; cat key",
            "declare -n r=CDPATH; r=secrets; cd sub; cat key",
            "true && CDPATH=secrets; cd sub; cat key",
            "CDPATH='~user/x'; cd sub; cat key",
            "HOME=/elsewhere; CDPATH='~/x'; cd sub; cat key",
            "eval CDPATH=secrets; cd sub; cat key",
            "f() { cd sub; cat key; }",
        ] {
            assert!(last_bases(cmd, Some(&[])).unknown, "{cmd}");
        }
    }

    #[test]
    fn pushd_moves_only_where_it_says() {
        // `pushd -n` moves nowhere; `pushd` alone, `+N`, `-N` rotate the stack.
        assert_eq!(
            dirs(&last_bases("pushd -n secrets; cat key", None)),
            vec![""]
        );
        for cmd in [
            "pushd secrets; pushd /tmp; pushd; cat key",
            "pushd secrets; pushd /tmp; pushd +1; cat key",
            "pushd secrets; pushd /tmp; pushd -0; cat key",
            "pushd secrets; popd; cat key",
        ] {
            assert!(last_bases(cmd, None).unknown, "{cmd}");
        }
    }

    #[test]
    fn history_reruns_leave_the_folder_unknown() {
        // `fc -s` runs `cd secrets` from the history list in this shell.
        for cmd in [
            "history -s 'cd secrets'; fc -s; cat key",
            "fc -e - ; cat key",
            "set -o history -H; cat key",
        ] {
            assert!(last_bases(cmd, None).unknown, "{cmd}");
        }
        assert!(!last_bases("fc -l; cat key", None).unknown);
    }
}
