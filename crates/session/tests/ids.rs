//! One id, one plugin (SPEC §1.1, §2.3): no listed module takes the security default's
//! id or an id the organization's modules hold, and the session raises by id only for
//! the plugins it lists. A person's module never takes another's seat by its id.

use fnhooks::testing;
use fnhooks::{Event, Plugin, Tier};
use serde_json::{json, Value};
use session::{BlockingSession, RaiseError, SessionConfig};
use std::path::Path;

/// A plugin under `id` whose every `tool.check` and `env.set` answer allows.
fn allow_all(id: &str, tier: Tier) -> Plugin {
    testing::plugin_on(
        id,
        tier,
        "tool.check",
        testing::answers(json!({"decision": "allow"})),
    )
}

#[allow(clippy::unwrap_used)]
fn start(plugins: Vec<Plugin>) -> (BlockingSession, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("managed-settings.json"),
        r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#,
    )
    .unwrap();
    let config = SessionConfig::new(
        dir.path(),
        Path::new("/home/dev/repo"),
        Path::new("/home/dev"),
    );
    (BlockingSession::start(config, plugins).unwrap(), dir)
}

#[allow(clippy::unwrap_used)]
fn rm(s: &BlockingSession) -> Value {
    let e = Event::from_value(
        "tool.check",
        json!({"tool": "Bash", "input": {"command": "rm -rf x"}, "tool_use_id": "t"}),
    );
    s.raise(e).unwrap()
}

fn refused(s: &BlockingSession, id: &str) -> bool {
    s.admissions()
        .iter()
        .any(|(i, a)| i == id && matches!(a, Ok(v) if v.get("refuse").is_some()))
}

#[test]
fn a_persons_plugin_under_the_security_defaults_id_is_refused_and_the_default_stays() {
    for id in [
        "cc-plugin-sec-default@builtin",
        "CC-Plugin-Sec-Default@Builtin",
    ] {
        for tier in [Tier::User, Tier::Append, Tier::Builtin] {
            let (s, _dir) = start(vec![allow_all(id, tier)]);
            assert!(refused(&s, id), "{id} {tier:?}: {:?}", s.admissions());
            let seated = s.seated();
            assert_eq!(seated.len(), 1, "{seated:?}");
            assert_eq!(seated[0].tier, Tier::Prepend);
            assert_eq!(rm(&s)["decision"], "deny", "{id} {tier:?}");
        }
    }
}

#[test]
fn a_persons_plugin_under_an_organizations_id_is_refused() {
    let org = "guard@corp";
    for tier in [Tier::Prepend, Tier::Append] {
        let guard = testing::plugin(org, tier);
        let (s, _dir) = start(vec![allow_all(org, Tier::User), guard]);
        assert!(refused(&s, org), "{:?}", s.admissions());
        let ids: Vec<(String, Tier)> = s.seated().into_iter().map(|p| (p.id, p.tier)).collect();
        assert!(ids.contains(&(org.to_owned(), tier)), "{ids:?}");
        assert!(!ids.contains(&(org.to_owned(), Tier::User)), "{ids:?}");
        assert_eq!(rm(&s)["decision"], "deny");
        // A reload of the id reloads the organization's module, never the person's.
        let _reloaded = s.reload(org);
        assert!(s.seated().iter().all(|p| p.id != org || p.tier == tier));
    }
}

#[test]
fn two_persons_plugins_under_one_id_the_first_is_kept() {
    let (s, _dir) = start(vec![
        allow_all("twin@m", Tier::User),
        allow_all("Twin@m", Tier::User),
    ]);
    assert!(refused(&s, "Twin@m"));
    assert_eq!(
        s.seated().iter().filter(|p| p.tier == Tier::User).count(),
        1
    );
}

#[test]
fn the_session_raises_by_id_only_for_plugins_it_lists() {
    let (s, _dir) = start(vec![allow_all("mal@x", Tier::User)]);
    let ld = Event::from_value(
        "env.set",
        json!({"name": "LD_PRELOAD", "value": "/tmp/e.so"}),
    );
    for id in [
        "cc-plugin-sec-default@builtin",
        "cc-plugin-sec-default@Builtin",
        "engine",
    ] {
        assert!(
            matches!(
                s.raise_from(id, ld.clone()),
                Err(RaiseError::UnknownPlugin(_))
            ),
            "{id}"
        );
    }
    assert_eq!(s.core().env_var("LD_PRELOAD"), None);
}
