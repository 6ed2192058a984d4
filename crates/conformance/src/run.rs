//! A whole run: each group's calls through this engine and through Claude Code in a
//! sandbox, every pair classified and matched against the differences list, and the
//! table of the results (per corpus, policy and mode; per family of difference).

use crate::compare::{classify, theirs_of, Class, Differences, Standing, Theirs};
use crate::corpus::{substitute, Group};
use crate::fake_api::ScriptedCall;
use crate::sandbox::{self, ProcessSpec, StreamResult, SANDBOX_CWD, SANDBOX_HOME};
use crate::{Decision, CLAUDE_CODE_VERSION};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// The most calls one Claude Code process is given (its conversation grows with each).
pub const CALLS_PER_PROCESS: usize = 40;
/// Calls per assistant message (one batch).
pub const CALLS_PER_BATCH: usize = 8;

/// One call's outcome on both sides.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Record {
    /// The corpus.
    pub corpus: String,
    /// The policy's name.
    pub policy: String,
    /// The mode (`default` when none was given).
    pub mode: String,
    /// The call's family in its corpus.
    pub family: String,
    /// The call's stable name.
    pub key: String,
    /// The tool.
    pub tool: String,
    /// The call's text (command, path, URL).
    pub text: String,
    /// Our decision.
    pub ours: Decision,
    /// Whether ours was an uncertain hold.
    pub uncertain: bool,
    /// The rule ours named.
    pub rule: Option<String>,
    /// Theirs.
    pub theirs: Theirs,
    /// How they compare.
    pub class: Class,
    /// Where a difference stands (`None` when they agree or cannot be compared).
    pub standing: Option<Standing>,
    /// Claude Code's result text (first 200 characters), for reading a difference.
    pub their_text: String,
}

/// What a run did.
#[derive(Debug, Default, Serialize, serde::Deserialize)]
pub struct RunReport {
    /// Every call's record.
    pub records: Vec<Record>,
    /// Claude Code processes run.
    pub processes: usize,
    /// Seconds spent in Claude Code processes.
    pub claude_seconds: f64,
    /// Seconds of the whole run.
    pub seconds: f64,
    /// Groups whose process or session failed, with why.
    pub failures: Vec<String>,
    /// Lines of Claude Code's debug files that recorded a mod's activity.
    #[serde(default)]
    pub mod_lines: usize,
}

impl RunReport {
    /// Each record's standing again, under `differences` (after the list changed).
    pub fn restand(&mut self, differences: &Differences) {
        for r in &mut self.records {
            r.standing = differences.standing(r);
        }
    }
}

impl RunReport {
    /// The records whose difference is in neither list.
    pub fn undeclared(&self) -> impl Iterator<Item = &Record> {
        self.records
            .iter()
            .filter(|r| r.standing == Some(Standing::Undeclared))
    }
}

/// Runs `groups` through both sides. `progress` is told each group as it ends.
#[must_use]
pub fn run(
    groups: &[Group],
    claude: &std::path::Path,
    differences: &Differences,
    progress: &mut dyn FnMut(usize, usize, &RunReport),
) -> RunReport {
    let started = Instant::now();
    let mut report = RunReport::default();
    for (gi, group) in groups.iter().enumerate() {
        run_group(group, claude, differences, &mut report);
        progress(gi + 1, groups.len(), &report);
    }
    report.seconds = started.elapsed().as_secs_f64();
    report
}

