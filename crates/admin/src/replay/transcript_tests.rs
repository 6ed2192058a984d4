#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use super::codex::{argv_command, codex_parts, patch_parts, MAX_PATCH_FILES};
use super::*;
use serde_json::json;

/// Every item of `text` read as a transcript named `t.jsonl`, or the error.
fn items(text: &str) -> Result<Vec<Item>, String> {
    items_with(text, MAX_LINE_BYTES)
}

fn items_with(text: &str, max_line: usize) -> Result<Vec<Item>, String> {
    let mut r = Reader::new(text.as_bytes(), "t.jsonl", "t");
    r.lines.set_cap(max_line);
    let mut out = Vec::new();
    loop {
        match r.next_items(&mut out) {
            Ok(true) => {}
            Ok(false) => return Ok(out),
            Err(e) => return Err(e.to_string()),
        }
    }
}

fn calls(items: &[Item]) -> Vec<&Call> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Call(c) => Some(&**c),
            _ => None,
        })
        .collect()
}

fn bad(items: &[Item]) -> Vec<(u64, &str)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Bad { line, why } => Some((*line, why.as_str())),
            _ => None,
        })
        .collect()
}

fn results(items: &[Item]) -> Vec<(&str, Seen)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Result { id, seen } => Some((id.as_str(), *seen)),
            _ => None,
        })
        .collect()
}

fn assistant(id: &str, tool: &str, input: &str, extra: &str) -> String {
    format!(
        r#"{{"parentUuid":null,"isSidechain":false,"cwd":"/home/dev/p","sessionId":"s1",{extra}"type":"assistant","message":{{"id":"msg_1","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"{tool}","input":{input}}}]}}}}"#
    )
}

fn result(id: &str, error: bool, content: &str, tool_use_result: &str) -> String {
    format!(
        r#"{{"type":"user","cwd":"/home/dev/p","sessionId":"s1","message":{{"role":"user","content":[{{"tool_use_id":"{id}","type":"tool_result","content":{content},"is_error":{error}}}]}},"toolUseResult":{tool_use_result}}}"#
    )
}

