//! WARC and ARC web archives → one document per HTTP response (or resource) record.
//!
//! Archives are plain or compressed as one gzip member per record (the `.warc.gz`
//! convention). Members are inflated one at a time with `flate2`, so a truncated
//! or corrupt member is reported with its offset and reading resumes at the next
//! gzip header; a malformed record in a plain archive resumes at the next
//! `WARC/` line. HTTP messages are parsed by `httparse`; chunked transfer coding
//! and gzip/deflate content codings are undone under the same size limits, and
//! the payload goes through the extractor of its `Content-Type` (or, when that is
//! missing or generic, of its sniffed format). Records that are not documents
//! (requests, metadata, redirects, errors, images, scripts, style sheets) are
//! skipped silently.

use crate::budget::Budget;
use crate::{Document, ExtractError, Format, Limits, RecordError, decode, detect, extract_one};
use encoding_rs::Encoding;
use flate2::bufread::{DeflateDecoder, GzDecoder, ZlibDecoder};
use std::collections::VecDeque;
use std::io::Read;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b, 0x08];
/// Largest WARC or HTTP header block.
const MAX_HEADER_BYTES: usize = 64 << 10;
/// Most HTTP headers parsed.
const MAX_HTTP_HEADERS: usize = 128;

/// Which archive format a unit (a gzip member, or the whole plain file) holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Warc,
    Arc,
}

/// The records of a WARC or ARC file (plain, or one gzip member per
/// record), read one at a time: each item is a document or a record that
/// could not be read, in file order. What is held at once is one inflated
/// gzip member and the records it held, so `bytes` may be a memory map of
/// a file of any size. Made by [`crate::archive_records`].
pub struct ArchiveRecords<B> {
    bytes: B,
    kind: Kind,
    gzip: bool,
    /// Where the next gzip member, or the next record of a plain archive, starts.
    pos: usize,
    /// The inflated gzip member being read, if any.
    member: Option<Member>,
    reader: Reader,
    done: bool,
}

/// One inflated gzip member and where its next record starts.
struct Member {
    data: Vec<u8>,
    offset: u64,
    pos: usize,
}

impl<B: AsRef<[u8]>> ArchiveRecords<B> {
    /// `format` must be [`Format::Warc`] or [`Format::Arc`].
    pub(crate) fn new(bytes: B, format: Format, limits: &Limits) -> Self {
        let kind = if format == Format::Arc { Kind::Arc } else { Kind::Warc };
        let gzip = bytes.as_ref().starts_with(GZIP_MAGIC);
        let reader = Reader { limits: limits.clone(), records: 0, ready: VecDeque::new(), stopped: false };
        ArchiveRecords { bytes, kind, gzip, pos: 0, member: None, reader, done: false }
    }

    /// Reads on until at least one item is ready or the archive ends.
    fn step(&mut self) {
        let bytes = self.bytes.as_ref();
        if let Some(member) = &mut self.member {
            match self.reader.read_record(&member.data, &mut member.pos, Some(member.offset), self.kind) {
                Next::More => {}
                Next::EndOfUnit => self.member = None,
                Next::Stop => self.done = true,
            }
        } else if !self.gzip {
            match self.reader.read_record(bytes, &mut self.pos, None, self.kind) {
                Next::More => {}
                Next::EndOfUnit | Next::Stop => self.done = true,
            }
        } else {
            match self.reader.read_member(bytes, &mut self.pos) {
                Some(member) => self.member = Some(member),
                None => self.done = self.pos >= bytes.len() || self.reader.stopped,
            }
        }
    }
}

impl<B: AsRef<[u8]>> Iterator for ArchiveRecords<B> {
    type Item = Result<Document, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.reader.ready.pop_front() {
                return Some(item);
            }
            if self.done {
                return None;
            }
            self.step();
        }
    }
}

/// What reading one record left to do in its unit.
enum Next {
    /// More records may follow in this unit.
    More,
    /// The unit (a member, or the plain file) is read.
    EndOfUnit,
    /// The record limit is reached: reading stops.
    Stop,
}

