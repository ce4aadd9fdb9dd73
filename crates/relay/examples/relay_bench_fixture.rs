//! Writes the fixture of `scripts/bench/relay.py` into DIR:
//! - `check.jsonl`: 1,000 events carrying one X: 100 valid kind 1041 proofs
//!   (100 authors, each anchored in its own regtest block) and 900 content
//!   notes by other authors;
//! - `headers/HEIGHT.hex`: every block header those proofs need (the header
//!   cache `priorart check --header-cache` reads: "cached headers");
//! - `ingest.jsonl`: 10,000 X-tagged notes (100 X values) for relay ingest rates;
//! - `x`: the X of check.jsonl.
//!
//! `cargo run --release -p priorart-relay --example relay_bench_fixture -- DIR`

use priorart_nip::Attestation;
use priorart_nip::nostr::prelude::{EventBuilder, EventId, FinalizeEvent, Keys, Kind, Tag, Timestamp};
use priorart_nip_testkit::anchored;
use priorart_testkit::RegtestChain;
use std::io::Write;
use std::path::Path;

const TEXT: &str = "Harbour towns kept their archives in the cellars of customs houses, where damp \
    ledgers recorded every cargo of salt, timber, wool and copper that crossed the quay.";
const PROOFS: usize = 100;
const NOTES: usize = 900;
const INGEST: usize = 10_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: relay_bench_fixture DIR")?;
    let dir = Path::new(&dir);
    std::fs::create_dir_all(dir.join("headers"))?;
    let x = priorart_fingerprint::minhash_equality_v1(TEXT);
    let now = Timestamp::now().as_secs();
    let mut chain = RegtestChain::new();
    let mut check = std::io::BufWriter::new(std::fs::File::create(dir.join("check.jsonl"))?);
    for i in 0..PROOFS {
        let author = Keys::generate();
        let attestation =
            Attestation::sign(&author, x, Some(1), Timestamp::from_secs(now - 10_000 + i as u64))?;
        let note = EventId::from_hex(&format!("{:064x}", i + 1))?;
        let created_at = Timestamp::from_secs(now - 5_000 + i as u64);
        let proof = anchored(&mut chain, &attestation, note, &Keys::generate(), created_at);
        writeln!(check, "{}", priorart_nip::to_json(&proof.event))?;
    }
    for height in 0..=chain.tip_height() {
        let header = chain.header(height).ok_or("mined")?;
        std::fs::write(
            dir.join("headers").join(format!("{height}.hex")),
            priorart_ots::header_to_hex(header),
        )?;
    }
    for i in 0..NOTES {
        writeln!(
            check,
            "{}",
            note(&Keys::generate(), &x.to_string(), &format!("{TEXT} ({i})"), now - i as u64)?
        )?;
    }
    check.flush()?;
    let keys = Keys::generate();
    let mut ingest = std::io::BufWriter::new(std::fs::File::create(dir.join("ingest.jsonl"))?);
    for i in 0..INGEST {
        let x = format!("{:064x}", i % 100);
        writeln!(ingest, "{}", note(&keys, &x, &format!("note {i}"), now - i as u64)?)?;
    }
    ingest.flush()?;
    std::fs::write(dir.join("x"), x.to_string())?;
    Ok(())
}

fn note(keys: &Keys, x: &str, text: &str, created_at: u64) -> Result<String, Box<dyn std::error::Error>> {
    let event = EventBuilder::new(Kind::from_u16(1), text)
        .tag(Tag::parse(["X", x, "minhash-equality-v1"])?)
        .custom_created_at(Timestamp::from_secs(created_at))
        .finalize(keys)?;
    Ok(priorart_nip::to_json(&event))
}
