//! New documents against an existing index (`priorart dedup --against`):
//! the pairs of a new document and an index document, kept by the Jaccard
//! similarity *estimated* from their sketches (the index keeps no text) or,
//! when the index document has no sketch, by distance alone (unverified);
//! which new documents survive (are not a near copy of the index or of an
//! earlier new document); and the clusters across both. Pairs among the
//! new documents are verified exactly by the caller (it holds their texts'
//! shingles); pairs inside the index are never looked at.
//!
//! How much an estimate can err: a bottom-k sketch estimate of J has a
//! standard error of about `sqrt(J (1 − J) / k)` ([`standard_error`]: 0.025
//! at J = 0.8 with k = 256), so a pair within two standard errors of the
//! threshold may fall on the wrong side of it. The measured error on the
//! Debian corpus is in BENCHMARKS.md.

use crate::cluster::clusters;
use crate::document::sketch;
use crate::index::{Index, IndexError};
use crate::layout::Layout;
use crate::pairs::{CrossPair, cross_pairs};
use crate::segment::sketch_jaccard;
use priorart_fingerprint::WordShingles;
use std::collections::BTreeMap;

/// How the similarity of a reported pair is known; in JSON, its name
/// (`exact`, `estimated`, `unverified`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "PairVerification"))]
pub enum Verification {
    /// From both documents' shingle sets (two new documents).
    Exact,
    /// From the sketches (a new document and an index document).
    Estimated,
    /// Not at all: the index document has no sketch (imported from a list
    /// of simhash-doc values); the pair is within the distance, no more.
    Unverified,
}

impl Verification {
    /// Its name in `pairs.jsonl` and in `--json` answers.
    pub const fn name(self) -> &'static str {
        match self {
            Verification::Exact => "exact",
            Verification::Estimated => "estimated",
            Verification::Unverified => "unverified",
        }
    }
}

/// A new document near an index document.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexPair {
    /// The new document's position.
    pub new: u32,
    /// The index document's number (the order of [`Index::simhashes`]).
    pub document: u32,
    /// The index document's id.
    pub id: String,
    /// Differing simhash-doc bits.
    pub distance: u32,
    /// The Jaccard similarity estimated from the two sketches, if the
    /// index document has one.
    pub jaccard_estimate: Option<f64>,
}

impl IndexPair {
    /// Estimated, or unverified (no sketch in the index).
    pub fn verification(&self) -> Verification {
        if self.jaccard_estimate.is_some() { Verification::Estimated } else { Verification::Unverified }
    }
}

/// The standard error of a Jaccard similarity `j` estimated from two
/// bottom-`width` sketches.
pub fn standard_error(j: f64, width: u32) -> f64 {
    (j * (1.0 - j) / f64::from(width.max(1))).sqrt()
}

impl Index {
    /// Every pair of a new document (its simhash-doc value and its
    /// shingles, cut by this index's [`Index::shingling`]) and an index
    /// document within distance `k`, kept when the Jaccard similarity
    /// estimated from the sketches is at least `min_jaccard` or when the
    /// index document has no sketch. Sorted by new document, then index
    /// document. The new documents are sorted into `layout`'s tables and
    /// joined with the index's values (any `layout`, whatever the index's
    /// own: its tables are not used), so `k` is bounded by `layout` alone.
    pub fn pairs_with(
        &self,
        new: &[(u64, &WordShingles)],
        layout: &Layout,
        k: u32,
        min_jaccard: f64,
    ) -> Result<Vec<IndexPair>, IndexError> {
        let values: Vec<u64> = new.iter().map(|&(simhash, _)| simhash).collect();
        let width = self.sketch_width();
        let candidates = cross_pairs(&values, &self.simhashes(), layout, k)?;
        let mut sketches: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
        let mut pairs = Vec::new();
        for CrossPair { new: n, old, distance } in candidates {
            let held = self.document(old as usize).expect("a number below the index's length");
            let jaccard_estimate = held.sketch.as_deref().map(|held| {
                let query = sketches.entry(n).or_insert_with(|| sketch(new[n as usize].1, width));
                sketch_jaccard(query, held, width as usize)
            });
            if jaccard_estimate.is_none_or(|j| j >= min_jaccard) {
                pairs.push(IndexPair { new: n, document: old, id: held.id, distance, jaccard_estimate });
            }
        }
        Ok(pairs)
    }
}

