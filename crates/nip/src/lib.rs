//! NIP-FF-3 events: build the author's kind 1042 attestation, its
//! commitment and the kind 1041 proof event, and verify kind 1041 (and
//! NIP-03 kind 1040) events, step by step, with a named reason for every
//! failure.
//!
//! Keys, NIP-01 ids, BIP-340 signatures and NIP-19 all come from
//! rust-nostr's `nostr` crate; this crate adds only what NIP-FF-3 defines.
//!
//! # Why two events
//!
//! The kind 1042 attestation is the only thing that needs the author's key:
//! its BIP-340 signature over the fingerprint. The timestamp commits to
//! `SHA256(sig)`, which nobody can compute before the author signs, so a
//! stolen proof cannot be re-attributed (Attack A: the thief's attestation
//! has another signature) and nobody can stamp an attribution in advance
//! and wait for a key leak (Attack B). The kind 1041 only carries things
//! around and may be signed by anyone.
//!
//! # Verifying
//!
//! [`verify_event_json`] runs the NIP's client algorithm on a kind 1041
//! and returns a [`Report`]; it takes the Bitcoin header source and network
//! as parameters (a cache, an Esplora server, a node), so relays and services
//! reuse it as is; [`verify_event`] takes an already received and checked
//! `nostr::Event` and skips re-checking its own signature. Kind 1040 (NIP-03) events are checked too, and reported
//! as [`Verdict::ValidButForgeable`]: an event id can be stamped by anyone
//! in advance.
//!
//! [`rank`] orders the reports of the proofs found for one fingerprint
//! (earliest Bitcoin block first), the NIP's discovery ranking; it is pure,
//! the relays are asked elsewhere (`priorart-relay`).
//!
//! [`nip46`] holds the parts of remote signing that need no network: the
//! `bunker://` URI, and the check that what a signer (a NIP-46 bunker, a
//! NIP-07 browser extension) returned is the event asked for, validly signed.
//!
//! ```
//! use priorart_nip::nostr::prelude::{Keys, Timestamp};
//! use priorart_nip::{Attestation, ContentRef, ProofEvent, Verdict};
//! use priorart_ots::bitcoin::block::{Header, Version};
//! use priorart_ots::bitcoin::{BlockHash, CompactTarget, TxMerkleNode, hashes::Hash};
//! use priorart_ots::{MemoryHeaders, Network};
//!
//! // The author signs the attestation: the one step that needs the key.
//! let author = Keys::generate();
//! let x = priorart_fingerprint::minhash_equality_v1("An essay, in full, before it is published.");
//! let attestation = Attestation::sign(&author, x, Some(30023), Timestamp::now())?;
//!
//! // Anyone stamps `attestation.commitment()`. Here the commitment is the
//! // merkle root of a regtest block, standing in for calendars and Bitcoin:
//! // the proof is the digest and a Bitcoin attestation at height 1.
//! let commitment = attestation.commitment().0;
//! let mut ots = priorart_ots::MAGIC.to_vec();
//! ots.extend([0x01, 0x08]); // version 1, SHA-256 file hash
//! ots.extend(commitment);
//! let mut tip = priorart_ots::Timestamp::default();
//! tip.add_attestation(priorart_ots::Attestation::Bitcoin { height: 1 });
//! ots.extend(tip.to_bytes());
//! let mut block = Header {
//!     version: Version::TWO,
//!     prev_blockhash: BlockHash::all_zeros(),
//!     merkle_root: TxMerkleNode::from_byte_array(commitment),
//!     time: 1_700_000_000,
//!     bits: CompactTarget::from_consensus(0x207f_ffff), // regtest: about two tries
//!     nonce: 0,
//! };
//! while !block.target().is_met_by(block.block_hash()) {
//!     block.nonce += 1;
//! }
//!
//! // Anyone builds and signs the kind 1041.
//! let content = ContentRef::parse_address(&format!("30023:{}:essay", author.public_key().to_hex()))?;
//! let spec = ProofEvent { attestation: &attestation, content, content_kind: None, relay_hint: None,
//!                         proof: &ots, created_at: Timestamp::now() };
//! let event = priorart_nip::to_json(&spec.sign(&Keys::generate())?);
//!
//! // Anyone verifies it, against headers from any source (here: in memory).
//! let headers: MemoryHeaders = [(1, block)].into_iter().collect();
//! let report = priorart_nip::verify_event_json(&event, &headers, Network::Regtest);
//! assert_eq!(report.verdict, Verdict::Valid);
//! assert_eq!(report.bitcoin.map(|block| block.height), Some(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The report (JSON format `priorart-verify/1`)
//!
//! One object; members are only ever added, never renamed or removed:
//!
//! | member | value |
//! |---|---|
//! | `format` | `"priorart-verify/1"` |
//! | `verdict` | `"valid"` (1041: steps 3, 4, 5 and 8 pass), `"valid-but-forgeable"` (1040 whose proof verifies), `"invalid"`, `"unverified"` (every check that could run passed, but no block header could be had for step 8: not a judgement on the proof), `"not-nip-ff-3"` (a 1041 of another scheme: it has no `description` tag, so embeds no kind 1042 attestation and claims no authorship; never called a forgery) |
//! | `network` | `"mainnet"` or `"regtest"`: the chain the proof was checked against |
//! | `scheme` | `"nip-ff-3"`, `"nip-03"`, or `null` when the input is not an event |
//! | `event_id`, `kind`, `signer` | the event's own id, kind and pubkey (the 1041's signer is irrelevant to validity) |
//! | `author` | pubkey of the embedded attestation (after step 2) |
//! | `fingerprint` | the attested `X` (after step 3) |
//! | `commitment` | hex digest the proof must be for: `SHA256(sig)` (step 6) or, for NIP-03, the event id |
//! | `bitcoin` | `{"height", "time", "block_hash"}` of the earliest block the proof reaches (after step 8), else `null` |
//! | `steps` | `[{"step", "check", "status": "pass"/"fail"/"skip", "reason", "detail"}]`, steps 1–8 (NIP-03: 1–4) |
//! | `cost_to_forge` | after step 8: `{"blocks", "work_log2", "days_at_attested_hashrate", "claimed_blocks", "complete", "tip_as_far_as_held"}`: the blocks on top of that block up to the header source's tip (each header fetched and checked, at most 144), the expected hashes to redo it and them (log2), and those hashes in days of the network's hash rate at that block; `complete: false` makes it a lower bound; else `null` |
//! | `warnings` | `[{"reason", "detail"}]`: `k_mismatch`, `k_missing`, `event_signature_invalid`, `forgeable_by_prestamping`, `not_nip_ff3`, `cost_to_forge_unknown` (the header source gave no tip, or a header on top failed a check) |
//! | `content` | with a plaintext: `{"fingerprint", "matches_x"}`, else `null` |
//!
//! Failure reasons by step: 1 `event_too_large`, `event_not_json`,
//! `event_malformed`, `wrong_kind`; 2 (`description_missing` is no longer
//! given: such a 1041 is `not-nip-ff-3`),
//! `description_repeated`, `description_too_large`, `description_not_json`,
//! `description_not_event`; 3 `attestation_id_mismatch`,
//! `attestation_bad_signature`, `attestation_wrong_kind`,
//! `attestation_content_not_empty`, `attestation_x_missing`,
//! `attestation_x_repeated`, `attestation_x_malformed`,
//! `attestation_wrong_algorithm`, `attestation_k_malformed`,
//! `attestation_unexpected_tag`; 4 `content_reference_missing`,
//! `content_reference_ambiguous`, `author_missing`, `author_malformed`,
//! `author_mismatch`; 5 `x_missing`, `x_repeated`, `x_malformed`,
//! `x_wrong_algorithm`, `x_mismatch`; 7 `proof_too_large`,
//! `proof_not_base64`, `proof_unparseable`; 8 `proof_for_other_digest`,
//! `proof_pending_only`, `proof_no_bitcoin_attestation`, `proof_not_verified`, `proof_headers_unavailable` and `proof_header_source_unreliable` (verdict `unverified`: the headers could not be had, or the source served headers failing their own proof of work, difficulty or checkpoint, so the proof is unchecked, never false). NIP-03 step 2:
//! `event_reference_missing`, `event_reference_repeated`,
//! `event_reference_malformed`.
//!
//! # Limits
//!
//! Every untrusted size is bounded (see [`limits`]): event JSON, the
//! `description`, the base64 proof, the number of tags and their lengths.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod attestation;
pub mod check;
mod commitment;
mod content_event;
mod event_json;
pub mod fuzzy_tags;
mod hex;
pub mod limits;
mod nip03;
pub mod nip46;
mod proof_check;
mod proof_event;
mod rank;
mod readable;
mod report;
mod steps;
mod verify;

