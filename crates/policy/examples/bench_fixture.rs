//! Writes the events scripts/bench-policy.py sends: `proofs.jsonl`, real
//! kind 1041 events (distinct attestations, proofs on a regtest chain), and
//! `headers/`, that chain's header cache. Usage: `bench_fixture DIR COUNT`.

use priorart_nip::nostr::prelude::*;
use priorart_nip::{Attestation, ContentRef, ProofEvent};
use priorart_ots_net::HeaderCache;
use priorart_testkit::RegtestChain;
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or("usage: bench_fixture DIR COUNT")?);
    let count: usize = args.next().ok_or("usage: bench_fixture DIR COUNT")?.parse()?;
    std::fs::create_dir_all(&dir)?;
    let mut chain = RegtestChain::new();
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("proofs.jsonl"))?);
    let signer = Keys::generate();
    for n in 0..count {
        let author = Keys::generate();
        let text = format!("Document number {n}, a text whose fingerprint is attested and stamped.");
        let x = priorart_fingerprint::minhash_equality_v1(&text);
        let attestation = Attestation::sign(&author, x, Some(1), Timestamp::from_secs(1_700_000_000))?;
        let (_, proof) = chain.stamp(&attestation.commitment().0);
        let content =
            ContentRef::Event { id: EventId::from_byte_array([4; 32]), author: author.public_key() };
        let spec = ProofEvent {
            attestation: &attestation,
            content,
            content_kind: Some(1),
            relay_hint: None,
            proof: &proof,
            created_at: Timestamp::from_secs(1_700_000_000),
        };
        writeln!(out, "{}", priorart_nip::to_json(&spec.sign(&signer)?))?;
    }
    out.flush()?;
    let cache = HeaderCache::in_dir(dir.join("headers"));
    for height in 0..=chain.tip_height() {
        cache.put(height, chain.header(height).ok_or("a mined header")?)?;
    }
    Ok(())
}
