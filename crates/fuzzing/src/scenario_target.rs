//! Scenario files, loaded by `scenario::load_str`.

use std::path::Path;

use crate::{finding, shown, Outcome, MAX_INPUT};

/// The file name the scenario text is loaded as (it names no real file, so a
/// relative `$dir` resolves to a folder that does not exist).
pub const SCENARIO_FILE: &str = "fuzz-input/scenario.json";

/// Target `scenario_file`: `data` (lossily decoded when it is not UTF-8) as
/// the text of a scenario file.
///
/// The oracle: `scenario::load_str` does not panic and returns; when it fails,
/// the error's Display names the file ([`SCENARIO_FILE`]).
///
/// # Errors
///
/// A description of the finding when the oracle does not hold.
pub fn scenario_file(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let text = String::from_utf8_lossy(data);
    match scenario::load_str(Path::new(SCENARIO_FILE), &text) {
        Ok(_) => Ok(()),
        Err(e) => {
            let message = e.to_string();
            if message.contains(SCENARIO_FILE) {
                Ok(())
            } else {
                Err(finding!(
                    "load_str failed with an error that does not name the file {SCENARIO_FILE}: {}; input {}",
                    shown(&message),
                    shown(&text)
                ))
            }
        }
    }
}
