//! Building the kind 1041 fingerprint timestamp: the public event carrying
//! the OpenTimestamps proof, the reference to the content event and the
//! embedded attestation. Anyone may sign it; its trust comes only from the
//! attestation inside.

use crate::attestation::Attestation;
use crate::limits::MAX_PROOF_BASE64_BYTES;
use crate::proof_check::{self, ProofFailure};
use crate::{ALGORITHM, PROOF_KIND};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use nostr::prelude::{Event, EventBuilder, EventId, FinalizeEvent, Keys, Kind, PublicKey, Tag, Timestamp};
use priorart_ots::DetachedTimestamp;

/// Which content event the timestamp is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentRef {
    /// An addressable event (kind 30000-39999): the `a` tag `kind:pubkey:d`,
    /// which survives edits.
    Address {
        /// The content kind.
        kind: u16,
        /// The content author.
        author: PublicKey,
        /// The `d` identifier.
        d: String,
    },
    /// Any other event: the `e` tag with its id, and `p` with its author.
    Event {
        /// The content event id.
        id: EventId,
        /// The content author.
        author: PublicKey,
    },
}

impl ContentRef {
    /// Parses an `a` coordinate `KIND:PUBKEY:D` (the `d` part may contain `:`).
    pub fn parse_address(coordinate: &str) -> Result<Self, ProofEventError> {
        let (kind, author, d) = split_coordinate(coordinate).ok_or(ProofEventError::BadCoordinate)?;
        let author = crate::pubkey_from_hex(author).ok_or(ProofEventError::BadCoordinate)?;
        if !Kind::from_u16(kind).is_addressable() {
            return Err(ProofEventError::NotAddressable(kind));
        }
        Ok(Self::Address { kind, author, d: d.to_owned() })
    }

    fn author(&self) -> &PublicKey {
        match self {
            Self::Address { author, .. } | Self::Event { author, .. } => author,
        }
    }
}

/// `(kind, pubkey hex, d)` of `KIND:PUBKEY:D`, the pubkey in lowercase hex.
pub(crate) fn split_coordinate(coordinate: &str) -> Option<(u16, &str, &str)> {
    let mut parts = coordinate.splitn(3, ':');
    let kind = parts.next()?;
    let pubkey = parts.next()?;
    let d = parts.next()?;
    if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_digit()) || !crate::hex::is_lower_hex(pubkey, 64) {
        return None;
    }
    Some((kind.parse().ok()?, pubkey, d))
}

/// Why a kind 1041 cannot be built as asked.
#[derive(Debug, thiserror::Error)]
pub enum ProofEventError {
    /// Not `KIND:PUBKEY:D` with a decimal kind and a 64-hex pubkey.
    #[error("a coordinate is KIND:PUBKEY:D (decimal kind, 64 lowercase hex pubkey)")]
    BadCoordinate,
    /// `a` coordinates are for addressable kinds.
    #[error("kind {0} is not addressable (30000-39999): reference the event by id instead")]
    NotAddressable(u16),
    /// The content author is not the attestation's author: the result would
    /// fail verification step 4.
    #[error("the content author {content} is not the attestation's author {attestation}")]
    AuthorMismatch {
        /// Author named by the content reference.
        content: String,
        /// Author of the attestation.
        attestation: String,
    },
    /// The content kind is known neither from the coordinate, nor the
    /// attestation's `k`, nor the caller.
    #[error("the content kind is unknown: the attestation has no k tag, give it explicitly")]
    KindUnknown,
    /// The content kind differs from the attestation's `k`.
    #[error("the content is kind {content} but the attestation is scoped to kind {attestation}")]
    KindMismatch {
        /// Kind of the content event.
        content: u16,
        /// Kind of the attestation's `k` tag.
        attestation: u16,
    },
    /// The `.ots` file is not an OpenTimestamps proof.
    #[error("the proof file is not an OpenTimestamps proof: {0}")]
    ProofUnparseable(priorart_ots::DecodeError),
    /// The proof is not for this attestation's commitment.
    #[error("the proof is not for this attestation: {0}")]
    ProofForOtherCommitment(ProofFailure),
    /// The proof has only calendar (pending) attestations.
    #[error(
        "the proof has no Bitcoin attestation yet (the NIP forbids pending-only proofs): run `priorart ots upgrade` once its block is mined"
    )]
    ProofPendingOnly,
    /// The proof would exceed what verifiers accept.
    #[error("the proof is larger than the {MAX_PROOF_BASE64_BYTES} base64 bytes verifiers accept")]
    ProofTooLarge,
    /// Signing failed.
    #[error("cannot sign: {0}")]
    Sign(nostr::error::Error),
}

