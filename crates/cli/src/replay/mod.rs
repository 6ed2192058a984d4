//! `sec-default replay TRANSCRIPT|FOLDER...`: every tool call of real
//! sessions replayed through a session with the given policy, as the engine makes a
//! call (`tool.call`, then `tool.check`, SPEC §1.6), so that a person's plugins'
//! rewrites and the security default's holds count; with `--against DIR`, the same
//! calls under a second policy (a backtest).
//!
//! Each call is judged in the working folder and mode its transcript records (SPEC
//! §4): one session per (working folder, mode, loop), kept while the replay runs. A
//! working folder that does not exist on this machine leaves globs and paths in it
//! unresolved, so they are uncertain (SPEC §4 "What the core cannot see").

mod report;
pub(crate) mod transcript;

use crate::args::MachineInputs;
use crate::audit::person::PersonMods;
use crate::audit::AuditSource;
use crate::error::CliError;
use crate::out;
use permissions::{Loop, Mode, RuleSet, SettingsSource};
use policy::{ManagedLocation, Policy, PolicyError};
use report::{Judged, Report};
use session::{
    BlockingSession, DecisionLog, DecisionRecord, DecisionSink, HookRunner, SessionConfig,
    SettingsInput, SettingsInputs,
};
use std::collections::{HashMap, VecDeque};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use transcript::{Call, Item, Seen};

/// Where the person's settings rules are written: (behavior, rule) → (file, line).
pub(crate) type Origins = HashMap<(String, String), (String, Option<usize>)>;

/// An error of the replay as the command reports it (boxed: it is large).
type Failed = Box<CliError>;

fn failed_parsed(message: String, file: &Path, code: u8) -> Failed {
    Box::new(CliError::parsed(message, file, code))
}

fn failed_new(file: Option<&Path>, reason: impl Into<String>, code: u8) -> Failed {
    Box::new(CliError::new(file, reason, code))
}

fn failed_from_policy(e: &PolicyError) -> Failed {
    Box::new(CliError::from_policy(e))
}

/// A path as the report and errors print it: control and bidirectional characters
/// escaped (a file name is anybody's to choose).
fn shown_path(p: &Path) -> String {
    crate::text::escape(&p.display().to_string())
}

/// The most sessions kept at once (one per working folder, mode and loop); past it they
/// are all started afresh.
const MAX_SESSIONS: usize = 64;

/// The most calls waiting for their result before the oldest is taken as having none
/// (a transcript whose calls never get results must not be held in memory whole).
const MAX_PENDING: usize = 10_000;

/// The most bytes of lines the calls waiting for their result may hold (64 MiB).
const MAX_PENDING_BYTES: usize = 64 << 20;

/// The working folder of a call whose transcript records none.
const UNKNOWN_CWD: &str = "/unknown-working-folder";

/// How deep a folder is searched for transcripts.
const MAX_DEPTH: usize = 64;

/// What `replay` reads.
#[derive(Debug, Clone)]
pub(crate) struct ReplayArgs {
    /// Transcripts, folders of them, or `-` (standard input).
    pub paths: Vec<PathBuf>,
    /// The managed folder (the platform folder unless `--managed` or `--example`), a
    /// user settings file (default: none; the person's own are not this machine's), a
    /// settings file given as `--settings` (the flag source) whose `enabledPlugins`
    /// name a person's plugins, a person's mod folders, and how classic hooks run (by
    /// default: not at all).
    pub machine: MachineInputs,
    /// A second managed folder: the calls whose verdict differs under it.
    pub against: Option<PathBuf>,
    /// Append every decision to this hash-chained decision log.
    pub log: Option<PathBuf>,
    /// JSON lines: one per call, then one summary.
    pub json: bool,
}

/// The policy, the settings and the person's plugins every session of one side of the
/// replay starts with, and the sessions started so far.
struct Judge {
    folder: PathBuf,
    settings: SettingsInputs,
    person: PersonMods,
    hooks: HookRunner,
    capture: Arc<Capture>,
    sessions: HashMap<(String, Option<Mode>, bool), BlockingSession>,
    /// Where the person's settings rules are written: (behavior, rule) → (file, line).
    origins: Arc<Origins>,
    machine_home: PathBuf,
    /// How the managed folder is shown when it is not where its files are read
    /// (`--example`: a temporary copy of `examples/managed`).
    shown: Option<(String, String)>,
}

