//! `sec-default check TOOL INPUT` / `check 'Tool(spec)'`: the verdict the machine's
//! settings give one call, and why (SPEC §1.6, §3.6, §4).
//!
//! It reads the sources a session reads (the managed folder, `~/.claude/settings.json`,
//! the project's `.claude/settings.json` and `.claude/settings.local.json`, `--settings`),
//! raises `tool.check` in a session with the security default seated as the engine
//! seats it, and explains the verdict: the rule that decided with its file, line and
//! JSON pointer; every rule that meets the call at each stage; for a shell command, its
//! parts and what each meets; the classic hooks that would run (never run); the mode;
//! and whether the security default holds the verdict over a person's plugin.

use crate::args::MachineInputs;
use crate::audit::AuditSource;
use crate::error::CliError;
use crate::out;
use fnhooks::{Cx, Event, HookError, Next, Plugin, PluginInfo, Registration, Tier};
use permissions::bash::{parse_command_in, ShellContext};
use permissions::classic::{ClassicHooks, PRE_TOOL_USE};
use permissions::{Behavior, Mode, Question, RuleSet, SessionFacts, SettingsSource};
use policy::{ManagedLocation, Policy, PolicyError};
use serde_json::{json, Map, Value};
use session::{BlockingSession, HookRunner, SessionConfig, SettingsInput, SettingsInputs};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The most parts of a shell command itemized with the rules each meets.
const MAX_PARTS: usize = 64;

/// What `check` reads: the call and every source, each overridable.
#[derive(Debug, Clone)]
pub(crate) struct CheckArgs {
    /// `TOOL INPUT` (two words) or `Tool(spec)` (one).
    pub call: Vec<String>,
    /// The managed folder (the platform folder unless `--managed`), the person's user
    /// settings (`~/.claude/settings.json` unless `--user`), a `--settings FILE` (the
    /// `flag` source), and how the classic hooks' commands run: not at all (the
    /// default), or sandboxed as `audit --run-hooks` runs them.
    pub machine: MachineInputs,
    /// The project folder (default: the working folder): its `.claude/settings.json`
    /// and `.claude/settings.local.json`.
    pub project: Option<PathBuf>,
    /// The working folder the call is judged in (default: the current folder).
    pub cwd: Option<PathBuf>,
    /// The mode the session was given (default: as SPEC §4 "Mode at start" says).
    pub mode: Option<String>,
    /// Append the decision to this hash-chained log.
    pub log: Option<PathBuf>,
    /// Print JSON.
    pub json: bool,
}

/// One settings file as read: its source, path, and what became of it.
struct SourceRead {
    source: SettingsSource,
    path: PathBuf,
    input: SettingsInput,
    /// The parsed document (for positions), when it is JSON.
    doc: Option<policy::json::JsonDoc>,
    /// Why it cannot be used (missing files are not listed).
    problem: Option<String>,
}

/// Where a rule is written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    file: String,
    line: Option<usize>,
    pointer: String,
}

/// A call in rule syntax or as `TOOL INPUT`, read into a tool and its input (SPEC §4
/// "Rule syntax"); or why it cannot be read.
fn parse_call(call: &[String]) -> Result<(String, Value), String> {
    match call {
        [one] => {
            let one = one.trim();
            if one.is_empty() {
                return Err("the call names no tool".to_owned());
            }
            let Some(open) = one.find('(') else {
                return Ok((one.to_owned(), json!({})));
            };
            let Some(inner) = one.strip_suffix(')').and_then(|s| s.get(open + 1..)) else {
                return Err(if one.contains(')') {
                    format!("{one:?} has text after the call's closing parenthesis")
                } else {
                    format!("{one:?} opens a parenthesis it does not close")
                });
            };
            let tool = one.get(..open).unwrap_or_default().trim().to_owned();
            if tool.is_empty() {
                return Err(format!("{one:?} names no tool"));
            }
            Ok((tool.clone(), input_of(&tool, inner)))
        }
        [tool, input] => {
            let tool = tool.trim().to_owned();
            if tool.is_empty() {
                return Err("the call names no tool".to_owned());
            }
            match serde_json::from_str::<Value>(input) {
                Ok(v @ Value::Object(_)) => Ok((tool, v)),
                Ok(_) => Err(format!(
                    "the input {input:?} is JSON but not an object; give an object or plain text"
                )),
                Err(_) => Ok((tool.clone(), input_of(&tool, input))),
            }
        }
        _ => Err("give TOOL INPUT, or one call in rule syntax such as 'Bash(git push)'".to_owned()),
    }
}

