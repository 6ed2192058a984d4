//! The runner: sets up a session from a scenario (SCENARIOS.md), raises its steps, and
//! judges each step's expectation — including `$held` (SPEC §5 invariants 1 and 2,
//! against a twin session with every `user`-tier hook removed) and `$unchanged`
//! (invariant 7, against a twin with the security default unseated).

use crate::expect::{match_answer, match_log, match_ran, Expectation, Mismatch};
use crate::format::{Behaviour, PolicySpec, RaiseStep, Scenario, Step};
use crate::load::LoadedScenario;
use crate::materialize::{apply_change, write_files, write_policy};
use fnhooks::{
    answer_to_json, Answer, Channel, Cx, Event, FailureKind, HookError, HookFailure, Next, Plugin,
    PluginInfo, Registration, Tier, TraceEntry,
};
use parking_lot::Mutex;
use permissions::{Decision, SessionFacts, Verdict};
use serde::Serialize;
use serde_json::{json, Map, Value};
use session::{
    BlockingSession, Listed, LogLine, Raised, SessionConfig, SessionRaise, SettingsInputs,
};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};
use std::time::Duration;
use tempfile::TempDir;

/// How to run scenarios (`sec-default test` options, SCENARIOS.md "Running").
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--managed DIR`: replaces every scenario's `policy` with this managed folder.
    pub managed: Option<PathBuf>,
    /// `--compare`: also run each scenario unseated and report what sec-default changed.
    pub compare: bool,
    /// Lets scripted plugins of a person and of the organization share a `worker`, as
    /// an embedding program's Rust plugins may (SPEC §1.1: a batch under `prepend` may
    /// hold a person's plugin), so that the security default's handling of such
    /// batches stays tested. `sec-default test` never sets it: in a scenario file such a
    /// worker is bad input (SCENARIOS.md "Mods", SPEC §6 "Workers"); mods are refused
    /// it either way (by [`mods::SharedWorker`]).
    pub embedder_batches: bool,
}

/// Why a scenario could not be set up (bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A folder or file could not be written or copied.
    #[error("{0}")]
    Materialize(#[from] crate::MaterializeError),
    /// The temporary folder could not be made.
    #[error("cannot make a temporary folder: {0}")]
    Temp(std::io::Error),
    /// A session field does not parse.
    #[error("{pointer}: {message}")]
    Session {
        /// Where, as a JSON pointer within the scenario.
        pointer: String,
        /// What is wrong.
        message: String,
    },
    /// The session could not start (the managed folder does not exist).
    #[error("{0}")]
    Start(#[from] session::SessionError),
    /// A mod (`path`) could not be loaded, and the entry does not say `"admitted":
    /// false` (SCENARIOS.md "Mods"): the folder and the reason.
    #[error("{pointer}: {message}")]
    Mod {
        /// Where, as a JSON pointer within the scenario (`/plugins/<i>/path`).
        pointer: String,
        /// The folder and why it is not a mod, or why its options do not fit.
        message: String,
    },
    /// A `worker` shared by a person's plugin (`user`) and an organization's (`prepend`,
    /// `append`): refused (SCENARIOS.md "Mods", SPEC §6 "Workers").
    #[error("{pointer}: {message}")]
    SharedWorker {
        /// Where, as a JSON pointer within the scenario (`/plugins/<i>/worker`).
        pointer: String,
        /// The worker, and the two plugins on either side.
        message: String,
    },
}

