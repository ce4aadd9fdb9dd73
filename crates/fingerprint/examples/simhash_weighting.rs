//! Would a damped token weighting make simhash-doc a better candidate filter?
//!
//! simhash-doc (docs/simhash-doc.md) gives every occurrence of a token one
//! vote, so in long texts frequent function words decide the bits and
//! unrelated long documents land within a few bits of each other. This
//! measures two damped weightings over the same tokens and token hashes:
//! one vote per distinct token, and `1 + ln(count)` votes. For each, every
//! pair of the corpus is compared (brute force) and the pairs within `k`
//! bits are scored against the ground truth (word 5-gram Jaccard ≥ 0.8,
//! `scripts/eval/dedup-quality.py` writes it).
//!
//! ```sh
//! bash scripts/corpus/build.sh && scripts/eval/dedup-quality.py   # corpus and ground truth
//! cargo run --release -p priorart-fingerprint --example simhash_weighting -- /tmp/priorart-corpus
//! ```
//!
//! The spec's weighting is recomputed here from the explanation's tokens and
//! checked against the library's simhash-doc value for every document.

use priorart_fingerprint::{SimhashDocExplanation, TokenRule, explain_simhash_doc, simhash_doc_v2};
use std::collections::{HashMap, HashSet};
use std::io::BufRead;

/// Largest distance tabulated.
const MAX_K: usize = 10;

/// How a token's occurrences turn into votes.
#[derive(Clone, Copy)]
enum Weighting {
    /// The spec: one vote per occurrence.
    Occurrences,
    /// One vote per distinct token.
    Distinct,
    /// `1 + ln(count)` votes.
    Logarithmic,
}

impl Weighting {
    const ALL: [Weighting; 3] = [Weighting::Occurrences, Weighting::Distinct, Weighting::Logarithmic];

    fn name(self) -> &'static str {
        match self {
            Weighting::Occurrences => "simhash-doc (one vote per occurrence, the spec)",
            Weighting::Distinct => "one vote per distinct token",
            Weighting::Logarithmic => "1 + ln(count) votes",
        }
    }

    fn votes(self, count: u32) -> f64 {
        match self {
            Weighting::Occurrences => f64::from(count),
            Weighting::Distinct => 1.0,
            Weighting::Logarithmic => 1.0 + f64::from(count).ln(),
        }
    }
}

/// The three values of one text, in the order of [`Weighting::ALL`].
fn fingerprints(text: &str) -> [u64; 3] {
    let explanation = explain_simhash_doc(text, TokenRule::V2);
    let mut counts: HashMap<&str, u32> = HashMap::new();
    for token in &explanation.tokens {
        *counts.entry(token.as_str()).or_default() += 1;
    }
    let features: Vec<(u64, u32)> =
        counts.iter().map(|(token, &count)| (SimhashDocExplanation::feature(token), count)).collect();
    let values = Weighting::ALL.map(|weighting| {
        let mut sums = [0f64; 64];
        for &(feature, count) in &features {
            let votes = weighting.votes(count);
            for (bit, sum) in sums.iter_mut().enumerate() {
                *sum += if feature >> bit & 1 == 1 { votes } else { -votes };
            }
        }
        sums.iter()
            .enumerate()
            .fold(0u64, |value, (bit, &sum)| if sum > 0.0 { value | 1 << bit } else { value })
    });
    assert_eq!(
        values[0],
        simhash_doc_v2(text).0,
        "the spec's weighting recomputed differs from the library's"
    );
    values
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let corpus = std::env::args().nth(1).unwrap_or_else(|| "/tmp/priorart-corpus".into());
    let corpus = std::path::Path::new(&corpus);
    let mut texts: Vec<String> = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(corpus.join("docs.jsonl"))?).lines() {
        let record: serde_json::Value = serde_json::from_str(&line?)?;
        texts.push(record["text"].as_str().ok_or("a record without text")?.to_owned());
    }
    let truth: Vec<(u32, u32)> =
        serde_json::from_reader(std::fs::File::open(corpus.join("truth-j5-0.8.json"))?)?;
    let truth: HashSet<(u32, u32)> = truth.into_iter().collect();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let chunk = texts.len().div_ceil(threads);
    let values: Vec<[u64; 3]> = std::thread::scope(|scope| {
        let workers: Vec<_> = texts
            .chunks(chunk)
            .map(|texts| scope.spawn(move || texts.iter().map(|text| fingerprints(text)).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().flat_map(|worker| worker.join().expect("a fingerprinting thread")).collect()
    });
    println!("{} documents, {} ground-truth pairs (J5 >= 0.8)\n", texts.len(), truth.len());
    for (w, weighting) in Weighting::ALL.into_iter().enumerate() {
        let (within, true_within) = histogram(&values, w, &truth);
        println!(
            "{}\n\n| k | pairs within k | recall | precision |\n|---:|---:|---:|---:|",
            weighting.name()
        );
        let (mut pairs, mut found) = (0u64, 0u64);
        for k in 0..=MAX_K {
            pairs += within[k];
            found += true_within[k];
            let recall = found as f64 / truth.len() as f64;
            let precision = if pairs == 0 { 1.0 } else { found as f64 / pairs as f64 };
            println!("| {k} | {pairs} | {recall:.3} | {precision:.3} |");
        }
        println!();
    }
    Ok(())
}

/// For each distance up to [`MAX_K`]: how many pairs, and how many
/// ground-truth pairs, are exactly that far apart under weighting `w`.
fn histogram(
    values: &[[u64; 3]],
    w: usize,
    truth: &HashSet<(u32, u32)>,
) -> ([u64; MAX_K + 1], [u64; MAX_K + 1]) {
    let mut within = [0u64; MAX_K + 1];
    let mut true_within = [0u64; MAX_K + 1];
    for (i, a) in values.iter().enumerate() {
        for (j, b) in values.iter().enumerate().skip(i + 1) {
            let distance = (a[w] ^ b[w]).count_ones() as usize;
            if distance <= MAX_K {
                within[distance] += 1;
                if truth.contains(&(i as u32, j as u32)) {
                    true_within[distance] += 1;
                }
            }
        }
    }
    (within, true_within)
}