/// The input a tool's one argument stands for (SPEC §4: the field each rule kind reads).
fn input_of(tool: &str, arg: &str) -> Value {
    match tool {
        "Bash" => json!({ "command": arg }),
        "Read" | "Edit" | "Write" | "MultiEdit" => json!({ "file_path": arg }),
        "NotebookEdit" | "NotebookRead" => json!({ "notebook_path": arg }),
        "Glob" | "Grep" => json!({ "pattern": arg, "path": "." }),
        "WebFetch" => {
            let url = arg
                .strip_prefix("domain:")
                .map_or_else(|| arg.to_owned(), |d| format!("https://{d}/"));
            json!({ "url": url })
        }
        "WebSearch" => json!({ "query": arg }),
        _ => json!({ "input": arg }),
    }
}

/// Reads one settings file: absent (not an error), its JSON, or why not (position).
fn read_source(source: SettingsSource, path: PathBuf) -> SourceRead {
    // As the managed files are read: a regular file of at most 16 MiB, opened so that a
    // FIFO cannot hang it (SPEC §2.1).
    let bytes = match policy::json::read_bounded(&path) {
        Ok(b) => b,
        Err(policy::json::BoundedReadError::NotFound) => {
            return SourceRead {
                source,
                path,
                input: SettingsInput::Absent,
                doc: None,
                problem: None,
            }
        }
        Err(e) => {
            let problem = Some(format!("{}: cannot be read: {e}", path.display()));
            return SourceRead {
                source,
                path,
                input: SettingsInput::Unreadable,
                doc: None,
                problem,
            };
        }
    };
    match policy::json::parse(&bytes) {
        Ok(doc) => {
            let problem = (!doc.value.is_object()).then(|| {
                format!(
                    "{}: not a JSON object; the engine reads no rule from it",
                    path.display()
                )
            });
            SourceRead {
                source,
                path,
                input: SettingsInput::Value(doc.value.clone()),
                doc: Some(doc),
                problem,
            }
        }
        Err(e) => SourceRead {
            source,
            input: SettingsInput::Raw(String::from_utf8_lossy(&bytes).into_owned()),
            problem: Some(format!(
                "{}:{}:{}: not JSON ({}); the engine reads no rule from it",
                path.display(),
                e.at.line,
                e.at.column,
                e.message
            )),
            path,
            doc: None,
        },
    }
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

/// The settings of `sources` with every permission rule list emptied, then `text`
/// written in `behavior`'s list of `source`: the machine with only that rule.
fn with_only(
    sources: &[(SettingsSource, Value)],
    source: SettingsSource,
    behavior: Behavior,
    text: &str,
) -> Vec<(SettingsSource, Value)> {
    let mut out: Vec<(SettingsSource, Value)> = sources
        .iter()
        .map(|(s, v)| {
            let mut v = v.clone();
            if let Some(Value::Object(p)) = v.get_mut("permissions") {
                for list in ["allow", "deny", "ask"] {
                    p.remove(list);
                }
            }
            (*s, v)
        })
        .collect();
    if !out.iter().any(|(s, _)| *s == source) {
        out.push((source, json!({})));
    }
    for (s, v) in &mut out {
        if *s != source {
            continue;
        }
        if !v.is_object() {
            *v = json!({});
        }
        if let Some(obj) = v.as_object_mut() {
            let perms = obj
                .entry("permissions")
                .or_insert_with(|| Value::Object(Map::new()));
            if !perms.is_object() {
                *perms = Value::Object(Map::new());
            }
            if let Some(p) = perms.as_object_mut() {
                p.insert(behavior.as_str().to_owned(), json!([text]));
            }
        }
    }
    out
}

/// Whether the rule alone decides the call (SPEC §4: the core's own matching), and
/// whether only as uncertain.
fn meets(
    sources: &[(SettingsSource, Value)],
    rule: &permissions::Rule,
    tool: &str,
    input: &Value,
    facts: &SessionFacts,
) -> Option<bool> {
    let only = with_only(sources, rule.source, rule.behavior, &rule.text);
    let refs: Vec<(SettingsSource, &Value)> = only.iter().map(|(s, v)| (*s, v)).collect();
    let (set, _) = RuleSet::from_sources(&refs);
    let v = permissions::decide(&set, &Question { tool, input }, facts);
    (v.rule.as_deref() == Some(rule.text.as_str())).then_some(v.uncertain)
}

/// Runs `check`. Exit 0 with the verdict; 2 bad input (a call that
/// cannot be read: the engine's verdict for it is still printed); 3 the managed policy
/// cannot be read (it counts as in force, and the verdict says what that does).
pub(crate) fn run(args: &CheckArgs) -> u8 {
    let cwd = args
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("/"));
    let cwd = std::path::absolute(&cwd).unwrap_or(cwd);
    let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
    let project = args.project.clone().unwrap_or_else(|| cwd.clone());
    let (managed, named) = match &args.machine.policy {
        AuditSource::Folder(dir) => (dir.clone(), Some(dir.clone())),
        AuditSource::Platform(dir) => (dir.clone(), None),
        AuditSource::Embedded => {
            let e = CliError::new(
                None,
                "check reads a managed folder, not the embedded example",
                crate::EXIT_BAD_INPUT,
            );
            return out::fail("check", &e, args.json);
        }
    };
    // A folder named on the command line must exist: a typo must not read as "no policy".
    for (flag, given) in [
        ("--managed", &named),
        ("--project", &args.project),
        ("--cwd", &args.cwd),
    ] {
        if let Some(dir) = given {
            if !dir.is_dir() {
                let e = CliError::parsed(
                    format!(
                        "{}: the {flag} folder given does not exist or is not a folder",
                        dir.display()
                    ),
                    dir,
                    crate::EXIT_BAD_INPUT,
                );
                return out::fail("check", &e, args.json);
            }
        }
    }
    let mode = match args.mode.as_deref().map(str::parse::<Mode>) {
        None => None,
        Some(Ok(m)) => Some(m),
        Some(Err(e)) => {
            let e = CliError::new(None, format!("--mode: {e}"), crate::EXIT_BAD_INPUT);
            return out::fail("check", &e, args.json);
        }
    };
    let (tool, input, unreadable_call) = match parse_call(&args.call) {
        Ok((t, i)) => (t, i, None),
        // SPEC §4: what the core cannot read is never allowed; the engine asks.
        Err(why) => (String::new(), Value::Null, Some(why)),
    };
    let reads = [
        read_source(
            SettingsSource::User,
            args.machine
                .user
                .clone()
                .unwrap_or_else(|| home.join(".claude").join("settings.json")),
        ),
        read_source(
            SettingsSource::Project,
            project.join(".claude").join("settings.json"),
        ),
        read_source(
            SettingsSource::Local,
            project.join(".claude").join("settings.local.json"),
        ),
        match &args.machine.person.settings {
            Some(p) => read_source(SettingsSource::Flag, p.clone()),
            None => SourceRead {
                source: SettingsSource::Flag,
                path: PathBuf::new(),
                input: SettingsInput::Absent,
                doc: None,
                problem: None,
            },
        },
    ];
    let policy_read = if managed.exists() {
        policy::read_policy(&ManagedLocation::Explicit(managed.clone()))
    } else {
        Ok(Policy::empty())
    };
    if let Err(e) = &policy_read {
        if !e.is_fail_closed() {
            return out::fail("check", &CliError::from_policy(e), args.json);
        }
    }
    let [user, project_in, local, flag] = reads.each_ref().map(|r| r.input.clone());
    let settings = SettingsInputs {
        user,
        project: project_in,
        local,
        flag,
    };
    // The session reads an empty folder where the platform folder does not exist.
    let empty = crate::source::TempFolder::empty().ok();
    let folder = if managed.exists() {
        managed.clone()
    } else {
        empty
            .as_ref()
            .map_or_else(|| managed.clone(), |t| t.path().to_path_buf())
    };
    let config = |seated: bool| SessionConfig {
        settings: settings.clone(),
        mode,
        seated,
        hook_runner: args.machine.hooks,
        ..SessionConfig::new(&folder, &cwd, &home)
    };
    let log = match &args.log {
        None => None,
        Some(path) => match session::DecisionLog::create(path) {
            Ok(l) => Some(std::sync::Arc::new(l)),
            Err(e) => {
                let e = CliError::parsed(
                    format!("{}: the decision log cannot be opened: {e}", path.display()),
                    path,
                    crate::EXIT_BAD_INPUT,
                );
                return out::fail("check", &e, args.json);
            }
        },
    };
    let report = match &unreadable_call {
        Some(why) => json!({
            "call": args.call,
            "error": {"reason": why, "exit_code": crate::EXIT_BAD_INPUT},
            "verdict": {"decision": "ask", "reason": format!("the call cannot be read ({why}); the engine asks before what it cannot read")},
        }),
        None => {
            let logged = || {
                let mut c = config(true);
                c.decisions = log
                    .clone()
                    .map(|l| l as std::sync::Arc<dyn session::DecisionSink>);
                c
            };
            explain(
                &tool,
                &input,
                &reads,
                &policy_read,
                &managed,
                &config,
                &logged,
                (&cwd, &home),
            )
        }
    };
    if let Some(l) = &log {
        let flushed = l.flush().err().map(|e| e.to_string());
        if let Some(e) = l.error().or(flushed) {
            let path = args.log.clone().unwrap_or_default();
            let e = CliError::parsed(
                format!(
                    "{}: the decision log cannot be written: {e}",
                    path.display()
                ),
                &path,
                crate::EXIT_BAD_INPUT,
            );
            return out::fail("check", &e, args.json);
        }
    }
    let code = if unreadable_call.is_some() {
        crate::EXIT_BAD_INPUT
    } else if policy_read.is_err() {
        crate::EXIT_POLICY_UNREADABLE
    } else {
        crate::EXIT_OK
    };
    let text = if args.json {
        let mut t = serde_json::to_string_pretty(&report).unwrap_or_default();
        t.push('\n');
        t
    } else {
        render(&report)
    };
    match out::print(&text) {
        Ok(()) => code,
        Err(e) => out::after_write_error(&e, code, "check"),
    }
}

