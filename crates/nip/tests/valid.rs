//! Real proofs on a regtest chain verify, with their block; nostr-tools
//! events verify too; NIP-03 is valid-but-forgeable, never a 1041.

use crate::common;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use common::{alice, mallory, peer, signed};
use priorart_nip::nostr::prelude::*;
use priorart_nip::{Attestation, ContentRef, ProofEvent, Reason, Specification, Verdict, verify_event_json};
use priorart_ots::{HeaderSource, Network};
use priorart_testkit::RegtestChain;

fn attestation(k: Option<u16>) -> Attestation {
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT);
    Attestation::sign(&alice(), x, k, Timestamp::from_secs(1_700_000_000)).expect("signs")
}

fn build(attestation: &Attestation, content: ContentRef, proof: &[u8], signer: &Keys) -> String {
    let spec = ProofEvent {
        attestation,
        content,
        content_kind: None,
        relay_hint: None,
        proof,
        created_at: Timestamp::from_secs(1_700_000_100),
    };
    priorart_nip::to_json(&spec.sign(signer).expect("builds"))
}

#[test]
fn an_honest_proof_is_valid_with_its_block_in_both_reference_forms() {
    let mut chain = RegtestChain::new();
    chain.mine_block([1; 32]);
    let attestation = attestation(Some(30023));
    let (height, proof) = chain.stamp(&attestation.commitment().0);
    chain.mine_block([2; 32]); // later blocks change nothing
    let headers = common::cached_headers(&chain);
    let address =
        ContentRef::parse_address(&format!("30023:{}:essay-1", alice().public_key().to_hex())).unwrap();
    let note = ContentRef::Event { id: EventId::from_byte_array([4; 32]), author: alice().public_key() };
    // Any signer: the author, or a timestamping service.
    for (content, signer) in [(address, alice()), (note, mallory())] {
        let event = build(&attestation, content, &proof, &signer);
        let mut report = verify_event_json(&event, &headers, Network::Regtest);
        assert_eq!(report.verdict, Verdict::Valid, "{}", report.to_json());
        let block = report.bitcoin.clone().expect("a block");
        assert_eq!(block.height, height);
        assert_eq!(block.block_hash, chain.header(height).unwrap().block_hash().to_string());
        assert_eq!(block.time, u64::from(chain.header(height).unwrap().time));
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        // One block on top, as far as the headers held go; 2 hashes a regtest block.
        let cost = report.cost_to_forge.clone().expect("a cost to forge");
        assert_eq!(
            (cost.blocks, cost.claimed_blocks, cost.complete, cost.tip_as_far_as_held),
            (1, 1, true, true)
        );
        assert!((cost.work_log2 - 2.0).abs() < 1e-9, "{cost:?}");
        // Without the cost to forge (a relay's policy): the same verdict and block.
        let parsed = priorart_nip::parse_event(&event, 1 << 20).unwrap();
        let lean = priorart_nip::verify_event_with(&parsed, &headers, Network::Regtest, None);
        assert_eq!((lean.verdict, lean.bitcoin.clone()), (Verdict::Valid, report.bitcoin.clone()));
        assert!(lean.cost_to_forge.is_none() && lean.warnings.is_empty(), "{:?}", lean.warnings);

        report.check_content(&common::TEXT.replace("twice", "twice!")); // a light edit
        assert_eq!(report.content.as_ref().map(|c| c.matches_x), Some(true));
        report.check_content("a different text altogether, about ships and the sea");
        assert_eq!(report.content.as_ref().map(|c| c.matches_x), Some(false));
    }
}

#[test]
fn a_proof_verified_against_mainnet_rules_or_unknown_blocks_is_not_valid() {
    let mut chain = RegtestChain::new();
    let attestation = attestation(Some(30023));
    let (_, proof) = chain.stamp(&attestation.commitment().0);
    let note = ContentRef::Event { id: EventId::from_byte_array([4; 32]), author: alice().public_key() };
    let event = build(&attestation, note, &proof, &alice());
    // Regtest headers do not meet mainnet's difficulty: a source serving
    // them for mainnet is unreliable, and the proof unchecked, not false.
    let report = verify_event_json(&event, &common::cached_headers(&chain), Network::Mainnet);
    assert_eq!(report.failures(), vec![Reason::ProofHeaderSourceUnreliable]);
    assert_eq!(report.verdict, Verdict::Unverified);
    // The block is on another chain than the one the verifier knows.
    let mut other = RegtestChain::new();
    other.mine_block([9; 32]);
    let report = verify_event_json(&event, &common::cached_headers(&other), Network::Regtest);
    assert_eq!(report.failures(), vec![Reason::ProofNotVerified]);
}

