//! One Claude Code process in namespaces of its own
//! (`../shared/reference/claude-code-oracle.md`, "Isolation").
//!
//! The harness re-runs its own binary under `unshare --mount --net --pid --fork`
//! (`conformance sandbox SPEC`). Inside, as root of the new namespaces only, it:
//!
//! 1. brings the loopback interface up (the only network there is);
//! 2. mounts a fresh tmpfs on `/tmp`, `/var/tmp` and `/dev/shm`, and an overlay on
//!    `/etc` whose writes land in that tmpfs, so the policy under test is written to
//!    `/etc/claude-code` of this namespace alone and no `/etc/claude-code` is ever left
//!    on the machine;
//! 3. seeds a throwaway home (`/tmp/cc/home`) and working folder (`/tmp/cc/work`)
//!    with the files the calls name, owned by an unprivileged uid (65534);
//! 4. serves the scripted batches on the loopback address ([`crate::fake_api`]);
//! 5. runs Claude Code as that uid, headless (`-p`, `--output-format stream-json`),
//!    with a time limit per call (`BASH_DEFAULT_TIMEOUT_MS`) and per process, and
//!    prints what each tool result said as JSON ([`ProcessResult`]).
//!
//! Nothing a call does reaches the host: its writes land in the tmpfs, its network
//! is the namespace's loopback, and the pid namespace ends every process it started
//! when the sandbox ends.

use crate::fake_api::{FakeApi, ScriptedCall};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The unprivileged uid and gid Claude Code runs as (`nobody`): `bypassPermissions`
/// refuses root, and nothing it runs may write the host's files.
pub const RUN_UID: u32 = 65534;

/// Where the throwaway home is, inside the sandbox.
pub const SANDBOX_HOME: &str = "/tmp/cc/home";
/// Where the throwaway working folder is, inside the sandbox.
pub const SANDBOX_CWD: &str = "/tmp/cc/work";
/// The binary's folder is bound here (the cache may sit under a folder the uid
/// cannot enter, or under `/tmp`, which the sandbox replaces).
const BIN_MOUNT: &str = "/mnt";
const SANDBOX_PLUGIN: &str = "/tmp/cc/plugin";
const SANDBOX_DEBUG: &str = "/tmp/cc/debug.log";

/// What one Claude Code process is given.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProcessSpec {
    /// The Claude Code binary on the host.
    pub claude: PathBuf,
    /// The managed folder to put on `/etc/claude-code` (its `managed-settings.json`,
    /// `managed-settings.d/`, `managed-mcp.json`); `None` for no policy.
    pub managed: Option<PathBuf>,
    /// The permission mode (`--permission-mode`).
    pub mode: String,
    /// Files to seed: paths under `work/` (the working folder) or `home/`.
    pub files: BTreeMap<String, String>,
    /// The batches of calls, paths already written for the sandbox's folders.
    pub batches: Vec<Vec<ScriptedCall>>,
    /// A person's plugin folder, given as `--plugin-dir`.
    pub plugin_dir: Option<PathBuf>,
    /// The most one Bash call may run, in milliseconds.
    pub call_timeout_ms: u64,
    /// The most the whole process may run, in seconds.
    pub process_timeout_s: u64,
}

/// What one tool result of the stream said.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StreamResult {
    /// The `tool_use` id.
    pub id: String,
    /// Its `tool_result_meta` entry, when the stream gave one.
    pub meta: Option<Value>,
    /// The result's text (first 400 characters).
    pub text: String,
    /// Whether the result is an error.
    pub is_error: bool,
}

/// What a sandboxed Claude Code process gave back.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ProcessResult {
    /// One entry per tool result seen, in stream order.
    pub results: Vec<StreamResult>,
    /// The plugins the `init` line listed.
    pub plugins: Vec<String>,
    /// Main-loop batches the fake API handed out.
    pub batches_served: usize,
    /// Why the process did not run to its end, if it did not.
    pub error: Option<String>,
    /// Seconds from start to end of the Claude Code process.
    pub seconds: f64,
    /// The debug file's lines naming a plugin (`[name] …`), when a plugin was given.
    pub debug: Vec<String>,
    /// The last lines Claude Code wrote to its standard error.
    pub stderr_tail: String,
    /// The first lines of the stream, as written (for a run that went wrong).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub raw: Vec<String>,
}

/// Errors of running a sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A step of setting up or starting failed.
    #[error("{step}: {source}")]
    Io {
        /// The step.
        step: &'static str,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A setup command exited non-zero.
    #[error("{0}")]
    Setup(String),
    /// The sandbox printed no readable result.
    #[error("the sandbox gave no result: {0}")]
    NoResult(String),
}

