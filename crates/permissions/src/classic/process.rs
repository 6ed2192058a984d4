//! Processes (SPEC §4 "Classic hooks", §3.8; reference §4.4): the matching
//! `PreToolUse` handlers of one call run in parallel ([`ClassicHooks::run_pre_tool_use`]),
//! each as `sh -c <command>` (or `command` with `args`) as the [`HookRunner`] says:
//! normally, not at all, or sandboxed in a scratch folder with a cap; its timeout kept
//! (its process group killed past it), its output capped, and its exit read as
//! documented, with SPEC §4's failures.

use super::answer::{capped, read_answer, Combined, HookAnswer, HookRun, RunResult};
use super::sources::{truncate, ClassicHooks, Handler, HandlerKind};
use super::verdict::normalize_input;
use super::PRE_TOOL_USE;
use crate::Decision;
use crate::SessionFacts;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A command hook's timeout when it gives none (SPEC §4 "Classic hooks").
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How the engine runs the commands of classic hooks (SPEC §4 "Classic hooks":
/// an audit never runs the commands of a policy it did not write unless told).
///
/// Only `command` handlers are concerned: a managed handler this engine cannot run
/// (another type, no command) fails the same way under every runner, since nothing is
/// started for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HookRunner {
    /// As a session runs them (SPEC §4, §3.8): in the session's working folder, with
    /// the host process's environment overlaid with the session's, within the
    /// handler's own `timeout`.
    #[default]
    Normal,
    /// Never started: every command handler that matches answers "not run"
    /// ([`RunResult::NotRun`]), which decides nothing, managed or not.
    NotRun,
    /// Each run in a fresh, empty scratch folder made for it under the system's
    /// temporary folder (its `home` is `HOME`, its `work` the working folder,
    /// `CLAUDE_PROJECT_DIR` and the input's `cwd`), with an environment of `PATH`
    /// only besides those, within `cap` or the handler's own `timeout`, whichever is
    /// shorter. Its process group is killed when it ends and the folder removed.
    /// This keeps a hook's ordinary effects off the auditor's files; it is no
    /// sandbox against a hostile program (absolute paths stay writable).
    Sandboxed {
        /// The wall-clock cap of every run.
        cap: Duration,
    },
}

/// The reason every command handler gives under [`HookRunner::NotRun`] (SPEC §4
/// "Classic hooks").
pub const NOT_RUN_REASON: &str = "its command was not run (hooks are not run unless asked)";

/// The most a hook's stdout or stderr is kept (the rest is read and dropped).
const OUTPUT_CAP: usize = 1 << 20;

impl ClassicHooks {
    /// Runs the `PreToolUse` hooks that match the call described by `input` (the
    /// classic hook's JSON input, [`pre_tool_use_input`]; `tool`/`input` are read as
    /// `tool_name`/`tool_input` when those are missing) and combines their answers. Each
    /// hook's process gets the host process's environment overlaid with `env`, the
    /// session's environment (SPEC §3.8: the programs the engine starts see the pinned
    /// variables as the session holds them), then `CLAUDE_PROJECT_DIR`.
    ///
    /// SPEC §4 "Classic hooks", §3.8.
    ///
    /// [`pre_tool_use_input`]: super::pre_tool_use_input
    #[must_use]
    pub fn run_pre_tool_use(
        &self,
        input: &Value,
        facts: &SessionFacts,
        env: &BTreeMap<String, String>,
    ) -> Combined {
        self.run_pre_tool_use_with(input, facts, env, HookRunner::Normal)
    }

