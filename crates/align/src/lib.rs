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
//!    (`b - a`, give or take [`Params::max_shift`]) are dropped (a word
//!    pair found in both texts by chance), the others split into groups
//!    close together in both texts (gaps of at most [`Params::max_gap`]
//!    content words) and on nearby diagonals, so that reordered paragraphs
//!    and moved passages are separate groups (`cluster.rs`); neighbouring
//!    groups are joined while the joined passage stays similar, so that an
//!    edit inside a passage does not cut it (`select.rs`);
//! 4. **filtering** (`select.rs`): a passage needs [`Params::min_seeds`] seeds,
//!    [`Params::min_words`] content words on each side, and a word-bag
//!    similarity (Dice) of at least [`Params::min_similarity`]; passages
//!    that overlap in both texts are merged, and a stretch of the first
//!    text keeps only its strongest match (a copied passage also matches,
//!    weakly, the places of its source that repeat some of its phrases).
//!
//! Pure: no I/O, threads or global state. [`report`] writes what every
//! front end prints: the JSON document and PAN's XML. [`Winnowing`] picks
//! a few hashes of a text's content words, so that a collection's
//! documents sharing passages are found without aligning every pair, and
//! [`Aligner::align_marked`] aligns a pair so found on the marks it
//! shares (`priorart dedup --passages`, `marked.rs`).

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod chars;
mod cluster;
mod marked;
mod offsets;
#[cfg(test)]
mod related;
pub mod report;
mod seeds;
mod select;
mod stopwords;
mod stored;
mod winnow;
mod words;

pub use marked::{MARK_GAP, MarkedPassage, MarkedText, SharedMarks};
pub use seeds::MAX_SEED_WORDS;
use serde::Serialize;
use std::ops::Range;
use stopwords::Stopwords;
pub use stored::DamagedText;
pub use winnow::{MAX_WINDOW, Mark, UnspacedLetters, Winnowing};

/// The largest text [`Aligner::align`] takes, in bytes: 64 MiB. Memory is
/// about 16 bytes per word of the first text, 50 per word of the second,
/// and 8 per seed (at most [`MAX_SEEDS`]).
pub const MAX_TEXT_BYTES: usize = 64 << 20;

/// The most seeds by default: 32 million (256 MiB). Natural texts have
/// about one seed per shared word pair; only text repeating the same
/// phrases dozens of times on both sides comes near it.
pub const MAX_SEEDS: usize = 32 << 20;

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
    /// The most seeds two texts may have (8 bytes each): past it the texts
    /// are refused as too repetitive rather than aligned slowly.
    pub max_seeds: usize,
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
            max_seeds: MAX_SEEDS,
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
    /// The texts share more seeds than the limit: both repeat the same
    /// phrases over and over.
    #[error(
        "the texts repeat the same phrases too often to align ({seeds} seeds or more, the limit is {limit})"
    )]
    TooManySeeds {
        /// Seeds found before stopping.
        seeds: usize,
        /// The limit.
        limit: usize,
    },
    /// A parameter is out of its range.
    #[error("bad alignment parameter: {0}")]
    BadParameter(String),
}

reason_names!(AlignError {
    TextTooLarge => "text_too_large",
    TooManySeeds => "too_many_seeds",
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
        self.check_size(Side::A, a)?;
        self.check_size(Side::B, b)?;
        let (a_words, a_keys) = self.words_and_keys(a);
        let (b_words, b_keys) = self.words_and_keys(b);
        self.align_words((a, &a_words, &a_keys), (b, &b_words, &b_keys))
    }

    fn words_and_keys(&self, text: &str) -> (Vec<words::Word>, seeds::KeyList) {
        let words = words::content_words(text, |hash| self.stopwords.contains(hash));
        let keys = seeds::sorted_keys(&words, self.params.seed_words);
        (words, keys)
    }

    fn check_size(&self, side: Side, text: &str) -> Result<(), AlignError> {
        if text.len() > self.params.max_text_bytes {
            return Err(AlignError::TextTooLarge {
                side,
                bytes: text.len(),
                limit: self.params.max_text_bytes,
            });
        }
        Ok(())
    }

    /// The passages of two texts, each with its content words and their
    /// sorted seed keys.
    fn align_words(&self, a: Keyed<'_>, b: Keyed<'_>) -> Result<Vec<Passage>, AlignError> {
        let ((a, a_words, a_keys), (b, b_words, b_keys)) = (a, b);
        let width = self.params.seed_words;
        if a_words.len() < width || b_words.len() < width {
            return Ok(Vec::new());
        }
        let (occurrences, most) = (self.params.max_key_occurrences, self.params.max_seeds);
        let seeds = seeds::joined_seeds(a_keys.as_keys(), b_keys.as_keys(), occurrences, most)?;
        let seeds = cluster::supported(seeds, self.params.max_gap, self.params.max_shift);
        let found = cluster::groups(seeds, width as u32, self.params.max_gap, self.params.max_shift);
        let found = found.into_iter().filter(|group| group.seeds >= self.params.min_seeds).collect();
        let kept = select::passages(found, a_words, b_words, &self.params, select::Trim::Second);
        if kept.is_empty() {
            return Ok(Vec::new());
        }
        let (a_chars, b_chars) = (offsets::char_counts(a), offsets::char_counts(b));
        Ok(offsets::passages(
            offsets::Indexed { text: a, words: a_words, chars: offsets::CharIndex(&a_chars) },
            offsets::Indexed { text: b, words: b_words, chars: offsets::CharIndex(&b_chars) },
            &kept,
        ))
    }
}

/// A text, its content words and their sorted seed keys.
type Keyed<'t> = (&'t str, &'t [words::Word], &'t seeds::KeyList);

fn check(params: &Params) -> Result<(), AlignError> {
    let bad = |what: String| Err(AlignError::BadParameter(what));
    if !(1..=MAX_SEED_WORDS).contains(&params.seed_words) {
        return bad(format!("seed_words is {}, not 1 to {MAX_SEED_WORDS}", params.seed_words));
    }
    if !(0.0..=1.0).contains(&params.min_similarity) {
        return bad(format!("min_similarity is {}, not 0 to 1", params.min_similarity));
    }
    if params.max_key_occurrences == 0 || params.max_seeds == 0 {
        return bad("max_key_occurrences and max_seeds must be at least 1: no seed could be found".into());
    }
    if params.max_text_bytes > MAX_TEXT_BYTES {
        return bad(format!("max_text_bytes is {}, more than {MAX_TEXT_BYTES}", params.max_text_bytes));
    }
    Ok(())
}

/// The number of words in `text`: its alphanumeric runs, stopwords
/// included, two letters of a script written without spaces (Chinese,
/// Japanese, Thai…) counting one (how long a passage is, in about the
/// words a reader counts, in every script).
pub fn word_count(text: &str) -> usize {
    words::count(text)
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
        assert_eq!(crate::AlignError::REASONS, ["text_too_large", "too_many_seeds", "bad_parameter"]);
    }
}
