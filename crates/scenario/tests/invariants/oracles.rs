//! Oracles, from the SPEC.

use super::*;

/// `fold(s)` (SPEC §3.4.1): every character outside ASCII letters and digits becomes a
/// separator, letters are lower-cased, and every run of separators is one `_`.
fn fold(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out
}

/// The composed and decomposed forms of a name of the pools (the only non-ASCII letter
/// they use is `é`).
fn forms(name: &str) -> Vec<String> {
    let nfc = name.replace("e\u{301}", "\u{e9}");
    let nfd = nfc.replace('\u{e9}', "e\u{301}");
    if nfc == nfd {
        vec![nfc]
    } else {
        vec![nfc, nfd]
    }
}

/// Ids compared as the engine compares them: NFC, then lower case (SPEC §2.2).
#[allow(clippy::indexing_slicing)]
fn ids_eq(a: &str, b: &str) -> bool {
    forms(a)[0].to_lowercase() == forms(b)[0].to_lowercase()
}

fn id_name(id: &str) -> &str {
    id.rsplit_once('@').map_or(id, |(n, _)| n)
}

/// What the policy means, computed from the generated model (SPEC §2).
#[derive(Debug, Clone)]
pub(crate) struct Facts {
    readable: bool,
    content: bool,
    pub(crate) seated: bool,
    /// Deny rules hold (SPEC §3.6 step 4): seated, and not `allowModsToOverrideDenyRules`
    /// literal `true` in a policy that was read.
    pub(crate) deny_holds: bool,
    /// No `user` module may be admitted (SPEC §3.9, §5.5).
    pub(crate) mods_locked: bool,
}

pub(crate) fn facts(c: &Case) -> Facts {
    let p = &c.policy;
    let readable =
        !matches!(p.file, SettingsFile::Broken | SettingsFile::Empty) && p.dropin != Some(false);
    let content = readable && p.file == SettingsFile::Content;
    let seated = !readable
        || !content
        || match &p.prepend {
            None => true,
            Some((us, _)) => us.is_some_and(|id| ids_eq(id, SEC_DEFAULT_ID)),
        };
    let options = content && !p.configs_void;
    let override_deny = options && p.override_deny == Opt::True;
    let mods_only = options && !matches!(p.mods_only, Opt::Absent | Opt::False);
    Facts {
        readable,
        content,
        seated,
        deny_holds: seated && (!readable || !override_deny),
        mods_locked: seated && (!readable || mods_only),
    }
}

/// Whether a variable is pinned (SPEC §3.8), names compared in any letter case.
pub(crate) fn pinned(c: &Case, f: &Facts, name: &str) -> bool {
    let eq = |a: &str, b: &str| a.to_lowercase() == b.to_lowercase();
    if !f.readable {
        return true;
    }
    ALWAYS_PINNED.iter().any(|n| eq(n, name))
        || (f.content && c.policy.env.iter().any(|(n, _)| eq(n, name)))
        || (f.content && c.policy.process_wrapper && eq("CLAUDE_CODE_PROCESS_WRAPPER", name))
}

/// Whether a `user` plugin's registration of `tool` must be refused (SPEC §3.4 steps
/// 1–5, the exemption), by an oracle of its own.
pub(crate) fn must_refuse_registration(
    c: &Case,
    f: &Facts,
    plugin: &PluginGen,
    tool: &str,
) -> bool {
    let p = &c.policy;
    if !f.readable || matches!(p.mcp, McpFile::Garbage(_)) {
        return true;
    }
    if f.content && p.allowed.is_some() {
        return true;
    }
    // Servers: managed settings' and managed-mcp.json's.
    let mut servers: Vec<&str> = Vec::new();
    if f.content {
        servers.extend(&p.servers);
    }
    if p.mcp == McpFile::Valid {
        servers.extend(&p.mcp_servers);
    }
    // Org plugins: (id, owner id) by key.
    let mut org: Vec<&str> = Vec::new();
    if f.content {
        if let Some((us, others)) = &p.prepend {
            org.extend(us.iter().copied());
            org.extend(others.iter().copied());
        }
        org.extend(&p.append);
        org.extend(
            p.enabled
                .iter()
                .filter(|(_, s)| *s != Enabled::False)
                .map(|(id, _)| *id),
        );
    }
    let nothing = |s: &str| !s.chars().any(|c| c.is_ascii_alphanumeric());
    if servers.iter().any(|s| nothing(s))
        || org
            .iter()
            .any(|id| forms(id_name(id)).iter().any(|n| nothing(n)))
    {
        return true;
    }
    let name = plugin
        .name
        .clone()
        .unwrap_or_else(|| id_name(&plugin.id).to_owned());
    let full = fold(&format!("mcp__{name}__{tool}"));
    let reads_as = |scope: &str| full.starts_with(&fold(scope));
    if servers.iter().any(|s| reads_as(&format!("mcp__{s}__"))) {
        return true;
    }
    // The exemption: the caller's recorded id is turned on by `enabledPlugins: true`.
    let vouched: Vec<&str> = if f.content {
        p.enabled
            .iter()
            .filter(|(id, s)| *s == Enabled::True && ids_eq(id, &plugin.id))
            .map(|(id, _)| *id)
            .collect()
    } else {
        Vec::new()
    };
    org.iter()
        .filter(|id| !vouched.iter().any(|v| ids_eq(v, id)))
        .any(|id| {
            forms(id_name(id))
                .iter()
                .any(|n| reads_as(&format!("mcp__{n}__")) || reads_as(&format!("mcp__plugin_{n}_")))
        })
}

