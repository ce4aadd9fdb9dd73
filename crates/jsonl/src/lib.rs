//! JSON Lines input for every command that reads records (`priorart
//! fingerprint --jsonl`, and the index and dedup inputs): lines read in
//! batches straight into reused buffers, and records cut into their text
//! member and the rest.
//!
//! Memory stays bounded whatever the input: a line longer than
//! [`MAX_LINE_BYTES`] is skipped without being held, reported as
//! [`LineTooLong`] in its place, and the lines after it are read as usual.
//! A UTF-8 byte order mark at the start of the stream is dropped.

#![forbid(unsafe_code)]

use serde_json::{Map, Value};
use std::io::Read;
use std::ops::Range;

/// Longest JSONL line accepted (64 MiB), so that memory stays bounded on any input.
pub const MAX_LINE_BYTES: usize = 64 << 20;

const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// A line over [`MAX_LINE_BYTES`]: skipped, the lines after it are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("line {number}: longer than {MAX_LINE_BYTES} bytes, skipped")]
pub struct LineTooLong {
    /// The line's number, from 1.
    pub number: u64,
}
/// Why one JSONL line gives no record. Every command that reads records
/// reports these, with one wording; a blank line is no error (see
/// [`Line::Blank`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The line is longer than [`MAX_LINE_BYTES`].
    #[error(transparent)]
    TooLong(#[from] LineTooLong),
    /// The line is not UTF-8.
    #[error("line {line}: not valid UTF-8 (first invalid byte at offset {offset} of the line)")]
    NotUtf8 {
        /// The line's number, from 1.
        line: u64,
        /// The offset of the first invalid byte in the line.
        offset: usize,
    },
    /// A `\\u` escape is half of a UTF-16 surrogate pair.
    #[error(
        "line {line}: a \\u escape at byte {offset} is half of a UTF-16 surrogate pair: not Unicode text \
         (JavaScript keeps such strings; priorart refuses them)"
    )]
    LoneSurrogate {
        /// The line's number, from 1.
        line: u64,
        /// The escape's byte offset in the line.
        offset: usize,
    },
    /// The line is not JSON.
    #[error("line {line}: not JSON: {message}")]
    NotJson {
        /// The line's number, from 1.
        line: u64,
        /// serde_json's description, with the column.
        message: String,
    },
    /// The line is JSON, but not an object.
    #[error("line {line}: not a JSON object")]
    NotAnObject {
        /// The line's number, from 1.
        line: u64,
    },
    /// The object has no text member.
    #[error("line {line}: no string member `{field}`")]
    NoText {
        /// The line's number, from 1.
        line: u64,
        /// The text member's name.
        field: String,
    },
    /// The text member is not a string.
    #[error("line {line}: member `{field}` is not a string")]
    TextNotAString {
        /// The line's number, from 1.
        line: u64,
        /// The text member's name.
        field: String,
    },
    /// The id member is missing, or neither a string nor a number.
    #[error("line {line}: no string or number member `{field}` (the id)")]
    NoId {
        /// The line's number, from 1.
        line: u64,
        /// The id member's name.
        field: String,
    },
}

impl RecordError {
    /// The line the error is about, from 1.
    pub fn line(&self) -> u64 {
        match self {
            RecordError::TooLong(LineTooLong { number }) => *number,
            RecordError::NotUtf8 { line, .. }
            | RecordError::LoneSurrogate { line, .. }
            | RecordError::NotJson { line, .. }
            | RecordError::NotAnObject { line }
            | RecordError::NoText { line, .. }
            | RecordError::TextNotAString { line, .. }
            | RecordError::NoId { line, .. } => *line,
        }
    }
}

priorart_reason::reason_names!(RecordError {
    TooLong => "line_too_long",
    NotUtf8 => "not_utf8",
    LoneSurrogate => "lone_surrogate",
    NotJson => "not_json",
    NotAnObject => "not_an_object",
    NoText => "no_text",
    TextNotAString => "text_not_a_string",
    NoId => "no_id",
});

/// One line of a batch, as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// Only white space: no record, and no error (skipped by every reader).
    Blank,
    /// A line to parse as a record.
    Text(&'a str),
}

