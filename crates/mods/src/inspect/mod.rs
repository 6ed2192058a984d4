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
//!
//! Concerns, by file:
//! - this file: what the analysis reports ([`Inspection`], its rules, its rendering as
//!   `validate` prints it), and [`inspect`], which runs it over a mod's graph;
//! - `read`: each module read again and parsed, and lines and columns counted as
//!   JavaScript counts them;
//! - `analysis`: the functions a file declares, the exported `register`, what a call's
//!   arguments spell, and the scans that start at `register` (as `on`) and at a hook (as
//!   `$`);
//! - `visit`: the walks those scans make (the `on(...)` calls, the `$` calls), and the
//!   sweep of the whole file (other functions with a parameter spelled `$`,
//!   `process.env`).

mod analysis;
mod read;
mod visit;

use crate::load::{on_compiler_thread, LoadError, ModSource};
use read::analyse_file;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

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

#[cfg(test)]
mod tests {
    use super::*;

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
