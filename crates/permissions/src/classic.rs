//! Classic (settings) hooks: the `hooks` key of every settings source, run as real
//! processes (SPEC §1.5 `classic.<Event>`, §1.7b, §4 "Classic hooks"; reference
//! `claude-code-formats.md` §4).
//!
//! - **Shape** (reference §4.1): event → matcher groups `{matcher?, hooks: [...]}` →
//!   handlers `{type: "command", command, args?, timeout?, if?, async?}`.
//! - **Matchers** ([`Matcher`]): `""`, `"*"` or none match every tool; a matcher made
//!   only of `[A-Za-z0-9_-]`, spaces, `,` and `|` is an exact name or a list of exact
//!   names; anything else is an unanchored regular expression (the `regex-automata`
//!   engine already in the tree through `globset`; JavaScript regex features it lacks,
//!   such as look-around, make the matcher invalid). An invalid regex never matches for
//!   a person's hook; for a managed hook it matches every tool (never silently inert).
//! - **The `if` field**: one permission-rule pattern, evaluated as a deny rule would be
//!   (every part of a shell command, `$(...)` and backticks included). It fails open: a
//!   command the core cannot split runs the hook.
//! - **Sources** ([`ClassicHooks::from_sources`]): user, project, local, flag and
//!   policy (managed). `allowManagedHooksOnly` (policy, present and not `false`) keeps
//!   only managed hooks; `strictPluginOnlyCustomization` naming `"hooks"` (or `true`)
//!   drops user, project and local hooks; `disableAllHooks: true` in the policy turns
//!   every classic hook off, and elsewhere (the value of the highest source that sets it,
//!   the policy's `false` included) only the non-managed ones. Identical handlers in
//!   several sources run once (the highest source's).
//! - **Running** ([`ClassicHooks::run_pre_tool_use`]): each matching `PreToolUse`
//!   command handler runs as `sh -c <command>` (or `command` with `args`, no shell) in
//!   the working directory, in parallel, with the documented JSON on stdin
//!   ([`pre_tool_use_input`]), `CLAUDE_PROJECT_DIR` set, and its `timeout` (seconds,
//!   default [`DEFAULT_TIMEOUT`]); on timeout its process group is killed. How the
//!   commands run is the embedding program's choice ([`HookRunner`]): as above
//!   (sessions), never (an audit of a policy it did not write: each hook answers "not
//!   run"), or each in a scratch home and working folder with `PATH` only and a cap of
//!   the program's own.
//! - **Reading** (reference §4.4): exit 2 denies with stderr as the reason, whatever
//!   the JSON says; exit 0 reads stdout as JSON when it starts with `{`
//!   (`hookSpecificOutput.permissionDecision` `allow|ask|deny|defer`,
//!   `permissionDecisionReason`, `updatedInput`, `additionalContext`; the deprecated
//!   top-level `decision` `approve|block`; `continue: false` denies); any other exit
//!   code counts only when stdout is valid JSON carrying a decision. `defer` is read as
//!   `ask` (this engine cannot defer a call).
//! - **Failures** (SPEC §4 **\[decision\]**): a hook that times out, crashes (killed by a
//!   signal), cannot start, has no command, exits with another code without a
//!   decision, or prints output that is not the documented JSON **fails**. A
//!   **managed** hook that fails denies, naming the hook; a person's failing hook
//!   changes nothing (it is reported in [`HookRun`]). A managed handler of a type this
//!   engine cannot run (`http`, `prompt`, `agent`, `mcp_tool`, a `powershell` shell)
//!   fails too; a person's is skipped with a warning. `async: true` handlers are
//!   started and never awaited: they decide nothing.
//! - **Combining**: deny > ask > allow; the reason of the deciding hooks; the first
//!   `updatedInput` in source order (policy first). [`apply_to_verdict`] puts the
//!   combined answer over the rules' verdict: a hook's deny or ask is named
//!   `hook: "PreToolUse"`; its allow never lifts a deny, nor an ask that names a rule
//!   or a setting; a hook allow over the mode's own ask allows.

use crate::{decide, Mode, Question, RuleSet, SessionFacts, SettingsSource};
use fnhooks::{Decision, Verdict};
use regex_automata::meta::Regex;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::collections::HashSet;
use std::fmt;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The classic hook event this engine runs inside the core of `tool.check` (SPEC §4).
pub const PRE_TOOL_USE: &str = "PreToolUse";

/// The engine event the classic `PreToolUse` hooks run through (SPEC §1.5).
pub const CLASSIC_PRE_TOOL_USE: &str = "classic.PreToolUse";

/// A command hook's timeout when it gives none (SPEC §4 "Classic hooks").
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How the engine runs the commands of classic hooks (SPEC §4 "Classic hooks"; issue #8
/// item 3: an audit never runs the commands of a policy it did not write unless told).
///
/// Only `command` handlers are concerned: a managed handler this engine cannot run
/// (another type, no command) fails the same way under every runner, since nothing is
/// started for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HookRunner {
    /// As a session runs them (SPEC §4, §3.8): in the session's working folder, with
    /// the host process's environment overlaid with the session's, within the
    /// handler's own `timeout`.
    #[default]
    Normal,
    /// Never started: every command handler that matches answers "not run"
    /// ([`RunResult::NotRun`]), which decides nothing, managed or not.
    NotRun,
    /// Each run in a fresh, empty scratch folder made for it under the system's
    /// temporary folder (its `home` is `HOME`, its `work` the working folder,
    /// `CLAUDE_PROJECT_DIR` and the input's `cwd`), with an environment of `PATH`
    /// only besides those, within `cap` or the handler's own `timeout`, whichever is
    /// shorter. Its process group is killed when it ends and the folder removed.
    /// This keeps a hook's ordinary effects off the auditor's files; it is no
    /// sandbox against a hostile program (absolute paths stay writable).
    Sandboxed {
        /// The wall-clock cap of every run.
        cap: Duration,
    },
}

/// The reason every command handler gives under [`HookRunner::NotRun`] (SPEC §4
/// "Classic hooks"; issue #8 item 3).
pub const NOT_RUN_REASON: &str = "its command was not run (hooks are not run unless asked)";

/// The most a hook's stdout or stderr is kept (the rest is read and dropped).
const OUTPUT_CAP: usize = 1 << 20;

/// Strings taken from a hook's output are capped at this many characters (reference §4.4).
const STRING_CAP: usize = 10_000;

/// The tool events on which the `if` field is evaluated (reference §4.1).
const TOOL_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

/// A matcher group's `matcher` (reference §4.1 "Matcher semantics", SPEC §4).
#[derive(Debug, Clone)]
pub enum Matcher {
    /// `""`, `"*"` or no matcher: every tool.
    All,
    /// An exact name or a `|`/`,`-separated list of exact names.
    Exact(Vec<String>),
    /// An unanchored regular expression, with its text.
    Regex(Box<Regex>, String),
    /// A regular expression that does not compile: it never matches (a managed
    /// group's is read as [`Matcher::All`] instead).
    Invalid(String),
}

impl Matcher {
    /// Reads a matcher as documented: `""`/`"*"` all; only `[A-Za-z0-9_-]`, spaces,
    /// `,` and `|` → exact names; otherwise an unanchored regex.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn parse(text: &str) -> Matcher {
        let t = text.trim();
        if t.is_empty() || t == "*" {
            return Matcher::All;
        }
        let exact = t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
        if exact {
            let names: Vec<String> = t
                .split(['|', ','])
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect();
            return if names.is_empty() {
                Matcher::All
            } else {
                Matcher::Exact(names)
            };
        }
        match Regex::new(t) {
            Ok(re) => Matcher::Regex(Box::new(re), t.to_owned()),
            Err(_) => Matcher::Invalid(t.to_owned()),
        }
    }

    /// Whether the matcher matches this tool name.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Exact(names) => names.iter().any(|n| n == tool),
            Matcher::Regex(re, _) => re.is_match(tool),
            Matcher::Invalid(_) => false,
        }
    }
}