/// The sink of one side's decisions: the last record (for the report), handed on to the
/// decision log with the transcript's session id.
struct Capture {
    last: Mutex<Option<DecisionRecord>>,
    session: Mutex<Arc<str>>,
    log: Option<Arc<DecisionLog>>,
}

impl DecisionSink for Capture {
    fn record(&self, mut decision: DecisionRecord) {
        if let Some(log) = &self.log {
            if let Ok(s) = self.session.lock() {
                decision.session = Arc::clone(&s);
            }
            log.record(decision.clone());
        }
        if let Ok(mut last) = self.last.lock() {
            *last = Some(decision);
        }
    }
}

impl Judge {
    /// The session for a call's working folder, mode and loop, started when first
    /// needed.
    fn session(
        &mut self,
        cwd: &str,
        mode: Option<Mode>,
        subagent: bool,
    ) -> Result<&BlockingSession, String> {
        let key = (cwd.to_owned(), mode, subagent);
        if !self.sessions.contains_key(&key) {
            if self.sessions.len() >= MAX_SESSIONS {
                self.sessions.clear();
            }
            let cwd_path = posix_cwd(cwd);
            let home = home_of(&cwd_path).unwrap_or_else(|| self.machine_home.clone());
            let mut config = SessionConfig {
                settings: self.settings.clone(),
                mode,
                hook_runner: self.hooks,
                decisions: Some(Arc::clone(&self.capture) as Arc<dyn DecisionSink>),
                // The policy replayed is the one read when the session starts: a replay
                // of a month of sessions does not read the folder again every second.
                memo_window: std::time::Duration::from_secs(24 * 3600),
                ..SessionConfig::new(&self.folder, &cwd_path, &home)
            };
            if subagent {
                config.facts.loop_kind = Loop::Subagent;
            }
            let session = BlockingSession::start_listed(config, self.person.listed())
                .map_err(|e| e.to_string())?;
            self.sessions.insert(key.clone(), session);
        }
        self.sessions
            .get(&key)
            .ok_or_else(|| "the session could not be kept".to_owned())
    }

    /// The verdict of `call`: each engine call it stands for made through the session of
    /// its folder and mode, the strictest kept.
    fn judge(&mut self, call: &Call) -> Judged {
        let (mode, mode_note) = mode_of(call.mode.as_deref());
        // A call whose transcript records no folder is judged in one that exists
        // nowhere: its relative paths and globs never resolve against this machine.
        let cwd = call.cwd.as_deref().unwrap_or(UNKNOWN_CWD).to_owned();
        if let Ok(mut s) = self.capture.session.lock() {
            *s = Arc::clone(&call.session);
        }
        let origins = Arc::clone(&self.origins);
        let capture = Arc::clone(&self.capture);
        let subagent = call.agent.is_some();
        let parts = call.parts();
        let many = parts.len() > 1;
        let session = match self.session(&cwd, mode, subagent) {
            Ok(s) => s,
            Err(why) => return Judged::failed(format!("the session could not start: {why}")),
        };
        let facts_mode = session.session().core().facts().mode;
        let mut best: Option<Judged> = None;
        for (n, (tool, input)) in parts.into_iter().enumerate() {
            let id = if call.id.is_empty() {
                format!("{}:{}", call.file, call.line)
            } else if many {
                format!("{}#{n}", call.id)
            } else {
                call.id.clone()
            };
            let used = session.tool_use(events::ToolCall::new(tool, input.clone(), id));
            let record = capture.last.lock().ok().and_then(|mut l| l.take());
            let j = Judged::from_use(&used, record.as_ref(), &origins, n, facts_mode);
            let stricter = best
                .as_ref()
                .is_none_or(|b| j.verdict.decision > b.verdict.decision);
            if stricter {
                best = Some(j);
            }
        }
        let mut j =
            best.unwrap_or_else(|| Judged::failed("the call stands for no engine call".to_owned()));
        j.mode_note = mode_note;
        if mode.is_some_and(|m| Some(m) != j.mode) && j.mode.is_some() {
            j.mode_refused = mode;
        }
        if let (Some((real, shown)), Some(file)) = (&self.shown, &mut j.rule_file) {
            if let Some(rest) = file.strip_prefix(real.as_str()) {
                *file = format!("{shown}{rest}");
            }
        }
        j
    }
}

