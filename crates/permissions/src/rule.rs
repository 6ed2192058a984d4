//! Permission rules: their syntax, parsed into [`RuleSpec`] (SPEC §4 "Rule syntax";
//! reference §3.2).
//!
//! A rule is `Tool` or `Tool(specifier)`. The tool position is a tool name
//! (`Bash`, `deploy_agent`), an MCP server (`mcp__server`: every tool of that
//! server), or a tool-name glob with `*` (`mcp__*`, `*`; allow rules only after a
//! literal `mcp__<server>__`). The specifier's meaning depends on the tool:
//!
//! | Tool | Specifier | Meets |
//! |---|---|---|
//! | `Bash` | `cmd`, `cmd *`, legacy `cmd:*`; `*` alone = the whole tool | each part of the command |
//! | `Read`, `Edit`, `Write`, `MultiEdit`, `NotebookEdit`, `NotebookRead`, `Glob`, `Grep`, `LS` | gitignore-style path | `file_path`, `notebook_path`, `path` |
//! | `WebFetch` | `domain:host`, `domain:*.host` | the host of `url` |
//! | `Agent` / `Task` | agent type | `subagent_type` |
//! | `Skill` | skill name, `name *` | `skill` |
//! | any other tool | `param:value` (deny and ask only) | a top-level scalar input field |
//!
//! A rule that does not parse is never inert for deny and ask (SPEC §4
//! **\[decision\]**): it is kept as its whole tool (or every tool when not even the
//! tool name can be read), with a warning; an allow rule that does not parse is
//! dropped with a warning. That policy lives in [`crate::RuleSet::from_sources`]; this
//! module only says what parses.

use crate::path::{PathPattern, PathPatternError};
use crate::wildcard::Wildcard;
use crate::SettingsSource;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a rule does when it matches (SPEC §4): the settings list it was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Behavior {
    /// `permissions.allow`.
    Allow,
    /// `permissions.ask`.
    Ask,
    /// `permissions.deny`.
    Deny,
}

impl Behavior {
    /// The settings key: `allow`, `ask`, `deny`.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Behavior::Allow => "allow",
            Behavior::Ask => "ask",
            Behavior::Deny => "deny",
        }
    }

    /// Whether rules of this behavior match strictly: case-insensitively, and past
    /// wrappers (deny and ask; SPEC §4).
    #[must_use]
    pub fn is_strict(self) -> bool {
        self != Behavior::Allow
    }
}

impl fmt::Display for Behavior {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tool position of a rule (SPEC §4 "Rule syntax").
#[derive(Debug, Clone)]
pub enum ToolPattern {
    /// One tool by name. `Task` and `Agent` name the same tool.
    Exact(String),
    /// `mcp__server`: every tool of that MCP server.
    McpServer(String),
    /// A tool-name glob (`mcp__*`, `mcp__github__get_*`, `*`).
    Glob(String, Wildcard),
}

impl ToolPattern {
    /// Reads a tool position. `None` when the text is not a tool name.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn parse(name: &str) -> Option<ToolPattern> {
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || "_-*.".contains(c))
        {
            return None;
        }
        if name.contains('*') {
            return Some(ToolPattern::Glob(
                name.to_owned(),
                Wildcard::new(name, false),
            ));
        }
        if let Some(rest) = name.strip_prefix("mcp__") {
            if !rest.is_empty() && !rest.contains("__") {
                return Some(ToolPattern::McpServer(name.to_owned()));
            }
        }
        Some(ToolPattern::Exact(name.to_owned()))
    }

    /// Every tool.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn any() -> ToolPattern {
        ToolPattern::Glob("*".to_owned(), Wildcard::new("*", false))
    }

    /// Whether the pattern names `tool` (SPEC §4).
    #[must_use]
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            ToolPattern::Exact(name) => canonical_tool(name) == canonical_tool(tool),
            ToolPattern::McpServer(server) => {
                tool == server
                    || tool
                        .strip_prefix(server.as_str())
                        .is_some_and(|rest| rest.starts_with("__"))
            }
            ToolPattern::Glob(_, w) => w.matches(tool),
        }
    }

    /// Whether an allow rule may use this tool position: a glob only after a literal
    /// `mcp__<server>__` prefix (reference §3.2).
    #[must_use]
    pub fn allowed_in_allow_rules(&self) -> bool {
        match self {
            ToolPattern::Glob(text, _) => text
                .strip_prefix("mcp__")
                .and_then(|rest| rest.find("__").map(|i| rest.get(..i).unwrap_or_default()))
                .is_some_and(|server| !server.is_empty() && !server.contains('*')),
            _ => true,
        }
    }
}

