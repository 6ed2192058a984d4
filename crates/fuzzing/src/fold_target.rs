//! The fold (`sec_default::fold`, SPEC §3.4.1).

use sec_default::fold::{fold as fold_name, folds_to_nothing};

use crate::{finding, shown, Outcome, MAX_INPUT};

/// Target `fold`: `data` (lossily decoded when it is not UTF-8) as a name.
///
/// The oracle: `fold` does not panic; its output holds only `[a-z0-9_]`; it
/// is idempotent (`fold(fold(s)) == fold(s)`); case does not matter
/// (`fold(s) == fold(s.to_ascii_uppercase())` and `== fold(s.to_ascii_lowercase())`,
/// which touch only ASCII letters); `-` and `_` are one separator; and
/// `folds_to_nothing(s)` holds exactly when the fold has no letter or digit.
///
/// # Errors
///
/// A description of the finding when the oracle does not hold.
pub fn fold(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let s = String::from_utf8_lossy(data);
    let folded = fold_name(&s);
    let fail = |what: &str| Err(finding!("{what}: fold({}) = {}", shown(&s), shown(&folded)));
    if let Some(c) = folded
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'))
    {
        return fail(&format!("the fold holds {c:?}, outside [a-z0-9_]"));
    }
    if fold_name(&folded) != folded {
        return fail(&format!(
            "the fold is not idempotent: fold(fold(s)) = {}",
            shown(&fold_name(&folded))
        ));
    }
    if fold_name(&s.to_ascii_uppercase()) != folded {
        return fail(&format!(
            "case matters: fold(upper(s)) = {}",
            shown(&fold_name(&s.to_ascii_uppercase()))
        ));
    }
    if fold_name(&s.to_ascii_lowercase()) != folded {
        return fail(&format!(
            "case matters: fold(lower(s)) = {}",
            shown(&fold_name(&s.to_ascii_lowercase()))
        ));
    }
    let dashes = s.replace('_', "-");
    if fold_name(&dashes) != folded {
        return fail(&format!(
            "`_` and `-` differ: fold({}) = {}",
            shown(&dashes),
            shown(&fold_name(&dashes))
        ));
    }
    let nothing = !folded.chars().any(|c| c.is_ascii_alphanumeric());
    if folds_to_nothing(&s) != nothing {
        return fail(&format!(
            "folds_to_nothing says {} but the fold has {} letter or digit",
            folds_to_nothing(&s),
            if nothing { "no" } else { "a" }
        ));
    }
    Ok(())
}
