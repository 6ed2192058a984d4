//! The chain's contract (SPEC §1.1, §1.2, §1.8), driven by a recording core.

use fnhooks::testing::{info, passes, plugin_on, Recorder};
use fnhooks::{
    Answer, Catalogue, Channel, Core, Cx, Engine, Event, EventType, FailureKind, HookError,
    HookFailure, Next, Origin, Pins, Plugin, Raise, Registration, Tier,
};
use futures::future::BoxFuture;
use pretty_assertions::assert_eq;
use serde::{Deserialize, Serialize};
use serde_json::Map;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The test's own verdict: the engine knows none.
#[derive(Debug, Serialize, Deserialize)]
struct Verdict {
    decision: Decision,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    rule: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Decision {
    Allow,
    Ask,
    Deny,
}

impl Verdict {
    fn from_value(v: &Value) -> Option<Verdict> {
        serde_json::from_value(v.clone()).ok()
    }
}

macro_rules! event {
    ($ty:ident, $name:expr, $pins:expr, $out:ty) => {
        struct $ty;
        impl EventType for $ty {
            const NAME: &'static str = $name;
            const PINS: Pins = $pins;
            type Input = Map<String, Value>;
            type Output = $out;
        }
    };
}

/// An answer whose `text`, when present, is a string.
#[derive(Serialize, Deserialize)]
struct Text {
    #[serde(default, deserialize_with = "text")]
    text: Option<String>,
}

fn text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

event!(Check, "tool.check", Pins::All, Verdict);
event!(EnvGet, "env.get", Pins::Fields(&["name"]), Map<String, Value>);
event!(EnvSet, "env.set", Pins::Fields(&["name"]), Map<String, Value>);
event!(Section, "prompt.section", Pins::NONE, Text);

/// The events these tests raise, as an embedding program would declare them: a
/// `tool.check` that fails closed as SPEC §1.8 says.
fn catalogue() -> Catalogue {
    Catalogue::new()
        .event::<EnvGet>()
        .event::<EnvSet>()
        .event::<Section>()
        .family("classic.")
        .fail_closed::<Check>("denied", |p, f| Verdict {
            decision: Decision::Deny,
            reason: Some(format!(
                "{}, a plugin of your organization, failed while checking this call ({}); denied",
                fnhooks::escaped(&p.name),
                f.kind
            )),
            rule: None,
        })
}

/// The core: `tool.check` answers a deny by rule, every other event
/// `{text: "core", seen: <the event>}`.
fn engine() -> (Engine, Arc<Recorder>) {
    let rec = Recorder::new(|e| {
        if e.name == "tool.check" {
            json!({"decision": "deny", "rule": "Bash(rm:*)", "source": "policy"})
        } else {
            json!({"text": "core", "seen": e.to_value()})
        }
    });
    (
        Engine::new(rec.clone(), catalogue(), Duration::from_millis(200)),
        rec,
    )
}

fn raise(engine: &Engine, name: &str, fields: Value) -> Answer {
    engine.raise_blocking(Event::from_value(name, fields))
}

#[test]
fn with_no_hooks_the_core_answers_directly() {
    let (engine, rec) = engine();
    let a = raise(&engine, "prompt.section", json!({"id": "x"})).unwrap();
    assert_eq!(a["text"], "core");
    assert_eq!(rec.calls(), 1);
}

#[test]
fn chain_order_is_tier_order_then_seating_order() {
    let (engine, _) = engine();
    engine.seat(plugin_on("b", Tier::Builtin, "prompt.section", tagger("b")));
    engine.seat(plugin_on("u1", Tier::User, "prompt.section", tagger("u1")));
    engine.seat(plugin_on("a", Tier::Append, "prompt.section", tagger("a")));
    engine.seat(plugin_on("u2", Tier::User, "prompt.section", tagger("u2")));
    engine.seat(plugin_on("p", Tier::Prepend, "prompt.section", tagger("p")));
    engine.seat_first(plugin_on(
        "first",
        Tier::Prepend,
        "prompt.section",
        tagger("first"),
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "first(p(u1(u2(a(b(core))))))");
}

#[test]
fn next_to_append_skips_the_user_tier_and_trace_shows_what_ran() {
    let (engine, _) = engine();
    let seen = Arc::new(Mutex::new(Vec::new()));
    engine.seat(plugin_on(
        "org",
        Tier::Prepend,
        "prompt.section",
        past_users_recording(seen.clone()),
    ));
    engine.seat(plugin_on(
        "person",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move { Ok(json!({"text": "person"})) },
    ));
    engine.seat(plugin_on(
        "appender",
        Tier::Append,
        "prompt.section",
        passes(),
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
    engine.seat(plugin_on(
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
    let log = rec.lines();
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
    engine.seat(plugin_on(
        "swapper",
        Tier::User,
        "tool.check",
        |_cx: Cx, mut e: Event, n: Next| async move {
            e.fields_mut()
                .insert("input".into(), json!({"command": "echo hi"}));
            n.run(e).await.map_err(HookError::from)
        },
    ));
    let seen = Arc::new(Mutex::new(None));
    let s = seen.clone();
    engine.seat(plugin_on(
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
    assert!(rec.lines()[0].1.contains("(pin)"));
}

#[test]
fn a_failed_hook_that_called_next_settles_on_its_last_run_without_rerunning() {
    let (engine, rec) = engine();
    engine.seat(plugin_on(
        "flaky",
        Tier::User,
        "prompt.section",
        |_cx: Cx, e: Event, n: Next| async move {
            n.run(e).await?;
            Err::<Value, HookError>(HookFailure::new(FailureKind::Error, "boom").into())
        },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    assert_eq!(rec.calls(), 1, "the rest of the chain ran once");
}

#[test]
fn panics_timeouts_and_invalid_answers_are_caught_and_dropped() {
    let (engine, rec) = engine();
    engine.seat(plugin_on(
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
    engine.seat(plugin_on(
        "sleepy",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move {
            futures::future::pending::<()>().await;
            Ok(json!({}))
        },
    ));
    engine.seat(plugin_on(
        "shapeless",
        Tier::User,
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move { Ok(json!("not an object")) },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "core");
    let kinds = rec.line_texts();
    assert!(kinds[0].contains("(panic): kaboom"), "{kinds:?}");
    assert!(kinds[1].contains("(timeout)"), "{kinds:?}");
    assert!(kinds[2].contains("(invalid-answer)"), "{kinds:?}");
}

#[test]
fn a_hooks_timeout_counts_only_its_own_time() {
    let (engine, _) = engine();
    // The outer hook waits inside next for longer than the timeout (200 ms) in total.
    engine.seat(plugin_on("outer", Tier::User, "prompt.section", passes()));
    engine.seat(plugin_on(
        "slow",
        Tier::User,
        "prompt.section",
        |_cx: Cx, e: Event, n: Next| async move {
            futures_timer_sleep(Duration::from_millis(150)).await;
            n.run(e).await.map_err(HookError::from)
        },
    ));
    engine.seat(plugin_on(
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
    engine.seat(plugin_on(
        "guard",
        Tier::Append,
        "tool.check",
        |_cx: Cx, e: Event, n: Next| async move {
            n.run(e).await?;
            Err::<Value, HookError>(HookFailure::new(FailureKind::Error, "crash").into())
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
                Err::<Value, HookError>(HookFailure::new(FailureKind::Error, "after next").into())
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
        rec.calls(),
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
    let engine = Engine::new(Arc::new(Failing), catalogue(), Duration::from_secs(1));
    engine.seat(plugin_on("pass", Tier::User, "settings.read", passes()));
    let a = raise(&engine, "settings.read", json!({"source": "policy"}));
    assert_eq!(a.unwrap_err().to_string(), "policy unreadable");
}

#[test]
fn batches_are_one_trace_entry_under_the_first_members_tier_and_never_cross_into_append() {
    let (engine, _) = engine();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = seen.clone();
    engine.seat_first(plugin_on(
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
    engine.seat(plugin_on(
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
    engine.seat(plugin_on(
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
            Raise::new(Event::from_value("env.set", json!({"name": "X"}))).origin(origin.clone()),
        )
        .unwrap();
    assert_eq!(seen.lock().unwrap().clone().unwrap(), origin);
}

#[test]
fn time_spent_in_events_a_hook_raises_is_not_its_own() {
    let (engine, rec) = engine();
    // Two slow links at settings.read, each within its own 200 ms timeout...
    for id in ["slow1", "slow2"] {
        engine.seat(plugin_on(
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
    engine.seat(plugin_on(
        "reader",
        Tier::Prepend,
        "prompt.section",
        |cx: Cx, e: Event, n: Next| async move {
            cx.raise(Event::from_value(
                "settings.read",
                json!({"source": "policy"}),
            ))
            .await?;
            let mut a = n.run(e).await?;
            a["text"] = json!("read");
            Ok(a)
        },
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(a["text"], "read", "{:?}", rec.lines());
}

/// A managed hook that continues past the user tier and records `next.trace`.
#[allow(clippy::unwrap_used)]
fn past_users_recording(trace: Arc<Mutex<Vec<fnhooks::TraceEntry>>>) -> impl fnhooks::Hook {
    move |_cx: Cx, e: Event, next: Next| {
        let trace = trace.clone();
        async move {
            let a = next.to(e, Tier::Append).await?;
            *trace.lock().unwrap() = next.trace();
            Ok(a)
        }
    }
}

/// A hook that tags the `text` of what comes back with its name, after `next`.
#[allow(clippy::indexing_slicing)]
fn tagger(name: &'static str) -> impl fnhooks::Hook {
    move |_cx: Cx, e: Event, next: Next| async move {
        let mut a = next.run(e).await?;
        let t = a["text"].as_str().unwrap_or_default().to_owned();
        a["text"] = json!(format!("{name}({t})"));
        Ok(a)
    }
}

#[test]
fn next_to_skips_only_the_tiers_between_the_callers_and_the_target() {
    // SPEC §1.1 [decision, revised]: the remaining links of the caller's own tier still
    // run, in order, and the skip holds for the rest of that run.
    let (engine, _) = engine();
    let trace = Arc::new(Mutex::new(Vec::new()));
    engine.seat(plugin_on(
        "guard",
        Tier::Prepend,
        "prompt.section",
        past_users_recording(trace.clone()),
    ));
    engine.seat(plugin_on(
        "org-a",
        Tier::Prepend,
        "prompt.section",
        tagger("org-a"),
    ));
    engine.seat(plugin_on(
        "org-b",
        Tier::Prepend,
        "prompt.section",
        tagger("org-b"),
    ));
    engine.seat(plugin_on(
        "person",
        Tier::User,
        "prompt.section",
        tagger("person"),
    ));
    engine.seat(plugin_on(
        "app",
        Tier::Append,
        "prompt.section",
        tagger("app"),
    ));
    engine.seat(plugin_on(
        "bi",
        Tier::Builtin,
        "prompt.section",
        tagger("bi"),
    ));
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(
        a["text"], "org-a(org-b(app(bi(core))))",
        "the other prepend links run; a prepend link's own `next` does not bring the user tier back"
    );
    let names: Vec<Vec<String>> = trace
        .lock()
        .unwrap()
        .iter()
        .map(|e| e.plugins.clone())
        .collect();
    assert_eq!(
        names,
        vec![
            vec!["org-a".to_owned()],
            vec!["org-b".to_owned()],
            vec!["app".to_owned()],
            vec!["bi".to_owned()],
            vec![],
        ],
        "skipped links are not listed; the core's link ends the trace"
    );
}

#[test]
fn next_to_builtin_from_append_skips_the_rest_of_append_only_if_between() {
    // From `append`, `to(builtin)` skips nothing strictly between: the other append
    // links still run. From `prepend`, `to(core)` skips user, append and builtin.
    let (engine, _) = engine();
    engine.seat(plugin_on(
        "a1",
        Tier::Append,
        "prompt.section",
        |_cx: Cx, e: Event, next: Next| async move { Ok(next.to(e, Tier::Builtin).await?) },
    ));
    engine.seat(plugin_on(
        "a2",
        Tier::Append,
        "prompt.section",
        tagger("a2"),
    ));
    engine.seat(plugin_on(
        "bi",
        Tier::Builtin,
        "prompt.section",
        tagger("bi"),
    ));
    assert_eq!(
        raise(&engine, "prompt.section", json!({})).unwrap()["text"],
        "a2(bi(core))"
    );
    engine.seat_first(plugin_on(
        "p",
        Tier::Prepend,
        "prompt.section",
        |_cx: Cx, e: Event, next: Next| async move { Ok(next.to(e, Tier::Core).await?) },
    ));
    assert_eq!(
        raise(&engine, "prompt.section", json!({})).unwrap()["text"],
        "core"
    );
}

#[test]
fn a_batch_beneath_runs_only_its_members_whose_tier_is_not_skipped() {
    let (engine, _) = engine();
    engine.seat(plugin_on(
        "guard",
        Tier::Prepend,
        "prompt.section",
        |_cx: Cx, e: Event, next: Next| async move { Ok(next.to(e, Tier::Append).await?) },
    ));
    let mut org = info("org", Tier::Prepend);
    org.worker = Some("w".into());
    let mut person = info("person", Tier::User);
    person.worker = Some("w".into());
    engine.seat(Plugin::new(org).with(Registration::on("prompt.section", tagger("org"))));
    engine.seat(Plugin::new(person).with(Registration::on("prompt.section", tagger("person"))));
    assert_eq!(
        raise(&engine, "prompt.section", json!({})).unwrap()["text"],
        "org(core)"
    );
}

#[test]
fn raise_skipping_passes_over_a_tier_for_the_whole_run() {
    // SPEC §3.9 [decision]: plugin.register for an org module, with the user tier skipped.
    let (engine, _) = engine();
    engine.seat(plugin_on(
        "org",
        Tier::Prepend,
        "prompt.section",
        tagger("org"),
    ));
    engine.seat(plugin_on(
        "person",
        Tier::User,
        "prompt.section",
        tagger("person"),
    ));
    engine.seat(plugin_on(
        "app",
        Tier::Append,
        "prompt.section",
        tagger("app"),
    ));
    let e = Event::from_value("prompt.section", json!({}));
    let a = engine
        .raise_blocking(Raise::new(e).skipping(&[Tier::User]))
        .unwrap();
    assert_eq!(a["text"], "org(app(core))");
    // every hooked link skipped: the core answers directly
    let (engine, rec) = self::engine();
    engine.seat(plugin_on(
        "person",
        Tier::User,
        "prompt.section",
        tagger("person"),
    ));
    let e = Event::from_value("prompt.section", json!({}));
    let a = engine
        .raise_blocking(Raise::new(e).skipping(&[Tier::User]))
        .unwrap();
    assert_eq!(a["text"], "core");
    assert_eq!(rec.calls(), 1);
}

#[test]
fn the_core_answers_one_question_once_per_raise() {
    // SPEC §3.6 step 5 [decision]: the re-run past the user tier reuses the core's
    // verdict, so a classic hook inside the core runs once per tool call.
    let (engine, rec) = engine();
    engine.seat(plugin_on(
        "guard",
        Tier::Prepend,
        "tool.check",
        |_cx: Cx, e: Event, next: Next| async move {
            let _first = next.run(e.clone()).await;
            Ok(next.to(e, Tier::Append).await?)
        },
    ));
    engine.seat(plugin_on(
        "yes",
        Tier::User,
        "tool.check",
        |_cx: Cx, e: Event, next: Next| async move {
            next.run(e).await?;
            Ok(json!({"decision": "allow"}))
        },
    ));
    let a = raise(
        &engine,
        "tool.check",
        json!({"tool": "Bash", "input": {}, "tool_use_id": "t"}),
    )
    .unwrap();
    assert_eq!(a["decision"], "deny");
    assert_eq!(rec.calls(), 1, "the core ran once in this raise");
    // a second raise is a new question
    raise(
        &engine,
        "tool.check",
        json!({"tool": "Bash", "input": {}, "tool_use_id": "t"}),
    )
    .unwrap();
    assert_eq!(rec.calls(), 2);
}

#[test]
fn a_pinned_field_left_out_is_put_back() {
    // SPEC §1.2 [decision]: leaving a pinned field out is no pin break; the engine puts
    // it back, so the rest of the chain sees the pinned value.
    let (engine, rec) = engine();
    engine.seat(plugin_on(
        "dropper",
        Tier::User,
        "env.get",
        |_cx: Cx, mut e: Event, next: Next| async move {
            e.fields_mut().remove("name");
            Ok(next.run(e).await?)
        },
    ));
    let a = raise(&engine, "env.get", json!({"name": "LD_PRELOAD"})).unwrap();
    assert_eq!(a["seen"]["name"], "LD_PRELOAD");
    assert!(rec.lines().is_empty(), "no failure was logged");
    // tool.check pins every field: one left out is put back as well
    let (engine, _) = self::engine();
    let seen = Arc::new(Mutex::new(None));
    let s = seen.clone();
    engine.seat(plugin_on(
        "dropper",
        Tier::User,
        "tool.check",
        |_cx: Cx, mut e: Event, next: Next| async move {
            e.fields_mut().remove("input");
            Ok(next.run(e).await?)
        },
    ));
    engine.seat(plugin_on(
        "watcher",
        Tier::Append,
        "tool.check",
        move |_cx: Cx, e: Event, next: Next| {
            let s = s.clone();
            async move {
                *s.lock().unwrap() = e.fields.get("input").cloned();
                Ok(next.run(e).await?)
            }
        },
    ));
    raise(
        &engine,
        "tool.check",
        json!({"tool": "Bash", "input": {"command": "ls"}, "tool_use_id": "t"}),
    )
    .unwrap();
    assert_eq!(*seen.lock().unwrap(), Some(json!({"command": "ls"})));
}

#[test]
fn an_event_a_hook_raises_runs_without_that_hook() {
    // SPEC §1.1 [decision]: no re-entry. The hook that raises is not in the raised
    // event's chain (nor in events raised beneath it); the plugin's other hooks are.
    let (engine, _) = engine();
    let calls = Arc::new(Mutex::new(0u32));
    let c = calls.clone();
    let reentrant = move |cx: Cx, e: Event, next: Next| {
        let c = c.clone();
        async move {
            *c.lock().unwrap() += 1;
            if *c.lock().unwrap() > 5 {
                return Ok(json!({"text": "re-entered"}).into());
            }
            let raised = cx
                .raise(Event::from_value("prompt.section", json!({"nested": true})))
                .await?;
            let mut a = next.run(e).await?;
            a["nested"] = raised["text"].clone();
            Ok(a)
        }
    };
    let other = |_cx: Cx, e: Event, next: Next| async move {
        let mut a = next.run(e).await?;
        a["text"] = json!(format!("other({})", a["text"].as_str().unwrap_or_default()));
        Ok(a)
    };
    engine.seat(
        Plugin::new(info("p", Tier::User))
            .with(Registration::on("prompt.section", reentrant))
            .with(Registration::on("prompt.section", other)),
    );
    let a = raise(&engine, "prompt.section", json!({})).unwrap();
    assert_eq!(*calls.lock().unwrap(), 1, "the raising hook ran once");
    assert_eq!(
        a["nested"], "other(core)",
        "the plugin's other hook ran in the raised event"
    );
}

#[test]
fn engine_lines_write_supplied_strings_escaped() {
    // SPEC §3.6.1 [decision]: a plugin named with a line break cannot forge lines.
    let (engine, rec) = engine();
    let mut i = info("evil", Tier::User);
    i.name = "evil\nhook of corp failed".into();
    engine.seat(Plugin::new(i).with(Registration::on(
        "prompt.section",
        |_cx: Cx, _e: Event, _n: Next| async move {
            Err::<Value, HookError>(HookFailure::new(FailureKind::Error, "x\u{202e}y").into())
        },
    )));
    raise(&engine, "prompt.section", json!({})).unwrap();
    let log = rec.lines();
    assert_eq!(log.len(), 1);
    assert_eq!(
        log[0].1,
        "hook of evil\\nhook of corp failed failed at prompt.section (error): x\\u{202e}y; the chain went on without it"
    );
}
