//! The `core` link of every event (SPEC §1.5–§1.7b, §2.1, §4).

use crate::mode::mode_at_start;
use crate::settings::{merge_settings, SettingsInputs};
use events::{
    names, Admission, EnvGet, EnvSet, Fields, PluginRegister, Registered, ToolCheck, ToolList,
    ToolRegister, Tools, UiLog,
};
use fnhooks::{
    escaped, escaped_line, Answer, ChainError, Channel, Cx, Event, EventType, FailureKind, Reply,
    Router,
};
use parking_lot::Mutex;
use permissions::classic::{self, ClassicHooks, HookAnswer, HookRunner, RunResult};
use permissions::{Decision, Mode, Question, RuleSet, SessionFacts, SettingsSource, Verdict};
use policy::{MemoRead, Policy, PolicyError, PolicyMemo};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Rules and classic hooks compiled from one set of settings sources, with the
/// warnings the compiling gave.
struct Compiled {
    sources: Vec<(SettingsSource, Value)>,
    rules: Arc<RuleSet>,
    rule_warnings: Vec<permissions::RuleWarning>,
    hooks: Arc<ClassicHooks>,
    hook_warnings: Vec<classic::HookWarning>,
}

/// How many compiled sets of sources a [`RuleCache`] keeps.
const COMPILED_KEPT: usize = 4;

/// The permission rules and classic hooks compiled from the last few sets of settings
/// sources (at most 4), for the sessions that share it: sessions on the same policy
/// and settings (an audit starts dozens; an embedder one per conversation) compile
/// their rules once. Compiling is a pure function of the sources, so a session given
/// equal sources gets equal rules. The embedding program owns it
/// ([`crate::SessionConfig::rule_cache`]): clones share one cache, and nothing is
/// shared between caches, so two embedders in one process never see each other's.
#[derive(Clone, Default)]
pub struct RuleCache {
    kept: Arc<Mutex<Vec<Arc<Compiled>>>>,
}

impl std::fmt::Debug for RuleCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleCache")
            .field("kept", &self.kept.lock().len())
            .finish()
    }
}

impl RuleCache {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        RuleCache::default()
    }

    /// How many compiled sets of sources it holds (at most 4).
    #[must_use]
    pub fn len(&self) -> usize {
        self.kept.lock().len()
    }

    /// Whether it holds none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rules and hooks of `sources`, compiled now or by an earlier session.
    fn compiled(&self, sources: Vec<(SettingsSource, Value)>) -> Arc<Compiled> {
        if let Some(c) = self.kept.lock().iter().find(|c| c.sources == sources) {
            return Arc::clone(c);
        }
        let refs: Vec<(SettingsSource, &Value)> = sources.iter().map(|(s, v)| (*s, v)).collect();
        let (rules, rule_warnings) = RuleSet::from_sources(&refs);
        let (hooks, hook_warnings) = ClassicHooks::from_sources(&refs);
        let c = Arc::new(Compiled {
            sources,
            rules: Arc::new(rules),
            rule_warnings,
            hooks: Arc::new(hooks),
            hook_warnings,
        });
        let mut kept = self.kept.lock();
        if kept.len() >= COMPILED_KEPT {
            kept.remove(0);
        }
        kept.push(Arc::clone(&c));
        c
    }
}

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
    hooks: Arc<ClassicHooks>,
}

/// What the core of `tool.check` decides by: the rules in force (or the readable
/// sources' rules when the policy cannot be read) and the session facts (SPEC §4).
#[derive(Clone)]
struct Judge {
    rules: Arc<RuleSet>,
    policy_unreadable: bool,
    facts: SessionFacts,
}

impl Judge {
    fn verdict(&self, tool: &str, input: &Value) -> Verdict {
        let q = Question { tool, input };
        if self.policy_unreadable {
            permissions::decide_unreadable_policy(&self.rules, &q, &self.facts)
        } else {
            permissions::decide(&self.rules, &q, &self.facts)
        }
    }
}

/// Classic `PreToolUse` rewrites (`updatedInput`) the core met, by `tool_use_id`, for
/// the tool-use flow to pick up (SPEC §4 "Rewrites").
type Rewrites = Arc<Mutex<HashMap<String, Value>>>;

/// The most rewrites kept for `tool.check`s raised outside the tool-use flow.
const REWRITES_KEPT: usize = 64;