    /// [`ClassicHooks::run_pre_tool_use`] with the commands run as `runner` says
    /// ([`HookRunner`]): normally, not at all, or each in a scratch folder with a cap.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn run_pre_tool_use_with(
        &self,
        input: &Value,
        facts: &SessionFacts,
        env: &BTreeMap<String, String>,
        runner: HookRunner,
    ) -> Combined {
        let stdin = normalize_input(input, facts);
        let tool = stdin
            .get("tool_name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let null = Value::Null;
        let tool_input = stdin.get("tool_input").unwrap_or(&null);
        let handlers = self.matching(PRE_TOOL_USE, &tool, tool_input, facts);
        let cwd = facts.cwd.as_path();
        let runs: Vec<HookRun> = std::thread::scope(|s| {
            let jobs: Vec<_> = handlers
                .iter()
                .map(|h| {
                    let stdin = &stdin;
                    s.spawn(move || run_handler(h, stdin, cwd, env, runner))
                })
                .collect();
            jobs.into_iter()
                .zip(&handlers)
                .map(|(j, h)| {
                    j.join().unwrap_or_else(|_| HookRun {
                        handler: (*h).clone(),
                        result: RunResult::Failed("the hook runner panicked".to_owned()),
                    })
                })
                .collect()
        });
        Combined::of(runs)
    }
}

/// What a process did (SPEC §4 "Classic hooks").
#[derive(Debug, Clone, Default)]
struct Execution {
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

fn run_handler(
    h: &Handler,
    stdin: &Value,
    cwd: &Path,
    env: &BTreeMap<String, String>,
    runner: HookRunner,
) -> HookRun {
    let result = match (&h.kind, runner) {
        (HandlerKind::Unrunnable(why), _) => RunResult::Failed(why.clone()),
        (HandlerKind::Command { .. }, HookRunner::NotRun) => {
            RunResult::NotRun(NOT_RUN_REASON.to_owned())
        }
        (HandlerKind::Command { command, args }, HookRunner::Normal) => {
            let mut cmd = command_of(command, args.as_deref());
            if cwd.is_dir() {
                cmd.current_dir(cwd);
            }
            cmd.envs(env);
            cmd.env("CLAUDE_PROJECT_DIR", cwd);
            let bytes = serde_json::to_vec(stdin).unwrap_or_default();
            if h.is_async {
                let timeout = h.timeout;
                std::thread::spawn(move || {
                    let _ = execute(cmd, &bytes, timeout, false);
                });
                RunResult::Started
            } else {
                match execute(cmd, &bytes, h.timeout, false) {
                    Ok(exec) => interpret(&exec, h.timeout),
                    Err(e) => RunResult::Failed(format!("could not be started: {e}")),
                }
            }
        }
        (HandlerKind::Command { command, args }, HookRunner::Sandboxed { cap }) => {
            run_sandboxed(h, command, args.as_deref(), stdin, cap)
        }
    };
    HookRun {
        handler: h.clone(),
        result,
    }
}

/// `sh -c command`, or `command` with `args` (no shell).
fn command_of(command: &str, args: Option<&[String]>) -> Command {
    match args {
        Some(args) => {
            let mut c = Command::new(command);
            c.args(args);
            c
        }
        None => {
            let mut c = Command::new("sh");
            c.arg("-c").arg(command);
            c
        }
    }
}

/// A scratch folder of its own for one sandboxed run, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    /// A fresh folder under the system's temporary folder, created (never reused: a
    /// name that exists is skipped), with empty `home` and `work` inside.
    fn new() -> std::io::Result<Scratch> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        let mut last = None;
        for _ in 0..16 {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default();
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let dir = base.join(format!(
                "sec-default-hook-{}-{n}-{stamp:x}",
                std::process::id()
            ));
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    let scratch = Scratch(dir);
                    std::fs::create_dir(scratch.home())?;
                    std::fs::create_dir(scratch.work())?;
                    return Ok(scratch);
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free scratch folder name")))
    }

    fn home(&self) -> std::path::PathBuf {
        self.0.join("home")
    }

