//! Collections of documents for `index` and `dedup`: files read as every
//! command reads a document (a web archive record by record), or JSON Lines
//! records with a text member; each document gets an id and its
//! fingerprints on all cores, a batch at a time, so memory stays bounded by
//! the batch, not the collection.

use crate::input::{self, DocumentArgs};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use priorart_extract::{Format, Limits};
use priorart_fingerprint::{Fingerprint, Fingerprinter, Scheme, Shingling, SimhashDoc, WordShingles};
use priorart_jsonl::{Batch, LineReader, Record, RecordError, RecordShape};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Whether a document's text is empty or only white space: nothing to
/// fingerprint, sign or compare (every such text has the same fingerprints).
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// Bytes of text fingerprinted per batch.
const BATCH_TEXT_BYTES: usize = 64 << 20;

/// How documents are found in the inputs.
#[derive(clap::Args, Debug, Clone)]
pub struct CorpusArgs {
    /// Inputs: documents of any format `priorart extract` reads (web
    /// archives record by record), or JSON Lines with --jsonl.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// How files are read (--format, --raw).
    #[command(flatten)]
    pub document: DocumentArgs,
    /// Inputs are JSON Lines: one document per record, its text in --field.
    #[arg(long)]
    pub jsonl: bool,
    /// The JSONL member holding the text.
    #[arg(long, default_value = "text", requires = "jsonl")]
    pub field: String,
    /// The JSONL member holding the document's id (default: FILE:LINE).
    #[arg(long, requires = "jsonl")]
    pub id_field: Option<String>,
}

/// One document's fingerprints.
pub struct Fingerprinted {
    /// The user's id: the file name, FILE#OFFSET for a web archive record
    /// (with its URI), or the JSONL id.
    pub id: String,
    /// Its simhash-doc value.
    pub simhash: SimhashDoc,
    /// Its minhash-equality-v1 value, when asked for.
    pub x: Option<[u8; 32]>,
    /// Its word shingles (cut by the shingling asked for).
    pub shingles: WordShingles,
}

/// A document waiting for its fingerprints.
struct Pending {
    id: String,
    text: String,
}

/// Whether documents get their `X` besides simhash-doc and shingles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WithX {
    /// Computed (an index answers "same X" queries).
    Yes,
    /// Not computed: minhash-equality-v1 costs about five times simhash-doc
    /// (BENCHMARKS.md), and `dedup` needs it only for the documents it adds
    /// to an index (`--against INDEX --add`).
    No,
}

/// What reading a collection left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Named inputs that could not be read at all (missing, a directory,
    /// not a document).
    pub failed_inputs: usize,
    /// Records of readable inputs that were skipped (bad JSONL lines,
    /// archive records that failed).
    pub skipped_records: usize,
    /// Documents whose text is empty, skipped: every empty text has the
    /// same fingerprints, so they would all pair with each other.
    pub empty: usize,
}

impl Summary {
    /// Whether anything was reported as unreadable (exit code 1).
    pub fn had_errors(&self) -> bool {
        self.failed_inputs + self.skipped_records > 0
    }

    /// "3 skipped" for a summary line: records, inputs and empty texts.
    pub fn skipped(&self) -> usize {
        self.failed_inputs + self.skipped_records + self.empty
    }
}

