//! The collection options of `index` and `dedup` (which inputs, read how),
//! and their reading shown on stderr: the reading itself is
//! `priorart_corpus`'s, shared with every front end.

use crate::input::DocumentArgs;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use priorart_corpus::{Fingerprinted, Observer, Rereader, Source, SourceKind, Summary, Wanted, WithX};
use priorart_fingerprint::Shingling;
use priorart_jsonl::RecordShape;

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

impl CorpusArgs {
    /// The collection these options name.
    pub fn source(&self) -> Source {
        let kind = if self.jsonl {
            SourceKind::JsonLines(RecordShape {
                text_field: self.field.clone(),
                id_field: self.id_field.clone(),
            })
        } else {
            SourceKind::Files
        };
        Source { inputs: self.inputs.clone(), kind, document: self.document.options() }
    }

    /// A reader of the documents [`read_all`] read, by their places.
    pub fn rereader(&self, summary: &Summary) -> Rereader {
        Rereader::new(&self.source(), &summary.inputs)
    }

    /// Refuses results that would miss an input (see
    /// [`Summary::refuse_missing_inputs`]) unless told to skip them.
    pub fn refuse_missing_inputs(
        &self,
        summary: &Summary,
        earlier: bool,
        incomplete: &str,
        unchanged: &str,
    ) -> Result<()> {
        Ok(summary.refuse_missing_inputs(self.skip_unreadable, earlier, incomplete, unchanged)?)
    }
}

/// A spinner counting documents, and notes printed above it.
struct Spinner(ProgressBar);

impl Observer for Spinner {
    fn note(&self, message: &str) {
        self.0.suspend(|| note!("priorart: {message}"));
    }

    fn fingerprinted(&self, count: u64) {
        self.0.inc(count);
    }
}

/// Reads every document of the inputs and hands each batch, fingerprinted
/// as `wanted` says, to `sink` ([`priorart_corpus::read_all`]), with a
/// spinner on stderr.
pub fn read_all(
    args: &CorpusArgs,
    wanted: &Wanted,
    sink: impl FnMut(Vec<Fingerprinted>) -> Result<()>,
) -> Result<Summary> {
    let spinner = ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template("{spinner} {msg}: {human_pos} documents, {per_sec}, {elapsed}")
            .expect("a valid template"),
    );
    spinner.set_message("fingerprinting");
    let spinner = Spinner(spinner);
    let read = priorart_corpus::read_all(&args.source(), wanted, &spinner, sink);
    spinner.0.finish_and_clear();
    read
}

/// [`read_all`] of what `index` and `dedup` need ([`Wanted::fingerprints`]).
pub fn fingerprint_all(
    args: &CorpusArgs,
    with_x: WithX,
    shingling: Shingling,
    sink: impl FnMut(Vec<Fingerprinted>) -> Result<()>,
) -> Result<Summary> {
    read_all(args, &Wanted::fingerprints(with_x, shingling), sink)
}
