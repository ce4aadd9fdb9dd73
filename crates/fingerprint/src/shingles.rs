//! Word shingles: the set of every run of [`SHINGLE_WORDS`] consecutive word
//! tokens of a text (simhash-doc's tokens: normalized, case-folded,
//! identifiers and numbers dropped), each kept as a 64-bit hash, and the
//! Jaccard similarity of two such sets.
//!
//! This is the measured overlap behind a verdict: two texts can share an
//! `X` (minhash-equality-v1 keeps only a few low-hashing words) or sit
//! within a few bits of simhash-doc and still share almost no wording. The
//! share of common word 5-grams says which.

use crate::jenkins::hashlittle2;
use crate::simhash_tokens::{Scanner, Sink};

/// Words per shingle (word 5-grams, the usual near-duplicate measure).
pub const SHINGLE_WORDS: usize = 5;

/// The distinct word-shingle hashes of a text, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordShingles {
    hashes: Vec<u64>,
}

impl WordShingles {
    /// The shingles of `text`. A text of fewer than [`SHINGLE_WORDS`]
    /// tokens has one shingle of all of them; a text without tokens none.
    pub fn of(text: &str) -> WordShingles {
        let mut tokens = TokenHashes(Vec::new());
        Scanner::default().scan(text, &mut tokens);
        let tokens = tokens.0;
        let width = SHINGLE_WORDS.min(tokens.len());
        let mut hashes: Vec<u64> =
            if width == 0 { Vec::new() } else { tokens.windows(width).map(combine).collect() };
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
        let (mut i, mut j, mut common) = (0, 0, 0usize);
        while i < self.hashes.len() && j < other.hashes.len() {
            match self.hashes[i].cmp(&other.hashes[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    common += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        let union = self.hashes.len() + other.hashes.len() - common;
        if union == 0 { 1.0 } else { common as f64 / union as f64 }
    }
}

/// One 64-bit hash per token (lookup3, as simhash-doc hashes tokens).
struct TokenHashes(Vec<u64>);

impl Sink for TokenHashes {
    fn token(&mut self, token: &[u8]) {
        self.0.push(hashlittle2(token, 0, 0).feature());
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
    fn jaccard_of_word_five_grams() {
        let a = WordShingles::of("one two three four five six");
        let b = WordShingles::of("ONE two three four five seven");
        // a: {1-5, 2-6}; b: {1-5, 2-seven}: one shared of three.
        assert_eq!((a.len(), b.len()), (2, 2));
        assert!((a.jaccard(&b) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.jaccard(&a), 1.0);
        // Order matters; identifiers and numbers are not words.
        let reordered = WordShingles::of("six five four three two one");
        assert_eq!(a.jaccard(&reordered), 0.0);
        let with_noise = WordShingles::of("one two https://example.org three 42 four five six");
        assert_eq!(a.jaccard(&with_noise), 1.0);
        // Short and empty texts.
        assert_eq!(WordShingles::of("just three words").len(), 1);
        assert_eq!(WordShingles::of("").jaccard(&WordShingles::of("  ")), 1.0);
        assert_eq!(WordShingles::of("").jaccard(&a), 0.0);
    }
}
