//! Shared helpers of the nip tests.

pub mod peer;

use priorart_nip::nostr::prelude::*;

/// A fixed author key (the secret 0x11…11), so failures reproduce.
pub fn alice() -> Keys {
    Keys::parse(&"11".repeat(32)).expect("valid secret")
}

/// A second author: the plagiarist.
pub fn mallory() -> Keys {
    Keys::parse(&"22".repeat(32)).expect("valid secret")
}

/// Signs an arbitrary event: for attestations of the wrong shape that are
/// nevertheless correctly signed.
pub fn signed(keys: &Keys, kind: u16, content: &str, tags: &[&[&str]]) -> Event {
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    EventBuilder::new(Kind::from_u16(kind), content)
        .tags(tags)
        .custom_created_at(Timestamp::from_secs(1_700_000_000))
        .finalize(keys)
        .expect("signs")
}

pub const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

/// OpenTimestamps bytes written out by hand, for proofs whose shape (not
/// their Bitcoin validity) is under test: `MAGIC`, version 1, SHA-256 file
/// hash, the digest, then one attestation.
fn detached(digest: &[u8; 32], tag: [u8; 8], payload: &[u8]) -> Vec<u8> {
    let mut out = priorart_ots::MAGIC.to_vec();
    out.extend([0x01, 0x08]);
    out.extend(digest);
    out.push(0x00);
    out.extend(tag);
    out.push(u8::try_from(payload.len()).expect("short payload"));
    out.extend(payload);
    out
}

/// A proof claiming `digest` is the merkle root of Bitcoin block `height`
/// (below 128, so its varuint is one byte).
pub fn bitcoin_claim(digest: &[u8; 32], height: u8) -> Vec<u8> {
    assert!(height < 128);
    detached(digest, priorart_ots::tags::BITCOIN, &[height])
}

/// A proof of `digest` that only a calendar vouches for, so far.
pub fn pending_only(digest: &[u8; 32]) -> Vec<u8> {
    let uri = b"https://alice.btc.calendar.opentimestamps.org";
    let mut payload = vec![u8::try_from(uri.len()).expect("short uri")];
    payload.extend(uri);
    detached(digest, priorart_ots::tags::PENDING, &payload)
}

/// Every header of `chain`, as a cache (what a verifier has after a first look-up).
pub fn cached_headers(chain: &priorart_testkit::RegtestChain) -> priorart_ots::MemoryHeaders {
    chain.memory_headers()
}
