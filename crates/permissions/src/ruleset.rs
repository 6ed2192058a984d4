//! The rules in force, gathered from every settings source (SPEC §4 "Sources").

use crate::index::{AnchorCache, Anchors, Index};
use crate::path::normalize;
use crate::rule::{parse_rule, Behavior, Rule, RuleSpec, RuleWarning, Specifier, ToolPattern};
use crate::{Mode, SessionFacts, SettingsSource};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// Tool names the core knows; a deny or ask rule for another name without `_` or `*`
/// gets a warning (reference §3.2).
const KNOWN_TOOLS: &[&str] = &[
    "Agent",
    "Bash",
    "Cd",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "LSP",
    "Monitor",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "PowerShell",
    "Read",
    "Skill",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WebFetch",
    "WebSearch",
    "Write",
    "BashOutput",
    "SlashCommand",
    "EnterPlanMode",
];

/// File tools whose path rules Claude Code accepts but never consults (reference
/// §3.2): here a deny or ask one is read as an `Edit` (or `Read`) rule, an allow one
/// applies to its own tool only.
const UNCONSULTED_PATH_TOOLS: &[&str] = &[
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
];

/// All permission rules in force, in deciding order: by source (policy, cli, flag,
/// session, local, project, user), then file order (SPEC §4).
///
/// Built from each source's settings object with [`RuleSet::from_sources`]; missing
/// or odd shapes are tolerated with warnings.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    rules: Vec<Rule>,
    managed_only: bool,
    bypass_disabled: bool,
    auto_disabled: bool,
    block_reads: bool,
    additional_dirs: Vec<(SettingsSource, String)>,
    /// The rules compiled for lookup (built once, with the rules).
    index: Arc<Index>,
    /// The anchors of the sessions asked about, by (cwd, home).
    anchors: AnchorCache,
    /// Rule warnings past [`MAX_RULE_WARNINGS`], counted while building.
    suppressed_warnings: usize,
}

/// The most rule warnings [`RuleSet::from_sources`] lists; past it they are counted in
/// one more warning (a hostile file with millions of bad rules floods no memory).
pub(crate) const MAX_RULE_WARNINGS: usize = 1_000;