/// The line `number` as text: [`Line::Blank`] for white space only, else
/// the text, or why it is none (too long, not UTF-8).
pub fn line_text(number: u64, line: Result<&[u8], LineTooLong>) -> Result<Line<'_>, RecordError> {
    let bytes = line?;
    // simdutf8 checks valid text several times as fast as `std` (7% of
    // `fingerprint --jsonl --scheme simhash-doc`, measured); `std` then
    // only locates the error.
    let text = simdutf8::basic::from_utf8(bytes).map_err(|_| RecordError::NotUtf8 {
        line: number,
        offset: std::str::from_utf8(bytes).err().map_or(0, |err| err.valid_up_to()),
    })?;
    Ok(if text.trim().is_empty() { Line::Blank } else { Line::Text(text) })
}

/// Which members of a record hold its text and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordShape {
    /// The member holding the text (a string).
    pub text_field: String,
    /// The member holding the id (a string or a number), if records have one.
    pub id_field: Option<String>,
}

/// One record: its text, its id (when [`RecordShape::id_field`] names
/// one), and its other members (the id member included).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The text member's value.
    pub text: String,
    /// The id member's value, a number written as JSON writes it.
    pub id: Option<String>,
    /// Every member but the text, in the line's order.
    pub rest: Map<String, Value>,
}

impl RecordShape {
    /// Parses the text of line `number` (see [`line_text`]) into a record.
    pub fn parse(&self, number: u64, text: &str) -> Result<Record, RecordError> {
        let mut rest = match serde_json::from_str(text) {
            Ok(Value::Object(object)) => object,
            Ok(_) => return Err(RecordError::NotAnObject { line: number }),
            Err(err) => {
                return Err(match lone_surrogate_escape(text) {
                    Some(offset) => RecordError::LoneSurrogate { line: number, offset },
                    None => RecordError::NotJson { line: number, message: err.to_string() },
                });
            }
        };
        let field = &self.text_field;
        let text = match rest.shift_remove(field) {
            Some(Value::String(text)) => text,
            Some(_) => return Err(RecordError::TextNotAString { line: number, field: field.clone() }),
            None => return Err(RecordError::NoText { line: number, field: field.clone() }),
        };
        let id = match &self.id_field {
            None => None,
            Some(field) => Some(match rest.get(field) {
                Some(Value::String(id)) => id.clone(),
                Some(Value::Number(id)) => id.to_string(),
                _ => return Err(RecordError::NoId { line: number, field: field.clone() }),
            }),
        };
        Ok(Record { text, id, rest })
    }

    /// Every record of a batch, for all cores: `None` for a blank line.
    pub fn records<'a>(
        &'a self,
        batch: &'a Batch,
    ) -> impl rayon::iter::IndexedParallelIterator<Item = (u64, Result<Option<Record>, RecordError>)> + 'a
    {
        use rayon::prelude::*;
        batch.lines().map(move |(number, line)| {
            let record = match line_text(number, line) {
                Ok(Line::Blank) => Ok(None),
                Ok(Line::Text(text)) => self.parse(number, text).map(Some),
                Err(err) => Err(err),
            };
            (number, record)
        })
    }
}

impl LineTooLong {
    /// The stable snake_case name of this error, as the JSON reports and
    /// the Python binding (`InputError.reason`) give it.
    pub fn reason(&self) -> &'static str {
        "line_too_long"
    }
}

/// Bytes of JSONL read per batch; two batches are in memory at a time.
const BATCH_BYTES: usize = 8 << 20;
/// Bytes asked of the reader at a time.
const READ_BYTES: u64 = 1 << 20;

/// The lines of one batch, in one buffer.
#[derive(Default)]
pub struct Batch {
    bytes: Vec<u8>,
    lines: Vec<LineSpan>,
}

/// One line, numbered from 1 across batches: a range of [`Batch::bytes`]
/// (with its newline, if it has one), or `None` for a line too long to keep,
/// and where it starts in the stream.
struct LineSpan {
    number: u64,
    range: Option<Range<usize>>,
    offset: u64,
}