/// What a handler runs (reference §4.1 "Handler types").
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HandlerKind {
    /// `type: "command"`: `sh -c command`, or `command` with `args` (no shell).
    Command {
        /// The command text.
        command: String,
        /// Exec-form arguments; `None`: the command runs through `sh -c`.
        args: Option<Vec<String>>,
    },
    /// A handler this engine cannot run (another type, a missing command, an odd
    /// shape), with why. A managed one fails when it matches (SPEC §4).
    Unrunnable(String),
}

/// One handler of a matcher group, with where it was written (SPEC §4 "Classic hooks").
#[derive(Debug, Clone)]
pub struct Handler {
    /// The settings source it came from.
    pub source: SettingsSource,
    /// The classic event it is configured for (`PreToolUse`).
    pub event: String,
    /// Its JSON pointer within the source (`/hooks/PreToolUse/0/hooks/1`).
    pub pointer: String,
    /// Its matcher group's `matcher` as written (`None`: the group has none, or it is
    /// not a string).
    pub matcher: Option<String>,
    /// What it runs.
    pub kind: HandlerKind,
    /// Its timeout.
    pub timeout: Duration,
    /// Its `if` pattern, when it has one.
    pub condition: Option<String>,
    condition_rules: Option<RuleSet>,
    /// `async: true`: started, never awaited; it decides nothing.
    pub is_async: bool,
}

impl Handler {
    /// Whether the handler comes from the managed policy.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn managed(&self) -> bool {
        self.source == SettingsSource::Policy
    }

    /// A short name for messages: the command, or the pointer of an unrunnable handler.
    ///
    /// SPEC §4 "Classic hooks" (a failing managed hook's deny names the hook).
    #[must_use]
    pub fn name(&self) -> String {
        match &self.kind {
            HandlerKind::Command { command, args } => {
                let mut s = command.clone();
                for a in args.iter().flatten() {
                    s.push(' ');
                    s.push_str(a);
                }
                truncate(&s, 200)
            }
            HandlerKind::Unrunnable(_) => format!("at {}", self.pointer),
        }
    }

    /// Whether the `if` field lets the handler run for this call (reference §4.1): no
    /// `if` → yes; on a non-tool event → never; otherwise the pattern is matched as a
    /// deny rule would be, and a command the core cannot split runs the hook.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn condition_allows(&self, tool: &str, input: &Value, facts: &SessionFacts) -> bool {
        let Some(rules) = &self.condition_rules else {
            return true;
        };
        if !TOOL_EVENTS.contains(&self.event.as_str()) {
            return false;
        }
        let mut f = facts.clone();
        f.mode = Mode::BypassPermissions;
        // In bypass mode with one deny rule: deny = the pattern matched; ask = the
        // command could not be split with confidence (fail open: run); allow = no match.
        decide(rules, &Question { tool, input }, &f).decision != Decision::Allow
    }

    fn identity(&self) -> Option<(&str, &HandlerKind)> {
        match &self.kind {
            HandlerKind::Command { .. } => Some((self.event.as_str(), &self.kind)),
            HandlerKind::Unrunnable(_) => None,
        }
    }
}

#[derive(Debug, Clone)]
struct Group {
    source: SettingsSource,
    event: String,
    matcher: Matcher,
    handlers: Vec<Handler>,
}

/// A problem with a `hooks` entry, with the file and pointer (SPEC §4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookWarning {
    /// The settings source.
    pub source: SettingsSource,
    /// Where, as a JSON pointer within the source.
    pub pointer: String,
    /// What is wrong and what the engine does about it.
    pub message: String,
}

impl fmt::Display for HookWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} settings {}: {}",
            self.source, self.pointer, self.message
        )
    }
}

/// The classic hooks in force, gathered from every settings source (SPEC §4 "Classic
/// hooks"; reference §4.1, §4.6).
#[derive(Debug, Clone, Default)]
pub struct ClassicHooks {
    groups: Vec<Group>,
}

fn escape_pointer(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut t: String = s.chars().take(max).collect();
    t.push('…');
    t
}

fn strict_flag(v: Option<&Value>) -> bool {
    v.is_some_and(|flag| *flag != Value::Bool(false))
}

impl ClassicHooks {
    /// Gathers the `hooks` of every source (reference §4.1, §4.6), highest source
    /// first (policy, flag, local, project, user), then file order; returns the hooks
    /// and the warnings about entries that are odd or cannot run.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn from_sources(sources: &[(SettingsSource, &Value)]) -> (ClassicHooks, Vec<HookWarning>) {
        let policy = sources
            .iter()
            .find(|(s, _)| *s == SettingsSource::Policy)
            .map(|(_, v)| *v);
        let managed_only = strict_flag(policy.and_then(|p| p.get("allowManagedHooksOnly")));
        let strict_plugin_only = policy
            .and_then(|p| p.get("strictPluginOnlyCustomization"))
            .is_some_and(|v| match v {
                Value::Bool(b) => *b,
                Value::Array(a) => a.iter().any(|x| x.as_str() == Some("hooks")),
                _ => false,
            });
        let policy_disables = policy
            .and_then(|p| p.get("disableAllHooks"))
            .is_some_and(|v| *v == Value::Bool(true));
        // The value left after settings precedence decides for the non-managed hooks.
        let mut ordered: Vec<&(SettingsSource, &Value)> = sources.iter().collect();
        ordered.sort_by_key(|(s, _)| s.precedence());
        let person_disables = ordered
            .iter()
            .find_map(|(_, v)| v.get("disableAllHooks").and_then(Value::as_bool))
            .unwrap_or(false);

        let mut warnings = Vec::new();
        let mut groups = Vec::new();
        if policy_disables {
            return (ClassicHooks { groups }, warnings);
        }
        for (source, settings) in ordered {
            let managed = *source == SettingsSource::Policy;
            if !managed {
                let off = managed_only
                    || person_disables
                    || (strict_plugin_only
                        && matches!(
                            source,
                            SettingsSource::User | SettingsSource::Project | SettingsSource::Local
                        ));
                if off {
                    continue;
                }
            }
            let Some(hooks) = settings.get("hooks") else {
                continue;
            };
            let Some(events) = hooks.as_object() else {
                warnings.push(HookWarning {
                    source: *source,
                    pointer: "/hooks".to_owned(),
                    message: "`hooks` is not an object; ignored".to_owned(),
                });
                continue;
            };
            for (event, list) in events {
                let base = format!("/hooks/{}", escape_pointer(event));
                read_event(*source, event, list, &base, &mut groups, &mut warnings);
            }
        }
        (ClassicHooks { groups }, warnings)
    }

    /// Whether no hook is configured at all.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|g| g.handlers.is_empty())
    }

    /// The handlers of `event` that would run for this tool call, in source order,
    /// identical handlers once (reference §4.1): the group's matcher matches the tool
    /// and the handler's `if` lets it run.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn matching(
        &self,
        event: &str,
        tool: &str,
        input: &Value,
        facts: &SessionFacts,
    ) -> Vec<&Handler> {
        let mut seen: HashSet<(&str, &HandlerKind)> = HashSet::new();
        let mut out = Vec::new();
        for g in self.groups.iter().filter(|g| g.event == event) {
            let matched = match &g.matcher {
                Matcher::Invalid(_) => g.source == SettingsSource::Policy,
                m => m.matches(tool),
            };
            if !matched {
                continue;
            }
            for h in &g.handlers {
                if !h.condition_allows(tool, input, facts) {
                    continue;
                }
                if let Some(id) = h.identity() {
                    if !seen.insert(id) {
                        continue;
                    }
                }
                out.push(h);
            }
        }
        out
    }

    /// Every handler read, of every event, in source order (policy first), each with
    /// its event, matcher, source and pointer.
    ///
    /// SPEC §4 "Classic hooks".
    pub fn handlers(&self) -> impl Iterator<Item = &Handler> {
        self.groups.iter().flat_map(|g| g.handlers.iter())
    }

    /// Runs the `PreToolUse` hooks that match the call described by `input` (the
    /// classic hook's JSON input, [`pre_tool_use_input`]; `tool`/`input` are read as
    /// `tool_name`/`tool_input` when those are missing) and combines their answers. Each
    /// hook's process gets the host process's environment overlaid with `env`, the
    /// session's environment (SPEC §3.8: the programs the engine starts see the pinned
    /// variables as the session holds them), then `CLAUDE_PROJECT_DIR`.
    ///
    /// SPEC §4 "Classic hooks", §3.8.
    #[must_use]
    pub fn run_pre_tool_use(
        &self,
        input: &Value,
        facts: &SessionFacts,
        env: &BTreeMap<String, String>,
    ) -> Combined {
        self.run_pre_tool_use_with(input, facts, env, HookRunner::Normal)
    }

    /// [`ClassicHooks::run_pre_tool_use`] with the commands run as `runner` says
    /// ([`HookRunner`]): normally, not at all, or each in a scratch folder with a cap.
    ///
    /// SPEC §4 "Classic hooks"; issue #8 item 3.
    #[must_use]
    pub fn run_pre_tool_use_with(
        &self,
        input: &Value,
        facts: &SessionFacts,
        env: &BTreeMap<String, String>,
        runner: HookRunner,
    ) -> Combined {
        let stdin = normalize_input(input, facts);
        let tool = stdin
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let null = Value::Null;
        let tool_input = stdin.get("tool_input").unwrap_or(&null);
        let handlers = self.matching(PRE_TOOL_USE, &tool, tool_input, facts);
        let cwd = facts.cwd.as_path();
        let runs: Vec<HookRun> = std::thread::scope(|s| {
            let jobs: Vec<_> = handlers
                .iter()
                .map(|h| {
                    let stdin = &stdin;
                    s.spawn(move || run_handler(h, stdin, cwd, env, runner))
                })
                .collect();
            jobs.into_iter()
                .zip(&handlers)
                .map(|(j, h)| {
                    j.join().unwrap_or_else(|_| HookRun {
                        handler: (*h).clone(),
                        result: RunResult::Failed("the hook runner panicked".to_owned()),
                    })
                })
                .collect()
        });
        Combined::of(runs)
    }
}

