//! Any bytes as a prepared text read back from a passage search's
//! temporary file: see `checks::stored`.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::stored(data));
