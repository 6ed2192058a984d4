//! Meeting rules with a question (SPEC §4): which rules match a call.
//!
//! Deny and ask rules match *strictly*: any part of a shell command, any form of a
//! part (as written and past each wrapper), any of the input's paths in any of its
//! forms (as typed, canonical, backslashes as separators), names and paths compared
//! case-insensitively. Allow rules must *cover* the call: every part of a shell
//! command, every path in every form.

use crate::bash::{parse_command_cached_in, FileArg, ParsedCommand, Part, ShellContext};
use crate::index::{Anchors, PathQuery, Stage};
use crate::path::{
    backslashes_as_separators, glob_base, is_critical, is_protected, is_within, normalize, Resolver,
};
use crate::rule::{
    canonical_tool, host_forms, url_hosts, Behavior, Rule, Specifier, ToolPattern, PATH_TOOLS,
};
use crate::{Mode, Question, RuleSet, SessionFacts};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// Tools that read files.
pub(crate) const READ_TOOLS: &[&str] = &["Read", "NotebookRead", "Glob", "Grep", "LS"];
/// Tools that write files.
pub(crate) const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// The forms one path is met in: as typed (first), canonical, backslashes read as
/// separators; each absolute, normalized (SPEC §4 "Paths").
#[derive(Debug, Clone)]
pub(crate) struct PathForms {
    pub forms: Vec<Vec<String>>,
}

impl PathForms {
    pub(crate) fn resolve(text: &str, facts: &SessionFacts, fs: &mut Resolver) -> Self {
        let text = home_var(text);
        let mut forms = vec![normalize(Path::new(&text), &facts.cwd, &facts.home)];
        let mut push = |f: Vec<String>| {
            if !forms.contains(&f) {
                forms.push(f);
            }
        };
        if let Some(c) = fs.canonical(Path::new(&text), &facts.cwd, &facts.home) {
            push(c);
        }
        if let Some(b) = backslashes_as_separators(&text) {
            push(normalize(Path::new(&b), &facts.cwd, &facts.home));
            if let Some(c) = fs.canonical(Path::new(&b), &facts.cwd, &facts.home) {
                push(c);
            }
        }
        PathForms { forms }
    }
}

/// `$HOME/x` and `${HOME}/x` read as `~/x`.
fn home_var(text: &str) -> String {
    for var in ["$HOME", "${HOME}"] {
        if let Some(rest) = text.strip_prefix(var) {
            if rest.is_empty() || rest.starts_with('/') {
                return format!("~{rest}");
            }
        }
    }
    text.to_owned()
}

/// A file a shell command reads or writes, resolved from every directory it may be
/// relative to.
#[derive(Debug, Clone)]
pub(crate) struct ShellFile {
    pub write: bool,
    pub redirect: bool,
    pub resolvable: bool,
    /// Read whole: it meets every `Read` rule beneath it.
    pub folder: bool,
    pub forms: Vec<Vec<String>>,
    /// An `rm`/`rmdir` of a critical path (reference §3.3).
    pub critical: bool,
}

impl ShellFile {
    fn new(f: &FileArg, facts: &SessionFacts, anchors: &Anchors, fs: &mut Resolver) -> Self {
        let mut forms: Vec<Vec<String>> = Vec::new();
        for c in f.candidates() {
            for form in PathForms::resolve(&c, facts, fs).forms {
                if !forms.contains(&form) {
                    forms.push(form);
                }
            }
        }
        ShellFile {
            write: f.write,
            redirect: f.redirect,
            resolvable: f.resolvable(),
            folder: f.folder,
            forms,
            critical: removes_critical_in(f, facts, anchors.cwd(), anchors.home(), fs),
        }
    }
}

/// Whether `f` is an `rm`/`rmdir` argument that names a critical path
/// ([`crate::path::is_critical`]), in any of its forms; a glob is judged by the
/// folder it expands in (`rm -rf /*` removes below `/`).
#[cfg(test)]
pub(crate) fn removes_critical(f: &FileArg, facts: &SessionFacts) -> bool {
    let cwd = normalize(&facts.cwd, &facts.cwd, &facts.home);
    let home = normalize(&facts.home, &facts.cwd, &facts.home);
    removes_critical_in(f, facts, &cwd, &home, &mut Resolver::default())
}

