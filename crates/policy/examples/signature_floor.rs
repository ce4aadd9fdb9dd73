//! The floor under a proof's admission, for scripts/bench/policy.py: reads
//! the kind 1041 events of `proofs.jsonl`, takes out each one's embedded
//! kind 1042 attestation, and times only the verification of the
//! attestations' signatures, one each, as the policy must do for every
//! proof. Prints `{"signatures": N, "per_second": R}`.
//!
//! Usage: `signature_floor DIR` (the directory `bench_fixture` wrote).

use priorart_nip::nostr::prelude::Event;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).ok_or("usage: signature_floor DIR")?);
    let mut attestations = Vec::new();
    for line in std::fs::read_to_string(dir.join("proofs.jsonl"))?.lines() {
        let proof: Event = priorart_nip::parse_event(line, 1 << 20)?;
        let description = proof.tags.iter().find(|tag| tag.kind() == "description");
        let json = description.and_then(|tag| tag.as_slice().get(1)).ok_or("a 1041 without a description")?;
        attestations.push(priorart_nip::parse_event(json, 1 << 20)?);
    }
    let started = Instant::now();
    let valid = attestations.iter().filter(|attestation| attestation.verify_signature()).count();
    let elapsed = started.elapsed().as_secs_f64();
    if valid != attestations.len() {
        return Err(format!(
            "{} of {} signatures do not verify",
            attestations.len() - valid,
            attestations.len()
        )
        .into());
    }
    println!("{{\"signatures\": {valid}, \"per_second\": {}}}", (valid as f64 / elapsed).round());
    Ok(())
}
