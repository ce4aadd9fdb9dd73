//! Winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003, the algorithm
//! behind MOSS): a few hashes per document such that any passage two
//! documents share is very likely to share one of them, so a collection's
//! candidate pairs are found by joining hashes instead of aligning every
//! pair.
//!
//! A document's k-grams are its runs of [`Winnowing::k`] consecutive
//! content words (the aligner's words: [`crate::Aligner`] cuts and folds
//! them the same way, stopwords left out), each hashed *sorted*, as the
//! aligner's seeds are, so words shuffled inside a k-gram keep its hash.
//! Letters of scripts written without spaces (Chinese, Japanese, Thai…),
//! which the aligner takes one by one, count two to a word, as
//! [`crate::word_count`] counts them ([`UnspacedLetters::TwoToAWord`]): a
//! k-gram of Japanese is six letters, not three, which hundreds of pages
//! share (with three, the marks of a Japanese passage were mostly
//! boilerplate, and planted Japanese passages were missed).
//! Of every window of [`Winnowing::w`] consecutive k-gram hashes the
//! smallest is kept (the rightmost of equals), once per position. The
//! guarantee: two texts sharing a run of at least `w + k - 1` content
//! words share a kept hash; a passage with a word replaced every so often
//! still shares the hashes of its unchanged stretches. About `2 / (w + 1)`
//! of the k-grams are kept.

use crate::seeds::{KeyHasher, index};
use crate::stopwords::Stopwords;
use crate::words::{self, Word};
use crate::{AlignError, MAX_SEED_WORDS, MAX_TEXT_BYTES, Side, seeds};
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// The most words per window.
pub const MAX_WINDOW: usize = 1024;

/// A kept hash and where its k-gram is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// The k-gram's hash (its words sorted, so their order does not count).
    pub hash: u64,
    /// The index of its first word among the document's content words.
    pub word: u32,
    /// The byte offset of its first word.
    pub start: u32,
    /// The byte offset just past its last word.
    pub end: u32,
}

/// How documents are winnowed.
#[derive(Debug, Clone)]
pub struct Winnowing {
    k: usize,
    w: usize,
    stopwords: Stopwords,
    letters: UnspacedLetters,
}

/// How letters of scripts written without spaces count in a k-gram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnspacedLetters {
    /// Two to a word, as [`crate::word_count`] counts them: a k-gram holds
    /// up to `2k` of them. The default.
    TwoToAWord,
    /// One word each: how passage marks were winnowed before 2026-11-29
    /// (an index built then records none, and its texts are winnowed
    /// this way to meet its marks).
    OneWordEach,
}

impl Winnowing {
    /// Content words per k-gram: 3, measured with [`Winnowing::DEFAULT_W`]
    /// on passages with one word in ten replaced (BENCHMARKS.md).
    pub const DEFAULT_K: usize = 3;
    /// Hashes per window: 4, so any shared run of 6 content words shares a
    /// kept hash, and about 2 in 5 k-grams are kept.
    pub const DEFAULT_W: usize = 4;

    /// Winnowing of `k`-grams (1 to [`MAX_SEED_WORDS`]) in windows of `w`
    /// hashes (1 to [`MAX_WINDOW`]), English stopwords left out when
    /// `english_stopwords`.
    pub fn new(k: usize, w: usize, english_stopwords: bool) -> Result<Winnowing, AlignError> {
        if !(1..=MAX_SEED_WORDS).contains(&k) {
            return Err(AlignError::BadParameter(format!("k is {k}, not 1 to {MAX_SEED_WORDS}")));
        }
        if !(1..=MAX_WINDOW).contains(&w) {
            return Err(AlignError::BadParameter(format!("w is {w}, not 1 to {MAX_WINDOW}")));
        }
        let stopwords = if english_stopwords { Stopwords::english() } else { Stopwords::none() };
        Ok(Winnowing { k, w, stopwords, letters: UnspacedLetters::TwoToAWord })
    }

    /// The same winnowing with unspaced letters counted as `letters` says.
    pub fn with_unspaced_letters(self, letters: UnspacedLetters) -> Winnowing {
        Winnowing { letters, ..self }
    }

