//! What a mod sees (SPEC §6 **\[decision\]**, the table "What a mod sees"): Claude Code's
//! shapes at the boundary, so that a mod written for it runs unchanged, while Rust
//! plugins and scenarios keep SPEC §1.5–§1.7b's. Every translation is here, event by
//! event, both ways:
//!
//! | where | a mod sees | the engine's own |
//! |---|---|---|
//! | `$` op answers | the value, unwrapped (`$.env.get` the string or `undefined`, `$.tool.register` the full name, `$.tool.list` the array) | `{value}`, `{registered}`, `{tools}` |
//! | a `$` op refused | the promise rejects with `Error(<deny message>)` | `{deny: message}` |
//! | `plugin.register` core answer | `{ allow: true }` (either accepted back) | `{admitted: true}` |
//! | `ui.log` | `text` beside `line`; `to: 'transcript'` or `'debug'` | `line`; `screen` or `debug` |
//! | `prompt.submit` | `text` beside `prompt` (event and answer) | `prompt` |
//! | `session.append` | `message` (the row) beside the row's own fields | the row |
//! | `next.error.kind` | `throw` for `error` and `invalid-answer`; the SPEC name otherwise | SPEC §1.9 |
//! | `next.trace` entry | `{index, plugin, tier, event, outcome, reason?, returned}` and `{plugins, calledNext, handed, answer}` | [`fnhooks::TraceEntry`] |

use fnhooks::{Event, FailureKind, HookFailure, Origin, Reply, TraceEntry};
use serde_json::{json, Map, Value};

const UI_LOG: &str = "ui.log";
const PROMPT_SUBMIT: &str = "prompt.submit";
const SESSION_APPEND: &str = "session.append";
const PLUGIN_REGISTER: &str = "plugin.register";
const TOOL_CALL: &str = "tool.call";

/// Whether events of this name look different to a mod.
fn translated(name: &str) -> bool {
    matches!(name, UI_LOG | PROMPT_SUBMIT | SESSION_APPEND | TOOL_CALL)
}

/// The event's fields as a mod sees them (SPEC §6 table); borrowed when they are the
/// same.
pub(crate) fn event_view(e: &Event) -> std::borrow::Cow<'_, Map<String, Value>> {
    if !translated(&e.name) {
        return std::borrow::Cow::Borrowed(&e.fields);
    }
    let mut f = Map::clone(&e.fields);
    match e.name.as_str() {
        UI_LOG => {
            if let Some(line) = f.get("line").cloned() {
                f.entry("text").or_insert(line);
            }
            let to = match f.get("to").and_then(Value::as_str) {
                Some("debug") => "debug",
                _ => "transcript",
            };
            f.insert("to".into(), Value::String(to.into()));
        }
        PROMPT_SUBMIT => {
            if let Some(p) = f.get("prompt").cloned() {
                f.entry("text").or_insert(p);
            }
        }
        SESSION_APPEND => {
            let row = Value::Object(Map::clone(&e.fields));
            f.entry("message").or_insert(row);
        }
        TOOL_CALL => {
            // Claude Code spreads the tool's arguments onto `e` (reference §5).
            if let Some(Value::Object(input)) = e.fields.get("input") {
                for (k, v) in input {
                    f.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        _ => {}
    }
    std::borrow::Cow::Owned(f)
}

/// The event as JSON text for the mod.
pub(crate) fn event_to_mod(e: &Event) -> String {
    serde_json::to_string(&*event_view(e)).unwrap_or_else(|_| "{}".to_owned())
}

/// What a mod handed to `next` is not an event: the `next` promise rejects with the
/// [`Display`](std::fmt::Display) form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("next() was handed something that is not an event: {message}")]
pub(crate) struct NotAnEvent {
    /// `serde_json`'s reason the text is not a JSON object.
    pub(crate) message: String,
}

/// A `$` call was answered `{deny}`: its promise rejects with the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct Denied {
    /// The deny message (a non-string `deny` as its JSON text).
    pub(crate) message: String,
}

/// The event a mod handed to `next` (JSON text), in the engine's shape: where the mod
/// changed only Claude Code's name for a field, that change is taken.
///
/// # Errors
///
/// Why the text is not an event (not a JSON object).
pub(crate) fn event_from_mod(received: &Event, text: &str) -> Result<Event, NotAnEvent> {
    let mut f: Map<String, Value> = serde_json::from_str(text).map_err(|e| NotAnEvent {
        message: e.to_string(),
    })?;
    match received.name.as_str() {
        UI_LOG => {
            take_alias(&mut f, received, "line", "text");
            let to = match f.get("to").and_then(Value::as_str) {
                Some("debug") => "debug",
                _ => "screen",
            };
            f.insert("to".into(), Value::String(to.into()));
        }
        PROMPT_SUBMIT => {
            take_alias(&mut f, received, "prompt", "text");
        }
        TOOL_CALL => spread_back(&mut f, received),
        SESSION_APPEND => {
            // What the mod saw as `message`: the row's own field where it has one,
            // else the row itself.
            let seen = received
                .fields
                .get("message")
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::clone(&received.fields)));
            match f.remove("message") {
                Some(Value::Object(row)) if Value::Object(row.clone()) != seen => f = row,
                _ => {
                    if let Some(own) = received.fields.get("message") {
                        f.insert("message".into(), own.clone());
                    }
                }
            }
        }
        _ => {}
    }
    Ok(Event::new(received.name.clone(), f))
}

