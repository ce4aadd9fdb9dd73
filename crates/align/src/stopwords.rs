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

/// A set of word hashes left out of seeds, in an open-addressing table.
/// Every word of every text is looked up (twice in a passage search), and
/// about two in five English words are stopwords; with a sorted list,
/// each of those ended in a binary search, a chain of dependent loads
/// (BENCHMARKS.md, stop 50).
#[derive(Debug, Clone)]
pub(crate) struct Stopwords {
    /// Each stopword's hash in the first free slot from its top bits on;
    /// 0 in a free slot.
    slots: Box<[u64; SLOTS]>,
    listed: usize,
}

/// Slots of [`Stopwords::slots`]: 8 KB, about 1 in 8 taken by the
/// English list, so that a lookup nearly always ends at its first slot.
const SLOTS: usize = 1024;

impl Stopwords {
    /// The English list.
    pub(crate) fn english() -> Stopwords {
        let mut stopwords = Stopwords::none();
        for word in ENGLISH {
            stopwords.insert(word_hash(word));
        }
        stopwords
    }

    /// No stopwords: every word is a content word.
    pub(crate) fn none() -> Stopwords {
        Stopwords { slots: Box::new([0; SLOTS]), listed: 0 }
    }

    /// Whether this is the English list (the other is empty).
    pub(crate) fn is_english(&self) -> bool {
        self.listed > 0
    }

    fn insert(&mut self, hash: u64) {
        assert_ne!(hash, 0, "0 marks a free slot");
        let mut at = first_slot(hash);
        while self.slots[at] != 0 && self.slots[at] != hash {
            at = (at + 1) % SLOTS;
        }
        if self.slots[at] == 0 {
            self.slots[at] = hash;
            self.listed += 1;
        }
    }

    pub(crate) fn contains(&self, hash: u64) -> bool {
        let mut at = first_slot(hash);
        loop {
            match self.slots[at] {
                // A free slot holds 0, which is no stopword's hash.
                slot if slot == hash => return hash != 0,
                0 => return false,
                _ => at = (at + 1) % SLOTS,
            }
        }
    }
}

/// Where the search for `hash` starts: its top bits (word hashes are
/// mixed, [`crate::words`]).
fn first_slot(hash: u64) -> usize {
    (hash >> (64 - SLOTS.trailing_zeros())) as usize
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
    fn the_table_answers_as_the_list() {
        let english = Stopwords::english();
        let hashes: Vec<u64> = ENGLISH.iter().map(|word| word_hash(word)).collect();
        let listed = |hash: u64| hashes.contains(&hash);
        assert_eq!(english.listed, ENGLISH.len());
        assert!(hashes.iter().all(|&hash| english.contains(hash)));
        let mut rng = fastrand::Rng::with_seed(5);
        // Random hashes, hashes starting at the list's slots, 0 (a free
        // slot's value) and real words.
        let near = hashes.iter().map(|hash| hash ^ 1).collect::<Vec<_>>();
        let words = ["cat", "dog", "theirs2"].map(word_hash);
        let tried = (0..100_000).map(|_| rng.u64(..)).chain(near).chain([0]).chain(words);
        for hash in tried {
            assert_eq!(english.contains(hash), listed(hash), "{hash:x}");
            assert!(!Stopwords::none().contains(hash));
        }
    }
}
