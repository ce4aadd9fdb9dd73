//! Documents → the plain text that similarity hashes are computed over.
//!
//! One job: given the bytes of an HTML page, an XML article (JATS, TEI or any other
//! vocabulary), a PDF, an EPUB, a plain-text file, a man page (any of them gzipped)
//! or a WARC/ARC web archive, return
//! the text a reader sees, as the lsh-interop `simhash-doc` scheme asks: metadata and
//! styling stripped; figure captions, table contents, quotations and reference lists
//! kept; URLs and identifiers (DOIs, e-mail addresses, ORCIDs, arXiv ids) dropped.
//! The same document in two media should come out as nearly the same words, because
//! that is what lets its fingerprints meet.
//!
//! ```
//! use priorart_extract::{detect, extract, Format, Limits};
//! let html = b"<html><body><nav>Home | About</nav><p>Tidal mills ground grain.</p></body></html>";
//! assert_eq!(detect(html), Format::Html);
//! let out = extract(html, Format::Html, &Limits::default()).unwrap();
//! assert_eq!(out.documents[0].text, "Tidal mills ground grain.");
//! ```
//!
//! # Which crate does what, and why
//!
//! | job | crate | why |
//! |---|---|---|
//! | HTML parsing | [`scraper`] (html5ever) | Servo's WHATWG-conformant parser: it recovers from any tag soup exactly as browsers do, and `scraper` stores the tree in an arena (`ego-tree`), so walking and dropping a 100 000-deep tree needs no recursion. |
//! | XML (JATS, TEI, generic, EPUB OPF) | [`quick_xml`] | streaming, no DTD or external-entity expansion (so no billion-laughs or XXE), and depth is ours to count. |
//! | character sets | [`encoding_rs`] + [`chardetng`] | the WHATWG Encoding Standard as Firefox implements it, and Firefox's detector for undeclared legacy 8-bit text. |
//! | gzip (WARC/ARC members, HTTP content-encoding, gzipped documents) | [`flate2`] | decoding one member at a time tells us where each member ends, so one truncated member is reported and the next one is still read. |
//! | roff man pages | our own `roff.rs` | a man page's text needs no typesetter: requests and escapes are dropped line by line, in one pass linear in the input (no macro expanded, so a hostile page cannot make it loop or grow), where a typesetter would run what the page defines |
//! | HTTP messages inside WARC records | [`httparse`] | the parser hyper uses; zero-copy, bounded header count. |
//! | EPUB container | [`zip`] | the maintained zip reader; we read the OPF spine ourselves instead of the GPL-3.0 `epub` crate. |
//! | PDF text layer | [`pdf_oxide`] | pure Rust, MIT/Apache, actively released, with a reading-order pass; it runs in a worker thread under `catch_unwind` with a time budget because PDF parsers have open panic reports. |
//!
//! WARC and ARC record framing is hand-written (about a hundred lines): the `warc` and
//! `rust_warc` crates stop at the first bad record, do not read ARC, and cannot resume
//! after a truncated gzip member, which the archive use case needs.
//!
//! # Limits
//!
//! Every extractor obeys [`Limits`]: input size, nesting depth, decompressed size and
//! ratio, zip entry count, WARC record count, and a wall-clock budget. Breaking one is
//! a typed [`ExtractError`], never a panic.
//!
//! # Features
//!
//! Both default, both off in the WebAssembly package (bindings/wasm): `pdf` (pdf_oxide;
//! without it a PDF is [`ExtractError::Unsupported`]) and `wall-clock` ([`Limits::max_time`];
//! std has no clock on wasm32-unknown-unknown).

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod budget;
mod clean;
mod decode;
mod detect;
mod epub;
mod error;
mod gzip;
mod html;
#[cfg(feature = "pdf")]
mod pdf;
mod roff;
mod text;
mod warc;
mod xml;