/// The tool a name stands for: `Task` is the old name of `Agent`.
///
/// SPEC §4.
#[must_use]
pub fn canonical_tool(name: &str) -> &str {
    if name == "Task" {
        "Agent"
    } else {
        name
    }
}

/// The tools whose specifier is a path (SPEC §4).
pub const PATH_TOOLS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Glob",
    "Grep",
    "LS",
];

/// Input fields a parameter rule may not name: the tools' primary content (reference §3.2).
const PRIMARY_FIELDS: &[&str] = &["command", "file_path", "path", "notebook_path", "url"];

/// `Bash` input fields a `Bash(param:value)` rule may name.
const BASH_PARAMS: &[&str] = &[
    "run_in_background",
    "timeout",
    "description",
    "dangerouslyDisableSandbox",
];

/// `Agent` input fields an `Agent(param:value)` rule may name.
const AGENT_PARAMS: &[&str] = &[
    "model",
    "run_in_background",
    "description",
    "name",
    "isolation",
    "mode",
    "subagent_type",
];

/// What a rule's specifier says (SPEC §4 "Rule syntax").
#[derive(Debug, Clone)]
pub enum Specifier {
    /// No specifier (or one meaning everything, `Bash(*)`): every call of the tool.
    Any,
    /// A `Bash` command pattern, met by each part of the command.
    Command(Wildcard),
    /// A path pattern, met by the input's path.
    Path(PathPattern),
    /// `domain:host`, met by the host of the input's `url`.
    Domain(DomainPattern),
    /// An agent type, met by `subagent_type`.
    SubagentType(Wildcard),
    /// A skill name pattern, met by `skill`.
    Skill(Wildcard),
    /// `param:value`, met by a top-level scalar input field.
    Param {
        /// The input field.
        key: String,
        /// The value pattern.
        value: Wildcard,
    },
}

/// A parsed rule: its tool position and specifier (SPEC §4).
#[derive(Debug, Clone)]
pub struct RuleSpec {
    /// Which tools the rule is about.
    pub tool: ToolPattern,
    /// Which calls of those tools.
    pub specifier: Specifier,
}

impl RuleSpec {
    /// The whole of the tools `tool` names.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn whole(tool: ToolPattern) -> RuleSpec {
        RuleSpec {
            tool,
            specifier: Specifier::Any,
        }
    }
}

/// Why a rule does not parse, and the tool it was written for when that much can be read.
///
/// SPEC §4.
#[derive(Debug, Clone)]
pub struct RuleParseError {
    /// Words for the warning.
    pub reason: String,
    /// The tool position, when it can be read; otherwise the rule speaks of every tool.
    pub tool: Option<ToolPattern>,
}

