//! JSON Lines input of `priorart fingerprint --jsonl`: lines read in
//! batches straight into reused buffers, and records cut into their text
//! member and the rest.

use anyhow::{Result, bail};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;

/// Longest JSONL line accepted, so that memory stays bounded on any input.
pub const MAX_LINE_BYTES: usize = 64 << 20;
/// Bytes of JSONL read per batch; two batches are in memory at a time.
const BATCH_BYTES: usize = 8 << 20;
/// Bytes asked of the reader at a time.
const READ_BYTES: u64 = 1 << 20;

/// The lines of one batch, in one buffer.
#[derive(Default)]
pub struct Batch {
    bytes: Vec<u8>,
    lines: Vec<Line>,
}

/// One line, numbered from 1 across batches: a range of [`Batch::bytes`]
/// (with its newline, if it has one).
struct Line {
    number: u64,
    range: Range<usize>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The lines, as `(number, bytes)`.
    pub fn lines(&self) -> impl rayon::iter::IndexedParallelIterator<Item = (u64, &[u8])> {
        use rayon::prelude::*;
        self.lines.par_iter().map(|line| (line.number, &self.bytes[line.range.clone()]))
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
}

impl<R: Read> LineReader<R> {
    pub fn new(reader: R) -> Self {
        LineReader { reader, carry: Vec::new(), next_number: 1, at_end: false }
    }

