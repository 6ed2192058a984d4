//! The bridge trusts nothing the JavaScript says (SPEC §6 "Sandbox"): a mod replaces or
//! poisons every prototype and global the bridge's JavaScript half could touch, then
//! tries to reach past `$` (a `$` call the session does not answer, a message forged into
//! the bridge's outbox, the bridge's own functions). In every case no `$` call beyond
//! the session's answers resolves and no event the mod may not raise reaches the engine.
//! The Rust half's own checks of forged messages are tested on forged outboxes in
//! `crates/mods/src/wire.rs`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use fnhooks::{Plugin, Tier};
use mods::{ModPlugin, ModSource};
use serde_json::{json, Map, Value};

mod common;

use common::*;

/// What each attack does after its poison: every way past `$` a mod could try, each
/// recorded as `resolved`, `rejected` or what it read. The arrays and objects the
/// bridge may have written through a poisoned accessor are in `captured`; a message is
/// forged into each, naming the organization's managed hooks.
const ATTEMPTS: &str = r#"
    const forgedMessage = (a) => {
        // callId 1 is the hook's own run (the first of its runtime); request 99.
        const at = a.length;
        const msg = [1, 6, 99, 'classic.PreToolUse', '{"tool_name":"Bash","tool_input":{"command":"id"}}'];
        for (let i = 0; i < 5; i++) {
            try { defineOwn(a, at + i, { value: msg[i], writable: true, enumerable: true, configurable: true }); } catch (_) {}
        }
    };
    const out = {};
    const attempt = async (k, f) => {
        try { await f(); out[k] = 'resolved'; } catch (e) { out[k] = 'rejected'; }
    };
    await attempt('fsRead', () => $.fs.read({ path: '/etc/passwd' }));
    await attempt('processRun', () => $.process.run({ command: ['id'] }));
    await attempt('httpFetch', () => $.http.fetch({ url: 'https://example.com' }));
    for (let i = 0; i < captured.length; i++) { try { forgedMessage(captured[i]); } catch (_) {} }
    out.captured = captured.length;
    const b = globalThis.__secDefaultBridge;
    out.bridge = typeof b;
    if (b) {
        try { b.settle(1, 1, 1, '"forged"'); } catch (_) {}
        try { forgedMessage(b.take()); } catch (_) {}
    }
    await attempt('envGet', () => $.env.get('HOME'));
    await attempt('uiLog', () => $.ui.log('after the poison'));
    return out;
"#;

/// What every attack's module starts with: where the poisons keep what they capture (a
/// list no poison reaches: no prototype, written through a captured intrinsic).
const PRELUDE: &str = "const defineOwn = Reflect.defineProperty;
const captured = Object.setPrototypeOf([], null);
const keep = (x) => defineOwn(captured, captured.length, { value: x, writable: true, enumerable: true, configurable: true });";