fn read_event(
    source: SettingsSource,
    event: &str,
    list: &Value,
    base: &str,
    groups: &mut Vec<Group>,
    warnings: &mut Vec<HookWarning>,
) {
    let warn = |warnings: &mut Vec<HookWarning>, pointer: String, message: String| {
        warnings.push(HookWarning {
            source,
            pointer,
            message,
        });
    };
    let Some(list) = list.as_array() else {
        warn(
            warnings,
            base.to_owned(),
            "not a list of matcher groups; ignored".to_owned(),
        );
        return;
    };
    for (gi, g) in list.iter().enumerate() {
        let gp = format!("{base}/{gi}");
        let Some(obj) = g.as_object() else {
            warn(
                warnings,
                gp,
                "a matcher group is not an object; ignored".to_owned(),
            );
            continue;
        };
        let matcher = match obj.get("matcher") {
            None | Some(Value::Null) => Matcher::All,
            Some(Value::String(s)) => Matcher::parse(s),
            Some(_) => Matcher::Invalid(String::new()),
        };
        if let Matcher::Invalid(text) = &matcher {
            let what = if source == SettingsSource::Policy {
                "it matches every tool (a managed hook is never silently inert)"
            } else {
                "it matches no tool"
            };
            warn(
                warnings,
                format!("{gp}/matcher"),
                format!(
                    "the matcher {text:?} is not a regular expression this engine reads; {what}"
                ),
            );
        }
        let Some(hs) = obj.get("hooks").and_then(Value::as_array) else {
            warn(
                warnings,
                format!("{gp}/hooks"),
                "no `hooks` list in the matcher group; ignored".to_owned(),
            );
            continue;
        };
        let matcher_text = obj.get("matcher").and_then(Value::as_str);
        let mut handlers = Vec::new();
        for (hi, h) in hs.iter().enumerate() {
            let hp = format!("{gp}/hooks/{hi}");
            if let Some(mut handler) = read_handler(source, event, h, &hp, warnings) {
                handler.matcher = matcher_text.map(str::to_owned);
                handlers.push(handler);
            }
        }
        groups.push(Group {
            source,
            event: event.to_owned(),
            matcher,
            handlers,
        });
    }
}

fn read_handler(
    source: SettingsSource,
    event: &str,
    h: &Value,
    pointer: &str,
    warnings: &mut Vec<HookWarning>,
) -> Option<Handler> {
    let managed = source == SettingsSource::Policy;
    let mut warn = |message: String| {
        warnings.push(HookWarning {
            source,
            pointer: pointer.to_owned(),
            message,
        });
    };
    let empty = Map::new();
    let obj = h.as_object().unwrap_or(&empty);
    let kind = if !h.is_object() {
        HandlerKind::Unrunnable("the handler is not an object".to_owned())
    } else {
        match obj.get("type").and_then(Value::as_str) {
            Some("command") => {
                let shell_ok = obj
                    .get("shell")
                    .is_none_or(|s| s.as_str().is_some_and(|s| s == "bash" || s == "sh"));
                let args = match obj.get("args") {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::Array(a)) => a
                        .iter()
                        .map(|x| x.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                        .map(Some)
                        .ok_or(()),
                    Some(_) => Err(()),
                };
                match (obj.get("command").and_then(Value::as_str), args) {
                    (_, Err(())) => {
                        HandlerKind::Unrunnable("`args` is not a list of strings".to_owned())
                    }
                    (None, _) => HandlerKind::Unrunnable("the handler has no command".to_owned()),
                    (Some(c), _) if c.trim().is_empty() => {
                        HandlerKind::Unrunnable("the handler's command is empty".to_owned())
                    }
                    (Some(_), _) if !shell_ok => {
                        HandlerKind::Unrunnable("this engine runs commands with sh only".to_owned())
                    }
                    (Some(c), Ok(args)) => HandlerKind::Command {
                        command: c.to_owned(),
                        args,
                    },
                }
            }
            Some(other) => {
                HandlerKind::Unrunnable(format!("this engine cannot run `{other}` handlers"))
            }
            None => HandlerKind::Unrunnable("the handler has no `type`".to_owned()),
        }
    };
    if let HandlerKind::Unrunnable(why) = &kind {
        if managed {
            warn(format!(
                "{why}; as a managed hook it fails (denies) wherever it matches"
            ));
        } else {
            warn(format!("{why}; skipped"));
            return None;
        }
    }
    let timeout = match obj.get("timeout") {
        None | Some(Value::Null) => DEFAULT_TIMEOUT,
        Some(v) => match v.as_f64() {
            Some(secs) if secs > 0.0 && secs.is_finite() && secs < 1.0e9 => {
                Duration::from_secs_f64(secs)
            }
            _ => {
                warn(format!(
                    "`timeout` {v} is not a positive number of seconds; {} s is used",
                    DEFAULT_TIMEOUT.as_secs()
                ));
                DEFAULT_TIMEOUT
            }
        },
    };
    let condition = obj.get("if").and_then(Value::as_str).map(str::to_owned);
    let condition_rules = condition.as_ref().map(|c| {
        let settings = json!({ "permissions": { "deny": [c] } });
        RuleSet::from_sources(&[(source, &settings)]).0
    });
    Some(Handler {
        source,
        event: event.to_owned(),
        pointer: pointer.to_owned(),
        matcher: None,
        kind,
        timeout,
        condition,
        condition_rules,
        is_async: obj.get("async").and_then(Value::as_bool).unwrap_or(false),
    })
}

/// The documented JSON a `PreToolUse` hook reads on stdin (reference §4.3):
/// `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`,
/// `tool_name`, `tool_input`, `tool_use_id`.
///
/// SPEC §1.5 (`classic.<Event>`'s input), §4 "Classic hooks".
#[must_use]
pub fn pre_tool_use_input(
    session_id: &str,
    transcript_path: &str,
    facts: &SessionFacts,
    tool: &str,
    input: &Value,
    tool_use_id: &str,
) -> Value {
    json!({
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": facts.cwd.to_string_lossy(),
        "permission_mode": facts.mode.as_str(),
        "hook_event_name": PRE_TOOL_USE,
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": tool_use_id,
    })
}