fn run_group(
    group: &Group,
    claude: &std::path::Path,
    differences: &Differences,
    report: &mut RunReport,
) {
    let ours = match crate::engine::decide(group) {
        Ok(o) => o,
        Err(e) => {
            report
                .failures
                .push(format!("{} {}: {e}", group.corpus, group.policy_name));
            return;
        }
    };
    let policy_dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            report.failures.push(format!("a temporary folder: {e}"));
            return;
        }
    };
    let managed = policy_dir.path().join("managed");
    if let Err(e) = crate::tree::write(&managed, &group.policy) {
        report.failures.push(format!("writing the policy: {e}"));
        return;
    }
    let files: BTreeMap<String, String> = group
        .session_files()
        .into_iter()
        .map(|(k, v)| (k, String::from_utf8_lossy(&v).into_owned()))
        .collect();
    let mode = group.mode.clone().unwrap_or_else(|| "default".to_owned());
    for (ci, chunk) in group.calls.chunks(CALLS_PER_PROCESS).enumerate() {
        let base = ci * CALLS_PER_PROCESS;
        let calls: Vec<ScriptedCall> = chunk
            .iter()
            .enumerate()
            .map(|(i, c)| ScriptedCall {
                id: format!("toolu_c{}", base + i),
                tool: c.tool.clone(),
                input: substitute(&c.input, &group.aliases, SANDBOX_CWD, SANDBOX_HOME),
            })
            .collect();
        let mut batches = Vec::new();
        let primers = primers(&calls, &files);
        if !primers.is_empty() {
            batches.push(primers);
        }
        batches.extend(calls.chunks(CALLS_PER_BATCH).map(<[ScriptedCall]>::to_vec));
        let spec = ProcessSpec {
            claude: claude.to_path_buf(),
            managed: (!group.policy.is_empty()).then(|| managed.clone()),
            mode: mode.clone(),
            files: files.clone(),
            batches,
            plugin_dir: group.plugin_dir.clone(),
            call_timeout_ms: 10_000,
            process_timeout_s: 60 + 12 * chunk.len() as u64,
        };
        let result = match sandbox::run(&spec) {
            Ok(r) => r,
            Err(e) => {
                report.failures.push(format!(
                    "{} {} {mode}: {e}",
                    group.corpus, group.policy_name
                ));
                continue;
            }
        };
        report.processes += 1;
        report.claude_seconds += result.seconds;
        if let Some(e) = &result.error {
            report.failures.push(format!(
                "{} {} {mode}: {e}",
                group.corpus, group.policy_name
            ));
        }
        if let Some(dir) = &group.plugin_dir {
            let name = dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !result.plugins.contains(&name) {
                report.failures.push(format!(
                    "{} {}: Claude Code did not list the mod {name} as loaded (plugins: {})",
                    group.corpus,
                    group.policy_name,
                    result.plugins.join(", ")
                ));
            }
            report.mod_lines += result.debug.len();
        }
        let by_id: BTreeMap<&str, &StreamResult> =
            result.results.iter().map(|r| (r.id.as_str(), r)).collect();
        for (i, call) in chunk.iter().enumerate() {
            let Some(o) = ours.get(base + i) else {
                continue;
            };
            let id = format!("toolu_c{}", base + i);
            let got = by_id.get(id.as_str()).copied();
            let theirs = theirs_of(got);
            let class = classify(o.decision, &theirs);
            let text = crate::compare::text_of(&call.tool, &call.input);
            let mut record = Record {
                corpus: group.corpus.clone(),
                policy: group.policy_name.clone(),
                mode: mode.clone(),
                family: call.family.clone(),
                key: call.key.clone(),
                tool: call.tool.clone(),
                text,
                ours: o.decision,
                uncertain: o.uncertain,
                rule: o.rule.clone(),
                theirs,
                class,
                standing: None,
                their_text: got
                    .map(|r| r.text.chars().take(200).collect())
                    .unwrap_or_default(),
            };
            record.standing = differences.standing(&record);
            report.records.push(record);
        }
    }
}

/// Reads of the files the calls edit or overwrite (Claude Code refuses an Edit, or a
/// Write to an existing file, of a file not read in the session); not compared.
fn primers(calls: &[ScriptedCall], files: &BTreeMap<String, String>) -> Vec<ScriptedCall> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for c in calls {
        if !matches!(
            c.tool.as_str(),
            "Edit" | "Write" | "MultiEdit" | "NotebookEdit"
        ) {
            continue;
        }
        let key = if c.tool == "NotebookEdit" {
            "notebook_path"
        } else {
            "file_path"
        };
        let Some(path) = c.input.get(key).and_then(serde_json::Value::as_str) else {
            continue;
        };
        let seeded = path
            .strip_prefix(SANDBOX_CWD)
            .map(|r| format!("work{r}"))
            .or_else(|| path.strip_prefix(SANDBOX_HOME).map(|r| format!("home{r}")));
        let exists =
            seeded.is_some_and(|s| files.contains_key(&s)) || std::path::Path::new(path).is_file();
        if exists && seen.insert(path.to_owned()) {
            out.push(ScriptedCall {
                id: format!("toolu_p{}", out.len()),
                tool: "Read".to_owned(),
                input: serde_json::json!({"file_path": path}),
            });
        }
    }
    out
}

