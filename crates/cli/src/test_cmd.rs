//! `sec-default test PATH...` (SCENARIOS.md "Running"): every file
//! is loaded first and every invalid one reported (file, position, reason), the valid
//! ones still run, each scenario's line printed as it finishes; an invalid file, or a
//! path holding no scenario at all, makes the exit code 2 at the end.

use crate::error::CommandError;
use crate::{out, EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use scenario::run::{run_scenario, RunOptions, ScenarioReport};
use scenario::{FormatError, LoadedScenario};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What `test` found before running: the scenarios to run and the errors to report.
struct Loaded {
    scenarios: Vec<LoadedScenario>,
    errors: Vec<CommandError>,
}

/// Loads every path: a file as one scenario file, a folder as every `*.json` under it.
/// An invalid file is an error and the others still load; a path that holds no
/// scenario at all (an empty folder, `{"scenarios": []}`) is an error too.
fn load(paths: &[PathBuf]) -> Loaded {
    let mut loaded = Loaded {
        scenarios: Vec::new(),
        errors: Vec::new(),
    };
    for path in paths {
        let before = (loaded.scenarios.len(), loaded.errors.len());
        let files = match std::fs::metadata(path) {
            Err(source) if source.kind() == std::io::ErrorKind::NotFound => {
                Err(FormatError::NotFound { path: path.clone() })
            }
            Err(source) => Err(FormatError::Io {
                path: path.clone(),
                source,
            }),
            Ok(meta) if meta.is_dir() => scenario::load::scenario_files(path),
            Ok(_) => Ok(vec![path.clone()]),
        };
        match files {
            Ok(files) => {
                for file in files {
                    match scenario::load_file(&file) {
                        Ok(list) => loaded.scenarios.extend(list),
                        Err(e) => loaded.errors.push(CommandError::from_format(&e)),
                    }
                }
            }
            Err(e) => loaded.errors.push(CommandError::from_format(&e)),
        }
        if (loaded.scenarios.len(), loaded.errors.len()) == before {
            loaded.errors.push(no_scenario(path));
        }
    }
    loaded
}

/// The error of a path that holds no scenario (exit 2: nothing ran is not a pass).
fn no_scenario(path: &Path) -> CommandError {
    let what = if path.is_dir() {
        "the folder holds no scenario (no *.json file with a scenario under it)"
    } else {
        "the file holds no scenario"
    };
    CommandError::new(Some(path), what, EXIT_BAD_INPUT)
}

/// The exit code of what ran: 2 when any file was invalid or a scenario could not be
/// set up, else 1 when any scenario failed, else 0.
fn code(errors: usize, failed: usize) -> u8 {
    if errors > 0 {
        EXIT_BAD_INPUT
    } else if failed > 0 {
        EXIT_FAILED
    } else {
        EXIT_OK
    }
}

/// Runs every scenario under `paths`; prints one line per scenario as it finishes, and
/// for a failure the step, the expectation, the actual answer and the step's trace;
/// with `json`, one document at the end. Returns the exit code.
pub(crate) fn run(paths: &[PathBuf], compare: bool, managed: Option<PathBuf>, json: bool) -> u8 {
    if let Some(dir) = &managed {
        if !dir.is_dir() {
            let err = CommandError::new(
                Some(dir),
                "--managed: no such folder (the managed folder given does not exist or is not a folder)",
                EXIT_BAD_INPUT,
            );
            return out::fail("test", &err, json);
        }
    }
    let Loaded {
        scenarios,
        mut errors,
    } = load(paths);
    for e in &errors {
        out::say("test", &e.message);
    }
    let options = RunOptions {
        managed,
        compare,
        embedder_batches: false,
    };
    let mut reports = Vec::new();
    let mut failed = 0;
    for l in &scenarios {
        match run_scenario(l, &options) {
            Ok(r) => {
                if !r.passed() {
                    failed += 1;
                }
                if !json {
                    if let Err(e) = out::print(&render(&r)) {
                        return out::after_write_error(&e, code(errors.len(), failed), "test");
                    }
                }
                reports.push(r);
            }
            Err(e) => {
                let mut err = CommandError::new(Some(&l.file), e.to_string(), EXIT_BAD_INPUT)
                    .at_pointer(l.pointer());
                err.message = format!("{}{}: {e}", l.file.display(), l.pointer());
                out::say("test", &err.message);
                errors.push(err);
            }
        }
    }
    let code = code(errors.len(), failed);
    let text = if json {
        let doc = serde_json::json!({
            "passed": reports.len() - failed,
            "failed": failed,
            "errors": errors.iter().map(CommandError::fields).collect::<Vec<_>>(),
            "scenarios": reports,
        });
        let mut t = serde_json::to_string_pretty(&doc).unwrap_or_default();
        t.push('\n');
        t
    } else if errors.is_empty() {
        format!("{} passed, {failed} failed\n", reports.len() - failed)
    } else {
        format!(
            "{} passed, {failed} failed, {} error{} (see standard error)\n",
            reports.len() - failed,
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        )
    };
    match out::print(&text) {
        Ok(()) => code,
        Err(e) => out::after_write_error(&e, code, "test"),
    }
}

fn render(r: &ScenarioReport) -> String {
    let mut s = String::new();
    let status = if r.passed() { "pass" } else { "FAIL" };
    let _ = writeln!(
        s,
        "{status}  {} ({}{})",
        r.name,
        r.file.display(),
        r.pointer
    );
    for f in &r.failures {
        let step = f
            .step
            .map_or_else(|| "admission".to_owned(), |i| format!("step {i}"));
        let _ = writeln!(s, "      {step}: {}", f.why);
        if let Some(about) = &r.about {
            let _ = writeln!(s, "      about:    {about}");
        }
        let _ = writeln!(s, "      expected: {}", f.expected);
        let _ = writeln!(s, "      actual:   {}", f.actual);
        if !f.trace.is_empty() {
            let _ = writeln!(s, "      trace:");
            for t in &f.trace {
                let who = if t.plugins.is_empty() {
                    "core".to_owned()
                } else {
                    t.plugins.join(", ")
                };
                let failure = t
                    .failure
                    .map(|k| format!(" [failed: {k}]"))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "        {:<8} {who}: called_next={} answer={}{failure}",
                    t.tier.as_str(),
                    t.called_next,
                    fnhooks::answer_to_json(&t.answer)
                );
            }
        }
    }
    if let Some(changed) = &r.changed {
        if changed.is_empty() {
            let _ = writeln!(s, "      compare: no difference");
        }
        for d in changed {
            let at = d
                .step
                .map_or_else(|| "admission".to_owned(), |i| format!("step {i}"));
            let _ = writeln!(
                s,
                "      compare: {at} ({}): seated {} / unseated {}",
                d.event, d.seated, d.unseated
            );
        }
    }
    s
}
