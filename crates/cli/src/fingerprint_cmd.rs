//! `priorart fingerprint`: fingerprints of files or of JSON Lines records.

use crate::exit::{self, UsageError};
use crate::input;
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_extract::{Format, Limits};
use priorart_fingerprint::{Explanation, Fingerprint, Fingerprinter, Scheme, SimhashDocExplanation};
use priorart_jsonl::{Batch, Line, LineReader, LineTooLong, Record, RecordShape};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    after_help = "Exit codes: 0 ok, 1 bad input (reported on stderr, other inputs still processed), 2 usage error."
)]
pub struct Args {
    /// Files to fingerprint (`-` or none: standard input).
    files: Vec<String>,
    /// Comma-separated scheme identifiers: minhash-equality-v1 (NIP-FF-3's
    /// X), simhash-equality-v2 (legacy X), simhash-doc-v2 (similarity),
    /// simhash-doc (similarity as before simhash-doc-v2).
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
    /// With `--explain`: one JSON object per file and scheme (always whole).
    #[arg(long, requires = "explain")]
    json: bool,
    /// With `--explain` on a terminal: print long fields whole (by default
    /// they are shortened, with a count of what is left out; output to a
    /// file or a pipe is always whole).
    #[arg(long, requires = "explain")]
    full: bool,
    /// How files (and, with `--jsonl --format`, each record's text) are read.
    #[command(flatten)]
    document: input::DocumentArgs,
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
    let fit = Fit::new(args.full, io::stdout().is_terminal());
    for name in &files {
        let document = match input::read_document(name, &args.document) {
            Ok(document) => document,
            Err(err) => {
                note!("priorart: {err:#}");
                failed = true;
                continue;
            }
        };
        let text = document.text.as_str();
        if args.explain {
            let input = if args.document.raw { "raw UTF-8 bytes (--raw)".to_owned() } else { document.how() };
            for &scheme in &args.scheme {
                match priorart_fingerprint::explain(text, scheme) {
                    Some(explanation) if args.json => {
                        writeln!(out, "{}", with_file(name, &input, explanation.to_json()))?
                    }
                    Some(explanation) => write_explanation(&mut out, name, &input, &explanation, fit)?,
                    None => {
                        let rule = scheme.token_rule().expect("the schemes without an equality explanation");
                        let explanation = priorart_fingerprint::explain_simhash_doc(text, rule);
                        if args.json {
                            writeln!(out, "{}", with_file(name, &input, explanation.to_json()))?;
                        } else {
                            write_simhash_doc(&mut out, name, &input, &explanation, fit)?;
                        }
                    }
                }
            }
        } else {
            let fingerprints = fingerprinter.fingerprint(text, &args.scheme);
            let shown: Vec<String> = fingerprints.iter().map(ToString::to_string).collect();
            writeln!(out, "{}  {name}", shown.join(" "))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}

/// Worker threads allowed per core.
const MAX_THREADS_PER_CORE: usize = 4;

fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    if threads == Some(0) {
        bail!(UsageError("--threads must be at least 1".into()));
    }
    let mut builder = rayon::ThreadPoolBuilder::new();
    // More threads than a few per core only cost memory and scheduling
    // (100,000 asked once took a machine down): cap them, and say so.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let cap = MAX_THREADS_PER_CORE * cores;
    let threads = threads.map(|n| {
        if n > cap {
            note!("priorart: --threads {n} capped at {cap} ({MAX_THREADS_PER_CORE} per core, {cores} cores)");
        }
        n.min(cap)
    });
    if let Some(n) = threads {
        builder = builder.num_threads(n);
    }
    builder.build().context("cannot start worker threads")
}

/// Streams every file's records through the workers, a batch at a time: the
/// next batch is read while the current one is fingerprinted, and output
/// keeps input order at any thread count.
fn fingerprint_jsonl(args: &Args, files: &[String]) -> Result<ExitCode> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut failed = false;
    let (mut batch, mut next) = (Batch::default(), Batch::default());
    for name in files {
        let mut reader = match input::open(name) {
            Ok(reader) => LineReader::new(reader),
            Err(err) => {
                note!("priorart: {err:#}");
                failed = true;
                continue;
            }
        };
        reader.fill(&mut batch).with_context(|| format!("{name}: cannot read"))?;
        while !batch.is_empty() {
            let (results, read) = rayon::join(
                || {
                    batch
                        .lines()
                        .map_init(Fingerprinter::new, |fp, (number, line)| record(args, fp, number, line))
                        .collect::<Vec<_>>()
                },
                || reader.fill(&mut next),
            );
            for result in results {
                match result {
                    Ok(Some(line)) => writeln!(out, "{line}")?,
                    Ok(None) => {}
                    Err(err) => {
                        note!("priorart: {name}: {err}");
                        failed = true;
                    }
                }
            }
            read.with_context(|| format!("{name}: cannot read"))?;
            std::mem::swap(&mut batch, &mut next);
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}

/// The output line for one input record; `None` for a blank line.
fn record(
    args: &Args,
    fingerprinter: &mut Fingerprinter,
    number: u64,
    line: Result<&[u8], LineTooLong>,
) -> Result<Option<String>, String> {
    let text = match priorart_jsonl::line_text(number, line).map_err(|err| err.to_string())? {
        Line::Blank => return Ok(None),
        Line::Text(text) => text,
    };
    // Records whose text is a document of another format are extracted
    // first (the slow path below); plain text is fingerprinted as it is.
    let plain = matches!(args.document.format, None | Some(Format::Text)) || args.document.raw;
    if plain
        && let Some((mut object, fingerprints)) = priorart_jsonl::split_record(text, &args.field, |json| {
            fingerprinter.fingerprint_json_string(json, &args.scheme)
        })
    {
        return Ok(Some(with_fingerprints(args, &mut object, fingerprints)));
    }
    let shape = RecordShape { text_field: args.field.clone(), id_field: None };
    let Record { text: content, mut rest, .. } = shape.parse(number, text).map_err(|err| err.to_string())?;
    let content = match args.document.format {
        Some(format) if !plain => {
            priorart_extract::document_text(content.as_bytes(), Some(format), &Limits::default())
                .map_err(|err| format!("line {number}: member `{}` as {format}: {err}", args.field))?
                .text
        }
        _ => content,
    };
    let fingerprints = fingerprinter.fingerprint(&content, &args.scheme);
    Ok(Some(with_fingerprints(args, &mut rest, fingerprints)))
}

/// `object` (the record without its text) with one member per scheme, as
/// one line of JSON.
fn with_fingerprints(args: &Args, object: &mut Map<String, Value>, fingerprints: Vec<Fingerprint>) -> String {
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
        write!(line, "{fingerprint}").expect("writing to a String cannot fail");
        line.push('"');
    }
    line.push('}');
    line
}

/// The library's explanation object with the file and how it was read first.
fn with_file(name: &str, input: &str, explanation: Value) -> Value {
    let mut object = Map::new();
    object.insert("file".into(), Value::String(name.to_owned()));
    object.insert("input".into(), Value::String(input.to_owned()));
    if let Value::Object(members) = explanation {
        object.extend(members);
    }
    Value::Object(object)
}

/// Characters of one field `--explain` prints on a terminal.
const TERMINAL_FIELD_CHARS: usize = 300;
/// Lines of one list (simhash-doc's features) `--explain` prints on a terminal.
const TERMINAL_LIST_LINES: usize = 24;

/// How much of a long field `--explain` prints: everything, or (on a
/// terminal, without `--full`) its start and a count of what is left out,
/// so that a README's explanation fits a screen instead of 61 KB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fit {
    max_chars: Option<usize>,
    max_lines: Option<usize>,
}