fn io(step: &'static str) -> impl FnOnce(std::io::Error) -> SandboxError {
    move |source| SandboxError::Io { step, source }
}

/// Runs `spec` in a sandbox of its own (outside: spawns `unshare` on this binary) and
/// returns what Claude Code did. Needs root (for the namespaces) and `unshare`,
/// `mount`, `ip`, `setpriv`, `chown` on `PATH`.
///
/// # Errors
/// When the sandbox cannot start or prints no result.
pub fn run(spec: &ProcessSpec) -> Result<ProcessResult, SandboxError> {
    let dir = tempfile::tempdir().map_err(io("a folder for the spec"))?;
    let spec_path = dir.path().join("spec.json");
    let text = serde_json::to_vec(spec).map_err(|e| SandboxError::Setup(e.to_string()))?;
    std::fs::write(&spec_path, text).map_err(io("writing the spec"))?;
    let me = std::env::current_exe().map_err(io("finding this binary"))?;
    let mut child = Command::new("unshare")
        .args([
            "--mount",
            "--net",
            "--pid",
            "--fork",
            "--kill-child",
            "--propagation",
            "private",
            "--",
        ])
        .arg(&me)
        .arg("sandbox")
        .arg(&spec_path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io("starting unshare"))?;
    let deadline = Duration::from_secs(spec.process_timeout_s + 30);
    let started = Instant::now();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let out_thread = std::thread::spawn(move || read_all(stdout));
    let err_thread = std::thread::spawn(move || read_all(stderr));
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => {
                return Err(SandboxError::Io {
                    step: "waiting for the sandbox",
                    source: e,
                })
            }
        }
    }
    let out = out_thread.join().unwrap_or_default();
    let err = err_thread.join().unwrap_or_default();
    serde_json::from_str(out.trim())
        .map_err(|e| SandboxError::NoResult(format!("{e}; stderr: {}", tail(&err, 600))))
}

fn read_all(r: Option<impl std::io::Read>) -> String {
    let mut s = String::new();
    if let Some(mut r) = r {
        let _ = r.read_to_string(&mut s);
    }
    s
}

fn tail(s: &str, n: usize) -> String {
    let start = s.len().saturating_sub(n);
    let start = (start..s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    s.get(start..).unwrap_or_default().to_owned()
}

/// The inside of the sandbox (`conformance sandbox SPEC`): sets up, runs Claude Code,
/// prints a [`ProcessResult`] on standard output. Never returns an error: what went
/// wrong is the result's `error`.
#[must_use]
pub fn inside(spec_path: &Path) -> ProcessResult {
    let spec: ProcessSpec = match boundedfs::read_bounded(spec_path, 64 << 20)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            return ProcessResult {
                error: Some(format!("{}: {e}", spec_path.display())),
                ..ProcessResult::default()
            }
        }
    };
    match set_up(&spec).and_then(|()| run_claude(&spec)) {
        Ok(r) => r,
        Err(e) => ProcessResult {
            error: Some(e.to_string()),
            ..ProcessResult::default()
        },
    }
}

