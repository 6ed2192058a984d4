//! Why a call gets its verdict (SPEC §1.6, §3.6, §4): the rule that decided with its
//! file, line and JSON pointer, every rule that meets the call, a shell command's parts
//! and what each meets, the classic hooks that would run, and whether the security
//! default holds the verdict over a person's plugin; as the typed report of
//! `report.rs`.

use super::report::{
    Call, ClassicHook, ClassicHooksReport, Explained, Held, PartMeets, Problem, RuleMet, ShellPart,
    SourceFile,
};
use super::SourceRead;
use fnhooks::{Cx, Event, HookError, Next, Plugin, PluginInfo, Registration, Tier};
use permissions::bash::{parse_command_in, ShellContext};
use permissions::classic::{ClassicHooks, PRE_TOOL_USE};
use permissions::{Behavior, Explainer, Question, RuleSet, SessionFacts, SettingsSource};
use policy::{Policy, PolicyError};
use serde_json::{json, Value};
use session::{BlockingSession, HookRunner, SessionConfig, SettingsInput};
use std::collections::HashMap;
use std::path::Path;

/// The most parts of a shell command itemized with the rules each meets.
const MAX_PARTS: usize = 64;

/// Where a rule is written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    file: String,
    line: Option<usize>,
    pointer: String,
}

/// A person's plugin that answers `allow` to every check (the hold's witness).
fn allow_all() -> Plugin {
    Plugin::new(PluginInfo {
        id: "allow-all@check".to_owned(),
        name: "allow-all".to_owned(),
        tier: Tier::User,
        worker: None,
        source: None,
    })
    .with(Registration::on(
        events::names::TOOL_CHECK,
        |_cx: Cx, _e: Event, _next: Next| async {
            Ok::<Value, HookError>(json!({"decision": "allow"}))
        },
    ))
}

/// The `tool.check` answer of a session of `config` with `plugins`, as JSON.
fn verdict_in(config: SessionConfig, plugins: Vec<Plugin>, tool: &str, input: &Value) -> Value {
    verdict_and_facts(config, plugins, tool, input).0
}

/// [`verdict_in`], with the facts the session started with (its mode, SPEC §4 "Mode
/// at start"); `None` when it could not start.
fn verdict_and_facts(
    config: SessionConfig,
    plugins: Vec<Plugin>,
    tool: &str,
    input: &Value,
) -> (Value, Option<SessionFacts>) {
    let session = match BlockingSession::start(config, plugins) {
        Ok(s) => s,
        Err(e) => return (json!({"error": e.to_string()}), None),
    };
    let event = Event::from_value(
        events::names::TOOL_CHECK,
        json!({"tool": tool, "input": input, "tool_use_id": "check-1"}),
    );
    let answer = match session.raise(event) {
        Ok(v) => v,
        Err(e) => json!({"error": e.to_string()}),
    };
    (answer, Some(session.core().facts().clone()))
}

