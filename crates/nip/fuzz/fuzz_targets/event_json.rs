//! Any bytes as event JSON: the verifier answers with a report, never a
//! panic, whatever the input.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::event_json(data));
