//! `sec-default audit`: runs a built-in catalogue of attacks against a managed
//! settings folder, each with and without the security default seated, and reports
//! what holds (SPEC §0, §2, §3, §5).
//!
//! Each attack is derived from the policy it runs on and judged by its own oracle,
//! independent of the security default's predicates (see `audit/attacks.rs`). The report
//! is a table — attack, what the person's plugin achieved unseated (a control: a
//! breach there is what the security default prevents), what it achieved seated,
//! HOLDS or BREACH — then the deny/ask rules no synthesized call could exercise,
//! then what the policy itself leaves open (advice, not breaches).
//!
//! | file | concern |
//! | --- | --- |
//! | `audit.rs` | running the audit: the folder read, the sessions, the attacks on two threads |
//! | `audit/attacks.rs`, `audit/attacks/` | the catalogue of attacks and their oracles |
//! | `audit/synth.rs` | calls synthesized to meet a deny or ask rule |
//! | `audit/controls.rs` | the engine's other controls, exercised |
//! | `audit/person.rs` | a person's real mods, seated and each run alone |
//! | `audit/findings.rs` | the policy's classic hooks, seating and advice |
//! | `audit/report.rs` | the report in words and as JSON |

/// The attack catalogue and its oracles (SPEC §3, §5).
mod attacks;
/// The engine's other controls, exercised.
mod controls;
/// What the audit says of the policy itself: its hooks, seating and advice.
mod findings;
/// A person's real mods, seated in the audit.
mod person;
/// The report, in words and as JSON.
mod report;
/// Calls synthesized to meet a deny or ask rule (SPEC §4 "Rule syntax").
mod synth;

use crate::inputs::{PersonInputs, PersonMods, PolicySource};
use crate::source::{first_line, TempFolder};
use attacks::Attack;
use findings::{advice, hook_rows, seating};
use policy::{ManagedLocation, Policy, PolicyError};
pub use report::AuditReport;
use report::{ModeRow, Row};

use serde_json::Value;
use session::{BlockingSession, HookRunner};
use std::fmt;
use std::path::Path;

/// Why the audit could not run, each with its exit code.
#[derive(Debug, Clone)]
pub enum AuditError {
    /// The managed policy cannot be read (exit 3); the message names the file and
    /// position (SPEC §2.1 "Fail closed").
    PolicyUnreadable(PolicyError),
    /// Bad input (exit 2): a folder that does not exist, is not a folder, or an
    /// example that cannot be written out.
    BadInput(String),
}

/// The message printed before exiting 2 or 3: for an unreadable policy, the
/// file and position (SPEC §2.1).
impl fmt::Display for AuditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuditError::PolicyUnreadable(e) => write!(f, "{e}"),
            AuditError::BadInput(m) => f.write_str(m),
        }
    }
}

/// An ordinary error, so callers may box it.
impl std::error::Error for AuditError {}

/// The error as the CLI reports it.
impl AuditError {
    /// The file, position, reason and exit code (2 bad input, 3 unreadable policy).
    pub fn to_command_error(&self, source: &PolicySource) -> crate::error::CommandError {
        use crate::error::CommandError;
        match self {
            AuditError::PolicyUnreadable(e) => CommandError::from_policy(e),
            AuditError::BadInput(m) => match source {
                PolicySource::Folder(p) | PolicySource::Platform(p) => {
                    CommandError::parsed(m.clone(), p, crate::exit::BAD_INPUT)
                }
                PolicySource::Embedded => {
                    CommandError::new(None, m.clone(), crate::exit::BAD_INPUT)
                }
            },
        }
    }
}

/// Runs the audit on `source`, the policy's classic hooks run as
/// `hooks` says (`NotRun` unless `--run-hooks`; `Normal` is read as
/// `NotRun`, since the audit never runs a policy's commands as a session would).
///
/// # Errors
///
/// [`AuditError::PolicyUnreadable`] when the managed policy cannot be read (exit 3),
/// with the file and position; [`AuditError::BadInput`] (exit 2) for a folder that
/// does not exist or is not a folder.
pub fn audit(
    source: &PolicySource,
    hooks: HookRunner,
    person: &PersonInputs,
    progress: &dyn crate::Progress,
) -> Result<AuditReport, AuditError> {
    let hooks = match hooks {
        HookRunner::Normal => HookRunner::NotRun,
        other => other,
    };
    with_folder(source, |folder, heading, kind, shown| {
        audit_folder(folder, heading, kind, shown, hooks, person, progress)
    })
}

