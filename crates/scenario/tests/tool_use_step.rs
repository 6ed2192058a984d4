//! The runner's `tool.use` step (SCENARIOS.md "Files and the tool-use flow"; SPEC §1.6,
//! §4 "Rewrites" and "Classic hooks").

use scenario::run::{run_scenario, RunOptions};
use std::path::Path;

#[allow(clippy::unwrap_used)]
fn failures(text: &str) -> Vec<String> {
    let loaded = scenario::load_str(Path::new("inline.json"), text).unwrap();
    let mut out = Vec::new();
    for l in &loaded {
        let report = run_scenario(
            l,
            &RunOptions {
                managed: None,
                compare: true,
                embedder_batches: false,
            },
        )
        .unwrap();
        out.extend(
            report
                .failures
                .iter()
                .map(|f| format!("step {:?}: {} (actual {})", f.step, f.why, f.actual)),
        );
    }
    out
}

#[test]
fn tool_use_runs_in_the_real_working_directory_with_classic_hooks() {
    let text = r#"{
      "name": "tool.use with files, $CWD and a project hook",
      "policy": { "managed-settings.json": { "permissions": { "deny": ["Bash(rm:*)"] } } },
      "settings": { "project": { "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [
          { "type": "command",
            "command": "cat > \"$CLAUDE_PROJECT_DIR/seen.json\"; echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"project says check\"}}'" }
      ] } ] } } },
      "session": { "files": { "notes.txt": "hello", "sub": { "dir": true } } },
      "steps": [
        { "raise": "tool.use",
          "event": { "tool": "Bash", "input": { "command": "cat $CWD/notes.txt" }, "tool_use_id": "a" },
          "expect": { "tool": "Bash", "input": { "command": "cat $CWD/notes.txt" },
                      "verdict": { "decision": "ask", "hook": "PreToolUse", "reason": "project says check" },
                      "outcome": "prompt" } },
        { "raise": "tool.use",
          "event": { "tool": "Bash", "input": { "command": "rm -rf $CWD/sub" }, "tool_use_id": "b" },
          "expect": { "verdict": { "decision": "deny", "rule": "Bash(rm:*)" }, "outcome": "refused" } },
        { "raise": "tool.use",
          "event": { "tool": "Read", "input": { "file_path": "$CWD/seen.json" }, "tool_use_id": "c" },
          "expect": { "verdict": { "decision": "allow" }, "outcome": "run" } }
      ]
    }"#;
    assert_eq!(failures(text), Vec::<String>::new());
}

#[test]
fn tool_use_is_the_engines_step_only() {
    let text = r#"{
      "name": "a plugin cannot raise tool.use",
      "plugins": [ { "id": "p@community", "tier": "user", "hooks": [] } ],
      "steps": [
        { "raise": "tool.use", "from": "p@community",
          "event": { "tool": "Bash", "input": { "command": "ls" }, "tool_use_id": "a" },
          "expect": { "$error": { "$contains": "engine's flow" } } }
      ]
    }"#;
    assert_eq!(failures(text), Vec::<String>::new());
}

#[test]
fn a_managed_hook_that_exits_2_denies_through_the_flow_and_holds() {
    let text = r#"{
      "name": "a managed exit-2 hook denies; a person's allow-everything plugin cannot lift it",
      "policy": { "managed-settings.json": { "hooks": { "PreToolUse": [ { "matcher": "Bash|Write", "hooks": [
          { "type": "command", "command": "echo 'no builds on Fridays' >&2; exit 2" } ] } ] } } },
      "plugins": [ { "id": "yes-man@community", "tier": "user",
                     "hooks": [ { "on": "tool.check", "do": { "answer": { "decision": "allow" } } },
                                { "on": "classic.PreToolUse", "do": { "answer": { "decision": "allow" } } } ] } ],
      "steps": [
        { "raise": "tool.use",
          "event": { "tool": "Bash", "input": { "command": "make build" }, "tool_use_id": "a" },
          "expect": { "verdict": { "decision": "deny", "hook": "PreToolUse", "reason": "no builds on Fridays" },
                      "outcome": "refused" } },
        { "raise": "tool.check",
          "event": { "tool": "Bash", "input": { "command": "make build" }, "tool_use_id": "b" },
          "expect": "$held" },
        { "raise": "tool.use",
          "event": { "tool": "Read", "input": { "file_path": "/home/dev/repo/README.md" }, "tool_use_id": "c" },
          "expect": { "verdict": { "decision": "allow" }, "outcome": "run" } }
      ]
    }"#;
    assert_eq!(failures(text), Vec::<String>::new());
}