/// Fills what a hand-raised `classic.PreToolUse` left out: `tool`/`input` become
/// `tool_name`/`tool_input`, and the common fields get the session's values.
fn normalize_input(input: &Value, facts: &SessionFacts) -> Value {
    let mut m = input.as_object().cloned().unwrap_or_default();
    if !m.contains_key("tool_name") {
        if let Some(t) = m.get("tool").cloned() {
            m.insert("tool_name".to_owned(), t);
        }
    }
    if !m.contains_key("tool_input") {
        let i = m.get("input").cloned().unwrap_or_else(|| json!({}));
        m.insert("tool_input".to_owned(), i);
    }
    let defaults = [
        ("session_id", json!("")),
        ("transcript_path", json!("")),
        ("cwd", json!(facts.cwd.to_string_lossy())),
        ("permission_mode", json!(facts.mode.as_str())),
        ("hook_event_name", json!(PRE_TOOL_USE)),
        ("tool_use_id", json!("")),
    ];
    for (k, v) in defaults {
        m.entry(k.to_owned()).or_insert(v);
    }
    Value::Object(m)
}

/// How one hook ran and what it said (SPEC §4 "Classic hooks").
#[derive(Debug, Clone)]
pub struct HookRun {
    /// The handler.
    pub handler: Handler,
    /// Its result.
    pub result: RunResult,
}

/// What one hook's run settled on (SPEC §4 "Classic hooks").
#[derive(Debug, Clone, PartialEq)]
pub enum RunResult {
    /// It ran and answered (possibly nothing).
    Answered(HookAnswer),
    /// It failed, with why (a managed hook's failure denies; a person's changes nothing).
    Failed(String),
    /// An `async` hook: started, not awaited.
    Started,
    /// Not started, with why ([`HookRunner::NotRun`]): it decides nothing.
    NotRun(String),
}

/// One hook's answer, or the combined answer of several (SPEC §1.7b `classic.<Event>`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookAnswer {
    /// `allow`, `ask` or `deny`; `None`: no decision.
    pub decision: Option<Decision>,
    /// Why (`permissionDecisionReason`, `reason`, exit 2's stderr).
    pub reason: Option<String>,
    /// A new input for the tool (replaces the whole input).
    pub updated_input: Option<Value>,
    /// Context for the model.
    pub additional_context: Option<String>,
}

fn capped(s: &str) -> String {
    truncate(s.trim(), STRING_CAP)
}

/// Reads a hook's (or a combined) JSON output: `hookSpecificOutput.permissionDecision`
/// (`allow|ask|deny|defer`, `defer` read as `ask`), `permissionDecisionReason`,
/// `updatedInput`, `additionalContext`; the top-level `decision` (`approve|block`, and
/// `allow|ask|deny` as the combined answer spells it) and `reason`; `continue: false`
/// (a deny, reason `stopReason`). The strictest decision given stands. `None` when the
/// value is not an object or names a decision this engine does not know.
///
/// SPEC §1.7b, §4 "Classic hooks"; reference §4.4.
#[must_use]
pub fn read_answer(v: &Value) -> Option<HookAnswer> {
    let obj = v.as_object()?;
    let hso = obj.get("hookSpecificOutput").and_then(Value::as_object);
    let word = |w: Option<&Value>| -> Result<Option<Decision>, ()> {
        match w {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => match s.as_str() {
                "allow" | "approve" => Ok(Some(Decision::Allow)),
                "ask" | "defer" => Ok(Some(Decision::Ask)),
                "deny" | "block" => Ok(Some(Decision::Deny)),
                _ => Err(()),
            },
            Some(_) => Err(()),
        }
    };
    let specific = word(hso.and_then(|h| h.get("permissionDecision"))).ok()?;
    let top = word(obj.get("decision")).ok()?;
    let stop = (obj.get("continue") == Some(&Value::Bool(false))).then_some(Decision::Deny);
    let decision = [specific, top, stop].into_iter().flatten().max();
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(capped);
    let reason = match decision {
        Some(d) if stop == Some(d) && specific != Some(d) && top != Some(d) => {
            text(obj.get("stopReason"))
        }
        Some(d) if specific == Some(d) => text(hso.and_then(|h| h.get("permissionDecisionReason")))
            .or_else(|| text(obj.get("reason"))),
        _ => text(obj.get("reason"))
            .or_else(|| text(hso.and_then(|h| h.get("permissionDecisionReason")))),
    };
    let updated_input = hso
        .and_then(|h| h.get("updatedInput"))
        .or_else(|| obj.get("updatedInput"))
        .filter(|u| u.is_object())
        .cloned();
    let additional_context = text(hso.and_then(|h| h.get("additionalContext")))
        .or_else(|| text(obj.get("additionalContext")));
    Some(HookAnswer {
        decision,
        reason,
        updated_input,
        additional_context,
    })
}

/// The combined answer of the `PreToolUse` hooks of one call (SPEC §1.7b, §4).
#[derive(Debug, Clone, Default)]
pub struct Combined {
    /// The combined answer (deny > ask > allow).
    pub answer: HookAnswer,
    /// Every hook run, in source order.
    pub runs: Vec<HookRun>,
}

impl Combined {
    /// Combines runs in source order: a managed hook's failure is a deny naming it; a
    /// person's failure is nothing; deny > ask > allow; the reasons of the hooks that
    /// gave the winning decision, joined; the first `updatedInput` and the
    /// `additionalContext`s joined.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn of(runs: Vec<HookRun>) -> Combined {
        let answers: Vec<HookAnswer> = runs.iter().map(HookRun::effective).collect();
        let decision = answers.iter().filter_map(|a| a.decision).max();
        let reasons: Vec<String> = answers
            .iter()
            .filter(|a| a.decision.is_some() && a.decision == decision)
            .filter_map(|a| a.reason.clone())
            .collect();
        let contexts: Vec<String> = answers
            .iter()
            .filter_map(|a| a.additional_context.clone())
            .collect();
        let answer = HookAnswer {
            decision,
            reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
            updated_input: answers.iter().find_map(|a| a.updated_input.clone()),
            additional_context: (!contexts.is_empty()).then(|| contexts.join("\n")),
        };
        Combined { answer, runs }
    }

    /// The answer of `classic.PreToolUse` (SPEC §1.7b): `decision`, `reason`,
    /// `updatedInput`, `additionalContext` (each when present), the same in
    /// `hookSpecificOutput`, and `hooks`: one `{command, source, pointer, result}` per
    /// hook run (`result`: the decision, `none`, `started`, `failed: <why>`, or `not run:
    /// <why>`).
    ///
    /// SPEC §1.7b.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let a = &self.answer;
        let mut top = Map::new();
        let mut hso = Map::new();
        hso.insert("hookEventName".to_owned(), json!(PRE_TOOL_USE));
        if let Some(d) = a.decision {
            top.insert("decision".to_owned(), json!(d.as_str()));
            hso.insert("permissionDecision".to_owned(), json!(d.as_str()));
        }
        if let Some(r) = &a.reason {
            top.insert("reason".to_owned(), json!(r));
            hso.insert("permissionDecisionReason".to_owned(), json!(r));
        }
        if let Some(u) = &a.updated_input {
            top.insert("updatedInput".to_owned(), u.clone());
            hso.insert("updatedInput".to_owned(), u.clone());
        }
        if let Some(c) = &a.additional_context {
            top.insert("additionalContext".to_owned(), json!(c));
            hso.insert("additionalContext".to_owned(), json!(c));
        }
        top.insert("hookSpecificOutput".to_owned(), Value::Object(hso));
        let hooks: Vec<Value> = self
            .runs
            .iter()
            .map(|r| {
                let result = match &r.result {
                    RunResult::Answered(ans) => {
                        ans.decision.map_or("none", Decision::as_str).to_owned()
                    }
                    RunResult::Started => "started".to_owned(),
                    RunResult::Failed(why) => format!("failed: {why}"),
                    RunResult::NotRun(why) => format!("not run: {why}"),
                };
                json!({
                    "command": r.handler.name(),
                    "source": r.handler.source.as_str(),
                    "pointer": r.handler.pointer,
                    "result": result,
                })
            })
            .collect();
        top.insert("hooks".to_owned(), Value::Array(hooks));
        Value::Object(top)
    }
}

