//! The wire between the bridge's two halves (SPEC §6 "Sandbox"): the messages the
//! JavaScript half leaves in its outbox, read in Rust, where none of it is trusted.
//!
//! The JavaScript half runs in the mod's own realm. Whatever it says may have been
//! forged by the mod (a poisoned intrinsic, a setter on `Array.prototype`), so every
//! message is read strictly here and checked against what a hook of this mod may do:
//!
//! - the outbox is runs of five values (`callId, kind, reqId, a, b`) of the right types,
//!   of a known kind, at most [`MAX_MESSAGES_PER_TURN`] of them;
//! - a `$` call names an event the session answers (or the embedding program declared),
//!   with fields that are a JSON object; its fields are checked against its event before
//!   anything is raised ([`check_op_fields`]);
//! - a `next` or `$` request carries a request number above every one its run sent
//!   before ([`in_order`], where the messages are routed to their runs).
//!
//! A message that fails these is no mistake of an honest bridge: the hook fails with kind
//! `crash` (its worker is torn down) and nothing is raised. A `$` call whose fields do
//! not fit its event (`$.env.get(5)`) is a mistake a mod can make through the honest
//! bridge: its promise rejects, and nothing is raised.

use rquickjs::{Array, Ctx, Function, Object, Value};
use serde_json::{Map, Value as Json};

/// The most messages one turn of the runtime (a pump: a hook started or a request
/// settled, then every job it left) may send. A hook that writes 10,000 log lines in a
/// loop without awaiting them stays under it; past it the hook fails (kind `crash`).
pub(crate) const MAX_MESSAGES_PER_TURN: usize = 10_000;

/// The most bytes of text one turn may send (answers, events handed on, `$` fields,
/// messages): what the Rust half copies out of the runtime and parses is bounded by it,
/// not only by the runtime's own memory cap. A 16 MiB answer comes through.
pub(crate) const MAX_BYTES_PER_TURN: usize = 64 * 1024 * 1024;

/// The most `next` and `$` requests one hook run may have in flight at once.
pub(crate) const MAX_IN_FLIGHT: usize = 10_000;

/// The `$` calls the session answers (SPEC §6 **\[decision\]**); every other one
/// rejects with `no implementation for <event>` unless the embedding program adds it.
pub(crate) const ANSWERED_OPS: [&str; 8] = [
    "settings.read",
    "env.get",
    "env.set",
    "tool.register",
    "tool.list",
    "tool.check",
    "ui.log",
    "session.append",
];

