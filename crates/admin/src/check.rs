//! `sec-default check TOOL INPUT` / `check 'Tool(spec)'`: the verdict the machine's
//! settings give one call, and why (SPEC §1.6, §3.6, §4).
//!
//! It reads the sources a session reads (the managed folder, `~/.claude/settings.json`,
//! the project's `.claude/settings.json` and `.claude/settings.local.json`, `--settings`),
//! raises `tool.check` in a session with the security default seated as the engine
//! seats it, and explains the verdict: the rule that decided with its file, line and
//! JSON pointer; every rule that meets the call at each stage; for a shell command, its
//! parts and what each meets; the classic hooks that would run (never run); the mode;
//! and whether the security default holds the verdict over a person's plugin.
//!
//! | file | concern |
//! | --- | --- |
//! | `check.rs` | the call and the settings files read, the session |
//! | `check/explain.rs` | why the call gets its verdict |
//! | `check/report.rs` | the report as types (`--json` prints them), its one rendering in words, the exit code |

/// Why the call gets its verdict.
mod explain;
pub mod report;

pub use report::CheckReport;

use crate::error::CommandError;
use crate::inputs::MachineInputs;
use crate::inputs::PolicySource;
use permissions::{Mode, SettingsSource};
use policy::{ManagedLocation, Policy};
use serde_json::{json, Value};
use session::{SessionConfig, SettingsInput, SettingsInputs};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What `check` reads: the call and every source, each overridable.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// `TOOL INPUT` (two words) or `Tool(spec)` (one).
    pub call: Vec<String>,
    /// The managed folder (the platform folder unless `--managed`), the person's user
    /// settings (`~/.claude/settings.json` unless `--user`), a `--settings FILE` (the
    /// `flag` source), and how the classic hooks' commands run: not at all (the
    /// default), or sandboxed as `audit --run-hooks` runs them.
    pub machine: MachineInputs,
    /// The project folder (default: the working folder): its `.claude/settings.json`
    /// and `.claude/settings.local.json`.
    pub project: Option<PathBuf>,
    /// The working folder the call is judged in (default: the current folder).
    pub cwd: Option<PathBuf>,
    /// The mode the session was given (default: as SPEC §4 "Mode at start" says).
    pub mode: Option<String>,
    /// Append the decision to this hash-chained log.
    pub log: Option<PathBuf>,
}

impl CheckRequest {
    /// A request for `call` on `machine`, with every other input at its default (the
    /// working folder as project and working folder, the mode SPEC §4 says, no log).
    #[must_use]
    pub fn new(call: Vec<String>, machine: MachineInputs) -> CheckRequest {
        CheckRequest {
            call,
            machine,
            project: None,
            cwd: None,
            mode: None,
            log: None,
        }
    }
}

/// One settings file as read: its source, path, and what became of it.
struct SourceRead {
    source: SettingsSource,
    path: PathBuf,
    input: SettingsInput,
    /// The parsed document (for positions), when it is JSON.
    doc: Option<policy::json::JsonDoc>,
    /// Why it cannot be used (missing files are not listed).
    problem: Option<String>,
}

/// Why a call cannot be read (the engine's verdict for it is an ask).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnreadableCall(String);

/// A call in rule syntax or as `TOOL INPUT`, read into a tool and its input (SPEC §4
/// "Rule syntax"); or why it cannot be read.
fn parse_call(call: &[String]) -> Result<(String, Value), UnreadableCall> {
    parse_call_words(call).map_err(UnreadableCall)
}

