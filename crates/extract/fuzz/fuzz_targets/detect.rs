//! Detection, then extraction as the detected format.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::detected(data));
