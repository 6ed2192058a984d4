//! The audit's report: the attack table grouped by family within 100 columns, the
//! rules not exercised, inert or got around by the shell, the modes, the engine's
//! other controls, a person's mods, the managed classic hooks and the advice, in
//! words ([`AuditReport::render`]) and as JSON ([`AuditReport::to_json`]).

use super::attacks::{self, Arm, Family, NotExercised};
use super::{controls, person};
use crate::text::{escape, fit};
use permissions::classic::PRE_TOOL_USE;
use serde_json::{json, Value};
use session::HookRunner;
use std::path::PathBuf;

/// The width the table keeps within.
pub(crate) const WIDTH: usize = 100;
/// Column widths: attack, unseated, seated (the result column is last).
const COLUMNS: [usize; 3] = [44, 22, 22];

/// One attack, run twice.
#[derive(Debug, Clone)]
pub(super) struct Row {
    /// The attack's family.
    pub(super) family: Family,
    /// The attack in a few words.
    pub(super) attack: String,
    /// What exactly it did (JSON output).
    pub(super) detail: Value,
    /// The control arm: the security default not seated.
    pub(super) unseated: Arm,
    /// The security default seated as the engine seats it.
    pub(super) seated: Arm,
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
pub(super) struct HookRow {
    /// The classic event (`PreToolUse`, `PostToolUse`, ...).
    pub(super) event: String,
    /// The matcher as written (`None`: none, which matches every tool).
    pub(super) matcher: Option<String>,
    /// The command, or why the handler cannot run.
    pub(super) command: String,
    /// The managed file it was read from, relative to the folder.
    pub(super) file: String,
    /// Its JSON pointer within `file`.
    pub(super) pointer: String,
    /// `Some(why)` for a handler this engine cannot run (a managed one denies
    /// wherever it matches, SPEC §4, whatever the runner).
    pub(super) unrunnable: Option<String>,
    /// The labels of the attacks whose tool call it matches, each once.
    pub(super) attacks: Vec<String>,
    /// How many attack rows raised a call it matches.
    pub(super) rows: usize,
}

/// The rule attacks run again in one mode a person could start in.
#[derive(Debug, Clone)]
pub(super) struct ModeRow {
    /// The mode.
    pub(super) mode: permissions::Mode,
    /// How many lifting rule attacks ran in it, seated.
    pub(super) ran: usize,
    /// The ones that did not hold: the attack's place in the catalogue, its label
    /// and what the attacker achieved.
    pub(super) breached: Vec<(usize, String)>,
}

/// What `sec-default audit` found: the rows of the attack table,
/// the rules not exercised, and the advice on what the policy leaves open.
#[derive(Debug, Clone)]
pub struct AuditReport {
    /// The first line: which folder was read, or that the embedded example ran.
    pub(super) heading: String,
    /// `folder`, `platform` or `embedded`.
    pub(super) source_kind: &'static str,
    /// The folder read, when it is not the embedded example.
    pub(super) folder: Option<PathBuf>,
    /// Whether the security default is seated by this policy (SPEC §2.3).
    pub(super) seated: bool,
    /// Why it is or is not seated.
    pub(super) seating: String,
    /// The attacks, in catalogue order.
    pub(super) rows: Vec<Row>,
    /// Deny/ask rules no synthesized call could exercise, and the controls the audit
    /// could not exercise, by name.
    pub(super) not_exercised: Vec<NotExercised>,
    /// Deny/ask rules no realistic call meets.
    pub(super) inert: Vec<attacks::Inert>,
    /// Deny/ask rules a command the shell runs the same gets around.
    pub(super) evaded: Vec<attacks::Evaded>,
    /// How the policy's classic hooks were run: not at all, or sandboxed with a cap.
    pub(super) hook_runner: HookRunner,
    /// The policy's classic hooks, each with the attacks it met.
    pub(super) hooks: Vec<HookRow>,
    /// The engine's other controls the policy sets, exercised.
    pub(super) controls: Vec<controls::Control>,
    /// The rule attacks in every mode a person could start in.
    pub(super) modes: Vec<ModeRow>,
    /// The mode a session starts in when a person gives none.
    pub(super) start_mode: permissions::Mode,
    /// What the policy itself leaves open.
    pub(super) advice: Vec<String>,
    /// Every warning the policy read gave, as `policy show` lists them: salvage and
    /// rule warnings (SPEC §2.1, §4).
    pub(super) warnings: Vec<crate::policy_view::WarningView>,
    /// Whether a person's mods were given (`--plugin-dir`, `--settings`).
    pub(super) person_given: bool,
    /// A person's mods, each run alone against the audit's calls.
    pub(super) person_mods: Vec<person::ModReport>,
    /// The loader's lines about the ids of a person's it skipped.
    pub(super) loading_lines: Vec<String>,
}

/// Counts, the human table and the JSON form of the report.
impl AuditReport {
    /// How many attacks the seated session did not hold: the exit code is 1 when
    /// this is not 0.
    pub fn breaches(&self) -> usize {
        self.rows.iter().filter(|r| !r.seated.held).count()
            + self.modes.iter().map(|m| m.breached.len()).sum::<usize>()
            + self
                .person_mods
                .iter()
                .map(person::ModReport::breaches)
                .sum::<usize>()
    }

    /// How many attacks ran.
    pub fn attacks(&self) -> usize {
        self.rows.len()
    }

    /// The human report: the folder read (first line), seating, the attack table
    /// grouped by family within 100 columns, the rules not exercised, the advice.
    pub fn render(&self) -> String {
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
    pub fn to_json(&self) -> Value {
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
pub(crate) fn shown(rule: &str) -> String {
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
