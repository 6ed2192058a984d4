//! `sec-default`: audit an organization's managed settings against a person's plugins,
//! run scenario files, and show what the security default reads.
//!
//! Exit codes: 0 ok / everything holds; 1 a scenario or attack failed; 2 bad input (a
//! scenario file that is not valid, a path holding no scenario, a `--managed` folder
//! that does not exist, a command line that does not parse, an output that cannot be
//! written); 3 the managed policy cannot be read. A reader that closes standard output
//! early (`| head`) ends the command quietly with the code of what it had done.
//!
//! With `--json`, every error is one JSON object on standard output, `{"error":
//! {"file", "line", "column", "pointer", "reason", "exit_code"}}`; JSON keys are
//! `snake_case` in every command.
#![forbid(unsafe_code)]

mod audit;
mod check;
mod error;
mod mods_check;
mod out;
mod policy_show;
mod replay;
mod source;
mod test_cmd;

use clap::{Parser, Subcommand};
use error::CliError;
use session::HookRunner;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Exit code: everything held.
pub const EXIT_OK: u8 = 0;
/// Exit code: a scenario or attack failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad input.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code: the managed policy cannot be read.
pub const EXIT_POLICY_UNREADABLE: u8 = 3;

/// The longest `--hook-timeout` (one hour): a cap, not a way to wait forever.
const MAX_HOOK_TIMEOUT_SECS: f64 = 3600.0;

#[derive(Parser)]
#[command(
    name = "sec-default",
    version,
    about = "The organization security default: audit managed settings against a person's plugins"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the built-in catalogue of attacks against a managed folder, seated and unseated.
    Audit {
        /// The managed folder (default: the platform folder; when it does not exist, the
        /// empty policy the engine reads there).
        #[arg(long, value_name = "DIR", conflicts_with = "example")]
        managed: Option<PathBuf>,
        /// Audit the example policy embedded in this binary.
        #[arg(long)]
        example: bool,
        /// Run the policy's classic hook commands, each in a scratch home and working
        /// folder of its own with PATH only (by default none is run).
        #[arg(long)]
        run_hooks: bool,
        /// With --run-hooks: the most each hook may run, in seconds (the policy's own
        /// timeout is never used when longer).
        #[arg(long, value_name = "SECS", default_value = "10", requires = "run_hooks", value_parser = parse_secs)]
        hook_timeout: Duration,
        /// A person's mod folder, seated in every session as `<name>@inline` (repeatable).
        #[arg(long = "plugin-dir", value_name = "DIR")]
        plugin_dirs: Vec<PathBuf>,
        /// A person's settings file whose enabledPlugins (through its
        /// extraKnownMarketplaces) name the person's plugins to seat.
        #[arg(long, value_name = "FILE")]
        settings: Option<PathBuf>,
        /// Print machine-readable JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run scenario files (SCENARIOS.md) and folders of them.
    Test {
        /// Scenario files or folders.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Also run each scenario unseated and show what sec-default changed.
        #[arg(long)]
        compare: bool,
        /// Replace every scenario's policy with this managed folder.
        #[arg(long, value_name = "DIR")]
        managed: Option<PathBuf>,
        /// Print machine-readable JSON.
        #[arg(long)]
        json: bool,
    },
    /// Managed policy commands.
    Policy {
        #[command(subcommand)]
        command: PolicyCommand,
    },
    /// The verdict the machine's settings give one call, and why: the rule that
    /// decided with its file, line and JSON pointer, every rule that meets it, the
    /// shell command's parts, the classic hooks that would run (never run), the mode,
    /// and whether the security default holds it over a person's plugin.
    Check {
        /// `TOOL INPUT` (INPUT a JSON object, or the command, path or URL as text), or
        /// one call in rule syntax: 'Bash(git push --force)'.
        #[arg(required = true, num_args = 1..=2, value_name = "CALL")]
        call: Vec<String>,
        /// The managed folder (default: the platform folder).
        #[arg(long, value_name = "DIR")]
        managed: Option<PathBuf>,
        /// The user settings file (default: ~/.claude/settings.json).
        #[arg(long, value_name = "FILE")]
        user: Option<PathBuf>,
        /// The project folder whose .claude/settings.json and settings.local.json are
        /// read (default: the working folder).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        /// A settings file given as --settings to the agent (the flag source).
        #[arg(long, value_name = "FILE")]
        settings: Option<PathBuf>,
        /// The working folder the call is judged in (default: the current folder).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// The mode the session was given (default: as the settings start it).
        #[arg(long, value_name = "MODE")]
        mode: Option<String>,
        /// Append the decision to this hash-chained decision log (JSON lines).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        /// Run the classic hooks that match, each in a scratch home and working folder of
        /// its own with PATH only, as `audit --run-hooks` does (by default none is run).
        #[arg(long)]
        run_hooks: bool,
        /// With --run-hooks: the most each hook may run, in seconds.
        #[arg(long, value_name = "SECS", default_value = "10", requires = "run_hooks", value_parser = parse_secs)]
        hook_timeout: Duration,
        /// Print machine-readable JSON.
        #[arg(long)]
        json: bool,
    },
    /// Replay the tool calls of real sessions (Claude Code transcripts, folders of them
    /// such as ~/.claude/projects, Codex rollouts, or a previous replay's --json) through
    /// the policy: calls by decision per session and tool, every deny and ask with its
    /// rule, what the person did next to what the policy says now, the holds; with
    /// --against, the calls whose verdict differs under a second policy.
    Replay {
        /// Transcripts (*.jsonl), folders of them, or - for standard input.
        #[arg(required = true, value_name = "TRANSCRIPT|FOLDER")]
        paths: Vec<PathBuf>,
        /// The managed folder (default: the platform folder).
        #[arg(long, value_name = "DIR", conflicts_with = "example")]
        managed: Option<PathBuf>,
        /// Replay under the example policy embedded in this binary.
        #[arg(long)]
        example: bool,
        /// A second managed folder: report the calls whose verdict differs under it.
        #[arg(long, value_name = "DIR")]
        against: Option<PathBuf>,
        /// A user settings file read by every session (default: none).
        #[arg(long, value_name = "FILE")]
        user: Option<PathBuf>,
        /// A settings file given as --settings to the agent (the flag source); its
        /// enabledPlugins (through its extraKnownMarketplaces) name a person's plugins.
        #[arg(long, value_name = "FILE")]
        settings: Option<PathBuf>,
        /// A person's mod folder, seated in every session as `<name>@inline` (repeatable).
        #[arg(long = "plugin-dir", value_name = "DIR")]
        plugin_dirs: Vec<PathBuf>,
        /// Append every decision to this hash-chained decision log (JSON lines).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        /// Run the classic hooks that match, each in a scratch home and working folder of
        /// its own with PATH only (by default none is run).
        #[arg(long)]
        run_hooks: bool,
        /// With --run-hooks: the most each hook may run, in seconds.
        #[arg(long, value_name = "SECS", default_value = "10", requires = "run_hooks", value_parser = parse_secs)]
        hook_timeout: Duration,
        /// JSON lines: one per call, then one summary line with the counts.
        #[arg(long)]
        json: bool,
    },
    /// Decision log commands.
    Log {
        #[command(subcommand)]
        command: LogCommand,
    },
    /// Mod commands.
    Mods {
        #[command(subcommand)]
        command: ModsCommand,
    },
}