struct Reader {
    limits: Limits,
    records: usize,
    /// Items read and not yet handed out.
    ready: VecDeque<Result<Document, RecordError>>,
    /// Whether the record limit stopped reading.
    stopped: bool,
}

/// Where a record came from, for documents and error reports.
#[derive(Clone, Default)]
struct Origin {
    offset: u64,
    uri: Option<String>,
    record_id: Option<String>,
}

impl Reader {
    fn fail(&mut self, origin: Origin, error: ExtractError) {
        self.ready.push_back(Err(RecordError {
            offset: origin.offset,
            uri: origin.uri,
            record_id: origin.record_id,
            error,
        }));
    }

    /// Checks the record count; false when reading must stop. (Time is
    /// budgeted per record, in [`Reader::document`]: a large crawl is read
    /// to its end, one slow record fails alone.)
    fn may_continue(&mut self, offset: u64) -> bool {
        if self.records < self.limits.max_records {
            return true;
        }
        let error =
            ExtractError::TooLarge { size: self.records as u64 + 1, limit: self.limits.max_records as u64 };
        self.fail(Origin { offset, ..Origin::default() }, error);
        self.stopped = true;
        false
    }

    /// Inflates the gzip member at `*pos` and moves `*pos` past it; a bad
    /// member is reported and `*pos` moves to the next gzip header (or the
    /// end). `None` when there is no member to read.
    fn read_member(&mut self, bytes: &[u8], pos: &mut usize) -> Option<Member> {
        if *pos >= bytes.len() {
            return None;
        }
        let offset = *pos as u64;
        if !self.may_continue(offset) {
            return None;
        }
        if !bytes[*pos..].starts_with(GZIP_MAGIC) {
            let error = ExtractError::malformed("gzip", "bytes between members are not a gzip header");
            self.fail(Origin { offset, ..Origin::default() }, error);
            *pos = next_gzip_member(bytes, *pos + 1).unwrap_or(bytes.len());
            return None;
        }
        match inflate_member(&bytes[*pos..], &self.limits) {
            Ok((data, consumed)) => {
                *pos += consumed;
                Some(Member { data, offset, pos: 0 })
            }
            Err(error) => {
                self.fail(Origin { offset, ..Origin::default() }, error);
                *pos = next_gzip_member(bytes, *pos + 1).unwrap_or(bytes.len());
                None
            }
        }
    }

    /// Reads the record at `*pos` of a plain archive or of one inflated
    /// member, and moves `*pos` past it (or to the next record header after
    /// a malformed one). Offsets are positions in `data`, or the member's
    /// offset when `member` is given (that is where an index such as CDX
    /// points).
    fn read_record(&mut self, data: &[u8], pos: &mut usize, member: Option<u64>, kind: Kind) -> Next {
        *pos += data[*pos..].iter().take_while(|b| b.is_ascii_whitespace()).count();
        if *pos >= data.len() {
            return Next::EndOfUnit;
        }
        let offset = member.unwrap_or(*pos as u64);
        if !self.may_continue(offset) {
            return Next::Stop;
        }
        self.records += 1;
        let parsed = match kind {
            Kind::Warc => parse_warc_record(&data[*pos..]),
            Kind::Arc => parse_arc_record(&data[*pos..]),
        };
        match parsed {
            Ok(record) => {
                let consumed = record.consumed;
                self.take_record(record, offset);
                *pos += consumed;
                Next::More
            }
            Err((error, uri, record_id)) => {
                self.fail(Origin { offset, uri, record_id }, error);
                let resync: &[u8] = if kind == Kind::Warc { b"\nWARC/" } else { b"\nhttp" };
                match decode::find(&data[*pos..], resync) {
                    Some(at) => {
                        *pos += at + 1;
                        Next::More
                    }
                    None => Next::EndOfUnit,
                }
            }
        }
    }

    fn take_record(&mut self, record: Record<'_>, offset: u64) {
        let origin = Origin { offset, uri: record.uri.clone(), record_id: record.record_id.clone() };
        let payload = match record.content {
            Content::Http => http_payload(record.block, &self.limits),
            Content::Payload(content_type) => Ok(Some(Payload { content_type, body: record.block.to_vec() })),
            Content::None => Ok(None),
        };
        let result = payload.and_then(|payload| match payload {
            Some(payload) => self.document(payload, &origin),
            None => Ok(None),
        });
        match result {
            Ok(Some(document)) => self.ready.push_back(Ok(document)),
            Ok(None) => {}
            Err(error) => self.fail(origin, error),
        }
    }

