//! The `--json` of a previous replay, read back as the calls it wrote (`judged_as`
//! keeps the engine calls each stood for).

use super::{Call, Item, Reader, Seen};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use std::io::BufRead;
use std::sync::Arc;

/// Reading a replay's own lines.
impl<R: BufRead> Reader<R> {
    /// The call of one line of a replay's `--json`, appended to `out`; why not, when
    /// the line is not one.
    pub(super) fn replayed(&mut self, l: ReplayLine, out: &mut Vec<Item>) -> Result<(), String> {
        match l.replay.as_deref() {
            Some("call") => {}
            Some("summary") => return Ok(()),
            Some(other) => {
                return Err(format!(
                    "a replay line of kind {other:?}, never written by replay; skipped"
                ))
            }
            None => return Err("a line with no \"replay\" key in a replay's JSON lines".to_owned()),
        }
        let tool = l.tool.ok_or("a replayed call with no \"tool\"")?;
        let judged_as = l.judged_as.map(|parts| {
            parts
                .into_iter()
                .map(|p| (p.tool, p.input.unwrap_or_else(|| json!({}))))
                .collect()
        });
        out.push(Item::Call(Box::new(Call {
            file: l.file.map_or_else(|| Arc::clone(&self.file), Arc::from),
            line: l.line.unwrap_or(self.line),
            session: l.session.map_or_else(|| Arc::clone(&self.stem), Arc::from),
            agent: l.agent.map(Arc::from),
            id: l.tool_use_id.unwrap_or_default(),
            tool,
            input: l.input.unwrap_or_else(|| json!({})),
            judged_as,
            cwd: l.cwd.map(Arc::from),
            mode: l.mode.map(Arc::from),
            seen: l.transcript.as_deref().and_then(Seen::parse),
            bytes: self.line_bytes,
        })));
        Ok(())
    }
}

#[derive(Deserialize)]
pub(super) struct ReplayLine {
    replay: Option<String>,
    file: Option<String>,
    line: Option<u64>,
    session: Option<String>,
    agent: Option<String>,
    tool: Option<String>,
    tool_use_id: Option<String>,
    input: Option<Value>,
    judged_as: Option<Vec<ReplayPart>>,
    cwd: Option<String>,
    mode: Option<String>,
    transcript: Option<String>,
}

#[derive(Deserialize)]
struct ReplayPart {
    tool: String,
    input: Option<Value>,
}

/// `{tool, input}` of each part, as the `--json` writes `judged_as`.
pub(crate) fn parts_json(parts: &[(String, Value)]) -> Value {
    Value::Array(
        parts
            .iter()
            .map(|(t, i)| {
                let mut m = Map::new();
                m.insert("tool".into(), json!(t));
                m.insert("input".into(), i.clone());
                Value::Object(m)
            })
            .collect(),
    )
}