impl RuleSet {
    /// Gathers `permissions.allow`, `permissions.ask` and `permissions.deny` of every
    /// source (SPEC §4, reference §3.1). Returns the rules and the warnings about
    /// entries that did not parse or were dropped.
    ///
    /// - Rules **accumulate** across sources. When the [`SettingsSource::Policy`]
    ///   settings have a top-level `allowManagedPermissionRulesOnly` that is present
    ///   and not `false` (an invalid value keeps its strict reading, SPEC §2.1), only
    ///   policy rules count.
    /// - A deny or ask rule that names a tool but does not parse stands for its whole
    ///   tool; a string that names no tool at all (a comment such as `// block
    ///   secrets`, prose, an empty string) is not a rule and is dropped, as Claude Code
    ///   drops it (SPEC §4 **\[decision, revised\]**); an allow rule that does not parse,
    ///   or an allow rule with a tool-name glob not after a literal `mcp__<server>__`, is
    ///   dropped. Each gets a [`RuleWarning`]. A list given as one string is read as one rule.
    /// - `permissions.disableBypassPermissionsMode: "disable"` in any source turns
    ///   `bypassPermissions` into `default` for [`crate::decide`];
    ///   `disableAutoMode: "disable"` (top level or in `permissions`) does the same
    ///   for `auto`.
    /// - `permissions.additionalDirectories` accumulate across sources (they are no
    ///   rules: `allowManagedPermissionRulesOnly` leaves them);
    ///   `permissions.blockReadsOutsideWorkingDirectories: true` in any source turns
    ///   the read block on (SPEC §3.6).
    /// - Warnings also name rules that can never apply: an allow rule whose whole
    ///   tool a bare deny or ask rule takes, a path rule for a tool whose path rules
    ///   Claude Code never consults, a deny or ask rule for a tool name nobody knows.
    #[must_use]
    pub fn from_sources(sources: &[(SettingsSource, &Value)]) -> (RuleSet, Vec<RuleWarning>) {
        let managed_only = sources.iter().any(|(s, v)| {
            *s == SettingsSource::Policy
                && v.get("allowManagedPermissionRulesOnly")
                    .is_some_and(|flag| *flag != Value::Bool(false))
        });
        let bypass_disabled = sources.iter().any(|(_, v)| {
            v.get("permissions")
                .and_then(|p| p.get("disableBypassPermissionsMode"))
                .and_then(Value::as_str)
                == Some("disable")
        });
        let auto_disabled = sources.iter().any(|(_, v)| {
            v.get("disableAutoMode").and_then(Value::as_str) == Some("disable")
                || v.get("permissions")
                    .and_then(|p| p.get("disableAutoMode"))
                    .and_then(Value::as_str)
                    == Some("disable")
        });
        let block_reads = sources.iter().any(|(_, v)| {
            v.get("permissions")
                .and_then(|p| p.get("blockReadsOutsideWorkingDirectories"))
                .is_some_and(|b| *b == Value::Bool(true))
        });
        let additional_dirs = sources
            .iter()
            .flat_map(|(s, v)| {
                v.get("permissions")
                    .and_then(|p| p.get("additionalDirectories"))
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(move |d| (*s, d.to_owned()))
            })
            .collect();
        let mut set = RuleSet {
            rules: Vec::new(),
            managed_only,
            bypass_disabled,
            auto_disabled,
            block_reads,
            additional_dirs,
            index: Arc::default(),
            anchors: AnchorCache::default(),
            suppressed_warnings: 0,
        };
        let mut warnings = Vec::new();
        for (source, settings) in sources {
            if managed_only && *source != SettingsSource::Policy {
                continue;
            }
            let Some(perms) = settings.get("permissions") else {
                continue;
            };
            if !perms.is_object() {
                warnings.push(RuleWarning {
                    source: *source,
                    pointer: "/permissions".to_owned(),
                    rule: String::new(),
                    reason: "`permissions` is not an object; its rules are ignored".to_owned(),
                });
                continue;
            }
            for behavior in [Behavior::Deny, Behavior::Ask, Behavior::Allow] {
                set.add_list(
                    *source,
                    behavior,
                    perms.get(behavior.as_str()),
                    &mut warnings,
                );
            }
        }
        if warnings.len() > MAX_RULE_WARNINGS {
            warnings.truncate(MAX_RULE_WARNINGS);
            set.suppressed_warnings += 1;
        }
        if set.suppressed_warnings > 0 {
            warnings.push(RuleWarning {
                source: SettingsSource::Policy,
                pointer: String::new(),
                rule: String::new(),
                reason: format!(
                    "{} more rule warnings like those above; only the first {MAX_RULE_WARNINGS} are listed",
                    set.suppressed_warnings
                ),
            });
        }
        set.rules.sort_by_key(|r| r.source.precedence());
        set.index = Arc::new(Index::build(&set.rules));
        set.warn_never_applying(&mut warnings);
        (set, warnings)
    }

    fn warn_never_applying(&self, warnings: &mut Vec<RuleWarning>) {
        let warn = |r: &Rule, reason: String| RuleWarning {
            source: r.source,
            pointer: format!("/permissions/{}/{}", r.behavior.as_str(), r.index),
            rule: r.text.clone(),
            reason,
        };
        for r in &self.rules {
            if r.unparsed.is_some() {
                continue;
            }
            if let ToolPattern::Exact(name) = &r.spec.tool {
                if matches!(r.spec.specifier, Specifier::Path(_))
                    && UNCONSULTED_PATH_TOOLS.contains(&name.as_str())
                {
                    let how = if r.behavior.is_strict() {
                        "here it is applied as an Edit/Read rule of the same path"
                    } else {
                        "here it allows only that tool"
                    };
                    warnings.push(warn(
                        r,
                        format!("Claude Code consults only Read and Edit path rules for file checks; {how}"),
                    ));
                }
                if r.behavior.is_strict()
                    && !KNOWN_TOOLS.contains(&name.as_str())
                    && !name.contains('_')
                {
                    warnings.push(warn(
                        r,
                        format!("{name:?} is not a tool this core knows; the rule matches only a tool of exactly that name"),
                    ));
                }
            }
            if r.behavior == Behavior::Allow {
                let takes_whole = self.rules.iter().find(|o| {
                    o.behavior.is_strict()
                        && matches!(o.spec.specifier, Specifier::Any)
                        && match (&o.spec.tool, &r.spec.tool) {
                            (ToolPattern::Exact(a), ToolPattern::Exact(b)) => {
                                crate::rule::canonical_tool(a) == crate::rule::canonical_tool(b)
                            }
                            (ToolPattern::Glob(..), ToolPattern::Exact(b)) => {
                                o.spec.tool.matches(b)
                            }
                            (ToolPattern::McpServer(_), ToolPattern::Exact(b)) => {
                                o.spec.tool.matches(b)
                            }
                            _ => false,
                        }
                });
                if let Some(o) = takes_whole {
                    warnings.push(warn(
                        r,
                        format!(
                            "can never apply: the {} rule {} in {} settings takes its whole tool",
                            o.behavior.as_str(),
                            o.text,
                            o.source
                        ),
                    ));
                }
            }
        }
    }