    fn document(&self, payload: Payload, origin: &Origin) -> Result<Option<Document>, ExtractError> {
        let (mime, charset) = parse_content_type(&payload.content_type);
        let Some(format) = payload_format(&mime, &payload.body) else { return Ok(None) };
        let budget = Budget::start(self.limits.max_time);
        let text = extract_one(&payload.body, format, charset, &self.limits, &budget)?;
        Ok(Some(Document {
            format,
            uri: origin.uri.clone(),
            record_id: origin.record_id.clone(),
            offset: Some(origin.offset),
            text,
        }))
    }
}

/// Inflates the gzip member at the start of `bytes`; returns its data and its
/// compressed length.
fn inflate_member(bytes: &[u8], limits: &Limits) -> Result<(Vec<u8>, usize), ExtractError> {
    let mut decoder = GzDecoder::new(bytes);
    match read_bounded(&mut decoder, limits, "gzip member", |d| bytes.len() - d.get_ref().len()) {
        Ok(data) => Ok((data, bytes.len() - decoder.into_inner().len())),
        // The inflater may have run on into the next member's header: if the bytes
        // before that header end early, this member was cut short.
        Err(ExtractError::Malformed { .. })
            if next_gzip_member(bytes, 1).is_some_and(|next| {
                let mut prefix = GzDecoder::new(&bytes[..next]);
                read_bounded(&mut prefix, limits, "gzip member", |_| next) == Err(ExtractError::TruncatedGzip)
            }) =>
        {
            Err(ExtractError::TruncatedGzip)
        }
        Err(err) => Err(err),
    }
}

/// Reads `reader` to the end, failing when the output breaks the size limit or
/// outgrows `consumed(reader)` compressed bytes by more than the ratio limit.
pub(crate) fn read_bounded<R: Read>(
    reader: &mut R,
    limits: &Limits,
    what: &str,
    consumed: impl Fn(&R) -> usize,
) -> Result<Vec<u8>, ExtractError> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(ExtractError::TruncatedGzip);
            }
            Err(err) => return Err(ExtractError::malformed("compressed data", err)),
        };
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&chunk[..n]);
        limits.check_inflation(what, out.len() as u64, consumed(reader) as u64, 0)?;
    }
}

fn next_gzip_member(bytes: &[u8], from: usize) -> Option<usize> {
    decode::find(bytes.get(from..)?, GZIP_MAGIC).map(|at| from + at)
}

/// What a record's block holds.
enum Content {
    /// An HTTP response message (`application/http`).
    Http,
    /// The document itself, with its content type (WARC `resource` records).
    Payload(String),
    /// Not a document (request, metadata, warcinfo, revisit, …).
    None,
}

struct Record<'d> {
    uri: Option<String>,
    record_id: Option<String>,
    content: Content,
    block: &'d [u8],
    /// Bytes from the start of the record to the end of its block.
    consumed: usize,
}

/// An error with whatever identity of the record could be read.
type RecordFailure = (ExtractError, Option<String>, Option<String>);

fn parse_warc_record(data: &[u8]) -> Result<Record<'_>, RecordFailure> {
    let malformed = |reason: &str| (ExtractError::malformed("WARC", reason), None, None);
    if !data.starts_with(b"WARC/") {
        return Err(malformed("record does not start with a WARC/ version line"));
    }
    let (head, body_start) = split_header(data).ok_or_else(|| malformed("header block not terminated"))?;
    let headers = header_fields(head);
    let uri = header(&headers, "WARC-Target-URI").map(|u| u.trim_matches(['<', '>']).to_owned());
    let record_id = header(&headers, "WARC-Record-ID").map(str::to_owned);
    let fail = |reason: &str| (ExtractError::malformed("WARC", reason), uri.clone(), record_id.clone());
    let length: usize = header(&headers, "Content-Length")
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| fail("missing or invalid Content-Length"))?;
    let block = data
        .get(body_start..body_start.saturating_add(length))
        .ok_or_else(|| fail("record block is truncated"))?;
    let content_type = header(&headers, "Content-Type").unwrap_or("").to_ascii_lowercase();
    let content = match header(&headers, "WARC-Type").unwrap_or("").to_ascii_lowercase().as_str() {
        "response" if content_type.starts_with("application/http") => Content::Http,
        "response" | "resource" => Content::Payload(content_type),
        _ => Content::None,
    };
    Ok(Record { uri, record_id, content, block, consumed: body_start + length })
}

