//! `sec-default audit`: runs a built-in catalogue of attacks against a managed
//! settings folder, each with and without the security default seated, and reports
//! what holds (SPEC §0, §2, §3, §5).
//!
//! Each attack is derived from the policy it runs on and judged by its own oracle,
//! independent of the security default's predicates (see [`attacks`]). The report
//! is a table — attack, what the person's plugin achieved unseated (a control: a
//! breach there is what the security default prevents), what it achieved seated,
//! HOLDS or BREACH — then the deny/ask rules no synthesized call could exercise,
//! then what the policy itself leaves open (advice, not breaches).

/// The attack catalogue and its oracles (SPEC §3, §5).
mod attacks;
/// The engine's other controls, exercised.
mod controls;
/// A person's real mods, seated in the audit.
pub(crate) mod person;
/// Calls synthesized to meet a deny or ask rule (SPEC §4 "Rule syntax").
mod synth;

pub(crate) use person::PersonInputs;

use crate::source::{first_line, TempFolder};
use crate::text::{escape, fit};
use attacks::{Arm, Attack, Family, NotExercised};
use permissions::classic::{ClassicHooks, HandlerKind, PRE_TOOL_USE};
use permissions::SettingsSource;
use policy::{ManagedLocation, ManagedSettings, Policy, PolicyError, SourceKind};
use serde_json::{json, Value};
use session::{BlockingSession, HookRunner, SessionConfig};
use std::fmt;
use std::path::{Path, PathBuf};

/// The width the table keeps within.
const WIDTH: usize = 100;
/// Column widths: attack, unseated, seated (the result column is last).
const COLUMNS: [usize; 3] = [44, 22, 22];

/// Which managed folder the audit reads (SPEC §2.1 "Locations").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AuditSource {
    /// A folder named with `--managed`; it must exist (bad input otherwise).
    Folder(PathBuf),
    /// The platform folder; when it does not exist, the audit runs on the empty policy
    /// the engine reads there and says so, as `policy show` does.
    Platform(PathBuf),
    /// The example policy embedded in the binary (`examples/managed/`, `--example`).
    Embedded,
}

/// Why the audit could not run, each with its exit code.
#[derive(Debug, Clone)]
pub(crate) enum AuditError {
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
    pub(crate) fn to_cli_error(&self, source: &AuditSource) -> crate::error::CliError {
        use crate::error::CliError;
        match self {
            AuditError::PolicyUnreadable(e) => CliError::from_policy(e),
            AuditError::BadInput(m) => match source {
                AuditSource::Folder(p) | AuditSource::Platform(p) => {
                    CliError::parsed(m.clone(), p, crate::EXIT_BAD_INPUT)
                }
                AuditSource::Embedded => CliError::new(None, m.clone(), crate::EXIT_BAD_INPUT),
            },
        }
    }
}

/// One attack, run twice.
#[derive(Debug, Clone)]
struct Row {
    /// The attack's family.
    family: Family,
    /// The attack in a few words.
    attack: String,
    /// What exactly it did (JSON output).
    detail: Value,
    /// The control arm: the security default not seated.
    unseated: Arm,
    /// The security default seated as the engine seats it.
    seated: Arm,
}

/// The result of a row.
impl Row {
    /// `HOLDS` when the seated arm passed its oracle, `BREACH` otherwise.
    fn verdict(&self) -> &'static str {
        if self.seated.held {
            "HOLDS"
        } else {
            "BREACH"
        }
    }
}

/// One managed classic hook and the attacks it met.
#[derive(Debug, Clone)]
struct HookRow {
    /// The classic event (`PreToolUse`, `PostToolUse`, ...).
    event: String,
    /// The matcher as written (`None`: none, which matches every tool).
    matcher: Option<String>,
    /// The command, or why the handler cannot run.
    command: String,
    /// The managed file it was read from, relative to the folder.
    file: String,
    /// Its JSON pointer within `file`.
    pointer: String,
    /// `Some(why)` for a handler this engine cannot run (a managed one denies
    /// wherever it matches, SPEC §4, whatever the runner).
    unrunnable: Option<String>,
    /// The labels of the attacks whose tool call it matches, each once.
    attacks: Vec<String>,
    /// How many attack rows raised a call it matches.
    rows: usize,
}