/// [`parse_call`], the reason a plain sentence.
fn parse_call_words(call: &[String]) -> Result<(String, Value), String> {
    match call {
        [one] => {
            let one = one.trim();
            if one.is_empty() {
                return Err("the call names no tool".to_owned());
            }
            let Some(open) = one.find('(') else {
                return Ok((one.to_owned(), json!({})));
            };
            let Some(inner) = one.strip_suffix(')').and_then(|s| s.get(open + 1..)) else {
                return Err(if one.contains(')') {
                    format!("{one:?} has text after the call's closing parenthesis")
                } else {
                    format!("{one:?} opens a parenthesis it does not close")
                });
            };
            let tool = one.get(..open).unwrap_or_default().trim().to_owned();
            if tool.is_empty() {
                return Err(format!("{one:?} names no tool"));
            }
            Ok((tool.clone(), input_of(&tool, inner)))
        }
        [tool, input] => {
            let tool = tool.trim().to_owned();
            if tool.is_empty() {
                return Err("the call names no tool".to_owned());
            }
            match serde_json::from_str::<Value>(input) {
                Ok(v @ Value::Object(_)) => Ok((tool, v)),
                Ok(_) => Err(format!(
                    "the input {input:?} is JSON but not an object; give an object or plain text"
                )),
                Err(_) => Ok((tool.clone(), input_of(&tool, input))),
            }
        }
        _ => Err("give TOOL INPUT, or one call in rule syntax such as 'Bash(git push)'".to_owned()),
    }
}

/// The input a tool's one argument stands for (SPEC §4: the field each rule kind reads).
fn input_of(tool: &str, arg: &str) -> Value {
    match tool {
        "Bash" => json!({ "command": arg }),
        "Read" | "Edit" | "Write" | "MultiEdit" => json!({ "file_path": arg }),
        "NotebookEdit" | "NotebookRead" => json!({ "notebook_path": arg }),
        "Glob" | "Grep" => json!({ "pattern": arg, "path": "." }),
        "WebFetch" => {
            let url = arg
                .strip_prefix("domain:")
                .map_or_else(|| arg.to_owned(), |d| format!("https://{d}/"));
            json!({ "url": url })
        }
        "WebSearch" => json!({ "query": arg }),
        _ => json!({ "input": arg }),
    }
}

/// Reads one settings file: absent (not an error), its JSON, or why not (position).
fn read_source(source: SettingsSource, path: PathBuf) -> SourceRead {
    // As the managed files are read: a regular file of at most 16 MiB, opened so that a
    // FIFO cannot hang it (SPEC §2.1).
    let bytes = match policy::json::read_bounded(&path) {
        Ok(b) => b,
        Err(policy::json::BoundedReadError::NotFound) => {
            return SourceRead {
                source,
                path,
                input: SettingsInput::Absent,
                doc: None,
                problem: None,
            }
        }
        Err(e) => {
            let problem = Some(format!("{}: cannot be read: {e}", path.display()));
            return SourceRead {
                source,
                path,
                input: SettingsInput::Unreadable,
                doc: None,
                problem,
            };
        }
    };
    match policy::json::parse(&bytes) {
        Ok(doc) => {
            let problem = (!doc.value.is_object()).then(|| {
                format!(
                    "{}: not a JSON object; the engine reads no rule from it",
                    path.display()
                )
            });
            SourceRead {
                source,
                path,
                input: SettingsInput::Value(doc.value.clone()),
                doc: Some(doc),
                problem,
            }
        }
        Err(e) => SourceRead {
            source,
            input: SettingsInput::Raw(String::from_utf8_lossy(&bytes).into_owned()),
            problem: Some(format!(
                "{}:{}:{}: not JSON ({}); the engine reads no rule from it",
                path.display(),
                e.at.line,
                e.at.column,
                e.message
            )),
            path,
            doc: None,
        },
    }
}

