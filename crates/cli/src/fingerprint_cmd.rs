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
use std::io::{self, Write};
use std::process::ExitCode;

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
                    Some(explanation) => write_explanation(&mut out, name, &input, &explanation)?,
                    None => {
                        let explanation = priorart_fingerprint::explain_simhash_doc(text);
                        if args.json {
                            writeln!(out, "{}", with_file(name, &input, explanation.to_json()))?;
                        } else {
                            write_simhash_doc(&mut out, name, &input, &explanation)?;
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

/// " … (N more)" when a list shows `shown` of `total` items.
fn more(total: usize, shown: usize) -> String {
    if total > shown { format!(" … ({} more)", total - shown) } else { String::new() }
}

fn write_explanation(out: &mut impl Write, name: &str, input: &str, e: &Explanation) -> io::Result<()> {
    writeln!(out, "file:           {name}")?;
    writeln!(out, "input:          {input}")?;
    writeln!(out, "scheme:         {}", e.scheme)?;
    writeln!(out, "canonical text: {:?}", e.canonical_text)?;
    writeln!(out, "tokens ({}):    {}{}", e.tokens_total, e.tokens.join(" "), more(e.tokens_total, e.tokens.len()))?;
    let fallback = if e.fallback {
        "  [fallback: every token was a stop word or shorter than 4, so all are kept]"
    } else {
        ""
    };
    let kept_more = more(e.kept_tokens_total, e.kept_tokens.len());
    writeln!(out, "kept ({}):      {}{kept_more}{fallback}", e.kept_tokens_total, e.kept_tokens.join(" "))?;
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

fn write_simhash_doc(out: &mut impl Write, name: &str, input: &str, e: &SimhashDocExplanation) -> io::Result<()> {
    let features = e.distinct_features();
    writeln!(out, "file:           {name}")?;
    writeln!(out, "input:          {input}")?;
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