/// Where a mod changed only Claude Code's name for a field (`alias`), the engine's
/// (`field`) takes that change; the alias itself is dropped.
fn take_alias(f: &mut Map<String, Value>, received: &Event, field: &str, alias: &str) {
    let Some(text) = f.remove(alias) else {
        return;
    };
    let was = received.fields.get(field);
    let unchanged = f.get(field).is_none_or(|v| Some(v) == was);
    if unchanged && was != Some(&text) {
        f.insert(field.to_owned(), text);
    }
}

/// `tool.call`: an argument the mod changed where Claude Code spreads it (`e.command`)
/// is taken into `input`, unless the mod changed `input` itself; the spread copies go.
fn spread_back(f: &mut Map<String, Value>, received: &Event) {
    let Some(Value::Object(was)) = received.fields.get("input") else {
        return;
    };
    let input_unchanged = f.get("input") == received.fields.get("input");
    let mut input = was.clone();
    for (k, old) in was {
        if received.fields.contains_key(k) {
            continue;
        }
        if let Some(new) = f.remove(k) {
            if input_unchanged && &new != old {
                input.insert(k.clone(), new);
            }
        }
    }
    if input_unchanged {
        f.insert("input".into(), Value::Object(input));
    }
}

/// What `next` answered, as JSON text for the mod.
pub(crate) fn answer_to_mod(name: &str, reply: &Reply) -> String {
    let value: &Value = reply;
    match (name, value) {
        (PLUGIN_REGISTER, Value::Object(o)) if o.get("admitted") == Some(&Value::Bool(true)) => {
            let mut o = o.clone();
            o.remove("admitted");
            o.insert("allow".into(), Value::Bool(true));
            Value::Object(o).to_string()
        }
        (PROMPT_SUBMIT, Value::Object(o))
            if o.contains_key("prompt") && !o.contains_key("text") =>
        {
            let mut o = o.clone();
            if let Some(p) = o.get("prompt").cloned() {
                o.insert("text".into(), p);
            }
            Value::Object(o).to_string()
        }
        _ => value.to_string(),
    }
}