/// The rule attacks run again in one mode a person could start in.
#[derive(Debug, Clone)]
struct ModeRow {
    /// The mode.
    mode: permissions::Mode,
    /// How many lifting rule attacks ran in it, seated.
    ran: usize,
    /// The ones that did not hold: the attack's place in the catalogue, its label
    /// and what the attacker achieved.
    breached: Vec<(usize, String)>,
}

/// What `sec-default audit` found: the rows of the attack table,
/// the rules not exercised, and the advice on what the policy leaves open.
#[derive(Debug, Clone)]
pub(crate) struct AuditReport {
    /// The first line: which folder was read, or that the embedded example ran.
    heading: String,
    /// `folder`, `platform` or `embedded`.
    source_kind: &'static str,
    /// The folder read, when it is not the embedded example.
    folder: Option<PathBuf>,
    /// Whether the security default is seated by this policy (SPEC §2.3).
    seated: bool,
    /// Why it is or is not seated.
    seating: String,
    /// The attacks, in catalogue order.
    rows: Vec<Row>,
    /// Deny/ask rules no synthesized call could exercise, and the controls the audit
    /// could not exercise, by name.
    not_exercised: Vec<NotExercised>,
    /// Deny/ask rules no realistic call meets.
    inert: Vec<attacks::Inert>,
    /// Deny/ask rules a command the shell runs the same gets around.
    evaded: Vec<attacks::Evaded>,
    /// How the policy's classic hooks were run: not at all, or sandboxed with a cap.
    hook_runner: HookRunner,
    /// The policy's classic hooks, each with the attacks it met.
    hooks: Vec<HookRow>,
    /// The engine's other controls the policy sets, exercised.
    controls: Vec<controls::Control>,
    /// The rule attacks in every mode a person could start in.
    modes: Vec<ModeRow>,
    /// The mode a session starts in when a person gives none.
    start_mode: permissions::Mode,
    /// What the policy itself leaves open.
    advice: Vec<String>,
    /// Every warning the policy read gave, as `policy show` lists them: salvage and
    /// rule warnings (SPEC §2.1, §4).
    warnings: Vec<crate::policy_show::WarningView>,
    /// Whether a person's mods were given (`--plugin-dir`, `--settings`).
    person_given: bool,
    /// A person's mods, each run alone against the audit's calls.
    person_mods: Vec<person::ModReport>,
    /// The loader's lines about the ids of a person's it skipped.
    loading_lines: Vec<String>,
}

/// Counts, the human table and the JSON form of the report.
impl AuditReport {
    /// How many attacks the seated session did not hold: the exit code is 1 when
    /// this is not 0.
    pub(crate) fn breaches(&self) -> usize {
        self.rows.iter().filter(|r| !r.seated.held).count()
            + self.modes.iter().map(|m| m.breached.len()).sum::<usize>()
            + self
                .person_mods
                .iter()
                .map(person::ModReport::breaches)
                .sum::<usize>()
    }

    /// How many attacks ran.
    pub(crate) fn attacks(&self) -> usize {
        self.rows.len()
    }

