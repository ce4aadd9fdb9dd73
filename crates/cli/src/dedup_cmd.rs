//! `priorart dedup`: every near-duplicate pair of a collection, verified.
//!
//! Candidates are the pairs within simhash-doc distance k (the index's
//! permuted tables); each candidate is verified by the exact Jaccard
//! similarity of the two texts' word 5-gram sets, and kept at or above
//! `--min-jaccard`. Kept pairs are clustered (connected components); each
//! cluster's representative is its earliest document in input order, so
//! keeping the representatives and dropping the rest deduplicates the
//! collection deterministically.
//!
//! Memory: the shingle sets of every document (8 bytes per distinct word
//! 5-gram, about 1.5 times the text's size for prose), plus, while
//! candidates are found, one sorted table (16 bytes per document) per
//! thread.

use crate::corpus::{self, CorpusArgs, Fingerprinted};
use crate::exit::{self, UsageError};
use anyhow::{Context, Result, bail};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use priorart_fingerprint::SimhashDoc;
use priorart_index::{Layout, Pair};
use rayon::prelude::*;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(after_help = "\
Writes OUT/pairs.jsonl ({\"a\", \"b\", \"hamming\", \"jaccard\"} per verified pair) and
OUT/clusters.jsonl ({\"representative\", \"size\", \"members\"} per cluster of two or more).

Examples:
  priorart dedup corpus/*.html --out dups
  priorart dedup --jsonl docs.jsonl --id-field id -k 3 --min-jaccard 0.9 --out dups

Exit codes: 0 ok, 1 bad input (reported, the rest still processed), 2 usage error.")]
pub struct Args {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Largest simhash-doc distance of a candidate pair. 6 by default:
    /// verification removes the extra candidates, and on the Debian corpus
    /// k = 6 finds 0.99 of the J5 >= 0.8 pairs where k = 3 (the lookup
    /// distance of the spec) finds 0.91 (BENCHMARKS.md).
    #[arg(short, long, default_value_t = 6)]
    k: u32,
    /// Smallest Jaccard similarity of word 5-grams of a kept pair.
    #[arg(long, default_value_t = 0.8)]
    min_jaccard: f64,
    /// Output directory (created).
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.min_jaccard) {
        bail!(UsageError("--min-jaccard must be between 0 and 1".into()));
    }
    let layout = Layout::for_distance(args.k).map_err(|err| UsageError(err.to_string()))?;
    let mut documents: Vec<Fingerprinted> = Vec::new();
    let skipped = corpus::fingerprint_all(&args.corpus, corpus::WithX::No, |batch| {
        documents.extend(batch);
        Ok(())
    })?;
    let candidates = candidate_pairs(&documents, &layout, args.k)?;
    let pairs = verify(&documents, &candidates, args.min_jaccard);
    let clusters = clusters(documents.len(), &pairs);
    write_outputs(&args.out, &documents, &pairs, &clusters)?;
    let removable: usize = clusters.iter().map(|members| members.len() - 1).sum();
    note!(
        "priorart: {} documents ({skipped} skipped), {} candidate pairs within k={}, {} verified at jaccard >= {}, {} clusters, {removable} documents removable",
        documents.len(),
        candidates.len(),
        args.k,
        pairs.len(),
        args.min_jaccard,
        clusters.len()
    );
    Ok(ExitCode::from(if skipped > 0 { exit::BAD_INPUT } else { exit::OK }))
}

fn bar(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64).with_style(
        ProgressStyle::with_template("{msg}: {wide_bar} {human_pos}/{human_len} {per_sec} eta {eta}")
            .expect("a valid template"),
    );
    bar.set_message(what.to_owned());
    bar
}

/// Every pair `(a, b)`, `a < b`, within distance `k`, with its distance
/// (a self-join of the layout's tables, every table on rayon's pool).
fn candidate_pairs(documents: &[Fingerprinted], layout: &Layout, k: u32) -> Result<Vec<Pair>> {
    let values: Vec<u64> = documents.iter().map(|d| d.simhash.0).collect();
    let progress = ProgressBar::new_spinner().with_message("candidates");
    progress.enable_steady_tick(std::time::Duration::from_millis(200));
    let pairs = priorart_index::all_pairs(&values, layout, k)?;
    progress.finish_and_clear();
    Ok(pairs)
}

/// The candidates whose exact word 5-gram Jaccard is at least `min`.
fn verify(documents: &[Fingerprinted], candidates: &[Pair], min: f64) -> Vec<(u32, u32, u32, f64)> {
    let progress = bar(candidates.len(), "verifying");
    let pairs = candidates
        .par_iter()
        .filter_map(|&Pair { a, b, distance }| {
            progress.inc(1);
            let jaccard = documents[a as usize].shingles.jaccard(&documents[b as usize].shingles);
            (jaccard >= min).then_some((a, b, distance, jaccard))
        })
        .collect();
    progress.finish_and_clear();
    pairs
}

/// Connected components of two or more documents, each sorted, its
/// representative (the earliest document) first; clusters in order of
/// their representative.
fn clusters(count: usize, pairs: &[(u32, u32, u32, f64)]) -> Vec<Vec<u32>> {
    let mut parent: Vec<u32> = (0..count as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for &(a, b, _, _) in pairs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            // The smaller number is the root, so the root is the earliest member.
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let mut members: std::collections::BTreeMap<u32, Vec<u32>> = std::collections::BTreeMap::new();
    for x in 0..count as u32 {
        let r = root(&mut parent, x);
        members.entry(r).or_default().push(x);
    }
    members.into_values().filter(|members| members.len() > 1).collect()
}

fn write_outputs(
    dir: &std::path::Path,
    documents: &[Fingerprinted],
    pairs: &[(u32, u32, u32, f64)],
    clusters: &[Vec<u32>],
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let id = |n: u32| documents[n as usize].id.as_str();
    let mut lines = Vec::new();
    for &(a, b, distance, jaccard) in pairs {
        writeln!(lines, "{}", json!({"a": id(a), "b": id(b), "hamming": distance, "jaccard": jaccard}))?;
    }
    priorart_files::write_atomic(&dir.join("pairs.jsonl"), &lines)?;
    let mut lines = Vec::new();
    for members in clusters {
        let ids: Vec<&str> = members.iter().map(|&n| id(n)).collect();
        let simhash = SimhashDoc(documents[members[0] as usize].simhash.0).to_string();
        writeln!(
            lines,
            "{}",
            json!({"representative": ids[0], "size": ids.len(), "members": ids, "simhash-doc": simhash})
        )?;
    }
    priorart_files::write_atomic(&dir.join("clusters.jsonl"), &lines)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_are_components_led_by_their_earliest_member() {
        let pairs = [(3, 5, 0, 1.0), (1, 2, 0, 1.0), (5, 7, 0, 1.0), (2, 7, 1, 0.9)];
        assert_eq!(clusters(9, &pairs), vec![vec![1, 2, 3, 5, 7]]);
        assert_eq!(clusters(4, &[(2, 3, 0, 1.0)]), vec![vec![2, 3]]);
        assert!(clusters(3, &[]).is_empty());
    }
}
