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
//! (`cluster.rs`, `select.rs`), with three changes measured on the planted
//! passages of BENCHMARKS.md ("Aligned on the shared marks"): marks are
//! sparser than word pairs, so a passage may leave [`MARK_GAP`] content
//! words between two of them; each group's ends are moved outward
//! over the words both texts have there ([`cluster::extended`]), as a
//! passage's first and last marks are usually a few words inside its
//! ends; and a passage's second side is not trimmed word by word
//! (`select::trim_second`): supported marks seldom stretch it, and the
//! trimming cost a third of the time for 0.001 of plagdet.

use crate::cluster;
use crate::offsets::{CharIndex, Indexed};
use crate::seeds::{self, Keys, Seed, index};
use crate::words::{self, Word};
use crate::{AlignError, Aligner, Mark, Passage, Side, Span, Winnowing, offsets, select, winnow};

/// The largest gap, in content words, between two marks of one passage in
/// either text: 20, measured (12, the word pairs' gap, lost one replaced
/// passage in 25; 30 found no more).
pub const MARK_GAP: u32 = 20;

/// A text cut into the aligner's content words and winnowed once, to be
/// aligned with many others on the marks they share
/// ([`Aligner::align_marked`]).
///
/// What was made of the text is held in one block, not an allocation per
/// array: a collection's search holds hundreds of thousands of prepared
/// texts and reads most of them back from its temporary file many times,
/// and a block is read back as one copy ([`MarkedText::read_from`]) where
/// arrays were converted field by field and allocated one by one.
#[derive(Debug, Clone)]
pub struct MarkedText {
    pub(crate) text: String,
    /// Its arrays, one after the other, each from a `u64` boundary:
    /// the content words ([`Word`]), the half-words before each
    /// ([`words::counted_content_words`]), the marks' hashes (sorted), the
    /// marks' words (the index of each mark's first content word, sorted
    /// where hashes are equal), the text's character counts
    /// ([`offsets::char_counts`]).
    block: Vec<u64>,
    /// The arrays' lengths.
    pub(crate) counts: Counts,
    /// Content words per k-gram.
    pub(crate) k: u32,
}

/// The lengths of a [`MarkedText`]'s arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) words: usize,
    pub(crate) marks: usize,
    pub(crate) chars: usize,
}

impl Counts {
    /// Where each array ends in the block, in `u64`s: words, half-words,
    /// marks' hashes, marks' words, character counts.
    fn ends(self) -> [usize; 5] {
        let words = 2 * self.words;
        let halves = words + self.words.div_ceil(2);
        let hashes = halves + self.marks;
        let mark_words = hashes + self.marks.div_ceil(2);
        [words, halves, hashes, mark_words, mark_words + self.chars.div_ceil(2)]
    }

    /// The block's length, in `u64`s.
    pub(crate) fn block_len(self) -> usize {
        self.ends()[4]
    }
}

/// `values` (`count` of them) appended to `block` as `u32`s, from a `u64`
/// boundary.
fn push_u32s(block: &mut Vec<u64>, count: usize, values: impl Iterator<Item = u32>) {
    let at = block.len();
    block.resize(at + count.div_ceil(2), 0);
    let slots: &mut [u32] = bytemuck::cast_slice_mut(&mut block[at..]);
    slots.iter_mut().zip(values).for_each(|(slot, value)| *slot = value);
}

impl MarkedText {
    /// `text` with its content words, the half-words before each, its
    /// marks (`(hash, word)`, sorted) and its character counts, for
    /// k-grams of `k` words.
    fn new(text: String, words: &[Word], halves_before: &[u32], marks: &[(u64, u32)], k: u32) -> MarkedText {
        let chars = offsets::char_counts(&text);
        let counts = Counts { words: words.len(), marks: marks.len(), chars: chars.len() };
        let mut block = Vec::with_capacity(counts.block_len());
        block.extend_from_slice(bytemuck::cast_slice(words));
        push_u32s(&mut block, words.len(), halves_before.iter().copied());
        block.extend(marks.iter().map(|&(hash, _)| hash));
        push_u32s(&mut block, marks.len(), marks.iter().map(|&(_, word)| word));
        push_u32s(&mut block, chars.len(), chars.into_iter());
        MarkedText { text, block, counts, k }
    }

