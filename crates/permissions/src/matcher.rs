//! Meeting rules with a question (SPEC §4): which rules match a call.
//!
//! Deny and ask rules match *strictly*: any part of a shell command, any form of a
//! part (as written and past each wrapper), any of the input's paths, names and
//! paths compared case-insensitively. Allow rules must *cover* the call: every part
//! of a shell command, every path.

use crate::bash::{parse_command, ParsedCommand, Part};
use crate::path::{is_protected, is_within, normalize};
use crate::rule::{canonical_tool, url_host, Behavior, Rule, Specifier, ToolPattern, PATH_TOOLS};
use crate::{Mode, Question, RuleSet, SessionFacts};
use serde_json::Value;
use std::path::Path;

/// Tools that read files.
const READ_TOOLS: &[&str] = &["Read", "NotebookRead", "Glob", "Grep", "LS"];
/// Tools that write files.
pub(crate) const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// A question prepared for matching: the shell command split, paths normalized.
pub(crate) struct Subject<'a> {
    pub tool: &'a str,
    pub input: &'a Value,
    /// The split command, for `Bash`.
    pub command: Option<ParsedCommand>,
    /// The input's paths, normalized, for the file tools.
    pub paths: Vec<Vec<String>>,
}

impl<'a> Subject<'a> {
    pub fn new(q: &Question<'a>, facts: &SessionFacts) -> Self {
        let tool = q.tool;
        let command =
            (tool == "Bash").then(|| match q.input.get("command").and_then(Value::as_str) {
                Some(c) => parse_command(c),
                None => ParsedCommand::default(),
            });
        let mut paths = Vec::new();
        if PATH_TOOLS.contains(&tool) {
            for key in ["file_path", "notebook_path", "path"] {
                if let Some(p) = q.input.get(key).and_then(Value::as_str) {
                    paths.push(normalize(Path::new(p), &facts.cwd, &facts.home));
                }
            }
            if paths.is_empty() && matches!(tool, "Glob" | "Grep" | "LS") {
                paths.push(normalize(&facts.cwd, &facts.cwd, &facts.home));
            }
        }
        Subject {
            tool,
            input: q.input,
            command,
            paths,
        }
    }

    /// Whether this is a shell command that could not be split with confidence.
    pub fn uncertain_command(&self) -> bool {
        self.command.as_ref().is_some_and(|c| !c.certain)
    }

    /// The normalized paths a shell command writes through redirects, and whether
    /// each could be resolved.
    pub fn write_targets(&self, facts: &SessionFacts) -> Vec<(Vec<String>, bool)> {
        self.command
            .iter()
            .flat_map(|c| &c.write_targets)
            .map(|t| {
                (
                    normalize(Path::new(&t.path), &facts.cwd, &facts.home),
                    t.resolvable,
                )
            })
            .collect()
    }
}

/// Whether a path rule written for `rule_tool` speaks about a call of `tool`
/// (reference §3.2: a Read deny also blocks edits; Edit rules cover every edit tool).
fn path_rule_applies(rule_tool: &str, behavior: Behavior, tool: &str) -> bool {
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
fn tool_applies(rule: &Rule, tool: &str) -> bool {
    match &rule.spec.tool {
        ToolPattern::Exact(rt) if PATH_TOOLS.contains(&rt.as_str()) => {
            path_rule_applies(rt, rule.behavior, tool)
        }
        t => t.matches(tool),
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
fn matches_field(rule: &Rule, input: &Value) -> Option<bool> {
    Some(match &rule.spec.specifier {
        Specifier::Domain(d) => input
            .get("url")
            .and_then(Value::as_str)
            .and_then(url_host)
            .is_some_and(|h| d.matches(&h)),
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
                || (tool_applies(rule, "Edit")
                    && s.command
                        .as_ref()
                        .is_some_and(|c| !c.write_targets.is_empty()))
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
            let on_tool = path_rule_applies(rule_tool, rule.behavior, s.tool)
                && s.paths
                    .iter()
                    .any(|path| p.matches(path, rule.source, facts));
            // A shell redirect is judged as Edit(<path>).
            on_tool
                || (path_rule_applies(rule_tool, rule.behavior, "Edit")
                    && s.write_targets(facts)
                        .iter()
                        .any(|(path, _)| p.matches(path, rule.source, facts)))
        }
        _ => spec.tool.matches(s.tool) && matches_field(rule, s.input).unwrap_or(false),
    }
}

/// Whether an allow rule covers one part of a shell command.
fn covers_part(rule: &Rule, part: &Part) -> bool {
    if !rule.spec.tool.matches("Bash") {
        return false;
    }
    match &rule.spec.specifier {
        Specifier::Any => true,
        Specifier::Command(w) => part.allowable && part.allow_forms.iter().any(|f| w.matches(f)),
        _ => false,
    }
}

/// Whether an allow rule covers an edit of `path` (normalized).
fn covers_edit(rule: &Rule, tool: &str, path: &[String], facts: &SessionFacts) -> bool {
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
/// inside the working directory, not a protected path (SPEC §4 "Defaults").
pub(crate) fn mode_allows_edit(path: &[String], facts: &SessionFacts) -> bool {
    facts.mode == Mode::AcceptEdits
        && is_within(path, &normalize(&facts.cwd, &facts.cwd, &facts.home))
        && !is_protected(path)
}

/// The allow rule that lets the call through, if the allow rules cover it (SPEC §4).
/// When several rules cover a shell command's parts, the first in deciding order is
/// named.
pub(crate) fn allowing_rule<'r>(
    rules: &'r RuleSet,
    s: &Subject<'_>,
    facts: &SessionFacts,
) -> Option<&'r Rule> {
    let mut allows = rules.of(Behavior::Allow);
    if let Some(cmd) = &s.command {
        if !cmd.certain || cmd.parts.is_empty() {
            return None;
        }
        let mut used: Vec<&Rule> = Vec::new();
        for part in cmd.parts.iter().filter(|p| !p.read_only) {
            used.push(rules.of(Behavior::Allow).find(|r| covers_part(r, part))?);
        }
        for (path, resolvable) in s.write_targets(facts) {
            if !resolvable {
                return None;
            }
            if mode_allows_edit(&path, facts) {
                continue;
            }
            used.push(
                rules
                    .of(Behavior::Allow)
                    .find(|r| covers_edit(r, "Edit", &path, facts))?,
            );
        }
        return allows.find(|r| used.iter().any(|u| std::ptr::eq(*u, *r)));
    }
    allows.find(|rule| match &rule.spec.specifier {
        Specifier::Any => tool_applies(rule, s.tool),
        Specifier::Path(_) => {
            !s.paths.is_empty()
                && s.paths
                    .iter()
                    .all(|p| covers_edit(rule, canonical_tool(s.tool), p, facts))
        }
        Specifier::Command(_) => false,
        _ => rule.spec.tool.matches(s.tool) && matches_field(rule, s.input).unwrap_or(false),
    })
}
