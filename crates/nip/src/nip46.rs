//! The parts of NIP-46 (remote signing) that need no network: reading a
//! `bunker://` URI ([`BunkerUri`]) and checking what a signer returned
//! ([`check_signed_event`]). The client that talks to the bunker over
//! relays, with NIP-44 encryption, is `priorart-relay`'s `Bunker`; this
//! module needs no NIP-46 feature of rust-nostr, so a WebAssembly build
//! that only checks a NIP-07 signer's answer links no encryption.
//!
//! A signer is untrusted, whichever it is: a NIP-46 bunker, or a NIP-07
//! browser extension (`window.nostr.signEvent`). What it returns must be
//! the very event it was asked to sign, with a valid id and signature;
//! [`check_signed_event`] says which of these fails ([`SignedEventError`]).

use nostr::prelude::{Event, Kind, PublicKey, RelayUrl, Tags, Timestamp, UnsignedEvent};
use nostr::types::url::{ParseError, Url};

/// Relays of one bunker URI used at most (a URI lists one to three).
pub const MAX_BUNKER_RELAYS: usize = 8;

/// A `bunker://<remote signer hex pubkey>?relay=wss://…&secret=…` URI.
/// Its `Debug` form never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct BunkerUri {
    /// The remote signer's own key (the user's key may differ: NIP-46's
    /// `get_public_key` says which it signs with).
    pub remote_signer: PublicKey,
    /// Where the signer listens: each once, at most [`MAX_BUNKER_RELAYS`], at least one.
    pub relays: Vec<RelayUrl>,
    secret: Option<String>,
}

impl std::fmt::Debug for BunkerUri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BunkerUri")
            .field("remote_signer", &self.remote_signer)
            .field("relays", &self.relays)
            .field("secret", &self.secret.as_ref().map(|_| "…"))
            .finish()
    }
}

/// Why a text is not a usable bunker URI. No message quotes the URI: it
/// may hold a secret.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BunkerUriError {
    /// Not a URI at all.
    #[error("not a bunker URI (bunker://<remote signer hex pubkey>?relay=wss://…&secret=…)")]
    NotUri(#[source] ParseError),
    /// A URI of another scheme than `bunker://`.
    #[error("not a bunker URI (bunker://<remote signer hex pubkey>?relay=wss://…&secret=…)")]
    OtherScheme,
    /// A `nostrconnect://` URI: the one a client shows a signer, not the signer's.
    #[error("a nostrconnect:// URI is for the signer; give priorart the bunker:// URI")]
    ClientUri,
    /// The host part is not the remote signer's hex public key (exactly
    /// 64 lowercase hex digits of a valid key).
    #[error("not a bunker URI: bunker://<remote signer hex pubkey> expected")]
    BadKey,
    /// A `relay=` value is not a `ws://` or `wss://` URL.
    #[error("the bunker URI's relay= values must be ws:// or wss:// URLs")]
    BadRelay(#[source] nostr::error::Error),
    /// The URI names no relay.
    #[error("the bunker URI names no relay (relay=wss://…)")]
    NoRelay,
}

priorart_reason::reason_names!(BunkerUriError {
    NotUri => "bunker_not_uri",
    OtherScheme => "bunker_other_scheme",
    ClientUri => "bunker_client_uri",
    BadKey => "bunker_bad_key",
    BadRelay => "bunker_bad_relay",
    NoRelay => "bunker_no_relay",
});

impl BunkerUri {
    /// Parses a `bunker://` URI (surrounding white space ignored), as
    /// NIP-46 writes it. Repeated relays are kept once; an empty `secret=`
    /// is no secret.
    pub fn parse(uri: &str) -> Result<BunkerUri, BunkerUriError> {
        let url = Url::parse(uri.trim()).map_err(BunkerUriError::NotUri)?;
        match url.scheme() {
            "bunker" => {}
            "nostrconnect" => return Err(BunkerUriError::ClientUri),
            _ => return Err(BunkerUriError::OtherScheme),
        }
        let remote_signer =
            crate::pubkey_from_hex(url.host_str().unwrap_or_default()).ok_or(BunkerUriError::BadKey)?;
        let mut relays: Vec<RelayUrl> = Vec::new();
        let mut secret = None;
        for (name, value) in url.query_pairs() {
            match name.as_ref() {
                "relay" => {
                    let relay = RelayUrl::parse(&value).map_err(BunkerUriError::BadRelay)?;
                    if !relays.contains(&relay) && relays.len() < MAX_BUNKER_RELAYS {
                        relays.push(relay);
                    }
                }
                "secret" => secret = Some(value.into_owned()).filter(|secret| !secret.is_empty()),
                _ => {}
            }
        }
        if relays.is_empty() {
            return Err(BunkerUriError::NoRelay);
        }
        Ok(BunkerUri { remote_signer, relays, secret })
    }

    /// The one-time secret of the URI, for NIP-46's `connect`.
    pub fn secret(&self) -> Option<&str> {
        self.secret.as_deref()
    }
}

/// What a signer was asked to sign: an event without id and signature. The
/// author is known for a NIP-46 bunker (`get_public_key`), and may be left
/// open for a NIP-07 signer, which fills it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignRequest {
    /// The key the event must be signed with, when known.
    pub pubkey: Option<PublicKey>,
    /// `created_at`.
    pub created_at: Timestamp,
    /// `kind`.
    pub kind: Kind,
    /// `tags`, in order.
    pub tags: Tags,
    /// `content`.
    pub content: String,
}