    /// The bytes a text of `text_bytes` bytes, `words` content words and
    /// `marks` marks holds once marked (its character counts taken at
    /// their most, as for a text beyond ASCII): what a collection's search
    /// bounds its working set by, before the text is read again.
    pub fn held_bytes(text_bytes: u64, words: u64, marks: u64) -> u64 {
        let chars = text_bytes.div_ceil(offsets::BLOCK as u64) + 1;
        let counts = |n: u64| usize::try_from(n).unwrap_or(usize::MAX / 8);
        let block = Counts { words: counts(words), marks: counts(marks), chars: counts(chars) }.block_len();
        size_of::<MarkedText>() as u64 + text_bytes + 8 * block as u64
    }

    /// A text and its block as [`MarkedText::block`] holds them, unchecked
    /// (`stored.rs` checks what it reads back).
    pub(crate) fn of_parts(text: String, block: Vec<u64>, counts: Counts, k: u32) -> MarkedText {
        MarkedText { text, block, counts, k }
    }

    /// Its block, as [`MarkedText::of_parts`] takes it.
    pub(crate) fn block(&self) -> &[u64] {
        &self.block
    }

    /// Its content words.
    pub(crate) fn words(&self) -> &[Word] {
        bytemuck::cast_slice(&self.block[..self.counts.ends()[0]])
    }

    /// The half-words before each of its content words.
    pub(crate) fn halves_before(&self) -> &[u32] {
        let [words, halves, ..] = self.counts.ends();
        &bytemuck::cast_slice(&self.block[words..halves])[..self.counts.words]
    }

    /// Its marks: their hashes (sorted) and the index of each one's first
    /// content word.
    pub(crate) fn marks(&self) -> Keys<'_> {
        let [_, halves, hashes, mark_words, _] = self.counts.ends();
        let places: &[u32] = bytemuck::cast_slice(&self.block[hashes..mark_words]);
        Keys { keys: &self.block[halves..hashes], places: &places[..self.counts.marks] }
    }

    /// Its character counts ([`offsets::char_counts`]).
    pub(crate) fn char_counts(&self) -> &[u32] {
        let [.., mark_words, chars] = self.counts.ends();
        &bytemuck::cast_slice(&self.block[mark_words..chars])[..self.counts.chars]
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The share of the content words of `span` (a passage's side in
    /// `self`) that lie in a run of k of them (its winnowing's k), in any
    /// order, also found in `other_span` of `other`: 1 for a verbatim
    /// copy, about 1 − 3r/2 with a fraction `r` of the other side's words
    /// replaced at random; low for two sides that share many words
    /// (numbers, code, names) but few runs of them (a translation, a
    /// template filled in). 0 when a side has fewer than k content words.
    pub fn coverage(&self, span: &Span, other: &MarkedText, other_span: &Span) -> f64 {
        winnow::coverage(self.k as usize, self.words_in(span), other.words_in(other_span))
    }

    /// The words of `span` (a span of this text; 0 for one outside it)
    /// as [`crate::word_count`] counts them, without counting them again
    /// when the span runs from one content word to another, as a passage's
    /// side does.
    pub fn word_count(&self, span: &Span) -> usize {
        let range = span.bytes();
        let (first, end) = self.word_range(span);
        let words = self.words();
        let on_words = first < end
            && words[first].start as usize == range.start
            && words[end - 1].end as usize == range.end;
        if !on_words {
            return self.text.get(range).map_or(0, words::count);
        }
        self.counted(first, end - 1)
    }

    /// [`MarkedText::word_count`] of the span from content word `first` to
    /// content word `last` (0 when either is not one of its words).
    fn counted(&self, first: usize, last: usize) -> usize {
        let (Some(&before_first), Some(&before_last), Some(last_word)) =
            (self.halves_before().get(first), self.halves_before().get(last), self.words().get(last))
        else {
            return 0;
        };
        // In 64 bits: a text read back may claim any counts in 32.
        let halves = (u64::from(before_last) + u64::from(words::halves(&self.text, last_word.start)))
            .saturating_sub(u64::from(before_first));
        halves.div_ceil(2) as usize
    }

    /// Its text, words and character index, as the offsets take them.
    fn indexed(&self) -> Indexed<'_> {
        Indexed { text: &self.text, words: self.words(), chars: CharIndex(self.char_counts()) }
    }

    /// Its content words `first` to `last` (none when they are not).
    fn words_from_to(&self, (first, last): (u32, u32)) -> &[Word] {
        self.words().get(first as usize..=last as usize).unwrap_or_default()
    }

    /// Its content words inside `span`.
    fn words_in(&self, span: &Span) -> &[Word] {
        let (first, end) = self.word_range(span);
        &self.words()[first..end.max(first)]
    }

    /// The indices of its first content word inside `span` and of the one
    /// after its last (not above the first when none is inside).
    fn word_range(&self, span: &Span) -> (usize, usize) {
        let range = span.bytes();
        let words = self.words();
        let first = words.partition_point(|word| (word.start as usize) < range.start);
        let end = words.partition_point(|word| (word.end as usize) <= range.end);
        (first, end)
    }
}

