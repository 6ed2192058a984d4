//! The reference model: a deliberately simple, obviously correct
//! evaluator of the permission rules, for the differential property test against
//! [`crate::decide`] (SPEC §4).
//!
//! It reads the settings itself, keeps every rule in one flat list, and scans it
//! linearly for every question: no sorting, no index, no memo (the command is parsed
//! afresh with [`crate::bash::parse_command`]). Where several rules match at the
//! deciding stage it names the one with the smallest (source precedence, file
//! index). It shares only the leaf matchers (wildcards, path patterns, the shell
//! parser) with the real evaluator; the decision flow is written again from SPEC §4.

use crate::bash::parse_command;
use crate::matcher::removes_critical;
use crate::path::{is_protected, is_within, normalize, PathPattern};
use crate::rule::{canonical_tool, parse_rule, Behavior, RuleSpec, Specifier, ToolPattern};
use crate::Decision;
use crate::{Mode, SessionFacts, SettingsSource, READ_ONLY_TOOLS};
use serde_json::Value;
use std::path::Path;

struct RefRule {
    source: SettingsSource,
    behavior: Behavior,
    index: usize,
    text: String,
    spec: RuleSpec,
}

fn rules_of(sources: &[(SettingsSource, &Value)]) -> Vec<RefRule> {
    let managed_only = sources.iter().any(|(s, v)| {
        *s == SettingsSource::Policy
            && v.get("allowManagedPermissionRulesOnly")
                .is_some_and(|f| *f != Value::Bool(false))
    });
    let mut out = Vec::new();
    for (source, v) in sources {
        if managed_only && *source != SettingsSource::Policy {
            continue;
        }
        for behavior in [Behavior::Deny, Behavior::Ask, Behavior::Allow] {
            let list = v
                .get("permissions")
                .and_then(|p| p.get(behavior.as_str()))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for (index, item) in list.iter().enumerate() {
                let Some(text) = item.as_str() else { continue };
                let spec = match parse_rule(text, behavior) {
                    Ok(spec) => spec,
                    Err(_) if behavior == Behavior::Allow => continue,
                    // SPEC §4 [decision, revised]: a string naming no tool is no rule.
                    Err(e) => match e.tool {
                        Some(tool) => RuleSpec::whole(tool),
                        None => continue,
                    },
                };
                out.push(RefRule {
                    source: *source,
                    behavior,
                    index,
                    text: text.to_owned(),
                    spec,
                });
            }
        }
    }
    out
}

fn rank(r: &RefRule) -> (u8, usize) {
    (r.source.precedence(), r.index)
}

fn first<'r>(rules: impl Iterator<Item = &'r RefRule>) -> Option<&'r RefRule> {
    rules.min_by_key(|r| rank(r))
}

const EDITS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];
const READS: &[&str] = &["Read", "NotebookRead", "Glob", "Grep", "LS"];

/// Whether a rule about `rule_tool` speaks about a use of `tool` (reference §3.2).
fn about(r: &RefRule, tool: &str) -> bool {
    match &r.spec.tool {
        ToolPattern::Exact(t) if t == "Read" => {
            READS.contains(&tool) || (r.behavior != Behavior::Allow && EDITS.contains(&tool))
        }
        ToolPattern::Exact(t) if t == "Edit" => EDITS.contains(&tool),
        ToolPattern::Exact(t) if EDITS.contains(&t.as_str()) && r.behavior != Behavior::Allow => {
            EDITS.contains(&tool)
        }
        ToolPattern::Exact(t) => canonical_tool(t) == canonical_tool(tool),
        other => other.matches(tool),
    }
}

fn path_hit(p: &PathPattern, r: &RefRule, path: &[String], facts: &SessionFacts) -> bool {
    p.matches(path, r.source, facts)
}

/// The answer of the reference model: the decision and the rule it names.
pub(crate) fn reference_decide(
    sources: &[(SettingsSource, &Value)],
    tool: &str,
    input: &Value,
    facts: &SessionFacts,
) -> (Decision, Option<String>) {
    let (decision, rule, _) = reference_answer(sources, tool, input, facts);
    (decision, rule)
}