impl From<&UnsignedEvent> for SignRequest {
    fn from(unsigned: &UnsignedEvent) -> SignRequest {
        SignRequest {
            pubkey: Some(unsigned.pubkey),
            created_at: unsigned.created_at,
            kind: unsigned.kind,
            tags: unsigned.tags.clone(),
            content: unsigned.content.clone(),
        }
    }
}

/// A field of an event that must be the same in the signed event as in the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventField {
    /// `kind`.
    Kind,
    /// `created_at`.
    CreatedAt,
    /// `tags`.
    Tags,
    /// `content`.
    Content,
}

impl EventField {
    /// The field's NIP-01 name.
    pub fn as_str(self) -> &'static str {
        match self {
            EventField::Kind => "kind",
            EventField::CreatedAt => "created_at",
            EventField::Tags => "tags",
            EventField::Content => "content",
        }
    }
}

impl std::fmt::Display for EventField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why what a signer returned is not the signed event asked for.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SignedEventError {
    /// Longer than [`crate::limits::MAX_EVENT_JSON_BYTES`].
    #[error("the signed event is larger than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Not a NIP-01 event.
    #[error("the signer's answer is not a nostr event")]
    NotEvent(
        /// rust-nostr's parser error.
        #[source]
        nostr::error::Error,
    ),
    /// Signed by another key than the one asked for.
    #[error("signed with key {signed_by}, not with the author's key {expected}")]
    WrongPublicKey {
        /// The key the request named.
        expected: PublicKey,
        /// The key the returned event names.
        signed_by: PublicKey,
    },
    /// A field differs from the request.
    #[error("a different event than the one asked for: its {0} differs")]
    DifferentEvent(EventField),
    /// The id is not the hash of the event's fields.
    #[error("the signed event's id is not the hash of its fields")]
    BadId,
    /// The signature does not verify.
    #[error("the signed event's signature does not verify")]
    BadSignature,
}

priorart_reason::reason_names!(SignedEventError {
    TooLarge => "signed_event_too_large",
    NotEvent => "signed_event_not_event",
    WrongPublicKey => "signed_event_wrong_pubkey",
    DifferentEvent => "signed_event_different",
    BadId => "signed_event_bad_id",
    BadSignature => "signed_event_bad_signature",
});

/// Checks the event JSON a signer returned for `asked`: it must be that
/// event (kind, `created_at`, tags, content, and pubkey when the request
/// names one) with an id that is the hash of its fields and a valid
/// signature. Returns the event.
pub fn check_signed_event(asked: &SignRequest, signed_json: &str) -> Result<Event, SignedEventError> {
    let limit = crate::limits::MAX_EVENT_JSON_BYTES;
    if signed_json.len() > limit {
        return Err(SignedEventError::TooLarge { limit });
    }
    let event = Event::from_json(signed_json).map_err(SignedEventError::NotEvent)?;
    check_signed(asked, &event)?;
    Ok(event)
}