    /// How unspaced letters count in a k-gram.
    pub fn unspaced_letters(&self) -> UnspacedLetters {
        self.letters
    }

    /// Whether English stopwords are left out of k-grams.
    pub fn leaves_out_english_stopwords(&self) -> bool {
        self.stopwords.is_english()
    }

    /// Content words per k-gram.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Hashes per window.
    pub fn w(&self) -> usize {
        self.w
    }

    /// The shortest run of shared content words sure to share a mark:
    /// `w + k - 1` (in a script written without spaces, `w - 1` letters
    /// and a k-gram's `2k`).
    pub fn guarantee(&self) -> usize {
        self.w + self.k - 1
    }

    /// The marks of `text`, in text order, each position once. A text of
    /// fewer than `k` content words has none; one of fewer than `w`
    /// k-grams keeps its smallest hash. Texts over [`MAX_TEXT_BYTES`] are
    /// refused, as the aligner refuses them.
    pub fn marks(&self, text: &str) -> Result<Vec<Mark>, AlignError> {
        if text.len() > MAX_TEXT_BYTES {
            return Err(AlignError::TextTooLarge { side: Side::A, bytes: text.len(), limit: MAX_TEXT_BYTES });
        }
        let content = words::content_words(text, |hash| self.stopwords.contains(hash));
        Ok(self.marks_of_words(text, &content))
    }

    /// The k-gram starting at each of `text`'s content words, for as long
    /// as the words left make one: its keys, and the index just past each
    /// one's last word.
    fn grams(&self, text: &str, content: &[Word]) -> (Vec<u64>, Vec<u32>) {
        // Weights in half words, so that an unspaced letter weighs one.
        let weight = |word: &Word| match self.letters {
            UnspacedLetters::TwoToAWord if words::is_unspaced_letter(text, word.start) => 1,
            _ => 2,
        };
        let (mut end, mut held) = (0, 0);
        let mut keys = Vec::with_capacity(content.len());
        let mut ends = Vec::with_capacity(content.len());
        for start in 0..content.len() {
            while held < 2 * self.k && end < content.len() {
                held += weight(&content[end]);
                end += 1;
            }
            if held < 2 * self.k {
                break;
            }
            keys.push(seeds::key(&content[start..end]));
            ends.push(index(end));
            held -= weight(&content[start]);
        }
        (keys, ends)
    }

    /// The marks of a text's content words (cut leaving out the stopwords
    /// this winnowing leaves out).
    pub(crate) fn marks_of_words(&self, text: &str, content: &[Word]) -> Vec<Mark> {
        let (hashes, ends) = self.grams(text, content);
        if hashes.is_empty() {
            return Vec::new();
        }
        let mark = |at: usize| Mark {
            hash: hashes[at],
            word: index(at),
            start: content[at].start,
            end: content[ends[at] as usize - 1].end,
        };
        let w = self.w.min(hashes.len());
        let mut kept = Vec::with_capacity(2 * hashes.len() / (w + 1) + 1);
        // The rightmost smallest hash of the window ending at `at`: a new
        // hash no larger takes its place; when it leaves the window, the
        // window is searched again (rarely: about once per `w` hashes of
        // a random text, and `w` is small).
        let mut smallest = 0;
        let mut last = None;
        for at in 0..hashes.len() {
            let first = (at + 1).saturating_sub(w);
            if smallest < first {
                smallest = (first..=at).rev().min_by_key(|&at| hashes[at]).expect("the window holds `at`");
            } else if hashes[at] <= hashes[smallest] {
                smallest = at;
            }
            if at + 1 >= w && last != Some(smallest) {
                kept.push(mark(smallest));
                last = Some(smallest);
            }
        }
        kept
    }
}

