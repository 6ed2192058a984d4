//! The fold of SPEC §3.4.1 — idempotent; blind to ASCII letter case
//! and to the choice and number of separators; only `[a-z0-9_]` comes out.
//!
//! Case counts: `PROPTEST_CASES` (default 10 000).

use proptest::prelude::*;
use proptest::test_runner::Config;
use sec_default::fold::fold;

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(10_000),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Separators as SPEC §3.4.1 treats them: `-`, `_`, and every character outside ASCII
/// letters and digits (the engine spells it `_`), astral ones included.
fn separator() -> impl Strategy<Value = char> {
    prop_oneof![
        Just('-'),
        Just('_'),
        Just('.'),
        Just(' '),
        Just('@'),
        Just('/'),
        Just('\u{e9}'),
        Just('\u{301}'),
        Just('\u{ff23}'),
        Just('\u{1F600}'),
        any::<char>().prop_filter("not an ASCII letter or digit", |c| !c
            .is_ascii_alphanumeric()),
    ]
}

/// A name as words of ASCII letters and digits joined by runs of separators; its twin
/// spells every letter in a chosen case and every run (leading and trailing ones
/// included) with other separators, of another length.
fn name_and_twin() -> impl Strategy<Value = (String, String)> {
    let run = || proptest::collection::vec(separator(), 1..4);
    (
        proptest::option::of((run(), run())),
        proptest::collection::vec(("[A-Za-z0-9]{1,6}", run(), run(), any::<u64>()), 0..5),
    )
        .prop_map(|(lead, parts)| {
            let mut a = String::new();
            let mut b = String::new();
            if let Some((la, lb)) = lead {
                a.extend(la);
                b.extend(lb);
            }
            for (w, sep_a, sep_b, case_bits) in parts {
                a.push_str(&w);
                b.extend(w.chars().enumerate().map(|(i, c)| {
                    if (case_bits >> (i % 64)) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                }));
                a.extend(sep_a);
                b.extend(sep_b);
            }
            (a, b)
        })
}

proptest! {
    #![proptest_config(config())]

    /// `fold(fold(s)) == fold(s)`, over arbitrary Unicode.
    #[test]
    fn fold_is_idempotent(s in any::<String>()) {
        let once = fold(&s);
        prop_assert_eq!(fold(&once), once);
    }

    /// Folded names contain only `[a-z0-9_]` (and never two `_` in a row).
    #[test]
    fn fold_emits_only_a_z_0_9_underscore(s in any::<String>()) {
        let f = fold(&s);
        prop_assert!(
            f.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "{:?} folds to {:?}", s, f
        );
        prop_assert!(!f.contains("__"), "{:?} folds to {:?}", s, f);
    }

    /// `fold(a) == fold(b)` whenever `a` and `b` differ only in ASCII letter case or in
    /// separators (which ones, and how many in a run).
    #[test]
    fn fold_ignores_case_and_separators((a, b) in name_and_twin()) {
        prop_assert_eq!(fold(&a), fold(&b), "{:?} vs {:?}", a, b);
    }

    /// The same, letter by letter: flipping the ASCII case of any letters, or replacing
    /// any separator by any other, never changes the fold.
    #[test]
    fn fold_is_blind_to_each_case_flip_and_separator_swap(
        s in "[A-Za-z0-9_-]{0,24}",
        flips in proptest::collection::vec(any::<bool>(), 24),
        swaps in proptest::collection::vec(separator(), 24),
    ) {
        let t: String = s
            .chars()
            .zip(flips.iter().zip(&swaps))
            .map(|(c, (flip, sep))| {
                if c.is_ascii_alphanumeric() {
                    if *flip { if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() } } else { c }
                } else {
                    *sep
                }
            })
            .collect();
        prop_assert_eq!(fold(&s), fold(&t), "{:?} vs {:?}", s, t);
    }
}
