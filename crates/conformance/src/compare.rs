//! Each call's two answers classified, and every difference matched against the
//! checked-in list (`crates/conformance/differences.json`) of **declared**
//! differences (deliberate: the seed, a SPEC decision, or what the engine sees that
//! Claude Code does not; each with its reason and source) and **known-open** ones
//! (defects of ours, listed apart until an issue closes them). A difference in
//! neither list is undeclared: it fails the run.

use crate::sandbox::StreamResult;
use crate::Decision;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What Claude Code did with one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Theirs {
    /// It decided: `accept` is allow; a reject of kind `permission-rule` (or any other
    /// refusal by policy, a hook or dontAsk) is deny; `user-rejected` is an ask
    /// nobody answered.
    Decided(Decision),
    /// It gave no permission decision (the input was refused before the check, or no
    /// result came back): the call is not comparable.
    NotChecked(String),
}

/// Reads one tool result of the stream.
#[must_use]
pub fn theirs_of(result: Option<&StreamResult>) -> Theirs {
    let Some(r) = result else {
        return Theirs::NotChecked("no tool result came back".to_owned());
    };
    let Some(meta) = &r.meta else {
        return Theirs::NotChecked(format!(
            "refused before the permission check: {}",
            r.text.chars().take(120).collect::<String>()
        ));
    };
    let decision = meta
        .pointer("/permission_decision/decision")
        .and_then(Value::as_str);
    let kind = meta.get("non_execution_kind").and_then(Value::as_str);
    match (decision, kind) {
        (Some("accept"), _) => Theirs::Decided(Decision::Allow),
        (Some("reject"), Some("user-rejected")) => Theirs::Decided(Decision::Ask),
        (Some("reject"), _) => Theirs::Decided(Decision::Deny),
        _ => Theirs::NotChecked(format!("an unknown decision: {meta}")),
    }
}

/// How the two answers to one call compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// The same decision.
    Agree,
    /// Ours is stricter (ask where they allow, deny where they ask).
    OursStricter,
    /// Theirs is stricter.
    TheirsStricter,
    /// One allows what the other denies.
    Opposite,
    /// Claude Code gave no decision.
    NotComparable,
}

impl Class {
    /// The class's name in reports.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Agree => "agree",
            Class::OursStricter => "ours stricter",
            Class::TheirsStricter => "theirs stricter",
            Class::Opposite => "opposite",
            Class::NotComparable => "not comparable",
        }
    }
}

/// Classifies one pair.
#[must_use]
pub fn classify(ours: Decision, theirs: &Theirs) -> Class {
    let Theirs::Decided(t) = theirs else {
        return Class::NotComparable;
    };
    match (ours, *t) {
        (a, b) if a == b => Class::Agree,
        (Decision::Allow, Decision::Deny) | (Decision::Deny, Decision::Allow) => Class::Opposite,
        (a, b) if a > b => Class::OursStricter,
        _ => Class::TheirsStricter,
    }
}

/// One entry of the differences list: which differences it covers, and why they are
/// there.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Difference {
    /// The family's name.
    pub family: String,
    /// Which differences it covers (every field given must hold).
    pub when: When,
    /// Why the two differ.
    pub reason: String,
    /// The SPEC section or seed sentence (declared), or what will close it
    /// (known-open).
    pub source: String,
}

/// The conditions of a [`Difference`]; a field left out holds for every call.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    /// The tool (`Bash`, `Read`, …).
    #[serde(default)]
    pub tool: Option<String>,
    /// Patterns on the call's text (a Bash command, a path, a URL), in the wildcard
    /// language of permission rules: any may match.
    #[serde(default)]
    pub text: Vec<String>,
    /// The corpus (`scenarios`, `everyday`, `mods`).
    #[serde(default)]
    pub corpus: Option<String>,
    /// The permission mode.
    #[serde(default)]
    pub mode: Option<String>,
    /// The policy's name (`scenario`, a managed folder's name).
    #[serde(default)]
    pub policy: Option<String>,
    /// The corpus family of the call (a scenario file's stem, an everyday family).
    #[serde(default)]
    pub call_family: Option<String>,
    /// Our decision.
    #[serde(default)]
    pub ours: Option<Decision>,
    /// Theirs.
    #[serde(default)]
    pub theirs: Option<Decision>,
    /// Whether ours is an uncertain hold.
    #[serde(default)]
    pub uncertain: Option<bool>,
    /// How the two compare (`ours-stricter`, `theirs-stricter`, `opposite`).
    #[serde(default)]
    pub class: Option<Class>,
}

/// The checked-in list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Differences {
    /// Deliberate differences.
    pub declared: Vec<Difference>,
    /// Defects of ours, listed until they are closed.
    pub known_open: Vec<Difference>,
}

/// The text a call's globs are matched on: a Bash command, a file path, a URL, or
/// the input as JSON.
#[must_use]
pub fn text_of(tool: &str, input: &Value) -> String {
    let key = match tool {
        "Bash" => "command",
        "Read" | "Edit" | "Write" | "MultiEdit" => "file_path",
        "NotebookEdit" => "notebook_path",
        "WebFetch" => "url",
        _ => "",
    };
    input
        .get(key)
        .and_then(Value::as_str)
        .map_or_else(|| input.to_string(), str::to_owned)
}

