//! cargo-fuzz target `transcript`: the body `fuzzing::transcript` (its oracle
//! is documented there); a finding (`Err`) is a panic, so libFuzzer keeps the input as
//! a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sec_default_fuzz::init();
    if let Err(finding) = fuzzing::transcript(data) {
        panic!("transcript: {finding}");
    }
});
