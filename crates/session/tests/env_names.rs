//! SPEC §3.8 **[decision]**: a name that is empty or holds `=` or NUL is no variable.
//! The core refuses to set or unset it for every caller, seated or not, so no spawner
//! can be handed `LD_PRELOAD=...` through a name; `env.get` of it answers `null`.

use fnhooks::testing::plugin;
use fnhooks::{Event, Tier};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use session::{BlockingSession, SessionConfig, SettingsInput, SettingsInputs};
use std::path::Path;

#[allow(clippy::unwrap_used)]
fn start(seated: bool, settings: SettingsInputs) -> (BlockingSession, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("managed-settings.json"), "{}").unwrap();
    let config = SessionConfig {
        seated,
        settings,
        ..SessionConfig::new(
            dir.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    let plugins = vec![
        plugin("envy@community", Tier::User),
        plugin("guard@acme", Tier::Append),
        plugin("gate@acme", Tier::Prepend),
    ];
    (BlockingSession::start(config, plugins).unwrap(), dir)
}

#[allow(clippy::unwrap_used)]
fn env_set(s: &BlockingSession, from: Option<&str>, fields: Value) -> Value {
    let e = Event::from_value("env.set", fields);
    match from {
        Some(id) => s.raise_from(id, e),
        None => s.raise(e),
    }
    .unwrap()
}

#[allow(clippy::unwrap_used)]
fn env_get(s: &BlockingSession, name: &str) -> Value {
    s.raise(Event::from_value("env.get", json!({ "name": name })))
        .unwrap()
}

#[test]
fn a_name_with_an_equals_sign_empty_or_with_nul_is_refused_for_every_caller() {
    for seated in [true, false] {
        let (s, _dir) = start(seated, SettingsInputs::default());
        for from in [
            Some("envy@community"),
            Some("guard@acme"),
            // a prepend-tier caller (the security default itself raises only through
            // its hooks' cx, never by id)
            Some("gate@acme"),
            None,
        ] {
            for (name, shown, why) in [
                (
                    "LD_PRELOAD=/tmp/x.so",
                    "LD_PRELOAD=/tmp/x.so",
                    "a name may not hold \"=\"",
                ),
                ("=", "=", "a name may not hold \"=\""),
                ("", "", "a name may not be empty"),
                (
                    "PATH\0LD_PRELOAD",
                    "PATH\\0LD_PRELOAD",
                    "a name may not hold NUL",
                ),
                (
                    "X\n=\u{202e}",
                    "X\\n=\\u{202e}",
                    "a name may not hold \"=\"",
                ),
            ] {
                for value in [json!("x"), Value::Null] {
                    let answer = env_set(&s, from, json!({ "name": name, "value": value }));
                    assert_eq!(
                        answer,
                        json!({
                            "deny": format!("\"{shown}\" is no variable name ({why}); nothing was set or unset")
                        }),
                        "seated {seated}, from {from:?}, {name:?}"
                    );
                }
                assert_eq!(env_get(&s, name), json!({ "value": null }));
            }
            assert_eq!(
                env_set(&s, from, json!({ "value": "x" })),
                json!({ "deny": session::NO_VARIABLE_NAME })
            );
            assert_eq!(
                env_set(&s, from, json!({ "name": 7, "value": "x" })),
                json!({ "deny": session::NO_VARIABLE_NAME })
            );
        }
        assert_eq!(s.core().env_var("LD_PRELOAD"), None);
        assert_eq!(s.core().env_var(""), None);
        // A name is still set as before.
        assert_eq!(
            env_set(&s, Some("guard@acme"), json!({"name": "ORG", "value": "1"})),
            json!({})
        );
        assert_eq!(env_get(&s, "ORG"), json!({ "value": "1" }));
    }
}

#[test]
fn a_settings_env_name_that_is_no_variable_is_left_out_with_a_warning() {
    let settings = SettingsInputs {
        user: SettingsInput::Value(json!({"env": {"LD_PRELOAD=/tmp/x.so": "y", "EDITOR": "vim"}})),
        ..SettingsInputs::default()
    };
    let (s, _dir) = start(true, settings);
    assert_eq!(s.core().env_var("LD_PRELOAD=/tmp/x.so"), None);
    assert_eq!(s.core().env_var("EDITOR").as_deref(), Some("vim"));
    assert_eq!(
        env_get(&s, "LD_PRELOAD=/tmp/x.so"),
        json!({ "value": null })
    );
    let log: Vec<String> = s.take_log().into_iter().map(|l| l.text).collect();
    assert!(
        log.contains(
            &"settings env warning: \"LD_PRELOAD=/tmp/x.so\" is no variable name (a name may not hold \"=\"); it was left out of the session's environment"
                .to_owned()
        ),
        "{log:?}"
    );
}
