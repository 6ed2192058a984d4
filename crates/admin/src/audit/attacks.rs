//! The attack catalogue of `sec-default audit` and its oracles (SPEC
//! §3 and §5).
//!
//! Every attack is derived from the policy it runs on and judged by its own oracle,
//! never by the security default's predicates:
//!
//! - a deny/ask rule: the call must keep the verdict a session with no person's
//!   plugins gives (SPEC §3.6, §5.1);
//! - a pinned variable: a person's write is refused and the value unchanged (§3.8, §5.4);
//! - an org MCP server or seated plugin: a person's registration under a name that
//!   folds to it is refused (§3.4, §5.3);
//! - `allowManagedModsOnly`: a person's module is not admitted (§3.9, §5.5);
//! - managed content, settings reads, compactions: they come back as the engine made
//!   them (§3.1, §3.2, §5.2).
//!
//! | file | concern |
//! | --- | --- |
//! | `attacks.rs` | the families, an attack and its arms, the findings on rules, `catalogue` |
//! | `attacks/rules.rs` | the deny and ask rules tried with realistic calls |
//! | `attacks/families.rs` | the attacks on the other controls, one list per family |
//! | `attacks/arms.rs` | an attack run unseated and seated, each arm judged by its oracle |

/// An attack run in its two arms, judged by its oracle.
mod arms;
/// The attacks on the policy's other controls.
mod families;
/// The rule attacks' calls.
mod rules;

pub(super) use arms::{answered_in_chain, pinned_names, run_alone, ArmSessions};
use families::{
    allowlist_attacks, content_attacks, env_attacks, managed_hook_attacks, plugin_attacks,
    server_attacks,
};
pub(super) use families::{managed_hook_label, org_plugins};
use rules::{describe_call, try_rules, Tried};

use super::synth::{self, Call};
use events::names;
use fnhooks::{Event, PluginInfo, Tier};
use permissions::{Decision, Verdict};
use policy::Policy;
use serde_json::{json, Value};
use session::{BlockingSession, HookRunner, RaiseError, SessionConfig};
use std::path::Path;

/// The marketplace every attacking plugin comes from (never one the policy names).
const PERSON_MARKET: &str = "person-market";

/// A kind of attack; rows are grouped by family in a fixed order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Family {
    /// A person's plugin answers `allow` to every `tool.check` (SPEC §3.6).
    LiftRule,
    /// A person's plugin rewords the verdict: new reason, `rule: null` (SPEC §3.6).
    RewordVerdict,
    /// A person's plugin sets or unsets a pinned variable (SPEC §3.8).
    PinnedVariable,
    /// A person's plugin registers a tool whose name folds to an org MCP server (SPEC §3.4).
    ImpersonateServer,
    /// A person's plugin registers a tool whose name folds to an org plugin (SPEC §3.4).
    ImpersonatePlugin,
    /// A person's plugin registers a tool under an allowed and an unlisted server
    /// while `allowedMcpServers` is set (SPEC §3.4 step 3).
    AllowlistRegister,
    /// A person's plugin rewrites managed content, a settings read or a compaction (SPEC §3.1, §3.2).
    RewriteManaged,
    /// A person's module is loaded under `allowManagedModsOnly` (SPEC §3.9).
    LoadModule,
}

/// Names and headings of the families.
impl Family {
    /// Every family, in report order.
    pub(super) const ALL: [Family; 8] = [
        Family::LiftRule,
        Family::RewordVerdict,
        Family::PinnedVariable,
        Family::ImpersonateServer,
        Family::ImpersonatePlugin,
        Family::AllowlistRegister,
        Family::RewriteManaged,
        Family::LoadModule,
    ];

