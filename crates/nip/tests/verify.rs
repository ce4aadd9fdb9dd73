//! The verifier: every attack and tamper case of the NIP fails for its own
//! named reason, at its own step.

use crate::common;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use common::{alice, mallory, signed};
use priorart_nip::nostr::prelude::*;
use priorart_nip::{Attestation, Reason, Report, Status, Verdict, verify_event_json};
use priorart_ots::{MemoryHeaders, Network};
use serde_json::{Value, json};

fn attestation_by(keys: &Keys) -> Attestation {
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT);
    Attestation::sign(keys, x, Some(30023), Timestamp::from_secs(1_700_000_000)).expect("signs")
}

fn coordinate(author: &Keys) -> String {
    format!("30023:{}:essay-1", author.public_key().to_hex())
}

/// A kind 1041 assembled field by field (as any client could), so that
/// cases the builder refuses can be built too.
fn proof_event(signer: &Keys, reference: &[&[&str]], x: &str, description: &str, proof: &[u8]) -> String {
    let mut tags: Vec<&[&str]> = reference.to_vec();
    let xt = ["X", x, "minhash-equality-v1"];
    let described = ["description", description];
    tags.extend([&["k", "30023"][..], &xt[..], &described[..]]);
    priorart_nip::to_json(&signed(signer, 1041, &BASE64.encode(proof), &tags))
}

/// Alice's honest kind 1041 for her article: a proof of her commitment
/// claiming Bitcoin block 5.
fn honest() -> (Attestation, String) {
    let attestation = attestation_by(&alice());
    let proof = common::bitcoin_claim(&attestation.commitment().0, 5);
    let x = attestation.fingerprint().to_string();
    let event = proof_event(&alice(), &[&["a", &coordinate(&alice())]], &x, &attestation.to_json(), &proof);
    (attestation, event)
}

fn verify(json: &str) -> Report {
    verify_event_json(json, &MemoryHeaders::new(), Network::Mainnet)
}

/// Asserts that `step` failed with `reason` and that the verdict is invalid.
fn assert_fails(report: &Report, step: u8, reason: Reason) {
    assert_eq!(report.verdict, Verdict::Invalid, "{}", report.to_json());
    let found = report.step(step).expect("step reported");
    assert_eq!((found.status, found.reason), (Status::Fail, Some(reason)), "{}", report.to_json());
}

fn assert_passes(report: &Report, steps: &[u8]) {
    for &step in steps {
        assert!(report.passed(step), "step {step} should pass: {}", report.to_json());
    }
}

#[test]
fn honest_proof_passes_steps_1_to_7_and_asks_the_headers_at_step_8() {
    let (attestation, event) = honest();
    let report = verify(&event);
    assert_passes(&report, &[1, 2, 3, 4, 5, 6, 7]);
    // No header for block 5 in an empty cache: step 8 cannot be checked,
    // which is "unverified", not "invalid".
    assert_eq!(report.verdict, Verdict::Unverified, "{}", report.to_json());
    let step8 = report.step(8).expect("step 8 reported");
    assert_eq!((step8.status, step8.reason), (Status::Fail, Some(Reason::ProofHeadersUnavailable)));
    assert_eq!(report.commitment, Some(attestation.commitment().to_string()));
    assert_eq!(report.author, Some(alice().public_key().to_hex()));
    assert_eq!(report.fingerprint, Some(attestation.fingerprint().to_string()));
    assert_eq!(report.steps.len(), 8);
}

#[test]
fn attack_a_stolen_blob_with_the_thiefs_own_attestation() {
    let (victim, _) = honest();
    let stolen = common::bitcoin_claim(&victim.commitment().0, 5);
    let own = attestation_by(&mallory());
    let x = own.fingerprint().to_string(); // same text, same fingerprint
    assert_eq!(x, victim.fingerprint().to_string());
    let event = proof_event(&mallory(), &[&["a", &coordinate(&mallory())]], &x, &own.to_json(), &stolen);
    let report = verify(&event);
    assert_passes(&report, &[3, 4, 5, 7]);
    assert_fails(&report, 8, Reason::ProofForOtherDigest);
}

