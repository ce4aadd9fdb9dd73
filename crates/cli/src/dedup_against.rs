//! `priorart dedup --against INDEX`: new documents paired with each other
//! (verified exactly, as `dedup` does) and with the documents of an index
//! (verified by the Jaccard similarity estimated from the index's sketches,
//! or not at all where the index holds none), never the index's with each
//! other; the survivors listed, and with `--add` added to the index. The
//! joining, estimating, survivors and clusters are the index crate's
//! (`Index::pairs_with`, `survivors`, `clusters_with_index`); this module
//! reads, prints and writes.

use crate::corpus::{self, Fingerprinted};
use crate::dedup_cmd::{Args, CLUSTERS, PAIRS, left_as_it_was};
use crate::exit::{self, UsageError};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use priorart_fingerprint::{SimhashDoc, WordShingles};
use priorart_index::{Entry, Index, IndexPair, Layout, Member, Pair, Verification, VerifiedPair};
use rayon::prelude::*;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The survivors file of an output directory.
const SURVIVORS: &str = "survivors.jsonl";

pub(crate) fn run(args: &Args, index_path: &Path, layout: &Layout) -> Result<ExitCode> {
    let mut index = Index::open(index_path)?;
    let shingling = index.shingling();
    if let Some(asked) = args.shingles.filter(|&asked| asked != shingling) {
        bail!(UsageError(format!(
            "--shingles {asked}: {} is sketched with {shingling} shingles, and only those compare with its sketches \
             (leave --shingles out)",
            index_path.display()
        )));
    }
    // The documents added need their X, as `index add` gives them one.
    let with_x = if args.add { corpus::WithX::Yes } else { corpus::WithX::No };
    let mut documents: Vec<Fingerprinted> = Vec::new();
    let read = corpus::fingerprint_all(&args.corpus, with_x, shingling, |batch| {
        documents.extend(batch);
        Ok(())
    })?;
    let outputs = [args.out.join(PAIRS), args.out.join(CLUSTERS), args.out.join(SURVIVORS)];
    let earlier = outputs.iter().any(|path| path.exists());
    refuse_incomplete(documents.len(), &read, &args.corpus, &args.out, earlier)?;
    let candidates = candidate_pairs(&documents, layout, args.k)?;
    let new_pairs = verify(&documents, &candidates, args.min_jaccard);
    let new: Vec<(u64, &WordShingles)> = documents.iter().map(|d| (d.simhash.0, &d.shingles)).collect();
    let index_pairs = index.pairs_with(&new, layout, args.k, args.min_jaccard)?;
    // A document whose id the index holds, found near it, is that document
    // again (a second run): not a pair, and not a survivor.
    let (again, index_pairs): (Vec<IndexPair>, Vec<IndexPair>) =
        index_pairs.into_iter().partition(|pair| pair.id == documents[pair.new as usize].id);
    let new_edges = || new_pairs.iter().map(|pair| (pair.a, pair.b));
    let survivors =
        priorart_index::survivors(documents.len(), &[&again[..], &index_pairs[..]].concat(), new_edges());
    let clusters = priorart_index::clusters_with_index(documents.len(), &index_pairs, new_edges());
    let written = Written { index: &index, documents: &documents };
    let mut files = vec![
        (outputs[0].clone(), written.pairs(&index_pairs, &new_pairs)?),
        (outputs[1].clone(), written.clusters(&clusters)?),
        (outputs[2].clone(), written.survivors(&survivors)?),
    ];
    if args.corpus.skip_unreadable {
        files.push((args.out.join(corpus::SKIPPED), read.unreadable_lines()));
    }
    priorart_files::replace_all(&files)?;
    summarize(args, &index, &documents, &read, (&index_pairs, &new_pairs), again.len(), survivors.len());
    note!(
        "priorart: {} {}, {} and {}",
        if earlier { "replaced the earlier results in" } else { "wrote" },
        outputs[0].display(),
        outputs[1].display(),
        outputs[2].display()
    );
    if args.add {
        add(&mut index, index_path, &documents, &survivors)?;
    }
    Ok(ExitCode::from(if read.had_errors() { exit::BAD_INPUT } else { exit::OK }))
}

/// What is written, by id.
struct Written<'a> {
    index: &'a Index,
    documents: &'a [Fingerprinted],
}