    /// The human report: the folder read (first line), seating, the attack table
    /// grouped by family within 100 columns, the rules not exercised, the advice.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        let mut line = |s: &str| {
            out.push_str(s.trim_end());
            out.push('\n');
        };
        line(&self.heading);
        for l in wrap(&format!("security default: {}", self.seating), WIDTH, "  ") {
            line(&l);
        }
        line(&format!(
            "{} attacks, each run without and with the security default seated: {} breached.",
            self.attacks(),
            self.breaches()
        ));
        for l in wrap(
            "UNSEATED is a control session without the security default: a breach there is \
             what the security default prevents. RESULT judges the SEATED session.",
            WIDTH,
            "",
        ) {
            line(&l);
        }
        line("");
        line(&row_text([
            "ATTACK",
            "UNSEATED (control)",
            "SEATED",
            "RESULT",
        ]));
        line(&"-".repeat(WIDTH));
        for family in Family::ALL {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.family == family).collect();
            if rows.is_empty() {
                continue;
            }
            line(family.title());
            for r in rows {
                let attack = format!("  {}", r.attack);
                line(&row_text([
                    &attack,
                    &r.unseated.achieved,
                    &r.seated.achieved,
                    r.verdict(),
                ]));
            }
        }
        for l in self.render_controls() {
            line(&l);
        }
        let not_exercised: Vec<String> = self
            .not_exercised
            .iter()
            .map(|n| format!("{} {}: {}", n.behavior, shown(&n.rule), n.reason))
            .collect();
        for l in section("not exercised (listed, not judged):", &not_exercised) {
            line(&l);
        }
        let inert: Vec<String> = self
            .inert
            .iter()
            .map(|r| format!("{} {}: {}", r.behavior, shown(&r.rule), r.reason))
            .collect();
        let heading = format!(
            "inert rules: {} (no call people run meets them: they read as in force and are not):",
            inert.len()
        );
        for l in section(&heading, &inert) {
            line(&l);
        }
        let evaded: Vec<String> = self
            .evaded
            .iter()
            .map(|r| {
                format!(
                    "{} {} meets {}, not: {}",
                    r.behavior,
                    shown(&r.rule),
                    r.call,
                    r.variants.join(" · ")
                )
            })
            .collect();
        let heading = format!(
            "rules the shell gets around: {} (each meets the call named, not these commands the \
             shell runs the same):",
            evaded.len()
        );
        for l in section(&heading, &evaded) {
            line(&l);
        }
        if self.person_given {
            line("");
            for l in wrap(
                &format!(
                    "a person's mods: {} (seated beside the attacker in every session above, and each run alone against the audit's calls, unseated and seated):",
                    self.person_mods.len()
                ),
                WIDTH,
                "  ",
            ) {
                line(&l);
            }
            for l in &self.loading_lines {
                for w in wrap(&format!("skipped: {l}"), WIDTH - 2, "    ") {
                    line(&format!("  {w}"));
                }
            }
            for m in &self.person_mods {
                for l in person::render(m) {
                    let lead = l.len() - l.trim_start().len();
                    for w in wrap(l.trim_start(), WIDTH - lead, "    ") {
                        line(&format!("{}{w}", " ".repeat(lead)));
                    }
                }
            }
        }
        for l in self.render_hooks() {
            line(&l);
        }
        line("");
        line("what the policy itself leaves open (advice, not breaches):");
        if self.advice.is_empty() && self.warnings.is_empty() {
            line("  nothing found");
        }
        for a in &self.advice {
            let text = format!("- {a}");
            for l in wrap(&text, WIDTH - 2, "  ") {
                line(&format!("  {l}"));
            }
        }
        if !self.warnings.is_empty() {
            let n = self.warnings.len();
            let text = format!(
                "- the policy read gave {n} warning{} (entries dropped or repaired, rules read \
                 otherwise than written), as `sec-default policy show` lists them:",
                if n == 1 { "" } else { "s" }
            );
            for l in wrap(&text, WIDTH - 2, "  ") {
                line(&format!("  {l}"));
            }
            for w in &self.warnings {
                for l in wrap(&w.line_text(), WIDTH - 6, "  ") {
                    line(&format!("      {l}"));
                }
            }
        }
        out
    }

    /// The modes section (HOLDS or BREACH: the security default's holds in each mode)
    /// and the engine's controls ("in force" or "not in force").
    fn render_controls(&self) -> Vec<String> {
        let modes: Vec<String> = self
            .modes
            .iter()
            .map(|m| {
                let verdict = if m.breached.is_empty() {
                    "HOLDS"
                } else {
                    "BREACH"
                };
                let mut text = format!(
                    "{}: {} of {} rule attacks held: {verdict}",
                    m.mode.as_str(),
                    m.ran - m.breached.len(),
                    m.ran
                );
                if !m.breached.is_empty() {
                    let breached: Vec<&str> = m.breached.iter().map(|(_, b)| b.as_str()).collect();
                    text.push_str(&format!(" ({})", breached.join("; ")));
                }
                text
            })
            .collect();
        let heading = format!(
            "modes a person could start in: {} (the table above ran in {}, the mode a session \
             starts in; the rule attacks ran again, seated, in each):",
            modes.len(),
            self.start_mode.as_str()
        );
        let mut out = section(&heading, &modes);
        let controls: Vec<String> = self
            .controls
            .iter()
            .map(|c| format!("{}: {}: {}", c.key, c.standing.as_str(), c.meaning))
            .collect();
        let heading = format!(
            "the engine's other controls: {} (exercised; the engine enforces them, not the \
             security default):",
            controls.len()
        );
        out.extend(section(&heading, &controls));
        out
    }

    /// How the hooks were run, in words (the hooks section's heading).
    fn hooks_run_as(&self) -> String {
        match self.hook_runner {
            HookRunner::Sandboxed { cap } => format!(
                "run with --run-hooks: each in a scratch home and working folder of its own, \
                 PATH only, at most {} s",
                cap.as_secs_f64()
            ),
            HookRunner::NotRun | HookRunner::Normal => "NOT RUN: the audit never runs the \
                 policy's commands unless given --run-hooks; the verdicts above are the rules' \
                 without them"
                .to_owned(),
        }
    }

    /// The hooks section: one entry per managed classic hook, with the attacks it was
    /// (or, not run, was not) exercised against.
    fn render_hooks(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.hooks.is_empty() {
            return out;
        }
        out.push(String::new());
        let heading = format!(
            "managed classic hooks: {} ({})",
            self.hooks.len(),
            self.hooks_run_as()
        );
        out.extend(wrap(&heading, WIDTH, "  "));
        let ran = matches!(self.hook_runner, HookRunner::Sandboxed { .. });
        for h in &self.hooks {
            let matcher = h
                .matcher
                .as_deref()
                .map_or_else(|| "no matcher".to_owned(), |m| format!("matcher {m:?}"));
            let what = format!("{} [{matcher}] `{}`", h.event, h.command);
            for l in wrap(&what, WIDTH - 2, "    ") {
                out.push(format!("  {l}"));
            }
            for l in wrap(&format!("at {} {}", h.file, h.pointer), WIDTH - 4, "  ") {
                out.push(format!("    {l}"));
            }
            let list = h.attacks.join(", ");
            let about = if h.event != PRE_TOOL_USE && h.rows > 0 {
                format!(
                    "exercised on classic.{}: a person's plugin answered in the organization's \
                     hooks' place (row {list}); the command itself is {}",
                    h.event,
                    if ran { "run" } else { "not run" }
                )
            } else if h.event != PRE_TOOL_USE {
                format!("not exercised: no attack raises classic.{}", h.event)
            } else if h.rows == 0 {
                "not exercised: no attack's tool call matches it".to_owned()
            } else if let Some(why) = &h.unrunnable {
                format!(
                    "cannot run ({why}): as a managed hook it denies wherever it matches, in \
                     {} attack(s): {list}",
                    h.rows
                )
            } else if ran {
                format!("ran in {} attack(s): {list}", h.rows)
            } else {
                format!("not exercised against {} attack(s): {list}", h.rows)
            };
            for l in wrap(&about, WIDTH - 4, "  ") {
                out.push(format!("    {l}"));
            }
        }
        out
    }

    /// The report as JSON: source, seating, every row with both arms and its result,
    /// the rules not exercised, the classic hooks, the advice, and the counts.
    pub(crate) fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "family": r.family.key(),
                    "attack": r.attack,
                    "detail": r.detail,
                    "unseated": {"achieved": r.unseated.achieved, "held": r.unseated.held},
                    "seated": {"achieved": r.seated.achieved, "held": r.seated.held},
                    "result": r.verdict(),
                })
            })
            .collect();
        let not_exercised: Vec<Value> = self
            .not_exercised
            .iter()
            .map(|n| json!({"behavior": n.behavior, "rule": n.rule, "reason": n.reason}))
            .collect();
        let inert: Vec<Value> = self
            .inert
            .iter()
            .map(|r| json!({"behavior": r.behavior, "rule": r.rule, "reason": r.reason, "met_only_by": r.literal}))
            .collect();
        let evaded: Vec<Value> = self
            .evaded
            .iter()
            .map(|r| json!({"behavior": r.behavior, "rule": r.rule, "call": r.call, "variants": r.variants}))
            .collect();
        let hooks: Vec<Value> = self
            .hooks
            .iter()
            .map(|h| {
                json!({
                    "event": h.event,
                    "matcher": h.matcher,
                    "command": h.command,
                    "file": h.file,
                    "pointer": h.pointer,
                    "unrunnable": h.unrunnable,
                    "attacks": h.attacks,
                    "attack_rows": h.rows,
                })
            })
            .collect();
        let (run, cap) = match self.hook_runner {
            HookRunner::Sandboxed { cap } => ("sandboxed", Some(cap.as_secs_f64())),
            HookRunner::NotRun | HookRunner::Normal => ("not_run", None),
        };
        json!({
            "source": {
                "kind": self.source_kind,
                "folder": self.folder.as_ref().map(|p| p.display().to_string()),
                "description": self.heading,
            },
            "classic_hooks": {"run": run, "cap_seconds": cap, "hooks": hooks},
            "seated": self.seated,
            "seating": self.seating,
            "attacks": self.attacks(),
            "breaches": self.breaches(),
            "rows": rows,
            "not_exercised": not_exercised,
            "inert_rules": inert,
            "evaded_by_shell_variants": evaded,
            "modes": self.modes.iter().map(|m| json!({
                "mode": m.mode.as_str(),
                "rule_attacks": m.ran,
                "breached": m.breached.iter().map(|(_, b)| b).collect::<Vec<_>>(),
                "result": if m.breached.is_empty() { "HOLDS" } else { "BREACH" },
            })).collect::<Vec<_>>(),
            "start_mode": self.start_mode.as_str(),
            "controls": self.controls.iter().map(|c| json!({
                "key": c.key,
                "standing": c.standing.as_str(),
                "meaning": c.meaning,
            })).collect::<Vec<_>>(),
            "advice": self.advice,
            "policy_warnings": self.warnings.len(),
            "warnings": self.warnings,
            "person_mods": self.person_mods.iter().map(person::to_json).collect::<Vec<_>>(),
            "loading_lines": self.loading_lines,
        })
    }
}

