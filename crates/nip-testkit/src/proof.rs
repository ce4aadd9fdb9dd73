//! Kind 1041 events as tests need them: an attestation anchored in a new
//! block of a regtest chain and its proof event built by the library's own
//! builder ([`anchored`], [`proof_event`]), and a kind 1041 put together
//! by hand, as a forger would, for proofs the builder refuses
//! ([`unchecked_proof_event`]).

use base64::Engine;
use priorart_nip::nostr::prelude::{Event, EventBuilder, EventId, FinalizeEvent, Keys, Kind, Tag, Timestamp};
use priorart_nip::{Attestation, ContentRef, ProofEvent};
use priorart_testkit::RegtestChain;

/// A fixed key per `n` (the secret `nn` repeated), so that failures reproduce.
pub fn keys(n: u8) -> Keys {
    Keys::parse(&format!("{n:02x}").repeat(32)).expect("a valid secret")
}

/// The kind 1041 carrying `attestation` and the `.ots` file `proof`, for
/// the kind 1 note `note` of the attestation's author (an `e` and `p`
/// reference), signed by `signer` at `created_at`.
pub fn proof_event(
    attestation: &Attestation,
    note: EventId,
    proof: &[u8],
    signer: &Keys,
    created_at: Timestamp,
) -> Event {
    let spec = ProofEvent {
        attestation,
        content: ContentRef::Event { id: note, author: attestation.event().pubkey },
        content_kind: Some(1),
        relay_hint: None,
        proof,
        created_at,
    };
    spec.sign(signer).expect("the builder takes an attestation of a kind 1 note and its proof")
}

/// An attestation's proof, anchored in a block of a regtest chain.
pub struct Anchored {
    /// Its kind 1041.
    pub event: Event,
    /// The block its proof reaches.
    pub height: u64,
    /// The `.ots` file.
    pub ots: Vec<u8>,
}

/// `attestation`'s commitment stamped into a new block of `chain`, and its
/// kind 1041 ([`proof_event`]).
pub fn anchored(
    chain: &mut RegtestChain,
    attestation: &Attestation,
    note: EventId,
    signer: &Keys,
    created_at: Timestamp,
) -> Anchored {
    let (height, ots) = chain.stamp(&attestation.commitment().0);
    let event = proof_event(attestation, note, &ots, signer, created_at);
    Anchored { event, height, ots }
}

/// A kind 1041 built by hand, with the tags of [`proof_event`] and any
/// `.ots` bytes as its content: what a thief publishes with someone else's
/// proof (the library's builder refuses a proof of another commitment).
pub fn unchecked_proof_event(signer: &Keys, attestation: &Attestation, note: EventId, ots: &[u8]) -> Event {
    let tag = |parts: Vec<String>| Tag::parse(parts).expect("a valid tag");
    let tags = [
        tag(vec!["e".into(), note.to_hex()]),
        tag(vec!["p".into(), attestation.event().pubkey.to_hex()]),
        tag(vec!["k".into(), "1".into()]),
        tag(vec!["X".into(), attestation.fingerprint().to_string(), "minhash-equality-v1".into()]),
        tag(vec!["description".into(), attestation.to_json()]),
    ];
    let content = base64::engine::general_purpose::STANDARD.encode(ots);
    EventBuilder::new(Kind::from_u16(priorart_nip::PROOF_KIND), content)
        .tags(tags)
        .finalize(signer)
        .expect("signs")
}
