//! The typed errors of every extractor.

use std::time::Duration;
use thiserror::Error;

/// Why a document (or one record of a web archive) could not be turned into text.
///
/// Every variant is reachable from hostile or broken input; none of them is a bug
/// in the caller. The messages name the limit that was hit so that a user knows
/// which knob of [`crate::Limits`] to turn.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum ExtractError {
    /// The input (or a member of an archive) is larger than allowed.
    #[error("input of {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    /// Elements nested deeper than allowed (HTML, XML).
    #[error("nesting deeper than {limit} levels")]
    TooDeep { limit: usize },
    /// A compressed member expands beyond the size or ratio limits (zip or gzip bomb).
    #[error("decompression bomb: {what} expands beyond {limit} (compressed {compressed} bytes)")]
    DecompressionBomb { what: String, compressed: u64, limit: crate::InflationLimit },
    /// A file that holds several documents (a web archive) where one was
    /// expected.
    #[error("{format} holds {count} documents where one was expected (`priorart extract --json` lists them)")]
    ManyDocuments {
        /// The file's format.
        format: crate::Format,
        /// How many documents it holds.
        count: usize,
    },
    /// The work took longer than the time budget.
    #[error("time budget of {limit:?} exhausted")]
    Timeout { limit: Duration },
    /// Bytes that are not valid in the encoding they declare or were detected as.
    #[error("invalid {encoding} text at byte {offset}")]
    InvalidEncoding { encoding: &'static str, offset: usize },
    /// Binary data where text was expected.
    #[error("not text: binary data (NUL byte at offset {offset})")]
    NotText { offset: usize },
    /// The container or markup is broken beyond what the parser recovers from.
    #[error("malformed {format}: {reason}")]
    Malformed { format: &'static str, reason: String },
    /// A gzip member ends before its trailer (cut-off download or write).
    #[error("truncated gzip member")]
    TruncatedGzip,
    /// A PDF whose object graph refers back to itself.
    #[error("PDF object graph is cyclic: {0}")]
    CyclicPdf(String),
    /// A PDF that has no text layer (a scan without OCR, or only drawings).
    #[error("PDF has no text layer")]
    NoTextLayer,
    /// The PDF parser panicked; the panic was contained.
    #[error("PDF parser failed internally: {0}")]
    ParserPanic(String),
    /// Encrypted PDF or EPUB (DRM): the text cannot be read without a key.
    #[error("{0} is encrypted")]
    Encrypted(&'static str),
    /// A feature of the format that priorart does not read.
    #[error("unsupported: {0}")]
    Unsupported(String),
}

reason_names!(ExtractError {
    TooLarge => "too_large",
    TooDeep => "too_deep",
    DecompressionBomb => "decompression_bomb",
    ManyDocuments => "many_documents",
    Timeout => "timeout",
    InvalidEncoding => "invalid_encoding",
    NotText => "not_text",
    Malformed => "malformed",
    TruncatedGzip => "truncated_gzip",
    CyclicPdf => "cyclic_pdf",
    NoTextLayer => "no_text_layer",
    ParserPanic => "parser_panic",
    Encrypted => "encrypted",
    Unsupported => "unsupported",
});

impl ExtractError {
    pub(crate) fn malformed(format: &'static str, reason: impl ToString) -> Self {
        ExtractError::Malformed { format, reason: reason.to_string() }
    }
}