/// A report section: a blank line, `heading` wrapped, then each entry wrapped and
/// indented; nothing at all when there is no entry.
fn section(heading: &str, entries: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if entries.is_empty() {
        return out;
    }
    out.push(String::new());
    out.extend(wrap(heading, WIDTH, "  "));
    for e in entries {
        for l in wrap(e, WIDTH - 2, "  ") {
            out.push(format!("  {l}"));
        }
    }
    out
}

/// One table line: the cells cut to their columns, the result last.
fn row_text(cells: [&str; 4]) -> String {
    let [a, b, c, d] = cells;
    let [wa, wb, wc] = COLUMNS;
    format!("{}  {}  {}  {d}", fit(a, wa), fit(b, wb), fit(c, wc))
}

/// A rule as the human report shows it: escaped as every report escapes it
/// ([`escape`]: hidden characters written out), and cut to [`SHOWN_RULE`] characters
/// (the JSON keeps it whole).
fn shown(rule: &str) -> String {
    let v = escape(rule);
    if v.chars().count() <= SHOWN_RULE {
        return v;
    }
    let cut: String = v.chars().take(SHOWN_RULE).collect();
    format!("{cut}… ({} characters)", rule.chars().count())
}

/// The most characters of a rule the human report shows.
const SHOWN_RULE: usize = 160;