/// The mode a recorded mode names (SPEC §4 modes; Codex's approval policy read as the
/// closest mode), and a note when it names none.
fn mode_of(recorded: Option<&str>) -> (Option<Mode>, Option<String>) {
    let Some(text) = recorded else {
        return (None, None);
    };
    if let Some(codex) = text.strip_prefix("codex ") {
        // Codex never asks under approval_policy=never; with no sandbox either, that is
        // bypassPermissions. Every other policy asks as `default` does.
        let never = codex.contains("approval_policy=never");
        let open = codex.contains("sandbox=danger-full-access");
        let m = if never && open {
            Mode::BypassPermissions
        } else {
            Mode::Default
        };
        return (Some(m), None);
    }
    match text.parse::<Mode>() {
        Ok(m) => (Some(m), None),
        Err(_) => (
            None,
            Some(format!(
                "the transcript's mode {text:?} is no permission mode; judged in the mode the settings start a session in"
            )),
        ),
    }
}

/// A recorded working folder as a path of this machine: a Windows path
/// (`C:\Users\dev\x`) becomes `/C:/Users/dev/x`, which exists nowhere here, so its
/// paths are uncertain as SPEC §4 says; a relative one is put under `/`.
fn posix_cwd(cwd: &str) -> PathBuf {
    let windows = cwd.as_bytes().get(1) == Some(&b':') || cwd.starts_with("\\\\");
    if windows {
        let slashed = cwd.replace('\\', "/");
        let trimmed = slashed.trim_start_matches('/');
        return PathBuf::from(format!("/{trimmed}"));
    }
    if cwd.starts_with('/') {
        PathBuf::from(cwd)
    } else {
        PathBuf::from("/").join(cwd)
    }
}

/// The home folder a working folder shows (`/home/<u>`, `/Users/<u>`, `/C:/Users/<u>`,
/// `/root`): `~` in the session's calls is that person's home, not this machine's.
fn home_of(cwd: &Path) -> Option<PathBuf> {
    let parts: Vec<&std::ffi::OsStr> = cwd.iter().collect();
    let text = |i: usize| parts.get(i).and_then(|p| p.to_str());
    match (text(1), text(2), text(3)) {
        (Some("home" | "Users"), Some(user), _) => {
            Some(PathBuf::from("/").join(text(1)?).join(user))
        }
        (Some(drive), Some(users), Some(user))
            if drive.ends_with(':') && users.eq_ignore_ascii_case("users") =>
        {
            Some(PathBuf::from("/").join(drive).join(users).join(user))
        }
        (Some("root"), _, _) => Some(PathBuf::from("/root")),
        _ => None,
    }
}

/// Where the rules of the person's settings files are written, by (behavior, rule).
fn person_origins(reads: &[(SettingsSource, PathBuf, Option<policy::json::JsonDoc>)]) -> Origins {
    let mut out = HashMap::new();
    for (source, path, doc) in reads {
        let Some(doc) = doc else { continue };
        let refs = [(*source, &doc.value)];
        let (rules, _) = RuleSet::from_sources(&refs);
        let pointers: Vec<String> = rules
            .rules()
            .iter()
            .map(|r| format!("/permissions/{}/{}", r.behavior.as_str(), r.index))
            .collect();
        let wanted: Vec<&str> = pointers.iter().map(String::as_str).collect();
        let positions = doc.positions_of(&wanted);
        for (r, p) in rules.rules().iter().zip(&pointers) {
            out.entry((r.behavior.as_str().to_owned(), r.text.clone()))
                .or_insert_with(|| (path.display().to_string(), positions.get(p).map(|x| x.line)));
        }
    }
    out
}

/// One settings file named on the command line, read as a session reads it.
fn read_settings(path: &Path) -> Result<(SettingsInput, Option<policy::json::JsonDoc>), Failed> {
    let bytes = policy::json::read_bounded(path).map_err(|e| {
        failed_parsed(
            format!("{}: cannot be read: {e}", shown_path(path)),
            path,
            crate::EXIT_BAD_INPUT,
        )
    })?;
    match policy::json::parse(&bytes) {
        Ok(doc) if doc.value.is_object() => {
            Ok((SettingsInput::Value(doc.value.clone()), Some(doc)))
        }
        Ok(_) => Err(failed_parsed(
            format!("{}: not a JSON object", shown_path(path)),
            path,
            crate::EXIT_BAD_INPUT,
        )),
        Err(e) => Err(failed_parsed(
            format!(
                "{}:{}:{}: not JSON ({})",
                shown_path(path),
                e.at.line,
                e.at.column,
                e.message
            ),
            path,
            crate::EXIT_BAD_INPUT,
        )),
    }
}

