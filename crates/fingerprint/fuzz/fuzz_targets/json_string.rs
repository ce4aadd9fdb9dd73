//! JSON strings: `decode_json_string` decodes exactly what serde_json
//! decodes of the string that starts the input, ends it where serde_json
//! does and refuses what it refuses; fingerprinting the string (decoding
//! while folding) equals fingerprinting its decoded text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use priorart_fingerprint::{Fingerprinter, Scheme, decode_json_string};

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else { return };
    let json = format!("\"{body}");
    let mut stream = serde_json::Deserializer::from_str(&json).into_iter::<String>();
    let serde = stream.next().and_then(Result::ok).map(|text| (text, stream.byte_offset()));
    let decoded = decode_json_string(&json);
    let owned = decoded.as_ref().map(|(text, len)| (text.to_string(), *len));
    assert_eq!(owned, serde, "{json:?}");
    let schemes = [Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2];
    let fused = Fingerprinter::new().fingerprint_json_string(&json, &schemes);
    let direct = decoded.map(|(text, len)| (Fingerprinter::new().fingerprint(&text, &schemes), len));
    assert_eq!(fused, direct, "{json:?}");
});