#[test]
fn attack_a_victims_attestation_under_the_thiefs_reference() {
    let (victim, _) = honest();
    let proof = common::bitcoin_claim(&victim.commitment().0, 5);
    let x = victim.fingerprint().to_string();
    let mallory_hex = mallory().public_key().to_hex();
    let id = EventId::from_byte_array([3; 32]).to_hex();
    let forms: [&[&[&str]]; 3] = [
        &[&["a", &coordinate(&mallory())]],
        &[&["e", &id], &["p", &mallory_hex]],
        // An honest a tag but a p tag naming the thief.
        &[&["a", &coordinate(&alice())], &["p", &mallory_hex]],
    ];
    for reference in forms {
        let event = proof_event(&mallory(), reference, &x, &victim.to_json(), &proof);
        let report = verify(&event);
        assert_passes(&report, &[3, 5, 7]);
        assert_fails(&report, 4, Reason::AuthorMismatch);
    }
}

#[test]
fn attack_b_commitments_computable_without_the_key() {
    let attestation = attestation_by(&alice());
    let fingerprint = attestation.fingerprint().0;
    let pubkey = alice().public_key().to_bytes();
    let xored: [u8; 32] = std::array::from_fn(|i| fingerprint[i] ^ pubkey[i]);
    let content_event = signed(&alice(), 30023, common::TEXT, &[&["d", "essay-1"]]);
    let x = attestation.fingerprint().to_string();
    for digest in [fingerprint, xored, content_event.id.to_bytes()] {
        let proof = common::bitcoin_claim(&digest, 5);
        let event =
            proof_event(&alice(), &[&["a", &coordinate(&alice())]], &x, &attestation.to_json(), &proof);
        let report = verify(&event);
        assert_passes(&report, &[3, 4, 5, 7]);
        assert_fails(&report, 8, Reason::ProofForOtherDigest);
    }
}

/// Alice's attestation JSON with one member replaced.
fn tampered(member: &str, value: Value) -> String {
    let mut attestation: Value = serde_json::from_str(&attestation_by(&alice()).to_json()).unwrap();
    attestation[member] = value;
    attestation.to_string()
}

/// A kind 1041 from Alice around `description`, with a proof of the
/// commitment of whatever signature the description carries.
fn around(description: &str) -> String {
    let sig: Value = serde_json::from_str::<Value>(description).unwrap()["sig"].clone();
    let sig = Signature::from_hex(sig.as_str().unwrap()).unwrap();
    let proof = common::bitcoin_claim(&priorart_nip::Commitment::of_signature(&sig).0, 5);
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT).to_string();
    proof_event(&alice(), &[&["a", &coordinate(&alice())]], &x, description, &proof)
}

#[test]
fn tampered_attestations_fail_step_3_for_their_reason() {
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT).to_string();
    let good = attestation_by(&alice()).event().clone();
    let other_sig = mallory().sign_schnorr(good.id.as_bytes()).to_hex();
    let with_mallory_key = {
        let mut event = good.clone();
        event.pubkey = mallory().public_key();
        event.id =
            EventId::compute(&event.pubkey, &event.created_at, &event.kind, &event.tags, &event.content);
        priorart_nip::to_json(&event)
    };
    let xt: &[&str] = &["X", &x, "minhash-equality-v1"];
    let signed_json =
        |kind, content, tags: &[&[&str]]| priorart_nip::to_json(&signed(&alice(), kind, content, tags));
    let cases = [
        (tampered("id", json!("00".repeat(32))), Reason::AttestationIdMismatch),
        (tampered("sig", json!(other_sig)), Reason::AttestationBadSignature),
        (tampered("pubkey", json!(mallory().public_key().to_hex())), Reason::AttestationIdMismatch),
        (with_mallory_key, Reason::AttestationBadSignature),
        (tampered("content", json!("mine")), Reason::AttestationIdMismatch),
        (tampered("kind", json!(1)), Reason::AttestationIdMismatch),
        (signed_json(1, "", &[xt]), Reason::AttestationWrongKind),
        (signed_json(1042, "mine", &[xt]), Reason::AttestationContentNotEmpty),
        (signed_json(1042, "", &[xt, xt]), Reason::AttestationXRepeated),
        (signed_json(1042, "", &[&["X", &x, "simhash-equality-v2"]]), Reason::AttestationWrongAlgorithm),
        (signed_json(1042, "", &[]), Reason::AttestationXMissing),
        (signed_json(1042, "", &[xt, &["e", &x]]), Reason::AttestationUnexpectedTag),
    ];
    for (description, reason) in cases {
        let report = verify(&around(&description));
        assert_fails(&report, 3, reason);
        assert_passes(&report, &[1, 2, 6, 7]);
    }
}

