//! What a replay found, as a typed summary: calls by decision per tool and session,
//! every deny and ask with what decided it and examples, what the transcripts record
//! next to the policy now, the holds, and with `--against` the calls whose verdict
//! differs. `--json` prints it as the last line; [`ReplaySummary::render`] is the one
//! rendering in words. Names and paths a transcript chose are written escaped
//! ([`crate::text::escape`]).

use super::transcript::Seen;
use crate::policy_view::WarningView;
use crate::text::{escape, fit, truncate};
use serde::{Serialize, Serializer};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The most terminal columns of a working folder shown.
const CWD_COLUMNS: usize = 200;

/// The width of the first column of tables.
const NAME: usize = 48;

/// Calls counted by decision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Allowed.
    pub allow: u64,
    /// Asked.
    pub ask: u64,
    /// Denied.
    pub deny: u64,
}

impl Counts {
    /// Every call counted.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.allow + self.ask + self.deny
    }
}

/// A managed policy as the replay read it (`policy`, and `against.policy`).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum PolicyEntry {
    /// Read: its name, its permission rules and every warning of its read.
    Read {
        /// The folder as shown (or what stood in for it).
        managed: String,
        /// Its permission rules, in all.
        rules: usize,
        /// Its permission rules, by behaviour.
        rule_counts: RuleCounts,
        /// Every warning of its read, as `policy show` gives them.
        warnings: Vec<WarningView>,
    },
    /// Not readable: it counts as in force (SPEC §2.1 fail closed).
    Unreadable {
        /// The folder as shown.
        managed: String,
        /// Why it cannot be read (file and position).
        error: String,
        /// What a policy that cannot be read does.
        in_force: &'static str,
    },
}

/// Permission rules by behaviour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RuleCounts {
    /// Deny rules.
    pub deny: usize,
    /// Ask rules.
    pub ask: usize,
    /// Allow rules.
    pub allow: usize,
}

/// One transcript read.
#[derive(Debug, Clone, Serialize)]
pub struct TranscriptRead {
    /// The file as shown (`<stdin>` for standard input).
    pub file: String,
    /// `claude-code`, `codex` or `replay-json`; `None` when no line showed it.
    pub format: Option<&'static str>,
    /// Tool calls read from it.
    pub calls: u64,
    /// Lines of it that could not be read.
    pub bad_lines: u64,
}

/// One session's row.
#[derive(Debug, Clone, Serialize)]
pub struct SessionSummary {
    /// The session id (or `(other sessions)` past the cap).
    pub session: String,
    /// The transcript its first call came from.
    pub file: String,
    /// The working folder the transcript records.
    pub cwd: Option<String>,
    /// Whether that folder exists on this machine (else its paths are uncertain).
    pub cwd_here: bool,
    /// The permission mode the transcript records.
    pub mode: Option<String>,
    /// Its calls.
    pub calls: u64,
    /// Its calls by decision now.
    pub by_decision: Counts,
    /// Its calls by tool, by decision now.
    pub by_tool: BTreeMap<String, Counts>,
}

/// One call given as an example.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    /// The transcript.
    pub file: String,
    /// The 1-based line of the call in it.
    pub line: u64,
    /// The call in one line: its tool and command, path, URL or query.
    pub call: String,
    /// The decision now.
    pub decision: &'static str,
    /// What decided it now: the rule with its file and line, a setting or a reason.
    pub decided_by: String,
    /// What the transcript records of it (listed rejected and interrupted calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<&'static str>,
    /// The person's plugins that rewrote its verdict (listed held calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewritten_by: Option<Vec<String>>,
    /// Its decision under the replay's policy (examples of `--against`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was: Option<&'static str>,
    /// What decided it under the replay's policy (examples of `--against`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was_decided_by: Option<String>,
}

