//! The kind 1042 authorship attestation: the one event only the author's
//! key can produce, and whose signature the timestamp commits to.
//!
//! Its shape is rigid (empty content, exactly one `X` tag carrying the
//! algorithm identifier, an optional `k` tag, nothing else) so that a
//! signature over it means exactly one thing.

use crate::commitment::Commitment;
use crate::event_json;
use crate::{ALGORITHM, ATTESTATION_KIND};
use nostr::prelude::{
    Event, EventBuilder, FinalizeUnsignedEvent, Keys, Kind, PublicKey, SignEvent, Tag, Timestamp,
    UnsignedEvent,
};
use priorart_fingerprint::EqualityFingerprint;

/// Why an event is not a valid kind 1042 attestation (NIP-FF-3 step 3).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttestationError {
    /// `id` is not the NIP-01 hash of the other fields.
    #[error("its id is not the NIP-01 hash of its fields")]
    IdMismatch,
    /// `sig` does not verify under `pubkey` (or `pubkey` is not a key).
    #[error("its signature does not verify under its pubkey")]
    BadSignature,
    /// Not kind 1042.
    #[error("it is kind {0}, not 1042")]
    WrongKind(u16),
    /// `content` is not empty.
    #[error("its content is not empty")]
    ContentNotEmpty,
    /// No `X` tag.
    #[error("it has no X tag")]
    XMissing,
    /// More than one `X` tag.
    #[error("it has more than one X tag")]
    XRepeated,
    /// The `X` tag is not `["X", <64 lowercase hex>, <algorithm>]`.
    #[error("its X tag is not [\"X\", <64 lowercase hex>, \"minhash-equality-v1\"]")]
    XMalformed,
    /// The `X` tag names another algorithm (or none).
    #[error("its X tag names algorithm {0:?}, not \"minhash-equality-v1\"")]
    WrongAlgorithm(Option<String>),
    /// A `k` tag is not `["k", <kind>]`, or there are several.
    #[error("its k tag is not a single [\"k\", <kind 0-65535>]")]
    KMalformed,
    /// A tag other than `X` and `k`.
    #[error("it has a {0:?} tag; an attestation has only X and k")]
    UnexpectedTag(String),
}

impl AttestationError {
    /// The verifier's name for this failure (step 3 of the report), so that
    /// a service refusing an attestation names it as `priorart verify` would.
    pub fn reason(&self) -> &'static str {
        self.report_reason().as_str()
    }

    /// [`Self::reason`], typed: the report's [`crate::Reason`].
    pub fn report_reason(&self) -> crate::Reason {
        use crate::Reason;
        match self {
            AttestationError::IdMismatch => Reason::AttestationIdMismatch,
            AttestationError::BadSignature => Reason::AttestationBadSignature,
            AttestationError::WrongKind(_) => Reason::AttestationWrongKind,
            AttestationError::ContentNotEmpty => Reason::AttestationContentNotEmpty,
            AttestationError::XMissing => Reason::AttestationXMissing,
            AttestationError::XRepeated => Reason::AttestationXRepeated,
            AttestationError::XMalformed => Reason::AttestationXMalformed,
            AttestationError::WrongAlgorithm(_) => Reason::AttestationWrongAlgorithm,
            AttestationError::KMalformed => Reason::AttestationKMalformed,
            AttestationError::UnexpectedTag(_) => Reason::AttestationUnexpectedTag,
        }
    }
}

/// A kind 1042 attestation that passed every check of NIP-FF-3 step 3.
#[derive(Debug, Clone)]
pub struct Attestation {
    event: Event,
    fingerprint: EqualityFingerprint,
    content_kind: Option<u16>,
}

impl Attestation {
    /// Signs a new attestation for `fingerprint` with the author's `keys`.
    pub fn sign(
        keys: &Keys,
        fingerprint: EqualityFingerprint,
        content_kind: Option<u16>,
        created_at: Timestamp,
    ) -> Result<Self, nostr::error::Error> {
        let event =
            keys.sign_event(Self::unsigned(keys.public_key(), fingerprint, content_kind, created_at)?)?;
        Ok(Self { event, fingerprint, content_kind })
    }

    /// The attestation by `author`, unsigned: what a remote signer is asked
    /// to sign. Check what comes back with [`Attestation::from_event`].
    pub fn unsigned(
        author: PublicKey,
        fingerprint: EqualityFingerprint,
        content_kind: Option<u16>,
        created_at: Timestamp,
    ) -> Result<UnsignedEvent, nostr::error::Error> {
        let x = Tag::parse(["X".to_owned(), fingerprint.to_string(), ALGORITHM.to_owned()])?;
        let k = content_kind.map(|kind| Tag::parse(["k".to_owned(), kind.to_string()])).transpose()?;
        Ok(EventBuilder::new(Kind::from_u16(ATTESTATION_KIND), "")
            .tag(x)
            .tag_maybe(k)
            .custom_created_at(created_at)
            .finalize_unsigned(author))
    }