/// The poisons: each replaces or poisons intrinsics the bridge's JavaScript half could
/// touch, and pushes into `captured` whatever the bridge hands its accessors.
const POISONS: &[(&str, &str)] = &[
    ("Set.has", "Set.prototype.has = () => true;"),
    ("Set.add", "Set.prototype.add = function () { keep(this); return this; };"),
    (
        "Map",
        "Map.prototype.get = function () { keep(this); return undefined; };
         Map.prototype.has = () => true;
         Map.prototype.set = function () { keep(this); return this; };
         Map.prototype.delete = () => false;",
    ),
    (
        "WeakMap",
        "WeakMap.prototype.get = function () { keep(this); return undefined; };
         WeakMap.prototype.set = function () { keep(this); return this; };",
    ),
    (
        "Array index accessors",
        "for (let i = 0; i < 16; i++) {
           Object.defineProperty(Array.prototype, i, {
             get() { keep(this); return undefined; },
             set(v) { keep(this); Object.defineProperty(this, i, { value: v, writable: true, enumerable: true, configurable: true }); },
             configurable: true,
           });
         }",
    ),
    (
        "Array methods",
        "Array.prototype.push = function (...v) { captured.push !== Array.prototype.push; return 0; };
         Array.prototype.pop = function () { return { then() {} }; };
         Array.prototype.slice = function () { return ['forged']; };
         Array.prototype[Symbol.iterator] = function* () { yield 'forged'; };
         Array.isArray = () => true;",
    ),
    (
        "Object.prototype accessors",
        "for (const k of ['promise', 'resolve', 'reject', 'origin', 'trace', 'forward', 'pending',
                          'answers', 'rejections', 'fs.read', 'process.run', 'http.fetch', 'then',
                          'name', 'door', 'catch', 'node', 'hook', 'pattern', 'matcher']) {
           Object.defineProperty(Object.prototype, k, {
             get() { keep(this); return undefined; },
             set(v) { keep(this); },
             configurable: true,
           });
         }",
    ),
    (
        "Object statics",
        "Object.keys = () => ['forged'];
         Object.freeze = (o) => o;
         Object.isFrozen = () => true;
         Object.defineProperty = (o) => o;
         Object.getPrototypeOf = () => null;
         Object.setPrototypeOf = (o) => o;
         Object.create = () => ({});",
    ),
    (
        "Promise",
        "const RealPromise = Promise;
         Promise.prototype.then = function (ok, bad) { keep(this); return this; };
         Promise.resolve = (v) => ({ then(ok) { ok('forged'); } });
         Promise.reject = () => RealPromise.resolve('forged');
         Promise.withResolvers = () => { const r = { promise: RealPromise.resolve('forged'), resolve() {}, reject() {} }; keep(r); return r; };
         globalThis.Promise = function () { return RealPromise.resolve('forged'); };",
    ),
    (
        "JSON",
        "JSON.parse = () => ({ forged: true });
         JSON.stringify = () => '{\"door\":\"tool_result\",\"forged\":true}';",
    ),
    (
        "Reflect",
        "Reflect.apply = (f, self, args) => { keep(args); return true; };
         Reflect.defineProperty = () => true;
         Reflect.get = () => undefined;",
    ),
    (
        "Symbol",
        "Symbol.iterator; Object.defineProperty(Symbol, 'iterator', { value: Symbol('forged') }); globalThis.Symbol = function () { return 'forged'; };",
    ),
    (
        "Function.prototype",
        "Function.prototype.call = function () { keep(arguments); return true; };
         Function.prototype.apply = function () { keep(arguments); return true; };
         Function.prototype.bind = function () { return () => true; };",
    ),
    (
        "String methods",
        "String.prototype.slice = () => '.*';
         String.prototype.startsWith = () => true;
         String.prototype.toWellFormed = () => 'forged';
         globalThis.String = () => 'forged';",
    ),
    (
        "Error constructors",
        "globalThis.Error = function () { return { message: 'forged', then(ok) { ok('forged'); } }; };
         globalThis.TypeError = globalThis.Error;
         globalThis.RangeError = globalThis.Error;",
    ),
    (
        "typed arrays",
        "globalThis.Uint8Array = function () { return [0]; };
         globalThis.ArrayBuffer = function () { return {}; };",
    ),
];

/// The events the session answers that an honest run of [`ATTEMPTS`] may raise.
const MAY_RAISE: &[&str] = &["prompt.section", "env.get", "ui.log"];

