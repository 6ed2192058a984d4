//! cargo-fuzz target `managed_mcp`: the body `fuzzing::managed_mcp` (its oracle is
//! documented there); a finding (`Err`) is a panic, so libFuzzer keeps the
//! input as a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sec_default_fuzz::init();
    if let Err(finding) = fuzzing::managed_mcp(data) {
        panic!("managed_mcp: {finding}");
    }
});
