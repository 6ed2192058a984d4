//! The flags several subcommands share, each declared once as a clap `Args` struct and
//! flattened (`#[command(flatten)]`) into every subcommand that takes it, and
//! [`machine_inputs`], the one place they become a machine's inputs: where the managed
//! policy is read, the person's settings and mods, and how classic hooks run.
//!
//! | struct | flags | subcommands |
//! | --- | --- | --- |
//! | [`OutputArgs`] | `--json` | every subcommand (`replay`'s writes JSON lines) |
//! | [`PolicyArgs`] | `--managed`, `--example` | `audit`, `replay`, `policy show`, `mods check` |
//! | [`ManagedArgs`] | `--managed` | `check` (no `--example`), and inside [`PolicyArgs`] |
//! | [`PersonArgs`] | `--plugin-dir`, `--settings` | `audit`, `replay` |
//! | [`SettingsArgs`] | `--settings` | `check`, and inside [`PersonArgs`] |
//! | [`UserArgs`] | `--user` | `check`, `replay` |
//! | [`HookArgs`] | `--run-hooks`, `--hook-timeout` | `audit`, `check`, `replay` |
//!
//! Where a subcommand reads a shared flag otherwise (what `--user` defaults to, what
//! `--settings` is read for, `replay`'s JSON lines, `mods check`'s policy that is none
//! unless named), its own help says so, with `mut_arg` where the struct is flattened.
//! `test --managed` replaces each scenario's policy: another flag under the same name,
//! declared with `test`.

use crate::inputs::{MachineInputs, PersonInputs, PolicySource};
use clap::{Args, Parser, Subcommand};
use session::HookRunner;
use std::path::PathBuf;
use std::time::Duration;

/// `sec-default`: the command line.
#[derive(Parser)]
#[command(
    name = "sec-default",
    version,
    about = "The organization security default: audit managed settings against a person's plugins"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand)]
