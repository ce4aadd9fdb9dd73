//! Collections of documents for `index` and `dedup`: files read as every
//! command reads a document (a web archive record by record), or JSON Lines
//! records with a text member; each document gets an id and its
//! fingerprints on all cores, a batch at a time, so memory stays bounded by
//! the batch, not the collection; and [`Rereader`] reads any of them again
//! by its place, exactly as it was read the first time.
//!
//! A library rather than a module of the CLI, as ripgrep's `grep-cli` holds
//! what its front end shares: what a collection is (which documents, their
//! ids, what is skipped and why) must not depend on the front end that
//! reads it. It reads files and standard input and uses threads; it prints
//! nothing: notes and progress go to the caller's [`Observer`].

mod error;
mod ids;
mod inputs;
mod reread;

pub use error::{CorpusError, PdfError};
pub use ids::refuse_repeated_ids;
pub use inputs::{STDIN, document_text, open, read_bytes};
pub use priorart_dedup::is_blank;
pub use reread::Rereader;

use ids::Identities;
use inputs::{At, Halt, Push};
use priorart_align::{AlignError, Mark, Winnowing};
use priorart_dedup::Place;
use priorart_extract::{DocumentText, Format, Limits};
use priorart_fingerprint::{
    Fingerprint, Fingerprinter, Scheme, Shingling, SimhashDoc, TokenRule, WordShingles,
};
use priorart_jsonl::RecordShape;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, mpsc};

/// Bytes of text fingerprinted per batch: small enough that the batches
/// in flight (one read, [`IN_FLIGHT`] fingerprinted or waiting for the
/// sink, each with what was made of it) stay well under the memory a run
/// may use, and many enough that reading overlaps fingerprinting (the
/// planted sample of BENCHMARKS.md is 166 MB).
const BATCH_TEXT_BYTES: usize = 16 << 20;

/// Batches handed to the fingerprinting thread and not yet to the sink.
const IN_FLIGHT: usize = 2;

/// The file of an output directory listing the inputs a run skipped.
pub const SKIPPED: &str = "skipped.jsonl";

/// A front end's own PDF extraction (the CLI's runs in a child process it
/// can kill at the deadline, which a thread cannot be).
pub type PdfExtraction = Arc<dyn Fn(&[u8], &Limits) -> Result<DocumentText, PdfError> + Send + Sync>;

/// Where a collection's documents are and how they are read.
#[derive(Clone)]
pub struct Source {
    /// The inputs' names (`-`: standard input, which cannot be read again).
    pub inputs: Vec<String>,
    /// Document files, or JSON Lines records.
    pub kind: SourceKind,
    /// How a document (or a record's text) is read.
    pub document: DocumentOptions,
}

/// How a document is read: one grammar for every front end and command
/// that fingerprints a file, so one file has one `X` everywhere.
#[derive(Clone, Default)]
pub struct DocumentOptions {
    /// Read it as this format instead of detecting it from the content.
    pub format: Option<Format>,
    /// Take the bytes as UTF-8 text as they are: no detection, extraction
    /// or character set decoding.
    pub raw: bool,
    /// How PDF files are extracted (in this process when `None`).
    pub pdf: Option<PdfExtraction>,
}

/// What the inputs hold.
#[derive(Debug, Clone)]
pub enum SourceKind {
    /// Documents of any format `priorart extract` reads (web archives
    /// record by record).
    Files,
    /// JSON Lines: one document per record, of this shape.
    JsonLines(RecordShape),
}

/// Where a reading run's notes and progress go.
pub trait Observer {
    /// Something the user should know: an input read once though named
    /// twice, a record or input skipped and why.
    fn note(&self, message: &str);
    /// `count` more documents fingerprinted.
    fn fingerprinted(&self, count: u64);
}

/// One document's fingerprints.
pub struct Fingerprinted {
    /// The user's id: the file name, FILE#OFFSET for a web archive record
    /// (with its URI), or the JSONL id.
    pub id: String,
    /// Its simhash-doc value (0 when not asked for).
    pub simhash: SimhashDoc,
    /// Its minhash-equality-v1 value, when asked for.
    pub x: Option<[u8; 32]>,
    /// Its word shingles (cut by the shingling asked for), when asked for
    /// (else none).
    pub shingles: WordShingles,
    /// Where it is: its input's number in [`Summary::inputs`], its offset
    /// and extent there (see [`Rereader`]).
    pub place: Place,
    /// The length of its text.
    pub text_bytes: usize,
    /// Its winnowing marks, when asked for (else none), or why there are
    /// none (a text over the aligner's limit).
    pub marks: Result<Vec<Mark>, AlignError>,
}