    fn work(&self) -> std::path::PathBuf {
        self.0.join("work")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `PATH` a sandboxed hook gets: the host process's, or the usual folders.
fn sandbox_path() -> std::ffi::OsString {
    std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into())
}

/// Runs one command handler as [`HookRunner::Sandboxed`] says: a scratch folder of its
/// own (home and working folder, which the input's `cwd` and `transcript_path` point
/// into), `PATH`, `HOME` and `CLAUDE_PROJECT_DIR` only, the shorter of `cap` and its own
/// timeout, its process group killed at the end. An `async` handler is awaited (the
/// scratch folder must outlive it) and decides nothing.
fn run_sandboxed(
    h: &Handler,
    command: &str,
    args: Option<&[String]>,
    stdin: &Value,
    cap: Duration,
) -> RunResult {
    let scratch = match Scratch::new() {
        Ok(s) => s,
        Err(e) => return RunResult::Failed(format!("no scratch folder could be made for it: {e}")),
    };
    let (home, work) = (scratch.home(), scratch.work());
    let mut input = stdin.clone();
    if let Some(m) = input.as_object_mut() {
        m.insert("cwd".to_owned(), json!(work.to_string_lossy()));
        m.insert(
            "transcript_path".to_owned(),
            json!(home.join("transcript.jsonl").to_string_lossy()),
        );
    }
    let bytes = serde_json::to_vec(&input).unwrap_or_default();
    let mut cmd = command_of(command, args);
    cmd.current_dir(&work)
        .env_clear()
        .env("PATH", sandbox_path())
        .env("HOME", &home)
        .env("CLAUDE_PROJECT_DIR", &work);
    let timeout = h.timeout.min(cap);
    let result = match execute(cmd, &bytes, timeout, true) {
        Ok(exec) if exec.timed_out && cap < h.timeout => RunResult::Failed(format!(
            "timed out after {} s (the cap of sandboxed runs; its own timeout is {} s)",
            trim_secs(cap.as_secs_f64()),
            trim_secs(h.timeout.as_secs_f64())
        )),
        Ok(exec) => interpret(&exec, timeout),
        Err(e) => RunResult::Failed(format!("could not be started: {e}")),
    };
    drop(scratch);
    if h.is_async {
        RunResult::Started
    } else {
        result
    }
}

fn read_capped(mut r: impl Read) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if out.len() < OUTPUT_CAP {
                    let room = OUTPUT_CAP - out.len();
                    out.extend(buf.iter().take(n.min(room)));
                }
            }
        }
    }
    out
}

fn spawn_reader(r: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    if let Some(r) = r {
        std::thread::spawn(move || {
            let _ = tx.send(read_capped(r));
        });
    } else {
        let _ = tx.send(Vec::new());
    }
    rx
}

#[cfg(unix)]
fn in_own_group(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0);
}

#[cfg(not(unix))]
fn in_own_group(_cmd: &mut Command) {}

/// Kills the child and, on Unix, its whole process group (what `sh -c` started).
fn kill_all(child: &mut Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs `cmd` with `stdin` written to it, stdout and stderr read, and `timeout` kept:
/// past it the process group is killed; with `reap`, it is killed when the command
/// ends too (nothing it left behind outlives the run).
fn execute(
    mut cmd: Command,
    stdin: &[u8],
    timeout: Duration,
    reap: bool,
) -> std::io::Result<Execution> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    in_own_group(&mut cmd);
    let deadline = Instant::now() + timeout;
    let mut child = cmd.spawn()?;
    if let Some(mut pipe) = child.stdin.take() {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&data);
        });
    }
    let out_rx = spawn_reader(child.stdout.take());
    let err_rx = spawn_reader(child.stderr.take());
    let mut exec = Execution::default();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                exec.status = Some(status);
                break;
            }
            Ok(None) => {}
            Err(_) => break,
        }
        if Instant::now() >= deadline {
            exec.timed_out = true;
            kill_all(&mut child);
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // Output: wait for the readers until the deadline (a background grandchild may
    // keep a pipe open); past it, kill the group and give them a moment.
    let collect = |rx: &mpsc::Receiver<Vec<u8>>, child: &mut Child| -> String {
        let left = deadline.saturating_duration_since(Instant::now());
        let bytes = match rx.recv_timeout(left) {
            Ok(b) => b,
            Err(_) => {
                kill_all(child);
                rx.recv_timeout(Duration::from_millis(200))
                    .unwrap_or_default()
            }
        };
        String::from_utf8_lossy(&bytes).into_owned()
    };
    exec.stdout = collect(&out_rx, &mut child);
    exec.stderr = collect(&err_rx, &mut child);
    if reap {
        kill_all(&mut child);
    }
    Ok(exec)
}