/// The transcripts `paths` name, in order, each once: a file (one that cannot be read
/// is listed too, and reported as no transcript), and beside a session file its
/// `<session>/subagents/agent-*.jsonl`; every `*.jsonl` under a folder (symbolic links
/// to folders are not followed, nor folders deeper than [`MAX_DEPTH`]: each such
/// folder is named in the notes); `-` for standard input.
fn transcripts(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut notes = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |p: PathBuf, out: &mut Vec<PathBuf>| {
        let key = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        if seen.insert(key) {
            out.push(p);
        }
    };
    for p in paths {
        if p.as_os_str() != "-" && p.is_dir() {
            let mut found = Vec::new();
            walk(p, 0, &mut found, &mut notes);
            found.sort();
            for f in found {
                push(f, &mut out);
            }
            continue;
        }
        push(p.clone(), &mut out);
        if let (Some(parent), Some(stem)) = (p.parent(), p.file_stem()) {
            let sub = parent.join(stem).join("subagents");
            let mut found: Vec<PathBuf> = std::fs::read_dir(&sub)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("agent-") && n.ends_with(".jsonl"))
                })
                .collect();
            found.sort();
            for f in found {
                push(f, &mut out);
            }
        }
    }
    (out, notes)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, notes: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if depth + 1 >= MAX_DEPTH {
                notes.push(format!(
                    "{}: more than {MAX_DEPTH} folders deep; not searched",
                    shown_path(&path)
                ));
            } else {
                walk(&path, depth + 1, out, notes);
            }
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
}

/// The policy of a managed folder named on the command line: it must exist; an
/// unreadable one counts as in force (fail closed: its sessions deny every call).
fn read_managed(flag: &str, dir: &Path) -> Result<Result<Policy, PolicyError>, Failed> {
    if !dir.is_dir() {
        return Err(failed_parsed(
            format!(
                "{}: the {flag} folder given does not exist or is not a folder",
                shown_path(dir)
            ),
            dir,
            crate::EXIT_BAD_INPUT,
        ));
    }
    let read = policy::read_policy(&ManagedLocation::Explicit(dir.to_path_buf()));
    if let Err(e) = &read {
        if !e.is_fail_closed() {
            return Err(failed_from_policy(e));
        }
    }
    Ok(read)
}

/// Runs `replay`. Exit 0 with the report (bad lines counted in it); 2 bad
/// input (a path that cannot be read, a file of no known transcript format: the others
/// are still replayed); 3 a managed policy cannot be read (it counts as in force).
pub(crate) fn run(args: &ReplayArgs) -> u8 {
    match run_inner(args) {
        Ok(code) => code,
        Err(e) => out::fail("replay", &e, args.json),
    }
}