/// What is computed and checked per document.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// Its `X`.
    pub x: WithX,
    /// Its simhash-doc value, its tokens cut by this rule (simhash-doc-v2's,
    /// or an index's); none when a search needs none (the passage search:
    /// its tokens cost a tenth of its winnowing's reading).
    pub simhash: Option<TokenRule>,
    /// Its word shingles, cut by this shingling (else they are left empty,
    /// and cost nothing).
    pub shingles: Option<Shingling>,
    /// Whether an id given to two documents is refused here. `dedup` checks
    /// that itself, on the ids it keeps anyway: a map of every id and
    /// where it was is several times their size.
    pub unique_ids: bool,
    /// Its winnowing marks (`dedup --passages`), by these settings.
    pub marks: Option<Winnowing>,
}

impl Wanted {
    /// What `index` and `dedup` need: simhash-doc and shingles of
    /// `shingling` (its token rule for both), `X` as `with_x` says, ids
    /// checked.
    pub fn fingerprints(with_x: WithX, shingling: Shingling) -> Wanted {
        Wanted {
            x: with_x,
            simhash: Some(shingling.token_rule()),
            shingles: Some(shingling),
            unique_ids: true,
            marks: None,
        }
    }
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

/// What reading a collection left out, and the inputs it read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// The inputs, each once, in the order read ([`Place::input`] numbers them).
    pub inputs: Vec<String>,
    /// Named inputs that could not be read at all (missing, a directory,
    /// not a document).
    pub failed_inputs: usize,
    /// Those inputs and why, in the order read.
    pub unreadable: Vec<(String, String)>,
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

    /// An error when an input was missed while `earlier` results exist and
    /// the run was not told to skip unreadable inputs: results without a
    /// whole input are not the results the user had. `incomplete` names
    /// what would be ("the results", "the index"), `unchanged` what is kept.
    pub fn refuse_missing_inputs(
        &self,
        skip_unreadable: bool,
        earlier: bool,
        incomplete: &str,
        unchanged: &str,
    ) -> Result<(), CorpusError> {
        if self.failed_inputs > 0 && earlier && !skip_unreadable {
            let inputs = match self.failed_inputs {
                1 => "1 input".to_owned(),
                n => format!("{n} inputs"),
            };
            return Err(CorpusError::MissingInputs {
                inputs,
                incomplete: incomplete.to_owned(),
                unchanged: unchanged.to_owned(),
            });
        }
        Ok(())
    }

    /// The lines of [`SKIPPED`]: `{"input", "error"}` per unreadable input.
    pub fn unreadable_lines(&self) -> Vec<u8> {
        #[derive(serde::Serialize)]
        struct Line<'a> {
            input: &'a str,
            error: &'a str,
        }
        let mut lines = Vec::new();
        for (input, error) in &self.unreadable {
            serde_json::to_writer(&mut lines, &Line { input, error }).expect("a line serializes");
            lines.push(b'\n');
        }
        lines
    }
}

/// A document waiting for its fingerprints.
struct Pending {
    id: String,
    place: Place,
    text: String,
}

/// Reads every document of `source`, computes what `wanted` says on all
/// cores, and hands each batch to `sink` in input order. Unreadable inputs
/// and records are told to `observer` and skipped, and so are empty texts;
/// the summary counts them. An input named twice is read once (with a
/// note); with [`Wanted::unique_ids`], an id given to two documents is an
/// error (nothing is handed on after it matters: the caller writes only
/// once this returns `Ok`). An error of `sink` ends the run.
pub fn read_all<E: From<CorpusError>>(
    source: &Source,
    wanted: &Wanted,
    observer: &dyn Observer,
    sink: impl FnMut(Vec<Fingerprinted>) -> Result<(), E>,
) -> Result<Summary, E> {
    read_in_batches(source, wanted, observer, sink, BATCH_TEXT_BYTES)
}

/// [`read_all`] in batches of `batch_bytes` of text.
fn read_in_batches<E: From<CorpusError>>(
    source: &Source,
    wanted: &Wanted,
    observer: &dyn Observer,
    sink: impl FnMut(Vec<Fingerprinted>) -> Result<(), E>,
    batch_bytes: usize,
) -> Result<Summary, E> {
    let inputs = unique_inputs(&source.inputs, observer);
    // Reading (one thread's work: parsing, decoding) and the sink run here
    // while the batch before is fingerprinted on all cores: done in turn,
    // a core waited for each (BENCHMARKS.md, "Pass 1 overlapped").
    std::thread::scope(|scope| {
        let (batches, to_fingerprint) = mpsc::sync_channel::<Vec<Pending>>(1);
        let (done, fingerprinted) = mpsc::sync_channel(IN_FLIGHT);
        scope.spawn(move || {
            for batch in to_fingerprint {
                // The receiver is gone when the run stopped early.
                if done.send(fingerprint_batch(batch, wanted)).is_err() {
                    break;
                }
            }
        });
        let reading = Reading {
            wanted,
            observer,
            sink,
            identities: Identities::default(),
            pending: Vec::new(),
            pending_bytes: 0,
            batch_bytes,
            empty: 0,
            input: 0,
            stopped: None,
            batches,
            fingerprinted,
            in_flight: 0,
        };
        read_inputs(source, inputs, reading)
    })
}

