//! The bridge of SPEC §6, driven through a real chain: a mod's hooks are links beside
//! Rust plugins; `next`, `next.to`, `next.trace`, `next.origin`, `.catch` and `$` behave
//! as Claude Code documents them; the sandbox holds; failures at load name the module
//! file and line.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use fnhooks::{Cx, Event, HookError, Next, Plugin, Registration, Tier};
use mods::{HostConfig, ModPlugin, ModSource};
use pretty_assertions::assert_eq;
use serde_json::{json, Map, Value};

mod common;

use common::{engine, info, raise};

/// A mod of one JavaScript module, `hooks/register.js`.
fn source(js: &str) -> ModSource {
    ModSource::inline("m", js, Map::new()).unwrap()
}

fn config() -> HostConfig {
    common::config()
}

/// The mod `js` activated as `name` in `tier`.
fn js_plugin(name: &str, tier: Tier, js: &str) -> Plugin {
    common::js_plugin(name, tier, js)
}

fn activate_err(js: &str) -> String {
    let m = ModPlugin::new(source(js), &Map::new(), config()).unwrap();
    m.activate(&info("m", Tier::User)).unwrap_err()
}

#[test]
fn a_pass_through_mod_hands_on_the_event_and_the_answer_unchanged() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        "export function register(on) { on('prompt.section', ($, e, next) => next(e)); }",
    ));
    let a = raise(&engine, "prompt.section", json!({"name": "x", "text": "t"}));
    assert_eq!(*a.unwrap(), json!({"name": "x", "text": "t", "core": true}));
}

#[test]
fn rewrites_going_down_and_coming_up_and_answers_of_its_own() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', async ($, e, next) => {
                const r = await next({ ...e, text: e.text + '!' });
                return { ...r, seen: true };
            });
            on('skill.prompt', () => ({ text: 'mine' }));
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({"text": "t"}));
    assert_eq!(
        *a.unwrap(),
        json!({"text": "t!", "core": true, "seen": true})
    );
    let b = raise(&engine, "skill.prompt", json!({"text": "t"}));
    assert_eq!(*b.unwrap(), json!({"text": "mine"}));
}

#[test]
fn e_is_deep_frozen() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', ($, e, next) => {
                let top = false, deep = false;
                try { e.text = 'x'; } catch (_) { top = true; }
                try { e.nested.a = 2; } catch (_) { deep = true; }
                return { top, deep, frozen: Object.isFrozen(e.nested) };
            });
        }"#,
    ));
    let a = raise(
        &engine,
        "prompt.section",
        json!({"text": "t", "nested": {"a": 1}}),
    );
    assert_eq!(
        *a.unwrap(),
        json!({"top": true, "deep": true, "frozen": true})
    );
}

#[test]
fn mods_and_rust_plugins_are_links_of_one_chain() {
    let (engine, _) = engine();
    let rust = Plugin::new(info("rust", Tier::Prepend)).with(Registration::on(
        "prompt.section",
        |_cx: Cx, e: Event, next: Next| async move {
            let mut a = next.run(e).await?;
            a["rust"] = json!(true);
            Ok::<_, HookError>(a)
        },
    ));
    engine.seat(rust);
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', async ($, e, next) => ({ ...(await next(e)), js: next.trace.length }));
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({"text": "t"})).unwrap();
    assert_eq!(
        *a,
        json!({"text": "t", "core": true, "js": 1, "rust": true})
    );
}

#[test]
fn next_trace_and_origin_read_as_claude_code_and_spec() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "outer",
        Tier::Prepend,
        r#"export function register(on) {
            on('prompt.section', async ($, e, next) => {
                const before = next.trace.length;
                await next(e);
                const t = next.trace;
                return { before, origin: next.origin, trace: t.map(x => [x.plugin, x.tier, x.outcome, x.calledNext, x.plugins]) };
            });
        }"#,
    ));
    engine.seat(js_plugin(
        "inner",
        Tier::User,
        "export function register(on) { on('prompt.section', ($, e, next) => next(e)); }",
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["before"], json!(0));
    assert_eq!(
        a["origin"],
        json!({"plugin": "engine", "tier": "core", "id": "engine"})
    );
    assert_eq!(
        a["trace"],
        json!([
            ["inner", "user", "passed", true, ["inner"]],
            ["engine", "core", "returned", false, []]
        ])
    );
}

#[test]
fn next_to_skips_the_user_tier_from_a_managed_tier_only() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "org",
        Tier::Prepend,
        "export function register(on) { on('prompt.section', ($, e, next) => next.to(e, 'append')); }",
    ));
    engine.seat(js_plugin(
        "person",
        Tier::User,
        "export function register(on) { on('prompt.section', () => ({ text: 'person' })); }",
    ));
    let a = raise(&engine, "prompt.section", json!({"text": "org"})).unwrap();
    assert_eq!(*a, json!({"text": "org", "core": true}));

    let (engine2, _) = self::engine();
    engine2.seat(js_plugin(
        "person",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', async ($, e, next) => {
                try { await next.to(e, 'core'); return { jumped: true }; }
                catch (err) { return { refused: String(err.message) }; }
            });
        }"#,
    ));
    // A forbidden jump fails the hook whatever it then answers (SPEC §1.1): the link
    // is dropped and the core answers.
    let a = raise(&engine2, "prompt.section", json!({})).unwrap();
    assert_eq!(*a, json!({"core": true}));
}

