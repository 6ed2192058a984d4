//! What `replay` reports: per session and per tool, calls by
//! decision; every deny and ask grouped by the rule (file and line) or setting that
//! decided it; what the person did in the transcript next to what the policy says now;
//! the calls the security default held over a person's plugin; with `--against`, the
//! calls whose verdict differs. With `--json`: one JSON line per call as it is judged,
//! then one summary line with the counts. Memory is bounded by the distinct sessions,
//! tools and rules, never by the number of calls: lists of examples are capped.

use super::judged::Judged;
use super::summary::{
    Against, BadLine, BadLines, Change, Counts, DecidedAlike, DecidedOtherwise, Example, Listed,
    NotATranscript, PolicyEntry, ReplaySummary, RuleCounts, SeenKey, SessionSummary,
    TranscriptRead,
};
use super::transcript::{parts_json, Call, Seen};
use crate::inputs::PersonMods;
use crate::text::escape;
use permissions::{Decision, Mode};
use policy::{Policy, PolicyError};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};
use std::path::Path;

/// The most examples kept per group.
const EXAMPLES: usize = 3;
/// The most calls listed in each list of single calls (rejected, ran-but-denied, held).
const LISTED: usize = 20;
/// The most bad lines listed (all are counted).
const BAD_LISTED: usize = 100;
/// The most characters of a call's summary.
const SUMMARY_CHARS: usize = 100;
/// The most sessions reported one by one; the rest share one row.
const MAX_SESSION_ROWS: usize = 10_000;
/// The row of the sessions past [`MAX_SESSION_ROWS`].
const OTHER_SESSIONS: &str = "(other sessions)";
/// The most tools counted one by one (in all, and per session); the rest share one row.
const MAX_TOOLS: usize = 1_000;
/// The row of the tools past [`MAX_TOOLS`].
const OTHER_TOOLS: &str = "(other tools)";

/// Counts one call of decision slot `d` under `name` in `map`, or under `other` once
/// `map` counts `cap` names: a hostile transcript's names never grow the report without
/// bound.
fn count_in(map: &mut BTreeMap<String, Tally>, name: &str, d: usize, (cap, other): (usize, &str)) {
    let key = if map.len() < cap || map.contains_key(name) {
        name
    } else {
        other
    };
    if let Some(t) = map.get_mut(key).and_then(|t| t.get_mut(d)) {
        *t += 1;
        return;
    }
    let mut t = [0; 3];
    if let Some(x) = t.get_mut(d) {
        *x = 1;
    }
    map.insert(key.to_owned(), t);
}

/// Counts by decision: allow, ask, deny.
type Tally = [u64; 3];

fn slot(d: Decision) -> usize {
    match d {
        Decision::Allow => 0,
        Decision::Ask => 1,
        Decision::Deny => 2,
    }
}

fn counts(t: &Tally) -> Counts {
    Counts {
        allow: t[0],
        ask: t[1],
        deny: t[2],
    }
}

/// Calls by tool, by decision.
fn counts_by_tool(tools: &BTreeMap<String, Tally>) -> BTreeMap<String, Counts> {
    tools.iter().map(|(t, c)| (t.clone(), counts(c))).collect()
}

/// One session's rows.
#[derive(Debug, Default)]
struct SessionRow {
    file: String,
    cwd: Option<String>,
    cwd_here: bool,
    mode: Option<String>,
    calls: u64,
    tally: Tally,
    tools: BTreeMap<String, Tally>,
}

/// One group of calls decided alike.
#[derive(Debug, Default)]
struct Group {
    calls: u64,
    examples: Vec<Example>,
}

impl Group {
    fn add(&mut self, example: impl FnOnce() -> Example, cap: usize) {
        self.calls += 1;
        if self.examples.len() < cap {
            self.examples.push(example());
        }
    }
}

/// The report, built as calls are judged.
pub(crate) struct Report {
    json: bool,
    out: Box<dyn Write>,
    write_error: Option<io::Error>,
    policy: PolicyEntry,
    against: Option<PolicyEntry>,
    person: Vec<String>,
    calls: u64,
    tally: Tally,
    tools: BTreeMap<String, Tally>,
    sessions: Vec<(String, SessionRow)>,
    session_index: HashMap<String, usize>,
    rules: BTreeMap<(usize, String), Group>,
    seen_vs_now: BTreeMap<Seen, Tally>,
    rejected: Group,
    ran_denied: Group,
    held: Group,
    differ: BTreeMap<(usize, usize, String), Group>,
    differ_calls: u64,
    otherwise: BTreeMap<(usize, usize, String), Group>,
    bad: u64,
    bad_lines: Vec<BadLine>,
    unknown: Vec<NotATranscript>,
    files: Vec<TranscriptRead>,
    file_calls: u64,
    file_bad: u64,
    notes: BTreeSet<String>,
}

