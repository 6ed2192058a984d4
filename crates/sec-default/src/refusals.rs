//! Every user-visible message of the security default, in one place (SPEC §3).
//!
//! The refusals of `tool.register` (SPEC §3.4.1), `env.set` (SPEC §3.8) and
//! `plugin.register` (SPEC §3.9), the debug line of a failed admission (SPEC §3.9), the
//! reason of the unchecked deny (SPEC §1.9, §3.6) and the held notice (SPEC §3.6.1).
//!
//! Every string a plugin, a tool or a policy supplies is written escaped as
//! `char::escape_debug` escapes it ([`fnhooks::escaped`], SPEC §3.6.1 **\[decision\]**),
//! so a plugin named with a line break cannot forge lines on a person's screen.

use fnhooks::{escaped, FailureKind, HookFailure};
use std::fmt;

/// Why a `user` plugin may not register a tool (SPEC §3.4, §3.4.1): the `<why>` of
/// `<plugin> may not register <full name>: <why>`.
///
/// SPEC §3.4.1
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterWhy {
    /// Step 4, a server scope: the organization's MCP server (its name as policy gives it).
    OrgServer(String),
    /// Step 4, a plugin scope `mcp__<name>__`: the plugin's name and the policy key
    /// naming it (`prependPlugins`, `appendPlugins`, `enabledPlugins`).
    OrgPlugin(String, &'static str),
    /// Step 4, a plugin's server scope `mcp__plugin_<name>_`: the plugin's name and key.
    OrgPluginServer(String, &'static str),
    /// Step 3: `allowedMcpServers` is set.
    Allowlist,
    /// Step 2: `managedMcpServersUnreadable`.
    ServersUnreadable,
    /// Step 5: a reserved name folds to nothing.
    NamelessReserved,
    /// Step 1: the policy read failed.
    PolicyUnreadable,
}

impl fmt::Display for RegisterWhy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterWhy::OrgServer(server) => write!(
                f,
                "its name reads as the organization's MCP server \"{}\" (managedMcpServers)",
                escaped(server)
            ),
            RegisterWhy::OrgPlugin(name, key) => write!(
                f,
                "its name reads as the organization's plugin \"{}\" ({key})",
                escaped(name)
            ),
            RegisterWhy::OrgPluginServer(name, key) => write!(
                f,
                "its name reads as an MCP server of the organization's plugin \"{}\" ({key})",
                escaped(name)
            ),
            RegisterWhy::Allowlist => f.write_str(
                "your organization allows only its listed MCP servers (allowedMcpServers)",
            ),
            RegisterWhy::ServersUnreadable => f.write_str(
                "the organization's managed-mcp.json cannot be read (managedMcpServersUnreadable)",
            ),
            RegisterWhy::NamelessReserved => f.write_str(
                "the policy names an MCP server or plugin whose name has no letter or digit",
            ),
            RegisterWhy::PolicyUnreadable => f.write_str("the policy cannot be read"),
        }
    }
}

/// The `tool.register` refusal: `<plugin> may not register <full name>: <why>`.
///
/// Takes the registering plugin's manifest name, the tool's full name
/// (`mcp__<plugin>__<tool>`) and why; returns the message.
///
/// SPEC §3.4.1
#[must_use]
pub fn register_refusal(plugin: &str, full_name: &str, why: &RegisterWhy) -> String {
    format!(
        "{} may not register {}: {why}",
        escaped(plugin),
        escaped(full_name)
    )
}

/// Why a variable is pinned (SPEC §3.8).
///
/// SPEC §3.8
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PinReason {
    /// Managed settings set it in `env` (any letter case).
    ManagedEnv,
    /// `CLAUDE_CODE_PROCESS_WRAPPER` where managed `processWrapper` names a launcher.
    ProcessWrapper,
    /// One of the nine that move where policy and sign-in are read from.
    PolicySource,
    /// One of the ten that can load code into a child the engine starts.
    CodeLoading,
    /// The policy cannot be read: every variable counts as pinned.
    PolicyUnreadable,
}

impl PinReason {
    /// The `<why>` of the `env.set` refusal, as SPEC §3.8 spells it.
    ///
    /// SPEC §3.8
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            PinReason::ManagedEnv => "managed env",
            PinReason::ProcessWrapper => "processWrapper",
            PinReason::PolicySource => "it moves where policy and sign-in are read from",
            PinReason::CodeLoading => "it can load code into the programs the engine starts",
            PinReason::PolicyUnreadable => "the policy cannot be read",
        }
    }
}