#[test]
fn dollar_calls_unwrap_values_and_reject_denies_and_unanswered_events() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', async ($) => {
                const got = await $.env.get('HOME');
                let denied, missing;
                try { await $.env.set('PINNED', 'x'); } catch (err) { denied = err.message; }
                try { await $.fs.read({ path: '/etc/passwd' }); } catch (err) { missing = err.message; }
                const set = await $.env.set('FREE', 'x');
                return { got, denied, missing, set: set === undefined, name: $.plugin.name };
            });
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(
        *a,
        json!({
            "got": "v-HOME",
            "denied": "PINNED is pinned by policy",
            "missing": "no implementation for fs.read",
            "set": true,
            "name": "m",
        })
    );
}

#[test]
fn a_throw_before_next_drops_the_link_and_catch_reads_next_error() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', () => { throw new Error('boom'); });
            on('skill.prompt', () => { throw new Error('bang'); })
              .catch(($, e, next) => ({ kind: next.error.kind, message: next.error.message, called: next.called }));
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({"text": "t"})).unwrap();
    assert_eq!(*a, json!({"text": "t", "core": true}));
    let b = raise(&engine, "skill.prompt", json!({})).unwrap();
    assert_eq!(b["kind"], json!("throw"));
    assert!(b["message"].as_str().unwrap().contains("bang"), "{b}");
    assert_eq!(b["called"], json!(false));
}

#[test]
fn returning_nothing_is_a_failure() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', () => undefined)
              .catch(($, e, next) => ({ kind: next.error.kind }));
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(*a, json!({"kind": "throw"}));
}

#[test]
fn a_hook_that_spins_is_interrupted_at_the_hook_timeout() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', () => { for (;;) {} })
              .catch(($, e, next) => ({ kind: next.error.kind }));
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(*a, json!({"kind": "timeout"}));
}

#[test]
fn matchers_compare_fields_with_regexps_one_of_and_nesting() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('tool.check', { tool: /^mcp__github__/ }, () => ({ decision: 'deny', reason: 're' }));
            on('tool.check', { tool: ['Edit', 'Write'], input: { path: '/x' } }, () => ({ decision: 'ask' }));
        }"#,
    ));
    let check = |tool: &str, input: Value| {
        raise(&engine, "tool.check", json!({"tool": tool, "input": input})).unwrap()
    };
    assert_eq!(
        check("mcp__github__push", json!({}))["decision"],
        json!("deny")
    );
    assert_eq!(
        check("Write", json!({"path": "/x", "more": 1}))["decision"],
        json!("ask")
    );
    assert_eq!(check("Write", json!({"path": "/y"}))["core"], json!(true));
    assert_eq!(check("Bash", json!({}))["core"], json!(true));
}

#[test]
fn patterns_glob_negate_and_star_leaves_telemetry_out() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('*', async ($, e, next) => ({ ...(await next(e)), star: true }));
        }"#,
    ));
    assert_eq!(
        raise(&engine, "prompt.section", json!({})).unwrap()["star"],
        json!(true)
    );
    assert_eq!(
        raise(&engine, "telemetry.log", json!({}))
            .unwrap()
            .get("star"),
        None
    );
    let (engine, _) = self::engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"export function register(on) {
            on('!prompt.*', async ($, e, next) => ({ ...(await next(e)), not: true }));
        }"#,
    ));
    assert_eq!(
        raise(&engine, "prompt.section", json!({}))
            .unwrap()
            .get("not"),
        None
    );
    assert_eq!(
        raise(&engine, "skill.prompt", json!({})).unwrap()["not"],
        json!(true)
    );
}

#[test]
fn the_sandbox_has_no_string_compilation_timers_or_host() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::User,
        r#"
        const tries = {
            eval: () => eval('1'),
            indirectEval: () => (0, globalThis.eval)('1'),
            Function: () => Function('return this')(),
            newFunction: () => new Function('return 1'),
            ctor: () => (function () {}).constructor('return 1'),
            async: () => (async function () {}).constructor('return 1'),
            gen: () => (function* () {}).constructor('yield 1'),
            asyncGen: () => (async function* () {}).constructor('yield 1'),
        };
        export function register(on) {
            on('prompt.section', () => {
                const out = {};
                for (const [k, f] of Object.entries(tries)) {
                    try { f(); out[k] = 'ran'; } catch (e) { out[k] = e instanceof EvalError ? 'refused' : String(e); }
                }
                out.absent = ['setTimeout', 'setInterval', 'WebAssembly', 'require', 'process', 'console', 'fetch', 'document']
                    .filter(n => typeof globalThis[n] !== 'undefined');
                out.present = ['URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'structuredClone', 'AbortController',
                    'AbortSignal', 'atob', 'btoa', 'crypto', 'performance']
                    .filter(n => typeof globalThis[n] === 'undefined');
                out.fnInstance = (() => 1) instanceof Function;
                out.url = new URL('/p?q=1', 'https://a.example').href;
                out.b64 = atob(btoa('hi'));
                out.utf8 = new TextDecoder().decode(new TextEncoder().encode('héllo ✓'));
                out.uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID());
                return out;
            });
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    for k in [
        "eval",
        "indirectEval",
        "Function",
        "newFunction",
        "ctor",
        "async",
        "gen",
        "asyncGen",
    ] {
        assert_eq!(a[k], json!("refused"), "{k}: {a}");
    }
    assert_eq!(a["absent"], json!([]));
    assert_eq!(a["present"], json!([]));
    assert_eq!(a["fnInstance"], json!(true));
    assert_eq!(a["url"], json!("https://a.example/p?q=1"));
    assert_eq!(a["b64"], json!("hi"));
    assert_eq!(a["utf8"], json!("héllo ✓"));
    assert_eq!(a["uuid"], json!(true));
}

