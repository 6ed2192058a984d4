//! The static analysis behind `sec-default mods check DIR` (Claude Code's
//! `claude plugin validate <dir>`): what each module of a loaded mod registers, which `$`
//! calls it makes, which variables and state keys it names, and where it breaks the
//! rules Claude Code's loader enforces (SPEC §6 "A mod", "`register(on, options)`", "`$`";
//! reference §1.3 "Static-analysis rules enforced at load and by validate", §8 "Tooling").
//!
//! Nothing is run: every module of the graph is read again from its file and parsed with
//! oxc (the compiled JavaScript has lost the source's positions), on the loader's
//! large-stack thread. A file that can no longer be read or parsed gives a problem, never
//! a failure.
//!
//! What is read (best effort; "reaches" means through calls written in the same file):
//!
//! - **hooks**: each `on(pattern, filter?, hook)` call in the exported `register` (and in
//!   the top-level functions of the entry file `register` hands `on` to);
//! - **calls**: each `$.<noun>.<method>(…)` in a hook (the first parameter of a hook
//!   function passed to `on` or to a registration's `.catch`), in the top-level functions
//!   of the same file a hook passes `$` to (marked `via`), and in any other function of
//!   any module with a parameter spelled `$`;
//! - **env** and **state**: the string literals named by `$.env.get/set` and
//!   `$.state.get/set` (positional, or the `name` field of an object argument).

use crate::load::scan::{self, Dialect, ScanError};
use crate::load::{on_compiler_thread, LoadError, ModSource, MAX_FILE_BYTES};
use oxc::allocator::Allocator;
use oxc::ast::ast::{
    Argument, ArrayExpressionElement, ArrowFunctionExpression, BindingIdentifier, CallExpression,
    ComputedMemberExpression, Declaration, ExportDefaultDeclarationKind, Expression,
    FormalParameters, Function, IdentifierReference, ModuleExportName, ObjectExpression,
    ObjectPropertyKind, Program, Statement, StaticMemberExpression, TSInterfaceDeclaration, TSType,
    TSTypeAliasDeclaration, TSTypeParameterDeclaration, TSTypeParameterInstantiation,
    VariableDeclarator,
};
use oxc::ast_visit::{walk, Visit};
use oxc::parser::Parser;
use oxc::span::{GetSpan, Span};
use oxc::syntax::scope::ScopeFlags;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What the static analysis found in a mod (SPEC §6; reference §1.3, §8 `validate`):
/// plain data, serialized in snake case for `--json`; [`Inspection::render`] prints it
/// as `claude plugin validate` does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inspection {
    /// The manifest's `name`.
    pub plugin: String,
    /// The options `register` receives: the manifest's `userConfig` fields, in order
    /// (reference §1.4).
    pub options: Vec<OptionInfo>,
    /// One report per module of the graph: the hooks module first, then the others by
    /// key.
    pub modules: Vec<ModuleReport>,
}

/// One `userConfig` field of the manifest (SPEC §6 "`register(on, options)`"; reference
/// §1.2, §1.4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OptionInfo {
    /// The option's name (its key in `userConfig`).
    pub name: String,
    /// Its declared `type` (`string`, `number`, `boolean`, ...), when given as a string.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Whether it is declared `required: true`.
    pub required: bool,
    /// Its declared `default`, when given.
    pub default: Option<Value>,
}

/// What one module of the graph does (reference §8: one `❯ ./file` block of `validate`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModuleReport {
    /// The module's key: its path relative to the plugin folder, `/`-separated.
    pub file: String,
    /// Whether it is the hooks module (`modules[0]` of `hooks/hooks.json`).
    pub entry: bool,
    /// Each `on(...)` registration with a literal event name, in source order.
    pub hooks: Vec<HookSite>,
    /// Each `$.<noun>.<method>(…)` call, in source order (repeats kept, with their lines;
    /// [`ModuleReport::call_summary`] deduplicates).
    pub calls: Vec<CallSite>,
    /// Variables named by `$.env.get`.
    pub env_reads: Vec<NameSite>,
    /// Variables named by `$.env.set`.
    pub env_writes: Vec<NameSite>,
    /// Keys named by `$.state.get` (reference §4 `state`, 2.1.289 docs).
    pub state_reads: Vec<NameSite>,
    /// Keys named by `$.state.set`.
    pub state_writes: Vec<NameSite>,
    /// What breaks a rule, sorted by position.
    pub problems: Vec<Problem>,
}

/// One `on(pattern, filter?, hook)` registration (SPEC §6; reference §2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HookSite {
    /// The pattern as written (an event name, `*`, `<namespace>.*` or a negation).
    pub event: String,
    /// The filter (matcher) as `validate` prints it, `{command=tally}`, when one is
    /// given; `{…}` when it is not an object literal.
    pub filter: Option<String>,
    /// 1-based line of the `on(` call.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// The top-level function `register` handed `on` to, when the call is in one.
    pub via: Option<String>,
}

/// One `$.<noun>.<method>(…)` call (SPEC §6 "`$`"; reference §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CallSite {
    /// `<noun>.<method>` (the event the call raises).
    pub call: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// The top-level function of the same file `$` was passed to, when the call is made
    /// there (`validate`'s `(via fn)`).
    pub via: Option<String>,
}

/// A variable or state key named by a string literal (reference §1.3, §4 `env`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NameSite {
    /// The name, as the literal spells it.
    pub name: String,
    /// 1-based line of the call.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// As [`CallSite::via`].
    pub via: Option<String>,
}

/// One rule broken (reference §1.3, §8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Which rule.
    pub rule: Rule,
    /// [`Rule::severity`] of the rule.
    pub severity: Severity,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What is wrong, in Claude Code's wording where the reference gives it.
    pub message: String,
}

/// How bad a [`Problem`] is (reference §8: `--strict` turns warnings into errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// What Claude Code's loader refuses (reference §1.3), or what the engine refuses
    /// when `register` runs.
    Error,
    /// What loads but is likely wrong, or what the analysis cannot read.
    Warning,
}