pub use detect::detect;
pub use error::ExtractError;
pub use warc::ArchiveRecords;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The document formats priorart reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// HTML or XHTML, any character set.
    Html,
    /// XML: JATS and TEI articles by their structure, anything else as its text.
    Xml,
    /// PDF, from its text layer.
    Pdf,
    /// EPUB 2 or 3: the XHTML documents of the spine, in order.
    Epub,
    /// Plain text: UTF-8, UTF-16 with a byte-order mark, or detected legacy 8-bit.
    Text,
    /// WARC web archive (plain or gzip per record): one document per HTTP response or resource record.
    Warc,
    /// The older Internet Archive ARC format (plain or gzip per record).
    Arc,
    /// A roff man page (man(7) or mdoc(7) macros): its text as `man` shows
    /// it, without requests and escapes.
    Man,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 8] = [
        Format::Html,
        Format::Xml,
        Format::Pdf,
        Format::Epub,
        Format::Text,
        Format::Man,
        Format::Warc,
        Format::Arc,
    ];

    /// The lower-case name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Format::Html => "html",
            Format::Xml => "xml",
            Format::Pdf => "pdf",
            Format::Epub => "epub",
            Format::Text => "text",
            Format::Warc => "warc",
            Format::Arc => "arc",
            Format::Man => "man",
        }
    }

    /// Web archives hold many documents; the other formats are one document each.
    pub fn is_archive(self) -> bool {
        matches!(self, Format::Warc | Format::Arc)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Debug, thiserror::Error)]
#[error("unknown format `{0}` (expected one of html, xml, pdf, epub, text, man, warc, arc)")]
pub struct UnknownFormat(String);

impl UnknownFormat {
    /// The stable snake_case name of this error, as the JSON reports and
    /// the Python binding (`InputError.reason`) give it.
    pub fn reason(&self) -> &'static str {
        "unknown_format"
    }
}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let lower = name.to_ascii_lowercase();
        let alias = match lower.as_str() {
            "htm" | "xhtml" => "html",
            "txt" | "plain" => "text",
            "jats" | "tei" => "xml",
            "roff" | "troff" | "groff" | "mdoc" => "man",
            other => other,
        };
        Format::ALL.into_iter().find(|f| f.name() == alias).ok_or(UnknownFormat(name.to_owned()))
    }
}

/// Bounds on the work any one input may cause. The defaults suit documents of up
/// to a few thousand pages and web archives of up to a few gigabytes read in pieces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest input accepted, in bytes (also the largest archive member or WARC payload).
    pub max_input_bytes: u64,
    /// Deepest element nesting in HTML and XML.
    pub max_depth: usize,
    /// Largest size a compressed member (zip entry, gzip member) may expand to.
    pub max_decompressed_bytes: u64,
    /// Largest expansion ratio of a compressed member once it exceeds 1 MiB.
    pub max_decompression_ratio: u64,
    /// Most entries read from a zip (EPUB) directory.
    pub max_zip_entries: usize,
    /// Most records read from one WARC or ARC file.
    pub max_records: usize,
    /// Most PDF pages read.
    pub max_pdf_pages: usize,
    /// Wall-clock budget for one document: a file, or one record of a web
    /// archive (a crawl is read to its end; a slow record fails alone).
    /// Applies with the `wall-clock` feature (default), not in WebAssembly.
    pub max_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 256 << 20,
            max_depth: 512,
            max_decompressed_bytes: 256 << 20,
            max_decompression_ratio: 200,
            max_zip_entries: 10_000,
            max_records: 1_000_000,
            max_pdf_pages: 5_000,
            max_time: Duration::from_secs(60),
        }
    }
}

/// Below this size a compressed member may expand at any ratio: small
/// repetitive files (a stylesheet, a table of zeros) are normal.
const RATIO_FREE_BYTES: u64 = 1 << 20;

/// Which decompression limit a zip or gzip member broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InflationLimit {
    /// More bytes inflated from one input than [`Limits::max_decompressed_bytes`].
    TotalBytes(u64),
    /// A member over 1 MiB inflated more than
    /// [`Limits::max_decompression_ratio`] times its compressed size.
    Ratio(u64),
}

impl std::fmt::Display for InflationLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InflationLimit::TotalBytes(limit) => write!(f, "{limit} bytes in total"),
            InflationLimit::Ratio(ratio) => write!(f, "{ratio}:1"),
        }
    }
}

