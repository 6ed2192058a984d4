//! The tool-use flow and classic hooks in the core of `tool.check` (SPEC §1.6
//! `outcome`, §3.6 "Asks and hosts", §4 "Rewrites" and "Classic hooks").

use fnhooks::testing;
use fnhooks::{Event, HookFailure, Next, Plugin, Registration, Tier};
use permissions::{Host, Mode, SessionFacts};
use serde_json::{json, Value};
use session::{BlockingSession, SessionConfig, SettingsInput, SettingsInputs};
use std::path::Path;

struct Setup {
    _managed: tempfile::TempDir,
    cwd: tempfile::TempDir,
    session: BlockingSession,
}

fn start(policy: Value, user: Value, mode: Mode, host: Host, plugins: Vec<Plugin>) -> Setup {
    start_seated(policy, user, mode, host, plugins, true)
}

#[allow(clippy::unwrap_used)]
fn start_seated(
    policy: Value,
    user: Value,
    mode: Mode,
    host: Host,
    plugins: Vec<Plugin>,
    seated: bool,
) -> Setup {
    let managed = tempfile::tempdir().unwrap();
    std::fs::write(
        managed.path().join("managed-settings.json"),
        policy.to_string(),
    )
    .unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut facts = SessionFacts::new(cwd.path(), "/home/dev");
    facts.host = host;
    let config = SessionConfig {
        mode: Some(mode),
        settings: SettingsInputs {
            user: SettingsInput::Value(user),
            ..SettingsInputs::default()
        },
        facts,
        seated,
        ..SessionConfig::new(
            managed.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    let session = BlockingSession::start(config, plugins).unwrap();
    Setup {
        _managed: managed,
        cwd,
        session,
    }
}

fn person(id: &str, reg: Registration) -> Plugin {
    testing::plugin(&format!("{id}@community"), Tier::User).with(reg)
}

/// A person's plugin that rewrites every Bash command at `tool.call`.
#[allow(clippy::indexing_slicing)]
fn rewriter(to: &'static str) -> Plugin {
    person(
        "wrapper",
        Registration::on("tool.call", move |_cx, e: Event, next: Next| async move {
            let mut answer = next.run(e).await?;
            answer["input"] = json!({ "command": to });
            Ok(answer)
        }),
    )
}

fn yes_man() -> Plugin {
    person(
        "yes-man",
        Registration::on("tool.check", testing::answers(json!({"decision": "allow"}))),
    )
}

#[allow(clippy::unwrap_used)]
/// A tool call of the model, from its JSON.
fn call(v: Value) -> events::ToolCall {
    serde_json::from_value(v).unwrap()
}

fn bash(s: &BlockingSession, command: &str) -> Value {
    s.tool_use(call(
        json!({"tool": "Bash", "input": {"command": command}, "tool_use_id": "u1"}),
    ))
    .to_value()
}

fn user_hook(command: &str) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}})
}

#[allow(clippy::indexing_slicing)]
fn allow_json(updated: Option<&str>) -> String {
    let mut out = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}});
    if let Some(u) = updated {
        out["hookSpecificOutput"]["updatedInput"] = json!({ "command": u });
    }
    format!("echo '{out}'")
}

#[test]
fn a_tool_call_rewrite_does_not_dodge_a_deny_rule_on_the_original_input() {
    let s = start(
        json!({"permissions": {"deny": ["Bash(git push --force*)"]}}),
        json!({}),
        Mode::Default,
        Host::None,
        vec![rewriter("wrap git push --force origin main")],
    );
    let out = bash(&s.session, "git push --force origin main");
    assert_eq!(
        out["input"],
        json!({"command": "wrap git push --force origin main"})
    );
    assert_eq!(out["verdict"]["decision"], "deny");
    assert_eq!(out["verdict"]["rule"], "Bash(git push --force*)");
    assert_eq!(out["outcome"], "refused");
}

#[test]
fn an_ask_rule_on_the_original_input_stands_and_goes_to_the_host() {
    let s = start(
        json!({"permissions": {"ask": ["Bash(git push:*)"], "allow": ["Bash(echo:*)"]}}),
        json!({}),
        Mode::Default,
        Host::Sdk,
        vec![rewriter("echo pushed")],
    );
    let out = bash(&s.session, "git push origin main");
    assert_eq!(out["verdict"]["decision"], "ask");
    assert_eq!(out["verdict"]["rule"], "Bash(git push:*)");
    assert_eq!(out["verdict"]["decider"], "host");
    assert_eq!(out["outcome"], "host");
}

