//! Collections of documents for `index` and `dedup`: files read as every
//! command reads a document (a web archive record by record), or JSON Lines
//! records with a text member; each document gets an id and its
//! fingerprints on all cores, a batch at a time, so memory stays bounded by
//! the batch, not the collection.

use crate::input::{self, DocumentArgs};
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use priorart_align::{AlignError, Mark, Winnowing};
use priorart_dedup::{Catalog, Kept, Place, Reread, RereadError};
use priorart_extract::{Format, Limits};
use priorart_fingerprint::{
    Fingerprint, Fingerprinter, Scheme, Shingling, SimhashDoc, TokenRule, WordShingles,
};
use priorart_jsonl::{Batch, Line, LineReader, Record, RecordError, RecordShape};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Whether a document's text is empty or only white space (the dedup
/// engine's rule, so every front end skips the same texts).
pub use priorart_dedup::is_blank;

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
    /// Finish the run when an input cannot be read (a stray PNG among the
    /// documents): it is skipped, counted in the summary and listed with
    /// its reason (dedup: OUT/skipped.jsonl). Without it, earlier results
    /// are not replaced by a run that missed an input.
    #[arg(long)]
    pub skip_unreadable: bool,
}

/// The file of an output directory listing the inputs a run skipped.
pub const SKIPPED: &str = "skipped.jsonl";

/// One document's fingerprints.
pub struct Fingerprinted {
    /// The user's id: the file name, FILE#OFFSET for a web archive record
    /// (with its URI), or the JSONL id.
    pub id: String,
    /// Its simhash-doc value.
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

/// A document waiting for its fingerprints.
struct Pending {
    id: String,
    place: Place,
    text: String,
}

/// What is computed and checked per document besides simhash-doc.
#[derive(Debug, Clone)]
pub struct Wanted {
    /// Its `X`.
    pub x: WithX,
    /// How its simhash-doc value cuts tokens: simhash-doc-v2's rule, or an
    /// index's.
    pub rule: TokenRule,
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
        args: &CorpusArgs,
        earlier: bool,
        incomplete: &str,
        unchanged: &str,
    ) -> Result<()> {
        if self.failed_inputs > 0 && earlier && !args.skip_unreadable {
            bail!(
                "{} could not be read, so {incomplete} would be incomplete{unchanged} (--skip-unreadable \
                 finishes the run without it and lists what it skipped)",
                crate::counted(self.failed_inputs as u64, "input")
            );
        }
        Ok(())
    }

    /// The lines of [`SKIPPED`]: `{"input", "error"}` per unreadable input.
    pub fn unreadable_lines(&self) -> Vec<u8> {
        let mut lines = Vec::new();
        for (input, error) in &self.unreadable {
            lines.extend(serde_json::json!({"input": input, "error": error}).to_string().bytes());
            lines.push(b'\n');
        }
        lines
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
    sink: impl FnMut(Vec<Fingerprinted>) -> Result<()>,
) -> Result<Summary> {
    let wanted = Wanted {
        x: with_x,
        rule: shingling.token_rule(),
        shingles: Some(shingling),
        unique_ids: true,
        marks: None,
    };
    read_all(args, wanted, sink)
}

/// [`fingerprint_all`] computing and checking what `wanted` says.
pub fn read_all(
    args: &CorpusArgs,
    wanted: Wanted,
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
                fingerprint(fingerprinter, pending, &wanted)
            })
            .collect();
        progress.inc(batch.len() as u64);
        *pending_bytes = 0;
        sink(batch)
    };
    let inputs: Vec<String> = unique_inputs(&args.inputs, &progress).into_iter().map(str::to_owned).collect();
    for (input, name) in (0u32..).zip(&inputs) {
        let name = name.as_str();
        let mut push = |id: String, origin: &dyn Fn() -> String, at: At, text: String| -> Result<()> {
            if is_blank(&text) {
                summary.empty += 1;
                return Ok(());
            }
            if wanted.unique_ids {
                identities.claim(&id, origin());
            }
            pending_bytes += text.len();
            let place = Place { input, offset: at.offset, extent: at.extent };
            pending.push(Pending { id, place, text });
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
                summary.unreadable.push((name.to_owned(), format!("{err:#}")));
            }
        }
    }
    flush(&mut pending, &mut pending_bytes)?;
    progress.finish_and_clear();
    summary.inputs = inputs;
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
        match self.repeated.first() {
            None => Ok(()),
            Some(first) => {
                let others: Vec<&str> = self.repeated[1..].iter().map(|(id, _, _)| id.as_str()).collect();
                Err(repeated_ids(first, &others, self.repeated.len()))
            }
        }
    }
}

