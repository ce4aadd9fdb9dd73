//! Fuzz input inside a well-formed kind 1041: the first half as the
//! `description` (the embedded attestation), the rest as `.content` (the
//! base64 proof), so the fuzzer reaches steps 2-8 without having to invent
//! the outer event.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::embedded(data));