/// The rules (reference §1.3 "Static-analysis rules enforced at load and by validate",
/// §2, §3, §8; SPEC §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The file could not be read again (gone, over 4 MiB, not UTF-8, nested too deep).
    Unreadable,
    /// The file does not parse.
    Syntax,
    /// The hooks module exports no function named `register`.
    NoRegister,
    /// `$` used other than as `$.<noun>.<method>(…)` or passed to a top-level function of
    /// the same file: aliased, destructured, computed access, `$.ui` as a value.
    DollarValue,
    /// The event name passed to `on()` is not a string literal.
    EventNotLiteral,
    /// The pattern names no event the engine knows, or is no pattern at all.
    NotAnEvent,
    /// A second binding named as `register`'s `on` parameter inside `register`.
    OnShadowed,
    /// `on` stored or passed somewhere the analysis does not follow (warning).
    OnEscapes,
    /// `on(...)` given no hook function (missing, or a literal that is not one).
    HookNotFunction,
    /// The hook is not a function written in this file: its `$` calls are not listed
    /// (warning).
    HookOpaque,
    /// The filter is not an object literal: `validate` cannot show it (warning).
    FilterNotLiteral,
    /// One pattern registered twice without a filter (warning: the engine refuses it
    /// when both calls run).
    DuplicateRegistration,
    /// `$.env.get/set` names a variable that is not a string literal.
    EnvNameNotLiteral,
    /// `$.state.get/set` names a key that is not a string literal (warning).
    StateKeyNotLiteral,
    /// `next.to(e, tier)` with a tier that is not a string literal, or not one it can
    /// name (`append`, `builtin`, `core`).
    NextToTier,
    /// `process.env`: a mod has no Node, no `process` (warning: it throws when run).
    ProcessEnv,
    /// `$.<noun>.<method>` names no event the engine knows (warning: it rejects with
    /// `no implementation for …` unless a plugin adds that noun).
    UnknownCall,
}

impl Rule {
    /// The severity of a problem of this rule: see each variant; what Claude Code's
    /// loader refuses (reference §1.3) is an [`Severity::Error`].
    #[must_use]
    pub fn severity(self) -> Severity {
        match self {
            Rule::OnEscapes
            | Rule::HookOpaque
            | Rule::FilterNotLiteral
            | Rule::DuplicateRegistration
            | Rule::StateKeyNotLiteral
            | Rule::ProcessEnv
            | Rule::UnknownCall => Severity::Warning,
            Rule::Unreadable
            | Rule::Syntax
            | Rule::NoRegister
            | Rule::DollarValue
            | Rule::EventNotLiteral
            | Rule::NotAnEvent
            | Rule::OnShadowed
            | Rule::HookNotFunction
            | Rule::EnvNameNotLiteral
            | Rule::NextToTier => Severity::Error,
        }
    }
}

/// The tiers `next.to` may name (reference §3 `TargetTier`).
const TARGET_TIERS: [&str; 3] = ["append", "builtin", "core"];

/// Analyses every module of `source` without running anything (SPEC §6; reference §1.3,
/// §8 `claude plugin validate`).
///
/// `known_event` tells whether the engine knows an event: it is given an event name
/// (`tool.check`) or a namespace glob (`classic.*`), and should answer as
/// `fnhooks::Catalogue::pattern_is_declared` does for the session's catalogue
/// (`events::catalogue()`); `*` and negations are unwrapped before it is asked. It
/// decides the `"x" is not an event` errors of `on(...)` and the unknown-call warnings
/// of `$` (plugin-added nouns included: a plugin's own noun is not an event of the
/// catalogue).
///
/// Returns the findings; never fails and never panics: what cannot be read is a
/// [`Problem`] of its module.
#[must_use]
pub fn inspect(source: &ModSource, known_event: &dyn Fn(&str) -> bool) -> Inspection {
    let mut files: Vec<(String, PathBuf, bool)> = Vec::new();
    if let Some(m) = source.modules.get(&source.entry) {
        files.push((source.entry.clone(), m.path.clone(), true));
    }
    for (key, m) in &source.modules {
        if *key != source.entry {
            files.push((key.clone(), m.path.clone(), false));
        }
    }
    let work_files = files.clone();
    let analysed = on_compiler_thread(&source.root, move || {
        Ok(work_files
            .iter()
            .map(|(key, path, entry)| analyse_file(key, path, *entry))
            .collect::<Vec<_>>())
    });
    let mut modules = match analysed {
        Ok(modules) => modules,
        Err(e) => files
            .iter()
            .map(|(key, _, entry)| {
                let mut report = ModuleReport::empty(key, *entry);
                report.problem(
                    Rule::Unreadable,
                    (1, 1),
                    format!("the module could not be analysed: {}", load_reason(&e)),
                );
                report
            })
            .collect(),
    };
    for report in &mut modules {
        check_names(report, known_event);
        report.problems.sort_by_key(|p| (p.line, p.column, p.rule));
    }
    Inspection {
        plugin: source.manifest.name.clone(),
        options: options_of(&source.manifest.user_config),
        modules,
    }
}

fn load_reason(e: &LoadError) -> String {
    e.to_string()
}

fn options_of(user_config: &serde_json::Map<String, Value>) -> Vec<OptionInfo> {
    user_config
        .iter()
        .map(|(name, decl)| OptionInfo {
            name: name.clone(),
            kind: decl.get("type").and_then(Value::as_str).map(str::to_owned),
            required: decl.get("required").and_then(Value::as_bool) == Some(true),
            default: decl.get("default").cloned(),
        })
        .collect()
}

/// The `"x" is not an event` errors and unknown-call warnings, on the calling thread
/// (`known_event` need not be `Send`).
fn check_names(report: &mut ModuleReport, known_event: &dyn Fn(&str) -> bool) {
    let mut found: Vec<(Rule, (usize, usize), String)> = Vec::new();
    for hook in &report.hooks {
        if let Some(message) = pattern_problem(&hook.event, known_event) {
            found.push((Rule::NotAnEvent, (hook.line, hook.column), message));
        }
    }
    let mut told: HashSet<&str> = HashSet::new();
    for call in &report.calls {
        let noun = call.call.split('.').next().unwrap_or("");
        // `$.state` is answered by the engine's state store, `$.plugin` holds values.
        if noun == "state" || noun == "plugin" || known_event(&call.call) {
            continue;
        }
        if told.insert(call.call.as_str()) {
            found.push((
                Rule::UnknownCall,
                (call.line, call.column),
                format!(
                    "$.{0}: \"{0}\" is not an event (the call rejects unless a plugin adds that noun)",
                    fnhooks::escaped(&call.call)
                ),
            ));
        }
    }
    for (rule, at, message) in found {
        report.problem(rule, at, message);
    }
}

