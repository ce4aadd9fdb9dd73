//! JSON strings: `decode_json_string` decodes exactly what serde_json
//! decodes of the string that starts the input, ends it where serde_json
//! does and refuses what it refuses; fingerprinting the string (decoding
//! while folding) equals fingerprinting its decoded text.
#![no_main]

#[path = "../checks.rs"]
#[allow(dead_code)] // each target runs one of the checks
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::json_string(data));
