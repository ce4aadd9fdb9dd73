//! The check behind the fuzz target: run by it on generated inputs, and by
//! `tests/fuzz_regression.rs` on the committed minimized corpus.

use priorart_ots::{DetachedTimestamp, Timestamp};

/// Any bytes: decoding never panics and memory stays proportional to the
/// input; whatever decodes re-encodes to bytes that decode to the same
/// proof, re-encode identically, and print (ots info) without panicking.
pub fn decode(data: &[u8]) {
    if let Ok(proof) = DetachedTimestamp::from_bytes(data) {
        let bytes = proof.to_bytes();
        let again = DetachedTimestamp::from_bytes(&bytes).expect("re-encoded proof decodes");
        assert_eq!(again, proof);
        assert_eq!(again.to_bytes(), bytes);
        let _ = priorart_ots::info_text(&proof);
        let _ = proof.attestations();
    }
    // The same bytes as a calendar's answer for a 32-byte commitment.
    if let Ok(answer) = Timestamp::from_bytes(data, &[0u8; 32]) {
        let bytes = answer.to_bytes();
        assert_eq!(Timestamp::from_bytes(&bytes, &[0u8; 32]).expect("re-encoded answer decodes"), answer);
    }
}
