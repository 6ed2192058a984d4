//! Codex CLI rollouts: the typed view of a line (only what the replay reads; the
//! parser skips the rest), and the engine calls a Codex call stands for (a shell
//! command, a patch's file writes).

use super::{Item, Reader, Seen, CODEX_TYPES};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::io::BufRead;
use std::sync::Arc;

/// Reading Codex lines.
impl<R: BufRead> Reader<R> {
    /// The calls, results, working folder and mode of one Codex line, appended to
    /// `out`; why not, when the line is not one.
    pub(super) fn codex(&mut self, l: CodexLine<'_>, out: &mut Vec<Item>) -> Result<(), String> {
        let kind = l.kind.ok_or("a JSON object with no \"type\"")?;
        if !CODEX_TYPES.contains(&&*kind) {
            return Err(format!(
                "a line of type {kind:?}, never seen in Codex rollouts; skipped"
            ));
        }
        let Some(p) = l.payload else {
            return Ok(());
        };
        match (&*kind, p.kind.as_deref()) {
            ("session_meta", _) => {
                if let Some(id) = p.id {
                    self.session = Some(Arc::from(id));
                }
                if let Some(c) = p.cwd {
                    self.cwd = Some(Arc::from(c));
                }
            }
            ("turn_context", _) => {
                if let Some(c) = p.cwd {
                    self.cwd = Some(Arc::from(c));
                }
                let approval = raw_text(p.approval_policy).unwrap_or_default();
                let sandbox = p
                    .sandbox_policy
                    .as_ref()
                    .and_then(|s| s.get("type").or(Some(s)))
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                self.mode = Some(Arc::from(format!(
                    "codex approval_policy={approval} sandbox={sandbox}"
                )));
            }
            (
                "response_item",
                Some(k @ ("function_call" | "custom_tool_call" | "local_shell_call")),
            ) => {
                let id = p.call_id.or(p.id).unwrap_or_default();
                let name = p.name.unwrap_or_else(|| k.to_owned());
                let input = if k == "function_call" {
                    let raw = p.arguments.unwrap_or_default();
                    // Arguments that are not JSON, or name a key twice (which value
                    // would run?), are kept as text: nothing is read from them.
                    match policy::json::parse(raw.as_bytes()) {
                        Ok(doc) if doc.duplicates.is_empty() => doc.value,
                        _ => json!({ "arguments": raw }),
                    }
                } else if k == "local_shell_call" {
                    p.action.unwrap_or_else(|| json!({}))
                } else {
                    p.input.unwrap_or(Value::Null)
                };
                let mut call = self.call(id, name, input);
                let (parts, cwd) = codex_parts(&call.tool, &call.input);
                if let Some(cwd) = cwd {
                    call.cwd = Some(Arc::from(cwd));
                }
                call.judged_as = Some(parts);
                out.push(Item::Call(Box::new(call)));
            }
            ("response_item", Some("function_call_output" | "custom_tool_call_output")) => {
                // The output's first bytes tell a refusal; it is never decoded whole.
                let head = p
                    .output
                    .map(|o| o.get().as_bytes())
                    .and_then(|b| b.get(..b.len().min(600)))
                    .unwrap_or_default();
                let lower = String::from_utf8_lossy(head).to_ascii_lowercase();
                let lower = lower.trim_start_matches('"');
                let seen = if lower.contains("rejected by user") || lower.starts_with("aborted") {
                    Seen::Rejected
                } else {
                    Seen::Ran
                };
                out.push(Item::Result {
                    id: p.call_id.unwrap_or_default(),
                    seen,
                });
            }
            _ => {}
        }
        Ok(())
    }
}

/// The most files of one patch judged one by one; past them, one more part whose path
/// is unknown (asked: SPEC §4).
pub(super) const MAX_PATCH_FILES: usize = 1000;

