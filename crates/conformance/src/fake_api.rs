//! A fake Anthropic Messages API on the loopback address, scripted with batches of
//! tool calls (`../shared/reference/claude-code-oracle.md`, "A headless session
//! against a fake API").
//!
//! - `POST /v1/messages` with a non-empty `tools` list is a turn of the main loop:
//!   it is answered with the next batch as `tool_use` blocks of one assistant
//!   message (Claude Code runs them as one batch), stop reason `tool_use`; once the
//!   batches are spent, with a short text and `end_turn`.
//! - Any other `POST /v1/messages` (titles, summaries) gets a short text.
//! - `POST /v1/messages/count_tokens` gets `{"input_tokens": 1}`.
//!
//! Streaming requests (`"stream": true`) are answered with server-sent events
//! (`message_start`, `content_block_start`, `content_block_delta`,
//! `content_block_stop`, `message_delta`, `message_stop`); the others with the whole
//! message as JSON.

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::io::Read as _;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// One scripted tool call: the `tool_use` id the API gives it, the tool and its input.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ScriptedCall {
    /// The `tool_use` block's id (`toolu_…`): how its result is found in the stream.
    pub id: String,
    /// The tool's name (`Bash`, `Read`, …).
    pub tool: String,
    /// The tool's input.
    pub input: Value,
}

/// The largest request body read (16 MiB): Claude Code's requests carry the whole
/// conversation, which for a few hundred calls stays far below it.
const MAX_BODY: u64 = 16 << 20;

/// A running fake API. Dropping it stops the server.
pub struct FakeApi {
    port: u16,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    served: Arc<Mutex<Served>>,
}

/// What the fake API has answered so far.
#[derive(Debug, Default, Clone)]
pub struct Served {
    /// Main-loop turns answered with a batch of tool calls.
    pub batches: usize,
    /// Main-loop turns answered with `end_turn`.
    pub ends: usize,
    /// Side requests (no tools) answered with text.
    pub side: usize,
}

impl std::fmt::Debug for FakeApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeApi")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl FakeApi {
    /// Starts the server on `127.0.0.1` (a free port) with `batches` to hand out.
    ///
    /// # Errors
    /// When no loopback port can be bound.
    pub fn start(batches: Vec<Vec<ScriptedCall>>) -> std::io::Result<FakeApi> {
        let server = tiny_http::Server::http("127.0.0.1:0").map_err(std::io::Error::other)?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or_else(|| std::io::Error::other("the fake API has no IP address"))?;
        let server = Arc::new(server);
        let served = Arc::new(Mutex::new(Served::default()));
        let queue = Arc::new(Mutex::new(VecDeque::from(batches)));
        let thread = {
            let server = Arc::clone(&server);
            let served = Arc::clone(&served);
            std::thread::spawn(move || {
                for request in server.incoming_requests() {
                    let queue = Arc::clone(&queue);
                    let served = Arc::clone(&served);
                    // One thread per request: Claude Code may hold a connection open
                    // while it sends a side request on another.
                    std::thread::spawn(move || answer(request, &queue, &served));
                }
            })
        };
        Ok(FakeApi {
            port,
            server,
            thread: Some(thread),
            served,
        })
    }

    /// The port it listens on (`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`).
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// What it has answered so far.
    #[must_use]
    pub fn served(&self) -> Served {
        self.served.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn answer(
    mut request: tiny_http::Request,
    queue: &Mutex<VecDeque<Vec<ScriptedCall>>>,
    served: &Mutex<Served>,
) {
    let mut body = String::new();
    let _ = request.as_reader().take(MAX_BODY).read_to_string(&mut body);
    let url = request.url().to_owned();
    if url.starts_with("/v1/messages/count_tokens") {
        let _ = request.respond(json_response(&json!({"input_tokens": 1})));
        return;
    }
    if !url.starts_with("/v1/messages") {
        let _ = request.respond(tiny_http::Response::empty(404));
        return;
    }
    let req: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let streaming = req.get("stream").and_then(Value::as_bool) == Some(true);
    let main_loop = req
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    let (content, stop): (Vec<Value>, &str) = if main_loop {
        let next = queue.lock().ok().and_then(|mut q| q.pop_front());
        match next {
            Some(batch) => {
                if let Ok(mut s) = served.lock() {
                    s.batches += 1;
                }
                let blocks = batch
                    .into_iter()
                    .map(|c| json!({"type": "tool_use", "id": c.id, "name": c.tool, "input": c.input}))
                    .collect();
                (blocks, "tool_use")
            }
            None => {
                if let Ok(mut s) = served.lock() {
                    s.ends += 1;
                }
                (vec![json!({"type": "text", "text": "Done."})], "end_turn")
            }
        }
    } else {
        if let Ok(mut s) = served.lock() {
            s.side += 1;
        }
        (
            vec![json!({"type": "text", "text": "Conformance run"})],
            "end_turn",
        )
    };
    let model = req
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("claude-sonnet-4-5")
        .to_owned();
    if streaming {
        let text = sse(&model, &content, stop);
        let response = tiny_http::Response::new(
            tiny_http::StatusCode(200),
            header("Content-Type", "text/event-stream"),
            std::io::Cursor::new(text.into_bytes()),
            None,
            None,
        );
        let _ = request.respond(response);
    } else {
        let _ = request.respond(json_response(&json!({
            "id": "msg_conformance",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        })));
    }
}

/// The server-sent events of one assistant message.
fn sse(model: &str, content: &[Value], stop: &str) -> String {
    let mut out = String::new();
    let mut event = |name: &str, data: Value| {
        out.push_str("event: ");
        out.push_str(name);
        out.push_str("\ndata: ");
        out.push_str(&data.to_string());
        out.push_str("\n\n");
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {
            "id": "msg_conformance", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    );
    for (index, block) in content.iter().enumerate() {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or("text");
        if kind == "tool_use" {
            let start =
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}});
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": start}),
            );
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {
                    "type": "input_json_delta", "partial_json": block["input"].to_string()}}),
            );
        } else {
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": index,
                       "content_block": {"type": "text", "text": ""}}),
            );
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {
                    "type": "text_delta", "text": block["text"]}}),
            );
        }
        event(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        );
    }
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
               "usage": {"output_tokens": 1}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    out
}

fn header(name: &str, value: &str) -> Vec<tiny_http::Header> {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes())
        .into_iter()
        .collect()
}

fn json_response(v: &Value) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut r = tiny_http::Response::from_data(v.to_string().into_bytes());
    for h in header("Content-Type", "application/json") {
        r.add_header(h);
    }
    r
}
