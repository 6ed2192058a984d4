//! The driver at its edges (issue #11, found by review): `next` calls awaited in any
//! order, a `next` polled on another thread while its hook is being polled, a reload
//! that moves a plugin to another tier.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use fnhooks::{
    Answer, Catalogue, Channel, Core, Cx, Engine, Event, HookError, Next, Plugin, PluginInfo,
    Registration, Tier,
};
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

#[derive(Default)]
struct Keeper {
    calls: Mutex<u32>,
    log: Mutex<Vec<String>>,
}

impl Core for Keeper {
    fn answer(&self, _cx: Cx, e: Event) -> BoxFuture<'static, Answer> {
        *self.calls.lock().unwrap() += 1;
        let id = e.fields.get("id").cloned().unwrap_or(Value::Null);
        Box::pin(async move { Ok(json!({"depth": 0, "id": id}).into()) })
    }
    fn engine_log(&self, _channel: Channel, line: String) {
        self.log.lock().unwrap().push(line);
    }
}

fn engine() -> (Engine, Arc<Keeper>) {
    let core = Arc::new(Keeper::default());
    let engine = Engine::new(core.clone(), Catalogue::new(), Duration::from_millis(500));
    (engine, core)
}

fn info(id: &str, tier: Tier) -> PluginInfo {
    PluginInfo::new(format!("{id}@t"), id, tier)
}

fn counting(_cx: Cx, e: Event, next: Next) -> BoxFuture<'static, fnhooks::HookResult> {
    Box::pin(async move {
        let mut a = next.run(e).await?;
        let depth = a["depth"].as_u64().unwrap_or(0);
        a["depth"] = json!(depth + 1);
        Ok(a)
    })
}

fn section() -> Event {
    Event::from_value("prompt.section", json!({"id": "x"}))
}

/// Two `next` calls started together, awaited in the other order: both must answer
/// (tests/driver.rs: "twice at once").
#[test]
fn two_nexts_awaited_in_reverse_order_both_answer() {
    let (engine, core) = engine();
    engine.seat(
        Plugin::new(info("twice", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move {
                let mut fa = n.run(e.clone());
                let mut fb = n.run(e.with("id", json!("y")));
                // Start both (each leaves its request), then await b first, then a.
                futures::future::poll_fn(|cx| {
                    let _ = fa.poll_unpin(cx);
                    let _ = fb.poll_unpin(cx);
                    Poll::Ready(())
                })
                .await;
                let b = fb.await?;
                let a = fa.await?;
                Ok(json!({"a": a["id"], "b": b["id"]}))
            },
        )),
    );
    engine.seat(
        Plugin::new(info("below", Tier::Append)).with(Registration::on("prompt.section", counting)),
    );
    let (a, trace) = futures::executor::block_on(engine.raise_traced(section()));
    assert_eq!(
        trace.first().and_then(|t| t.failure),
        None,
        "{:?}",
        core.log.lock().unwrap()
    );
    assert_eq!(a.unwrap(), json!({"a": "x", "b": "y"}));
}

/// A `next` handed to another thread, polled there while the driver is inside the
/// hook's own poll: the rest of the chain must still answer it (driver.rs: "awaited
/// anywhere").
#[test]
fn a_next_polled_on_another_thread_during_the_hooks_poll_is_answered() {
    let (engine, core) = engine();
    engine.seat(
        Plugin::new(info("hopper", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move {
                let (tx, rx) = futures::channel::oneshot::channel();
                let (polled_tx, polled_rx) = std::sync::mpsc::channel();
                let mut below = n.run(e);
                std::thread::spawn(move || {
                    let mut first = true;
                    let a = futures::executor::block_on(futures::future::poll_fn(|cx| {
                        let r = below.poll_unpin(cx);
                        if first {
                            first = false;
                            polled_tx.send(()).unwrap();
                        }
                        r
                    }));
                    let _ = tx.send(a);
                });
                // Some work of the hook's own, on the driver's thread, while the other
                // thread polls `next` for the first time.
                polled_rx.recv().unwrap();
                let mut a = rx.await.expect("the thread answered")?;
                a["hopped"] = json!(true);
                Ok(a)
            },
        )),
    );
    engine.seat(
        Plugin::new(info("below", Tier::Append)).with(Registration::on("prompt.section", counting)),
    );
    let (a, trace) = futures::executor::block_on(engine.raise_traced(section()));
    assert_eq!(
        trace.first().and_then(|t| t.failure),
        None,
        "{:?}",
        core.log.lock().unwrap()
    );
    let a = a.unwrap();
    assert_eq!(a["hopped"], true);
}