fn removes_critical_in(
    f: &FileArg,
    facts: &SessionFacts,
    cwd: &[String],
    home: &[String],
    fs: &mut Resolver,
) -> bool {
    f.remove
        && f.candidates().iter().any(|c| {
            PathForms::resolve(&glob_base(c), facts, fs)
                .forms
                .iter()
                .any(|p| is_critical(p, cwd, home))
        })
}

/// A question prepared for matching: the shell command parsed, paths resolved.
pub(crate) struct Subject<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    /// The parsed command, for `Bash`.
    pub command: Option<Arc<ParsedCommand>>,
    /// The input's paths, for the file tools.
    pub paths: Vec<PathForms>,
    /// The files a shell command reads and writes.
    pub files: Vec<ShellFile>,
    /// The session's anchors and working directories (its own and
    /// `additionalDirectories`).
    pub anchors: Arc<Anchors>,
    /// A file tool whose path cannot be read from its input (missing where the tool
    /// needs one, or not a string): the path is unknown, so it may be any path (SPEC §4
    /// "What the core cannot see, it never lets through").
    pub unknown_path: bool,
    /// The spellings of the hosts of the input's `url` (the domain rules' index keys).
    pub hosts: Vec<String>,
}

impl<'a> Subject<'a> {
    pub(crate) fn new(q: &Question<'a>, facts: &SessionFacts, rules: &RuleSet) -> Self {
        let tool = q.tool;
        let command =
            (tool == "Bash").then(|| match q.input.get("command").and_then(Value::as_str) {
                Some(c) => {
                    let ctx = ShellContext::new(&facts.cwd, &facts.home, facts.env.clone());
                    parse_command_cached_in(c, &ctx)
                }
                None => Arc::new(ParsedCommand::default()),
            });
        let anchors = rules.anchors(facts);
        let mut fs = Resolver::default();
        let files = command
            .iter()
            .flat_map(|c| c.files.iter())
            .map(|f| ShellFile::new(f, facts, &anchors, &mut fs))
            .collect();
        let mut paths = Vec::new();
        let mut unknown_path = false;
        if PATH_TOOLS.contains(&tool) {
            for key in ["file_path", "notebook_path", "path"] {
                match q.input.get(key) {
                    // An empty path names no file.
                    Some(Value::String(p)) if p.is_empty() => unknown_path = true,
                    Some(Value::String(p)) => paths.push(PathForms::resolve(p, facts, &mut fs)),
                    None | Some(Value::Null) => {}
                    // A path that is no string names no path the core can judge.
                    Some(_) => unknown_path = true,
                }
            }
            let defaults_to_cwd = matches!(tool, "Glob" | "Grep" | "LS");
            if paths.is_empty() && !defaults_to_cwd {
                unknown_path = true;
            }
            if paths.is_empty() && defaults_to_cwd {
                paths.push(PathForms {
                    forms: vec![anchors.cwd().to_vec()],
                });
            }
        }
        let mut hosts: Vec<String> = Vec::new();
        if let Some(url) = q.input.get("url").and_then(Value::as_str) {
            for h in url_hosts(url) {
                for f in host_forms(&h) {
                    if !hosts.contains(&f) {
                        hosts.push(f);
                    }
                }
            }
        }
        Subject {
            tool,
            input: q.input,
            command,
            paths,
            files,
            anchors,
            unknown_path,
            hosts,
        }
    }

    /// Whether this is a shell command the parser refused.
    pub(crate) fn unparsed_command(&self) -> bool {
        self.command.as_ref().is_some_and(|c| !c.parsed)
    }

    /// Whether `path` is inside a working directory.
    pub(crate) fn inside(&self, path: &[String]) -> bool {
        self.anchors.working_dirs.iter().any(|d| is_within(path, d))
    }

    /// Whether the call reads something outside the working directories (SPEC §3.6
    /// "the read block"): a file tool's path in any form, or a file a shell command
    /// reads that is outside in any form or cannot be resolved.
    pub(crate) fn reads_outside(&self) -> bool {
        if READ_TOOLS.contains(&self.tool) {
            return self
                .paths
                .iter()
                .any(|p| p.forms.iter().any(|f| !self.inside(f)));
        }
        self.files
            .iter()
            .filter(|f| !f.write)
            .any(|f| !f.resolvable || f.forms.iter().any(|p| !self.inside(p)))
    }

    /// Whether a mode may let an edit of `path` through: inside a working directory
    /// and not a protected path.
    pub(crate) fn mode_may_edit(&self, path: &[String]) -> bool {
        self.inside(path) && !is_protected(path)
    }