/// The explanation of one call; the verdict itself is raised in the session `logged`
/// makes (the one with the decision log).
#[allow(clippy::too_many_arguments)]
pub(super) fn explain(
    tool: &str,
    input: &Value,
    reads: &[SourceRead; 4],
    policy_read: &Result<Policy, PolicyError>,
    managed: &Path,
    config: &dyn Fn(bool) -> SessionConfig,
    logged: &dyn Fn() -> SessionConfig,
    (cwd, home): (&Path, &Path),
) -> Explained {
    let seated_cfg = config(true);
    let (verdict, started) = verdict_and_facts(logged(), Vec::new(), tool, input);
    let session_facts = started.unwrap_or_else(|| seated_cfg.facts.clone());
    let over_person = verdict_in(config(true), vec![allow_all()], tool, input);
    let unseated_person = verdict_in(config(false), vec![allow_all()], tool, input);

    // The rules, as the session reads them, with where each is written.
    let mut sources = session::readable_sources(&seated_cfg.settings);
    if let Ok(p) = policy_read {
        sources.push((SettingsSource::Policy, Value::Object(p.settings.clone())));
    }
    let refs: Vec<(SettingsSource, &Value)> = sources.iter().map(|(s, v)| (*s, v)).collect();
    let (rules, _) = RuleSet::from_sources(&refs);
    let mut facts = session_facts.clone();
    facts.env = None;
    let origins = Origins::new(&rules, reads, policy_read, managed);
    let rule_met = |r: &permissions::Rule, uncertain: bool| {
        let o = origins.of(r);
        RuleMet {
            behavior: r.behavior.as_str(),
            rule: r.text.clone(),
            source: r.source.as_str(),
            file: o.file,
            line: o.line,
            pointer: o.pointer,
            uncertain,
        }
    };
    // Every rule that meets the call, each judged alone by the core (SPEC §4).
    let explainer = Explainer::new(&rules);
    let matched: Vec<RuleMet> = explainer
        .explain(&Question { tool, input }, &facts)
        .met
        .iter()
        .map(|m| rule_met(m.rule, m.uncertain))
        .collect();
    let decided_by = verdict
        .get("rule")
        .and_then(Value::as_str)
        .and_then(|text| {
            let source = verdict.get("source").and_then(Value::as_str);
            rules
                .rules()
                .iter()
                .find(|r| r.text == text && source.is_none_or(|s| s == r.source.as_str()))
                .map(|r| rule_met(r, verdict.get("uncertain") == Some(&Value::Bool(true))))
        });

    // A shell command's parts, each with the rules it meets.
    let (parts, not_itemized) = shell_parts(tool, input, (cwd, home), &explainer, &facts);

    let (hooks, _) = ClassicHooks::from_sources(&refs);
    let classic = hooks
        .matching(PRE_TOOL_USE, tool, input, &facts)
        .iter()
        .map(|h| ClassicHook {
            event: h.event.clone(),
            matcher: h.matcher.clone(),
            command: h.name(),
            source: h.source.as_str(),
            pointer: h.pointer.clone(),
        })
        .collect();

    let held = over_person.get("decision") == verdict.get("decision");
    let hooks_run = matches!(seated_cfg.hook_runner, HookRunner::Sandboxed { .. });
    let problems = reads
        .iter()
        .filter_map(|r| {
            r.problem.as_ref().map(|p| Problem {
                source: r.source.as_str(),
                problem: p.clone(),
            })
        })
        .chain(policy_read.as_ref().err().map(|e| Problem {
            source: "policy",
            problem: format!("{e}; the managed policy counts as in force (fail closed)"),
        }))
        .collect();
    Explained {
        call: Call {
            tool: tool.to_owned(),
            input: input.clone(),
        },
        verdict,
        decided_by,
        matched,
        shell_parts: parts,
        shell_parts_not_itemized: not_itemized,
        classic_hooks: ClassicHooksReport {
            run: hooks_run,
            hooks: classic,
        },
        mode: session_facts.mode.as_str(),
        cwd: cwd.display().to_string(),
        over_a_persons_plugin: Held {
            held,
            seated: over_person,
            unseated: unseated_person,
        },
        sources: reads
            .iter()
            .filter(|r| !r.path.as_os_str().is_empty())
            .map(|r| SourceFile {
                source: r.source.as_str(),
                file: r.path.display().to_string(),
                present: !matches!(r.input, SettingsInput::Absent),
            })
            .collect(),
        managed: managed.display().to_string(),
        problems,
        policy_unreadable: policy_read.is_err(),
    }
}

/// Where each rule is written: the managed policy's own origins (file, line, pointer;
/// a drop-in where it comes from one), and each settings file's positions.
struct Origins<'a> {
    positions: HashMap<SettingsSource, HashMap<String, policy::json::Position>>,
    policy_read: &'a Result<Policy, PolicyError>,
    reads: &'a [SourceRead; 4],
    managed: &'a Path,
}