fn tagger(tag: &'static str) -> impl fnhooks::Hook {
    move |_cx: Cx, e: Event, n: Next| async move {
        let mut a = n.run(e).await?;
        let t = a["t"].as_str().unwrap_or("core").to_owned();
        a["t"] = json!(format!("{tag}({t})"));
        Ok::<_, HookError>(a)
    }
}

/// A plugin reseated under the same id at another tier must sit in its new tier:
/// chain order is tier order (Tier docs; Engine::seat "at the end of its tier").
#[test]
fn a_reload_at_another_tier_moves_the_plugin_to_that_tier() {
    let (engine, _) = engine();
    engine.seat(
        Plugin::new(info("x", Tier::Builtin)).with(Registration::on("prompt.section", tagger("x"))),
    );
    engine.seat(
        Plugin::new(info("u", Tier::User)).with(Registration::on("prompt.section", tagger("u"))),
    );
    engine.seat(
        Plugin::new(info("x", Tier::Prepend)).with(Registration::on("prompt.section", tagger("x"))),
    );
    let a = engine.raise_blocking(section()).unwrap();
    assert_eq!(a["t"], "x(u(core))");
}

/// The link index keeps what each name found across seats that cannot touch it, and
/// finds anew what they can (issue #11: seating stays linear).
#[test]
fn the_link_index_follows_seats_reloads_and_unseats() {
    let (engine, _) = engine();
    let other = || Event::from_value("other.event", json!({}));
    engine.seat(
        Plugin::new(info("a", Tier::User)).with(Registration::on("prompt.section", tagger("a"))),
    );
    assert_eq!(engine.raise_blocking(section()).unwrap()["t"], "a(core)");
    assert!(engine.raise_blocking(other()).is_ok());
    // A plugin of another event: the section's chain is as it was.
    engine.seat(
        Plugin::new(info("o", Tier::User)).with(Registration::on("other.event", tagger("o"))),
    );
    assert_eq!(engine.raise_blocking(section()).unwrap()["t"], "a(core)");
    assert_eq!(engine.raise_blocking(other()).unwrap()["t"], "o(core)");
    // A plugin of the section, and a prefix pattern that matches both.
    engine.seat(
        Plugin::new(info("b", Tier::Append)).with(Registration::on("prompt.section", tagger("b"))),
    );
    engine.seat(Plugin::new(info("all", Tier::Builtin)).with(Registration::on("*", tagger("all"))));
    assert_eq!(
        engine.raise_blocking(section()).unwrap()["t"],
        "a(b(all(core)))"
    );
    assert_eq!(engine.raise_blocking(other()).unwrap()["t"], "o(all(core))");
    // A reload in place with another hook, then an unseat.
    engine.seat(
        Plugin::new(info("a", Tier::User)).with(Registration::on("prompt.section", tagger("A"))),
    );
    assert_eq!(
        engine.raise_blocking(section()).unwrap()["t"],
        "A(b(all(core)))"
    );
    assert!(engine.unseat("all@t"));
    assert_eq!(engine.raise_blocking(section()).unwrap()["t"], "A(b(core))");
    assert_eq!(engine.raise_blocking(other()).unwrap()["t"], "o(core)");
    assert!(!engine.unseat("all@t"), "unseated once");
}
