//! Collections of documents for `index` and `dedup`: files read as every
//! command reads a document (a web archive record by record), or JSON Lines
//! records with a text member; each document gets an id and its
//! fingerprints on all cores, a batch at a time, so memory stays bounded by
//! the batch, not the collection.

use crate::input::{self, DocumentArgs};
use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use priorart_extract::{Format, Limits};
use priorart_fingerprint::{Fingerprint, Fingerprinter, Scheme, SimhashDoc, WordShingles};
use priorart_jsonl::{Batch, LineReader};
use rayon::prelude::*;
use serde_json::Value;
use std::io::Read;

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
    /// Its word shingles.
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
    /// (BENCHMARKS.md), and `dedup` does not use it.
    No,
}

/// Reads every document of `args.inputs`, fingerprints them on all cores,
/// and hands each batch to `sink` in input order. Unreadable inputs and
/// records are reported on stderr and skipped; the answer says how many.
pub fn fingerprint_all(
    args: &CorpusArgs,
    with_x: WithX,
    mut sink: impl FnMut(Vec<Fingerprinted>) -> Result<()>,
) -> Result<usize> {
    let progress = ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template("{spinner} {msg}: {human_pos} documents, {per_sec}, {elapsed}")
            .expect("a valid template"),
    );
    progress.set_message("fingerprinting");
    let mut skipped = 0usize;
    let mut pending: Vec<Pending> = Vec::new();
    let mut pending_bytes = 0usize;
    let mut flush = |pending: &mut Vec<Pending>, pending_bytes: &mut usize| -> Result<()> {
        let batch: Vec<Fingerprinted> = std::mem::take(pending)
            .into_par_iter()
            .map_init(Fingerprinter::new, |fingerprinter, pending| {
                fingerprint(fingerprinter, pending, with_x)
            })
            .collect();
        progress.inc(batch.len() as u64);
        *pending_bytes = 0;
        sink(batch)
    };
    for name in &args.inputs {
        let mut push = |id: String, text: String| -> Result<()> {
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
            Ok(skipped_here) => skipped += skipped_here,
            Err(err) => {
                progress.suspend(|| note!("priorart: {err:#}"));
                skipped += 1;
            }
        }
    }
    flush(&mut pending, &mut pending_bytes)?;
    progress.finish_and_clear();
    Ok(skipped)
}

fn fingerprint(fingerprinter: &mut Fingerprinter, pending: Pending, with_x: WithX) -> Fingerprinted {
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
    Fingerprinted { id: pending.id, simhash, x, shingles: WordShingles::of(&pending.text) }
}

/// One file: a web archive gives one document per record (id FILE#OFFSET
/// or its URI), anything else one document (id: the file name).
fn read_file(
    name: &str,
    document: &DocumentArgs,
    push: &mut impl FnMut(String, String) -> Result<()>,
) -> Result<usize> {
    let limits = Limits::default();
    let mut bytes = Vec::new();
    input::open(name)?
        .take(limits.max_input_bytes + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    let format = document.format.unwrap_or_else(|| priorart_extract::detect(&bytes));
    if document.raw || !matches!(format, Format::Warc | Format::Arc) {
        let text = input::read_document_bytes(name, &bytes, document)?.text;
        push(name.to_owned(), text)?;
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
        push(id, document.text)?;
    }
    Ok(extraction.record_errors.len())
}

/// JSON Lines: one document per record.
fn read_jsonl(
    name: &str,
    args: &CorpusArgs,
    push: &mut impl FnMut(String, String) -> Result<()>,
) -> Result<usize> {
    let mut reader = LineReader::new(input::open(name)?);
    let mut batch = Batch::default();
    let mut skipped = 0;
    loop {
        reader.fill(&mut batch).with_context(|| format!("{name}: cannot read"))?;
        if batch.is_empty() {
            return Ok(skipped);
        }
        let records: Vec<(u64, Record)> = batch
            .lines()
            .map(|(number, line)| (number, record(name, args, number, line.map_err(|e| e.to_string()))))
            .collect();
        for (number, record) in records {
            match record {
                Ok((id, text)) => push(id, text)?,
                Err(err) if err.is_empty() => {}
                Err(err) => {
                    note!("priorart: {name}: line {number}: {err}");
                    skipped += 1;
                }
            }
        }
    }
}

/// `(id, text)` of one JSONL record, or why not (empty for a blank line).
type Record = Result<(String, String), String>;

/// One JSONL record's [`Record`].
fn record(name: &str, args: &CorpusArgs, number: u64, line: Result<&[u8], String>) -> Record {
    let line = line?;
    let text = input::utf8(line).map_err(|_| "not valid UTF-8".to_owned())?;
    if text.trim().is_empty() {
        return Err(String::new());
    }
    let Value::Object(mut object) = serde_json::from_str(text).map_err(|err| format!("not JSON: {err}"))?
    else {
        return Err("not a JSON object".into());
    };
    let Some(Value::String(content)) = object.shift_remove(&args.field) else {
        return Err(format!("no string member `{}`", args.field));
    };
    let id = match args.id_field.as_ref().map(|field| object.get(field)) {
        None => format!("{name}:{number}"),
        Some(Some(Value::String(id))) => id.clone(),
        Some(Some(Value::Number(id))) => id.to_string(),
        Some(_) => {
            return Err(format!(
                "no string or number member `{}`",
                args.id_field.as_deref().unwrap_or_default()
            ));
        }
    };
    let content = match args.document.format {
        Some(format) if format != Format::Text && !args.document.raw => {
            priorart_extract::document_text(content.as_bytes(), Some(format), &Limits::default())
                .map_err(|err| format!("member `{}` as {format}: {err}", args.field))?
                .text
        }
        _ => content,
    };
    Ok((id, content))
}