#[test]
fn a_harmless_rewrite_is_judged_as_rewritten() {
    let s = start(
        json!({}),
        json!({}),
        Mode::Default,
        Host::None,
        vec![rewriter("ls -la")],
    );
    let out = bash(&s.session, "make build");
    assert_eq!(out["tool"], "Bash");
    assert_eq!(out["input"]["command"], "ls -la");
    assert_eq!(out["verdict"]["decision"], "allow");
    assert_eq!(out["outcome"], "run");
}

#[test]
fn outcomes_follow_mode_and_host() {
    let s = start(json!({}), json!({}), Mode::DontAsk, Host::None, vec![]);
    let out = bash(&s.session, "make build");
    assert_eq!(out["verdict"]["decision"], "ask");
    assert_eq!(out["outcome"], "refused");
    // In dontAsk nobody would be asked: a person's plugin may answer the plain ask.
    let s = start(
        json!({}),
        json!({}),
        Mode::DontAsk,
        Host::None,
        vec![yes_man()],
    );
    let out = bash(&s.session, "make build");
    assert_eq!(out["verdict"]["decision"], "allow");
    assert_eq!(out["outcome"], "run");
    let s = start(json!({}), json!({}), Mode::Default, Host::None, vec![]);
    assert_eq!(bash(&s.session, "make build")["outcome"], "prompt");
    let s = start(json!({}), json!({}), Mode::Default, Host::Cloud, vec![]);
    let out = bash(&s.session, "make build");
    assert_eq!(out["verdict"]["decider"], "host");
    assert_eq!(out["outcome"], "host");
}

#[test]
fn a_failing_tool_call_link_is_dropped_and_the_call_is_still_judged() {
    let broken = testing::plugin("org-rewriter@corp", Tier::Prepend).with(
        Registration::on("tool.call", |_cx, _e: Event, _n: Next| async {
            Err::<serde_json::Value, _>(fnhooks::HookError::Failed(HookFailure::new(
                fnhooks::FailureKind::Error,
                "boom",
            )))
        })
        .catch(|_cx, _e: Event, next: Next| async move {
            Err::<serde_json::Value, _>(fnhooks::HookError::Chain(fnhooks::ChainError::new(
                next.error().map_or(fnhooks::FailureKind::Error, |f| f.kind),
                "still broken",
            )))
        }),
    );
    let s = start(
        json!({}),
        json!({}),
        Mode::Default,
        Host::None,
        vec![broken],
    );
    let out = bash(&s.session, "ls");
    // A dropped tool.call link: the chain goes on without it, and the call is judged.
    assert!(out["verdict"]["decision"].is_string(), "{out}");
}

