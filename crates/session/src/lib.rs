#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod blocking;
mod core;
mod decisions;
mod listed;
mod mode;
mod settings;

pub use crate::blocking::BlockingSession;
pub use crate::core::{
    not_a_variable, not_a_variable_refusal, readable_sources, LogLine, RuleCache, SessionCore,
    ENV_CAP, ENV_VALUE_CAP, NO_VARIABLE_NAME, PLUGIN_BUDGET,
};
use crate::listed::Module;
pub use crate::listed::{Activate, Listed};
pub use decisions::{
    utc_timestamp, verify_log, DecisionLog, DecisionRecord, DecisionSink, LogBreak, LogEnd,
    GENESIS, MAX_LINE_BYTES,
};
/// The catalogue a session hands its engine: SPEC §1.5's, whose `tool.check` fails
/// closed as §1.8 says (SPEC §1.5, §1.8).
pub use events::catalogue;
pub use permissions::classic::HookRunner;
pub use permissions::{Decision, Outcome, Verdict};
pub use settings::{merge_settings, SettingsError, SettingsInput, SettingsInputs};

use events::{names, ToolCall};
use fnhooks::{
    Answer, ChainError, Engine, Event, EventType, Origin, Plugin, PluginInfo, Raise, Tier,
    TraceEntry,
};
use parking_lot::Mutex;
use permissions::{Mode, SessionFacts};
use policy::{Clock, ManagedLocation, PolicyError, PolicyMemo, SystemClock, POLICY_MEMO_MS};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How to start a session.
#[derive(Clone)]
pub struct SessionConfig {
    /// Where the managed policy is read from (SPEC §2.1).
    pub managed: ManagedLocation,
    /// The other settings sources: user, project, local, flag.
    pub settings: SettingsInputs,
    /// The mode the session was given (`--permission-mode`, a scenario's
    /// `session.mode`); `None`: none given, so the session starts in the `defaultMode`
    /// of the highest-precedence settings source that sets one, else `default` (SPEC §4
    /// "Mode at start" **\[decision\]**).
    pub mode: Option<Mode>,
    /// Loop, host, interactive, working and home folders (SPEC §4). Its `mode` is not
    /// read: the session starts in the mode [`SessionConfig::mode`] and the settings
    /// resolve to ([`Session::start`]), which [`SessionCore::facts`] then holds.
    pub facts: SessionFacts,
    /// The engine's per-hook timeout (SPEC §1.1: 10 s by default).
    pub hook_timeout: Duration,
    /// The tools the engine provides (`{name, description?, provider?}`), for `tool.list`.
    pub tools: Vec<Value>,
    /// `false`: the security default is never seated (a control session).
    pub seated: bool,
    /// How the commands of classic hooks run (SPEC §4 "Classic hooks"): normally (the
    /// default, what a session does), not at all (each answers "not run"), or each in a
    /// scratch folder with `PATH` only and a cap: `sec-default audit` runs a policy it
    /// did not write without running its commands unless told.
    pub hook_runner: HookRunner,
    /// The clock of the policy memo (inject a fake one in tests).
    pub clock: Arc<dyn Clock>,
    /// The policy memo's window (SPEC §2.1 `POLICY_MEMO_MS`).
    pub memo_window: Duration,
    /// Where each `tool.check` is recorded ([`DecisionLog`], a hash-chained
    /// JSON-lines log); `None`: nowhere.
    pub decisions: Option<Arc<dyn DecisionSink>>,
    /// The compiled rules this session shares with the sessions given a clone of the
    /// same cache (a fresh one by [`SessionConfig::new`]; clones of a config share it).
    pub rule_cache: RuleCache,
}

impl std::fmt::Debug for SessionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionConfig")
            .field("managed", &self.managed)
            .field("mode", &self.mode)
            .field("facts", &self.facts)
            .field("hook_timeout", &self.hook_timeout)
            .field("seated", &self.seated)
            .field("hook_runner", &self.hook_runner)
            .finish_non_exhaustive()
    }
}

impl SessionConfig {
    /// A session reading the managed policy from `managed_folder`, working in `cwd` with
    /// the home folder `home` (both the embedding program's to give: SPEC §4 judges paths
    /// against them), with no mode given, the main loop, no host, interactive, no other
    /// settings source, the engine's 10 s hook timeout, classic hooks run normally, and
    /// the security default seated as the engine would seat it.
    #[must_use]
    pub fn new(managed_folder: &Path, cwd: &Path, home: &Path) -> Self {
        SessionConfig {
            managed: ManagedLocation::Explicit(managed_folder.to_path_buf()),
            settings: SettingsInputs::default(),
            mode: None,
            facts: SessionFacts::new(cwd, home),
            hook_timeout: fnhooks::DEFAULT_HOOK_TIMEOUT,
            tools: Vec::new(),
            seated: true,
            hook_runner: HookRunner::Normal,
            clock: Arc::new(SystemClock),
            memo_window: Duration::from_millis(POLICY_MEMO_MS),
            decisions: None,
            rule_cache: RuleCache::new(),
        }
    }
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The explicit managed folder does not exist (bad input, not an empty policy).
    #[error("{0}")]
    ManagedFolder(PolicyError),
}

