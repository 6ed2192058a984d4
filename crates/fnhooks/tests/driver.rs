//! The chain driver: a chain's length does not grow the stack, handing an
//! event on copies nothing, and `next` behaves as a future should: awaited anywhere,
//! twice at once, awaited in any order, dropped halfway, or kept past its hook's answer
//! (SPEC §1.1); and the link index follows seats, reloads and unseats.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use fnhooks::testing::{info, passes, Recorder};
use fnhooks::{Catalogue, Cx, Engine, Event, HookError, Next, Plugin, Registration, Tier};
use futures::future::BoxFuture;
use futures::FutureExt;
use pretty_assertions::assert_eq;
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Duration;

/// A core that answers `{"depth": 0, "id": <the event's id>}`, and records the events
/// that reached it and the engine's lines.
fn engine() -> (Engine, Arc<Recorder>) {
    let core = Recorder::new(|e| {
        let id = e.fields.get("id").cloned().unwrap_or(Value::Null);
        json!({"depth": 0, "id": id})
    });
    let engine = Engine::new(core.clone(), Catalogue::new(), Duration::from_millis(500));
    (engine, core)
}

/// The fields of the last event that reached `core`.
fn last_seen(core: &Recorder) -> Arc<Map<String, Value>> {
    core.reached()
        .last()
        .map(|e| Arc::clone(&e.fields))
        .unwrap()
}

/// A hook that counts itself into the answer's `depth`.
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

/// A prepend plugin that runs the rest of the chain and records what `look` reads off
/// its `next` after that run; and what it recorded.
fn observer<T: Send + 'static>(look: fn(&Next) -> T) -> (Plugin, Arc<Mutex<Vec<T>>>) {
    let seen: Arc<Mutex<Vec<T>>> = Arc::default();
    let record = Arc::clone(&seen);
    let hook = move |_cx: Cx, e: Event, n: Next| {
        let record = Arc::clone(&record);
        async move {
            let a = n.run(e).await?;
            record.lock().unwrap().push(look(&n));
            Ok::<_, HookError>(a)
        }
    };
    let plugin =
        Plugin::new(info("outer", Tier::Prepend)).with(Registration::on("prompt.section", hook));
    (plugin, seen)
}

/// Seats plugin `id` of `tier` with `hook` on `prompt.section`.
fn seat(engine: &Engine, id: &str, tier: Tier, hook: impl fnhooks::Hook) {
    engine.seat(Plugin::new(info(id, tier)).with(Registration::on("prompt.section", hook)));
}

/// Raises the section, traced; answers its answer after checking that the outermost
/// link did not fail (the engine's lines say why when it did).
fn answered_without_failing(engine: &Engine, core: &Recorder) -> fnhooks::Reply {
    let (a, trace) = futures::executor::block_on(engine.raise_traced(section()));
    assert_eq!(
        trace.first().and_then(|t| t.failure),
        None,
        "{:?}",
        core.line_texts()
    );
    a.unwrap()
}

/// A hook that sets the answer's `depth` to 7.
fn rewriter(_cx: Cx, e: Event, n: Next) -> BoxFuture<'static, fnhooks::HookResult> {
    Box::pin(async move {
        let mut a = n.run(e).await?;
        a["depth"] = json!(7);
        Ok(a)
    })
}

#[test]
fn a_chain_of_100000_links_runs_on_a_default_stack() {
    // A spawned thread gets the default stack (2 MiB); a stack overflow aborts the
    // whole test binary, so passing is the proof.
    let handle = std::thread::spawn(|| {
        let (engine, _) = engine();
        let mut deep = Plugin::new(info("deep", Tier::User));
        for _ in 0..100_000 {
            deep = deep.with(Registration::on("prompt.section", counting));
        }
        engine.seat(deep);
        let (answer, trace) = futures::executor::block_on(engine.raise_traced(section()));
        (answer, trace.len())
    });
    let (answer, entries) = handle.join().expect("the chain ran");
    assert_eq!(answer.unwrap()["depth"], 100_000);
    assert_eq!(entries, 100_001, "every link and the core are in the trace");
}