/// Reads every document of `args.inputs`, fingerprints them on all cores
/// (shingles cut by `shingling`), and hands each batch to `sink` in input
/// order. Unreadable inputs and
/// records are reported on stderr and skipped, and so are empty texts;
/// the summary counts them. An input named twice is read once (with a
/// warning); an id given to two documents is an error (nothing is handed
/// on after it matters: the caller writes only once this returns `Ok`).
pub fn fingerprint_all(
    args: &CorpusArgs,
    with_x: WithX,
    shingling: Shingling,
    mut sink: impl FnMut(Vec<Fingerprinted>) -> Result<()>,
) -> Result<Summary> {
    let progress = ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template("{spinner} {msg}: {human_pos} documents, {per_sec}, {elapsed}")
            .expect("a valid template"),
    );
    progress.set_message("fingerprinting");
    let mut summary = Summary::default();
    let mut identities = Identities::default();
    let mut pending: Vec<Pending> = Vec::new();
    let mut pending_bytes = 0usize;
    let mut flush = |pending: &mut Vec<Pending>, pending_bytes: &mut usize| -> Result<()> {
        let batch: Vec<Fingerprinted> = std::mem::take(pending)
            .into_par_iter()
            .map_init(Fingerprinter::new, |fingerprinter, pending| {
                fingerprint(fingerprinter, pending, with_x, shingling)
            })
            .collect();
        progress.inc(batch.len() as u64);
        *pending_bytes = 0;
        sink(batch)
    };
    for name in unique_inputs(&args.inputs, &progress) {
        let mut push = |id: String, place: String, text: String| -> Result<()> {
            if is_blank(&text) {
                summary.empty += 1;
                return Ok(());
            }
            identities.claim(&id, place);
            pending_bytes += text.len();
            pending.push(Pending { id, text });
            if pending_bytes >= BATCH_TEXT_BYTES {
                flush(&mut pending, &mut pending_bytes)?;
            }
            Ok(())
        };
        let read = if args.jsonl {
            read_jsonl(name, args, &mut push)
        } else {
            read_file(name, &args.document, &mut push)
        };
        match read {
            Ok(skipped_here) => summary.skipped_records += skipped_here,
            Err(err) => {
                progress.suspend(|| note!("priorart: {err:#}"));
                summary.failed_inputs += 1;
            }
        }
    }
    flush(&mut pending, &mut pending_bytes)?;
    progress.finish_and_clear();
    identities.check()?;
    if summary.empty > 0 {
        note!("priorart: {} empty document(s) skipped (no text to compare)", summary.empty);
    }
    Ok(summary)
}

/// The inputs, each once: a name that stands for a file already named
/// (the same path, or another path to the same file, as overlapping globs
/// give) is dropped with a warning, so a document is never its own copy.
fn unique_inputs<'a>(inputs: &'a [String], progress: &ProgressBar) -> Vec<&'a str> {
    let mut seen: HashMap<PathBuf, &str> = HashMap::new();
    let mut unique = Vec::with_capacity(inputs.len());
    for name in inputs {
        let identity = if name == input::STDIN {
            PathBuf::from(name)
        } else {
            std::fs::canonicalize(name).unwrap_or_else(|_| PathBuf::from(name))
        };
        match seen.get(&identity) {
            Some(first) if *first == name => {
                progress.suspend(|| note!("priorart: warning: {name} is named more than once; read once"));
            }
            Some(first) => progress.suspend(|| {
                note!("priorart: warning: {name} is the same file as {first}; read once, as {first}")
            }),
            None => {
                seen.insert(identity, name);
                unique.push(name.as_str());
            }
        }
    }
    unique
}

/// Most duplicate ids an error lists.
const LISTED_DUPLICATES: usize = 5;

/// The ids given so far and where, and the ids given twice.
#[derive(Default)]
struct Identities {
    places: HashMap<String, String>,
    repeated: Vec<(String, String, String)>,
}

impl Identities {
    /// Records that `id` names the document at `place`.
    fn claim(&mut self, id: &str, place: String) {
        match self.places.get(id) {
            Some(first) => self.repeated.push((id.to_owned(), first.clone(), place)),
            None => {
                self.places.insert(id.to_owned(), place);
            }
        }
    }

    /// An error naming the ids given twice, if any.
    fn check(&self) -> Result<()> {
        let Some((id, first, second)) = self.repeated.first() else { return Ok(()) };
        let more = match self.repeated.len() {
            1 => String::new(),
            n => {
                let others: Vec<String> = self.repeated[1..]
                    .iter()
                    .take(LISTED_DUPLICATES - 1)
                    .map(|(id, _, _)| format!("{id:?}"))
                    .collect();
                let unlisted = n.saturating_sub(LISTED_DUPLICATES);
                let tail = if unlisted > 0 { format!(" and {unlisted} more") } else { String::new() };
                format!(", and {} other id(s): {}{tail}", n - 1, others.join(", "))
            }
        };
        bail!(
            "the id {id:?} names two documents ({first} and {second}){more}: each document needs its own id \
             (check the --id-field values); nothing was written"
        )
    }
}