/// The denies or asks one thing decided.
#[derive(Debug, Clone, Serialize)]
pub struct DecidedAlike {
    /// `deny` or `ask`.
    pub decision: &'static str,
    /// What decided them.
    pub decided_by: String,
    /// How many calls.
    pub calls: u64,
    /// The first few.
    pub examples: Vec<Example>,
}

/// Calls counted, the first few listed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Listed {
    /// How many calls.
    pub calls: u64,
    /// The first few.
    pub listed: Vec<Example>,
}

/// Calls whose verdict under `--against` changed the same way.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The decision under the replay's policy.
    pub from: Option<&'static str>,
    /// The decision under the `--against` policy.
    pub to: Option<&'static str>,
    /// What decided it under `--against`.
    pub decided_by: String,
    /// How many calls.
    pub calls: u64,
    /// The first few.
    pub examples: Vec<Example>,
}

/// The calls that keep their decision, decided by another rule or reason.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DecidedOtherwise {
    /// How many calls.
    pub calls: u64,
    /// Grouped by what decided them.
    pub changes: Vec<Change>,
}

/// The backtest (`--against`).
#[derive(Debug, Clone, Serialize)]
pub struct Against {
    /// The second policy.
    pub policy: PolicyEntry,
    /// How many calls get another decision under it.
    pub differ: u64,
    /// Those calls, grouped by change and what decided it.
    pub changes: Vec<Change>,
    /// The calls that keep their decision, decided otherwise.
    pub decided_otherwise: DecidedOtherwise,
}

/// A line that could not be read.
#[derive(Debug, Clone, Serialize)]
pub struct BadLine {
    /// The transcript.
    pub file: String,
    /// The 1-based line.
    pub line: u64,
    /// Why.
    pub reason: String,
}

/// The bad lines: all counted, the first listed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BadLines {
    /// Every bad line.
    pub count: u64,
    /// The first ones.
    pub listed: Vec<BadLine>,
}

/// A file that is no transcript (exit 2).
#[derive(Debug, Clone, Serialize)]
pub struct NotATranscript {
    /// The file as shown.
    pub file: String,
    /// Why.
    pub reason: String,
}

/// The summary of a replay: `--json`'s last line, `{"replay": "summary", ...}`.
#[derive(Debug, Clone, Serialize)]
pub struct ReplaySummary {
    /// Always `summary` (the per-call lines say `call`).
    pub replay: &'static str,
    /// The policy the calls are judged under.
    pub policy: PolicyEntry,
    /// The person's plugins seated, by plugin id.
    pub person_plugins: Vec<String>,
    /// The transcripts read.
    pub transcripts: Vec<TranscriptRead>,
    /// The sessions, in the order first met.
    pub sessions: Vec<SessionSummary>,
    /// Every call judged.
    pub calls: u64,
    /// The calls by decision now.
    pub by_decision: Counts,
    /// The calls by tool, by decision now.
    pub by_tool: BTreeMap<String, Counts>,
    /// Every deny and ask, grouped by what decided it (denies first).
    pub denies_and_asks: Vec<DecidedAlike>,
    /// What the transcripts record of the calls, by decision now.
    pub transcript_vs_now: BTreeMap<SeenKey, Counts>,
    /// The calls the person rejected or interrupted.
    pub rejected_in_transcript: Listed,
    /// The calls that ran then and are denied now.
    pub ran_but_denied_now: Listed,
    /// The calls whose verdict the security default held over a person's plugin.
    pub held_over_person_plugin: Listed,
    /// The backtest, with `--against`.
    pub against: Option<Against>,
    /// The lines that could not be read.
    pub bad_lines: BadLines,
    /// The files that are no transcript.
    pub not_transcripts: Vec<NotATranscript>,
    /// Notes for the end of the report, each once.
    pub notes: BTreeSet<String>,
}

/// [`Seen`] as a key of [`ReplaySummary::transcript_vs_now`]: in report order, named
/// as JSON names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SeenKey(pub Seen);

