//! cargo-fuzz target `mod_prescan`: the body `fuzzing::mod_prescan` (its oracle is
//! documented there); a finding (`Err`) is a panic, so libFuzzer keeps the input as a
//! crash, and so is a stack overflow of the compiler on a file the scan accepted.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sec_default_fuzz::init();
    if let Err(finding) = fuzzing::mod_prescan(data) {
        panic!("mod_prescan: {finding}");
    }
});