impl std::fmt::Debug for SessionCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionCore")
            .field("facts", &self.facts)
            .field("session_id", &self.session_id)
            .field("hook_runner", &self.hook_runner)
            .finish_non_exhaustive()
    }
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
    env: Mutex<Env>,
    registered: Mutex<Registry>,
    /// The bytes the core keeps on each plugin's behalf, by the plugin's id (SPEC §6
    /// "Limits": one budget per plugin).
    kept: Mutex<Kept>,
    rules: Mutex<Option<Rules>>,
    /// The managed settings of the last policy read, as the shared answer of
    /// `settings.read({source: "policy"})`: one immutable object for every read of that
    /// policy, made again only when the memo reads the folder anew.
    policy_reply: Mutex<Option<(Arc<Policy>, Reply)>>,
    rules_without_policy: Arc<RuleSet>,
    hooks_without_policy: Arc<ClassicHooks>,
    session_id: String,
    transcript_path: String,
    rewrites: Rewrites,
    hook_runner: HookRunner,
    rule_cache: RuleCache,
}

impl SessionCore {
    /// The core of a session with these `facts`, whose `mode` is replaced by the mode
    /// at start: `given`, else a settings source's `defaultMode`, else `default`, a
    /// refused `bypassPermissions` starting as `default` with a warning on the debug
    /// log (SPEC §4 "Mode at start", [`crate::mode::mode_at_start`]). Classic hooks'
    /// commands run as `hook_runner` says.
    pub(crate) fn new(
        memo: PolicyMemo,
        settings: SettingsInputs,
        facts: SessionFacts,
        given: Option<Mode>,
        tools: Vec<Value>,
        hook_runner: HookRunner,
        rule_cache: RuleCache,
    ) -> Self {
        let sources = readable_sources(&settings);
        let refs: Vec<(SettingsSource, &Value)> = sources.iter().map(|(s, v)| (*s, v)).collect();
        let (rules_without_policy, _) = RuleSet::from_sources(&refs);
        let (hooks_without_policy, _) = ClassicHooks::from_sources(&refs);
        let session_id = session_id();
        let transcript_path = transcript_path(&facts, &session_id);
        let mut core = SessionCore {
            memo,
            settings,
            facts,
            tools,
            log: Mutex::new(Vec::new()),
            env: Mutex::new(Env::default()),
            kept: Mutex::new(Kept::default()),
            registered: Mutex::new(Registry::default()),
            rules: Mutex::new(None),
            policy_reply: Mutex::new(None),
            rules_without_policy: Arc::new(rules_without_policy),
            hooks_without_policy: Arc::new(hooks_without_policy),
            session_id,
            transcript_path,
            rewrites: Arc::new(Mutex::new(HashMap::new())),
            hook_runner,
            rule_cache,
        };
        core.init_env();
        let policy = core.read_policy().ok();
        let (mode, warnings) = mode_at_start(given, policy.as_deref(), &core.settings);
        for w in warnings {
            core.write(Channel::Debug, w);
        }
        core.facts.mode = mode;
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
                if let Some(why) = not_a_variable(k) {
                    self.write(
                        Channel::Debug,
                        format!(
                            "settings env warning: \"{}\" is no variable name ({why}); it was left out of the session's environment",
                            escaped(k)
                        ),
                    );
                    continue;
                }
                if let Some(s) = v.as_str() {
                    env.insert(k.clone(), s.to_owned());
                }
            }
        }
        *self.env.lock() = Env::of(env);
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
            let mut log = self.log.lock();
            for w in &policy.warnings {
                log.push(LogLine {
                    channel: Channel::Debug,
                    text: fnhooks::escaped_line(&format!("managed settings warning: {w}")),
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

    pub(crate) fn take_log(&self) -> Vec<LogLine> {
        let mut log = self.log.lock();
        // The lines taken are the embedding program's now: what the plugins' lines
        // held is free again.
        self.kept.lock().lines_taken();
        std::mem::take(&mut *log)
    }

    /// The current value of a variable of the engine's children.
    #[must_use]
    pub fn env_var(&self, name: &str) -> Option<String> {
        self.env.lock().vars.get(name).cloned()
    }

    /// The session's environment as it is now: the shell a `Bash` command runs in
    /// inherits it, so the core expands its variables (SPEC §4 "What the core cannot
    /// see"). A copy, name to value.
    #[must_use]
    pub fn env(&self) -> BTreeMap<String, String> {
        self.env.lock().vars.clone()
    }

    /// The size of the session's environment as a process's is counted (SPEC §6
    /// "Limits"): `NAME=value` and its terminating NUL, for every variable. The core
    /// keeps it at most [`ENV_CAP`] (2 MiB) against every set.
    #[must_use]
    pub fn env_bytes(&self) -> usize {
        self.env.lock().bytes
    }

    /// The bytes the core keeps now on behalf of the plugin with this id (its log lines
    /// not yet taken, its registered tools), counted against [`PLUGIN_BUDGET`] (SPEC
    /// §6 "Limits").
    #[must_use]
    pub fn kept_for(&self, id: &str) -> usize {
        self.kept.lock().of(id)
    }

    /// Writes an engine line (SPEC §1.9) straight to the log, past the `ui.log` chain.
    pub fn engine_line(&self, channel: Channel, text: String) {
        self.write(channel, text);
    }

    fn write(&self, channel: Channel, text: String) {
        self.log.lock().push(LogLine { channel, text });
    }

    fn rules_for(&self, policy: &Arc<Policy>) -> (Arc<RuleSet>, Arc<ClassicHooks>) {
        let mut cached = self.rules.lock();
        if let Some(r) = cached.as_mut() {
            // The same content read again (a new memo window) keeps its rules, and its
            // warnings are not written again.
            if !Arc::ptr_eq(&r.policy, policy) && r.policy.settings == policy.settings {
                r.policy = Arc::clone(policy);
            }
            if Arc::ptr_eq(&r.policy, policy) {
                return (Arc::clone(&r.rules), Arc::clone(&r.hooks));
            }
        }
        let mut sources = readable_sources(&self.settings);
        sources.push((
            SettingsSource::Policy,
            Value::Object(policy.settings.clone()),
        ));
        let compiled = self.rule_cache.compiled(sources);
        for w in &compiled.rule_warnings {
            self.write(
                Channel::Debug,
                fnhooks::escaped_line(&format!(
                    "permission rule warning: {}",
                    rule_warning_line(policy, w)
                )),
            );
        }
        for w in &compiled.hook_warnings {
            self.write(
                Channel::Debug,
                fnhooks::escaped_line(&format!("classic hook warning: {w}")),
            );
        }
        let rules = Arc::clone(&compiled.rules);
        let hooks = Arc::clone(&compiled.hooks);
        *cached = Some(Rules {
            policy: Arc::clone(policy),
            rules: Arc::clone(&rules),
            hooks: Arc::clone(&hooks),
        });
        (rules, hooks)
    }

    /// The rules and classic hooks in force now (fail closed: with the policy
    /// unreadable, the readable sources' rules judged as SPEC §2.1 says).
    fn judge_and_hooks(&self) -> (Judge, Arc<ClassicHooks>) {
        // The shell a command runs in inherits the session's environment as it is now
        // (SPEC §4: variables "in the session's environment" are expanded).
        let mut facts = self.facts.clone();
        facts.env = Some(Arc::new(self.env()));
        match self.read_policy() {
            Ok(policy) => {
                let (rules, hooks) = self.rules_for(&policy);
                let judge = Judge {
                    rules,
                    policy_unreadable: false,
                    facts,
                };
                (judge, hooks)
            }
            Err(_) => {
                let judge = Judge {
                    rules: Arc::clone(&self.rules_without_policy),
                    policy_unreadable: true,
                    facts,
                };
                (judge, Arc::clone(&self.hooks_without_policy))
            }
        }
    }

    /// The session facts the core decides by (SPEC §4).
    #[must_use]
    pub fn facts(&self) -> &SessionFacts {
        &self.facts
    }

    /// The verdict of the permission rules and the mode alone for `(tool, input)`: the
    /// core of `tool.check` without the classic hooks (SPEC §4). The tool-use flow meets
    /// the input the model asked for with it (SPEC §4 "Rewrites").
    #[must_use]
    pub fn rules_verdict(&self, tool: &str, input: &Value) -> Verdict {
        self.judge_and_hooks().0.verdict(tool, input)
    }

    /// Takes the classic `PreToolUse` hooks' `updatedInput` the core met for this
    /// `tool_use_id` (SPEC §4 "Rewrites"), if any.
    pub(crate) fn take_hook_rewrite(&self, tool_use_id: &str) -> Option<Value> {
        self.rewrites.lock().remove(tool_use_id)
    }

    /// The session's id and transcript path as classic hooks read them (SPEC §4 "Classic
    /// hooks"; reference §4.3).
    #[must_use]
    pub fn hook_identity(&self) -> (&str, &str) {
        (&self.session_id, &self.transcript_path)
    }

    /// Plans the core of `tool.check` (SPEC §1.6, §2.1, §4): the rules' verdict for
    /// the pinned question now, and the `classic.PreToolUse` event to raise when some
    /// classic hook matches the call.
    ///
    /// A `query` (a `tool.check` a plugin raised: a mod's `$.tool.check`, SPEC §6 `$`)
    /// is answered by the rules alone: no classic hook runs for it (they are processes
    /// run before a tool call, and a plugin's query is none; the organization's managed
    /// hooks never run on an input a plugin chose), and so no `updatedInput` of theirs
    /// is kept under the `tool_use_id` the query names (a plugin that names the model's
    /// call cannot plant a rewrite of it).
    fn check_plan(&self, e: ToolCheck, query: bool) -> CheckPlan {
        let ToolCheck {
            tool,
            input,
            tool_use_id,
            ..
        } = e;
        let (judge, hooks) = self.judge_and_hooks();
        let base = judge.verdict(&tool, &input);
        let matching = if query {
            Vec::new()
        } else {
            hooks.matching(classic::PRE_TOOL_USE, &tool, &input, &self.facts)
        };
        let classic = (!matching.is_empty()).then(|| {
            let managed = matching.iter().any(|h| h.managed());
            let fields = classic::pre_tool_use_input(
                &self.session_id,
                &self.transcript_path,
                &self.facts,
                &tool,
                &input,
                &tool_use_id,
            );
            (
                Event::from_value(classic::CLASSIC_PRE_TOOL_USE, fields),
                managed,
            )
        });
        CheckPlan {
            judge,
            tool,
            input,
            tool_use_id,
            base,
            classic,
            rewrites: Arc::clone(&self.rewrites),
        }
    }

    /// The core of `classic.PreToolUse` (SPEC §1.5, §1.7b, §4): runs the matching
    /// classic hooks and answers their combined output; every failure goes to the debug
    /// log (a managed hook's denies, a person's is dropped), and so does every hook not
    /// run ([`HookRunner::NotRun`]).
    fn classic_pre_tool_use(&self, e: &Event) -> Answer {
        let (_, hooks) = self.judge_and_hooks();
        let env = self.env.lock().vars.clone();
        let combined =
            hooks.run_pre_tool_use_with(&e.to_value(), &self.facts, &env, self.hook_runner);
        for run in &combined.runs {
            let h = &run.handler;
            let line = match &run.result {
                RunResult::Failed(why) => {
                    let then = if h.managed() {
                        "denied"
                    } else {
                        "the call went on without it"
                    };
                    format!(
                        "classic {} hook `{}` of {} settings ({}) failed: {}; {then}",
                        h.event,
                        fnhooks::escaped_line(&h.name()),
                        h.source,
                        fnhooks::escaped_line(&h.pointer),
                        fnhooks::escaped_line(why),
                    )
                }
                RunResult::NotRun(why) => format!(
                    "classic {} hook `{}` of {} settings ({}): {}; it decided nothing",
                    h.event,
                    fnhooks::escaped_line(&h.name()),
                    h.source,
                    fnhooks::escaped_line(&h.pointer),
                    fnhooks::escaped_line(why),
                ),
                RunResult::Answered(_) | RunResult::Started => continue,
            };
            self.write(Channel::Debug, line);
        }
        Ok(combined.to_value().into())
    }

    /// The managed settings as one shared answer: the same [`Reply`] for every read of
    /// the policy the memo holds (SPEC §2.1).
    ///
    /// # Errors
    ///
    /// The read's error: the policy cannot be read (fail closed).
    fn policy_reply(&self) -> Result<Reply, PolicyError> {
        let policy = self.read_policy()?;
        let mut cached = self.policy_reply.lock();
        if let Some((seen, reply)) = cached.as_ref() {
            if Arc::ptr_eq(seen, &policy) {
                return Ok(reply.clone());
            }
        }
        let reply = Reply::new(Value::Object(policy.settings.clone()));
        *cached = Some((policy, reply.clone()));
        Ok(reply)
    }

    /// `settings.read({source})` (SPEC §1.5): `source` as [`events::SettingsRead`] reads it (a
    /// source that is absent or not a string is `merged`).
    fn settings_read(&self, source: Option<&str>) -> Result<Reply, ChainError> {
        let source = source.unwrap_or("merged");
        let unreadable = |what: &str, why: String| {
            ChainError::new(FailureKind::Error, format!("{what} cannot be read: {why}"))
        };
        let object = |m: Fields| Reply::new(Value::Object(m));
        match source {
            "policy" => self
                .policy_reply()
                .map_err(|err| unreadable("the managed policy", err.to_string())),
            "merged" => {
                let mut merged = Map::new();
                for (name, input) in self.settings.named() {
                    let m = input
                        .read()
                        .map_err(|why| unreadable(name, why.to_string()))?;
                    merge_settings(&mut merged, &m);
                }
                let p = self
                    .read_policy()
                    .map_err(|err| unreadable("the managed policy", err.to_string()))?;
                merge_settings(&mut merged, &p.settings);
                Ok(object(merged))
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
                        .map(object)
                        .map_err(|why| unreadable(other, why.to_string())),
                    None => Err(ChainError::new(
                        FailureKind::Error,
                        format!("no settings source named {other}"),
                    )),
                }
            }
        }
    }

    /// `env.set` (SPEC §3.8): sets or unsets the variable; a name that is missing or no
    /// variable name is refused, for every caller.
    fn env_set(&self, e: &Event) -> Refusal {
        let Some(set) = EnvSet::read(e) else {
            return refusal(NO_VARIABLE_NAME.to_owned());
        };
        if let Some(why) = not_a_variable_refusal(&set.name) {
            return refusal(why);
        }
        let mut env = self.env.lock();
        match set.value {
            Some(v) => {
                if let Some(why) = env.refusal(&set.name, &v) {
                    return refusal(why);
                }
                env.set(set.name, v);
            }
            None => env.unset(&set.name),
        }
        Refusal::default()
    }

    /// `env.get` (SPEC §3.7): the variable's value; `null` when unset, or when the event
    /// names no variable.
    fn env_get(&self, e: &Event) -> Value {
        let value = EnvGet::read(e)
            .filter(|get| not_a_variable(&get.name).is_none())
            .and_then(|get| self.env.lock().vars.get(&get.name).cloned());
        json!({ "value": value })
    }

    /// `tool.register` (SPEC §1.7): the tool's full name under its registering plugin.
    fn tool_register(&self, cx: &Cx, e: &ToolRegister) -> Registered {
        let origin = cx.origin();
        let full = events::registered_tool_name(&origin.plugin, &e.name);
        let mut reg = self.registered.lock();
        if !reg.names.contains(full.as_str()) {
            if let Err(why) = self.charge(origin, full.len(), Held::Registered) {
                return Registered {
                    deny: Some(why.to_string()),
                    ..Registered::default()
                };
            }
            // One copy of the name, shared by the order and the set: what is counted.
            let name: Arc<str> = Arc::from(full.as_str());
            reg.names.insert(Arc::clone(&name));
            reg.order.push(name);
        }
        Registered {
            registered: Some(full),
            ..Registered::default()
        }
    }

    /// Counts `bytes` more kept on behalf of `origin` (SPEC §6 "Limits": one budget of
    /// [`PLUGIN_BUDGET`] a plugin; the engine's own lines and the core's own writes are
    /// not a plugin's).
    ///
    /// # Errors
    ///
    /// The refusal naming the plugin when it would go past its budget; the first
    /// refusal of a spell over budget is also written to the debug log, once (a plugin
    /// at its budget cannot make the log grow by being refused).
    fn charge(&self, origin: &fnhooks::Origin, bytes: usize, what: Held) -> Result<(), OverBudget> {
        if origin.tier == fnhooks::Tier::Core {
            return Ok(());
        }
        let mut kept = self.kept.lock();
        let now = kept.of(&origin.id);
        if now.saturating_add(bytes) <= PLUGIN_BUDGET {
            kept.add(&origin.id, bytes, what);
            return Ok(());
        }
        let why = OverBudget {
            plugin: origin.plugin.clone(),
            kept: now,
            what,
            bytes,
        };
        let first = kept.refused.insert(origin.id.clone());
        drop(kept);
        if first {
            self.write(Channel::Debug, why.to_string());
        }
        Err(why)
    }

    /// `tool.list` (SPEC §3.5): the engine's tools, then those registered at run time.
    fn tool_list(&self) -> Tools {
        let mut tools = self.tools.clone();
        tools.extend(
            self.registered
                .lock()
                .order
                .iter()
                .map(|n| json!({ "name": &**n })),
        );
        Tools {
            tools: Some(tools),
            ..Tools::default()
        }
    }
}

use events::Refusal;

/// The largest value of a variable of the session's environment: 128 KiB, as a
/// process's (SPEC §6 "Limits" **\[decision\]**; Linux's `MAX_ARG_STRLEN`).
pub const ENV_VALUE_CAP: usize = 128 * 1024;

/// The largest the session's environment grows, counted as [`SessionCore::env_bytes`]
/// counts it: 2 MiB (SPEC §6 "Limits" **\[decision\]**).
pub const ENV_CAP: usize = 2 * 1024 * 1024;

/// What the engine keeps on one plugin's behalf on the Rust side, at most: 16 MiB
/// (SPEC §6 "Limits" **\[decision\]**).
pub const PLUGIN_BUDGET: usize = 16 * 1024 * 1024;

/// The session's environment, with its size kept as it changes (no walk per set).
#[derive(Default)]
struct Env {
    vars: BTreeMap<String, String>,
    /// Σ `NAME=value\0` over `vars`.
    bytes: usize,
}

/// What one variable takes of an environment: `NAME=value` and its NUL.
fn env_entry(name: &str, value: &str) -> usize {
    name.len() + value.len() + 2
}

/// A variable's name as a refusal names it: escaped, and cut to its first 256
/// characters when longer (the refusal of a 1 MiB name is not 1 MiB long).
fn shown_name(name: &str) -> String {
    const SHOWN: usize = 256;
    match name.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}...", escaped(name.get(..at).unwrap_or_default())),
        None => escaped(name),
    }
}