/// Word-wraps `text` to `width` terminal columns, continuation lines indented by
/// `indent`; a word longer than a line is cut where the line ends.
fn wrap(text: &str, width: usize, indent: &str) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let mut lines = Vec::new();
    let mut current = String::new();
    let room = width.saturating_sub(indent.len()).max(8);
    let pieces = text.split_whitespace().flat_map(|word| {
        let mut parts = Vec::new();
        let mut part = String::new();
        for c in word.chars() {
            if part.width() + unicode_width::UnicodeWidthChar::width(c).unwrap_or(0) > room {
                parts.push(std::mem::take(&mut part));
            }
            part.push(c);
        }
        parts.push(part);
        parts
    });
    for word in pieces {
        let len = current.width();
        if len > 0 && len + 1 + word.width() > width {
            lines.push(std::mem::take(&mut current));
            current.push_str(indent);
        }
        if !current.is_empty() && !current.ends_with(' ') {
            current.push(' ');
        }
        current.push_str(&word);
    }
    if !current.trim().is_empty() {
        lines.push(current);
    }
    lines
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
pub(crate) fn run(
    source: &AuditSource,
    hooks: HookRunner,
    person: &PersonInputs,
) -> Result<AuditReport, AuditError> {
    let hooks = match hooks {
        HookRunner::Normal => HookRunner::NotRun,
        other => other,
    };
    with_folder(source, |folder, heading, kind, shown| {
        audit_folder(folder, heading, kind, shown, hooks, person)
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
    source: &AuditSource,
    work: impl FnOnce(&Path, String, &'static str, Option<&Path>) -> Result<T, AuditError>,
) -> Result<T, AuditError> {
    match source {
        AuditSource::Folder(path) => {
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
        AuditSource::Platform(path) if path.exists() => work(
            path,
            first_line("platform", path, true),
            "platform",
            Some(path),
        ),
        AuditSource::Platform(path) => {
            let empty = TempFolder::empty().map_err(AuditError::BadInput)?;
            work(
                empty.path(),
                first_line("platform", path, false),
                "platform",
                Some(path),
            )
        }
        AuditSource::Embedded => {
            let folder = TempFolder::example().map_err(AuditError::BadInput)?;
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
/// As [`run`]: the policy unreadable (exit 3), bad input (exit 2).
pub(crate) fn mod_holds(
    source: &AuditSource,
    person: &PersonInputs,
) -> Result<ModHolds, AuditError> {
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
            &indicatif::ProgressBar::hidden(),
        );
        let managed = loader::managed_settings(&Ok(policy.clone()));
        let mods =
            person::PersonMods::read(person, &managed, folder).map_err(AuditError::BadInput)?;
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
pub(crate) struct ModHolds {
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
    let progress = crate::progress_bar(
        (m.deny.len() + m.ask.len()) as u64,
        "audit {bar:30} {pos}/{len} {msg} ({eta})",
    );
    progress.set_message("rules tried");
    let (catalogue, found) = attacks::catalogue(folder, &policy, &oracle, hooks, &progress);
    progress.inc_length(catalogue.len() as u64);
    progress.set_message("attacks run");
    let person = if person_inputs.is_empty() {
        person::PersonMods::default()
    } else {
        let managed = loader::managed_settings(&Ok(policy.clone()));
        person::PersonMods::read(person_inputs, &managed, folder).map_err(AuditError::BadInput)?
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
            &progress,
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
    progress.finish_and_clear();
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
        warnings: crate::policy_show::view(
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
    progress: &indicatif::ProgressBar,
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
        progress.inc(1);
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

/// The policy's classic hooks (SPEC §4 "Classic hooks"), each with the attacks whose
/// `tool.check` call it matches: the calls a session would have run it for.
fn hook_rows(policy: &Policy, folder: &Path, catalogue: &[Attack]) -> Vec<HookRow> {
    let settings = Value::Object(policy.settings.clone());
    let (hooks, _) = ClassicHooks::from_sources(&[(SettingsSource::Policy, &settings)]);
    let facts = SessionConfig::new(folder, Path::new(synth::CWD), Path::new(synth::HOME)).facts;
    let settings_files: Vec<&Path> = policy
        .sources
        .iter()
        .filter(|s| s.kind != SourceKind::Mcp)
        .map(|s| s.path.as_path())
        .collect();
    // With drop-ins, matcher groups are concatenated across files: the pointer is the
    // merged settings'.
    let file = match settings_files.as_slice() {
        [one] => one
            .strip_prefix(folder)
            .unwrap_or(one)
            .display()
            .to_string(),
        _ => "managed settings (merged)".to_owned(),
    };
    hooks
        .handlers()
        .map(|h| {
            let mut labels: Vec<String> = Vec::new();
            let mut rows = 0;
            let label = attacks::managed_hook_label(&h.event);
            if h.event != PRE_TOOL_USE && catalogue.iter().any(|a| a.label == label) {
                rows = 1;
                labels.push(label);
            }
            if h.event == PRE_TOOL_USE {
                for attack in catalogue {
                    let Some(call) = attack.call() else { continue };
                    let met = hooks
                        .matching(PRE_TOOL_USE, &call.tool, &call.input, &facts)
                        .iter()
                        .any(|m| m.pointer == h.pointer);
                    if met {
                        rows += 1;
                        if !labels.contains(&attack.label) {
                            labels.push(attack.label.clone());
                        }
                    }
                }
            }
            HookRow {
                event: h.event.clone(),
                matcher: h.matcher.clone(),
                command: h.name(),
                file: file.clone(),
                pointer: h.pointer.clone(),
                unrunnable: match &h.kind {
                    HandlerKind::Unrunnable(why) => Some(why.clone()),
                    HandlerKind::Command { .. } => None,
                },
                attacks: labels,
                rows,
            }
        })
        .collect()
}

/// Why the security default is or is not seated (SPEC §2.3).
fn seating(policy: &Policy, seated: bool) -> String {
    let listed = policy.settings.contains_key("prependPlugins");
    match (seated, listed) {
        (true, true) => format!(
            "seated first in prepend ({} is in prependPlugins)",
            policy::SEC_DEFAULT_ID
        ),
        (true, false) => {
            "seated first in prepend (no prependPlugins: the engine seats it)".to_owned()
        }
        (false, _) => format!(
            "NOT seated: prependPlugins does not name {}, so none of its holds exist",
            policy::SEC_DEFAULT_ID
        ),
    }
}

/// What the policy itself leaves open: advice, not breaches.
fn advice(policy: &Policy, m: &ManagedSettings) -> Vec<String> {
    let mut out = Vec::new();
    let listed_prepend = policy.settings.contains_key("prependPlugins");
    let names_us = m
        .prepend_plugins
        .iter()
        .any(|id| policy::ids_equal(id, policy::SEC_DEFAULT_ID));
    if listed_prepend && !names_us {
        out.push(format!(
            "prependPlugins does not name {}: the security default is not seated; add it first",
            policy::SEC_DEFAULT_ID
        ));
    }
    if m.deny.is_empty() {
        out.push("no managed deny rules (permissions.deny): nothing is denied over a person's plugins at tool.check".to_owned());
    }
    if m.ask.is_empty() {
        out.push(
            "no managed ask rules (permissions.ask): only the mode's own asks stand".to_owned(),
        );
    }
    if !m.allow_managed_permission_rules_only {
        out.push(
            "allowManagedPermissionRulesOnly is off: a person's settings may add allow rules (they never beat managed deny or ask rules)"
                .to_owned(),
        );
    }
    if !m.disable_bypass_permissions_mode {
        out.push(
            "permissions.disableBypassPermissionsMode is not \"disable\": in bypassPermissions mode, what no rule denies or asks runs unasked"
                .to_owned(),
        );
    }
    if m.env_names.is_empty() {
        out.push("no managed env: only the 19 always-pinned variables are pinned".to_owned());
    }
    if m.allowed_mcp_servers.is_none() {
        out.push(
            "allowedMcpServers is not set: a person's plugins may register MCP tools under any name that does not fold to the organization's servers or plugins"
                .to_owned(),
        );
    }
    if m.managed_mcp_servers.is_empty() && !m.managed_mcp_servers_unreadable {
        out.push("no managedMcpServers and no managed-mcp.json servers: no MCP server name is reserved for the organization".to_owned());
    }
    if m.managed_mcp_servers_unreadable {
        out.push(
            "managed-mcp.json (or managedMcpServers) cannot be read whole: every person-tier tool registration is refused until it is fixed"
                .to_owned(),
        );
    }
    if !m.options.allow_managed_mods_only {
        out.push(format!(
            "allowManagedModsOnly is off (pluginConfigs[\"{}\"].options): a person's hook modules load; what the security default holds still holds over them",
            policy::SEC_DEFAULT_ID
        ));
    }
    if m.options.allow_mods_to_override_deny_rules {
        out.push(
            "allowModsToOverrideDenyRules is on: a person's plugin may lift managed deny and ask rules (the rule attacks above show it)"
                .to_owned(),
        );
    }
    if !listed_prepend {
        out.push(
            "no prependPlugins: no organization plugin is seated ahead of the person's".to_owned(),
        );
    }
    if attacks::org_plugins(m).is_empty() {
        out.push("no org plugins (prependPlugins, appendPlugins, enabledPlugins): no plugin name is reserved for the organization".to_owned());
    }
    out
}

#[cfg(test)]
mod tests;
