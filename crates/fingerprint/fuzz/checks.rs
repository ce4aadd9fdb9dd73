//! The checks behind the fuzz targets, one function each: run by the fuzz
//! targets on generated inputs, and by `tests/fuzz_regression.rs` on the
//! seeds and minimized corpora (`fuzz/seeds/TARGET/`, `fuzz/corpora/TARGET.tar.gz`), so CI replays
//! every input the fuzzer found interesting.

use priorart_fingerprint::{
    EqualityFingerprint, Fingerprinter, Scheme, SimhashDoc, TokenRule, decode_json_string, explain,
    explain_simhash_doc, simhash_doc_by_definition,
};
use std::cell::RefCell;

thread_local! {
    /// Kept across inputs, as the CLI keeps one per worker.
    static FINGERPRINTER: RefCell<Fingerprinter> = RefCell::new(Fingerprinter::new());
}

/// The equality schemes on arbitrary text: never panic; the fingerprint
/// path (block scan, token cache, bucket minima from one pass) equals the
/// explanation path (canonical text, token list, distinct hashes), for
/// each scheme alone and both at once, with the caches warm from the
/// previous input; the hex form round-trips.
pub fn equality(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let schemes = [Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2];
    let both = FINGERPRINTER.with_borrow_mut(|f| f.fingerprint(text, &schemes));
    for (scheme, fingerprint) in schemes.into_iter().zip(both) {
        let explained = explain(text, scheme).expect("an equality scheme");
        assert_eq!(fingerprint.to_string(), explained.fingerprint.to_string(), "{scheme} {text:?}");
        let alone = FINGERPRINTER.with_borrow_mut(|f| f.equality(text, scheme)).expect("an equality scheme");
        assert_eq!(alone, explained.fingerprint, "{scheme} {text:?}");
        assert_eq!(alone.to_string().parse::<EqualityFingerprint>(), Ok(alone));
    }
}

/// JSON strings: `decode_json_string` decodes exactly what serde_json
/// decodes of the string that starts the input, ends it where serde_json
/// does and refuses what it refuses; fingerprinting the string (decoding
/// while folding) equals fingerprinting its decoded text.
pub fn json_string(data: &[u8]) {
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
}

/// `simhash-doc` on arbitrary text: never panics; the fast path (block
/// masks, stable-character table, batched hashing) equals the definition
/// computed literally and the explanation; the text form round-trips.
pub fn simhash_doc(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for rule in TokenRule::ALL {
        let fast = Fingerprinter::new().simhash_doc(text, rule);
        let explained = explain_simhash_doc(text, rule);
        assert_eq!(fast, explained.fingerprint, "{text:?}");
        assert_eq!(fast, simhash_doc_by_definition(text, rule), "{text:?}");
        assert_eq!(fast.to_string().parse::<SimhashDoc>(), Ok(fast));
    }
    let _ = text.parse::<SimhashDoc>();
}