#[test]
fn a_pass_through_chain_hands_the_core_the_very_fields_raised() {
    let (engine, core) = engine();
    for id in ["a", "b", "c"] {
        engine.seat(
            Plugin::new(info(id, Tier::User)).with(Registration::on("prompt.section", passes())),
        );
    }
    let raised = section();
    let fields = Arc::clone(&raised.fields);
    engine.raise_blocking(raised).unwrap();
    let seen = last_seen(&core);
    assert!(Arc::ptr_eq(&seen, &fields), "no link copied the fields");
}

#[test]
fn a_hook_that_writes_a_field_writes_its_own_copy() {
    let (engine, core) = engine();
    engine.seat(
        Plugin::new(info("writer", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, mut e: Event, n: Next| async move {
                e.fields_mut().insert("id".into(), json!("rewritten"));
                n.run(e).await.map_err(HookError::from)
            },
        )),
    );
    let raised = section();
    let fields = Arc::clone(&raised.fields);
    engine.raise_blocking(raised).unwrap();
    let seen = last_seen(&core);
    assert_eq!(seen["id"], "rewritten");
    assert_eq!(fields["id"], "x", "the raiser's fields are untouched");
}

#[test]
fn a_next_awaited_on_another_thread_still_runs_the_rest_of_the_chain() {
    let (engine, _) = engine();
    engine.seat(
        Plugin::new(info("hopper", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move {
                let (tx, rx) = futures::channel::oneshot::channel();
                let below = n.run(e);
                std::thread::spawn(move || {
                    let _ = tx.send(futures::executor::block_on(below));
                });
                let mut a = rx.await.expect("the thread answered")?;
                a["hopped"] = json!(true);
                Ok(a)
            },
        )),
    );
    seat(&engine, "below", Tier::Append, counting);
    let a = engine.raise_blocking(section()).unwrap();
    assert_eq!(a["hopped"], true);
    assert_eq!(a["depth"], 1, "the link beneath ran");
}

#[test]
fn two_next_calls_at_once_both_answer() {
    let (engine, core) = engine();
    engine.seat(
        Plugin::new(info("twice", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move {
                let other = e.clone().with("id", json!("y"));
                let (a, b) = futures::join!(n.run(e), n.run(other));
                Ok(json!({"a": a?["depth"], "b": b?["depth"]}))
            },
        )),
    );
    seat(&engine, "below", Tier::Append, counting);
    let a = engine.raise_blocking(section()).unwrap();
    assert_eq!(a, json!({"a": 1, "b": 1}));
    assert_eq!(core.calls(), 2, "two events, two core answers");
}

#[test]
fn a_next_dropped_halfway_stops_the_rest_of_the_chain() {
    let (engine, core) = engine();
    // The outer hook gives up on `next` as soon as the link beneath waits.
    engine.seat(
        Plugin::new(info("impatient", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move {
                let below = n.run(e);
                futures::pin_mut!(below);
                match futures::future::select(below, futures::future::ready(())).await {
                    futures::future::Either::Left((a, _)) => a.map_err(HookError::from),
                    futures::future::Either::Right(((), _)) => Ok(json!({"gave_up": true}).into()),
                }
            },
        )),
    );
    engine.seat(
        Plugin::new(info("stuck", Tier::Append)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, _e: Event, _n: Next| async move {
                futures::future::pending::<()>().await;
                Ok(json!({}))
            },
        )),
    );
    let a = engine.raise_blocking(section()).unwrap();
    assert_eq!(a, json!({"gave_up": true}));
    assert_eq!(core.calls(), 0, "nothing ran past the dropped next");
}

#[test]
fn a_next_kept_past_its_hooks_answer_runs_nothing() {
    let (engine, core) = engine();
    let kept: Arc<Mutex<Option<Next>>> = Arc::default();
    let keep = Arc::clone(&kept);
    engine.seat(
        Plugin::new(info("keeper", Tier::User)).with(Registration::on(
            "prompt.section",
            move |_cx: Cx, _e: Event, n: Next| {
                *keep.lock().unwrap() = Some(n);
                async move { Ok(json!({"kept": true})) }
            },
        )),
    );
    assert_eq!(engine.raise_blocking(section()).unwrap()["kept"], true);
    let next = kept.lock().unwrap().take().unwrap();
    let late = futures::executor::block_on(next.run(section()));
    assert!(late.is_err(), "{late:?}");
    assert!(next.trace().is_empty());
    assert_eq!(core.calls(), 0);
}