#[test]
fn events_built_by_nostr_tools_verify_and_ours_verify_in_nostr_tools() {
    if !peer::available() {
        return;
    }
    let mut chain = RegtestChain::new();
    let x = priorart_fingerprint::minhash_equality_v1(common::TEXT).to_string();
    // nostr-tools signs an attestation and computes its commitment; the
    // regtest proof is made for that; nostr-tools then builds the 1041.
    let attest = serde_json::json!({"attest": {
        "secret_hex": "33".repeat(32), "fingerprint": x, "k": 30023, "created_at": 1_700_000_000
    }});
    let first = peer::run("build-events.mjs", &attest.to_string());
    let mut lines = first.lines();
    let their_json = lines.next().unwrap();
    let their_attestation = Attestation::from_json(their_json).expect("nostr-tools attestation");
    let commitment: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(commitment["commitment"], their_attestation.commitment().to_string());

    let (height, proof) = chain.stamp(&their_attestation.commitment().0);
    let author = their_attestation.event().pubkey.to_hex();
    let request = serde_json::json!({"proof": {
        "secret_hex": "44".repeat(32), "attestation": their_json, "ots_base64": BASE64.encode(&proof),
        "a": format!("30023:{author}:essay"), "k": 30023, "relay": "wss://relay.example"
    }});
    let second = peer::run("build-events.mjs", &request.to_string());
    let their_proof_event = second.trim();
    let report = verify_event_json(their_proof_event, &common::cached_headers(&chain), Network::Regtest);
    assert_eq!(report.verdict, Verdict::Valid, "{}", report.to_json());
    assert_eq!(report.bitcoin.as_ref().map(|b| b.height), Some(height));

    // And our 1041 around our attestation verifies in nostr-tools, inside and out.
    let ours = attestation(Some(30023));
    let (_, proof) = chain.stamp(&ours.commitment().0);
    let note = ContentRef::Event { id: EventId::from_byte_array([4; 32]), author: alice().public_key() };
    let event = build(&ours, note, &proof, &mallory());
    assert_eq!(peer::verify(&[event]), vec![(true, Some(true))]);
}

#[test]
fn a_nip03_proof_is_valid_but_forgeable_never_a_nip_ff_3_proof() {
    let mut chain = RegtestChain::new();
    let note = signed(&alice(), 1, common::TEXT, &[]);
    let (height, proof) = chain.stamp(&note.id.to_bytes());
    let id = note.id.to_hex();
    let event = signed(&alice(), 1040, &BASE64.encode(&proof), &[&["e", &id], &["k", "1"]]);
    let report =
        verify_event_json(&priorart_nip::to_json(&event), &common::cached_headers(&chain), Network::Regtest);
    assert_eq!(report.verdict, Verdict::ValidButForgeable, "{}", report.to_json());
    assert_ne!(report.verdict, Verdict::Valid);
    assert_eq!(report.scheme, Some(Specification::Nip03));
    assert_eq!(report.bitcoin.as_ref().map(|b| b.height), Some(height));
    assert_eq!(report.cost_to_forge.as_ref().map(|cost| cost.blocks), Some(0));
    assert!(report.warnings.iter().any(|w| w.reason == Reason::ForgeableByPrestamping));
    assert!(report.is_valid());
    // The same proof in a 1041 shape is no NIP-FF-3 proof: it commits to an
    // event id, computable without the author's key (Attack B).
    let attestation = attestation(Some(1));
    let x = attestation.fingerprint().to_string();
    let description = attestation.to_json();
    let tags: [&[&str]; 5] = [
        &["e", &id],
        &["p", &alice().public_key().to_hex()],
        &["k", "1"],
        &["X", &x, "minhash-equality-v1"],
        &["description", &description],
    ];
    let as_1041 = signed(&alice(), 1041, &BASE64.encode(&proof), &tags);
    let report = verify_event_json(
        &priorart_nip::to_json(&as_1041),
        &common::cached_headers(&chain),
        Network::Regtest,
    );
    assert_eq!(report.failures(), vec![Reason::ProofForOtherDigest]);
}

#[test]
fn a_header_source_that_lies_is_named_and_the_proof_left_unverified_never_invalid() {
    let mut chain = RegtestChain::new();
    let attestation = attestation(Some(30023));
    let (height, proof) = chain.stamp(&attestation.commitment().0);
    let note = ContentRef::Event { id: EventId::from_byte_array([4; 32]), author: alice().public_key() };
    let event = build(&attestation, note, &proof, &alice());
    // The source serves the real header with its nonce changed until it
    // no longer meets its own target: no proof of work.
    let lying = priorart_ots::MemoryHeaders::new();
    let mut header = *chain.header(height).expect("the block");
    while header.validate_pow(header.target()).is_ok() {
        header.nonce = header.nonce.wrapping_add(1);
    }
    lying.insert(height, header);
    let report = verify_event_json(&event, &lying, Network::Regtest);
    assert_eq!(report.verdict, Verdict::Unverified, "{}", report.to_json());
    assert_eq!(report.failures(), vec![Reason::ProofHeaderSourceUnreliable]);
    let step8 = &report.step(8).expect("step 8").detail;
    assert!(step8.contains(&lying.describe()) && step8.contains("no proof of work"), "{step8}");

    // A header that passes every check but is another block's: the proof
    // is false against it.
    let mut other = RegtestChain::new();
    other.mine_block([9; 32]);
    let report = verify_event_json(&event, &common::cached_headers(&other), Network::Regtest);
    assert_eq!((report.verdict, report.failures()), (Verdict::Invalid, vec![Reason::ProofNotVerified]));
}
