//! This engine's side: a group's calls raised as `tool.check` in a session with the
//! same policy, settings, mode and files, under the host Claude Code's `-p` is (`sdk`,
//! not interactive), the security default seated and no
//! person's plugin (so the answer is the core's, held as the organization's tiers
//! hold it).

use crate::corpus::{substitute, Group};
use crate::Decision;
use fnhooks::Event;
use serde_json::{json, Value};
use session::{BlockingSession, SessionConfig, SettingsInput, SettingsInputs};
use std::path::Path;

/// This engine's answer to one call.
#[derive(Debug, Clone, PartialEq)]
pub struct Ours {
    /// The decision.
    pub decision: Decision,
    /// Whether the core held it as uncertain (SPEC §4 "What the core cannot see").
    pub uncertain: bool,
    /// The rule it names, if any.
    pub rule: Option<String>,
    /// The whole answer.
    pub answer: Value,
}

/// Errors of this engine's side.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The group's folders could not be made.
    #[error("the group's folders: {0}")]
    Folders(#[from] std::io::Error),
    /// The session did not start.
    #[error("the session did not start: {0}")]
    Start(String),
}

fn input_of(text: &Option<String>) -> SettingsInput {
    match text {
        None => SettingsInput::Absent,
        Some(t) => SettingsInput::Raw(t.clone()),
    }
}

/// Writes the group's files under `root/work` and `root/home` (with the settings
/// files where Claude Code reads them) and its policy under `root/managed`.
///
/// # Errors
/// When a file cannot be written.
pub fn write_group(group: &Group, root: &Path) -> std::io::Result<()> {
    for d in ["work", "home"] {
        std::fs::create_dir_all(root.join(d))?;
    }
    crate::tree::write(&root.join("managed"), &group.policy)?;
    crate::tree::write(root, group.session_files())
}

/// This engine's answers to the group's calls, in order.
///
/// # Errors
/// When the folders cannot be made or the session does not start.
pub fn decide(group: &Group) -> Result<Vec<Ours>, EngineError> {
    let temp = tempfile::tempdir()?;
    let root = temp.path().canonicalize()?;
    write_group(group, &root)?;
    let (cwd, home, managed) = (root.join("work"), root.join("home"), root.join("managed"));
    if let Some(dir) = &group.plugin_dir {
        return with_mod(group, dir, &root);
    }
    let mode = group.mode.as_deref().and_then(|m| m.parse().ok());
    let config = SessionConfig {
        settings: SettingsInputs {
            user: input_of(&group.settings.user),
            project: input_of(&group.settings.project),
            local: input_of(&group.settings.local),
            flag: SettingsInput::Absent,
        },
        mode,
        // `claude -p` is an SDK host's session, not a person at a terminal.
        facts: permissions::SessionFacts {
            host: permissions::Host::Sdk,
            interactive: false,
            ..permissions::SessionFacts::new(&cwd, &home)
        },
        ..SessionConfig::new(&managed, &cwd, &home)
    };
    let session = BlockingSession::start(config, Vec::new())
        .map_err(|e| EngineError::Start(e.to_string()))?;
    let (cwd_s, home_s) = (cwd.to_string_lossy(), home.to_string_lossy());
    let mut out = Vec::with_capacity(group.calls.len());
    for (i, call) in group.calls.iter().enumerate() {
        let input = substitute(&call.input, &group.aliases, &cwd_s, &home_s);
        let event = Event::from_value(
            events::names::TOOL_CHECK,
            json!({"tool": call.tool, "input": input, "tool_use_id": format!("ours_{i}")}),
        );
        let answer = match session.raise(event) {
            Ok(v) => v,
            Err(e) => json!({"decision": "ask", "error": e.to_string()}),
        };
        out.push(ours_of(answer));
    }
    Ok(out)
}

fn ours_of(answer: Value) -> Ours {
    let decision = match answer.get("decision").and_then(Value::as_str) {
        Some("allow") => Decision::Allow,
        Some("deny") => Decision::Deny,
        _ => Decision::Ask,
    };
    Ours {
        decision,
        uncertain: answer.get("uncertain").and_then(Value::as_bool) == Some(true),
        rule: answer
            .get("rule")
            .and_then(Value::as_str)
            .map(str::to_owned),
        answer,
    }
}

/// The group's calls with a person's mod seated: a scenario of the group's policy,
/// folders and mode with the mod as a `user` tier plugin (`<name>@inline`, as Claude
/// Code names a `--plugin-dir` mod), run as `sec-default test` runs it.
fn with_mod(group: &Group, dir: &Path, root: &Path) -> Result<Vec<Ours>, EngineError> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (cwd, home) = (root.join("work"), root.join("home"));
    let (cwd_s, home_s) = (cwd.to_string_lossy(), home.to_string_lossy());
    let steps: Vec<Value> = group
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let input = substitute(&c.input, &group.aliases, &cwd_s, &home_s);
            json!({"raise": "tool.check",
                   "event": {"tool": c.tool, "input": input, "tool_use_id": format!("ours_{i}")}})
        })
        .collect();
    // `claude -p` is an SDK host's session, not a person at a terminal.
    let mut session = json!({"cwd": cwd_s, "home": home_s, "host": "sdk", "interactive": false});
    if let (Some(mode), Some(obj)) = (&group.mode, session.as_object_mut()) {
        obj.insert("mode".to_owned(), json!(mode));
    }
    let sc = json!({
        "name": format!("conformance: {} with {name}", group.policy_name),
        "policy": {"$dir": root.join("managed").to_string_lossy()},
        "session": session,
        "plugins": [{"id": format!("{name}@inline"), "tier": "user", "path": dir.to_string_lossy()}],
        "steps": steps,
    });
    let file = root.join("conformance.json");
    let loaded = scenario::load_str(&file, &sc.to_string())
        .map_err(|e| EngineError::Start(e.to_string()))?;
    let mut out = Vec::new();
    for l in &loaded {
        let answers = scenario::run::answers(l).map_err(|e| EngineError::Start(e.to_string()))?;
        out.extend(answers.into_iter().flatten().map(ours_of));
    }
    Ok(out)
}
