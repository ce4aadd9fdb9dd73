//! Content events (a note, an article…) that carry an `X`: whether their
//! text has it, and the coordinate a proof's `a` tag names them by.

use nostr::prelude::Event;
use priorart_fingerprint::EqualityFingerprint;
use serde::Serialize;

/// Whether a content event's text has the `X` it carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XCheck {
    /// Its text fingerprints to the `X`.
    Matches,
    /// Its text fingerprints to this other `X` (lowercase hex): the tag
    /// lies about the content.
    DoesNotMatch(String),
    /// Nothing to fingerprint: the content is empty, or ciphertext.
    CannotCheck(Unreadable),
}

/// Why a content event's text cannot be fingerprinted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unreadable {
    /// Nothing but white space.
    Empty,
    /// A NIP-04 or NIP-44 payload.
    Encrypted,
}

impl Unreadable {
    /// `empty` or `encrypted`.
    pub fn name(self) -> &'static str {
        match self {
            Unreadable::Empty => "empty",
            Unreadable::Encrypted => "encrypted",
        }
    }
}

/// Re-fingerprints a content event's text, unless there is none to read.
pub fn check_x(event: &Event, x: &EqualityFingerprint) -> XCheck {
    if let Some(why) = unreadable(&event.content) {
        return XCheck::CannotCheck(why);
    }
    let fingerprint = priorart_fingerprint::minhash_equality_v1(&event.content);
    if fingerprint == *x { XCheck::Matches } else { XCheck::DoesNotMatch(fingerprint.to_string()) }
}

/// Why `content` has no text to fingerprint (empty, or ciphertext), or
/// `None` when it has.
pub fn unreadable(content: &str) -> Option<Unreadable> {
    if content.trim().is_empty() {
        Some(Unreadable::Empty)
    } else if looks_encrypted(content) {
        Some(Unreadable::Encrypted)
    } else {
        None
    }
}

/// NIP-04 (`<base64>?iv=<base64>`) and NIP-44 payloads (one base64 word of
/// at least 132 characters whose first byte, version 2, encodes as `A`
/// followed by a character from `g` to `v`): ciphertext, not text to hash.
pub fn looks_encrypted(content: &str) -> bool {
    let base64 =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
    if let Some((ciphertext, iv)) = content.split_once("?iv=") {
        return base64(ciphertext) && base64(iv);
    }
    let bytes = content.as_bytes();
    content.len() >= 132 && base64(content) && bytes[0] == b'A' && (b'g'..=b'v').contains(&bytes[1])
}

/// `KIND:PUBKEY:D` of an addressable event (what an `a` tag names).
pub fn coordinate_of(event: &Event) -> Option<String> {
    event.kind.is_addressable().then(|| {
        let d = event.tags.identifier().unwrap_or_default();
        format!("{}:{}:{d}", event.kind.as_u16(), event.pubkey.to_hex())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nostr::prelude::*;

    #[test]
    fn ciphertexts_are_not_hashed_as_text() {
        assert!(looks_encrypted("c2VjcmV0IG1lc3NhZ2U=?iv=MTIzNDU2Nzg5MDEyMzQ1Ng=="));
        let nip44 = format!("Ag{}", "B".repeat(140));
        assert!(looks_encrypted(&nip44));
        assert!(!looks_encrypted("An article about ships?iv= is not base64"));
        assert!(!looks_encrypted(&"Ab".repeat(80)));
        assert!(!looks_encrypted("A short note"));
    }

    #[test]
    fn only_addressable_events_have_a_coordinate() {
        let keys = Keys::parse(&"11".repeat(32)).expect("valid secret");
        let article = EventBuilder::new(Kind::from_u16(30023), "text")
            .tag(Tag::identifier("essay"))
            .finalize(&keys)
            .expect("signs");
        let expected = format!("30023:{}:essay", keys.public_key().to_hex());
        assert_eq!(coordinate_of(&article), Some(expected));
        let note = EventBuilder::new(Kind::from_u16(1), "text").finalize(&keys).expect("signs");
        assert_eq!(coordinate_of(&note), None);
    }
}
