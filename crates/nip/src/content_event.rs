//! Content events (kind 1 notes, kind 30023 articles, …) carrying the
//! NIP-FF-3 `X` tag of their text, so that relays can be asked for every
//! event sharing a fingerprint, and (texts of at least
//! [`FUZZY_MIN_WORDS`](crate::fuzzy_tags::FUZZY_MIN_WORDS) words, unless
//! left out) the fuzzy discovery `B` tags of docs/nip-ff-3-fuzzy.md, so
//! that they can be asked for every event whose text is near.
//!
//! This is the one place content-event tags are built: the CLI (`event`,
//! `protect`) and the WebAssembly package go through
//! [`ContentEvent::unsigned`].

use crate::ALGORITHM;
use crate::fuzzy_tags::{FuzzyTags, long_enough};
use nostr::prelude::{
    Event, EventBuilder, FinalizeUnsignedEvent, Keys, Kind, PublicKey, SignEvent, Tag, Timestamp,
    UnsignedEvent,
};

/// Why a content event cannot be built as asked.
#[derive(Debug, thiserror::Error)]
pub enum ContentEventError {
    /// An addressable kind (30000-39999) needs a `d` identifier.
    #[error("kind {0} is addressable: it needs a d identifier")]
    MissingD(u16),
    /// Only addressable kinds have a `d` identifier.
    #[error("kind {0} is not addressable (30000-39999): it takes no d identifier")]
    UnexpectedD(u16),
    /// Signing failed.
    #[error("cannot sign: {0}")]
    Sign(nostr::error::Error),
}

reason_names!(ContentEventError {
    MissingD => "missing_d",
    UnexpectedD => "unexpected_d",
    Sign => "sign",
});

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<nostr::error::Error> for ContentEventError {
    fn from(cause: nostr::error::Error) -> Self {
        ContentEventError::Sign(cause)
    }
}

/// What goes into a content event.
#[derive(Debug, Clone)]
pub struct ContentEvent<'a> {
    /// The event kind (1, 30023, …).
    pub kind: u16,
    /// The text; its fingerprint becomes the `X` tag.
    pub text: &'a str,
    /// The `d` identifier of an addressable event.
    pub d: Option<&'a str>,
    /// A `title` tag (NIP-23 articles).
    pub title: Option<&'a str>,
    /// The `created_at` to use.
    pub created_at: Timestamp,
    /// Add the fuzzy discovery `B` tags (when the text is long enough).
    pub fuzzy_tags: bool,
}

impl<'a> ContentEvent<'a> {
    /// A content event of `kind` with `text`: no `d`, no title, fuzzy tags.
    pub fn new(kind: u16, text: &'a str, created_at: Timestamp) -> ContentEvent<'a> {
        ContentEvent { kind, text, d: None, title: None, created_at, fuzzy_tags: true }
    }

    /// Builds and signs the event: `d` and `title` when given, then `X`,
    /// then the `B` tags.
    pub fn sign(&self, keys: &Keys) -> Result<Event, ContentEventError> {
        Ok(keys.sign_event(self.unsigned(keys.public_key())?)?)
    }

    /// The event for `author`, unsigned: what a remote signer is asked to sign.
    pub fn unsigned(&self, author: PublicKey) -> Result<UnsignedEvent, ContentEventError> {
        let kind = Kind::from_u16(self.kind);
        match (kind.is_addressable(), self.d) {
            (true, None) => return Err(ContentEventError::MissingD(self.kind)),
            (false, Some(_)) => return Err(ContentEventError::UnexpectedD(self.kind)),
            _ => {}
        }
        let fingerprint = priorart_fingerprint::minhash_equality_v1(self.text);
        let d = self.d.map(|d| Tag::parse(["d", d])).transpose()?;
        let title = self.title.map(|title| Tag::parse(["title", title])).transpose()?;
        let x = Tag::parse(["X".to_owned(), fingerprint.to_string(), ALGORITHM.to_owned()])?;
        let fuzzy = if self.fuzzy_tags && long_enough(self.text) {
            FuzzyTags::of_text(self.text).to_tags()
        } else {
            Vec::new()
        };
        Ok(EventBuilder::new(kind, self.text)
            .tag_maybe(d)
            .tag_maybe(title)
            .tag(x)
            .tags(fuzzy)
            .custom_created_at(self.created_at)
            .finalize_unsigned(author))
    }
}
