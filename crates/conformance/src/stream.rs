//! Claude Code's `stream-json` output, read for what each tool call was decided
//! (`../shared/reference/claude-code-oracle.md`): the `init` line lists the loaded
//! plugins; each tool result line (`{"type":"user",…}`) carries the result's text and
//! `tool_result_meta: [{id, non_execution_kind?, permission_decision: {decision,
//! source, reason_type}}]`.

use crate::sandbox::{ProcessResult, StreamResult};
use serde_json::Value;

/// How many raw lines of the stream a result keeps (for a run that went wrong).
const RAW_LINES: usize = 40;

/// Reads one line of the stream into `result`.
pub fn read_line(line: &str, result: &mut ProcessResult) {
    let Ok(v) = serde_json::from_str::<Value>(line) else {
        return;
    };
    if result.raw.len() < RAW_LINES {
        result.raw.push(line.chars().take(2000).collect());
    }
    match v.get("type").and_then(Value::as_str) {
        Some("system") if v.get("subtype").and_then(Value::as_str) == Some("init") => {
            result.plugins = v
                .get("plugins")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| {
                            p.as_str()
                                .or_else(|| p.get("name").and_then(Value::as_str))
                                .map(str::to_owned)
                        })
                        .collect()
                })
                .unwrap_or_default();
        }
        Some("user") => {
            let metas: Vec<Value> = v
                .get("tool_result_meta")
                .or_else(|| v.pointer("/message/tool_result_meta"))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let blocks = v
                .pointer("/message/content")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for b in blocks {
                if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                    continue;
                }
                let id = b
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let meta = metas
                    .iter()
                    .find(|m| {
                        m.get("id").and_then(Value::as_str) == Some(id.as_str())
                            || m.get("tool_use_id").and_then(Value::as_str) == Some(id.as_str())
                    })
                    .cloned();
                result.results.push(StreamResult {
                    id,
                    meta,
                    text: text_of(b.get("content")).chars().take(400).collect(),
                    is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
                });
            }
        }
        _ => {}
    }
}

/// A tool result's content as text (a string, or text blocks).
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