    /// Whether a shell command removes a critical path (never auto-approved).
    pub(crate) fn removes_critical(&self) -> bool {
        self.files.iter().any(|f| f.critical)
    }

    /// Whether the call writes a protected path (never auto-approved).
    pub(crate) fn writes_protected(&self) -> bool {
        (EDIT_TOOLS.contains(&self.tool)
            && self
                .paths
                .iter()
                .any(|p| p.forms.iter().any(|f| is_protected(f))))
            || self
                .files
                .iter()
                .any(|f| f.write && f.forms.iter().any(|p| is_protected(p)))
    }
}

/// Whether a path rule written for `rule_tool` speaks about a call of `tool`
/// (reference §3.2: a Read deny also blocks edits; Edit rules cover every edit tool).
pub(crate) fn path_rule_applies(rule_tool: &str, behavior: Behavior, tool: &str) -> bool {
    let strict = behavior.is_strict();
    match rule_tool {
        "Read" => READ_TOOLS.contains(&tool) || (strict && EDIT_TOOLS.contains(&tool)),
        "Edit" => EDIT_TOOLS.contains(&tool),
        other if EDIT_TOOLS.contains(&other) && strict => EDIT_TOOLS.contains(&tool),
        other => other == tool,
    }
}

/// Whether a rule's tool position speaks about `tool`: bare file-tool rules follow
/// [`path_rule_applies`] (`Edit` covers every edit tool), others name their tools.
pub(crate) fn tool_applies(rule: &Rule, tool: &str) -> bool {
    match &rule.spec.tool {
        ToolPattern::Exact(rt) if PATH_TOOLS.contains(&rt.as_str()) => {
            path_rule_applies(rt, rule.behavior, tool)
        }
        t => t.matches(tool),
    }
}

/// The tool a shell file access is judged as.
fn file_tool(f: &ShellFile) -> &'static str {
    if f.write {
        "Edit"
    } else {
        "Read"
    }
}

