//! Why a run found no answer.

/// Why a deduplication stopped without an answer (nothing is written then).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DedupError {
    /// The Jaccard threshold is not between 0 and 1.
    #[error("the Jaccard threshold must be between 0 and 1, not {min_jaccard}")]
    Threshold {
        /// The threshold asked for.
        min_jaccard: f64,
    },
    /// MinHash bands cannot find the pairs at so low a threshold.
    #[error(
        "MinHash candidates need a Jaccard threshold of about 0.3 or more, not {min_jaccard}: use simhash candidates"
    )]
    MinhashThreshold {
        /// The threshold asked for.
        min_jaccard: f64,
    },
    /// The MinHash band keys could not be written or read back.
    #[error("{0}")]
    BandKeys(String),
    /// No table layout finds every pair within the distance asked for.
    #[error("{0}")]
    Distance(String),
    /// More documents than pairs can number (`u32::MAX`).
    #[error("more than {} documents: split the collection", u32::MAX - 1)]
    TooManyDocuments,
    /// A candidate document could not be read again.
    #[error("cannot read a document again: {0}")]
    Reread(crate::RereadError),
    /// A document read again is not the text read the first time (its
    /// input changed during the run).
    #[error(
        "the document {id:?} changed while it was deduplicated ({first} bytes of text, then {again}): run again"
    )]
    Changed {
        /// The document's id.
        id: String,
        /// Its text's length in pass 1.
        first: u64,
        /// Its text's length when read again.
        again: u64,
    },
    /// The run was asked to stop (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
    /// The temporary file the texts are kept in could not be written.
    #[error("cannot write the texts to a temporary file: {0}")]
    Spill(#[source] std::io::Error),
    /// A text longer than a place can hold (4 GiB).
    #[error("a text of {bytes} bytes: at most 4 GiB per text")]
    TextTooLong {
        /// Its length.
        bytes: u64,
    },
    /// Sorted runs could not be written to or read from a temporary file.
    #[error("cannot write or read sorted records in a temporary file: {0}")]
    SortRuns(#[source] std::io::Error),
    /// The results could not be written as they were found.
    #[error("cannot write the results: {0}")]
    Output(#[source] std::io::Error),
    /// An output file (a passage search's, `passage_files`) could not be
    /// written or put in place; the error names it.
    #[error(transparent)]
    OutputFile(priorart_files::FileError),
    /// A passage search's setting is out of its range.
    #[error("{0}")]
    PassageSettings(String),
    /// An id given to two documents (each needs its own).
    #[error("the id {id:?} names two documents (numbers {first} and {second}, from 0){}: each document needs its own id", more(*count))]
    RepeatedId {
        /// The id.
        id: String,
        /// The earlier document's number, from 0.
        first: u32,
        /// The later's.
        second: u32,
        /// How many documents repeat an earlier one's id.
        count: usize,
    },
}

/// ", and N more" when more than one id is repeated.
fn more(count: usize) -> String {
    if count > 1 { format!(", and {} more repeated id(s)", count - 1) } else { String::new() }
}

reason_names!(DedupError {
    Threshold => "threshold",
    MinhashThreshold => "minhash_threshold",
    BandKeys => "band_keys",
    Distance => "distance_too_large",
    TooManyDocuments => "too_many_documents",
    Reread => "reread",
    Changed => "changed",
    Interrupted => "interrupted",
    Spill => "spill",
    TextTooLong => "text_too_long",
    RepeatedId => "repeated_id",
    SortRuns => "sort_runs",
    PassageSettings => "passage_settings",
    Output => "output",
    OutputFile => "output_file",
});