/// [`check_signed_event`] for an event already parsed.
pub fn check_signed(asked: &SignRequest, event: &Event) -> Result<(), SignedEventError> {
    if let Some(expected) = asked.pubkey.filter(|expected| *expected != event.pubkey) {
        return Err(SignedEventError::WrongPublicKey { expected, signed_by: event.pubkey });
    }
    let differs = if event.kind != asked.kind {
        Some(EventField::Kind)
    } else if event.created_at != asked.created_at {
        Some(EventField::CreatedAt)
    } else if event.tags != asked.tags {
        Some(EventField::Tags)
    } else if event.content != asked.content {
        Some(EventField::Content)
    } else {
        None
    };
    if let Some(field) = differs {
        return Err(SignedEventError::DifferentEvent(field));
    }
    if !event.verify_id() {
        return Err(SignedEventError::BadId);
    }
    if !event.verify_signature() {
        return Err(SignedEventError::BadSignature);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::prelude::{EventBuilder, FinalizeUnsignedEvent, Keys, SignEvent, Tag};

    #[test]
    fn bunker_uris_keep_each_relay_once_and_no_message_quotes_the_secret() {
        let signer = Keys::generate().public_key();
        let uri = format!(
            " bunker://{}?relay=wss%3A%2F%2Frelay.example&relay=wss://relay.example&secret=s3cr3t\n",
            signer.to_hex()
        );
        let parsed = BunkerUri::parse(&uri).unwrap();
        assert_eq!((parsed.remote_signer, parsed.relays.len(), parsed.secret()), (signer, 1, Some("s3cr3t")));
        assert!(!format!("{parsed:?}").contains("s3cr3t"));

        let empty_secret = format!("bunker://{}?relay=wss://r.example&secret=", signer.to_hex());
        assert_eq!(BunkerUri::parse(&empty_secret).unwrap().secret(), None);

        let no_relay = format!("bunker://{}?secret=s3cr3t", signer.to_hex());
        assert!(matches!(BunkerUri::parse(&no_relay), Err(BunkerUriError::NoRelay)));
        let bad_relay = format!("bunker://{}?relay=https://r.example&secret=s3cr3t", signer.to_hex());
        type Expected = fn(&BunkerUriError) -> bool;
        let longer = format!("bunker://{}00?relay=wss://r.example", signer.to_hex());
        assert!(matches!(BunkerUri::parse(&longer), Err(BunkerUriError::BadKey)));
        let refusals: [(&str, Expected); 4] = [
            ("bunker://not-a-key?relay=wss://r.example&secret=s3cr3t", |e| {
                matches!(e, BunkerUriError::BadKey)
            }),
            ("https://x?secret=s3cr3t", |e| matches!(e, BunkerUriError::OtherScheme)),
            ("s3cr3t", |e| matches!(e, BunkerUriError::NotUri(_))),
            (&bad_relay, |e| matches!(e, BunkerUriError::BadRelay(_))),
        ];
        for (bad, expected) in refusals {
            let error = BunkerUri::parse(bad).unwrap_err();
            assert!(expected(&error), "{bad}: {error:?}");
            let message = priorart_reason::error_chain(&error);
            assert!(!message.contains("s3cr3t"), "{message}");
        }
        let metadata = "%7B%22name%22%3A%22an%20app%22%7D"; // {"name":"an app"}
        let client = format!(
            "nostrconnect://{}?relay=wss://r.example&metadata={metadata}&secret=s3cr3t",
            signer.to_hex()
        );
        assert!(matches!(BunkerUri::parse(&client), Err(BunkerUriError::ClientUri)));
    }

    #[test]
    fn more_relays_than_the_limit_are_cut_to_the_limit() {
        let signer = Keys::generate().public_key();
        let relays: Vec<String> = (0..20).map(|i| format!("relay=wss://r{i}.example")).collect();
        let uri = format!("bunker://{}?{}", signer.to_hex(), relays.join("&"));
        assert_eq!(BunkerUri::parse(&uri).unwrap().relays.len(), MAX_BUNKER_RELAYS);
    }

    fn request(keys: &Keys) -> UnsignedEvent {
        EventBuilder::new(Kind::from_u16(1042), "")
            .tag(Tag::parse(["X", "ab"]).unwrap())
            .custom_created_at(Timestamp::from_secs(1_700_000_000))
            .finalize_unsigned(keys.public_key())
    }

    #[test]
    fn the_event_asked_for_signed_by_its_author_passes() {
        let keys = Keys::generate();
        let asked = request(&keys);
        let signed = keys.sign_event(asked.clone()).unwrap();
        let checked = check_signed_event(&SignRequest::from(&asked), &signed.as_json()).unwrap();
        assert_eq!(checked, signed);

        // A NIP-07 signer fills in the author: with no pubkey asked for, any key does.
        let open = SignRequest { pubkey: None, ..SignRequest::from(&asked) };
        let stranger = Keys::generate();
        let mut theirs = asked.clone();
        theirs.pubkey = stranger.public_key();
        let theirs = stranger.sign_event(theirs).unwrap();
        assert_eq!(check_signed_event(&open, &theirs.as_json()).unwrap().pubkey, stranger.public_key());
    }

    #[test]
    fn each_difference_from_the_request_is_named() {
        let keys = Keys::generate();
        let asked = request(&keys);
        let request = SignRequest::from(&asked);
        type Change = fn(&mut UnsignedEvent);
        let changes: [(EventField, Change); 4] = [
            (EventField::Kind, |event| event.kind = Kind::from_u16(1)),
            (EventField::CreatedAt, |event| event.created_at = Timestamp::from_secs(1)),
            (EventField::Tags, |event| event.tags = Tags::new()),
            (EventField::Content, |event| event.content = "something else".into()),
        ];
        for (field, change) in changes {
            let mut other = asked.clone();
            change(&mut other);
            let forged = keys.sign_event(other).unwrap();
            let error = check_signed_event(&request, &forged.as_json()).unwrap_err();
            assert!(matches!(error, SignedEventError::DifferentEvent(named) if named == field), "{error}");
        }

        let stranger = Keys::generate();
        let mut theirs = asked.clone();
        theirs.pubkey = stranger.public_key();
        let theirs = stranger.sign_event(theirs).unwrap();
        assert!(matches!(
            check_signed_event(&request, &theirs.as_json()),
            Err(SignedEventError::WrongPublicKey { expected, signed_by })
                if expected == keys.public_key() && signed_by == stranger.public_key()
        ));
    }

    #[test]
    fn a_bad_id_a_bad_signature_and_non_events_are_refused() {
        let keys = Keys::generate();
        let asked = request(&keys);
        let request = SignRequest::from(&asked);
        let honest = keys.sign_event(asked.clone()).unwrap();
        let mut other = asked.clone();
        other.content = "another event".into();
        let other = keys.sign_event(other).unwrap();

        let mut bad_sig = honest.clone();
        bad_sig.sig = other.sig;
        let error = check_signed_event(&request, &bad_sig.as_json()).unwrap_err();
        assert!(matches!(error, SignedEventError::BadSignature), "{error}");

        let mut bad_id = honest.clone();
        bad_id.id = other.id;
        let error = check_signed_event(&request, &bad_id.as_json()).unwrap_err();
        assert!(matches!(error, SignedEventError::BadId), "{error}");

        for not_event in ["", "null", "{}", "[1,2]", &honest.as_json()[1..]] {
            let error = check_signed_event(&request, not_event).unwrap_err();
            assert!(matches!(error, SignedEventError::NotEvent(_)), "{not_event}: {error}");
            assert!(std::error::Error::source(&error).is_some());
        }
        let huge = " ".repeat(crate::limits::MAX_EVENT_JSON_BYTES + 1);
        assert!(matches!(check_signed_event(&request, &huge), Err(SignedEventError::TooLarge { .. })));
    }
}
