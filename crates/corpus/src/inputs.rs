//! Named inputs read into documents: a file is one document, a web archive
//! one per record, a JSON Lines file one per record; each with its place,
//! so that [`crate::Rereader`] finds it again.

use crate::{CorpusError, DocumentOptions, Source};
use priorart_extract::{DocumentText, Format, Limits};
use priorart_jsonl::{Batch, LineReader, Record, RecordError, RecordShape};
use rayon::prelude::*;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The name standing for standard input.
pub const STDIN: &str = "-";

/// Opens `name` for buffered reading (`-` is standard input).
pub fn open(name: &str) -> Result<Box<dyn BufRead + Send>, CorpusError> {
    if name == STDIN {
        return Ok(Box::new(BufReader::with_capacity(1 << 16, std::io::stdin())));
    }
    let file = std::fs::File::open(Path::new(name))
        .map_err(|source| CorpusError::Open { name: name.to_owned(), source })?;
    Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
}

/// All of `name`, at most one byte over the extraction's input limit (so
/// that the limit, not this read, refuses a larger one).
pub fn read_bytes(name: &str) -> Result<Vec<u8>, CorpusError> {
    let mut bytes = Vec::new();
    open(name)?
        .take(Limits::default().max_input_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| CorpusError::Read { name: name.to_owned(), again: "", source })?;
    Ok(bytes)
}

/// The text of the document `bytes` read from `name`, as every command
/// fingerprints a file: see [`priorart_extract::document_text`] (plain text
/// and Markdown unchanged but for their character set; other formats
/// extracted), or the bytes as UTF-8 with `raw`; a PDF through the
/// front end's own extraction when it has one.
pub fn document_text(
    name: &str,
    bytes: &[u8],
    options: &DocumentOptions,
) -> Result<DocumentText, CorpusError> {
    if options.raw {
        let text = std::str::from_utf8(bytes)
            .map_err(|err| CorpusError::NotUtf8 { name: name.to_owned(), offset: err.valid_up_to() })?;
        return Ok(DocumentText { format: Format::Text, text: text.to_owned() });
    }
    let limits = Limits::default();
    let format = options.format.unwrap_or_else(|| priorart_extract::detect(bytes));
    match (&options.pdf, format) {
        (Some(pdf), Format::Pdf) => {
            pdf(bytes, &limits).map_err(|source| CorpusError::Pdf { name: name.to_owned(), source })
        }
        _ => priorart_extract::document_text(bytes, Some(format), &limits)
            .map_err(|source| CorpusError::Document { name: name.to_owned(), source }),
    }
}

/// A document found in an input: its id, how to name where it is in a
/// message, its place there and its text.
pub(crate) trait Push {
    fn push(&mut self, id: String, origin: &dyn Fn() -> String, at: At, text: String) -> Result<(), Halt>;
}

/// Why reading an input stopped: the input itself (it is skipped), or the
/// consumer of its documents (the run ends with the consumer's error).
pub(crate) enum Halt {
    Input(CorpusError),
    Consumer,
}

impl<E: Into<CorpusError>> From<E> for Halt {
    fn from(err: E) -> Halt {
        Halt::Input(err.into())
    }
}

/// Where a document is in its input (see [`priorart_dedup::Place`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct At {
    pub(crate) offset: u64,
    pub(crate) extent: u32,
}

/// Refuses a directory by name (the operating system opens one, and only
/// the first read fails, with a message that does not say what to do).
fn refuse_directory(name: &str) -> Result<(), CorpusError> {
    if name != STDIN && Path::new(name).is_dir() {
        return Err(CorpusError::Directory { name: name.to_owned() });
    }
    Ok(())
}

