//! `simhash-doc` on arbitrary text: never panics; the fast path (block
//! masks, stable-character table, batched hashing) equals the definition
//! computed literally and the explanation; the text form round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use priorart_fingerprint::{Fingerprinter, SimhashDoc, explain_simhash_doc, simhash_doc_by_definition};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let fast = Fingerprinter::new().simhash_doc(text);
    let explained = explain_simhash_doc(text);
    assert_eq!(fast, explained.fingerprint, "{text:?}");
    assert_eq!(fast, simhash_doc_by_definition(text), "{text:?}");
    assert_eq!(fast.to_string().parse::<SimhashDoc>(), Ok(fast));
    let _ = text.parse::<SimhashDoc>();
});
