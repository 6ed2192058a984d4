#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use super::*;
use crate::refusals::Attempt;
use fnhooks::testing::{self, answers, passes, rewrites, Recorder};
use fnhooks::{
    Answer, Cx, Engine, Event, FailureKind, HookError, HookFailure, Next, Plugin, Tier, TraceEntry,
};
use permissions::{Decision, Verdict};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use std::time::Duration;

/// Plugin `name` of `tier` (recorded as `<name>@m`), in `worker` if given, with `hook`
/// on `tool.check`.
fn plugin(name: &str, tier: Tier, worker: Option<&str>, hook: impl fnhooks::Hook) -> Plugin {
    let mut p = testing::plugin_on(&format!("{name}@m"), tier, "tool.check", hook);
    p.info.worker = worker.map(str::to_owned);
    p
}

/// The trace of one `tool.check` the core answers `core`, `plugins` seated in order.
fn trace_of(core: Value, plugins: Vec<Plugin>) -> Vec<TraceEntry> {
    let engine = Engine::new(
        Recorder::answering(core),
        events::catalogue(),
        Duration::from_secs(1),
    );
    for p in plugins {
        engine.seat(p);
    }
    let e = Event::from_value("tool.check", json!({"tool": "Bash", "input": {}}));
    testing::traced(&engine, e).1
}

fn deny_rule() -> Value {
    json!({"decision": "deny", "rule": "Bash(rm:*)", "source": "policy", "reason": "denied"})
}

#[test]
fn a_link_that_never_called_next_is_measured_against_a_bare_deny() {
    let t = trace_of(
        deny_rule(),
        vec![plugin(
            "yes",
            Tier::User,
            None,
            answers(json!({"decision": "allow"})),
        )],
    );
    assert_eq!(rewritten_by_users(&t), vec!["yes"]);
    let t = trace_of(
        deny_rule(),
        vec![plugin(
            "no",
            Tier::User,
            None,
            answers(json!({"decision": "deny"})),
        )],
    );
    assert!(
        rewritten_by_users(&t).is_empty(),
        "a bare deny is no rewrite"
    );
    let t = trace_of(
        deny_rule(),
        vec![plugin(
            "words",
            Tier::User,
            None,
            answers(json!({"decision": "deny", "reason": "mine"})),
        )],
    );
    assert_eq!(rewritten_by_users(&t), vec!["words"]);
}

#[test]
fn passing_and_tightening_are_no_rewrite_but_looser_or_reworded_is() {
    let ask = json!({"decision": "ask", "rule": "Bash", "source": "policy"});
    let t = trace_of(ask.clone(), vec![plugin("p", Tier::User, None, passes())]);
    assert!(rewritten_by_users(&t).is_empty());
    let t = trace_of(
        ask.clone(),
        vec![plugin(
            "strict",
            Tier::User,
            None,
            rewrites(json!({"decision": "deny"})),
        )],
    );
    assert!(rewritten_by_users(&t).is_empty(), "stricter is not counted");
    let t = trace_of(
        ask.clone(),
        vec![plugin(
            "loose",
            Tier::User,
            None,
            rewrites(json!({"decision": "allow"})),
        )],
    );
    assert_eq!(rewritten_by_users(&t), vec!["loose"]);
    let t = trace_of(
        ask.clone(),
        vec![plugin(
            "rename",
            Tier::User,
            None,
            rewrites(json!({"decision": "ask", "rule": "Other", "source": "policy"})),
        )],
    );
    assert_eq!(rewritten_by_users(&t), vec!["rename"]);
    let t = trace_of(
        ask,
        vec![plugin(
            "erase",
            Tier::User,
            None,
            rewrites(json!({"decision": "ask"})),
        )],
    );
    assert_eq!(
        rewritten_by_users(&t),
        vec!["erase"],
        "erasing what it names counts"
    );
}

