//! Format detection from content: magic numbers first, then markup sniffing.
//! File names are never consulted, so a mislabelled file is still read right.

use crate::Format;
use crate::decode::{find, sniff_prefix};
use flate2::bufread::GzDecoder;
use std::io::Read;

/// Bytes of a gzip member decompressed to see what it holds (as many as
/// are sniffed of an uncompressed file, so both are detected alike).
const GZIP_PEEK_BYTES: u64 = 4096;

/// Guesses the format of `bytes` from their content.
///
/// PDF by `%PDF-` in the first kilobyte, EPUB by its zip `mimetype` entry (any
/// zip is tried as EPUB), WARC and ARC by their first record (also inside gzip),
/// XML and HTML by their first markup, a man page by its first request and
/// title macro, and anything else is text. A gzip file that is no web archive
/// is what it holds.
pub fn detect(bytes: &[u8]) -> Format {
    if find(&bytes[..bytes.len().min(1024)], b"%PDF-").is_some() {
        return Format::Pdf;
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return Format::Epub;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        // A web archive is read gzipped, a member at a time; any other
        // document is read decompressed, so it is what its content is.
        let prefix = gunzip_prefix(bytes);
        if prefix.starts_with(&[0x1f, 0x8b]) {
            return Format::Text;
        }
        return detect(&prefix);
    }
    if let Some(format) = archive_format(bytes) {
        return format;
    }
    let prefix = sniff_prefix(bytes);
    match markup_format(&prefix) {
        Format::Text if crate::roff::is_man_page(&prefix) => Format::Man,
        format => format,
    }
}

fn archive_format(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"WARC/") {
        Some(Format::Warc)
    } else if bytes.starts_with(b"filedesc://") {
        Some(Format::Arc)
    } else {
        None
    }
}

fn gunzip_prefix(bytes: &[u8]) -> Vec<u8> {
    let mut prefix = Vec::new();
    // A broken member simply leaves the prefix short; detection then says text.
    let _ = GzDecoder::new(bytes).take(GZIP_PEEK_BYTES).read_to_end(&mut prefix);
    prefix
}

/// HTML if the first markup is an HTML doctype or element (or XML whose root is
/// `html`), XML if it is any other XML, else text.
fn markup_format(prefix: &str) -> Format {
    let trimmed = prefix.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
    if !trimmed.starts_with('<') {
        return Format::Text;
    }
    let lower = trimmed.to_ascii_lowercase();
    if lower.starts_with("<!doctype html") || lower.starts_with("<html") {
        return Format::Html;
    }
    if let Some(root) = first_element_name(&lower) {
        if root == "html" {
            return Format::Html;
        }
        let xml_like = lower.starts_with("<?xml") || lower.starts_with("<!doctype");
        if !xml_like && HTML_ELEMENTS.contains(&root.as_str()) {
            return Format::Html;
        }
        return Format::Xml;
    }
    if lower.starts_with("<?xml") { Format::Xml } else { Format::Html }
}

/// Elements that start HTML fragments saved without `<html>`.
const HTML_ELEMENTS: &[&str] = &[
    "head", "body", "title", "meta", "link", "div", "p", "span", "h1", "h2", "h3", "table", "script",
    "style", "article", "section", "main", "header", "nav", "ul", "ol", "a", "br", "img", "form",
];

/// The first element name after prolog, doctype and comments.
fn first_element_name(markup: &str) -> Option<String> {
    let mut rest = markup;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("<!--") {
            rest = &after[after.find("-->")? + 3..];
        } else if rest.starts_with("<?") || rest.starts_with("<!") {
            rest = &rest[rest.find('>')? + 1..];
        } else {
            let name = rest.strip_prefix('<')?;
            let end = name.find(|c: char| c.is_whitespace() || c == '>' || c == '/').unwrap_or(name.len());
            let name = &name[..end];
            let local = name.rsplit(':').next().unwrap_or(name);
            return (!local.is_empty()).then(|| local.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_markup() {
        assert_eq!(detect(b"  <!DOCTYPE html><p>x"), Format::Html);
        assert_eq!(detect(b"<?xml version=\"1.0\"?>\n<!DOCTYPE article><article/>"), Format::Xml);
        assert_eq!(
            detect(b"<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\"/>"),
            Format::Html
        );
        assert_eq!(detect(b"<!-- saved --><div>hi</div>"), Format::Html);
        assert_eq!(detect(b"<TEI xmlns=\"http://www.tei-c.org/ns/1.0\">"), Format::Xml);
        assert_eq!(detect(b"plain words < and >"), Format::Text);
        assert_eq!(detect(b"WARC/1.1\r\n"), Format::Warc);
        assert_eq!(detect(b"filedesc://x.arc 0.0.0.0 2000 text/plain 10\n"), Format::Arc);
        assert_eq!(detect(b"%PDF-1.7\n"), Format::Pdf);
    }
}