impl Batch {
    /// Whether the batch has no line (the stream is over).
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The lines, as `(number, bytes or why not)`, for all cores.
    pub fn lines(
        &self,
    ) -> impl rayon::iter::IndexedParallelIterator<Item = (u64, Result<&[u8], LineTooLong>)> {
        use rayon::prelude::*;
        self.lines.par_iter().map(|line| {
            let bytes = match &line.range {
                Some(range) => Ok(&self.bytes[range.clone()]),
                None => Err(LineTooLong { number: line.number }),
            };
            (line.number, bytes)
        })
    }

    /// Where each line is in the stream, in the order of [`Batch::lines`]:
    /// its byte offset and its length with its newline, so that a reader
    /// that can seek finds the line again (`priorart dedup` re-reads only
    /// the documents it verifies). A line too long to keep has length 0.
    pub fn places(&self) -> impl ExactSizeIterator<Item = (u64, usize)> + '_ {
        self.lines.iter().map(|line| (line.offset, line.range.as_ref().map_or(0, |range| range.len())))
    }
}

/// Cuts a stream into batches of whole lines.
///
/// Each read goes straight into the batch's buffer, which is kept from one
/// batch to the next: no copy through a line buffer, and no fresh pages to
/// fault in (both were measurable shares of `fingerprint --jsonl`).
pub struct LineReader<R> {
    reader: R,
    /// The start of a line that the previous batch did not finish.
    carry: Vec<u8>,
    next_number: u64,
    at_end: bool,
    at_start: bool,
    /// Inside a line too long to keep: its bytes are dropped up to its newline.
    skipping: bool,
    /// The stream offset of the batch buffer's first byte.
    base: u64,
    /// Bytes dropped from the batch buffer (a line too long to keep): the
    /// stream offset of the buffer's byte `i` after them is `base + dropped + i`.
    dropped: u64,
}

impl<R: Read> LineReader<R> {
    /// Lines of `reader`, numbered from 1.
    pub fn new(reader: R) -> Self {
        LineReader {
            reader,
            carry: Vec::new(),
            next_number: 1,
            at_end: false,
            at_start: true,
            skipping: false,
            base: 0,
            dropped: 0,
        }
    }

    /// Refills `batch` with the next lines (none at the end of the stream).
    pub fn fill(&mut self, batch: &mut Batch) -> std::io::Result<()> {
        batch.bytes.clear();
        batch.lines.clear();
        batch.bytes.append(&mut self.carry);
        let mut cut = 0;
        loop {
            if self.at_start && (batch.bytes.len() >= UTF8_BOM.len() || self.at_end) {
                self.at_start = false;
                if batch.bytes.starts_with(UTF8_BOM) {
                    cut = UTF8_BOM.len();
                }
            }
            if !self.at_start {
                cut = self.cut_lines(batch, cut);
            }
            if self.at_end {
                if cut < batch.bytes.len() || self.skipping {
                    self.push_line(batch, cut..batch.bytes.len());
                    cut = batch.bytes.len();
                }
                break;
            }
            if batch.bytes.len() >= BATCH_BYTES && !batch.lines.is_empty() {
                break;
            }
            let read = (&mut self.reader).take(READ_BYTES).read_to_end(&mut batch.bytes)?;
            self.at_end = read == 0;
        }
        self.carry.extend_from_slice(&batch.bytes[cut..]);
        batch.bytes.truncate(cut);
        self.base += std::mem::take(&mut self.dropped) + cut as u64;
        Ok(())
    }

    /// Records every whole line of `batch.bytes` from `cut`; drops the start
    /// of an unfinished line once it is over the limit. Returns the new cut.
    fn cut_lines(&mut self, batch: &mut Batch, mut cut: usize) -> usize {
        while let Some(newline) = memchr::memchr(b'\n', &batch.bytes[cut..]) {
            self.push_line(batch, cut..cut + newline + 1);
            cut += newline + 1;
        }
        if batch.bytes.len() - cut > MAX_LINE_BYTES {
            // Too long already: keep none of it (the batch ends here, so
            // nothing after `cut` is referenced), and skip to its newline.
            self.skipping = true;
            self.dropped += (batch.bytes.len() - cut) as u64;
            batch.bytes.truncate(cut);
        }
        cut
    }