impl Serialize for SeenKey {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

/// A row of a table: name, calls, and the calls by decision.
fn row(o: &mut String, name: &str, calls: u64, t: &Counts) {
    let _ = writeln!(
        o,
        "  {} {:>6} {:>6} {:>6} {:>6}",
        fit(name, NAME),
        calls,
        t.allow,
        t.ask,
        t.deny
    );
}

/// An example's place and call, one line.
fn example_line(e: &Example) -> String {
    format!("{}:{} {}", escape(&e.file), e.line, e.call)
}

/// A policy in one line.
fn policy_line(p: &PolicyEntry) -> String {
    match p {
        PolicyEntry::Unreadable {
            managed,
            error,
            in_force,
        } => format!(
            "{} NOT READABLE: {}; {in_force}",
            escape(managed),
            escape(error)
        ),
        PolicyEntry::Read { managed, rules, .. } => {
            format!("{} ({rules} permission rules)", escape(managed))
        }
    }
}

/// A policy's warnings, as `policy show` gives them.
fn warnings(o: &mut String, p: &PolicyEntry) {
    let PolicyEntry::Read { warnings, .. } = p else {
        return;
    };
    if warnings.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "  {} warning(s) reading it (as `policy show` gives them):",
        warnings.len()
    );
    for w in warnings {
        let at = w.line.map_or_else(String::new, |l| format!(":{l}"));
        let _ = writeln!(
            o,
            "    {}{at} {}: {}",
            escape(&w.file),
            escape(&w.pointer),
            escape(&w.reason)
        );
    }
}

/// Listed calls under a title, with what decides them now.
fn listed(o: &mut String, g: &Listed, title: &str) {
    if g.calls == 0 {
        return;
    }
    let _ = writeln!(o, "  {title} ({} calls):", g.calls);
    for e in &g.listed {
        let extra = match &e.rewritten_by {
            Some(by) if !by.is_empty() => {
                let names: Vec<String> = by.iter().map(|n| escape(n)).collect();
                format!("; rewritten by {}", names.join(", "))
            }
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "    {} -> now {} ({}){extra}",
            example_line(e),
            e.decision,
            e.decided_by
        );
    }
}

/// Changes of `--against`, with examples.
fn changes(o: &mut String, list: &[Change]) {
    for c in list {
        let (from, to) = (c.from.unwrap_or_default(), c.to.unwrap_or_default());
        let how = if from == to {
            format!("{from}, as before")
        } else {
            format!("{from} -> {to}")
        };
        let _ = writeln!(o, "  {how}  {} calls  now {}", c.calls, c.decided_by);
        for e in &c.examples {
            let _ = writeln!(
                o,
                "          e.g. {} (was {})",
                example_line(e),
                e.was_decided_by.as_deref().unwrap_or_default()
            );
        }
    }
}

impl ReplaySummary {
    /// The report in words.
    #[must_use]
    pub fn render(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "replay: {} tool calls in {} session(s) from {} transcript(s); {} bad line(s)",
            self.calls,
            self.sessions.len(),
            self.transcripts.len(),
            self.bad_lines.count
        );
        let _ = writeln!(o, "policy: {}", policy_line(&self.policy));
        warnings(&mut o, &self.policy);
        if self.person_plugins.is_empty() {
            o.push_str("person's plugins: none\n");
        } else {
            let ids: Vec<String> = self.person_plugins.iter().map(|i| escape(i)).collect();
            let _ = writeln!(o, "person's plugins: {}", ids.join(", "));
        }

        let _ = writeln!(
            o,
            "\nBy tool\n  {:<NAME$} {:>6} {:>6} {:>6} {:>6}",
            "tool", "calls", "allow", "ask", "deny"
        );
        for (t, c) in &self.by_tool {
            row(&mut o, &escape(t), c.total(), c);
        }
        row(&mut o, "all", self.calls, &self.by_decision);