/// A passage [`Aligner::align_marked`] found, with the content words its
/// two sides run from and to: what a search asks of it (its words, its
/// coverage) is read from the texts' words at once. Found again from its
/// offsets, each side cost two binary searches through its text's words,
/// a cache miss a step (BENCHMARKS.md, stop 51).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarkedPassage {
    /// The passage.
    pub passage: Passage,
    /// Its first and last content words in the first text, then in the
    /// second.
    words: [(u32, u32); 2],
}

impl MarkedPassage {
    /// The words of its side in `a` and of its side in `b` (the texts it
    /// was found in), as [`MarkedText::word_count`] counts them.
    pub fn word_counts(&self, a: &MarkedText, b: &MarkedText) -> [usize; 2] {
        let [(a_first, a_last), (b_first, b_last)] = self.words;
        [a.counted(a_first as usize, a_last as usize), b.counted(b_first as usize, b_last as usize)]
    }

    /// The share of its side in `side`'s text found in runs on the other
    /// side, as [`MarkedText::coverage`] measures it (`a` and `b`: the
    /// texts it was found in).
    pub fn coverage(&self, side: Side, a: &MarkedText, b: &MarkedText) -> f64 {
        let [a_words, b_words] = self.words;
        let (a_side, b_side) = (a.words_from_to(a_words), b.words_from_to(b_words));
        match side {
            Side::A => winnow::coverage(a.k as usize, a_side, b_side),
            Side::B => winnow::coverage(b.k as usize, b_side, a_side),
        }
    }
}

/// The marks two texts share ([`Aligner::shared_marks`]): where they are
/// in the first, and the seeds of the texts' alignment.
#[derive(Debug, Clone)]
pub struct SharedMarks {
    /// Each place in the first text of each shared hash, sorted.
    words: Vec<u32>,
    /// The seeds, or why there are too many.
    seeds: Result<Vec<Seed>, AlignError>,
}

