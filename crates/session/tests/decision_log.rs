//! The decision log in a session: one hash-chained JSON line per
//! `tool.check`, naming the managed rule's file and line, the person's plugins that
//! rewrote the verdict, whether the security default held it, and the outcome.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use fnhooks::testing;
use fnhooks::{Event, Plugin, Tier};
use parking_lot::Mutex;
use serde_json::{json, Value};
use session::{BlockingSession, DecisionLog, DecisionSink, SessionConfig, GENESIS};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn allow_all() -> Plugin {
    testing::plugin_on(
        "yes-man@community",
        Tier::User,
        "tool.check",
        testing::answers(json!({"decision": "allow"})),
    )
}

fn logged(
    seated: bool,
    plugins: Vec<Plugin>,
) -> (tempfile::TempDir, BlockingSession, Buffer, Arc<DecisionLog>) {
    let managed = tempfile::tempdir().unwrap();
    std::fs::write(
        managed.path().join("managed-settings.json"),
        "{\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm:*)\"\n    ]\n  }\n}\n",
    )
    .unwrap();
    let buffer = Buffer::default();
    let log = Arc::new(DecisionLog::to_writer(
        Box::new(buffer.clone()),
        GENESIS.to_owned(),
    ));
    let config = SessionConfig {
        seated,
        decisions: Some(Arc::clone(&log) as Arc<dyn DecisionSink>),
        ..SessionConfig::new(
            managed.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    let session = BlockingSession::start(config, plugins).unwrap();
    (managed, session, buffer, log)
}

fn lines(b: &Buffer) -> Vec<Value> {
    String::from_utf8(b.0.lock().clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn each_check_is_one_chained_line_naming_rule_file_line_rewriter_hold_and_outcome() {
    let (managed, s, buffer, log) = logged(true, vec![allow_all()]);
    let check = |cmd: &str, id: &str| {
        Event::from_value(
            "tool.check",
            json!({"tool": "Bash", "input": {"command": cmd}, "tool_use_id": id}),
        )
    };
    let answer = s.raise(check("rm -rf build", "t1")).unwrap();
    assert_eq!(answer["decision"], "deny");
    let used = s.tool_use(
        serde_json::from_value(
            json!({"tool": "Bash", "input": {"command": "make build"}, "tool_use_id": "t2"}),
        )
        .unwrap(),
    );
    assert_eq!(used.verdict.decision, permissions::Decision::Allow);
    log.flush().unwrap();

    let l = lines(&buffer);
    assert_eq!(l.len(), 2, "{l:?}");
    let first = &l[0];
    assert_eq!(first["prev"], GENESIS);
    assert_eq!(first["tool"], "Bash");
    assert_eq!(first["tool_use_id"], "t1");
    assert_eq!(first["decision"], "deny");
    assert_eq!(first["rule"], "Bash(rm:*)");
    assert_eq!(first["source"], "policy");
    assert_eq!(
        first["file"],
        managed
            .path()
            .join("managed-settings.json")
            .display()
            .to_string()
    );
    assert_eq!(first["line"], 4);
    assert_eq!(first["rewritten_by"], json!(["yes-man"]));
    assert_eq!(first["held"], true);
    assert_eq!(first["outcome"], "refused");
    assert_eq!(
        first["input_sha256"],
        session::DecisionRecord::digest(&json!({"command": "rm -rf build"}))
    );
    // No rule: the person's allow stands, nothing held; the tool-use flow's outcome.
    let second = &l[1];
    assert_eq!(second["decision"], "allow");
    assert_eq!(second["held"], false);
    assert_eq!(second["outcome"], "run");
    let text = String::from_utf8(buffer.0.lock().clone()).unwrap();
    assert_eq!(session::verify_log(text.as_bytes()).map(|e| e.lines), Ok(2));
}

#[test]
fn unseated_the_lifted_deny_is_logged_as_the_persons_and_not_held() {
    let (_managed, s, buffer, log) = logged(false, vec![allow_all()]);
    let answer = s
        .raise(Event::from_value(
            "tool.check",
            json!({"tool": "Bash", "input": {"command": "rm -rf build"}}),
        ))
        .unwrap();
    assert_eq!(answer["decision"], "allow");
    log.flush().unwrap();
    let l = lines(&buffer);
    assert_eq!(l[0]["held"], false);
    assert_eq!(l[0]["rewritten_by"], json!(["yes-man"]));
    assert_eq!(l[0]["outcome"], "run");
    assert_eq!(l[0]["tool_use_id"], Value::Null);
}
