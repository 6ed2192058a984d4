//! Attacks on the holds of the mod host, each asserting the safe behaviour: a test
//! here fails while its hole is open.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use fnhooks::Tier;
use serde_json::json;

mod common;

use common::*;

/// A person's mod that spins a little under the hook timeout on every `prompt.section`
/// it sees, then hands it on: each of its runs is within its own limits.
const SPINNER: &str = r#"const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) {} };
export function register(on) {
    on('prompt.section', ($, e, next) => { spin(250); return next(e); });
}"#;

/// What the hook that loops or fans out answers from its `.catch`: the failure's kind
/// and message.
const CAUGHT: &str =
    ".catch(($, e, next) => ({ caught: next.error.kind, message: String(next.error.message) }))";

/// Seats `hook` (on `prompt.section`, with [`CAUGHT`]) above [`SPINNER`] and raises;
/// answers the raise's answer.
fn above_the_spinner(hook: &str) -> serde_json::Value {
    let js = format!("export function register(on) {{ on('prompt.section', {hook}){CAUGHT}; }}");
    let a = within(60, move || {
        let (engine, _) = engine();
        engine.seat(js_plugin("caller", Tier::User, &js));
        engine.seat(js_plugin("spinner", Tier::User, SPINNER));
        raise(&engine, "prompt.section", json!({"text": "t"}))
    });
    (*a.unwrap()).clone()
}

/// SPEC §6 "Limits": no chain keeps a raise from ending. A hook that loops on
/// `next(e)` (not `$`) above a link that spins just under its timeout spends almost
/// none of its own time (the time in `next` is the rest of the chain's) and waits on
/// no `$` call: its repeated `next` calls count toward the three-timeout wait cap.
#[test]
fn a_hook_looping_on_next_ends() {
    let a = above_the_spinner("async ($, e, next) => { for (;;) await next(e); }");
    assert_eq!(a["caught"], json!("timeout"), "{a}");
    assert!(
        a["message"]
            .as_str()
            .unwrap()
            .contains("repeated next calls past 3 times the hook timeout"),
        "{a}"
    );
}

/// The same without a loop: one hook hands the event on 2,000 times at once (under
/// the 10,000 requests in flight a run may have); each runs the spinner, one after
/// the other in its worker.
#[test]
fn a_hook_fanning_out_next_ends() {
    let a = above_the_spinner(
        "async ($, e, next) => { const all = []; for (let i = 0; i < 2000; i++) all.push(next(e)); return (await Promise.all(all))[0]; }",
    );
    assert_eq!(a["caught"], json!("timeout"), "{a}");
}

/// The control: a hook that hands the event on once, above the same spinner, answers
/// what came back (the first `next`'s wait is uncapped: the rest of the chain is
/// metered link by link).
#[test]
fn a_hook_handing_on_once_above_the_spinner_answers() {
    let a = above_the_spinner("async ($, e, next) => ({ ...(await next(e)), once: true })");
    assert_eq!(a["once"], json!(true), "{a}");
    assert_eq!(a["text"], json!("t"), "{a}");
}

/// SPEC §6 "Sandbox": the registrations `register` hands Rust are the bridge's own.
/// The bridge turns them to JSON with the captured `JSON.stringify`, but each record
/// is an ordinary object: a `toJSON` the mod puts on `Object.prototype` while
/// `register` runs rewrites every registration (here, drops its matcher).
#[test]
fn object_prototype_tojson_does_not_rewrite_registrations() {
    let (answer, lines) = within(20, || {
        let (engine, core) = engine();
        let plugin = mods::ModPlugin::new(
            mods::ModSource::inline(
                "rewriter",
                r#"export function register(on) {
                    on('prompt.section', { text: 'never sent' }, async ($, e, next) => {
                        await $.ui.log('HOOKED');
                        return next(e);
                    });
                    Object.defineProperty(Object.prototype, 'toJSON', {
                        value: function () {
                            return typeof this.pattern === 'string'
                                ? { pattern: this.pattern, matcher: null, catch: false }
                                : this;
                        },
                        configurable: true,
                        writable: true,
                    });
                }"#,
                serde_json::Map::new(),
            )
            .unwrap(),
            &serde_json::Map::new(),
            config(),
        )
        .unwrap();
        let info = info("rewriter", Tier::User);
        // Refusing the mod is safe too: then nothing of it is seated.
        if let Ok(regs) = plugin.activate(&info) {
            let mut p = fnhooks::Plugin::new(info);
            p.registrations = regs;
            engine.seat(p);
        }
        let a = raise(&engine, "prompt.section", json!({"text": "t"}));
        let lines = core.log.lock().unwrap().clone();
        (a, lines)
    });
    assert!(
        !lines.iter().any(|l| l.ends_with("HOOKED")),
        "the hook ran on an event its matcher never matches: {lines:?} {answer:?}"
    );
}

/// An organization's guard on `env.set` (an event with no fail-closed answer of its
/// own) asks the rules before it refuses; a person's mod spins just under its timeout
/// in every `tool.check`, the organization's queries included. The guard is cut at
/// three hook timeouts of waiting: a limit the person drove, so the organization's hook
/// fails closed (SPEC §6 "Limits", §1.8 revised) and the set is refused, never handed
/// to the core as if the guard had not been there. `tier` seats the guard.
fn guarded_set(tier: Tier) -> Result<serde_json::Value, String> {
    within(60, move || {
        let (engine, core) = engine();
        engine.seat(js_plugin(
            "guard",
            tier,
            r#"export function register(on) {
                on('env.set', async ($, e, next) => {
                    for (let i = 0; i < 8; i++) await $.tool.check({ tool: 'Read', input: { file_path: 'x' + i } });
                    return { deny: 'the guard refuses ' + e.name };
                });
            }"#,
        ));
        engine.seat(js_plugin(
            "burner",
            Tier::User,
            r#"const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) {} };
            export function register(on) { on('tool.check', ($, e, next) => { spin(250); return next(e); }); }"#,
        ));
        let a = raise(
            &engine,
            "env.set",
            json!({"name": "LD_PRELOAD", "value": "/tmp/x.so"}),
        );
        let reached_core = core
            .seen
            .lock()
            .unwrap()
            .iter()
            .any(|e| e.name.as_str() == "env.set");
        match a {
            Ok(a) if !reached_core => Ok((*a).clone()),
            Ok(a) => Err(format!("the set reached the core: {a}")),
            Err(e) => Ok(json!({"refused": e.failure().message_or_default()})),
        }
    })
}

#[test]
fn an_organizations_guard_cut_by_the_wait_cap_fails_closed() {
    let a = guarded_set(Tier::Prepend).unwrap();
    assert!(
        a["refused"]
            .as_str()
            .is_some_and(|m| m.contains("past 3 times the hook timeout")),
        "{a}"
    );
}

/// The control: the same guard seated as a person's mod is cut the same way and drops
/// out, as any person's failing hook does: the set reaches the core.
#[test]
fn a_persons_guard_cut_by_the_wait_cap_drops_out() {
    let out = guarded_set(Tier::User);
    assert!(
        out.as_ref()
            .is_err_and(|e| e.starts_with("the set reached the core")),
        "{out:?}"
    );
}