/// ARC v1/v2: a header line `URL IP date content-type … length`, then `length` bytes.
fn parse_arc_record(data: &[u8]) -> Result<Record<'_>, RecordFailure> {
    let line_end = data.iter().take(MAX_HEADER_BYTES).position(|&b| b == b'\n');
    let line_end =
        line_end.ok_or((ExtractError::malformed("ARC", "record header line not terminated"), None, None))?;
    let line = String::from_utf8_lossy(&data[..line_end]);
    let fields: Vec<&str> = line.split_ascii_whitespace().collect();
    let uri = fields.first().map(|u| (*u).to_owned());
    let fail = |reason: &str| (ExtractError::malformed("ARC", reason), uri.clone(), None);
    if fields.len() < 5 {
        return Err(fail("record header line has fewer than 5 fields"));
    }
    let length: usize = fields[fields.len() - 1].parse().map_err(|_| fail("invalid length field"))?;
    let start = line_end + 1;
    let block = data.get(start..start.saturating_add(length)).ok_or_else(|| fail("record is truncated"))?;
    let url = fields[0].to_ascii_lowercase();
    let content = if url.starts_with("filedesc:") || url.starts_with("dns:") {
        Content::None
    } else if url.starts_with("http") && block.starts_with(b"HTTP/") {
        Content::Http
    } else {
        Content::Payload(fields[3].to_ascii_lowercase())
    };
    Ok(Record { uri, record_id: None, content, block, consumed: start + length })
}

/// Splits at the first blank line (CRLF CRLF, or LF LF from sloppy writers).
fn split_header(data: &[u8]) -> Option<(&[u8], usize)> {
    let window = &data[..data.len().min(MAX_HEADER_BYTES)];
    let crlf = decode::find(window, b"\r\n\r\n").map(|at| (at, at + 4));
    let lf = decode::find(window, b"\n\n").map(|at| (at, at + 2));
    let (end, body) = match (crlf, lf) {
        (Some(c), Some(l)) => {
            if c.0 <= l.0 {
                c
            } else {
                l
            }
        }
        (c, l) => c.or(l)?,
    };
    Some((&data[..end], body))
}

/// `Name: value` lines after the version line; continuation lines are folded in.
fn header_fields(head: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(head);
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in text.lines().skip(1) {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = fields.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
        } else if let Some((name, value)) = line.split_once(':') {
            fields.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    fields
}

fn header<'h>(fields: &'h [(String, String)], name: &str) -> Option<&'h str> {
    fields.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

struct Payload {
    content_type: String,
    body: Vec<u8>,
}

/// The body of a 2xx HTTP response, with transfer and content codings undone;
/// `None` for other statuses.
fn http_payload(message: &[u8], limits: &Limits) -> Result<Option<Payload>, ExtractError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HTTP_HEADERS];
    let mut response = httparse::Response::new(&mut headers);
    let head_len = match response.parse(message) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => {
            return Err(ExtractError::malformed("HTTP", "header block is truncated"));
        }
        Err(err) => return Err(ExtractError::malformed("HTTP", err)),
    };
    if !response.code.is_some_and(|code| (200..300).contains(&code)) {
        return Ok(None);
    }
    let value = |name: &str| {
        response
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_ascii_lowercase())
    };
    let content_type = value("content-type").unwrap_or_default();
    let mut body = message[head_len..].to_vec();
    if value("transfer-encoding").is_some_and(|te| te.contains("chunked")) {
        body = dechunk(&body)?;
    }
    if let Some(coding) = value("content-encoding") {
        body = decode_content(&body, &coding, limits)?;
    }
    Ok(Some(Payload { content_type, body }))
}

