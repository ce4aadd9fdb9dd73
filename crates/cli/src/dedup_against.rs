//! `priorart dedup --against INDEX`: new documents paired with each other
//! (verified exactly, as `dedup` does) and with the documents of an index
//! (verified by the Jaccard similarity estimated from the index's sketches,
//! or not at all where the index holds none), never the index's with each
//! other; the survivors listed, and with `--add` added to the index. The
//! pairs, survivors, clusters and the lines written are the dedup crate's
//! (`priorart_dedup::against`, which Python's `dedup(against=...)` calls
//! too); this module reads, prints and writes.

use crate::corpus;
use crate::dedup_run::{Args, Bars, CLUSTERS, PAIRS, left_as_it_was};
use crate::exit::{self, UsageError};
use anyhow::{Context, Result, bail};
use priorart_corpus::Fingerprinted;
use priorart_dedup::against::{NewDocument, against};
use priorart_index::{Entry, Index, IndexPair, Layout, Verification, VerifiedPair};
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
    let with_x = if args.add { priorart_corpus::WithX::Yes } else { priorart_corpus::WithX::No };
    let mut documents: Vec<Fingerprinted> = Vec::new();
    let read = corpus::fingerprint_all(&args.corpus, with_x, shingling, |batch| {
        documents.extend(batch);
        Ok(())
    })?;
    let outputs = [args.out.join(PAIRS), args.out.join(CLUSTERS), args.out.join(SURVIVORS)];
    let earlier = outputs.iter().any(|path| path.exists());
    refuse_incomplete(documents.len(), &read, &args.corpus, &args.out, earlier)?;
    let new: Vec<NewDocument<'_>> = documents
        .iter()
        .map(|d| NewDocument { id: &d.id, simhash: d.simhash.0, shingles: &d.shingles })
        .collect();
    let bars = Bars::default();
    let found = against(&index, &new, layout, args.k, args.min_jaccard, &bars);
    bars.finish();
    let found = found?;
    let mut files = vec![
        (outputs[0].clone(), found.pair_lines(&new)),
        (outputs[1].clone(), found.cluster_lines(&index, &new)),
        (outputs[2].clone(), found.survivor_lines(&new)),
    ];
    if args.corpus.skip_unreadable {
        files.push((args.out.join(priorart_corpus::SKIPPED), read.unreadable_lines()));
    }
    priorart_files::replace_all(&files)?;
    summarize(
        args,
        &index,
        &documents,
        &read,
        (&found.index_pairs, &found.new_pairs),
        found.again.len(),
        found.survivors.len(),
    );
    note!(
        "priorart: {} {}, {} and {}",
        if earlier { "replaced the earlier results in" } else { "wrote" },
        outputs[0].display(),
        outputs[1].display(),
        outputs[2].display()
    );
    if args.add {
        add(&mut index, index_path, &documents, &found.survivors)?;
    }
    Ok(ExitCode::from(if read.had_errors() { exit::BAD_INPUT } else { exit::OK }))
}

/// The counts, and how far the estimated pairs can be trusted.
fn summarize(
    args: &Args,
    index: &Index,
    documents: &[Fingerprinted],
    read: &priorart_corpus::Summary,
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
    read: &priorart_corpus::Summary,
    corpus_args: &corpus::CorpusArgs,
    out: &Path,
    earlier: bool,
) -> Result<()> {
    if documents == 0 {
        bail!("no document to deduplicate{}", left_as_it_was(out, earlier));
    }
    corpus_args.refuse_missing_inputs(read, earlier, "the results", &left_as_it_was(out, earlier))
}
