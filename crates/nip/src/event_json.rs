//! Untrusted event JSON → a `nostr::Event`, with a named reason when it is
//! not one.
//!
//! rust-nostr's own deserializer accepts any hex case and reports every
//! problem as one opaque error; verification reports need to say *which*
//! field is wrong, so the fields are read as plain strings first and then
//! converted one by one with the `nostr` types.

use crate::hex::is_lower_hex;
use crate::limits::{MAX_TAG_STRINGS, MAX_TAGS};
use nostr::prelude::{Event, EventId, Kind, PublicKey, Signature, Tag, Timestamp};
use serde::Deserialize;

/// Why some JSON text is not a nostr event.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EventJsonError {
    /// Longer than the caller's limit.
    #[error("larger than {limit} bytes")]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// Not JSON at all.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object with the seven NIP-01 fields of the right types.
    #[error("not a nostr event: {0}")]
    NotEvent(String),
    /// More than [`MAX_TAGS`] tags, or a tag with more than [`MAX_TAG_STRINGS`] strings.
    #[error("more than {MAX_TAGS} tags or more than {MAX_TAG_STRINGS} strings in a tag")]
    TooManyTags,
    /// A tag with no string at all.
    #[error("a tag is empty")]
    EmptyTag,
    /// A field that is not what NIP-01 says it is.
    #[error("`{field}` is not {expected}")]
    Malformed {
        /// The field name.
        field: &'static str,
        /// What it should be.
        expected: &'static str,
    },
}

reason_names!(EventJsonError {
    TooLarge => "too_large",
    NotJson => "not_json",
    NotEvent => "not_event",
    TooManyTags => "too_many_tags",
    EmptyTag => "empty_tag",
    Malformed => "malformed",
});

/// The NIP-01 fields as they appear in JSON, before any check.
#[derive(Deserialize)]
struct RawEvent {
    id: String,
    pubkey: String,
    created_at: u64,
    kind: u64,
    tags: Vec<Vec<String>>,
    content: String,
    sig: String,
}

/// Parses one event from JSON of at most `limit` bytes. Does not check the
/// id or the signature: callers report those as steps of their own.
pub fn parse_event(json: &str, limit: usize) -> Result<Event, EventJsonError> {
    if json.len() > limit {
        return Err(EventJsonError::TooLarge { limit });
    }
    let raw: RawEvent = serde_json::from_str(json).map_err(|err| match err.classify() {
        serde_json::error::Category::Data => EventJsonError::NotEvent(err.to_string()),
        _ => EventJsonError::NotJson(err.to_string()),
    })?;
    to_event(raw)
}

fn to_event(raw: RawEvent) -> Result<Event, EventJsonError> {
    let malformed = |field, expected| EventJsonError::Malformed { field, expected };
    if !is_lower_hex(&raw.id, 64) {
        return Err(malformed("id", "64 lowercase hex digits"));
    }
    if !is_lower_hex(&raw.pubkey, 64) {
        return Err(malformed("pubkey", "64 lowercase hex digits"));
    }
    if !is_lower_hex(&raw.sig, 128) {
        return Err(malformed("sig", "128 lowercase hex digits"));
    }
    let kind = u16::try_from(raw.kind).map_err(|_| malformed("kind", "an integer from 0 to 65535"))?;
    if raw.tags.len() > MAX_TAGS || raw.tags.iter().any(|tag| tag.len() > MAX_TAG_STRINGS) {
        return Err(EventJsonError::TooManyTags);
    }
    let tags = raw.tags.into_iter().map(|tag| Tag::parse(tag).map_err(|_| EventJsonError::EmptyTag));
    let tags = tags.collect::<Result<Vec<Tag>, _>>()?;
    let id = EventId::from_hex(&raw.id).map_err(|_| malformed("id", "64 lowercase hex digits"))?;
    let pubkey =
        PublicKey::from_hex(&raw.pubkey).map_err(|_| malformed("pubkey", "64 lowercase hex digits"))?;
    let sig = Signature::from_hex(&raw.sig).map_err(|_| malformed("sig", "128 lowercase hex digits"))?;
    Ok(Event::new(
        id,
        pubkey,
        Timestamp::from_secs(raw.created_at),
        Kind::from_u16(kind),
        tags,
        raw.content,
        sig,
    ))
}

/// The event as NIP-01 JSON with the fields in the order the NIP-FF-3 text
/// shows them (`kind`, `created_at`, `pubkey`, `content`, `tags`, `id`, `sig`).
pub fn to_json(event: &Event) -> String {
    #[derive(serde::Serialize)]
    struct InNipOrder<'a> {
        kind: u16,
        created_at: u64,
        pubkey: String,
        content: &'a str,
        tags: Vec<&'a [String]>,
        id: String,
        sig: String,
    }
    let shaped = InNipOrder {
        kind: event.kind.as_u16(),
        created_at: event.created_at.as_secs(),
        pubkey: event.pubkey.to_hex(),
        content: &event.content,
        tags: event.tags.iter().map(Tag::as_slice).collect(),
        id: event.id.to_hex(),
        sig: event.sig.to_hex(),
    };
    serde_json::to_string(&shaped).expect("strings, integers and string lists always serialize")
}
