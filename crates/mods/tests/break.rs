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
use std::time::{Duration, Instant};

mod common;

use common::*;

/// A person's mod that spins a little under the hook timeout on every `prompt.section`
/// it sees, then hands it on: each of its runs is within its own limits.
const SPINNER: &str = r#"const spin = (ms) => { const end = Date.now() + ms; while (Date.now() < end) {} };
export function register(on) {
    on('prompt.section', ($, e, next) => { spin(250); return next(e); });
}"#;

/// SPEC §6 "Limits": no chain keeps a raise from ending. A hook that loops on
/// `next(e)` (not `$`) above a link that spins just under its timeout spends almost
/// none of its own time (the time in `next` is the rest of the chain's), and waits on
/// no `$` call: neither its own timer nor the three-timeout wall cap ever runs.
#[test]
fn a_hook_looping_on_next_ends() {
    let began = Instant::now();
    let out = within(20, || {
        let (engine, _) = engine();
        engine.seat(js_plugin(
            "next-looper",
            Tier::User,
            r#"export function register(on) {
                on('prompt.section', async ($, e, next) => {
                    for (;;) await next(e);
                });
            }"#,
        ));
        engine.seat(js_plugin("spinner", Tier::User, SPINNER));
        raise(&engine, "prompt.section", json!({"text": "t"}))
    });
    // Three hook timeouts of 300 ms, and room for a loaded machine.
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "the raise ended only after {:?}: {out:?}",
        began.elapsed()
    );
}

/// The same without a loop: one hook hands the event on 2,000 times at once (under
/// the 10,000 requests in flight a run may have); each runs the spinner, one after
/// the other in its worker.
#[test]
fn a_hook_fanning_out_next_ends() {
    let began = Instant::now();
    let out = within(20, || {
        let (engine, _) = engine();
        engine.seat(js_plugin(
            "next-fanner",
            Tier::User,
            r#"export function register(on) {
                on('prompt.section', async ($, e, next) => {
                    const all = [];
                    for (let i = 0; i < 2000; i++) all.push(next(e));
                    return (await Promise.all(all))[0];
                });
            }"#,
        ));
        engine.seat(js_plugin("spinner", Tier::User, SPINNER));
        raise(&engine, "prompt.section", json!({"text": "t"}))
    });
    assert!(
        began.elapsed() < Duration::from_secs(10),
        "the raise ended only after {:?}: {out:?}",
        began.elapsed()
    );
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