/// Why `pattern` is not a pattern of a known event, if it is not (reference §2.1).
fn pattern_problem(pattern: &str, known_event: &dyn Fn(&str) -> bool) -> Option<String> {
    let not_a_pattern = || {
        Some(format!(
            "\"{}\" is not a pattern",
            fnhooks::escaped(pattern)
        ))
    };
    let body = match pattern.strip_prefix('!') {
        Some(rest) if rest.is_empty() || rest == "*" || rest.starts_with('!') => {
            return not_a_pattern()
        }
        Some(rest) => rest,
        None => pattern,
    };
    if body == "*" {
        return None;
    }
    if let Some(ns) = body.strip_suffix(".*") {
        if ns.is_empty() || ns.contains('*') {
            return not_a_pattern();
        }
        return (!known_event(body))
            .then(|| format!("\"{}\" matches no event", fnhooks::escaped(body)));
    }
    if body.is_empty() || body.contains('*') {
        return not_a_pattern();
    }
    (!known_event(body)).then(|| format!("\"{}\" is not an event", fnhooks::escaped(body)))
}

impl ModuleReport {
    fn empty(file: &str, entry: bool) -> Self {
        ModuleReport {
            file: file.to_owned(),
            entry,
            hooks: Vec::new(),
            calls: Vec::new(),
            env_reads: Vec::new(),
            env_writes: Vec::new(),
            state_reads: Vec::new(),
            state_writes: Vec::new(),
            problems: Vec::new(),
        }
    }

    fn problem(&mut self, rule: Rule, (line, column): (usize, usize), message: String) {
        self.problems.push(Problem {
            rule,
            severity: rule.severity(),
            line,
            column,
            message,
        });
    }

    /// The hooks as `validate` lists them: `event{filter}`, each once, in source order.
    #[must_use]
    pub fn hook_summary(&self) -> Vec<String> {
        let mut seen = HashSet::new();
        self.hooks
            .iter()
            .map(|h| {
                format!(
                    "{}{}",
                    fnhooks::escaped(&h.event),
                    h.filter
                        .as_deref()
                        .map(fnhooks::escaped)
                        .unwrap_or_default()
                )
            })
            .filter(|s| seen.insert(s.clone()))
            .collect()
    }

    /// The calls as `validate` lists them: `$.noun.method` or `$.noun.method (via fn)`,
    /// each once, sorted.
    #[must_use]
    pub fn call_summary(&self) -> Vec<String> {
        let set: BTreeSet<String> = self
            .calls
            .iter()
            .map(|c| match &c.via {
                Some(via) => format!(
                    "$.{} (via {})",
                    fnhooks::escaped(&c.call),
                    fnhooks::escaped(via)
                ),
                None => format!("$.{}", fnhooks::escaped(&c.call)),
            })
            .collect();
        set.into_iter().collect()
    }

    /// How many problems of `severity` it has.
    #[must_use]
    pub fn count(&self, severity: Severity) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == severity)
            .count()
    }
}

fn names(sites: &[NameSite]) -> String {
    let set: BTreeSet<String> = sites.iter().map(|s| fnhooks::escaped(&s.name)).collect();
    set.into_iter().collect::<Vec<_>>().join(", ")
}

impl Inspection {
    /// How many problems of `severity` all modules have.
    #[must_use]
    pub fn count(&self, severity: Severity) -> usize {
        self.modules.iter().map(|m| m.count(severity)).sum()
    }

    /// Whether any module has an error (what Claude Code's loader refuses; with
    /// `--strict`, count warnings too).
    #[must_use]
    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// The human report, in the shape of `claude plugin validate` (reference §8): per
    /// module `❯ ./hooks/register.ts hooks: tool.check, env.set`, then `  calls: …`,
    /// `  env reads: …`, `  env writes: …`, `  state reads: …`, `  state writes: …` when
    /// there are any, then each problem as `  error: file:line:col: message`; the
    /// options first and a closing count last. Every name from the mod is escaped.
    #[must_use]
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("plugin {}\n", fnhooks::escaped(&self.plugin)));
        for option in &self.options {
            let mut parts: Vec<String> = Vec::new();
            if let Some(kind) = &option.kind {
                parts.push(fnhooks::escaped(kind));
            }
            if option.required {
                parts.push("required".to_owned());
            }
            if let Some(default) = &option.default {
                parts.push(format!(
                    "default {}",
                    fnhooks::escaped_line(&default.to_string())
                ));
            }
            out.push_str(&format!(
                "  option {}{}\n",
                fnhooks::escaped(&option.name),
                if parts.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", parts.join(", "))
                }
            ));
        }
        for m in &self.modules {
            let file = fnhooks::escaped(&m.file);
            out.push_str(&format!("❯ ./{file}"));
            let hooks = m.hook_summary();
            if !hooks.is_empty() {
                out.push_str(&format!(" hooks: {}", hooks.join(", ")));
            }
            out.push('\n');
            let calls = m.call_summary();
            if !calls.is_empty() {
                out.push_str(&format!("  calls: {}\n", calls.join(", ")));
            }
            for (label, sites) in [
                ("env reads", &m.env_reads),
                ("env writes", &m.env_writes),
                ("state reads", &m.state_reads),
                ("state writes", &m.state_writes),
            ] {
                if !sites.is_empty() {
                    out.push_str(&format!("  {label}: {}\n", names(sites)));
                }
            }
            for p in &m.problems {
                let level = match p.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                };
                out.push_str(&format!(
                    "  {level}: {file}:{}:{}: {}\n",
                    p.line,
                    p.column,
                    fnhooks::escaped_line(&p.message)
                ));
            }
        }
        let errors = self.count(Severity::Error);
        let warnings = self.count(Severity::Warning);
        if errors == 0 && warnings == 0 {
            out.push_str("✔ no problems\n");
        } else {
            out.push_str(&format!("✘ {errors} error(s), {warnings} warning(s)\n"));
        }
        out
    }
}

// ---- reading and parsing ------------------------------------------------------------

/// The loader's dialect for the file (a suffix it does not load reads as plain
/// JavaScript: such a file never got into the graph).
fn dialect_of(path: &Path) -> Dialect {
    crate::load::compile::dialect_of(path).unwrap_or(Dialect {
        ts: false,
        jsx: false,
    })
}

/// A module read again for the analysis, as the loader read it: with the bounded
/// opener and its cap (SPEC §2.1 "Reading never hangs", SPEC §6 "A mod" caps): a file
/// swapped for a FIFO or a device since the load is refused, never read.
fn read_again(path: &Path) -> Result<String, String> {
    let bytes = boundedfs::read_bounded(path, MAX_FILE_BYTES).map_err(|e| e.reason.to_string())?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8".to_owned())
}