#[test]
fn the_organizations_own_links_never_count() {
    let t = trace_of(
        deny_rule(),
        vec![
            plugin(
                "org-pre",
                Tier::Prepend,
                None,
                rewrites(json!({"decision": "allow"})),
            ),
            plugin(
                "org-app",
                Tier::Append,
                None,
                rewrites(json!({"decision": "ask"})),
            ),
        ],
    );
    assert_eq!(
        rewritten_by_users(&t),
        Vec::<String>::new(),
        "SPEC §3.6 step 2 [decision, revised]: an entry of the organization's plugins alone never counts"
    );
    // a person's plugin beneath them still does
    let t = trace_of(
        deny_rule(),
        vec![
            plugin("org-pre", Tier::Prepend, None, passes()),
            plugin(
                "yes-man",
                Tier::User,
                None,
                rewrites(json!({"decision": "allow"})),
            ),
            plugin("org-app", Tier::Append, None, passes()),
        ],
    );
    assert_eq!(rewritten_by_users(&t), vec!["yes-man"]);
}

#[test]
fn a_batch_is_named_together() {
    let t = trace_of(
        deny_rule(),
        vec![
            plugin("p2", Tier::Prepend, Some("w"), passes()),
            plugin("u1", Tier::User, Some("w"), passes()),
            plugin(
                "u2",
                Tier::User,
                Some("w"),
                rewrites(json!({"decision": "allow"})),
            ),
        ],
    );
    assert_eq!(t[0].plugins.len(), 3, "{t:#?}");
    assert_eq!(
        rewritten_by_users(&t),
        vec!["u1 and u2"],
        "a batch contributes its user members, never the organization's"
    );
}

#[test]
fn a_batch_of_the_organizations_plugins_alone_never_counts() {
    let t = trace_of(
        deny_rule(),
        vec![
            plugin("p1", Tier::Prepend, Some("w"), passes()),
            plugin(
                "p2",
                Tier::Prepend,
                Some("w"),
                rewrites(json!({"decision": "allow"})),
            ),
        ],
    );
    assert_eq!(t[0].plugins.len(), 2, "{t:#?}");
    assert_eq!(rewritten_by_users(&t), Vec::<String>::new());
}

#[test]
fn dropped_links_are_ignored() {
    let failing = |_cx: Cx, e: Event, n: Next| async move {
        n.run(e).await?;
        Err::<Value, HookError>(HookFailure::new(FailureKind::Error, "after next").into())
    };
    let t = trace_of(
        json!({"decision": "allow"}),
        vec![plugin("broken", Tier::User, None, failing)],
    );
    assert!(t[0].failure.is_some());
    assert!(rewritten_by_users(&t).is_empty());
    // a user link that fails before next is dropped: the chain goes on without it
    let before = |_cx: Cx, _e: Event, _n: Next| async move {
        Err::<Value, HookError>(HookFailure::new(FailureKind::Error, "before next").into())
    };
    let t = trace_of(deny_rule(), vec![plugin("early", Tier::User, None, before)]);
    assert!(rewritten_by_users(&t).is_empty());
}

fn v(value: Value) -> Verdict {
    Verdict::from_value(&value).unwrap()
}

#[test]
fn holds_over_deny_and_named_asks_unless_the_answer_is_stricter() {
    let allow: Answer = Ok(json!({"decision": "allow"}).into());
    assert!(holds_over(&v(json!({"decision": "deny"})), &allow));
    assert!(holds_over(
        &v(deny_rule()),
        &Ok(json!({"decision": "deny", "reason": "x"}).into())
    ));
    for key in ["rule", "hook", "setting", "ceiling", "decider"] {
        let mut ask = json!({"decision": "ask"});
        ask[key] = json!("x");
        assert!(holds_over(&v(ask.clone()), &allow), "{key}");
        assert!(
            !holds_over(&v(ask), &Ok(json!({"decision": "deny"}).into())),
            "a person's deny over an ask stands"
        );
    }
    assert!(
        !holds_over(&v(json!({"decision": "ask"})), &allow),
        "a plain ask does not hold"
    );
    assert!(!holds_over(
        &v(json!({"decision": "ask", "source": "policy"})),
        &allow
    ));
    assert!(!holds_over(
        &v(json!({"decision": "allow", "rule": "Read"})),
        &allow
    ));
    let err: Answer = Err(fnhooks::ChainError::new(FailureKind::Error, "x"));
    assert!(holds_over(&v(json!({"decision": "deny"})), &err));
}