fn run_inner(args: &ReplayArgs) -> Result<u8, Failed> {
    let machine_home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
    let (files, walk_notes) = transcripts(&args.paths);
    if files.is_empty() {
        let shown = args
            .paths
            .iter()
            .map(|p| shown_path(p))
            .collect::<Vec<_>>()
            .join(", ");
        return Err(failed_new(
            None,
            format!("no transcript (*.jsonl) in {shown}"),
            crate::EXIT_BAD_INPUT,
        ));
    }
    // The platform folder may not exist: then the engine reads an empty policy there.
    let empty = crate::source::TempFolder::empty()
        .map_err(|e| failed_new(None, e, crate::EXIT_BAD_INPUT))?;
    // The example written out for the replay's run, with `--example`.
    let mut example = None;
    let (folder, policy_read, policy_name) = match &args.machine.policy {
        AuditSource::Folder(dir) => (
            dir.clone(),
            read_managed("--managed", dir)?,
            shown_path(dir),
        ),
        AuditSource::Embedded => {
            let t = example.insert(
                crate::source::TempFolder::example()
                    .map_err(|e| failed_new(None, e, crate::EXIT_BAD_INPUT))?,
            );
            (
                t.path().to_path_buf(),
                read_managed("--example", t.path())?,
                "examples/managed".to_owned(),
            )
        }
        AuditSource::Platform(platform) => {
            if platform.is_dir() {
                let read = read_managed("--managed", platform)?;
                let name = shown_path(platform);
                (platform.clone(), read, name)
            } else {
                let name = format!(
                    "no managed policy ({} does not exist: the engine reads an empty policy)",
                    shown_path(platform)
                );
                (empty.path().to_path_buf(), Ok(Policy::empty()), name)
            }
        }
    };
    let against = match &args.against {
        Some(dir) => Some((dir.clone(), read_managed("--against", dir)?)),
        None => None,
    };

    let mut reads = Vec::new();
    let mut settings = SettingsInputs::default();
    if let Some(p) = &args.machine.user {
        let (input, doc) = read_settings(p)?;
        settings.user = input;
        reads.push((SettingsSource::User, p.clone(), doc));
    }
    if let Some(p) = &args.machine.person.settings {
        let (input, doc) = read_settings(p)?;
        settings.flag = input;
        reads.push((SettingsSource::Flag, p.clone(), doc));
    }
    let origins = Arc::new(person_origins(&reads));
    let inputs = &args.machine.person;
    let managed_settings = loader::managed_settings(&policy_read);
    let mut person = PersonMods::read(inputs, &managed_settings, &folder)
        .map_err(|e| failed_new(None, e, crate::EXIT_BAD_INPUT))?;
    if inputs.is_empty() {
        // The loader's lines are about the person's plugins; with none named they
        // would only speak of the policy's own.
        person.lines.clear();
    }

    let log = match &args.log {
        None => None,
        Some(path) => Some(Arc::new(DecisionLog::create(path).map_err(|e| {
            failed_parsed(
                format!(
                    "{}: the decision log cannot be opened: {e}",
                    shown_path(path)
                ),
                path,
                crate::EXIT_BAD_INPUT,
            )
        })?)),
    };
    let shown = example.as_ref().map(|t| {
        (
            t.path().display().to_string(),
            "examples/managed".to_owned(),
        )
    });
    let judge_for = |folder: PathBuf, log: Option<Arc<DecisionLog>>| Judge {
        shown: shown.clone(),
        folder,
        settings: settings.clone(),
        person: person.clone(),
        hooks: args.machine.hooks,
        capture: Arc::new(Capture {
            last: Mutex::new(None),
            session: Mutex::new(Arc::from("")),
            log,
        }),
        sessions: HashMap::new(),
        origins: Arc::clone(&origins),
        machine_home: machine_home.clone(),
    };
    let mut judge = judge_for(folder.clone(), log.clone());
    let mut other = against
        .as_ref()
        .map(|(dir, _)| judge_for(dir.clone(), None));

    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let bar = progress(total);
    let stdout = std::io::stdout();
    let mut report = Report::new(
        args.json,
        Box::new(std::io::BufWriter::with_capacity(1 << 16, stdout.lock())),
        (&policy_name, &folder, &policy_read),
        against.as_ref().map(|(d, r)| (d.as_path(), r)),
        &person,
        walk_notes,
    );
    let mut done_bytes = 0;
    for file in &files {
        let shown = file.display().to_string();
        let stem = file
            .file_stem()
            .map_or_else(|| shown.clone(), |s| s.to_string_lossy().into_owned());
        let reader: Box<dyn BufRead> = if file.as_os_str() == "-" {
            Box::new(std::io::BufReader::with_capacity(1 << 16, std::io::stdin()))
        } else {
            match open_regular(file) {
                Ok(f) => Box::new(std::io::BufReader::with_capacity(1 << 16, f)),
                Err(why) => {
                    report.not_a_transcript(&shown, &why);
                    continue;
                }
            }
        };
        let shown = if file.as_os_str() == "-" {
            "<stdin>".to_owned()
        } else {
            shown
        };
        replay_file(
            reader,
            &shown,
            &stem,
            &mut judge,
            other.as_mut(),
            &mut report,
            &bar,
            done_bytes,
        );
        done_bytes += std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        if report.closed() {
            break;
        }
    }
    bar.finish_and_clear();
    if let Some(l) = &log {
        let flushed = l.flush().err().map(|e| e.to_string());
        if let Some(e) = l.error().or(flushed) {
            let path = args.log.clone().unwrap_or_default();
            return Err(failed_parsed(
                format!(
                    "{}: the decision log cannot be written: {e}",
                    shown_path(&path)
                ),
                &path,
                crate::EXIT_BAD_INPUT,
            ));
        }
    }
    // A policy that cannot be read is the graver news: it is told first.
    let code = if policy_read.is_err() || against.as_ref().is_some_and(|(_, r)| r.is_err()) {
        crate::EXIT_POLICY_UNREADABLE
    } else if report.unknown_files() > 0 {
        crate::EXIT_BAD_INPUT
    } else {
        crate::EXIT_OK
    };
    match report.finish() {
        Ok(()) => Ok(code),
        Err(e) => Ok(out::after_write_error(&e, code, "replay")),
    }
}

