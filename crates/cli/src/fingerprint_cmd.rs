//! `priorart fingerprint`: fingerprints of files or of JSON Lines records.

use crate::exit::{self, UsageError};
use crate::input;
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_fingerprint::{Explanation, Fingerprinter, Scheme, SimhashDocExplanation};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::io::{self, BufRead, Read, Write};
use std::ops::Range;
use std::process::ExitCode;

/// Longest JSONL line accepted, so that memory stays bounded on any input.
const MAX_LINE_BYTES: u64 = 64 << 20;
/// Bytes of JSONL read per batch; two batches are in memory at a time.
const BATCH_BYTES: usize = 8 << 20;

#[derive(Parser)]
#[command(
    after_help = "Exit codes: 0 ok, 1 bad input (reported on stderr, other inputs still processed), 2 usage error."
)]
pub struct Args {
    /// Files to fingerprint (`-` or none: standard input).
    files: Vec<String>,
    /// Comma-separated scheme identifiers: minhash-equality-v1,
    /// simhash-equality-v2, simhash-doc.
    #[arg(long, value_delimiter = ',', default_value = "minhash-equality-v1")]
    scheme: Vec<Scheme>,
    /// Input is JSON Lines: fingerprint the string member `--field` of each
    /// object; print the object without it, plus one member per scheme.
    #[arg(long, conflicts_with = "explain")]
    jsonl: bool,
    /// The JSONL member holding the text.
    #[arg(long, default_value = "text", requires = "jsonl")]
    field: String,
    /// Worker threads for `--jsonl` (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Show every intermediate value: canonical text, tokens, kept tokens,
    /// bucket minima, descriptor.
    #[arg(long)]
    explain: bool,
    /// With `--explain`: one JSON object per file and scheme.
    #[arg(long, requires = "explain")]
    json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let files = if args.files.is_empty() { vec![input::STDIN.to_owned()] } else { args.files.clone() };
    if files.iter().filter(|f| *f == input::STDIN).count() > 1 {
        bail!(UsageError("standard input (`-`) can be named only once".into()));
    }
    if args.jsonl {
        let pool = thread_pool(args.threads)?;
        return pool.install(|| fingerprint_jsonl(&args, &files));
    }
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut fingerprinter = Fingerprinter::new();
    let mut failed = false;
    for name in &files {
        let text = match input::read_text(name) {
            Ok(text) => text,
            Err(err) => {
                eprintln!("priorart: {err:#}");
                failed = true;
                continue;
            }
        };
        if args.explain {
            for &scheme in &args.scheme {
                match priorart_fingerprint::explain(&text, scheme) {
                    Some(explanation) if args.json => {
                        writeln!(out, "{}", explanation_json(name, &explanation))?
                    }
                    Some(explanation) => write_explanation(&mut out, name, &explanation)?,
                    None => {
                        let explanation = priorart_fingerprint::explain_simhash_doc(&text);
                        if args.json {
                            writeln!(out, "{}", simhash_doc_json(name, &explanation))?;
                        } else {
                            write_simhash_doc(&mut out, name, &explanation)?;
                        }
                    }
                }
            }
        } else {
            let fingerprints = fingerprinter.fingerprint(&text, &args.scheme);
            let shown: Vec<String> = fingerprints.iter().map(ToString::to_string).collect();
            writeln!(out, "{}  {name}", shown.join(" "))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}

fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    if threads == Some(0) {
        bail!(UsageError("--threads must be at least 1".into()));
    }
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    builder.build().context("cannot start worker threads")
}

/// The JSONL lines of one batch, in one buffer.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    lines: Vec<Line>,
}

/// One JSONL input line, numbered from 1: a range of [`Batch::bytes`].
struct Line {
    number: u64,
    range: Range<usize>,
}