/// [`read_all`]'s reading of `inputs`, each once, in order.
fn read_inputs<S: FnMut(Vec<Fingerprinted>) -> Result<(), E>, E: From<CorpusError>>(
    source: &Source,
    inputs: Vec<String>,
    mut reading: Reading<'_, S, E>,
) -> Result<Summary, E> {
    let observer = reading.observer;
    let mut summary = Summary::default();
    for (input, name) in (0u32..).zip(&inputs) {
        reading.input = input;
        let mut note = |message: String| observer.note(&message);
        let read = match &source.kind {
            SourceKind::JsonLines(shape) => inputs::read_jsonl(name, source, shape, &mut reading, &mut note),
            SourceKind::Files => inputs::read_file(name, source, &mut reading, &mut note),
        };
        match read {
            Ok(skipped_here) => summary.skipped_records += skipped_here,
            Err(Halt::Consumer) => return Err(reading.stopped.take().expect("the consumer's error is kept")),
            Err(Halt::Input(err)) => {
                let why = priorart_reason::error_chain(&err);
                observer.note(&why);
                summary.failed_inputs += 1;
                summary.unreadable.push((name.clone(), why));
            }
        }
    }
    reading.flush()?;
    reading.hand_on_all()?;
    summary.inputs = inputs;
    summary.empty = reading.empty;
    reading.identities.check()?;
    if summary.empty > 0 {
        observer.note(&format!("{} empty document(s) skipped (no text to compare)", summary.empty));
    }
    Ok(summary)
}

/// One run of [`read_all`]: documents waiting for their fingerprints, and
/// the sink's error when it stopped the run.
struct Reading<'a, S, E> {
    wanted: &'a Wanted,
    observer: &'a dyn Observer,
    sink: S,
    identities: Identities,
    pending: Vec<Pending>,
    pending_bytes: usize,
    batch_bytes: usize,
    empty: usize,
    input: u32,
    stopped: Option<E>,
    /// To the fingerprinting thread.
    batches: mpsc::SyncSender<Vec<Pending>>,
    /// From it, in the order sent.
    fingerprinted: mpsc::Receiver<Vec<Fingerprinted>>,
    /// Batches sent and not yet handed to the sink.
    in_flight: usize,
}

impl<S: FnMut(Vec<Fingerprinted>) -> Result<(), E>, E> Reading<'_, S, E> {
    /// The pending documents sent to be fingerprinted (once fewer than
    /// [`IN_FLIGHT`] batches are), and the batches fingerprinted by then
    /// handed on.
    fn flush(&mut self) -> Result<(), E> {
        if self.pending.is_empty() {
            return Ok(());
        }
        while self.in_flight >= IN_FLIGHT {
            self.hand_on_one()?;
        }
        self.pending_bytes = 0;
        let batch = std::mem::take(&mut self.pending);
        self.batches.send(batch).expect("the fingerprinting thread takes batches until the run ends");
        self.in_flight += 1;
        while let Ok(batch) = self.fingerprinted.try_recv() {
            self.hand_on(batch)?;
        }
        Ok(())
    }

    /// Every batch sent, handed on in order.
    fn hand_on_all(&mut self) -> Result<(), E> {
        while self.in_flight > 0 {
            self.hand_on_one()?;
        }
        Ok(())
    }

    /// The next batch, once fingerprinted, handed on.
    fn hand_on_one(&mut self) -> Result<(), E> {
        let batch = self.fingerprinted.recv().expect("the fingerprinting thread answers every batch");
        self.hand_on(batch)
    }

    /// A batch received from the fingerprinting thread, handed on.
    fn hand_on(&mut self, batch: Vec<Fingerprinted>) -> Result<(), E> {
        self.in_flight -= 1;
        self.observer.fingerprinted(batch.len() as u64);
        (self.sink)(batch)
    }
}

/// A batch fingerprinted on all cores.
fn fingerprint_batch(batch: Vec<Pending>, wanted: &Wanted) -> Vec<Fingerprinted> {
    batch
        .into_par_iter()
        .map_init(Fingerprinter::new, |fingerprinter, pending| fingerprint(fingerprinter, pending, wanted))
        .collect()
}

