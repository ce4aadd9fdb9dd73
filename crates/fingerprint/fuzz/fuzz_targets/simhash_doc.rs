//! `simhash-doc` on arbitrary text: never panics; the fast path (block
//! masks, stable-character table, batched hashing) equals the definition
//! computed literally and the explanation; the text form round-trips.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::simhash_doc(data));
