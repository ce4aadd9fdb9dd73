//! `priorart index`: a persistent near-duplicate index of documents
//! (simhash-doc tables, exact X, shingle sketches): build, add, query,
//! compact, and export / import (`--simhash`) lists of simhash-doc values.
//! Documents are indexed with their passage marks (winnowing, as `dedup
//! --passages`), so that `query --passages` finds the indexed documents a
//! text shares passages with; `--no-marks` leaves them out.

use crate::corpus::{self, CorpusArgs};
use crate::index_passages::{self, PassageArgs};
use priorart_corpus::{Fingerprinted, Wanted, WithX};
use crate::dedup_run::interrupt_flag;
use crate::exit::{self, UsageError};
use crate::input::{self, DocumentArgs};
use crate::lookup::{Lookup, answer_json, write_answer};
use anyhow::{Result, bail};
use clap::{Args as ClapArgs, Parser, Subcommand};
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Shingling, SimhashDoc};
use priorart_index::{Entry, EntrySpool, Index, Layout, MarkSpool, SKETCH_WIDTH};
use priorart_align::Winnowing;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

#[derive(Parser)]
#[command(after_help = "\
Examples:
  priorart index build docs.idx papers/*.pdf crawl.warc.gz
  priorart index add docs.idx --jsonl more.jsonl --id-field id
  priorart index query docs.idx draft.md
  priorart index query docs.idx --simhash 0T2BUHHKEH18K -k 3 --json
  priorart index query docs.idx --passages essay.md
  priorart index export docs.idx > docs.simhash.tsv
  priorart index build theirs.idx --simhash theirs.simhash.tsv

The similarity a query shows is estimated from sketches of word 5-grams (the index keeps no
text; standard error about 0.025 at 0.8): `priorart compare` gives the exact value. A document
imported with --simhash has no sketch: a match with it is found by distance alone (unverified).
A build that read no document, that could not read an input while INDEX holds an index, or
that was interrupted (Ctrl-C), leaves INDEX as it was. An id is indexed once: `add` skips a
document the index holds already with the same fingerprints (a warning) and refuses one whose
id it holds with others. Documents (their sketches) and passage marks are spooled to disk as
they are read (in INDEX), so that memory grows by a few dozen bytes a document, not with the texts.

`query --passages` finds the indexed documents that share passages (of --min-words words or
more, exact or with words replaced) with each FILE, from the winnowing marks the index keeps of
every document (about 24 bytes per 2.5 content words; `build --no-marks` keeps none, and an
index built before priorart-index/3 has none: rebuild it). Each passage is given by its offsets
and text in FILE and its byte range in the indexed document (the index keeps no text:
`priorart compare --passages FILE COPY` aligns the two word by word).

Exit codes: 0 ok (query: whatever it found), 1 bad input, 2 usage error, 130 interrupted.")]
pub struct Args {
    #[command(subcommand)]
    command: IndexCommand,
}

#[derive(Subcommand)]
enum IndexCommand {
    /// Build INDEX from documents (replacing what INDEX held, once complete).
    Build(BuildArgs),
    /// Add documents to INDEX as a new segment.
    Add(AddArgs),
    /// Documents of INDEX near each query: Hamming distance, estimated similarity, same X.
    Query(QueryArgs),
    /// Merge INDEX's segments into one.
    Compact {
        /// The index directory.
        index: PathBuf,
    },
    /// Write every document of INDEX as `id<TAB>simhash-doc[<TAB>X]` lines
    /// (X where known) to standard output: what another archive imports
    /// with `--simhash`, without any text.
    Export {
        /// The index directory.
        index: PathBuf,
    },
}

#[derive(ClapArgs)]
struct BuildArgs {
    /// The index directory.
    index: PathBuf,
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Table layout: manku-16x28 (the spec's, exact for k <= 3), k=N (exact
    /// for k <= N, more tables), or pigeonhole-B-T.
    #[arg(long, default_value = "manku-16x28")]
    layout: String,
    /// How texts are cut into words for the sketches' word 5-grams: words
    /// (lowercased \w+ runs, as other dedup tools) or tokens (simhash-doc-v2's
    /// tokens: numbers and identifiers dropped); Chinese, Japanese, Thai… as
    /// character bigrams. words-v1 and tokens-v1 (and simhash-doc values)
    /// build an index as before simhash-doc-v2. Recorded in the index:
    /// `add`, `query` and `dedup --against` use the index's.
    #[arg(long, value_name = "SHINGLING", default_value_t = Shingling::default())]
    shingles: Shingling,
    /// Replace the index INDEX holds (or a damaged one), once the new one is
    /// complete. Without it, build refuses a directory that holds an index.
    #[arg(long)]
    replace: bool,
    /// Keep no passage marks: a smaller index that `query --passages`,
    /// `check --index` and `dedup --passages --against` cannot search for
    /// passages.
    #[arg(long)]
    no_marks: bool,
    #[command(flatten)]
    lists: ListArgs,
}

#[derive(ClapArgs)]
struct AddArgs {
    /// The index directory.
    index: PathBuf,
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    lists: ListArgs,
}

#[derive(ClapArgs)]
struct ListArgs {
    /// The inputs are lists of simhash-doc values (`id<TAB>simhash-doc`,
    /// optionally `<TAB>X`, as `index export` writes them), not documents:
    /// indexed without sketches, so matches with them are unverified.
    #[arg(long, conflicts_with_all = ["jsonl", "format", "raw"])]
    simhash: bool,
}

#[derive(ClapArgs)]
struct QueryArgs {
    /// The index directory.
    index: PathBuf,
    /// Documents to look up (read as `priorart fingerprint` reads them).
    files: Vec<String>,
    /// simhash-doc values to look up (13 base32hex digits).
    #[arg(long, value_name = "B32")]
    simhash: Vec<SimhashDoc>,
    /// minhash-equality-v1 values (64 hex digits) to look up exactly.
    #[arg(long, value_name = "HEX")]
    x: Vec<EqualityFingerprint>,
    /// Largest Hamming distance (at most what the index's layout guarantees).
    #[arg(short, long, default_value_t = 3)]
    k: u32,
    /// One JSON object per query.
    #[arg(long)]
    json: bool,
    /// Find the indexed documents that share passages with each FILE
    /// (instead of near copies of the whole text), and where.
    #[arg(long, conflicts_with_all = ["simhash", "x"])]
    passages: bool,
    #[command(flatten)]
    passage: PassageArgs,
    #[command(flatten)]
    document: DocumentArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        IndexCommand::Build(args) => build(args),
        IndexCommand::Add(args) => add(args),
        IndexCommand::Query(args) => query(args),
        IndexCommand::Export { index } => export(&index),
        IndexCommand::Compact { index } => {
            let mut index = Index::open(&index)?;
            let before = index.segment_count();
            index.compact()?;
            note!("priorart: {}, {before} segment(s) merged into one", crate::counted(index.len() as u64, "document"));
            Ok(ExitCode::from(exit::OK))
        }
    }
}

/// What INDEX holds before `build`: nothing, an index of some documents,
/// or a damaged one (why).
enum Existing {
    Nothing,
    Index(usize),
    Damaged(String),
}

fn existing(dir: &std::path::Path) -> Existing {
    match Index::open(dir) {
        Ok(index) => Existing::Index(index.len()),
        Err(priorart_index::IndexError::Missing(_)) => Existing::Nothing,
        Err(_) if !dir.exists() => Existing::Nothing,
        Err(err) => Existing::Damaged(err.to_string()),
    }
}

fn build(args: BuildArgs) -> Result<ExitCode> {
    let layout = Layout::parse(&args.layout).map_err(|err| UsageError(err.to_string()))?;
    // Checked before any input is read: replacing 2,946 documents by
    // accident, and saying so only afterwards, is what this prevents.
    let found = existing(&args.index);
    match (&found, args.replace) {
        (Existing::Index(documents), false) => bail!(UsageError(format!(
            "{} already holds an index of {}: `priorart index add` adds to it, --replace replaces it",
            args.index.display(),
            crate::counted(*documents as u64, "document")
        ))),
        (Existing::Damaged(why), false) => bail!(UsageError(format!(
            "{} holds a damaged index ({why}): --replace replaces it",
            args.index.display()
        ))),
        _ => {}
    }
    let earlier = match found {
        Existing::Index(documents) => Some(documents),
        _ => None,
    };
    let unchanged = || match earlier {
        Some(_) => format!("; {} left as it was", args.index.display()),
        None => "; nothing written".to_owned(),
    };
    let stop = interrupt_flag()?;
    // The documents and their marks go to disk as they are read (in INDEX,
    // removed whatever happens). The documents' spool first: dropped last,
    // it removes INDEX if it made it and nothing was written there.
    let mut documents = EntrySpool::new(&args.index)?;
    let mut spool = (!args.no_marks && !args.lists.simhash).then(|| MarkSpool::new(&args.index)).transpose()?;
    let marks = spool.as_mut().map(|spool| (spool, Index::passage_winnowing()));
    let read = entries(&args.corpus, &args.lists, args.shingles, &mut documents, marks, &stop);
    let read = match interrupted(read, &stop) {
        Some(read) => read?,
        None => {
            note!("priorart: interrupted{}", unchanged());
            return Ok(ExitCode::from(exit::INTERRUPTED));
        }
    };
    if documents.is_empty() {
        bail!("no document to index{}", unchanged());
    }
    args.corpus.refuse_missing_inputs(&read, earlier.is_some(), "the index", &unchanged())?;
    let index =
        Index::build_from_spool(&args.index, layout, SKETCH_WIDTH, args.shingles, &mut documents, spool.as_mut())?;
    match found {
        Existing::Index(documents) => note!(
            "priorart: replaced the earlier index of {} ({})",
            args.index.display(),
            crate::counted(documents as u64, "document")
        ),
        Existing::Damaged(why) => {
            note!("priorart: replaced the damaged index of {} ({why})", args.index.display())
        }
        Existing::Nothing => {}
    }
    summary(&index, documents.len(), read.skipped());
    Ok(ExitCode::from(if read.had_errors() { exit::BAD_INPUT } else { exit::OK }))
}

fn add(args: AddArgs) -> Result<ExitCode> {
    let mut index = Index::open(&args.index)?;
    let stop = interrupt_flag()?;
    let mut documents = EntrySpool::new(&args.index)?;
    let mut spool = (index.has_marks() && !args.lists.simhash).then(|| MarkSpool::new(&args.index)).transpose()?;
    let winnowing = index.marks_winnowing().cloned().unwrap_or_else(Index::passage_winnowing);
    let marks = spool.as_mut().map(|spool| (spool, winnowing));
    let read = entries(&args.corpus, &args.lists, index.shingling(), &mut documents, marks, &stop);
    let read = match interrupted(read, &stop) {
        Some(read) => read?,
        None => {
            note!("priorart: interrupted; {} left as it was", args.index.display());
            return Ok(ExitCode::from(exit::INTERRUPTED));
        }
    };
    let held = held_ids(&index, &args.index, &documents)?;
    let is_new: Vec<bool> = (0..documents.len()).map(|n| !held.contains(documents.id(n))).collect();
    documents.retain(|n| is_new[n]);
    if let Some(spool) = &mut spool {
        spool.retain(|n| is_new[n]);
    }
    let added = documents.kept_len();
    if added == 0 {
        note!("priorart: nothing to add; {} left as it was", args.index.display());
    } else {
        index.add_from_spool(&mut documents, spool.as_mut())?;
    }
    summary(&index, added, read.skipped());
    Ok(ExitCode::from(if read.had_errors() { exit::BAD_INPUT } else { exit::OK }))
}

/// The ids of the `documents` that `index` holds already with the same
/// fingerprints (each named in a warning), not to be added again; an id
/// that the index holds with other fingerprints is an error (a different
/// document, or a changed one: which to keep is the user's call).
fn held_ids(index: &Index, path: &Path, documents: &EntrySpool) -> Result<HashSet<String>> {
    let ids: HashSet<&str> = (0..documents.len()).map(|n| documents.id(n)).collect();
    let held: Vec<Entry> = index.with_ids(&ids);
    if held.is_empty() {
        return Ok(HashSet::new());
    }
    let by_id: HashMap<&str, usize> = (0..documents.len()).map(|n| (documents.id(n), n)).collect();
    let changed: Vec<&str> = held
        .iter()
        .filter(|old| {
            let new = by_id[old.id.as_str()];
            (documents.simhash(new), documents.x(new)) != (old.simhash, old.x)
        })
        .map(|old| old.id.as_str())
        .collect();
    if let Some(first) = changed.first() {
        bail!(
            "{} holds {first:?}{} with other fingerprints (a changed document, or another with the same id): \
             nothing added; rebuild the index (`priorart index build`) to replace it",
            path.display(),
            if changed.len() > 1 { format!(" and {} other id(s)", changed.len() - 1) } else { String::new() }
        );
    }
    let held: HashSet<String> = held.into_iter().map(|entry| entry.id).collect();
    for id in &held {
        note!("priorart: warning: {id} is already in {} with the same fingerprints; not added again", path.display());
    }
    Ok(held)
}

fn summary(index: &Index, added: usize, skipped: usize) {
    note!(
        "priorart: {added} document(s) indexed ({skipped} input(s), record(s) or empty text(s) skipped); the index holds {} in {} segment(s), layout {}",
        index.len(),
        index.segment_count(),
        index.layout().name
    );
}

/// The documents of the inputs (their sketches cut by `shingling`) pushed
/// to `documents`, their passage marks to `marks` if given (a spool and how
/// the index's marks are winnowed); or the documents of the simhash-doc
/// lists they are (`--simhash`: no marks). A run stopped (`stop`) ends
/// with [`Interrupted`].
fn entries(
    corpus: &CorpusArgs,
    lists: &ListArgs,
    shingling: Shingling,
    documents: &mut EntrySpool,
    marks: Option<(&mut MarkSpool, Winnowing)>,
    stop: &AtomicBool,
) -> Result<priorart_corpus::Summary> {
    if lists.simhash {
        return listed_entries(&corpus.inputs, documents);
    }
    let wanted = Wanted {
        x: WithX::Yes,
        simhash: Some(shingling.token_rule()),
        shingles: Some(shingling),
        unique_ids: true,
        marks: marks.as_ref().map(|(_, winnowing)| winnowing.clone()),
    };
    let mut marks = marks.map(|(spool, _)| spool);
    let read = corpus::read_all(corpus, &wanted, |batch| {
        if stop.load(Ordering::Relaxed) {
            bail!(Interrupted);
        }
        for mut document in batch {
            if let Some(marks) = marks.as_deref_mut() {
                let held = std::mem::replace(&mut document.marks, Ok(Vec::new()));
                marks.push(&held.unwrap_or_else(|err| {
                    note!("priorart: {}: indexed without passage marks: {err}", document.id);
                    Vec::new()
                }))?;
            }
            documents.push(&entry(document))?;
        }
        Ok(())
    })?;
    Ok(read)
}

/// A build or an add stopped by Ctrl-C or SIGTERM.
#[derive(Debug)]
struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// `read`, or `None` when the run was interrupted (while reading, or
/// once it had read: nothing is written after a stop).
fn interrupted<T>(read: Result<T>, stop: &AtomicBool) -> Option<Result<T>> {
    let stopped = match &read {
        Err(err) => err.chain().any(|cause| cause.downcast_ref::<Interrupted>().is_some()),
        Ok(_) => false,
    };
    (!stopped && !stop.load(Ordering::Relaxed)).then_some(read)
}

/// The documents of simhash-doc lists. A list with a wrong line is
/// reported and counts as an input that could not be read (nothing of it
/// is indexed); an id listed twice is refused when indexing.
fn listed_entries(inputs: &[String], documents: &mut EntrySpool) -> Result<priorart_corpus::Summary> {
    let mut read = priorart_corpus::Summary::default();
    for name in inputs {
        match input::open(name).and_then(|list| Ok(priorart_index::read_list(list)?)) {
            Ok(listed) => {
                for entry in &listed {
                    documents.push(entry)?;
                }
            }
            Err(err) => {
                note!("priorart: {name}: {err:#}");
                read.failed_inputs += 1;
                read.unreadable.push((name.clone(), format!("{err:#}")));
            }
        }
    }
    Ok(read)
}

/// `index export`: every document as a list line, on standard output.
fn export(path: &Path) -> Result<ExitCode> {
    let index = Index::open(path)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for entry in index.documents() {
        writeln!(out, "{}", priorart_index::list_line(&entry))?;
    }
    out.flush()?;
    note!("priorart: {} of {} exported", crate::counted(index.len() as u64, "document"), path.display());
    Ok(ExitCode::from(exit::OK))
}

fn entry(document: Fingerprinted) -> Entry {
    Entry::from_fingerprints(document.id, document.simhash.0, document.x, &document.shingles)
}

fn query(args: QueryArgs) -> Result<ExitCode> {
    if args.files.is_empty() && args.simhash.is_empty() && args.x.is_empty() {
        bail!(UsageError("nothing to look up: give FILEs, --simhash or --x".into()));
    }
    let index = Index::open(&args.index)?;
    if args.passages {
        return query_passages(&args, &index);
    }
    let mut lookups: Vec<Lookup> = Vec::new();
    let mut fingerprinter = Fingerprinter::new();
    let mut failed = false;
    for name in &args.files {
        match input::read_document(name, &args.document) {
            Ok(document) => {
                lookups.push(Lookup::of_text(name, &document.text, index.shingling(), &mut fingerprinter))
            }
            Err(err) => {
                note!("priorart: {err:#}");
                failed = true;
            }
        }
    }
    lookups.extend(args.simhash.iter().map(|&simhash| Lookup::of_simhash(simhash, index.shingling())));
    lookups.extend(args.x.iter().map(Lookup::of_x));
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for lookup in &lookups {
        let answer = lookup.run(&index, args.k)?;
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&answer_json(lookup, &answer)).expect("an answer serializes"))?;
        } else {
            write_answer(&mut out, lookup, &answer, args.k)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}

/// `index query --passages`: the indexed documents sharing passages with
/// each FILE.
fn query_passages(args: &QueryArgs, index: &Index) -> Result<ExitCode> {
    let search = args.passage.search()?;
    if !index.has_marks() {
        bail!(priorart_index::IndexError::NoMarks(args.index.clone()));
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = false;
    for name in &args.files {
        let text = match input::read_document(name, &args.document) {
            Ok(document) => document.text,
            Err(err) => {
                note!("priorart: {err:#}");
                failed = true;
                continue;
            }
        };
        let answer = match index.query_passages(&text, &search) {
            Ok(answer) => answer,
            Err(err) => {
                note!("priorart: {name}: {err}");
                failed = true;
                continue;
            }
        };
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&answer.json(name, &text)).expect("an answer serializes"))?;
        } else {
            index_passages::write_answer(&mut out, name, &text, &answer)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}
