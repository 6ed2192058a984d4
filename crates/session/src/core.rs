//! The `core` link of every event (SPEC §1.5–§1.7b, §2.1, §4).

use crate::settings::{merge_settings, SettingsInputs};
use fnhooks::{names, Answer, ChainError, Channel, Cx, Event, FailureKind, Verdict};
use futures::future::BoxFuture;
use permissions::{Question, RuleSet, SessionFacts, SettingsSource};
use policy::{MemoRead, Policy, PolicyError, PolicyMemo};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// One line as finally written to the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    /// `screen` or `debug`.
    pub channel: Channel,
    /// The text, with no prefix.
    pub text: String,
}

struct Rules {
    policy: Arc<Policy>,
    rules: Arc<RuleSet>,
}

/// The engine's own answers, with the session state they read and write: the policy
/// memo, the settings sources, the environment of the engine's children, the tools
/// registered at run time, and the log.
pub struct SessionCore {
    memo: PolicyMemo,
    settings: SettingsInputs,
    facts: SessionFacts,
    tools: Vec<Value>,
    log: Mutex<Vec<LogLine>>,
    env: Mutex<BTreeMap<String, String>>,
    registered: Mutex<Vec<String>>,
    core_override: Mutex<Option<(String, Value)>>,
    rules: Mutex<Option<Rules>>,
    rules_without_policy: Arc<RuleSet>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SessionCore {
    pub(crate) fn new(
        memo: PolicyMemo,
        settings: SettingsInputs,
        facts: SessionFacts,
        tools: Vec<Value>,
    ) -> Self {
        let sources = readable_sources(&settings);
        let refs: Vec<(SettingsSource, &Value)> = sources.iter().map(|(s, v)| (*s, v)).collect();
        let (rules_without_policy, _) = RuleSet::from_sources(&refs);
        let core = SessionCore {
            memo,
            settings,
            facts,
            tools,
            log: Mutex::new(Vec::new()),
            env: Mutex::new(BTreeMap::new()),
            registered: Mutex::new(Vec::new()),
            core_override: Mutex::new(None),
            rules: Mutex::new(None),
            rules_without_policy: Arc::new(rules_without_policy),
        };
        core.init_env();
        core
    }

    /// The session's environment starts from the merged settings `env`, managed
    /// winning (SPEC §3.8), never from the host process's.
    fn init_env(&self) {
        let mut env = BTreeMap::new();
        let mut merged = Map::new();
        for (_, input) in self.settings.named() {
            if let Ok(m) = input.read() {
                merge_settings(&mut merged, &m);
            }
        }
        if let Ok(read) = self.read_policy() {
            merge_settings(&mut merged, &read.settings);
        }
        if let Some(Value::Object(vars)) = merged.get("env") {
            for (k, v) in vars {
                if let Some(s) = v.as_str() {
                    env.insert(k.clone(), s.to_owned());
                }
            }
        }
        *lock(&self.env) = env;
    }

    /// Reads the managed policy through the session's one memo (SPEC §2.1); on first
    /// sight of a content, writes its salvage warnings to the debug log, once.
    ///
    /// # Errors
    ///
    /// The read's error: the policy cannot be read (fail closed).
    pub fn read_policy(&self) -> Result<Arc<Policy>, PolicyError> {
        let MemoRead {
            policy,
            first_sight,
        } = self.memo.read()?;
        if first_sight {
            let mut log = lock(&self.log);
            for w in &policy.warnings {
                log.push(LogLine {
                    channel: Channel::Debug,
                    text: format!("managed settings warning: {w}"),
                });
            }
        }
        Ok(policy)
    }

    /// How many times the managed folder was read from disk.
    #[must_use]
    pub fn policy_disk_reads(&self) -> u64 {
        self.memo.disk_reads()
    }

    pub(crate) fn policy_changed(&self) {
        self.memo.invalidate();
    }

    pub(crate) fn set_override(&self, o: Option<(String, Value)>) {
        *lock(&self.core_override) = o;
    }

    pub(crate) fn take_log(&self) -> Vec<LogLine> {
        std::mem::take(&mut *lock(&self.log))
    }

    /// The current value of a variable of the engine's children.
    #[must_use]
    pub fn env_var(&self, name: &str) -> Option<String> {
        lock(&self.env).get(name).cloned()
    }

    /// Writes an engine line (SPEC §1.9) straight to the log, past the `ui.log` chain.
    pub fn engine_line(&self, channel: Channel, text: String) {
        self.write(channel, text);
    }

    fn write(&self, channel: Channel, text: String) {
        lock(&self.log).push(LogLine { channel, text });
    }

    fn rules_for(&self, policy: &Arc<Policy>) -> Arc<RuleSet> {
        let mut cached = lock(&self.rules);
        if let Some(r) = cached.as_ref() {
            if Arc::ptr_eq(&r.policy, policy) {
                return Arc::clone(&r.rules);
            }
        }
        let mut sources = readable_sources(&self.settings);
        sources.push((
            SettingsSource::Policy,
            Value::Object(policy.settings.clone()),
        ));
        let refs: Vec<(SettingsSource, &Value)> = sources.iter().map(|(s, v)| (*s, v)).collect();
        let (rules, warnings) = RuleSet::from_sources(&refs);
        for w in warnings {
            self.write(Channel::Debug, format!("permission rule warning: {w}"));
        }
        let rules = Arc::new(rules);
        *cached = Some(Rules {
            policy: Arc::clone(policy),
            rules: Arc::clone(&rules),
        });
        rules
    }

    /// The core of `tool.check` (SPEC §1.6, §2.1, §4).
    fn tool_check(&self, e: &Event) -> Verdict {
        let tool = e.str_field("tool").unwrap_or_default();
        let null = Value::Null;
        let input = e.fields.get("input").unwrap_or(&null);
        let q = Question { tool, input };
        match self.read_policy() {
            Ok(policy) => permissions::decide(&self.rules_for(&policy), &q, &self.facts),
            Err(_) => {
                permissions::decide_unreadable_policy(&self.rules_without_policy, &q, &self.facts)
            }
        }
    }

    fn settings_read(&self, e: &Event) -> Answer {
        let source = e.str_field("source").unwrap_or("merged");
        let unreadable = |what: &str, why: String| {
            ChainError::new(FailureKind::Error, format!("{what} cannot be read: {why}"))
        };
        match source {
            "policy" => match self.read_policy() {
                Ok(p) => Ok(Value::Object(p.settings.clone())),
                Err(err) => Err(unreadable("the managed policy", err.to_string())),
            },
            "merged" => {
                let mut merged = Map::new();
                for (name, input) in self.settings.named() {
                    let m = input.read().map_err(|why| unreadable(name, why))?;
                    merge_settings(&mut merged, &m);
                }
                let p = self
                    .read_policy()
                    .map_err(|err| unreadable("the managed policy", err.to_string()))?;
                merge_settings(&mut merged, &p.settings);
                Ok(Value::Object(merged))
            }
            other => {
                let input = self
                    .settings
                    .named()
                    .into_iter()
                    .find(|(n, _)| *n == other)
                    .map(|(_, i)| i.clone());
                match input {
                    Some(i) => i
                        .read()
                        .map(Value::Object)
                        .map_err(|why| unreadable(other, why)),
                    None => Err(ChainError::new(
                        FailureKind::Error,
                        format!("no settings source named {other}"),
                    )),
                }
            }
        }
    }

    fn answer_now(&self, cx: &Cx, e: &Event) -> Answer {
        if let Some((name, v)) = lock(&self.core_override).as_ref() {
            if *name == e.name {
                return Ok(v.clone());
            }
        }
        match e.name.as_str() {
            names::TOOL_CHECK => Ok(self.tool_check(e).to_value()),
            names::SETTINGS_READ => self.settings_read(e),
            names::ENV_SET => {
                let name = e.str_field("name").unwrap_or_default().to_owned();
                let mut env = lock(&self.env);
                match e.fields.get("value").and_then(Value::as_str) {
                    Some(v) => env.insert(name, v.to_owned()),
                    None => env.remove(&name),
                };
                Ok(json!({}))
            }
            names::ENV_GET => {
                let name = e.str_field("name").unwrap_or_default();
                Ok(json!({ "value": lock(&self.env).get(name) }))
            }
            names::TOOL_REGISTER => {
                let full = fnhooks::registered_tool_name(
                    &cx.origin().plugin,
                    e.str_field("name").unwrap_or_default(),
                );
                let mut reg = lock(&self.registered);
                if !reg.contains(&full) {
                    reg.push(full.clone());
                }
                Ok(json!({ "registered": full }))
            }
            names::TOOL_LIST => {
                let mut tools = self.tools.clone();
                tools.extend(lock(&self.registered).iter().map(|n| json!({ "name": n })));
                Ok(json!({ "tools": tools }))
            }
            names::PLUGIN_REGISTER => Ok(json!({ "admitted": true })),
            names::UI_LOG => {
                let channel = match e.str_field("to") {
                    Some("debug") => Channel::Debug,
                    _ => Channel::Screen,
                };
                self.write(channel, e.str_field("line").unwrap_or_default().to_owned());
                Ok(json!({}))
            }
            _ => Ok(e.to_value()),
        }
    }
}

fn readable_sources(settings: &SettingsInputs) -> Vec<(SettingsSource, Value)> {
    let kinds = [
        SettingsSource::User,
        SettingsSource::Project,
        SettingsSource::Local,
        SettingsSource::Flag,
    ];
    settings
        .named()
        .into_iter()
        .zip(kinds)
        .filter_map(|((_, input), kind)| input.read().ok().map(|m| (kind, Value::Object(m))))
        .collect()
}

impl fnhooks::Core for SessionCore {
    fn answer(&self, cx: Cx, event: Event) -> BoxFuture<'static, Answer> {
        let answer = self.answer_now(&cx, &event);
        Box::pin(async move { answer })
    }

    fn engine_log(&self, channel: Channel, line: String) {
        self.write(channel, line);
    }
}