    /// The family's key in JSON output.
    pub(super) fn key(self) -> &'static str {
        match self {
            Family::LiftRule => "lift-rule",
            Family::RewordVerdict => "reword-verdict",
            Family::PinnedVariable => "pinned-variable",
            Family::ImpersonateServer => "impersonate-mcp-server",
            Family::ImpersonatePlugin => "impersonate-org-plugin",
            Family::AllowlistRegister => "register-under-allowlist",
            Family::RewriteManaged => "rewrite-managed-content",
            Family::LoadModule => "load-person-module",
        }
    }

    /// The family's heading in the table: what the person's plugin does.
    pub(super) fn title(self) -> &'static str {
        match self {
            Family::LiftRule => {
                "deny/ask rules: a person's plugin answers allow to every tool.check"
            }
            Family::RewordVerdict => {
                "verdicts: a person's plugin rewords them (new reason, rule: null)"
            }
            Family::PinnedVariable => {
                "pinned variables: a person's plugin sets or unsets them (env.set)"
            }
            Family::ImpersonateServer => {
                "org MCP servers: a person's plugin registers a tool folding to one"
            }
            Family::ImpersonatePlugin => {
                "org plugins: a person's plugin registers a tool folding to one"
            }
            Family::AllowlistRegister => {
                "allowedMcpServers: a person's plugin registers under an allowed or unlisted server"
            }
            Family::RewriteManaged => {
                "managed content: a person's plugin rewrites what the engine made"
            }
            Family::LoadModule => "managed mods only: a person's module asks to be loaded",
        }
    }
}

/// Which allow-everything behaviour a `tool.check` attacker has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VerdictAttacker {
    /// Answers `{decision: allow}` without calling `next`.
    Lift,
    /// Calls `next`, then patches `reason` and sets `rule: null`.
    Reword,
}

/// What an attack does.
#[derive(Debug, Clone)]
enum Kind {
    /// A `tool.check` of `call` against an allow-everything or rewording plugin;
    /// the oracle is the verdict with no person's plugins (SPEC §3.6).
    Verdict {
        call: Call,
        oracle: Verdict,
        attacker: VerdictAttacker,
    },
    /// A person's `env.set` of a pinned variable; `None` unsets (SPEC §3.8).
    EnvWrite { name: String, value: Option<String> },
    /// A person's `tool.register` of `tool` from a plugin named `plugin` (SPEC §3.4).
    Register { plugin: String, tool: String },
    /// A person's mod named `plugin` (JavaScript, run by the mod host) calling
    /// `$.tool.register` when a prompt is submitted (SPEC §3.4, §6).
    ModRegister { plugin: String },
    /// A person's module at admission (SPEC §3.9).
    Module,
    /// A held event the engine raises with `core` as its answer; the person's plugin
    /// answers `attacker` (SPEC §3.1, §3.2).
    Content {
        event: String,
        fields: Value,
        core: Option<Value>,
        attacker: Value,
        calls_next: bool,
    },
}

/// One attack of the catalogue.
#[derive(Debug, Clone)]
pub(super) struct Attack {
    /// Its family.
    pub family: Family,
    /// The row's text.
    pub label: String,
    /// What exactly it does, for JSON output.
    pub detail: Value,
    kind: Kind,
}

/// What an attack raises.
impl Attack {
    /// The event the attack raises (SPEC §1.5).
    pub(super) fn event(&self) -> &str {
        match &self.kind {
            Kind::Verdict { .. } => names::TOOL_CHECK,
            Kind::EnvWrite { .. } => names::ENV_SET,
            Kind::Register { .. } | Kind::ModRegister { .. } => names::TOOL_REGISTER,
            Kind::Module => names::PLUGIN_REGISTER,
            Kind::Content { event, .. } => event,
        }
    }

    /// The tool call a verdict attack raises `tool.check` for (the only attacks a
    /// classic `PreToolUse` hook can meet, SPEC §4); `None` for the others.
    pub(super) fn call(&self) -> Option<&Call> {
        match &self.kind {
            Kind::Verdict { call, .. } => Some(call),
            _ => None,
        }
    }
}

/// What the person's plugin achieved in one arm, and whether the oracle passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Arm {
    /// Short words for the table.
    pub achieved: String,
    /// The oracle passed: the thing attacked held.
    pub held: bool,
}

/// Building arms.
impl Arm {
    /// An arm with these words and this judgement.
    fn new(achieved: impl Into<String>, held: bool) -> Self {
        Arm {
            achieved: achieved.into(),
            held,
        }
    }
}