impl Env {
    fn of(vars: BTreeMap<String, String>) -> Self {
        let bytes = vars.iter().map(|(k, v)| env_entry(k, v)).sum();
        Env { vars, bytes }
    }

    /// Why setting `name` to `value` is refused, for every caller (SPEC §6 "Limits"): a
    /// value over [`ENV_VALUE_CAP`], or a set that would take the environment past
    /// [`ENV_CAP`] (a set that does not grow it is never refused: an environment
    /// handed over larger may still be trimmed).
    fn refusal(&self, name: &str, value: &str) -> Option<String> {
        if value.len() > ENV_VALUE_CAP {
            return Some(format!(
                "{} was not set: its value is {} bytes, past the cap of 128 KiB a value of the session's environment",
                shown_name(name),
                value.len()
            ));
        }
        let before = self.vars.get(name).map_or(0, |v| env_entry(name, v));
        let after = self.bytes.saturating_sub(before) + env_entry(name, value);
        (after > ENV_CAP && after > self.bytes).then(|| {
            format!(
                "{} was not set: it would take the session's environment to {after} bytes, past its cap of 2 MiB",
                shown_name(name)
            )
        })
    }

    fn set(&mut self, name: String, value: String) {
        let added = env_entry(&name, &value);
        if let Some(old) = self.vars.insert(name.clone(), value) {
            self.bytes = self.bytes.saturating_sub(env_entry(&name, &old));
        }
        self.bytes += added;
    }