impl Fit {
    /// Whole with `--full` or when stdout is not a terminal; else shortened.
    fn new(full: bool, terminal: bool) -> Fit {
        if full || !terminal {
            Fit { max_chars: None, max_lines: None }
        } else {
            Fit { max_chars: Some(TERMINAL_FIELD_CHARS), max_lines: Some(TERMINAL_LIST_LINES) }
        }
    }

    /// `text` Debug-quoted, its start only when it is longer than the fit.
    fn quoted(&self, text: &str) -> String {
        let (shown, left_out) = shorten(text, self.max_chars);
        format!("{shown:?}{}", left_out_note(left_out, "characters"))
    }

    /// The first of `words` (of `total`, which may be more than listed),
    /// joined by spaces, within the fit, and what is left out.
    fn words(&self, words: &[String], total: usize) -> String {
        let mut length = 0usize;
        let shown = match self.max_chars {
            None => words.len(),
            Some(max) => words
                .iter()
                .take_while(|word| {
                    length += word.chars().count() + 1;
                    length <= max + 1
                })
                .count(),
        };
        let listed = words[..shown].join(" ");
        if shown < words.len() {
            format!("{listed}{}", left_out_note(total - shown, "tokens"))
        } else {
            format!("{listed}{}", more(total, shown))
        }
    }

    /// How many of `count` lines a list prints.
    fn lines(&self, count: usize) -> usize {
        self.max_lines.map_or(count, |max| count.min(max))
    }
}

/// The start of `text` that fits in `max_chars` characters, and how many
/// characters are left out (0 when all of it fits, or with no limit).
fn shorten(text: &str, max_chars: Option<usize>) -> (&str, usize) {
    let Some(max) = max_chars else { return (text, 0) };
    match text.char_indices().nth(max) {
        Some((cut, _)) => (&text[..cut], text[cut..].chars().count()),
        None => (text, 0),
    }
}