#[test]
fn a_hook_that_panics_before_it_returns_a_future_is_dropped() {
    let (engine, _) = engine();
    engine.seat(
        Plugin::new(info("early", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, _e: Event, _n: Next| -> futures::future::Ready<Result<Value, HookError>> {
                panic!("before any future")
            },
        )),
    );
    seat(&engine, "below", Tier::Append, counting);
    let (answer, trace) = futures::executor::block_on(engine.raise_traced(section()));
    assert_eq!(answer.unwrap()["depth"], 1);
    assert_eq!(
        trace.first().and_then(|e| e.failure),
        Some(fnhooks::FailureKind::Panic)
    );
}

#[test]
fn handed_on_unchanged_tells_a_pass_through_run_from_one_with_a_rewrite() {
    let (engine, _) = engine();
    let (outer, seen) = observer(Next::handed_on_unchanged);
    engine.seat(outer);
    seat(&engine, "passer", Tier::User, passes());
    engine.raise_blocking(section()).unwrap();
    // A rewrite of the same value (equal, but written) is a rewrite too.
    engine.seat(
        Plugin::new(info("rewriter", Tier::Append)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move {
                let mut a = n.run(e).await?;
                a["depth"] = json!(0);
                Ok(a)
            },
        )),
    );
    engine.raise_blocking(section()).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![true, false]);
}

#[test]
fn trace_of_changes_copies_only_the_entries_that_changed_something() {
    let (engine, _) = engine();
    // The changed entries' plugins, and how long trace() is.
    let (outer, seen) = observer(|n| {
        let changed: Vec<String> = n
            .trace_of_changes()
            .iter()
            .flat_map(|t| t.plugins.clone())
            .collect();
        (changed, n.trace().len())
    });
    engine.seat(outer);
    // Two plugins of one worker form a batch: one entry, changed when either member
    // changed the answer.
    let mut w1 = info("w1", Tier::User);
    w1.worker = Some("shared".into());
    let mut w2 = info("w2", Tier::User);
    w2.worker = Some("shared".into());
    engine.seat(Plugin::new(w1).with(Registration::on("prompt.section", passes())));
    engine.seat(Plugin::new(w2).with(Registration::on("prompt.section", rewriter)));
    seat(&engine, "a", Tier::Append, passes());
    seat(&engine, "b", Tier::Builtin, rewriter);
    engine.raise_blocking(section()).unwrap();
    // trace(): the batch, a, b, the core (4 entries); changed: the batch (w1 and w2)
    // and b, not a (it handed on what it got) and not the core.
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(vec!["w1".to_owned(), "w2".to_owned(), "b".to_owned()], 4)]
    );
}

#[test]
fn a_hook_that_writes_to_its_nexts_answer_writes_a_copy_the_trace_does_not_share() {
    // What the security default's pointer comparisons rest on: an answer a link wrote to
    // is never the very value its next answered, so a rewrite cannot pass as a
    // hand-on (SPEC §3.6 step 2).
    let (engine, _) = engine();
    let (outer, seen) = observer(|n| {
        let core = n
            .trace()
            .last()
            .and_then(|t| t.answer.clone().ok())
            .unwrap();
        (
            n.handed_on_unchanged(),
            n.trace_of_changes().len(),
            core.into_value(),
        )
    });
    engine.seat(outer);
    engine.seat(
        Plugin::new(info("writer", Tier::User)).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move {
                let mut a = n.run(e).await?;
                // A write in place, through DerefMut, of the value next answered.
                if let Some(obj) = a.as_object_mut() {
                    obj.insert("depth".into(), json!(99));
                }
                Ok(a)
            },
        )),
    );
    let a = engine.raise_blocking(section()).unwrap();
    assert_eq!(a["depth"], 99);
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(false, 1, json!({"depth": 0, "id": "x"}))]
    );
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
    seat(&engine, "below", Tier::Append, counting);
    let a = answered_without_failing(&engine, &core);
    assert_eq!(a, json!({"a": "x", "b": "y"}));
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
    seat(&engine, "below", Tier::Append, counting);
    let a = answered_without_failing(&engine, &core);
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
    seat(&engine, "x", Tier::Builtin, tagger("x"));
    seat(&engine, "u", Tier::User, tagger("u"));
    seat(&engine, "x", Tier::Prepend, tagger("x"));
    let a = engine.raise_blocking(section()).unwrap();
    assert_eq!(a["t"], "x(u(core))");
}