    fn push_line(&mut self, batch: &mut Batch, range: Range<usize>) {
        let number = self.next_number;
        self.next_number += 1;
        let too_long = std::mem::take(&mut self.skipping) || range.len() > MAX_LINE_BYTES + 1;
        let offset = self.base + self.dropped + range.start as u64;
        batch.lines.push(LineSpan { number, range: (!too_long).then_some(range), offset });
    }
}

/// The fast way to read a record: its other members, parsed by
/// serde_json exactly as the whole line would be, and what `read_text`
/// makes of its text member. `read_text` is given the line from the text's
/// opening quote on, and returns what it read with the length of the
/// JSON string (as `Fingerprinter::fingerprint_json_string` does, which
/// decodes the text while it folds it, and finds its end on the way).
///
/// The text member is most of a line, and handling it apart is faster than
/// serde_json's generic string parser. The answer is the same as
/// serde_json's on the whole line because the text member's key is found
/// only when it is written without escapes and occurs once (serde_json
/// would keep the last occurrence), and the line with that member cut out
/// is parsed by serde_json. Anything else unusual (duplicates, an escaped
/// key, a text that is not a string, any error at all) returns `None`, and
/// parsing the whole line with serde_json then gives the answer and the
/// exact error message, as it does when the text is not a valid string.
pub fn split_record<T>(
    line: &str,
    field: &str,
    read_text: impl FnMut(&str) -> Option<(T, usize)>,
) -> Option<(Map<String, Value>, T)> {
    let (members, index, text) = top_level_members(line, field, read_text)?;
    let member = &members[index];
    let cut = match (members.get(index + 1), index.checked_sub(1).map(|i| &members[i])) {
        (Some(next), _) => member.key.start - 1..next.key.start - 1,
        (None, Some(previous)) => previous.value.end..member.value.end,
        (None, None) => member.key.start - 1..member.value.end,
    };
    let rest = [&line[..cut.start], &line[cut.end..]].concat();
    let object = serde_json::from_str(&rest).ok()?;
    Some((object, text))
}

/// The byte offset of the first `\\uXXXX` escape in `line` that is half of
/// a UTF-16 surrogate pair without its other half, if any.
///
/// JSON allows such escapes, and JavaScript keeps them in its strings (the
/// NIP-FF-3 reference fingerprints them), but they are not Unicode text:
/// serde_json and priorart refuse them, and this names the cause and the
/// place instead of a generic parse error.
pub fn lone_surrogate_escape(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let digits = bytes.get(at + 2..at + 6)?;
        if bytes.get(at + 1) != Some(&b'u') {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[at..]) {
        let escape = at + found;
        match unit(escape) {
            Some(0xD800..=0xDBFF) => {
                let low = (bytes.get(escape + 6) == Some(&b'\\')).then(|| unit(escape + 6)).flatten();
                if !matches!(low, Some(0xDC00..=0xDFFF)) {
                    return Some(escape);
                }
                at = escape + 12;
            }
            Some(0xDC00..=0xDFFF) => return Some(escape),
            Some(_) => at = escape + 6,
            // Any other escape is two bytes (`\\\\` included, so an escaped
            // backslash never starts an escape).
            None => at = escape + 2,
        }
    }
    None
}

/// A member of a JSON object: its key without the quotes, its raw value.
struct Member {
    key: Range<usize>,
    value: Range<usize>,
}