/// " … (12,345 more characters; --full shows all)", or nothing for 0.
fn left_out_note(count: usize, what: &str) -> String {
    if count == 0 { String::new() } else { format!(" … ({} more {what}; --full shows all)", thousands(count)) }
}

/// `n` with a comma every three digits.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() * 4 / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// " … (N more)" when a list shows `shown` of `total` items.
fn more(total: usize, shown: usize) -> String {
    if total > shown { format!(" … ({} more)", total - shown) } else { String::new() }
}

fn write_explanation(out: &mut impl Write, name: &str, input: &str, e: &Explanation, fit: Fit) -> io::Result<()> {
    writeln!(out, "file:           {name}")?;
    writeln!(out, "input:          {input}")?;
    writeln!(out, "scheme:         {}", e.scheme)?;
    writeln!(out, "canonical text: {}", fit.quoted(&e.canonical_text))?;
    writeln!(out, "tokens ({}):    {}", e.tokens_total, fit.words(&e.tokens, e.tokens_total))?;
    let fallback = if e.fallback {
        "  [fallback: every token was a stop word or shorter than 4, so all are kept]"
    } else {
        ""
    };
    let kept = fit.words(&e.kept_tokens, e.kept_tokens_total);
    writeln!(out, "kept ({}):      {kept}{fallback}", e.kept_tokens_total)?;
    if e.kept_tokens_total == 0 {
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

fn write_simhash_doc(
    out: &mut impl Write,
    name: &str,
    input: &str,
    e: &SimhashDocExplanation,
    fit: Fit,
) -> io::Result<()> {
    let features = e.distinct_features();
    writeln!(out, "file:           {name}")?;
    writeln!(out, "input:          {input}")?;
    writeln!(out, "scheme:         {}", e.rule.simhash_scheme())?;
    writeln!(out, "tokens ({}, {} distinct): {}", e.tokens.len(), features.len(), fit.words(&e.tokens, e.tokens.len()))?;
    writeln!(out, "numbers dropped ({}): {}", e.numeric.len(), fit.words(&e.numeric, e.numeric.len()))?;
    writeln!(out, "identifiers dropped ({}): {}", e.identifiers.len(), fit.words(&e.identifiers, e.identifiers.len()))?;
    writeln!(out, "features:       (lookup3 hashlittle2, seeds 0/0, (c << 32) | b)")?;
    let shown = fit.lines(features.len());
    for (token, hex) in &features[..shown] {
        writeln!(out, "  {hex}  {}", fit.quoted(token))?;
    }
    if shown < features.len() {
        writeln!(out, " {}", left_out_note(features.len() - shown, "features"))?;
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

    #[test]
    fn a_terminal_gets_the_start_of_a_long_field_and_a_count_of_the_rest() {
        let terminal = Fit::new(false, true);
        let text = "é".repeat(TERMINAL_FIELD_CHARS + 12_345);
        let shown = terminal.quoted(&text);
        assert!(shown.ends_with("\" … (12,345 more characters; --full shows all)"), "{shown}");
        assert_eq!(shown.chars().filter(|&c| c == 'é').count(), TERMINAL_FIELD_CHARS);
        // Short fields, --full, and output that is no terminal stay whole.
        assert_eq!(terminal.quoted("gm"), "\"gm\"");
        for whole in [Fit::new(true, true), Fit::new(false, false), Fit::new(true, false)] {
            assert_eq!(whole.quoted(&text), format!("{text:?}"));
            assert_eq!(whole.lines(10_000), 10_000);
        }
        assert_eq!(shorten("abc", Some(3)), ("abc", 0));
        assert_eq!(shorten("abcd", Some(3)), ("abc", 1));
        assert_eq!(shorten("abcd", None), ("abcd", 0));
    }

    #[test]
    fn word_lists_are_cut_between_words_and_count_the_tokens_left_out() {
        let words: Vec<String> = (0..1_000).map(|i| format!("w{i:03}")).collect();
        let shown = Fit::new(false, true).words(&words, 4_000);
        let (listed, note) = shown.split_once(" … ").unwrap();
        assert!(listed.chars().count() <= TERMINAL_FIELD_CHARS, "{}", listed.len());
        let count = listed.split(' ').count();
        assert!(listed.split(' ').all(|word| word.len() == 4), "whole words only");
        assert_eq!(note, format!("({} more tokens; --full shows all)", thousands(4_000 - count)));
        // Whole, the library's own limit still shows as before.
        assert_eq!(Fit::new(true, true).words(&words, 4_000), format!("{} … (3000 more)", words.join(" ")));
        assert_eq!(Fit::new(false, true).words(&words[..2], 2), "w000 w001");
        assert_eq!(Fit::new(false, true).lines(1_000), TERMINAL_LIST_LINES);
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(22_851), "22,851");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