/// The link index keeps what each name found across seats that cannot touch it, and
/// finds anew what they can (seating stays linear).
#[test]
fn the_link_index_follows_seats_reloads_and_unseats() {
    let (engine, _) = engine();
    let other = || Event::from_value("other.event", json!({}));
    seat(&engine, "a", Tier::User, tagger("a"));
    assert_eq!(engine.raise_blocking(section()).unwrap()["t"], "a(core)");
    assert!(engine.raise_blocking(other()).is_ok());
    // A plugin of another event: the section's chain is as it was.
    engine.seat(
        Plugin::new(info("o", Tier::User)).with(Registration::on("other.event", tagger("o"))),
    );
    assert_eq!(engine.raise_blocking(section()).unwrap()["t"], "a(core)");
    assert_eq!(engine.raise_blocking(other()).unwrap()["t"], "o(core)");
    // A plugin of the section, and a prefix pattern that matches both.
    seat(&engine, "b", Tier::Append, tagger("b"));
    engine.seat(Plugin::new(info("all", Tier::Builtin)).with(Registration::on("*", tagger("all"))));
    assert_eq!(
        engine.raise_blocking(section()).unwrap()["t"],
        "a(b(all(core)))"
    );
    assert_eq!(engine.raise_blocking(other()).unwrap()["t"], "o(all(core))");
    // A reload in place with another hook, then an unseat.
    seat(&engine, "a", Tier::User, tagger("A"));
    assert_eq!(
        engine.raise_blocking(section()).unwrap()["t"],
        "A(b(all(core)))"
    );
    assert!(engine.unseat("all@t"));
    assert_eq!(engine.raise_blocking(section()).unwrap()["t"], "A(b(core))");
    assert_eq!(engine.raise_blocking(other()).unwrap()["t"], "o(core)");
    assert!(!engine.unseat("all@t"), "unseated once");
}

/// A hook that waits `wait` on its own, then answers `{"waited": true}`; says whether it
/// meters its own time.
struct Waiter {
    wait: Duration,
    own_clock: bool,
}

impl fnhooks::Hook for Waiter {
    fn call(&self, _cx: Cx, _e: Event, _next: Next) -> BoxFuture<'static, fnhooks::HookResult> {
        let wait = self.wait;
        Box::pin(async move {
            futures_timer::Delay::new(wait).await;
            Ok(json!({"waited": true}).into())
        })
    }
    fn meters_own_time(&self) -> bool {
        self.own_clock
    }
}

/// SPEC §6 "Limits": a hook that meters its own time (a mod's, timed in its worker) gets
/// no timer from the driver; every other hook is cut at the hook timeout (SPEC §1.1).
#[test]
fn the_driver_times_a_hook_unless_it_meters_its_own_time() {
    for own_clock in [false, true] {
        let (engine, core) = engine();
        engine.seat(Plugin::new(info("w", Tier::User)).with(Registration::on(
            "prompt.section",
            Waiter {
                wait: Duration::from_millis(800),
                own_clock,
            },
        )));
        let a = engine.raise_blocking(section()).unwrap();
        if own_clock {
            assert_eq!(*a, json!({"waited": true}));
        } else {
            assert_eq!(a["depth"], json!(0), "{a}");
            let log = core.line_texts();
            assert!(log.iter().any(|l| l.contains("(timeout)")), "{log:?}");
        }
    }
}
