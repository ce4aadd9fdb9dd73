//! Any bytes: decoding never panics and memory stays proportional to the
//! input; whatever decodes re-encodes to bytes that decode to the same
//! proof, re-encode identically, and print (ots info) without panicking.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::decode(data));
