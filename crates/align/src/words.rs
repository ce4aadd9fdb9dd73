//! Words of a text with where they are: maximal runs of alphanumeric
//! characters (Unicode's `Alphabetic` or `Numeric`) and combining marks,
//! compared lowercased,
//! each kept as a 64-bit hash and the byte range it covers in the original
//! text. Nothing is copied or normalized in place, so every position maps
//! back to the text the caller gave.
//!
//! Letters of scripts written without spaces (Chinese, Japanese, Thai…:
//! [`priorart_fingerprint::is_unspaced`]) are words one by one, with the
//! marks after them ([`priorart_fingerprint::unspaced_characters`]), so
//! that a run of a clause is not one word. Not simhash-doc-v2's bigrams:
//! the seeds are pairs of neighbouring words in any order, and pairs of
//! characters survive shuffled and replaced characters where pairs of
//! bigrams do not (on Chinese and Japanese passages, obfuscated plagdet
//! 0.99 against 0.67; BENCHMARKS.md).

/// One content word (not a stopword): its hash and byte range. Plain
/// data in a fixed layout, so that a prepared text holds its words in the
/// one block of its arrays (`marked.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
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
        chars::each_lower(c, |lower| hash = hash_unit(hash, u32::from(lower)));
    }
    finish(hash)
}

use crate::chars;
use priorart_fingerprint::Piece;

/// Calls `each` with every word of `text` (hash, byte start, byte end).
/// The text is at most `u32::MAX` bytes long (the caller's limit). ASCII
/// bytes are classified and folded one by one; a non-ASCII character is
/// decoded and looked up ([`chars`]: alphanumeric, lowercase).
///
/// A word at a time: the bytes between words are skipped, then a word's
/// bytes are hashed in a loop of their own, which keeps the hash in a
/// register (folded in one byte at a time by a closure, it went through
/// memory at every byte). Winnowing a text took 30 % less time
/// (BENCHMARKS.md, stop 50).
fn for_each_word(text: &str, mut each: impl FnMut(u64, u32, u32)) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // Between words.
        let (is_word, next, first_hash) = unit(text, at, HASH_START);
        if !is_word {
            at = next;
            continue;
        }
        let start = at;
        let mut hash = first_hash;
        // Runs without a character from U+0800 up hold no unspaced letter.
        let mut wide = bytes[at] >= priorart_fingerprint::WIDE_LEAD;
        at = next;
        while at < bytes.len() {
            let byte = bytes[at];
            if byte.is_ascii_alphanumeric() {
                hash = hash_unit(hash, u32::from(byte.to_ascii_lowercase()));
                at += 1;
            } else if byte.is_ascii() {
                break;
            } else {
                let (is_word, next, hashed) = wide_unit(text, at, hash);
                if !is_word {
                    break;
                }
                wide |= byte >= priorart_fingerprint::WIDE_LEAD;
                (hash, at) = (hashed, next);
            }
        }
        run(text, start, at, finish(hash), wide, &mut each);
    }
}

/// The character of `text` at byte `at`: whether it is a word character,
/// where the next starts, and `hash` with it (lowercased) when it is.
#[inline]
fn unit(text: &str, at: usize, hash: u64) -> (bool, usize, u64) {
    let byte = text.as_bytes()[at];
    if byte.is_ascii_alphanumeric() {
        (true, at + 1, hash_unit(hash, u32::from(byte.to_ascii_lowercase())))
    } else if byte.is_ascii() {
        (false, at + 1, hash)
    } else {
        wide_unit(text, at, hash)
    }
}

/// [`unit`] for a character beyond ASCII. Not inlined: the loops over
/// ASCII bytes keep their hash in a register.
#[inline(never)]
fn wide_unit(text: &str, at: usize, mut hash: u64) -> (bool, usize, u64) {
    let c = text[at..].chars().next().expect("a character starts here");
    let is_word = chars::is_word(c);
    if is_word {
        chars::each_lower(c, |lower| hash = hash_unit(hash, u32::from(lower)));
    }
    (is_word, at + c.len_utf8(), hash)
}