/// The error for ids given to two documents: the first with both places,
/// then up to [`LISTED_DUPLICATES`] in all, of `count`.
fn repeated_ids(
    (id, first, second): &(String, String, String),
    others: &[&str],
    count: usize,
) -> anyhow::Error {
    let more = match count {
        1 => String::new(),
        n => {
            let listed: Vec<String> =
                others.iter().take(LISTED_DUPLICATES - 1).map(|id| format!("{id:?}")).collect();
            let unlisted = n.saturating_sub(LISTED_DUPLICATES);
            let tail = if unlisted > 0 { format!(" and {unlisted} more") } else { String::new() };
            format!(", and {} other id(s): {}{tail}", n - 1, listed.join(", "))
        }
    };
    anyhow::anyhow!(
        "the id {id:?} names two documents ({first} and {second}){more}: each document needs its own id \
         (check the --id-field values); nothing was written"
    )
}

/// Refuses a catalog in which two documents have one id (as
/// [`fingerprint_all`] does while it reads); `origin` names where document
/// `number` was read.
pub fn refuse_repeated_ids<K: Kept>(catalog: &Catalog<K>, origin: impl Fn(u32) -> String) -> Result<()> {
    let ids = catalog.ids();
    let (repeated, count) = ids.repeated(LISTED_DUPLICATES);
    let Some(&(earlier, later)) = repeated.first() else { return Ok(()) };
    let first = (ids.get(later).to_owned(), origin(earlier), origin(later));
    let others: Vec<&str> = repeated[1..].iter().map(|&(_, later)| ids.get(later)).collect();
    Err(repeated_ids(&first, &others, count))
}

fn fingerprint(fingerprinter: &mut Fingerprinter, pending: Pending, wanted: &Wanted) -> Fingerprinted {
    let simhash_scheme = wanted.rule.simhash_scheme();
    let with_x = [Scheme::MinhashEqualityV1, simhash_scheme];
    let schemes: &[Scheme] = match wanted.x {
        WithX::Yes => &with_x,
        WithX::No => &with_x[1..],
    };
    let (mut x, mut simhash) = (None, SimhashDoc(0));
    for found in fingerprinter.fingerprint(&pending.text, schemes) {
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
    push: &mut impl FnMut(String, &dyn Fn() -> String, At, String) -> Result<()>,
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
        push(name.to_owned(), &|| name.to_owned(), At::default(), text)?;
        return Ok(0);
    }
    let extraction =
        priorart_extract::extract(&bytes, format, &limits).with_context(|| format!("{name}: {format}"))?;
    for error in &extraction.record_errors {
        note!("priorart: {name}: record at offset {}: {}", error.offset, error.error);
    }
    let mut ordinals = Ordinals::default();
    for document in extraction.documents {
        let offset = document.offset.unwrap_or(0);
        let id = match &document.uri {
            Some(uri) => format!("{name}#{offset} {uri}"),
            None => format!("{name}#{offset}"),
        };
        let at = At { offset, extent: ordinals.next(offset) };
        push(id, &|| format!("{name}#{offset}"), at, document.text)?;
    }
    Ok(extraction.record_errors.len())
}