/// Reads, parses and analyses one module (on the loader's large-stack thread).
fn analyse_file(key: &str, path: &Path, entry: bool) -> ModuleReport {
    let mut report = ModuleReport::empty(key, entry);
    let src = match read_again(path) {
        Ok(src) => src,
        Err(reason) => {
            report.problem(
                Rule::Unreadable,
                (1, 1),
                format!("the module could not be read again: {reason}"),
            );
            return report;
        }
    };
    let lines = LineIndex::new(&src);
    let dialect = dialect_of(path);
    // The nesting cap before parsing, as the loader checks it (the file may have
    // changed since it loaded).
    match scan::scan(&src, dialect) {
        Ok(_) => {}
        Err(ScanError::TooDeep { offset } | ScanError::Ambiguous { offset }) => {
            report.problem(
                Rule::Unreadable,
                lines.at(offset),
                "code nested too deep (or too ambiguous) to scan".to_owned(),
            );
            return report;
        }
    }
    let allocator = Allocator::default();
    let source_type = crate::load::compile::source_type(path, dialect);
    let parsed = Parser::new(&allocator, &src, source_type).parse();
    if let Some(first) = parsed.errors.first() {
        let offset = first
            .labels
            .as_ref()
            .and_then(|labels| labels.first())
            .map_or(0, |label| label.offset());
        report.problem(Rule::Syntax, lines.at(offset), first.message.to_string());
        return report;
    }
    if parsed.panicked {
        report.problem(Rule::Syntax, (1, 1), "the parser gave up".to_owned());
        return report;
    }
    let program = parsed.program;
    let ctx = Ctx {
        src: &src,
        lines: &lines,
        fns: top_level_functions(&program.body),
    };
    let mut out = Out::new(report);
    if entry {
        match find_register(&program, &ctx) {
            Some(register) => scan_on(&ctx, &mut out, register, 0, None),
            None => out.problem(
                Rule::NoRegister,
                (1, 1),
                "the hooks module does not export a function named register".to_owned(),
            ),
        }
    }
    // Every other function with a parameter spelled `$`, and `process.env`.
    let mut sweep = Sweep {
        ctx: &ctx,
        out: &mut out,
    };
    sweep.visit_program(&program);
    out.finish()
}

/// 1-based line and column (in characters) of byte offsets; lines end at `\n`, `\r\n`,
/// `\r`, U+2028 and U+2029, as in JavaScript (and as `load::compile` counts them).
struct LineIndex<'s> {
    src: &'s str,
    starts: Vec<usize>,
}

impl<'s> LineIndex<'s> {
    fn new(src: &'s str) -> Self {
        let mut starts = vec![0];
        let mut prev_cr = false;
        for (i, c) in src.char_indices() {
            match c {
                '\n' if prev_cr => {
                    if let Some(last) = starts.last_mut() {
                        *last = i + 1;
                    }
                }
                '\n' | '\r' | '\u{2028}' | '\u{2029}' => starts.push(i + c.len_utf8()),
                _ => {}
            }
            prev_cr = c == '\r';
        }
        LineIndex { src, starts }
    }

    fn at(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self
            .starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        let column = self
            .src
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        (line, column)
    }
}

// ---- the analysis -------------------------------------------------------------------

/// A function written in the file: a declaration or expression, or an arrow.
#[derive(Clone, Copy)]
enum FnRef<'r, 'a> {
    Func(&'r Function<'a>),
    Arrow(&'r ArrowFunctionExpression<'a>),
}

impl<'r, 'a> FnRef<'r, 'a> {
    fn span(self) -> Span {
        match self {
            FnRef::Func(f) => f.span,
            FnRef::Arrow(f) => f.span,
        }
    }

    fn params(self) -> &'r FormalParameters<'a> {
        match self {
            FnRef::Func(f) => &f.params,
            FnRef::Arrow(f) => &f.params,
        }
    }

    fn body_statements(self) -> &'r [Statement<'a>] {
        match self {
            FnRef::Func(f) => f.body.as_ref().map_or(&[], |b| b.statements.as_slice()),
            FnRef::Arrow(f) => f.body.statements.as_slice(),
        }
    }

    fn visit_body<V: Visit<'a>>(self, v: &mut V) {
        match self {
            FnRef::Func(f) => {
                if let Some(body) = &f.body {
                    v.visit_function_body(body);
                }
            }
            FnRef::Arrow(f) => v.visit_function_body(&f.body),
        }
    }

    /// The name bound by parameter `index`: `Ok(None)` when there is no such parameter,
    /// `Err(span)` when it is a destructuring or a rest parameter.
    fn param_name(self, index: usize) -> Result<Option<(&'r str, Span)>, Span> {
        let params = self.params();
        match params.items.get(index) {
            Some(p) => match p.pattern.kind.get_binding_identifier() {
                Some(id) => Ok(Some((id.name.as_str(), id.span))),
                None => Err(p.span),
            },
            None => match &params.rest {
                Some(rest) if index >= params.items.len() => Err(rest.span),
                _ => Ok(None),
            },
        }
    }
}

/// The function an expression is, when it is one written in place.
fn fn_of<'r, 'a>(e: &'r Expression<'a>) -> Option<FnRef<'r, 'a>> {
    match e.get_inner_expression() {
        Expression::ArrowFunctionExpression(f) => Some(FnRef::Arrow(f)),
        Expression::FunctionExpression(f) => Some(FnRef::Func(f)),
        _ => None,
    }
}

/// The functions a list of statements declares by name at its own level (function
/// declarations, `const f = () => …`), exported or not.
fn top_level_functions<'r, 'a>(body: &'r [Statement<'a>]) -> HashMap<&'r str, FnRef<'r, 'a>> {
    let mut fns = HashMap::new();
    for stmt in body {
        let declaration = match stmt {
            Statement::ExportNamedDeclaration(e) => e.declaration.as_ref(),
            Statement::ExportDefaultDeclaration(e) => {
                if let ExportDefaultDeclarationKind::FunctionDeclaration(f) = &e.declaration {
                    if let Some(id) = &f.id {
                        fns.insert(id.name.as_str(), FnRef::Func(f));
                    }
                }
                None
            }
            other => other.as_declaration(),
        };
        match declaration {
            Some(Declaration::FunctionDeclaration(f)) => {
                if let Some(id) = &f.id {
                    fns.insert(id.name.as_str(), FnRef::Func(f));
                }
            }
            Some(Declaration::VariableDeclaration(v)) => {
                for d in &v.declarations {
                    if let (Some(id), Some(f)) = (
                        d.id.kind.get_binding_identifier(),
                        d.init.as_ref().and_then(fn_of),
                    ) {
                        fns.insert(id.name.as_str(), f);
                    }
                }
            }
            _ => {}
        }
    }
    fns
}