/// `sec-default log verify FILE`: exit 0 with the number of lines
/// when the chain holds; 1 naming the first line that breaks it (not JSON, no `prev`, a
/// `prev` that is not the line before's hash); 2 when the file cannot be opened.
pub(crate) fn verify(file: &Path, json: bool) -> u8 {
    let bad = |why: String| {
        let e = CliError::parsed(
            format!("{}: {why}", file.display()),
            file,
            crate::EXIT_BAD_INPUT,
        );
        out::fail("log verify", &e, json)
    };
    // A FIFO or a device is no log (and could hang the open or never end): the bounded
    // opener refuses it on the opened file (SPEC §2.1 "Reading never hangs"); the
    // log's lines are capped by `verify_log`.
    let f = match boundedfs::open_regular(file) {
        Ok(f) => f,
        Err(e) => {
            return bad(match e.reason {
                boundedfs::Reason::NotRegular(kind) => {
                    format!("it is {kind}, not a regular file, so it is no decision log")
                }
                reason => format!("the log cannot be opened: {reason}"),
            })
        }
    };
    let (code, text) = match session::verify_log(std::io::BufReader::new(f)) {
        Ok(end) => (
            crate::EXIT_OK,
            if json {
                json!({"file": file.display().to_string(), "intact": true, "lines": end.lines, "last_line_sha256": end.last}).to_string()
            } else {
                format!(
                    "{}: the chain holds over {} line(s); the last line's SHA-256 is {} (no later line covers it: keep it to tell if it is edited or removed)",
                    file.display(),
                    end.lines,
                    end.last
                )
            },
        ),
        Err(b) => (
            crate::EXIT_FAILED,
            if json {
                json!({"file": file.display().to_string(), "intact": false, "line": b.line, "reason": b.reason}).to_string()
            } else {
                format!(
                    "{}:{}: the chain breaks: {}",
                    file.display(),
                    b.line,
                    b.reason
                )
            },
        ),
    };
    match out::print(&format!("{text}\n")) {
        Ok(()) => code,
        Err(e) => out::after_write_error(&e, code, "log verify"),
    }
}