    /// Checks `event` in the order of the NIP: id, signature, kind, then the
    /// fixed shape. The first failure is the reason.
    pub fn from_event(event: Event) -> Result<Self, AttestationError> {
        if !event.verify_id() {
            return Err(AttestationError::IdMismatch);
        }
        if !event.verify_signature() {
            return Err(AttestationError::BadSignature);
        }
        if event.kind.as_u16() != ATTESTATION_KIND {
            return Err(AttestationError::WrongKind(event.kind.as_u16()));
        }
        if !event.content.is_empty() {
            return Err(AttestationError::ContentNotEmpty);
        }
        let (fingerprint, content_kind) = shape(&event)?;
        Ok(Self { event, fingerprint, content_kind })
    }

    /// Parses and checks an attestation from JSON.
    pub fn from_json(json: &str) -> Result<Self, AttestationParseError> {
        let event = event_json::parse_event(json, crate::limits::MAX_DESCRIPTION_BYTES)?;
        Ok(Self::from_event(event)?)
    }

    /// The signed event.
    pub fn event(&self) -> &Event {
        &self.event
    }

    /// The fingerprint the author vouches for (the `X` tag).
    pub fn fingerprint(&self) -> EqualityFingerprint {
        self.fingerprint
    }

    /// The content kind of the `k` tag, if any.
    pub fn content_kind(&self) -> Option<u16> {
        self.content_kind
    }

    /// The value the OpenTimestamps proof must commit to.
    pub fn commitment(&self) -> Commitment {
        Commitment::of_signature(&self.event.sig)
    }

    /// The attestation as JSON, fields in the order the NIP shows them. This
    /// is the string carried in a kind 1041 `description` tag.
    pub fn to_json(&self) -> String {
        event_json::to_json(&self.event)
    }
}

/// Why some JSON is not an attestation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttestationParseError {
    /// Not an event.
    #[error(transparent)]
    Json(#[from] event_json::EventJsonError),
    /// An event, but not a valid attestation.
    #[error("not a valid kind 1042 attestation: {0}")]
    Invalid(AttestationError),
}

impl AttestationParseError {
    /// `attestation_not_event` for JSON that is no event (the service's
    /// name), else the step 3 name of [`AttestationError::reason`].
    pub fn reason(&self) -> &'static str {
        match self {
            AttestationParseError::Json(_) => "attestation_not_event",
            AttestationParseError::Invalid(invalid) => invalid.reason(),
        }
    }
}

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<AttestationError> for AttestationParseError {
    fn from(cause: AttestationError) -> Self {
        AttestationParseError::Invalid(cause)
    }
}

/// The fingerprint and content kind of an attestation of the fixed shape.
fn shape(event: &Event) -> Result<(EqualityFingerprint, Option<u16>), AttestationError> {
    let mut x_tags = Vec::new();
    let mut k_tags = Vec::new();
    for tag in event.tags.iter() {
        match tag.kind() {
            "X" => x_tags.push(tag.as_slice()),
            "k" => k_tags.push(tag.as_slice()),
            other => return Err(AttestationError::UnexpectedTag(other.to_owned())),
        }
    }
    let x = match x_tags.as_slice() {
        [] => return Err(AttestationError::XMissing),
        [x] => *x,
        _ => return Err(AttestationError::XRepeated),
    };
    let fingerprint = x_tag_fingerprint(x).map_err(|err| match err {
        XTagError::Malformed => AttestationError::XMalformed,
        XTagError::WrongAlgorithm(found) => AttestationError::WrongAlgorithm(found),
    })?;
    let content_kind = match k_tags.as_slice() {
        [] => None,
        [k] => Some(k_tag_kind(k).ok_or(AttestationError::KMalformed)?),
        _ => return Err(AttestationError::KMalformed),
    };
    Ok((fingerprint, content_kind))
}

/// Why an `X` tag is not `["X", <64 lowercase hex>, "minhash-equality-v1"]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum XTagError {
    Malformed,
    WrongAlgorithm(Option<String>),
}

/// The fingerprint of an `X` tag of the NIP-FF-3 form.
pub(crate) fn x_tag_fingerprint(tag: &[String]) -> Result<EqualityFingerprint, XTagError> {
    let (hex, algorithm) = match tag {
        [_, hex] => (hex, None),
        [_, hex, algorithm] => (hex, Some(algorithm)),
        _ => return Err(XTagError::Malformed),
    };
    if algorithm.map(String::as_str) != Some(ALGORITHM) {
        return Err(XTagError::WrongAlgorithm(algorithm.cloned()));
    }
    if !crate::hex::is_lower_hex(hex, 64) {
        return Err(XTagError::Malformed);
    }
    hex.parse().map_err(|_| XTagError::Malformed)
}

/// The kind of a `["k", "<decimal kind>"]` tag.
pub(crate) fn k_tag_kind(tag: &[String]) -> Option<u16> {
    match tag {
        [_, kind] if !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_digit()) => kind.parse().ok(),
        _ => None,
    }
}