fn export_name<'a>(n: &ModuleExportName<'a>) -> &'a str {
    match n {
        ModuleExportName::IdentifierName(n) => n.name.as_str(),
        ModuleExportName::IdentifierReference(n) => n.name.as_str(),
        ModuleExportName::StringLiteral(s) => s.value.as_str(),
    }
}

/// The function the module exports as `register` (`export function register`,
/// `export const register = …`, `export { f as register }`).
fn find_register<'r, 'a>(program: &'r Program<'a>, ctx: &Ctx<'r, 'a>) -> Option<FnRef<'r, 'a>> {
    for stmt in &program.body {
        let Statement::ExportNamedDeclaration(e) = stmt else {
            continue;
        };
        if e.source.is_some() {
            continue;
        }
        match &e.declaration {
            Some(Declaration::FunctionDeclaration(f))
                if f.id.as_ref().is_some_and(|id| id.name == "register") =>
            {
                return Some(FnRef::Func(f));
            }
            Some(Declaration::VariableDeclaration(v)) => {
                for d in &v.declarations {
                    if d.id
                        .kind
                        .get_identifier_name()
                        .is_some_and(|n| n == "register")
                    {
                        return d.init.as_ref().and_then(fn_of);
                    }
                }
            }
            _ => {}
        }
        for s in &e.specifiers {
            if export_name(&s.exported) == "register" {
                return ctx.fns.get(export_name(&s.local)).copied();
            }
        }
    }
    None
}

/// What every visitor of one file reads.
struct Ctx<'r, 'a> {
    src: &'r str,
    lines: &'r LineIndex<'r>,
    /// The file's top-level functions by name.
    fns: HashMap<&'r str, FnRef<'r, 'a>>,
}

impl Ctx<'_, '_> {
    fn at(&self, span: Span) -> (usize, usize) {
        self.lines
            .at(usize::try_from(span.start).unwrap_or(usize::MAX))
    }

    fn text(&self, span: Span) -> String {
        let start = usize::try_from(span.start).unwrap_or(usize::MAX);
        let end = usize::try_from(span.end).unwrap_or(usize::MAX);
        self.src
            .get(start..end)
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    }

    /// The name of the top-level function starting at `span`, if it is one.
    fn top_level_name(&self, span: Span) -> Option<String> {
        self.fns
            .iter()
            .find(|(_, f)| f.span() == span)
            .map(|(name, _)| (*name).to_owned())
    }
}

/// What the analysis of one file collects.
struct Out {
    report: ModuleReport,
    /// `(function start, parameter index)` already analysed as `$`.
    dollar_done: HashSet<(u32, usize)>,
    /// Likewise as `on`.
    on_done: HashSet<(u32, usize)>,
}

impl Out {
    fn new(report: ModuleReport) -> Self {
        Out {
            report,
            dollar_done: HashSet::new(),
            on_done: HashSet::new(),
        }
    }

    fn problem(&mut self, rule: Rule, at: (usize, usize), message: String) {
        self.report.problem(rule, at, message);
    }

    fn finish(mut self) -> ModuleReport {
        // One pattern twice without a filter (the engine refuses the second `on`).
        let mut plain: HashSet<String> = HashSet::new();
        let mut dups = Vec::new();
        for h in &self.report.hooks {
            if h.filter.is_none() && !plain.insert(h.event.clone()) {
                dups.push((
                    (h.line, h.column),
                    format!(
                        "on(\"{}\") is registered twice without a matcher",
                        fnhooks::escaped(&h.event)
                    ),
                ));
            }
        }
        for (at, message) in dups {
            self.problem(Rule::DuplicateRegistration, at, message);
        }
        self.report
    }
}

/// The string a literal argument spells: a string, a template without substitutions.
fn literal_string<'a>(e: &Expression<'a>) -> Option<String> {
    match e.get_inner_expression() {
        Expression::StringLiteral(s) => Some(s.value.to_string()),
        Expression::TemplateLiteral(t) if t.expressions.is_empty() => {
            t.single_quasi().map(|q| q.to_string())
        }
        _ => None,
    }
}

/// The name an `env`/`state` argument gives: a literal, or an object literal's `name`.
fn literal_name<'a>(arg: Option<&Argument<'a>>) -> Option<String> {
    let e = arg?.as_expression()?;
    if let Some(s) = literal_string(e) {
        return Some(s);
    }
    let Expression::ObjectExpression(o) = e.get_inner_expression() else {
        return None;
    };
    o.properties.iter().find_map(|p| match p {
        ObjectPropertyKind::ObjectProperty(p)
            if !p.computed && p.key.static_name().is_some_and(|k| k == "name") =>
        {
            literal_string(&p.value)
        }
        _ => None,
    })
}

/// A filter as `validate` prints it: `{command=tally}`.
fn render_object(ctx: &Ctx<'_, '_>, o: &ObjectExpression<'_>) -> String {
    let fields: Vec<String> = o
        .properties
        .iter()
        .map(|p| match p {
            ObjectPropertyKind::ObjectProperty(p) => {
                let key = if p.computed {
                    format!("[{}]", ctx.text(p.key.span()))
                } else {
                    p.key
                        .static_name()
                        .map_or_else(|| ctx.text(p.key.span()), |k| k.to_string())
                };
                format!("{key}={}", render_value(ctx, &p.value))
            }
            ObjectPropertyKind::SpreadProperty(s) => ctx.text(s.span),
        })
        .collect();
    format!("{{{}}}", fields.join(","))
}

fn render_value(ctx: &Ctx<'_, '_>, e: &Expression<'_>) -> String {
    if let Some(s) = literal_string(e) {
        return s;
    }
    match e.get_inner_expression() {
        Expression::ObjectExpression(o) => render_object(ctx, o),
        Expression::ArrayExpression(a) => {
            let items: Vec<String> = a
                .elements
                .iter()
                .map(|el| match el {
                    ArrayExpressionElement::SpreadElement(s) => ctx.text(s.span),
                    ArrayExpressionElement::Elision(_) => String::new(),
                    other => other
                        .as_expression()
                        .map_or_else(String::new, |e| render_value(ctx, e)),
                })
                .collect();
            format!("[{}]", items.join(","))
        }
        other => ctx.text(other.span()),
    }
}