    /// Refills `batch` with the next lines (none at the end of the stream).
    pub fn fill(&mut self, batch: &mut Batch) -> Result<()> {
        batch.bytes.clear();
        batch.lines.clear();
        batch.bytes.append(&mut self.carry);
        let mut cut = 0;
        loop {
            while let Some(newline) = memchr::memchr(b'\n', &batch.bytes[cut..]) {
                self.push_line(batch, cut..cut + newline + 1)?;
                cut += newline + 1;
            }
            if batch.bytes.len() - cut > MAX_LINE_BYTES {
                bail!("line {}: longer than {MAX_LINE_BYTES} bytes", self.next_number);
            }
            if self.at_end {
                if cut < batch.bytes.len() {
                    self.push_line(batch, cut..batch.bytes.len())?;
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
        Ok(())
    }

    fn push_line(&mut self, batch: &mut Batch, range: Range<usize>) -> Result<()> {
        let number = self.next_number;
        if range.len() > MAX_LINE_BYTES + 1 {
            bail!("line {number}: longer than {MAX_LINE_BYTES} bytes");
        }
        self.next_number += 1;
        batch.lines.push(Line { number, range });
        Ok(())
    }
}

/// The fast way to read a record: its other members, parsed by
/// serde_json exactly as the whole line would be, and its text member,
/// decoded here without serde_json building it.
///
/// The text member is most of a line, and decoding it apart is faster than
/// serde_json's generic string parser. The answer is the same as
/// serde_json's on the whole line because the text member's key is found only when it is written
/// without escapes and occurs once (serde_json would keep the last
/// occurrence), and the line with that member cut out is parsed by
/// serde_json. Anything else unusual (duplicates, an escaped key, a text
/// that is not a string, any error at all) returns `None`, and parsing
/// the whole line with serde_json then gives the answer and the exact
/// error message.
pub fn split_record<'a>(line: &'a str, field: &str) -> Option<(Map<String, Value>, Cow<'a, str>)> {
    let (members, index, content) = top_level_members(line, field)?;
    let text = &members[index];
    let cut = match (members.get(index + 1), index.checked_sub(1).map(|i| &members[i])) {
        (Some(next), _) => text.key.start - 1..next.key.start - 1,
        (None, Some(previous)) => previous.value.end..text.value.end,
        (None, None) => text.key.start - 1..text.value.end,
    };
    let rest = [&line[..cut.start], &line[cut.end..]].concat();
    let object = serde_json::from_str(&rest).ok()?;
    Some((object, content))
}

/// A member of a JSON object: its key without the quotes, its raw value.
struct Member {
    key: Range<usize>,
    value: Range<usize>,
}

/// The members of the JSON object that is the whole of `line`, located
/// but not validated (serde_json validates what is kept), with the index
/// and the decoded value of the member named `field`; `None` if the line
/// is not shaped like an object, a key has an escape, or `field` is not a
/// string member exactly once.
fn top_level_members<'a>(line: &'a str, field: &str) -> Option<(Vec<Member>, usize, Cow<'a, str>)> {
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
            let (content, end) = decode_json_string(line, value_start)?;
            text = Some((members.len(), content));
            end
        } else {
            json_value_end(bytes, value_start)?
        };
        members.push(Member { key, value: value_start..value_end });
        at = skip_json_space(bytes, value_end);
        match bytes.get(at) {
            Some(b',') => at = skip_json_space(bytes, at + 1),
            Some(b'}') if skip_json_space(bytes, at + 1) == bytes.len() => {
                let (index, content) = text?;
                return Some((members, index, content));
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

/// The value of the JSON string whose opening quote is at `start`, exactly
/// as serde_json decodes it, and where the string ends (after its closing
/// quote); `None` where serde_json would reject it (a control character, an
/// unknown escape, a lone surrogate). Borrowed when there is no escape.
fn decode_json_string(line: &str, start: usize) -> Option<(Cow<'_, str>, usize)> {
    let bytes = line.as_bytes();
    let plain_end = start + 1 + quote_escape_or_control(&bytes[start + 1..]);
    match bytes.get(plain_end)? {
        b'"' => Some((Cow::Borrowed(&line[start + 1..plain_end]), plain_end + 1)),
        b'\\' => {
            // Decoding never lengthens: an escape is longer than what it
            // stands for. The slack lets `copy_plain` append whole words.
            let mut decoded = Vec::with_capacity(line.len() - start + 8);
            decoded.extend_from_slice(&bytes[start + 1..plain_end]);
            let end = decode_escaped(bytes, plain_end, &mut decoded)?;
            // Checking the UTF-8 again cost 12% of `fingerprint --jsonl` on
            // the benchmark corpus (measured), and it cannot fail; debug
            // builds (every test) still check it.
            debug_assert!(std::str::from_utf8(&decoded).is_ok());
            // SAFETY: `decoded` is valid UTF-8: it is a concatenation of
            // pieces of `line` (a `str`) that start and end next to ASCII
            // bytes (the quote, backslashes and escape sequences around
            // them), so on character boundaries, and of encoded `char`s.
            let decoded = unsafe { String::from_utf8_unchecked(decoded) };
            Some((Cow::Owned(decoded), end))
        }
        _ => None,
    }
}

/// Appends the value of the rest of a JSON string, from the escape at `at`
/// to its closing quote, to `out`; returns where the string ends.
///
/// One pass: plain text is copied eight bytes at a time while it is
/// searched for the next quote, backslash or control character, which in
/// text with many escapes (JSON writers that escape all non-ASCII) costs
/// much less than a search and a copy per piece.
fn decode_escaped(bytes: &[u8], mut at: usize, out: &mut Vec<u8>) -> Option<usize> {
    loop {
        let escape = &bytes[at..];
        let simple = SIMPLE_ESCAPES[usize::from(*escape.get(1)?)];
        if simple != 0 {
            out.push(simple);
            at += 2;
        } else if escape[1] == b'u' {
            let (c, len) = unicode_escape(escape)?;
            push_utf8(c, out);
            at += len;
        } else {
            return None;
        }
        at = copy_plain(bytes, at, out);
        match bytes.get(at)? {
            b'"' => return Some(at + 1),
            b'\\' => {}
            _ => return None,
        }
    }
}

/// Appends the UTF-8 of `c` to `out` without a branch on its length,
/// which in text that mixes two- and three-byte characters is
/// unpredictable: all four encodings are computed and one is selected, and
/// four bytes are appended and cut back.
#[inline(always)]
fn push_utf8(c: char, out: &mut Vec<u8>) {
    let c = u32::from(c);
    let continuation = |shift: u32| 0x80 | (c >> shift & 0x3f);
    let (encoded, len) = if c < 0x80 {
        (c, 1)
    } else if c < 0x800 {
        (0xc0 | c >> 6 | continuation(0) << 8, 2)
    } else if c < 0x1_0000 {
        (0xe0 | c >> 12 | continuation(6) << 8 | continuation(0) << 16, 3)
    } else {
        (0xf0 | c >> 18 | continuation(12) << 8 | continuation(6) << 16 | continuation(0) << 24, 4)
    };
    out.extend_from_slice(&encoded.to_le_bytes());
    out.truncate(out.len() - 4 + len);
}

/// Appends the bytes of `bytes` from `at` up to the first quote, backslash
/// or control character to `out`, and returns where they end. A word is
/// appended whole and cut back, as a copy of varying length costs more.
fn copy_plain(bytes: &[u8], mut at: usize, out: &mut Vec<u8>) -> usize {
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        out.extend_from_slice(chunk);
        let found = special_bits(u64::from_le_bytes(*chunk));
        if found != 0 {
            let plain = (found.trailing_zeros() / 8) as usize;
            out.truncate(out.len() - 8 + plain);
            return at + plain;
        }
        at += 8;
    }
    let plain = quote_escape_or_control(&bytes[at..]);
    out.extend_from_slice(&bytes[at..at + plain]);
    at + plain
}

/// What each simple escape `\x` stands for, by `x` (0: not one; `\u` is
/// decoded by [`unicode_escape`]).
const SIMPLE_ESCAPES: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The value of each hexadecimal digit, by byte; -1 for other bytes.
const HEX_VALUES: [i8; 256] = {
    let mut table = [-1; 256];
    let mut digit = 0;
    while digit < 16 {
        table[b"0123456789abcdef"[digit] as usize] = digit as i8;
        table[b"0123456789ABCDEF"[digit] as usize] = digit as i8;
        digit += 1;
    }
    table
};

/// The position of the first quote, backslash or control character (below
/// 0x20) of `bytes`, or its length; eight bytes at a time.
fn quote_escape_or_control(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        let found = special_bits(u64::from_le_bytes(*chunk));
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len() - at)
}

/// Bit 7 set in the lowest lane of `word` that holds a quote, a backslash
/// or a control character (below 0x20), if any, and possibly in lanes
/// above it. `v - 0x01…` borrows into bit 7 of a lane where `v` is zero
/// (`x ^ b'"'`: a quote, `x ^ b'\\'`: a backslash) and `x - 0x20…` where
/// `x` is below 0x20; a borrow can also set bits in lanes *above* a true
/// match, never below, so the lowest bit is exact.
#[inline(always)]
fn special_bits(x: u64) -> u64 {
    const LANES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_lanes = |v: u64| v.wrapping_sub(LANES) & !v;
    let quote = zero_lanes(x ^ (u64::from(b'"') * LANES));
    let backslash = zero_lanes(x ^ (u64::from(b'\\') * LANES));
    let control = x.wrapping_sub(0x20 * LANES) & !x;
    (quote | backslash | control) & HIGH
}

/// The character of the `\uXXXX` escape (or surrogate pair of two) at the
/// start of `bytes`, and its length in bytes.
fn unicode_escape(bytes: &[u8]) -> Option<(char, usize)> {
    // Four table lookups OR-ed together: a non-digit's -1 makes the
    // result negative, so one test rejects any of them.
    let hex = |at: usize| -> Option<u32> {
        let digits =
            bytes.get(at..)?.first_chunk::<4>()?.map(|digit| i32::from(HEX_VALUES[usize::from(digit)]));
        let value = digits[0] << 12 | digits[1] << 8 | digits[2] << 4 | digits[3];
        u32::try_from(value | (digits[0] | digits[1] | digits[2] | digits[3]) >> 31).ok()
    };
    let unit = hex(2)?;
    match unit {
        0xD800..=0xDBFF if bytes.get(6..8) == Some(b"\\u") => {
            let low = hex(8).filter(|low| (0xDC00..=0xDFFF).contains(low))?;
            Some((char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?, 12))
        }
        _ => Some((char::from_u32(unit)?, 6)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            let fast = split_record(line, "text");
            if let Some((object, text)) = &fast {
                fast_paths += 1;
                assert_eq!(Some((object.clone(), text.to_string())), slow(line), "{line}");
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
        let mut next = |bound: usize| rng.usize(..bound);
        let mut fast_paths = 0;
        for _ in 0..20_000 {
            let content: String = (0..next(12)).map(|_| CONTENT[next(CONTENT.len())]).collect();
            let mut members: Vec<String> =
                (0..next(3)).map(|_| OTHERS[next(OTHERS.len())].to_owned()).collect();
            members.insert(next(members.len() + 1), format!("\"text\":\"{content}\""));
            let space = [" ", "", "\t", ""][next(4)];
            let line = format!("{{{space}{}{space}}}\n", members.join(&format!(",{space}")));
            if let Some((object, text)) = split_record(&line, "text") {
                fast_paths += 1;
                assert_eq!(Some((object, text.into_owned())), slow(&line), "{line}");
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
                    got.push(String::from_utf8(batch.bytes[line.range.clone()].to_vec()).expect("UTF-8"));
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

    #[test]
    fn utf8_without_branches_equals_std() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut out = vec![b'x'];
            push_utf8(c, &mut out);
            assert_eq!(&out[1..], c.encode_utf8(&mut [0; 4]).as_bytes(), "{c:?}");
        }
    }

    #[test]
    fn string_search_finds_the_first_quote_backslash_or_control() {
        for len in 0..20 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0x00, 0x1f] {
                    let mut bytes = vec![b'a'; len];
                    for (i, byte) in bytes.iter_mut().enumerate().skip(at + 1) {
                        *byte = [b'"', b'\\', 0x01, 0x80][i % 4];
                    }
                    if at < len {
                        bytes[at] = special;
                    }
                    assert_eq!(quote_escape_or_control(&bytes), at, "{bytes:?}");
                }
            }
        }
    }
}