impl<'a> Origins<'a> {
    /// The origins of `rules`, from the files read.
    fn new(
        rules: &RuleSet,
        reads: &'a [SourceRead; 4],
        policy_read: &'a Result<Policy, PolicyError>,
        managed: &'a Path,
    ) -> Self {
        let mut pointers: HashMap<SettingsSource, Vec<String>> = HashMap::new();
        for r in rules.rules() {
            pointers.entry(r.source).or_default().push(format!(
                "/permissions/{}/{}",
                r.behavior.as_str(),
                r.index
            ));
        }
        let positions: HashMap<SettingsSource, HashMap<String, policy::json::Position>> = reads
            .iter()
            .filter_map(|r| {
                let doc = r.doc.as_ref()?;
                let wanted: Vec<&str> = pointers
                    .get(&r.source)
                    .map(|v| v.iter().map(String::as_str).collect())
                    .unwrap_or_default();
                Some((r.source, doc.positions_of(&wanted)))
            })
            .collect();
        Origins {
            positions,
            policy_read,
            reads,
            managed,
        }
    }

    /// Where `r` is written.
    fn of(&self, r: &permissions::Rule) -> Origin {
        if r.source == SettingsSource::Policy {
            if let Ok(p) = self.policy_read {
                if let Some(o) = p
                    .rule_origins
                    .get(&(r.behavior.as_str().to_owned(), r.text.clone()))
                {
                    return Origin {
                        file: o.file.display().to_string(),
                        line: o.line,
                        pointer: o.pointer.clone(),
                    };
                }
            }
            return Origin {
                file: self.managed.display().to_string(),
                line: None,
                pointer: format!("/permissions/{}/{}", r.behavior.as_str(), r.index),
            };
        }
        let pointer = format!("/permissions/{}/{}", r.behavior.as_str(), r.index);
        let file = self
            .reads
            .iter()
            .find(|x| x.source == r.source)
            .map(|x| x.path.display().to_string())
            .unwrap_or_default();
        let line = self
            .positions
            .get(&r.source)
            .and_then(|p| p.get(&pointer))
            .map(|p| p.line);
        Origin {
            file,
            line,
            pointer,
        }
    }
}

/// A shell command's first [`MAX_PARTS`] parts, each with the rules it meets, and how
/// many more parts are not itemized; nothing for a call that is not `Bash`.
fn shell_parts(
    tool: &str,
    input: &Value,
    (cwd, home): (&Path, &Path),
    explainer: &Explainer<'_>,
    facts: &SessionFacts,
) -> (Vec<ShellPart>, usize) {
    let parsed = match (tool, input.get("command").and_then(Value::as_str)) {
        ("Bash", Some(command)) => Some(parse_command_in(
            command,
            &ShellContext::new(cwd, home, None),
        )),
        _ => None,
    };
    let not_itemized = parsed
        .as_ref()
        .map_or(0, |p| p.parts.len().saturating_sub(MAX_PARTS));
    let parts = match &parsed {
        Some(parsed) => {
            // Each part is judged against every rule alone: a command of thousands of
            // parts is itemized for its first MAX_PARTS only.
            parsed
                .parts
                .iter()
                .take(MAX_PARTS)
                .map(|p| {
                    let part_input = json!({"command": p.raw});
                    let part = Question {
                        tool: "Bash",
                        input: &part_input,
                    };
                    // An uncertain part is never let through by a rule: no allow
                    // rule is listed for it.
                    let meets = explainer
                        .explain(&part, facts)
                        .met
                        .iter()
                        .filter(|m| m.behavior() != Behavior::Allow || !p.uncertain)
                        .map(|m| PartMeets {
                            behavior: m.behavior().as_str(),
                            rule: m.rule.text.clone(),
                            uncertain: m.uncertain,
                        })
                        .collect();
                    ShellPart {
                        part: p.raw.clone(),
                        uncertain: p.uncertain || p.runs_anything,
                        read_only: p.read_only,
                        meets,
                    }
                })
                .collect()
        }
        None => Vec::new(),
    };
    (parts, not_itemized)
}
