//! The files `dedup` writes, as bytes: `pairs.jsonl` and `clusters.jsonl`
//! (and `survivors.jsonl` against an index, [`crate::against`]), one
//! serialized line type each, whose JSON Schemas `crates/schema` writes to
//! `schemas/` (their formats are stable; GUIDE.md).

use crate::catalog::{Catalog, Kept, Sketches};
use crate::{Outcome, VerifiedPair, standard_error};
use priorart_fingerprint::SimhashDoc;
use priorart_index::Verification;
use serde::Serialize;

/// A line of `pairs.jsonl`: two documents near each other.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "DedupPair"))]
pub struct PairLine<'a> {
    /// The first document's id: the earlier in the input, or (against an
    /// index) the index's.
    pub a: &'a str,
    /// The second document's id.
    pub b: &'a str,
    /// The Hamming distance of their simhash-doc values.
    pub hamming: u32,
    /// The Jaccard similarity of their word 5-grams: exact, or estimated
    /// from the index's sketches (`verification`); `null` for a pair with
    /// an index document that has no sketch.
    pub jaccard: Option<f64>,
    /// Where `jaccard` is estimated from bottom-k sketches (an input read
    /// once: standard input): its standard error, to 4 decimals (0 where
    /// the estimate is exact).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jaccard_standard_error: Option<f64>,
    /// Against an index: how `jaccard` is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
}

/// A line of `clusters.jsonl`: a connected group of two or more near
/// duplicates.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "DedupCluster"))]
pub struct ClusterLine<'a> {
    /// The member a deduplication keeps: the first in the input, or
    /// (against an index) the index's first.
    pub representative: &'a str,
    /// How many members.
    pub size: usize,
    /// Every member's id, the representative first.
    pub members: Vec<&'a str>,
    /// Against an index: the members that are the index's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_index: Option<Vec<&'a str>>,
    /// The representative's simhash-doc value (13 base32hex digits).
    #[serde(rename = "simhash-doc")]
    pub simhash_doc: String,
}

/// A line of `survivors.jsonl` (`dedup --against`): a new document kept.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "DedupSurvivor"))]
pub struct SurvivorLine<'a> {
    /// Its id.
    pub id: &'a str,
}

/// `line` as one line of JSON Lines: its JSON and a newline.
pub(crate) fn json_line<T: Serialize>(line: &T) -> String {
    let mut text = serde_json::to_string(line).expect("a line serializes");
    text.push('\n');
    text
}

/// `lines` as JSON Lines.
pub(crate) fn jsonl<T: Serialize>(lines: impl IntoIterator<Item = T>) -> Vec<u8> {
    let mut out = Vec::new();
    for line in lines {
        serde_json::to_writer(&mut out, &line).expect("a line serializes");
        out.push(b'\n');
    }
    out
}

/// A [`PairLine`] per verified pair; with sketches also its
/// `jaccard_standard_error`.
pub fn pair_lines<K: Kept>(catalog: &Catalog<K>, outcome: &Outcome, sketches: Option<&Sketches>) -> Vec<u8> {
    let ids = catalog.ids();
    jsonl(outcome.pairs.iter().map(|&VerifiedPair { a, b, distance, jaccard }| PairLine {
        a: ids.get(a),
        b: ids.get(b),
        hamming: distance,
        jaccard: Some(jaccard),
        jaccard_standard_error:
            sketches.map(|sketches| (standard_error(jaccard, sketches.exact(a, b)) * 1e4).round() / 1e4),
        verification: None,
    }))
}

/// A [`ClusterLine`] per cluster of two or more.
pub fn cluster_lines<K: Kept>(catalog: &Catalog<K>, outcome: &Outcome) -> Vec<u8> {
    let ids = catalog.ids();
    jsonl(outcome.clusters.iter().map(|numbers| {
        let members: Vec<&str> = numbers.iter().map(|&n| ids.get(n)).collect();
        ClusterLine {
            representative: members[0],
            size: members.len(),
            members,
            from_index: None,
            simhash_doc: SimhashDoc(catalog.simhashes()[numbers[0] as usize]).to_string(),
        }
    }))
}