/// A mod's answer (JSON text) in the engine's shape.
///
/// # Errors
///
/// An `invalid-answer` failure when the text is not JSON.
pub(crate) fn answer_from_mod(
    name: &str,
    text: &str,
    last: Option<&Reply>,
) -> Result<Reply, HookFailure> {
    let mut v: Value = serde_json::from_str(text).map_err(|e| {
        HookFailure::new(
            FailureKind::InvalidAnswer,
            format!("its answer is not JSON: {e}"),
        )
    })?;
    if let Value::Object(o) = &mut v {
        match name {
            PLUGIN_REGISTER
                if o.get("allow") == Some(&Value::Bool(true)) && !o.contains_key("refuse") =>
            {
                o.remove("allow");
                o.insert("admitted".into(), Value::Bool(true));
            }
            PROMPT_SUBMIT => {
                // The field the mod changed from what `next` gave it counts.
                if let Some(text) = o.remove("text") {
                    let was = last.and_then(|r| r.get("prompt"));
                    let unchanged = o.get("prompt").is_none_or(|p| Some(p) == was);
                    if unchanged && was != Some(&text) {
                        o.insert("prompt".into(), text);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(v.into())
}

/// What a `$` call resolves to, as JSON text (empty for `undefined`), or the deny
/// message it rejects with (SPEC §6 table: the value, unwrapped).
///
/// # Errors
///
/// The message of a `{deny}` answer.
pub(crate) fn op_value(name: &str, reply: &Value) -> Result<String, Denied> {
    // A settings object is read as it is: its keys are settings, never a refusal.
    if let (false, Some(deny)) = (name == "settings.read", reply.get("deny")) {
        return Err(Denied {
            message: deny
                .as_str()
                .map_or_else(|| deny.to_string(), ToOwned::to_owned),
        });
    }
    let unwrapped = match (name, reply) {
        ("env.get", v) => v.get("value").filter(|v| !v.is_null()),
        ("env.set" | "ui.log", _) => None,
        ("tool.register", v) => v.get("registered").or(Some(v)),
        ("tool.list", v) => v.get("tools").or(Some(v)),
        ("settings.read" | "tool.check" | "session.append", v) => Some(v),
        (_, Value::Object(o)) if o.len() == 1 && o.contains_key("value") => o.get("value"),
        (_, Value::Object(o)) if o.is_empty() => None,
        (_, v) => Some(v),
    };
    Ok(unwrapped.map(Value::to_string).unwrap_or_default())
}

/// `next.error.kind` as a mod reads it.
pub(crate) fn kind_to_mod(kind: FailureKind) -> &'static str {
    match kind {
        FailureKind::Error | FailureKind::InvalidAnswer => "throw",
        other => other.as_str(),
    }
}

/// `next.called` and `next.error` for a failure handler, as JSON text.
pub(crate) fn failed_to_mod(called: bool, error: Option<&HookFailure>, budget_ms: u128) -> String {
    let error = error.map(|f| {
        json!({
            "kind": kind_to_mod(f.kind),
            "message": f.message,
            "budget": { "ms": budget_ms, "remainingMs": budget_ms },
        })
    });
    json!({ "called": called, "error": error }).to_string()
}

/// `next.origin` as a mod reads it: `{plugin, tier, id}`.
pub(crate) fn origin_to_mod(o: &Origin) -> String {
    json!({ "plugin": o.plugin, "tier": o.tier, "id": o.id }).to_string()
}

/// `next.trace` as a mod reads it: each entry in Claude Code's shape and SPEC's.
pub(crate) fn trace_to_mod(event: &str, entries: &[TraceEntry]) -> String {
    let out: Vec<Value> = entries
        .iter()
        .enumerate()
        .map(|(index, t)| {
            let answer = fnhooks::answer_to_json(&t.answer);
            let handed = t.handed.as_ref().map(fnhooks::answer_to_json);
            let outcome = match (&t.failure, &t.handed, &t.answer) {
                (Some(FailureKind::Timeout), _, _) => "expired",
                (Some(_), _, _) if t.called_next => "kept",
                (Some(_), _, _) => "skipped",
                (None, _, Err(_)) => "rejected",
                (None, Some(Ok(h)), Ok(a)) if Reply::ptr_eq(h, a) => "passed",
                (None, _, Ok(_)) => "returned",
            };
            let mut e = json!({
                "index": index,
                "plugin": t.plugins.first().map_or("engine", String::as_str),
                "tier": t.tier,
                "event": event,
                "outcome": outcome,
                "returned": t.answer.as_ref().ok().map(|r| Value::clone(r)),
                "plugins": t.plugins,
                "calledNext": t.called_next,
                "handed": handed,
                "answer": answer,
            });
            if let (Some(kind), Value::Object(o)) = (t.failure, &mut e) {
                o.insert("reason".into(), Value::String(kind.as_str().to_owned()));
            }
            e
        })
        .collect();
    Value::Array(out).to_string()
}

/// A URL's parts as JSON text for the `URL` global (WHATWG parsing by the `url`
/// crate), or `null` when it does not parse.
pub(crate) fn url_parts(input: &str, base: &str) -> String {
    let parsed = if base.is_empty() {
        url::Url::parse(input)
    } else {
        url::Url::parse(base).and_then(|b| b.join(input))
    };
    let Ok(u) = parsed else {
        return "null".to_owned();
    };
    let port = u.port().map(|p| p.to_string()).unwrap_or_default();
    let host = match u.host_str() {
        Some(h) if port.is_empty() => h.to_owned(),
        Some(h) => format!("{h}:{port}"),
        None => String::new(),
    };
    let search = u.query().map(|q| format!("?{q}")).unwrap_or_default();
    let hash = u.fragment().map(|f| format!("#{f}")).unwrap_or_default();
    json!({
        "href": u.as_str(),
        "origin": u.origin().ascii_serialization(),
        "protocol": format!("{}:", u.scheme()),
        "username": u.username(),
        "password": u.password().unwrap_or(""),
        "host": host,
        "hostname": u.host_str().unwrap_or(""),
        "port": port,
        "pathname": u.path(),
        "search": if search == "?" { String::new() } else { search },
        "hash": if hash == "#" { String::new() } else { hash },
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui_log_reads_as_claude_code_and_comes_back_as_the_engine() {
        let e = Event::from_value("ui.log", json!({"line": "hi", "to": "screen"}));
        let seen: Value = serde_json::from_str(&event_to_mod(&e)).unwrap();
        assert_eq!(
            seen,
            json!({"line": "hi", "to": "transcript", "text": "hi"})
        );
        let back = event_from_mod(&e, r#"{"line":"hi","to":"debug","text":"bye"}"#).unwrap();
        assert_eq!(back.to_value(), json!({"line": "bye", "to": "debug"}));
    }

    #[test]
    fn plugin_register_allow_and_admitted() {
        let r: Reply = json!({"admitted": true}).into();
        assert_eq!(answer_to_mod("plugin.register", &r), r#"{"allow":true}"#);
        let back = answer_from_mod("plugin.register", r#"{"allow":true}"#, None).unwrap();
        assert_eq!(*back, json!({"admitted": true}));
        let refuse = answer_from_mod("plugin.register", r#"{"refuse":"no"}"#, None).unwrap();
        assert_eq!(*refuse, json!({"refuse": "no"}));
    }

    #[test]
    fn op_values_unwrap_and_deny_rejects() {
        assert_eq!(
            op_value("env.get", &json!({"value": "x"})),
            Ok("\"x\"".to_owned())
        );
        assert_eq!(
            op_value("env.get", &json!({"value": null})),
            Ok(String::new())
        );
        assert_eq!(op_value("env.set", &json!({})), Ok(String::new()));
        assert_eq!(
            op_value("tool.register", &json!({"registered": "mcp__a__b"})),
            Ok("\"mcp__a__b\"".to_owned())
        );
        assert_eq!(
            op_value("env.set", &json!({"deny": "pinned"})),
            Err(Denied {
                message: "pinned".to_owned()
            })
        );
    }

    #[test]
    fn prompt_submit_text_is_prompt() {
        let e = Event::from_value("prompt.submit", json!({"prompt": "a"}));
        let back = event_from_mod(&e, r#"{"prompt":"a","text":"b"}"#).unwrap();
        assert_eq!(back.to_value(), json!({"prompt": "b"}));
        let answer = answer_from_mod("prompt.submit", r#"{"text":"c"}"#, None).unwrap();
        assert_eq!(*answer, json!({"prompt": "c"}));
    }

    #[test]
    fn url_parts_parse_and_refuse() {
        let v: Value =
            serde_json::from_str(&url_parts("https://a.example:8080/p?q=1#h", "")).unwrap();
        assert_eq!(v["host"], "a.example:8080");
        assert_eq!(v["search"], "?q=1");
        assert_eq!(url_parts("not a url", ""), "null");
    }
}
