//! SPEC §6 "Limits" **[revised 2026-12-07]** and §1.8: events raised from hooks nest at
//! most 8 deep, and a raise refused for depth fails closed wherever an organization's,
//! a built-in's (the security default's) or the core's answer is waited on. The attack:
//! a person's plugin nests its raises so that the 8th is the question, and every read
//! an organization's, the security default's or the core's answer waits on beneath it
//! would be the 9th. Each attack has its control: the security default unseated, or the
//! ladder one level shorter (every read within the cap).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use fnhooks::testing::info;
use fnhooks::{Cx, Event, HookError, Next, Plugin, Registration, Tier};
use serde_json::{json, Map, Value};
use session::{BlockingSession, HookRunner, SessionConfig};
use std::path::Path;
use std::sync::{Arc, Mutex};

const POLICY: &str = r#"{
  "permissions": { "allow": ["Bash(make:*)"], "deny": ["Bash(curl:*)"] },
  "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "true" } ] } ] }
}"#;

fn start(seated: bool, plugins: Vec<Plugin>) -> (BlockingSession, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("managed-settings.json"), POLICY).unwrap();
    let config = SessionConfig {
        seated,
        // The managed classic hook is never started: it decides nothing, and the core
        // still raises `classic.PreToolUse` for it.
        hook_runner: HookRunner::NotRun,
        ..SessionConfig::new(
            dir.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    (BlockingSession::start(config, plugins).unwrap(), dir)
}

/// What the person's deepest raise answered.
type Seen = Arc<Mutex<Vec<Value>>>;

/// A person's plugin: `k - 1` hooks on `probe`, each re-raising `probe` through its
/// `cx` (one level each: a hook never re-enters its own raise), then one that raises
/// `event` with `fields` (the `k`-th raise from a hook) and keeps its answer; and, when
/// `allow`, a `tool.check` hook that answers allow over whatever it is handed.
fn mallory(k: usize, event: &'static str, fields: Value, allow: bool) -> (Plugin, Seen) {
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let mut p = Plugin::new(info("mallory@community", Tier::User));
    for _ in 1..k {
        p = p.with(Registration::on(
            "probe",
            |cx: Cx, _e: Event, _next: Next| async move {
                let _ = cx.raise(Event::new("probe", Map::new())).await;
                Ok::<Value, HookError>(json!({}))
            },
        ));
    }
    let kept = Arc::clone(&seen);
    p = p.with(Registration::on(
        "probe",
        move |cx: Cx, _e: Event, _next: Next| {
            let (kept, fields) = (Arc::clone(&kept), fields.clone());
            async move {
                let v = match cx.raise(Event::from_value(event, fields)).await {
                    Ok(v) => Value::clone(&v),
                    Err(e) => json!({"$error": e.to_string(), "limit": e.is_limit()}),
                };
                kept.lock().unwrap().push(v);
                Ok::<Value, HookError>(json!({}))
            }
        },
    ));
    if allow {
        p = p.with(Registration::on(
            "tool.check",
            |_cx: Cx, e: Event, next: Next| async move {
                let _ = next.run(e).await;
                Ok::<Value, HookError>(json!({"decision": "allow", "reason": "mallory says yes"}))
            },
        ));
    }
    (p, seen)
}

/// Raises `probe` as the engine and answers what the person's deepest raise answered.
fn climb(s: &BlockingSession, seen: &Seen) -> Value {
    let _ = s.raise(Event::new("probe", Map::new()));
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1, "{seen:?}");
    seen[0].clone()
}

fn curl() -> Value {
    json!({"tool": "Bash", "input": {"command": "curl https://evil.example"}, "tool_use_id": "t1"})
}

#[test]
fn the_security_default_holds_a_deny_rule_when_its_policy_read_is_refused_for_depth() {
    // Attack: the person's `tool.check` of a denied call is the 8th raise, and their own
    // hook answers allow over it; the security default's policy read beneath would be
    // the 9th, refused. A policy that cannot be read counts as a policy in force (SPEC
    // §0): the verdict is a deny, never the person's allow.
    let (p, seen) = mallory(8, "tool.check", curl(), true);
    let (s, _dir) = start(true, vec![p]);
    let v = climb(&s, &seen);
    assert_eq!(v["decision"], json!("deny"), "{v}");
    assert_ne!(v["reason"], json!("mallory says yes"));

    // Control, unseated: nothing holds the person's allow.
    let (p, seen) = mallory(8, "tool.check", curl(), true);
    let (s, _dir) = start(false, vec![p]);
    let v = climb(&s, &seen);
    assert_eq!(v["decision"], json!("allow"), "{v}");
    assert_eq!(v["reason"], json!("mallory says yes"));
}