/// The table of a run, as Markdown: per corpus, policy and mode; then the
/// differences by standing and family.
#[must_use]
pub fn table(report: &RunReport, title: &str, date: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(
        out,
        "Claude Code {CLAUDE_CODE_VERSION} against this engine, {date}: {} calls in {} Claude Code processes ({:.0} s in Claude Code, {:.0} s in all; {:.2} s per call).\n",
        report.records.len(),
        report.processes,
        report.claude_seconds,
        report.seconds,
        if report.records.is_empty() { 0.0 } else { report.seconds / report.records.len() as f64 },
    );
    if report.mod_lines > 0 {
        let _ = writeln!(
            out,
            "Claude Code's debug files recorded {} lines of the seated mods' activity (hook runs, `$.ui.log`, timings).\n",
            report.mod_lines
        );
    }
    let _ = writeln!(
        out,
        "Each call runs through Claude Code (headless, `-p`, in namespaces of its own, against a fake Messages API; see `crates/conformance`) and through this engine with the same policy, mode, files and host (`-p` is an SDK host). `ours stricter` and `theirs stricter` order allow < ask < deny; `opposite` is an allow against a deny; `not comparable` is a call Claude Code refused before its permission check (an Edit of a file not read yet, input validation). Every difference is declared (deliberate, with its reason and SPEC section) or known-open (a defect of ours, listed until it is closed) in `crates/conformance/differences.json`; any other fails the run. The copies of the policies Claude Code reads lose `forceLoginMethod` and `forceLoginOrgUUID`, with which it refuses an API key; they decide sign-in, not permissions.\n\nRun: `cargo run --release -p conformance -- run --table CONFORMANCE.md` (Linux, as root: the sandboxes need namespaces); `--slice` runs the fixed slice CI runs.\n"
    );
    let _ = writeln!(out, "| corpus | policy | mode | calls | agree | ours stricter | theirs stricter | opposite | not comparable | declared | known-open | undeclared |");
    let _ = writeln!(
        out,
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut rows: BTreeMap<(String, String, String), [usize; 9]> = BTreeMap::new();
    for r in &report.records {
        let row = rows
            .entry((r.corpus.clone(), r.policy.clone(), r.mode.clone()))
            .or_default();
        row[0] += 1;
        let at = match r.class {
            Class::Agree => 1,
            Class::OursStricter => 2,
            Class::TheirsStricter => 3,
            Class::Opposite => 4,
            Class::NotComparable => 5,
        };
        if let Some(c) = row.get_mut(at) {
            *c += 1;
        }
        let st = match &r.standing {
            Some(Standing::Declared(_)) => Some(6),
            Some(Standing::KnownOpen(_)) => Some(7),
            Some(Standing::Undeclared) => Some(8),
            None => None,
        };
        if let Some(c) = st.and_then(|i| row.get_mut(i)) {
            *c += 1;
        }
    }
    let mut total = [0usize; 9];
    for ((corpus, policy, mode), row) in &rows {
        let _ = write!(out, "| {corpus} | {policy} | {mode} |");
        for (i, n) in row.iter().enumerate() {
            if let Some(t) = total.get_mut(i) {
                *t += n;
            }
            if i == 1 {
                let pct = if row[0] == 0 {
                    0.0
                } else {
                    100.0 * *n as f64 / row[0] as f64
                };
                let _ = write!(out, " {n} ({pct:.0} %) |");
            } else {
                let _ = write!(out, " {n} |");
            }
        }
        let _ = writeln!(out);
    }
    let pct = if total[0] == 0 {
        0.0
    } else {
        100.0 * total[1] as f64 / total[0] as f64
    };
    let _ = writeln!(
        out,
        "| **all** | | | {} | {} ({pct:.0} %) | {} | {} | {} | {} | {} | {} | {} |\n",
        total[0], total[1], total[2], total[3], total[4], total[5], total[6], total[7], total[8]
    );
    for (heading, want_declared) in [
        ("Declared differences", true),
        ("Known-open differences", false),
    ] {
        let mut fams: BTreeMap<String, usize> = BTreeMap::new();
        for r in &report.records {
            match (&r.standing, want_declared) {
                (Some(Standing::Declared(f)), true) | (Some(Standing::KnownOpen(f)), false) => {
                    *fams.entry(f.clone()).or_default() += 1;
                }
                _ => {}
            }
        }
        let _ = writeln!(out, "## {heading}, by family\n");
        if fams.is_empty() {
            let _ = writeln!(out, "None in this run.\n");
            continue;
        }
        let _ = writeln!(out, "| family | calls |\n|---|---:|");
        for (f, n) in fams {
            let _ = writeln!(out, "| {f} | {n} |");
        }
        let _ = writeln!(out);
    }
    let undeclared: Vec<&Record> = report.undeclared().collect();
    let _ = writeln!(out, "## Undeclared differences\n");
    if undeclared.is_empty() {
        let _ = writeln!(out, "None.");
    } else {
        let _ = writeln!(out, "| corpus | policy | mode | tool | call | ours | theirs |\n|---|---|---|---|---|---|---|");
        for r in undeclared.iter().take(200) {
            let theirs = match &r.theirs {
                Theirs::Decided(d) => d.as_str().to_owned(),
                Theirs::NotChecked(_) => "-".to_owned(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | `{}` | {}{} | {theirs} |",
                r.corpus,
                r.policy,
                r.mode,
                r.tool,
                r.text
                    .replace('|', "\\|")
                    .replace('`', "'")
                    .chars()
                    .take(100)
                    .collect::<String>(),
                r.ours.as_str(),
                if r.uncertain { " (uncertain)" } else { "" },
            );
        }
    }
    if !report.failures.is_empty() {
        let _ = writeln!(out, "\n## Runs that failed\n");
        for f in report.failures.iter().take(50) {
            let _ = writeln!(out, "- {}", f.replace('\n', " "));
        }
    }
    out
}

/// Today's date (UTC) as `YYYY-MM-DD`.
#[must_use]
pub fn today() -> String {
    date_of(std::time::SystemTime::now())
}

/// A time's date (UTC) as `YYYY-MM-DD`.
#[must_use]
pub fn date_of(t: std::time::SystemTime) -> String {
    session::utc_timestamp(t).chars().take(10).collect()
}

/// The workspace's root (two folders above this crate).
#[must_use]
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent()
        .and_then(std::path::Path::parent)
        .map_or(here.clone(), std::path::Path::to_path_buf)
}

/// Known-open entries that would cover the undeclared differences of `report`, one
/// per family: a Bash call's program (its first word past assignments and `cd …
/// &&`), a file tool's place (the working folder, the home folder, elsewhere), a
/// fetch; each with the class it shows. For writing `differences.json`'s
/// `known_open` list after a run, to be read and named by a person.
#[must_use]
pub fn suggest(records: &[Record]) -> Vec<crate::compare::Difference> {
    let mut fams: BTreeMap<(String, String, Class), (Vec<String>, usize)> = BTreeMap::new();
    for r in records
        .iter()
        .filter(|r| r.standing == Some(Standing::Undeclared))
    {
        let (head, globs) = family_of(&r.tool, &r.text);
        let entry = fams
            .entry((r.tool.clone(), head, r.class))
            .or_insert_with(|| (globs, 0));
        entry.1 += 1;
    }
    fams.into_iter()
        .map(
            |((tool, head, class), (globs, n))| crate::compare::Difference {
                family: format!("{tool} {head}: {}", class.as_str()),
                when: crate::compare::When {
                    tool: Some(tool),
                    text: globs,
                    class: Some(class),
                    ..crate::compare::When::default()
                },
                reason: format!("{n} calls in the run that listed it; not yet read"),
                source: "open: Claude Code as the oracle (2 to 4 of 4)".to_owned(),
            },
        )
        .collect()
}

fn family_of(tool: &str, text: &str) -> (String, Vec<String>) {
    match tool {
        "Bash" => {
            let mut words = text.split_whitespace().peekable();
            // Past `cd DIR &&` and assignments.
            loop {
                match words.peek() {
                    Some(w) if w.contains('=') && !w.starts_with('=') && !w.starts_with('-') => {
                        words.next();
                    }
                    Some(&"cd") => {
                        words.next();
                        words.next();
                        if words.peek().is_some_and(|w| *w == "&&" || *w == ";") {
                            words.next();
                        }
                    }
                    _ => break,
                }
            }
            let program = words
                .next()
                .unwrap_or_default()
                .trim_matches(|c: char| !(c.is_alphanumeric() || "-_./".contains(c)))
                .to_owned();
            let program = if program.is_empty() {
                "(other)".to_owned()
            } else {
                program
            };
            let globs = vec![
                program.clone(),
                format!("{program} *"),
                format!("* {program} *"),
                format!("*/{program} *"),
            ];
            (format!("`{program}`"), globs)
        }
        "Read" | "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => {
            if text.starts_with("{cwd}")
                || text.starts_with("$CWD")
                || !text.starts_with('/')
                    && !text.starts_with('~')
                    && !text.starts_with('{')
                    && !text.starts_with('$')
            {
                (
                    "in the working folder".to_owned(),
                    vec!["{cwd}*".into(), "$CWD*".into(), "[!/~{$]*".into()],
                )
            } else if text.starts_with("{home}")
                || text.starts_with("$HOME")
                || text.starts_with('~')
            {
                (
                    "in the home folder".to_owned(),
                    vec!["{home}*".into(), "$HOME*".into(), "~*".into()],
                )
            } else {
                ("elsewhere".to_owned(), vec!["/*".into()])
            }
        }
        _ => ("any input".to_owned(), Vec::new()),
    }
}
