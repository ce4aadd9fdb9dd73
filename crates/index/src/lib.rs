//! Near-duplicate lookup at archive scale: the lsh-interop spec's permuted
//! tables over 64-bit simhash-doc values (any Hamming distance, through
//! [`Layout`]), exact `X` (minhash-equality-v1) equality, and per-document
//! shingle sketches to verify a candidate's real similarity; persistent in
//! memory-mapped segment files under one directory ([`Index`]).
//!
//! simhash-doc within k = 3 is a candidate filter, not an answer: long
//! unrelated texts often land within a few bits. A query with text verifies
//! each candidate with the Jaccard similarity of word shingles (estimated
//! from the stored sketches), and `priorart dedup` with exact shingle sets.
//! [`all_pairs`] finds every pair of a collection within `k` (a self-join
//! of the tables, for batch deduplication).

mod index;
mod layout;
mod pairs;
mod segment;

pub use index::{Index, IndexError, Match};
pub use layout::{DistanceTooLarge, Layout, LayoutError, MAX_DISTANCE, MAX_TABLES, Table, TableKeys};
pub use pairs::{Pair, all_pairs};
pub use segment::{Entry, Hit, Segment, SegmentError, encode, sketch_jaccard, write};