impl HookRun {
    /// What this run contributes: its answer; for a failed managed hook a deny naming
    /// it; for a failed person's hook (or an `async` one) nothing.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn effective(&self) -> HookAnswer {
        match &self.result {
            RunResult::Answered(a) => a.clone(),
            RunResult::Started | RunResult::NotRun(_) => HookAnswer::default(),
            RunResult::Failed(why) if self.handler.managed() => HookAnswer {
                decision: Some(Decision::Deny),
                reason: Some(managed_failure_reason(&self.handler, why)),
                ..HookAnswer::default()
            },
            RunResult::Failed(_) => HookAnswer::default(),
        }
    }
}

/// The reason of the deny a failed managed hook makes (SPEC §4 **\[decision\]**).
///
/// SPEC §4 "Classic hooks".
#[must_use]
pub fn managed_failure_reason(h: &Handler, why: &str) -> String {
    format!(
        "the {} hook `{}` of your organization's managed settings ({}) failed: {why}; denied",
        h.event,
        h.name(),
        h.pointer
    )
}

/// Puts the combined classic `PreToolUse` answer over `base`, the verdict of the rules
/// and the mode (SPEC §4 "Classic hooks", reference §4.5):
///
/// - rules first: a `deny` in `base` stands; an `ask` in `base` that names a rule or a
///   setting stands unless the hook denies;
/// - a hook `deny` → a deny named `hook: "PreToolUse"`, with the hook's reason;
/// - a hook `ask` over an allow or the mode's own ask → an ask named `hook:
///   "PreToolUse"` (with `decider: "host"` where a host answers asks on `tool`,
///   [`SessionFacts::host_decides_for`]);
/// - a hook `allow` over an allow or the mode's own ask (a plain ask, `decider` aside)
///   → an allow named `hook: "PreToolUse"`;
/// - no decision → `base`.
///
/// SPEC §4 "Classic hooks".
#[must_use]
pub fn apply_to_verdict(
    base: Verdict,
    hook: &HookAnswer,
    facts: &SessionFacts,
    tool: &str,
) -> Verdict {
    let Some(d) = hook.decision else {
        return base;
    };
    let rule_stands = base.decision == Decision::Deny
        || (base.decision == Decision::Ask
            && (base.rule.is_some()
                || base.setting.is_some()
                || base.hook.is_some()
                || base.ceiling.is_some()));
    if rule_stands && d <= base.decision {
        return base;
    }
    let mut v = Verdict::plain(d);
    v.hook = Some(PRE_TOOL_USE.to_owned());
    v.reason = Some(hook.reason.clone().unwrap_or_else(|| match d {
        Decision::Deny => "a PreToolUse hook blocked this call".to_owned(),
        Decision::Ask => "a PreToolUse hook asks before this call".to_owned(),
        Decision::Allow => "a PreToolUse hook allowed this call".to_owned(),
    }));
    if d == Decision::Ask && facts.host_decides_for(tool) {
        v.decider = Some("host".to_owned());
    }
    v
}

/// Whether `v` is a verdict the rules stand behind when met on another input (SPEC §4
/// "Rewrites"): a deny, or an ask that names a rule or a setting.
///
/// SPEC §4 "Rewrites".
#[must_use]
pub fn is_rule_strict(v: &Verdict) -> bool {
    v.decision == Decision::Deny
        || (v.decision == Decision::Ask && (v.rule.is_some() || v.setting.is_some()))
}

/// The stricter of `verdict` and `other`, where `other` counts only when
/// [`is_rule_strict`] (a deny or a rule's or setting's ask met on another input, SPEC
/// §4 "Rewrites"): `other` replaces `verdict` when it is stricter, or when both ask and
/// `verdict` names nothing that stands behind it.
///
/// SPEC §4 "Rewrites".
#[must_use]
pub fn stricter_with_rules(verdict: Verdict, other: Verdict) -> Verdict {
    if !is_rule_strict(&other) {
        return verdict;
    }
    if other.decision > verdict.decision
        || (other.decision == verdict.decision
            && other.decision == Decision::Ask
            && !verdict.names_a_cause())
    {
        other
    } else {
        verdict
    }
}

// ---------------------------------------------------------------------------
// Running one handler.

/// What a process did (SPEC §4 "Classic hooks").
#[derive(Debug, Clone, Default)]
struct Execution {
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

fn run_handler(
    h: &Handler,
    stdin: &Value,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    runner: HookRunner,
) -> HookRun {
    let result = match (&h.kind, runner) {
        (HandlerKind::Unrunnable(why), _) => RunResult::Failed(why.clone()),
        (HandlerKind::Command { .. }, HookRunner::NotRun) => {
            RunResult::NotRun(NOT_RUN_REASON.to_owned())
        }
        (HandlerKind::Command { command, args }, HookRunner::Normal) => {
            let mut cmd = command_of(command, args.as_deref());
            if cwd.is_dir() {
                cmd.current_dir(cwd);
            }
            cmd.envs(env);
            cmd.env("CLAUDE_PROJECT_DIR", cwd);
            let bytes = serde_json::to_vec(stdin).unwrap_or_default();
            if h.is_async {
                let timeout = h.timeout;
                std::thread::spawn(move || {
                    let _ = execute(cmd, &bytes, timeout, false);
                });
                RunResult::Started
            } else {
                match execute(cmd, &bytes, h.timeout, false) {
                    Ok(exec) => interpret(&exec, h.timeout),
                    Err(e) => RunResult::Failed(format!("could not be started: {e}")),
                }
            }
        }
        (HandlerKind::Command { command, args }, HookRunner::Sandboxed { cap }) => {
            run_sandboxed(h, command, args.as_deref(), stdin, cap)
        }
    };
    HookRun {
        handler: h.clone(),
        result,
    }
}

/// `sh -c command`, or `command` with `args` (no shell).
fn command_of(command: &str, args: Option<&[String]>) -> Command {
    match args {
        Some(args) => {
            let mut c = Command::new(command);
            c.args(args);
            c
        }
        None => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(command);
            c
        }
    }
}

/// A scratch folder of its own for one sandboxed run, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    /// A fresh folder under the system's temporary folder, created (never reused: a
    /// name that exists is skipped), with empty `home` and `work` inside.
    fn new() -> std::io::Result<Scratch> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let mut last = None;
        for _ in 0..16 {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default();
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!(
                "sec-default-hook-{}-{n}-{stamp:x}",
                std::process::id()
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    let scratch = Scratch(dir);
                    std::fs::create_dir(scratch.home())?;
                    std::fs::create_dir(scratch.work())?;
                    return Ok(scratch);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free scratch folder name")))
    }

    fn home(&self) -> std::path::PathBuf {
        self.0.join("home")
    }

    fn work(&self) -> std::path::PathBuf {
        self.0.join("work")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `PATH` a sandboxed hook gets: the host process's, or the usual folders.
fn sandbox_path() -> std::ffi::OsString {
    std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into())
}

/// Runs one command handler as [`HookRunner::Sandboxed`] says: a scratch folder of its
/// own (home and working folder, which the input's `cwd` and `transcript_path` point
/// into), `PATH`, `HOME` and `CLAUDE_PROJECT_DIR` only, the shorter of `cap` and its own
/// timeout, its process group killed at the end. An `async` handler is awaited (the
/// scratch folder must outlive it) and decides nothing.
fn run_sandboxed(
    h: &Handler,
    command: &str,
    args: Option<&[String]>,
    stdin: &Value,
    cap: Duration,
) -> RunResult {
    let scratch = match Scratch::new() {
        Ok(s) => s,
        Err(e) => return RunResult::Failed(format!("no scratch folder could be made for it: {e}")),
    };
    let (home, work) = (scratch.home(), scratch.work());
    let mut input = stdin.clone();
    if let Some(m) = input.as_object_mut() {
        m.insert("cwd".to_owned(), json!(work.to_string_lossy()));
        m.insert(
            "transcript_path".to_owned(),
            json!(home.join("transcript.jsonl").to_string_lossy()),
        );
    }
    let bytes = serde_json::to_vec(&input).unwrap_or_default();
    let mut cmd = command_of(command, args);
    cmd.current_dir(&work)
        .env_clear()
        .env("PATH", sandbox_path())
        .env("HOME", &home)
        .env("CLAUDE_PROJECT_DIR", &work);
    let timeout = h.timeout.min(cap);
    let result = match execute(cmd, &bytes, timeout, true) {
        Ok(exec) if exec.timed_out && cap < h.timeout => RunResult::Failed(format!(
            "timed out after {} s (the cap of sandboxed runs; its own timeout is {} s)",
            trim_secs(cap.as_secs_f64()),
            trim_secs(h.timeout.as_secs_f64())
        )),
        Ok(exec) => interpret(&exec, timeout),
        Err(e) => RunResult::Failed(format!("could not be started: {e}")),
    };
    drop(scratch);
    if h.is_async {
        RunResult::Started
    } else {
        result
    }
}

fn read_capped(mut r: impl Read) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if out.len() < OUTPUT_CAP {
                    let room = OUTPUT_CAP - out.len();
                    out.extend(buf.iter().take(n.min(room)));
                }
            }
        }
    }
    out
}

