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
//! # Limits
//!
//! Every untrusted size is bounded (see [`limits`]): event JSON, the
//! `description`, the base64 proof, the number of tags and their lengths.

mod attestation;
mod commitment;
mod content_event;
mod event_json;
mod hex;
pub mod limits;
mod proof_check;
mod proof_event;
mod report;

pub use attestation::{Attestation, AttestationError, AttestationParseError};
pub use commitment::Commitment;
pub use content_event::{ContentEvent, ContentEventError};
pub use event_json::{EventJsonError, parse_event, to_json};
pub use proof_check::ProofFailure;
pub use proof_event::{ContentRef, ProofEvent, ProofEventError};
pub use report::{
    BitcoinAnchor, ContentCheck, REPORT_FORMAT, Reason, Report, Scheme, Status, Step, Verdict, Warning,
};

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