    fn unset(&mut self, name: &str) {
        if let Some(old) = self.vars.remove(name) {
            self.bytes = self.bytes.saturating_sub(env_entry(name, &old));
        }
    }
}

/// The tools registered at run time: in the order registered, and as a set (a plugin
/// that registers names by the hundred thousand within its budget does not make every
/// registration walk them all).
#[derive(Default)]
struct Registry {
    order: Vec<Arc<str>>,
    names: std::collections::HashSet<Arc<str>>,
}

/// A plugin would go past its budget of bytes the engine keeps for it (SPEC §6
/// "Limits"): the refusal its `ui.log` or `tool.register` is denied with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} is past its budget: the engine keeps at most 16 MiB on a plugin's behalf (log lines not yet taken, registered tools), it keeps {kept} bytes for it and this {} would add {bytes}; refused",
    escaped(plugin),
    what.as_str()
)]
struct OverBudget {
    /// The plugin's name.
    plugin: String,
    /// The bytes kept for it now.
    kept: usize,
    /// What the refused bytes would have been kept as.
    what: Held,
    /// The bytes refused.
    bytes: usize,
}

/// What a plugin's bytes are kept as (SPEC §6 "Limits").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    /// A log line not yet taken by the embedding program.
    Line,
    /// A tool registered at run time, kept for the session.
    Registered,
}