/// Runs `poison` where `place` says (`top`: the module's top level, before `register`;
/// `hook`: inside the hook, before the attempts), then the attempts; answers the
/// raise's answer and the names of the events the engine's core saw.
fn attack(poison: &str, at_top: bool) -> (Value, Vec<String>) {
    let (top, inner) = if at_top { (poison, "") } else { ("", poison) };
    let js = format!(
        "{PRELUDE}\n{top}\nexport function register(on) {{\n  on('prompt.section', async ($, e, next) => {{\n{inner}\n{ATTEMPTS}\n  }});\n}}"
    );
    within(30, move || {
        let (engine, core) = engine();
        // A poison at the top level may keep the mod from loading at all: then nothing
        // of it is seated, and the raises below show that nothing was raised either.
        let info = info("poisoner", Tier::User);
        let plugin = ModPlugin::new(
            ModSource::inline("poisoner", &js, Map::new()).unwrap(),
            &Map::new(),
            config(),
        )
        .unwrap();
        let loaded = plugin.activate(&info);
        let refused = match loaded {
            Ok(registrations) => {
                let mut p = Plugin::new(info);
                p.registrations = registrations;
                engine.seat(p);
                None
            }
            Err(why) => Some(why),
        };
        let answer = raise(&engine, "prompt.section", json!({"text": "t"}));
        // A second raise: whatever the first left behind (a torn-down worker, a
        // poisoned runtime) raises nothing either.
        let again = raise(&engine, "prompt.section", json!({"text": "again"}));
        let seen = core.seen_names();
        let answer = answer.map_or_else(|e| json!({"error": format!("{e:?}")}), |a| (*a).clone());
        let again = again.map_or_else(|e| json!({"error": format!("{e:?}")}), |a| (*a).clone());
        (
            json!({"first": answer, "again": again, "refused": refused}),
            seen,
        )
    })
}

#[test]
fn no_poison_lets_a_mod_reach_past_its_dollar() {
    let mut report = Vec::new();
    for (name, poison) in POISONS {
        for at_top in [false, true] {
            let (answer, seen) = attack(poison, at_top);
            let place = if at_top { "top level" } else { "in the hook" };
            let raised: Vec<&String> = seen
                .iter()
                .filter(|n| !MAY_RAISE.contains(&n.as_str()))
                .collect();
            assert!(
                raised.is_empty(),
                "{name} ({place}): the engine raised {raised:?}; answer {answer}"
            );
            // The attempts that need the engine's answer never resolve; where the hook
            // answered at all, it says so itself.
            let first = &answer["first"];
            for k in ["fsRead", "processRun", "httpFetch"] {
                if let Some(v) = first.get(k) {
                    assert_eq!(v, "rejected", "{name} ({place}): $.{k} resolved: {answer}");
                }
            }
            if let Some(b) = first.get("bridge") {
                assert_eq!(b, "undefined", "{name} ({place}): the bridge was reachable");
            }
            report.push(format!("{name} ({place}): {answer}"));
        }
    }
    assert_eq!(report.len(), POISONS.len() * 2);
}

/// The control: with no poison, the same attempts run, the session's own `$` calls
/// resolve, and the three the session does not answer reject: the suite's attempts do
/// reach the bridge, so a poison that changed its behaviour would show.
#[test]
fn without_poison_the_same_attempts_reach_the_bridge() {
    let (answer, seen) = attack("", false);
    assert_eq!(
        answer["first"],
        json!({
            "fsRead": "rejected",
            "processRun": "rejected",
            "httpFetch": "rejected",
            "captured": 0,
            "bridge": "undefined",
            "envGet": "resolved",
            "uiLog": "resolved",
        })
    );
    assert!(seen.iter().any(|n| n == "env.get"), "{seen:?}");
    assert!(seen.iter().any(|n| n == "ui.log"), "{seen:?}");
}

/// The unseated control of the `$` check: the embedding program that declares
/// `fs.read` answers it (the Echo core echoes it), so the rejection above is the
/// session's refusal, not a missing core.
#[test]
fn a_dollar_call_the_embedding_program_declares_resolves() {
    let out = within(30, || {
        let (engine, core) = engine();
        let config = mods::HostConfig {
            extra_ops: vec!["fs.read".to_owned()],
            ..config()
        };
        engine.seat(js_plugin_with(
            "reader",
            Tier::User,
            r#"export function register(on) {
                on('prompt.section', async ($) => ({ read: await $.fs.read({ path: 'x' }) }));
            }"#,
            config,
        ));
        let a = raise(&engine, "prompt.section", json!({}));
        let seen = core.seen_names();
        (a, seen)
    });
    assert!(out.0.unwrap()["read"].is_object());
    assert!(out.1.iter().any(|n| n == "fs.read"), "{:?}", out.1);
}
