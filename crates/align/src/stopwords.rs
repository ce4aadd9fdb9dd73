//! Words too common to locate a passage by. Two texts share "of the" and
//! "it is" everywhere; seeds made of them would glue unrelated stretches
//! together. Seeds are made of the remaining (content) words, the common
//! practice of PAN text-alignment systems. The list is English (most of
//! priorart's documentation corpus); in another language every word is a
//! content word and the frequency cap on seed keys does the same job.

use crate::words::word_hash;

/// English function words (articles, pronouns, auxiliaries, prepositions,
/// conjunctions): short, frequent, and meaningless alone.
const ENGLISH: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is", "it",
    "its", "itself", "just", "may", "me", "might", "more", "most", "must", "my", "no", "nor", "not", "now",
    "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "shall",
    "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we",
    "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
    "your", "yours",
];

/// A set of word hashes left out of seeds.
#[derive(Debug, Clone)]
pub(crate) struct Stopwords {
    sorted: Vec<u64>,
    /// Bit `hash % FILTER_BITS` of each stopword's hash: every word of a
    /// text is looked up, and most are not stopwords, so most lookups end
    /// on one bit instead of a binary search (on the Debian corpus, that
    /// search was about a tenth of the time spent winnowing its texts).
    filter: [u64; FILTER_BITS / 64],
}

/// Bits of [`Stopwords::filter`]: about 1 in 30 set for the English list.
const FILTER_BITS: usize = 4096;

impl Stopwords {
    /// The English list.
    pub(crate) fn english() -> Stopwords {
        let mut sorted: Vec<u64> = ENGLISH.iter().map(|word| word_hash(word)).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut filter = [0u64; FILTER_BITS / 64];
        for &hash in &sorted {
            let bit = hash as usize % FILTER_BITS;
            filter[bit / 64] |= 1 << (bit % 64);
        }
        Stopwords { sorted, filter }
    }

    /// No stopwords: every word is a content word.
    pub(crate) fn none() -> Stopwords {
        Stopwords { sorted: Vec::new(), filter: [0; FILTER_BITS / 64] }
    }

    /// Whether this is the English list (the other is empty).
    pub(crate) fn is_english(&self) -> bool {
        !self.sorted.is_empty()
    }

    pub(crate) fn contains(&self, hash: u64) -> bool {
        let bit = hash as usize % FILTER_BITS;
        self.filter[bit / 64] >> (bit % 64) & 1 == 1 && self.sorted.binary_search(&hash).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::content_words;

    #[test]
    fn stopwords_are_left_out() {
        let text = "The cat and THE dog";
        let english = Stopwords::english();
        let kept: Vec<_> = content_words(text, |hash| english.contains(hash))
            .iter()
            .map(|w| &text[w.start as usize..w.end as usize])
            .collect();
        assert_eq!(kept, ["cat", "dog"]);
    }

    #[test]
    fn the_filter_answers_as_the_list() {
        let english = Stopwords::english();
        let listed = |hash: u64| english.sorted.binary_search(&hash).is_ok();
        assert!(ENGLISH.iter().all(|word| english.contains(word_hash(word))));
        let mut rng = fastrand::Rng::with_seed(5);
        for hash in (0..100_000).map(|_| rng.u64(..)).chain(["cat", "dog", "theirs2"].map(word_hash)) {
            assert_eq!(english.contains(hash), listed(hash), "{hash:x}");
            assert!(!Stopwords::none().contains(hash));
        }
    }
}