/// The members of the JSON object that is the whole of `line`, located
/// but not validated (serde_json validates what is kept), with the index of
/// the member named `field` and what `read_text` made of it; `None` if the
/// line is not shaped like an object, a key has an escape, or `field` is
/// not a string member (that `read_text` accepts) exactly once.
fn top_level_members<T>(
    line: &str,
    field: &str,
    mut read_text: impl FnMut(&str) -> Option<(T, usize)>,
) -> Option<(Vec<Member>, usize, T)> {
    let bytes = line.as_bytes();
    let mut at = skip_json_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_json_space(bytes, at + 1);
    let mut members = Vec::new();
    let mut text = None;
    loop {
        if bytes.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = json_string_end(bytes, at)?;
        if bytes[at..key_end].contains(&b'\\') {
            return None;
        }
        let key = at + 1..key_end - 1;
        at = skip_json_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let value_start = skip_json_space(bytes, at + 1);
        let value_end = if &line[key.clone()] == field {
            if text.is_some() || bytes.get(value_start) != Some(&b'"') {
                return None;
            }
            let (read, len) = read_text(&line[value_start..])?;
            text = Some((members.len(), read));
            value_start + len
        } else {
            json_value_end(bytes, value_start)?
        };
        members.push(Member { key, value: value_start..value_end });
        at = skip_json_space(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at = skip_json_space(bytes, at + 1),
            Some(b'}') if skip_json_space(bytes, at + 1) == bytes.len() => {
                let (index, read) = text?;
                return Some((members, index, read));
            }
            _ => return None,
        }
    }
}

fn skip_json_space(line: &[u8], mut at: usize) -> usize {
    while matches!(line.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The end (after the closing quote) of the JSON string starting at `start`.
fn json_string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', line.get(at..)?)?;
        if line[at] == b'"' {
            return Some(at + 1);
        }
        at += 2;
    }
}

