//! Settings sources (SPEC §4 "Classic hooks"; reference §4.1, §4.6): the `hooks` of
//! each settings source read into matcher groups and handlers, with warnings about the
//! entries that are odd or cannot run; `allowManagedHooksOnly`,
//! `strictPluginOnlyCustomization` and `disableAllHooks` applied; and the handlers that
//! match a call (the group's matcher, the handler's `if`, identical handlers once).

use super::matcher::Matcher;
use super::process::DEFAULT_TIMEOUT;
use crate::Decision;
use crate::{decide, Mode, Question, RuleSet, SessionFacts, SettingsSource};
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::fmt;
use std::time::Duration;

/// The tool events on which the `if` field is evaluated (reference §4.1).
const TOOL_EVENTS: &[&str] = &[
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionDenied",
];

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

pub(super) fn truncate(s: &str, max: usize) -> String {
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
                let mut base = String::from("/hooks");
                policy::pointer::push_key(&mut base, event);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::tests::{cmd, facts, hooks_of, run};
    use crate::classic::PRE_TOOL_USE;

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
}