/// The new documents (of `count`) that survive, in order: in no pair with
/// an index document (`index_pairs`) and in no pair with an earlier new
/// document (`new_pairs`, `(a, b)` with `a < b`, verified). A document
/// paired only with later ones survives, so each near copy is dropped
/// in favour of the index's document or the earliest new one.
pub fn survivors(
    count: usize,
    index_pairs: &[IndexPair],
    new_pairs: impl IntoIterator<Item = (u32, u32)>,
) -> Vec<u32> {
    let mut copy = vec![false; count];
    for pair in index_pairs {
        copy[pair.new as usize] = true;
    }
    for (a, b) in new_pairs {
        copy[a.max(b) as usize] = true;
    }
    (0..count as u32).filter(|&n| !copy[n as usize]).collect()
}

/// A member of a cluster across the index and the new documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Member {
    /// An index document, by number.
    Indexed(u32),
    /// A new document, by position.
    New(u32),
}

/// The clusters (connected components of two or more) of the pairs with
/// index documents and among new documents, each led by its earliest
/// member: an index document when it has one (the index came first), else
/// the earliest new document.
pub fn clusters_with_index(
    count: usize,
    index_pairs: &[IndexPair],
    new_pairs: impl IntoIterator<Item = (u32, u32)>,
) -> Vec<Vec<Member>> {
    let mut indexed: Vec<u32> = index_pairs.iter().map(|pair| pair.document).collect();
    indexed.sort_unstable();
    indexed.dedup();
    let position = |document: u32| indexed.binary_search(&document).expect("listed") as u32;
    let offset = indexed.len() as u32;
    let edges = index_pairs
        .iter()
        .map(|pair| (position(pair.document), offset + pair.new))
        .chain(new_pairs.into_iter().map(|(a, b)| (offset + a, offset + b)));
    clusters(indexed.len() + count, edges)
        .into_iter()
        .map(|members| {
            members
                .into_iter()
                .map(
                    |m| {
                        if m < offset {
                            Member::Indexed(indexed[m as usize])
                        } else {
                            Member::New(m - offset)
                        }
                    },
                )
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(new: u32, document: u32) -> IndexPair {
        IndexPair { new, document, id: format!("old-{document}"), distance: 1, jaccard_estimate: Some(0.9) }
    }

    #[test]
    fn a_verification_serializes_as_its_name() {
        for verification in [Verification::Exact, Verification::Estimated, Verification::Unverified] {
            let json = serde_json::to_string(&verification).expect("a name serializes");
            assert_eq!(json, format!("\"{}\"", verification.name()));
        }
    }

    #[test]
    fn a_copy_of_the_index_or_of_an_earlier_new_document_does_not_survive() {
        // 0 copies the index; 2 copies 1; 3 copies 2 (itself a copy); 4 is new.
        let kept = survivors(5, &[pair(0, 7)], [(1, 2), (2, 3)]);
        assert_eq!(kept, [1, 4]);
        assert_eq!(survivors(2, &[], []), [0, 1]);
    }

    #[test]
    fn clusters_are_led_by_their_index_document() {
        let found = clusters_with_index(4, &[pair(2, 9), pair(3, 9), pair(0, 4)], [(0, 1)]);
        assert_eq!(
            found,
            [
                vec![Member::Indexed(4), Member::New(0), Member::New(1)],
                vec![Member::Indexed(9), Member::New(2), Member::New(3)],
            ]
        );
    }

    #[test]
    fn the_standard_error_of_an_estimate() {
        assert!((standard_error(0.8, 256) - 0.025).abs() < 1e-12);
        assert_eq!(standard_error(1.0, 256), 0.0);
    }
}