/// Parses one rule `text` written in the `behavior` list (SPEC §4 "Rule syntax").
///
/// # Errors
///
/// [`RuleParseError`] when the text is not a rule this crate understands: not
/// `Tool` or `Tool(specifier)`, an empty specifier, a specifier the tool does not
/// take, a path that is not a glob, a parameter rule on a primary field or in an
/// allow list, or (allow only) a tool-name glob without a literal `mcp__<server>__`.
pub fn parse_rule(text: &str, behavior: Behavior) -> Result<RuleSpec, RuleParseError> {
    let text = text.trim();
    let strict = behavior.is_strict();
    let (name, spec) = match text.find('(') {
        None if text.contains(')') => {
            return Err(RuleParseError {
                reason: "a `)` without `(`".to_owned(),
                tool: ToolPattern::parse(text.split(')').next().unwrap_or_default().trim()),
            })
        }
        None => (text, None),
        Some(open) => {
            let name = text.get(..open).unwrap_or_default().trim();
            let inner = text.get(open + 1..).and_then(|r| r.strip_suffix(')'));
            match inner {
                Some(inner) => (name, Some(inner)),
                None => {
                    return Err(RuleParseError {
                        reason: "the specifier is not closed with `)` at the end".to_owned(),
                        tool: ToolPattern::parse(name),
                    })
                }
            }
        }
    };
    let Some(tool) = ToolPattern::parse(name) else {
        return Err(RuleParseError {
            reason: if name.is_empty() {
                "no tool name".to_owned()
            } else {
                format!("{name:?} is not a tool name")
            },
            tool: None,
        });
    };
    if behavior == Behavior::Allow && !tool.allowed_in_allow_rules() {
        return Err(RuleParseError {
            reason:
                "an allow rule may use a tool-name glob only after a literal mcp__<server>__ prefix"
                    .to_owned(),
            tool: Some(tool),
        });
    }
    let Some(spec) = spec else {
        return Ok(RuleSpec::whole(tool));
    };
    let fail = |reason: String, tool: ToolPattern| {
        Err(RuleParseError {
            reason,
            tool: Some(tool),
        })
    };
    if spec.trim().is_empty() {
        return fail("an empty specifier".to_owned(), tool);
    }
    let name = match &tool {
        ToolPattern::Exact(name) => canonical_tool(name).to_owned(),
        _ => {
            return fail(
                "a tool-name glob or MCP server takes no specifier".to_owned(),
                tool,
            )
        }
    };
    let specifier = match name.as_str() {
        "Bash" => bash_specifier(spec, strict),
        n if PATH_TOOLS.contains(&n) => match PathPattern::new(spec, strict, strict) {
            Ok(p) => Ok(Specifier::Path(p)),
            Err(e) => Err(SpecifierError::Path(e)),
        },
        // `WebFetch(*)` is bare `WebFetch` (Claude Code 2.1.20; SPEC §4).
        "WebFetch" if spec.trim() == "*" => Ok(Specifier::Any),
        "WebFetch" => match spec.trim().strip_prefix("domain:") {
            Some(d) if d.trim() == "*" => Ok(Specifier::Any),
            Some(d) if !d.trim().is_empty() => Ok(Specifier::Domain(DomainPattern::new(d))),
            _ => Err(SpecifierError::WebFetchNeedsDomain),
        },
        "Agent" => match param(spec, AGENT_PARAMS, strict) {
            Some(p) => p,
            None if spec.trim() == "*" => Ok(Specifier::Any),
            None => Ok(Specifier::SubagentType(Wildcard::new(spec.trim(), strict))),
        },
        "Skill" => {
            let s = spec.trim().trim_start_matches('/');
            if s == "*" {
                Ok(Specifier::Any)
            } else {
                Ok(Specifier::Skill(Wildcard::new(s, strict)))
            }
        }
        "PowerShell" => Err(SpecifierError::PowerShell),
        _ => param(spec, &[], strict)
            .unwrap_or_else(|| Err(SpecifierError::OnlyParam { tool: name.clone() })),
    };
    match specifier {
        Ok(Specifier::Param { .. }) if behavior == Behavior::Allow => fail(
            "parameter rules are for deny and ask lists only".to_owned(),
            tool,
        ),
        Ok(specifier) => Ok(RuleSpec { tool, specifier }),
        Err(reason) => fail(reason.to_string(), tool),
    }
}