        o.push_str("\nSessions\n");
        for r in &self.sessions {
            let t = &r.by_decision;
            let cwd = match r.cwd.as_deref().map(|c| escape(&truncate(c, CWD_COLUMNS))) {
                Some(c) if r.cwd_here => c,
                Some(c) => format!("{c} (not on this machine: its paths are uncertain)"),
                None => "(none recorded)".to_owned(),
            };
            let _ = writeln!(
                o,
                "  {}  {}\n    cwd {}; mode {}; {} calls: {} allow, {} ask, {} deny",
                escape(&r.session),
                escape(&r.file),
                cwd,
                r.mode
                    .as_deref()
                    .map_or_else(|| "(none recorded)".to_owned(), escape),
                r.calls,
                t.allow,
                t.ask,
                t.deny,
            );
        }

        o.push_str("\nDenies and asks, by what decided them\n");
        if self.denies_and_asks.is_empty() && self.calls > 0 {
            o.push_str("  none: every call is allowed\n");
        } else if self.denies_and_asks.is_empty() {
            o.push_str("  none: no call was replayed\n");
        }
        for r in &self.denies_and_asks {
            let _ = writeln!(o, "  {:<5} {} calls  {}", r.decision, r.calls, r.decided_by);
            for e in &r.examples {
                let _ = writeln!(o, "          e.g. {}", example_line(e));
            }
        }

        let _ = writeln!(
            o,
            "\nWhat the transcript records, next to the policy now\n  {:<NAME$} {:>6} {:>6} {:>6} {:>6}",
            "transcript", "calls", "allow", "ask", "deny"
        );
        for (SeenKey(k), t) in &self.transcript_vs_now {
            let label = match k {
                Seen::Ran => "ran (approved, or nothing asked)",
                Seen::Failed => "ran and failed",
                Seen::Rejected => "rejected by the person",
                Seen::Interrupted => "interrupted by the person",
                Seen::NoResult => "no result in the transcript",
            };
            row(&mut o, label, t.total(), t);
        }
        listed(
            &mut o,
            &self.rejected_in_transcript,
            "Rejected or interrupted in the transcript",
        );
        listed(
            &mut o,
            &self.ran_but_denied_now,
            "Ran in the transcript, denied by the policy now",
        );
        o.push('\n');
        if self.person_plugins.is_empty() {
            o.push_str("Held over a person's plugin: no person's plugin seated (give --plugin-dir or --settings)\n");
        } else {
            let _ = writeln!(
                o,
                "Held over a person's plugin: {} calls",
                self.held_over_person_plugin.calls
            );
            listed(&mut o, &self.held_over_person_plugin, "Held");
        }

        if let Some(a) = &self.against {
            let _ = writeln!(
                o,
                "\nBacktest against {}: {} of {} calls differ",
                policy_line(&a.policy),
                a.differ,
                self.calls
            );
            warnings(&mut o, &a.policy);
            changes(&mut o, &a.changes);
            let otherwise = &a.decided_otherwise;
            if otherwise.calls > 0 {
                let _ = writeln!(
                    o,
                    "  {} more calls keep their decision, decided by another rule or reason:",
                    otherwise.calls
                );
                changes(&mut o, &otherwise.changes);
            }
        }

        if self.bad_lines.count > 0 {
            let _ = writeln!(
                o,
                "\nBad lines ({}; the replay went on)",
                self.bad_lines.count
            );
            for b in &self.bad_lines.listed {
                let _ = writeln!(o, "  {}:{}: {}", escape(&b.file), b.line, escape(&b.reason));
            }
        }
        if !self.not_transcripts.is_empty() {
            o.push_str("\nNot transcripts (exit 2)\n");
            for u in &self.not_transcripts {
                let _ = writeln!(o, "  {}: {}", escape(&u.file), escape(&u.reason));
            }
        }
        if !self.notes.is_empty() {
            o.push_str("\nNotes\n");
            for n in &self.notes {
                let _ = writeln!(o, "  {}", escape(n));
            }
        }
        o
    }
}