#[test]
fn x_of_the_1041_must_be_the_attested_x() {
    let attestation = attestation_by(&alice());
    let proof = common::bitcoin_claim(&attestation.commitment().0, 5);
    let other =
        priorart_fingerprint::minhash_equality_v1("an entirely different text about ships").to_string();
    let event =
        proof_event(&alice(), &[&["a", &coordinate(&alice())]], &other, &attestation.to_json(), &proof);
    let report = verify(&event);
    assert_passes(&report, &[3, 4]);
    assert_fails(&report, 5, Reason::XMismatch);
}

#[test]
fn pending_only_and_foreign_proofs_fail_step_8() {
    let attestation = attestation_by(&alice());
    let x = attestation.fingerprint().to_string();
    let pending = common::pending_only(&attestation.commitment().0);
    let reference: &[&[&str]] = &[&["a", &coordinate(&alice())]];
    let report = verify(&proof_event(&alice(), reference, &x, &attestation.to_json(), &pending));
    assert_fails(&report, 8, Reason::ProofPendingOnly);

    // Alice's proof of another attestation of hers (another signature).
    let earlier =
        Attestation::sign(&alice(), attestation.fingerprint(), Some(30023), Timestamp::from_secs(1))
            .expect("signs");
    let foreign = common::bitcoin_claim(&earlier.commitment().0, 5);
    let report = verify(&proof_event(&alice(), reference, &x, &attestation.to_json(), &foreign));
    assert_fails(&report, 8, Reason::ProofForOtherDigest);
}

#[test]
fn garbage_content_fails_step_7() {
    let attestation = attestation_by(&alice());
    let x = attestation.fingerprint().to_string();
    let coordinate = coordinate(&alice());
    let description = attestation.to_json();
    let build = |content: &str| {
        let xt = ["X", x.as_str(), "minhash-equality-v1"];
        let tags: [&[&str]; 4] = [&["a", &coordinate], &["k", "30023"], &xt, &["description", &description]];
        priorart_nip::to_json(&signed(&alice(), 1041, content, &tags))
    };
    assert_fails(&verify(&build("%%% not base64 %%%")), 7, Reason::ProofNotBase64);
    assert_fails(&verify(&build(&BASE64.encode(b"base64, but of no proof"))), 7, Reason::ProofUnparseable);
    assert_fails(&verify(&build(&"A".repeat(200_000))), 7, Reason::ProofTooLarge);
    let report = verify(&build(""));
    assert_fails(&report, 7, Reason::ProofUnparseable);
    assert_eq!(report.step(8).unwrap().status, Status::Skip);
}

#[test]
fn descriptions_that_are_not_json_or_enormous_fail_step_2() {
    let proof = common::bitcoin_claim(&[0; 32], 5);
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT).to_string();
    let reference: &[&[&str]] = &[&["a", &coordinate(&alice())]];
    let cases = [
        ("this is not JSON".to_owned(), Reason::DescriptionNotJson),
        ("{\"kind\":1042}".to_owned(), Reason::DescriptionNotEvent),
        ("[1, 2, 3]".to_owned(), Reason::DescriptionNotEvent),
        (tampered("tags", json!([[]])), Reason::DescriptionNotEvent),
        (tampered("sig", json!("zz")), Reason::DescriptionNotEvent),
        (tampered("content", json!("x".repeat(100_000))), Reason::DescriptionTooLarge),
    ];
    for (description, reason) in cases {
        let report = verify(&proof_event(&alice(), reference, &x, &description, &proof));
        assert_fails(&report, 2, reason);
        for step in [3, 4, 5, 6] {
            assert_eq!(report.step(step).unwrap().status, Status::Skip);
        }
    }
}

#[test]
fn a_kind_1041_without_an_embedded_attestation_is_another_schemes_not_a_forgery() {
    // Even with the X tag: without a description it claims no authorship.
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT).to_string();
    let without: [&[&str]; 2] = [&["a", &coordinate(&alice())], &["X", &x, "minhash-equality-v1"]];
    let report = verify(&priorart_nip::to_json(&signed(&alice(), 1041, "", &without)));
    assert_eq!(report.verdict, Verdict::NotNipFf3);
    assert!(report.failures().is_empty(), "{:?}", report.failures());
    assert!((2..=8).all(|step| report.step(step).unwrap().status == Status::Skip));
}

