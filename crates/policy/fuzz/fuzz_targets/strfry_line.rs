//! Any bytes as one line from strfry: exactly one well-formed answer to a
//! `new` request, never a panic.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::strfry_line(data));