#[test]
fn each_mod_has_its_own_global_scope() {
    let (engine, _) = engine();
    engine.seat(js_plugin(
        "a",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', async ($, e, next) => { globalThis.leak = 'a'; return next(e); });
        }"#,
    ));
    engine.seat(js_plugin(
        "b",
        Tier::User,
        r#"export function register(on) {
            on('prompt.section', async ($, e, next) => ({ ...(await next(e)), leak: typeof globalThis.leak }));
        }"#,
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["leak"], json!("undefined"));
}

#[test]
fn load_failures_name_the_module_and_the_line() {
    let e = activate_err("export function register(on) {\n  throw new Error('no');\n}");
    assert!(
        e.starts_with("hooks module hooks/register.js: register threw: Error: no"),
        "{e}"
    );
    assert!(e.contains("hooks/register.js:2"), "{e}");
    let e = activate_err("for (;;) {}\nexport function register() {}");
    assert!(e.contains("ran past the hook timeout of 300 ms"), "{e}");
    let e = activate_err("throw new TypeError('top');\nexport function register() {}");
    assert!(e.contains("did not load: TypeError: top"), "{e}");
    let e = activate_err("export const x = 1;");
    assert!(
        e.contains("does not export a function named register"),
        "{e}"
    );
    let e = activate_err(
        "export function register(on) { on('session.start', () => ({})); on('session.start', () => ({})); }",
    );
    assert!(
        e.contains("on(\"session.start\") is registered twice without a matcher"),
        "{e}"
    );
    let e = activate_err("export async function register(on) { await new Promise(() => {}); }");
    assert!(e.contains("never settles"), "{e}");
}

#[test]
fn register_receives_frozen_options_and_on_closes_after_it() {
    let (engine, _) = engine();
    let mut src = source(
        r#"let later;
        export function register(on, options) {
            later = on;
            on('prompt.section', () => ({ level: options.level, frozen: Object.isFrozen(options), lateOn: (() => { try { later('x', () => 1); return 'ran'; } catch (e) { return 'refused'; } })() }));
        }"#,
    );
    src.manifest
        .user_config
        .insert("level".into(), json!({"type": "string", "default": "low"}));
    let mut given = Map::new();
    given.insert("level".into(), json!("high"));
    let m = ModPlugin::new(src.clone(), &given, config()).unwrap();
    let i = info("m", Tier::User);
    let mut p = Plugin::new(i.clone());
    p.registrations = m.activate(&i).unwrap();
    engine.seat(p);
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(
        *a,
        json!({"level": "high", "frozen": true, "lateOn": "refused"})
    );
    let mut bad = Map::new();
    bad.insert("level".into(), json!(3));
    let err = ModPlugin::new(src, &bad, config()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("options do not fit plugin.json userConfig"),
        "{err}"
    );
}

#[test]
fn plugin_register_reads_allow_and_ui_log_reads_transcript() {
    let (engine, core) = engine();
    engine.seat(js_plugin(
        "m",
        Tier::Prepend,
        r#"export function register(on) {
            on('plugin.register', async ($, e, next) => {
                const r = await next(e);
                return e.name === 'bad' ? { refuse: 'not you' } : r;
            });
            on('ui.log', async ($, e, next) => next({ ...e, text: '[m] ' + e.text, to: e.to === 'transcript' ? 'debug' : 'transcript' }));
        }"#,
    ));
    let ok = raise(
        &engine,
        "plugin.register",
        json!({"name": "good", "tier": "user"}),
    )
    .unwrap();
    assert_eq!(*ok, json!({"admitted": true}));
    let no = raise(
        &engine,
        "plugin.register",
        json!({"name": "bad", "tier": "user"}),
    )
    .unwrap();
    assert_eq!(*no, json!({"refuse": "not you"}));
    let log = raise(&engine, "ui.log", json!({"line": "hello", "to": "screen"})).unwrap();
    assert_eq!(*log, json!({}));
    assert_eq!(
        *core.log.lock().unwrap(),
        vec!["debug: [m] hello".to_owned()]
    );
}