/// Why a raise answered no value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RaiseError {
    /// `from` names a plugin the session does not list.
    #[error("{0} is not a plugin of this session")]
    UnknownPlugin(String),
    /// `from` names a plugin that was not admitted.
    #[error("{0} was not admitted, so it cannot raise events")]
    NotAdmitted(String),
    /// The chain answered an error (SPEC §1.1: a core that cannot read the policy, a
    /// dropped link whose last run failed).
    #[error("the chain answered an error: {0}")]
    Chain(ChainError),
}

impl From<ChainError> for RaiseError {
    fn from(e: ChainError) -> Self {
        RaiseError::Chain(e)
    }
}

/// One raise through a session: the event, the listed plugin it is raised from (`None`:
/// the engine), and the host's own answer at the core link for events whose core answer
/// only the host knows (a prompt section's text, a compaction's summary).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRaise {
    event: Event,
    from: Option<String>,
    core_answer: Option<Value>,
}

impl SessionRaise {
    /// `event`, raised by the engine.
    #[must_use]
    pub fn new(event: Event) -> Self {
        SessionRaise {
            event,
            from: None,
            core_answer: None,
        }
    }

    /// This raise, raised by the listed plugin `id` (`None`: the engine).
    #[must_use]
    pub fn from(mut self, id: Option<&str>) -> Self {
        self.from = id.map(str::to_owned);
        self
    }

    /// This raise with `answer` as the core link's answer of the event (`None`: the
    /// session's core answers).
    #[must_use]
    pub fn core_answer(mut self, answer: Option<Value>) -> Self {
        self.core_answer = answer;
        self
    }
}

/// What a traced raise answered: the chain's answer (its value or its error), and the
/// trace of the whole chain run, outermost first (SPEC §1.1 `next.trace`).
#[derive(Debug, Clone, PartialEq)]
pub struct Raised {
    /// The chain's answer.
    pub answer: Answer,
    /// What each link did.
    pub trace: Vec<TraceEntry>,
}

/// What the engine did with one tool call ([`Session::tool_use`]): the call as finally
/// rewritten, the verdict, what the engine does with it, and the trace of its
/// `tool.check` chain run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUse {
    /// The tool, as `tool.call` rewrote it.
    pub tool: String,
    /// The input, as `tool.call` and the classic hooks rewrote it.
    pub input: Value,
    /// The verdict (SPEC §1.6).
    pub verdict: Verdict,
    /// `run`, `prompt`, `host`, `refused` (SPEC §1.6 `outcome`).
    pub outcome: Outcome,
    /// The `tool.check` chain run (empty when `tool.call` refused the call). Where the
    /// security default held the verdict, the entries beneath it are those of the check
    /// re-run past the user tier (SPEC §3.6): the person's attempt shows in the notices
    /// ([`Session::take_log`]). The engine's own check of the call the model asked for
    /// (step 3 of [`Session::tool_use`]) runs after the chain and is not in it.
    #[serde(skip)]
    pub trace: Vec<TraceEntry>,
}