impl Held {
    fn as_str(self) -> &'static str {
        match self {
            Held::Line => "log line",
            Held::Registered => "registered tool",
        }
    }
}

/// The bytes the core keeps for each plugin, by id.
#[derive(Default)]
struct Kept {
    lines: HashMap<String, usize>,
    registered: HashMap<String, usize>,
    /// The plugins told of their budget since the log was last taken.
    refused: std::collections::HashSet<String>,
}

impl Kept {
    fn of(&self, id: &str) -> usize {
        self.lines.get(id).copied().unwrap_or(0) + self.registered.get(id).copied().unwrap_or(0)
    }

    fn add(&mut self, id: &str, bytes: usize, what: Held) {
        let map = match what {
            Held::Line => &mut self.lines,
            Held::Registered => &mut self.registered,
        };
        match map.get_mut(id) {
            Some(n) => *n += bytes,
            None => {
                map.insert(id.to_owned(), bytes);
            }
        }
    }

    fn lines_taken(&mut self) {
        self.lines.clear();
        self.refused.clear();
    }
}

fn refusal(why: String) -> Refusal {
    Refusal {
        deny: Some(why),
        ..Refusal::default()
    }
}

/// The session's core as a router, one handler per event (SPEC §1.5–§1.7b), the way an
/// embedding program writes its own; every other event is answered by its own fields.
pub(crate) fn router(core: &Arc<SessionCore>) -> Router {
    let c = |core: &Arc<SessionCore>| Arc::clone(core);
    let log = c(core);
    let (check, classic_core, settings, set, get, register, list, ui) = (
        c(core),
        c(core),
        c(core),
        c(core),
        c(core),
        c(core),
        c(core),
        c(core),
    );
    Router::new(move |channel, line| log.write(channel, line))
        .on::<ToolCheck, _, _>(move |cx, e| {
            // Raised by a plugin, not by the engine's tool-use flow: a query.
            let query = cx.origin().tier != fnhooks::Tier::Core;
            let plan = check.check_plan(e, query);
            plan.finish(cx)
        })
        .on_json(classic::CLASSIC_PRE_TOOL_USE, move |cx, e| {
            // The classic hooks are processes run before a tool call: for the engine's
            // own check of a call, never for a plugin that raises the event itself
            // (SPEC §4 "Classic hooks", §6 `$`: the organization's managed hooks never
            // run on an input a plugin chose). A plugin's raise answers that no hook ran.
            let answer = if cx.origin().tier == fnhooks::Tier::Core {
                classic_core.classic_pre_tool_use(&e)
            } else {
                Ok(Reply::new(json!({})))
            };
            async move { answer }
        })
        // Untyped at the router, so the settings object is answered as read, not copied
        // again through serde.
        .on_json(names::SETTINGS_READ, move |_cx, e| {
            // `source` read in place: as `SettingsRead` reads it, with no copy of the
            // event into the type.
            let source = e.fields.get("source").and_then(Value::as_str);
            let answer = settings.settings_read(source);
            async move { answer }
        })
        .on_json(names::ENV_SET, move |_cx, e| {
            let answer = set.env_set(&e);
            async move { to_json(&answer) }
        })
        .on_json(names::ENV_GET, move |_cx, e| {
            let answer = get.env_get(&e);
            async move { Ok(answer) }
        })
        .on::<ToolRegister, _, _>(move |cx, e| {
            let answer = register.tool_register(&cx, &e);
            async move { Ok(answer) }
        })
        .on::<ToolList, _, _>(move |_cx, _e| {
            let answer = list.tool_list();
            async move { Ok(answer) }
        })
        .on::<PluginRegister, _, _>(|_cx, _e| async move {
            let mut rest = Fields::new();
            rest.insert("admitted".into(), Value::Bool(true));
            Ok(Admission { refuse: None, rest })
        })
        .on::<UiLog, _, _>(move |cx, e| {
            // A plugin's line is kept until the embedding program takes the log: it
            // counts toward the plugin's budget (SPEC §6 "Limits").
            let mut answer = Fields::new();
            match ui.charge(cx.origin(), e.line.len(), Held::Line) {
                Ok(()) => ui.write(e.to.unwrap_or(Channel::Screen), e.line),
                Err(why) => {
                    answer.insert("deny".into(), Value::String(why.to_string()));
                }
            }
            async move { Ok(answer) }
        })
}