/// Reads an execution as documented (reference §4.4), with SPEC §4's failures.
fn interpret(exec: &Execution, timeout: Duration) -> RunResult {
    if exec.timed_out {
        return RunResult::Failed(format!(
            "timed out after {} s",
            trim_secs(timeout.as_secs_f64())
        ));
    }
    let Some(status) = exec.status else {
        return RunResult::Failed("its exit status could not be read".to_owned());
    };
    let Some(code) = status.code() else {
        return RunResult::Failed("it crashed (killed by a signal)".to_owned());
    };
    let out = exec.stdout.trim();
    if code == 2 {
        let reason = capped(&exec.stderr);
        return RunResult::Answered(HookAnswer {
            decision: Some(Decision::Deny),
            reason: Some(if reason.is_empty() {
                "a PreToolUse hook blocked this call (exit code 2)".to_owned()
            } else {
                reason
            }),
            ..HookAnswer::default()
        });
    }
    let parsed = if out.starts_with('{') {
        Some(
            serde_json::from_str::<Value>(out)
                .ok()
                .and_then(|v| read_answer(&v)),
        )
    } else {
        None
    };
    if code == 0 {
        return match parsed {
            None => RunResult::Answered(HookAnswer::default()),
            Some(Some(a)) => RunResult::Answered(a),
            Some(None) => RunResult::Failed("its output is not the documented JSON".to_owned()),
        };
    }
    match parsed {
        Some(Some(a)) if a.decision.is_some() => RunResult::Answered(a),
        _ => {
            let stderr = capped(&exec.stderr);
            let what = if code == 127 {
                "its command was not found (exit code 127)".to_owned()
            } else {
                format!("it exited with code {code} without a decision")
            };
            RunResult::Failed(if stderr.is_empty() {
                what
            } else {
                format!("{what}: {}", truncate(&stderr, 300))
            })
        }
    }
}