impl SharedMarks {
    /// The words (indices among the first text's content words, sorted)
    /// of its marks whose hash the second holds, each place of such a
    /// hash.
    pub fn words(&self) -> &[u32] {
        &self.words
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
        let (words, halves_before) =
            words::counted_content_words(&text, |hash| self.stopwords.contains(hash));
        let mut marks: Vec<(u64, u32)> = winnowing
            .marks_of_words(&text, &words)
            .into_iter()
            .filter(|mark| keep(mark))
            .map(|mark| (mark.hash, mark.word))
            .collect();
        marks.sort_unstable();
        Ok(MarkedText::new(text, &words, &halves_before, &marks, index(winnowing.k())))
    }

    /// The marks `a` and `b` share, found in one merge of their sorted
    /// marks. A hash found more than [`crate::Params::max_key_occurrences`]
    /// times in `b` is not a seed; past [`crate::Params::max_seeds`] the
    /// texts are too repetitive to align.
    pub fn shared_marks(&self, a: &MarkedText, b: &MarkedText) -> SharedMarks {
        let (most, limit) = (self.params.max_key_occurrences, self.params.max_seeds);
        // Sized for two texts sharing all the marks of the shorter, as
        // most aligned pairs nearly do: growing them was a fifth of the
        // merge.
        let (a_marks, b_marks) = (a.marks(), b.marks());
        let expected = a_marks.keys.len().min(b_marks.keys.len());
        let mut words = Vec::with_capacity(expected);
        let mut seeds = Vec::with_capacity(expected);
        let mut too_many = None;
        let found: Result<(), std::convert::Infallible> =
            seeds::each_shared(a_marks, b_marks, |a_run, b_run| {
                // A mark held once (most are) pushed, not copied by `memcpy`.
                match a_run {
                    [at] => words.push(*at),
                    _ => words.extend_from_slice(a_run),
                }
                if b_run.len() <= most && too_many.is_none() {
                    too_many = seeds::add_seeds(&mut seeds, a_run, b_run, limit).err();
                }
                Ok(())
            });
        let Ok(()) = found;
        let seeds = match too_many {
            None => Ok(seeds),
            Some(error) => Err(error),
        };
        words.sort_unstable();
        SharedMarks { words, seeds }
    }

    /// The passages `a` and `b` share, seeded by the marks they share
    /// (`shared`, [`Aligner::shared_marks`] of the two; see the module), in
    /// the order they come in `a`; [`AlignError::TooManySeeds`] when they
    /// share too many.
    pub fn align_marked(
        &self,
        a: &MarkedText,
        b: &MarkedText,
        shared: SharedMarks,
    ) -> Result<Vec<MarkedPassage>, AlignError> {
        self.align_marked_of(a, b, shared, 0)
    }

    /// [`Aligner::align_marked`] for a caller that keeps only passages of
    /// `min_words` words or more on both sides (as
    /// [`MarkedPassage::word_counts`] counts them): none when the groups
    /// found do not span that many together, before their passages are
    /// measured. Every passage lies inside its groups' extent in each text
    /// (joined and merged groups are their parts' union), so this returns
    /// what `align_marked` returns whenever a passage could be kept. On the
    /// generated corpus, a quarter of the candidate pairs of a
    /// collection's search align only to passages under 50 words.
    pub fn align_marked_of(
        &self,
        a: &MarkedText,
        b: &MarkedText,
        shared: SharedMarks,
        min_words: usize,
    ) -> Result<Vec<MarkedPassage>, AlignError> {
        let params = &self.params;
        let seeds = cluster::supported(shared.seeds?, MARK_GAP, params.max_shift);
        let width = a.k.min(b.k);
        let mut found: Vec<cluster::Group> = cluster::groups(seeds, width, MARK_GAP, params.max_shift)
            .into_iter()
            .filter(|group| group.seeds >= params.min_seeds)
            .map(|group| cluster::extended(group, a.words(), b.words()))
            .collect();
        if !spans_words(&found, a, b, min_words) {
            return Ok(Vec::new());
        }
        found.sort_unstable_by_key(|group| (group.a_first, group.b_first));
        let kept = select::passages(found, a.words(), b.words(), params, select::Trim::No);
        let passages = offsets::passages(a.indexed(), b.indexed(), &kept);
        Ok(passages
            .into_iter()
            .zip(&kept)
            .map(|(passage, (group, _))| MarkedPassage {
                passage,
                words: [(group.a_first, group.a_last), (group.b_first, group.b_last)],
            })
            .collect())
    }
}

