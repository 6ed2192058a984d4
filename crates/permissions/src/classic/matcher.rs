//! The matcher of a matcher group (SPEC §4 "Classic hooks"; reference §4.1 "Matcher
//! semantics"): `""`, `"*"` or none match every tool; a matcher made only of
//! `[A-Za-z0-9_-]`, spaces, `,` and `|` is an exact name or a list of exact names;
//! anything else is an unanchored regular expression, or invalid.

use regex_automata::meta::Regex;

/// A matcher group's `matcher` (reference §4.1 "Matcher semantics", SPEC §4).
#[derive(Debug, Clone)]
pub enum Matcher {
    /// `""`, `"*"` or no matcher: every tool.
    All,
    /// An exact name or a `|`/`,`-separated list of exact names.
    Exact(Vec<String>),
    /// An unanchored regular expression, with its text.
    Regex(Box<Regex>, String),
    /// A regular expression that does not compile: it never matches (a managed
    /// group's is read as [`Matcher::All`] instead).
    Invalid(String),
}

impl Matcher {
    /// Reads a matcher as documented: `""`/`"*"` all; only `[A-Za-z0-9_-]`, spaces,
    /// `,` and `|` → exact names; otherwise an unanchored regex.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn parse(text: &str) -> Matcher {
        let t = text.trim();
        if t.is_empty() || t == "*" {
            return Matcher::All;
        }
        let exact = t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ' ' | ',' | '|'));
        if exact {
            let names: Vec<String> = t
                .split(['|', ','])
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned)
                .collect();
            return if names.is_empty() {
                Matcher::All
            } else {
                Matcher::Exact(names)
            };
        }
        match Regex::new(t) {
            Ok(re) => Matcher::Regex(Box::new(re), t.to_owned()),
            Err(_) => Matcher::Invalid(t.to_owned()),
        }
    }

    /// Whether the matcher matches this tool name.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            Matcher::All => true,
            Matcher::Exact(names) => names.iter().any(|n| n == tool),
            Matcher::Regex(re, _) => re.is_match(tool),
            Matcher::Invalid(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_exact_list_regex_all() {
        assert!(Matcher::parse("").matches("Bash"));
        assert!(Matcher::parse("*").matches("anything"));
        let m = Matcher::parse("Bash");
        assert!(m.matches("Bash") && !m.matches("Bash2") && !m.matches("bash"));
        let m = Matcher::parse("Edit|Write");
        assert!(m.matches("Edit") && m.matches("Write") && !m.matches("NotebookEdit"));
        let m = Matcher::parse("Edit, Write");
        assert!(m.matches("Write"));
        // A regex is unanchored: `Edit.*` also matches NotebookEdit.
        let m = Matcher::parse("Edit.*");
        assert!(matches!(m, Matcher::Regex(..)));
        assert!(m.matches("NotebookEdit") && m.matches("Edit") && !m.matches("Write"));
        // A bare server name is an exact name: it matches nothing of the server.
        assert!(!Matcher::parse("mcp__memory").matches("mcp__memory__read"));
        assert!(Matcher::parse("mcp__memory__.*").matches("mcp__memory__read"));
        assert!(Matcher::parse("^(Bash|Read)$").matches("Read"));
        let bad = Matcher::parse("Bash(");
        assert!(matches!(bad, Matcher::Invalid(_)) && !bad.matches("Bash"));
    }
}
