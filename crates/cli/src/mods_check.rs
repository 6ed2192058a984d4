//! `sec-default mods check DIR`: what a mod hooks, which `$` calls it makes, which
//! environment variables it reads and writes, which options it takes, or why it cannot
//! load; and, with `--managed DIR` or `--example`, what the security default would hold
//! over it under that policy (SPEC §6; reference §8 `claude plugin
//! validate`).
//!
//! Exit codes: 0 the mod loads and has no errors (and, under a policy, nothing it did
//! breached); 1 it cannot load, the analysis found an error, or a call it answered
//! breached seated; 2 bad input (a folder that does not exist, a managed folder that
//! does not exist); 3 the managed policy cannot be read.

use crate::audit;
use crate::error::CommandError;
use crate::inputs::{PersonInputs, PolicySource};
use crate::out;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// Runs `mods check` on `dir`; the policy `source` is judged against when given.
pub(crate) fn run(dir: &Path, source: Option<PolicySource>, json: bool) -> u8 {
    if !dir.is_dir() {
        let e = CommandError::parsed(
            format!(
                "{}: the mod folder given does not exist or is not a folder",
                dir.display()
            ),
            dir,
            crate::exit::BAD_INPUT,
        );
        return out::fail("mods check", &e, json);
    }
    let mut text = String::new();
    let mut report = Map::new();
    report.insert("folder".into(), json!(dir.display().to_string()));
    let mut code = crate::exit::OK;
    match mods::load_folder(dir) {
        Err(e) => {
            code = crate::EXIT_FAILED;
            text.push_str(&format!("✘ {} cannot load: {e}\n", dir.display()));
            report.insert("loads".into(), json!(false));
            report.insert("load_error".into(), json!(e.to_string()));
        }
        Ok(source) => {
            let catalogue = events::catalogue();
            let inspection = mods::inspect(&source, &|p| catalogue.pattern_is_declared(p));
            if inspection.has_errors() {
                code = crate::EXIT_FAILED;
            }
            text.push_str(&inspection.render());
            report.insert("loads".into(), json!(true));
            report.insert(
                "inspection".into(),
                serde_json::to_value(&inspection).unwrap_or(Value::Null),
            );
        }
    }
    match &source {
        None => {
            text.push_str(
                "\nunder a policy: give --managed DIR (or --example) to see what the security default holds over it\n",
            );
            report.insert("policy".into(), Value::Null);
        }
        Some(policy) => {
            let person = PersonInputs {
                plugin_dirs: vec![PathBuf::from(dir)],
                settings: None,
            };
            match audit::mod_holds(policy, &person) {
                Ok(holds) => {
                    text.push_str(&format!(
                        "\nunder {}: each of the audit's calls, unseated and seated:\n",
                        holds.heading
                    ));
                    for l in &holds.lines {
                        text.push_str(l);
                        text.push('\n');
                    }
                    if holds.breaches > 0 {
                        code = crate::EXIT_FAILED;
                    }
                    report.insert(
                        "policy".into(),
                        json!({
                            "description": holds.heading,
                            "breaches": holds.breaches,
                            "mods": holds.json,
                        }),
                    );
                }
                Err(e) => return out::fail("mods check", &e.to_command_error(policy), json),
            }
        }
    }
    out::report("mods check", json, &report, || text, code)
}