impl When {
    /// Whether this entry covers the call of `r`, whose answers differ (`theirs`:
    /// Claude Code's decision).
    #[must_use]
    pub fn covers(&self, r: &crate::run::Record, theirs: Decision) -> bool {
        self.tool.as_deref().is_none_or(|t| t == r.tool)
            && self.corpus.as_deref().is_none_or(|c| c == r.corpus)
            && self.mode.as_deref().is_none_or(|m| m == r.mode)
            && self.policy.as_deref().is_none_or(|p| p == r.policy)
            && self.call_family.as_deref().is_none_or(|c| c == r.family)
            && self.ours.is_none_or(|o| o == r.ours)
            && self.theirs.is_none_or(|t| t == theirs)
            && self.uncertain.is_none_or(|u| u == r.uncertain)
            && self.class.is_none_or(|c| c == r.class)
            && (self.text.is_empty() || self.text.iter().any(|g| glob_matches(g, &r.text)))
    }
}

/// Whether the pattern `glob` matches `text` whole, in the wildcard language of
/// permission rules (`*` any run of characters; ` *` also nothing, at a word
/// boundary): [`permissions::wildcard::Wildcard`].
#[must_use]
pub fn glob_matches(glob: &str, text: &str) -> bool {
    permissions::wildcard::Wildcard::new(glob, false).matches(text)
}

/// Where a difference stands.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Standing {
    /// Declared, in this family.
    Declared(String),
    /// Known-open, in this family.
    KnownOpen(String),
    /// In neither list.
    Undeclared,
}

/// Why the differences list could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// The list's path.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: boundedfs::Error,
    },
    /// The file is not a valid list (the position and the key are in the message).
    #[error("{path}: {source}")]
    Invalid {
        /// The list's path.
        path: std::path::PathBuf,
        /// The cause.
        #[source]
        source: serde_json::Error,
    },
}

impl Differences {
    /// Reads the list.
    ///
    /// # Errors
    /// When the file cannot be read or is not a valid list.
    pub fn read(path: &std::path::Path) -> Result<Differences, ListError> {
        let bytes = boundedfs::read_bounded(path, 4 << 20).map_err(|source| ListError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_slice(&bytes).map_err(|source| ListError::Invalid {
            path: path.to_path_buf(),
            source,
        })
    }

    /// Where the difference of `r` stands; `None` when its answers agree or Claude
    /// Code gave no decision.
    #[must_use]
    pub fn standing(&self, r: &crate::run::Record) -> Option<Standing> {
        let Theirs::Decided(theirs) = r.theirs else {
            return None;
        };
        if matches!(r.class, Class::Agree | Class::NotComparable) {
            return None;
        }
        if let Some(d) = self.declared.iter().find(|d| d.when.covers(r, theirs)) {
            return Some(Standing::Declared(d.family.clone()));
        }
        if let Some(d) = self.known_open.iter().find(|d| d.when.covers(r, theirs)) {
            return Some(Standing::KnownOpen(d.family.clone()));
        }
        Some(Standing::Undeclared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn globs_match_whole_texts() {
        assert!(glob_matches("su -c *", "su -c 'rm -rf build'"));
        assert!(!glob_matches("su -c *", "sudo su -c x"));
        assert!(glob_matches("*parallel*", "echo x | parallel rm"));
        assert!(
            glob_matches("su -c *", "su -c"),
            "a space before * keeps a word boundary"
        );
        assert!(!glob_matches("su -c *", "su -cx"));
    }

    #[test]
    fn the_stream_is_read_as_claude_code_writes_it() {
        let r = |meta: Value| StreamResult {
            id: "t".into(),
            meta: Some(meta),
            text: String::new(),
            is_error: false,
        };
        let accept = r(json!({"permission_decision": {"decision": "accept"}}));
        assert_eq!(theirs_of(Some(&accept)), Theirs::Decided(Decision::Allow));
        let rule = r(json!({"non_execution_kind": "permission-rule",
                            "permission_decision": {"decision": "reject"}}));
        assert_eq!(theirs_of(Some(&rule)), Theirs::Decided(Decision::Deny));
        let asked = r(json!({"non_execution_kind": "user-rejected",
                             "permission_decision": {"decision": "reject"}}));
        assert_eq!(theirs_of(Some(&asked)), Theirs::Decided(Decision::Ask));
        assert!(matches!(theirs_of(None), Theirs::NotChecked(_)));
    }

    #[test]
    fn classes_order_by_strictness() {
        let d = |x| Theirs::Decided(x);
        assert_eq!(classify(Decision::Ask, &d(Decision::Ask)), Class::Agree);
        assert_eq!(
            classify(Decision::Ask, &d(Decision::Allow)),
            Class::OursStricter
        );
        assert_eq!(
            classify(Decision::Ask, &d(Decision::Deny)),
            Class::TheirsStricter
        );
        assert_eq!(
            classify(Decision::Allow, &d(Decision::Deny)),
            Class::Opposite
        );
        assert_eq!(
            classify(Decision::Deny, &d(Decision::Allow)),
            Class::Opposite
        );
        assert_eq!(
            classify(Decision::Deny, &Theirs::NotChecked(String::new())),
            Class::NotComparable
        );
    }
}
