//! JSON string bodies: `unescape_json_string` decodes exactly what
//! serde_json decodes and refuses what it refuses; fingerprinting a body
//! (decoding while folding) equals fingerprinting its decoded text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use priorart_fingerprint::{Fingerprinter, Scheme, unescape_json_string};

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else { return };
    let serde = serde_json::from_str::<String>(&format!("\"{body}\"")).ok();
    let decoded = unescape_json_string(body);
    assert_eq!(decoded.as_deref(), serde.as_deref(), "{body:?}");
    let schemes = [Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2];
    let fused = Fingerprinter::new().fingerprint_json_string(body, &schemes);
    let direct = decoded.map(|text| Fingerprinter::new().fingerprint(&text, &schemes));
    assert_eq!(fused, direct, "{body:?}");
});