#[test]
fn held_kinds() {
    assert_eq!(held_kind(&v(deny_rule())), "deny rule");
    assert_eq!(held_kind(&v(json!({"decision": "deny"}))), "refusal");
    assert_eq!(
        held_kind(&v(json!({"decision": "ask", "rule": "Bash"}))),
        "ask rule"
    );
    assert_eq!(
        held_kind(&v(
            json!({"decision": "ask", "hook": "PreToolUse", "decider": "host"})
        )),
        "PreToolUse hook's ask"
    );
    assert_eq!(
        held_kind(&v(
            json!({"decision": "ask", "setting": "permissions.blockReadsOutsideWorkingDirectories"})
        )),
        "permissions.blockReadsOutsideWorkingDirectories setting's ask"
    );
    assert_eq!(
        held_kind(&v(json!({"decision": "ask", "decider": "host"}))),
        "host's ask"
    );
    assert_eq!(
        held_kind(&v(json!({"decision": "ask", "ceiling": "Bash"}))),
        "ask cap"
    );
}

#[test]
fn held_notices_with_their_articles() {
    assert_eq!(
        held_notice("yes-man", "Bash", &v(deny_rule()), Attempt::Lift),
        "yes-man tried to lift a deny rule in your settings from a Bash call (Bash(rm:*)); the deny rule holds over the plugins you install (allowModsToOverrideDenyRules)"
    );
    assert_eq!(
        held_notice("a and b", "Bash", &v(json!({"decision": "ask", "rule": "Bash"})), Attempt::Reword),
        "a and b tried to reword an ask rule in your settings from a Bash call (Bash); the decision was kept, with its own words and rule"
    );
    assert_eq!(
        held_notice("p", "Read", &v(json!({"decision": "ask", "decider": "host"})), Attempt::Lift),
        "p tried to lift a host's ask from a Read call; the host's ask holds over the plugins you install (allowModsToOverrideDenyRules)"
    );
    assert_eq!(
        held_notice(
            "p",
            "Edit",
            &v(json!({"decision": "ask", "ceiling": "Edit"})),
            Attempt::Reword
        ),
        "p tried to reword an ask cap from a Edit call; the decision was kept, with its own words"
    );
    assert_eq!(
        held_notice(
            "p",
            "Bash",
            &v(json!({"decision": "deny"})),
            Attempt::Reword
        ),
        "p tried to reword a refusal from a Bash call; the decision was kept, with its own words"
    );
}

#[test]
fn lift_or_reword() {
    let held = v(deny_rule());
    assert!(is_looser(&Ok(json!({"decision": "ask"}).into()), &held));
    assert!(!is_looser(
        &Ok(json!({"decision": "deny", "reason": "x"}).into()),
        &held
    ));
}

#[test]
fn caught_answers() {
    let t = trace_of(deny_rule(), vec![plugin("p", Tier::User, None, passes())]);
    assert_eq!(
        caught_answer(Some(&deny_rule()), &t, FailureKind::Panic),
        deny_rule()
    );
    let unchecked = caught_answer(None, &t, FailureKind::Timeout);
    assert_eq!(
        Verdict::from_value(&unchecked).unwrap().decision,
        Decision::Deny
    );
    assert_eq!(
        unchecked["reason"],
        "the permission check could not be completed (timeout); denied by your organization's policy"
    );
    assert!(unchecked.get("rule").is_none());
    let t = trace_of(
        deny_rule(),
        vec![plugin(
            "yes",
            Tier::User,
            None,
            answers(json!({"decision": "allow"})),
        )],
    );
    assert_eq!(
        caught_answer(Some(&json!({"decision": "allow"})), &t, FailureKind::Panic),
        unchecked_deny(FailureKind::Panic)
    );
}