#[test]
fn a_persons_hook_allow_never_lifts_a_deny_or_ask_rule_but_answers_the_modes_ask() {
    let s = start(
        json!({"permissions": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"]}}),
        user_hook(&allow_json(None)),
        Mode::Default,
        Host::None,
        vec![],
    );
    let out = bash(&s.session, "rm -rf build");
    assert_eq!(
        (&out["verdict"]["decision"], &out["verdict"]["rule"]),
        (&json!("deny"), &json!("Bash(rm:*)"))
    );
    let out = bash(&s.session, "git push origin main");
    assert_eq!(
        (&out["verdict"]["decision"], &out["verdict"]["rule"]),
        (&json!("ask"), &json!("Bash(git push:*)"))
    );
    let out = bash(&s.session, "make build");
    assert_eq!(out["verdict"]["decision"], "allow");
    assert_eq!(out["verdict"]["hook"], "PreToolUse");
    assert_eq!(out["outcome"], "run");
}

#[test]
fn a_hooks_deny_over_a_rule_ask_stands_and_an_ask_is_named() {
    let s = start(
        json!({"permissions": {"ask": ["Bash(git push:*)"]}}),
        user_hook("echo 'pushing is off today' >&2; exit 2"),
        Mode::Default,
        Host::None,
        vec![],
    );
    let out = bash(&s.session, "git push origin main");
    assert_eq!(out["verdict"]["decision"], "deny");
    assert_eq!(out["verdict"]["hook"], "PreToolUse");
    assert_eq!(out["verdict"]["reason"], "pushing is off today");
    let ask = r#"echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'"#;
    let s = start(json!({}), user_hook(ask), Mode::Default, Host::Sdk, vec![]);
    let out = bash(&s.session, "ls");
    assert_eq!(out["verdict"]["decision"], "ask");
    assert_eq!(out["verdict"]["hook"], "PreToolUse");
    assert_eq!(out["verdict"]["decider"], "host");
    assert_eq!(out["outcome"], "host");
}

#[test]
fn a_hooks_updated_input_is_a_rewrite_judged_by_the_rules() {
    // The hook rewrites to a denied command: the deny rule meets the rewritten input.
    let s = start(
        json!({"permissions": {"deny": ["Bash(rm:*)"]}}),
        user_hook(&allow_json(Some("rm -rf /"))),
        Mode::Default,
        Host::None,
        vec![],
    );
    let out = bash(&s.session, "ls");
    assert_eq!(out["input"]["command"], "rm -rf /");
    assert_eq!(out["verdict"]["decision"], "deny");
    assert_eq!(out["verdict"]["rule"], "Bash(rm:*)");
    // The hook rewrites a denied command to a harmless one: the deny on the input it
    // was handed still stands.
    let s = start(
        json!({"permissions": {"deny": ["Bash(rm:*)"]}}),
        user_hook(&allow_json(Some("ls"))),
        Mode::Default,
        Host::None,
        vec![],
    );
    let out = bash(&s.session, "rm -rf build");
    assert_eq!(out["input"]["command"], "ls");
    assert_eq!(out["verdict"]["decision"], "deny");
    assert_eq!(out["verdict"]["rule"], "Bash(rm:*)");
    // A harmless rewrite of a harmless call runs as rewritten.
    let s = start(
        json!({}),
        user_hook(&allow_json(Some("make -n build"))),
        Mode::Default,
        Host::None,
        vec![],
    );
    let out = bash(&s.session, "make build");
    assert_eq!(out["input"]["command"], "make -n build");
    assert_eq!(out["verdict"]["decision"], "allow");
    assert_eq!(out["outcome"], "run");
}

#[test]
fn a_managed_hook_failure_denies_naming_the_hook_and_the_deny_holds_over_a_persons_plugin() {
    let policy = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "exit 1"}
    ]}]}});
    let s = start(
        policy.clone(),
        json!({}),
        Mode::Default,
        Host::None,
        vec![yes_man()],
    );
    let out = bash(&s.session, "make build");
    assert_eq!(out["verdict"]["decision"], "deny", "{out}");
    assert_eq!(out["verdict"]["hook"], "PreToolUse");
    let reason = out["verdict"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("`exit 1`") && reason.contains("exited with code 1"),
        "{reason}"
    );
    let log = s.session.take_log();
    assert!(
        log.iter().any(|l| l
            .text
            .contains("classic PreToolUse hook `exit 1` of policy settings")),
        "{log:?}"
    );
    // A person's failing hook changes nothing.
    let s = start(
        json!({}),
        user_hook("exit 1"),
        Mode::Default,
        Host::None,
        vec![],
    );
    let out = bash(&s.session, "make build");
    assert_eq!(out["verdict"]["decision"], "ask");
    assert!(out["verdict"].get("hook").is_none());
}

#[test]
fn classic_pre_tool_use_goes_through_the_chain_where_the_security_default_holds_it() {
    let policy = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo 'no deploys' >&2; exit 2"}
    ]}]}});
    let lifter = || {
        person(
            "hook-lifter",
            Registration::on("classic.PreToolUse", |_cx, _e: Event, _n: Next| async {
                Ok(json!({"decision": "allow"}))
            }),
        )
    };
    let s = start(
        policy.clone(),
        json!({}),
        Mode::Default,
        Host::None,
        vec![lifter()],
    );
    let out = bash(&s.session, "make deploy");
    assert_eq!(out["verdict"]["decision"], "deny");
    assert_eq!(out["verdict"]["reason"], "no deploys");
    // Unseated, the person's plugin answers the classic event itself.
    let s = start_seated(
        policy,
        json!({}),
        Mode::Default,
        Host::None,
        vec![lifter()],
        false,
    );
    let out = bash(&s.session, "make deploy");
    assert_eq!(out["verdict"]["decision"], "allow");
}