/// The `--json` line of one call.
#[derive(Serialize)]
struct CallLine<'a> {
    replay: &'static str,
    file: &'a str,
    line: u64,
    session: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent: Option<&'a str>,
    tool: &'a str,
    tool_use_id: &'a str,
    input: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_as: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    judged_in_mode: Option<&'static str>,
    transcript: &'static str,
    #[serde(flatten)]
    judged: JudgedJson<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    against: Option<JudgedJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    differs: Option<bool>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    decided_otherwise: bool,
}

#[derive(Serialize)]
struct JudgedJson<'a> {
    decision: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    setting: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_line: Option<usize>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    uncertain: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    outcome: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    held: bool,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    rewritten_by: &'a [String],
}

impl<'a> JudgedJson<'a> {
    fn of(j: &'a Judged) -> Self {
        let v = &j.verdict;
        JudgedJson {
            decision: v.decision.as_str(),
            rule: v.rule.as_deref(),
            source: v.source.as_deref(),
            setting: v.setting.as_deref(),
            rule_file: j.rule_file.as_deref(),
            rule_line: j.rule_line,
            uncertain: v.uncertain,
            reason: v.reason.as_deref(),
            outcome: j.outcome,
            held: j.held,
            rewritten_by: &j.rewritten_by,
        }
    }
}

/// A policy's entry in the report: its name, its rules, every warning of its read (as
/// `policy show` gives them), or why it cannot be read.
fn policy_entry(name: &str, folder: &Path, read: &Result<Policy, PolicyError>) -> PolicyEntry {
    match read {
        Ok(p) => {
            let location = policy::ManagedLocation::Explicit(folder.to_path_buf());
            let view = crate::policy_view::view(&location, p);
            let r = &view.rules;
            PolicyEntry::Read {
                managed: name.to_owned(),
                rules: r.deny + r.ask + r.allow,
                rule_counts: RuleCounts {
                    deny: r.deny,
                    ask: r.ask,
                    allow: r.allow,
                },
                warnings: view.warnings,
            }
        }
        Err(e) => PolicyEntry::Unreadable {
            managed: name.to_owned(),
            error: e.to_string(),
            in_force: "the policy cannot be read, so it counts as in force: no call is allowed without asking, and the readable settings' deny rules still deny (SPEC §2.1 fail closed)",
        },
    }
}

/// A call's one-line summary: the command, path, URL or query, else its input.
fn summary(tool: &str, input: &Value) -> String {
    let field = [
        "command",
        "cmd",
        "file_path",
        "notebook_path",
        "path",
        "url",
        "query",
        "pattern",
    ]
    .iter()
    .find_map(|k| input.get(*k).and_then(Value::as_str));
    let text = match (field, input) {
        (Some(f), _) => f.to_owned(),
        (None, Value::String(s)) => s.clone(),
        (None, v) => v.to_string(),
    };
    let one: String = text.chars().take(SUMMARY_CHARS).collect();
    let more = if text.chars().nth(SUMMARY_CHARS).is_some() {
        "…"
    } else {
        ""
    };
    format!("{} {}{more}", escape(tool), escape(&one))
}

impl Report {
    /// A report writing its JSON lines (with `json`) or its text to `out`.
    pub(crate) fn new(
        json: bool,
        out: Box<dyn Write>,
        (name, managed, policy): (&str, &Path, &Result<Policy, PolicyError>),
        against: Option<(&Path, &Result<Policy, PolicyError>)>,
        person: &PersonMods,
        notes: Vec<String>,
    ) -> Report {
        Report {
            json,
            out,
            write_error: None,
            policy: policy_entry(name, managed, policy),
            against: against.map(|(d, r)| policy_entry(&super::shown_path(d), d, r)),
            person: person.mods.iter().map(|m| m.info.id.clone()).collect(),
            calls: 0,
            tally: [0; 3],
            tools: BTreeMap::new(),
            sessions: Vec::new(),
            session_index: HashMap::new(),
            rules: BTreeMap::new(),
            seen_vs_now: BTreeMap::new(),
            rejected: Group::default(),
            ran_denied: Group::default(),
            held: Group::default(),
            differ: BTreeMap::new(),
            differ_calls: 0,
            otherwise: BTreeMap::new(),
            bad: 0,
            bad_lines: Vec::new(),
            unknown: Vec::new(),
            files: Vec::new(),
            file_calls: 0,
            file_bad: 0,
            notes: person.lines.iter().cloned().chain(notes).collect(),
        }
    }

    /// Calls judged so far.
    pub(crate) fn calls(&self) -> u64 {
        self.calls
    }

    /// Whether standard output went away (or failed): the replay stops.
    pub(crate) fn closed(&self) -> bool {
        self.write_error.is_some()
    }