#[derive(Subcommand)]
enum LogCommand {
    /// Check a decision log's hash chain; name the first line that breaks it.
    Verify {
        /// The log (JSON lines, as `check --log` and `replay --log` write).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Print machine-readable JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum ModsCommand {
    /// What a mod hooks, which $ calls it makes, which environment variables and options
    /// it uses, or why it cannot load; with --managed or --example, what the security
    /// default holds over it under that policy.
    Check {
        /// The mod's folder (the one holding .claude-plugin/plugin.json).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// Judge the mod against this managed folder's policy.
        #[arg(long, value_name = "DIR", conflicts_with = "example")]
        managed: Option<PathBuf>,
        /// Judge the mod against the example policy embedded in this binary.
        #[arg(long)]
        example: bool,
        /// Print machine-readable JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Show what the security default reads from the managed policy.
    Show {
        /// The managed folder (default: the platform folder; when it does not exist, the
        /// empty policy the engine reads there).
        #[arg(long, value_name = "DIR", conflicts_with = "example")]
        managed: Option<PathBuf>,
        /// Show the example policy embedded in this binary.
        #[arg(long)]
        example: bool,
        /// Print machine-readable JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `--hook-timeout`: a positive number of seconds, at most an hour.
fn parse_secs(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= MAX_HOOK_TIMEOUT_SECS) {
        return Err(format!(
            "{text:?}: give more than 0 and at most {MAX_HOOK_TIMEOUT_SECS} seconds"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// A progress bar on standard error when it is a terminal, drawn with `template`
/// (indicatif's); hidden when standard error is piped or a file, so reports and
/// snapshots never carry it.
pub(crate) fn progress_bar(total: u64, template: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}

fn main() -> ExitCode {
    ExitCode::from(run())
}

fn run() -> u8 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return command_line_error(&e),
    };
    match cli.command {
        Command::Audit {
            managed,
            example,
            run_hooks,
            hook_timeout,
            plugin_dirs,
            settings,
            json,
        } => {
            let hooks = if run_hooks {
                HookRunner::Sandboxed { cap: hook_timeout }
            } else {
                HookRunner::NotRun
            };
            let person = audit::PersonInputs {
                plugin_dirs,
                settings,
            };
            run_audit(managed, example, hooks, &person, json)
        }
        Command::Test {
            paths,
            compare,
            managed,
            json,
        } => test_cmd::run(&paths, compare, managed, json),
        Command::Policy {
            command:
                PolicyCommand::Show {
                    managed,
                    example,
                    json,
                },
        } => policy_show::run(managed, example, json),
        Command::Check {
            call,
            managed,
            user,
            project,
            settings,
            cwd,
            mode,
            log,
            run_hooks,
            hook_timeout,
            json,
        } => check::run(&check::CheckArgs {
            call,
            managed,
            user,
            project,
            settings,
            cwd,
            mode,
            log,
            hooks: if run_hooks {
                HookRunner::Sandboxed { cap: hook_timeout }
            } else {
                HookRunner::NotRun
            },
            json,
        }),
        Command::Replay {
            paths,
            managed,
            example,
            against,
            user,
            settings,
            plugin_dirs,
            log,
            run_hooks,
            hook_timeout,
            json,
        } => replay::run(&replay::ReplayArgs {
            paths,
            managed,
            example,
            against,
            user,
            settings,
            plugin_dirs,
            log,
            hooks: if run_hooks {
                HookRunner::Sandboxed { cap: hook_timeout }
            } else {
                HookRunner::NotRun
            },
            json,
        }),
        Command::Log {
            command: LogCommand::Verify { file, json },
        } => check::verify(&file, json),
        Command::Mods {
            command:
                ModsCommand::Check {
                    dir,
                    managed,
                    example,
                    json,
                },
        } => {
            let source = match (managed, example) {
                (Some(dir), _) => Some(audit::AuditSource::Folder(dir)),
                (None, true) => Some(audit::AuditSource::Embedded),
                (None, false) => None,
            };
            mods_check::run(&dir, source, json)
        }
    }
}

/// A command line clap refuses (exit 2), or `--help`/`--version` (exit 0): clap's text
/// on its stream, and with `--json` among the arguments, an error as one JSON object.
fn command_line_error(e: &clap::Error) -> u8 {
    use std::io::Write as _;
    let text = e.render().to_string();
    if !e.use_stderr() {
        // --help, --version: the text is the output.
        return match out::print(&text) {
            Ok(()) => EXIT_OK,
            Err(err) => out::after_write_error(&err, EXIT_OK, "help"),
        };
    }
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
    // `args_os`: an argument that is not UTF-8 must not panic here.
    if std::env::args_os().any(|a| a == "--json") {
        let reason = text
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_owned();
        let err = CliError::new(None, reason, EXIT_BAD_INPUT);
        let json = serde_json::to_string_pretty(&err.to_json()).unwrap_or_default();
        let _ = out::print(&format!("{json}\n"));
    }
    EXIT_BAD_INPUT
}

fn run_audit(
    managed: Option<PathBuf>,
    example: bool,
    hooks: HookRunner,
    person: &audit::PersonInputs,
    json: bool,
) -> u8 {
    let source = match (managed, example) {
        (Some(dir), _) => audit::AuditSource::Folder(dir),
        (None, true) => audit::AuditSource::Embedded,
        (None, false) => audit::AuditSource::Platform(policy::platform_folder()),
    };
    match audit::run(&source, hooks, person) {
        Ok(report) => {
            let code = if report.breaches() == 0 {
                EXIT_OK
            } else {
                EXIT_FAILED
            };
            let text = if json {
                let mut t = serde_json::to_string_pretty(&report.to_json()).unwrap_or_default();
                t.push('\n');
                t
            } else {
                report.render()
            };
            match out::print(&text) {
                Ok(()) => code,
                Err(e) => out::after_write_error(&e, code, "audit"),
            }
        }
        Err(e) => out::fail("audit", &e.to_cli_error(&source), json),
    }
}
