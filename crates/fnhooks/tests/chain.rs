//! The chain's contract (SPEC §1.1, §1.2, §1.8), driven by a recording core.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use fnhooks::{
    Answer, Channel, Core, Cx, Decision, Engine, Event, FailureKind, HookError, HookFailure, Next,
    Origin, Plugin, PluginInfo, Registration, Tier, Verdict,
};
use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Default)]
struct Recorder {
    log: Mutex<Vec<(Channel, String)>>,
    core_calls: Mutex<u32>,
}

impl Core for Recorder {
    fn answer(&self, _cx: Cx, e: Event) -> BoxFuture<'static, Answer> {
        *self.core_calls.lock().unwrap() += 1;
        let answer = if e.name == "tool.check" {
            json!({"decision": "deny", "rule": "Bash(rm:*)", "source": "policy"})
        } else {
            json!({"text": "core", "seen": e.to_value()})
        };
        Box::pin(async move { Ok(answer) })
    }
    fn engine_log(&self, channel: Channel, line: String) {
        self.log.lock().unwrap().push((channel, line));
    }
}

fn engine() -> (Engine, Arc<Recorder>) {
    let rec = Arc::new(Recorder::default());
    (Engine::new(rec.clone(), Duration::from_millis(200)), rec)
}

fn info(id: &str, tier: Tier) -> PluginInfo {
    PluginInfo {
        id: format!("{id}@t"),
        name: id.to_owned(),
        tier,
        worker: None,
    }
}

fn plugin(id: &str, tier: Tier, event: &str, hook: impl fnhooks::Hook) -> Plugin {
    Plugin::new(info(id, tier)).with(Registration::on(event, hook))
}

fn raise(engine: &Engine, name: &str, fields: Value) -> Answer {
    engine.raise_blocking(Event::from_value(name, fields), Origin::engine())
}

#[test]
fn with_no_hooks_the_core_answers_directly() {
    let (engine, rec) = engine();
    let a = raise(&engine, "prompt.section", json!({"id": "x"})).unwrap();
    assert_eq!(a["text"], "core");
    assert_eq!(*rec.core_calls.lock().unwrap(), 1);
}

#[test]
fn chain_order_is_tier_order_then_seating_order() {
    let (engine, _) = engine();
    let tag = |name: &'static str| {
        move |_cx: Cx, e: Event, next: Next| async move {
            let mut a = next.run(e).await?;
            let t = a["text"].as_str().unwrap_or_default().to_owned();
            a["text"] = json!(format!("{name}({t})"));
            Ok(a)
        }
    };
    engine.seat(plugin("b", Tier::Builtin, "prompt.section", tag("b")));
    engine.seat(plugin("u1", Tier::User, "prompt.section", tag("u1")));
    engine.seat(plugin("a", Tier::Append, "prompt.section", tag("a")));
    engine.seat(plugin("u2", Tier::User, "prompt.section", tag("u2")));
    engine.seat(plugin("p", Tier::Prepend, "prompt.section", tag("p")));
    engine.seat_first(plugin(
        "first",
        Tier::Prepend,
        "prompt.section",
        tag("first"),
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "first(p(u1(u2(a(b(core))))))");
}