fn to_json<T: serde::Serialize>(answer: &T) -> Answer {
    serde_json::to_value(answer)
        .map(fnhooks::Reply::new)
        .map_err(|why| ChainError::new(FailureKind::InvalidAnswer, why.to_string()))
}

/// The `env.set` refusal when the event names no variable at all (`name` missing or
/// not a string): nothing is set or unset (SPEC §3.8 **\[decision\]**).
pub const NO_VARIABLE_NAME: &str =
    "env.set names no variable (its name is missing or not a string); nothing was set or unset";

/// Why `name` is no variable name, if it is not one: a name that is empty or holds `=`
/// or NUL names no variable, so the core refuses to set or unset it for every caller
/// and `env.get` answers `{value: null}` (SPEC §3.8 **\[decision\]**). `None`: a name.
#[must_use]
pub fn not_a_variable(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("a name may not be empty")
    } else if name.contains('=') {
        Some("a name may not hold \"=\"")
    } else if name.contains('\0') {
        Some("a name may not hold NUL")
    } else {
        None
    }
}

/// The core's `env.set` refusal of a name that is no variable name
/// ([`not_a_variable`]), the name escaped as Rust's `char::escape_debug` escapes it:
/// `"<name>" is no variable name (<why>); nothing was set or unset`. `None`: a name
/// (SPEC §3.8 **\[decision\]**, §3.6.1 on escaping).
#[must_use]
pub fn not_a_variable_refusal(name: &str) -> Option<String> {
    not_a_variable(name).map(|why| {
        format!(
            "\"{}\" is no variable name ({why}); nothing was set or unset",
            escaped(name)
        )
    })
}