/// Declares one set of the wire's kinds, each named once: a constant in module `$module`,
/// and `$table`, every kind's name and number, which the JavaScript half is handed
/// ([`kinds_for_js`]) and reads its kinds from. Neither half writes a kind as a number
/// of its own, so the two cannot disagree on one.
macro_rules! kinds {
    (
        $(#[$doc:meta])*
        $table:ident in $module:ident {
            $($(#[$kind_doc:meta])* $name:ident = $value:literal,)+
        }
    ) => {
        $(#[$doc])*
        pub(crate) mod $module {
            $($(#[$kind_doc])* pub(crate) const $name: u32 = $value;)+
        }

        #[doc = concat!(
            "Every kind of [`", stringify!($module), "`], by name: what the JavaScript half is handed."
        )]
        pub(crate) const $table: &[(&str, u32)] = &[$((stringify!($name), $module::$name)),+];
    };
}

kinds! {
    /// The kinds of the messages the JavaScript half leaves in its outbox (`js/calls.js`,
    /// `send`): runs of five values, `callId, kind, reqId, a, b`.
    SENT in kind {
        /// The hook answered: `a` is the answer as JSON.
        DONE = 0,
        /// The hook answered what next request `reqId` resolved to, as it came.
        DONE_SAME = 1,
        /// The hook threw: `a` is the message, `b` the stack.
        THREW = 2,
        /// The hook threw the very rejection of next request `reqId`.
        THREW_CHAIN = 3,
        /// The hook answered nothing usable: `a` says why.
        INVALID = 4,
        /// `next(e)`: `a` is the event as JSON (`''`: as received), `b` the tier of
        /// `next.to` (`''` for `next`).
        NEXT = 5,
        /// A `$` call: `a` is the event's name, `b` its fields as JSON.
        OP = 6,
        /// A cap was hit since the last take, whatever caught it: `a` names the cap.
        CAP = 7,
    }
}

kinds! {
    /// How the Rust half settles a request in the JavaScript half (`js/calls.js`,
    /// `settle(id, reqId, kind, text)`).
    SETTLED in settle {
        /// `next`'s answer: `text` is the answer as JSON.
        NEXT_ANSWER = 0,
        /// A `$` call's value: `text` is the value as JSON (`''` for `undefined`).
        OP_VALUE = 1,
        /// A rejection: `text` is its message.
        REJECTED = 2,
    }
}

/// How the Rust half settles a request in the JavaScript half (`js/calls.js`, `settle`):
/// each of [`settle`]'s kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum Settle {
    /// `next`'s answer, as JSON.
    NextAnswer = settle::NEXT_ANSWER,
    /// A `$` call's value, as JSON (`''` for `undefined`).
    OpValue = settle::OP_VALUE,
    /// A rejection with this message.
    Rejected = settle::REJECTED,
}

/// The kinds as the JavaScript half is handed them, its third argument: `{ sent, settle }`,
/// each a record of [`SENT`] or [`SETTLED`] by name. Every record has no prototype and is
/// frozen (with `Object.freeze` as `ctx` has it: called before any of a mod's code runs
/// there); the bridge reads its kinds off them once, before the mod's code runs.
///
/// # Errors
///
/// What the JavaScript engine threw making them (out of memory).
pub(crate) fn kinds_for_js<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
    let freeze: Function = ctx.globals().get::<_, Object>("Object")?.get("freeze")?;
    let record = |entries: &[(&str, u32)]| -> rquickjs::Result<Object<'js>> {
        let o = Object::new(ctx.clone())?;
        o.set_prototype(None)?;
        for (name, value) in entries {
            o.set(*name, *value)?;
        }
        freeze.call::<_, Object>((o,))
    };
    let wire = Object::new(ctx.clone())?;
    wire.set_prototype(None)?;
    wire.set("sent", record(SENT)?)?;
    wire.set("settle", record(SETTLED)?)?;
    freeze.call((wire,))
}

/// What the JavaScript half says about one hook run (`js/calls.js`, `outbox`).
#[derive(Debug)]
pub(crate) enum Msg {
    /// The hook answered: the answer as JSON.
    Done(String),
    /// The hook answered what next request `req` resolved to, as it came.
    DoneSame(u32),
    /// The hook threw (or its promise rejected).
    Threw { message: String, stack: String },
    /// The runtime's worker was torn down (SPEC §6 "Limits"): why.
    Crashed(String),
    /// The hook threw the very rejection of next request `req`.
    ThrewChain(u32),
    /// The hook answered nothing usable (`undefined`, a value that is not JSON).
    Invalid(String),
    /// `next(e)` (`tier` empty) or `next.to(e, tier)`; `event` empty: as received.
    Next {
        req: u32,
        event: String,
        tier: String,
    },
    /// A `$` call: `$.<noun>.<method>(...)` raises `name` with these fields.
    Op {
        req: u32,
        name: String,
        fields: Map<String, Json>,
    },
}

impl Msg {
    /// Whether the message ends its hook run (the JavaScript half has forgotten it).
    pub(crate) fn ends_run(&self) -> bool {
        !matches!(self, Msg::Next { .. } | Msg::Op { .. })
    }

    /// The request number of a `next` or `$` request.
    pub(crate) fn request(&self) -> Option<u32> {
        match self {
            Msg::Next { req, .. } | Msg::Op { req, .. } => Some(*req),
            _ => None,
        }
    }
}

/// One turn's outbox, read: the messages by run, and the cap the bridge saw hit.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    pub(crate) msgs: Vec<(u32, Msg)>,
    pub(crate) cap: Option<&'static str>,
}