/// Analyses `f` with its parameter `index` as `register`'s `on` (`via`: the helper
/// `register` handed it to).
fn scan_on<'r, 'a>(
    ctx: &Ctx<'r, 'a>,
    out: &mut Out,
    f: FnRef<'r, 'a>,
    index: usize,
    via: Option<&str>,
) {
    if !out.on_done.insert((f.span().start, index)) {
        return;
    }
    let Ok(Some((on, _))) = f.param_name(index) else {
        return;
    };
    let mut locals = top_level_functions(f.body_statements());
    for (name, g) in &ctx.fns {
        locals.entry(*name).or_insert(*g);
    }
    let mut v = OnScan {
        ctx,
        out,
        on,
        via: via.map(str::to_owned),
        locals,
        regs: HashSet::new(),
    };
    f.visit_body(&mut v);
}

/// Analyses `f` with its parameter `index` as `$` (a hook's first parameter, or a
/// helper's that a hook passed `$` to: `via`).
fn scan_dollar<'r, 'a>(
    ctx: &Ctx<'_, 'a>,
    out: &mut Out,
    f: FnRef<'r, 'a>,
    index: usize,
    next_index: Option<usize>,
    via: Option<&str>,
) {
    if !out.dollar_done.insert((f.span().start, index)) {
        return;
    }
    let dollar = match f.param_name(index) {
        Ok(Some((name, _))) => name,
        Ok(None) => return,
        Err(span) => {
            out.problem(
                Rule::DollarValue,
                ctx.at(span),
                "$ is used as a value (destructured)".to_owned(),
            );
            return;
        }
    };
    let next = next_index
        .and_then(|i| f.param_name(i).ok().flatten())
        .map(|(n, _)| n);
    let mut v = DollarScan {
        ctx,
        out,
        dollar,
        next,
        via: via.map(str::to_owned),
    };
    f.visit_body(&mut v);
}

