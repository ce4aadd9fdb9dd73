//! The checks behind the fuzz targets: run by them on generated inputs, and
//! by `tests/fuzz_regression.rs` on the committed minimized corpora. Any
//! outcome but a panic, a hang or an abort is fine.

use priorart_extract::{Format, Limits, detect, extract};
use std::time::Duration;

fn limits() -> Limits {
    Limits { max_time: Duration::from_secs(2), max_decompressed_bytes: 8 << 20, ..Limits::default() }
}

/// The extractor of `format` on arbitrary bytes.
pub fn format(data: &[u8], format: Format) {
    let _ = extract(data, format, &limits());
}

/// Format detection, then its extractor, on arbitrary bytes.
pub fn detected(data: &[u8]) {
    let _ = extract(data, detect(data), &limits());
}

/// The PDF extractor on arbitrary bytes (a panic inside the PDF parser's
/// worker thread is contained by `extract` and reported as an error).
pub fn pdf(data: &[u8]) {
    let limits = Limits { max_time: Duration::from_secs(2), ..Limits::default() };
    let _ = extract(data, Format::Pdf, &limits);
}