/// Streams every file's records through the workers, a batch at a time: the
/// next batch is read while the current one is fingerprinted, and output
/// keeps input order at any thread count.
fn fingerprint_jsonl(args: &Args, files: &[String]) -> Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut failed = false;
    for name in files {
        let mut reader = match input::open(name) {
            Ok(reader) => reader,
            Err(err) => {
                eprintln!("priorart: {err:#}");
                failed = true;
                continue;
            }
        };
        let mut next_number = 1;
        let mut batch =
            read_batch(&mut reader, &mut next_number).with_context(|| format!("{name}: cannot read"))?;
        while !batch.lines.is_empty() {
            let (results, next) = rayon::join(
                || {
                    batch
                        .lines
                        .par_iter()
                        .map_init(Fingerprinter::new, |fp, line| {
                            record(args, fp, line.number, &batch.bytes[line.range.clone()])
                        })
                        .collect::<Vec<_>>()
                },
                || read_batch(&mut reader, &mut next_number),
            );
            for result in results {
                match result {
                    Ok(Some(line)) => writeln!(out, "{line}")?,
                    Ok(None) => {}
                    Err(err) => {
                        eprintln!("priorart: {name}: {err}");
                        failed = true;
                    }
                }
            }
            batch = next.with_context(|| format!("{name}: cannot read"))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}

fn read_batch(reader: &mut (dyn BufRead + Send), next_number: &mut u64) -> Result<Batch> {
    let mut batch = Batch::default();
    while batch.bytes.len() < BATCH_BYTES {
        let start = batch.bytes.len();
        let read = Read::take(&mut *reader, MAX_LINE_BYTES + 1).read_until(b'\n', &mut batch.bytes)?;
        if read == 0 {
            break;
        }
        let number = *next_number;
        *next_number += 1;
        if read as u64 > MAX_LINE_BYTES {
            bail!("line {number}: longer than {MAX_LINE_BYTES} bytes");
        }
        batch.lines.push(Line { number, range: start..batch.bytes.len() });
    }
    Ok(batch)
}

/// The output line for one input record; `None` for a blank line.
fn record(
    args: &Args,
    fingerprinter: &mut Fingerprinter,
    number: u64,
    line: &[u8],
) -> Result<Option<String>, String> {
    let text = std::str::from_utf8(line).map_err(|err| {
        format!(
            "line {number}: not valid UTF-8 (first invalid byte at offset {} of the line)",
            err.valid_up_to()
        )
    })?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    if let Some((mut object, content)) = split_record(text, &args.field) {
        return Ok(Some(with_fingerprints(args, fingerprinter, &mut object, &content)));
    }
    let mut object: Map<String, Value> = match serde_json::from_str(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Err(format!("line {number}: not a JSON object")),
        Err(err) => return Err(format!("line {number}: not JSON: {err}")),
    };
    let field = &args.field;
    let content = match object.shift_remove(field) {
        Some(Value::String(content)) => content,
        Some(_) => return Err(format!("line {number}: member `{field}` is not a string")),
        None => return Err(format!("line {number}: no string member `{field}`")),
    };
    Ok(Some(with_fingerprints(args, fingerprinter, &mut object, &content)))
}

/// `object` (the record without its text) with one member per scheme, as
/// one line of JSON.
fn with_fingerprints(
    args: &Args,
    fingerprinter: &mut Fingerprinter,
    object: &mut Map<String, Value>,
    content: &str,
) -> String {
    let fingerprints = fingerprinter.fingerprint(content, &args.scheme);
    let ids = || args.scheme.iter().map(|scheme| scheme.id());
    let collides = object.keys().any(|key| ids().any(|id| id == key))
        || ids().enumerate().any(|(i, id)| ids().take(i).any(|earlier| earlier == id));
    if collides {
        // Inserting replaces a member of the same name where it stands.
        for (scheme, fingerprint) in args.scheme.iter().zip(fingerprints) {
            object.insert(scheme.id().to_owned(), Value::String(fingerprint.to_string()));
        }
        return serde_json::to_string(object).expect("a JSON map always serializes");
    }
    // New members go last, as `insert` would put them, and neither scheme
    // identifiers nor fingerprints (hex, base32hex) have a character that
    // JSON escapes, so they are written as serde_json would write them.
    let mut line = serde_json::to_string(object).expect("a JSON map always serializes");
    line.pop(); // the closing brace
    for (id, fingerprint) in ids().zip(fingerprints) {
        if line.len() > 1 {
            line.push(',');
        }
        line.push('"');
        line.push_str(id);
        line.push_str("\":\"");
        line.push_str(&fingerprint.to_string());
        line.push('"');
    }
    line.push('}');
    line
}

/// The fast path of [`record`]: the record's other members, parsed by
/// serde_json exactly as the whole line would be, and its text member,
/// decoded here without serde_json building it.
///
/// The text member is most of a line, and decoding it apart is faster than
/// serde_json's generic string parser. The answer is the same as the slow
/// path's because the text member's key is found only when it is written
/// without escapes and occurs once (serde_json would keep the last
/// occurrence), and the line with that member cut out is parsed by
/// serde_json. Anything else unusual (duplicates, an escaped key, a text
/// that is not a string, any error at all) returns `None`, and the slow
/// path then gives the answer and the exact error message.
fn split_record<'a>(line: &'a str, field: &str) -> Option<(Map<String, Value>, Cow<'a, str>)> {
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
    let mut decoded: Option<String> = None;
    let mut plain_start = start + 1;
    let mut at = plain_start;
    loop {
        at += quote_escape_or_control(&bytes[at..]);
        let piece = &line[plain_start..at];
        match bytes.get(at)? {
            b'"' => {
                let value = match decoded {
                    None => Cow::Borrowed(piece),
                    Some(mut decoded) => {
                        decoded.push_str(piece);
                        Cow::Owned(decoded)
                    }
                };
                return Some((value, at + 1));
            }
            b'\\' => {
                let decoded = decoded.get_or_insert_with(|| String::with_capacity(line.len() - start));
                decoded.push_str(piece);
                let escape = &bytes[at..];
                let simple = SIMPLE_ESCAPES[usize::from(*escape.get(1)?)];
                if simple != 0 {
                    decoded.push(char::from(simple));
                    at += 2;
                } else if escape[1] == b'u' {
                    let (c, len) = unicode_escape(escape)?;
                    decoded.push(c);
                    at += len;
                } else {
                    return None;
                }
                plain_start = at;
            }
            _ => return None,
        }
    }
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
/// 0x20) of `bytes`, or its length; eight bytes at a time. `v - 0x01…`
/// borrows into bit 7 of a lane where `v` is zero (`x ^ b'"'`: a quote,
/// `x ^ b'\\'`: a backslash) and `x - 0x20…` where `x` is below 0x20; a
/// borrow can also set bits in lanes *above* a true match, never below, so
/// the lowest bit is exact.
fn quote_escape_or_control(bytes: &[u8]) -> usize {
    const LANES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_lanes = |v: u64| v.wrapping_sub(LANES) & !v;
    let mut at = 0;
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        let x = u64::from_le_bytes(*chunk);
        let quote = zero_lanes(x ^ (u64::from(b'"') * LANES));
        let backslash = zero_lanes(x ^ (u64::from(b'\\') * LANES));
        let control = x.wrapping_sub(0x20 * LANES) & !x;
        let found = (quote | backslash | control) & HIGH;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len() - at)
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

fn explanation_json(name: &str, e: &Explanation) -> Value {
    let buckets: Vec<Value> = e
        .buckets
        .iter()
        .map(|bucket| match bucket {
            None => Value::Null,
            Some(b) => serde_json::json!({"token": b.token, "min_hash": b.min_hash, "kept_hex": b.kept_hex}),
        })
        .collect();
    serde_json::json!({
        "file": name,
        "scheme": e.scheme.id(),
        "canonical_text": e.canonical_text,
        "tokens": e.tokens,
        "kept_tokens": e.kept_tokens,
        "fallback": e.fallback,
        "empty": e.kept_tokens.is_empty(),
        "buckets": buckets,
        "descriptor": e.descriptor,
        "fingerprint": e.fingerprint.to_string(),
    })
}

fn write_explanation(out: &mut impl Write, name: &str, e: &Explanation) -> io::Result<()> {
    writeln!(out, "file:           {name}")?;
    writeln!(out, "scheme:         {}", e.scheme)?;
    writeln!(out, "canonical text: {:?}", e.canonical_text)?;
    writeln!(out, "tokens ({}):    {}", e.tokens.len(), e.tokens.join(" "))?;
    let fallback = if e.fallback {
        "  [fallback: every token was a stop word or shorter than 4, so all are kept]"
    } else {
        ""
    };
    writeln!(out, "kept ({}):      {}{fallback}", e.kept_tokens.len(), e.kept_tokens.join(" "))?;
    if e.kept_tokens.is_empty() {
        writeln!(out, "buckets:        none: no token at all, so the canonical text itself is hashed")?;
    } else {
        writeln!(out, "buckets:        (smallest SHA-256(\"eqs:\" + token) per bucket)")?;
    }
    for (index, bucket) in e.buckets.iter().enumerate() {
        match bucket {
            None => writeln!(out, "  b{index}: x    (no token landed here)")?,
            Some(b) => writeln!(out, "  b{index}: {}  {}  {:?}", b.kept_hex, b.min_hash, b.token)?,
        }
    }
    writeln!(out, "descriptor:     {}", e.descriptor)?;
    writeln!(out, "fingerprint:    {}", e.fingerprint)?;
    writeln!(out)
}

/// The distinct tokens with their lookup3 features, in first-seen order.
fn distinct_features(e: &SimhashDocExplanation) -> Vec<(&str, String)> {
    let mut seen = std::collections::HashSet::new();
    e.tokens
        .iter()
        .filter(|token| seen.insert(token.as_str()))
        .map(|token| (token.as_str(), format!("{:016X}", SimhashDocExplanation::feature(token))))
        .collect()
}

fn simhash_doc_json(name: &str, e: &SimhashDocExplanation) -> Value {
    let features: Map<String, Value> =
        distinct_features(e).into_iter().map(|(token, hex)| (token.to_owned(), Value::String(hex))).collect();
    serde_json::json!({
        "file": name,
        "scheme": Scheme::SimhashDoc.id(),
        "tokens": e.tokens,
        "features": features,
        "numeric": e.numeric,
        "identifiers": e.identifiers,
        "counters": e.counters.to_vec(),
        "hex": e.fingerprint.to_hex(),
        "fingerprint": e.fingerprint.to_string(),
    })
}

fn write_simhash_doc(out: &mut impl Write, name: &str, e: &SimhashDocExplanation) -> io::Result<()> {
    let features = distinct_features(e);
    writeln!(out, "file:           {name}")?;
    writeln!(out, "scheme:         {}", Scheme::SimhashDoc)?;
    writeln!(out, "tokens ({}, {} distinct): {}", e.tokens.len(), features.len(), e.tokens.join(" "))?;
    writeln!(out, "numbers dropped ({}): {}", e.numeric.len(), e.numeric.join(" "))?;
    writeln!(out, "identifiers dropped ({}): {}", e.identifiers.len(), e.identifiers.join(" "))?;
    writeln!(out, "features:       (lookup3 hashlittle2, seeds 0/0, (c << 32) | b)")?;
    for (token, hex) in &features {
        writeln!(out, "  {hex}  {token:?}")?;
    }
    writeln!(out, "counters:       (bit 63 first; a bit is 1 where its counter is positive)")?;
    for row in e.counters.iter().rev().collect::<Vec<_>>().chunks(8) {
        let cells: Vec<String> = row.iter().map(|c| format!("{c:>6}")).collect();
        writeln!(out, "  {}", cells.join(" "))?;
    }
    writeln!(out, "hex:            {}", e.fingerprint.to_hex())?;
    writeln!(out, "fingerprint:    {}", e.fingerprint)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the slow path of [`record`] makes of a line.
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
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound as u64) as usize
        };
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
