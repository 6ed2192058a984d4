//! `sec-default`: audit an organization's managed settings against a person's plugins,
//! run scenario files, and show what the security default reads.
//!
//! Exit codes: 0 ok / everything holds; 1 a scenario or attack failed; 2 bad input (a
//! scenario file that is not valid, a `--managed` folder that does not exist); 3 the
//! managed policy cannot be read.
#![forbid(unsafe_code)]

mod audit;
mod policy_show;
mod test_cmd;

use clap::{Parser, Subcommand};
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
    Audit {
        /// The managed folder (default: the platform folder, or the embedded example when that does not exist).
        #[arg(long, value_name = "DIR")]
        managed: Option<PathBuf>,
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
}

#[derive(Subcommand)]
enum PolicyCommand {
    /// Show what the security default reads from the managed policy.
    Show {
        /// The managed folder (default: the platform folder).
        #[arg(long, value_name = "DIR")]
        managed: Option<PathBuf>,
        /// Print machine-readable JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Audit { managed, json } => run_audit(managed, json),
        Command::Test {
            paths,
            compare,
            managed,
            json,
        } => test_cmd::run(&paths, compare, managed, json),
        Command::Policy {
            command: PolicyCommand::Show { managed, json },
        } => policy_show::run(managed, json),
    };
    ExitCode::from(code)
}

fn run_audit(managed: Option<PathBuf>, json: bool) -> u8 {
    let source = match managed {
        Some(dir) => audit::AuditSource::Folder(dir),
        None => {
            let platform = policy::platform_folder();
            if platform.exists() {
                audit::AuditSource::Platform(platform)
            } else {
                audit::AuditSource::Embedded
            }
        }
    };
    match audit::run(&source) {
        Ok(report) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
                );
            } else {
                print!("{}", report.render());
            }
            if report.breaches() == 0 {
                EXIT_OK
            } else {
                EXIT_FAILED
            }
        }
        Err(audit::AuditError::PolicyUnreadable(e)) => {
            eprintln!("sec-default audit: {e}");
            EXIT_POLICY_UNREADABLE
        }
        Err(e) => {
            eprintln!("sec-default audit: {e}");
            EXIT_BAD_INPUT
        }
    }
}