/// JSON Lines: one document per record (blank lines are none).
fn read_jsonl(
    name: &str,
    args: &CorpusArgs,
    push: &mut impl FnMut(String, &dyn Fn() -> String, At, String) -> Result<()>,
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
        for ((number, record), (offset, length)) in records.into_iter().zip(batch.places()) {
            match record {
                Ok(Some((id, text))) => {
                    let origin = || format!("{name}:{number}");
                    // A kept line is at most MAX_LINE_BYTES long.
                    let at = At { offset, extent: u32::try_from(length).unwrap_or(u32::MAX) };
                    push(id.unwrap_or_else(origin), &origin, at, text)?
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

/// Where a document is in its input (see [`Place`]).
#[derive(Debug, Clone, Copy, Default)]
struct At {
    offset: u64,
    extent: u32,
}

/// The position of each web archive document among those of its unit (a
/// gzip member can hold several records): the extent of its place.
#[derive(Default)]
struct Ordinals {
    offset: Option<u64>,
    count: u32,
}

impl Ordinals {
    fn next(&mut self, offset: u64) -> u32 {
        if self.offset == Some(offset) {
            self.count += 1;
        } else {
            (self.offset, self.count) = (Some(offset), 0);
        }
        self.count
    }
}

/// The documents of a collection read again by their places, each exactly
/// as [`read_all`] read it the first time (the same code), for `dedup`'s
/// verification: a JSONL record is one read of its line; a document file is
/// read whole; a web archive is read once per batch, its records from the
/// first one asked for. Standard input cannot be read again.
pub struct Rereader<'a> {
    args: &'a CorpusArgs,
    inputs: &'a [String],
    files: Vec<OnceLock<std::io::Result<std::fs::File>>>,
}

impl<'a> Rereader<'a> {
    /// A reader of the inputs `read_all` read (`summary.inputs`).
    pub fn new(args: &'a CorpusArgs, inputs: &'a [String]) -> Self {
        Rereader { args, inputs, files: inputs.iter().map(|_| OnceLock::new()).collect() }
    }

    /// How a document's place is named in messages: FILE:LINE for a JSONL
    /// record (its line counted again), FILE#OFFSET for an archive record,
    /// else the file's name.
    pub fn origin(&self, place: Place) -> String {
        let name = &self.inputs[place.input as usize];
        if !self.args.jsonl {
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

    fn file(&self, input: u32) -> Result<&std::fs::File> {
        let name = &self.inputs[input as usize];
        match self.files[input as usize].get_or_init(|| std::fs::File::open(name)) {
            Ok(file) => Ok(file),
            Err(err) => bail!("{name}: cannot open again: {err}"),
        }
    }

    /// The text of the JSONL record at `place`.
    fn record_text(&self, place: Place) -> Result<String> {
        let name = &self.inputs[place.input as usize];
        let mut line = vec![0; place.extent as usize];
        self.file(place.input)?
            .read_exact_at(&mut line, place.offset)
            .with_context(|| format!("{name}: cannot read again at byte {}", place.offset))?;
        let changed =
            || anyhow::anyhow!("{name}: the line at byte {} changed since it was read", place.offset);
        let Line::Text(text) = priorart_jsonl::line_text(0, Ok(line.as_slice())).map_err(|_| changed())?
        else {
            return Err(changed());
        };
        let shape = RecordShape { text_field: self.args.field.clone(), id_field: self.args.id_field.clone() };
        match document_of(0, shape.parse(0, text).map(Some), self.args) {
            Ok(Some((_, text))) => Ok(text),
            _ => Err(changed()),
        }
    }

    /// The texts of the documents at `places`, all in one file input.
    fn file_texts(&self, places: &[Place]) -> Result<Vec<String>> {
        let name = self.inputs[places[0].input as usize].as_str();
        let limits = Limits::default();
        let mut bytes = Vec::new();
        std::fs::File::open(name)
            .and_then(|file| file.take(limits.max_input_bytes + 1).read_to_end(&mut bytes))
            .with_context(|| format!("{name}: cannot read again"))?;
        let format = self.args.document.format.unwrap_or_else(|| priorart_extract::detect(&bytes));
        if self.args.document.raw || !matches!(format, Format::Warc | Format::Arc) {
            return Ok(vec![input::read_document_bytes(name, &bytes, &self.args.document)?.text]);
        }
        let start = places[0].offset;
        let tail = usize::try_from(start).ok().and_then(|start| bytes.get(start..)).unwrap_or_default();
        let records = priorart_extract::archive_records(tail, format, &limits)?;
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
            bail!(
                "{name}: {} archive record(s) not found again (changed since read?)",
                places.len() - texts.len()
            );
        }
        Ok(texts)
    }
}

impl Reread for Rereader<'_> {
    fn texts(&self, places: &[Place]) -> Result<Vec<String>, RereadError> {
        let mut texts = Vec::with_capacity(places.len());
        for group in places.chunk_by(|x, y| x.input == y.input) {
            let found: Result<Vec<String>> = if self.args.jsonl {
                group.par_iter().map(|&place| self.record_text(place)).collect()
            } else {
                self.file_texts(group)
            };
            texts.extend(found.map_err(|err| RereadError::from(format!("{err:#}")))?);
        }
        Ok(texts)
    }
}