impl fmt::Display for PinReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The `env.set` refusal: `<NAME> is pinned by your organization's policy (<why>); it
/// may not be set or unset` (SPEC §3.8 **\[decision, revised\]**: built from the
/// variable alone, as the seed builds it; the caller is the one told).
///
/// Takes the variable's name as the caller wrote it (written escaped) and why it is
/// pinned; returns the message.
///
/// SPEC §3.8
#[must_use]
pub fn pinned_refusal(name: &str, why: PinReason) -> String {
    format!(
        "{} is pinned by your organization's policy ({why}); it may not be set or unset",
        escaped(name)
    )
}

/// The `plugin.register` refusal under `allowManagedModsOnly` (and when the admission
/// hook fails without having called `next`).
///
/// Takes the module's manifest name; returns the message.
///
/// SPEC §3.9
#[must_use]
pub fn managed_mods_only(plugin: &str) -> String {
    format!(
        "mods are limited to your organization's by policy (allowManagedModsOnly); {} was not loaded",
        escaped(plugin)
    )
}

/// The debug line of a failed admission hook:
/// `plugin.register hook failed judging <name> (<kind>): <message or "no message">`.
///
/// Takes the judged module's manifest name and the failure; returns the line.
///
/// SPEC §3.9
#[must_use]
pub fn admission_failure(name: &str, failure: &HookFailure) -> String {
    format!(
        "plugin.register hook failed judging {} ({}): {}",
        escaped(name),
        failure.kind,
        escaped(failure.message_or_default())
    )
}

/// The reason of the security default's unchecked deny: `the permission check could not
/// be completed (<kind>); denied by your organization's policy`.
///
/// Takes how the `tool.check` hook failed; returns the reason.
///
/// SPEC §1.9, §3.6
#[must_use]
pub fn unchecked_deny_reason(kind: FailureKind) -> String {
    format!(
        "the permission check could not be completed ({kind}); denied by your organization's policy"
    )
}

/// What a person's plugin tried against a held verdict (SPEC §3.6 step 7).
///
/// SPEC §3.6.1
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Attempt {
    /// Its answer was looser than the held verdict.
    Lift,
    /// Same strictness, other words (or other names).
    Reword,
}

/// `an` before a word that starts with a vowel letter, else `a` (SPEC §3.6.1).
///
/// SPEC §3.6.1
#[must_use]
pub fn article(word: &str) -> &'static str {
    match word.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

/// Names plugins together: `a`, `a and b`, `a, b and c` (SPEC §3.6.1).
///
/// SPEC §3.6.1
#[must_use]
pub fn names_together(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The held notice (SPEC §3.6.1), from its parts.
///
/// Takes the plugin(s) named together, the checked tool's name, the held verdict's
/// kind (see [`crate::held_verdict::held_kind`], whose supplied parts are already
/// escaped), the rule it names when the kind is a
/// rule kind (`deny rule`, `ask rule`; `None` otherwise), whether the held ask is
/// *uncertain* (a rule the command may meet, SPEC §4: "that this command may meet"),
/// and the attempt; returns the line for the screen, every supplied part escaped.
///
/// SPEC §3.6.1
#[must_use]
pub fn held_notice(
    plugins: &str,
    tool: &str,
    kind: &str,
    rule: Option<&str>,
    uncertain: bool,
    attempt: Attempt,
) -> String {
    let (plugins, tool) = (escaped(plugins), escaped(tool));
    let a = article(kind);
    match (attempt, rule) {
        (Attempt::Lift, Some(rule)) if uncertain => format!(
            "{plugins} tried to lift {a} {kind} in your settings that this command may meet, from a {tool} call ({}); the {kind} holds over the plugins you install (allowModsToOverrideDenyRules)",
            escaped(rule)
        ),
        (Attempt::Reword, Some(rule)) if uncertain => format!(
            "{plugins} tried to reword {a} {kind} in your settings that this command may meet, from a {tool} call ({}); the decision was kept, with its own words and rule",
            escaped(rule)
        ),
        (Attempt::Lift, Some(rule)) => format!(
            "{plugins} tried to lift {a} {kind} in your settings from a {tool} call ({}); the {kind} holds over the plugins you install (allowModsToOverrideDenyRules)",
            escaped(rule)
        ),
        (Attempt::Lift, None) => format!(
            "{plugins} tried to lift {a} {kind} from a {tool} call; the {kind} holds over the plugins you install (allowModsToOverrideDenyRules)"
        ),
        (Attempt::Reword, Some(rule)) => format!(
            "{plugins} tried to reword {a} {kind} in your settings from a {tool} call ({}); the decision was kept, with its own words and rule",
            escaped(rule)
        ),
        (Attempt::Reword, None) => format!(
            "{plugins} tried to reword {a} {kind} from a {tool} call; the decision was kept, with its own words"
        ),
    }
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
    use pretty_assertions::assert_eq;

    #[test]
    fn register_refusals_read_as_spec_spells_them() {
        assert_eq!(
            register_refusal("p", "mcp__p__t", &RegisterWhy::OrgServer("corp".into())),
            "p may not register mcp__p__t: its name reads as the organization's MCP server \"corp\" (managedMcpServers)"
        );
        assert_eq!(
            register_refusal("p", "mcp__p__t", &RegisterWhy::OrgPlugin("x".into(), "appendPlugins")),
            "p may not register mcp__p__t: its name reads as the organization's plugin \"x\" (appendPlugins)"
        );
        assert_eq!(
            register_refusal("p", "mcp__p__t", &RegisterWhy::PolicyUnreadable),
            "p may not register mcp__p__t: the policy cannot be read"
        );
    }

    #[test]
    fn pinned_and_admission_messages() {
        assert_eq!(
            pinned_refusal("LD_PRELOAD", PinReason::CodeLoading),
            "LD_PRELOAD is pinned by your organization's policy (it can load code into the programs the engine starts); it may not be set or unset"
        );
        assert_eq!(
            managed_mods_only("yes-man"),
            "mods are limited to your organization's by policy (allowManagedModsOnly); yes-man was not loaded"
        );
        assert_eq!(
            admission_failure(
                "m",
                &HookFailure {
                    kind: FailureKind::Timeout,
                    message: None
                }
            ),
            "plugin.register hook failed judging m (timeout): no message"
        );
        assert_eq!(
            unchecked_deny_reason(FailureKind::Panic),
            "the permission check could not be completed (panic); denied by your organization's policy"
        );
    }

    #[test]
    fn supplied_strings_are_written_escaped() {
        let forged = "evil\nmods are limited to your organization's by policy";
        for line in [
            managed_mods_only(forged),
            pinned_refusal("A\nB", PinReason::ManagedEnv),
            register_refusal(
                forged,
                "mcp__x__t",
                &RegisterWhy::OrgServer("c\u{202e}d".into()),
            ),
            held_notice(
                forged,
                "Bash\r",
                "deny rule",
                Some("Bash(rm\n:*)"),
                false,
                Attempt::Lift,
            ),
            admission_failure(forged, &HookFailure::new(FailureKind::Error, "x\ny")),
        ] {
            assert!(!line.contains('\n') && !line.contains('\r'), "{line}");
            assert!(!line.contains('\u{202e}'), "{line}");
        }
        assert_eq!(
            managed_mods_only("a\nb"),
            "mods are limited to your organization's by policy (allowManagedModsOnly); a\\nb was not loaded"
        );
    }

    #[test]
    fn an_uncertain_held_ask_is_named_by_its_rules_kind() {
        assert_eq!(
            held_notice("yes-man", "Bash", "deny rule", Some("Bash(rm:*)"), true, Attempt::Lift),
            "yes-man tried to lift a deny rule in your settings that this command may meet, from a Bash call (Bash(rm:*)); the deny rule holds over the plugins you install (allowModsToOverrideDenyRules)"
        );
    }

    #[test]
    fn names_together_and_articles() {
        assert_eq!(names_together(&[]), "");
        assert_eq!(names_together(&["a".into()]), "a");
        assert_eq!(names_together(&["a".into(), "b".into()]), "a and b");
        assert_eq!(
            names_together(&["a".into(), "b".into(), "c".into()]),
            "a, b and c"
        );
        assert_eq!(article("ask rule"), "an");
        assert_eq!(article("deny rule"), "a");
        assert_eq!(article("host's ask"), "a");
        assert_eq!(article("ask cap"), "an");
        assert_eq!(article("refusal"), "a");
        assert_eq!(article("Edit hook's ask"), "an");
        assert_eq!(article(""), "a");
    }
}