/// Why a rule's specifier (the part in parentheses) does not parse: the
/// [`RuleParseError::reason`] of the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum SpecifierError {
    /// A path tool's pattern that does not compile.
    #[error("{0}")]
    Path(PathPatternError),
    /// A `WebFetch` specifier that is not `domain:<host>`.
    #[error("WebFetch takes `domain:<host>`")]
    WebFetchNeedsDomain,
    /// A `PowerShell` specifier (not supported yet).
    #[error("PowerShell command rules are not supported yet")]
    PowerShell,
    /// A specifier on a tool that takes only `param:value`.
    #[error("{tool} takes no specifier but `param:value`")]
    OnlyParam {
        /// The tool's canonical name.
        tool: String,
    },
    /// A parameter rule on a tool's primary field (its command, path or URL).
    #[error("a parameter rule on the primary field {key:?} is not supported")]
    PrimaryField {
        /// The key, as written (trimmed).
        key: String,
    },
}

fn bash_specifier(spec: &str, strict: bool) -> Result<Specifier, SpecifierError> {
    if spec.trim() == "*" {
        return Ok(Specifier::Any);
    }
    if let Some(prefix) = spec.strip_suffix(":*") {
        let prefix = prefix.trim_end();
        if prefix.is_empty() {
            return Ok(Specifier::Any);
        }
        return Ok(Specifier::Command(Wildcard::new(
            &format!("{prefix} *"),
            strict,
        )));
    }
    if let Some(p) = param(spec, BASH_PARAMS, strict) {
        return p;
    }
    Ok(Specifier::Command(Wildcard::new(spec.trim(), strict)))
}

/// Reads `key:value`. With a non-empty `known`, only those keys count (others are
/// not a parameter rule: `None`); with an empty one, any identifier key counts.
fn param(spec: &str, known: &[&str], strict: bool) -> Option<Result<Specifier, SpecifierError>> {
    let (key, value) = spec.split_once(':')?;
    let key = key.trim();
    let mut chars = key.chars();
    let ident = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident || (!known.is_empty() && !known.contains(&key)) {
        return None;
    }
    if PRIMARY_FIELDS.contains(&key) {
        return Some(Err(SpecifierError::PrimaryField {
            key: key.to_owned(),
        }));
    }
    Some(Ok(Specifier::Param {
        key: key.to_owned(),
        value: Wildcard::new(value.trim(), strict),
    }))
}

/// A `WebFetch(domain:...)` host pattern (SPEC §4 "WebFetch"): case-insensitive, a
/// trailing dot stripped; `*.example.com` matches subdomains at any depth but not the
/// apex; elsewhere `*` stays within one label.
///
/// The pattern is kept in its Unicode and its ASCII (punycode, IDNA) form, and a host
/// is met in both forms too ([`url_hosts`]), so `domain:bücher.example` meets
/// `xn--bcher-kva.example` and the other way round. Full-width and ideographic dots
/// (U+FF0E, U+3002, U+FF61) separate labels as `.` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DomainPattern {
    forms: Vec<DomainForm>,
    /// Every spelling, when the pattern has no `*`: the hosts it matches exactly (the
    /// rule index's keys).
    exact: Option<Vec<String>>,
}

/// One spelling of a domain pattern, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
enum DomainForm {
    /// `*.suffix`: any host ending in `.suffix`, longer than it.
    Subdomains(String),
    /// Label by label.
    Labels(Vec<Wildcard>),
}

impl DomainForm {
    fn new(pattern: &str) -> Self {
        if let Some(suffix) = pattern.strip_prefix('*') {
            if suffix.starts_with('.') && !suffix.contains('*') {
                return DomainForm::Subdomains(suffix.to_owned());
            }
        }
        DomainForm::Labels(
            pattern
                .split('.')
                .map(|l| Wildcard::new(l, false))
                .collect(),
        )
    }