/// Reads the outbox `out` strictly. `answers` says whether the session answers a `$`
/// call of that name.
///
/// # Errors
///
/// Why the outbox cannot have come from the honest bridge: the hook fails with kind
/// `crash`.
pub(crate) fn read_outbox(
    out: &Array<'_>,
    answers: &dyn Fn(&str) -> bool,
) -> Result<Outbox, Tampered> {
    let len = out.len();
    if !len.is_multiple_of(5) {
        return Err(Tampered::NotRunsOfFive { len });
    }
    let n = len / 5;
    if n > MAX_MESSAGES_PER_TURN {
        return Err(Tampered::TooManyMessages { n });
    }
    let mut read = Outbox {
        msgs: Vec::with_capacity(n),
        cap: None,
    };
    let mut bytes = 0usize;
    for i in 0..n {
        let at = i * 5;
        let id = number(out, at)?;
        let kind = number(out, at + 1)?;
        let req = number(out, at + 2)?;
        let (a, b) = (text(out, at + 3)?, text(out, at + 4)?);
        bytes = bytes
            .saturating_add(a.as_ref().map_or(0, String::len))
            .saturating_add(b.as_ref().map_or(0, String::len));
        if bytes > MAX_BYTES_PER_TURN {
            return Err(Tampered::TooManyBytes);
        }
        // A mod's own words (what it threw, why its answer is unusable) may be anything
        // it wrote; everything else the honest bridge sends is JSON or a name it made.
        let own_words = matches!(kind, kind::THREW | kind::INVALID);
        let (a, b) = match (a, b) {
            (Some(a), Some(b)) => (a, b),
            (a, b) if own_words => (
                a.unwrap_or_else(|| NOT_UNICODE.to_owned()),
                b.unwrap_or_default(),
            ),
            _ => return Err(Tampered::NotUnicode { message: i }),
        };
        let msg = match kind {
            kind::DONE => Msg::Done(a),
            kind::DONE_SAME => Msg::DoneSame(req),
            kind::THREW => Msg::Threw {
                message: a,
                stack: b,
            },
            kind::THREW_CHAIN => Msg::ThrewChain(req),
            kind::INVALID => Msg::Invalid(a),
            kind::NEXT => Msg::Next {
                req,
                event: a,
                tier: b,
            },
            kind::OP => {
                if !answers(&a) {
                    return Err(Tampered::UnansweredCall { name: a });
                }
                let fields = match serde_json::from_str::<Json>(&b) {
                    Ok(Json::Object(f)) => f,
                    _ => return Err(Tampered::FieldsNotObject { name: a }),
                };
                Msg::Op {
                    req,
                    name: a,
                    fields,
                }
            }
            kind::CAP => {
                let cap = match a.as_str() {
                    "memory" => "memory",
                    "stack" => "stack",
                    _ => return Err(Tampered::UnknownCap),
                };
                read.cap = read.cap.or(Some(cap));
                continue;
            }
            other => return Err(Tampered::UnknownKind { kind: other }),
        };
        if msg.request() == Some(0) {
            return Err(Tampered::RequestZero);
        }
        read.msgs.push((id, msg));
    }
    Ok(read)
}

/// Checks that request `req` of a run comes after every request it sent before (the
/// honest bridge numbers a run's requests 1, 2, 3, ...), and records it.
///
/// # Errors
///
/// Why the request cannot have come from the honest bridge.
pub(crate) fn in_order(last: &mut u32, req: u32) -> Result<(), Tampered> {
    if req <= *last {
        return Err(Tampered::OutOfOrder { req, last: *last });
    }
    *last = req;
    Ok(())
}

/// What stands for a mod's words that are no Unicode (a lone surrogate).
const NOT_UNICODE: &str = "(text that is not valid Unicode)";

/// Value `at` of the outbox: a whole number from 0 to `u32::MAX`.
fn number(out: &Array<'_>, at: usize) -> Result<u32, Tampered> {
    let v: Value = out.get(at).map_err(|e| Tampered::Runtime(e.to_string()))?;
    let n = v
        .as_int()
        .map(f64::from)
        .or_else(|| v.as_float())
        .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX));
    match n {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "checked whole and within u32 above"
        )]
        Some(n) => Ok(n as u32),
        None => Err(Tampered::NotANumber { at }),
    }
}

/// Value `at` of the outbox: a string (`None` when it is not Unicode: a lone surrogate).
fn text(out: &Array<'_>, at: usize) -> Result<Option<String>, Tampered> {
    let v: Value = out.get(at).map_err(|e| Tampered::Runtime(e.to_string()))?;
    let s = v.as_string().ok_or(Tampered::NotAString { at })?;
    Ok(s.to_string().ok())
}