    /// Files of no known format.
    pub(crate) fn unknown_files(&self) -> usize {
        self.unknown.len()
    }

    /// A file that is no transcript (exit 2), and why.
    pub(crate) fn not_a_transcript(&mut self, file: &str, why: &str) {
        self.unknown.push(NotATranscript {
            file: file.to_owned(),
            reason: why.to_owned(),
        });
        self.file_calls = 0;
        self.file_bad = 0;
    }

    /// A note for the report's end (each said once).
    pub(crate) fn note(&mut self, text: String) {
        self.notes.insert(text);
    }

    /// A line that could not be read.
    pub(crate) fn bad_line(&mut self, file: &str, line: u64, why: &str) {
        self.bad += 1;
        self.file_bad += 1;
        if self.bad_lines.len() < BAD_LISTED {
            self.bad_lines.push(BadLine {
                file: file.to_owned(),
                line,
                reason: why.to_owned(),
            });
        }
    }

    /// The end of one file.
    pub(crate) fn file_done(&mut self, file: &str, format: Option<&'static str>) {
        self.files.push(TranscriptRead {
            file: file.to_owned(),
            format,
            calls: self.file_calls,
            bad_lines: self.file_bad,
        });
        self.file_calls = 0;
        self.file_bad = 0;
    }

    fn example(call: &Call, j: &Judged) -> Example {
        let (tool, input) = call
            .parts()
            .get(j.part)
            .map_or((call.tool.as_str(), &call.input), |(t, i)| (*t, *i));
        Example {
            file: call.file.to_string(),
            line: call.line,
            call: summary(tool, input),
            decision: j.verdict.decision.as_str(),
            decided_by: j.decided_by(),
            transcript: None,
            rewritten_by: None,
            was: None,
            was_decided_by: None,
        }
    }

    /// One call, judged (and judged under `--against`), with what the transcript says
    /// became of it.
    pub(crate) fn call(&mut self, call: &Call, seen: Seen, j: &Judged, against: Option<&Judged>) {
        self.calls += 1;
        self.file_calls += 1;
        let d = slot(j.verdict.decision);
        if let Some(t) = self.tally.get_mut(d) {
            *t += 1;
        }
        let bump = |t: &mut Tally| {
            if let Some(x) = t.get_mut(d) {
                *x += 1;
            }
        };
        count_in(&mut self.tools, &call.tool, d, (MAX_TOOLS, OTHER_TOOLS));
        let session: &str = if self.sessions.len() < MAX_SESSION_ROWS
            || self.session_index.contains_key(&*call.session)
        {
            &call.session
        } else {
            OTHER_SESSIONS
        };
        let index = match self.session_index.get(session) {
            Some(i) => *i,
            None => {
                let cwd = call.cwd.as_deref().map(str::to_owned);
                let here = call
                    .cwd
                    .as_deref()
                    .is_some_and(|c| super::judge::posix_cwd(c).is_dir());
                self.sessions.push((
                    session.to_owned(),
                    SessionRow {
                        file: call.file.to_string(),
                        cwd,
                        cwd_here: here,
                        mode: call.mode.as_deref().map(str::to_owned),
                        ..SessionRow::default()
                    },
                ));
                let i = self.sessions.len() - 1;
                self.session_index.insert(session.to_owned(), i);
                i
            }
        };
        if let Some((_, row)) = self.sessions.get_mut(index) {
            row.calls += 1;
            bump(&mut row.tally);
            count_in(&mut row.tools, &call.tool, d, (MAX_TOOLS, OTHER_TOOLS));
        }
        if let Some(note) = &j.mode_note {
            if !self.notes.contains(note) {
                self.notes.insert(note.clone());
            }
        }
        if j.verdict.decision != Decision::Allow {
            self.rules
                .entry((2 - d, j.decided_by()))
                .or_default()
                .add(|| Report::example(call, j), EXAMPLES);
        }
        bump(self.seen_vs_now.entry(seen).or_default());
        if matches!(seen, Seen::Rejected | Seen::Interrupted) {
            self.rejected.add(
                || Example {
                    transcript: Some(seen.as_str()),
                    ..Report::example(call, j)
                },
                LISTED,
            );
        }
        if seen == Seen::Ran && j.verdict.decision == Decision::Deny {
            self.ran_denied.add(|| Report::example(call, j), LISTED);
        }
        if j.held {
            self.held.add(
                || Example {
                    rewritten_by: Some(j.rewritten_by.clone()),
                    ..Report::example(call, j)
                },
                LISTED,
            );
        }
        // A backtest's difference is a changed decision; the same decision decided by
        // another rule or reason is told apart.
        let differs = against.map(|a| a.verdict.decision != j.verdict.decision);
        let otherwise =
            against.is_some_and(|a| differs == Some(false) && a.decided_by() != j.decided_by());
        if let Some(a) = against.filter(|_| differs == Some(true) || otherwise) {
            let groups = if otherwise {
                &mut self.otherwise
            } else {
                self.differ_calls += 1;
                &mut self.differ
            };
            let key = (
                slot(j.verdict.decision),
                slot(a.verdict.decision),
                a.decided_by(),
            );
            groups.entry(key).or_default().add(
                || Example {
                    was: Some(j.verdict.decision.as_str()),
                    was_decided_by: Some(j.decided_by()),
                    ..Report::example(call, a)
                },
                EXAMPLES,
            );
        }
        if self.json && self.write_error.is_none() {
            let line = CallLine {
                replay: "call",
                file: &call.file,
                line: call.line,
                session: &call.session,
                agent: call.agent.as_deref(),
                tool: &call.tool,
                tool_use_id: &call.id,
                input: &call.input,
                judged_as: call.judged_as.as_deref().map(parts_json),
                cwd: call.cwd.as_deref(),
                mode: call.mode.as_deref(),
                judged_in_mode: j.mode.map(Mode::as_str),
                transcript: seen.as_str(),
                judged: JudgedJson::of(j),
                against: against.map(JudgedJson::of),
                differs,
                decided_otherwise: otherwise,
            };
            let written = serde_json::to_writer(&mut self.out, &line)
                .map_err(io::Error::from)
                .and_then(|()| self.out.write_all(b"\n"));
            if let Err(e) = written {
                self.write_error = Some(e);
            }
        }
    }