pub(crate) enum Command {
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

/// `sec-default log ...`.
#[derive(Subcommand)]
pub(crate) enum LogCommand {
    /// Check a decision log's hash chain; name the first line that breaks it.
    Verify {
        /// The log (JSON lines, as `check --log` and `replay --log` write).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// `sec-default mods ...`.
#[derive(Subcommand)]
pub(crate) enum ModsCommand {
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

/// `sec-default policy ...`.
#[derive(Subcommand)]
pub(crate) enum PolicyCommand {
    /// Show what the security default reads from the managed policy.
    Show {
        #[command(flatten)]
        policy: PolicyArgs,
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// The longest `--hook-timeout` (one hour): a cap, not a way to wait forever.
const MAX_HOOK_TIMEOUT_SECS: f64 = 3600.0;

/// `--json`: the report as JSON on standard output; with it, an error is one JSON object
/// there too (`main`'s module docs).
#[derive(Args, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct OutputArgs {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--managed DIR`: the managed folder a command reads (SPEC §2.1 "Locations").
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ManagedArgs {
    /// The managed folder (default: the platform folder; when it does not exist, the
    /// empty policy the engine reads there).
    #[arg(long, value_name = "DIR")]
    pub managed: Option<PathBuf>,
}

/// `--managed DIR` or `--example`: which managed policy a command reads (SPEC §2.1
/// "Locations"; the example is `examples/managed/`, compiled in).
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PolicyArgs {
    /// `--managed`.
    #[command(flatten)]
    pub folder: ManagedArgs,
    /// Read the example policy embedded in this binary.
    #[arg(long, conflicts_with = "managed")]
    pub example: bool,
}

/// Where the flags put the policy.
impl PolicyArgs {
    /// The policy the flags name: the `--managed` folder, the embedded example, or
    /// `None` when neither is given (the command says what that means: the platform
    /// folder for most, no policy at all for `mods check`).
    pub(crate) fn given(&self) -> Option<PolicySource> {
        match (&self.folder.managed, self.example) {
            (Some(dir), _) => Some(PolicySource::Folder(dir.clone())),
            (None, true) => Some(PolicySource::Embedded),
            (None, false) => None,
        }
    }

    /// The policy the flags name, the platform folder when neither flag is given.
    pub(crate) fn source(&self) -> PolicySource {
        self.given()
            .unwrap_or_else(|| PolicySource::Platform(policy::platform_folder()))
    }
}

/// `--settings FILE`: a settings file given to the agent as `--settings` (the `flag`
/// source, SPEC §4), whose `enabledPlugins` (through its `extraKnownMarketplaces`) name
/// a person's plugins (SPEC §6 "Loading"); each command says which of the two it reads
/// it for.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SettingsArgs {
    /// A settings file given as --settings to the agent (the flag source); its
    /// enabledPlugins (through its extraKnownMarketplaces) name a person's plugins.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
}

/// `--user FILE`: the person's user settings (SPEC §4, the `user` source); where it is
/// read from when not given is the command's to say.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct UserArgs {
    /// The user settings file.
    #[arg(long, value_name = "FILE")]
    pub user: Option<PathBuf>,
}

/// `--plugin-dir DIR` and `--settings FILE`: what names a person's plugins (SPEC §6
/// "Loading").
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PersonArgs {
    /// A person's mod folder, seated in every session as `<name>@inline` (repeatable).
    #[arg(long = "plugin-dir", value_name = "DIR")]
    pub plugin_dirs: Vec<PathBuf>,
    /// `--settings`.
    #[command(flatten)]
    pub settings: SettingsArgs,
}

/// `--run-hooks` and `--hook-timeout SECS`: whether the classic hooks' commands run
/// (SPEC §4 "Classic hooks"), and for how long at most.
#[derive(Args, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HookArgs {
    /// Run the classic hooks that match, each in a scratch home and working folder of
    /// its own with PATH only (by default none is run).
    #[arg(long)]
    pub run_hooks: bool,
    /// With --run-hooks: the most each hook may run, in seconds (a hook's own timeout
    /// is used only when shorter).
    #[arg(long, value_name = "SECS", default_value = "10", requires = "run_hooks", value_parser = parse_secs)]
    pub hook_timeout: Duration,
}

/// No hook run: what a command without `--run-hooks` gets.
impl Default for HookArgs {
    fn default() -> HookArgs {
        HookArgs {
            run_hooks: false,
            hook_timeout: Duration::from_secs(10),
        }
    }
}

/// How the flags say the hooks run.
impl HookArgs {
    /// Sandboxed within `--hook-timeout` with `--run-hooks`, else not run at all.
    pub(crate) fn runner(&self) -> HookRunner {
        if self.run_hooks {
            HookRunner::Sandboxed {
                cap: self.hook_timeout,
            }
        } else {
            HookRunner::NotRun
        }
    }
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

/// The machine the shared flags name: the policy (the platform folder unless
/// `--managed` or `--example`), the person's settings and mods, and how hooks run. A
/// command passes `&Default::default()` for a struct it does not flatten.
pub(crate) fn machine_inputs(
    policy: &PolicyArgs,
    user: &UserArgs,
    person: &PersonArgs,
    hooks: &HookArgs,
) -> MachineInputs {
    MachineInputs {
        policy: policy.source(),
        user: user.user.clone(),
        person: PersonInputs {
            plugin_dirs: person.plugin_dirs.clone(),
            settings: person.settings.settings.clone(),
        },
        hooks: hooks.runner(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_hook_timeout_is_positive_and_at_most_an_hour() {
        assert_eq!(parse_secs("2.5").unwrap(), Duration::from_millis(2500));
        assert_eq!(parse_secs(" 3600 ").unwrap(), Duration::from_secs(3600));
        assert!(parse_secs("0").is_err());
        assert!(parse_secs("-1").is_err());
        assert!(parse_secs("3600.5").is_err());
        assert!(parse_secs("soon").is_err());
        assert!(parse_secs("NaN").is_err());
    }

    #[test]
    fn the_flags_name_one_machine() {
        let none = machine_inputs(
            &PolicyArgs::default(),
            &UserArgs::default(),
            &PersonArgs::default(),
            &HookArgs::default(),
        );
        assert_eq!(
            none.policy,
            PolicySource::Platform(policy::platform_folder())
        );
        assert_eq!(none.hooks, HookRunner::NotRun);
        assert!(none.person.is_empty() && none.user.is_none());

        let example = PolicyArgs {
            example: true,
            ..PolicyArgs::default()
        };
        assert_eq!(example.given(), Some(PolicySource::Embedded));
        let folder = PolicyArgs {
            folder: ManagedArgs {
                managed: Some(PathBuf::from("/m")),
            },
            example: false,
        };
        assert_eq!(folder.source(), PolicySource::Folder(PathBuf::from("/m")));

        let hooks = HookArgs {
            run_hooks: true,
            hook_timeout: Duration::from_secs(3),
        };
        assert_eq!(
            hooks.runner(),
            HookRunner::Sandboxed {
                cap: Duration::from_secs(3)
            }
        );
    }
}