/// A transcript opened for reading with the bounded opener (SPEC §2.1 "Reading never
/// hangs"): non-blocking, checked on the opened file (a FIFO or a device is no
/// transcript: it could hang the replay or never end); its lines are capped by the
/// reader ([`transcript::MAX_LINE_BYTES`]), not its size.
fn open_regular(path: &Path) -> Result<boundedfs::BoundedFile, String> {
    boundedfs::open_regular(path).map_err(|e| match e.reason {
        boundedfs::Reason::NotRegular(kind) => format!("it is {kind}, not a regular file"),
        reason => format!("it cannot be read: {reason}"),
    })
}

/// A progress bar on standard error when it is a terminal (the bytes read of all
/// transcripts); hidden when piped.
fn progress(total: u64) -> indicatif::ProgressBar {
    crate::progress_bar(total, "replay {bar:30} {bytes}/{total_bytes} {msg} ({eta})")
}

/// One call waiting for its result.
struct Pending {
    call: Box<Call>,
    judged: Judged,
    against: Option<Judged>,
    seen: Option<Seen>,
}

/// Replays one transcript into `report`.
#[allow(clippy::too_many_arguments)]
fn replay_file(
    reader: Box<dyn BufRead>,
    shown: &str,
    stem: &str,
    judge: &mut Judge,
    mut other: Option<&mut Judge>,
    report: &mut Report,
    bar: &indicatif::ProgressBar,
    done_bytes: u64,
) {
    let mut r = transcript::Reader::new(reader, shown, stem);
    let mut items = Vec::new();
    let mut pending: VecDeque<Pending> = VecDeque::new();
    let mut first_seq = 0u64;
    let mut by_id: HashMap<String, u64> = HashMap::new();
    let mut pending_bytes = 0usize;
    let mut orphans = 0u64;
    let mut lines = 0u64;
    loop {
        items.clear();
        match r.next_items(&mut items) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                report.not_a_transcript(shown, &e.to_string());
                return;
            }
        }
        lines += 1;
        if lines.is_multiple_of(256) {
            bar.set_position(done_bytes + r.bytes);
            bar.set_message(format!("{} calls", report.calls()));
        }
        for item in items.drain(..) {
            match item {
                Item::Call(call) => {
                    let judged = judge.judge(&call);
                    let against = other.as_deref_mut().map(|o| o.judge(&call));
                    let seen = call.seen;
                    if !call.id.is_empty() && seen.is_none() {
                        by_id.insert(call.id.clone(), first_seq + pending.len() as u64);
                    }
                    pending_bytes += call.bytes;
                    pending.push_back(Pending {
                        call,
                        judged,
                        against,
                        seen,
                    });
                }
                Item::Result { id, seen } => match by_id.remove(&id) {
                    Some(seq) => {
                        let at = seq.saturating_sub(first_seq);
                        if let Some(p) = usize::try_from(at).ok().and_then(|i| pending.get_mut(i)) {
                            p.seen = Some(seen);
                        }
                    }
                    None => orphans += 1,
                },
                Item::Bad { line, why } => report.bad_line(shown, line, &why),
            }
        }
        while pending.front().is_some_and(|p| {
            p.seen.is_some() || pending.len() > MAX_PENDING || pending_bytes > MAX_PENDING_BYTES
        }) {
            if let Some(p) = pending.pop_front() {
                // Its id no longer waits, unless a later call of the same id does.
                if by_id.get(&p.call.id) == Some(&first_seq) {
                    by_id.remove(&p.call.id);
                }
                first_seq += 1;
                pending_bytes = pending_bytes.saturating_sub(p.call.bytes);
                report.call(
                    &p.call,
                    p.seen.unwrap_or(Seen::NoResult),
                    &p.judged,
                    p.against.as_ref(),
                );
            }
        }
        if report.closed() {
            return;
        }
    }
    for p in pending {
        report.call(
            &p.call,
            p.seen.unwrap_or(Seen::NoResult),
            &p.judged,
            p.against.as_ref(),
        );
    }
    if orphans > 0 {
        report.note(format!(
            "{}: {orphans} result(s) name no call before them in the file",
            crate::text::escape(shown)
        ));
    }
    report.file_done(shown, r.format().map(transcript::Format::as_str));
}

#[cfg(test)]
mod tests;