fn fingerprint(
    fingerprinter: &mut Fingerprinter,
    pending: Pending,
    with_x: WithX,
    shingling: Shingling,
) -> Fingerprinted {
    let schemes: &[Scheme] = match with_x {
        WithX::Yes => &[Scheme::MinhashEqualityV1, Scheme::SimhashDoc],
        WithX::No => &[Scheme::SimhashDoc],
    };
    let (mut x, mut simhash) = (None, SimhashDoc(0));
    for found in fingerprinter.fingerprint(&pending.text, schemes) {
        match found {
            Fingerprint::Equality(value) => x = Some(value.0),
            Fingerprint::SimhashDoc(value) => simhash = value,
            _ => {}
        }
    }
    Fingerprinted { id: pending.id, simhash, x, shingles: WordShingles::of(&pending.text, shingling) }
}

/// Refuses a directory by name (the operating system opens one, and only
/// the first read fails, with a message that does not say what to do).
fn refuse_directory(name: &str) -> Result<()> {
    if name != input::STDIN && Path::new(name).is_dir() {
        bail!("{name}: a directory, not a document (name the files in it, for example {name}/*)");
    }
    Ok(())
}

/// One file: a web archive gives one document per record (id FILE#OFFSET
/// or its URI), anything else one document (id: the file name).
fn read_file(
    name: &str,
    document: &DocumentArgs,
    push: &mut impl FnMut(String, String, String) -> Result<()>,
) -> Result<usize> {
    refuse_directory(name)?;
    let limits = Limits::default();
    let mut bytes = Vec::new();
    input::open(name)?
        .take(limits.max_input_bytes + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    let format = document.format.unwrap_or_else(|| priorart_extract::detect(&bytes));
    if document.raw || !matches!(format, Format::Warc | Format::Arc) {
        let text = input::read_document_bytes(name, &bytes, document)?.text;
        push(name.to_owned(), name.to_owned(), text)?;
        return Ok(0);
    }
    let extraction =
        priorart_extract::extract(&bytes, format, &limits).with_context(|| format!("{name}: {format}"))?;
    for error in &extraction.record_errors {
        note!("priorart: {name}: record at offset {}: {}", error.offset, error.error);
    }
    for document in extraction.documents {
        let offset = document.offset.unwrap_or(0);
        let id = match &document.uri {
            Some(uri) => format!("{name}#{offset} {uri}"),
            None => format!("{name}#{offset}"),
        };
        push(id, format!("{name}#{offset}"), document.text)?;
    }
    Ok(extraction.record_errors.len())
}

/// JSON Lines: one document per record (blank lines are none).
fn read_jsonl(
    name: &str,
    args: &CorpusArgs,
    push: &mut impl FnMut(String, String, String) -> Result<()>,
) -> Result<usize> {
    refuse_directory(name)?;
    let shape = RecordShape { text_field: args.field.clone(), id_field: args.id_field.clone() };
    let mut reader = LineReader::new(input::open(name)?);
    let mut batch = Batch::default();
    let mut skipped = 0;
    loop {
        reader.fill(&mut batch).with_context(|| format!("{name}: cannot read"))?;
        if batch.is_empty() {
            return Ok(skipped);
        }
        let records: Vec<(u64, Result<Option<IdAndText>>)> = shape
            .records(&batch)
            .map(|(number, record)| (number, document_of(number, record, args)))
            .collect();
        for (number, record) in records {
            match record {
                Ok(Some((id, text))) => {
                    let place = format!("{name}:{number}");
                    push(id.unwrap_or_else(|| place.clone()), place, text)?
                }
                Ok(None) => {}
                Err(err) => {
                    note!("priorart: {name}: {err:#}");
                    skipped += 1;
                }
            }
        }
    }
}

/// A record's id (when `--id-field` names one) and its text.
type IdAndText = (Option<String>, String);

/// The id and text of one record (`None` for a blank line), its text
/// extracted when `--format` names a format other than text.
fn document_of(
    number: u64,
    record: Result<Option<Record>, RecordError>,
    args: &CorpusArgs,
) -> Result<Option<IdAndText>> {
    let Some(Record { text, id, .. }) = record? else { return Ok(None) };
    let text = match args.document.format {
        Some(format) if format != Format::Text && !args.document.raw => {
            priorart_extract::document_text(text.as_bytes(), Some(format), &Limits::default())
                .with_context(|| format!("line {number}: member `{}` as {format}", args.field))?
                .text
        }
        _ => text,
    };
    Ok(Some((id, text)))
}