#[test]
fn oversized_and_malformed_events_fail_step_1() {
    assert_fails(&verify("not json"), 1, Reason::EventNotJson);
    assert_fails(&verify("{\"kind\": 1041}"), 1, Reason::EventMalformed);
    let (_, event) = honest();
    let mut huge: Value = serde_json::from_str(&event).unwrap();
    huge["tags"].as_array_mut().unwrap().push(json!(["padding", "x".repeat(600_000)]));
    assert_fails(&verify(&huge.to_string()), 1, Reason::EventTooLarge);
    let mut many: Value = serde_json::from_str(&event).unwrap();
    for _ in 0..=priorart_nip::limits::MAX_TAGS {
        many["tags"].as_array_mut().unwrap().push(json!(["t", "x"]));
    }
    assert_fails(&verify(&many.to_string()), 1, Reason::EventMalformed);
    let note = priorart_nip::to_json(&signed(&alice(), 1, "hello", &[]));
    assert_fails(&verify(&note), 1, Reason::WrongKind);
}

#[test]
fn other_kind_1041_schemes_are_not_nip_ff_3_proofs() {
    let other =
        signed(&alice(), 1041, "some other draft's payload", &[&["e", &"ab".repeat(32)], &["alt", "x"]]);
    let report = verify(&priorart_nip::to_json(&other));
    assert_eq!(report.verdict, Verdict::NotNipFf3);
    assert!(report.passed(1));
    assert!(report.warnings.iter().any(|w| w.reason == Reason::NotNipFf3));
    assert!((2..=8).all(|step| report.step(step).unwrap().status == Status::Skip));
}

#[test]
fn a_k_mismatch_is_only_a_warning() {
    let attestation = attestation_by(&alice());
    let proof = common::bitcoin_claim(&attestation.commitment().0, 5);
    let x = attestation.fingerprint().to_string();
    let xt = ["X", x.as_str(), "minhash-equality-v1"];
    let description = attestation.to_json();
    let coordinate = coordinate(&alice());
    let tags: [&[&str]; 4] = [&["a", &coordinate], &["k", "1"], &xt, &["description", &description]];
    let event = signed(&alice(), 1041, &BASE64.encode(&proof), &tags);
    let report = verify(&priorart_nip::to_json(&event));
    assert_passes(&report, &[3, 4, 5]);
    assert!(report.warnings.iter().any(|w| w.reason == Reason::KMismatch));
}

#[test]
fn the_1041s_own_bad_signature_is_a_warning() {
    let (_, event) = honest();
    let mut value: Value = serde_json::from_str(&event).unwrap();
    value["sig"] = json!("00".repeat(64));
    let report = verify(&value.to_string());
    assert_passes(&report, &[3, 4, 5]);
    assert!(report.warnings.iter().any(|w| w.reason == Reason::EventSignatureInvalid));
}

#[test]
fn the_json_report_has_the_documented_members() {
    let (_, event) = honest();
    let report: Value = serde_json::from_str(&verify(&event).to_json()).unwrap();
    let members: Vec<&str> = report.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = [
        "format",
        "verdict",
        "scheme",
        "network",
        "event_id",
        "kind",
        "signer",
        "author",
        "fingerprint",
        "commitment",
        "bitcoin",
        "cost_to_forge",
        "steps",
        "warnings",
        "content",
    ];
    expected.sort_unstable();
    let mut members = members;
    members.sort_unstable();
    assert_eq!(members, expected);
    assert_eq!(report["format"], "priorart-verify/1");
    assert_eq!(report["verdict"], "unverified");
    assert_eq!(report["scheme"], "nip-ff-3");
    assert_eq!(report["network"], "mainnet");
    assert_eq!(report["steps"][7]["reason"], "proof_headers_unavailable");
    assert_eq!(
        report["steps"][0],
        json!({"step": 1, "check": "kind is 1041", "status": "pass", "reason": null, "detail": "kind 1041"})
    );
}

#[test]
fn nip03_events_are_checked_but_never_nip_ff_3() {
    let content = signed(&alice(), 1, "hello", &[]);
    let proof = common::pending_only(&content.id.to_bytes());
    let id = content.id.to_hex();
    let event = signed(&alice(), 1040, &BASE64.encode(&proof), &[&["e", &id], &["k", "1"]]);
    let report = verify(&priorart_nip::to_json(&event));
    assert_eq!(report.scheme, Some(priorart_nip::Specification::Nip03));
    assert_fails(&report, 4, Reason::ProofPendingOnly);
    let foreign = common::bitcoin_claim(&[1; 32], 5);
    let event = signed(&alice(), 1040, &BASE64.encode(&foreign), &[&["e", &id], &["k", "1"]]);
    assert_fails(&verify(&priorart_nip::to_json(&event)), 4, Reason::ProofForOtherDigest);
    let event = signed(&alice(), 1040, &BASE64.encode(&foreign), &[&["k", "1"]]);
    assert_fails(&verify(&priorart_nip::to_json(&event)), 2, Reason::EventReferenceMissing);
}
