//! New documents deduplicated against an index (`priorart dedup --against
//! INDEX`, and `priorart.dedup(texts, against=INDEX)` in Python): the new
//! documents paired with each other (verified exactly, as `dedup` does)
//! and with the index's documents (verified by the Jaccard similarity
//! estimated from the index's sketches, or not at all where the index holds
//! none), never the index's with each other; the survivors and clusters.
//! Here so that every front end gives the same answer and writes the same
//! lines; the front ends read the documents and write the files.

use crate::output::{ClusterLine, PairLine, SurvivorLine, jsonl};
use crate::{Phase, Progress};
use priorart_fingerprint::{SimhashDoc, WordShingles};
use priorart_index::{Index, IndexError, IndexPair, Layout, Member, Pair, Verification, VerifiedPair};
use rayon::prelude::*;

/// A new document: its id, simhash-doc value and word shingles (cut by the
/// index's shingling: only those compare with its sketches).
#[derive(Debug, Clone, Copy)]
pub struct NewDocument<'a> {
    /// The user's id.
    pub id: &'a str,
    /// Its simhash-doc value.
    pub simhash: u64,
    /// Its word shingles.
    pub shingles: &'a WordShingles,
}

/// What a deduplication against an index found; documents are numbered by
/// their position in the slice given to [`against`].
#[derive(Debug, Clone, Default)]
pub struct Against {
    /// Candidate pairs of new documents (before verification).
    pub candidates: usize,
    /// Pairs with index documents, kept (estimated or unverified), sorted
    /// by new document, then index document.
    pub index_pairs: Vec<IndexPair>,
    /// Pairs of new documents whose exact Jaccard is at least the
    /// threshold, `a < b`.
    pub new_pairs: Vec<VerifiedPair>,
    /// New documents found near an index document of their own id: that
    /// document again (a second run), neither a pair nor a survivor.
    pub again: Vec<IndexPair>,
    /// The new documents kept, in order.
    pub survivors: Vec<u32>,
    /// Clusters led by their earliest member (an index document when they
    /// hold one).
    pub clusters: Vec<Vec<Member>>,
}

/// `documents` deduplicated against `index`: candidates within `k` bits
/// (by `layout`'s tables), kept at a Jaccard of at least `min_jaccard`.
/// `progress` hears of the candidates (not counted) and of each pair
/// verified.
pub fn against(
    index: &Index,
    documents: &[NewDocument<'_>],
    layout: &Layout,
    k: u32,
    min_jaccard: f64,
    progress: &dyn Progress,
) -> Result<Against, IndexError> {
    let values: Vec<u64> = documents.iter().map(|d| d.simhash).collect();
    progress.phase(Phase::Candidates, 0);
    let candidates = priorart_index::all_pairs(&values, layout, k)?;
    progress.phase(Phase::Verifying, candidates.len() as u64);
    let new_pairs: Vec<VerifiedPair> = candidates
        .par_iter()
        .filter_map(|&Pair { a, b, distance }| {
            progress.advance(1);
            let jaccard = documents[a as usize].shingles.jaccard(documents[b as usize].shingles);
            (jaccard >= min_jaccard).then_some(VerifiedPair { a, b, distance, jaccard })
        })
        .collect();
    let new: Vec<(u64, &WordShingles)> = documents.iter().map(|d| (d.simhash, d.shingles)).collect();
    let index_pairs = index.pairs_with(&new, layout, k, min_jaccard)?;
    let (again, index_pairs): (Vec<IndexPair>, Vec<IndexPair>) =
        index_pairs.into_iter().partition(|pair| pair.id == documents[pair.new as usize].id);
    let new_edges = || new_pairs.iter().map(|pair| (pair.a, pair.b));
    let survivors =
        priorart_index::survivors(documents.len(), &[&again[..], &index_pairs[..]].concat(), new_edges());
    let clusters = priorart_index::clusters_with_index(documents.len(), &index_pairs, new_edges());
    Ok(Against { candidates: candidates.len(), index_pairs, new_pairs, again, survivors, clusters })
}

impl Against {
    /// `pairs.jsonl`: a [`PairLine`] per pair with an index document (`a`
    /// the index's; `jaccard` the estimate, `null` where unverified), then
    /// per pair of new documents (`"exact"`).
    pub fn pair_lines(&self, documents: &[NewDocument<'_>]) -> Vec<u8> {
        let with_index = self.index_pairs.iter().map(|pair| PairLine {
            a: &pair.id,
            b: documents[pair.new as usize].id,
            hamming: pair.distance,
            jaccard: pair.jaccard_estimate,
            jaccard_standard_error: None,
            verification: Some(pair.verification()),
        });
        let new = self.new_pairs.iter().map(|&VerifiedPair { a, b, distance, jaccard }| PairLine {
            a: documents[a as usize].id,
            b: documents[b as usize].id,
            hamming: distance,
            jaccard: Some(jaccard),
            jaccard_standard_error: None,
            verification: Some(Verification::Exact),
        });
        jsonl(with_index.chain(new))
    }

    /// `clusters.jsonl`: a [`ClusterLine`] per cluster, with `from_index`
    /// (the members that are the index's; the representative's
    /// simhash-doc value).
    pub fn cluster_lines(&self, index: &Index, documents: &[NewDocument<'_>]) -> Vec<u8> {
        let mut lines = Vec::new();
        for members in &self.clusters {
            // Every member number comes from `index` and `documents`
            // themselves, so none is missing; one that were would be left
            // out rather than panic.
            let described: Vec<(String, u64, bool)> = members
                .iter()
                .filter_map(|&member| match member {
                    Member::Indexed(n) => {
                        index.document(n as usize).map(|entry| (entry.id, entry.simhash, true))
                    }
                    Member::New(n) => {
                        let document = &documents[n as usize];
                        Some((document.id.to_owned(), document.simhash, false))
                    }
                })
                .collect();
            let Some(first) = described.first() else { continue };
            let ids: Vec<&str> = described.iter().map(|(id, _, _)| id.as_str()).collect();
            let from_index =
                described.iter().filter(|(_, _, indexed)| *indexed).map(|(id, _, _)| id.as_str()).collect();
            lines.extend(jsonl([ClusterLine {
                representative: ids[0],
                size: ids.len(),
                members: ids,
                from_index: Some(from_index),
                simhash_doc: SimhashDoc(first.1).to_string(),
            }]));
        }
        lines
    }

    /// `survivors.jsonl`: a [`SurvivorLine`] per survivor, in order.
    pub fn survivor_lines(&self, documents: &[NewDocument<'_>]) -> Vec<u8> {
        jsonl(self.survivors.iter().map(|&n| SurvivorLine { id: documents[n as usize].id }))
    }
}