pub use attestation::{Attestation, AttestationError, AttestationParseError};
pub use commitment::Commitment;
pub use content_event::{ContentEvent, ContentEventError};
pub use event_json::{EventJsonError, parse_event, to_json};
pub use hex::pubkey_from_hex;
pub use proof_check::ProofFailure;
pub use proof_event::{ContentRef, ProofEvent, ProofEventError};
pub use rank::{Ranking, rank};
pub use report::{
    BitcoinAnchor, ContentCheck, REPORT_FORMAT, Reason, Report, Specification, Status, Step, Verdict, Warning,
};
pub use steps::{AlgorithmStep, Nip03Step, ProofEventStep};
pub use verify::{verify_event, verify_event_json, verify_event_with};

/// Re-exported so that callers use the same `nostr` types.
pub use nostr;

/// Kind of the NIP-03 OpenTimestamps attestation (commits to an event id).
pub const NIP03_KIND: u16 = 1040;
/// Kind of the NIP-FF-3 fingerprint timestamp (the public proof event).
pub const PROOF_KIND: u16 = 1041;
/// Kind of the NIP-FF-3 authorship attestation.
pub const ATTESTATION_KIND: u16 = 1042;
/// The algorithm identifier in every NIP-FF-3 `X` tag.
pub const ALGORITHM: &str = "minhash-equality-v1";

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        for names in [
            crate::ProofEventError::REASONS,
            crate::EventJsonError::REASONS,
            crate::ContentEventError::REASONS,
            crate::fuzzy_tags::FuzzyTagError::REASONS,
            crate::nip46::SignedEventError::REASONS,
            crate::nip46::BunkerUriError::REASONS,
        ] {
            priorart_reason::check_names(names).unwrap();
        }
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::*;
        assert_eq!(ProofEventError::ProofTooLarge.reason(), "proof_too_large");
        assert_eq!(AttestationError::WrongKind(1).reason(), "attestation_wrong_kind");
        assert_eq!(
            AttestationParseError::from(AttestationError::KMalformed).reason(),
            "attestation_k_malformed"
        );
        assert_eq!(ProofFailure::PendingOnly.reason(), "proof_pending_only");
        // `Reason::as_str` is the serialized name.
        for reason in [Reason::EventNotJson, Reason::ProofHeadersUnavailable, Reason::NotNipFf3] {
            assert_eq!(serde_json::to_value(reason).unwrap(), reason.as_str());
        }
    }

    #[test]
    fn a_wrapped_error_prints_its_cause_once() {
        use crate::*;
        let err = AttestationParseError::from(AttestationError::WrongKind(1));
        assert_eq!(report::error_chain(&err), "not a valid kind 1042 attestation: it is kind 1, not 1042");
        let err = ProofEventError::from(priorart_ots::DecodeError::BadMagic);
        let chain = report::error_chain(&err);
        assert_eq!(chain.matches("magic bytes").count(), 1, "{chain}");
        assert_eq!(
            EventJsonError::REASONS,
            ["too_large", "not_json", "not_event", "too_many_tags", "empty_tag", "malformed"]
        );
    }
}
