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
//!
//! | file | concern |
//! | --- | --- |
//! | `replay/mod.rs` | the run: the policies and settings read, each file replayed, the exit code |
//! | `replay/files.rs` | which transcript files the paths name |
//! | `replay/transcript.rs`, `replay/transcript/` | reading transcripts, one format per file |
//! | `replay/judge.rs` | a call judged in a session of its folder, mode and loop |
//! | `replay/judged.rs` | the verdict of one call |
//! | `replay/report.rs` | the report, collected call by call: a JSON line per call, the summary |
//! | `replay/summary.rs` | the summary as a type, and its one rendering in words |

/// The transcripts named on the command line.
mod files;
/// A call judged in a session of its folder, mode and loop.
mod judge;
/// The verdict of one call.
mod judged;
/// The report, collected call by call: its JSON lines and its summary.
mod report;
pub mod summary;
pub mod transcript;

use crate::error::CommandError;
use crate::inputs::MachineInputs;
use crate::inputs::PersonMods;
use crate::inputs::PolicySource;
use files::transcripts;
use judge::{Capture, Judge};
use judged::Judged;
use permissions::{RuleSet, SettingsSource};
use policy::{ManagedLocation, Policy, PolicyError};
use report::Report;
use session::{DecisionLog, SettingsInput, SettingsInputs};
use std::collections::{HashMap, VecDeque};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use transcript::{Call, Item, Seen};

/// Where the person's settings rules are written: (behavior, rule) → (file, line).
pub(crate) type Origins = HashMap<(String, String), (String, Option<usize>)>;

/// An error of the replay as the command reports it (boxed: it is large).
type Failed = Box<CommandError>;

fn failed_parsed(message: String, file: &Path, code: u8) -> Failed {
    Box::new(CommandError::parsed(message, file, code))
}

fn failed_new(file: Option<&Path>, reason: impl Into<String>, code: u8) -> Failed {
    Box::new(CommandError::new(file, reason, code))
}

fn failed_from_policy(e: &PolicyError) -> Failed {
    Box::new(CommandError::from_policy(e))
}

/// A path as the report and errors print it: control and bidirectional characters
/// escaped (a file name is anybody's to choose).
fn shown_path(p: &Path) -> String {
    crate::text::escape(&p.display().to_string())
}

/// The most calls waiting for their result before the oldest is taken as having none
/// (a transcript whose calls never get results must not be held in memory whole).
const MAX_PENDING: usize = 10_000;

/// The most bytes of lines the calls waiting for their result may hold (64 MiB).
const MAX_PENDING_BYTES: usize = 64 << 20;

/// What `replay` reads.
#[derive(Debug, Clone)]
pub struct ReplayRequest {
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
    /// JSON lines (one per call as it is judged, then one summary) rather than the
    /// report in words at the end.
    pub json: bool,
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
            crate::exit::BAD_INPUT,
        )
    })?;
    match policy::json::parse(&bytes) {
        Ok(doc) if doc.value.is_object() => {
            Ok((SettingsInput::Value(doc.value.clone()), Some(doc)))
        }
        Ok(_) => Err(failed_parsed(
            format!("{}: not a JSON object", shown_path(path)),
            path,
            crate::exit::BAD_INPUT,
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
            crate::exit::BAD_INPUT,
        )),
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
            crate::exit::BAD_INPUT,
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
/// How a replay ended, its report written.
#[derive(Debug)]
pub struct Replayed {
    /// 0; 2 when a file is no transcript; 3 when a managed policy cannot be read
    /// ([`crate::exit`]).
    pub exit_code: u8,
    /// Why the report could not be written to the end (the reader of standard output
    /// went away, among others); the replay stopped there.
    pub write_error: Option<std::io::Error>,
    /// What was found (what was written as the report's end).
    pub summary: summary::ReplaySummary,
}

/// Replays the transcripts `args` names under the machine it names, writing the report
/// to `out` as it goes (with `json`, one JSON line per call as it is judged, then one
/// summary line; otherwise the report in words at the end), and telling `progress` the
/// bytes of transcripts read.
///
/// # Errors
///
/// A [`CommandError`] (exit 2) when the paths hold no transcript, a settings file or
/// decision log cannot be read, opened or written, or a person's plugins cannot be
/// read; (exit 2 or 3) a managed folder whose read does not fail closed.
pub fn replay(
    args: &ReplayRequest,
    out: Box<dyn std::io::Write>,
    progress: &dyn crate::Progress,
) -> Result<Replayed, Box<CommandError>> {
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
            crate::exit::BAD_INPUT,
        ));
    }
    let managed = Managed::read(&args.machine.policy)?;
    let (folder, policy_read) = (&managed.folder, &managed.read);
    let against = match &args.against {
        Some(dir) => Some((dir.clone(), read_managed("--against", dir)?)),
        None => None,
    };
    let (settings, origins) = person_settings(args)?;
    let origins = Arc::new(origins);
    let inputs = &args.machine.person;
    let managed_settings = loader::managed_settings(policy_read);
    let mut person = PersonMods::read(inputs, &managed_settings, folder)
        .map_err(|e| failed_new(None, e.to_string(), crate::exit::BAD_INPUT))?;
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
                crate::exit::BAD_INPUT,
            )
        })?)),
    };
    let shown = managed.example.as_ref().map(|t| {
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
        rules: session::RuleCache::new(),
    };
    let mut judge = judge_for(folder.clone(), log.clone());
    let mut other = against
        .as_ref()
        .map(|(dir, _)| judge_for(dir.clone(), None));

    let mut report = Report::new(
        args.json,
        out,
        (&managed.name, folder, policy_read),
        against.as_ref().map(|(d, r)| (d.as_path(), r)),
        &person,
        walk_notes,
    );
    replay_files(&files, &mut judge, other.as_mut(), &mut report, progress);
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
                crate::exit::BAD_INPUT,
            ));
        }
    }
    // A policy that cannot be read is the graver news: it is told first.
    let code = if policy_read.is_err() || against.as_ref().is_some_and(|(_, r)| r.is_err()) {
        crate::exit::POLICY_UNREADABLE
    } else if report.unknown_files() > 0 {
        crate::exit::BAD_INPUT
    } else {
        crate::exit::OK
    };
    let (summary, write_error) = report.finish();
    Ok(Replayed {
        exit_code: code,
        write_error,
        summary,
    })
}