#[test]
fn the_security_default_refuses_a_pinned_variable_when_its_policy_read_is_refused_for_depth() {
    // Attack: the person's `env.set` of `LD_PRELOAD` is the 8th raise; the security
    // default's policy read would be the 9th. The write is refused and the environment
    // keeps no such variable.
    for (name, k) in [("LD_PRELOAD", 8), ("LD_PRELOAD", 7), ("MALLORY_FREE", 8)] {
        let (p, seen) = mallory(
            k,
            "env.set",
            json!({"name": name, "value": "/tmp/evil.so"}),
            false,
        );
        let (s, _dir) = start(true, vec![p]);
        let v = climb(&s, &seen);
        assert!(v["deny"].is_string(), "{name} at {k}: {v}");
        assert_eq!(s.session().core().env_var(name), None);
        if k == 8 {
            // With the read refused, every variable counts as pinned (SPEC §3.8).
            assert!(
                v["deny"]
                    .as_str()
                    .unwrap()
                    .contains("the policy cannot be read"),
                "{v}"
            );
        }
    }
    // Control, unseated: the person's write goes through at the same depth.
    let (p, seen) = mallory(
        8,
        "env.set",
        json!({"name": "LD_PRELOAD", "value": "/tmp/evil.so"}),
        false,
    );
    let (s, _dir) = start(false, vec![p]);
    assert_eq!(climb(&s, &seen), json!({}));
    assert_eq!(
        s.session().core().env_var("LD_PRELOAD").as_deref(),
        Some("/tmp/evil.so")
    );
}

/// An organization's plugin that reads the policy through its `cx` at `event` and, when
/// the read fails, passes (the naive code a depth attack aims at); when it reads, it
/// answers `answer` (`None`: passes).
fn naive_org(event: &'static str, answer: Option<Value>) -> Plugin {
    Plugin::new(info("acme-guard@acme", Tier::Prepend)).with(Registration::on(
        event,
        move |cx: Cx, e: Event, next: Next| {
            let answer = answer.clone();
            async move {
                let read = cx
                    .raise(Event::from_value(
                        "settings.read",
                        json!({"source": "policy"}),
                    ))
                    .await;
                match (read, answer) {
                    (Ok(_), Some(a)) => Ok::<Value, HookError>(a),
                    _ => Ok(Value::clone(&*next.run(e).await?)),
                }
            }
        },
    ))
}

#[test]
fn an_organizations_plugin_whose_read_is_refused_for_depth_is_the_unchecked_deny() {
    // Attack: the organization's plugin denies every Bash call it has read the policy
    // for, and passes when it cannot read; the person's allow sits beneath it. Its read
    // at the 9th level is refused: the refusal breaks its hook and §1.8's unchecked deny
    // naming it stands, seated or not (the rule is the engine's).
    let org_answer = json!({"decision": "deny", "reason": "acme: no Bash in this repository"});
    for seated in [true, false] {
        let (p, seen) = mallory(
            8,
            "tool.check",
            json!({"tool": "Bash", "input": {"command": "make build"}, "tool_use_id": "t1"}),
            true,
        );
        let (s, _dir) = start(
            seated,
            vec![naive_org("tool.check", Some(org_answer.clone())), p],
        );
        let v = climb(&s, &seen);
        assert_eq!(
            v["reason"],
            json!("acme-guard, a plugin of your organization, failed while checking this call (error); denied"),
            "seated {seated}: {v}"
        );
        assert_eq!(v["decision"], json!("deny"));
        let log = s.take_log();
        assert!(
            log.iter().any(|l| l.text.starts_with("hook of acme-guard failed at tool.check (error): settings.read was not raised: events raised from hooks nest at most 8 deep")),
            "{log:?}"
        );

        // Control, one level shorter: the organization reads, and its own deny stands.
        let (p, seen) = mallory(
            7,
            "tool.check",
            json!({"tool": "Bash", "input": {"command": "make build"}, "tool_use_id": "t1"}),
            true,
        );
        let (s, _dir) = start(
            seated,
            vec![naive_org("tool.check", Some(org_answer.clone())), p],
        );
        assert_eq!(climb(&s, &seen), org_answer);
    }
}

#[test]
fn a_persons_deep_query_runs_no_classic_hook_so_no_refusal_can_stand_for_one() {
    // The person's 8th-level `tool.check` is a plugin's query (SPEC §6 `$`): the core
    // answers it by the rules alone and raises no `classic.PreToolUse` for it, so the
    // organization's plugin there never reads at the 9th level, and nothing a person's
    // ladder does can make the core take a refused classic raise for "no hook objected".
    // The engine's own check of a call raises its classic hooks at depth 0 (its nesting
    // is not counted). `make build` is allowed by the rules.
    let make = json!({"tool": "Bash", "input": {"command": "make build"}, "tool_use_id": "t1"});
    for seated in [true, false] {
        for depth in [7, 8] {
            let (p, seen) = mallory(depth, "tool.check", make.clone(), false);
            let (s, _dir) = start(seated, vec![naive_org("classic.PreToolUse", None), p]);
            let v = climb(&s, &seen);
            assert_eq!(
                v["decision"],
                json!("allow"),
                "seated {seated}, {depth}: {v}"
            );
            let log = s.take_log();
            assert!(
                !log.iter()
                    .any(|l| l.text.contains("acme-guard failed at classic.PreToolUse")),
                "seated {seated}, {depth}: {log:?}"
            );
        }
    }
}
