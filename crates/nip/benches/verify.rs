//! Kind 1041 verifications per second on one core with cached headers: the
//! cost a relay or client pays per proof event (goal: at least 10,000/s).
//!
//! The event is valid end to end: a real regtest proof (a calendar-shaped
//! path into a coinbase-like transaction and up a merkle tree) whose block
//! header sits in an in-memory cache, as after a first look-up. Every call
//! parses the JSON, checks two BIP-340 signatures (the attestation's and
//! the 1041's own), hashes the proof path and checks the header. A relay
//! that verified the event on receipt calls `verify_event` on the parsed
//! event instead: one signature check.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use priorart_nip::nostr::prelude::*;
use priorart_nip::{Attestation, ContentRef, ProofEvent, Verdict, verify_event, verify_event_json};
use priorart_ots::{MemoryHeaders, Network};
use priorart_testkit::RegtestChain;
use std::hint::black_box;

const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

fn valid_proof_event() -> (String, MemoryHeaders) {
    let keys = Keys::parse(&"11".repeat(32)).expect("valid secret");
    let x = priorart_fingerprint::minhash_equality_v1(TEXT);
    let attestation =
        Attestation::sign(&keys, x, Some(30023), Timestamp::from_secs(1_700_000_000)).expect("signs");
    let mut chain = RegtestChain::new();
    let (height, proof) = chain.stamp(&attestation.commitment().0);
    let headers = MemoryHeaders::new();
    headers.insert(height, *chain.header(height).expect("mined"));
    let content = ContentRef::parse_address(&format!("30023:{}:essay", keys.public_key().to_hex()))
        .expect("coordinate");
    let spec = ProofEvent {
        attestation: &attestation,
        content,
        content_kind: None,
        relay_hint: Some("wss://relay.example"),
        proof: &proof,
        created_at: Timestamp::from_secs(1_700_000_100),
    };
    (priorart_nip::to_json(&spec.sign(&keys).expect("signs")), headers)
}

fn verify_1041(c: &mut Criterion) {
    let (event, headers) = valid_proof_event();
    assert_eq!(verify_event_json(&event, &headers, Network::Regtest).verdict, Verdict::Valid);
    let mut group = c.benchmark_group("nip-ff-3");
    group.throughput(Throughput::Elements(1));
    group.bench_function("verify kind 1041 from JSON (cached header)", |b| {
        b.iter(|| verify_event_json(black_box(&event), &headers, Network::Regtest))
    });
    let parsed =
        priorart_nip::parse_event(&event, priorart_nip::limits::MAX_EVENT_JSON_BYTES).expect("an event");
    group.bench_function("verify kind 1041 already received (cached header)", |b| {
        b.iter(|| verify_event(black_box(&parsed), &headers, Network::Regtest))
    });
    group.finish();
}

criterion_group!(benches, verify_1041);
criterion_main!(benches);