/// The explanation of one call, as JSON (the human text is rendered from it); the
/// verdict itself is raised in the session `logged` makes (the one with the decision
/// log).
#[allow(clippy::too_many_arguments)]
fn explain(
    tool: &str,
    input: &Value,
    reads: &[SourceRead; 4],
    policy_read: &Result<Policy, PolicyError>,
    managed: &Path,
    config: &dyn Fn(bool) -> SessionConfig,
    logged: &dyn Fn() -> SessionConfig,
    (cwd, home): (&Path, &Path),
) -> Value {
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
    let origin_of = |r: &permissions::Rule| -> Origin {
        if r.source == SettingsSource::Policy {
            if let Ok(p) = policy_read {
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
                file: managed.display().to_string(),
                line: None,
                pointer: format!("/permissions/{}/{}", r.behavior.as_str(), r.index),
            };
        }
        let pointer = format!("/permissions/{}/{}", r.behavior.as_str(), r.index);
        let file = reads
            .iter()
            .find(|x| x.source == r.source)
            .map(|x| x.path.display().to_string())
            .unwrap_or_default();
        let line = positions
            .get(&r.source)
            .and_then(|p| p.get(&pointer))
            .map(|p| p.line);
        Origin {
            file,
            line,
            pointer,
        }
    };
    let rule_json = |r: &permissions::Rule, uncertain: bool| {
        let o = origin_of(r);
        json!({
            "behavior": r.behavior.as_str(),
            "rule": r.text,
            "source": r.source.as_str(),
            "file": o.file,
            "line": o.line,
            "pointer": o.pointer,
            "uncertain": uncertain,
        })
    };
    let mut matched = Vec::new();
    for r in rules.rules() {
        if let Some(uncertain) = meets(&sources, r, tool, input, &facts) {
            matched.push(rule_json(r, uncertain));
        }
    }
    let decided_by = verdict
        .get("rule")
        .and_then(Value::as_str)
        .and_then(|text| {
            let source = verdict.get("source").and_then(Value::as_str);
            rules
                .rules()
                .iter()
                .find(|r| r.text == text && source.is_none_or(|s| s == r.source.as_str()))
                .map(|r| rule_json(r, verdict.get("uncertain") == Some(&Value::Bool(true))))
        });

    // A shell command's parts, each with the rules it meets.
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
    let parts: Vec<Value> = match &parsed {
        Some(parsed) => {
            // Each part is judged against every rule alone: a command of thousands of
            // parts is itemized for its first MAX_PARTS only.
            parsed
                .parts
                .iter()
                .take(MAX_PARTS)
                .map(|p| {
                    let part_input = json!({"command": p.raw});
                    let met: Vec<Value> = rules
                        .rules()
                        .iter()
                        .filter(|r| r.behavior != Behavior::Allow || !p.uncertain)
                        .filter_map(|r| {
                            meets(&sources, r, "Bash", &part_input, &facts)
                                .map(|u| json!({"behavior": r.behavior.as_str(), "rule": r.text, "uncertain": u}))
                        })
                        .collect();
                    json!({
                        "part": p.raw,
                        "uncertain": p.uncertain || p.runs_anything,
                        "read_only": p.read_only,
                        "meets": met,
                    })
                })
                .collect()
        }
        None => Vec::new(),
    };

    let (hooks, _) = ClassicHooks::from_sources(&refs);
    let classic: Vec<Value> = hooks
        .matching(PRE_TOOL_USE, tool, input, &facts)
        .iter()
        .map(|h| {
            json!({
                "event": h.event,
                "matcher": h.matcher,
                "command": h.name(),
                "source": h.source.as_str(),
                "pointer": h.pointer,
            })
        })
        .collect();

    let held = over_person.get("decision") == verdict.get("decision");
    let hooks_run = matches!(seated_cfg.hook_runner, HookRunner::Sandboxed { .. });
    let problems: Vec<Value> = reads
        .iter()
        .filter_map(|r| r.problem.as_ref().map(|p| json!({"source": r.source.as_str(), "problem": p})))
        .chain(policy_read.as_ref().err().map(|e| {
            json!({"source": "policy", "problem": format!("{e}; the managed policy counts as in force (fail closed)")})
        }))
        .collect();
    json!({
        "call": {"tool": tool, "input": input},
        "verdict": verdict,
        "decided_by": decided_by,
        "matched": matched,
        "shell_parts": parts,
        "shell_parts_not_itemized": not_itemized,
        "classic_hooks": {"run": hooks_run, "hooks": classic},
        "mode": session_facts.mode.as_str(),
        "cwd": cwd.display().to_string(),
        "over_a_persons_plugin": {
            "held": held,
            "seated": over_person,
            "unseated": unseated_person,
        },
        "sources": reads.iter().filter(|r| !r.path.as_os_str().is_empty()).map(|r| json!({
            "source": r.source.as_str(),
            "file": r.path.display().to_string(),
            "present": !matches!(r.input, SettingsInput::Absent),
        })).collect::<Vec<_>>(),
        "managed": managed.display().to_string(),
        "problems": problems,
    })
}

