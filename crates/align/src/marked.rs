//! Alignment on shared winnowing marks: the passages of two texts whose
//! seeds are the [`Winnowing`] marks they share, not every pair of words
//! (`priorart dedup --passages`).
//!
//! A collection's candidate pairs were found by the marks they share, and
//! those marks already say where the passages are: about 2 in 5 of a
//! passage's k-grams are marks, kept alike in both texts. Seeding the
//! alignment with them, instead of every shared word pair, costs each pair
//! its shared marks: two long manual pages that share a paragraph cost
//! that paragraph, not every phrase both repeat. The rest is the aligner's
//! (`cluster.rs`, `select.rs`), with two changes measured on the planted
//! passages of BENCHMARKS.md ("Aligned on the shared marks"): marks are
//! sparser than word pairs, so a passage may leave [`MARK_GAP`] content
//! words between two of them; and each group's ends are moved outward
//! over the words both texts have there ([`cluster::extended`]), as a
//! passage's first and last marks are usually a few words inside its
//! ends. A passage's second side is not trimmed word by word
//! (`select::trim_second`): supported marks seldom stretch it, and the
//! trimming cost a third of the time for 0.001 of plagdet.

use crate::cluster;
use crate::seeds::{self, index};
use crate::words::{self, Word};
use crate::{AlignError, Aligner, Mark, Passage, Side, Winnowing, offsets, select};

/// The largest gap, in content words, between two marks of one passage in
/// either text: 20, measured (12, the word pairs' gap, lost one replaced
/// passage in 25; 30 found no more).
pub const MARK_GAP: u32 = 20;

/// A text cut into the aligner's content words and winnowed once, to be
/// aligned with many others on the marks they share
/// ([`Aligner::align_marked`]).
#[derive(Debug, Clone)]
pub struct MarkedText {
    text: String,
    words: Vec<Word>,
    /// `(hash, word)` of each mark kept, sorted.
    marks: Vec<(u64, u32)>,
    /// Content words per k-gram.
    k: u32,
}

impl MarkedText {
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The words (indices among its content words, sorted) of the marks
    /// of `self` whose hash `other` holds too, each place of such a hash.
    pub fn shared_words(&self, other: &MarkedText) -> Vec<u32> {
        let mut words: Vec<u32> = Vec::new();
        let found: Result<(), std::convert::Infallible> =
            seeds::each_shared(&self.marks, &other.marks, |mine, _| {
                words.extend(mine.iter().map(|&(_, at)| at));
                Ok(())
            });
        let Ok(()) = found;
        words.sort_unstable();
        words
    }
}

impl Aligner {
    /// `text` cut into this aligner's content words and winnowed by
    /// `winnowing`, keeping the marks `keep` accepts (a collection's
    /// search leaves out its boilerplate). The winnowing must leave out
    /// the stopwords the aligner leaves out, so that a mark's word is one
    /// of the aligner's words. A text over the size limit is refused.
    pub fn mark(
        &self,
        text: String,
        winnowing: &Winnowing,
        mut keep: impl FnMut(&Mark) -> bool,
    ) -> Result<MarkedText, AlignError> {
        if winnowing.leaves_out_english_stopwords() != self.params.english_stopwords {
            return Err(AlignError::BadParameter(
                "the winnowing and the aligner must leave out the same stopwords".into(),
            ));
        }
        self.check_size(Side::A, &text)?;
        let words = words::content_words(&text, |hash| self.stopwords.contains(hash));
        let mut marks: Vec<(u64, u32)> = winnowing
            .marks_of_words(&text, &words)
            .into_iter()
            .filter(|mark| keep(mark))
            .map(|mark| (mark.hash, mark.word))
            .collect();
        marks.sort_unstable();
        Ok(MarkedText { text, words, marks, k: index(winnowing.k()) })
    }

    /// The passages `a` and `b` share, seeded by the marks they share (see
    /// the module), in the order they come in `a`. A hash found more than
    /// [`crate::Params::max_key_occurrences`] times in `b` is not a seed;
    /// past [`crate::Params::max_seeds`] the texts are refused as too
    /// repetitive.
    pub fn align_marked(&self, a: &MarkedText, b: &MarkedText) -> Result<Vec<Passage>, AlignError> {
        let params = &self.params;
        let seeds = seeds::joined_seeds(&a.marks, &b.marks, params.max_key_occurrences, params.max_seeds)?;
        let seeds = cluster::supported(seeds, MARK_GAP, params.max_shift);
        let width = a.k.min(b.k);
        let mut found: Vec<cluster::Group> = cluster::groups(seeds, width, MARK_GAP, params.max_shift)
            .into_iter()
            .filter(|group| group.seeds >= params.min_seeds)
            .map(|group| cluster::extended(group, &a.words, &b.words))
            .collect();
        found.sort_unstable_by_key(|group| (group.a_first, group.b_first));
        let kept = select::passages(found, &a.words, &b.words, params, select::Trim::No);
        Ok(offsets::passages(&a.text, &b.text, &a.words, &b.words, &kept))
    }
}