/// The managed policy a replay judges under, read, with the temporary folder that
/// stands in for it (kept as long as the replay runs).
struct Managed {
    /// The folder sessions read.
    folder: PathBuf,
    /// Its read.
    read: Result<Policy, PolicyError>,
    /// How the report names it.
    name: String,
    /// The example written out, with `--example`.
    example: Option<crate::source::TempFolder>,
    /// The empty folder read in place of a platform folder that does not exist.
    _empty: Option<crate::source::TempFolder>,
}

impl Managed {
    /// The policy `source` names, read: the folder given, the example written out, or
    /// the platform folder (an empty policy where it does not exist).
    ///
    /// # Errors
    ///
    /// Bad input: a temporary folder that cannot be made, a folder whose read does not
    /// fail closed.
    fn read(source: &PolicySource) -> Result<Managed, Failed> {
        let temp = |made: Result<crate::source::TempFolder, crate::source::TempFolderError>| {
            made.map_err(|e| failed_new(None, e.to_string(), crate::exit::BAD_INPUT))
        };
        Ok(match source {
            PolicySource::Folder(dir) => Managed {
                folder: dir.clone(),
                read: read_managed("--managed", dir)?,
                name: shown_path(dir),
                example: None,
                _empty: None,
            },
            PolicySource::Embedded => {
                let t = temp(crate::source::TempFolder::example())?;
                Managed {
                    folder: t.path().to_path_buf(),
                    read: read_managed("--example", t.path())?,
                    name: "examples/managed".to_owned(),
                    example: Some(t),
                    _empty: None,
                }
            }
            PolicySource::Platform(platform) if platform.is_dir() => Managed {
                folder: platform.clone(),
                read: read_managed("--managed", platform)?,
                name: shown_path(platform),
                example: None,
                _empty: None,
            },
            PolicySource::Platform(platform) => {
                let empty = temp(crate::source::TempFolder::empty())?;
                Managed {
                    folder: empty.path().to_path_buf(),
                    read: Ok(Policy::empty()),
                    name: format!(
                        "no managed policy ({} does not exist: the engine reads an empty policy)",
                        shown_path(platform)
                    ),
                    example: None,
                    _empty: Some(empty),
                }
            }
        })
    }
}

/// The settings files a replay reads for every session (`--user`, `--settings`), and
/// where their rules are written.
///
/// # Errors
///
/// Bad input: a file that cannot be read.
fn person_settings(args: &ReplayRequest) -> Result<(SettingsInputs, Origins), Failed> {
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
    Ok((settings, person_origins(&reads)))
}

/// Replays every file into `report`, telling `progress` the bytes read; stops when the
/// report can no longer be written.
fn replay_files(
    files: &[PathBuf],
    judge: &mut Judge,
    mut other: Option<&mut Judge>,
    report: &mut Report,
    progress: &dyn crate::Progress,
) {
    let total: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    progress.grow(total);
    let mut done_bytes = 0;
    for file in files {
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
                    not_a_transcript(report, progress, &shown, &why.to_string());
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
            judge,
            other.as_deref_mut(),
            report,
            progress,
            done_bytes,
        );
        done_bytes += std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        if report.closed() {
            break;
        }
    }
    progress.finish();
}

/// A file that is no transcript (exit 2), and why: in the report, and said at once to
/// whoever runs the replay.
fn not_a_transcript(report: &mut Report, progress: &dyn crate::Progress, file: &str, why: &str) {
    use crate::text::escape;
    progress.warn(&format!("{}: {}", escape(file), escape(why)));
    report.not_a_transcript(file, why);
}

/// Why a transcript cannot be opened.
#[derive(Debug, thiserror::Error)]
enum OpenError {
    /// A FIFO, a device, a folder: no transcript (it could hang the replay or never end).
    #[error("it is {0}, not a regular file")]
    NotRegular(boundedfs::FileType),
    /// It cannot be opened or read.
    #[error("it cannot be read: {0}")]
    Unreadable(boundedfs::Reason),
}

/// A transcript opened for reading with the bounded opener (SPEC §2.1 "Reading never
/// hangs"): non-blocking, checked on the opened file (a FIFO or a device is no
/// transcript: it could hang the replay or never end); its lines are capped by the
/// reader ([`transcript::MAX_LINE_BYTES`]), not its size.
fn open_regular(path: &Path) -> Result<boundedfs::BoundedFile, OpenError> {
    boundedfs::open_regular(path).map_err(|e| match e.reason {
        boundedfs::Reason::NotRegular(kind) => OpenError::NotRegular(kind),
        reason => OpenError::Unreadable(reason),
    })
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
    progress: &dyn crate::Progress,
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
                not_a_transcript(report, progress, shown, &e.to_string());
                return;
            }
        }
        lines += 1;
        if lines.is_multiple_of(256) {
            progress.at(done_bytes + r.bytes);
            progress.doing(format!("{} calls", report.calls()));
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
