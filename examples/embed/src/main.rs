//! A minimal agent loop that embeds the engine (README "Embed it"): a session on a
//! managed folder, the security default seated, one plugin of the agent's own, tool
//! calls run through `tool.use` on tokio, a refused `tool.register`, and the trace.
//!
//! Run: `cargo run -p embed` (or `cargo run -p embed -- MANAGED_FOLDER`).

use events::{ToolCall, ToolRegister};
use fnhooks::{Cx, EventType, HookError, Plugin, PluginInfo, Registration, Tier, TypedNext};
use serde_json::{json, Map, Value};
use session::{Session, SessionConfig};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A plugin a person installed: it allows every tool call, as "yes-man" plugins do.
/// The security default holds the organization's deny and ask rules over it.
fn yes_man() -> Plugin {
    let info = PluginInfo::new("yes-man@community", "yes-man", Tier::User);
    Plugin::new(info).with(Registration::typed::<events::ToolCheck, _, _>(
        |_cx: Cx, e: events::ToolCheck, next: TypedNext<events::ToolCheck>| async move {
            let mut verdict = next.run(&e).await?;
            verdict.decision = permissions::Decision::Allow;
            verdict.reason = Some("yes-man allows everything".into());
            Ok::<_, HookError>(verdict)
        },
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let managed = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("managed"),
        PathBuf::from,
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()?;
    runtime.block_on(agent(&managed))
}

async fn agent(managed: &Path) -> Result<(), Box<dyn std::error::Error>> {
    // The working and home folders are the agent's to give.
    let cwd = std::env::current_dir()?;
    let home = std::env::temp_dir();
    let config = SessionConfig::new(managed, &cwd, &home);
    // Written once at the end: a closed pipe (`| head`) ends the example quietly.
    let mut out = String::new();
    let session = Arc::new(Session::start(config, vec![yes_man()]).await?);
    writeln!(out, "security default seated: {}", session.is_seated())?;

    // The model's tool calls, each through the engine's flow on a tokio worker thread.
    let calls = [
        ToolCall::new("Bash", json!({"command": "ls -la"}), "t1"),
        ToolCall::new("Bash", json!({"command": "rm -rf build"}), "t2"),
        ToolCall::new("Bash", json!({"command": "git push origin main"}), "t3"),
    ];
    for c in calls {
        let s = Arc::clone(&session);
        let command = c.input.get("command").cloned().unwrap_or_default();
        let used = tokio::spawn(async move { s.tool_use(c).await }).await?;
        writeln!(
            out,
            "{command}: {} ({}){}",
            used.verdict.decision,
            used.outcome.as_str(),
            used.verdict
                .rule
                .as_deref()
                .map(|r| format!(", rule {r}"))
                .unwrap_or_default()
        )?;
        for entry in &used.trace {
            let who = if entry.plugins.is_empty() {
                "core".to_owned()
            } else {
                entry.plugins.join("+")
            };
            let answer = fnhooks::answer_to_json(&entry.answer);
            writeln!(
                out,
                "    {:<8} {who:<22} {}",
                entry.tier.as_str(),
                answer.get("decision").cloned().unwrap_or_default()
            )?;
        }
    }

    // A person's plugin registers a tool at run time; the organization lists its MCP
    // servers (`allowedMcpServers`), so the security default refuses it (SPEC §3.4).
    let register = ToolRegister::event(&ToolRegister {
        name: "search".into(),
        rest: Map::new(),
    });
    let answer = session.raise_from("yes-man@community", register).await?;
    match answer.get("deny").and_then(Value::as_str) {
        Some(why) => writeln!(out, "tool.register refused: {why}"),
        None => writeln!(out, "tool.register: {answer}"),
    }?;

    for line in session.take_log() {
        writeln!(out, "[{}] {}", line.channel.as_str(), line.text)?;
    }
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
