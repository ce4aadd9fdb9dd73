//! Words of a text with where they are: maximal runs of alphanumeric
//! characters (Unicode's `Alphabetic` or `Numeric`), compared lowercased,
//! each kept as a 64-bit hash and the byte range it covers in the original
//! text. Nothing is copied or normalized in place, so every position maps
//! back to the text the caller gave.

/// One content word (not a stopword): its hash and byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) hash: u64,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// FNV-1a offset basis: the hash of an empty word.
const HASH_START: u64 = 0xcbf2_9ce4_8422_2325;
const HASH_PRIME: u64 = 0x0000_0100_0000_01b3;

/// One more unit (an ASCII byte or a lowercased character) into a word's hash.
fn hash_unit(hash: u64, unit: u32) -> u64 {
    (hash ^ u64::from(unit)).wrapping_mul(HASH_PRIME)
}

/// The final mix of a word's hash, so that words differing in one letter
/// land far apart (the seed keys combine these).
fn finish(hash: u64) -> u64 {
    let mut h = hash ^ (hash >> 33);
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// The hash of one word as [`content_words`] computes it (for stopword
/// tables).
pub(crate) fn word_hash(word: &str) -> u64 {
    let mut hash = HASH_START;
    for c in word.chars() {
        for lower in c.to_lowercase() {
            hash = hash_unit(hash, u32::from(lower));
        }
    }
    finish(hash)
}

/// Calls `each` with every word of `text` (hash, byte start, byte end).
/// The text is at most `u32::MAX` bytes long (the caller's limit). ASCII
/// bytes are classified and folded one by one; a non-ASCII character is
/// decoded and asked Unicode (alphanumeric, lowercase).
fn for_each_word(text: &str, mut each: impl FnMut(u64, u32, u32)) {
    let bytes = text.as_bytes();
    let mut hash = HASH_START;
    let mut start: Option<usize> = None;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let (is_word, next) = if byte.is_ascii() {
            if byte.is_ascii_alphanumeric() {
                hash = hash_unit(hash, u32::from(byte.to_ascii_lowercase()));
            }
            (byte.is_ascii_alphanumeric(), at + 1)
        } else {
            let c = text[at..].chars().next().expect("a character starts here");
            if c.is_alphanumeric() {
                for lower in c.to_lowercase() {
                    hash = hash_unit(hash, u32::from(lower));
                }
            }
            (c.is_alphanumeric(), at + c.len_utf8())
        };
        if is_word {
            start.get_or_insert(at);
        } else if let Some(word_start) = start.take() {
            each(finish(hash), to_u32(word_start), to_u32(at));
            hash = HASH_START;
        }
        at = next;
    }
    if let Some(word_start) = start {
        each(finish(hash), to_u32(word_start), to_u32(text.len()));
    }
}

/// A byte offset of a text the caller has checked is below 4 GiB.
fn to_u32(offset: usize) -> u32 {
    u32::try_from(offset).expect("texts are limited to fewer than 2^32 bytes")
}

/// The words of `text` whose hash `is_stopword` does not take, in order.
/// (A predicate, not the stopword table: the table is built from this
/// module's [`word_hash`], so this module does not depend on it.)
pub(crate) fn content_words(text: &str, is_stopword: impl Fn(u64) -> bool) -> Vec<Word> {
    let mut words = Vec::with_capacity(text.len() / 8);
    for_each_word(text, |hash, start, end| {
        if !is_stopword(hash) {
            words.push(Word { hash, start, end });
        }
    });
    words
}

/// The number of words of `text`, stopwords included.
pub(crate) fn count(text: &str) -> usize {
    let mut count = 0;
    for_each_word(text, |_, _, _| count += 1);
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&str> {
        content_words(text, |_| false).iter().map(|w| &text[w.start as usize..w.end as usize]).collect()
    }

    #[test]
    fn words_are_alphanumeric_runs_with_their_byte_ranges() {
        assert_eq!(words("Héllo, wörld! 42x  _a-b"), ["Héllo", "wörld", "42x", "a", "b"]);
        assert_eq!(words(""), Vec::<&str>::new());
        assert_eq!(words("…"), Vec::<&str>::new());
        assert_eq!(words("漢字 テスト"), ["漢字", "テスト"]);
        assert_eq!(count("Héllo, wörld! 42x  _a-b"), 5);
    }

    #[test]
    fn case_does_not_change_a_words_hash() {
        let upper = content_words("ÉCOLE Straße", |_| false);
        let lower = content_words("école straße", |_| false);
        assert_eq!(
            upper.iter().map(|w| w.hash).collect::<Vec<_>>(),
            lower.iter().map(|w| w.hash).collect::<Vec<_>>()
        );
        assert_eq!(upper[0].hash, word_hash("école"));
        assert_ne!(upper[0].hash, upper[1].hash);
    }
}
