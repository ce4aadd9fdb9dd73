//! Near-duplicate lookup at archive scale: the lsh-interop spec's permuted
//! tables over 64-bit simhash-doc values (any Hamming distance, through
//! [`Layout`]), exact `X` (minhash-equality-v1) equality, and per-document
//! shingle sketches to verify a candidate's real similarity; persistent in
//! memory-mapped segment files under one directory ([`Index`]).
//!
//! simhash-doc within k = 3 is a candidate filter, not an answer: long
//! unrelated texts often land within a few bits. A query with text ranks
//! each candidate by the Jaccard similarity of word shingles *estimated*
//! from the stored sketches ([`Match::jaccard_estimate`]: the index keeps
//! no text), and `priorart dedup` verifies with exact shingle sets.
//! [`all_pairs`] finds every pair of a collection within `k` (a self-join
//! of the tables, for batch deduplication), and [`clusters`] groups the
//! verified pairs.
//!
//! [`Index::pairs_with`] joins new documents with an index
//! (`priorart dedup --against`), and [`read_list`] / [`list_line`] carry
//! simhash-doc values between archives without texts (`priorart index
//! export`, `index add --simhash`).
//!
//! Front ends build [`Entry`]s and [`Query`]s from text here
//! ([`Entry::of_text`], [`Query::of_text`]), so that every one indexes and
//! looks up a text the same way; [`MemoryIndex`] is an index to insert into
//! and query in memory, then save as a directory that [`Index::open`]
//! reads. A [`MarkSpool`] takes each document's passage marks as it is
//! read, on disk ([`Index::build_spooled`], [`Index::add_spooled`]), so
//! that building an index with marks needs memory for the entries, not for
//! the texts; an [`EntrySpool`] takes the entries so
//! ([`Index::build_from_spool`], [`Index::add_from_spool`]): a few dozen
//! bytes a document in memory, not their sketches.

#[macro_use]
extern crate priorart_reason;

/// The table layouts live with simhash-doc (pure, shared with the NIP's
/// discovery tags); the index's modules name them as before.
use priorart_fingerprint::layout;

mod against;
mod cluster;
mod document;
mod entry_spool;
mod index;
mod marks;
mod memory;
mod pairs;
mod passages;
mod query;
mod section_reader;
mod segment;
mod simhash_list;
mod spool;
mod temporary;

pub use against::{IndexPair, Member, Verification, clusters_with_index, standard_error, survivors};
pub use cluster::{VerifiedPair, clusters};
pub use document::{SKETCH_WIDTH, sketch};
pub use entry_spool::EntrySpool;
pub use index::{Index, IndexError};
pub use memory::MemoryIndex;
pub use pairs::{CrossPair, Pair, all_pairs, cross_pairs};
pub use passages::{
    BoilerplateJson, BoilerplateSpan, ByteRangeJson, CHAIN_GAP, IndexedPassage, IndexedPassageJson,
    PassageAnswer, PassageAnswerJson, PassageMatch, PassageMatchJson, PassageSearch, TextSpanJson,
};
pub use priorart_fingerprint::layout::{
    DistanceTooLarge, Layout, LayoutError, MAX_DISTANCE, MAX_TABLES, Table, TableKeys,
};
pub use query::{Answer, AnswerJson, Match, MatchJson, Query};
pub use segment::{Entry, Hit, Segment, SegmentError, encode, sketch_jaccard, write};
pub use simhash_list::{ListError, MAX_LINE_BYTES, list_line, read_list};
pub use spool::MarkSpool;

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        for names in [
            crate::SegmentError::REASONS,
            crate::IndexError::REASONS,
            crate::LayoutError::REASONS,
            crate::ListError::REASONS,
        ] {
            priorart_reason::check_names(names).unwrap();
        }
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::*;
        assert_eq!(
            IndexError::REASONS,
            [
                "segment",
                "file",
                "missing",
                "manifest",
                "layout_mismatch",
                "distance_too_large",
                "directory",
                "duplicate_ids",
                "no_marks",
                "text",
                "marks_count"
            ]
        );
    }
}