fn scalar(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Whether a rule matches a call of `tool` with `input` on everything but shell
/// commands and paths (those need the whole subject).
/// A domain rule meets every reading of the URL's host: a deny or ask rule applies
/// when it matches any, an allow rule must match all ([`url_hosts`]).
fn matches_field(rule: &Rule, input: &Value) -> Option<bool> {
    Some(match &rule.spec.specifier {
        Specifier::Domain(d) => {
            let hosts = input
                .get("url")
                .and_then(Value::as_str)
                .map(url_hosts)
                .unwrap_or_default();
            if rule.behavior.is_strict() {
                hosts.iter().any(|h| d.matches(h))
            } else {
                !hosts.is_empty() && hosts.iter().all(|h| d.matches(h))
            }
        }
        Specifier::SubagentType(w) => {
            let t = input
                .get("subagent_type")
                .and_then(Value::as_str)
                .unwrap_or("general-purpose");
            w.matches(t)
        }
        Specifier::Skill(w) => input
            .get("skill")
            .and_then(Value::as_str)
            .is_some_and(|s| w.matches(s.trim().trim_start_matches('/'))),
        Specifier::Param { key, value } => {
            scalar(input.get(key)).is_some_and(|v| value.matches(&v))
        }
        _ => return None,
    })
}

/// Whether a deny or ask rule matches the call (SPEC §4): any part, any form, any path.
pub(crate) fn strict_matches(rule: &Rule, s: &Subject<'_>, facts: &SessionFacts) -> bool {
    let spec = &rule.spec;
    match &spec.specifier {
        Specifier::Any => {
            tool_applies(rule, s.tool)
                || (s.command.is_some() && s.files.iter().any(|f| tool_applies(rule, file_tool(f))))
        }
        Specifier::Command(w) => {
            spec.tool.matches(s.tool)
                && s.command.as_ref().is_some_and(|c| {
                    w.matches(&c.full)
                        || c.parts
                            .iter()
                            .any(|p| p.strict_forms.iter().any(|f| w.matches(f)))
                })
        }
        Specifier::Path(p) => {
            let ToolPattern::Exact(rule_tool) = &spec.tool else {
                return false;
            };
            let hit = |forms: &[Vec<String>]| {
                forms.iter().any(|path| p.matches(path, rule.source, facts))
            };
            let on_tool = path_rule_applies(rule_tool, rule.behavior, s.tool)
                && s.paths.iter().any(|path| hit(&path.forms));
            // A shell command's files are judged as Read(<path>) or Edit(<path>); a
            // folder read whole meets the rules beneath it.
            on_tool
                || (s.command.is_some()
                    && s.files.iter().any(|f| {
                        path_rule_applies(rule_tool, rule.behavior, file_tool(f))
                            && (hit(&f.forms)
                                || (f.folder
                                    && f.forms
                                        .iter()
                                        .any(|d| p.may_match_beneath(d, rule.source, facts))))
                    }))
        }
        _ => spec.tool.matches(s.tool) && matches_field(rule, s.input).unwrap_or(false),
    }
}

/// Whether an allow rule covers one part of a shell command.
pub(crate) fn covers_part(rule: &Rule, part: &Part) -> bool {
    if !rule.spec.tool.matches("Bash") {
        return false;
    }
    match &rule.spec.specifier {
        Specifier::Any => true,
        Specifier::Command(w) => {
            part.allowable
                && part
                    .allow_forms
                    .iter()
                    .zip(&part.allow_guards)
                    .any(|(f, guard)| w.literal_prefix_len() >= *guard && w.matches(f))
        }
        _ => false,
    }
}

/// Whether an allow rule covers a use of `tool` on `path` (normalized).
pub(crate) fn covers_path(rule: &Rule, tool: &str, path: &[String], facts: &SessionFacts) -> bool {
    match &rule.spec.specifier {
        Specifier::Any => tool_applies(rule, tool),
        Specifier::Path(p) => match &rule.spec.tool {
            ToolPattern::Exact(rule_tool) => {
                path_rule_applies(rule_tool, rule.behavior, tool)
                    && p.matches(path, rule.source, facts)
            }
            _ => false,
        },
        _ => false,
    }
}

/// Whether the mode lets an edit of `path` through without a rule: `acceptEdits`,
/// inside a working directory, not a protected path (SPEC §4 "Defaults").
pub(crate) fn mode_allows_edit(s: &Subject<'_>, path: &[String], mode: Mode) -> bool {
    mode == Mode::AcceptEdits && s.mode_may_edit(path)
}

/// Lowers `best` to the position of the first rule of `stage` (in deciding order)
/// whose glob matches one of `forms` and which applies to `tool`.
fn first_path_hit(
    all: &[Rule],
    stage: &Stage,
    anchors: &Anchors,
    forms: &[Vec<String>],
    (tool, behavior): (&str, Behavior),
    best: &mut Option<u32>,
) {
    if !stage.has_paths() {
        return;
    }
    let mut hits = Vec::new();
    for form in forms {
        hits.clear();
        stage.path_matches(&PathQuery::new(form), anchors, &mut hits);
        for &i in &hits {
            if best.is_some_and(|b| i >= b) {
                continue;
            }
            let applies = all.get(i as usize).is_some_and(|r| match &r.spec.tool {
                ToolPattern::Exact(rt) => path_rule_applies(rt, behavior, tool),
                _ => false,
            });
            if applies {
                *best = Some(i);
            }
        }
    }
}

/// The first deny (or ask) rule, in deciding order, that matches the call (SPEC §4):
/// the index narrows the rules met to those that can apply; each is judged by
/// [`strict_matches`] or, for path and command rules, by the same globs and
/// wildcards through the index.
pub(crate) fn first_strict<'r>(
    rules: &'r RuleSet,
    behavior: Behavior,
    s: &Subject<'_>,
    facts: &SessionFacts,
) -> Option<&'r Rule> {
    let all = rules.rules();
    let stage = rules.index().stage(behavior);
    let mut best: Option<u32> = None;
    for i in stage.candidates(s.tool, &s.hosts) {
        if all
            .get(i as usize)
            .is_some_and(|r| strict_matches(r, s, facts))
        {
            best = Some(i);
            break;
        }
    }
    if let Some(cmd) = &s.command {
        let forms =
            std::iter::once(&cmd.full).chain(cmd.parts.iter().flat_map(|p| &p.strict_forms));
        for form in forms {
            for i in stage.commands_for(form, true) {
                if best.is_some_and(|b| i >= b) {
                    break;
                }
                let hit = all
                    .get(i as usize)
                    .is_some_and(|r| match &r.spec.specifier {
                        Specifier::Command(w) => w.matches(form),
                        _ => false,
                    });
                if hit {
                    best = Some(i);
                    break;
                }
            }
        }
    }
    for p in &s.paths {
        first_path_hit(
            all,
            stage,
            &s.anchors,
            &p.forms,
            (s.tool, behavior),
            &mut best,
        );
    }
    if s.command.is_some() {
        for f in &s.files {
            first_path_hit(
                all,
                stage,
                &s.anchors,
                &f.forms,
                (file_tool(f), behavior),
                &mut best,
            );
        }
    }
    for &i in stage.loose_paths() {
        if best.is_some_and(|b| i >= b) {
            break;
        }
        if all
            .get(i as usize)
            .is_some_and(|r| strict_matches(r, s, facts))
        {
            best = Some(i);
        }
    }
    // Folders read whole: every path rule beneath them (rare; met one by one).
    if s.command.is_some() && s.files.iter().any(|f| f.folder) {
        for (i, r) in all.iter().enumerate() {
            let Ok(i) = u32::try_from(i) else { break };
            if best.is_some_and(|b| i >= b) {
                break;
            }
            if r.behavior == behavior
                && matches!(r.spec.specifier, Specifier::Path(_))
                && strict_matches(r, s, facts)
            {
                best = Some(i);
            }
        }
    }
    best.and_then(|i| all.get(i as usize))
}