#[test]
fn next_to_append_skips_the_user_tier_and_trace_shows_what_ran() {
    let (engine, _) = engine();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    engine.seat(plugin(
        "org",
        Tier::Prepend,
        "prompt.section",
        move |_cx: Cx, e: Event, next: Next| {
            let s = s.clone();
            async move {
                let a = next.to(e, Tier::Append).await?;
                *s.lock().unwrap() = next.trace();
                Ok(a)
            }
        },
    ));
    engine.seat(plugin(
        "person",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move { Ok(json!({"text": "person"})) },
    ));
    engine.seat(plugin(
        "appender",
        Tier::Append,
        "prompt.section",
        |_cx: Cx, e: Event, n: Next| async move { n.run(e).await.map_err(HookError::from) },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    let trace = seen.lock().unwrap().clone();
    let tiers: Vec<Tier> = trace.iter().map(|t| t.tier).collect();
    assert_eq!(tiers, vec![Tier::Append, Tier::Core]);
    assert!(trace[0].called_next);
    assert_eq!(trace[0].plugins, vec!["appender".to_owned()]);
}

#[test]
fn a_user_hook_calling_next_to_fails_with_forbidden_jump_and_is_dropped() {
    let (engine, rec) = engine();
    engine.seat(plugin(
        "person",
        Tier::User,
        "prompt.section",
        |_cx: Cx, e: Event, n: Next| async move {
            n.to(e, Tier::Core).await?;
            Ok(json!({"text": "person"}))
        },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    let log = rec.log.lock().unwrap().clone();
    assert_eq!(log.len(), 1);
    assert!(
        log[0]
            .1
            .starts_with("hook of person failed at prompt.section (forbidden-jump)"),
        "{log:?}"
    );
    assert!(log[0].1.ends_with("; the chain went on without it"));
}

#[test]
fn a_prepend_hook_may_not_jump_backwards_or_to_the_user_tier() {
    let (engine, _) = engine();
    let kinds = Arc::new(Mutex::new(Vec::new()));
    let k = kinds.clone();
    engine.seat(
        Plugin::new(info("org", Tier::Prepend)).with(
            Registration::on("prompt.section", |_cx: Cx, e: Event, n: Next| async move {
                n.to(e, Tier::User).await?;
                Ok(json!({"text": "org"}))
            })
            .catch(move |_cx: Cx, e: Event, n: Next| {
                let k = k.clone();
                async move {
                    k.lock().unwrap().push(n.error().unwrap().kind);
                    assert!(!n.called());
                    n.run(e).await.map_err(HookError::from)
                }
            }),
        ),
    );
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    assert_eq!(*kinds.lock().unwrap(), vec![FailureKind::ForbiddenJump]);
}

#[test]
fn handing_on_a_changed_pinned_field_fails_and_the_next_link_gets_the_original() {
    let (engine, rec) = engine();
    engine.seat(plugin(
        "swapper",
        Tier::User,
        "tool.check",
        |_cx: Cx, mut e: Event, n: Next| async move {
            e.fields
                .insert("input".into(), json!({"command": "echo hi"}));
            n.run(e).await.map_err(HookError::from)
        },
    ));
    let seen = Arc::new(Mutex::new(None));
    let s = seen.clone();
    engine.seat(plugin(
        "watcher",
        Tier::Append,
        "tool.check",
        move |_cx: Cx, e: Event, n: Next| {
            let s = s.clone();
            async move {
                *s.lock().unwrap() = Some(e.fields["input"].clone());
                n.run(e).await.map_err(HookError::from)
            }
        },
    ));
    let a = raise(
        &engine,
        "tool.check",
        json!({"tool": "Bash", "input": {"command": "rm -rf x"}, "tool_use_id": "t"}),
    )
    .unwrap();
    assert_eq!(a["decision"], "deny");
    assert_eq!(
        seen.lock().unwrap().clone().unwrap(),
        json!({"command": "rm -rf x"})
    );
    assert!(rec.log.lock().unwrap()[0].1.contains("(pin)"));
}

#[test]
fn a_failed_hook_that_called_next_settles_on_its_last_run_without_rerunning() {
    let (engine, rec) = engine();
    engine.seat(plugin(
        "flaky",
        Tier::User,
        "prompt.section",
        |_cx: Cx, e: Event, n: Next| async move {
            n.run(e).await?;
            Err(HookFailure::new(FailureKind::Error, "boom").into())
        },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    assert_eq!(
        *rec.core_calls.lock().unwrap(),
        1,
        "the rest of the chain ran once"
    );
}

#[test]
fn panics_timeouts_and_invalid_answers_are_caught_and_dropped() {
    let (engine, rec) = engine();
    engine.seat(plugin(
        "panicky",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move {
            if true {
                panic!("kaboom");
            }
            Ok(json!({}))
        },
    ));
    engine.seat(plugin(
        "sleepy",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move {
            futures::future::pending::<()>().await;
            Ok(json!({}))
        },
    ));
    engine.seat(plugin(
        "shapeless",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move { Ok(json!("not an object")) },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    let kinds: Vec<String> = rec
        .log
        .lock()
        .unwrap()
        .iter()
        .map(|(_, l)| l.clone())
        .collect();
    assert!(kinds[0].contains("(panic): kaboom"), "{kinds:?}");
    assert!(kinds[1].contains("(timeout)"), "{kinds:?}");
    assert!(kinds[2].contains("(invalid-answer)"), "{kinds:?}");
}

#[test]
fn a_hooks_timeout_counts_only_its_own_time() {
    let (engine, _) = engine();
    // The outer hook waits inside next for longer than the timeout (200 ms) in total.
    engine.seat(plugin(
        "outer",
        Tier::User,
        "prompt.section",
        |_cx: Cx, e: Event, n: Next| async move { n.run(e).await.map_err(HookError::from) },
    ));
    engine.seat(plugin(
        "slow",
        Tier::User,
        "prompt.section",
        |_cx: Cx, e: Event, n: Next| async move {
            futures_timer_sleep(Duration::from_millis(150)).await;
            n.run(e).await.map_err(HookError::from)
        },
    ));
    engine.seat(plugin(
        "slow2",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move {
            futures_timer_sleep(Duration::from_millis(150)).await;
            Ok(json!({"text": "slow2"}))
        },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "slow2");
}

async fn futures_timer_sleep(d: Duration) {
    let (tx, rx) = futures::channel::oneshot::channel::<()>();
    std::thread::spawn(move || {
        std::thread::sleep(d);
        let _ = tx.send(());
    });
    let _ = rx.await;
}

#[test]
fn an_org_plugin_failing_at_tool_check_denies_even_after_next() {
    let (engine, _) = engine();
    engine.seat(plugin(
        "guard",
        Tier::Append,
        "tool.check",
        |_cx: Cx, e: Event, n: Next| async move {
            n.run(e).await?;
            Err(HookFailure::new(FailureKind::Error, "crash").into())
        },
    ));
    let a = raise(
        &engine,
        "tool.check",
        json!({"tool": "Read", "input": {}, "tool_use_id": "t"}),
    )
    .unwrap();
    let v = Verdict::from_value(&a).unwrap();
    assert_eq!(v.decision, Decision::Deny);
    assert_eq!(v.rule, None);
    assert_eq!(
        v.reason.as_deref(),
        Some(
            "guard, a plugin of your organization, failed while checking this call (error); denied"
        )
    );
}

#[test]
fn a_failure_handler_reads_called_and_replays_the_last_run() {
    let (engine, rec) = engine();
    let seen = Arc::new(Mutex::new(None));
    let s = seen.clone();
    engine.seat(
        Plugin::new(info("org", Tier::Prepend)).with(
            Registration::on("prompt.section", |_cx: Cx, e: Event, n: Next| async move {
                n.run(e).await?;
                Err(HookFailure::new(FailureKind::Error, "after next").into())
            })
            .catch(move |_cx: Cx, e: Event, n: Next| {
                let s = s.clone();
                async move {
                    let called = n.called();
                    let err = n.error();
                    let a = n.run(e).await?;
                    *s.lock().unwrap() = Some((called, err, n.trace().len()));
                    Ok(a)
                }
            }),
        ),
    );
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    assert_eq!(
        *rec.core_calls.lock().unwrap(),
        1,
        "the handler's next did not run the chain again"
    );
    let (called, err, trace_len) = seen.lock().unwrap().clone().unwrap();
    assert!(called);
    assert_eq!(err.unwrap().kind, FailureKind::Error);
    assert_eq!(trace_len, 1);
}

#[test]
fn returning_the_error_next_returned_is_not_a_failure_but_another_error_is() {
    struct Failing;
    impl Core for Failing {
        fn answer(&self, _cx: Cx, _e: Event) -> BoxFuture<'static, Answer> {
            Box::pin(async {
                Err(fnhooks::ChainError::new(
                    FailureKind::Error,
                    "policy unreadable",
                ))
            })
        }
        fn engine_log(&self, _c: Channel, line: String) {
            panic!("no engine line expected: {line}");
        }
    }
    let engine = Engine::new(Arc::new(Failing), Duration::from_secs(1));
    engine.seat(plugin(
        "pass",
        Tier::User,
        "settings.read",
        |_cx: Cx, e: Event, n: Next| async move { Ok(n.run(e).await?) },
    ));
    let a = raise(&engine, "settings.read", json!({"source": "policy"}));
    assert_eq!(a.unwrap_err().to_string(), "policy unreadable");
}

#[test]
fn batches_are_one_trace_entry_under_the_first_members_tier_and_never_cross_into_append() {
    let (engine, _) = engine();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    engine.seat_first(plugin(
        "sec",
        Tier::Prepend,
        "prompt.section",
        move |_cx: Cx, e: Event, n: Next| {
            let s = s.clone();
            async move {
                let a = n.run(e).await?;
                *s.lock().unwrap() = n.trace();
                Ok(a)
            }
        },
    ));
    let pass = |_cx: Cx, e: Event, n: Next| async move { n.run(e).await.map_err(HookError::from) };
    for (id, tier) in [
        ("p2", Tier::Prepend),
        ("u1", Tier::User),
        ("a1", Tier::Append),
    ] {
        let mut i = info(id, tier);
        i.worker = Some("w".into());
        engine.seat(Plugin::new(i).with(Registration::on("prompt.section", pass)));
    }
    raise(&engine, "prompt.section", json!({})).unwrap();
    let trace = seen.lock().unwrap().clone();
    assert_eq!(trace.len(), 3, "{trace:#?}");
    assert_eq!(trace[0].tier, Tier::Prepend);
    assert_eq!(trace[0].plugins, vec!["p2".to_owned(), "u1".to_owned()]);
    assert_eq!(trace[1].plugins, vec!["a1".to_owned()]);
    assert_eq!(trace[2].tier, Tier::Core);
}

#[test]
fn filters_narrow_by_event_fields_and_prefix_patterns_match() {
    let (engine, _) = engine();
    let mut filter = serde_json::Map::new();
    filter.insert("door".into(), json!("attachment"));
    engine.seat(
        Plugin::new(info("f", Tier::User)).with(
            Registration::on(
                "session.append",
                |_cx: Cx, _e: Event, _n: Next| async move { Ok(json!({"text": "f"})) },
            )
            .filter(filter),
        ),
    );
    engine.seat(plugin(
        "c",
        Tier::User,
        "classic.*",
        |_cx: Cx, _e: Event, _n: Next| async move { Ok(json!({"decision": "block"})) },
    ));
    assert_eq!(
        raise(&engine, "session.append", json!({"door": "attachment"})).unwrap()["text"],
        "f"
    );
    assert_eq!(
        raise(&engine, "session.append", json!({"door": "prompt"})).unwrap()["text"],
        "core"
    );
    assert_eq!(
        raise(&engine, "classic.PreToolUse", json!({})).unwrap()["decision"],
        "block"
    );
}

#[test]
fn next_origin_is_the_raiser() {
    let (engine, _) = engine();
    let seen = Arc::new(Mutex::new(None));
    let s = seen.clone();
    engine.seat(plugin(
        "org",
        Tier::Prepend,
        "env.set",
        move |_cx: Cx, e: Event, n: Next| {
            let s = s.clone();
            async move {
                *s.lock().unwrap() = Some(n.origin().clone());
                n.run(e).await.map_err(HookError::from)
            }
        },
    ));
    let origin = Origin {
        tier: Tier::User,
        plugin: "envy".into(),
        id: "envy@community".into(),
    };
    engine
        .raise_blocking(
            Event::from_value("env.set", json!({"name": "X"})),
            origin.clone(),
        )
        .unwrap();
    assert_eq!(seen.lock().unwrap().clone().unwrap(), origin);
}

#[test]
fn time_spent_in_events_a_hook_raises_is_not_its_own() {
    let (engine, rec) = engine();
    // Two slow links at settings.read, each within its own 200 ms timeout...
    for id in ["slow1", "slow2"] {
        engine.seat(plugin(
            id,
            Tier::Append,
            "settings.read",
            |_cx: Cx, e: Event, n: Next| async move {
                futures_timer_sleep(Duration::from_millis(120)).await;
                n.run(e).await.map_err(HookError::from)
            },
        ));
    }
    // ...and a hook that reads settings through them: 240 ms in all, none of it its own.
    engine.seat(plugin(
        "reader",
        Tier::Prepend,
        "prompt.section",
        |cx: Cx, e: Event, n: Next| async move {
            cx.settings_read("policy").await?;
            let mut a = n.run(e).await?;
            a["text"] = json!("read");
            Ok(a)
        },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "read", "{:?}", rec.log.lock().unwrap());
}
