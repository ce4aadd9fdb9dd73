//! Word shingles: the set of every run of [`SHINGLE_WORDS`] consecutive
//! words of a text, each kept as a 64-bit hash, and the Jaccard similarity
//! of two such sets. How a text is cut into words is a [`Shingling`]:
//! lowercased `\w+` runs ([`Shingling::Words`], the words of other dedup
//! tools and of the usual ground truths) or simhash-doc's tokens
//! ([`Shingling::Tokens`]: normalized, identifiers and numbers dropped).
//!
//! This is the measured overlap behind a verdict: two texts can share an
//! `X` (minhash-equality-v1 keeps only a few low-hashing words) or sit
//! within a few bits of simhash-doc and still share almost no wording. The
//! share of common word 5-grams says which.

use crate::jenkins::hashlittle2;
use crate::segment::{Pieces, Segmenter, TokenRule};
use crate::simhash_tokens::Scanner;
use crate::sink::Sink;
use std::fmt;
use std::str::FromStr;

/// Words per shingle (word 5-grams, the usual near-duplicate measure).
pub const SHINGLE_WORDS: usize = 5;

/// How a text is cut into the words its shingles are made of: `\w+` words
/// or simhash-doc's tokens, each under a [`TokenRule`] (how scripts written
/// without spaces are cut). The v1 shinglings are those of indexes built
/// before simhash-doc-v2; they are kept so that such an index is still
/// read and added to as it was built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Shingling {
    /// Every maximal run of word characters of the lowercased text: what
    /// Python's `re.findall(r"\w+", text.lower())` finds (letters and
    /// numbers of every script, and `_`), so numbers, identifiers and
    /// URL parts are words too; marks stay inside words, and letters of
    /// scripts written without spaces are cut into character bigrams
    /// ([`TokenRule::V2`]). The word 5-grams of datasketch, gaoya and
    /// text-dedup, and of the ground truth of `scripts/eval/dedup-quality.py`;
    /// on the Debian corpus, the shingling whose verified pairs agree best
    /// with that ground truth (BENCHMARKS.md), hence the default.
    #[default]
    Words,
    /// simhash-doc-v2's tokens (`docs/simhash-doc-v2.md`): normalized,
    /// case-folded, URLs, identifiers and numbers dropped, unspaced
    /// scripts as character bigrams.
    Tokens,
    /// [`Shingling::Words`] with Python's `\w` exactly (a mark ends a
    /// word) and clauses of unspaced scripts whole ([`TokenRule::V1`]).
    WordsV1,
    /// simhash-doc's tokens (`docs/simhash-doc.md`): the shingling of
    /// indexes built before `--shingles` existed.
    TokensV1,
}

impl Shingling {
    /// Every shingling, the default first.
    pub const ALL: [Shingling; 4] =
        [Shingling::Words, Shingling::Tokens, Shingling::WordsV1, Shingling::TokensV1];

    /// Its name on the command line and in an index's manifest.
    pub const fn name(self) -> &'static str {
        match self {
            Shingling::Words => "words",
            Shingling::Tokens => "tokens",
            Shingling::WordsV1 => "words-v1",
            Shingling::TokensV1 => "tokens-v1",
        }
    }

    /// How its words of unspaced scripts are cut; an index's simhash-doc
    /// values are of the same rule ([`TokenRule::simhash_scheme`]).
    pub const fn token_rule(self) -> TokenRule {
        match self {
            Shingling::Words | Shingling::Tokens => TokenRule::V2,
            Shingling::WordsV1 | Shingling::TokensV1 => TokenRule::V1,
        }
    }

    /// The same words under `rule`.
    pub const fn with_rule(self, rule: TokenRule) -> Shingling {
        match (self, rule) {
            (Shingling::Words | Shingling::WordsV1, TokenRule::V2) => Shingling::Words,
            (Shingling::Words | Shingling::WordsV1, TokenRule::V1) => Shingling::WordsV1,
            (Shingling::Tokens | Shingling::TokensV1, TokenRule::V2) => Shingling::Tokens,
            (Shingling::Tokens | Shingling::TokensV1, TokenRule::V1) => Shingling::TokensV1,
        }
    }
}

