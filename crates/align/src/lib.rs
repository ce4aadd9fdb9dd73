//! Text alignment: the passages two documents share, each with where it is
//! in both texts (byte and character offsets into the strings given, never
//! into a normalized copy), its text and how similar its two sides are.
//!
//! The method is the seed-and-extend text alignment of the PAN
//! competitions (Sanchez-Perez, Gelbukh and Sidorov, PAN 2014):
//!
//! 1. **words**: runs of alphanumeric characters, compared lowercased,
//!    English stopwords left out (`words.rs`, `stopwords.rs`);
//! 2. **seeds**: every place where both texts have the same
//!    [`Params::seed_words`] neighbouring content words *in any order*
//!    (sorted word n-grams survive words shuffled inside them); keys found
//!    more than [`Params::max_key_occurrences`] times in the second text
//!    are boilerplate and ignored (`seeds.rs`);
//! 3. **extension**: seeds without a neighbour on about the same diagonal
//!    are dropped (a word pair found in both texts by chance), the others
//!    split into groups close together in both texts
//!    (gaps of at most [`Params::max_gap`] content words), then
//!    neighbouring groups joined while the joined passage stays similar,
//!    so that reordered paragraphs and moved passages are separate groups
//!    and an edit inside a passage does not cut it (`cluster.rs`);
//! 4. **filtering**: a passage needs [`Params::min_seeds`] seeds,
//!    [`Params::min_words`] content words on each side, and a word-bag
//!    similarity (Dice) of at least [`Params::min_similarity`]; passages
//!    that overlap in both texts are merged, and a stretch of the first
//!    text keeps only its strongest match (a copied passage also matches,
//!    weakly, the places of its source that repeat some of its phrases).
//!
//! Pure: no I/O, threads or global state. [`report`] writes what every
//! front end prints: the JSON document and PAN's XML.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod cluster;
mod offsets;
pub mod report;
mod seeds;
mod stopwords;
mod words;

use cluster::Group;
pub use seeds::MAX_SEED_WORDS;
use serde::Serialize;
use std::ops::Range;
use stopwords::Stopwords;
use words::Word;

/// The largest text [`Aligner::align`] takes, in bytes: 256 MiB. Memory is
/// about 8 bytes per word of the first text and 40 per word of the second.
pub const MAX_TEXT_BYTES: usize = 256 << 20;

/// How many of the latest passages a group may join (see `join_and_filter`).
const JOIN_LOOKBACK: usize = 8;

/// How passages are found. [`Params::default`] is what the CLI, the Python
/// package and the measurements in BENCHMARKS.md use.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Content words per seed (1 to [`MAX_SEED_WORDS`]).
    pub seed_words: usize,
    /// Largest gap, in content words, inside a passage in either text.
    pub max_gap: u32,
    /// Largest shift, in content words, between neighbouring seeds of a
    /// passage (a seed with no neighbour that close to its diagonal is
    /// dropped): what reordered, inserted or deleted words may move.
    pub max_shift: u32,
    /// Largest gap across which two neighbouring passages are joined when
    /// the joined passage is still similar enough.
    pub join_gap: u32,
    /// Fewest seeds in a passage.
    pub min_seeds: usize,
    /// Fewest content words on each side of a passage.
    pub min_words: u32,
    /// Lowest word-bag similarity (Dice) between a passage's two sides.
    pub min_similarity: f64,
    /// A seed key found more often than this in the second text is ignored.
    pub max_key_occurrences: usize,
    /// Leave English stopwords out of seeds.
    pub english_stopwords: bool,
    /// The largest text accepted, in bytes (at most [`MAX_TEXT_BYTES`]).
    pub max_text_bytes: usize,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            seed_words: 2,
            max_gap: 12,
            max_shift: 6,
            join_gap: 40,
            min_seeds: 4,
            min_words: 16,
            min_similarity: 0.6,
            max_key_occurrences: 32,
            english_stopwords: true,
            max_text_bytes: MAX_TEXT_BYTES,
        }
    }
}

/// Which of the two texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The first text (PAN's suspicious document, `this`).
    A,
    /// The second text (PAN's source document).
    B,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::A => "first",
            Side::B => "second",
        })
    }
}

/// Why texts were not aligned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AlignError {
    /// A text is longer than the limit.
    #[error("the {side} text has {bytes} bytes, more than the limit of {limit}")]
    TextTooLarge {
        /// Which text.
        side: Side,
        /// Its length.
        bytes: usize,
        /// The limit it passed.
        limit: usize,
    },
    /// A parameter is out of its range.
    #[error("bad alignment parameter: {0}")]
    BadParameter(String),
}