    fn matches(&self, host: &str) -> bool {
        match self {
            DomainForm::Subdomains(suffix) => host.len() > suffix.len() && host.ends_with(suffix),
            DomainForm::Labels(labels) => {
                let mut h = host.split('.');
                labels
                    .iter()
                    .all(|l| h.next().is_some_and(|part| l.matches(part)))
                    && h.next().is_none()
            }
        }
    }
}

impl DomainPattern {
    /// Compiles a host pattern.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn new(pattern: &str) -> Self {
        let pattern = normalize_host(pattern);
        let mut texts = vec![pattern.clone()];
        // Label by label, so that `*` labels stay as they are.
        let per_label = |f: &dyn Fn(&str) -> Option<String>| -> String {
            pattern
                .split('.')
                .map(|l| {
                    if l.contains('*') || l.is_empty() {
                        l.to_owned()
                    } else {
                        f(l).unwrap_or_else(|| l.to_owned())
                    }
                })
                .collect::<Vec<_>>()
                .join(".")
        };
        for t in [
            per_label(&|l| idna::domain_to_ascii(l).ok()),
            per_label(&|l| Some(idna::domain_to_unicode(l).0)),
        ] {
            let t = normalize_host(&t);
            if !texts.contains(&t) {
                texts.push(t);
            }
        }
        DomainPattern {
            forms: texts.iter().map(|t| DomainForm::new(t)).collect(),
            exact: (!pattern.contains('*')).then_some(texts),
        }
    }

    /// The hosts the pattern matches, in every spelling, when it matches exactly those
    /// (no `*`); `None` for a wildcard pattern.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn exact_hosts(&self) -> Option<&[String]> {
        self.exact.as_deref()
    }

    /// Whether `host` matches, in any of its spellings (as given, ASCII, Unicode).
    ///
    /// SPEC §4.
    #[must_use]
    pub fn matches(&self, host: &str) -> bool {
        host_forms(host)
            .iter()
            .any(|h| !h.is_empty() && self.forms.iter().any(|f| f.matches(h)))
    }
}

/// A host lowercased, trimmed, with full-width and ideographic dots read as `.`, and
/// one trailing dot stripped.
///
/// SPEC §4.
#[must_use]
pub fn normalize_host(host: &str) -> String {
    let h: String = host
        .trim()
        .chars()
        .map(|c| match c {
            '\u{3002}' | '\u{FF0E}' | '\u{FF61}' => '.',
            c => c,
        })
        .collect::<String>()
        .to_lowercase();
    h.strip_suffix('.').map(str::to_owned).unwrap_or(h)
}

/// The spellings of one host: normalized as given, its ASCII (punycode) form and its
/// Unicode form (IDNA), each normalized; duplicates dropped.
pub(crate) fn host_forms(host: &str) -> Vec<String> {
    let h = normalize_host(host);
    let mut out = vec![h.clone()];
    let mut push = |f: String| {
        let f = normalize_host(&f);
        if !out.contains(&f) {
            out.push(f);
        }
    };
    if let Ok(a) = idna::domain_to_ascii(&h) {
        push(a);
    }
    push(idna::domain_to_unicode(&h).0);
    out
}

/// The host of a URL (`scheme://user@host:port/path`), read lexically and normalized;
/// `None` when there is none. See [`url_hosts`] for every reading a rule meets.
///
/// SPEC §4.
#[must_use]
pub fn url_host(url: &str) -> Option<String> {
    let url = url.trim();
    let rest = match url.find("://") {
        Some(i) => url.get(i + 3..)?,
        None => url,
    };
    let authority = rest.split(['/', '?', '#', '\\']).next()?;
    let host_port = authority.rsplit('@').next()?;
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next()?
    } else {
        host_port.split(':').next()?
    };
    let host = normalize_host(host);
    if host.is_empty() {
        None
    } else {
        Some(host)
    }
}

