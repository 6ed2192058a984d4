//! `conformance`: Claude Code as the oracle (see the `conformance` library).
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use conformance::fake_api::ScriptedCall;
use conformance::sandbox::{self, ProcessSpec};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "conformance",
    about = "Claude Code as the oracle: the same calls through Claude Code and this engine, side by side"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Runs the corpora through Claude Code and this engine, prints the table, and
    /// exits 1 when a difference is neither declared nor known-open.
    Run {
        /// Which corpora.
        #[arg(long, value_enum, default_value_t = Corpus::All)]
        corpus: Corpus,
        /// The fixed slice CI runs instead of the whole corpora: every 12th scenario
        /// group; every third everyday call in the default mode under each policy; the
        /// same with the first two adversary mods.
        #[arg(long)]
        slice: bool,
        /// Writes the table (Markdown) here, e.g. CONFORMANCE.md.
        #[arg(long)]
        table: Option<PathBuf>,
        /// Writes the run's report (every call's record, JSON) here.
        #[arg(long)]
        records: Option<PathBuf>,
        /// The differences list (default: crates/conformance/differences.json).
        #[arg(long)]
        differences: Option<PathBuf>,
        /// At most this many groups (for trying the harness out).
        #[arg(long)]
        limit: Option<usize>,
        /// Writes known-open entries that would cover the undeclared differences, one
        /// per family (JSON), for a person to read, name and add to the list.
        #[arg(long)]
        suggest: Option<PathBuf>,
    },
    /// Runs a few calls through Claude Code and prints what its stream said.
    Probe {
        /// The managed folder to put on /etc/claude-code.
        #[arg(long)]
        managed: Option<PathBuf>,
        /// The permission mode.
        #[arg(long, default_value = "default")]
        mode: String,
        /// Bash commands to run, one call each, all in one batch.
        commands: Vec<String>,
    },
    /// Known-open entries (JSON) that would cover the undeclared differences of a
    /// run's report (`run --records`), one per family.
    Suggest {
        /// The report of a run.
        records: PathBuf,
        /// The differences list (default: crates/conformance/differences.json).
        #[arg(long)]
        differences: Option<PathBuf>,
    },
    /// The table of a run's report (`run --records`) under the differences list as it
    /// is now; exits 1 when a difference is neither declared nor known-open.
    Table {
        /// The report of a run.
        records: PathBuf,
        /// The differences list (default: crates/conformance/differences.json).
        #[arg(long)]
        differences: Option<PathBuf>,
        /// The table's title.
        #[arg(long, default_value = "Conformance")]
        title: String,
        /// Writes the table here as well (e.g. CONFORMANCE.md).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The inside of a sandbox (run by the harness under unshare).
    #[command(hide = true)]
    Sandbox {
        /// The process spec (JSON).
        spec: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Corpus {
    All,
    Scenarios,
    Everyday,
    Mods,
}

/// Every 12th group of the scenarios corpus is in the slice CI runs.
const SLICE_STRIDE: usize = 12;

/// The slice's share of a developer's day: every third call, in corpus order.
fn every_third(mut g: conformance::corpus::Group) -> conformance::corpus::Group {
    g.calls = g.calls.into_iter().step_by(3).collect();
    g
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Cmd::Run {
            corpus,
            slice,
            table,
            records,
            differences,
            limit,
            suggest,
        } => run(corpus, slice, table, records, differences, limit, suggest),
        Cmd::Suggest {
            records,
            differences,
        } => match read_report(&records, differences) {
            Ok(report) => {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&conformance::run::suggest(&report.records))
                        .unwrap_or_default()
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("conformance: {e}");
                ExitCode::from(2)
            }
        },
        Cmd::Table {
            records,
            differences,
            title,
            out,
        } => match read_report(&records, differences) {
            Ok(report) => {
                let date = std::fs::metadata(&records)
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .map_or_else(conformance::run::today, conformance::run::date_of);
                let text = conformance::run::table(&report, &title, &date);
                print!("{text}");
                if let Some(path) = out {
                    if let Err(e) = std::fs::write(&path, &text) {
                        eprintln!("conformance: {}: {e}", path.display());
                        return ExitCode::from(2);
                    }
                }
                if report.undeclared().next().is_some() {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(e) => {
                eprintln!("conformance: {e}");
                ExitCode::from(2)
            }
        },
        Cmd::Sandbox { spec } => {
            sandbox::print(&sandbox::inside(&spec));
            ExitCode::SUCCESS
        }
        Cmd::Probe {
            managed,
            mode,
            commands,
        } => {
            let Some(claude) = installed() else {
                return ExitCode::from(2);
            };
            let batch = commands
                .iter()
                .enumerate()
                .map(|(i, c)| ScriptedCall {
                    id: format!("toolu_probe_{i}"),
                    tool: "Bash".to_owned(),
                    input: serde_json::json!({"command": c}),
                })
                .collect();
            let spec = ProcessSpec {
                claude,
                managed,
                mode,
                files: std::collections::BTreeMap::new(),
                batches: vec![batch],
                plugin_dir: None,
                call_timeout_ms: 5000,
                process_timeout_s: 60,
            };
            match sandbox::run(&spec) {
                Ok(r) => {
                    println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("conformance: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

fn run(
    corpus: Corpus,
    slice: bool,
    table: Option<PathBuf>,
    records: Option<PathBuf>,
    differences: Option<PathBuf>,
    limit: Option<usize>,
    suggest: Option<PathBuf>,
) -> ExitCode {
    let root = conformance::run::workspace_root();
    let shared = root
        .parent()
        .map_or_else(|| root.join("../shared"), |p| p.join("shared"));
    let diff_path = differences.unwrap_or_else(|| root.join("crates/conformance/differences.json"));
    let diffs = match conformance::compare::Differences::read(&diff_path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("conformance: {e}");
            return ExitCode::from(2);
        }
    };
    let mut groups = Vec::new();
    if matches!(corpus, Corpus::All | Corpus::Scenarios) {
        let roots = [root.join("examples/scenarios"), shared.join("cases")];
        match conformance::corpus::scenarios(&roots) {
            Ok(g) => groups.extend(
                g.into_iter()
                    .enumerate()
                    .filter(|(i, _)| !slice || i % SLICE_STRIDE == 0)
                    .map(|(_, g)| g),
            ),
            Err(e) => {
                eprintln!("conformance: the scenarios corpus: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if matches!(corpus, Corpus::All | Corpus::Everyday) {
        let file = root.join("crates/conformance/corpora/everyday.json");
        match conformance::corpus::everyday(&file, &shared.join("real-inputs/managed")) {
            Ok(g) => groups.extend(
                g.into_iter()
                    .filter(|g| !slice || g.mode.as_deref() == Some("default"))
                    .map(|g| if slice { every_third(g) } else { g }),
            ),
            Err(e) => {
                eprintln!("conformance: the everyday corpus: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if matches!(corpus, Corpus::All | Corpus::Mods) {
        let file = root.join("crates/conformance/corpora/everyday.json");
        let policy = shared.join("real-inputs/managed/hardening");
        match conformance::corpus::mods(&file, &policy, &root.join("examples/mods")) {
            Ok(g) => groups.extend(
                g.into_iter()
                    .take(if slice { 2 } else { usize::MAX })
                    .map(|g| if slice { every_third(g) } else { g }),
            ),
            Err(e) => {
                eprintln!("conformance: the mods corpus: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(n) = limit {
        groups.truncate(n);
    }
    let Some(claude) = installed() else {
        return ExitCode::from(2);
    };
    let calls: usize = groups.iter().map(|g| g.calls.len()).sum();
    eprintln!(
        "conformance: {} groups, {calls} calls, Claude Code {}",
        groups.len(),
        conformance::CLAUDE_CODE_VERSION
    );
    let report = conformance::run::run(&groups, &claude, &diffs, &mut |done, all, r| {
        if done % 25 == 0 || done == all {
            eprintln!(
                "conformance: {done}/{all} groups, {} calls compared, {} undeclared, {:.0} s in Claude Code",
                r.records.len(),
                r.undeclared().count(),
                r.claude_seconds
            );
        }
    });
    let title = if slice {
        "Conformance (CI slice)"
    } else {
        "Conformance"
    };
    let text = conformance::run::table(&report, title, &conformance::run::today());
    print!("{text}");
    if let Some(path) = table {
        if let Err(e) = std::fs::write(&path, &text) {
            eprintln!("conformance: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if let Some(path) = records {
        let json = serde_json::to_string_pretty(&report).unwrap_or_default();
        if let Err(e) = std::fs::write(&path, json) {
            eprintln!("conformance: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if let Some(path) = suggest {
        let json = serde_json::to_string_pretty(&conformance::run::suggest(&report.records))
            .unwrap_or_default();
        if let Err(e) = std::fs::write(&path, json) {
            eprintln!("conformance: {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if report.processes == 0 && !groups.is_empty() {
        eprintln!(
            "conformance: no Claude Code process ran: {}",
            report.failures.first().map_or("", String::as_str)
        );
        return ExitCode::from(2);
    }
    let undeclared = report.undeclared().count();
    if undeclared > 0 {
        eprintln!(
            "conformance: {undeclared} undeclared differences (neither declared nor known-open)"
        );
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

fn differences_path(given: Option<PathBuf>) -> PathBuf {
    given.unwrap_or_else(|| {
        conformance::run::workspace_root().join("crates/conformance/differences.json")
    })
}

/// A run's report, each record's standing taken again under the differences list.
fn read_report(
    path: &std::path::Path,
    differences: Option<PathBuf>,
) -> Result<conformance::run::RunReport, String> {
    let diffs = conformance::compare::Differences::read(&differences_path(differences))
        .map_err(|e| e.to_string())?;
    let bytes =
        boundedfs::read_bounded(path, 1 << 30).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut report: conformance::run::RunReport =
        serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    report.restand(&diffs);
    Ok(report)
}

/// The pinned Claude Code binary, installed into the cache first if need be; `None`
/// (said on standard error) when npm cannot install it.
fn installed() -> Option<PathBuf> {
    let cache = conformance::install::default_cache();
    match conformance::install::ensure_installed(&cache) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("conformance: {e}");
            None
        }
    }
}
