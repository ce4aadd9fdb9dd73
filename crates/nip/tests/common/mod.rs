//! Shared helpers of the nip tests.
#![allow(dead_code)] // each test file uses a part

pub mod peer;

use priorart_nip::nostr::prelude::*;

/// A fixed author key (the secret 0x11…11), so failures reproduce.
pub fn alice() -> Keys {
    Keys::parse(&"11".repeat(32)).expect("valid secret")
}

/// A second author: the plagiarist.
pub fn mallory() -> Keys {
    Keys::parse(&"22".repeat(32)).expect("valid secret")
}

/// Signs an arbitrary event: for attestations of the wrong shape that are
/// nevertheless correctly signed.
pub fn signed(keys: &Keys, kind: u16, content: &str, tags: &[&[&str]]) -> Event {
    let tags = tags.iter().map(|tag| Tag::parse(tag.iter().copied()).expect("tag"));
    EventBuilder::new(Kind::from_u16(kind), content)
        .tags(tags)
        .custom_created_at(Timestamp::from_secs(1_700_000_000))
        .finalize(keys)
        .expect("signs")
}

pub const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";