/// A deny or ask rule no synthesized call could exercise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NotExercised {
    /// `deny` or `ask`.
    pub behavior: &'static str,
    /// The rule as written.
    pub rule: String,
    /// Why.
    pub reason: String,
}

/// A deny or ask rule no realistic call meets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Inert {
    /// `deny` or `ask`.
    pub behavior: &'static str,
    /// The rule as written.
    pub rule: String,
    /// Why no call people run meets it.
    pub reason: String,
    /// The call spelled like the rule's text that does meet it, in a few words.
    pub literal: Option<String>,
}

/// A deny or ask rule that a command the shell runs the same gets around:
/// the rule meets `call` but not `variants`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Evaded {
    /// `deny` or `ask`.
    pub behavior: &'static str,
    /// The rule as written.
    pub rule: String,
    /// The call it meets, in a few words.
    pub call: String,
    /// The commands the shell runs the same that it does not meet.
    pub variants: Vec<String>,
}

/// What trying the deny and ask rules found besides the attacks.
#[derive(Debug, Clone, Default)]
pub(super) struct RuleFindings {
    /// Rules no call at all met.
    pub not_exercised: Vec<NotExercised>,
    /// Rules no realistic call met.
    pub inert: Vec<Inert>,
    /// Rules a shell variant gets around.
    pub evaded: Vec<Evaded>,
}

/// The always-pinned variables that move where policy and sign-in are read from or
/// how policy tiers compose (SPEC §3.8), written here from the SPEC, independent of
/// the plugin's own list.
pub(super) const POLICY_SOURCE_VARIABLES: [&str; 9] = [
    "CLAUDE_CODE_MANAGED_SETTINGS_PATH",
    "CLAUDE_CODE_REMOTE_SETTINGS_PATH",
    "CLAUDE_CODE_MOCK_REMOTE_SETTINGS",
    "CLAUDE_CODE_DISABLE_ADMIN_ENV_UNION",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_SECURESTORAGE_CONFIG_DIR",
    "USE_LOCAL_OAUTH",
    "USE_STAGING_OAUTH",
    "CLAUDE_LOCAL_OAUTH_API_BASE",
];

/// The always-pinned variables that can load code into a child the engine starts
/// (SPEC §3.8).
pub(super) const CODE_LOADING_VARIABLES: [&str; 10] = [
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH",
    "DYLD_FRAMEWORK_PATH",
    "BASH_ENV",
    "ENV",
    "ZDOTDIR",
    "NODE_OPTIONS",
];

/// The value every attacking write sets.
const ATTACKER_VALUE: &str = "/tmp/person/payload";

/// The compiled rules every session of this audit shares: an audit starts dozens of
/// sessions on one policy and compiles its rules once. The audit is one run of this
/// binary, which owns the cache (the library keeps none of its own).
fn audit_rules() -> session::RuleCache {
    static RULES: std::sync::OnceLock<session::RuleCache> = std::sync::OnceLock::new();
    RULES.get_or_init(session::RuleCache::new).clone()
}

/// A session on `folder` with the SCENARIOS.md defaults, seated or not (SPEC §2.3),
/// its classic hooks' commands run as `hooks` says.
pub(super) fn config(folder: &Path, seated: bool, hooks: HookRunner) -> SessionConfig {
    SessionConfig {
        seated,
        hook_runner: hooks,
        rule_cache: audit_rules(),
        // The audit reads the policy once: a long audit never re-reads it,
        // and the files do not change under it.
        memo_window: std::time::Duration::from_secs(24 * 3600),
        ..SessionConfig::new(folder, Path::new(synth::CWD), Path::new(synth::HOME))
    }
}

/// A `user`-tier plugin a person installed from a marketplace the policy never names
/// (SPEC §0 tiers).
fn person(name: &str) -> PluginInfo {
    PluginInfo {
        id: format!("{name}@{PERSON_MARKET}"),
        name: name.to_owned(),
        tier: Tier::User,
        worker: None,
        source: None,
    }
}

/// The `tool.check` event of `call` (SPEC §1.6: `{tool, input, tool_use_id}`).
fn tool_check(call: &Call, n: usize) -> Event {
    Event::from_value(
        names::TOOL_CHECK,
        json!({"tool": call.tool, "input": call.input, "tool_use_id": format!("audit-{n}")}),
    )
}