/// Skips what TypeScript types hold (no `$` or `on` there is a value).
macro_rules! skip_types {
    () => {
        fn visit_ts_type(&mut self, _it: &TSType<'a>) {}
        fn visit_ts_type_parameter_instantiation(
            &mut self,
            _it: &TSTypeParameterInstantiation<'a>,
        ) {
        }
        fn visit_ts_type_parameter_declaration(&mut self, _it: &TSTypeParameterDeclaration<'a>) {}
        fn visit_ts_type_alias_declaration(&mut self, _it: &TSTypeAliasDeclaration<'a>) {}
        fn visit_ts_interface_declaration(&mut self, _it: &TSInterfaceDeclaration<'a>) {}
    };
}

/// The hook function `e` names: written in place, or a function of `locals` by name.
fn hook_fn<'e, 'a>(
    locals: &HashMap<&'e str, FnRef<'e, 'a>>,
    e: &'e Expression<'a>,
) -> Option<FnRef<'e, 'a>> {
    if let Some(f) = fn_of(e) {
        return Some(f);
    }
    match e.get_inner_expression() {
        Expression::Identifier(id) => locals.get(id.name.as_str()).copied(),
        _ => None,
    }
}

/// The functions a hook factory of this file returns, when `e` calls one
/// (`on('x', reword('text'))` with `const reword = (t) => async ($, e, next) => …`).
fn made_by<'e, 'a>(
    locals: &HashMap<&'e str, FnRef<'e, 'a>>,
    e: &'e Expression<'a>,
) -> Vec<FnRef<'e, 'a>> {
    let Expression::CallExpression(call) = e.get_inner_expression() else {
        return Vec::new();
    };
    let Expression::Identifier(id) = call.callee.get_inner_expression() else {
        return Vec::new();
    };
    let Some(factory) = locals.get(id.name.as_str()).copied() else {
        return Vec::new();
    };
    let expression_body = matches!(factory, FnRef::Arrow(a) if a.expression);
    factory
        .body_statements()
        .iter()
        .filter_map(|stmt| match stmt {
            Statement::ReturnStatement(r) => r.argument.as_ref().and_then(fn_of),
            Statement::ExpressionStatement(x) if expression_body => fn_of(&x.expression),
            _ => None,
        })
        .collect()
}

/// `register`'s body (or a helper's it handed `on` to): the `on(...)` calls.
struct OnScan<'c, 'r, 'a> {
    ctx: &'c Ctx<'r, 'a>,
    out: &'c mut Out,
    on: &'r str,
    via: Option<String>,
    /// Functions callable by name here: the body's own, then the file's.
    locals: HashMap<&'r str, FnRef<'r, 'a>>,
    /// Variables holding a registration (`const r = on(...)`).
    regs: HashSet<String>,
}

impl<'a> OnScan<'_, '_, 'a> {
    fn handle_on(&mut self, call: &CallExpression<'a>) {
        let at = self.ctx.at(call.span);
        let args: Vec<&Argument<'a>> = call.arguments.iter().collect();
        let Some(first) = args.first() else {
            self.out.problem(
                Rule::EventNotLiteral,
                at,
                "the event name passed to on() is not a string literal".to_owned(),
            );
            return;
        };
        let event = first.as_expression().and_then(literal_string);
        let Some(event) = event else {
            self.out.problem(
                Rule::EventNotLiteral,
                self.ctx.at(first.span()),
                "the event name passed to on() is not a string literal".to_owned(),
            );
            return;
        };
        let shown = fnhooks::escaped(&event);
        let (filter_arg, hook_arg) = match args.len() {
            0 | 1 => (None, None),
            2 => (None, args.get(1).copied()),
            _ => (args.get(1).copied(), args.get(2).copied()),
        };
        let filter = filter_arg.map(|a| {
            match a.as_expression().map(Expression::get_inner_expression) {
                Some(Expression::ObjectExpression(o)) => render_object(self.ctx, o),
                _ => {
                    self.out.problem(
                        Rule::FilterNotLiteral,
                        self.ctx.at(a.span()),
                        format!("the filter passed to on(\"{shown}\") is not an object literal, so it is not shown"),
                    );
                    "{…}".to_owned()
                }
            }
        });
        match hook_arg.and_then(Argument::as_expression) {
            None => self.out.problem(
                Rule::HookNotFunction,
                hook_arg.map_or(at, |a| self.ctx.at(a.span())),
                format!("on(\"{shown}\"): the hook is not a function"),
            ),
            Some(e) => {
                let made = made_by(&self.locals, e);
                if let Some(f) = hook_fn(&self.locals, e) {
                    scan_dollar(self.ctx, self.out, f, 0, Some(2), None);
                } else if !made.is_empty() {
                    for f in made {
                        scan_dollar(self.ctx, self.out, f, 0, Some(2), None);
                    }
                } else if matches!(
                    e.get_inner_expression(),
                    Expression::ObjectExpression(_)
                        | Expression::ArrayExpression(_)
                        | Expression::StringLiteral(_)
                        | Expression::TemplateLiteral(_)
                        | Expression::NumericLiteral(_)
                        | Expression::BooleanLiteral(_)
                        | Expression::NullLiteral(_)
                        | Expression::RegExpLiteral(_)
                ) {
                    self.out.problem(
                        Rule::HookNotFunction,
                        self.ctx.at(e.span()),
                        format!("on(\"{shown}\"): the hook is not a function"),
                    );
                } else {
                    self.out.problem(
                        Rule::HookOpaque,
                        self.ctx.at(e.span()),
                        format!("the hook passed to on(\"{shown}\") is not a function written in this file; its $ calls are not listed"),
                    );
                }
            }
        }
        self.out.report.hooks.push(HookSite {
            event,
            filter,
            line: at.0,
            column: at.1,
            via: self.via.clone(),
        });
    }

    fn is_registration(&self, e: &Expression<'a>) -> bool {
        match e.get_inner_expression() {
            Expression::CallExpression(c) => {
                c.callee.is_specific_id(self.on)
                    || matches!(c.callee.get_inner_expression(),
                        Expression::StaticMemberExpression(m)
                            if m.property.name == "catch" && self.is_registration(&m.object))
            }
            Expression::Identifier(id) => self.regs.contains(id.name.as_str()),
            _ => false,
        }
    }
}

impl<'a> Visit<'a> for OnScan<'_, '_, 'a> {
    skip_types!();

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let callee = it.callee.get_inner_expression();
        if let Expression::Identifier(id) = callee {
            if id.name == self.on {
                self.handle_on(it);
                self.visit_arguments(&it.arguments);
                return;
            }
            let helper = self.locals.get(id.name.as_str()).copied();
            if let Some(f) = helper {
                for (i, arg) in it.arguments.iter().enumerate() {
                    if arg
                        .as_expression()
                        .is_some_and(|e| e.is_specific_id(self.on))
                    {
                        scan_on(self.ctx, self.out, f, i, Some(id.name.as_str()));
                    } else {
                        self.visit_argument(arg);
                    }
                }
                return;
            }
        }
        // `on(...).catch(handler)`, `registration.catch(handler)`: a hook too.
        if let Expression::StaticMemberExpression(m) = callee {
            if m.property.name == "catch" && self.is_registration(&m.object) {
                if let Some(f) = it
                    .arguments
                    .first()
                    .and_then(Argument::as_expression)
                    .and_then(|e| hook_fn(&self.locals, e))
                {
                    scan_dollar(self.ctx, self.out, f, 0, Some(2), None);
                }
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (Some(id), Some(init)) = (it.id.kind.get_binding_identifier(), &it.init) {
            if self.is_registration(init) {
                self.regs.insert(id.name.to_string());
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        if it.name == self.on {
            self.out.problem(
                Rule::OnShadowed,
                self.ctx.at(it.span),
                format!(
                    "\"{}\" is declared again (shadowed)",
                    fnhooks::escaped(self.on)
                ),
            );
        }
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if it.name == self.on {
            self.out.problem(
                Rule::OnEscapes,
                self.ctx.at(it.span),
                format!(
                    "\"{}\" is stored or passed where the analysis does not follow; the hooks it registers there are not listed",
                    fnhooks::escaped(self.on)
                ),
            );
        }
    }
}

/// A hook's (or a helper's) body: the `$` calls.
struct DollarScan<'c, 'r, 'a> {
    ctx: &'c Ctx<'r, 'a>,
    out: &'c mut Out,
    dollar: &'c str,
    next: Option<&'c str>,
    via: Option<String>,
}

impl<'a> DollarScan<'_, '_, 'a> {
    fn value(&mut self, span: Span, what: &str) {
        self.out.problem(
            Rule::DollarValue,
            self.ctx.at(span),
            format!("{what} is used as a value"),
        );
    }

    /// `(noun, method)` when `callee` is `$.<noun>.<method>`.
    fn dollar_path<'e>(&self, callee: &'e Expression<'a>) -> Option<(&'e str, &'e str)> {
        let Expression::StaticMemberExpression(m) = callee else {
            return None;
        };
        let Expression::StaticMemberExpression(n) = m.object.get_inner_expression() else {
            return None;
        };
        n.object
            .is_specific_id(self.dollar)
            .then(|| (n.property.name.as_str(), m.property.name.as_str()))
    }

    fn record(&mut self, noun: &str, method: &str, call: &CallExpression<'a>) {
        let (line, column) = self.ctx.at(call.span);
        let name = format!("{noun}.{method}");
        self.out.report.calls.push(CallSite {
            call: name.clone(),
            line,
            column,
            via: self.via.clone(),
        });
        let kind = match (noun, method) {
            ("env", "get") => Some((true, false)),
            ("env", "set") => Some((true, true)),
            ("state", "get") => Some((false, false)),
            ("state", "set") => Some((false, true)),
            _ => None,
        };
        let Some((env, write)) = kind else {
            return;
        };
        let arg = call.arguments.first();
        match literal_name(arg) {
            Some(n) => {
                let site = NameSite {
                    name: n,
                    line,
                    column,
                    via: self.via.clone(),
                };
                let r = &mut self.out.report;
                match (env, write) {
                    (true, false) => r.env_reads.push(site),
                    (true, true) => r.env_writes.push(site),
                    (false, false) => r.state_reads.push(site),
                    (false, true) => r.state_writes.push(site),
                }
            }
            None => {
                let at = arg.map_or((line, column), |a| self.ctx.at(a.span()));
                if env {
                    self.out.problem(
                        Rule::EnvNameNotLiteral,
                        at,
                        format!("$.env.{method} names a variable that is not a string literal"),
                    );
                } else {
                    self.out.problem(
                        Rule::StateKeyNotLiteral,
                        at,
                        format!("$.state.{method} names a key that is not a string literal"),
                    );
                }
            }
        }
    }

    fn check_next_to(&mut self, call: &CallExpression<'a>) {
        let tier_arg = call.arguments.get(1);
        match tier_arg.and_then(Argument::as_expression).and_then(literal_string) {
            Some(tier) if TARGET_TIERS.contains(&tier.as_str()) => {}
            Some(tier) => self.out.problem(
                Rule::NextToTier,
                tier_arg.map_or(self.ctx.at(call.span), |a| self.ctx.at(a.span())),
                format!(
                    "next.to(e, \"{}\"): the tier is not one next.to can name (append, builtin, core)",
                    fnhooks::escaped(&tier)
                ),
            ),
            None => self.out.problem(
                Rule::NextToTier,
                tier_arg.map_or(self.ctx.at(call.span), |a| self.ctx.at(a.span())),
                "next.to(e, <tier>) names a tier that is not a string literal".to_owned(),
            ),
        }
    }

    /// A nested function that binds the same name as `$` (a `.catch` handler written
    /// inside a hook) is covered by this scan.
    fn cover(&mut self, f: FnRef<'_, 'a>) {
        for i in 0..f.params().items.len() {
            if let Ok(Some((name, _))) = f.param_name(i) {
                if name == self.dollar {
                    self.out.dollar_done.insert((f.span().start, i));
                }
            }
        }
    }
}

impl<'a> Visit<'a> for DollarScan<'_, '_, 'a> {
    skip_types!();

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.cover(FnRef::Func(it));
        walk::walk_function(self, it, flags);
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.cover(FnRef::Arrow(it));
        walk::walk_arrow_function_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let callee = it.callee.get_inner_expression();
        if let Some((noun, method)) = self.dollar_path(callee) {
            self.record(noun, method, it);
            self.visit_arguments(&it.arguments);
            return;
        }
        if let (Some(next), Expression::StaticMemberExpression(m)) = (self.next, callee) {
            if m.property.name == "to" && m.object.is_specific_id(next) {
                self.check_next_to(it);
            }
        }
        if let Expression::Identifier(id) = callee {
            if let Some(f) = self.ctx.fns.get(id.name.as_str()).copied() {
                for (i, arg) in it.arguments.iter().enumerate() {
                    if arg
                        .as_expression()
                        .is_some_and(|e| e.is_specific_id(self.dollar))
                    {
                        scan_dollar(self.ctx, self.out, f, i, None, Some(id.name.as_str()));
                    } else {
                        self.visit_argument(arg);
                    }
                }
                return;
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        let object = it.object.get_inner_expression();
        if let Expression::StaticMemberExpression(n) = object {
            if n.object.is_specific_id(self.dollar) {
                let (noun, prop) = (n.property.name.as_str(), it.property.name.as_str());
                // `$.plugin.name` and `$.plugin.root` are values (reference §4).
                if !(noun == "plugin" && matches!(prop, "name" | "root")) {
                    self.value(
                        it.span,
                        &format!("$.{}.{}", fnhooks::escaped(noun), fnhooks::escaped(prop)),
                    );
                }
                return;
            }
        }
        if object.is_specific_id(self.dollar) {
            self.value(
                it.span,
                &format!("$.{}", fnhooks::escaped(it.property.name.as_str())),
            );
            return;
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_computed_member_expression(&mut self, it: &ComputedMemberExpression<'a>) {
        let object = it.object.get_inner_expression();
        if object.is_specific_id(self.dollar) {
            self.value(it.span, "$");
            self.visit_expression(&it.expression);
            return;
        }
        if let Expression::StaticMemberExpression(n) = object {
            if n.object.is_specific_id(self.dollar) {
                self.value(
                    it.span,
                    &format!("$.{}", fnhooks::escaped(n.property.name.as_str())),
                );
                self.visit_expression(&it.expression);
                return;
            }
        }
        walk::walk_computed_member_expression(self, it);
    }

    fn visit_identifier_reference(&mut self, it: &IdentifierReference<'a>) {
        if it.name == self.dollar {
            self.value(it.span, "$");
        }
    }
}

/// The whole file: functions with a parameter spelled `$` not analysed yet, and
/// `process.env`.
struct Sweep<'c, 'r, 'a> {
    ctx: &'c Ctx<'r, 'a>,
    out: &'c mut Out,
}

impl<'a> Sweep<'_, '_, 'a> {
    fn dollar_params(&mut self, f: FnRef<'_, 'a>) {
        let via = self.ctx.top_level_name(f.span());
        for i in 0..f.params().items.len() {
            if let Ok(Some(("$", _))) = f.param_name(i) {
                scan_dollar(self.ctx, self.out, f, i, None, via.as_deref());
            }
        }
    }
}

impl<'a> Visit<'a> for Sweep<'_, '_, 'a> {
    skip_types!();

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.dollar_params(FnRef::Func(it));
        walk::walk_function(self, it, flags);
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.dollar_params(FnRef::Arrow(it));
        walk::walk_arrow_function_expression(self, it);
    }

    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        if it.property.name == "env" && it.object.is_specific_id("process") {
            self.out.problem(
                Rule::ProcessEnv,
                self.ctx.at(it.span),
                "process.env is not available in a mod (no Node): read variables with $.env.get(\"NAME\")".to_owned(),
            );
        }
        walk::walk_static_member_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_every_javascript_line_end_and_chars() {
        let src = "a\nb\r\nc\rd\u{2028}é x";
        let lines = LineIndex::new(src);
        assert_eq!(lines.at(0), (1, 1));
        assert_eq!(lines.at(2), (2, 1));
        assert_eq!(lines.at(5), (3, 1));
        assert_eq!(lines.at(7), (4, 1));
        let x = src.find('x').unwrap();
        assert_eq!(lines.at(x), (5, 3));
    }

    #[test]
    fn patterns_are_checked_as_the_engine_parses_them() {
        let known = |p: &str| p == "tool.check" || p == "classic.*";
        assert_eq!(pattern_problem("tool.check", &known), None);
        assert_eq!(pattern_problem("*", &known), None);
        assert_eq!(pattern_problem("!tool.check", &known), None);
        assert_eq!(pattern_problem("classic.*", &known), None);
        assert_eq!(
            pattern_problem("tool.calls", &known).as_deref(),
            Some("\"tool.calls\" is not an event")
        );
        assert_eq!(
            pattern_problem("!*", &known).as_deref(),
            Some("\"!*\" is not a pattern")
        );
        assert_eq!(
            pattern_problem("to*l", &known).as_deref(),
            Some("\"to*l\" is not a pattern")
        );
        assert_eq!(
            pattern_problem("nope.*", &known).as_deref(),
            Some("\"nope.*\" matches no event")
        );
    }
}