/// Runs `check`: the verdict the machine gives the call, explained.
///
/// The report's [`CheckReport::exit_code`] is 0 with the verdict; 2 for a call that
/// cannot be read (the engine's verdict for it is still reported); 3 when the managed
/// policy cannot be read (it counts as in force, and the verdict says what that does).
///
/// # Errors
///
/// A [`CommandError`] (exit 2) for the embedded example as policy, a `--managed`,
/// `--project` or `--cwd` folder that does not exist, a mode that is not one, a
/// decision log that cannot be opened or written; (exit 2 or 3) a managed policy read
/// that does not fail closed.
pub fn check(args: &CheckRequest) -> Result<CheckReport, Box<CommandError>> {
    let folders = Folders::of(args)?;
    let mode = mode_of(args.mode.as_deref())?;
    let call = parse_call(&args.call);
    let reads = read_sources(args, &folders);
    let managed = &folders.managed;
    let present = managed.exists();
    let policy_read = if present {
        policy::read_policy(&ManagedLocation::Explicit(managed.clone()))
    } else {
        Ok(Policy::empty())
    };
    if let Err(e) = &policy_read {
        if !e.is_fail_closed() {
            return Err(Box::new(CommandError::from_policy(e)));
        }
    }
    let [user, project, local, flag] = reads.each_ref().map(|r| r.input.clone());
    let settings = SettingsInputs {
        user,
        project,
        local,
        flag,
    };
    // The session reads an empty folder where the platform folder does not exist.
    let empty = (!present)
        .then(crate::source::TempFolder::empty)
        .and_then(Result::ok);
    let folder = empty
        .as_ref()
        .map_or_else(|| managed.clone(), |t| t.path().to_path_buf());
    let (cwd, home) = (&folders.cwd, &folders.home);
    let config = |seated: bool| SessionConfig {
        settings: settings.clone(),
        mode,
        seated,
        hook_runner: args.machine.hooks,
        ..SessionConfig::new(&folder, cwd, home)
    };
    let log = args.log.as_deref().map(open_log).transpose()?;
    let report = match call {
        // SPEC §4: what the core cannot read is never allowed; the engine asks.
        Err(why) => unreadable(&args.call, &why),
        Ok((tool, input)) => {
            let logged = || {
                let mut c = config(true);
                c.decisions = log
                    .clone()
                    .map(|l| l as std::sync::Arc<dyn session::DecisionSink>);
                c
            };
            CheckReport::Explained(Box::new(explain::explain(
                &tool,
                &input,
                &reads,
                &policy_read,
                managed,
                &config,
                &logged,
                (cwd, home),
            )))
        }
    };
    if let (Some(l), Some(path)) = (&log, &args.log) {
        close_log(l, path)?;
    }
    Ok(report)
}

/// The folders a check reads, each absolute or as given.
struct Folders {
    /// The working folder the call is judged in.
    cwd: PathBuf,
    /// The person's home (`HOME`).
    home: PathBuf,
    /// The project folder.
    project: PathBuf,
    /// The managed folder.
    managed: PathBuf,
}

impl Folders {
    /// The folders `args` names, with their defaults.
    ///
    /// # Errors
    ///
    /// Bad input: the embedded example as policy; a `--managed`, `--project` or `--cwd`
    /// folder that does not exist (a typo must not read as "no policy").
    fn of(args: &CheckRequest) -> Result<Folders, Box<CommandError>> {
        let cwd = args
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        let cwd = std::path::absolute(&cwd).unwrap_or(cwd);
        let home = std::env::var_os("HOME").map_or_else(|| PathBuf::from("/"), PathBuf::from);
        let project = args.project.clone().unwrap_or_else(|| cwd.clone());
        let (managed, named) = match &args.machine.policy {
            PolicySource::Folder(dir) => (dir.clone(), Some(dir.clone())),
            PolicySource::Platform(dir) => (dir.clone(), None),
            PolicySource::Embedded => {
                return Err(Box::new(CommandError::new(
                    None,
                    "check reads a managed folder, not the embedded example",
                    crate::exit::BAD_INPUT,
                )));
            }
        };
        for (flag, given) in [
            ("--managed", &named),
            ("--project", &args.project),
            ("--cwd", &args.cwd),
        ] {
            if let Some(dir) = given.as_ref().filter(|d| !d.is_dir()) {
                return Err(Box::new(CommandError::parsed(
                    format!(
                        "{}: the {flag} folder given does not exist or is not a folder",
                        dir.display()
                    ),
                    dir,
                    crate::exit::BAD_INPUT,
                )));
            }
        }
        Ok(Folders {
            cwd,
            home,
            project,
            managed,
        })
    }
}