#[test]
fn the_hook_reads_the_documented_input_in_the_working_directory() {
    let hook = r#"cat > seen.json; printf '%s' "$CLAUDE_PROJECT_DIR" > project_dir"#;
    let s = start(
        json!({}),
        user_hook(hook),
        Mode::Default,
        Host::None,
        vec![],
    );
    bash(&s.session, "make build");
    let seen: Value =
        serde_json::from_str(&std::fs::read_to_string(s.cwd.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["hook_event_name"], "PreToolUse");
    assert_eq!(seen["tool_name"], "Bash");
    assert_eq!(seen["tool_input"], json!({"command": "make build"}));
    assert_eq!(seen["tool_use_id"], "u1");
    assert_eq!(seen["permission_mode"], "default");
    assert_eq!(seen["cwd"], s.cwd.path().to_string_lossy().as_ref());
    assert!(seen["session_id"].as_str().is_some_and(|id| !id.is_empty()));
    assert!(seen["transcript_path"]
        .as_str()
        .is_some_and(|p| p.ends_with(".jsonl")));
    let project = std::fs::read_to_string(s.cwd.path().join("project_dir")).unwrap();
    assert_eq!(project, s.cwd.path().to_string_lossy());
}

#[test]
fn no_classic_event_is_raised_when_no_hook_matches() {
    let raised = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = raised.clone();
    let watcher = person(
        "watcher",
        Registration::on("classic.PreToolUse", move |_cx, e: Event, next: Next| {
            r.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async move { Ok(next.run(e).await?) }
        }),
    );
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "true"}]}]}});
    let s = start_seated(
        json!({}),
        hooks,
        Mode::Default,
        Host::None,
        vec![watcher],
        false,
    );
    bash(&s.session, "make build");
    assert_eq!(raised.load(std::sync::atomic::Ordering::SeqCst), 0);
    let _used = s.session.tool_use(call(
        json!({"tool": "Write", "input": {"file_path": "/tmp/x", "content": ""}, "tool_use_id": "w"}),
    ));
    assert_eq!(raised.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[test]
fn a_classic_hook_runs_once_per_tool_call_though_the_check_is_re_run_past_the_user_tier() {
    // SPEC §3.6 step 5 [decision]: within one raise of tool.check the core evaluates the
    // pinned question once; the re-run past the user tier reuses the core's verdict.
    let runs = tempfile::tempdir().unwrap();
    let log = runs.path().join("runs");
    let hook = format!("echo ran >> '{}'; exit 0", log.display());
    let mut policy = user_hook(&hook);
    policy["permissions"] = json!({"deny": ["Bash(rm:*)"]});
    let s = start(
        policy,
        json!({}),
        Mode::Default,
        Host::None,
        vec![yes_man()],
    );
    let out = bash(&s.session, "rm -rf build");
    assert_eq!(out["verdict"]["decision"], "deny", "{out}");
    assert_eq!(out["verdict"]["rule"], "Bash(rm:*)");
    let ran = std::fs::read_to_string(&log).unwrap();
    assert_eq!(ran.lines().count(), 1, "the classic hook ran {ran:?}");
    // each tool call is its own raise
    bash(&s.session, "rm -rf dist");
    let ran = std::fs::read_to_string(&log).unwrap();
    assert_eq!(ran.lines().count(), 2);
}

#[test]
fn a_classic_hook_sees_the_sessions_environment_over_the_host_processes() {
    // SPEC §3.8: the programs the engine starts get the host process's environment
    // overlaid with the session environment (managed env winning).
    let out_dir = tempfile::tempdir().unwrap();
    let file = out_dir.path().join("seen");
    let hook = format!(
        "printf '%s|%s' \"$ACME_PROXY\" \"$PATH\" > '{}'; exit 0",
        file.display()
    );
    let mut policy = user_hook(&hook);
    policy["env"] = json!({"ACME_PROXY": "http://proxy.acme:3128"});
    let s = start(policy, json!({}), Mode::Default, Host::None, Vec::new());
    bash(&s.session, "make");
    let seen = std::fs::read_to_string(&file).unwrap();
    let (proxy, path) = seen.split_once('|').unwrap();
    assert_eq!(proxy, "http://proxy.acme:3128");
    assert!(
        !path.is_empty(),
        "the host's PATH is kept under the overlay"
    );
}