/// The first deny (or ask) rule, in deciding order, that an *uncertain* part or path
/// of a shell command could meet (SPEC §4 **\[decision\]** "What the core cannot
/// see, it never lets through"): a program that may be anything meets every `Bash`
/// rule; inline code every `Bash` rule whose command word is among its words; a path
/// known only at run time every `Read`/`Edit` path rule of its kind.
pub(crate) fn first_uncertain<'r>(
    rules: &'r RuleSet,
    behavior: Behavior,
    s: &Subject<'_>,
) -> Option<&'r Rule> {
    if s.unknown_path {
        // An unknown path meets every path rule of its tool's kind.
        return rules.rules().iter().find(|r| {
            r.behavior == behavior
                && matches!(r.spec.specifier, Specifier::Path(_))
                && matches!(&r.spec.tool, ToolPattern::Exact(t) if path_rule_applies(t, behavior, s.tool))
        });
    }
    let cmd = s.command.as_ref()?;
    let anything = cmd.parts.iter().any(|p| p.runs_anything);
    let code: Vec<&str> = cmd
        .parts
        .iter()
        .filter(|p| p.uncertain)
        .flat_map(|p| p.code_words.iter().map(String::as_str))
        .collect();
    let unknown_files: Vec<&ShellFile> = s.files.iter().filter(|f| !f.resolvable).collect();
    if !anything && code.is_empty() && unknown_files.is_empty() {
        return None;
    }
    // A rule whose command word is among the code's words is named first: it is the
    // one the code most plainly meets.
    let named_in_code = |r: &Rule| match &r.spec.specifier {
        Specifier::Command(w) if r.spec.tool.matches("Bash") && r.behavior == behavior => w
            .first_word_key()
            .is_some_and(|word| code.contains(&word.to_lowercase().as_str())),
        _ => false,
    };
    if let Some(r) = rules.rules().iter().find(|r| named_in_code(r)) {
        return Some(r);
    }
    rules.rules().iter().find(|r| {
        if r.behavior != behavior {
            return false;
        }
        match &r.spec.specifier {
            Specifier::Command(w) if r.spec.tool.matches("Bash") => {
                anything
                    || match w.first_word_key() {
                        Some(word) => {
                            let word = word.to_lowercase();
                            code.iter().any(|c| *c == word)
                        }
                        None => !code.is_empty(),
                    }
            }
            Specifier::Path(_) => {
                let ToolPattern::Exact(rule_tool) = &r.spec.tool else {
                    return false;
                };
                unknown_files
                    .iter()
                    .any(|f| path_rule_applies(rule_tool, behavior, file_tool(f)))
            }
            _ => false,
        }
    })
}

/// The first allow rule (position) covering one part of a shell command.
fn first_covering_part(all: &[Rule], stage: &Stage, part: &Part) -> Option<u32> {
    let mut best = stage
        .candidates("Bash", &[])
        .find(|&i| all.get(i as usize).is_some_and(|r| covers_part(r, part)));
    if !part.allowable {
        return best;
    }
    for (form, guard) in part.allow_forms.iter().zip(&part.allow_guards) {
        for i in stage.commands_for(form, false) {
            if best.is_some_and(|b| i >= b) {
                break;
            }
            let hit = all
                .get(i as usize)
                .is_some_and(|r| match &r.spec.specifier {
                    Specifier::Command(w) => w.literal_prefix_len() >= *guard && w.matches(form),
                    _ => false,
                });
            if hit {
                best = Some(i);
                break;
            }
        }
    }
    best
}

