//! Folding: names compared as a model reads them (SPEC §3.4.1).
//!
//! `fold(s)` spells `s` as the engine spells a name inside a tool's name (every
//! Unicode scalar value outside ASCII letters, digits, `-` and `_` becomes one `_`;
//! nothing is normalized), lower-cases it, and turns every run of `-` and `_` into a
//! single `_`. Only `[a-z0-9_]` comes out.
//!
//! ```
//! use sec_default::fold::{fold, reads_as};
//! assert_eq!(fold("Corp-Tools"), "corp_tools");
//! assert_eq!(fold("corp__tools"), "corp_tools");
//! assert!(reads_as("mcp__corp__tools__x", "mcp__corp-tools__"));
//! assert!(!reads_as("mcp__corporate__x", "mcp__corp__"));
//! ```

/// Folds `s` (SPEC §3.4.1): spell as the engine spells a name inside a tool's name,
/// lower-case, then collapse every run of `-`/`_` into one `_`.
///
/// Takes any string; returns a string of `[a-z0-9_]` only. Never fails. Idempotent.
///
/// SPEC §3.4.1
#[must_use]
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_separator = false;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
            in_separator = false;
        } else if !in_separator {
            // `-`, `_`, and every character the engine spells as `_`.
            out.push('_');
            in_separator = true;
        }
    }
    out
}

/// Whether `full_name` *reads as* a tool of `scope` (SPEC §3.4.1): `fold(full_name)`
/// starts with `fold(scope)`.
///
/// Takes a tool's full name and a scope such as `mcp__corp__`; returns the answer.
///
/// SPEC §3.4.1
#[must_use]
pub fn reads_as(full_name: &str, scope: &str) -> bool {
    fold(full_name).starts_with(&fold(scope))
}

/// Whether `name` has no ASCII letter or digit, so that it folds to nothing and cannot
/// be told from any name (SPEC §3.4 step 5).
///
/// SPEC §3.4 step 5
#[must_use]
pub fn folds_to_nothing(name: &str) -> bool {
    !name.chars().any(|c| c.is_ascii_alphanumeric())
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
    use proptest::prelude::*;

    #[test]
    fn case_and_separators_fold_alike() {
        assert_eq!(fold("Corp-Tools"), fold("corp_tools"));
        assert_eq!(fold("CORP--__-tools"), "corp_tools");
        assert_eq!(fold("a b.c/d"), "a_b_c_d");
        assert_eq!(fold(""), "");
        assert_eq!(fold("mcp__corp__"), "mcp_corp_");
    }

    #[test]
    fn an_astral_character_is_one_underscore() {
        assert_eq!(fold("a\u{1F600}b"), "a_b");
        assert_eq!(events::spell("a\u{1F600}b"), "a_b");
        // nothing is normalized: a precomposed letter is one `_`, a decomposed one keeps its base
        assert_eq!(fold("caf\u{e9}"), "caf_");
        assert_eq!(fold("cafe\u{301}"), "cafe_");
    }

    #[test]
    fn reads_as_is_a_folded_prefix() {
        assert!(reads_as("mcp__Corp-Tools__x", "mcp__corp_tools__"));
        // plugin "corp" + tool "tools__x" spell the server corp-tools
        assert!(reads_as(
            &events::registered_tool_name("corp", "tools__x"),
            "mcp__corp-tools__"
        ));
        // a tool whose own name folds to nothing
        assert!(reads_as(
            &events::registered_tool_name("corp-tools", "@@"),
            "mcp__corp-tools__"
        ));
        assert!(!reads_as("mcp__corporate__x", "mcp__corp__"));
    }

    #[test]
    fn folds_to_nothing_has_no_ascii_letter_or_digit() {
        assert!(folds_to_nothing("--"));
        assert!(folds_to_nothing("\u{e9}"));
        assert!(folds_to_nothing(""));
        assert!(!folds_to_nothing("e\u{301}"));
        assert!(!folds_to_nothing("_9"));
    }

    proptest! {
        #[test]
        fn fold_is_idempotent_and_only_emits_a_z_0_9_underscore(s in any::<String>()) {
            let f = fold(&s);
            prop_assert_eq!(fold(&f), f.clone());
            prop_assert!(f.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
            prop_assert!(!f.contains("__"));
            prop_assert!(f.chars().count() <= s.chars().count());
        }

        #[test]
        fn fold_ignores_case_and_separator_choice(s in "[A-Za-z0-9_-]{0,24}") {
            prop_assert_eq!(fold(&s.to_uppercase()), fold(&s.replace('-', "_")));
        }
    }
}
