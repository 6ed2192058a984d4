//! SPEC §4 "Mode at start" **[decision]**: the mode given, else the `defaultMode` of the
//! highest-precedence source that sets one (policy first, then flag, local, project,
//! user), else `default`; `bypassPermissions` is refused while managed settings disable
//! it, and as a `defaultMode` from a project's or local file, with a warning.

use permissions::Mode;
use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use session::{BlockingSession, SessionConfig, SettingsInput, SettingsInputs};
use std::path::Path;

struct Sources {
    policy: Option<&'static str>,
    user: Value,
    project: Value,
    local: Value,
    flag: Value,
}

impl Default for Sources {
    fn default() -> Self {
        Sources {
            policy: Some("{}"),
            user: json!({}),
            project: json!({}),
            local: json!({}),
            flag: json!({}),
        }
    }
}

fn dm(mode: &str) -> Value {
    json!({"permissions": {"defaultMode": mode}})
}

/// The mode the session started in, and the debug lines written at start.
#[allow(clippy::unwrap_used)]
fn start(given: Option<Mode>, s: Sources) -> (Mode, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    if let Some(p) = s.policy {
        std::fs::write(dir.path().join("managed-settings.json"), p).unwrap();
    }
    let config = SessionConfig {
        mode: given,
        settings: SettingsInputs {
            user: SettingsInput::Value(s.user),
            project: SettingsInput::Value(s.project),
            local: SettingsInput::Value(s.local),
            flag: SettingsInput::Value(s.flag),
        },
        ..SessionConfig::new(
            dir.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    let session = BlockingSession::start(config, Vec::new()).unwrap();
    let mode = session.core().facts().mode;
    let lines = session
        .take_log()
        .into_iter()
        .map(|l| l.text)
        .filter(|t| t.starts_with("permission mode warning"))
        .collect();
    (mode, lines)
}

#[test]
fn none_given_and_no_default_mode_is_default() {
    assert_eq!(start(None, Sources::default()), (Mode::Default, vec![]));
}

#[test]
fn the_mode_given_wins() {
    let s = || Sources {
        policy: Some(r#"{"permissions": {"defaultMode": "plan"}}"#),
        user: dm("dontAsk"),
        ..Sources::default()
    };
    assert_eq!(
        start(Some(Mode::AcceptEdits), s()),
        (Mode::AcceptEdits, vec![])
    );
    assert_eq!(start(Some(Mode::Default), s()), (Mode::Default, vec![]));
    assert_eq!(start(None, s()), (Mode::Plan, vec![]));
}

#[test]
fn precedence_is_policy_flag_local_project_user() {
    let all = || Sources {
        policy: Some(r#"{"permissions": {"defaultMode": "plan"}}"#),
        flag: dm("acceptEdits"),
        local: dm("dontAsk"),
        project: dm("auto"),
        user: dm("bypassPermissions"),
    };
    assert_eq!(start(None, all()).0, Mode::Plan);
    let s = Sources {
        policy: Some("{}"),
        ..all()
    };
    assert_eq!(start(None, s).0, Mode::AcceptEdits);
    let s = Sources {
        policy: Some("{}"),
        flag: json!({}),
        ..all()
    };
    assert_eq!(start(None, s).0, Mode::DontAsk);
    let s = Sources {
        policy: Some("{}"),
        flag: json!({}),
        local: json!({}),
        ..all()
    };
    assert_eq!(start(None, s).0, Mode::Auto);
    let s = Sources {
        policy: None,
        flag: json!({}),
        local: json!({}),
        project: json!({}),
        ..all()
    };
    assert_eq!(start(None, s), (Mode::BypassPermissions, vec![]));
    // `manual` is `default`.
    let s = Sources {
        user: dm("manual"),
        ..Sources::default()
    };
    assert_eq!(start(None, s).0, Mode::Default);
}

#[test]
fn a_repository_cannot_put_a_person_in_bypass_mode() {
    let (mode, lines) = start(
        None,
        Sources {
            project: dm("bypassPermissions"),
            user: dm("acceptEdits"),
            ..Sources::default()
        },
    );
    assert_eq!(mode, Mode::Default, "refused: default, not the next source");
    assert_eq!(
        lines,
        vec!["permission mode warning: permissions.defaultMode \"bypassPermissions\" of project settings (.claude/settings.json) is refused: a repository's settings cannot put a person in bypass mode; the session starts in default mode"]
    );
    let (mode, lines) = start(
        None,
        Sources {
            local: dm("bypassPermissions"),
            ..Sources::default()
        },
    );
    assert_eq!(mode, Mode::Default);
    assert_eq!(
        lines,
        vec!["permission mode warning: permissions.defaultMode \"bypassPermissions\" of local settings (.claude/settings.local.json) is refused: a repository's settings cannot put a person in bypass mode; the session starts in default mode"]
    );
    // The person's own file, a `--settings` file and the policy may.
    for s in [
        Sources {
            user: dm("bypassPermissions"),
            ..Sources::default()
        },
        Sources {
            flag: dm("bypassPermissions"),
            ..Sources::default()
        },
        Sources {
            policy: Some(r#"{"permissions": {"defaultMode": "bypassPermissions"}}"#),
            ..Sources::default()
        },
    ] {
        assert_eq!(start(None, s), (Mode::BypassPermissions, vec![]));
    }
}

#[test]
fn managed_disable_refuses_bypass_from_anywhere() {
    let disable = r#"{"permissions": {"disableBypassPermissionsMode": "disable"}}"#;
    let (mode, lines) = start(
        Some(Mode::BypassPermissions),
        Sources {
            policy: Some(disable),
            ..Sources::default()
        },
    );
    assert_eq!(mode, Mode::Default);
    assert_eq!(
        lines,
        vec!["permission mode warning: the mode the session was given (bypassPermissions) is refused: managed settings set permissions.disableBypassPermissionsMode to \"disable\"; the session starts in default mode"]
    );
    let (mode, lines) = start(
        None,
        Sources {
            policy: Some(disable),
            user: dm("bypassPermissions"),
            ..Sources::default()
        },
    );
    assert_eq!(mode, Mode::Default);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].contains("of user settings (~/.claude/settings.json) is refused: managed settings set permissions.disableBypassPermissionsMode"));
    // Another mode given is kept.
    assert_eq!(
        start(
            Some(Mode::Plan),
            Sources {
                policy: Some(disable),
                ..Sources::default()
            }
        ),
        (Mode::Plan, vec![])
    );
    // A person's own disable does not refuse at start (the core still decides as
    // `default` while any source disables it, SPEC §4 "Defaults").
    assert_eq!(
        start(
            Some(Mode::BypassPermissions),
            Sources {
                user: json!({"permissions": {"disableBypassPermissionsMode": "disable"}}),
                ..Sources::default()
            }
        )
        .0,
        Mode::BypassPermissions
    );
}

#[test]
fn an_unreadable_policy_refuses_bypass_and_sets_no_default_mode() {
    let (mode, lines) = start(
        Some(Mode::BypassPermissions),
        Sources {
            policy: Some("{ not json"),
            ..Sources::default()
        },
    );
    assert_eq!(mode, Mode::Default);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].contains("the organization's policy cannot be read"));
    let (mode, lines) = start(
        None,
        Sources {
            policy: Some("{ not json"),
            user: dm("plan"),
            ..Sources::default()
        },
    );
    assert_eq!((mode, lines), (Mode::Plan, vec![]));
}

#[test]
fn a_default_mode_that_is_no_mode_is_passed_over_with_a_warning() {
    let (mode, lines) = start(
        None,
        Sources {
            flag: json!({"permissions": {"defaultMode": 7}}),
            local: dm("yolo\n"),
            user: dm("plan"),
            ..Sources::default()
        },
    );
    assert_eq!(mode, Mode::Plan);
    assert_eq!(
        lines,
        vec![
            "permission mode warning: permissions.defaultMode 7 of flag settings (--settings) is not a permission mode this engine knows; it is passed over",
            "permission mode warning: permissions.defaultMode \"yolo\\n\" of local settings (.claude/settings.local.json) is not a permission mode this engine knows; it is passed over",
        ]
    );
}
