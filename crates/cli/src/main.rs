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

mod args;
mod audit;
mod check;
mod error;
mod mods_check;
mod out;
mod policy_show;
mod replay;
mod source;
mod test_cmd;
mod text;

use args::{
    machine_inputs, HookArgs, MachineInputs, ManagedArgs, OutputArgs, PersonArgs, PolicyArgs,
    SettingsArgs, UserArgs,
};
use clap::{Parser, Subcommand};
use error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code: everything held.
pub const EXIT_OK: u8 = 0;
/// Exit code: a scenario or attack failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad input.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code: the managed policy cannot be read.
pub const EXIT_POLICY_UNREADABLE: u8 = 3;

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
    #[command(mut_arg("settings", |a| a.help(
        "A person's settings file whose enabledPlugins (through its extraKnownMarketplaces) \
         name the person's plugins to seat"
    )))]
    Audit {
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        hooks: HookArgs,
        #[command(flatten)]
        person: PersonArgs,
        #[command(flatten)]
        output: OutputArgs,
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
        #[command(flatten)]
        output: OutputArgs,
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
    #[command(mut_arg("user", |a| a.help(
        "The user settings file (default: ~/.claude/settings.json)"
    )))]
    #[command(mut_arg("settings", |a| a.help(
        "A settings file given as --settings to the agent (the flag source)"
    )))]
    Check {
        /// `TOOL INPUT` (INPUT a JSON object, or the command, path or URL as text), or
        /// one call in rule syntax: 'Bash(git push --force)'.
        #[arg(required = true, num_args = 1..=2, value_name = "CALL")]
        call: Vec<String>,
        #[command(flatten)]
        managed: ManagedArgs,
        #[command(flatten)]
        user: UserArgs,
        /// The project folder whose .claude/settings.json and settings.local.json are
        /// read (default: the working folder).
        #[arg(long, value_name = "DIR")]
        project: Option<PathBuf>,
        #[command(flatten)]
        settings: SettingsArgs,
        /// The working folder the call is judged in (default: the current folder).
        #[arg(long, value_name = "DIR")]
        cwd: Option<PathBuf>,
        /// The mode the session was given (default: as the settings start it).
        #[arg(long, value_name = "MODE")]
        mode: Option<String>,
        /// Append the decision to this hash-chained decision log (JSON lines).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        #[command(flatten)]
        hooks: HookArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Replay the tool calls of real sessions (Claude Code transcripts, folders of them
    /// such as ~/.claude/projects, Codex rollouts, or a previous replay's --json) through
    /// the policy: calls by decision per session and tool, every deny and ask with its
    /// rule, what the person did next to what the policy says now, the holds; with
    /// --against, the calls whose verdict differs under a second policy.
    #[command(mut_arg("user", |a| a.help(
        "A user settings file read by every session (default: none)"
    )))]
    #[command(mut_arg("json", |a| a.help(
        "JSON lines: one per call, then one summary line with the counts"
    )))]
    Replay {
        /// Transcripts (*.jsonl), folders of them, or - for standard input.
        #[arg(required = true, value_name = "TRANSCRIPT|FOLDER")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        policy: PolicyArgs,
        /// A second managed folder: report the calls whose verdict differs under it.
        #[arg(long, value_name = "DIR")]
        against: Option<PathBuf>,
        #[command(flatten)]
        user: UserArgs,
        #[command(flatten)]
        person: PersonArgs,
        /// Append every decision to this hash-chained decision log (JSON lines).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        #[command(flatten)]
        hooks: HookArgs,
        #[command(flatten)]
        output: OutputArgs,
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
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Subcommand)]
enum ModsCommand {
    /// What a mod hooks, which $ calls it makes, which environment variables and options
    /// it uses, or why it cannot load; with --managed or --example, what the security
    /// default holds over it under that policy.
    #[command(mut_arg("managed", |a| a.help(
        "Judge the mod against this managed folder's policy"
    )))]
    #[command(mut_arg("example", |a| a.help(
        "Judge the mod against the example policy embedded in this binary"
    )))]
    Check {
        /// The mod's folder (the one holding .claude-plugin/plugin.json).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Show what the security default reads from the managed policy.
    Show {
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
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
            policy,
            hooks,
            person,
            output,
        } => {
            let machine = machine_inputs(&policy, &UserArgs::default(), &person, &hooks);
            run_audit(&machine, output.json)
        }
        Command::Test {
            paths,
            compare,
            managed,
            output,
        } => test_cmd::run(&paths, compare, managed, output.json),
        Command::Policy {
            command: PolicyCommand::Show { policy, output },
        } => policy_show::run(&policy.source(), output.json),
        Command::Check {
            call,
            managed,
            user,
            project,
            settings,
            cwd,
            mode,
            log,
            hooks,
            output,
        } => {
            // `check` has no --example, and reads no person's plugins.
            let policy = PolicyArgs {
                folder: managed,
                example: false,
            };
            let person = PersonArgs {
                plugin_dirs: Vec::new(),
                settings,
            };
            check::run(&check::CheckArgs {
                call,
                machine: machine_inputs(&policy, &user, &person, &hooks),
                project,
                cwd,
                mode,
                log,
                json: output.json,
            })
        }
        Command::Replay {
            paths,
            policy,
            against,
            user,
            person,
            log,
            hooks,
            output,
        } => replay::run(&replay::ReplayArgs {
            paths,
            machine: machine_inputs(&policy, &user, &person, &hooks),
            against,
            log,
            json: output.json,
        }),
        Command::Log {
            command: LogCommand::Verify { file, output },
        } => check::verify(&file, output.json),
        Command::Mods {
            command:
                ModsCommand::Check {
                    dir,
                    policy,
                    output,
                },
        } => mods_check::run(&dir, policy.given(), output.json),
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

/// Runs `audit` on the machine the flags name: the report on standard output; exit 0
/// when every attack held, 1 when one breached, 2 or 3 when it could not run.
fn run_audit(machine: &MachineInputs, json: bool) -> u8 {
    let source = &machine.policy;
    match audit::run(source, machine.hooks, &machine.person) {
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
        Err(e) => out::fail("audit", &e.to_cli_error(source), json),
    }
}