fn sh(program: &str, args: &[&str]) -> Result<(), SandboxError> {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| SandboxError::Setup(format!("{program}: {e}")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(SandboxError::Setup(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

fn set_up(spec: &ProcessSpec) -> Result<(), SandboxError> {
    // Read what comes from the host before /tmp is replaced.
    let policy = match &spec.managed {
        Some(dir) => Some(crate::tree::read(dir).map_err(io("reading the policy folder"))?),
        None => None,
    };
    let plugin = match &spec.plugin_dir {
        Some(dir) => Some(crate::tree::read(dir).map_err(io("reading the plugin folder"))?),
        None => None,
    };
    let bin_dir = spec
        .claude
        .parent()
        .ok_or_else(|| SandboxError::Setup("the Claude Code binary has no folder".to_owned()))?
        .to_string_lossy()
        .into_owned();
    sh("mount", &["--bind", &bin_dir, BIN_MOUNT])?;
    sh("ip", &["link", "set", "lo", "up"])?;
    sh(
        "mount",
        &["-t", "tmpfs", "-o", "mode=1777", "tmpfs", "/tmp"],
    )?;
    for dir in ["/var/tmp", "/dev/shm"] {
        if Path::new(dir).is_dir() {
            sh("mount", &["-t", "tmpfs", "-o", "mode=1777", "tmpfs", dir])?;
        }
    }
    for d in ["/tmp/.etc/up", "/tmp/.etc/work", SANDBOX_HOME, SANDBOX_CWD] {
        std::fs::create_dir_all(d).map_err(io("making the sandbox's folders"))?;
    }
    sh(
        "mount",
        &[
            "-t",
            "overlay",
            "overlay",
            "-o",
            "lowerdir=/etc,upperdir=/tmp/.etc/up,workdir=/tmp/.etc/work",
            "/etc",
        ],
    )?;
    // This namespace's /etc/claude-code: the policy under test, or none at all.
    let etc = Path::new("/etc/claude-code");
    if etc.exists() {
        std::fs::remove_dir_all(etc).map_err(io("clearing /etc/claude-code"))?;
    }
    if let Some(tree) = &policy {
        crate::tree::write(etc, tree).map_err(io("writing the policy on /etc/claude-code"))?;
    }
    if let Some(tree) = &plugin {
        crate::tree::write(Path::new(SANDBOX_PLUGIN), tree).map_err(io("copying the plugin"))?;
    }
    for (rel, content) in &spec.files {
        let path = Path::new("/tmp/cc").join(rel);
        if !path.starts_with(SANDBOX_CWD) && !path.starts_with(SANDBOX_HOME) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io("seeding the files"))?;
        }
        std::fs::write(&path, content).map_err(io("seeding the files"))?;
    }
    let owner = format!("{RUN_UID}:{RUN_UID}");
    sh("chown", &["-R", &owner, SANDBOX_HOME, SANDBOX_CWD])?;
    if spec.plugin_dir.is_some() {
        sh("chown", &["-R", &owner, SANDBOX_PLUGIN])?;
    }
    std::fs::File::create(SANDBOX_DEBUG).map_err(io("the debug file"))?;
    sh("chown", &[&owner, SANDBOX_DEBUG])?;
    Ok(())
}

fn run_claude(spec: &ProcessSpec) -> Result<ProcessResult, SandboxError> {
    let api = FakeApi::start(spec.batches.clone()).map_err(io("starting the fake API"))?;
    let uid = format!("--reuid={RUN_UID}");
    let gid = format!("--regid={RUN_UID}");
    let turns = (spec.batches.len() + 2).to_string();
    let mut cmd = Command::new("setpriv");
    let bin = format!(
        "{BIN_MOUNT}/{}",
        spec.claude
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    cmd.args([
        uid.as_str(),
        gid.as_str(),
        "--clear-groups",
        "--",
        bin.as_str(),
    ])
    .args(["-p", "go", "--output-format", "stream-json", "--verbose"])
    .args([
        "--permission-mode",
        spec.mode.as_str(),
        "--max-turns",
        turns.as_str(),
    ]);
    if spec.plugin_dir.is_some() {
        cmd.args([
            "--plugin-dir",
            SANDBOX_PLUGIN,
            "--debug-file",
            SANDBOX_DEBUG,
        ]);
    }
    cmd.env_clear()
        .env("HOME", SANDBOX_HOME)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("ANTHROPIC_API_KEY", "sk-conformance")
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", api.port()),
        )
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("BASH_DEFAULT_TIMEOUT_MS", spec.call_timeout_ms.to_string())
        .env("BASH_MAX_TIMEOUT_MS", spec.call_timeout_ms.to_string())
        .current_dir(SANDBOX_CWD)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(io("starting Claude Code"))?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let err_thread = std::thread::spawn(move || read_all(stderr));
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        if let Some(out) = stdout {
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        }
    });
    let limit = Duration::from_secs(spec.process_timeout_s);
    let mut result = ProcessResult::default();
    loop {
        let left = limit.saturating_sub(started.elapsed());
        match rx.recv_timeout(left.min(Duration::from_millis(200))) {
            Ok(line) => crate::stream::read_line(&line, &mut result),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if started.elapsed() >= limit {
                    let _ = child.kill();
                    result.error = Some(format!(
                        "Claude Code ran past {} s and was stopped",
                        spec.process_timeout_s
                    ));
                    break;
                }
            }
        }
    }
    let _ = child.wait();
    result.seconds = started.elapsed().as_secs_f64();
    result.batches_served = api.served().batches;
    result.stderr_tail = tail(&err_thread.join().unwrap_or_default(), 2000);
    if spec.plugin_dir.is_some() {
        if let Ok(text) = boundedfs::read_bounded(Path::new(SANDBOX_DEBUG), 64 << 20) {
            result.debug = String::from_utf8_lossy(&text)
                .lines()
                .filter(|l| l.contains("] $.") || l.contains("[plugin") || l.contains("hook"))
                .take(2000)
                .map(str::to_owned)
                .collect();
        }
    }
    drop(api);
    Ok(result)
}

/// Prints `result` as one JSON line (the sandbox's answer to the harness).
pub fn print(result: &ProcessResult) {
    let text = serde_json::to_string(result).unwrap_or_else(|_| "{}".to_owned());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}
