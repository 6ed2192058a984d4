//! Helpers the tests of the classic hooks share (SPEC §4 "Classic hooks"): session
//! facts, `hooks` settings, and hooks run for one call.

use super::{pre_tool_use_input, ClassicHooks, Combined};
use crate::{SessionFacts, SettingsSource};
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub(super) fn facts() -> SessionFacts {
    let dir = std::env::temp_dir();
    SessionFacts::new(dir.clone(), dir)
}

pub(super) fn hooks_of(_source: SettingsSource, handlers: Value) -> Value {
    json!({ "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": handlers } ] } })
}

pub(super) fn cmd(command: &str) -> Value {
    json!({ "type": "command", "command": command })
}

pub(super) fn run(sources: &[(SettingsSource, &Value)], tool: &str, input: Value) -> Combined {
    let (hooks, _) = ClassicHooks::from_sources(sources);
    let f = facts();
    let stdin = pre_tool_use_input("s1", "", &f, tool, &input, "t1");
    hooks.run_pre_tool_use(&stdin, &f, &BTreeMap::new())
}

pub(super) fn one(source: SettingsSource, handler: Value) -> Combined {
    let s = hooks_of(source, json!([handler]));
    run(&[(source, &s)], "Bash", json!({"command": "make build"}))
}