/// Checks the fields of a `$` call the session answers against its event (SPEC §1.5,
/// §6 `$`), and sets what the engine sets whatever the mod said (a `session.append` is a
/// note: door `note`, no `tool`). Calls the embedding program declared are its own to
/// check.
///
/// # Errors
///
/// The message the call's promise rejects with (nothing is raised).
pub(crate) fn check_op_fields(
    name: &str,
    fields: &mut Map<String, Json>,
) -> Result<(), UnfitFields> {
    let string = |f: &Map<String, Json>, key: &str| f.get(key).is_some_and(Json::is_string);
    let absent_or = |f: &Map<String, Json>, key: &str, ok: fn(&Json) -> bool| {
        f.get(key).is_none_or(|v| v.is_null() || ok(v))
    };
    let fits = match name {
        "env.get" => string(fields, "name"),
        "env.set" => string(fields, "name") && absent_or(fields, "value", Json::is_string),
        "tool.register" => string(fields, "name"),
        "tool.check" => string(fields, "tool") && absent_or(fields, "tool_use_id", Json::is_string),
        "settings.read" => {
            absent_or(fields, "source", Json::is_string)
                && absent_or(fields, "key", Json::is_string)
        }
        "ui.log" => {
            string(fields, "line")
                && absent_or(fields, "to", |v| {
                    v.as_str().is_some_and(|t| t == "screen" || t == "debug")
                })
        }
        "session.append" => {
            // SPEC §6: a mod's `$.session.append` is a note (§1.5 door `note`, with
            // `next.origin` the mod); it never writes another door's row.
            fields.insert("door".into(), Json::String("note".into()));
            fields.remove("tool");
            true
        }
        _ => true,
    };
    if fits {
        Ok(())
    } else {
        Err(UnfitFields {
            name: name.to_owned(),
        })
    }
}

/// Why an outbox cannot have come from the honest bridge: the hook fails with kind
/// `crash`. The [`Display`](std::fmt::Display) form is the reason inside the crash line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Tampered {
    /// The outbox's length is not a multiple of five (every message is five values).
    #[error("the bridge's outbox holds {len} values, not runs of five")]
    NotRunsOfFive {
        /// How many values the outbox holds.
        len: usize,
    },
    /// More messages in one turn than [`MAX_MESSAGES_PER_TURN`].
    #[error("it sent {n} messages in one turn, over the cap of {MAX_MESSAGES_PER_TURN}")]
    TooManyMessages {
        /// How many messages the outbox holds.
        n: usize,
    },
    /// More text in one turn than [`MAX_BYTES_PER_TURN`].
    #[error("it sent more than {} MiB of text in one turn", MAX_BYTES_PER_TURN >> 20)]
    TooManyBytes,
    /// A message whose text is not Unicode where only the bridge's own words go.
    #[error("message {message} of its outbox is not Unicode")]
    NotUnicode {
        /// The message's index in the outbox.
        message: usize,
    },
    /// An `OP` message naming a `$` call the session does not answer.
    #[error(
        "it asked the engine to raise {}, which is no $ call the session answers",
        fnhooks::escaped(name)
    )]
    UnansweredCall {
        /// The call's name, as sent.
        name: String,
    },
    /// An `OP` message whose fields are not a JSON object.
    #[error("its $.{} call's fields are not a JSON object", fnhooks::escaped(name))]
    FieldsNotObject {
        /// The call's name, as sent.
        name: String,
    },
    /// A `CAP` message naming no cap the runtime has.
    #[error("it named a cap that is none of the runtime's")]
    UnknownCap,
    /// A message of a kind the bridge never sends.
    #[error("it sent a message of no known kind ({kind})")]
    UnknownKind {
        /// The kind number sent.
        kind: u32,
    },
    /// A request numbered 0 (the bridge numbers a run's requests from 1).
    #[error("it sent a request numbered 0")]
    RequestZero,
    /// A run's request numbered at or below one it sent before.
    #[error("it sent request {req} of a hook run after request {last}")]
    OutOfOrder {
        /// The request's number.
        req: u32,
        /// The highest number the run sent before.
        last: u32,
    },
    /// A value that should be a message number (a whole number from 0 to `u32::MAX`).
    #[error("value {at} of its outbox is not a message number")]
    NotANumber {
        /// The value's index in the outbox.
        at: usize,
    },
    /// A value that should be a string.
    #[error("value {at} of its outbox is not a string")]
    NotAString {
        /// The value's index in the outbox.
        at: usize,
    },
    /// The runtime could not read a value of the outbox.
    #[error("{0}")]
    Runtime(
        /// The runtime's reason.
        String,
    ),
}

