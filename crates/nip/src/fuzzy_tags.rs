//! The fuzzy discovery tags of docs/nip-ff-3-fuzzy.md: a content event's
//! simhash-doc-v2 value and its lookup keys, in `B` tags that relays index,
//! so that one REQ carrying a text's keys finds every event whose text is
//! within [`FUZZY_DISTANCE`] bits of it on an unmodified relay.
//!
//! ```text
//! ["B", "GCBI4TN2UN2P2", "simhash-doc-v2"]  the value, once
//! ["B", "6-00-83a7"]                         one key per table (28)
//! ```
//!
//! Tags written before simhash-doc-v2 name `simhash-doc`; they are still
//! read and checked against the content's simhash-doc. Both values share
//! one key space: on text without Chinese, Japanese, Thai… or spacing
//! marks they are equal, so old and new events find each other.
//!
//! A key is `<k>-<table>-<hex>`: the distance its layout guarantees
//! (`Layout::for_distance(6)`: the 64 bits in 8 bytes, one table per pair
//! of bytes), the table number (two digits), and the table's key bits in
//! lowercase hex (for k = 6, byte `i` then byte `j` of the value,
//! big-endian, for the table's pair `(i, j)`). Nothing in the tags is
//! trusted: a reader recomputes the value from the content.

use nostr::prelude::{Event, Tag, Tags};
use priorart_fingerprint::layout::{Layout, TableKeys};
use priorart_fingerprint::{Fingerprinter, Scheme, SimhashDoc, TokenRule};
use std::sync::OnceLock;

/// The tag name: `B` (no NIP uses `b` or `B`).
pub const FUZZY_TAG: &str = "B";
/// The scheme named in the value tag written.
pub const FUZZY_SCHEME: Scheme = Scheme::SimhashDocV2;
/// The distance the keys guarantee: two values within it share a key.
pub const FUZZY_DISTANCE: u32 = 6;
/// Texts of fewer words ([`long_enough`]) carry no fuzzy tags (their
/// values move too much under small edits to be worth the bytes).
pub const FUZZY_MIN_WORDS: usize = 100;
/// Most `B` tags read from one event (the value and 28 keys fit well).
pub const MAX_FUZZY_TAGS: usize = 40;

/// Why an event's `B` tags are not a well-formed set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FuzzyTagError {
    /// More `B` tags than [`MAX_FUZZY_TAGS`].
    #[error("{count} B tags: at most {MAX_FUZZY_TAGS} are read")]
    TooMany {
        /// How many there are.
        count: usize,
    },
    /// A `B` tag that is neither `["B", value, scheme]` nor `["B", key]`.
    #[error("a B tag has {strings} strings: expected [\"B\", value, \"simhash-doc-v2\"] or [\"B\", key]")]
    BadShape {
        /// Strings in the tag, its name included.
        strings: usize,
    },
    /// A value tag of another scheme.
    #[error("the B value tag names scheme {0:?}, not simhash-doc-v2 or simhash-doc")]
    WrongScheme(String),
    /// Keys without a value tag.
    #[error("B keys without a [\"B\", value, \"simhash-doc-v2\"] tag")]
    ValueMissing,
    /// Two value tags.
    #[error("more than one B value tag")]
    ValueRepeated,
    /// A value that is not 13 upper-case base32hex characters.
    #[error("the B value {0:?} is not a simhash-doc value (13 upper-case base32hex characters)")]
    ValueMalformed(String),
    /// A key that is not one of the value's keys.
    #[error("B key {0:?} is not a key of the value")]
    KeyNotOfValue(String),
    /// The same key twice.
    #[error("B key {0:?} is repeated")]
    KeyRepeated(String),
    /// A key of the value is absent.
    #[error("{missing} of the value's {FUZZY_TABLES} B keys are missing")]
    KeysMissing {
        /// How many.
        missing: usize,
    },
}

reason_names!(FuzzyTagError {
    TooMany => "too_many",
    BadShape => "bad_shape",
    WrongScheme => "wrong_scheme",
    ValueMissing => "value_missing",
    ValueRepeated => "value_repeated",
    ValueMalformed => "value_malformed",
    KeyNotOfValue => "key_not_of_value",
    KeyRepeated => "key_repeated",
    KeysMissing => "keys_missing",
});

/// The tables of the keys: C(8, 2) = 28.
pub const FUZZY_TABLES: usize = 28;

/// The tables of [`FUZZY_DISTANCE`], compiled once.
fn tables() -> &'static (Layout, TableKeys) {
    static TABLES: OnceLock<(Layout, TableKeys)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let layout = Layout::for_distance(FUZZY_DISTANCE).expect("k = 6 has a layout");
        let keys = TableKeys::new(&layout);
        (layout, keys)
    })
}

/// The lookup keys of `value`, in table order: what its `B` key tags
/// carry and what a REQ for texts near it asks for.
pub fn fuzzy_keys(value: SimhashDoc) -> Vec<String> {
    let (layout, keys) = tables();
    layout
        .tables
        .iter()
        .zip(keys.keys(value.0))
        .enumerate()
        .map(|(table, (shape, key))| {
            let width = usize::from(shape.key_bits).div_ceil(4);
            format!("{FUZZY_DISTANCE}-{table:02}-{key:0width$x}")
        })
        .collect()
}

