//! The text extractor on arbitrary bytes: any outcome but a panic, hang or abort is fine.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::format(data, priorart_extract::Format::Text));