/// The mode `--mode` names, if any.
///
/// # Errors
///
/// Bad input: a mode that is not one (SPEC §4 "Modes").
fn mode_of(mode: Option<&str>) -> Result<Option<Mode>, Box<CommandError>> {
    mode.map(str::parse::<Mode>).transpose().map_err(|e| {
        Box::new(CommandError::new(
            None,
            format!("--mode: {e}"),
            crate::exit::BAD_INPUT,
        ))
    })
}

/// The person's settings files a session reads: user, project, local, and the
/// `--settings` file (flag) when given.
fn read_sources(args: &CheckRequest, folders: &Folders) -> [SourceRead; 4] {
    let claude = folders.project.join(".claude");
    [
        read_source(
            SettingsSource::User,
            args.machine
                .user
                .clone()
                .unwrap_or_else(|| folders.home.join(".claude").join("settings.json")),
        ),
        read_source(SettingsSource::Project, claude.join("settings.json")),
        read_source(SettingsSource::Local, claude.join("settings.local.json")),
        match &args.machine.person.settings {
            Some(p) => read_source(SettingsSource::Flag, p.clone()),
            None => SourceRead {
                source: SettingsSource::Flag,
                path: PathBuf::new(),
                input: SettingsInput::Absent,
                doc: None,
                problem: None,
            },
        },
    ]
}

/// The report on a call that cannot be read: the engine asks (SPEC §4).
fn unreadable(call: &[String], why: &UnreadableCall) -> CheckReport {
    CheckReport::Unreadable(report::Unreadable {
        call: call.to_vec(),
        error: report::UnreadableError {
            reason: why.to_string(),
            exit_code: crate::exit::BAD_INPUT,
        },
        verdict: report::AskVerdict {
            decision: "ask",
            reason: format!(
                "the call cannot be read ({why}); the engine asks before what it cannot read"
            ),
        },
    })
}

/// The decision log at `path`, opened to append.
///
/// # Errors
///
/// Bad input: it cannot be opened (the file and why).
fn open_log(path: &Path) -> Result<Arc<session::DecisionLog>, Box<CommandError>> {
    session::DecisionLog::create(path)
        .map(Arc::new)
        .map_err(|e| {
            Box::new(CommandError::parsed(
                format!("{}: the decision log cannot be opened: {e}", path.display()),
                path,
                crate::exit::BAD_INPUT,
            ))
        })
}

/// Flushes the decision log at `path`.
///
/// # Errors
///
/// Bad input: a line could not be written (the file and why).
fn close_log(log: &session::DecisionLog, path: &Path) -> Result<(), Box<CommandError>> {
    let flushed = log.flush().err().map(|e| e.to_string());
    match log.error().or(flushed) {
        None => Ok(()),
        Some(e) => Err(Box::new(CommandError::parsed(
            format!(
                "{}: the decision log cannot be written: {e}",
                path.display()
            ),
            path,
            crate::exit::BAD_INPUT,
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn calls_read_in_rule_syntax_and_as_tool_input() {
        let one = |s: &str| parse_call(&[s.to_owned()]);
        assert_eq!(
            one("Bash(git push --force)").unwrap(),
            ("Bash".to_owned(), json!({"command": "git push --force"}))
        );
        assert_eq!(
            one("Read(./.env)").unwrap(),
            ("Read".to_owned(), json!({"file_path": "./.env"}))
        );
        assert_eq!(
            one("WebFetch(domain:example.com)").unwrap(),
            (
                "WebFetch".to_owned(),
                json!({"url": "https://example.com/"})
            )
        );
        assert!(one("Bash(git push").is_err());
        assert!(one("(x)").is_err());
        let two = |t: &str, i: &str| parse_call(&[t.to_owned(), i.to_owned()]);
        assert_eq!(
            two("Bash", r#"{"command": "ls"}"#).unwrap().1,
            json!({"command": "ls"})
        );
        assert_eq!(
            two("Bash", "rm -rf /").unwrap().1,
            json!({"command": "rm -rf /"})
        );
        assert!(two("Bash", "[1]").is_err());
    }
}