/// Runs `work` on the managed folder `source` names: the folder
/// given (it must exist and be a folder), the platform folder (an empty one in its
/// place when it does not exist), or the embedded example written out; with the
/// report's first line, the source's kind and the folder to show.
///
/// # Errors
///
/// [`AuditError::BadInput`] for a folder that does not exist or is not a folder, or an
/// empty or example folder that cannot be written; what `work` returns.
fn with_folder<T>(
    source: &PolicySource,
    work: impl FnOnce(&Path, String, &'static str, Option<&Path>) -> Result<T, AuditError>,
) -> Result<T, AuditError> {
    match source {
        PolicySource::Folder(path) => {
            if !path.exists() {
                return Err(AuditError::BadInput(format!(
                    "{}: the managed folder given does not exist",
                    path.display()
                )));
            }
            if !path.is_dir() {
                return Err(AuditError::BadInput(format!(
                    "{}: the managed folder given is not a folder",
                    path.display()
                )));
            }
            work(path, first_line("folder", path, true), "folder", Some(path))
        }
        PolicySource::Platform(path) if path.exists() => work(
            path,
            first_line("platform", path, true),
            "platform",
            Some(path),
        ),
        PolicySource::Platform(path) => {
            let empty = TempFolder::empty().map_err(|e| AuditError::BadInput(e.to_string()))?;
            work(
                empty.path(),
                first_line("platform", path, false),
                "platform",
                Some(path),
            )
        }
        PolicySource::Embedded => {
            let folder = TempFolder::example().map_err(|e| AuditError::BadInput(e.to_string()))?;
            work(
                folder.path(),
                first_line("embedded", folder.path(), true),
                "embedded",
                None,
            )
        }
    }
}

/// What the security default holds over a person's mods under the policy `source`
/// names (`mods check --managed`): each mod run alone against the
/// audit's calls, unseated and seated; with the policy's first line.
///
/// # Errors
///
/// As [`audit()`]: the policy unreadable (exit 3), bad input (exit 2).
pub fn mod_holds(source: &PolicySource, person: &PersonInputs) -> Result<ModHolds, AuditError> {
    with_folder(source, |folder, heading, _, _| {
        let policy = read(folder)?;
        let oracle = BlockingSession::start(
            attacks::config(folder, false, HookRunner::NotRun),
            Vec::new(),
        )
        .map_err(|e| AuditError::BadInput(e.to_string()))?;
        let (catalogue, _) = attacks::catalogue(
            folder,
            &policy,
            &oracle,
            HookRunner::NotRun,
            &crate::progress::Silent,
        );
        let managed = loader::managed_settings(&Ok(policy.clone()));
        let mods = PersonMods::read(person, &managed, folder)
            .map_err(|e| AuditError::BadInput(e.to_string()))?;
        let pinned = attacks::pinned_names(&catalogue);
        let reports = person::mod_reports(folder, &catalogue, &mods, HookRunner::NotRun, &pinned);
        Ok(ModHolds {
            heading,
            breaches: reports.iter().map(person::ModReport::breaches).sum(),
            lines: reports.iter().flat_map(person::render).collect(),
            json: reports.iter().map(person::to_json).collect(),
        })
    })
}

/// What [`mod_holds`] found.
#[derive(Debug, Clone)]
pub struct ModHolds {
    /// Which policy was read.
    pub heading: String,
    /// The report in words, one line each.
    pub lines: Vec<String>,
    /// The report as JSON, one object per mod.
    pub json: Vec<Value>,
    /// How many of the audit's calls a mod breached with the security default seated.
    pub breaches: usize,
}

/// The managed policy in `folder` (SPEC §2.1): bad input, or fail closed (exit 3).
fn read(folder: &Path) -> Result<Policy, AuditError> {
    policy::read_policy(&ManagedLocation::Explicit(folder.to_path_buf())).map_err(|e| {
        if e.is_fail_closed() {
            AuditError::PolicyUnreadable(e)
        } else {
            AuditError::BadInput(e.to_string())
        }
    })
}

/// Reads the policy (bad input or fail closed, SPEC §2.1), builds the catalogue
/// against an oracle session, and runs every attack unseated then seated.
fn audit_folder(
    folder: &Path,
    heading: String,
    source_kind: &'static str,
    shown: Option<&Path>,
    hooks: HookRunner,
    person_inputs: &PersonInputs,
    progress: &dyn crate::Progress,
) -> Result<AuditReport, AuditError> {
    let policy = read(folder)?;
    let start = |seated: bool| {
        BlockingSession::start(attacks::config(folder, seated, hooks), Vec::new())
            .map_err(|e| AuditError::BadInput(e.to_string()))
    };
    let oracle = start(false)?;
    let seated = start(true)?.is_seated();
    let m = policy.managed();
    let open_modes = controls::open_modes(&m);
    progress.grow((m.deny.len() + m.ask.len()) as u64);
    progress.doing("rules tried".to_owned());
    let (catalogue, found) = attacks::catalogue(folder, &policy, &oracle, hooks, progress);
    progress.grow(catalogue.len() as u64);
    progress.doing("attacks run".to_owned());
    let person = if person_inputs.is_empty() {
        PersonMods::default()
    } else {
        let managed = loader::managed_settings(&Ok(policy.clone()));
        PersonMods::read(person_inputs, &managed, folder)
            .map_err(|e| AuditError::BadInput(e.to_string()))?
    };
    let listed = || person.listed();
    let start_mode = oracle.session().core().facts().mode;
    // Two threads, one per core, each taking every other attack
    // with sessions of its own; each attack runs in every mode right after its row, so
    // its command is parsed once, not once per pass over the whole catalogue.
    // The policy's own hooks, when run, run one at a time, as in a session.
    let threads = !matches!(hooks, HookRunner::Sandboxed { .. });
    let part = |first: usize| {
        run_part(
            folder,
            hooks,
            &listed,
            &catalogue,
            first,
            &open_modes,
            progress,
        )
    };
    let (mut rows, mut modes) = std::thread::scope(|scope| {
        let (mine, other) = if threads {
            let other = scope.spawn(|| part(1));
            (part(0), other.join().ok())
        } else {
            (part(0), Some(part(1)))
        };
        let theirs = other.unwrap_or_else(|| Part {
            rows: Vec::new(),
            // Its rows are missing: counted as a breach, never as held.
            modes: vec![ModeRow {
                mode: permissions::Mode::Default,
                ran: 1,
                breached: vec![(
                    usize::MAX,
                    "the thread running half the attacks failed: their rows are missing".to_owned(),
                )],
            }],
        });
        let mut rows = mine.rows;
        rows.extend(theirs.rows);
        let mut modes = mine.modes;
        for more in theirs.modes {
            match modes.iter_mut().find(|m| m.mode == more.mode) {
                Some(m) => {
                    m.ran += more.ran;
                    m.breached.extend(more.breached);
                }
                None => modes.push(more),
            }
        }
        (rows, modes)
    });
    rows.sort_by_key(|(i, _)| *i);
    let rows: Vec<Row> = rows.into_iter().map(|(_, r)| r).collect();
    modes.retain(|m| m.ran > 0);
    for m in &mut modes {
        m.breached.sort_by_key(|(i, _)| *i);
    }
    progress.finish();
    let (controls, more_not_exercised) = controls::engine_controls(&policy, &m, folder, start_mode);
    let mut not_exercised = found.not_exercised;
    not_exercised.extend(more_not_exercised);
    let pinned = attacks::pinned_names(&catalogue);
    let person_mods = person::mod_reports(folder, &catalogue, &person, hooks, &pinned);
    let hook_rows = hook_rows(&policy, folder, &catalogue);
    Ok(AuditReport {
        heading,
        source_kind,
        folder: shown.map(Path::to_path_buf),
        seated,
        seating: seating(&policy, seated),
        rows,
        not_exercised,
        controls,
        modes,
        start_mode,
        inert: found.inert,
        evaded: found.evaded,
        hook_runner: hooks,
        hooks: hook_rows,
        advice: advice(&policy, &m),
        warnings: crate::policy_view::view(
            &ManagedLocation::Explicit(folder.to_path_buf()),
            &policy,
        )
        .warnings,
        person_given: !person_inputs.is_empty(),
        person_mods,
        loading_lines: person.lines,
    })
}

/// What one thread of the audit ran: its rows and its share of each mode, each with
/// the attack's position in the catalogue.
struct Part {
    rows: Vec<(usize, Row)>,
    modes: Vec<ModeRow>,
}

/// Runs every other attack of `catalogue` from `first` (0 or 1) unseated and seated,
/// and each lifting rule attack again, seated, in every mode of `modes`,
/// in sessions of its own.
fn run_part(
    folder: &Path,
    hooks: HookRunner,
    listed: &(dyn Fn() -> Vec<session::Listed> + Sync),
    catalogue: &[Attack],
    first: usize,
    modes: &[permissions::Mode],
    progress: &dyn crate::Progress,
) -> Part {
    let mut sessions = attacks::ArmSessions::new(folder, hooks, listed);
    let mut part = Part {
        rows: Vec::new(),
        modes: modes
            .iter()
            .map(|mode| ModeRow {
                mode: *mode,
                ran: 0,
                breached: Vec::new(),
            })
            .collect(),
    };
    for (i, attack) in catalogue.iter().enumerate().skip(first).step_by(2) {
        progress.advance(1);
        part.rows.push((
            i,
            Row {
                family: attack.family,
                attack: attack.label.clone(),
                detail: attack.detail.clone(),
                unseated: sessions.run(false, attack, 10_000 + i),
                seated: sessions.run(true, attack, 10_000 + i),
            },
        ));
        for m in &mut part.modes {
            if let Some(arm) = sessions.run_lifted_in(m.mode, attack, 30_000 + i) {
                m.ran += 1;
                if !arm.held {
                    m.breached
                        .push((i, format!("{}: {}", attack.label, arm.achieved)));
                }
            }
        }
    }
    part
}

#[cfg(test)]
mod tests;
