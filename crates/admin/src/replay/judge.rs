//! Judging a replayed call as the engine makes it (`tool.call`, then `tool.check`,
//! SPEC §1.6) in a session of its transcript's working folder, mode and loop (SPEC §4),
//! started when first needed and kept while the replay runs.

use super::judged::Judged;
use super::transcript::Call;
use super::Origins;
use crate::inputs::PersonMods;
use permissions::{Loop, Mode};
use session::{
    BlockingSession, DecisionLog, DecisionRecord, DecisionSink, HookRunner, SessionConfig,
    SettingsInputs,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The most sessions kept at once (one per working folder, mode and loop); past it they
/// are all started afresh.
const MAX_SESSIONS: usize = 64;

/// The working folder of a call whose transcript records none.
const UNKNOWN_CWD: &str = "/unknown-working-folder";

/// The policy, the settings and the person's plugins every session of one side of the
/// replay starts with, and the sessions started so far.
pub(super) struct Judge {
    pub(super) folder: PathBuf,
    pub(super) settings: SettingsInputs,
    pub(super) person: PersonMods,
    pub(super) hooks: HookRunner,
    pub(super) capture: Arc<Capture>,
    pub(super) sessions: HashMap<(String, Option<Mode>, bool), BlockingSession>,
    /// Where the person's settings rules are written: (behavior, rule) → (file, line).
    pub(super) origins: Arc<Origins>,
    pub(super) machine_home: PathBuf,
    /// How the managed folder is shown when it is not where its files are read
    /// (`--example`: a temporary copy of `examples/managed`).
    pub(super) shown: Option<(String, String)>,
    /// The compiled rules every session of this side shares (one policy, one set of
    /// settings: compiled once however many folders and modes the transcripts hold).
    pub(super) rules: session::RuleCache,
}

/// The sink of one side's decisions: the last record (for the report), handed on to the
/// decision log with the transcript's session id.
pub(super) struct Capture {
    pub(super) last: Mutex<Option<DecisionRecord>>,
    pub(super) session: Mutex<Arc<str>>,
    pub(super) log: Option<Arc<DecisionLog>>,
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
    ) -> Result<&BlockingSession, session::SessionError> {
        let key = (cwd.to_owned(), mode, subagent);
        if !self.sessions.contains_key(&key) && self.sessions.len() >= MAX_SESSIONS {
            self.sessions.clear();
        }
        let entry = match self.sessions.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => return Ok(e.into_mut()),
            std::collections::hash_map::Entry::Vacant(v) => v,
        };
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
            rule_cache: self.rules.clone(),
            ..SessionConfig::new(&self.folder, &cwd_path, &home)
        };
        if subagent {
            config.facts.loop_kind = Loop::Subagent;
        }
        let session = BlockingSession::start_listed(config, self.person.listed())?;
        Ok(entry.insert(session))
    }

    /// The verdict of `call`: each engine call it stands for made through the session of
    /// its folder and mode, the strictest kept.
    pub(super) fn judge(&mut self, call: &Call) -> Judged {
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
pub(super) fn mode_of(recorded: Option<&str>) -> (Option<Mode>, Option<String>) {
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
pub(super) fn posix_cwd(cwd: &str) -> PathBuf {
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
pub(super) fn home_of(cwd: &Path) -> Option<PathBuf> {
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