/// A rule warning as the debug log writes it: a managed rule is named by the file that
/// gives it (a drop-in, where it comes from one), its line and its own pointer there
/// (SPEC §2.1); other sources' rules by source and pointer.
#[must_use]
pub(crate) fn rule_warning_line(policy: &Policy, w: &permissions::RuleWarning) -> String {
    match (w.source, policy.rule_origin(&w.pointer, &w.rule)) {
        (SettingsSource::Policy, Some(origin)) => {
            let line = origin.line.map(|l| format!(":{l}")).unwrap_or_default();
            format!(
                "{}{line}: {}: {:?}: {}",
                origin.file.display(),
                origin.pointer,
                w.rule,
                w.reason
            )
        }
        _ => w.to_string(),
    }
}

/// The settings sources a session's rules are read from, lowest first, each that reads
/// as an object (SPEC §4 "Settings sources"): `user`, `project`, `local`, `flag` (the
/// managed policy is added by the caller). A source that is absent, unreadable or not
/// an object is left out.
#[must_use]
pub fn readable_sources(settings: &SettingsInputs) -> Vec<(SettingsSource, Value)> {
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

/// The core of one `tool.check`, planned synchronously and finished once the classic
/// hooks (if any) answered through the `classic.PreToolUse` chain (SPEC §4).
struct CheckPlan {
    judge: Judge,
    tool: String,
    input: Value,
    tool_use_id: String,
    base: Verdict,
    classic: Option<(Event, bool)>,
    rewrites: Rewrites,
}

impl CheckPlan {
    /// SPEC §4 "Classic hooks" and "Rewrites": the classic hooks run through the
    /// `classic.PreToolUse` event (so the security default's hold applies to it); an
    /// answer that cannot be read, or an error, denies when a managed hook was among
    /// those to run. A hook's `updatedInput` is a rewrite: the rules judge it whole,
    /// and the deny and ask rules met by the pinned input still stand (the stricter
    /// verdict). Then the hooks' decision goes over the rules' verdict
    /// ([`classic::apply_to_verdict`]).
    async fn finish(self, cx: Cx) -> Result<Verdict, ChainError> {
        let Some((event, managed)) = self.classic else {
            return Ok(self.base);
        };
        let answered = cx.raise(event).await;
        let read = answered.as_ref().ok().and_then(|a| classic::read_answer(a));
        // SPEC §1.8 **[revised]**, §6 "Limits": the chain refused for a limit (an
        // organization's or built-in hook whose own raise met the nesting cap) answers
        // no classic decision; the core does not take that for "no hook objected".
        let refused = answered.as_ref().err().filter(|e| e.is_limit());
        let hook = match read {
            Some(h) => h,
            None if managed || refused.is_some() => HookAnswer {
                decision: Some(Decision::Deny),
                reason: Some(match refused {
                    Some(e) => format!(
                        "the PreToolUse hooks could not be run ({}: {}); denied",
                        e.failure().kind,
                        escaped_line(e.failure().message_or_default())
                    ),
                    None => format!(
                        "the PreToolUse hooks of your organization's managed settings could not be run ({}); denied",
                        match &answered {
                            Err(e) => e.failure().kind.to_string(),
                            Ok(_) => "invalid-answer".to_owned(),
                        }
                    ),
                }),
                ..HookAnswer::default()
            },
            None => HookAnswer::default(),
        };
        let mut base = self.base;
        if let Some(updated) = hook.updated_input.as_ref().filter(|u| **u != self.input) {
            let rewritten = self.judge.verdict(&self.tool, updated);
            base = classic::stricter_with_rules(rewritten, base);
            let mut rewrites = self.rewrites.lock();
            if rewrites.len() >= REWRITES_KEPT {
                rewrites.clear();
            }
            rewrites.insert(self.tool_use_id.clone(), updated.clone());
        }
        Ok(classic::apply_to_verdict(
            base,
            &hook,
            &self.judge.facts,
            &self.tool,
        ))
    }
}

/// A session id for classic hooks' input (reference §4.3): the process id and the time.
fn session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{:08x}-{:x}", std::process::id(), nanos)
}

/// Where Claude Code keeps a session's transcript: `~/.claude/projects/<cwd with every
/// `/` and `.` as `-`>/<session id>.jsonl` (reference §4.3).
fn transcript_path(facts: &SessionFacts, session_id: &str) -> String {
    let project: String = facts
        .cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c == '/' || c == '.' { '-' } else { c })
        .collect();
    facts
        .home
        .join(".claude/projects")
        .join(project)
        .join(format!("{session_id}.jsonl"))
        .to_string_lossy()
        .into_owned()
}
