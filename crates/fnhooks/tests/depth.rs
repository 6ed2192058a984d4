//! How deep events raised from hooks nest (SPEC §6 "Limits" **[revised 2026-12-07]**: at
//! most 8 deep, the engine's own nesting not counted) and how a refused raise fails
//! closed in an organization's or built-in hook (SPEC §1.8 **[revised]**).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use fnhooks::testing::info;
use fnhooks::{
    Answer, Catalogue, Channel, Core, Cx, Engine, Event, EventType, HookError, Next, Pins, Plugin,
    Registration, Tier, MAX_RAISE_DEPTH,
};
use futures::future::BoxFuture;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The core: `probe` answers `{levels: 0}`; `core.nest.N` (N > 0) is answered by raising
/// `core.nest.N-1` through the core's own `cx` (the engine's own nesting), and
/// `core.nest.0` by raising `probe` through it; `tool.check` answers an allow.
#[derive(Default)]
struct NestingCore {
    log: Mutex<Vec<String>>,
}

impl Core for NestingCore {
    fn answer(&self, cx: Cx, e: Event) -> BoxFuture<'static, Answer> {
        let name = e.name.to_string();
        Box::pin(async move {
            if let Some(n) = name.strip_prefix("core.nest.") {
                let n: u32 = n.parse().unwrap();
                let below = if n == 0 {
                    "probe".to_owned()
                } else {
                    format!("core.nest.{}", n - 1)
                };
                return cx.raise(Event::new(below, Map::new())).await;
            }
            match name.as_str() {
                "tool.check" => Ok(json!({"decision": "allow"}).into()),
                _ => Ok(json!({"levels": 0}).into()),
            }
        })
    }

    fn engine_log(&self, _channel: Channel, line: String) {
        self.log.lock().unwrap().push(line);
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Verdict {
    decision: String,
    #[serde(default)]
    reason: Option<String>,
}

struct Check;
impl EventType for Check {
    const NAME: &'static str = "tool.check";
    const PINS: Pins = Pins::All;
    type Input = Map<String, Value>;
    type Output = Verdict;
}

fn catalogue() -> Catalogue {
    Catalogue::new().fail_closed::<Check>("denied", |p, f| Verdict {
        decision: "deny".to_owned(),
        reason: Some(format!("{} failed ({})", p.name, f.kind)),
    })
}

fn engine() -> (Engine, Arc<NestingCore>) {
    let core = Arc::new(NestingCore::default());
    (
        Engine::new(core.clone(), catalogue(), Duration::from_secs(30)),
        core,
    )
}

/// A hook that raises `event` through its `cx` and answers `{levels}`: one more than
/// what the raise answered, or 0 with the refusal when it was refused.
fn nester(event: &'static str) -> impl fnhooks::Hook {
    move |cx: Cx, _e: Event, _next: Next| async move {
        match cx.raise(Event::new(event, Map::new())).await {
            Ok(v) => {
                let below = v.get("levels").and_then(Value::as_u64).unwrap_or(0);
                let mut out = v.as_object().cloned().unwrap_or_default();
                out.insert("levels".into(), json!(below + 1));
                Ok::<Value, HookError>(Value::Object(out))
            }
            Err(e) => Ok(json!({
                "levels": 0,
                "refused": e.to_string(),
                "limit": e.is_limit(),
            })),
        }
    }
}

/// `regs` nesting registrations on `probe`, spread over `plugins` user plugins.
fn seat_nesters(engine: &Engine, regs: usize, plugins: usize) {
    let plugins = plugins.max(1);
    let mut seated: Vec<Plugin> = (0..plugins)
        .map(|i| Plugin::new(info(&format!("nester{i}"), Tier::User)))
        .collect();
    for r in 0..regs {
        let p = seated.remove(r % plugins);
        seated.insert(
            r % plugins,
            p.with(Registration::on("probe", nester("probe"))),
        );
    }
    for p in seated {
        engine.seat(p);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A chain of raises of any length ends: however many hooks re-raise the event
    /// (each once, SPEC §1.1 no re-entry), the raises nest at most 8 deep, and the one
    /// past it is refused with the nesting cap's message.
    #[test]
    fn raises_from_hooks_nest_at_most_eight_deep(regs in 0usize..40, plugins in 1usize..6) {
        let (engine, _) = engine();
        seat_nesters(&engine, regs, plugins);
        let answer = engine.raise_blocking(Event::new("probe", Map::new())).unwrap();
        let levels = answer["levels"].as_u64().unwrap();
        let cap = u64::from(MAX_RAISE_DEPTH);
        // Each hook answers one more than its raise did, the one refused 0: the raises
        // from hooks that ran number `levels`, never more than the cap.
        prop_assert_eq!(levels, (regs as u64).min(cap));
        if regs as u64 > cap {
            let refused = answer["refused"].as_str().unwrap();
            prop_assert!(refused.contains("the nesting cap of 8 was reached"), "{}", refused);
            prop_assert_eq!(&answer["limit"], &json!(true));
        } else {
            prop_assert!(answer.get("refused").is_none());
        }
    }
}

#[test]
fn exactly_eight_raises_from_hooks_run_and_the_ninth_is_refused() {
    let (engine, _) = engine();
    seat_nesters(&engine, 20, 3);
    let answer = engine
        .raise_blocking(Event::new("probe", Map::new()))
        .unwrap();
    // Nine hooks ran (depths 0..=8); eight of their raises ran; the ninth hook's raise
    // (it would be the ninth level) was refused.
    assert_eq!(answer["levels"], json!(8));
    assert_eq!(
        answer["refused"],
        json!("probe was not raised: events raised from hooks nest at most 8 deep, and the nesting cap of 8 was reached")
    );
}

#[test]
fn the_engines_own_nesting_does_not_count() {
    // The core answers `core.nest.30` by raising `core.nest.29` through its own `cx`,
    // and so on, 31 raises deep, each run through a hook that passes; at the bottom it
    // raises `probe`, where the hooks still nest 8 deep as from the top.
    let (engine, _) = engine();
    engine.seat(
        Plugin::new(info("watcher", Tier::User)).with(Registration::on(
            "core.*",
            |_cx: Cx, e: Event, next: Next| async move { Ok::<_, HookError>(next.run(e).await?) },
        )),
    );
    seat_nesters(&engine, 12, 2);
    let answer = engine
        .raise_blocking(Event::new("core.nest.30", Map::new()))
        .unwrap();
    assert_eq!(answer["levels"], json!(8), "{answer}");
    assert!(answer["refused"]
        .as_str()
        .unwrap()
        .contains("nesting cap of 8"));
}

#[test]
fn the_cores_raise_keeps_the_depth_it_answers_at() {
    // Hooks nest 8 deep on `probe`; the innermost hook raises `core.nest.3` (one more
    // hook raise: refused when it would be the ninth). With 7 nesting hooks above it,
    // the core's three own raises beneath do not count: its `probe` at the bottom runs
    // at depth 8, and a hook there cannot raise again.
    let (engine, _) = engine();
    engine.seat(
        Plugin::new(info("top", Tier::User)).with(Registration::on("probe", nester("probe"))),
    );
    for i in 0..6 {
        engine.seat(
            Plugin::new(info(&format!("mid{i}"), Tier::User))
                .with(Registration::on("probe", nester("probe"))),
        );
    }
    engine.seat(
        Plugin::new(info("into-core", Tier::User))
            .with(Registration::on("probe", nester("core.nest.3"))),
    );
    engine.seat(
        Plugin::new(info("bottom", Tier::User)).with(Registration::on("probe", nester("probe"))),
    );
    let answer = engine
        .raise_blocking(Event::new("probe", Map::new()))
        .unwrap();
    // top .. mid5 (7 hooks) and into-core (the 8th raise) ran; the core's three raises
    // and its `probe` beneath ran at depth 8; `bottom` there was refused.
    assert_eq!(answer["levels"], json!(8), "{answer}");
    assert_eq!(answer["limit"], json!(true));
}

/// An organization's hook that reads a setting through its `cx` and answers `answer`
/// when it could; when the read fails, it passes: the naive code a depth attack aims at.
fn naive_org_reader(answer: Value) -> impl fnhooks::Hook {
    move |cx: Cx, e: Event, next: Next| {
        let answer = answer.clone();
        async move {
            match cx.raise(Event::new("settings.read", Map::new())).await {
                Ok(_) => Ok::<Value, HookError>(answer),
                Err(_) => Ok(Value::clone(&*next.run(e).await?)),
            }
        }
    }
}

/// What the deepest raise of a ladder answered: the value, or `{$error, limit}`.
type Seen = Arc<Mutex<Vec<Value>>>;

/// A person's ladder: `k - 1` hooks on `probe`, each re-raising `probe` through its
/// `cx`, then one that raises `event` (the `k`-th raise from a hook, at depth `k`) and
/// keeps what it answered.
fn seat_ladder(engine: &Engine, k: usize, event: &'static str) -> Seen {
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let mut p = Plugin::new(info("mallory", Tier::User));
    for _ in 1..k {
        p = p.with(Registration::on("probe", nester("probe")));
    }
    let kept = Arc::clone(&seen);
    p = p.with(Registration::on(
        "probe",
        move |cx: Cx, _e: Event, _next: Next| {
            let kept = Arc::clone(&kept);
            async move {
                let v = match cx.raise(Event::new(event, Map::new())).await {
                    Ok(v) => Value::clone(&v),
                    Err(e) => json!({"$error": e.to_string(), "limit": e.is_limit()}),
                };
                kept.lock().unwrap().push(v);
                Ok::<Value, HookError>(json!({"levels": 0}))
            }
        },
    ));
    engine.seat(p);
    seen
}

fn org_reader(engine: &Engine, tier: Tier, event: &str, answer: Value) {
    engine.seat(
        Plugin::new(info("acme-guard", tier))
            .with(Registration::on(event, naive_org_reader(answer))),
    );
}

fn run_ladder(engine: &Engine, seen: &Seen) -> Value {
    let _ = engine
        .raise_blocking(Event::new("probe", Map::new()))
        .unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    seen[0].clone()
}

#[test]
fn an_organizations_hook_whose_read_is_refused_for_depth_fails_closed() {
    // Attack: the person's hooks nest so that their `tool.check` is the 8th raise: the
    // organization's read beneath it would be the 9th, and is refused. The naive hook
    // passes on a failed read, which would hand the core's allow up; the refusal breaks
    // it instead, and the event's fail-closed answer (SPEC §1.8) stands.
    let (engine, core) = engine();
    org_reader(
        &engine,
        Tier::Prepend,
        "tool.check",
        json!({"decision": "deny", "reason": "org says no"}),
    );
    let seen = seat_ladder(&engine, 8, "tool.check");
    let v = run_ladder(&engine, &seen);
    assert_eq!(
        v,
        json!({"decision": "deny", "reason": "acme-guard failed (error)"})
    );
    let log = core.log.lock().unwrap().clone();
    assert!(
        log.iter().any(|l| l.starts_with("hook of acme-guard failed at tool.check (error): settings.read was not raised: events raised from hooks nest at most 8 deep")
            && l.ends_with("; denied")),
        "{log:?}"
    );
}

#[test]
fn control_one_level_shallower_the_organization_reads_and_answers_itself() {
    // Control: the person's `tool.check` is the 7th raise; the organization's read is the
    // 8th, within the cap, and its own deny stands: the fail-closed deny above comes from
    // the cap alone.
    let (engine, core) = engine();
    org_reader(
        &engine,
        Tier::Prepend,
        "tool.check",
        json!({"decision": "deny", "reason": "org says no"}),
    );
    let seen = seat_ladder(&engine, 7, "tool.check");
    let v = run_ladder(&engine, &seen);
    assert_eq!(v, json!({"decision": "deny", "reason": "org says no"}));
    assert!(core.log.lock().unwrap().is_empty());
}

#[test]
fn control_a_person_reading_past_the_cap_is_only_told() {
    // Control: the same naive reader as a person's plugin: the refusal is no hold over
    // it; it passes, and the core's allow is the answer. This is what the organization's
    // naive hook would have answered without the fail-closed rule.
    let (engine, _) = engine();
    org_reader(
        &engine,
        Tier::User,
        "tool.check",
        json!({"decision": "deny", "reason": "org says no"}),
    );
    let seen = seat_ladder(&engine, 8, "tool.check");
    let v = run_ladder(&engine, &seen);
    assert_eq!(v, json!({"decision": "allow"}));
}

#[test]
fn a_builtin_hook_whose_read_is_refused_fails_closed_too() {
    let (engine, _) = engine();
    org_reader(
        &engine,
        Tier::Builtin,
        "tool.check",
        json!({"decision": "deny", "reason": "org says no"}),
    );
    let seen = seat_ladder(&engine, 8, "tool.check");
    let v = run_ladder(&engine, &seen);
    assert_eq!(
        v,
        json!({"decision": "deny", "reason": "acme-guard failed (error)"})
    );
}

#[test]
fn where_the_event_has_no_fail_closed_answer_the_refusal_is_the_chains_answer() {
    // An organization's `env.set` hook that reads a setting and passes when it cannot:
    // refused for depth, it does not drop out (which would let the write through to the
    // core): the refusal is the chain's answer, an error marked as a limit.
    let (engine, core) = engine();
    org_reader(
        &engine,
        Tier::Prepend,
        "env.set",
        json!({"deny": "acme pins it"}),
    );
    let seen = seat_ladder(&engine, 8, "env.set");
    let v = run_ladder(&engine, &seen);
    assert_eq!(v["limit"], json!(true), "{v}");
    assert!(v["$error"].as_str().unwrap().contains("nesting cap of 8"));
    let log = core.log.lock().unwrap().clone();
    assert!(
        log.iter().any(
            |l| l.starts_with("hook of acme-guard failed at env.set (error)")
                && l.ends_with("; the event was refused")
        ),
        "{log:?}"
    );

    // Control, one level shallower: the organization's own refusal.
    let (shallow, _) = self::engine();
    org_reader(
        &shallow,
        Tier::Prepend,
        "env.set",
        json!({"deny": "acme pins it"}),
    );
    let seen = seat_ladder(&shallow, 7, "env.set");
    assert_eq!(run_ladder(&shallow, &seen), json!({"deny": "acme pins it"}));
}

#[test]
fn an_organizations_failure_handler_decides_on_a_refusal() {
    // The handler is the organization's own answer to a failure: it is told why.
    let (engine, _) = engine();
    engine.seat(Plugin::new(info("acme-guard", Tier::Prepend)).with(
        Registration::on("tool.check", naive_org_reader(json!({"decision": "deny"}))).catch(
            |_cx: Cx, _e: Event, next: Next| async move {
                let why = next.error().map(|f| f.message_or_default().to_owned());
                Ok::<Value, HookError>(json!({"decision": "ask", "reason": why}))
            },
        ),
    ));
    let seen = seat_ladder(&engine, 8, "tool.check");
    let v = run_ladder(&engine, &seen);
    assert_eq!(v["decision"], json!("ask"));
    assert!(v["reason"]
        .as_str()
        .unwrap()
        .contains("the nesting cap of 8 was reached"));
}

#[test]
fn the_engines_failure_line_keeps_4096_characters_of_a_message() {
    // A hook that fails with a 1 MiB message at every event: the debug line the engine
    // writes (and the embedding program keeps until it takes its log) is cut.
    let (engine, core) = engine();
    engine.seat(Plugin::new(info("loud", Tier::User)).with(Registration::on(
        "probe",
        |_cx: Cx, _e: Event, _next: Next| async move {
            Err::<Value, _>(HookError::Failed(fnhooks::HookFailure::new(
                fnhooks::FailureKind::Error,
                "m".repeat(1 << 20),
            )))
        },
    )));
    let _ = engine.raise_blocking(Event::new("probe", Map::new()));
    let log = core.log.lock().unwrap().clone();
    assert_eq!(log.len(), 1);
    assert_eq!(
        log[0],
        format!(
            "hook of loud failed at probe (error): {}...; the chain went on without it",
            "m".repeat(4096)
        )
    );
}