/// Reports the run `start..end` of word characters (whose hash is
/// `hash`): whole, or, when it holds unspaced letters, cut into them and
/// the stretches between them.
fn run(text: &str, start: usize, end: usize, hash: u64, wide: bool, each: &mut impl FnMut(u64, u32, u32)) {
    if !wide || !text[start..end].chars().any(chars::is_unspaced) {
        return each(hash, to_u32(start), to_u32(end));
    }
    let word = &text[start..end];
    priorart_fingerprint::unspaced_characters(word, |piece| {
        let (Piece::Spaced(range) | Piece::Unspaced(range)) = piece;
        each(word_hash(&word[range.clone()]), to_u32(start + range.start), to_u32(start + range.end));
    });
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

/// [`content_words`], and for each the half-words ([`halves`]) of the
/// words before it, stopwords included: the [`count`] of the text from
/// one content word to another is then a subtraction (`MarkedText`).
pub(crate) fn counted_content_words(text: &str, is_stopword: impl Fn(u64) -> bool) -> (Vec<Word>, Vec<u32>) {
    let mut words = Vec::with_capacity(text.len() / 8);
    let mut halves_before = Vec::with_capacity(text.len() / 8);
    let mut halves_so_far = 0u32;
    for_each_word(text, |hash, start, end| {
        if !is_stopword(hash) {
            words.push(Word { hash, start, end });
            halves_before.push(halves_so_far);
        }
        // Texts are under the aligner's 64 MiB: two halves a byte fit.
        halves_so_far += halves(text, start);
    });
    (words, halves_before)
}

/// The number of words of `text`, stopwords included, two letters of a
/// script written without spaces counting one word (about the length of
/// a Chinese or Japanese word, as [`priorart_fingerprint::count_words`]
/// counts them), so that a passage of 50 words is about as much text in
/// every script: counted one by one, 50 such letters are a sentence or two.
pub(crate) fn count(text: &str) -> usize {
    let mut counted = 0usize;
    for_each_word(text, |_, start, _| counted += halves(text, start) as usize);
    counted.div_ceil(2)
}

/// The word of `text` starting at byte `start` in halves of a [`count`]ed
/// word: 1 for a letter of a script written without spaces, 2 for any
/// other word (so that the count is the halves over two, rounded up).
pub(crate) fn halves(text: &str, start: u32) -> u32 {
    if is_unspaced_letter(text, start) { 1 } else { 2 }
}

/// Whether the word of `text` starting at byte `start` is a letter of a
/// script written without spaces (such words are one letter each, with
/// its marks).
pub(crate) fn is_unspaced_letter(text: &str, start: u32) -> bool {
    let start = start as usize;
    text.as_bytes()[start] >= priorart_fingerprint::WIDE_LEAD
        && text[start..].chars().next().is_some_and(chars::is_unspaced)
}

/// A random text of up to `most` pieces (tests): words of several
/// scripts, digits, spaces, punctuation, combining marks and characters
/// beyond the Basic Multilingual Plane.
#[cfg(test)]
pub(crate) fn random_text(rng: &mut fastrand::Rng, most: usize) -> String {
    let pieces = [
        "alpha",
        "The",
        "Ünïcödé",
        "漢字",
        "テスト",
        "42",
        ", ",
        " ",
        "\n",
        "ไม่ใช่",
        "—",
        "漢字abc",
        "e\u{301}",
        "x漢",
        "ǅ",
        "İ",
        "ß",
        "Ωmega",
        "\u{10400}",
        "🙂",
        "_",
        "a\u{300}\u{301}b",
    ];
    (0..rng.usize(0..most)).map(|_| pieces[rng.usize(0..pieces.len())]).collect()
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
        assert_eq!(words("漢字 テスト"), ["漢", "字", "テ", "ス", "ト"]);
        assert_eq!(count("漢字 テスト"), 3, "two unspaced letters a word, rounded up");
        assert_eq!(count("漢字 tests 42 テスト"), 5);
        assert_eq!(count("Héllo, wörld! 42x  _a-b"), 5);
    }

    #[test]
    fn unspaced_scripts_are_cut_into_characters_with_their_ranges() {
        assert_eq!(words("但它也常常"), ["但", "它", "也", "常", "常"]);
        assert_eq!(words("Debian的apt工具"), ["Debian", "的", "apt", "工", "具"]);
        // Thai: each mark (tone marks are not Alphabetic) rides on its letter.
        assert_eq!(words("ไม่ใช่"), ["ไ", "ม่", "ใ", "ช่"]);
    }

    /// The words of `text` found character by character: maximal runs of
    /// word characters, each hashed lowercased, then cut as [`run`] cuts.
    fn words_one_character_at_a_time(text: &str) -> Vec<(u64, u32, u32)> {
        let mut found = Vec::new();
        let mut each = |hash, start, end| found.push((hash, start, end));
        let mut current: Option<(usize, u64, bool)> = None;
        for (at, c) in text.char_indices() {
            if c.is_ascii_alphanumeric() || (!c.is_ascii() && chars::is_word(c)) {
                let (start, mut hash, wide) = current.unwrap_or((at, HASH_START, false));
                chars::each_lower(c, |lower| hash = hash_unit(hash, u32::from(lower)));
                current = Some((start, hash, wide || u32::from(c) >= 0x800));
            } else if let Some((start, hash, wide)) = current.take() {
                run(text, start, at, finish(hash), wide, &mut each);
            }
        }
        if let Some((start, hash, wide)) = current {
            run(text, start, text.len(), finish(hash), wide, &mut each);
        }
        found
    }

    #[test]
    fn words_are_found_as_character_by_character() {
        let mut rng = fastrand::Rng::with_seed(50);
        for _ in 0..2_000 {
            let text = random_text(&mut rng, 60);
            let mut found = Vec::new();
            for_each_word(&text, |hash, start, end| found.push((hash, start, end)));
            assert_eq!(found, words_one_character_at_a_time(&text), "{text:?}");
        }
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
