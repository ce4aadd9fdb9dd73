//! `priorart index`: a persistent near-duplicate index of documents
//! (simhash-doc tables, exact X, shingle sketches): build, add, query, compact.

use crate::corpus::{self, CorpusArgs, Fingerprinted};
use crate::exit::{self, UsageError};
use crate::input::{self, DocumentArgs};
use anyhow::{Result, bail};
use clap::{Args as ClapArgs, Parser, Subcommand};
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter, Scheme, SimhashDoc, WordShingles};
use priorart_index::{Entry, Index, Layout, Match};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Shingle hashes kept per document for verified similarity at query time
/// (standard error of the Jaccard estimate about 0.025 at J = 0.8).
const SKETCH_WIDTH: u32 = 256;

#[derive(Parser)]
#[command(after_help = "\
Examples:
  priorart index build docs.idx papers/*.pdf crawl.warc.gz
  priorart index add docs.idx --jsonl more.jsonl --id-field id
  priorart index query docs.idx draft.md
  priorart index query docs.idx --simhash 0T2BUHHKEH18K -k 3 --json

Exit codes: 0 ok (query: whatever it found), 1 bad input, 2 usage error.")]
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
    /// Documents of INDEX near each query: Hamming distance, verified similarity, same X.
    Query(QueryArgs),
    /// Merge INDEX's segments into one.
    Compact {
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
}

#[derive(ClapArgs)]
struct AddArgs {
    /// The index directory.
    index: PathBuf,
    #[command(flatten)]
    corpus: CorpusArgs,
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
    #[command(flatten)]
    document: DocumentArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        IndexCommand::Build(args) => {
            let layout = Layout::parse(&args.layout).map_err(|err| UsageError(err.to_string()))?;
            let (entries, skipped) = entries(&args.corpus)?;
            let index = Index::build(&args.index, layout, SKETCH_WIDTH, &entries)?;
            summary(&index, entries.len(), skipped);
            Ok(ExitCode::from(if skipped > 0 { exit::BAD_INPUT } else { exit::OK }))
        }
        IndexCommand::Add(args) => {
            let mut index = Index::open(&args.index)?;
            let (entries, skipped) = entries(&args.corpus)?;
            index.add(&entries)?;
            summary(&index, entries.len(), skipped);
            Ok(ExitCode::from(if skipped > 0 { exit::BAD_INPUT } else { exit::OK }))
        }
        IndexCommand::Query(args) => query(args),
        IndexCommand::Compact { index } => {
            let mut index = Index::open(&index)?;
            let before = index.segment_count();
            index.compact()?;
            note!("priorart: {} documents, {before} segment(s) merged into one", index.len());
            Ok(ExitCode::from(exit::OK))
        }
    }
}

fn summary(index: &Index, added: usize, skipped: usize) {
    note!(
        "priorart: {added} document(s) indexed ({skipped} input(s) or record(s) skipped); the index holds {} in {} segment(s), layout {}",
        index.len(),
        index.segment_count(),
        index.layout().name
    );
}

fn entries(corpus: &CorpusArgs) -> Result<(Vec<Entry>, usize)> {
    let mut entries = Vec::new();
    let skipped = corpus::fingerprint_all(corpus, corpus::WithX::Yes, |batch| {
        entries.extend(batch.into_iter().map(entry));
        Ok(())
    })?;
    Ok((entries, skipped))
}

fn entry(document: Fingerprinted) -> Entry {
    Entry {
        id: document.id,
        simhash: document.simhash.0,
        x: document.x,
        sketch: sketch(&document.shingles),
    }
}

fn sketch(shingles: &WordShingles) -> Vec<u64> {
    shingles.hashes().iter().take(SKETCH_WIDTH as usize).copied().collect()
}

/// One lookup: what it is, and what it brings.
pub(crate) struct Lookup {
    name: String,
    simhash: Option<SimhashDoc>,
    x: Option<[u8; 32]>,
    sketch: Option<Vec<u64>>,
}

impl Lookup {
    /// A document's lookup: its simhash-doc, X and shingle sketch.
    pub(crate) fn of_text(name: &str, text: &str, fingerprinter: &mut Fingerprinter) -> Lookup {
        Lookup {
            name: name.to_owned(),
            simhash: Some(fingerprinter.simhash_doc(text)),
            x: fingerprinter.equality(text, Scheme::MinhashEqualityV1).map(|x| x.0),
            sketch: Some(sketch(&WordShingles::of(text))),
        }
    }

    /// A lookup of one `X` alone (no text: no near copies, no similarity).
    pub(crate) fn of_x(x: &EqualityFingerprint) -> Lookup {
        Lookup { name: x.to_string(), simhash: None, x: Some(x.0), sketch: None }
    }

    /// The X looked up, if any (a document's lookup always has one).
    pub(crate) fn x(&self) -> Option<EqualityFingerprint> {
        self.x.map(EqualityFingerprint)
    }

    /// The documents of `index` within `k` bits, and those with the same X.
    pub(crate) fn run(&self, index: &Index, k: u32) -> Result<Answer> {
        let near = match self.simhash {
            Some(simhash) => index.near(simhash.0, k, self.sketch.as_deref())?,
            None => Vec::new(),
        };
        let same_x = self.x.map(|x| index.same_x(&x)).unwrap_or_default();
        Ok(Answer { near, same_x })
    }
}

/// What the index holds near one lookup.
pub(crate) struct Answer {
    near: Vec<Match>,
    same_x: Vec<Match>,
}

impl Answer {
    /// How many documents the answer names (near or with the same X).
    pub(crate) fn documents(&self) -> usize {
        self.near.len() + self.same_x.iter().filter(|x| !self.near.iter().any(|n| n.id == x.id)).count()
    }
}

fn query(args: QueryArgs) -> Result<ExitCode> {
    if args.files.is_empty() && args.simhash.is_empty() && args.x.is_empty() {
        bail!(UsageError("nothing to look up: give FILEs, --simhash or --x".into()));
    }
    let index = Index::open(&args.index)?;
    let mut lookups: Vec<Lookup> = Vec::new();
    let mut fingerprinter = Fingerprinter::new();
    let mut failed = false;
    for name in &args.files {
        match input::read_document(name, &args.document) {
            Ok(document) => lookups.push(Lookup::of_text(name, &document.text, &mut fingerprinter)),
            Err(err) => {
                note!("priorart: {err:#}");
                failed = true;
            }
        }
    }
    lookups.extend(args.simhash.iter().map(|&s| Lookup { name: s.to_string(), simhash: Some(s), x: None, sketch: None }));
    lookups.extend(args.x.iter().map(Lookup::of_x));
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for lookup in &lookups {
        let answer = lookup.run(&index, args.k)?;
        if args.json {
            writeln!(out, "{}", answer_json(lookup, &answer))?;
        } else {
            write_answer(&mut out, lookup, &answer, args.k)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}

/// One lookup's answer as the JSON object `index query --json` prints.
pub(crate) fn answer_json(lookup: &Lookup, answer: &Answer) -> serde_json::Value {
    let Answer { near, same_x } = answer;
    let near: Vec<_> = near
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "simhash-doc": SimhashDoc(m.simhash).to_string(),
                "distance": m.distance,
                "similarity": 1.0 - f64::from(m.distance) / 64.0,
                "jaccard": m.jaccard,
                "same_x": same_x.iter().any(|x| x.id == m.id),
            })
        })
        .collect();
    json!({
        "query": lookup.name,
        "simhash-doc": lookup.simhash.map(|s| s.to_string()),
        "minhash-equality-v1": lookup.x.map(|x| EqualityFingerprint(x).to_string()),
        "near": near,
        "same_x": same_x.iter().map(|m| &m.id).collect::<Vec<_>>(),
    })
}

/// One lookup's answer as `index query` prints it.
pub(crate) fn write_answer(out: &mut impl Write, lookup: &Lookup, answer: &Answer, k: u32) -> std::io::Result<()> {
    let Answer { near, same_x } = answer;
    writeln!(out, "{}: {} within distance {k}, {} with the same X", lookup.name, near.len(), same_x.len())?;
    for m in near {
        let jaccard = m.jaccard.map(|j| format!("  jaccard {j:.3}")).unwrap_or_default();
        let x = if same_x.iter().any(|x| x.id == m.id) { "  same X" } else { "" };
        writeln!(out, "  {}  distance {}{jaccard}{x}", m.id, m.distance)?;
    }
    for m in same_x.iter().filter(|x| !near.iter().any(|n| n.id == x.id)) {
        writeln!(out, "  {}  same X (distance {})", m.id, lookup.simhash.map_or(0, |s| (s.0 ^ m.simhash).count_ones()))?;
    }
    Ok(())
}
