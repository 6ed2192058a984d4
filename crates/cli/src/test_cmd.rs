//! `sec-default test PATH...` (SCENARIOS.md "Running").

use crate::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};
use scenario::run::{run_scenario, RunOptions, ScenarioReport};
use std::fmt::Write as _;
use std::path::PathBuf;

/// Runs every scenario under `paths`; prints one line per scenario, and for a failure
/// the step, the expectation, the actual answer and the step's trace.
pub fn run(paths: &[PathBuf], compare: bool, managed: Option<PathBuf>, json: bool) -> u8 {
    if let Some(dir) = &managed {
        if !dir.is_dir() {
            eprintln!(
                "sec-default test: --managed {}: no such folder",
                dir.display()
            );
            return EXIT_BAD_INPUT;
        }
    }
    let loaded = match scenario::load_paths(paths) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("sec-default test: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let options = RunOptions { managed, compare };
    let mut reports = Vec::new();
    for l in &loaded {
        match run_scenario(l, &options) {
            Ok(r) => reports.push(r),
            Err(e) => {
                eprintln!("sec-default test: {}{}: {e}", l.file.display(), l.pointer());
                return EXIT_BAD_INPUT;
            }
        }
    }
    let failed = reports.iter().filter(|r| !r.passed()).count();
    if json {
        let out = serde_json::json!({
            "passed": reports.len() - failed,
            "failed": failed,
            "scenarios": reports,
        });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        for r in &reports {
            print!("{}", render(r));
        }
        println!("{} passed, {} failed", reports.len() - failed, failed);
    }
    if failed == 0 {
        EXIT_OK
    } else {
        EXIT_FAILED
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