/// Every reading of a URL's host a `WebFetch(domain:...)` rule meets (SPEC §4
/// "WebFetch"): the host as a WHATWG URL parser reads it (the `url` crate:
/// percent-decoding, tabs and newlines removed, backslashes as slashes, IDNA
/// mapping), and the host read lexically ([`url_host`]) when that differs. A URL
/// without a scheme is read as `https://`. A deny or ask rule matching any reading
/// applies; an allow rule must match every one, and an empty list (a URL that
/// does not parse) is never allowed by a domain rule.
///
/// SPEC §4.
#[must_use]
pub fn url_hosts(url: &str) -> Vec<String> {
    let trimmed = url.trim();
    let parsed = url::Url::parse(trimmed).or_else(|e| {
        if trimmed.contains("://") {
            Err(e)
        } else {
            url::Url::parse(&format!("https://{trimmed}"))
        }
    });
    let mut out: Vec<String> = Vec::new();
    if let Some(h) = parsed.ok().as_ref().and_then(url::Url::host_str) {
        let h = h
            .strip_prefix('[')
            .and_then(|v| v.strip_suffix(']'))
            .unwrap_or(h);
        let h = normalize_host(h);
        if !h.is_empty() {
            out.push(h);
        }
    }
    if let Some(h) = url_host(url) {
        if !out.contains(&h) {
            out.push(h);
        }
    }
    out
}

/// One rule in force, keeping its text and source for the verdict (SPEC §1.6, §4).
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule's text exactly as written.
    pub text: String,
    /// The settings source it came from.
    pub source: SettingsSource,
    /// The list it was written in.
    pub behavior: Behavior,
    /// Its place in that list (file order).
    pub index: usize,
    /// What it means.
    pub spec: RuleSpec,
    /// Set when the rule did not parse and stands for its whole tool: why.
    pub unparsed: Option<String>,
}

/// A rule that did not parse, or was dropped, and what became of it (SPEC §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleWarning {
    /// The settings source.
    pub source: SettingsSource,
    /// The JSON pointer of the entry (`/permissions/deny/3`).
    pub pointer: String,
    /// The rule's text as written (empty when the entry is not a string).
    pub rule: String,
    /// What is wrong and what the core does about it.
    pub reason: String,
}

