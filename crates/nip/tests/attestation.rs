//! The kind 1042 attestation and its commitment.

use crate::common;

use common::{alice, peer, signed};
use priorart_nip::nostr::prelude::*;
use priorart_nip::{Attestation, AttestationError, Commitment};
use sha2::{Digest, Sha256};

fn fingerprint() -> priorart_fingerprint::EqualityFingerprint {
    priorart_fingerprint::minhash_equality_v1(common::TEXT)
}

fn attestation() -> Attestation {
    Attestation::sign(&alice(), fingerprint(), Some(30023), Timestamp::from_secs(1_700_000_000))
        .expect("signs")
}

#[test]
fn has_exactly_the_nip_shape_in_the_nip_field_order() {
    let json = attestation().to_json();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = vec!["kind", "created_at", "pubkey", "content", "tags", "id", "sig"];
    expected.sort_unstable(); // serde_json::Value sorts keys here (no preserve_order)
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(keys, expected);
    assert!(json.starts_with("{\"kind\":1042,\"created_at\":1700000000,\"pubkey\":\""), "{json}");
    assert_eq!(value["content"], "");
    let x = fingerprint().to_string();
    assert_eq!(value["tags"], serde_json::json!([["X", x, "minhash-equality-v1"], ["k", "30023"]]));
    assert_eq!(value["pubkey"], alice().public_key().to_hex());
}

#[test]
fn round_trips_through_json() {
    let original = attestation();
    let parsed = Attestation::from_json(&original.to_json()).expect("valid");
    assert_eq!(parsed.event(), original.event());
    assert_eq!(parsed.fingerprint(), fingerprint());
    assert_eq!(parsed.content_kind(), Some(30023));
}

#[test]
fn commitment_is_sha256_of_the_raw_signature_bytes() {
    let attestation = attestation();
    let sig_bytes: Vec<u8> = (0..64)
        .map(|i| u8::from_str_radix(&attestation.event().sig.to_hex()[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let expected: [u8; 32] = Sha256::digest(&sig_bytes).into();
    assert_eq!(attestation.commitment(), Commitment(expected));
    assert_eq!(attestation.commitment().to_string().len(), 64);
    // Not the hash of the hex text, nor of the event id.
    assert_ne!(
        attestation.commitment().0,
        <[u8; 32]>::from(Sha256::digest(attestation.event().sig.to_hex()))
    );
    assert_ne!(&attestation.commitment().0, attestation.event().id.as_bytes());
}

#[test]
fn nostr_tools_accepts_the_attestation() {
    if !peer::available() {
        return;
    }
    let without_k =
        Attestation::sign(&alice(), fingerprint(), None, Timestamp::from_secs(1)).expect("signs").to_json();
    let answers = peer::verify(&[attestation().to_json(), without_k]);
    assert_eq!(answers, vec![(true, None), (true, None)]);
}

fn check(event: Event) -> Result<Attestation, AttestationError> {
    Attestation::from_event(event)
}

#[test]
fn every_tampered_field_is_refused_for_its_reason() {
    let good = attestation().event().clone();
    let x = fingerprint().to_string();

    let mut id = good.clone();
    id.id = EventId::from_byte_array([7; 32]);
    assert_eq!(check(id).unwrap_err(), AttestationError::IdMismatch);

    let mut sig = good.clone();
    sig.sig = common::mallory().sign_schnorr(good.id.as_bytes());
    assert_eq!(check(sig).unwrap_err(), AttestationError::BadSignature);

    let mut pubkey = good.clone();
    pubkey.pubkey = common::mallory().public_key();
    assert_eq!(check(pubkey).unwrap_err(), AttestationError::IdMismatch);

    let mut content = good.clone();
    content.content = "hello".into();
    assert_eq!(check(content).unwrap_err(), AttestationError::IdMismatch);

    let mut kind = good.clone();
    kind.kind = Kind::from_u16(1);
    assert_eq!(check(kind).unwrap_err(), AttestationError::IdMismatch);

    // Correctly signed by the author, but not of the required shape.
    let xt: &[&str] = &["X", &x, "minhash-equality-v1"];
    let cases: Vec<(Event, AttestationError)> = vec![
        (signed(&alice(), 1, "", &[xt]), AttestationError::WrongKind(1)),
        (signed(&alice(), 1042, "hi", &[xt]), AttestationError::ContentNotEmpty),
        (signed(&alice(), 1042, "", &[]), AttestationError::XMissing),
        (signed(&alice(), 1042, "", &[xt, xt]), AttestationError::XRepeated),
        (
            signed(&alice(), 1042, "", &[&["X", &x, "simhash-equality-v2"]]),
            AttestationError::WrongAlgorithm(Some("simhash-equality-v2".into())),
        ),
        (signed(&alice(), 1042, "", &[&["X", &x]]), AttestationError::WrongAlgorithm(None)),
        (
            signed(&alice(), 1042, "", &[&["X", &x.to_uppercase(), "minhash-equality-v1"]]),
            AttestationError::XMalformed,
        ),
        (signed(&alice(), 1042, "", &[xt, &["k", "long-form"]]), AttestationError::KMalformed),
        (signed(&alice(), 1042, "", &[xt, &["k", "1"], &["k", "1"]]), AttestationError::KMalformed),
        (signed(&alice(), 1042, "", &[xt, &["p", &x]]), AttestationError::UnexpectedTag("p".into())),
    ];
    for (event, expected) in cases {
        assert_eq!(check(event).unwrap_err(), expected);
    }
}
