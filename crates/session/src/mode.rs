//! The mode a session starts in (SPEC §4 "Mode at start" **\[decision\]**).

use crate::settings::{SettingsInput, SettingsInputs};
use fnhooks::escaped;
use permissions::{Mode, SettingsSource};
use policy::Policy;
use serde_json::{Map, Value};

/// Where the mode at start came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The session was given it (`--permission-mode`, a scenario's `session.mode`).
    Given,
    /// `permissions.defaultMode` of a settings source.
    DefaultMode(SettingsSource),
}

impl Origin {
    /// How a warning names it.
    fn describe(self, mode: &str) -> String {
        match self {
            Origin::Given => format!("the mode the session was given ({mode})"),
            Origin::DefaultMode(source) => format!(
                "permissions.defaultMode \"{mode}\" of {}",
                source_file(source)
            ),
        }
    }
}

/// A settings source as a warning names it: its name and its file.
fn source_file(source: SettingsSource) -> &'static str {
    match source {
        SettingsSource::Policy => "managed settings",
        SettingsSource::Flag => "flag settings (--settings)",
        SettingsSource::Local => "local settings (.claude/settings.local.json)",
        SettingsSource::Project => "project settings (.claude/settings.json)",
        SettingsSource::User => "user settings (~/.claude/settings.json)",
        SettingsSource::Cli => "the command line",
        SettingsSource::Session => "the session",
    }
}

/// The mode a session starts in, with the warnings to write to the debug log (SPEC §4
/// "Mode at start" **\[decision\]**):
///
/// 1. the mode the session was given (`given`), else `permissions.defaultMode` of the
///    highest-precedence source that sets one — policy (`policy`, `None` when the read
///    failed), then flag, local, project, user — else `default`. A `defaultMode` that
///    is not a permission mode this engine knows is passed over with a warning; a
///    source that cannot be read sets none.
/// 2. `bypassPermissions` is refused while managed
///    `permissions.disableBypassPermissionsMode` is `"disable"`, and while the policy
///    cannot be read (fail closed, SPEC §2.1: as if it were in force); and as a
///    `defaultMode` from a project's or local file (a repository cannot put a person in
///    bypass mode). A refused mode starts as `default`, with a warning naming where it
///    came from and why.
pub(crate) fn mode_at_start(
    given: Option<Mode>,
    policy: Option<&Policy>,
    settings: &SettingsInputs,
) -> (Mode, Vec<String>) {
    let mut warnings = Vec::new();
    let (mode, origin) = match given {
        Some(m) => (m, Origin::Given),
        None => match first_default_mode(policy, settings, &mut warnings) {
            Some((m, source)) => (m, Origin::DefaultMode(source)),
            None => return (Mode::Default, warnings),
        },
    };
    if mode != Mode::BypassPermissions {
        return (mode, warnings);
    }
    let why = match policy {
        None => Some(
            "the organization's policy cannot be read, so it is held to disable it (permissions.disableBypassPermissionsMode)",
        ),
        Some(p) if p.managed().disable_bypass_permissions_mode => Some(
            "managed settings set permissions.disableBypassPermissionsMode to \"disable\"",
        ),
        Some(_) => match origin {
            Origin::DefaultMode(SettingsSource::Project | SettingsSource::Local) => {
                Some("a repository's settings cannot put a person in bypass mode")
            }
            _ => None,
        },
    };
    match why {
        Some(why) => {
            warnings.push(format!(
                "permission mode warning: {} is refused: {why}; the session starts in default mode",
                origin.describe(mode.as_str())
            ));
            (Mode::Default, warnings)
        }
        None => (mode, warnings),
    }
}

/// `permissions.defaultMode` of the highest-precedence source that sets one a mode.
fn first_default_mode(
    policy: Option<&Policy>,
    settings: &SettingsInputs,
    warnings: &mut Vec<String>,
) -> Option<(Mode, SettingsSource)> {
    let read = |input: &SettingsInput| input.read().ok();
    let sources = [
        (SettingsSource::Policy, policy.map(|p| p.settings.clone())),
        (SettingsSource::Flag, read(&settings.flag)),
        (SettingsSource::Local, read(&settings.local)),
        (SettingsSource::Project, read(&settings.project)),
        (SettingsSource::User, read(&settings.user)),
    ];
    for (source, map) in sources {
        let Some(value) = map.as_ref().and_then(default_mode_of) else {
            continue;
        };
        match value.as_str().map(str::parse::<Mode>) {
            Some(Ok(mode)) => return Some((mode, source)),
            _ => warnings.push(format!(
                "permission mode warning: permissions.defaultMode {} of {} is not a permission mode this engine knows; it is passed over",
                shown(value),
                source_file(source)
            )),
        }
    }
    None
}

fn default_mode_of(settings: &Map<String, Value>) -> Option<&Value> {
    settings.get("permissions")?.get("defaultMode")
}

/// A supplied value as a warning shows it: a string quoted and escaped, anything else
/// as JSON (escaped too).
fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{}\"", escaped(s)),
        other => escaped(&other.to_string()),
    }
}