/// The engine calls a Codex call stands for, and the working folder it names. A shell
/// tool whose command cannot be read is a `Bash` call with no command (asked: the core
/// never allows what it cannot read); a shell command that runs `apply_patch` (as Codex
/// lets one) also writes the patch's files.
pub(super) fn codex_parts(tool: &str, input: &Value) -> (Vec<(String, Value)>, Option<String>) {
    let text = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_owned);
    let workdir = text("workdir").or_else(|| text("working_directory"));
    let shell = |command: Option<String>| -> Vec<(String, Value)> {
        let Some(command) = command else {
            return vec![("Bash".to_owned(), json!({}))];
        };
        let mut parts = Vec::new();
        if command.contains("apply_patch") || command.contains("applypatch") {
            parts = patch_parts(&command);
            // A patch read from elsewhere (`< p.diff`, a pipe), or applied after a `cd`,
            // writes files the text does not place: one more part of unknown path.
            let moves = command
                .split(|c: char| c.is_whitespace() || ";&|()".contains(c))
                .any(|w| matches!(w, "cd" | "pushd" | "popd"));
            if parts.is_empty() || moves {
                parts.push(("Edit".to_owned(), json!({})));
            }
        }
        parts.insert(0, ("Bash".to_owned(), json!({ "command": command })));
        parts
    };
    match tool {
        "shell_command" | "exec_command" => {
            (shell(text("command").or_else(|| text("cmd"))), workdir)
        }
        "shell" | "local_shell_call" | "container.exec" => match input.get("command") {
            Some(Value::Array(argv)) => (shell(argv_command(argv)), workdir),
            Some(Value::String(c)) => (shell(Some(c.clone())), workdir),
            _ => (shell(None), workdir),
        },
        // Text written to a running command's standard input runs as that shell reads
        // it; `unified_exec` runs an argv (or a string) as `shell` does.
        "write_stdin" => (shell(text("chars")), workdir),
        "unified_exec" => match input.get("input").or_else(|| input.get("command")) {
            Some(Value::Array(argv)) => (shell(argv_command(argv)), workdir),
            Some(Value::String(c)) => (shell(Some(c.clone())), workdir),
            _ => (shell(None), workdir),
        },
        "exec" => match input {
            Value::String(c) => (shell(Some(c.clone())), None),
            _ => (shell(text("command").or_else(|| text("cmd"))), workdir),
        },
        "view_image" => match text("path") {
            Some(p) => (vec![("Read".to_owned(), json!({ "file_path": p }))], None),
            None => (vec![("Read".to_owned(), json!({}))], None),
        },
        "apply_patch" => {
            let patch = match input {
                Value::String(s) => Some(s.as_str()),
                _ => input.get("input").and_then(Value::as_str),
            };
            let parts = patch.map(patch_parts).unwrap_or_default();
            if parts.is_empty() {
                // A patch that names no file is judged as an edit of an unknown path.
                (vec![("Edit".to_owned(), json!({}))], None)
            } else {
                (parts, None)
            }
        }
        _ => (vec![(tool.to_owned(), input.clone())], workdir),
    }
}

/// The script an argv runs: `bash -lc SCRIPT` and `powershell -Command SCRIPT` run
/// their script; any other argv is joined with shell quoting.
pub(super) fn argv_command(argv: &[Value]) -> Option<String> {
    // An argv that is empty or holds anything but strings runs nothing readable.
    let words: Vec<&str> = argv.iter().map(Value::as_str).collect::<Option<_>>()?;
    if words.is_empty() {
        return None;
    }
    if let [program, flag, script] = words.as_slice() {
        let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
        let base = base
            .strip_suffix(".exe")
            .unwrap_or(base)
            .to_ascii_lowercase();
        let shell =
            ["bash", "sh", "zsh", "dash", "powershell", "pwsh", "cmd"].contains(&base.as_str());
        let runs = ["-c", "-lc", "-Command", "/c", "/C", "-command"].contains(flag);
        if shell && runs {
            return Some((*script).to_owned());
        }
    }
    let joined = words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b))
            {
                (*w).to_owned()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    // A patch given as the argument of `apply_patch` is the patch, as written.
    if matches!(words.first(), Some(&("apply_patch" | "applypatch"))) {
        return Some(words.join("\n"));
    }
    Some(joined)
}

/// The file operations of an `apply_patch` text: `*** Add File: P` is a `Write` of P,
/// `*** Update File: P` and `*** Delete File: P` an `Edit` of P, `*** Move to: P` an
/// `Edit` of P too.
pub(super) fn patch_parts(patch: &str) -> Vec<(String, Value)> {
    let mut parts: Vec<(String, Value)> = patch
        .lines()
        .filter_map(|l| {
            let l = l.trim_end_matches('\r');
            let (tool, path) = if let Some(p) = l.strip_prefix("*** Add File: ") {
                ("Write", p)
            } else if let Some(p) = l
                .strip_prefix("*** Update File: ")
                .or_else(|| l.strip_prefix("*** Delete File: "))
                .or_else(|| l.strip_prefix("*** Move to: "))
            {
                ("Edit", p)
            } else {
                return None;
            };
            Some((tool.to_owned(), json!({ "file_path": path.trim() })))
        })
        .take(MAX_PATCH_FILES + 1)
        .collect();
    if parts.len() > MAX_PATCH_FILES {
        parts.truncate(MAX_PATCH_FILES);
        parts.push(("Edit".to_owned(), json!({})));
    }
    parts
}

// Strings are borrowed from the line where they hold no escape, and results' texts
// are kept as raw JSON (scanned, never decoded) and looked into only for an error.

#[derive(Deserialize)]
pub(super) struct CodexLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    payload: Option<CodexPayload<'a>>,
}

#[derive(Deserialize)]
struct CodexPayload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    id: Option<String>,
    cwd: Option<String>,
    #[serde(default, borrow)]
    approval_policy: Option<&'a RawValue>,
    sandbox_policy: Option<Value>,
    name: Option<String>,
    arguments: Option<String>,
    input: Option<Value>,
    action: Option<Value>,
    call_id: Option<String>,
    #[serde(default, borrow)]
    output: Option<&'a RawValue>,
}

/// The text of a raw JSON string (`None`: not a string).
fn raw_text(raw: Option<&RawValue>) -> Option<String> {
    raw.and_then(|r| serde_json::from_str::<String>(r.get()).ok())
}