impl fmt::Display for Shingling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a [`Shingling`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown shingling {0:?}: expected words, tokens, words-v1 or tokens-v1")]
pub struct UnknownShingling(pub String);

impl UnknownShingling {
    /// The stable snake_case name of this error.
    pub fn reason(&self) -> &'static str {
        "unknown_shingling"
    }
}

impl FromStr for Shingling {
    type Err = UnknownShingling;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Shingling::ALL.into_iter().find(|s| s.name() == name).ok_or_else(|| UnknownShingling(name.to_owned()))
    }
}

/// The distinct word-shingle hashes of a text, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordShingles {
    hashes: Vec<u64>,
}

impl WordShingles {
    /// The shingles of `text` cut into words by `shingling`. A text of
    /// fewer than [`SHINGLE_WORDS`] words has one shingle of all of them; a
    /// text without words none.
    pub fn of(text: &str, shingling: Shingling) -> WordShingles {
        let mut words = WordHashes(Vec::new());
        let rule = shingling.token_rule();
        match shingling {
            Shingling::Words | Shingling::WordsV1 => lowercase_words(text, rule, &mut words),
            Shingling::Tokens | Shingling::TokensV1 => Scanner::default().scan(text, rule, &mut words),
        }
        let words = words.0;
        let width = SHINGLE_WORDS.min(words.len());
        let mut hashes: Vec<u64> =
            if width == 0 { Vec::new() } else { words.windows(width).map(combine).collect() };
        hashes.sort_unstable();
        hashes.dedup();
        WordShingles { hashes }
    }

    /// The shingle hashes, sorted and distinct: the first `k` are a
    /// bottom-k sketch of the set.
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    /// How many distinct shingles.
    pub fn len(&self) -> usize {
        self.hashes.len()
    }

    /// Whether there is none (a text without word tokens).
    pub fn is_empty(&self) -> bool {
        self.hashes.is_empty()
    }

    /// |A ∩ B| / |A ∪ B|; two empty sets are identical (1.0).
    pub fn jaccard(&self, other: &WordShingles) -> f64 {
        let common = shared_hashes(&self.hashes, &other.hashes);
        let union = self.hashes.len() + other.hashes.len() - common;
        if union == 0 { 1.0 } else { common as f64 / union as f64 }
    }
}

