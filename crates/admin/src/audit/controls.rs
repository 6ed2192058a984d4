//! The engine's controls a policy sets besides the security default's holds (issue
//! #17 item 3): each is exercised here against what a person would try, and reads
//! "in force" or "not in force" with what that means. Only the security default's
//! own holds read HOLDS or BREACH (the attack table, and the modes a person can start
//! in). A control this engine cannot exercise is named in `not_exercised`.

use super::attacks::{config, NotExercised};
use super::synth::HOME;
use permissions::classic::ClassicHooks;
use permissions::{Mode, SettingsSource};
use policy::{ManagedSettings, Policy};
use serde_json::{json, Value};
use session::{BlockingSession, HookRunner, SessionConfig};
use std::path::Path;

/// Where a control stands once exercised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Standing {
    /// The engine did what the control says.
    InForce,
    /// The engine did not: what the control means to stop went through.
    NotInForce,
}

/// The words of a standing.
impl Standing {
    /// `in force` or `not in force`.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Standing::InForce => "in force",
            Standing::NotInForce => "not in force",
        }
    }
}

/// One engine control, exercised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Control {
    /// The managed key (`disableAllHooks`, `strictKnownMarketplaces`, ...).
    pub key: String,
    /// What exercising it showed.
    pub standing: Standing,
    /// What was tried and what the standing means for a person.
    pub meaning: String,
}

/// A control from its outcome: in force when `held`, with the meaning for each.
fn control(key: &str, held: bool, in_force: String, not_in_force: String) -> Control {
    Control {
        key: key.to_owned(),
        standing: if held {
            Standing::InForce
        } else {
            Standing::NotInForce
        },
        meaning: if held { in_force } else { not_in_force },
    }
}

/// The marketplaces a person would add: every source kind, on hosts anyone can
/// publish to (reference §5.4).
fn person_marketplaces() -> Vec<Value> {
    vec![
        json!({"source": "github", "repo": "person/marketplace"}),
        json!({"source": "github", "repo": "someone-else/claude-plugins"}),
        json!({"source": "git", "url": "https://github.com/person/marketplace.git"}),
        json!({"source": "git", "url": "https://gitlab.com/person/marketplace.git"}),
        json!({"source": "url", "url": "https://raw.githubusercontent.com/person/marketplace/main/.claude-plugin/marketplace.json"}),
        json!({"source": "url", "url": "https://gist.githubusercontent.com/person/1/raw/marketplace.json"}),
        json!({"source": "directory", "path": format!("{HOME}/person-marketplace")}),
        json!({"source": "directory", "path": "/tmp/marketplace"}),
        json!({"source": "file", "path": format!("{HOME}/marketplace.json")}),
        json!({"source": "npm", "package": "person-marketplace"}),
    ]
}

/// A person's settings with one classic hook on every tool.
fn person_hook_settings() -> Value {
    json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "person-hook"}]}]}})
}

