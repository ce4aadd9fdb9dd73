//! Any bytes as a text winnowed by both passes of a passage search: see
//! `checks::marks`.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::marks(data));