/// The first allow rule (position) covering a use of `tool` on `path`.
fn first_covering_path(
    all: &[Rule],
    stage: &Stage,
    s: &Subject<'_>,
    tool: &str,
    path: &[String],
    facts: &SessionFacts,
) -> Option<u32> {
    let mut best = stage.candidates(tool, &[]).find(|&i| {
        all.get(i as usize)
            .is_some_and(|r| covers_path(r, tool, path, facts))
    });
    first_path_hit(
        all,
        stage,
        &s.anchors,
        std::slice::from_ref(&path.to_vec()),
        (tool, Behavior::Allow),
        &mut best,
    );
    for &i in stage.loose_paths() {
        if best.is_some_and(|b| i >= b) {
            break;
        }
        if all
            .get(i as usize)
            .is_some_and(|r| covers_path(r, tool, path, facts))
        {
            best = Some(i);
        }
    }
    best
}

/// The allow rule that lets the call through, if the allow rules cover it (SPEC §4).
/// When several rules cover a shell command's parts, the first in deciding order is
/// named. Nothing that writes a protected path, or removes a critical one, is
/// allowed by a rule.
pub(crate) fn allowing_rule<'r>(
    rules: &'r RuleSet,
    s: &Subject<'_>,
    facts: &SessionFacts,
    mode: Mode,
) -> Option<&'r Rule> {
    if s.writes_protected() || s.removes_critical() {
        return None;
    }
    let all = rules.rules();
    let stage = rules.index().stage(Behavior::Allow);
    let min = |a: Option<u32>, b: u32| Some(a.map_or(b, |a| a.min(b)));
    if let Some(cmd) = &s.command {
        if !cmd.parsed || cmd.parts.is_empty() {
            return None;
        }
        let mut used: Option<u32> = None;
        for part in &cmd.parts {
            match first_covering_part(all, stage, part) {
                Some(i) => used = min(used, i),
                // A read-only part needs no rule.
                None if part.read_only => {}
                None => return None,
            }
        }
        for f in s.files.iter().filter(|f| f.redirect && f.write) {
            if !f.resolvable {
                return None;
            }
            for form in &f.forms {
                if mode_allows_edit(s, form, mode) {
                    continue;
                }
                used = min(
                    used,
                    first_covering_path(all, stage, s, "Edit", form, facts)?,
                );
            }
        }
        return used.and_then(|i| all.get(i as usize));
    }
    let mut best = stage.candidates(s.tool, &s.hosts).find(|&i| {
        all.get(i as usize)
            .is_some_and(|rule| match &rule.spec.specifier {
                Specifier::Any => tool_applies(rule, s.tool),
                Specifier::Path(_) | Specifier::Command(_) => false,
                _ => {
                    rule.spec.tool.matches(s.tool) && matches_field(rule, s.input).unwrap_or(false)
                }
            })
    });
    // A path rule must cover every path in every form.
    let tool = canonical_tool(s.tool);
    let mut common: Option<Vec<u32>> = None;
    let mut hits = Vec::new();
    let forms = s.paths.iter().flat_map(|p| &p.forms);
    for form in forms.filter(|_| stage.has_paths()) {
        hits.clear();
        stage.path_matches(&PathQuery::new(form), &s.anchors, &mut hits);
        hits.retain(|&i| {
            all.get(i as usize).is_some_and(|r| match &r.spec.tool {
                ToolPattern::Exact(rt) => path_rule_applies(rt, Behavior::Allow, tool),
                _ => false,
            })
        });
        hits.sort_unstable();
        hits.dedup();
        common = Some(match common {
            None => hits.clone(),
            Some(c) => c
                .into_iter()
                .filter(|i| hits.binary_search(i).is_ok())
                .collect(),
        });
    }
    if let Some(first) = common.and_then(|c| c.first().copied()) {
        best = min(best, first);
    }
    for &i in stage.loose_paths() {
        let covers = !s.paths.is_empty()
            && all.get(i as usize).is_some_and(|rule| {
                s.paths
                    .iter()
                    .all(|p| p.forms.iter().all(|f| covers_path(rule, tool, f, facts)))
            });
        if covers {
            best = min(best, i);
        }
    }
    best.and_then(|i| all.get(i as usize))
}