impl Limits {
    /// The one decompression-bomb check (zip entries and gzip members):
    /// `inflated` bytes so far of the member `what`, from `compressed`
    /// bytes, after `earlier` bytes inflated from the same input.
    pub(crate) fn check_inflation(
        &self,
        what: &str,
        inflated: u64,
        compressed: u64,
        earlier: u64,
    ) -> Result<(), ExtractError> {
        let limit = if inflated > RATIO_FREE_BYTES
            && inflated > compressed.max(1).saturating_mul(self.max_decompression_ratio)
        {
            InflationLimit::Ratio(self.max_decompression_ratio)
        } else if earlier.saturating_add(inflated) > self.max_decompressed_bytes {
            InflationLimit::TotalBytes(self.max_decompressed_bytes)
        } else {
            return Ok(());
        };
        Err(ExtractError::DecompressionBomb { what: what.to_owned(), compressed, limit })
    }
}

/// The text priorart fingerprints for one file: what every command that
/// reads a document (fingerprint, compare, attest, event, verify --content,
/// index, check) computes its fingerprints over, so one file has one `X`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentText {
    /// The format read: detected from the content, or forced.
    pub format: Format,
    /// The text.
    pub text: String,
}

impl DocumentText {
    /// What was done to the bytes, for `--explain`: `text (character set
    /// decoded, otherwise unchanged)` or `html (extracted)`.
    pub fn how(&self) -> String {
        match self.format {
            Format::Text => "text (character set decoded, otherwise unchanged)".to_owned(),
            format => format!("{format} (text extracted)"),
        }
    }
}

/// The text of one file as priorart fingerprints it: plain text (and
/// Markdown, which is plain text) only decoded from its character set and
/// otherwise unchanged, so that a text's `X` is the one a nostr client
/// computes on the same text; every other format extracted as [`extract`]
/// does. `format` forces a format; by default it is detected from the
/// content. A web archive holds many documents and is refused here
/// ([`ExtractError::ManyDocuments`]): read it with [`extract`].
pub fn document_text(
    bytes: &[u8],
    format: Option<Format>,
    limits: &Limits,
) -> Result<DocumentText, ExtractError> {
    check_size(bytes.len(), limits)?;
    let bytes = &*decompressed(bytes, format, limits)?;
    let format = format.unwrap_or_else(|| detect(bytes));
    if format == Format::Text {
        return Ok(DocumentText { format, text: decode::decode_text(bytes, None)? });
    }
    let mut extraction = extract(bytes, format, limits)?;
    if extraction.documents.len() != 1 || format.is_archive() {
        return Err(ExtractError::ManyDocuments { format, count: extraction.documents.len() });
    }
    let document = extraction.documents.pop().expect("exactly one document");
    Ok(DocumentText { format: document.format, text: document.text })
}

/// The text of one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The format the text was extracted from (for a WARC record: its payload's format).
    pub format: Format,
    /// For web-archive records: the target URI.
    pub uri: Option<String>,
    /// For WARC records: the `WARC-Record-ID`.
    pub record_id: Option<String>,
    /// For web-archive records: the byte offset of the record (or its gzip member) in the file.
    pub offset: Option<u64>,
    /// The extracted text: paragraphs separated by blank lines, whitespace collapsed.
    pub text: String,
}

impl Document {
    fn whole(format: Format, text: String) -> Self {
        Document { format, uri: None, record_id: None, offset: None, text }
    }
}

/// One record of a web archive that could not be read; the others still were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    /// Byte offset of the record (or its gzip member) in the file.
    pub offset: u64,
    /// The record's target URI, when its header could be read.
    pub uri: Option<String>,
    /// The record's `WARC-Record-ID`, when its header could be read.
    pub record_id: Option<String>,
    /// What went wrong.
    pub error: ExtractError,
}

/// What [`extract`] found: one document for most formats, many for web archives,
/// plus the archive records that failed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extraction {
    /// The documents, in file order.
    pub documents: Vec<Document>,
    /// Web-archive records that failed (always empty for other formats).
    pub record_errors: Vec<RecordError>,
}

/// Extracts the text of `bytes`, read as `format` (see [`detect`]).
///
/// An error means nothing could be read; for a web archive, a bad record is
/// reported in [`Extraction::record_errors`] and the other records are still read.
pub fn extract(bytes: &[u8], format: Format, limits: &Limits) -> Result<Extraction, ExtractError> {
    check_size(bytes.len(), limits)?;
    match format {
        Format::Warc | Format::Arc => {
            let mut extraction = Extraction::default();
            for item in warc::ArchiveRecords::new(bytes, format, limits) {
                match item {
                    Ok(document) => extraction.documents.push(document),
                    Err(error) => extraction.record_errors.push(error),
                }
            }
            Ok(extraction)
        }
        single => {
            let bytes = &*decompressed(bytes, Some(single), limits)?;
            let budget = budget::Budget::start(limits.max_time);
            let text = extract_one(bytes, single, None, limits, &budget)?;
            Ok(Extraction { documents: vec![Document::whole(single, text)], record_errors: Vec::new() })
        }
    }
}

