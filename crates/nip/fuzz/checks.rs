//! The checks behind the fuzz targets: run by them on generated inputs, and
//! by `tests/fuzz_regression.rs` on the committed minimized corpora.

use priorart_ots::{MemoryHeaders, Network};

/// Any bytes as event JSON: the verifier answers with a report, never a
/// panic, whatever the input.
pub fn event_json(data: &[u8]) {
    if let Ok(json) = std::str::from_utf8(data) {
        let report = priorart_nip::verify_event_json(json, &MemoryHeaders::new(), Network::Regtest);
        assert_eq!(
            report.steps.len(),
            if report.scheme == Some(priorart_nip::Specification::Nip03) { 4 } else { 8 }
        );
        let _ = report.to_json();
    }
}

/// Fuzz input inside a well-formed kind 1041: the first half as the
/// `description` (the embedded attestation), the rest as `.content` (the
/// base64 proof), so the fuzzer reaches steps 2-8 without having to invent
/// the outer event.
pub fn embedded(data: &[u8]) {
    let (description, content) = data.split_at(data.len() / 2);
    let (Ok(description), Ok(content)) = (std::str::from_utf8(description), std::str::from_utf8(content))
    else {
        return;
    };
    let pubkey = "4f355bdcb7cc0af728ef3cceb9615d90684bb5b2ca5f859ab0f0b704075871aa";
    let event = serde_json::json!({
        "id": "00".repeat(32), "pubkey": pubkey, "created_at": 1, "kind": 1041, "content": content,
        "tags": [
            ["a", format!("30023:{pubkey}:d")], ["k", "30023"],
            ["X", "ab".repeat(32), "minhash-equality-v1"], ["description", description]
        ],
        "sig": "00".repeat(64),
    });
    let report = priorart_nip::verify_event_json(&event.to_string(), &MemoryHeaders::new(), Network::Regtest);
    assert_eq!(report.steps.len(), 8);
}
