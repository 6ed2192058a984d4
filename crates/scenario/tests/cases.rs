//! Every scenario of `../shared/cases` and of the project's own `examples/scenarios`
//! passes.

mod common;

use common::{root, run_dir, run_dir_with};

#[test]
fn shared_cases_admission() {
    run_dir("../shared/cases/admission");
}

#[test]
fn shared_cases_env() {
    run_dir("../shared/cases/env");
}

#[test]
fn shared_cases_fail_closed() {
    run_dir("../shared/cases/fail-closed");
}

#[test]
fn shared_cases_held_verdict() {
    run_dir("../shared/cases/held-verdict");
}

/// The permission core's own cases (classic hooks, the tool-use flow, modes;
/// the rule-language files depend on the rule core).
#[test]
fn shared_cases_permissions() {
    run_dir("../shared/cases/permissions");
}

#[test]
fn shared_cases_prompt() {
    run_dir("../shared/cases/prompt");
}

#[test]
fn shared_cases_real_inputs() {
    run_dir("../shared/cases/real-inputs");
}

#[test]
fn shared_cases_register() {
    run_dir("../shared/cases/register");
}

#[test]
fn project_scenarios_one_per_spec_row_attack_and_control() {
    run_dir("examples/scenarios/rows");
}

#[test]
fn regressions_found_by_the_properties() {
    run_dir("examples/scenarios/regressions");
}

#[test]
fn adversarial_scenarios_against_every_hold() {
    run_dir("examples/scenarios/adversary");
}

/// SPEC §1.1: a batch under `prepend` may hold a person's plugin when the embedding
/// program puts the two in one worker (its Rust plugins may); the security default
/// still finds the person's member (§3.6 step 2). Scenario files may not say so
/// (SCENARIOS.md "Mods"): the same files are bad input to `sec-default test`.
#[test]
fn batches_an_embedder_makes_across_a_person_and_the_organization() {
    const DIR: &str = "crates/scenario/tests/fixtures/embedder-batches";
    run_dir_with(DIR, true);
    let loaded = scenario::load_paths(&[root().join(DIR)]).expect("the fixtures load");
    for l in &loaded {
        match scenario::run::run_scenario(l, &scenario::run::RunOptions::default()) {
            Err(scenario::run::SetupError::SharedWorker { pointer, message }) => {
                assert!(pointer.ends_with("/worker"), "{pointer}");
                assert!(message.contains("is refused"), "{message}");
            }
            other => panic!(
                "{}: not refused: {:?}",
                l.file.display(),
                other.map(|r| r.name)
            ),
        }
    }
}