/// The bytes of a document, gunzipped when they are gzip-compressed (a
/// Debian `changelog.gz`, a man page) and not a web archive, which is read
/// a member at a time instead. One layer only: gzip inside gzip is refused.
fn decompressed<'a>(
    bytes: &'a [u8],
    format: Option<Format>,
    limits: &Limits,
) -> Result<std::borrow::Cow<'a, [u8]>, ExtractError> {
    let archive = format.unwrap_or_else(|| detect(bytes)).is_archive();
    if !gzip::is_gzip(bytes) || archive {
        return Ok(std::borrow::Cow::Borrowed(bytes));
    }
    let inner = gzip::gunzip(bytes, limits)?;
    if gzip::is_gzip(&inner) {
        return Err(ExtractError::Unsupported("gzip inside gzip".into()));
    }
    check_size(inner.len(), limits)?;
    Ok(std::borrow::Cow::Owned(inner))
}

/// The records of a web archive (`format` [`Format::Warc`] or
/// [`Format::Arc`]), read one at a time as the iterator is advanced: what
/// [`extract`] collects, without holding more than one record (one gzip
/// member) at once. `bytes` may be a memory map; the whole-input size limit
/// does not apply (every record and member is bounded by `limits`), so an
/// archive of any size can be read.
pub fn archive_records<B: AsRef<[u8]>>(
    bytes: B,
    format: Format,
    limits: &Limits,
) -> Result<ArchiveRecords<B>, ExtractError> {
    if !format.is_archive() {
        return Err(ExtractError::Unsupported(format!("a {format} file, not a web archive (WARC or ARC)")));
    }
    Ok(ArchiveRecords::new(bytes, format, limits))
}

/// Extracts one non-archive document; `charset` is a transport-level declaration
/// (an HTTP `Content-Type` parameter), which outranks in-document declarations.
fn extract_one(
    bytes: &[u8],
    format: Format,
    charset: Option<&'static encoding_rs::Encoding>,
    limits: &Limits,
    budget: &budget::Budget,
) -> Result<String, ExtractError> {
    check_size(bytes.len(), limits)?;
    let raw = match format {
        Format::Html => html::extract(bytes, charset, limits, budget)?,
        Format::Xml => xml::extract(bytes, charset, limits, budget)?,
        #[cfg(feature = "pdf")]
        Format::Pdf => pdf::extract(bytes, limits, budget)?,
        #[cfg(not(feature = "pdf"))]
        Format::Pdf => return Err(ExtractError::Unsupported("PDF: built without the `pdf` feature".into())),
        Format::Epub => epub::extract(bytes, limits, budget)?,
        Format::Text => text::extract(bytes, charset)?,
        Format::Man => roff::extract(bytes, charset)?,
        Format::Warc | Format::Arc => {
            return Err(ExtractError::Unsupported("a web archive inside a web archive".into()));
        }
    };
    Ok(clean::finish(&raw))
}

fn check_size(len: usize, limits: &Limits) -> Result<(), ExtractError> {
    let size = len as u64;
    if size > limits.max_input_bytes {
        return Err(ExtractError::TooLarge { size, limit: limits.max_input_bytes });
    }
    Ok(())
}

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        priorart_reason::check_names(crate::ExtractError::REASONS).unwrap();
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::ExtractError;
        assert_eq!(ExtractError::TruncatedGzip.reason(), "truncated_gzip");
        assert_eq!(ExtractError::NotText { offset: 0 }.reason(), "not_text");
        assert_eq!(
            ExtractError::REASONS,
            [
                "too_large",
                "too_deep",
                "decompression_bomb",
                "many_documents",
                "timeout",
                "invalid_encoding",
                "not_text",
                "malformed",
                "truncated_gzip",
                "cyclic_pdf",
                "no_text_layer",
                "parser_panic",
                "encrypted",
                "unsupported",
            ]
        );
    }
}