/// One file: a web archive gives one document per record (id FILE#OFFSET
/// or its URI), anything else one document (id: the file name). Returns
/// the records skipped, each told to `note`.
pub(crate) fn read_file(
    name: &str,
    source: &Source,
    push: &mut impl Push,
    note: &mut dyn FnMut(String),
) -> Result<usize, Halt> {
    refuse_directory(name)?;
    let bytes = read_bytes(name)?;
    let options = &source.document;
    let format = options.format.unwrap_or_else(|| priorart_extract::detect(&bytes));
    if options.raw || !matches!(format, Format::Warc | Format::Arc) {
        let text = document_text(name, &bytes, options)?.text;
        push.push(name.to_owned(), &|| name.to_owned(), At::default(), text)?;
        return Ok(0);
    }
    let extraction = priorart_extract::extract(&bytes, format, &Limits::default())
        .map_err(|source| CorpusError::Archive { name: name.to_owned(), format, source })?;
    for error in &extraction.record_errors {
        note(format!("{name}: record at offset {}: {}", error.offset, error.error));
    }
    let mut ordinals = Ordinals::default();
    for document in extraction.documents {
        let offset = document.offset.unwrap_or(0);
        let id = match &document.uri {
            Some(uri) => format!("{name}#{offset} {uri}"),
            None => format!("{name}#{offset}"),
        };
        let at = At { offset, extent: ordinals.next(offset) };
        push.push(id, &|| format!("{name}#{offset}"), at, document.text)?;
    }
    Ok(extraction.record_errors.len())
}

/// JSON Lines: one document per record (blank lines are none). Returns
/// the records skipped, each told to `note`.
pub(crate) fn read_jsonl(
    name: &str,
    source: &Source,
    shape: &RecordShape,
    push: &mut impl Push,
    note: &mut dyn FnMut(String),
) -> Result<usize, Halt> {
    refuse_directory(name)?;
    let mut reader = LineReader::new(open(name)?);
    let mut batch = Batch::default();
    let mut skipped = 0;
    loop {
        reader.fill(&mut batch).map_err(|source| CorpusError::Read {
            name: name.to_owned(),
            again: "",
            source,
        })?;
        if batch.is_empty() {
            return Ok(skipped);
        }
        let records: Vec<(u64, Result<Option<IdAndText>, CorpusError>)> = shape
            .records(&batch)
            .map(|(number, record)| (number, document_of(number, record, source, shape)))
            .collect();
        for ((number, record), (offset, length)) in records.into_iter().zip(batch.places()) {
            match record {
                Ok(Some((id, text))) => {
                    let origin = || format!("{name}:{number}");
                    // A kept line is at most MAX_LINE_BYTES long.
                    let at = At { offset, extent: u32::try_from(length).unwrap_or(u32::MAX) };
                    push.push(id.unwrap_or_else(origin), &origin, at, text)?
                }
                Ok(None) => {}
                Err(err) => {
                    note(format!("{name}: {}", priorart_reason::error_chain(&err)));
                    skipped += 1;
                }
            }
        }
    }
}

/// A record's id (when the shape names an id member) and its text.
pub(crate) type IdAndText = (Option<String>, String);

/// The id and text of one record (`None` for a blank line), its text
/// extracted when the source names a format other than text.
pub(crate) fn document_of(
    number: u64,
    record: Result<Option<Record>, RecordError>,
    source: &Source,
    shape: &RecordShape,
) -> Result<Option<IdAndText>, CorpusError> {
    let Some(Record { text, id, .. }) = record? else { return Ok(None) };
    let text = match source.document.format {
        Some(format) if format != Format::Text && !source.document.raw => {
            priorart_extract::document_text(text.as_bytes(), Some(format), &Limits::default())
                .map_err(|err| CorpusError::Member {
                    number,
                    field: shape.text_field.clone(),
                    format,
                    source: err,
                })?
                .text
        }
        _ => text,
    };
    Ok(Some((id, text)))
}

/// The position of each web archive document among those of its unit (a
/// gzip member can hold several records): the extent of its place.
#[derive(Default)]
pub(crate) struct Ordinals {
    offset: Option<u64>,
    count: u32,
}

impl Ordinals {
    pub(crate) fn next(&mut self, offset: u64) -> u32 {
        if self.offset == Some(offset) {
            self.count += 1;
        } else {
            (self.offset, self.count) = (Some(offset), 0);
        }
        self.count
    }
}