/// Undoes HTTP/1.1 chunked transfer coding (trailers are ignored).
fn dechunk(mut data: &[u8]) -> Result<Vec<u8>, ExtractError> {
    let mut out = Vec::with_capacity(data.len());
    loop {
        let line_end =
            decode::find(data, b"\r\n").ok_or_else(|| ExtractError::malformed("HTTP", "chunk size line"))?;
        let size_field = String::from_utf8_lossy(&data[..line_end]);
        let size_hex = size_field.split(';').next().unwrap_or("").trim();
        let size =
            usize::from_str_radix(size_hex, 16).map_err(|_| ExtractError::malformed("HTTP", "chunk size"))?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = data.get(..size).ok_or_else(|| ExtractError::malformed("HTTP", "chunk is truncated"))?;
        out.extend_from_slice(chunk);
        data = data.get(size..).unwrap_or(&[]);
        data = data.strip_prefix(b"\r\n").unwrap_or(data);
    }
}

fn decode_content(body: &[u8], coding: &str, limits: &Limits) -> Result<Vec<u8>, ExtractError> {
    match coding {
        "" | "identity" => Ok(body.to_vec()),
        "gzip" | "x-gzip" => {
            let mut decoder = GzDecoder::new(body);
            read_bounded(&mut decoder, limits, "gzip content coding", |d| body.len() - d.get_ref().len())
        }
        // "deflate" is zlib-wrapped by the standard, raw deflate by many servers.
        "deflate" if body.first().is_some_and(|b| b & 0x0f == 8) => {
            let mut decoder = ZlibDecoder::new(body);
            read_bounded(&mut decoder, limits, "deflate content coding", |d| body.len() - d.get_ref().len())
        }
        "deflate" => {
            let mut decoder = DeflateDecoder::new(body);
            read_bounded(&mut decoder, limits, "deflate content coding", |d| body.len() - d.get_ref().len())
        }
        other => Err(ExtractError::Unsupported(format!("HTTP content coding `{other}`"))),
    }
}

/// `text/html; charset=koi8-r` → (`text/html`, KOI8-R).
fn parse_content_type(value: &str) -> (String, Option<&'static Encoding>) {
    let mime = value.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    (mime, decode::charset_param(value.as_bytes()))
}

/// Which extractor reads a payload: by its media type when that is specific,
/// by sniffing when it is missing or generic; `None` for non-documents.
fn payload_format(mime: &str, body: &[u8]) -> Option<Format> {
    match mime {
        "text/html" | "application/xhtml+xml" => Some(Format::Html),
        "application/pdf" | "application/x-pdf" => Some(Format::Pdf),
        "application/epub+zip" => Some(Format::Epub),
        "text/plain" => Some(Format::Text),
        "application/x-troff-man" | "text/troff" | "application/x-troff" => Some(Format::Man),
        "text/css" | "text/javascript" | "application/javascript" | "application/json" => None,
        m if m.ends_with("+xml") || m.ends_with("/xml") => Some(Format::Xml),
        m if m.starts_with("text/") => Some(Format::Text),
        "" | "application/octet-stream" | "unk" | "no-type" => match detect(body) {
            Format::Warc | Format::Arc => None,
            Format::Text if body.contains(&0) => None,
            sniffed => Some(sniffed),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(dechunk(b"4\r\nWiki\r\n5;x=y\r\npedia\r\n0\r\n\r\n").unwrap(), b"Wikipedia");
        assert!(dechunk(b"ff\r\nshort").is_err());
    }

    #[test]
    fn content_types() {
        assert_eq!(
            parse_content_type("text/html; charset=KOI8-R"),
            ("text/html".into(), Some(encoding_rs::KOI8_R))
        );
        assert_eq!(payload_format("image/png", b"\x89PNG"), None);
        assert_eq!(payload_format("", b"%PDF-1.4"), Some(Format::Pdf));
        assert_eq!(payload_format("application/jats+xml", b"<article/>"), Some(Format::Xml));
    }
}
