//! The harness's own parts, without Claude Code: the fake API answers as the
//! Messages API does, the corpora read and group as documented, and a policy loses
//! only its sign-in keys.

use conformance::corpus::{self, Alias};
use conformance::fake_api::{FakeApi, ScriptedCall};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read as _, Write as _};
use std::path::PathBuf;

/// One HTTP/1.1 POST to the fake API; the response's body.
#[allow(
    clippy::unwrap_used,
    reason = "a test helper: a failed request fails the test"
)]
fn post(port: u16, path: &str, body: &Value) -> String {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let text = body.to_string();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default()
}

/// The `data:` lines of a server-sent event stream, parsed.
fn events(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str(d).ok())
        .collect()
}

#[test]
fn the_fake_api_hands_out_each_batch_to_one_main_loop_turn_then_ends() {
    let call = |id: &str, cmd: &str| ScriptedCall {
        id: id.into(),
        tool: "Bash".into(),
        input: json!({"command": cmd}),
    };
    let api = FakeApi::start(vec![vec![
        call("toolu_1", "ls"),
        call("toolu_2", "rm -rf build"),
    ]])
    .unwrap();
    let main = json!({"model": "m", "stream": true, "tools": [{"name": "Bash"}], "messages": []});
    // A side request (no tools) gets text and leaves the batch alone.
    let side = post(
        api.port(),
        "/v1/messages",
        &json!({"model": "m", "messages": []}),
    );
    let side: Value = serde_json::from_str(&side).unwrap();
    assert_eq!(side["content"][0]["type"], "text");
    let first = events(&post(api.port(), "/v1/messages", &main));
    let kinds: Vec<&str> = first.iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"message_start"));
    assert_eq!(kinds.last(), Some(&"message_stop"));
    let starts: Vec<&Value> = first
        .iter()
        .filter(|e| e["type"] == "content_block_start")
        .collect();
    assert_eq!(starts.len(), 2);
    assert_eq!(starts[0]["content_block"]["id"], "toolu_1");
    assert_eq!(starts[1]["content_block"]["name"], "Bash");
    let deltas: Vec<Value> = first
        .iter()
        .filter(|e| e["type"] == "content_block_delta")
        .map(|e| serde_json::from_str(e["delta"]["partial_json"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(deltas[1], json!({"command": "rm -rf build"}));
    let stop = first.iter().find(|e| e["type"] == "message_delta").unwrap();
    assert_eq!(stop["delta"]["stop_reason"], "tool_use");
    // The batches spent, the next turn ends.
    let second = events(&post(api.port(), "/v1/messages", &main));
    let stop = second
        .iter()
        .find(|e| e["type"] == "message_delta")
        .unwrap();
    assert_eq!(stop["delta"]["stop_reason"], "end_turn");
    let counted = post(api.port(), "/v1/messages/count_tokens", &main);
    assert_eq!(
        serde_json::from_str::<Value>(&counted).unwrap()["input_tokens"],
        1
    );
    let served = api.served();
    assert_eq!((served.batches, served.ends, served.side), (1, 1, 1));
}

#[test]
fn only_the_sign_in_keys_leave_a_policy() {
    let mut p = BTreeMap::new();
    p.insert(
        PathBuf::from("managed-settings.json"),
        br#"{"forceLoginMethod":"claudeai","forceLoginOrgUUID":"x","permissions":{"deny":["Bash(rm:*)"]}}"#.to_vec(),
    );
    p.insert(
        PathBuf::from("managed-mcp.json"),
        b"{\"mcpServers\":{}}".to_vec(),
    );
    p.insert(PathBuf::from("notes.txt"), b"forceLoginMethod".to_vec());
    let out = corpus::without_sign_in(p.clone());
    let settings: Value =
        serde_json::from_slice(&out[&PathBuf::from("managed-settings.json")]).unwrap();
    assert_eq!(settings, json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
    assert_eq!(
        out[&PathBuf::from("managed-mcp.json")],
        p[&PathBuf::from("managed-mcp.json")]
    );
    assert_eq!(
        out[&PathBuf::from("notes.txt")],
        p[&PathBuf::from("notes.txt")]
    );
}

#[test]
fn placeholders_and_a_scenarios_own_folders_become_each_sides_folders() {
    let aliases = vec![
        ("/home/dev/repo".to_owned(), Alias::Cwd),
        ("/home/dev".to_owned(), Alias::Home),
    ];
    let input =
        json!({"file_path": "$CWD/a", "command": "cat {home}/x /home/dev/repo/b ~/c", "n": 1});
    let out = corpus::substitute(&input, &aliases, "/w", "/h");
    assert_eq!(
        out,
        json!({"file_path": "/w/a", "command": "cat /h/x /w/b ~/c", "n": 1})
    );
}

#[test]
fn the_corpora_read_and_group() {
    let root = conformance::run::workspace_root();
    let everyday = root.join("crates/conformance/corpora/everyday.json");
    let managed = root.join("../shared/real-inputs/managed");
    let groups = corpus::everyday(&everyday, &managed).unwrap();
    let policies = std::fs::read_dir(&managed)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().is_dir())
        .count();
    assert_eq!(groups.len(), policies * corpus::modes().count());
    assert_eq!(
        corpus::modes().count(),
        5,
        "default, acceptEdits, plan, dontAsk, bypassPermissions"
    );
    assert!(
        groups.iter().all(|g| g.calls.len() >= 300),
        "a developer's day is at least 300 calls"
    );
    // No policy handed to Claude Code keeps a sign-in key.
    for g in &groups {
        for bytes in g.policy.values() {
            let text = String::from_utf8_lossy(bytes);
            assert!(!text.contains("forceLoginMethod") && !text.contains("forceLoginOrgUUID"));
        }
    }
    let scenarios =
        corpus::scenarios(&[root.join("examples/scenarios/bypass/shell-sweep.json")]).unwrap();
    let calls: usize = scenarios.iter().map(|g| g.calls.len()).sum();
    assert_eq!(calls, 76, "every tool.check step of the file, once");
}

#[test]
fn the_differences_list_reads_and_no_entry_covers_every_difference() {
    let root = conformance::run::workspace_root();
    let list =
        conformance::compare::Differences::read(&root.join("crates/conformance/differences.json"))
            .unwrap();
    assert!(!list.declared.is_empty() && !list.known_open.is_empty());
    for e in list.declared.iter().chain(&list.known_open) {
        let w = &e.when;
        // Each entry names a direction: an entry without one would hide any new difference.
        assert!(
            w.class.is_some() || (w.ours.is_some() && w.theirs.is_some()) || w.mode.is_some(),
            "{} names no direction",
            e.family
        );
        assert!(!e.reason.is_empty() && !e.source.is_empty(), "{}", e.family);
    }
}
