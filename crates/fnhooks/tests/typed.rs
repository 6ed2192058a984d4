//! A hook's own door, typed hooks and the typed core (SPEC §1.1, §1.2, §1.5, §1.7b).

use fnhooks::testing::info;
use fnhooks::{
    Catalogue, ChainError, Channel, Cx, Engine, Event, EventType, FailureKind, HookError, Next,
    Origin, Pins, Plugin, Raise, Registration, Router, Tier, TypedNext,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `greet`: `{name, ...}` answered by `{text}`; `name` pinned.
struct Greet;
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Name {
    name: String,
    #[serde(flatten)]
    rest: Map<String, Value>,
}
#[derive(Debug, Serialize, Deserialize)]
struct Text {
    text: String,
}
impl EventType for Greet {
    const NAME: &'static str = "greet";
    const PINS: Pins = Pins::Fields(&["name"]);
    type Input = Name;
    type Output = Text;
}

type Lines = Arc<Mutex<Vec<(Channel, String)>>>;

/// An engine whose core greets by name and echoes every other event, with its lines.
#[allow(clippy::unwrap_used)]
fn engine() -> (Engine, Lines) {
    let lines: Lines = Arc::default();
    let log = Arc::clone(&lines);
    let core = Router::new(move |c, l| log.lock().unwrap().push((c, l))).on::<Greet, _, _>(
        |_cx: Cx, e: Name| async move {
            let extra = e.rest.get("title").and_then(Value::as_str).unwrap_or("");
            Ok::<_, ChainError>(Text {
                text: format!("hello {extra}{}", e.name),
            })
        },
    );
    let engine = Engine::new(
        Arc::new(core),
        Catalogue::new().event::<Greet>(),
        Duration::from_secs(2),
    );
    (engine, lines)
}

fn greet(fields: Value) -> Event {
    Event::from_value("greet", fields)
}

#[test]
fn a_hook_raises_as_its_own_plugin_and_nothing_else() {
    // SPEC §1.1: `cx` raises as the hook's own plugin. A person's hook that dresses its
    // event up as the organization's still reaches the chain as itself.
    let (engine, _) = engine();
    let seen: Arc<Mutex<Vec<Origin>>> = Arc::default();
    let record = Arc::clone(&seen);
    engine.seat(
        Plugin::new(info("org", Tier::Prepend)).with(Registration::on(
            "note",
            move |_cx: Cx, e: Event, next: Next| {
                record.lock().unwrap().push(next.origin().clone());
                async move { Ok(next.run(e).await?) }
            },
        )),
    );
    engine.seat(
        Plugin::new(info("person", Tier::User)).with(Registration::on(
            "greet",
            |cx: Cx, e: Event, next: Next| async move {
                let forged = json!({"origin": {"tier": "prepend", "plugin": "org", "id": "org@t"}});
                cx.raise(Event::from_value("note", forged)).await?;
                Ok(next.run(e).await?)
            },
        )),
    );
    let answer = engine
        .raise_blocking(greet(json!({"name": "ada"})))
        .unwrap();
    assert_eq!(answer["text"], "hello ada");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![Origin {
            tier: Tier::User,
            plugin: "person".into(),
            id: "person@t".into(),
        }]
    );
    // The core's `cx` raises as the engine.
    assert_eq!(Origin::engine().tier, Tier::Core);
}

#[test]
fn a_typed_hook_hands_on_the_fields_it_does_not_name() {
    let (engine, _) = engine();
    engine.seat(
        Plugin::new(info("shout", Tier::User)).with(Registration::typed::<Greet, _, _>(
            |_cx: Cx, e: Name, next: TypedNext<Greet>| async move {
                let below = next.run(&e).await?;
                Ok::<_, HookError>(Text {
                    text: below.text.to_uppercase(),
                })
            },
        )),
    );
    let answer = engine
        .raise_blocking(greet(json!({"name": "ada", "title": "dr "})))
        .unwrap();
    assert_eq!(answer["text"], "HELLO DR ADA", "the core saw `title`");
}

#[test]
fn a_typed_hook_that_changes_a_pinned_field_fails_and_the_chain_goes_on() {
    let (engine, lines) = engine();
    engine.seat(
        Plugin::new(info("rename", Tier::User)).with(Registration::typed::<Greet, _, _>(
            |_cx: Cx, mut e: Name, next: TypedNext<Greet>| async move {
                e.name = "mallory".into();
                Ok::<_, HookError>(next.run(&e).await?)
            },
        )),
    );
    let answer = engine
        .raise_blocking(greet(json!({"name": "ada"})))
        .unwrap();
    assert_eq!(answer["text"], "hello ada");
    let lines = lines.lock().unwrap();
    assert!(
        lines.iter().any(|(_, l)| l.contains("(pin)")),
        "the pin break is on the debug log: {lines:?}"
    );
}