/// The verdict a session gives `call`, `None` when the answer is not a verdict.
fn verdict_of(answer: &Result<Value, RaiseError>) -> Option<Verdict> {
    match answer {
        Ok(v) => Verdict::from_value(v),
        _ => None,
    }
}

/// Builds the whole catalogue for `policy`: the attacks, and the deny/ask rules no
/// synthesized call could exercise. `oracle` is a session on the same folder with no
/// person's plugins and the security default not seated.
pub(super) fn catalogue(
    folder: &Path,
    policy: &Policy,
    oracle: &BlockingSession,
    hooks: HookRunner,
    progress: &dyn crate::Progress,
) -> (Vec<Attack>, RuleFindings) {
    let m = policy.managed();
    let mut attacks = Vec::new();
    let mut found = RuleFindings::default();
    let mut seen: std::collections::HashSet<(Decision, String)> = Default::default();
    let rules = m
        .deny
        .iter()
        .map(|r| (Decision::Deny, r))
        .chain(m.ask.iter().map(|r| (Decision::Ask, r)));
    let mut exercised = Vec::new();
    let todo: Vec<(Decision, &String)> = rules
        .filter(|(behavior, rule)| {
            progress.advance(1);
            seen.insert((*behavior, rule.trim().to_owned()))
        })
        .collect();
    let tried = try_rules(folder, oracle, &todo, hooks);
    for ((behavior, rule), tried) in todo.into_iter().zip(tried) {
        match tried {
            Tried::Met {
                call,
                verdict,
                shadow,
                evaded,
            } => {
                if !evaded.is_empty() {
                    found.evaded.push(Evaded {
                        behavior: behavior.as_str(),
                        rule: rule.clone(),
                        call: describe_call(&call),
                        variants: evaded,
                    });
                }
                exercised.push((behavior, rule.clone(), (call, verdict, shadow)));
            }
            Tried::Inert { reason, literal } => found.inert.push(Inert {
                behavior: behavior.as_str(),
                rule: rule.clone(),
                reason,
                literal: literal.as_ref().map(describe_call),
            }),
            Tried::NotMet(reason) => found.not_exercised.push(NotExercised {
                behavior: behavior.as_str(),
                rule: rule.clone(),
                reason,
            }),
        }
    }
    for attacker in [VerdictAttacker::Lift, VerdictAttacker::Reword] {
        for (behavior, rule, (call, oracle_verdict, shadow)) in &exercised {
            let family = match attacker {
                VerdictAttacker::Lift => Family::LiftRule,
                VerdictAttacker::Reword => Family::RewordVerdict,
            };
            attacks.push(Attack {
                family,
                label: format!("{behavior} {}", crate::text::escape(rule)),
                detail: json!({
                    "rule": rule,
                    "behavior": behavior.as_str(),
                    "call": call.to_value(),
                    "oracle": oracle_verdict.to_value(),
                    "decided_by_another_rule": shadow,
                }),
                kind: Kind::Verdict {
                    call: call.clone(),
                    oracle: oracle_verdict.clone(),
                    attacker,
                },
            });
        }
    }
    attacks.extend(env_attacks(&m));
    attacks.extend(server_attacks(&m));
    attacks.extend(plugin_attacks(&m));
    attacks.extend(allowlist_attacks(&m));
    attacks.extend(content_attacks());
    attacks.extend(managed_hook_attacks(policy));
    if m.options.allow_managed_mods_only {
        attacks.push(Attack {
            family: Family::LoadModule,
            label: format!("{} (allowManagedModsOnly)", person("person-mod").id),
            detail: json!({"plugin": person("person-mod").id, "tier": "user"}),
            kind: Kind::Module,
        });
    }
    (attacks, found)
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;

    #[test]
    fn nineteen_always_pinned_variables() {
        let mut all: Vec<&str> = POLICY_SOURCE_VARIABLES
            .iter()
            .chain(&CODE_LOADING_VARIABLES)
            .copied()
            .collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 19);
    }
}