    fn add_list(
        &mut self,
        source: SettingsSource,
        behavior: Behavior,
        list: Option<&Value>,
        warnings: &mut Vec<RuleWarning>,
    ) {
        let base = format!("/permissions/{}", behavior.as_str());
        let entries: Vec<(String, &Value)> = match list {
            None | Some(Value::Null) => return,
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("{base}/{i}"), v))
                .collect(),
            Some(one @ Value::String(_)) => {
                warnings.push(RuleWarning {
                    source,
                    pointer: base.clone(),
                    rule: one.as_str().unwrap_or_default().to_owned(),
                    reason: "a single string where a list was due; read as a list of one rule"
                        .to_owned(),
                });
                vec![(base.clone(), one)]
            }
            Some(_) => {
                warnings.push(RuleWarning {
                    source,
                    pointer: base,
                    rule: String::new(),
                    reason: "not a list of rules; ignored".to_owned(),
                });
                return;
            }
        };
        for (index, (pointer, value)) in entries.into_iter().enumerate() {
            // A hostile list of millions of bad rules must not flood memory with as many
            // warnings: past the cap they are counted, and one warning says how many.
            if warnings.len() > MAX_RULE_WARNINGS {
                warnings.truncate(MAX_RULE_WARNINGS);
                self.suppressed_warnings += 1;
            }
            let Some(text) = value.as_str() else {
                warnings.push(RuleWarning {
                    source,
                    pointer,
                    rule: String::new(),
                    reason: "not a string; ignored".to_owned(),
                });
                continue;
            };
            self.add_rule(source, behavior, index, pointer, text, warnings);
        }
    }

    fn add_rule(
        &mut self,
        source: SettingsSource,
        behavior: Behavior,
        index: usize,
        pointer: String,
        text: &str,
        warnings: &mut Vec<RuleWarning>,
    ) {
        let (spec, unparsed) = match parse_rule(text, behavior) {
            Ok(spec) => (spec, None),
            Err(e) if behavior == Behavior::Allow => {
                warnings.push(RuleWarning {
                    source,
                    pointer,
                    rule: text.to_owned(),
                    reason: format!("{}; this allow rule is dropped", e.reason),
                });
                return;
            }
            // SPEC §4 [decision, revised]: a string that names no tool at all (a comment
            // such as `// block secrets`, prose, an empty string) is not a rule: dropped
            // with a warning, as Claude Code drops it; it never denies every tool.
            Err(e) if e.tool.is_none() => {
                warnings.push(RuleWarning {
                    source,
                    pointer,
                    rule: text.to_owned(),
                    reason: format!(
                        "{}, so it is not a rule; dropped, as Claude Code drops it",
                        e.reason
                    ),
                });
                return;
            }
            Err(e) => {
                let tool = e.tool.unwrap_or_else(ToolPattern::any);
                warnings.push(RuleWarning {
                    source,
                    pointer,
                    rule: text.to_owned(),
                    reason: format!(
                        "{}; this {} rule applies to its whole tool",
                        e.reason,
                        behavior.as_str()
                    ),
                });
                (RuleSpec::whole(tool), Some(e.reason))
            }
        };
        self.rules.push(Rule {
            text: text.to_owned(),
            source,
            behavior,
            index,
            spec,
            unparsed,
        });
    }

    /// The machine with `rule` as its only rule: every other setting of this set
    /// (`disableBypassPermissionsMode`, `disableAutoMode`,
    /// `blockReadsOutsideWorkingDirectories`, `additionalDirectories`,
    /// `allowManagedPermissionRulesOnly`) unchanged, the rule as parsed here (no
    /// settings read again). What [`crate::explain()`] asks each rule.
    pub(crate) fn alone(&self, rule: &Rule) -> RuleSet {
        let rules = vec![rule.clone()];
        RuleSet {
            index: Arc::new(Index::build(&rules)),
            rules,
            managed_only: self.managed_only,
            bypass_disabled: self.bypass_disabled,
            auto_disabled: self.auto_disabled,
            block_reads: self.block_reads,
            additional_dirs: self.additional_dirs.clone(),
            anchors: AnchorCache::default(),
            suppressed_warnings: 0,
        }
    }

    /// Whether no rule is in force (SPEC §4).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// How many rules are in force: `(deny, ask, allow)` (SPEC §4).
    #[must_use]
    pub fn counts(&self) -> (usize, usize, usize) {
        let n = |b: Behavior| self.rules.iter().filter(|r| r.behavior == b).count();
        (n(Behavior::Deny), n(Behavior::Ask), n(Behavior::Allow))
    }

    /// Every rule in force, in deciding order (SPEC §4).
    #[must_use]
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The rules of one behavior, in deciding order.
    ///
    /// SPEC §4.
    pub fn of(&self, behavior: Behavior) -> impl Iterator<Item = &Rule> {
        self.rules.iter().filter(move |r| r.behavior == behavior)
    }

    /// Whether the policy's `allowManagedPermissionRulesOnly` is in force (SPEC §4).
    #[must_use]
    pub fn managed_only(&self) -> bool {
        self.managed_only
    }

    /// Whether `disableBypassPermissionsMode: "disable"` is set (reference §3.4).
    #[must_use]
    pub fn bypass_disabled(&self) -> bool {
        self.bypass_disabled
    }

    /// Whether `disableAutoMode: "disable"` is set (reference §3.4).
    #[must_use]
    pub fn auto_disabled(&self) -> bool {
        self.auto_disabled
    }

    /// The mode the core decides by when the session asks for `mode`:
    /// `bypassPermissions` with bypass disabled, and `auto` with auto disabled, are
    /// `default` (reference §3.4; SPEC §4 "Defaults").
    #[must_use]
    pub fn effective_mode(&self, mode: Mode) -> Mode {
        match mode {
            Mode::BypassPermissions if self.bypass_disabled => Mode::Default,
            Mode::Auto if self.auto_disabled => Mode::Default,
            m => m,
        }
    }

    /// Whether `permissions.blockReadsOutsideWorkingDirectories` is on (SPEC §3.6).
    #[must_use]
    pub fn blocks_reads_outside(&self) -> bool {
        self.block_reads
    }

    /// The `permissions.additionalDirectories` of every source, as written (SPEC §4;
    /// reference §3.5).
    #[must_use]
    pub fn additional_directories(&self) -> &[(SettingsSource, String)] {
        &self.additional_dirs
    }

    /// The compiled index of the rules.
    pub(crate) fn index(&self) -> &Index {
        &self.index
    }

    /// The anchors (and working directories) of a session with `facts`, resolved
    /// once per (cwd, home).
    pub(crate) fn anchors(&self, facts: &SessionFacts) -> Arc<Anchors> {
        self.anchors.get(facts, &self.additional_dirs)
    }

    /// The working directories of a session with `facts`, normalized: its working
    /// directory, then each additional directory (`//abs` and `/abs` absolute, `~/`
    /// under the home directory, anything else relative to the working directory;
    /// reference §3.5).
    #[must_use]
    pub fn working_dirs(&self, facts: &SessionFacts) -> Vec<Vec<String>> {
        let mut out = vec![normalize(&facts.cwd, &facts.cwd, &facts.home)];
        for (_, d) in &self.additional_dirs {
            let d = d
                .strip_prefix('/')
                .filter(|r| r.starts_with('/'))
                .unwrap_or(d);
            let n = normalize(Path::new(d), &facts.cwd, &facts.home);
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accumulates_in_deciding_order() {
        let user = json!({"permissions": {"deny": ["Bash(a:*)"], "allow": ["Read"]}});
        let policy = json!({"permissions": {"deny": ["Bash(b:*)", "Bash(c:*)"]}});
        let local = json!({"permissions": {"ask": ["Bash"]}});
        let (set, w) = RuleSet::from_sources(&[
            (SettingsSource::User, &user),
            (SettingsSource::Policy, &policy),
            (SettingsSource::Local, &local),
        ]);
        assert!(w.is_empty());
        assert_eq!(set.counts(), (3, 1, 1));
        let texts: Vec<_> = set
            .of(Behavior::Deny)
            .map(|r| (r.source, r.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            vec![
                (SettingsSource::Policy, "Bash(b:*)"),
                (SettingsSource::Policy, "Bash(c:*)"),
                (SettingsSource::User, "Bash(a:*)")
            ]
        );
    }

    #[test]
    fn managed_rules_only() {
        let user = json!({"permissions": {"allow": ["Bash"]}});
        let policy =
            json!({"allowManagedPermissionRulesOnly": true, "permissions": {"ask": ["Bash"]}});
        let (set, _) = RuleSet::from_sources(&[
            (SettingsSource::User, &user),
            (SettingsSource::Policy, &policy),
        ]);
        assert!(set.managed_only());
        assert_eq!(set.counts(), (0, 1, 0));
        // Invalid value: strict reading.
        let policy = json!({"allowManagedPermissionRulesOnly": "yes"});
        let (set, _) = RuleSet::from_sources(&[
            (SettingsSource::User, &user),
            (SettingsSource::Policy, &policy),
        ]);
        assert!(set.is_empty());
        // Misplaced inside permissions: not in force.
        let policy = json!({"permissions": {"allowManagedPermissionRulesOnly": true}});
        let (set, _) = RuleSet::from_sources(&[
            (SettingsSource::User, &user),
            (SettingsSource::Policy, &policy),
        ]);
        assert_eq!(set.counts(), (0, 0, 1));
        // Only the policy source can set it.
        let user2 =
            json!({"allowManagedPermissionRulesOnly": true, "permissions": {"allow": ["Read"]}});
        let (set, _) = RuleSet::from_sources(&[(SettingsSource::User, &user2)]);
        assert_eq!(set.counts(), (0, 0, 1));
    }

    #[test]
    fn odd_shapes_are_tolerated() {
        let s =
            json!({"permissions": {"deny": "Bash(rm:*)", "ask": 3, "allow": [1, "Read", null]}});
        let (set, w) = RuleSet::from_sources(&[(SettingsSource::Project, &s)]);
        assert_eq!(set.counts(), (1, 0, 1));
        let pointers: Vec<_> = w.iter().map(|w| w.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            vec![
                "/permissions/deny",
                "/permissions/ask",
                "/permissions/allow/0",
                "/permissions/allow/2"
            ]
        );
        let (set, w) =
            RuleSet::from_sources(&[(SettingsSource::Project, &json!({"permissions": []}))]);
        assert!(set.is_empty());
        assert_eq!(w.len(), 1);
        let (set, w) = RuleSet::from_sources(&[(SettingsSource::Project, &json!("not an object"))]);
        assert!(set.is_empty() && w.is_empty());
    }

    #[test]
    fn millions_of_bad_rules_list_a_thousand_warnings_and_count_the_rest() {
        let bad: Vec<String> = (0..3_000).map(|i| format!("Read([{i}")).collect();
        let s = json!({"permissions": {"deny": bad}});
        let (set, w) = RuleSet::from_sources(&[(SettingsSource::Policy, &s)]);
        assert_eq!(set.counts().0, 3_000, "every rule still denies its tool");
        assert_eq!(w.len(), MAX_RULE_WARNINGS + 1);
        assert!(
            w[MAX_RULE_WARNINGS]
                .reason
                .starts_with("2000 more rule warnings"),
            "{:?}",
            w.last()
        );
    }

    #[test]
    fn unparseable_rules() {
        let s = json!({"permissions": {"deny": ["Read([)", "(bad"], "ask": ["Bash("], "allow": ["Read([)", "*"]}});
        let (set, w) = RuleSet::from_sources(&[(SettingsSource::Policy, &s)]);
        assert_eq!(
            set.counts(),
            (1, 1, 0),
            "\"(bad\" names no tool: not a rule"
        );
        assert_eq!(w.len(), 5);
        assert_eq!(
            w.first().map(|w| w.pointer.as_str()),
            Some("/permissions/deny/0")
        );
        assert!(w.iter().any(|w| w
            .reason
            .ends_with("not a rule; dropped, as Claude Code drops it")));
        assert!(w.iter().any(|w| w.reason.ends_with("dropped")));
        assert!(set
            .rules()
            .iter()
            .filter(|r| r.behavior != Behavior::Allow)
            .all(|r| r.unparsed.is_some()));
    }

    #[test]
    fn bypass_disable() {
        let p = json!({"permissions": {"disableBypassPermissionsMode": "disable"}});
        let (set, _) = RuleSet::from_sources(&[(SettingsSource::Policy, &p)]);
        assert!(set.bypass_disabled());
        let (set, _) = RuleSet::from_sources(&[]);
        assert!(!set.bypass_disabled());
    }
}