/// Every engine control `policy` sets, exercised in `folder`, and the ones this engine
/// cannot exercise (SPEC §2.2, §4).
pub(super) fn engine_controls(
    policy: &Policy,
    m: &ManagedSettings,
    folder: &Path,
    start: Mode,
) -> (Vec<Control>, Vec<NotExercised>) {
    let mut out = Vec::new();
    let mut not = Vec::new();
    let settings = Value::Object(policy.settings.clone());
    let person = person_hook_settings();
    let managed_hooks = {
        let mut s = policy.settings.clone();
        s.remove("disableAllHooks");
        let s = Value::Object(s);
        ClassicHooks::from_sources(&[(SettingsSource::Policy, &s)])
            .0
            .handlers()
            .count()
    };
    let (both, _) = ClassicHooks::from_sources(&[
        (SettingsSource::Policy, &settings),
        (SettingsSource::User, &person),
    ]);
    let persons_run = both
        .handlers()
        .filter(|h| h.source == SettingsSource::User)
        .count();
    let managed_run = both
        .handlers()
        .filter(|h| h.source == SettingsSource::Policy)
        .count();
    if settings.get("disableAllHooks") == Some(&Value::Bool(true)) {
        out.push(control(
            "disableAllHooks",
            persons_run == 0 && managed_run == 0,
            format!(
                "no classic settings hook runs: a person's PreToolUse hook was dropped, and so \
                 were the organization's own ({managed_hooks} configured); function hooks and \
                 the security default still run (every row above ran with it set)"
            ),
            format!(
                "{persons_run} of a person's and {managed_run} of the organization's classic \
                 hooks still run"
            ),
        ));
    }
    if settings.get("allowManagedHooksOnly") == Some(&Value::Bool(true)) {
        out.push(control(
            "allowManagedHooksOnly",
            persons_run == 0,
            "a person's classic PreToolUse hook is dropped; only the organization's run".to_owned(),
            "a person's classic PreToolUse hook still runs".to_owned(),
        ));
    }
    let allowlist = ["strictKnownMarketplaces", "allowedMarketplaces"]
        .into_iter()
        .filter(|k| settings.get(*k).is_some())
        .collect::<Vec<_>>();
    let blocklist = settings.get("blockedMarketplaces").is_some();
    if !allowlist.is_empty() || blocklist {
        let managed = loader::managed_settings(&Ok(policy.clone()));
        let home = Path::new(HOME);
        let bases = loader::PathBases {
            managed: folder,
            source: home,
            home,
        };
        let tried = person_marketplaces();
        let let_in: Vec<String> = tried
            .iter()
            .filter(|source| {
                loader::source_allowed(&managed, source, &bases) == loader::SourceCheck::Allowed
            })
            .map(Value::to_string)
            .collect();
        if allowlist.is_empty() {
            // A blocklist refuses what it names; it never keeps a person's others out.
            out.push(Control {
                key: "blockedMarketplaces".to_owned(),
                standing: Standing::InForce,
                meaning: format!(
                    "the loader refuses the marketplaces it lists, and only those: {} of {} a \
                     person would add (github, git, url, directory, file, npm) are let in and \
                     their plugins load; set strictKnownMarketplaces to keep a person's out",
                    let_in.len(),
                    tried.len()
                ),
            });
        } else {
            let mut key = allowlist.join(", ");
            if blocklist {
                key.push_str(", blockedMarketplaces");
            }
            out.push(control(
                &key,
                let_in.is_empty(),
                format!(
                    "the loader refuses all {} marketplaces a person would add that were tried \
                     (github, git, url, directory, file, npm, on hosts anyone can publish to), \
                     so none of their plugins load",
                    tried.len()
                ),
                format!(
                    "the loader lets in {} of the {} marketplaces a person would add: {}; the \
                     plugins of those load",
                    let_in.len(),
                    tried.len(),
                    let_in.join(", ")
                ),
            ));
        }
    }
    if let Some(default) = policy
        .settings
        .get("permissions")
        .and_then(|p| p.get("defaultMode"))
        .and_then(Value::as_str)
    {
        // `start`: the mode the audit's own sessions started in, given no mode.
        let wanted = default.parse::<Mode>().ok();
        let refused = wanted == Some(Mode::BypassPermissions) && m.disable_bypass_permissions_mode;
        let started_text = start.as_str();
        out.push(control(
            "permissions.defaultMode",
            Some(start) == wanted || refused,
            if refused {
                format!(
                    "{default:?} is refused by disableBypassPermissionsMode: a session a person \
                     starts without a mode starts in {started_text}"
                )
            } else {
                format!(
                    "a session a person starts without a mode starts in {started_text}; the \
                     attacks above ran in it"
                )
            },
            format!("{default:?} is set, yet a session starts in {started_text}"),
        ));
    }
    if m.disable_bypass_permissions_mode {
        let started = BlockingSession::start(
            SessionConfig {
                mode: Some(Mode::BypassPermissions),
                ..config(folder, false, HookRunner::NotRun)
            },
            Vec::new(),
        )
        .ok()
        .map(|s| s.session().core().facts().mode);
        let text = started.map_or_else(|| "no session".to_owned(), |s| s.as_str().to_owned());
        out.push(control(
            "permissions.disableBypassPermissionsMode",
            started.is_some_and(|s| s != Mode::BypassPermissions),
            format!("a person asking for bypassPermissions starts in {text}"),
            "a person asking for bypassPermissions gets it".to_owned(),
        ));
    }
    if settings.get("deniedMcpServers").is_some() {
        not.push(NotExercised {
            behavior: "control",
            rule: "deniedMcpServers".to_owned(),
            reason: "this engine connects no MCP server: the servers it names are refused by \
                     the engine that connects them; the security default does not read it, and \
                     a person's registrations are held by allowedMcpServers and the reserved \
                     scopes"
                .to_owned(),
        });
    }
    (out, not)
}

/// The modes a person could start a session in under `m` (SPEC §4 "Mode at start"):
/// every mode but `bypassPermissions` where the policy disables it.
pub(super) fn open_modes(m: &ManagedSettings) -> Vec<Mode> {
    Mode::ALL
        .iter()
        .copied()
        .filter(|mode| !(m.disable_bypass_permissions_mode && *mode == Mode::BypassPermissions))
        .collect()
}
