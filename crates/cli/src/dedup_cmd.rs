//! `priorart dedup`: every near-duplicate pair of a collection, verified.
//!
//! Candidates are the pairs within simhash-doc distance k (the index's
//! permuted tables); each candidate is verified by the exact Jaccard
//! similarity of the two texts' word 5-gram sets, and kept at or above
//! `--min-jaccard`. Kept pairs are clustered (connected components); each
//! cluster's representative is its earliest document in input order, so
//! keeping the representatives and dropping the rest deduplicates the
//! collection deterministically. With `--against INDEX`, the documents
//! are also paired with the index's (`dedup_against`).
//!
//! Memory: the shingle sets of every document (8 bytes per distinct word
//! 5-gram, about 1.5 times the text's size for prose), plus, while
//! candidates are found, one sorted table (16 bytes per document) per
//! thread.

use crate::corpus::{self, CorpusArgs, Fingerprinted};
use crate::exit::{self, UsageError};
use anyhow::{Result, bail};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use priorart_fingerprint::{Shingling, SimhashDoc};
use priorart_index::{Layout, Pair, VerifiedPair};
use rayon::prelude::*;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(after_help = "\
Writes OUT/pairs.jsonl ({\"a\", \"b\", \"hamming\", \"jaccard\"} per verified pair) and
OUT/clusters.jsonl ({\"representative\", \"size\", \"members\"} per cluster of two or more).

Examples:
  priorart dedup corpus/*.html --out dups
  priorart dedup --jsonl docs.jsonl --id-field id -k 3 --min-jaccard 0.9 --out dups
  priorart dedup --jsonl new.jsonl --id-field id --against archive.idx --add --out dups

With --against INDEX, the documents are paired with each other and with INDEX's documents
(never INDEX's with each other): a pair with an index document has `a` from the index and
\"verification\": \"estimated\" (its jaccard estimated from the index's sketches) or \"unverified\"
(the index document has no sketch: found by distance alone); pairs of two new documents are
\"exact\". OUT/survivors.jsonl ({\"id\"} per line) lists the documents that are no near copy of
INDEX or of an earlier document; --add adds them to INDEX.

An input named twice (or two names of one file) is read once; an id given to two documents
(--id-field) is an error; empty texts are skipped and counted. A run that read no document, or
that could not read an input while OUT holds earlier results, writes nothing and says so.

Exit codes: 0 ok, 1 bad input (reported, the rest still processed), 2 usage error.")]
pub struct Args {
    #[command(flatten)]
    pub(crate) corpus: CorpusArgs,
    /// Largest simhash-doc distance of a candidate pair. 6 by default:
    /// verification removes the extra candidates, and on the Debian corpus
    /// k = 6 finds 0.99 of the J5 >= 0.8 pairs where k = 3 (the lookup
    /// distance of the spec) finds 0.91 (BENCHMARKS.md).
    #[arg(short, long, default_value_t = 6)]
    pub(crate) k: u32,
    /// Smallest Jaccard similarity of word 5-grams of a kept pair.
    #[arg(long, default_value_t = 0.8)]
    pub(crate) min_jaccard: f64,
    /// How texts are cut into words for their 5-grams: words (lowercased
    /// \w+ runs, as other dedup tools and ground truths; the default) or
    /// tokens (simhash-doc's tokens: numbers and identifiers dropped). With
    /// --against, the index's.
    #[arg(long, value_name = "SHINGLING")]
    pub(crate) shingles: Option<Shingling>,
    /// Also pair the documents with those of this index (`priorart index
    /// build`), and list the survivors.
    #[arg(long, value_name = "INDEX")]
    pub(crate) against: Option<PathBuf>,
    /// Add the survivors to the --against index (one new segment).
    #[arg(long, requires = "against")]
    pub(crate) add: bool,
    /// Output directory (created).
    #[arg(long)]
    pub(crate) out: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.min_jaccard) {
        bail!(UsageError("--min-jaccard must be between 0 and 1".into()));
    }
    let layout = Layout::for_distance(args.k).map_err(|err| UsageError(err.to_string()))?;
    if let Some(index) = &args.against {
        return crate::dedup_against::run(&args, index, &layout);
    }
    let shingling = args.shingles.unwrap_or_default();
    let mut documents: Vec<Fingerprinted> = Vec::new();
    let read = corpus::fingerprint_all(&args.corpus, corpus::WithX::No, shingling, |batch| {
        documents.extend(batch);
        Ok(())
    })?;
    let outputs = [args.out.join(PAIRS), args.out.join(CLUSTERS)];
    let earlier = outputs.iter().any(|path| path.exists());
    refuse_incomplete(documents.len(), &read, &args.out, earlier)?;
    let candidates = candidate_pairs(&documents, &layout, args.k)?;
    let pairs = verify(&documents, &candidates, args.min_jaccard);
    let clusters = priorart_index::clusters(documents.len(), pairs.iter().map(|pair| (pair.a, pair.b)));
    write_outputs(&outputs, &documents, &pairs, &clusters)?;
    let removable: usize = clusters.iter().map(|members| members.len() - 1).sum();
    note!(
        "priorart: {} documents ({} skipped), {} candidate pairs within k={}, {} verified at jaccard >= {}, {} clusters, {removable} documents removable",
        documents.len(),
        read.skipped(),
        candidates.len(),
        args.k,
        pairs.len(),
        args.min_jaccard,
        clusters.len()
    );
    let verb = if earlier { "replaced the earlier results in" } else { "wrote" };
    note!("priorart: {verb} {} and {}", outputs[0].display(), outputs[1].display());
    Ok(ExitCode::from(if read.had_errors() { exit::BAD_INPUT } else { exit::OK }))
}

/// The pairs file of an output directory.
pub(crate) const PAIRS: &str = "pairs.jsonl";
/// The clusters file of an output directory.
pub(crate) const CLUSTERS: &str = "clusters.jsonl";

/// An error when nothing was read, or when an input was missed while
/// `out` holds `earlier` results (results without a whole input are not
/// the results the user had: those are kept until every input is read).
pub(crate) fn refuse_incomplete(documents: usize, read: &corpus::Summary, out: &Path, earlier: bool) -> Result<()> {
    if documents == 0 {
        bail!("no document to deduplicate{}", left_as_it_was(out, earlier));
    }
    if read.failed_inputs > 0 && earlier {
        bail!(
            "{} input(s) could not be read, so the results would be incomplete{}",
            read.failed_inputs,
            left_as_it_was(out, earlier)
        );
    }
    Ok(())
}

/// "; OUT left as it was" (or "; nothing written").
fn left_as_it_was(out: &Path, earlier: bool) -> String {
    if earlier { format!("; {} left as it was", out.display()) } else { "; nothing written".to_owned() }
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
pub(crate) fn candidate_pairs(documents: &[Fingerprinted], layout: &Layout, k: u32) -> Result<Vec<Pair>> {
    let values: Vec<u64> = documents.iter().map(|d| d.simhash.0).collect();
    let progress = ProgressBar::new_spinner().with_message("candidates");
    progress.enable_steady_tick(std::time::Duration::from_millis(200));
    let pairs = priorart_index::all_pairs(&values, layout, k)?;
    progress.finish_and_clear();
    Ok(pairs)
}

/// The candidates whose exact word 5-gram Jaccard is at least `min`.
pub(crate) fn verify(documents: &[Fingerprinted], candidates: &[Pair], min: f64) -> Vec<VerifiedPair> {
    let progress = bar(candidates.len(), "verifying");
    let pairs = candidates
        .par_iter()
        .filter_map(|&Pair { a, b, distance }| {
            progress.inc(1);
            let jaccard = documents[a as usize].shingles.jaccard(&documents[b as usize].shingles);
            (jaccard >= min).then_some(VerifiedPair { a, b, distance, jaccard })
        })
        .collect();
    progress.finish_and_clear();
    pairs
}

/// Writes the pairs and the clusters, both or neither (each replaced only
/// once both new files are complete).
fn write_outputs(
    [pairs_path, clusters_path]: &[PathBuf; 2],
    documents: &[Fingerprinted],
    pairs: &[VerifiedPair],
    clusters: &[Vec<u32>],
) -> Result<()> {
    let id = |n: u32| documents[n as usize].id.as_str();
    let mut pair_lines = Vec::new();
    for &VerifiedPair { a, b, distance, jaccard } in pairs {
        writeln!(pair_lines, "{}", json!({"a": id(a), "b": id(b), "hamming": distance, "jaccard": jaccard}))?;
    }
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
    priorart_files::replace_all(&[(pairs_path.clone(), pair_lines), (clusters_path.clone(), lines)])?;
    Ok(())
}