/// Whether a text is long enough to carry fuzzy tags (and to be looked up
/// by them by default): at least [`FUZZY_MIN_WORDS`] words, two letters of
/// Chinese, Japanese, Thai… counting as one
/// ([`priorart_fingerprint::count_words`]).
pub fn long_enough(text: &str) -> bool {
    priorart_fingerprint::count_words(text, FUZZY_MIN_WORDS) >= FUZZY_MIN_WORDS
}

/// A simhash-doc value and its keys, as `B` tags carry them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzyTags {
    /// The value.
    pub value: SimhashDoc,
    /// Its token rule: simhash-doc-v2's for tags written now, simhash-doc's
    /// for tags written before.
    pub rule: TokenRule,
}

impl FuzzyTags {
    /// The tags of `text`'s simhash-doc-v2 value.
    pub fn of_text(text: &str) -> FuzzyTags {
        let rule = TokenRule::V2;
        FuzzyTags { value: Fingerprinter::new().simhash_doc(text, rule), rule }
    }

    /// The tags, the value first, then the keys in table order.
    pub fn to_tags(&self) -> Vec<Tag> {
        let scheme = self.rule.simhash_scheme().id().to_owned();
        let value = [FUZZY_TAG.to_owned(), self.value.to_string(), scheme];
        let keys = fuzzy_keys(self.value).into_iter().map(|key| [FUZZY_TAG.to_owned(), key]);
        std::iter::once(Tag::parse(value).expect("a named tag"))
            .chain(keys.map(|key| Tag::parse(key).expect("a named tag")))
            .collect()
    }

    /// The `B` tags of `tags`: `None` when there is none, else the value
    /// once they form exactly the set [`FuzzyTags::to_tags`] builds (any
    /// order), or what is wrong with them.
    pub fn parse(tags: &Tags) -> Result<Option<FuzzyTags>, FuzzyTagError> {
        let fuzzy: Vec<&[String]> = tags
            .iter()
            .map(Tag::as_slice)
            .filter(|tag| tag.first().map(String::as_str) == Some(FUZZY_TAG))
            .collect();
        if fuzzy.is_empty() {
            return Ok(None);
        }
        if fuzzy.len() > MAX_FUZZY_TAGS {
            return Err(FuzzyTagError::TooMany { count: fuzzy.len() });
        }
        let (mut value, mut keys) = (None, Vec::new());
        for tag in fuzzy {
            match tag {
                [_, text, scheme] => {
                    let rule = scheme
                        .parse::<Scheme>()
                        .ok()
                        .and_then(Scheme::token_rule)
                        .ok_or_else(|| FuzzyTagError::WrongScheme(cut(scheme)))?;
                    if value.replace((parse_value(text)?, rule)).is_some() {
                        return Err(FuzzyTagError::ValueRepeated);
                    }
                }
                [_, key] => keys.push(key.as_str()),
                other => return Err(FuzzyTagError::BadShape { strings: other.len() }),
            }
        }
        let (value, rule) = value.ok_or(FuzzyTagError::ValueMissing)?;
        let expected = fuzzy_keys(value);
        let mut seen = vec![false; expected.len()];
        for key in keys {
            let table = expected
                .iter()
                .position(|k| k == key)
                .ok_or_else(|| FuzzyTagError::KeyNotOfValue(cut(key)))?;
            if std::mem::replace(&mut seen[table], true) {
                return Err(FuzzyTagError::KeyRepeated(key.to_owned()));
            }
        }
        match seen.iter().filter(|&&present| !present).count() {
            0 => Ok(Some(FuzzyTags { value, rule })),
            missing => Err(FuzzyTagError::KeysMissing { missing }),
        }
    }
}

/// What an event's `B` tags say about its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FuzzyTagCheck {
    /// No `B` tag.
    Absent,
    /// Well formed, and the text's own value.
    Matches,
    /// Well formed, for another value than the text's (which it holds).
    DoesNotMatch(SimhashDoc),
    /// Not a well-formed set.
    Malformed(FuzzyTagError),
    /// The content is empty or ciphertext: nothing to recompute.
    CannotCheck(crate::readable::Unreadable),
}

/// Checks `event`'s `B` tags against its text, as a relay policy or a
/// reader does: never trusting the tags, recomputing from the content.
pub fn check_fuzzy_tags(event: &Event) -> FuzzyTagCheck {
    let tags = match FuzzyTags::parse(&event.tags) {
        Ok(None) => return FuzzyTagCheck::Absent,
        Ok(Some(tags)) => tags,
        Err(err) => return FuzzyTagCheck::Malformed(err),
    };
    if let Some(why) = crate::readable::unreadable(&event.content) {
        return FuzzyTagCheck::CannotCheck(why);
    }
    let value = Fingerprinter::new().simhash_doc(&event.content, tags.rule);
    if value == tags.value { FuzzyTagCheck::Matches } else { FuzzyTagCheck::DoesNotMatch(value) }
}

/// A value in its one spelling: 13 upper-case base32hex characters.
fn parse_value(text: &str) -> Result<SimhashDoc, FuzzyTagError> {
    let malformed = || FuzzyTagError::ValueMalformed(cut(text));
    let value: SimhashDoc = text.parse().map_err(|_| malformed())?;
    if value.to_string() == text { Ok(value) } else { Err(malformed()) }
}

/// At most 80 bytes of an untrusted string, for an error message.
fn cut(text: &str) -> String {
    priorart_reason::cut(text, 80).to_owned()
}

#[cfg(test)]
mod tests;