/// The answer of the reference model: the decision, the rule it names, and whether
/// the rule only may meet what the core cannot see (the verdict's `uncertain`).
pub(crate) fn reference_answer(
    sources: &[(SettingsSource, &Value)],
    tool: &str,
    input: &Value,
    facts: &SessionFacts,
) -> (Decision, Option<String>, bool) {
    let rules = rules_of(sources);
    let bypass_off = sources.iter().any(|(_, v)| {
        v.get("permissions")
            .and_then(|p| p.get("disableBypassPermissionsMode"))
            .and_then(Value::as_str)
            == Some("disable")
    });
    let mode = match facts.mode {
        Mode::BypassPermissions if bypass_off => Mode::Default,
        m => m,
    };
    let cwd = normalize(&facts.cwd, &facts.cwd, &facts.home);
    let norm = |p: &str| normalize(Path::new(p), &facts.cwd, &facts.home);

    // What the call is about.
    let command = (tool == "Bash").then(|| {
        parse_command(
            input
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        )
    });
    let file_path: Option<Vec<String>> = ["Read", "Edit", "Write"]
        .contains(&tool)
        .then(|| input.get("file_path").and_then(Value::as_str).map(norm))
        .flatten();
    // (path, written, redirect, resolvable) of every file a command touches, from
    // every directory it may run in; and the folders it reads whole.
    let mut files: Vec<(Vec<String>, bool, bool, bool)> = Vec::new();
    let mut folders: Vec<Vec<String>> = Vec::new();
    if let Some(c) = &command {
        for f in &c.files {
            for cand in f.candidates() {
                files.push((norm(&cand), f.write, f.redirect, f.resolvable()));
                if f.folder {
                    folders.push(norm(&cand));
                }
            }
        }
    }
    let kind = |write: bool| if write { "Edit" } else { "Read" };

    let strict_hit = |r: &RefRule| -> bool {
        match &r.spec.specifier {
            Specifier::Any => {
                about(r, tool)
                    || (command.is_some()
                        && files
                            .iter()
                            .any(|(_, w, _, _)| about(r, if *w { "Edit" } else { "Read" })))
            }
            Specifier::Command(w) => {
                r.spec.tool.matches(tool)
                    && command.as_ref().is_some_and(|c| {
                        w.matches(&c.full)
                            || c.parts
                                .iter()
                                .any(|p| p.strict_forms.iter().any(|f| w.matches(f)))
                    })
            }
            Specifier::Path(p) => {
                (about(r, tool)
                    && file_path
                        .as_ref()
                        .is_some_and(|fp| path_hit(p, r, fp, facts)))
                    || (command.is_some()
                        && files
                            .iter()
                            .any(|(fp, w, _, _)| about(r, kind(*w)) && path_hit(p, r, fp, facts)))
                    || (about(r, "Read")
                        && folders
                            .iter()
                            .any(|d| p.may_match_beneath(d, r.source, facts)))
            }
            _ => false,
        }
    };
    // What an uncertain part or path could meet (SPEC §4 "What the core cannot see").
    let uncertain_hit = |r: &RefRule| -> bool {
        let Some(c) = &command else { return false };
        match &r.spec.specifier {
            Specifier::Command(w) if r.spec.tool.matches("Bash") => c.parts.iter().any(|p| {
                p.runs_anything
                    || (p.uncertain
                        && match w.first_word_key() {
                            Some(k) => p.code_words.contains(&k.to_lowercase()),
                            None => !p.code_words.is_empty(),
                        })
            }),
            Specifier::Path(_) => c
                .files
                .iter()
                .any(|f| !f.resolvable() && about(r, kind(f.write))),
            _ => false,
        }
    };

    if let Some(r) = first(
        rules
            .iter()
            .filter(|r| r.behavior == Behavior::Deny && strict_hit(r)),
    ) {
        return (Decision::Deny, Some(r.text.clone()), false);
    }
    // Among the rules an uncertain part could meet, one whose command word the code
    // names comes first.
    let named_in_code = |r: &RefRule| -> bool {
        let Some(c) = &command else { return false };
        match &r.spec.specifier {
            Specifier::Command(w) if r.spec.tool.matches("Bash") => {
                w.first_word_key().is_some_and(|k| {
                    c.parts
                        .iter()
                        .any(|p| p.uncertain && p.code_words.contains(&k.to_lowercase()))
                })
            }
            _ => false,
        }
    };
    for (behavior, hit, uncertain) in [
        (
            Behavior::Deny,
            &named_in_code as &dyn Fn(&RefRule) -> bool,
            true,
        ),
        (Behavior::Deny, &uncertain_hit, true),
        (Behavior::Ask, &strict_hit, false),
        (Behavior::Ask, &named_in_code, true),
        (Behavior::Ask, &uncertain_hit, true),
    ] {
        if let Some(r) = first(rules.iter().filter(|r| r.behavior == behavior && hit(r))) {
            return (Decision::Ask, Some(r.text.clone()), uncertain);
        }
    }
    if command.as_ref().is_some_and(|c| !c.parsed) {
        return (Decision::Ask, None, false);
    }
    let protected = (EDITS.contains(&tool) && file_path.as_ref().is_some_and(|p| is_protected(p)))
        || files.iter().any(|(p, w, _, _)| *w && is_protected(p));
    if protected {
        return (Decision::Ask, None, false);
    }
    // An rm/rmdir of a critical path: never approved automatically.
    if command
        .as_ref()
        .is_some_and(|c| c.files.iter().any(|f| removes_critical(f, facts)))
    {
        return (Decision::Ask, None, false);
    }
    if mode == Mode::BypassPermissions {
        return (Decision::Allow, None, false);
    }
    let mode_edit =
        |p: &[String]| mode == Mode::AcceptEdits && is_within(p, &cwd) && !is_protected(p);
    let allows = || rules.iter().filter(|r| r.behavior == Behavior::Allow);
    let covers_path = |r: &RefRule, t: &str, p: &[String]| match &r.spec.specifier {
        Specifier::Any => about(r, t),
        Specifier::Path(pp) => about(r, t) && path_hit(pp, r, p, facts),
        _ => false,
    };
    if mode != Mode::Plan {
        if let Some(c) = &command {
            if !c.parts.is_empty() {
                let mut used: Vec<&RefRule> = Vec::new();
                let mut covered = true;
                for part in &c.parts {
                    let by = first(allows().filter(|r| {
                        r.spec.tool.matches("Bash")
                            && match &r.spec.specifier {
                                Specifier::Any => true,
                                // A form behind a wrapper (or a find that runs or
                                // deletes) needs a rule spelling it out that far.
                                Specifier::Command(w) => {
                                    part.allowable
                                        && part.allow_forms.iter().zip(&part.allow_guards).any(
                                            |(f, g)| w.literal_prefix_len() >= *g && w.matches(f),
                                        )
                                }
                                _ => false,
                            }
                    }));
                    match by {
                        Some(r) => used.push(r),
                        None if part.read_only => {}
                        None => covered = false,
                    }
                }
                for (p, w, redirect, resolvable) in &files {
                    if !(*w && *redirect) {
                        continue;
                    }
                    if !resolvable {
                        covered = false;
                    } else if !mode_edit(p) {
                        match first(allows().filter(|r| covers_path(r, "Edit", p))) {
                            Some(r) => used.push(r),
                            None => covered = false,
                        }
                    }
                }
                if covered {
                    if let Some(r) = first(used.into_iter()) {
                        return (Decision::Allow, Some(r.text.clone()), false);
                    }
                }
            }
        } else {
            let hit = first(allows().filter(|r| {
                match &r.spec.specifier {
                    Specifier::Any => about(r, tool),
                    Specifier::Path(_) => file_path
                        .as_ref()
                        .is_some_and(|p| covers_path(r, canonical_tool(tool), p)),
                    Specifier::Command(_) => false,
                    _ => false,
                }
            }));
            if let Some(r) = hit {
                return (Decision::Allow, Some(r.text.clone()), false);
            }
        }
    }
    // The mode's default.
    if READ_ONLY_TOOLS.contains(&tool) {
        return (Decision::Allow, None, false);
    }
    if let Some(c) = &command {
        let writes: Vec<_> = files.iter().filter(|f| f.1).collect();
        if c.certain
            && !c.parts.is_empty()
            && c.parts.iter().all(|p| p.read_only)
            && writes.is_empty()
        {
            return (Decision::Allow, None, false);
        }
        if mode == Mode::AcceptEdits
            && c.certain
            && !c.parts.is_empty()
            && c.parts.iter().all(|p| p.read_only || p.edits_files)
            && writes.iter().all(|(p, _, _, res)| *res && mode_edit(p))
        {
            return (Decision::Allow, None, false);
        }
    }
    if EDITS.contains(&tool) && file_path.as_ref().is_some_and(|p| mode_edit(p)) {
        return (Decision::Allow, None, false);
    }
    (Decision::Ask, None, false)
}