impl Written<'_> {
    fn id(&self, n: u32) -> &str {
        &self.documents[n as usize].id
    }

    /// Pairs with index documents (`a` from the index), then pairs of new
    /// documents.
    fn pairs(&self, index_pairs: &[IndexPair], new_pairs: &[VerifiedPair]) -> Result<Vec<u8>> {
        let mut lines = Vec::new();
        for pair in index_pairs {
            let line = json!({
                "a": pair.id,
                "b": self.id(pair.new),
                "hamming": pair.distance,
                "jaccard": pair.jaccard_estimate,
                "verification": pair.verification().name(),
            });
            writeln!(lines, "{line}")?;
        }
        for &VerifiedPair { a, b, distance, jaccard } in new_pairs {
            let line = json!({
                "a": self.id(a),
                "b": self.id(b),
                "hamming": distance,
                "jaccard": jaccard,
                "verification": Verification::Exact.name(),
            });
            writeln!(lines, "{line}")?;
        }
        Ok(lines)
    }

    /// Clusters led by their earliest member (an index document when they
    /// hold one); `from_index` names the members that are the index's.
    fn clusters(&self, clusters: &[Vec<Member>]) -> Result<Vec<u8>> {
        let mut lines = Vec::new();
        for members in clusters {
            let described: Vec<(String, u64, bool)> = members
                .iter()
                .map(|&member| match member {
                    Member::Indexed(n) => {
                        let entry = self.index.document(n as usize).context("an index document")?;
                        Ok((entry.id, entry.simhash, true))
                    }
                    Member::New(n) => {
                        let document = &self.documents[n as usize];
                        Ok((document.id.clone(), document.simhash.0, false))
                    }
                })
                .collect::<Result<_>>()?;
            let ids: Vec<&str> = described.iter().map(|(id, _, _)| id.as_str()).collect();
            let from_index: Vec<&str> =
                described.iter().filter(|(_, _, indexed)| *indexed).map(|(id, _, _)| id.as_str()).collect();
            let line = json!({
                "representative": ids[0],
                "size": ids.len(),
                "members": ids,
                "from_index": from_index,
                "simhash-doc": SimhashDoc(described[0].1).to_string(),
            });
            writeln!(lines, "{line}")?;
        }
        Ok(lines)
    }

    fn survivors(&self, survivors: &[u32]) -> Result<Vec<u8>> {
        let mut lines = Vec::new();
        for &n in survivors {
            writeln!(lines, "{}", json!({"id": self.id(n)}))?;
        }
        Ok(lines)
    }
}

/// The counts, and how far the estimated pairs can be trusted.
fn summarize(
    args: &Args,
    index: &Index,
    documents: &[Fingerprinted],
    read: &corpus::Summary,
    (index_pairs, new_pairs): (&[IndexPair], &[VerifiedPair]),
    again: usize,
    survivors: usize,
) {
    let estimated = index_pairs.iter().filter(|pair| pair.verification() == Verification::Estimated).count();
    let unverified = index_pairs.len() - estimated;
    note!(
        "priorart: {} ({} skipped) against {} indexed: {} with index documents, {} among the \
         documents (exact, jaccard >= {}), {}{}",
        crate::counted(documents.len() as u64, "document"),
        read.skipped(),
        index.len(),
        crate::counted(index_pairs.len() as u64, "pair"),
        new_pairs.len(),
        args.min_jaccard,
        crate::counted(survivors as u64, "survivor"),
        if again > 0 { format!(" ({again} already in the index under the same id)") } else { String::new() }
    );
    if estimated > 0 {
        let error = priorart_index::standard_error(args.min_jaccard, index.sketch_width());
        note!(
            "priorart: {estimated} pairs with index documents are kept by a jaccard *estimated* from {}-hash sketches \
             (\"verification\": \"estimated\"; the index keeps no text): its standard error is {error:.3} at {}, so a \
             pair within {:.3} of the threshold may fall on either side of it",
            index.sketch_width(),
            args.min_jaccard,
            2.0 * error
        );
    }
    if unverified > 0 {
        note!(
            "priorart: {unverified} pairs with index documents that have no sketch (imported simhash-doc values) are \
             found by distance alone (k = {}, \"verification\": \"unverified\")",
            args.k
        );
    }
}

/// Adds the survivors to the index, as one new segment (the index is left
/// as it was if that fails).
fn add(index: &mut Index, path: &Path, documents: &[Fingerprinted], survivors: &[u32]) -> Result<()> {
    let entries: Vec<Entry> = survivors
        .iter()
        .map(|&n| {
            let document = &documents[n as usize];
            Entry::from_fingerprints(document.id.clone(), document.simhash.0, document.x, &document.shingles)
        })
        .collect();
    if entries.is_empty() {
        note!("priorart: no survivor to add; {} left as it was", path.display());
        return Ok(());
    }
    index.add(&entries).with_context(|| format!("{}: nothing added", path.display()))?;
    note!(
        "priorart: added {} survivors to {} (now {} documents)",
        entries.len(),
        path.display(),
        index.len()
    );
    Ok(())
}

/// An error when nothing was read, or when an input was missed while
/// `out` holds `earlier` results (results without a whole input are not
/// the results the user had: those are kept until every input is read).
fn refuse_incomplete(
    documents: usize,
    read: &corpus::Summary,
    corpus_args: &corpus::CorpusArgs,
    out: &Path,
    earlier: bool,
) -> Result<()> {
    if documents == 0 {
        bail!("no document to deduplicate{}", left_as_it_was(out, earlier));
    }
    read.refuse_missing_inputs(corpus_args, earlier, "the results", &left_as_it_was(out, earlier))
}

/// Every pair `(a, b)`, `a < b`, of the new documents within distance `k`,
/// with its distance (a self-join of the layout's tables).
fn candidate_pairs(documents: &[Fingerprinted], layout: &Layout, k: u32) -> Result<Vec<Pair>> {
    let values: Vec<u64> = documents.iter().map(|d| d.simhash.0).collect();
    let progress = ProgressBar::new_spinner().with_message("candidates");
    progress.enable_steady_tick(std::time::Duration::from_millis(200));
    let pairs = priorart_index::all_pairs(&values, layout, k)?;
    progress.finish_and_clear();
    Ok(pairs)
}

/// The candidates whose exact word 5-gram Jaccard is at least `min`.
fn verify(documents: &[Fingerprinted], candidates: &[Pair], min: f64) -> Vec<VerifiedPair> {
    let progress = ProgressBar::new(candidates.len() as u64).with_style(
        ProgressStyle::with_template("{msg}: {wide_bar} {human_pos}/{human_len} {per_sec} eta {eta}")
            .expect("a valid template"),
    );
    progress.set_message("verifying");
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
