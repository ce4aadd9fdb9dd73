//! Why an input, a record or a collection could not be read.

use priorart_extract::{ExtractError, Format};
use priorart_reason::reason_names;

/// What a front end's PDF extraction gives when it fails (the CLI's runs in
/// a child process and says why in its own words).
pub type PdfError = Box<dyn std::error::Error + Send + Sync>;

/// Why an input, one of its records, or the collection was refused. Each
/// names the input (and where in it), so a line of `skipped.jsonl` or of
/// stderr says which file to look at.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// A named input could not be opened.
    #[error("{name}: cannot open")]
    Open {
        /// The input.
        name: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An input could not be read (or read again).
    #[error("{name}: cannot read{again}")]
    Read {
        /// The input.
        name: String,
        /// `" again"` when it was read once already, else empty.
        again: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A directory named as a document.
    #[error("{name}: a directory, not a document (name the files in it, for example {name}/*)")]
    Directory {
        /// The directory.
        name: String,
    },
    /// Bytes taken as text as they are (`raw`) that are not UTF-8.
    #[error("{name}: not valid UTF-8 (first invalid byte at offset {offset})")]
    NotUtf8 {
        /// The input.
        name: String,
        /// Where the first invalid sequence starts.
        offset: usize,
    },
    /// A document whose text could not be extracted.
    #[error("{name}: cannot read as a document")]
    Document {
        /// The input.
        name: String,
        /// Why.
        #[source]
        source: ExtractError,
    },
    /// A PDF the front end's own extraction could not read.
    #[error("{name}: cannot read as a document")]
    Pdf {
        /// The input.
        name: String,
        /// Why.
        #[source]
        source: PdfError,
    },
    /// A web archive that could not be read (or read again).
    #[error("{name}: {format}")]
    Archive {
        /// The input.
        name: String,
        /// Its format (WARC or ARC).
        format: Format,
        /// Why.
        #[source]
        source: ExtractError,
    },
    /// A JSON Lines record that is not a record of the shape asked for.
    #[error(transparent)]
    Record(#[from] priorart_jsonl::RecordError),
    /// A record's text member that could not be extracted as the format
    /// asked for.
    #[error("line {number}: member `{field}` as {format}")]
    Member {
        /// The record's line.
        number: u64,
        /// The text member.
        field: String,
        /// The format asked for.
        format: Format,
        /// Why.
        #[source]
        source: ExtractError,
    },
    /// One id given to two documents or more.
    #[error(
        "the id {id:?} names two documents ({first} and {second}){more}: each document needs its own id \
         (check the --id-field values); nothing was written"
    )]
    RepeatedId {
        /// The first id given twice.
        id: String,
        /// Where it was given first.
        first: String,
        /// And the second time.
        second: String,
        /// ", and N other id(s): …" when more ids were given twice.
        more: String,
    },
    /// Inputs that could not be read, where earlier results would be
    /// replaced by incomplete ones.
    #[error(
        "{inputs} could not be read, so {incomplete} would be incomplete{unchanged} (--skip-unreadable \
         finishes the run without it and lists what it skipped)"
    )]
    MissingInputs {
        /// "1 input", "3 inputs".
        inputs: String,
        /// What would be incomplete ("the results").
        incomplete: String,
        /// What is kept (", and the index is unchanged"), or empty.
        unchanged: String,
    },
    /// A document read again is not where or what it was.
    #[error("{name}: {what} (changed since it was read?)")]
    Changed {
        /// The input.
        name: String,
        /// What was not found again.
        what: String,
    },
}

reason_names!(CorpusError {
    Open => "open",
    Read => "read",
    Directory => "directory",
    NotUtf8 => "not_utf8",
    Document => "document",
    Pdf => "pdf",
    Archive => "archive",
    Record => "record",
    Member => "member",
    RepeatedId => "repeated_id",
    MissingInputs => "missing_inputs",
    Changed => "changed",
});

#[cfg(test)]
mod tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        priorart_reason::check_names(super::CorpusError::REASONS).unwrap();
    }
}