fn spawn_reader(r: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(r) = r {
        std::thread::spawn(move || {
            let _ = tx.send(read_capped(r));
        });
    } else {
        let _ = tx.send(Vec::new());
    }
    rx
}

#[cfg(unix)]
fn in_own_group(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

#[cfg(not(unix))]
fn in_own_group(_cmd: &mut Command) {}

/// Kills the child and, on Unix, its whole process group (what `sh -c` started).
fn kill_all(child: &mut Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs `cmd` with `stdin` written to it, stdout and stderr read, and `timeout` kept:
/// past it the process group is killed; with `reap`, it is killed when the command
/// ends too (nothing it left behind outlives the run).
fn execute(
    mut cmd: Command,
    stdin: &[u8],
    timeout: Duration,
    reap: bool,
) -> std::io::Result<Execution> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    in_own_group(&mut cmd);
    let deadline = Instant::now() + timeout;
    let mut child = cmd.spawn()?;
    if let Some(mut pipe) = child.stdin.take() {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    let out_rx = spawn_reader(child.stdout.take());
    let err_rx = spawn_reader(child.stderr.take());
    let mut exec = Execution::default();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                exec.status = Some(status);
                break;
            }
            Ok(None) => {}
            Err(_) => break,
        }
        if Instant::now() >= deadline {
            exec.timed_out = true;
            kill_all(&mut child);
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Output: wait for the readers until the deadline (a background grandchild may
    // keep a pipe open); past it, kill the group and give them a moment.
    let collect = |rx: &mpsc::Receiver<Vec<u8>>, child: &mut Child| -> String {
        let left = deadline.saturating_duration_since(Instant::now());
        let bytes = match rx.recv_timeout(left) {
            Ok(b) => b,
            Err(_) => {
                kill_all(child);
                rx.recv_timeout(Duration::from_millis(200))
                    .unwrap_or_default()
            }
        };
        String::from_utf8_lossy(&bytes).into_owned()
    };
    exec.stdout = collect(&out_rx, &mut child);
    exec.stderr = collect(&err_rx, &mut child);
    if reap {
        kill_all(&mut child);
    }
    Ok(exec)
}

/// Reads an execution as documented (reference §4.4), with SPEC §4's failures.
fn interpret(exec: &Execution, timeout: Duration) -> RunResult {
    if exec.timed_out {
        return RunResult::Failed(format!(
            "timed out after {} s",
            trim_secs(timeout.as_secs_f64())
        ));
    }
    let Some(status) = exec.status else {
        return RunResult::Failed("its exit status could not be read".to_owned());
    };
    let Some(code) = status.code() else {
        return RunResult::Failed("it crashed (killed by a signal)".to_owned());
    };
    let out = exec.stdout.trim();
    if code == 2 {
        let reason = capped(&exec.stderr);
        return RunResult::Answered(HookAnswer {
            decision: Some(Decision::Deny),
            reason: Some(if reason.is_empty() {
                "a PreToolUse hook blocked this call (exit code 2)".to_owned()
            } else {
                reason
            }),
            ..HookAnswer::default()
        });
    }
    let parsed = if out.starts_with('{') {
        Some(
            serde_json::from_str::<Value>(out)
                .ok()
                .and_then(|v| read_answer(&v)),
        )
    } else {
        None
    };
    if code == 0 {
        return match parsed {
            None => RunResult::Answered(HookAnswer::default()),
            Some(Some(a)) => RunResult::Answered(a),
            Some(None) => RunResult::Failed("its output is not the documented JSON".to_owned()),
        };
    }
    match parsed {
        Some(Some(a)) if a.decision.is_some() => RunResult::Answered(a),
        _ => {
            let stderr = capped(&exec.stderr);
            let what = if code == 127 {
                "its command was not found (exit code 127)".to_owned()
            } else {
                format!("it exited with code {code} without a decision")
            };
            RunResult::Failed(if stderr.is_empty() {
                what
            } else {
                format!("{what}: {}", truncate(&stderr, 300))
            })
        }
    }
}

fn trim_secs(s: f64) -> String {
    let t = format!("{s:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use crate::Host;

    fn facts() -> SessionFacts {
        let dir = std::env::temp_dir();
        SessionFacts::new(dir.clone(), dir)
    }

    fn hooks_of(_source: SettingsSource, handlers: Value) -> Value {
        json!({ "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": handlers } ] } })
    }

    fn cmd(command: &str) -> Value {
        json!({ "type": "command", "command": command })
    }

    fn run(sources: &[(SettingsSource, &Value)], tool: &str, input: Value) -> Combined {
        let (hooks, _) = ClassicHooks::from_sources(sources);
        let f = facts();
        let stdin = pre_tool_use_input("s1", "", &f, tool, &input, "t1");
        hooks.run_pre_tool_use(&stdin, &f, &BTreeMap::new())
    }

    fn one(source: SettingsSource, handler: Value) -> Combined {
        let s = hooks_of(source, json!([handler]));
        run(&[(source, &s)], "Bash", json!({"command": "make build"}))
    }

    fn run_with(handler: Value, runner: HookRunner) -> Combined {
        let s = hooks_of(SettingsSource::Policy, json!([handler]));
        let (hooks, _) = ClassicHooks::from_sources(&[(SettingsSource::Policy, &s)]);
        let f = facts();
        let input = json!({"command": "make build"});
        let stdin = pre_tool_use_input("s1", "", &f, "Bash", &input, "t1");
        let env = BTreeMap::from([("SESSION_ONLY".to_owned(), "1".to_owned())]);
        hooks.run_pre_tool_use_with(&stdin, &f, &env, runner)
    }

    #[test]
    fn not_run_starts_nothing_and_decides_nothing() {
        let dir = tempfile_dir("not-run");
        let marker = dir.join("ran");
        let c = run_with(
            json!({"type": "command", "command": format!("touch '{}'; exit 2", marker.display())}),
            HookRunner::NotRun,
        );
        assert!(!marker.exists(), "the command ran");
        assert_eq!(c.answer.decision, None);
        assert_eq!(c.runs.len(), 1);
        assert!(matches!(&c.runs[0].result, RunResult::NotRun(_)));
        assert_eq!(
            c.to_value()["hooks"][0]["result"],
            format!("not run: {NOT_RUN_REASON}")
        );
        // A managed handler this engine cannot run still fails closed: nothing starts.
        let c = run_with(json!({"type": "http", "url": "x"}), HookRunner::NotRun);
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        let _ = std::fs::remove_dir_all(dir);
    }

    fn tempfile_dir(what: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "classic-test-{what}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn sandboxed_runs_in_a_scratch_home_and_folder_with_path_only() {
        let dir = tempfile_dir("sandboxed");
        let log = dir.join("log");
        let script = format!(
            "touch here; touch \"$HOME/home-file\"; {{ pwd; echo \"$HOME\"; env | cut -d= -f1 | sort | tr '\\n' ' '; echo; cat; }} > '{}'",
            log.display()
        );
        let c = run_with(
            json!({"type": "command", "command": script, "timeout": 600000}),
            HookRunner::Sandboxed {
                cap: Duration::from_secs(10),
            },
        );
        assert_eq!(c.answer.decision, None, "{:?}", c.runs[0].result);
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let (pwd, home) = (Path::new(lines[0]), Path::new(lines[1]));
        assert!(pwd.ends_with("work") && home.ends_with("home"), "{text}");
        assert_eq!(pwd.parent(), home.parent());
        // PATH, HOME and CLAUDE_PROJECT_DIR only (the shell adds PWD, SHLVL, `_`).
        let names: Vec<&str> = lines[2].split_whitespace().collect();
        for n in ["PATH", "HOME", "CLAUDE_PROJECT_DIR"] {
            assert!(names.contains(&n), "{names:?}");
        }
        assert!(!names.contains(&"SESSION_ONLY"), "{names:?}");
        for n in &names {
            assert!(
                [
                    "PATH",
                    "HOME",
                    "CLAUDE_PROJECT_DIR",
                    "PWD",
                    "OLDPWD",
                    "SHLVL",
                    "_"
                ]
                .contains(n),
                "{n} leaked into the sandbox: {names:?}"
            );
        }
        let input: Value = serde_json::from_str(lines[3]).unwrap();
        assert_eq!(input["cwd"], pwd.display().to_string());
        // The scratch folder, and what the hook wrote there, is gone.
        assert!(!pwd.parent().unwrap().exists());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn sandboxed_caps_the_policys_own_timeout() {
        let t = Instant::now();
        let c = run_with(
            json!({"type": "command", "command": "sleep 30", "timeout": 600000}),
            HookRunner::Sandboxed {
                cap: Duration::from_millis(300),
            },
        );
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        let RunResult::Failed(why) = &c.runs[0].result else {
            panic!("{:?}", c.runs[0].result);
        };
        assert!(why.contains("the cap of sandboxed runs"), "{why}");
        // A managed hook that times out fails closed, as under a session.
        assert_eq!(c.answer.decision, Some(Decision::Deny));
    }

    #[test]
    fn matchers_exact_list_regex_all() {
        assert!(Matcher::parse("").matches("Bash"));
        assert!(Matcher::parse("*").matches("anything"));
        let m = Matcher::parse("Bash");
        assert!(m.matches("Bash") && !m.matches("Bash2") && !m.matches("bash"));
        let m = Matcher::parse("Edit|Write");
        assert!(m.matches("Edit") && m.matches("Write") && !m.matches("NotebookEdit"));
        let m = Matcher::parse("Edit, Write");
        assert!(m.matches("Write"));
        // A regex is unanchored: `Edit.*` also matches NotebookEdit.
        let m = Matcher::parse("Edit.*");
        assert!(matches!(m, Matcher::Regex(..)));
        assert!(m.matches("NotebookEdit") && m.matches("Edit") && !m.matches("Write"));
        // A bare server name is an exact name: it matches nothing of the server.
        assert!(!Matcher::parse("mcp__memory").matches("mcp__memory__read"));
        assert!(Matcher::parse("mcp__memory__.*").matches("mcp__memory__read"));
        assert!(Matcher::parse("^(Bash|Read)$").matches("Read"));
        let bad = Matcher::parse("Bash(");
        assert!(matches!(bad, Matcher::Invalid(_)) && !bad.matches("Bash"));
    }

    #[test]
    fn invalid_regex_matches_all_for_managed_only() {
        let s = json!({"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [cmd("true")]}]}});
        let f = facts();
        let input = json!({});
        let (managed, w) = ClassicHooks::from_sources(&[(SettingsSource::Policy, &s)]);
        assert_eq!(managed.matching(PRE_TOOL_USE, "Read", &input, &f).len(), 1);
        assert!(w[0].message.contains("matches every tool"));
        let (person, w) = ClassicHooks::from_sources(&[(SettingsSource::User, &s)]);
        assert!(person.matching(PRE_TOOL_USE, "Read", &input, &f).is_empty());
        assert!(w[0].message.contains("matches no tool"));
    }

    #[test]
    fn json_output_decides() {
        let c = one(
            SettingsSource::User,
            cmd(
                r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check it"}}'"#,
            ),
        );
        assert_eq!(c.answer.decision, Some(Decision::Ask));
        assert_eq!(c.answer.reason.as_deref(), Some("check it"));
        let c = one(
            SettingsSource::User,
            cmd(r#"echo '{"decision":"block","reason":"old style"}'"#),
        );
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        assert_eq!(c.answer.reason.as_deref(), Some("old style"));
        let c = one(SettingsSource::User, cmd("echo just text"));
        assert_eq!(c.answer.decision, None);
        assert!(matches!(c.runs[0].result, RunResult::Answered(_)));
    }

    #[test]
    fn stdin_is_the_documented_json() {
        let c = one(
            SettingsSource::User,
            cmd(
                r#"read -r l; case "$l" in *'"hook_event_name":"PreToolUse"'*'"tool_name":"Bash"'*) echo '{"decision":"block","reason":"saw it"}';; *) echo "$l" >&2; exit 1;; esac"#,
            ),
        );
        assert_eq!(c.answer.reason.as_deref(), Some("saw it"), "{:?}", c.runs);
        let f = facts();
        let v = pre_tool_use_input("s", "/t.jsonl", &f, "Bash", &json!({"command": "x"}), "u");
        for k in [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id",
            "permission_mode",
        ] {
            assert!(v.get(k).is_some(), "{k}");
        }
    }

    #[test]
    fn exit_2_denies_with_stderr_even_over_json_allow() {
        let c = one(
            SettingsSource::User,
            cmd(
                r#"echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo 'no rm here' >&2; exit 2"#,
            ),
        );
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        assert_eq!(c.answer.reason.as_deref(), Some("no rm here"));
    }

    #[test]
    fn other_exit_codes_count_only_with_a_json_decision() {
        let c = one(
            SettingsSource::Policy,
            cmd(r#"echo '{"decision":"approve"}'; exit 1"#),
        );
        assert_eq!(c.answer.decision, Some(Decision::Allow));
        let c = one(SettingsSource::User, cmd("exit 1"));
        assert_eq!(c.answer.decision, None);
        assert!(matches!(&c.runs[0].result, RunResult::Failed(w) if w.contains("code 1")));
    }

    #[test]
    fn managed_failures_deny_naming_the_hook_and_persons_change_nothing() {
        let failing = [
            cmd("exit 3"),
            cmd("kill -9 $$"),
            cmd("echo '{ not json'"),
            cmd("echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"maybe\"}}'"),
            cmd("/no/such/command-anywhere"),
            json!({"type": "command"}),
            json!({"type": "http", "url": "https://example.invalid"}),
        ];
        for h in failing {
            let c = one(SettingsSource::Policy, h.clone());
            assert_eq!(c.answer.decision, Some(Decision::Deny), "{h}: {:?}", c.runs);
            let reason = c.answer.reason.clone().unwrap_or_default();
            assert!(
                reason.contains("your organization's managed settings"),
                "{reason}"
            );
            assert!(reason.contains("/hooks/PreToolUse/0/hooks/0"), "{reason}");
            let c = one(SettingsSource::User, h.clone());
            assert_eq!(c.answer.decision, None, "{h}: {:?}", c.runs);
        }
    }

    #[test]
    fn timeout_kills_and_managed_denies() {
        let started = Instant::now();
        let h =
            json!({"type": "command", "command": "echo start; sleep 5; echo late", "timeout": 0.3});
        let c = one(SettingsSource::Policy, h.clone());
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        assert!(c
            .answer
            .reason
            .unwrap_or_default()
            .contains("timed out after 0.3 s"));
        let c = one(SettingsSource::User, h);
        assert_eq!(c.answer.decision, None);
        assert!(matches!(&c.runs[0].result, RunResult::Failed(w) if w.contains("timed out")));
    }

    #[test]
    fn hooks_run_in_parallel_and_combine_deny_over_ask_over_allow() {
        let started = Instant::now();
        let s = hooks_of(
            SettingsSource::User,
            json!([
                cmd(r#"sleep 0.4; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'"#),
                cmd(
                    r#"sleep 0.4; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"a"}}'"#
                ),
                cmd(
                    r#"sleep 0.4; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"b","updatedInput":{"command":"make -n build"}}}'"#
                ),
            ]),
        );
        let c = run(
            &[(SettingsSource::User, &s)],
            "Bash",
            json!({"command": "make"}),
        );
        assert!(
            started.elapsed() < Duration::from_millis(1100),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(c.answer.decision, Some(Decision::Ask));
        assert_eq!(c.answer.reason.as_deref(), Some("a; b"));
        assert_eq!(
            c.answer.updated_input,
            Some(json!({"command": "make -n build"}))
        );
        let v = c.to_value();
        assert_eq!(v["decision"], "ask");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(v["hooks"].as_array().map(Vec::len), Some(3));
        assert_eq!(read_answer(&v), Some(c.answer.clone()));
    }

    #[test]
    fn allow_managed_hooks_only_and_disable_all_hooks() {
        let deny = |why: &str| cmd(&format!("echo {why} >&2; exit 2"));
        let policy = |extra: Value| {
            let mut p = hooks_of(SettingsSource::Policy, json!([deny("managed")]));
            if let (Some(p), Some(e)) = (p.as_object_mut(), extra.as_object()) {
                p.extend(e.clone());
            }
            p
        };
        let user = hooks_of(SettingsSource::User, json!([deny("person")]));
        let reasons = |p: &Value, u: &Value| {
            let c = run(
                &[(SettingsSource::User, u), (SettingsSource::Policy, p)],
                "Bash",
                json!({"command": "x"}),
            );
            c.answer.reason.unwrap_or_default()
        };
        // Managed first, then the person's.
        assert_eq!(reasons(&policy(json!({})), &user), "managed; person");
        assert_eq!(
            reasons(&policy(json!({"allowManagedHooksOnly": true})), &user),
            "managed"
        );
        // An invalid value keeps the strict reading.
        assert_eq!(
            reasons(&policy(json!({"allowManagedHooksOnly": "yes"})), &user),
            "managed"
        );
        assert_eq!(
            reasons(
                &policy(json!({"strictPluginOnlyCustomization": ["hooks"]})),
                &user
            ),
            "managed"
        );
        assert_eq!(
            reasons(&policy(json!({"disableAllHooks": true})), &user),
            ""
        );
        // A person's disableAllHooks cannot turn managed hooks off.
        let mut u = user.clone();
        u["disableAllHooks"] = json!(true);
        assert_eq!(reasons(&policy(json!({})), &u), "managed");
        // The value after precedence counts: a project false over a user true.
        let project = json!({"disableAllHooks": false});
        let (hooks, _) = ClassicHooks::from_sources(&[
            (SettingsSource::User, &u),
            (SettingsSource::Project, &project),
        ]);
        assert!(!hooks.is_empty());
    }

    #[test]
    fn identical_handlers_run_once_the_highest_sources() {
        let s = hooks_of(SettingsSource::User, json!([cmd("exit 7")]));
        let (hooks, _) =
            ClassicHooks::from_sources(&[(SettingsSource::User, &s), (SettingsSource::Policy, &s)]);
        let f = facts();
        let m = hooks.matching(PRE_TOOL_USE, "Bash", &json!({}), &f);
        assert_eq!(m.len(), 1);
        assert!(m[0].managed());
    }

    #[test]
    fn the_if_field_narrows_by_rule_pattern() {
        let h = json!({"type": "command", "command": "exit 2", "if": "Bash(rm *)"});
        let s = hooks_of(SettingsSource::User, json!([h]));
        let (hooks, _) = ClassicHooks::from_sources(&[(SettingsSource::User, &s)]);
        let f = facts();
        let n = |c: &str| {
            hooks
                .matching(PRE_TOOL_USE, "Bash", &json!({ "command": c }), &f)
                .len()
        };
        assert_eq!(n("rm -rf build"), 1);
        assert_eq!(n("make && rm -rf build"), 1);
        assert_eq!(n("ls -la"), 0);
        // On an event that is not a tool event, a hook with `if` never runs.
        let s = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true", "if": "Bash"}]}]}});
        let (hooks, _) = ClassicHooks::from_sources(&[(SettingsSource::User, &s)]);
        assert!(hooks.matching("Stop", "", &json!({}), &f).is_empty());
    }

    #[test]
    fn verdict_combination_rules_first() {
        let f = facts();
        let hook = |d: Decision| HookAnswer {
            decision: Some(d),
            reason: Some("hook says".to_owned()),
            ..HookAnswer::default()
        };
        let mut rule_deny = Verdict::plain(Decision::Deny);
        rule_deny.rule = Some("Bash(rm:*)".to_owned());
        let mut rule_ask = Verdict::plain(Decision::Ask);
        rule_ask.rule = Some("Bash(git push:*)".to_owned());
        let plain_ask = Verdict::plain(Decision::Ask);
        let plain_allow = Verdict::plain(Decision::Allow);

        // Allow never lifts a deny or a rule's ask.
        assert_eq!(
            apply_to_verdict(rule_deny.clone(), &hook(Decision::Allow), &f, "Bash"),
            rule_deny
        );
        assert_eq!(
            apply_to_verdict(rule_ask.clone(), &hook(Decision::Allow), &f, "Bash"),
            rule_ask
        );
        assert_eq!(
            apply_to_verdict(rule_ask.clone(), &hook(Decision::Ask), &f, "Bash"),
            rule_ask
        );
        // A hook deny over a rule's ask stands.
        let v = apply_to_verdict(rule_ask, &hook(Decision::Deny), &f, "Bash");
        assert_eq!(
            (v.decision, v.hook.as_deref()),
            (Decision::Deny, Some("PreToolUse"))
        );
        // Over the mode's own ask, a hook allow allows (named) and an ask names the hook.
        let v = apply_to_verdict(plain_ask.clone(), &hook(Decision::Allow), &f, "Bash");
        assert_eq!(
            (v.decision, v.hook.as_deref()),
            (Decision::Allow, Some("PreToolUse"))
        );
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &f, "Bash");
        assert_eq!(
            (v.decision, v.hook.as_deref()),
            (Decision::Ask, Some("PreToolUse"))
        );
        assert_eq!(v.decider, None);
        let mut hosted = f.clone();
        hosted.host = Host::Sdk;
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &hosted, "Bash");
        assert_eq!(v.decider.as_deref(), Some("host"));
        // In dontAsk only a Chrome tool's ask goes on to the host (SPEC §4 "Hosts").
        hosted.mode = Mode::DontAsk;
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &hosted, "Bash");
        assert_eq!(v.decider, None);
        let chrome = "mcp__claude-in-chrome__navigate";
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &hosted, chrome);
        assert_eq!(v.decider.as_deref(), Some("host"));
        // No decision: the rules' verdict.
        assert_eq!(
            apply_to_verdict(plain_ask.clone(), &HookAnswer::default(), &f, "Bash"),
            plain_ask
        );
        // A setting's ask stands over a hook allow.
        let mut setting_ask = Verdict::plain(Decision::Ask);
        setting_ask.setting = Some("managed-settings".to_owned());
        assert_eq!(
            apply_to_verdict(setting_ask.clone(), &hook(Decision::Allow), &f, "Bash"),
            setting_ask
        );
    }

    #[test]
    fn stricter_with_rules_keeps_rule_verdicts_only() {
        let mut rule_deny = Verdict::plain(Decision::Deny);
        rule_deny.rule = Some("Bash(rm:*)".to_owned());
        let allow = Verdict::plain(Decision::Allow);
        assert_eq!(
            stricter_with_rules(allow.clone(), rule_deny.clone()),
            rule_deny
        );
        assert_eq!(
            stricter_with_rules(allow.clone(), Verdict::plain(Decision::Ask)),
            allow
        );
        let mut rule_ask = Verdict::plain(Decision::Ask);
        rule_ask.rule = Some("Bash(git push:*)".to_owned());
        assert_eq!(
            stricter_with_rules(Verdict::plain(Decision::Ask), rule_ask.clone()),
            rule_ask
        );
        assert_eq!(stricter_with_rules(rule_deny.clone(), rule_ask), rule_deny);
    }

    #[test]
    fn read_answer_rejects_unknown_decisions() {
        assert_eq!(read_answer(&json!("x")), None);
        assert_eq!(read_answer(&json!({"decision": "sure"})), None);
        let a = read_answer(&json!({"continue": false, "stopReason": "stop"})).unwrap();
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Some(Decision::Deny), Some("stop"))
        );
        let a =
            read_answer(&json!({"hookSpecificOutput": {"permissionDecision": "defer"}})).unwrap();
        assert_eq!(a.decision, Some(Decision::Ask));
    }
}