pub(crate) fn tier_of(c: &Case, from: Option<&str>) -> Tier {
    match from {
        None => Tier::Core,
        Some(SEC_DEFAULT_ID) => Tier::Prepend,
        Some(id) => c
            .plugins
            .iter()
            .find(|p| p.id == id)
            .map_or(Tier::Core, |p| p.tier),
    }
}

const PAST_USERS_ALWAYS: &[&str] = &[
    "prompt.section",
    "prompt.context",
    "prompt.attachment",
    "prompt.compose",
    "skill.prompt",
    "attribution.text",
    "session.compact",
    "settings.read",
];

/// Whether the security default holds this step past the user tier (SPEC §3.1–§3.8,
/// the list of §5 invariant 2), or refuses it without calling `next` (a pinned
/// variable set by a `user` caller). `false` when it is not seated.
pub(crate) fn held(c: &Case, f: &Facts, s: &RStep) -> bool {
    if !f.seated || s.reload.is_some() {
        return false;
    }
    let caller = tier_of(c, s.from.as_deref());
    let org_caller = caller.is_managed();
    let field = |k: &str| s.event.get(k).and_then(Value::as_str);
    match s.raise.as_str() {
        r if r.starts_with("classic.") => true,
        r if PAST_USERS_ALWAYS.contains(&r) => true,
        "session.append" => match field("door") {
            Some("attachment" | "hook-context" | "compaction") => true,
            Some("tool-message") => field("tool") == Some("Skill"),
            Some("note") => org_caller,
            _ => false,
        },
        // SPEC §3.3: a subject provided by `user`, `builtin` or `core` passes; every other
        // (the organization's, or one whose provenance cannot be told) is held.
        "tool.describe" | "command.describe" | "agent.offer" | "agent.spawn" => !s
            .event
            .pointer("/provider/tier")
            .and_then(Value::as_str)
            .is_some_and(|t| matches!(t, "user" | "builtin" | "core")),
        "ui.log" | "env.get" | "tool.register" => org_caller,
        "env.set" => org_caller || pinned(c, f, field("name").unwrap_or_default()),
        _ => false,
    }
}

/// Whether the security default may change this step's answer at all: held events, and
/// the ones it judges (`tool.check`, `tool.list`, a `user` caller's `tool.register`,
/// `plugin.register`).
pub(crate) fn touched(c: &Case, f: &Facts, s: &RStep) -> bool {
    if !f.seated {
        return false;
    }
    held(c, f, s)
        || matches!(
            s.raise.as_str(),
            "tool.check" | "tool.list" | "plugin.register"
        )
        || (s.raise == "tool.register" && tier_of(c, s.from.as_deref()) == Tier::User)
}

pub(crate) fn verdict(v: &Value) -> Option<Verdict> {
    Verdict::from_value(v)
}

/// A verdict that holds (SPEC §3.6 step 6): a deny, or an ask naming a cause.
pub(crate) fn holds(v: &Verdict) -> bool {
    v.decision == Decision::Deny || (v.decision == Decision::Ask && v.names_a_cause())
}

pub(crate) fn user_ids(c: &Case) -> Vec<&str> {
    c.plugins
        .iter()
        .filter(|p| p.tier == Tier::User)
        .map(|p| p.id.as_str())
        .collect()
}

/// Whether the two worlds seat the same plugins of these tiers now (else their chains
/// differ for reasons of admission, not of the security default).
pub(crate) fn same_admissions(c: &Case, a: &World, b: &World, tiers: &[Tier]) -> bool {
    c.plugins
        .iter()
        .filter(|p| tiers.contains(&p.tier))
        .all(|p| a.admitted(&p.id) == b.admitted(&p.id))
}

/// Whether an `env.get` step reads the same value in both worlds (other steps do not
/// read the environment).
#[allow(clippy::indexing_slicing)]
pub(crate) fn same_env_for(a: &World, b: &World, s: &RStep) -> bool {
    match s.raise.as_str() {
        "env.get" => {
            let name = s.event["name"].as_str().unwrap_or_default();
            a.session.core().env_var(name) == b.session.core().env_var(name)
        }
        // The core expands a command's variables from the session's environment
        // (SPEC §4): a held `env.set` earlier may change what a check sees.
        "tool.check" | "tool.use" => a.session.core().env() == b.session.core().env(),
        _ => true,
    }
}