reason_names!(AlignError {
    TextTooLarge => "text_too_large",
    BadParameter => "bad_parameter",
});

/// Where a passage is in one text. Offsets count from the start of the
/// string given to [`Aligner::align`]: bytes of its UTF-8, and characters
/// (Unicode scalar values, as Python's `str` and PAN's offsets count them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Span {
    /// First character of the passage.
    pub char_offset: usize,
    /// Characters in the passage.
    pub char_length: usize,
    /// First byte of the passage.
    pub byte_offset: usize,
    /// Bytes in the passage.
    pub byte_length: usize,
}

impl Span {
    /// The passage's byte range, to slice the text with.
    pub fn bytes(&self) -> Range<usize> {
        self.byte_offset..self.byte_offset + self.byte_length
    }

    /// The passage's character range.
    pub fn chars(&self) -> Range<usize> {
        self.char_offset..self.char_offset + self.char_length
    }
}

/// One passage the two texts share. It runs from its first matching word
/// to its last, on each side; words in between may differ.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Passage {
    /// Where it is in the first text.
    pub a: Span,
    /// Where it is in the second text.
    pub b: Span,
    /// Word-bag similarity (Dice) of its two sides: twice the shared
    /// content words over the content words of both, 0 to 1.
    pub similarity: f64,
    /// Seeds (shared word pairs) inside it.
    pub seeds: usize,
}

/// Finds passages with one set of [`Params`]; holds the stopword table, so
/// a front end aligning many pairs builds one.
#[derive(Debug, Clone)]
pub struct Aligner {
    params: Params,
    stopwords: Stopwords,
}