/// A `$` call the session answers was made with fields that do not fit its event: the
/// call's promise rejects with the [`Display`](std::fmt::Display) form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "$.{name} was called with fields that do not fit its event: {}",
    expected(name)
)]
pub(crate) struct UnfitFields {
    /// The call's name.
    pub(crate) name: String,
}

/// What a `$` call's fields must hold, for its refusal.
fn expected(name: &str) -> &'static str {
    match name {
        "env.get" => "a name (a string)",
        "env.set" => "a name (a string) and a value (a string, or null to unset)",
        "tool.register" => "a name (a string)",
        "tool.check" => "a tool (a string) and its input",
        "settings.read" => "a source and a key, each a string when given",
        "ui.log" => "a line (a string), to 'screen' or 'debug'",
        _ => "an object",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use serde_json::json;

    fn fields(v: Json) -> Map<String, Json> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn fields_that_fit_pass_and_others_are_refused_naming_what_fits() {
        for (name, ok) in [
            ("env.get", json!({"name": "HOME"})),
            ("env.set", json!({"name": "A", "value": "b"})),
            ("env.set", json!({"name": "A", "value": null})),
            ("ui.log", json!({"line": "x", "to": "debug"})),
            ("settings.read", json!({})),
            (
                "settings.read",
                json!({"source": "policy", "key": "permissions"}),
            ),
            (
                "tool.check",
                json!({"tool": "Bash", "input": {"command": "ls"}}),
            ),
            ("tool.register", json!({"name": "t"})),
            ("tool.list", json!({})),
        ] {
            assert_eq!(
                check_op_fields(name, &mut fields(ok.clone())),
                Ok(()),
                "{name} {ok}"
            );
        }
        for (name, bad) in [
            ("env.get", json!({"name": 5})),
            ("env.get", json!({})),
            ("env.set", json!({"name": "A", "value": {"x": 1}})),
            (
                "ui.log",
                json!({"line": "x", "to": "transcript-of-another"}),
            ),
            ("ui.log", json!({"text": "x"})),
            ("settings.read", json!({"source": ["policy"]})),
            ("tool.check", json!({"input": {}})),
            ("tool.register", json!({"name": null})),
        ] {
            let err = check_op_fields(name, &mut fields(bad.clone()))
                .unwrap_err()
                .to_string();
            assert!(err.starts_with(&format!("$.{name} was called")), "{err}");
            assert!(err.contains(expected(name)), "{err}");
        }
    }

    /// Reads the outbox the JavaScript `source` evaluates to, as the session's eight
    /// answered `$` calls allow.
    fn read(source: &str) -> Result<Vec<String>, Tampered> {
        let rt = rquickjs::Runtime::new().unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        ctx.with(|ctx| {
            let out: Array = ctx.eval(source).unwrap();
            let answers = |n: &str| ANSWERED_OPS.contains(&n);
            read_outbox(&out, &answers).map(|o| {
                o.msgs
                    .iter()
                    .map(|(id, m)| format!("{id}: {m:?}"))
                    .collect()
            })
        })
    }

    #[test]
    fn an_honest_outbox_is_read() {
        let msgs = read(
            r#"[1, 6, 1, 'env.get', '{"name":"HOME"}', 1, 5, 2, '', '', 1, 0, 0, '{"a":1}', '',
                0, 7, 0, 'memory', '', 2, 2, 0, 'Error: \ud800', '']"#,
        )
        .unwrap();
        assert_eq!(msgs.len(), 4, "{msgs:?}");
        assert!(msgs[3].contains(NOT_UNICODE), "{msgs:?}");
    }

    #[test]
    fn a_forged_outbox_is_refused_whole() {
        for (source, why) in [
            (
                r#"[1, 6, 1, 'classic.PreToolUse', '{"tool_name":"Bash"}']"#,
                "no $ call the session answers",
            ),
            (
                r#"[1, 6, 1, 'fs.read', '{"path":"/etc/passwd"}']"#,
                "no $ call",
            ),
            (r#"[1, 6, 1, 'process.run', '{}']"#, "no $ call"),
            (r#"[1, 6, 1, 'env.get', '["HOME"]']"#, "not a JSON object"),
            (r#"[1, 6, 1, 'env.get', 'HOME']"#, "not a JSON object"),
            (r#"[1, 6, 1, 'env.get']"#, "not runs of five"),
            (r#"[1, 9, 1, '', '']"#, "no known kind"),
            (r#"[1, 6, 0, 'env.get', '{}']"#, "numbered 0"),
            (r#"['1', 0, 0, '{}', '']"#, "not a message number"),
            (r#"[1.5, 0, 0, '{}', '']"#, "not a message number"),
            (r#"[-1, 0, 0, '{}', '']"#, "not a message number"),
            (r#"[1, 0, 0, {}, '']"#, "not a string"),
            (r#"[1, 0, 0, '\ud800', '']"#, "not Unicode"),
            (r#"[0, 7, 0, 'disk', '']"#, "none of the runtime's"),
            (
                "const a = []; for (let i = 0; i < 10001; i++) a.push(1, 4, 0, 'x', ''); a",
                "over the cap",
            ),
            (
                "const big = 'x'.repeat(40 << 20); [1, 4, 0, big, '', 2, 4, 0, big, '']",
                "more than 64 MiB of text",
            ),
        ] {
            let err = read(source).unwrap_err().to_string();
            assert!(err.contains(why), "{source}: {err}");
        }
    }

    #[test]
    fn requests_of_a_run_come_in_order() {
        let mut last = 0;
        in_order(&mut last, 1).unwrap();
        in_order(&mut last, 3).unwrap();
        assert!(in_order(&mut last, 3)
            .unwrap_err()
            .to_string()
            .contains("request 3"));
        assert!(in_order(&mut last, 2).is_err());
        assert_eq!(last, 3);
    }

    #[test]
    fn each_table_names_its_kinds_once_with_numbers_of_their_own() {
        for table in [SENT, SETTLED] {
            let mut names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            let mut numbers: Vec<u32> = table.iter().map(|(_, k)| *k).collect();
            names.sort_unstable();
            names.dedup();
            numbers.sort_unstable();
            numbers.dedup();
            assert_eq!(names.len(), table.len(), "{table:?}");
            assert_eq!(numbers.len(), table.len(), "{table:?}");
        }
    }

    #[test]
    fn every_kind_the_bridge_may_send_is_read() {
        for (name, k) in SENT {
            let source = format!("[1, {k}, 1, 'memory', '{{}}']");
            if let Err(err) = read(&source) {
                assert!(!err.to_string().contains("no known kind"), "{name}: {err}");
            }
        }
    }

    #[test]
    fn the_javascript_half_is_handed_every_kind_in_frozen_records_without_prototypes() {
        let rt = rquickjs::Runtime::new().unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        ctx.with(|ctx| {
            let wire = kinds_for_js(&ctx).unwrap();
            let view: Function = ctx
                .eval(
                    r"(wire) => {
                        const out = [];
                        for (const r of [wire, wire.sent, wire.settle]) {
                          out.push(Object.isFrozen(r) && Object.getPrototypeOf(r) === null);
                        }
                        for (const part of ['sent', 'settle']) {
                          for (const k of Object.keys(wire[part])) out.push(part + '.' + k + '=' + wire[part][k]);
                        }
                        return out.join(' ');
                      }",
                )
                .unwrap();
            let seen: String = view.call((wire,)).unwrap();
            let mut want = vec!["true".to_owned(); 3];
            for (part, table) in [("sent", SENT), ("settle", SETTLED)] {
                want.extend(table.iter().map(|(n, k)| format!("{part}.{n}={k}")));
            }
            assert_eq!(seen, want.join(" "));
        });
    }

    #[test]
    fn a_session_append_is_always_a_note() {
        let mut f = fields(json!({"door": "tool_result", "tool": "Bash", "text": "x"}));
        check_op_fields("session.append", &mut f).unwrap();
        assert_eq!(Json::Object(f), json!({"door": "note", "text": "x"}));
    }
}
