//! cargo-fuzz target `fold`: the body `fuzzing::fold` (its oracle is
//! documented there); a finding (`Err`) is a panic, so libFuzzer keeps the
//! input as a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sec_default_fuzz::init();
    if let Err(finding) = fuzzing::fold(data) {
        panic!("fold: {finding}");
    }
});