/// How many hashes two sorted lists of distinct hashes share: the
/// intersection of two shingle sets, or of two sketches of them, in one
/// merge pass.
pub fn shared_hashes(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

/// One 64-bit hash per word (lookup3, as simhash-doc hashes tokens).
struct WordHashes(Vec<u64>);

impl Sink for WordHashes {
    fn token(&mut self, token: &[u8]) {
        self.0.push(hashlittle2(token, 0, 0).feature());
    }
}

/// Reports each `\w+` run of the lowercased `text` to `sink`, as Python's
/// `re.findall(r"\w+", text.lower())` finds them: the text is lowercased
/// first (full case mapping, Final_Sigma: `İ` becomes `i` and a combining
/// dot, which ends the word), then cut at every character that is not a
/// letter, a number or `_` ([`crate::unicode::is_word`]). ASCII text is
/// lowered and cut byte by byte, without a copy of the whole text.
///
/// Under [`TokenRule::V2`], marks (Mn, Mc) are word characters too, and the
/// words are then cut as simhash-doc-v2 cuts its runs (unspaced letters
/// into character bigrams); numbers stay words.
fn lowercase_words(text: &str, rule: TokenRule, sink: &mut impl Sink) {
    if text.is_ascii() {
        let mut word = Vec::new();
        for &byte in text.as_bytes() {
            if byte.is_ascii_alphanumeric() || byte == b'_' {
                word.push(byte.to_ascii_lowercase());
            } else if !word.is_empty() {
                sink.token(&word);
                word.clear();
            }
        }
        if !word.is_empty() {
            sink.token(&word);
        }
        return;
    }
    let lowered = text.to_lowercase();
    let is_word = |c: char| match rule {
        TokenRule::V1 => crate::unicode::is_word(c),
        TokenRule::V2 => crate::unicode::is_word(c) || crate::unicode::is_mark(c),
    };
    let sink = &mut Segmenter { inner: sink, rule, pieces: Pieces::All };
    for word in lowered.split(|c: char| !is_word(c)).filter(|word| !word.is_empty()) {
        sink.token(word.as_bytes());
    }
}

/// The hash of a run of token hashes: order matters (a multiply-rotate
/// chain; 64 bits, so collisions among a document's shingles are negligible).
fn combine(window: &[u64]) -> u64 {
    window.iter().fold(0x9E37_79B9_7F4A_7C15u64, |hash, &token| {
        (hash.rotate_left(23) ^ token).wrapping_mul(0xD6E8_FEB8_6659_FD93)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_of_simhash_doc_token_five_grams() {
        let of = |text| WordShingles::of(text, Shingling::Tokens);
        let a = of("one two three four five six");
        let b = of("ONE two three four five seven");
        // a: {1-5, 2-6}; b: {1-5, 2-seven}: one shared of three.
        assert_eq!((a.len(), b.len()), (2, 2));
        assert!((a.jaccard(&b) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.jaccard(&a), 1.0);
        // Order matters; identifiers and numbers are not words.
        let reordered = of("six five four three two one");
        assert_eq!(a.jaccard(&reordered), 0.0);
        let with_noise = of("one two https://example.org three 42 four five six");
        assert_eq!(a.jaccard(&with_noise), 1.0);
        // Short and empty texts.
        assert_eq!(of("just three words").len(), 1);
        assert_eq!(of("").jaccard(&of("  ")), 1.0);
        assert_eq!(of("").jaccard(&a), 0.0);
    }

    #[test]
    fn jaccard_of_lowercased_word_five_grams() {
        let of = |text| WordShingles::of(text, Shingling::Words);
        let a = of("one two three four five six");
        assert_eq!(a, of("ONE, two; Three -- four. five (six)"), "case and punctuation do not count");
        // Numbers, underscores and the parts of a URL are words.
        let with_noise = of("one two https://example.org three 42 four five six");
        assert_eq!(with_noise.len(), 6, "one two https example org three 42 four five six");
        assert!(a.jaccard(&with_noise) < 0.5);
        assert_eq!(of("snake_case words").len(), 1);
        assert_ne!(of("a b c d e"), of("a b c d e_f"));
        // Non-ASCII letters and numbers.
        assert_eq!(of("ΟΔΟΣ ΚΑΙ ΔΡΟΜΟΣ"), of("οδος και δρομος"), "final sigma");
        assert_eq!(of("straße ٣ 東京"), of("STRAẞE ٣ 東京"));
        assert_ne!(of("straße ٣ 東京"), of("straße 東京"), "an Arabic-Indic digit is a word");
        assert_eq!(of("").jaccard(&of(" ... ")), 1.0);
        // A mark is part of its word in v2, and ends it in v1 (Python's `\w`).
        let v1 = |text| WordShingles::of(text, Shingling::WordsV1);
        assert_eq!(v1("cafe\u{301}s x"), v1("cafe s x"), "é as e and a mark: two words");
        assert_ne!(of("cafe\u{301}s x"), of("cafe s x"));
        assert_ne!(of("cafe\u{301}s x"), of("cafés x"));
    }

    #[test]
    fn one_changed_character_of_chinese_changes_few_shingles_in_v2() {
        let text = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。";
        let edited = text.replacen('某', "一", 1);
        for shingling in Shingling::ALL {
            let (original, copy) = (WordShingles::of(text, shingling), WordShingles::of(&edited, shingling));
            match shingling.token_rule() {
                TokenRule::V2 => assert!(original.jaccard(&copy) > 0.5, "{shingling}"),
                // In v1 the clause is one word: the two texts share nothing.
                TokenRule::V1 => assert_eq!(original.jaccard(&copy), 0.0, "{shingling}"),
            }
        }
    }

    #[test]
    fn shinglings_by_name() {
        for shingling in Shingling::ALL {
            assert_eq!(shingling.name().parse::<Shingling>(), Ok(shingling));
        }
        assert_eq!(Shingling::default(), Shingling::Words);
        assert_eq!("bytes".parse::<Shingling>().unwrap_err().reason(), "unknown_shingling");
    }
}