/// The share of the content words `a` that lie in a run of `k` of them
/// whose key (its words sorted) is also a run of `b`
/// ([`crate::MarkedText::coverage`]). A run equal word for word to `b`'s
/// at the same offset is found without its key; `b`'s keys go in a hash
/// set (they are mixed hashes already) at the first run that is not. A
/// verbatim passage never builds the set: on the generated corpus, where
/// most reported passages are verbatim, hashing both sides' runs was 6 %
/// of the search's time.
pub(crate) fn coverage(k: usize, a: &[Word], b: &[Word]) -> f64 {
    if a.len() < k || b.len() < k {
        return 0.0;
    }
    let mut keys: Option<HashSet<u64, BuildHasherDefault<KeyHasher>>> = None;
    let (mut covered, mut reach) = (0usize, 0usize);
    // Words in a row, up to the current one, equal to `b`'s at the same offset.
    let mut equal = 0;
    for (last, word) in a.iter().enumerate() {
        equal = if b.get(last).is_some_and(|other| other.hash == word.hash) { equal + 1 } else { 0 };
        let Some(at) = (last + 1).checked_sub(k) else { continue };
        let found = equal >= k
            || keys
                .get_or_insert_with(|| b.windows(k).map(seeds::key).collect())
                .contains(&seeds::key(&a[at..=last]));
        if found {
            covered += at + k - reach.max(at);
            reach = at + k;
        }
    }
    covered as f64 / a.len() as f64
}