/// The end of the JSON value starting at `start`: a string, an object or
/// array (brackets counted outside strings), or a scalar.
fn json_value_end(line: &[u8], start: usize) -> Option<usize> {
    match line.get(start)? {
        b'"' => json_string_end(line, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut at = start;
            loop {
                match line.get(at)? {
                    b'"' => at = json_string_end(line, at)?,
                    b'{' | b'[' => {
                        depth += 1;
                        at += 1;
                    }
                    b'}' | b']' => {
                        depth -= 1;
                        at += 1;
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                    _ => at += 1,
                }
            }
        }
        _ => {
            let len =
                line[start..].iter().position(|b| b",}] \t\n\r".contains(b)).unwrap_or(line.len() - start);
            (len > 0).then_some(start + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use priorart_fingerprint::decode_json_string;

    #[test]
    fn record_errors_name_each_kind_once_in_snake_case() {
        priorart_reason::check_names(RecordError::REASONS).unwrap();
        assert_eq!(RecordError::NoId { line: 3, field: "id".into() }.reason(), "no_id");
    }

    /// [`split_record`] with the text decoded.
    fn split(line: &str) -> Option<(Map<String, Value>, String)> {
        split_record(line, "text", |json| {
            decode_json_string(json).map(|(text, len)| (text.into_owned(), len))
        })
    }

    /// What serde_json makes of a line.
    fn slow(line: &str) -> Option<(Map<String, Value>, String)> {
        let mut object: Map<String, Value> = serde_json::from_str(line).ok()?;
        match object.shift_remove("text")? {
            Value::String(text) => Some((object, text)),
            _ => None,
        }
    }

    #[test]
    fn the_fast_path_agrees_with_serde_json() {
        let lines = [
            r#"{"id":7,"text":"gm"}"#,
            r#"{"text":"gm","id":7}"#,
            r#"{"text":"gm"}"#,
            r#" { "a" : [1, {"b": "}"}], "text" : "x\"y\\z\/\b\f\n\r\t" , "c":null } "#,
            r#"{"id":1.50e1,"text":"caf\u00e9 \u00E9 \ud83d\ude00 \u2026","z":{"text":"inner"}}"#,
            r#"{"id":"a\"b","text":"","n":-0}"#,
            "{\"text\":\"tab\\tand raw é and 🎉\"}\r\n",
            r#"{"text":"a","text":"b"}"#,
            r#"{"te\u0078t":"escaped key"}"#,
            r#"{"text":7}"#,
            r#"{"text":"lone \ud83d here"}"#,
            r#"{"text":"lone \ude00 here"}"#,
            r#"{"text":"bad \x escape"}"#,
            r#"{"text":"bad \u12 escape"}"#,
            "{\"text\":\"raw\u{1}control\"}",
            r#"{"text":"ok"} trailing"#,
            r#"{"text":"ok",}"#,
            r#"{"id":[1,2,"text"],"text":"nested names"}"#,
            r#"[1,2]"#,
            r#"{}"#,
        ];
        let mut fast_paths = 0;
        for line in lines {
            if let Some(record) = split(line) {
                fast_paths += 1;
                assert_eq!(Some(record), slow(line), "{line}");
            }
        }
        assert!(fast_paths >= 8, "the fast path took only {fast_paths} lines");
    }

    #[test]
    fn the_fast_path_agrees_with_serde_json_on_generated_lines() {
        // Pieces of string contents (valid and invalid escapes, raw
        // controls, non-ASCII) and of members, spliced by a seeded
        // generator; every line the fast path accepts must be what
        // serde_json makes of it.
        const CONTENT: &[&str] = &[
            "a",
            "Word ",
            "\\n",
            "\\t",
            "\\\"",
            "\\\\",
            "\\/",
            "\\u00e9",
            "\\u00E9",
            "\\u2026",
            "\\ud83d\\ude00",
            "\\ud83d",
            "\\ude00",
            "\\ud83dx",
            "\\u12",
            "\\uzzzz",
            "\\x",
            "\\",
            "\u{1}",
            "\u{1f}",
            "é",
            "🎉",
            "{",
            "}",
            ",",
            ":",
            "[",
            "]",
            "\\u0000",
            "\\b\\f\\r",
        ];
        const OTHERS: &[&str] = &[
            r#""id":7"#,
            r#""id":1.50e1"#,
            r#""x":[1,{"y":"}"}]"#,
            r#""s":"a\"b""#,
            r#""n":null"#,
            r#""text":8"#,
            r#""te\u0078t":"k""#,
            r#""minhash-equality-v1":"old""#,
            r#""t":{}"#,
        ];
        let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
        let mut fast_paths = 0;
        for _ in 0..20_000 {
            let content: String = (0..rng.usize(..12)).map(|_| CONTENT[rng.usize(..CONTENT.len())]).collect();
            let mut members: Vec<String> =
                (0..rng.usize(..3)).map(|_| OTHERS[rng.usize(..OTHERS.len())].to_owned()).collect();
            members.insert(rng.usize(..members.len() + 1), format!("\"text\":\"{content}\""));
            let space = [" ", "", "\t", ""][rng.usize(..4)];
            let line = format!("{{{space}{}{space}}}\n", members.join(&format!(",{space}")));
            if let Some(record) = split(&line) {
                fast_paths += 1;
                assert_eq!(Some(record), slow(&line), "{line}");
            }
        }
        assert!(fast_paths > 1000, "the fast path took only {fast_paths} lines");
    }

    /// A reader that returns at most `step` bytes per read.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.step).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn batches_hold_every_line_once_in_order() {
        // Lines of many lengths over several batches, read in odd steps,
        // the last one without a newline.
        let mut input = Vec::new();
        let mut expected = Vec::new();
        for i in 0..40_000usize {
            let line = format!("{i} {}\n", "x".repeat(i * 7919 % 1500));
            expected.push(line.clone());
            input.extend_from_slice(line.as_bytes());
        }
        input.extend_from_slice(b"last");
        expected.push("last".into());
        for step in [777_777, 1 << 20, 3] {
            let mut reader = LineReader::new(Trickle { bytes: &input, step });
            let (mut batch, mut got, mut batches) = (Batch::default(), Vec::new(), 0);
            loop {
                reader.fill(&mut batch).expect("reads");
                if batch.is_empty() {
                    break;
                }
                batches += 1;
                for line in &batch.lines {
                    assert_eq!(line.number as usize, got.len() + 1);
                    let range = line.range.clone().expect("no line is too long");
                    got.push(String::from_utf8(batch.bytes[range].to_vec()).expect("UTF-8"));
                }
                if step == 3 {
                    break; // enough to see short reads joined into lines
                }
            }
            if step != 3 {
                assert!(batches > 2, "{batches} batches");
                assert_eq!(got, expected);
            } else {
                assert_eq!(got, expected[..got.len()]);
            }
        }
    }

    /// Every line of `input` as `(number, text or too long)`.
    fn read_all(input: &[u8]) -> Vec<(u64, Result<String, LineTooLong>)> {
        use rayon::prelude::*;
        let mut reader = LineReader::new(Trickle { bytes: input, step: 1 << 20 });
        let (mut batch, mut all) = (Batch::default(), Vec::new());
        loop {
            reader.fill(&mut batch).expect("reads");
            if batch.is_empty() {
                return all;
            }
            let lines: Vec<_> = batch
                .lines()
                .map(|(number, line)| (number, line.map(|bytes| String::from_utf8_lossy(bytes).into_owned())))
                .collect();
            all.extend(lines);
        }
    }

    #[test]
    fn places_find_every_kept_line_in_the_stream() {
        // A byte order mark, lines over several batches, a line too long
        // to keep (its bytes dropped from the buffer) and lines after it.
        let mut input = b"\xef\xbb\xbf{\"text\":\"first\"}\n".to_vec();
        for i in 0..3_000usize {
            input.extend(format!("{i} {}\n", "z".repeat(i * 7919 % 9000)).as_bytes());
        }
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        input.extend(b"\nafter the long line\nlast");
        for step in [1 << 20, 777_777] {
            let mut reader = LineReader::new(Trickle { bytes: &input, step });
            let (mut batch, mut kept, mut long) = (Batch::default(), 0, 0);
            loop {
                reader.fill(&mut batch).expect("reads");
                if batch.is_empty() {
                    break;
                }
                let lines: Vec<_> = rayon::iter::ParallelIterator::collect(batch.lines());
                for ((_, line), (offset, length)) in lines.into_iter().zip(batch.places()) {
                    match line {
                        Ok(bytes) => {
                            let start = offset as usize;
                            assert_eq!(&input[start..start + length], bytes);
                            kept += 1;
                        }
                        Err(_) => long += 1,
                    }
                }
            }
            assert_eq!((kept, long), (3_003, 1));
        }
    }

    #[test]
    fn a_line_over_the_limit_is_reported_and_the_rest_is_read() {
        let mut input = b"{\"text\":\"first\"}\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        input.extend(b"\n{\"text\":\"third\"}\n");
        input.extend(std::iter::repeat_n(b'y', MAX_LINE_BYTES + 1)); // last, no newline
        let lines = read_all(&input);
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], (1, Ok("{\"text\":\"first\"}\n".to_owned())));
        assert_eq!(lines[1], (2, Err(LineTooLong { number: 2 })));
        assert_eq!(lines[2], (3, Ok("{\"text\":\"third\"}\n".to_owned())));
        assert_eq!(lines[3], (4, Err(LineTooLong { number: 4 })));
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_kept() {
        let mut input = vec![b'x'; MAX_LINE_BYTES];
        input.push(b'\n');
        let lines = read_all(&input);
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].1.as_ref().map(String::len), Ok(MAX_LINE_BYTES + 1));
    }

    #[test]
    fn a_byte_order_mark_at_the_start_is_dropped() {
        let lines = read_all(b"\xef\xbb\xbf{\"text\":\"a\"}\n{\"text\":\"b\"}");
        assert_eq!(
            lines,
            vec![(1, Ok("{\"text\":\"a\"}\n".to_owned())), (2, Ok("{\"text\":\"b\"}".to_owned()))]
        );
        // Only at the start of the stream; and a stream shorter than a mark is read as is.
        assert_eq!(read_all(b"a\n\xef\xbb\xbfb")[1].1.as_deref(), Ok("\u{feff}b"));
        assert_eq!(read_all(b"a"), vec![(1, Ok("a".to_owned()))]);
    }

    #[test]
    fn records_are_parsed_with_one_wording_for_every_error() {
        let shape = RecordShape { text_field: "text".into(), id_field: Some("id".into()) };
        let record = shape.parse(1, r#"{"id":7,"text":"gm","lang":"en"}"#).unwrap();
        assert_eq!((record.text.as_str(), record.id.as_deref()), ("gm", Some("7")));
        assert_eq!(record.rest.keys().collect::<Vec<_>>(), ["id", "lang"]);
        assert_eq!(shape.parse(1, r#"{"id":"a","text":""}"#).unwrap().id.as_deref(), Some("a"));
        let cases = [
            ("not json", "line 4: not JSON: ", "not_json"),
            ("[1]", "line 4: not a JSON object", "not_an_object"),
            (r#"{"id":1}"#, "line 4: no string member `text`", "no_text"),
            (r#"{"id":1,"text":5}"#, "line 4: member `text` is not a string", "text_not_a_string"),
            (r#"{"text":"gm"}"#, "line 4: no string or number member `id` (the id)", "no_id"),
            (r#"{"id":[1],"text":"gm"}"#, "line 4: no string or number member `id`", "no_id"),
            (r#"{"id":1,"text":"\ud800"}"#, "line 4: a \\u escape at byte 16 is half", "lone_surrogate"),
        ];
        for (line, message, reason) in cases {
            let err = shape.parse(4, line).unwrap_err();
            assert!(err.to_string().starts_with(message), "{line}: {err}");
            assert_eq!((err.reason(), err.line()), (reason, 4), "{line}");
        }
        let without_id = RecordShape { text_field: "text".into(), id_field: None };
        assert_eq!(without_id.parse(1, r#"{"text":"gm"}"#).unwrap().id, None);
    }

    #[test]
    fn blank_lines_are_no_records_and_no_errors() {
        assert_eq!(line_text(1, Ok(b" \t\r\n")), Ok(Line::Blank));
        assert_eq!(line_text(1, Ok(b"\n")), Ok(Line::Blank));
        assert_eq!(line_text(2, Ok(b"{}\n")), Ok(Line::Text("{}\n")));
        assert_eq!(
            line_text(3, Ok(b"ab\xffc")).unwrap_err().to_string(),
            "line 3: not valid UTF-8 (first invalid byte at offset 2 of the line)"
        );
        assert_eq!(
            line_text(5, Err(LineTooLong { number: 5 })),
            Err(RecordError::TooLong(LineTooLong { number: 5 }))
        );
        // A whole stream: blank lines skipped, errors in their place.
        let shape = RecordShape { text_field: "text".into(), id_field: None };
        let mut reader = LineReader::new(&b"{\"text\":\"a\"}\n\n  \nnope\n{\"text\":\"b\"}"[..]);
        let mut batch = Batch::default();
        reader.fill(&mut batch).unwrap();
        use rayon::prelude::*;
        let records: Vec<_> = shape.records(&batch).collect();
        let texts: Vec<Option<&str>> = records
            .iter()
            .map(|(_, r)| r.as_ref().ok().and_then(|r| r.as_ref()).map(|r| r.text.as_str()))
            .collect();
        assert_eq!(texts, [Some("a"), None, None, None, Some("b")]);
        assert!(matches!(records[1].1, Ok(None)) && matches!(records[2].1, Ok(None)));
        assert_eq!(records[3].1.as_ref().unwrap_err().reason(), "not_json");
    }

    #[test]
    fn lone_surrogate_escapes_are_found_and_pairs_are_not() {
        assert_eq!(lone_surrogate_escape(r#"{"text":"a \ud800 b"}"#), Some(11));
        assert_eq!(lone_surrogate_escape(r#"{"text":"\ude00"}"#), Some(9));
        assert_eq!(lone_surrogate_escape(r#"{"text":"\ud83d\ude00 \u00e9"}"#), None);
        assert_eq!(lone_surrogate_escape(r#"{"text":"\\ud800 is text"}"#), None, "an escaped backslash");
        assert_eq!(lone_surrogate_escape(r#"{"text":"\ud83d\u0041"}"#), Some(9), "high then not low");
        assert_eq!(lone_surrogate_escape(r#"{"text":"end \ud83d"#), Some(13));
        // Everything serde_json refuses for a surrogate is found here.
        for line in [r#"{"t":"\udbff"}"#, r#"{"t":"x\udfff"}"#, r#"{"t":"\ud800\n"}"#] {
            assert!(serde_json::from_str::<Value>(line).is_err());
            assert!(lone_surrogate_escape(line).is_some(), "{line}");
        }
    }
}
