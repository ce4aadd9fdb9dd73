//! Any bytes as a policy file: refused with a reason or a working policy,
//! never a panic.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::policy_toml(data));
