//! A request's `nauthz.Event` (raw bytes and strings, as nostr-rs-relay
//! sends them) → a `nostr::Event`, with the same checks and the same error
//! type as event JSON gets (`priorart_nip::parse_event`): fixed-size ids,
//! keys and signatures, a kind that fits 16 bits, bounded non-empty tags;
//! and back ([`request_for`]).

use crate::proto::event::TagEntry;
use crate::proto::{self, EventRequest};
use priorart_nip::EventJsonError;
use priorart_nip::limits::{MAX_TAG_STRINGS, MAX_TAGS};
use priorart_nip::nostr::prelude::{Event, EventId, Kind, PublicKey, Signature, Tag, Timestamp};

/// The event a request asks about. Its id and signature are not checked:
/// the relay did, before asking.
pub fn event_of(request: EventRequest) -> Result<Event, EventJsonError> {
    let malformed = |field, expected| EventJsonError::Malformed { field, expected };
    let Some(event) = request.event else {
        return Err(EventJsonError::NotEvent("the request has no event".into()));
    };
    let id = <[u8; 32]>::try_from(event.id.as_slice()).map_err(|_| malformed("id", "32 bytes"))?;
    let pubkey =
        <[u8; 32]>::try_from(event.pubkey.as_slice()).map_err(|_| malformed("pubkey", "32 bytes"))?;
    let sig = Signature::from_slice(&event.sig).map_err(|_| malformed("sig", "64 bytes"))?;
    let kind = u16::try_from(event.kind).map_err(|_| malformed("kind", "an integer from 0 to 65535"))?;
    if event.tags.len() > MAX_TAGS || event.tags.iter().any(|tag| tag.values.len() > MAX_TAG_STRINGS) {
        return Err(EventJsonError::TooManyTags);
    }
    let tags = event.tags.into_iter().map(|tag| Tag::parse(tag.values).map_err(|_| EventJsonError::EmptyTag));
    Ok(Event::new(
        EventId::from_byte_array(id),
        PublicKey::from_byte_array(pubkey),
        Timestamp::from_secs(event.created_at),
        Kind::from_u16(kind),
        tags.collect::<Result<Vec<Tag>, _>>()?,
        event.content,
        sig,
    ))
}

/// The request nostr-rs-relay sends for `event` (its `src/nauthz.rs`),
/// without the client's address, origin, user agent, AUTH key and NIP-05
/// name, which the policy does not look at.
pub fn request_for(event: &Event) -> EventRequest {
    EventRequest {
        event: Some(proto::Event {
            id: event.id.as_bytes().to_vec(),
            pubkey: event.pubkey.to_bytes().to_vec(),
            created_at: event.created_at.as_secs(),
            kind: u64::from(event.kind.as_u16()),
            content: event.content.clone(),
            tags: event.tags.iter().map(|tag| TagEntry { values: tag.as_slice().to_vec() }).collect(),
            sig: event.sig.as_bytes().to_vec(),
        }),
        ..EventRequest::default()
    }
}
