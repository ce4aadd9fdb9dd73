//! Writes the events scripts/bench/policy.py sends: `proofs.jsonl`, real
//! kind 1041 events (distinct attestations, proofs on a regtest chain), and
//! `headers/`, that chain's header cache.
//!
//! Usage: `bench_fixture DIR COUNT [PER_BLOCK]`. With `PER_BLOCK` 1 (the
//! default) every proof has a block of its own, so the policy reads a header
//! it has not seen for every proof; with more, the proofs come in calendar
//! rounds of `PER_BLOCK` digests under one merkle tree and one block, as
//! real OpenTimestamps calendars commit them.

use priorart_nip::Attestation;
use priorart_nip::nostr::prelude::*;
use priorart_nip_testkit::proof_event;
use priorart_ots_net::HeaderCache;
use priorart_testkit::RegtestChain;
use std::io::Write;

const USAGE: &str = "usage: bench_fixture DIR COUNT [PER_BLOCK]";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().ok_or(USAGE)?);
    let count: usize = args.next().ok_or(USAGE)?.parse()?;
    let per_block: usize = args.next().map_or(Ok(1), |arg| arg.parse())?;
    std::fs::create_dir_all(&dir)?;
    let mut chain = RegtestChain::new();
    let mut out = std::io::BufWriter::new(std::fs::File::create(dir.join("proofs.jsonl"))?);
    let signer = Keys::generate();
    let attestations = (0..count).map(|n| {
        let author = Keys::generate();
        let text = format!("Document number {n}, a text whose fingerprint is attested and stamped.");
        let x = priorart_fingerprint::minhash_equality_v1(&text);
        Attestation::sign(&author, x, Some(1), Timestamp::from_secs(1_700_000_000))
    });
    let attestations = attestations.collect::<Result<Vec<_>, _>>()?;
    for round in attestations.chunks(per_block.max(1)) {
        let digests: Vec<[u8; 32]> = round.iter().map(|attestation| attestation.commitment().0).collect();
        let (_, proofs) = chain.stamp_all(&digests);
        for (attestation, proof) in round.iter().zip(&proofs) {
            let note = EventId::from_byte_array([4; 32]);
            let event = proof_event(attestation, note, proof, &signer, Timestamp::from_secs(1_700_000_000));
            writeln!(out, "{}", priorart_nip::to_json(&event))?;
        }
    }
    out.flush()?;
    let cache = HeaderCache::in_dir(dir.join("headers"));
    for height in 0..=chain.tip_height() {
        cache.put(height, chain.header(height).ok_or("a mined header")?)?;
    }
    Ok(())
}
