//! A person's real mods in the audit (SPEC §6 "Loading"): read from
//! `--plugin-dir` folders and the `enabledPlugins` of a person's `--settings` file as
//! the loader reads them ([`crate::inputs::PersonMods`]), seated beside the attacker in
//! every session, and each also run alone against the audit's own calls, unseated and
//! seated, to say what it achieved and what held over it.

use super::attacks::{self, Arm, Attack};
use crate::inputs::PersonMods;
use serde_json::{json, Value};
use session::{BlockingSession, HookRunner, Listed};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The most lines kept per hooked event of a mod (what held over it).
const MAX_LINES: usize = 8;

/// The events the audit raises once for a mod that hooks them and that no attack
/// raises (SPEC §1.5): the event, its fields, the engine's own answer. What the mod does
/// there (its `$` calls: `env.set`, `tool.register`, ...) is what the audit judges.
const PROBES: [(&str, &str, Option<&str>); 4] = [
    (
        "prompt.submit",
        r#"{"prompt": "audit probe"}"#,
        Some(r#"{"prompt": "audit probe"}"#),
    ),
    ("tool.list", "{}", None),
    ("env.get", r#"{"name": "HOME"}"#, None),
    (
        "tool.call",
        r#"{"tool": "Bash", "input": {"command": "ls"}}"#,
        None,
    ),
];

/// What one attack did with the mod alone, per arm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Met {
    /// The attack's label.
    pub attack: String,
    /// What the mod achieved unseated (a control).
    pub unseated: Arm,
    /// What it achieved seated.
    pub seated: Arm,
}

/// What a mod did at one event it hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct EventReport {
    /// The event the audit raised.
    pub event: String,
    /// The attacks at that event the mod ran in, with what it achieved.
    pub met: Vec<Met>,
    /// The lines the seated sessions wrote naming the mod: what held over it, which of
    /// its calls were refused (each once).
    pub held_lines: Vec<String>,
}

/// What the audit found of one person's mod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ModReport {
    /// Its id.
    pub id: String,
    /// Its folder.
    pub folder: PathBuf,
    /// Whether it loads, or why not.
    pub load: Result<(), mods::LoadError>,
    /// The events its `register` hooks (static).
    pub hooks: Vec<String>,
    /// Per event it ran at, in catalogue order, then the probes.
    pub events: Vec<EventReport>,
}

impl ModReport {
    /// How many attacks it ran in where the seated session did not hold.
    pub(super) fn breaches(&self) -> usize {
        self.events
            .iter()
            .flat_map(|e| &e.met)
            .filter(|m| !m.seated.held)
            .count()
    }
}

/// Runs every attack a person's plugin answers in the chain (verdicts, content) with
/// each mod alone as the person's plugin, unseated and seated (SPEC §3, §5); keeps the
/// attacks the mod ran in.
pub(super) fn mod_reports(
    folder: &Path,
    catalogue: &[Attack],
    person: &PersonMods,
    hooks: HookRunner,
    pinned: &[String],
) -> Vec<ModReport> {
    person
        .mods
        .iter()
        .map(|m| {
            let mut events: Vec<EventReport> = Vec::new();
            if matches!(m.source, Ok(Some(_))) {
                // One session per arm for every attack (linear in the
                // policy); `ran` is cleared before each attack.
                let ran = Arc::new(AtomicBool::new(false));
                let start = |seated: bool| {
                    let listed = vec![m.listed(Some(Arc::clone(&ran)))];
                    BlockingSession::start_listed(attacks::config(folder, seated, hooks), listed)
                };
                let sessions = [start(false), start(true)];
                for (i, attack) in catalogue.iter().enumerate() {
                    if !attacks::answered_in_chain(attack) {
                        continue;
                    }
                    ran.store(false, Ordering::Relaxed);
                    let arm = |s: &Result<BlockingSession, session::SessionError>| match s {
                        Ok(s) => attacks::run_alone(s, attack, 20_000 + i),
                        Err(e) => Some((
                            Arm {
                                achieved: format!("no session: {e}"),
                                held: false,
                            },
                            Vec::new(),
                        )),
                    };
                    let [unseated_session, seated_session] = &sessions;
                    let (Some((unseated, _)), Some((seated, log))) =
                        (arm(unseated_session), arm(seated_session))
                    else {
                        continue;
                    };
                    if !ran.load(Ordering::Relaxed) {
                        continue;
                    }
                    record(
                        &mut events,
                        attack.event(),
                        &attack.label,
                        unseated,
                        seated,
                        log,
                        &m.info.name,
                    );
                }
                let raised: Vec<&str> = catalogue
                    .iter()
                    .filter(|a| attacks::answered_in_chain(a))
                    .map(Attack::event)
                    .collect();
                for (event, fields, core) in PROBES {
                    let hooks_it = m
                        .hooks
                        .iter()
                        .any(|h| fnhooks::Pattern::parse(h).matches(event));
                    if !hooks_it || raised.contains(&event) {
                        continue;
                    }
                    let ran = Arc::new(AtomicBool::new(false));
                    let arm = |seated: bool| {
                        probe(
                            folder,
                            seated,
                            event,
                            fields,
                            core,
                            m.listed(Some(Arc::clone(&ran))),
                            hooks,
                            pinned,
                        )
                    };
                    let ((unseated, _), (seated, log)) = (arm(false), arm(true));
                    if ran.load(Ordering::Relaxed) {
                        record(
                            &mut events,
                            event,
                            &format!("{event} (probe)"),
                            unseated,
                            seated,
                            log,
                            &m.info.name,
                        );
                    }
                }
            }
            ModReport {
                id: m.info.id.clone(),
                folder: m.folder.clone(),
                load: m.load(),
                hooks: m.hooks.clone(),
                events,
            }
        })
        .collect()
}