impl Default for Winnowing {
    fn default() -> Winnowing {
        Winnowing::new(Winnowing::DEFAULT_K, Winnowing::DEFAULT_W, true).expect("the defaults are in range")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marks by brute force: the rightmost minimum of every window.
    fn brute(hashes: &[u64], w: usize) -> Vec<usize> {
        let w = w.min(hashes.len());
        let mut kept: Vec<usize> = Vec::new();
        for start in 0..=hashes.len() - w {
            let window = &hashes[start..start + w];
            let smallest = *window.iter().min().expect("not empty");
            let at = start + window.iter().rposition(|&hash| hash == smallest).expect("found");
            if kept.last() != Some(&at) {
                kept.push(at);
            }
        }
        kept
    }

    fn text(words: &[usize]) -> String {
        words.iter().map(|word| format!("w{word}")).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn marks_are_the_rightmost_minimum_of_every_window() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..200 {
            let (k, w) = (rng.usize(1..=4), rng.usize(1..=9));
            // Few distinct words, so equal hashes (ties) are common.
            let words: Vec<usize> = (0..rng.usize(k..60)).map(|_| rng.usize(0..6)).collect();
            let text = text(&words);
            let winnowing = Winnowing::new(k, w, false).unwrap();
            let content = words::content_words(&text, |_| false);
            let hashes: Vec<u64> = content.windows(k).map(seeds::key).collect();
            let found: Vec<usize> = winnowing.marks(&text).unwrap().iter().map(|m| m.word as usize).collect();
            assert_eq!(found, brute(&hashes, w), "k={k} w={w} {text}");
        }
    }

    #[test]
    fn a_shared_run_of_w_plus_k_minus_1_words_shares_a_mark() {
        let mut rng = fastrand::Rng::with_seed(11);
        let winnowing = Winnowing::new(3, 4, false).unwrap();
        for _ in 0..200 {
            let shared: Vec<usize> = (0..winnowing.guarantee()).map(|_| rng.usize(0..1_000_000)).collect();
            let noise = |rng: &mut fastrand::Rng| -> Vec<usize> {
                (0..rng.usize(0..30)).map(|_| rng.usize(1_000_000..2_000_000)).collect()
            };
            let a = [noise(&mut rng), shared.clone(), noise(&mut rng)].concat();
            let b = [noise(&mut rng), shared, noise(&mut rng)].concat();
            let hashes = |words: &[usize]| -> Vec<u64> {
                winnowing.marks(&text(words)).unwrap().iter().map(|m| m.hash).collect()
            };
            let (a, b) = (hashes(&a), hashes(&b));
            assert!(a.iter().any(|hash| b.contains(hash)));
        }
    }

    #[test]
    fn marks_locate_their_words_and_ignore_order_case_and_stopwords() {
        let winnowing = Winnowing::new(2, 1, true).unwrap();
        let text = "Alpha the beta, gamma";
        let marks = winnowing.marks(text).unwrap();
        assert_eq!(marks.len(), 2);
        assert_eq!(&text[marks[0].start as usize..marks[0].end as usize], "Alpha the beta");
        assert_eq!(&text[marks[1].start as usize..marks[1].end as usize], "beta, gamma");
        let reordered = winnowing.marks("BETA alpha").unwrap();
        assert_eq!(reordered[0].hash, marks[0].hash);
        assert!(winnowing.marks("the of and alpha").unwrap().is_empty());
    }

    #[test]
    fn unspaced_letters_count_two_to_a_word_in_a_k_gram() {
        let winnowing = Winnowing::new(3, 1, false).unwrap();
        let span = |marks: &[Mark], text: &str, at: usize| {
            text[marks[at].start as usize..marks[at].end as usize].to_owned()
        };
        // Six letters to a 3-gram, each start once (w = 1 keeps every k-gram).
        let japanese = "但它也常常用于测试";
        let marks = winnowing.marks(japanese).unwrap();
        assert_eq!(marks.len(), 9 - 6 + 1);
        assert_eq!(span(&marks, japanese, 0), "但它也常常用");
        assert_eq!(span(&marks, japanese, 3), "常常用于测试");
        // Mixed: a spaced word weighs two letters.
        let mixed = "Debian的apt工具 and more";
        let marks = winnowing.marks(mixed).unwrap();
        assert_eq!(span(&marks, mixed, 0), "Debian的apt工");
        assert_eq!(span(&marks, mixed, 1), "的apt工具 and");
        // The older rule: one letter, one word.
        let one_each = winnowing.clone().with_unspaced_letters(UnspacedLetters::OneWordEach);
        let marks = one_each.marks(japanese).unwrap();
        assert_eq!(marks.len(), 9 - 3 + 1);
        assert_eq!(span(&marks, japanese, 0), "但它也");
        // Spaced text is winnowed alike either way.
        let english = "alpha beta gamma delta epsilon";
        assert_eq!(winnowing.marks(english).unwrap(), one_each.marks(english).unwrap());
    }

    #[test]
    fn coverage_counts_the_words_in_shared_k_grams() {
        let words = |text: &str| words::content_words(text, |_| false);
        let a = text(&(0..20).collect::<Vec<_>>());
        assert_eq!(coverage(3, &words(&a), &words(&a)), 1.0);
        // Word 10 replaced: the k-grams holding it are lost, its
        // neighbours are still covered by others.
        let replaced = a.replace("w10 ", "x10 ");
        assert_eq!(coverage(3, &words(&a), &words(&replaced)), 19.0 / 20.0);
        // The same words in another order share no k-gram.
        let shuffled = text(&(0..20).map(|n| (n * 7) % 20).collect::<Vec<_>>());
        assert_eq!(coverage(3, &words(&a), &words(&shuffled)), 0.0);
        assert_eq!(coverage(3, &words("w1 w2"), &words(&a)), 0.0);
    }

    /// The coverage with every run looked up by its key.
    fn coverage_by_keys(k: usize, a: &[Word], b: &[Word]) -> f64 {
        if a.len() < k || b.len() < k {
            return 0.0;
        }
        let keys: Vec<u64> = b.windows(k).map(seeds::key).collect();
        let mut covered = vec![false; a.len()];
        for (at, gram) in a.windows(k).enumerate() {
            if keys.contains(&seeds::key(gram)) {
                covered[at..at + k].iter_mut().for_each(|word| *word = true);
            }
        }
        covered.iter().filter(|&&word| word).count() as f64 / a.len() as f64
    }

    #[test]
    fn runs_equal_at_the_same_offset_cover_as_their_keys() {
        let mut rng = fastrand::Rng::with_seed(43);
        for _ in 0..2_000 {
            let (a, b) = crate::related::related_words(&mut rng, 6);
            let k = rng.usize(1..=4);
            assert_eq!(coverage(k, &a, &b), coverage_by_keys(k, &a, &b), "{k} {a:?} {b:?}");
        }
    }

    #[test]
    fn parameters_out_of_range_are_refused() {
        assert!(Winnowing::new(0, 4, true).is_err());
        assert!(Winnowing::new(MAX_SEED_WORDS + 1, 4, true).is_err());
        assert!(Winnowing::new(3, 0, true).is_err());
        assert!(Winnowing::new(3, MAX_WINDOW + 1, true).is_err());
    }
}