/// The value at `path` (object keys) in `v`, or `null`.
fn at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    static NULL: Value = Value::Null;
    path.iter().try_fold(v, |v, k| v.get(*k)).unwrap_or(&NULL)
}

/// The explanation in words.
fn render(r: &Value) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    // What settings files, plugins and calls hold is written as one line each, with
    // controls, bidirectional overrides and zero-width characters shown escaped as every
    // report escapes them: a rule that only looks like another must not read as it
    // (SPEC §3.6.1).
    let s = |v: &Value| crate::text::escape(v.as_str().unwrap_or_default());
    let verdict = &at(r, &["verdict"]);
    if let Some(e) = r.get("error") {
        line(format!("cannot read the call: {}", s(at(e, &["reason"]))));
        line(format!("verdict: ask ({})", s(at(verdict, &["reason"]))));
        return out;
    }
    line(format!(
        "{} {}",
        s(at(r, &["call", "tool"])),
        at(r, &["call", "input"])
    ));
    line(format!(
        "verdict: {}{}",
        s(at(verdict, &["decision"])),
        verdict
            .get("reason")
            .and_then(Value::as_str)
            .map(|x| format!(" ({x})"))
            .unwrap_or_default()
    ));
    let place = |m: &Value| {
        let line_no = at(m, &["line"])
            .as_u64()
            .map(|l| format!(":{l}"))
            .unwrap_or_default();
        format!(
            "{}{} {}",
            s(at(m, &["file"])),
            line_no,
            s(at(m, &["pointer"]))
        )
    };
    match r.get("decided_by").filter(|d| !d.is_null()) {
        Some(d) => line(format!(
            "decided by: {} {} ({} settings) at {}{}",
            s(at(d, &["behavior"])),
            s(at(d, &["rule"])),
            s(at(d, &["source"])),
            place(d),
            if at(d, &["uncertain"]) == true {
                ", uncertain"
            } else {
                ""
            }
        )),
        None => line("decided by: no rule (the mode's default, a setting or a hook)".to_owned()),
    }
    let matched = at(r, &["matched"]).as_array().cloned().unwrap_or_default();
    line(format!("rules that meet this call: {}", matched.len()));
    for stage in ["deny", "ask", "allow"] {
        for m in matched.iter().filter(|m| at(m, &["behavior"]) == stage) {
            line(format!(
                "  {stage:<5} {} ({}) at {}{}",
                s(at(m, &["rule"])),
                s(at(m, &["source"])),
                place(m),
                if at(m, &["uncertain"]) == true {
                    ", uncertain"
                } else {
                    ""
                }
            ));
        }
    }
    if let Some(parts) = at(r, &["shell_parts"]).as_array().filter(|p| !p.is_empty()) {
        line("shell command parts:".to_owned());
        for p in parts {
            let met: Vec<String> = at(p, &["meets"])
                .as_array()
                .map(|m| {
                    m.iter()
                        .map(|x| format!("{} {}", s(at(x, &["behavior"])), s(at(x, &["rule"]))))
                        .collect()
                })
                .unwrap_or_default();
            line(format!(
                "  {}{}: {}",
                s(at(p, &["part"])),
                if at(p, &["uncertain"]) == true {
                    " (uncertain)"
                } else {
                    ""
                },
                if met.is_empty() {
                    "meets no rule".to_owned()
                } else {
                    format!("meets {}", met.join(", "))
                }
            ));
        }
    }
    let hooks = at(r, &["classic_hooks", "hooks"])
        .as_array()
        .cloned()
        .unwrap_or_default();
    if hooks.is_empty() {
        line("classic hooks that would run: none".to_owned());
    } else {
        line(format!(
            "classic hooks that would run{}: {}",
            if at(r, &["classic_hooks", "run"]) == &Value::Bool(true) {
                " (run with --run-hooks, each in a scratch folder)"
            } else {
                " (not run)"
            },
            hooks.len()
        ));
        for h in &hooks {
            line(format!(
                "  {} [{}] `{}` ({} settings {})",
                s(at(h, &["event"])),
                at(h, &["matcher"])
                    .as_str()
                    .map_or_else(|| "no matcher".to_owned(), |m| format!("matcher {m:?}")),
                s(at(h, &["command"])),
                s(at(h, &["source"])),
                s(at(h, &["pointer"]))
            ));
        }
    }
    line(format!(
        "mode: {} (working folder {})",
        s(at(r, &["mode"])),
        s(at(r, &["cwd"]))
    ));
    let o = &at(r, &["over_a_persons_plugin"]);
    line(format!(
        "over a person's plugin answering allow: {} (seated: {}; without the security default: {})",
        if at(o, &["held"]) == true {
            "HELD"
        } else {
            "not held"
        },
        s(at(o, &["seated", "decision"])),
        s(at(o, &["unseated", "decision"]))
    ));
    for p in at(r, &["problems"]).as_array().cloned().unwrap_or_default() {
        line(format!("problem: {}", s(at(&p, &["problem"]))));
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn rules_that_only_look_alike_are_printed_apart() {
        let report = json!({
            "call": {"tool": "Bash", "input": {}},
            "verdict": {"decision": "allow"},
            "decided_by": {"behavior": "allow", "rule": "Bash(curl\u{200b}:*)", "source": "user", "file": "f", "line": 1, "pointer": "/p"},
            "matched": [], "classic_hooks": {"hooks": []}, "over_a_persons_plugin": {},
        });
        let text = render(&report);
        assert!(text.contains("Bash(curl\\u{200b}:*)"), "{text}");
    }

    #[test]
    fn calls_read_in_rule_syntax_and_as_tool_input() {
        let one = |s: &str| parse_call(&[s.to_owned()]);
        assert_eq!(
            one("Bash(git push --force)").unwrap(),
            ("Bash".to_owned(), json!({"command": "git push --force"}))
        );
        assert_eq!(
            one("Read(./.env)").unwrap(),
            ("Read".to_owned(), json!({"file_path": "./.env"}))
        );
        assert_eq!(
            one("WebFetch(domain:example.com)").unwrap(),
            (
                "WebFetch".to_owned(),
                json!({"url": "https://example.com/"})
            )
        );
        assert!(one("Bash(git push").is_err());
        assert!(one("(x)").is_err());
        let two = |t: &str, i: &str| parse_call(&[t.to_owned(), i.to_owned()]);
        assert_eq!(
            two("Bash", r#"{"command": "ls"}"#).unwrap().1,
            json!({"command": "ls"})
        );
        assert_eq!(
            two("Bash", "rm -rf /").unwrap().1,
            json!({"command": "rm -rf /"})
        );
        assert!(two("Bash", "[1]").is_err());
    }
}
