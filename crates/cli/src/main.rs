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
//!
//! Where each concern lives:
//!
//! | file | concern |
//! | --- | --- |
//! | `main.rs` | dispatch: a parsed command line to the subcommand that runs it, exit codes |
//! | `args.rs` | the command line: the subcommand tree, the flags several share, and the machine they name |
//! | `inputs.rs` | the inputs commands share: where the policy is read, a person's plugins named and read |
//! | `audit.rs`, `audit/` | `audit`, and what the security default holds over a person's mods (`mods check`) |
//! | `check.rs`, `check/` | `check`: one call's verdict, explained |
//! | `replay/` | `replay`: transcripts read, replayed and reported |
//! | `test_cmd.rs` | `test`: scenario files |
//! | `policy_show.rs` | `policy show` |
//! | `mods_check.rs` | `mods check` |
//! | `log_verify.rs` | `log verify` |
//! | `source.rs` | which managed folder a command reads, and the example compiled in |
//! | `text.rs` | how reports write chosen text: one escaper, one width-aware fit |
//! | `error.rs`, `out.rs` | errors as reported (with `--json`, as JSON), and standard output |
#![forbid(unsafe_code)]

mod args;
mod audit;
mod check;
mod error;
mod inputs;
mod log_verify;
mod mods_check;
mod out;
mod policy_show;
mod replay;
mod source;
mod test_cmd;
mod text;

use args::{
    machine_inputs, Cli, Command, LogCommand, ModsCommand, PersonArgs, PolicyArgs, PolicyCommand,
    UserArgs,
};
use clap::Parser;
use error::CliError;
use inputs::MachineInputs;
use std::process::ExitCode;

/// Exit code: everything held.
pub const EXIT_OK: u8 = 0;
/// Exit code: a scenario or attack failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: bad input.
pub const EXIT_BAD_INPUT: u8 = 2;
/// Exit code: the managed policy cannot be read.
pub const EXIT_POLICY_UNREADABLE: u8 = 3;

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
        } => log_verify::run(&file, output.json),
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