impl Aligner {
    /// An aligner, or which parameter is out of range.
    pub fn new(params: Params) -> Result<Aligner, AlignError> {
        check(&params)?;
        let stopwords = if params.english_stopwords { Stopwords::english() } else { Stopwords::none() };
        Ok(Aligner { params, stopwords })
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The passages `a` and `b` share, in the order they come in `a`
    /// (then in `b`). Two unrelated texts share none.
    pub fn align(&self, a: &str, b: &str) -> Result<Vec<Passage>, AlignError> {
        for (side, text) in [(Side::A, a), (Side::B, b)] {
            if text.len() > self.params.max_text_bytes {
                return Err(AlignError::TextTooLarge { side, bytes: text.len(), limit: self.params.max_text_bytes });
            }
        }
        let width = self.params.seed_words;
        let b_words = words::content_words(b, &self.stopwords);
        let a_words = words::content_words(a, &self.stopwords);
        if a_words.len() < width || b_words.len() < width {
            return Ok(Vec::new());
        }
        let source = seeds::SourceKeys::new(&b_words, width, self.params.max_key_occurrences);
        let seeds = source.seeds(&a_words, width);
        drop(source);
        let seeds = cluster::supported(seeds, self.params.max_gap, self.params.max_shift);
        let found = cluster::groups(seeds, width as u32, self.params.max_gap, self.params.max_shift);
        let found = found.into_iter().filter(|group| group.seeds >= self.params.min_seeds).collect();
        let kept = self.join_and_filter(found, &a_words, &b_words);
        Ok(offsets::passages(a, b, &a_words, &b_words, &kept))
    }

    /// Joins neighbouring groups that stay similar, then keeps the ones
    /// long and similar enough, each with its similarity.
    fn join_and_filter(&self, groups: Vec<Group>, a: &[Word], b: &[Word]) -> Vec<(Group, f64)> {
        let similarity = |group: &Group| {
            let side = |words: &[Word], first: u32, last: u32| -> Vec<u64> {
                words[first as usize..=last as usize].iter().map(|w| w.hash).collect()
            };
            cluster::dice(&side(a, group.a_first, group.a_last), &side(b, group.b_first, group.b_last))
        };
        let mut joined: Vec<(Group, f64)> = Vec::with_capacity(groups.len());
        for group in groups {
            // A few recent passages, not only the last: a stray group (a
            // phrase an edit brought in) may sit between two parts of one.
            let recent = joined.len().saturating_sub(JOIN_LOOKBACK);
            let into = (recent..joined.len()).rev().find_map(|at| {
                let earlier = &joined[at].0;
                if !cluster::continues(earlier, &group, self.params.join_gap) {
                    return None;
                }
                let both = cluster::joined(earlier, &group);
                let both_score = similarity(&both);
                (both_score >= self.params.min_similarity).then_some((at, both, both_score))
            });
            match into {
                Some((at, both, both_score)) => joined[at] = (both, both_score),
                None => {
                    let score = similarity(&group);
                    joined.push((group, score));
                }
            }
        }
        let kept: Vec<(Group, f64)> = joined
            .into_iter()
            .filter(|(group, score)| {
                group.a_last - group.a_first + 1 >= self.params.min_words
                    && group.b_last - group.b_first + 1 >= self.params.min_words
                    && *score >= self.params.min_similarity
            })
            .collect();
        drop_shadowed(merge_overlapping(kept, similarity))
    }
}

/// The passages left when each stretch of the first text keeps its
/// strongest match (most seeds): a passage with more than half of its first
/// side inside stronger ones is dropped. A copied passage also matches, more
/// weakly, other places of the source that repeat some of its phrases; its
/// true origin is the strong one.
fn drop_shadowed(mut passages: Vec<(Group, f64)>) -> Vec<(Group, f64)> {
    passages.sort_unstable_by(|(x, _), (y, _)| {
        y.seeds.cmp(&x.seeds).then((y.a_last - y.a_first).cmp(&(x.a_last - x.a_first)))
    });
    let mut kept: Vec<(Group, f64)> = Vec::with_capacity(passages.len());
    for (group, score) in passages {
        let length = u64::from(group.a_last - group.a_first + 1);
        let mut inside: Vec<(u32, u32)> = kept
            .iter()
            .filter(|(k, _)| k.a_first <= group.a_last && group.a_first <= k.a_last)
            .map(|(k, _)| (k.a_first.max(group.a_first), k.a_last.min(group.a_last)))
            .collect();
        if covered(&mut inside) * 2 <= length {
            kept.push((group, score));
        }
    }
    kept.sort_unstable_by_key(|(group, _)| (group.a_first, group.b_first));
    kept
}

/// Words covered by the union of inclusive ranges.
fn covered(ranges: &mut [(u32, u32)]) -> u64 {
    ranges.sort_unstable();
    let (mut total, mut reach) = (0u64, None::<u32>);
    for &(first, last) in ranges.iter() {
        let start = reach.map_or(first, |r| first.max(r + 1));
        if last >= start {
            total += u64::from(last - start + 1);
            reach = Some(last);
        }
    }
    total
}

/// Passages that overlap in both texts, merged: one passage reached twice
/// (the same stretch of text split, then joined to different neighbours)
/// is reported once.
fn merge_overlapping(mut passages: Vec<(Group, f64)>, similarity: impl Fn(&Group) -> f64) -> Vec<(Group, f64)> {
    passages.sort_unstable_by_key(|(group, _)| (group.a_first, group.b_first));
    let mut merged: Vec<(Group, f64)> = Vec::with_capacity(passages.len());
    for (group, score) in passages {
        // Only passages still open in the first text can overlap this one.
        let open = merged.iter().rposition(|(kept, _)| {
            kept.a_last >= group.a_first && cluster::overlaps(kept, &group)
        });
        match open {
            Some(at) => {
                let both = cluster::joined(&merged[at].0, &group);
                merged[at] = (both, similarity(&both));
            }
            None => merged.push((group, score)),
        }
    }
    merged
}

fn check(params: &Params) -> Result<(), AlignError> {
    let bad = |what: String| Err(AlignError::BadParameter(what));
    if !(1..=MAX_SEED_WORDS).contains(&params.seed_words) {
        return bad(format!("seed_words is {}, not 1 to {MAX_SEED_WORDS}", params.seed_words));
    }
    if !(0.0..=1.0).contains(&params.min_similarity) {
        return bad(format!("min_similarity is {}, not 0 to 1", params.min_similarity));
    }
    if params.max_key_occurrences == 0 {
        return bad("max_key_occurrences is 0: no seed could be found".into());
    }
    if params.max_text_bytes > MAX_TEXT_BYTES {
        return bad(format!("max_text_bytes is {}, more than {MAX_TEXT_BYTES}", params.max_text_bytes));
    }
    Ok(())
}

/// The passages `a` and `b` share, with [`Params::default`].
pub fn align(a: &str, b: &str) -> Result<Vec<Passage>, AlignError> {
    Aligner::new(Params::default())?.align(a, b)
}

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        priorart_reason::check_names(crate::AlignError::REASONS).unwrap();
        assert_eq!(crate::AlignError::REASONS, ["text_too_large", "bad_parameter"]);
    }
}
