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
}

impl Stopwords {
    /// The English list.
    pub(crate) fn english() -> Stopwords {
        let mut sorted: Vec<u64> = ENGLISH.iter().map(|word| word_hash(word)).collect();
        sorted.sort_unstable();
        sorted.dedup();
        Stopwords { sorted }
    }

    /// No stopwords: every word is a content word.
    pub(crate) fn none() -> Stopwords {
        Stopwords { sorted: Vec::new() }
    }

    /// Whether this is the English list (the other is empty).
    pub(crate) fn is_english(&self) -> bool {
        !self.sorted.is_empty()
    }

    pub(crate) fn contains(&self, hash: u64) -> bool {
        self.sorted.binary_search(&hash).is_ok()
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
}
