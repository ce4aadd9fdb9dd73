//! The equality schemes on arbitrary text: never panic; the fingerprint
//! path (block scan, token cache, bucket minima from one pass) equals the
//! explanation path (canonical text, token list, distinct hashes), for
//! each scheme alone and both at once, with the caches warm from the
//! previous input; the hex form round-trips.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::equality(data));