/// Refuses a `worker` shared by a person's plugin and an organization's (SPEC §6
/// "Workers" **\[decision\]**), naming the second plugin's entry and the first's id.
///
/// # Errors
///
/// [`SetupError::SharedWorker`] at the first plugin that joins a worker of the other
/// side.
fn check_workers(loaded: &LoadedScenario, sc: &Scenario) -> Result<(), SetupError> {
    let person = |t: Tier| t == Tier::User;
    let mut first: std::collections::HashMap<&str, &crate::format::PluginSpec> =
        std::collections::HashMap::new();
    for (i, p) in sc.plugins.iter().enumerate() {
        let Some(w) = p.worker.as_deref() else {
            continue;
        };
        match first.get(w) {
            None => {
                first.insert(w, p);
            }
            Some(q) if person(q.tier) != person(p.tier) => {
                return Err(SetupError::SharedWorker {
                    pointer: format!("{}/plugins/{i}/worker", loaded.pointer()),
                    message: format!(
                        "worker {w:?} is shared by {} ({}) and {} ({}): a worker shared by a person's plugin and an organization's is refused (SPEC §6 Workers)",
                        q.id,
                        q.tier,
                        p.id,
                        p.tier
                    ),
                });
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// One failed expectation.
#[derive(Debug, Clone, Serialize)]
pub struct StepFailure {
    /// The step's index in `steps` (`None`: an admission expectation).
    pub step: Option<usize>,
    /// What was expected (the step's `expect`, or the admission).
    pub expected: Value,
    /// What came back.
    pub actual: Value,
    /// Why it does not match.
    pub why: String,
    /// The trace of the step's chain run.
    pub trace: Vec<TraceEntry>,
}

/// What sec-default changed at one step (`--compare`).
#[derive(Debug, Clone, Serialize)]
pub struct StepDiff {
    /// The step's index (`None`: the admission of the listed plugins at start).
    pub step: Option<usize>,
    /// The event raised.
    pub event: String,
    /// The answer with sec-default seated.
    pub seated: Value,
    /// The answer unseated.
    pub unseated: Value,
}

/// The result of one scenario.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioReport {
    /// The scenario file.
    pub file: PathBuf,
    /// The scenario's JSON pointer in the file (`""` or `/scenarios/<i>`).
    pub pointer: String,
    /// The scenario's name.
    pub name: String,
    /// Its `about` text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub about: Option<String>,
    /// Every failed expectation (empty: the scenario passed).
    pub failures: Vec<StepFailure>,
    /// With `--compare`: the steps whose answers differ seated vs unseated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<Vec<StepDiff>>,
}

impl ScenarioReport {
    /// Whether every expectation held.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Runs one scenario.
///
/// # Errors
///
/// [`SetupError`] when the scenario cannot be set up (a folder that cannot be written,
/// a managed folder that does not exist, a session field that does not parse).
pub fn run_scenario(
    loaded: &LoadedScenario,
    options: &RunOptions,
) -> Result<ScenarioReport, SetupError> {
    quiet_scripted_panics();
    let sc = &loaded.scenario;
    let needs_held = sc
        .steps
        .iter()
        .any(|s| matches!(s, Step::Raise(r) if r.expect == Some(Expectation::Held)));
    let needs_unseated = options.compare
        || sc
            .steps
            .iter()
            .any(|s| matches!(s, Step::Raise(r) if r.expect == Some(Expectation::Unchanged)));
    let main = World::new(loaded, options, Twin::Main)?;
    let held = needs_held
        .then(|| World::new(loaded, options, Twin::NoUserHooks))
        .transpose()?;
    let unseated = needs_unseated
        .then(|| World::new(loaded, options, Twin::Unseated))
        .transpose()?;

    let mut failures = Vec::new();
    failures.extend(main.admission_failures(sc));
    failures.extend(main.load_failures(sc));
    // The lines written while the session started and its plugins were admitted stay
    // in the log: they count as the first step's for `$log` (SCENARIOS.md), so a
    // scenario can see a start's warnings (SPEC §4 "Mode at start"). The twins' lines
    // are never matched.
    for w in held.iter().chain(unseated.iter()) {
        w.session.take_log();
    }
    let mut changed = Vec::new();
    if let (true, Some(u)) = (options.compare, &unseated) {
        // What sec-default changed at admission (SPEC §3.9), before any step.
        let theirs = u.session.admissions();
        for (id, answer) in main.session.admissions() {
            let other = theirs
                .iter()
                .find(|(i, _)| *i == id)
                .map(|(_, a)| answer_to_json(a));
            let mine = answer_to_json(&answer);
            if other.as_ref() != Some(&mine) {
                changed.push(StepDiff {
                    step: None,
                    event: format!("plugin.register {id}"),
                    seated: mine,
                    unseated: other.unwrap_or(Value::Null),
                });
            }
        }
    }

    for (i, step) in sc.steps.iter().enumerate() {
        let ran_main = main.step(step)?;
        let ran_held = held.as_ref().map(|w| w.step(step)).transpose()?;
        let ran_unseated = unseated.as_ref().map(|w| w.step(step)).transpose()?;
        let (Some(out), Step::Raise(raise)) = (ran_main, step) else {
            continue;
        };
        if let (true, Some(Some(u))) = (options.compare, &ran_unseated) {
            let (a, b) = (out.answer_json(), u.answer_json());
            if a != b {
                changed.push(StepDiff {
                    step: Some(i),
                    event: raise.raise.clone(),
                    seated: a,
                    unseated: b,
                });
            }
        }
        let fail = |expected: Value, why: String| StepFailure {
            step: Some(i),
            expected,
            actual: out.answer_json(),
            why,
            trace: out.trace.clone(),
        };
        match &raise.expect {
            None => {}
            Some(Expectation::Held) => {
                if let Some(Some(twin)) = &ran_held {
                    if let Err(why) = judge_held(&raise.raise, &out.answer, &twin.answer) {
                        failures.push(fail(json!({"$held": twin.answer_json()}), why.to_string()));
                    }
                }
            }
            Some(Expectation::Unchanged) => {
                if let Some(Some(twin)) = &ran_unseated {
                    if out.answer_json() != twin.answer_json() {
                        failures.push(fail(
                            json!({"$unchanged": twin.answer_json()}),
                            "the answer differs from the same step with sec-default unseated"
                                .to_owned(),
                        ));
                    }
                }
            }
            Some(Expectation::Match(spec)) => {
                let spec = spec.substituted(&main.cwd_str(), &main.home_str());
                let expected = expected_json(&spec);
                #[expect(
                    clippy::result_large_err,
                    reason = "a mismatch is built once per failed step"
                )]
                let checks: [Result<(), Mismatch>; 3] = [
                    match_answer(&spec, out.outcome()),
                    spec.log
                        .as_ref()
                        .map_or(Ok(()), |l| match_log(l, &out.lines())),
                    match_ran(&spec, &out.ran),
                ];
                for err in checks.into_iter().filter_map(Result::err) {
                    let mut f = fail(expected.clone(), err.to_string());
                    if err.pointer.starts_with("/$log") {
                        f.actual = json!(out.log);
                    } else if err.pointer.starts_with("/$ran")
                        || err.pointer.starts_with("/$not_ran")
                    {
                        f.actual = json!(out.ran);
                    }
                    failures.push(f);
                }
            }
        }
    }
    Ok(ScenarioReport {
        file: loaded.file.clone(),
        pointer: loaded.pointer(),
        name: sc.name.clone(),
        about: sc.about.clone(),
        failures,
        changed: options.compare.then_some(changed),
    })
}

/// Every step's answer (`None` for a step that raises nothing) in the scenario's
/// session, seated as the scenario says, with no expectation checked: for a tool that
/// sets this engine beside another, as the conformance harness sets it beside Claude
/// Code. Answers are as `sec-default test` prints them (a failure as `{"error": …}`).
///
/// # Errors
/// [`SetupError`] when the scenario's session cannot be set up.
pub fn answers(loaded: &LoadedScenario) -> Result<Vec<Option<Value>>, SetupError> {
    quiet_scripted_panics();
    let world = World::new(loaded, &RunOptions::default(), Twin::Main)?;
    let mut out = Vec::with_capacity(loaded.scenario.steps.len());
    for step in &loaded.scenario.steps {
        out.push(world.step(step)?.map(|r| r.answer_json()));
    }
    Ok(out)
}

/// The expectation as the scenario wrote it (after `$CWD`/`$HOME` substitution), for
/// failure reports.
fn expected_json(spec: &crate::expect::MatchSpec) -> Value {
    let mut v = spec.fields.clone();
    if let Value::Object(m) = &mut v {
        if let Some(log) = &spec.log {
            let lines = |l: &Option<Vec<crate::expect::LineMatch>>| {
                l.as_ref().map(|v| {
                    v.iter()
                        .map(crate::expect::LineMatch::to_value)
                        .collect::<Vec<_>>()
                })
            };
            m.insert(
                "$log".into(),
                json!({"screen": lines(&log.screen), "debug": lines(&log.debug)}),
            );
        }
        if let Some(r) = &spec.ran {
            m.insert("$ran".into(), json!(r));
        }
        if let Some(r) = &spec.not_ran {
            m.insert("$not_ran".into(), json!(r));
        }
        if let Some(e) = &spec.error {
            m.insert("$error".into(), e.clone());
        }
    }
    v
}

/// Why a `$held` step failed: the failure's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum NotHeld {
    /// An event other than `tool.check` answered otherwise than its twin.
    #[error("the answer differs from the same step with no user-tier hooks")]
    Differs,
    /// A `tool.check` answer that drops or loosens the twin's held verdict.
    #[error("the held verdict was not returned whole")]
    NotWhole,
}

/// `$held` (SCENARIOS.md): for `tool.check`, when the twin's verdict holds (a deny, or
/// an ask naming `rule`, `hook`, `setting`, `ceiling` or `decider`), the answer must
/// equal it unless the answer is stricter; other events must answer equally.
fn judge_held(event: &str, answer: &Answer, twin: &Answer) -> Result<(), NotHeld> {
    if event != events::names::TOOL_CHECK {
        return if answer_to_json(answer) == answer_to_json(twin) {
            Ok(())
        } else {
            Err(NotHeld::Differs)
        };
    }
    let Ok(Some(held)) = twin.as_ref().map(|t| Verdict::from_value(t)) else {
        return Ok(());
    };
    let holds =
        held.decision == Decision::Deny || (held.decision == Decision::Ask && held.names_a_cause());
    if !holds {
        return Ok(());
    }
    let got = answer.as_ref().ok().and_then(|a| Verdict::from_value(a));
    match got {
        Some(v) if v == held || v.decision > held.decision => Ok(()),
        _ => Err(NotHeld::NotWhole),
    }
}

/// The runner step that runs the engine's tool-use flow (`tool.call`, then `tool.check`
/// with the original input's rules, then the `outcome`): SCENARIOS.md "Files and the
/// tool-use flow", SPEC §1.6, §4 "Rewrites".
pub const TOOL_USE: &str = "tool.use";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Twin {
    Main,
    NoUserHooks,
    Unseated,
}

struct World {
    session: BlockingSession,
    /// What the loader found and how each loaded (the scenario's `load`).
    loaded: Option<(loader::Plan, Vec<listing::Loaded>)>,
    managed: PathBuf,
    cwd: PathBuf,
    home: PathBuf,
    ran: Arc<Mutex<Vec<String>>>,
    _temp: TempDir,
}

struct StepRun {
    answer: Answer,
    trace: Vec<TraceEntry>,
    log: Vec<LogLine>,
    ran: Vec<String>,
}

impl StepRun {
    fn answer_json(&self) -> Value {
        answer_to_json(&self.answer)
    }
    fn outcome(&self) -> Result<&Value, &str> {
        match &self.answer {
            Ok(v) => Ok(v),
            Err(e) => Err(e.failure().message_or_default()),
        }
    }
    fn lines(&self) -> Vec<(Channel, String)> {
        self.log
            .iter()
            .map(|l| (l.channel, l.text.clone()))
            .collect()
    }
}

impl World {
    fn new(loaded: &LoadedScenario, options: &RunOptions, twin: Twin) -> Result<World, SetupError> {
        let sc = &loaded.scenario;
        let temp = tempfile::tempdir().map_err(SetupError::Temp)?;
        let managed = temp.path().join("managed");
        let policy = match &options.managed {
            Some(dir) => PolicySpec::Dir(std::path::absolute(dir).unwrap_or_else(|_| dir.clone())),
            None => sc.policy.clone(),
        };
        write_policy(&policy, &loaded.file, &managed)?;
        std::fs::create_dir_all(&managed).map_err(SetupError::Temp)?;
        let (cwd, home) = match &sc.session.files {
            Some(files) => {
                let cwd = temp.path().join("cwd");
                std::fs::create_dir_all(&cwd).map_err(SetupError::Temp)?;
                write_files(files, &cwd)?;
                (cwd, PathBuf::from(&sc.session.home))
            }
            None => (
                PathBuf::from(&sc.session.cwd),
                PathBuf::from(&sc.session.home),
            ),
        };
        let facts = facts_of(sc, &cwd, &home)?;
        let [user, project, local, flag] = sc.settings.inputs().map(|(_, i)| i);
        let config = SessionConfig {
            settings: SettingsInputs {
                user,
                project,
                local,
                flag,
            },
            mode: given_mode(sc)?,
            facts,
            hook_timeout: Duration::from_millis(sc.session.hook_timeout_ms),
            tools: sc
                .session
                .tools
                .iter()
                .map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
                .collect(),
            seated: sc.seated && twin != Twin::Unseated,
            ..SessionConfig::new(&managed, &cwd, &home)
        };
        let ran = Arc::new(Mutex::new(Vec::new()));
        let host = mods::HostConfig {
            hook_timeout: config.hook_timeout,
            ..mods::HostConfig::default()
        };
        if !options.embedder_batches {
            check_workers(loaded, sc)?;
        }
        let mut workers: std::collections::HashMap<String, mods::SharedWorker> =
            std::collections::HashMap::new();
        let mut plugins = Vec::with_capacity(sc.plugins.len());
        for (i, p) in sc.plugins.iter().enumerate() {
            let strip = twin == Twin::NoUserHooks && p.tier == Tier::User;
            let listed = match &p.path {
                Some(_) => {
                    let shared = p.worker.as_ref().map(|w| {
                        workers
                            .entry(w.clone())
                            .or_insert_with(|| mods::SharedWorker::new(w))
                            .clone()
                    });
                    mod_plugin(loaded, i, p, &host, shared, strip, &ran)?
                }
                None => Listed::from(scripted_plugin(p, &ran, strip)),
            };
            plugins.push(listed);
        }
        let found = match &sc.load {
            Some(spec) => {
                let strip = twin == Twin::NoUserHooks;
                let (plan, listing) =
                    load_plugins(loaded, spec, &managed, &home, &host, strip, &ran);
                plugins.extend(listing.listed);
                Some((plan, listing.loaded))
            }
            None => None,
        };
        let session = BlockingSession::start_listed(config, plugins)?;
        for skipped in found.iter().flat_map(|(plan, _)| &plan.skipped) {
            session
                .session()
                .core()
                .engine_line(Channel::Debug, skipped.line.clone());
        }
        Ok(World {
            session,
            loaded: found,
            managed,
            cwd,
            home,
            ran,
            _temp: temp,
        })
    }

    fn cwd_str(&self) -> String {
        self.cwd.to_string_lossy().into_owned()
    }
    fn home_str(&self) -> String {
        self.home.to_string_lossy().into_owned()
    }

    /// Where the loader's plugins differ from what `load.found` and `load.skipped`
    /// expect.
    fn load_failures(&self, sc: &Scenario) -> Vec<StepFailure> {
        let (Some(spec), Some((plan, loaded))) = (&sc.load, &self.loaded) else {
            return Vec::new();
        };
        let admissions = self.session.admissions();
        let actual_found: Vec<Value> = loaded
            .iter()
            .map(|l| {
                let admitted = admissions
                    .iter()
                    .find(|(id, _)| *id == l.found.id)
                    .is_some_and(|(_, a)| matches!(a, Ok(v) if v.get("refuse").is_none()));
                json!({
                    "id": l.found.id,
                    "tier": l.found.tier,
                    "source": l.found.copy.as_str(),
                    "loaded": l.load.is_ok(),
                    "admitted": admitted,
                    "why": l.load.as_ref().err().map(ToString::to_string),
                })
            })
            .collect();
        let actual_skipped: Vec<Value> = plan
            .skipped
            .iter()
            .map(|s| json!({"id": s.id, "line": s.line}))
            .collect();
        let mut out = Vec::new();
        let mut fail = |expected: Value, actual: Value, why: String| {
            out.push(StepFailure {
                step: None,
                expected,
                actual,
                why,
                trace: Vec::new(),
            });
        };
        if let Some(want) = &spec.found {
            let meets = want.len() == actual_found.len()
                && want.iter().zip(&actual_found).all(|(w, a)| {
                    a["id"] == w.id.as_str()
                        && a["tier"] == json!(w.tier)
                        && w.source.as_ref().is_none_or(|s| a["source"] == s.as_str())
                        && w.loaded.is_none_or(|l| a["loaded"] == l)
                        && w.admitted.is_none_or(|l| a["admitted"] == l)
                });
            if !meets {
                fail(
                    json!({"load": {"found": want}}),
                    json!(actual_found),
                    "the loader found other plugins than load.found says (in chain order)"
                        .to_owned(),
                );
            }
        }
        if let Some(want) = &spec.skipped {
            let meets = want.len() == plan.skipped.len()
                && want.iter().zip(&plan.skipped).all(|(w, a)| {
                    policy::ids_equal(&w.id, &a.id)
                        && w.line.as_ref().is_none_or(|l| a.line.contains(l.as_str()))
                });
            if !meets {
                fail(
                    json!({"load": {"skipped": want}}),
                    json!(actual_skipped),
                    "the loader skipped other ids than load.skipped says".to_owned(),
                );
            }
        }
        out
    }

    fn admission_failures(&self, sc: &Scenario) -> Vec<StepFailure> {
        let admissions = self.session.admissions();
        sc.plugins
            .iter()
            .filter_map(|p| {
                let want = p.admitted?;
                let answer = admissions
                    .iter()
                    .find(|(id, _)| *id == p.id)
                    .map(|(_, a)| a.clone())?;
                let got = matches!(&answer, Ok(v) if v.get("refuse").is_none());
                (got != want).then(|| StepFailure {
                    step: None,
                    expected: json!({"plugin": p.id, "admitted": want}),
                    actual: answer_to_json(&answer),
                    why: format!("{} was {}admitted", p.id, if got { "" } else { "not " }),
                    trace: Vec::new(),
                })
            })
            .collect()
    }

    fn step(&self, step: &Step) -> Result<Option<StepRun>, SetupError> {
        match step {
            Step::ChangePolicy(change) => {
                apply_change(&change.change_policy, &self.managed)?;
                self.session.policy_changed();
                Ok(None)
            }
            Step::Raise(raise) => Ok(Some(self.raise(raise))),
        }
    }

    fn raise(&self, raise: &RaiseStep) -> StepRun {
        self.ran.lock().clear();
        let event = crate::expect::substitute(&raise.event, &self.cwd_str(), &self.home_str());
        let core = raise
            .core
            .as_ref()
            .map(|c| crate::expect::substitute(c, &self.cwd_str(), &self.home_str()));
        let result = if raise.raise == TOOL_USE {
            // SCENARIOS.md "Files and the tool-use flow": the engine's flow for one call.
            match (
                &raise.from,
                serde_json::from_value::<events::ToolCall>(event),
            ) {
                (None, Ok(call)) => {
                    let used = self.session.tool_use(call);
                    Ok((Ok(used.to_value().into()), used.trace))
                }
                (None, Err(why)) => Ok((
                    Err(fnhooks::ChainError::new(
                        FailureKind::Error,
                        format!("tool.use is a call {{tool, input, tool_use_id}}: {why}"),
                    )),
                    Vec::new(),
                )),
                (Some(from), _) => Ok((
                    Err(fnhooks::ChainError::new(
                        FailureKind::Error,
                        format!("tool.use is the engine's flow; {from} cannot raise it"),
                    )),
                    Vec::new(),
                )),
            }
        } else if raise.raise == events::names::PLUGIN_REGISTER && raise.from.is_none() {
            match event.get("plugin").and_then(Value::as_str) {
                Some(id) => self.session.reload(id).map(|a| (a, Vec::new())),
                None => Ok((
                    Err(fnhooks::ChainError::new(
                        FailureKind::Error,
                        "plugin.register names no plugin",
                    )),
                    Vec::new(),
                )),
            }
        } else {
            self.session
                .raise_traced(
                    SessionRaise::new(Event::from_value(raise.raise.clone(), event))
                        .from(raise.from.as_deref())
                        .core_answer(core),
                )
                .map(|Raised { answer, trace }| (answer, trace))
        };
        let (answer, trace) = result.unwrap_or_else(|e| {
            (
                Err(fnhooks::ChainError::new(FailureKind::Error, e.to_string())),
                Vec::new(),
            )
        });
        let log = self.session.take_log();
        let ran = std::mem::take(&mut *self.ran.lock());
        StepRun {
            answer,
            trace,
            log,
            ran,
        }
    }
}

/// The mode the scenario's session was given (`session.mode`); `None`: none given
/// (SCENARIOS.md defaults, SPEC §4 "Mode at start").
fn given_mode(sc: &Scenario) -> Result<Option<permissions::Mode>, SetupError> {
    sc.session
        .mode
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(|e: permissions::ParseNameError| SetupError::Session {
            pointer: "/session/mode".to_owned(),
            message: e.to_string(),
        })
}

fn facts_of(sc: &Scenario, cwd: &Path, home: &Path) -> Result<SessionFacts, SetupError> {
    let bad = |field: &str, e: String| SetupError::Session {
        pointer: format!("/session/{field}"),
        message: e,
    };
    Ok(SessionFacts {
        // Not read: the session starts in the mode `given_mode` and the settings
        // resolve to (SPEC §4 "Mode at start").
        mode: permissions::Mode::Default,
        loop_kind: sc
            .session
            .r#loop
            .parse()
            .map_err(|e: permissions::ParseNameError| bad("loop", e.to_string()))?,
        host: sc
            .session
            .host
            .parse()
            .map_err(|e: permissions::ParseNameError| bad("host", e.to_string()))?,
        interactive: sc.session.interactive,
        cwd: cwd.to_path_buf(),
        home: home.to_path_buf(),
        env: None,
    })
}

/// A mod by `path` (SCENARIOS.md "Mods", SPEC §6): its folder (relative to the scenario
/// file) loaded and compiled, listed as a module that `register(on, options)` activates
/// once `plugin.register` admitted it. A folder that does not load is bad input unless
/// the entry says `"admitted": false`: then it is listed as refused, with its line. With
/// `strip_hooks` (the `$held` twin's user tier) it is listed with no hooks.
///
/// # Errors
///
/// [`SetupError::Mod`] naming the folder and the reason.
fn mod_plugin(
    loaded: &LoadedScenario,
    i: usize,
    spec: &crate::format::PluginSpec,
    host: &mods::HostConfig,
    shared: Option<mods::SharedWorker>,
    strip_hooks: bool,
    ran: &Arc<Mutex<Vec<String>>>,
) -> Result<Listed, SetupError> {
    let path = spec.path.as_deref().unwrap_or_default();
    let folder = loaded
        .file
        .parent()
        .map_or_else(|| PathBuf::from(path), |d| d.join(path));
    let name = |manifest: Option<&str>| {
        spec.name
            .clone()
            .or_else(|| manifest.map(ToOwned::to_owned))
            .unwrap_or_else(|| spec.manifest_name().to_owned())
    };
    let info = |name: String| PluginInfo {
        id: spec.id.clone(),
        name,
        tier: spec.tier,
        worker: spec.worker.clone(),
        source: Some(spec.copy_source()),
    };
    let refused = |message: String| {
        if spec.admitted == Some(false) {
            Ok(Listed::unloadable(info(name(None)), message.clone()))
        } else {
            Err(SetupError::Mod {
                pointer: format!("{}/plugins/{i}/path", loaded.pointer()),
                message,
            })
        }
    };
    let source = match mods::load_folder(&folder) {
        Ok(s) => s,
        Err(e) => return refused(e.to_string()),
    };
    let info = info(name(Some(&source.manifest.name)));
    if strip_hooks {
        return Ok(Listed::from(Plugin::new(info)));
    }
    let options = spec.options.clone().unwrap_or_default();
    let (ran, id) = (Arc::clone(ran), spec.id.clone());
    let plugin = match mods::ModPlugin::new(source, &options, host.clone()) {
        Ok(p) => {
            let p = p.observed(move || note_ran(&ran, &id));
            match shared {
                Some(w) => p.in_worker(w),
                None => p,
            }
        }
        Err(e) => return refused(format!("{}: {e}", folder.display())),
    };
    Ok(Listed::module(info, Arc::new(listing::ModModule(plugin))))
}

/// The plugins the loader finds for the scenario's `load` (SPEC §6
/// "Loading"), loaded: the managed settings read from `managed` (as [`loader::managed_settings`] reads them: fail closed), the scenario's settings
/// sources, relative paths from the scenario file's folder. With `strip_user` (the
/// `$held` twin), a person's are listed with no hooks.
fn load_plugins(
    loaded: &LoadedScenario,
    spec: &crate::format::LoadSpec,
    managed: &Path,
    home: &Path,
    host: &mods::HostConfig,
    strip_user: bool,
    ran: &Arc<Mutex<Vec<String>>>,
) -> (loader::Plan, listing::Listing) {
    let base = loaded
        .file
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let managed_map = loader::managed_settings(&policy::read_policy(
        &policy::ManagedLocation::Explicit(managed.to_path_buf()),
    ));
    let sources: Vec<(&'static str, Map<String, Value>)> = loaded
        .scenario
        .settings
        .inputs()
        .into_iter()
        .map(|(name, input)| (name, input.read().unwrap_or_default()))
        .collect();
    let person: Vec<loader::PersonSettings<'_>> = sources
        .iter()
        .map(|(name, settings)| loader::PersonSettings {
            source: name,
            settings,
            base: &base,
        })
        .collect();
    let plugin_dirs: Vec<PathBuf> = spec.plugin_dirs.iter().map(|d| base.join(d)).collect();
    let empty_root = base.join(".no-plugin-root");
    let plugin_root = spec
        .plugin_root
        .as_ref()
        .map_or(empty_root, |r| base.join(r));
    let inputs = loader::Inputs {
        managed: &managed_map,
        managed_base: &base,
        person: &person,
        plugin_dirs: &plugin_dirs,
        plugin_root: &plugin_root,
        home,
    };
    let plan = loader::plan(&inputs);
    let observe = |found: &loader::Found, plugin: mods::ModPlugin| {
        let (ran, id) = (Arc::clone(ran), found.id.clone());
        plugin.observed(move || note_ran(&ran, &id))
    };
    let mut listing = listing::list_with(&plan, &inputs, host, &observe);
    if strip_user {
        for (listed, l) in listing.listed.iter_mut().zip(&listing.loaded) {
            if l.found.tier == Tier::User {
                *listed = Listed::from(Plugin::new(listed.info.clone()));
            }
        }
    }
    (plan, listing)
}

/// A plugin whose hooks behave as the scenario scripts them (SCENARIOS.md
/// "Behaviours"). With `strip_hooks`, the plugin is listed with no hooks (the `$held`
/// twin's user tier).
#[must_use]
pub fn scripted_plugin(
    spec: &crate::format::PluginSpec,
    ran: &Arc<Mutex<Vec<String>>>,
    strip_hooks: bool,
) -> Plugin {
    let info = PluginInfo {
        id: spec.id.clone(),
        name: spec.manifest_name().to_owned(),
        tier: spec.tier,
        worker: spec.worker.clone(),
        source: Some(spec.copy_source()),
    };
    let mut plugin = Plugin::new(info);
    if strip_hooks {
        return plugin;
    }
    for h in &spec.hooks {
        let mut reg = Registration::on(
            &h.on,
            behaviour_hook(h.do_.clone(), spec.id.clone(), Arc::clone(ran)),
        );
        if let Some(f) = &h.filter {
            reg = reg.filter(f.clone());
        }
        if let Some(c) = &h.catch {
            reg = reg.catch(behaviour_hook(c.clone(), spec.id.clone(), Arc::clone(ran)));
        }
        plugin = plugin.with(reg);
    }
    plugin
}

thread_local! {
    static SCRIPTED_PANIC: Cell<bool> = const { Cell::new(false) };
}

/// Keeps the panics of scripted `panic` behaviours off stderr (the engine catches them;
/// they are expected). Every other panic is reported as usual.
fn quiet_scripted_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !SCRIPTED_PANIC.with(|c| c.replace(false)) {
                previous(info);
            }
        }));
    });
}