impl fmt::Display for RuleWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} settings {}: {:?}: {}",
            self.source, self.pointer, self.rule, self.reason
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str, b: Behavior) -> RuleSpec {
        parse_rule(text, b).unwrap()
    }

    #[test]
    fn tool_positions() {
        assert!(
            matches!(ok("Bash", Behavior::Deny).tool, ToolPattern::Exact(ref n) if n == "Bash")
        );
        assert!(matches!(
            ok("deploy_agent", Behavior::Ask).tool,
            ToolPattern::Exact(_)
        ));
        assert!(matches!(
            ok("mcp__github", Behavior::Deny).tool,
            ToolPattern::McpServer(_)
        ));
        assert!(matches!(
            ok("mcp__github__get_issue", Behavior::Deny).tool,
            ToolPattern::Exact(_)
        ));
        assert!(matches!(
            ok("mcp__github__*", Behavior::Allow).tool,
            ToolPattern::Glob(..)
        ));
        assert!(matches!(
            ok("*", Behavior::Deny).tool,
            ToolPattern::Glob(..)
        ));
        assert!(parse_rule("*", Behavior::Allow).is_err());
        assert!(parse_rule("mcp__*", Behavior::Allow).is_err());
        assert!(parse_rule("B*", Behavior::Allow).is_err());
    }

    #[test]
    fn tool_pattern_matching() {
        let t = |s: &str| ToolPattern::parse(s).unwrap();
        assert!(t("mcp__github").matches("mcp__github__get_issue"));
        assert!(!t("mcp__github").matches("mcp__githubx__get_issue"));
        assert!(t("mcp__github__*").matches("mcp__github__get_issue"));
        assert!(t("mcp__*").matches("mcp__x__y"));
        assert!(!t("mcp__*").matches("Bash"));
        assert!(t("Task").matches("Agent"));
        assert!(t("Agent").matches("Task"));
        assert!(!t("Bash").matches("bash"));
    }

    #[test]
    fn specifiers() {
        assert!(matches!(
            ok("Bash(*)", Behavior::Deny).specifier,
            Specifier::Any
        ));
        assert!(matches!(
            ok("Bash(rm:*)", Behavior::Deny).specifier,
            Specifier::Command(_)
        ));
        assert!(matches!(
            ok("Bash(run_in_background:true)", Behavior::Deny).specifier,
            Specifier::Param { .. }
        ));
        assert!(matches!(
            ok("Bash(timeout:*)", Behavior::Deny).specifier,
            Specifier::Command(_)
        ));
        assert!(matches!(
            ok("Read(./.env)", Behavior::Deny).specifier,
            Specifier::Path(_)
        ));
        assert!(matches!(
            ok("WebFetch(domain:example.com)", Behavior::Allow).specifier,
            Specifier::Domain(_)
        ));
        assert!(matches!(
            ok("WebFetch(domain:*)", Behavior::Allow).specifier,
            Specifier::Any
        ));
        assert!(matches!(
            ok("Agent(Explore)", Behavior::Deny).specifier,
            Specifier::SubagentType(_)
        ));
        assert!(matches!(
            ok("Task(Explore)", Behavior::Deny).specifier,
            Specifier::SubagentType(_)
        ));
        assert!(matches!(
            ok("Agent(model:opus)", Behavior::Deny).specifier,
            Specifier::Param { .. }
        ));
        assert!(matches!(
            ok("Skill(deploy *)", Behavior::Ask).specifier,
            Specifier::Skill(_)
        ));
        assert!(matches!(
            ok("mcp__x__y(mode:prod)", Behavior::Deny).specifier,
            Specifier::Param { .. }
        ));
    }

    #[test]
    fn what_does_not_parse() {
        for (text, tool) in [
            ("Bash(", Some("Bash")),
            ("Bash()", Some("Bash")),
            ("Read([)", Some("Read")),
            ("WebFetch(https://x)", Some("WebFetch")),
            ("deploy_agent(prod)", Some("deploy_agent")),
            ("mcp__github(x)", Some("mcp__github")),
            ("Bash)", Some("Bash")),
            ("", None),
            ("(x)", None),
            ("two words", None),
            ("WebFetch(url:https://x)", Some("WebFetch")),
            ("mcp__x__y(command:rm)", Some("mcp__x__y")),
        ] {
            let e = parse_rule(text, Behavior::Deny).err().unwrap();
            let named = e.tool.map(|t| match t {
                ToolPattern::Exact(n) | ToolPattern::McpServer(n) | ToolPattern::Glob(n, _) => n,
            });
            assert_eq!(named.as_deref(), tool, "{text}");
        }
        assert!(parse_rule("Agent(model:opus)", Behavior::Allow).is_err());
    }

    #[test]
    fn domains() {
        let d = DomainPattern::new("*.Example.com.");
        assert!(d.matches("a.example.com"));
        assert!(d.matches("a.b.EXAMPLE.com."));
        assert!(!d.matches("example.com"));
        assert!(!d.matches("badexample.com"));
        let d = DomainPattern::new("example.*");
        assert!(d.matches("example.org"));
        assert!(!d.matches("example.evil.com"));
        assert_eq!(
            url_host("https://User@Example.COM.:8080/x?y").as_deref(),
            Some("example.com")
        );
        assert_eq!(url_host("http://[::1]:80/").as_deref(), Some("::1"));
        assert_eq!(
            url_host("http://evil.com\\@good.com/").as_deref(),
            Some("evil.com")
        );
        assert_eq!(url_host("https:///x"), None);
    }
}
