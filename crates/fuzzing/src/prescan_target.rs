//! The nesting pre-scan of a mod's JavaScript and TypeScript (`mods::load::prescan`,
//! SPEC §6 caps: "nesting 2,000 deep, checked before parsing"): the first reader of a
//! mod's untrusted source, before any parser.

use mods::load::{prescan, MAX_NESTING};
use mods::ModSource;
use serde_json::Map;

use crate::{finding, shown, Outcome, MAX_INPUT};

/// One suffix of each of the four dialects the scan reads (JavaScript, JSX,
/// TypeScript, TSX).
const SUFFIXES: [&str; 4] = ["js", "jsx", "ts", "tsx"];

/// Target `mod_prescan`: `data` (lossily decoded when it is not UTF-8) as a module
/// file, scanned in each dialect.
///
/// The oracle: the scan does not panic and ends; every loadable suffix has a dialect;
/// a file it accepts has a measure of at most `MAX_NESTING`; a refusal's offset lies
/// within the file (at most its length); and a file it accepts as JavaScript compiles
/// as an inline mod (on the loader's compiler thread) without overflowing the
/// compiler's stack. The compiler may refuse the file (a syntax error, a reserved
/// name): what the scan promises is only that no accepted file overflows, and an
/// overflow aborts the process, which the fuzzer keeps as a crash.
///
/// # Errors
///
/// A [`crate::Finding`] when the oracle does not hold.
pub fn mod_prescan(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let src = String::from_utf8_lossy(data);
    for suffix in SUFFIXES {
        match prescan(&src, suffix) {
            None => return Err(finding!("the suffix {suffix:?} has no dialect")),
            Some(Ok(measure)) if measure > MAX_NESTING => {
                return Err(finding!(
                    "{suffix}: accepted with a measure of {measure}, past the cap \
                     {MAX_NESTING}: {}",
                    shown(&src)
                ))
            }
            Some(Err(offset)) if offset > src.len() => {
                return Err(finding!(
                    "{suffix}: refused at offset {offset}, past the end ({} bytes): {}",
                    src.len(),
                    shown(&src)
                ))
            }
            Some(_) => {}
        }
    }
    if let Some(Ok(_)) = prescan(&src, "js") {
        // Ok or Err: either way the compiler came back.
        let _compiled = ModSource::inline("fuzz", &src, Map::new());
    }
    Ok(())
}