/// Records that plugin `id` ran in this step (SCENARIOS.md `$ran`), once.
fn note_ran(ran: &Mutex<Vec<String>>, id: &str) {
    let mut r = ran.lock();
    if !r.iter().any(|x| x == id) {
        r.push(id.to_owned());
    }
}

fn behaviour_hook(
    b: Behaviour,
    id: String,
    ran: Arc<Mutex<Vec<String>>>,
) -> impl Fn(Cx, Event, Next) -> futures::future::BoxFuture<'static, fnhooks::HookResult>
       + Send
       + Sync
       + 'static {
    move |_cx: Cx, e: Event, next: Next| {
        note_ran(&ran, &id);
        let b = b.clone();
        Box::pin(async move { run_behaviour(b, e, next).await })
    }
}

async fn run_behaviour(b: Behaviour, e: Event, next: Next) -> fnhooks::HookResult {
    match b {
        Behaviour::Pass => Ok(next.run(e).await?),
        Behaviour::Answer(v) => Ok(v.into()),
        Behaviour::Replace(v) => {
            next.run(e).await?;
            Ok(v.into())
        }
        Behaviour::Patch(fields) => {
            let mut answer = next.run(e).await?;
            let Some(obj) = answer.as_object_mut() else {
                return Err(HookError::Failed(HookFailure::new(
                    FailureKind::InvalidAnswer,
                    "patch: the answer from next is not an object",
                )));
            };
            patch(obj, &fields);
            Ok(answer)
        }
        Behaviour::Hand(fields) => {
            let mut e = e;
            for (k, v) in fields {
                e.fields_mut().insert(k, v);
            }
            Ok(next.run(e).await?)
        }
        Behaviour::Drop(fields) => {
            let mut e = e;
            for k in &fields {
                e.fields_mut().remove(k);
            }
            Ok(next.run(e).await?)
        }
        Behaviour::SkipTo(tier) => Ok(next.to(e, tier).await?),
        Behaviour::Fail(message) => Err(HookError::Failed(HookFailure::new(
            FailureKind::Error,
            message,
        ))),
        Behaviour::FailAfterNext(message) => {
            next.run(e).await?;
            Err(HookError::Failed(HookFailure::new(
                FailureKind::Error,
                message,
            )))
        }
        Behaviour::Panic(message) => {
            SCRIPTED_PANIC.with(|c| c.set(true));
            #[expect(
                clippy::panic,
                reason = "the `panic` behaviour panics on purpose: the engine must catch it"
            )]
            std::panic::panic_any(message)
        }
        Behaviour::Hang => futures::future::pending().await,
    }
}

fn patch(obj: &mut Map<String, Value>, fields: &Map<String, Value>) {
    for (k, v) in fields {
        if v.is_null() {
            obj.remove(k);
        } else {
            obj.insert(k.clone(), v.clone());
        }
    }
}