/// Adds what a mod did in one attack (or probe) at `event` to `events`: both arms, and
/// the seated session's lines naming the mod (each once, at most [`MAX_LINES`]).
fn record(
    events: &mut Vec<EventReport>,
    event: &str,
    label: &str,
    unseated: Arm,
    seated: Arm,
    log: Vec<session::LogLine>,
    name: &str,
) {
    let at = match events.iter().position(|e| e.event == event) {
        Some(at) => at,
        None => {
            events.push(EventReport {
                event: event.to_owned(),
                met: Vec::new(),
                held_lines: Vec::new(),
            });
            events.len() - 1
        }
    };
    let Some(report) = events.get_mut(at) else {
        return;
    };
    for line in log {
        let text = line.text;
        if text.contains(name)
            && !report.held_lines.contains(&text)
            && report.held_lines.len() < MAX_LINES
        {
            report.held_lines.push(text);
        }
    }
    report.met.push(Met {
        attack: label.to_owned(),
        unseated,
        seated,
    });
}

/// Raises a probe `event` (fields and the engine's answer as JSON text) with `listed`
/// as the person's only plugin, seated or not (SPEC §3.8, §5.4): held when none of the
/// `pinned` variables changed; with the lines the session wrote.
#[allow(clippy::too_many_arguments)]
fn probe(
    folder: &Path,
    seated: bool,
    event: &str,
    fields: &str,
    core: Option<&str>,
    listed: Listed,
    hooks: HookRunner,
    pinned: &[String],
) -> (Arm, Vec<session::LogLine>) {
    let config = attacks::config(folder, seated, hooks);
    let session = match session::BlockingSession::start_listed(config, vec![listed]) {
        Ok(s) => s,
        Err(e) => {
            return (
                Arm {
                    achieved: format!("no session: {e}"),
                    held: false,
                },
                Vec::new(),
            )
        }
    };
    let before = session.core().env();
    let fields: Value = serde_json::from_str(fields).unwrap_or(Value::Null);
    let core = core.and_then(|c| serde_json::from_str(c).ok());
    let raise =
        session::SessionRaise::new(fnhooks::Event::from_value(event, fields)).core_answer(core);
    let answered = session.raise_traced(raise).is_ok();
    let after = session.core().env();
    let changed: Vec<&String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let pinned_changed: Vec<&&String> = changed
        .iter()
        .filter(|k| pinned.iter().any(|p| p.eq_ignore_ascii_case(k)))
        .collect();
    let achieved = if !pinned_changed.is_empty() {
        format!(
            "changed pinned {}",
            pinned_changed
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else if !changed.is_empty() {
        format!(
            "changed {}",
            changed
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else if answered {
        "no pinned variable changed".to_owned()
    } else {
        "failed; no pinned variable changed".to_owned()
    };
    let arm = Arm {
        achieved,
        held: pinned_changed.is_empty(),
    };
    (arm, session.session().take_log())
}

/// The report of one mod, in words: per event, how many of the audit's calls it
/// changed unseated, whether any breached seated, and the lines of what held.
pub(super) fn render(r: &ModReport) -> Vec<String> {
    let mut out = vec![format!("  {} ({})", r.id, r.folder.display())];
    if let Err(why) = &r.load {
        out.push(format!("    does not load: {why}"));
        return out;
    }
    if !r.hooks.is_empty() {
        out.push(format!("    hooks: {}", r.hooks.join(", ")));
    }
    if r.events.is_empty() {
        out.push(
            "    ran at none of the audit's calls (tool.check, managed content, the probes): nothing to judge"
                .to_owned(),
        );
    }
    for e in &r.events {
        let changed: Vec<&Met> = e.met.iter().filter(|m| !m.unseated.held).collect();
        let breached: Vec<&Met> = e.met.iter().filter(|m| !m.seated.held).collect();
        let mut what = format!(
            "    {}: ran in {} of the audit's calls; unseated it changed {}",
            e.event,
            e.met.len(),
            changed.len()
        );
        if let Some(first) = changed.first() {
            what.push_str(&format!(
                " (e.g. {}: {})",
                first.attack, first.unseated.achieved
            ));
        }
        what.push_str(&format!(
            "; seated {}",
            if breached.is_empty() {
                "every one HOLDS".to_owned()
            } else {
                format!("{} BREACH", breached.len())
            }
        ));
        out.push(what);
        for b in &breached {
            out.push(format!("      BREACH {}: {}", b.attack, b.seated.achieved));
        }
        for l in &e.held_lines {
            out.push(format!("      seated log: {l}"));
        }
    }
    out
}

/// The report of one mod as JSON.
pub(super) fn to_json(r: &ModReport) -> Value {
    let arm = |a: &Arm| json!({"achieved": a.achieved, "held": a.held});
    json!({
        "id": r.id,
        "folder": r.folder.display().to_string(),
        "loads": r.load.is_ok(),
        "load_error": r.load.as_ref().err().map(ToString::to_string),
        "hooks": r.hooks,
        "breaches": r.breaches(),
        "events": r.events.iter().map(|e| json!({
            "event": e.event,
            "calls": e.met.len(),
            "changed_unseated": e.met.iter().filter(|m| !m.unseated.held).count(),
            "breached_seated": e.met.iter().filter(|m| !m.seated.held).count(),
            "attacks": e.met.iter().map(|m| json!({
                "attack": m.attack,
                "unseated": arm(&m.unseated),
                "seated": arm(&m.seated),
            })).collect::<Vec<_>>(),
            "held_lines": e.held_lines,
        })).collect::<Vec<_>>(),
    })
}
