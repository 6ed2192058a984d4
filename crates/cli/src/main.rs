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
//! The commands' logic lives in the [`admin`] library (`audit`, `check`, `replay`,
//! the shared inputs, the reports and their renderers) and in `scenario` (`test`); this
//! binary is arguments, output and exit codes. Where each concern lives:
//!
//! | file | concern |
//! | --- | --- |
//! | `main.rs` | dispatch: a parsed command line to the library call that runs it, its output, exit codes, the progress bar |
//! | `args.rs` | the command line: the subcommand tree, the flags several share, and the machine they name |
//! | `test_cmd.rs` | `test`: scenario files |
//! | `policy_show.rs` | `policy show` |
//! | `mods_check.rs` | `mods check` |
//! | `log_verify.rs` | `log verify` |
//! | `out.rs` | standard output and errors as reported (with `--json`, as JSON) |
#![forbid(unsafe_code)]

mod args;
mod log_verify;
mod mods_check;
mod out;
mod policy_show;
mod test_cmd;

use admin::{audit, check, error, exit, inputs, replay};

use args::{
    machine_inputs, Cli, Command, LogCommand, ModsCommand, PersonArgs, PolicyArgs, PolicyCommand,
    UserArgs,
};
use clap::Parser;
use error::CommandError;
use inputs::MachineInputs;
use std::process::ExitCode;

/// Exit code: everything held.
pub const EXIT_OK: u8 = exit::OK;
/// Exit code: a scenario or attack failed.
pub const EXIT_FAILED: u8 = exit::FAILED;
/// Exit code: bad input.
pub const EXIT_BAD_INPUT: u8 = exit::BAD_INPUT;
/// Exit code: the managed policy cannot be read.
pub const EXIT_POLICY_UNREADABLE: u8 = exit::POLICY_UNREADABLE;

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
            run_check(
                &check::CheckRequest {
                    call,
                    machine: machine_inputs(&policy, &user, &person, &hooks),
                    project,
                    cwd,
                    mode,
                    log,
                },
                output.json,
            )
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
        } => run_replay(&replay::ReplayRequest {
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
        let err = CommandError::new(None, reason, EXIT_BAD_INPUT);
        let json = serde_json::to_string_pretty(&err.to_json()).unwrap_or_default();
        let _ = out::print(&format!("{json}\n"));
    }
    EXIT_BAD_INPUT
}

/// Runs `audit` on the machine the flags name: the report on standard output; exit 0
/// when every attack held, 1 when one breached, 2 or 3 when it could not run.
fn run_audit(machine: &MachineInputs, json: bool) -> u8 {
    let source = &machine.policy;
    let bar = Bar::new("audit {bar:30} {pos}/{len} {msg} ({eta})", "audit");
    match audit::audit(source, machine.hooks, &machine.person, &bar) {
        Ok(report) => {
            let code = if report.breaches() == 0 {
                EXIT_OK
            } else {
                EXIT_FAILED
            };
            out::report("audit", json, &report.to_json(), || report.render(), code)
        }
        Err(e) => out::fail("audit", &e.to_command_error(source), json),
    }
}

/// Runs `check`: the explanation on standard output (JSON with `json`), exit 0, 2 for
/// a call that cannot be read, 3 for a policy that cannot be read.
fn run_check(request: &check::CheckRequest, json: bool) -> u8 {
    match check::check(request) {
        Ok(report) => out::report(
            "check",
            json,
            &report,
            || report.render(),
            report.exit_code(),
        ),
        Err(e) => out::fail("check", &e, json),
    }
}

/// Runs `replay`: the report on standard output as it is written (JSON lines with
/// `--json`), a bar on a terminal; exit 0, 2 for a file that is no transcript, 3 for a
/// policy that cannot be read.
fn run_replay(request: &replay::ReplayRequest) -> u8 {
    let bar = Bar::new(
        "replay {bar:30} {bytes}/{total_bytes} {msg} ({eta})",
        "replay",
    );
    let out = Box::new(std::io::BufWriter::with_capacity(
        1 << 16,
        std::io::stdout().lock(),
    ));
    match replay::replay(request, out, &bar) {
        Ok(done) => match done.write_error {
            None => done.exit_code,
            Some(e) => out::after_write_error(&e, done.exit_code, "replay"),
        },
        Err(e) => out::fail("replay", &e, request.json),
    }
}

/// A long command's progress, drawn as a bar on standard error when it is a terminal
/// (indicatif's `template`) and hidden when standard error is piped or a file, so
/// reports and snapshots never carry it; its warnings said on standard error.
struct Bar {
    bar: indicatif::ProgressBar,
    command: &'static str,
}

impl Bar {
    fn new(template: &str, command: &'static str) -> Bar {
        use std::io::IsTerminal;
        let bar = if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(0);
            if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar
        } else {
            indicatif::ProgressBar::hidden()
        };
        Bar { bar, command }
    }
}

impl admin::Progress for Bar {
    fn grow(&self, by: u64) {
        self.bar.inc_length(by);
    }
    fn advance(&self, by: u64) {
        self.bar.inc(by);
    }
    fn at(&self, done: u64) {
        self.bar.set_position(done);
    }
    fn doing(&self, what: String) {
        self.bar.set_message(what);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
    fn warn(&self, line: &str) {
        self.bar.suspend(|| out::say(self.command, line));
    }
}