fn trim_secs(s: f64) -> String {
    let t = format!("{s:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::pre_tool_use_input;
    use crate::classic::tests::{cmd, facts, hooks_of, one};
    use crate::SettingsSource;

    fn run_with(handler: Value, runner: HookRunner) -> Combined {
        let s = hooks_of(SettingsSource::Policy, json!([handler]));
        let (hooks, _) = ClassicHooks::from_sources(&[(SettingsSource::Policy, &s)]);
        let f = facts();
        let input = json!({"command": "make build"});
        let stdin = pre_tool_use_input("s1", "", &f, "Bash", &input, "t1");
        let env = BTreeMap::from([("SESSION_ONLY".to_owned(), "1".to_owned())]);
        hooks.run_pre_tool_use_with(&stdin, &f, &env, runner)
    }

    #[test]
    fn not_run_starts_nothing_and_decides_nothing() {
        let dir = tempfile_dir("not-run");
        let marker = dir.join("ran");
        let c = run_with(
            json!({"type": "command", "command": format!("touch '{}'; exit 2", marker.display())}),
            HookRunner::NotRun,
        );
        assert!(!marker.exists(), "the command ran");
        assert_eq!(c.answer.decision, None);
        assert_eq!(c.runs.len(), 1);
        assert!(matches!(&c.runs[0].result, RunResult::NotRun(_)));
        assert_eq!(
            c.to_value()["hooks"][0]["result"],
            format!("not run: {NOT_RUN_REASON}")
        );
        // A managed handler this engine cannot run still fails closed: nothing starts.
        let c = run_with(json!({"type": "http", "url": "x"}), HookRunner::NotRun);
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        let _ = std::fs::remove_dir_all(dir);
    }

    fn tempfile_dir(what: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "classic-test-{what}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn sandboxed_runs_in_a_scratch_home_and_folder_with_path_only() {
        let dir = tempfile_dir("sandboxed");
        let log = dir.join("log");
        let script = format!(
            "touch here; touch \"$HOME/home-file\"; {{ pwd; echo \"$HOME\"; env | cut -d= -f1 | sort | tr '\\n' ' '; echo; cat; }} > '{}'",
            log.display()
        );
        let c = run_with(
            json!({"type": "command", "command": script, "timeout": 600000}),
            HookRunner::Sandboxed {
                cap: Duration::from_secs(10),
            },
        );
        assert_eq!(c.answer.decision, None, "{:?}", c.runs[0].result);
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let (pwd, home) = (Path::new(lines[0]), Path::new(lines[1]));
        assert!(pwd.ends_with("work") && home.ends_with("home"), "{text}");
        assert_eq!(pwd.parent(), home.parent());
        // PATH, HOME and CLAUDE_PROJECT_DIR only (the shell adds PWD, SHLVL, `_`).
        let names: Vec<&str> = lines[2].split_whitespace().collect();
        for n in ["PATH", "HOME", "CLAUDE_PROJECT_DIR"] {
            assert!(names.contains(&n), "{names:?}");
        }
        assert!(!names.contains(&"SESSION_ONLY"), "{names:?}");
        for n in &names {
            assert!(
                [
                    "PATH",
                    "HOME",
                    "CLAUDE_PROJECT_DIR",
                    "PWD",
                    "OLDPWD",
                    "SHLVL",
                    "_"
                ]
                .contains(n),
                "{n} leaked into the sandbox: {names:?}"
            );
        }
        let input: Value = serde_json::from_str(lines[3]).unwrap();
        assert_eq!(input["cwd"], pwd.display().to_string());
        // The scratch folder, and what the hook wrote there, is gone.
        assert!(!pwd.parent().unwrap().exists());
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn sandboxed_caps_the_policys_own_timeout() {
        let t = Instant::now();
        let c = run_with(
            json!({"type": "command", "command": "sleep 30", "timeout": 600000}),
            HookRunner::Sandboxed {
                cap: Duration::from_millis(300),
            },
        );
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        let RunResult::Failed(why) = &c.runs[0].result else {
            panic!("{:?}", c.runs[0].result);
        };
        assert!(why.contains("the cap of sandboxed runs"), "{why}");
        // A managed hook that times out fails closed, as under a session.
        assert_eq!(c.answer.decision, Some(Decision::Deny));
    }

    #[test]
    fn exit_2_denies_with_stderr_even_over_json_allow() {
        let c = one(
            SettingsSource::User,
            cmd(
                r#"echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo 'no rm here' >&2; exit 2"#,
            ),
        );
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        assert_eq!(c.answer.reason.as_deref(), Some("no rm here"));
    }

    #[test]
    fn other_exit_codes_count_only_with_a_json_decision() {
        let c = one(
            SettingsSource::Policy,
            cmd(r#"echo '{"decision":"approve"}'; exit 1"#),
        );
        assert_eq!(c.answer.decision, Some(Decision::Allow));
        let c = one(SettingsSource::User, cmd("exit 1"));
        assert_eq!(c.answer.decision, None);
        assert!(matches!(&c.runs[0].result, RunResult::Failed(w) if w.contains("code 1")));
    }

    #[test]
    fn timeout_kills_and_managed_denies() {
        let started = Instant::now();
        let h =
            json!({"type": "command", "command": "echo start; sleep 5; echo late", "timeout": 0.3});
        let c = one(SettingsSource::Policy, h.clone());
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        assert!(c
            .answer
            .reason
            .unwrap_or_default()
            .contains("timed out after 0.3 s"));
        let c = one(SettingsSource::User, h);
        assert_eq!(c.answer.decision, None);
        assert!(matches!(&c.runs[0].result, RunResult::Failed(w) if w.contains("timed out")));
    }
}