#[test]
fn a_claude_call_carries_its_session_folder_mode_and_line() {
    let text = [
        r#"{"type":"permission-mode","permissionMode":"acceptEdits","sessionId":"s1"}"#.to_owned(),
        r#"{"type":"user","cwd":"/home/dev/p","sessionId":"s1","message":{"role":"user","content":"hello"}}"#.to_owned(),
        assistant("toolu_1", "Bash", r#"{"command":"ls -la"}"#, ""),
        result("toolu_1", false, r#""total 0""#, r#"{"stdout":"total 0"}"#),
    ]
    .join("\n");
    let items = items(&text).unwrap();
    let c = calls(&items);
    assert_eq!(c.len(), 1);
    let call = c[0];
    assert_eq!(
        (
            call.line,
            &*call.session,
            call.tool.as_str(),
            call.id.as_str()
        ),
        (3, "s1", "Bash", "toolu_1")
    );
    assert_eq!(call.input, json!({"command": "ls -la"}));
    assert_eq!(call.cwd.as_deref(), Some("/home/dev/p"));
    assert_eq!(call.mode.as_deref(), Some("acceptEdits"));
    assert_eq!(call.agent, None);
    assert_eq!(results(&items), vec![("toolu_1", Seen::Ran)]);
    assert!(bad(&items).is_empty());
}

#[test]
fn results_tell_a_rejection_an_interruption_and_a_failure_apart() {
    let text = [
        assistant("a", "WebFetch", r#"{"url":"https://x"}"#, ""),
        assistant("b", "Bash", r#"{"command":"sleep 9"}"#, ""),
        assistant("c", "Bash", r#"{"command":"false"}"#, ""),
        result(
            "a",
            true,
            r#""The user doesn't want to proceed with this tool use.""#,
            r#""User rejected tool use""#,
        ),
        result(
            "b",
            true,
            r#"[{"type":"text","text":"[Request interrupted by user for tool use]"}]"#,
            r#""Error: interrupted by user""#,
        ),
        result("c", true, r#""Exit code 1""#, r#""Error: Exit code 1""#),
    ]
    .join("\n");
    let items = items(&text).unwrap();
    assert_eq!(
        results(&items),
        vec![
            ("a", Seen::Rejected),
            ("b", Seen::Interrupted),
            ("c", Seen::Failed)
        ]
    );
}

#[test]
fn sidechain_and_subagent_lines_name_their_agent() {
    let text = [
        assistant("m", "Task", r#"{"prompt":"go"}"#, ""),
        assistant("s", "Bash", r#"{"command":"ls"}"#, "")
            .replace(r#""isSidechain":false"#, r#""isSidechain":true"#),
        assistant(
            "g",
            "Read",
            r#"{"file_path":"/a"}"#,
            r#""agentId":"a0601","#,
        ),
        assistant("n", "Read", r#"{"file_path":"/b"}"#, ""),
    ]
    .join("\n");
    let items = items(&text).unwrap();
    let agents: Vec<Option<&str>> = calls(&items).iter().map(|c| c.agent.as_deref()).collect();
    assert_eq!(agents, vec![None, Some("sidechain"), Some("a0601"), None]);
}

#[test]
fn function_calls_written_in_text_are_no_tool_call() {
    // A "Warmup" subagent writes <function_calls> XML inside a text block (README
    // "Subagents and sidechains"): not a tool_use.
    let text = r#"{"type":"assistant","sessionId":"s","isSidechain":true,"agentId":"1be6","message":{"content":[{"type":"text","text":"<function_calls><invoke name=\"Bash\"><parameter name=\"command\">ls</parameter></invoke></function_calls>"}]}}"#;
    let items = items(text).unwrap();
    assert!(calls(&items).is_empty());
    assert!(bad(&items).is_empty());
}

#[test]
fn bad_lines_are_counted_with_their_line_and_the_reading_goes_on() {
    let text = [
        r#"{"type":"summary","summary":"s","leafUuid":"u"}"#.to_owned(),
        r#"{"type":"user","message":{"content":"cut he"#.to_owned(),
        "not json at all".to_owned(),
        r#"{"type":"brand-new-kind","sessionId":"s1"}"#.to_owned(),
        r#"[1,2,3]"#.to_owned(),
        assistant("t", "Bash", r#"{"command":"ls"}"#, ""),
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"x""#.to_owned(),
    ]
    .join("\n");
    let items = items(&text).unwrap();
    assert_eq!(calls(&items).len(), 1);
    let b = bad(&items);
    let lines: Vec<u64> = b.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, vec![2, 3, 4, 5, 7], "{b:?}");
    assert!(b[0].1.starts_with("truncated"), "{b:?}");
    assert!(b[1].1.starts_with("not JSON"), "{b:?}");
    assert!(b[2].1.contains("\"brand-new-kind\""), "{b:?}");
    assert!(b[4].1.contains("the file ends mid-line"), "{b:?}");
}

#[test]
fn a_line_over_the_cap_is_skipped_unread_and_counted() {
    let long = format!(
        r#"{{"type":"user","message":{{"content":"{}"}}}}"#,
        "x".repeat(500)
    );
    let text = [long, assistant("t", "Bash", r#"{"command":"ls"}"#, "")].join("\n");
    let items = items_with(&text, 300).unwrap();
    assert_eq!(calls(&items).len(), 1);
    let b = bad(&items);
    assert_eq!(b.len(), 1);
    assert_eq!(b[0].0, 1);
    assert!(b[0].1.contains("longer than 300 bytes"), "{b:?}");
}

#[test]
fn a_file_of_no_known_format_is_refused_saying_why() {
    let e = items("hello\nworld\n").unwrap_err();
    assert!(e.contains("not a known transcript format"), "{e}");
    assert!(e.contains("line 1: not JSON"), "{e}");
    let e = items(r#"{"name":"x"}"#).unwrap_err();
    assert!(e.contains("no \"type\""), "{e}");
    let garbage = "#!\n".repeat(100);
    let e = items(&garbage).unwrap_err();
    assert!(e.contains("first 64"), "{e}");
    // An empty file (a session that just started) is no error, and holds nothing.
    assert_eq!(items("").unwrap(), Vec::new());
    assert_eq!(items("\n\n  \n").unwrap(), Vec::new());
}

#[test]
fn bad_lines_before_the_first_known_one_are_still_reported() {
    let text = [
        "garbage".to_owned(),
        assistant("t", "Bash", r#"{"command":"ls"}"#, ""),
    ]
    .join("\n");
    let items = items(&text).unwrap();
    assert_eq!(calls(&items).len(), 1);
    assert_eq!(bad(&items).first().map(|b| b.0), Some(1));
}

#[test]
fn a_line_is_parsed_whatever_its_spacing() {
    // Pretty spacing defeats the compact markers: the line is parsed whole, and its call
    // is not lost.
    let text = r#"{"type": "assistant", "sessionId": "s", "message": {"content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": "ls"}}]}}"#;
    let items = items(text).unwrap();
    assert_eq!(calls(&items).len(), 1);
    // A compact line of a known type with a call spaced apart is parsed too.
    let mixed = r#"{"type":"assistant","sessionId":"s","message":{"content":[{"type": "tool_use","id":"t","name":"Bash","input":{}}]}}"#;
    assert_eq!(calls(&items_with(mixed, MAX_LINE_BYTES).unwrap()).len(), 1);
}

#[test]
fn codex_calls_are_judged_as_the_engine_tools_they_stand_for() {
    let lines = [
        r#"{"timestamp":"t","type":"session_meta","payload":{"id":"sess-9","cwd":"/w","cli_version":"0.128.0"}}"#,
        r#"{"timestamp":"t","type":"turn_context","payload":{"cwd":"C:\\Users\\dev\\R","approval_policy":"never","sandbox_policy":{"type":"danger-full-access"}}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"rg -n x\",\"workdir\":\"C:\\\\Users\\\\dev\\\\R\"}","call_id":"c1"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"pnpm test\",\"workdir\":\"/w/app\",\"yield_time_ms\":1000}","call_id":"c2"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"git status\"]}","call_id":"c3"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c4","name":"apply_patch","input":"*** Begin Patch\n*** Add File: a.txt\n+hi\n*** Update File: src/b.rs\n@@\n-x\n+y\n*** Delete File: c.md\n*** End Patch"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"view_image","arguments":"{\"path\":\"shot.png\"}","call_id":"c5"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"not json","call_id":"c6"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"exec command rejected by user"}}"#,
        r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}"#,
    ];
    let items = items(&lines.join("\n")).unwrap();
    let c = calls(&items);
    assert_eq!(c.len(), 6);
    assert!(c.iter().all(|c| &*c.session == "sess-9"));
    let judged: Vec<Vec<(String, Value)>> =
        c.iter().map(|c| c.judged_as.clone().unwrap()).collect();
    assert_eq!(
        judged[0],
        vec![("Bash".to_owned(), json!({"command": "rg -n x"}))]
    );
    assert_eq!(c[0].cwd.as_deref(), Some(r"C:\Users\dev\R"));
    assert_eq!(
        c[0].mode.as_deref(),
        Some("codex approval_policy=never sandbox=danger-full-access")
    );
    assert_eq!(
        judged[1],
        vec![("Bash".to_owned(), json!({"command": "pnpm test"}))]
    );
    assert_eq!(c[1].cwd.as_deref(), Some("/w/app"));
    assert_eq!(
        judged[2],
        vec![("Bash".to_owned(), json!({"command": "git status"}))]
    );
    assert_eq!(
        judged[3],
        vec![
            ("Write".to_owned(), json!({"file_path": "a.txt"})),
            ("Edit".to_owned(), json!({"file_path": "src/b.rs"})),
            ("Edit".to_owned(), json!({"file_path": "c.md"})),
        ]
    );
    assert_eq!(
        judged[4],
        vec![("Read".to_owned(), json!({"file_path": "shot.png"}))]
    );
    // Arguments that are not JSON are kept as text; nothing is read from them, so the
    // shell call is a Bash call with no command (which the engine asks).
    assert_eq!(c[5].input, json!({"arguments": "not json"}));
    assert_eq!(judged[5], vec![("Bash".to_owned(), json!({}))]);
    assert_eq!(
        results(&items),
        vec![("c1", Seen::Ran), ("c2", Seen::Rejected)]
    );
    assert!(bad(&items).is_empty(), "{:?}", bad(&items));
}

#[test]
fn an_argv_is_joined_as_a_shell_would_read_it() {
    let argv = |w: &[&str]| {
        argv_command(&w.iter().map(|s| json!(s)).collect::<Vec<_>>()).unwrap_or_default()
    };
    assert_eq!(argv(&["bash", "-lc", "ls | wc"]), "ls | wc");
    assert_eq!(
        argv(&["/usr/bin/pwsh", "-Command", "Get-Item x"]),
        "Get-Item x"
    );
    assert_eq!(
        argv(&["rm", "-rf", "a b", "it's"]),
        r"rm -rf 'a b' 'it'\''s'"
    );
    assert_eq!(argv(&["echo", ""]), "echo ''");
}

#[test]
fn a_replays_own_json_reads_back_as_the_calls_it_wrote() {
    let text = [
        r#"{"replay":"call","file":"a.jsonl","line":7,"session":"s","agent":"sidechain","tool":"apply_patch","tool_use_id":"c4","input":"*** Begin Patch","judged_as":[{"tool":"Edit","input":{"file_path":"x"}}],"cwd":"/w","mode":"default","transcript":"rejected","decision":"ask"}"#,
        r#"{"replay":"summary","calls":1}"#,
        r#"{"replay":"other"}"#,
    ]
    .join("\n");
    let items = items(&text).unwrap();
    let c = calls(&items);
    assert_eq!(c.len(), 1);
    let call = c[0];
    assert_eq!(
        (&*call.file, call.line, &*call.session),
        ("a.jsonl", 7, "s")
    );
    assert_eq!(call.agent.as_deref(), Some("sidechain"));
    assert_eq!(call.seen, Some(Seen::Rejected));
    assert_eq!(
        call.judged_as,
        Some(vec![("Edit".to_owned(), json!({"file_path": "x"}))])
    );
    assert_eq!(bad(&items).len(), 1);
}

#[test]
fn codex_arguments_that_name_a_key_twice_are_read_as_nothing() {
    let line = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"rm -rf /\",\"command\":\"ls\"}","call_id":"c1"}}"#;
    let items = items(line).unwrap();
    let c = calls(&items);
    assert_eq!(c[0].judged_as, Some(vec![("Bash".to_owned(), json!({}))]));
}

#[test]
fn a_patch_applied_through_the_shell_writes_its_files() {
    let argv = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"apply_patch\",\"*** Begin Patch\\n*** Delete File: /etc/hosts\\n*** End Patch\"]}","call_id":"c1"}}"#;
    let heredoc = r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"apply_patch <<'EOF'\\n*** Begin Patch\\n*** Add File: /etc/cron.d/x\\n+* * * * * root sh\\n*** End Patch\\nEOF\"]}","call_id":"c2"}}"#;
    let items = items(&[argv, heredoc].join("\n")).unwrap();
    let c = calls(&items);
    let tools = |i: usize| -> Vec<(String, Value)> {
        c[i].judged_as
            .clone()
            .unwrap()
            .into_iter()
            .skip(1)
            .collect()
    };
    assert_eq!(
        tools(0),
        vec![("Edit".to_owned(), json!({"file_path": "/etc/hosts"}))]
    );
    assert_eq!(
        tools(1),
        vec![("Write".to_owned(), json!({"file_path": "/etc/cron.d/x"}))]
    );
    // The command itself is judged too.
    assert_eq!(c[1].judged_as.as_ref().unwrap()[0].0, "Bash");
}

#[test]
fn a_patch_of_too_many_files_ends_in_a_part_of_unknown_path() {
    let files: String = (0..MAX_PATCH_FILES + 5)
        .map(|i| format!("*** Add File: f{i}\n"))
        .collect();
    let parts = patch_parts(&files);
    assert_eq!(parts.len(), MAX_PATCH_FILES + 1);
    assert_eq!(parts.last(), Some(&("Edit".to_owned(), json!({}))));
}

#[test]
fn each_session_of_a_file_keeps_its_own_mode_and_folder() {
    let x = r#"{"type":"user","sessionId":"X","cwd":"/x","permissionMode":"bypassPermissions","message":{"content":"go"}}"#;
    let y_call = r#"{"type":"assistant","sessionId":"Y","message":{"content":[{"type":"tool_use","id":"y1","name":"Bash","input":{"command":"ls"}}]}}"#;
    let other_mode = r#"{"type":"permission-mode","permissionMode":"plan","sessionId":"OTHER"}"#;
    let x_call = r#"{"type":"assistant","sessionId":"X","message":{"content":[{"type":"tool_use","id":"x1","name":"Bash","input":{"command":"ls"}}]}}"#;
    let items = items(&[x, y_call, other_mode, x_call].join("\n")).unwrap();
    let c = calls(&items);
    assert_eq!(
        (&*c[0].session, c[0].mode.as_deref(), c[0].cwd.as_deref()),
        ("Y", None, None)
    );
    assert_eq!(
        (&*c[1].session, c[1].mode.as_deref()),
        ("X", Some("bypassPermissions"))
    );
}

#[test]
fn a_byte_order_mark_opens_the_file_not_its_first_line() {
    let text = format!(
        "\u{feff}{}",
        assistant("t", "Bash", r#"{"command":"ls"}"#, "")
    );
    let items = items(&text).unwrap();
    assert_eq!(calls(&items).len(), 1);
    assert!(bad(&items).is_empty());
}

#[test]
fn a_content_object_is_a_bad_line_not_a_silent_one() {
    let text = [
        assistant("ok", "Bash", r#"{"command":"ls"}"#, ""),
        r#"{"type":"assistant","sessionId":"s","message":{"content":{"type":"tool_use","id":"t","name":"Bash","input":{}}}}"#.to_owned(),
    ]
    .join("\n");
    let items = items(&text).unwrap();
    let b = bad(&items);
    assert_eq!(b.len(), 1, "{b:?}");
    assert!(b[0].1.contains("message.content is an object"), "{b:?}");
}

#[test]
fn a_file_of_nothing_but_over_long_lines_is_no_transcript() {
    let text = "x".repeat(400);
    let e = items_with(&text, 100).unwrap_err();
    assert!(e.contains("longer than 100 bytes"), "{e}");
    let nul = "\0".repeat(400);
    assert!(items_with(&nul, 100).is_err());
}

#[test]
fn an_argv_of_anything_but_strings_runs_nothing_readable() {
    assert_eq!(argv_command(&[json!(1), json!(2)]), None);
    assert_eq!(argv_command(&[]), None);
    assert_eq!(argv_command(&[json!("ls"), Value::Null]), None);
}

#[test]
fn codex_stdin_and_unified_exec_are_shell_commands() {
    let lines = [
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":1,\"chars\":\"rm -rf /\\n\"}","call_id":"c1"}}"#,
        r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"unified_exec","arguments":"{\"input\":[\"rm\",\"-rf\",\"/\"]}","call_id":"c2"}}"#,
    ];
    let items = items(&lines.join("\n")).unwrap();
    let c = calls(&items);
    assert_eq!(
        c[0].judged_as,
        Some(vec![("Bash".to_owned(), json!({"command": "rm -rf /\n"}))])
    );
    assert_eq!(
        c[1].judged_as,
        Some(vec![("Bash".to_owned(), json!({"command": "rm -rf /"}))])
    );
}

#[test]
fn a_patch_applied_after_a_cd_or_from_elsewhere_writes_unknown_paths() {
    let (parts, _) = codex_parts(
        "shell_command",
        &json!({"command": "cd /etc && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\nEOF"}),
    );
    assert!(parts.contains(&("Edit".to_owned(), json!({}))), "{parts:?}");
    assert!(
        parts.contains(&("Write".to_owned(), json!({"file_path": "x"}))),
        "{parts:?}"
    );
    for cmd in ["apply_patch < p.diff", "printf '%s' \"$P\" | apply_patch"] {
        let (parts, _) = codex_parts("shell_command", &json!({"command": cmd}));
        assert!(
            parts.contains(&("Edit".to_owned(), json!({}))),
            "{cmd}: {parts:?}"
        );
    }
    // In the working folder, inline, the patch's own files are all it writes.
    let (parts, _) = codex_parts(
        "shell_command",
        &json!({"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: x\n+x\n*** End Patch\nEOF"}),
    );
    assert!(
        !parts.contains(&("Edit".to_owned(), json!({}))),
        "{parts:?}"
    );
}

#[test]
fn a_session_keeps_its_folder_while_another_sessions_lines_come_between() {
    let lines = [
        r#"{"type":"user","sessionId":"A","cwd":"/tmp/A","message":{"content":"go"}}"#,
        r#"{"type":"user","sessionId":"B","cwd":"/tmp/B","message":{"content":"go"}}"#,
        r#"{"type":"assistant","sessionId":"A","message":{"content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"cat .env"}}]}}"#,
        r#"{"type":"assistant","sessionId":"B","message":{"content":[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"cat .env"}}]}}"#,
    ];
    let items = items(&lines.join("\n")).unwrap();
    let c = calls(&items);
    assert_eq!(c[0].cwd.as_deref(), Some("/tmp/A"));
    assert_eq!(c[1].cwd.as_deref(), Some("/tmp/B"));
}