/// Whether `groups` together span `min_words` words (as
/// [`MarkedText::word_count`] counts them) in `a` and in `b`.
fn spans_words(groups: &[cluster::Group], a: &MarkedText, b: &MarkedText, min_words: usize) -> bool {
    let (Some(a_first), Some(a_last), Some(b_first), Some(b_last)) = (
        groups.iter().map(|group| group.a_first).min(),
        groups.iter().map(|group| group.a_last).max(),
        groups.iter().map(|group| group.b_first).min(),
        groups.iter().map(|group| group.b_last).max(),
    ) else {
        return false;
    };
    a.counted(a_first as usize, a_last as usize) >= min_words
        && b.counted(b_first as usize, b_last as usize) >= min_words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Params;

    fn span_of(text: &str, start: usize, end: usize) -> Span {
        let char_offset = text[..start].chars().count();
        Span {
            char_offset,
            char_length: text[start..end].chars().count(),
            byte_offset: start,
            byte_length: end - start,
        }
    }

    #[test]
    fn held_bytes_bound_what_a_marked_text_holds() {
        let aligner = Aligner::new(Params::default()).unwrap();
        let winnowing = Winnowing::default();
        let mut rng = fastrand::Rng::with_seed(22);
        let texts = (0..200).map(|_| words::random_text(&mut rng, 400)).chain([
            "漢字テストの文章です。".repeat(40),
            "plain ASCII words only, ".repeat(40),
            String::new(),
        ]);
        for text in texts {
            let marked = aligner.mark(text.clone(), &winnowing, |_| true).unwrap();
            let held = (size_of::<MarkedText>() + text.len() + 8 * marked.block.len()) as u64;
            let (words, marks) = (marked.words().len() as u64, marked.marks().keys.len() as u64);
            let estimate = MarkedText::held_bytes(text.len() as u64, words, marks);
            // At most the character counts of a text beyond ASCII more.
            assert!(held <= estimate && estimate <= held + text.len() as u64 / 16 + 8, "{text:?}");
        }
    }

    #[test]
    fn a_span_counts_the_words_its_text_counts() {
        let aligner = Aligner::new(Params::default()).unwrap();
        let winnowing = Winnowing::default();
        let mut rng = fastrand::Rng::with_seed(21);
        for _ in 0..300 {
            let text = words::random_text(&mut rng, 300);
            let marked = aligner.mark(text.clone(), &winnowing, |_| true).unwrap();
            let words = marked.words();
            for _ in 0..20 {
                // A passage's side: from a content word to another.
                if !words.is_empty() {
                    let first = rng.usize(0..words.len());
                    let last = rng.usize(first..words.len());
                    let span = span_of(&text, words[first].start as usize, words[last].end as usize);
                    assert_eq!(
                        marked.word_count(&span),
                        words::count(&text[span.bytes()]),
                        "{text:?} {span:?}"
                    );
                }
                // Any stretch of the text.
                let mut ends = [rng.usize(0..=text.len()), rng.usize(0..=text.len())];
                ends.sort_unstable();
                let [start, end] =
                    ends.map(|at| (0..=at).rev().find(|&at| text.is_char_boundary(at)).unwrap());
                let span = span_of(&text, start, end);
                assert_eq!(marked.word_count(&span), words::count(&text[start..end]), "{text:?} {span:?}");
            }
            // A span of another text, past this one's end, counts nothing.
            let past = Span { byte_offset: text.len() + 1, byte_length: 10, ..span_of(&text, 0, 0) };
            assert_eq!(marked.word_count(&past), 0);
        }
    }
}
