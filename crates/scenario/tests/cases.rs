//! Every scenario of `../shared/cases` and of the project's own `examples/scenarios`
//! passes (issue #2 item 8; `permissions/` is issue #3's).

mod common;

use common::run_dir;

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

/// Issue #3: the permission core's own cases (classic hooks, the tool-use flow, modes;
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