impl ToolUse {
    /// `{tool, input, verdict, outcome}`, the JSON the scenario format reads.
    #[must_use]
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A running session: the engine with its plugins seated, and its core. Its futures
/// run on any executor (tokio included); [`BlockingSession`] blocks on them.
pub struct Session {
    engine: Engine,
    core: Arc<SessionCore>,
    listed: Vec<Listed>,
    /// Listed modules refused because their id was taken, with the line that says why:
    /// never admitted, never seated, a reload refuses them again.
    taken: Vec<(Listed, String)>,
    admissions: Mutex<Vec<(String, Answer)>>,
    seated: Mutex<SeatState>,
    config_seated: bool,
    interactive: bool,
    /// How many times each listed module's worker crashed (SPEC §6 "Limits").
    crashes: Mutex<HashMap<String, u32>>,
    /// Where each `tool.check` is recorded.
    decisions: Option<Arc<dyn DecisionSink>>,
    /// What the security default did with each `tool.check` in flight, by
    /// `tool_use_id` (taken when the check is recorded).
    notes: Arc<Mutex<HashMap<String, sec_default::CheckNote>>>,
    /// The session's id, shared with every decision record.
    session_id: Arc<str>,
}

/// The most `tool.check` notes of the security default kept for the decision log at
/// once.
const MAX_NOTES: usize = 1024;

/// The crashes after which a person's module is unloaded, and an organization's stays
/// failing (SPEC §6 "Limits").
const CRASHES_TO_UNLOAD: u32 = 3;

#[derive(Default, Clone)]
struct SeatState {
    seated: bool,
    prepend_plugins: Option<Vec<String>>,
}

/// An organization's module that could not be loaded, as it stands in the chain (issue
/// #14, SPEC §1.8): its info, and one `tool.check` hook that fails (kind `error`, the
/// load line as its message) without calling `next`, so the engine makes it the
/// unchecked deny naming the plugin.
fn unloaded_org_module(listed: &Plugin, why: &str) -> Plugin {
    let why: Arc<str> = Arc::from(why);
    Plugin::new(listed.info.clone()).with(fnhooks::Registration::on(
        names::TOOL_CHECK,
        move |_cx: fnhooks::Cx, _e: Event, _next: fnhooks::Next| {
            let why = Arc::clone(&why);
            async move {
                Err::<Value, _>(fnhooks::HookError::Failed(fnhooks::HookFailure::new(
                    fnhooks::FailureKind::Error,
                    why.as_ref(),
                )))
            }
        },
    ))
}

/// The admission answer of a module whose id was taken (SPEC §3.9 `{refuse}`).
fn taken_refusal(why: &str) -> Value {
    let mut refused = Map::new();
    refused.insert("refuse".into(), Value::String(why.to_owned()));
    Value::Object(refused)
}

/// `listed` (in chain order) split into the plugins whose ids are their own, and those
/// refused because an earlier one, an organization's or the engine's module (admitted
/// first), or the security default (where the session may seat it) already holds the id
/// ([`policy::ids_equal`]), each with the line that says why.
fn unique_ids(listed: Vec<Listed>, seats_default: bool) -> (Vec<Listed>, Vec<(Listed, String)>) {
    let (people, org): (Vec<Listed>, Vec<Listed>) =
        listed.into_iter().partition(|p| p.info.tier == Tier::User);
    // Each id's key (`policy::id_key`) is made once: two ids are equal when their keys
    // are (`policy::ids_equal`), so a set of keys finds a holder in one lookup, and
    // listing n plugins costs n keys, not n² comparisons.
    let mut held: HashMap<String, &'static str> = HashMap::new();
    if seats_default {
        held.insert(policy::id_key(sec_default::ID), "the security default");
    }
    let mut kept = Vec::new();
    let mut taken = Vec::new();
    for p in org.into_iter().chain(people) {
        let key = policy::id_key(&p.info.id);
        let holder = held.get(&key).copied();
        match holder {
            Some(who) => {
                let why = format!(
                    "{} was not loaded: its id is held by {who}",
                    fnhooks::escaped(&p.info.id)
                );
                taken.push((p, why));
            }
            None => {
                let who = if p.info.tier == Tier::User {
                    "another plugin you installed"
                } else {
                    "an organization's or built-in plugin"
                };
                held.insert(key, who);
                kept.push(p);
            }
        }
    }
    kept.sort_by_key(|p| p.info.tier);
    (kept, taken)
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("engine", &self.engine)
            .field("seated", &self.is_seated())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Starts a session: reads the policy once (writing its salvage warnings to the
    /// debug log), settles the mode at start (SPEC §4 "Mode at start": the mode given,
    /// else a settings source's `defaultMode`, else `default`; a refused
    /// `bypassPermissions` starts as `default` with a warning on the debug log), seats
    /// the security default where SPEC §2.3 says, then admits every
    /// listed plugin through `plugin.register`, seating those admitted: first the
    /// `prepend`, `append` and `builtin` modules in chain order, then the person's
    /// (`user`) modules in chain order, so that no person's hook is asked about the
    /// organization's modules at load.
    ///
    /// # Errors
    ///
    /// [`SessionError::ManagedFolder`] when the explicit managed folder does not exist.
    pub async fn start(
        config: SessionConfig,
        plugins: Vec<Plugin>,
    ) -> Result<Session, SessionError> {
        Session::start_listed(config, plugins.into_iter().map(Listed::from).collect()).await
    }

    /// [`Session::start`] with plugins and modules (SPEC §6 mods: a module's
    /// registrations are made once `plugin.register` admitted it, [`Listed::module`]; a
    /// module that could not be loaded is refused with its line, [`Listed::unloadable`]).
    ///
    /// # Errors
    ///
    /// As [`Session::start`].
    pub async fn start_listed(
        config: SessionConfig,
        plugins: Vec<Listed>,
    ) -> Result<Session, SessionError> {
        if let ManagedLocation::Explicit(p) = &config.managed {
            if !p.exists() {
                return Err(SessionError::ManagedFolder(PolicyError::FolderNotFound {
                    path: p.clone(),
                }));
            }
        }
        let memo = PolicyMemo::new(
            config.managed.clone(),
            Arc::clone(&config.clock),
            config.memo_window,
        );
        let core = Arc::new(SessionCore::new(
            memo,
            config.settings.clone(),
            config.facts.clone(),
            config.mode,
            config.tools.clone(),
            config.hook_runner,
            config.rule_cache.clone(),
        ));
        let engine = Engine::new(
            Arc::new(crate::core::router(&core)),
            catalogue(),
            config.hook_timeout,
        );
        let mut listed = plugins;
        listed.sort_by_key(|p| p.info.tier);
        // One id, one plugin (SPEC §1.1, §2.3): the security default's id is its own, and
        // an id the organization's or the engine's modules hold (or an earlier person's
        // module) is refused to every later module, which is then not listed at all. A
        // person's module can never take the seat of another by taking its id.
        // A control session that never seats the security default reserves nothing for it.
        let (listed, taken) = unique_ids(listed, config.seated);
        let session_id: Arc<str> = Arc::from(core.hook_identity().0);
        let session = Session {
            engine,
            core,
            listed,
            taken,
            admissions: Mutex::new(Vec::new()),
            seated: Mutex::new(SeatState::default()),
            config_seated: config.seated,
            interactive: config.facts.interactive,
            crashes: Mutex::new(HashMap::new()),
            decisions: config.decisions.clone(),
            notes: Arc::default(),
            session_id,
        };
        session.reseat(true);
        // The organization's and the engine's modules are admitted before any person's
        // module is seated, so no person's hook is asked about them at load.
        let (people, org): (Vec<Listed>, Vec<Listed>) = session
            .listed
            .iter()
            .cloned()
            .partition(|p| p.info.tier == Tier::User);
        for p in org.into_iter().chain(people) {
            let answer = session.admit(&p, false).await;
            session.admissions.lock().push((p.info.id.clone(), answer));
        }
        for (p, why) in &session.taken {
            session
                .core
                .engine_line(fnhooks::Channel::Debug, why.clone());
            session
                .admissions
                .lock()
                .push((p.info.id.clone(), Ok(taken_refusal(why).into())));
        }
        Ok(session)
    }

    /// Decides seating (SPEC §2.3): where managed settings set `prependPlugins`, the
    /// list must name the security default; an unreadable policy seats it (fail
    /// closed). Re-decided only when `prependPlugins` changed (or at start); a plugin
    /// seated afresh starts with a fresh notice set and id map.
    fn reseat(&self, at_start: bool) {
        let read = self.core.read_policy();
        let (want, prepend) = match &read {
            Err(_) => (true, None),
            Ok(p) => {
                let m = p.managed();
                let listed = p.settings.contains_key("prependPlugins");
                let names_us = m
                    .prepend_plugins
                    .iter()
                    .any(|id| policy::ids_equal(id, sec_default::ID));
                (!listed || names_us, Some(m.prepend_plugins))
            }
        };
        let want = want && self.config_seated;
        let mut st = self.seated.lock();
        // A policy that becomes unreadable seats the security default (fail closed);
        // otherwise seating is decided again only when `prependPlugins` changed.
        let changed = match &read {
            Ok(_) => st.prepend_plugins != prepend,
            Err(_) => want && !st.seated,
        };
        if !at_start && !changed {
            return;
        }
        if read.is_ok() {
            st.prepend_plugins = prepend;
        }
        self.engine.unseat(sec_default::ID);
        if want {
            let observer = self.decisions.as_ref().map(|_| {
                let notes = Arc::clone(&self.notes);
                sec_default::CheckObserver(Arc::new(move |n: &sec_default::CheckNote| {
                    let key = n.tool_use_id.clone().unwrap_or_default();
                    let mut notes = notes.lock();
                    // Checks a plugin raises are never recorded: their notes must not
                    // pile up.
                    if notes.len() >= MAX_NOTES {
                        notes.clear();
                    }
                    notes.insert(key, n.clone());
                }))
            });
            self.engine
                .seat_first(sec_default::plugin_observed(observer));
        }
        st.seated = want;
    }

    /// Admits a plugin through `plugin.register` (SPEC §1.4, §3.9): a refusal's message
    /// goes to the debug log, and on screen too where an interactive session hot-reloads
    /// the module's folder. The event carries the module's pinned `name`, `tier`,
    /// `provenance` and, where the loader says, `source`; for a `prepend`, `append` or
    /// `builtin` module it is raised with the `user` tier skipped (SPEC §3.9).
    async fn admit(&self, p: &Listed, reload: bool) -> Answer {
        if let Some(Module::Unloadable(why)) = &p.module {
            // SPEC §6 "A mod": a module that could not be loaded is never asked about; it
            // is refused with the line that names its folder and the reason.
            let line = fnhooks::escaped_line(why);
            self.core
                .engine_line(fnhooks::Channel::Debug, line.as_str().to_owned());
            if matches!(p.info.tier, Tier::Prepend | Tier::Append) {
                // SPEC §1.8: the organization's module is policy; one that
                // could not be loaded does not drop out. Its `tool.check` link stands,
                // failing at once, so every call it would have checked is the unchecked
                // deny that names it.
                let name = fnhooks::escaped(&p.info.name);
                self.core.engine_line(
                    fnhooks::Channel::Screen,
                    format!(
                        "{name}, a plugin of your organization, could not be loaded; every call it would check is denied ({})",
                        line.as_str()
                    ),
                );
                self.engine
                    .seat(unloaded_org_module(&p.plugin, line.as_str()));
            } else {
                self.engine.unseat(&p.info.id);
            }
            return Ok(taken_refusal(line.as_str()).into());
        }
        let event = events::PluginRegister::event(&events::PluginRegister {
            name: p.info.name.clone(),
            tier: p.info.tier,
            provenance: p.info.id.clone(),
            source: p.info.source,
            rest: Map::new(),
        });
        // SPEC §3.9 [decision]: no hook of a person's ever judges the organization's or
        // the engine's modules, at start or at a reload.
        let raise = if p.info.tier == Tier::User {
            Raise::new(event)
        } else {
            Raise::new(event).skipping(&[Tier::User])
        };
        let mut answer = self.engine.raise(raise).await;
        let mut admitted = matches!(&answer, Ok(v) if v.get("refuse").is_none());
        let mut plugin = p.plugin.clone();
        if let (true, Some(Module::Activate(module))) = (admitted, &p.module) {
            // SPEC §6: a module's registrations are made once it is admitted, afresh at
            // every admission; one that cannot activate stands refused.
            match module.activate(&p.info) {
                Ok(registrations) => plugin.registrations = registrations,
                Err(why) => {
                    admitted = false;
                    answer = Ok(taken_refusal(&why).into());
                }
            }
        }
        if let Ok(Some(message)) = answer
            .as_ref()
            .map(|v| v.get("refuse").and_then(Value::as_str))
        {
            // A refusal is a plugin's text: written as one line, whoever wrote it
            // (SPEC §3.6.1).
            let message = fnhooks::escaped_line(message);
            let message = message.as_str();
            self.core
                .engine_line(fnhooks::Channel::Debug, message.to_owned());
            if reload && self.interactive {
                self.core
                    .engine_line(fnhooks::Channel::Screen, message.to_owned());
            }
        }
        if admitted {
            self.engine.seat(plugin);
        } else {
            self.engine.unseat(&p.info.id);
        }
        answer
    }

    /// Takes the crashes of the listed modules' workers since the last look (SPEC §6
    /// "Limits"), before anything is raised and again when the raise has answered,
    /// before its answer is returned: so the lines (a person's module unloaded at its
    /// third crash) are written by the raise in which the crash happened, not one event
    /// late. Each crash is taken once, so the second look of a raise counts only what
    /// happened during it. A module whose worker crashed is admitted
    /// again (a reload: §3.9 says who is asked), with a debug line; a person's module at
    /// its third crash is unloaded instead, with a screen line naming it; an
    /// organization's is never unloaded: at its third its worker is not started again,
    /// its hooks fail at once (kind `crash`, so at `tool.check` it stands as §1.8's
    /// unchecked deny), and one screen line names it.
    async fn after_crashes(&self) {
        for p in &self.listed {
            let Some(Module::Activate(module)) = &p.module else {
                continue;
            };
            while let Some(why) = module.take_crash() {
                let n = {
                    let mut c = self.crashes.lock();
                    let n = c.entry(p.info.id.clone()).or_insert(0);
                    *n += 1;
                    *n
                };
                let name = fnhooks::escaped(&p.info.name);
                let why = fnhooks::escaped_line(&why);
                let why = why.as_str();
                if n < CRASHES_TO_UNLOAD {
                    self.core.engine_line(
                        fnhooks::Channel::Debug,
                        format!("{name} crashed its worker ({why}); started afresh (crash {n} of {CRASHES_TO_UNLOAD})"),
                    );
                    let _ = self.admit(p, true).await;
                } else if p.info.tier == Tier::User {
                    self.engine.unseat(&p.info.id);
                    self.core.engine_line(
                        fnhooks::Channel::Screen,
                        format!("{name} was unloaded: it crashed its worker {n} times ({why})"),
                    );
                } else if n == CRASHES_TO_UNLOAD {
                    self.core.engine_line(
                        fnhooks::Channel::Screen,
                        format!("{name}, a plugin of your organization, crashed its worker {n} times ({why}); it stays loaded and its hooks fail from now on, so every call it checks is denied"),
                    );
                }
            }
            // Torn down with a module it shares its worker with: started afresh, no
            // crash counted (unless it was unloaded, or stays failed, meanwhile).
            while let Some(why) = module.take_restart() {
                let n = self.crashes.lock().get(&p.info.id).copied().unwrap_or(0);
                if n >= CRASHES_TO_UNLOAD || self.engine.plugin(&p.info.id).is_none() {
                    continue;
                }
                let name = fnhooks::escaped(&p.info.name);
                let why = fnhooks::escaped_line(&why);
                self.core.engine_line(
                    fnhooks::Channel::Debug,
                    format!("{name}'s worker was torn down by a plugin it shares it with ({why}); started afresh"),
                );
                let _ = self.admit(p, true).await;
            }
        }
    }

    /// Whether the security default is seated now.
    #[must_use]
    pub fn is_seated(&self) -> bool {
        self.seated.lock().seated
    }

    /// What `plugin.register` answered for each listed plugin at start, in admission order.
    #[must_use]
    pub fn admissions(&self) -> Vec<(String, Answer)> {
        self.admissions.lock().clone()
    }

    /// The plugins the session lists (admitted or not), in chain order.
    #[must_use]
    pub fn listed(&self) -> Vec<PluginInfo> {
        let mut all: Vec<PluginInfo> = self
            .listed
            .iter()
            .chain(self.taken.iter().map(|(p, _)| p))
            .map(|p| p.info.clone())
            .collect();
        all.sort_by_key(|p| p.tier);
        all
    }

    /// Whether the plugin with this id is seated now (admitted, and not unseated since).
    #[must_use]
    pub fn is_admitted(&self, id: &str) -> bool {
        self.engine.plugin(id).is_some()
    }

    /// The seated plugins, in chain order.
    #[must_use]
    pub fn seated(&self) -> Vec<PluginInfo> {
        self.engine.plugins()
    }

    /// The core (policy memo, environment, log).
    #[must_use]
    pub fn core(&self) -> &Arc<SessionCore> {
        &self.core
    }

    /// The origin of an event raised `from` a plugin (`None`: the engine).
    ///
    /// # Errors
    ///
    /// [`RaiseError`] when `from` is not listed or was not admitted.
    pub fn origin_of(&self, from: Option<&str>) -> Result<Origin, RaiseError> {
        let Some(id) = from else {
            return Ok(Origin::engine());
        };
        // Only a listed plugin raises through the session: the security default raises
        // through its own hooks' `cx`, never by id (SPEC §1.1).
        let info = self
            .listed
            .iter()
            .find(|p| p.info.id == id)
            .map(|p| p.info.clone());
        let info = match info {
            Some(info) => info,
            None if self.taken.iter().any(|(p, _)| p.info.id == id) => {
                return Err(RaiseError::NotAdmitted(id.to_owned()))
            }
            None => return Err(RaiseError::UnknownPlugin(id.to_owned())),
        };
        if self.engine.plugin(id).is_none() {
            return Err(RaiseError::NotAdmitted(id.to_owned()));
        }
        Ok(Origin {
            tier: info.tier,
            plugin: info.name,
            id: info.id,
        })
    }

    /// Raises `event` as the engine (SPEC §1.1) and answers the chain's value.
    ///
    /// # Errors
    ///
    /// [`RaiseError::Chain`] when the chain answers an error.
    pub async fn raise(&self, event: Event) -> Result<Value, RaiseError> {
        self.after_crashes().await;
        let answer = self.raise_now(event).await;
        self.after_crashes().await;
        answer
    }

    /// [`Session::raise`] between the crash bookkeeping before and after it.
    async fn raise_now(&self, event: Event) -> Result<Value, RaiseError> {
        if self.decisions.is_some() && event.name.as_str() == names::TOOL_CHECK {
            let fields = Arc::clone(&event.fields);
            // Seated, the security default's note says who rewrote the verdict: no
            // trace is needed (it costs as much as the check).
            let (answer, trace) = if self.is_seated() {
                (self.engine.raise(event).await, Vec::new())
            } else {
                self.engine.raise_traced(Raise::new(event)).await
            };
            self.record_check(&fields, &answer, &trace, None);
            return Ok(answer?.into_value());
        }
        Ok(self.engine.raise(event).await?.into_value())
    }

    /// Records one `tool.check` in the decision log, when there is one.
    fn record_check(
        &self,
        fields: &Arc<Map<String, Value>>,
        answer: &Answer,
        trace: &[TraceEntry],
        outcome: Option<&'static str>,
    ) {
        let Some(sink) = &self.decisions else {
            return;
        };
        let verdict = match answer {
            Ok(v) => Ok(v.clone()),
            Err(e) => Err(e.failure().clone()),
        };
        let v = verdict.as_ref().ok().map(|r| &**r);
        let text = |k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_str);
        let (file, line) = match (text("source"), text("rule")) {
            (Some("policy"), Some(rule)) => {
                self.core.read_policy().ok().map_or((None, None), |p| {
                    let behavior = if v.and_then(|v| v.get("uncertain")) == Some(&Value::Bool(true))
                    {
                        "deny"
                    } else {
                        text("decision").unwrap_or_default()
                    };
                    let origin = p
                        .rule_origins
                        .get(&(behavior.to_owned(), rule.to_owned()))
                        .or_else(|| p.rule_origins.get(&("ask".to_owned(), rule.to_owned())));
                    origin.map_or((None, None), |o| {
                        (Some(o.file.display().to_string()), o.line)
                    })
                })
            }
            (Some(source), Some(_)) => (Some(format!("{source} settings")), None),
            _ => (None, None),
        };
        // Seated, the security default says who rewrote the verdict and whether it held
        // (the trace keeps only its last run, past the user tier); unseated, the trace
        // shows the person's plugins that rewrote it.
        let key = fields
            .get("tool_use_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (rewritten_by, held) = match self.notes.lock().remove(key) {
            Some(n) => (n.rewritten_by, n.held),
            None => (sec_default::held_verdict::rewritten_by_users(trace), false),
        };
        // What the engine does with the verdict (SPEC §1.6 `outcome`); a chain that
        // failed is refused.
        let outcome = outcome.unwrap_or_else(|| {
            match v.and_then(Verdict::from_value) {
                Some(v) => permissions::outcome(&v, self.core.facts()),
                None => permissions::Outcome::Refused,
            }
            .as_str()
        });
        sink.record(DecisionRecord {
            session: Arc::clone(&self.session_id),
            fields: Arc::clone(fields),
            verdict,
            file,
            line,
            rewritten_by,
            held,
            outcome,
        });
    }

    /// Raises `event` from the listed, admitted plugin `id`, as that plugin's hooks
    /// would through their `cx` (SPEC §1.1: `next.origin` is that plugin).
    ///
    /// # Errors
    ///
    /// [`RaiseError::UnknownPlugin`] or [`RaiseError::NotAdmitted`] for `id`;
    /// [`RaiseError::Chain`] when the chain answers an error.
    pub async fn raise_from(&self, id: &str, event: Event) -> Result<Value, RaiseError> {
        self.after_crashes().await;
        let origin = self.origin_of(Some(id))?;
        let answer = self.engine.raise(Raise::new(event).origin(origin)).await;
        self.after_crashes().await;
        Ok(answer?.into_value())
    }

    /// Raises as `raise` says, answering the chain's answer (value or error) and the
    /// trace of the whole chain run.
    ///
    /// # Errors
    ///
    /// [`RaiseError::UnknownPlugin`] or [`RaiseError::NotAdmitted`] for the plugin the
    /// raise is from. The chain's own error is [`Raised::answer`]'s.
    pub async fn raise_traced(&self, raise: SessionRaise) -> Result<Raised, RaiseError> {
        self.after_crashes().await;
        let origin = self.origin_of(raise.from.as_deref())?;
        let mut r = Raise::new(raise.event).origin(origin);
        if let Some(v) = raise.core_answer {
            r = r.core_answer(v);
        }
        let (answer, trace) = self.engine.raise_traced(r).await;
        self.after_crashes().await;
        Ok(Raised { answer, trace })
    }

    /// Runs the engine's flow for one tool call (SPEC §1.5 `tool.call`/`tool.check`,
    /// §1.6 `outcome`, §4 "Rewrites"; SCENARIOS.md "Files and the tool-use flow").
    ///
    /// 1. The `tool.call` chain, raised by the engine: rewrites belong there. Its answer
    ///    `{tool, input}` is the call to check (a field missing or of the wrong type keeps
    ///    the model's); the core echoes the event. A chain that errs refuses the call.
    /// 2. `tool.check` on the rewritten, pinned question, through the whole chain: the
    ///    security default sees exactly this question and holds its verdict as SPEC §3.6
    ///    says. Its core also runs the classic `PreToolUse` hooks, whose `updatedInput`
    ///    is one more rewrite, judged there.
    /// 3. The input the model asked for: when the call was rewritten, the core's rules
    ///    and mode judge the original call too ([`SessionCore::rules_verdict`]), and
    ///    its deny, or its ask naming a rule or a setting, replaces the chain's verdict
    ///    when stricter ([`permissions::classic::stricter_with_rules`]). This step runs
    ///    after the chain, in the engine, where no plugin can answer it: no rewrite in
    ///    `tool.call` dodges a deny or ask rule written for the command the model asked
    ///    for, seated or not.
    /// 4. The `outcome` ([`permissions::outcome`]): `run`, `prompt`, `host`, `refused`.
    ///
    /// Takes the model's call; returns what the engine did with it. A chain that errs
    /// becomes a refused call with a deny verdict saying why (fail closed): there is no
    /// error.
    pub async fn tool_use(&self, call: ToolCall) -> ToolUse {
        self.after_crashes().await;
        let used = self.tool_use_now(call).await;
        self.after_crashes().await;
        used
    }

    /// [`Session::tool_use`] between the crash bookkeeping before and after it.
    async fn tool_use_now(&self, call: ToolCall) -> ToolUse {
        let ToolCall {
            tool,
            input,
            tool_use_id,
            ..
        } = call;
        let facts = self.core.facts().clone();
        let refused = |tool: &str, input: &Value, reason: String, trace| {
            let verdict = Verdict::plain(Decision::Deny).with_reason(reason);
            ToolUse {
                tool: tool.to_owned(),
                input: input.clone(),
                outcome: permissions::outcome(&verdict, &facts),
                verdict,
                trace,
            }
        };

        // 1. tool.call: rewrites.
        let mut call = Map::new();
        call.insert("tool".into(), json!(tool));
        call.insert("input".into(), input.clone());
        call.insert("tool_use_id".into(), json!(tool_use_id));
        let called = self.engine.raise(Event::new(names::TOOL_CALL, call)).await;
        let called = match called {
            Ok(v) => v,
            Err(e) => {
                let reason = format!(
                    "the tool.call chain failed ({}); the call was not made",
                    e.failure().kind
                );
                return refused(&tool, &input, reason, Vec::new());
            }
        };
        // The answer is moved out when nothing else holds it, and its input taken, not
        // copied.
        let mut called = called.into_value();
        let new_tool = called
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or(&tool)
            .to_owned();
        let new_input = called
            .get_mut("input")
            .map(Value::take)
            .unwrap_or_else(|| input.clone());

        // Whether tool.call rewrote the call (the input is moved on below, not copied).
        let call_rewrote = new_tool != tool || new_input != input;

        // 2. tool.check on the rewritten question.
        let _ = self.core.take_hook_rewrite(&tool_use_id);
        let mut check = Map::new();
        check.insert("tool".into(), json!(new_tool));
        check.insert("input".into(), new_input.clone());
        check.insert("tool_use_id".into(), json!(tool_use_id));
        let check = Arc::new(check);
        let (answer, trace) = self
            .engine
            .raise_traced(Event {
                name: names::TOOL_CHECK.into(),
                fields: Arc::clone(&check),
            })
            .await;
        let final_input = self
            .core
            .take_hook_rewrite(&tool_use_id)
            .unwrap_or(new_input);
        let verdict = match &answer {
            Ok(v) => Verdict::from_value(v),
            Err(_) => None,
        };
        let Some(mut verdict) = verdict else {
            let why = match &answer {
                Err(e) => e.failure().kind.to_string(),
                Ok(_) => "invalid-answer".to_owned(),
            };
            let reason = format!(
                "the permission check could not be completed ({why}); denied by your organization's policy"
            );
            let used = refused(&new_tool, &final_input, reason, trace);
            self.record_check(&check, &answer, &used.trace, Some(used.outcome.as_str()));
            return used;
        };

        // 3. Deny and ask rules also meet the input the model asked for.
        if call_rewrote {
            let original = self.core.rules_verdict(&tool, &input);
            verdict = permissions::classic::stricter_with_rules(verdict, original);
        }

        // 4. What the engine does with the verdict.
        let used = ToolUse {
            tool: new_tool,
            input: final_input,
            outcome: permissions::outcome(&verdict, &facts),
            verdict,
            trace,
        };
        // The log records the verdict the engine acts on (after step 3).
        let acted: Answer = Ok(used.verdict.to_value().into());
        self.record_check(&check, &acted, &used.trace, Some(used.outcome.as_str()));
        used
    }

    /// Reloads a listed plugin: it is admitted afresh through `plugin.register` (as after
    /// an edit of its folder) and seated or unseated by the answer.
    ///
    /// # Errors
    ///
    /// [`RaiseError::UnknownPlugin`] when the session does not list it.
    pub async fn reload(&self, id: &str) -> Result<Answer, RaiseError> {
        self.after_crashes().await;
        if let Some(p) = self.listed.iter().find(|p| p.info.id == id) {
            let answer = self.admit(p, true).await;
            self.after_crashes().await;
            return Ok(answer);
        }
        match self.taken.iter().find(|(p, _)| p.info.id == id) {
            // A module whose id was taken is refused again, and never seated.
            Some((_, why)) => Ok(Ok(taken_refusal(why).into())),
            None => Err(RaiseError::UnknownPlugin(id.to_owned())),
        }
    }

    /// The embedding program says the managed files changed: the next policy read goes
    /// to disk, and seating is decided again if `prependPlugins` changed (SPEC §2.1, §2.3).
    pub fn policy_changed(&self) {
        self.core.policy_changed();
        self.reseat(false);
    }

    /// Takes every log line written so far (after the `ui.log` chain, engine lines
    /// included), oldest first.
    pub fn take_log(&self) -> Vec<LogLine> {
        self.core.take_log()
    }
}
