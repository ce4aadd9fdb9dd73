//! The two files `dedup` writes, as bytes: `pairs.jsonl` and
//! `clusters.jsonl` (their formats are stable; GUIDE.md).

use crate::catalog::{Catalog, Kept, Sketches};
use crate::{Outcome, VerifiedPair, standard_error};
use priorart_fingerprint::SimhashDoc;
use std::fmt::Write;

/// A JSON string.
fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// A JSON number for a similarity (serde_json's shortest round trip).
fn number(value: f64) -> String {
    serde_json::Value::from(value).to_string()
}

/// `{"a", "b", "hamming", "jaccard"}` per verified pair; with sketches
/// also `"jaccard_standard_error"` (0 where the estimate is exact).
pub fn pair_lines<K: Kept>(catalog: &Catalog<K>, outcome: &Outcome, sketches: Option<&Sketches>) -> Vec<u8> {
    let ids = catalog.ids();
    let mut lines = String::new();
    for &VerifiedPair { a, b, distance, jaccard } in &outcome.pairs {
        let _ = write!(
            lines,
            "{{\"a\":{},\"b\":{},\"hamming\":{distance},\"jaccard\":{}",
            quoted(ids.get(a)),
            quoted(ids.get(b)),
            number(jaccard)
        );
        if let Some(sketches) = sketches {
            let error = standard_error(jaccard, sketches.exact(a, b));
            let _ = write!(lines, ",\"jaccard_standard_error\":{}", number((error * 1e4).round() / 1e4));
        }
        lines.push_str("}\n");
    }
    lines.into_bytes()
}

/// `{"representative", "size", "members", "simhash-doc"}` per cluster of
/// two or more (the representative's simhash-doc value).
pub fn cluster_lines<K: Kept>(catalog: &Catalog<K>, outcome: &Outcome) -> Vec<u8> {
    let ids = catalog.ids();
    let mut lines = String::new();
    for members in &outcome.clusters {
        let names: Vec<String> = members.iter().map(|&n| quoted(ids.get(n))).collect();
        let simhash = SimhashDoc(catalog.simhashes()[members[0] as usize]).to_string();
        let _ = writeln!(
            lines,
            "{{\"representative\":{},\"size\":{},\"members\":[{}],\"simhash-doc\":{}}}",
            names[0],
            names.len(),
            names.join(","),
            quoted(&simhash)
        );
    }
    lines.into_bytes()
}