    /// The summary of what was judged so far.
    fn summary(&mut self) -> ReplaySummary {
        let sessions = self
            .sessions
            .iter()
            .map(|(id, r)| SessionSummary {
                session: id.clone(),
                file: r.file.clone(),
                cwd: r.cwd.clone(),
                cwd_here: r.cwd_here,
                mode: r.mode.clone(),
                calls: r.calls,
                by_decision: counts(&r.tally),
                by_tool: counts_by_tool(&r.tools),
            })
            .collect();
        let denies_and_asks = self
            .rules
            .iter()
            .map(|((d, by), g)| DecidedAlike {
                decision: ["deny", "ask", "allow"].get(*d).copied().unwrap_or("deny"),
                decided_by: by.clone(),
                calls: g.calls,
                examples: g.examples.clone(),
            })
            .collect();
        let names = ["allow", "ask", "deny"];
        let changes = |m: &BTreeMap<(usize, usize, String), Group>| -> Vec<Change> {
            m.iter()
                .map(|((from, to, by), g)| Change {
                    from: names.get(*from).copied(),
                    to: names.get(*to).copied(),
                    decided_by: by.clone(),
                    calls: g.calls,
                    examples: g.examples.clone(),
                })
                .collect()
        };
        let against = self.against.clone().map(|policy| Against {
            policy,
            differ: self.differ_calls,
            changes: changes(&self.differ),
            decided_otherwise: DecidedOtherwise {
                calls: self.otherwise.values().map(|g| g.calls).sum(),
                changes: changes(&self.otherwise),
            },
        });
        let listed = |g: &Group| Listed {
            calls: g.calls,
            listed: g.examples.clone(),
        };
        ReplaySummary {
            replay: "summary",
            policy: self.policy.clone(),
            person_plugins: self.person.clone(),
            transcripts: std::mem::take(&mut self.files),
            sessions,
            calls: self.calls,
            by_decision: counts(&self.tally),
            by_tool: counts_by_tool(&self.tools),
            denies_and_asks,
            transcript_vs_now: self
                .seen_vs_now
                .iter()
                .map(|(s, t)| (SeenKey(*s), counts(t)))
                .collect(),
            rejected_in_transcript: listed(&self.rejected),
            ran_but_denied_now: listed(&self.ran_denied),
            held_over_person_plugin: listed(&self.held),
            against,
            bad_lines: BadLines {
                count: self.bad,
                listed: std::mem::take(&mut self.bad_lines),
            },
            not_transcripts: std::mem::take(&mut self.unknown),
            notes: std::mem::take(&mut self.notes),
        }
    }

    /// The summary, written (the last JSON line, or the report in words) and flushed;
    /// with the write's error, when there was one.
    pub(crate) fn finish(mut self) -> (ReplaySummary, Option<io::Error>) {
        let summary = self.summary();
        if let Some(e) = self.write_error.take() {
            return (summary, Some(e));
        }
        let text = if self.json {
            match serde_json::to_string(&summary) {
                Ok(line) => line + "\n",
                Err(e) => return (summary, Some(io::Error::from(e))),
            }
        } else {
            summary.render()
        };
        let written = self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush());
        (summary, written.err())
    }
}