#[test]
fn a_json_hooks_answer_is_checked_against_the_declared_output() {
    let (engine, lines) = engine();
    engine.seat(Plugin::new(info("liar", Tier::User)).with(Registration::on(
        "greet",
        |_cx: Cx, _e: Event, _next: Next| async move { Ok(json!({"text": 5})) },
    )));
    let answer = engine
        .raise_blocking(greet(json!({"name": "ada"})))
        .unwrap();
    assert_eq!(answer["text"], "hello ada", "the link was dropped");
    assert!(lines
        .lock()
        .unwrap()
        .iter()
        .any(|(_, l)| l.contains("(invalid-answer)")));
}

#[test]
fn an_undeclared_event_is_untyped_json_with_nothing_pinned() {
    let (engine, _) = engine();
    let catalogue = engine.catalogue();
    assert!(!catalogue.is_declared("turn.start"));
    assert_eq!(catalogue.pins("turn.start"), Pins::NONE);
    assert!(catalogue.answer_ok("turn.start", &json!({"anything": [1, 2]})));
    assert!(!catalogue.answer_ok("turn.start", &json!("not an object")));
    engine.seat(
        Plugin::new(info("rewriter", Tier::User)).with(Registration::on(
            "turn.start",
            |_cx: Cx, mut e: Event, next: Next| async move {
                e.fields_mut().insert("n".into(), json!(2));
                Ok(next.run(e).await?)
            },
        )),
    );
    let answer = engine
        .raise_blocking(Event::from_value("turn.start", json!({"n": 1})))
        .unwrap();
    assert_eq!(answer["n"], 2, "the core echoed the rewritten event");
}

#[test]
fn the_router_refuses_an_event_not_of_its_declared_shape() {
    let (engine, _) = engine();
    let err = engine
        .raise_blocking(greet(json!({"nom": "ada"})))
        .unwrap_err();
    assert_eq!(err.failure().kind, FailureKind::Error);
    assert!(err.to_string().contains("greet"), "{err}");
}

#[test]
fn a_core_answer_given_stands_at_the_core_link_of_that_raise_only() {
    let (engine, _) = engine();
    let inner: Arc<Mutex<Option<Value>>> = Arc::default();
    let keep = Arc::clone(&inner);
    engine.seat(Plugin::new(info("peek", Tier::User)).with(Registration::on(
        "greet",
        move |cx: Cx, e: Event, next: Next| {
            let keep = Arc::clone(&keep);
            async move {
                // A raise of its own is answered by the core, not by the given answer.
                let mine = cx.raise(greet(json!({"name": "bob"}))).await?;
                *keep.lock().unwrap() = Some(mine.into_value());
                Ok(next.run(e).await?)
            }
        },
    )));
    let answer = engine
        .raise_blocking(
            Raise::new(greet(json!({"name": "ada"}))).core_answer(json!({"text": "given"})),
        )
        .unwrap();
    assert_eq!(answer["text"], "given");
    assert_eq!(inner.lock().unwrap().clone().unwrap()["text"], "hello bob");
}

#[test]
fn an_engine_raise_runs_on_another_executor_thread() {
    // The engine's futures are `Send` and need no particular runtime.
    let (engine, _) = engine();
    let fut = engine.raise(greet(json!({"name": "ada"})));
    let answer = std::thread::spawn(move || futures::executor::block_on(fut))
        .join()
        .unwrap()
        .unwrap();
    assert_eq!(answer["text"], "hello ada");
}

#[test]
fn a_cx_kept_past_its_plugins_seat_raises_nothing() {
    let (engine, _) = engine();
    let kept: Arc<Mutex<Option<Cx>>> = Arc::default();
    let keep = Arc::clone(&kept);
    engine.seat(
        Plugin::new(info("hoarder", Tier::User)).with(Registration::on(
            "greet",
            move |cx: Cx, e: Event, next: Next| {
                *keep.lock().unwrap() = Some(cx);
                async move { Ok(next.run(e).await?) }
            },
        )),
    );
    engine
        .raise_blocking(greet(json!({"name": "ada"})))
        .unwrap();
    let cx = kept.lock().unwrap().clone().unwrap();
    // Seated: the kept `cx` still raises as its plugin.
    let ok = futures::executor::block_on(cx.raise(greet(json!({"name": "bob"}))));
    assert_eq!(ok.unwrap()["text"], "hello bob");
    // Unseated (or replaced by a reload): it raises nothing.
    assert!(engine.unseat("hoarder@t"));
    let err = futures::executor::block_on(cx.raise(greet(json!({"name": "bob"})))).unwrap_err();
    assert!(err.to_string().contains("no longer seated"), "{err}");
    engine.seat(Plugin::new(info("hoarder", Tier::User)));
    let err = futures::executor::block_on(cx.raise(greet(json!({"name": "bob"})))).unwrap_err();
    assert!(
        err.to_string().contains("no longer seated"),
        "a reseated plugin's old cx stays closed: {err}"
    );
}
