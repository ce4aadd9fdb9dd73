//! The documents of a collection read again by their places, for the
//! passes that verify candidates with the whole texts.

use crate::CorpusError;
use crate::inputs::{self, Ordinals};
use crate::{Source, SourceKind};
use priorart_dedup::{Place, Reread, RereadError};
use priorart_extract::{Format, Limits};
use priorart_jsonl::{Line, RecordShape};
use rayon::prelude::*;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

/// The documents of a collection read again by their places, each exactly
/// as [`crate::read_all`] read it the first time (the same code), for
/// `dedup`'s verification: a JSONL record is one read of its line; a
/// document file is read whole; a web archive is read once per batch, its
/// records from the first one asked for. Standard input cannot be read
/// again.
pub struct Rereader {
    source: Source,
    inputs: Vec<String>,
    files: Vec<OnceLock<std::io::Result<std::fs::File>>>,
}

impl Rereader {
    /// A reader of the inputs of `source` that [`crate::read_all`] read
    /// ([`crate::Summary::inputs`]).
    pub fn new(source: &Source, inputs: &[String]) -> Rereader {
        Rereader {
            source: source.clone(),
            inputs: inputs.to_vec(),
            files: inputs.iter().map(|_| OnceLock::new()).collect(),
        }
    }

    /// How a document's place is named in messages: FILE:LINE for a JSONL
    /// record (its line counted again), FILE#OFFSET for an archive record,
    /// else the file's name.
    pub fn origin(&self, place: Place) -> String {
        let name = &self.inputs[place.input as usize];
        if !matches!(self.source.kind, SourceKind::JsonLines(_)) {
            return if place.offset == 0 && place.extent == 0 {
                name.clone()
            } else {
                format!("{name}#{}", place.offset)
            };
        }
        let line = std::fs::File::open(name).ok().and_then(|file| {
            let mut before = Vec::new();
            file.take(place.offset).read_to_end(&mut before).ok()?;
            Some(memchr::memchr_iter(b'\n', &before).count() + 1)
        });
        match line {
            Some(line) => format!("{name}:{line}"),
            None => format!("{name} at byte {}", place.offset),
        }
    }

    fn file(&self, input: u32) -> Result<&std::fs::File, CorpusError> {
        let name = &self.inputs[input as usize];
        match self.files[input as usize].get_or_init(|| std::fs::File::open(name)) {
            Ok(file) => Ok(file),
            Err(err) => Err(CorpusError::Open {
                name: format!("{name} (again)"),
                source: std::io::Error::new(err.kind(), err.to_string()),
            }),
        }
    }

    /// The text of the JSONL record at `place`.
    fn record_text(&self, place: Place, shape: &RecordShape) -> Result<String, CorpusError> {
        let name = &self.inputs[place.input as usize];
        let mut line = vec![0; place.extent as usize];
        self.file(place.input)?.read_exact_at(&mut line, place.offset).map_err(|source| {
            CorpusError::Read { name: format!("{name} at byte {}", place.offset), again: " again", source }
        })?;
        let changed = || CorpusError::Changed {
            name: name.clone(),
            what: format!("the line at byte {} is not the record read", place.offset),
        };
        let Line::Text(text) = priorart_jsonl::line_text(0, Ok(line.as_slice())).map_err(|_| changed())?
        else {
            return Err(changed());
        };
        match inputs::document_of(0, shape.parse(0, text).map(Some), &self.source, shape) {
            Ok(Some((_, text))) => Ok(text),
            _ => Err(changed()),
        }
    }

    /// The texts of the documents at `places`, all in one file input.
    fn file_texts(&self, places: &[Place]) -> Result<Vec<String>, CorpusError> {
        let name = self.inputs[places[0].input as usize].as_str();
        let limits = Limits::default();
        let mut bytes = Vec::new();
        std::fs::File::open(name)
            .and_then(|file| file.take(limits.max_input_bytes + 1).read_to_end(&mut bytes))
            .map_err(|source| CorpusError::Read { name: name.to_owned(), again: " again", source })?;
        let options = &self.source.document;
        let format = options.format.unwrap_or_else(|| priorart_extract::detect(&bytes));
        if options.raw || !matches!(format, Format::Warc | Format::Arc) {
            return Ok(vec![inputs::document_text(name, &bytes, options)?.text]);
        }
        let start = places[0].offset;
        let tail = usize::try_from(start).ok().and_then(|start| bytes.get(start..)).unwrap_or_default();
        let records = priorart_extract::archive_records(tail, format, &limits)
            .map_err(|source| CorpusError::Archive { name: name.to_owned(), format, source })?;
        let mut wanted = places.iter().peekable();
        let mut texts = Vec::with_capacity(places.len());
        let mut ordinals = Ordinals::default();
        for document in records.flatten() {
            let Some(next) = wanted.peek() else { break };
            let offset = start + document.offset.unwrap_or(0);
            let extent = ordinals.next(offset);
            if (offset, extent) == (next.offset, next.extent) {
                texts.push(document.text);
                wanted.next();
            }
        }
        if texts.len() != places.len() {
            return Err(CorpusError::Changed {
                name: name.to_owned(),
                what: format!("{} archive record(s) not found again", places.len() - texts.len()),
            });
        }
        Ok(texts)
    }
}

impl Reread for Rereader {
    fn texts(&self, places: &[Place]) -> Result<Vec<String>, RereadError> {
        let mut texts = Vec::with_capacity(places.len());
        for group in places.chunk_by(|x, y| x.input == y.input) {
            let found: Result<Vec<String>, CorpusError> = match &self.source.kind {
                SourceKind::JsonLines(shape) => {
                    group.par_iter().map(|&place| self.record_text(place, shape)).collect()
                }
                SourceKind::Files => self.file_texts(group),
            };
            texts.extend(found.map_err(|err| RereadError::from(priorart_reason::error_chain(&err)))?);
        }
        Ok(texts)
    }
}