reason_names!(ProofEventError {
    BadCoordinate => "bad_coordinate",
    NotAddressable => "not_addressable",
    AuthorMismatch => "author_mismatch",
    KindUnknown => "kind_unknown",
    KindMismatch => "kind_mismatch",
    ProofUnparseable => "proof_unparseable",
    ProofForOtherCommitment => "proof_for_other_commitment",
    ProofPendingOnly => "proof_pending_only",
    ProofTooLarge => "proof_too_large",
    Sign => "sign",
});

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<priorart_ots::DecodeError> for ProofEventError {
    fn from(cause: priorart_ots::DecodeError) -> Self {
        ProofEventError::ProofUnparseable(cause)
    }
}
impl From<nostr::error::Error> for ProofEventError {
    fn from(cause: nostr::error::Error) -> Self {
        ProofEventError::Sign(cause)
    }
}

/// What goes into a kind 1041.
#[derive(Debug, Clone)]
pub struct ProofEvent<'a> {
    /// The author's signed attestation, embedded as `description`.
    pub attestation: &'a Attestation,
    /// The content event referenced.
    pub content: ContentRef,
    /// The content kind for an `e` reference when the attestation has no `k`.
    pub content_kind: Option<u16>,
    /// A relay where the content event can be found.
    pub relay_hint: Option<&'a str>,
    /// The `.ots` proof of the attestation's commitment.
    pub proof: &'a [u8],
    /// The `created_at` to use (informational only).
    pub created_at: Timestamp,
}

impl ProofEvent<'_> {
    /// Builds and signs the kind 1041 with `signer` (any key: the NIP lets
    /// anyone publish the timestamp).
    pub fn sign(&self, signer: &Keys) -> Result<Event, ProofEventError> {
        let attestation_author = self.attestation.event().pubkey;
        if *self.content.author() != attestation_author {
            return Err(ProofEventError::AuthorMismatch {
                content: self.content.author().to_hex(),
                attestation: attestation_author.to_hex(),
            });
        }
        let kind = self.content_kind()?;
        let proof = DetachedTimestamp::from_bytes(self.proof)?;
        proof_check::check_digest(&proof, &self.attestation.commitment().0)
            .map_err(ProofEventError::ProofForOtherCommitment)?;
        if !proof.has_bitcoin_attestation() {
            return Err(ProofEventError::ProofPendingOnly);
        }
        let encoded = BASE64.encode(self.proof);
        if encoded.len() > MAX_PROOF_BASE64_BYTES {
            return Err(ProofEventError::ProofTooLarge);
        }
        let mut tags = self.reference_tags()?;
        tags.push(Tag::parse(["k".to_owned(), kind.to_string()])?);
        let x = self.attestation.fingerprint().to_string();
        tags.push(Tag::parse(["X".to_owned(), x, ALGORITHM.to_owned()])?);
        tags.push(Tag::parse(["description".to_owned(), self.attestation.to_json()])?);
        let event = EventBuilder::new(Kind::from_u16(PROOF_KIND), encoded)
            .tags(tags)
            .custom_created_at(self.created_at)
            .finalize(signer)?;
        Ok(event)
    }

    fn content_kind(&self) -> Result<u16, ProofEventError> {
        let scoped = self.attestation.content_kind();
        let kind = match &self.content {
            ContentRef::Address { kind, .. } => *kind,
            ContentRef::Event { .. } => self.content_kind.or(scoped).ok_or(ProofEventError::KindUnknown)?,
        };
        match scoped {
            Some(attestation) if attestation != kind => {
                Err(ProofEventError::KindMismatch { content: kind, attestation })
            }
            _ => Ok(kind),
        }
    }

    fn reference_tags(&self) -> Result<Vec<Tag>, nostr::error::Error> {
        let with_hint = |mut values: Vec<String>| {
            values.extend(self.relay_hint.map(str::to_owned));
            Tag::parse(values)
        };
        Ok(match &self.content {
            ContentRef::Address { kind, author, d } => {
                vec![with_hint(vec!["a".to_owned(), format!("{kind}:{}:{d}", author.to_hex())])?]
            }
            ContentRef::Event { id, author } => vec![
                with_hint(vec!["e".to_owned(), id.to_hex()])?,
                Tag::parse(["p".to_owned(), author.to_hex()])?,
            ],
        })
    }
}