impl<S: FnMut(Vec<Fingerprinted>) -> Result<(), E>, E> Push for Reading<'_, S, E> {
    fn push(&mut self, id: String, origin: &dyn Fn() -> String, at: At, text: String) -> Result<(), Halt> {
        if is_blank(&text) {
            self.empty += 1;
            return Ok(());
        }
        if self.wanted.unique_ids {
            self.identities.claim(&id, origin());
        }
        self.pending_bytes += text.len();
        let place = Place { input: self.input, offset: at.offset, extent: at.extent };
        self.pending.push(Pending { id, place, text });
        if self.pending_bytes >= self.batch_bytes
            && let Err(err) = self.flush()
        {
            // The sink's own error ends the run (see `read_all`), not
            // only this input.
            self.stopped = Some(err);
            return Err(Halt::Consumer);
        }
        Ok(())
    }
}

/// The inputs, each once: a name that stands for a file already named
/// (the same path, or another path to the same file, as overlapping globs
/// give) is dropped with a note, so a document is never its own copy.
fn unique_inputs(inputs: &[String], observer: &dyn Observer) -> Vec<String> {
    let mut seen: HashMap<PathBuf, &str> = HashMap::new();
    let mut unique = Vec::with_capacity(inputs.len());
    for name in inputs {
        let identity = if name == STDIN {
            PathBuf::from(name)
        } else {
            std::fs::canonicalize(name).unwrap_or_else(|_| PathBuf::from(name))
        };
        match seen.get(&identity) {
            Some(first) if *first == name => {
                observer.note(&format!("warning: {name} is named more than once; read once"));
            }
            Some(first) => {
                observer.note(&format!("warning: {name} is the same file as {first}; read once, as {first}"))
            }
            None => {
                seen.insert(identity, name);
                unique.push(name.clone());
            }
        }
    }
    unique
}

fn fingerprint(fingerprinter: &mut Fingerprinter, pending: Pending, wanted: &Wanted) -> Fingerprinted {
    let x_scheme = (wanted.x == WithX::Yes).then_some(Scheme::MinhashEqualityV1);
    let simhash_scheme = wanted.simhash.map(TokenRule::simhash_scheme);
    let schemes: Vec<Scheme> = x_scheme.into_iter().chain(simhash_scheme).collect();
    let (mut x, mut simhash) = (None, SimhashDoc(0));
    for found in fingerprinter.fingerprint(&pending.text, &schemes) {
        match found {
            Fingerprint::Equality(value) => x = Some(value.0),
            Fingerprint::SimhashDoc(value) => simhash = value,
            _ => {}
        }
    }
    let shingles = match wanted.shingles {
        Some(shingling) => WordShingles::of(&pending.text, shingling),
        None => WordShingles::default(),
    };
    let marks = match &wanted.marks {
        Some(winnowing) => winnowing.marks(&pending.text),
        None => Ok(Vec::new()),
    };
    Fingerprinted {
        id: pending.id,
        simhash,
        x,
        shingles,
        place: pending.place,
        text_bytes: pending.text.len(),
        marks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Quiet;

    impl Observer for Quiet {
        fn note(&self, _: &str) {}
        fn fingerprinted(&self, _: u64) {}
    }

    /// A sink's own failure (the reading's is not expected here).
    #[derive(Debug)]
    struct SinkFailed;

    impl From<CorpusError> for SinkFailed {
        fn from(err: CorpusError) -> SinkFailed {
            panic!("the reading failed: {err}")
        }
    }

    #[test]
    fn batches_come_in_input_order_and_a_sink_failure_ends_the_reading() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("docs.jsonl");
        let records: String = (0..300)
            .map(|n| format!("{{\"id\":\"d{n}\",\"text\":\"document {n} of a few words\"}}\n"))
            .collect();
        std::fs::write(&path, records).unwrap();
        let shape = RecordShape { text_field: "text".into(), id_field: Some("id".into()) };
        let source = Source {
            inputs: vec![path.display().to_string()],
            kind: SourceKind::JsonLines(shape),
            document: DocumentOptions::default(),
        };
        let wanted = Wanted::fingerprints(WithX::No, Shingling::Words);
        // About 7 documents a batch: many batches in flight.
        let (mut ids, mut batches) = (Vec::new(), 0);
        let sink = |batch: Vec<Fingerprinted>| {
            batches += 1;
            ids.extend(batch.into_iter().map(|document| document.id));
            Ok::<(), SinkFailed>(())
        };
        read_in_batches(&source, &wanted, &Quiet, sink, 160).unwrap();
        assert!(batches > 30, "{batches} batches");
        assert_eq!(ids, (0..300).map(|n| format!("d{n}")).collect::<Vec<_>>());
        let mut handed = 0;
        let failing = |_: Vec<Fingerprinted>| {
            handed += 1;
            if handed == 5 { Err(SinkFailed) } else { Ok(()) }
        };
        read_in_batches(&source, &wanted, &Quiet, failing, 160).unwrap_err();
        assert_eq!(handed, 5, "nothing is handed on after the failure");
    }
}
