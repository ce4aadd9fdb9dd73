//! Content events (a note, an article…) that carry an `X`: whether their
//! text has it, and the coordinate a proof's `a` tag names them by.

use crate::readable::{Unreadable, unreadable};
use nostr::prelude::Event;
use priorart_fingerprint::EqualityFingerprint;

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

/// Re-fingerprints a content event's text, unless there is none to read.
pub fn check_x(event: &Event, x: &EqualityFingerprint) -> XCheck {
    if let Some(why) = unreadable(&event.content) {
        return XCheck::CannotCheck(why);
    }
    let fingerprint = priorart_fingerprint::minhash_equality_v1(&event.content);
    if fingerprint == *x { XCheck::Matches } else { XCheck::DoesNotMatch(fingerprint.to_string()) }
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
