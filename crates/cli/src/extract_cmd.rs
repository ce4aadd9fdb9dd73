//! `priorart extract`: the text priorart hashes, from HTML, XML, PDF, EPUB, plain
//! text and WARC/ARC files, so a person can see what was fingerprinted.

use crate::exit::{self, UsageError};
use crate::input;
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_extract::{Document, ExtractError, Format, Limits, RecordError};
use serde_json::{Map, Value, json};
use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    after_help = "Formats are detected from content; --format overrides. Web archives print one document \
per HTTP response record. Exit codes: 0 ok, 1 a file or archive record could not be read (reported on \
stderr; other inputs still processed), 2 usage error."
)]
pub struct Args {
    /// Files to read (`-` or none: standard input).
    files: Vec<String>,
    /// Read every input as this format: html, xml, pdf, epub, text, warc, arc.
    #[arg(long)]
    format: Option<Format>,
    /// One JSON object per document (and per unreadable file or record) on each line.
    #[arg(long)]
    json: bool,
    /// Time budget per input file, in seconds.
    #[arg(long, default_value_t = 60.0)]
    timeout: f64,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let files = if args.files.is_empty() { vec![input::STDIN.to_owned()] } else { args.files.clone() };
    if files.iter().filter(|f| *f == input::STDIN).count() > 1 {
        bail!(UsageError("standard input (`-`) can be named only once".into()));
    }
    let max_time =
        Duration::try_from_secs_f64(args.timeout).ok().filter(|t| !t.is_zero()).ok_or_else(|| {
            UsageError(format!("--timeout {}: expected a positive number of seconds", args.timeout))
        })?;
    let limits = Limits { max_time, ..Limits::default() };
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut printer = Printer { json: args.json, headers: files.len() > 1, printed: 0 };
    let mut failed = false;
    for name in &files {
        match extract_file(name, args.format, &limits) {
            Ok((format, extraction)) => {
                let headers = printer.headers || format.is_archive();
                // Documents and failed records in file order.
                let mut errors = extraction.record_errors.iter().peekable();
                for document in &extraction.documents {
                    while let Some(error) = errors.next_if(|e| Some(e.offset) < document.offset) {
                        failed = true;
                        printer.record_error(&mut out, name, error)?;
                    }
                    printer.document(&mut out, name, document, headers)?;
                }
                for error in errors {
                    failed = true;
                    printer.record_error(&mut out, name, error)?;
                }
            }
            Err(err) => {
                failed = true;
                note!("priorart: {err:#}");
                printer.file_error(&mut out, name, &err)?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::from(if failed { exit::BAD_INPUT } else { exit::OK }))
}

/// Reads `name` (at most the input limit) and extracts it.
pub(crate) fn extract_file(
    name: &str,
    format: Option<Format>,
    limits: &Limits,
) -> Result<(Format, priorart_extract::Extraction)> {
    let mut bytes = Vec::new();
    input::open(name)?
        .take(limits.max_input_bytes + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    let format = format.unwrap_or_else(|| priorart_extract::detect(&bytes));
    if format == Format::Pdf {
        // In a child process, so that --timeout really stops the parser.
        let text = crate::pdf_child::extract(&bytes, limits).with_context(|| format!("{name}: {format}"))?.text;
        let document = priorart_extract::Document { format, uri: None, record_id: None, offset: None, text };
        return Ok((format, priorart_extract::Extraction { documents: vec![document], record_errors: Vec::new() }));
    }
    let extraction = priorart_extract::extract(&bytes, format, limits)
        .map_err(|err: ExtractError| anyhow::anyhow!("{name}: {format}: {err}"))?;
    Ok((format, extraction))
}

fn record_error_line(name: &str, error: &RecordError) -> String {
    let mut line = format!("{name}: record at offset {}", error.offset);
    if let Some(uri) = &error.uri {
        line.push_str(&format!(" ({uri})"));
    }
    line.push_str(&format!(": {}", error.error));
    line
}

struct Printer {
    json: bool,
    /// Several inputs: each document gets a `==> … <==` header, as `head` does.
    headers: bool,
    printed: usize,
}

impl Printer {
    fn document(
        &mut self,
        out: &mut impl Write,
        name: &str,
        document: &Document,
        headers: bool,
    ) -> Result<()> {
        if self.json {
            let mut object = Map::new();
            object.insert("file".into(), json!(name));
            object.insert("format".into(), json!(document.format.name()));
            insert_record_identity(
                &mut object,
                document.uri.as_deref(),
                document.record_id.as_deref(),
                document.offset,
            );
            object.insert("text".into(), json!(document.text));
            writeln!(out, "{}", Value::Object(object))?;
        } else {
            if headers {
                if self.printed > 0 {
                    writeln!(out)?;
                }
                let mut label = name.to_owned();
                for part in [document.uri.as_deref(), document.record_id.as_deref()].into_iter().flatten() {
                    label.push(' ');
                    label.push_str(part);
                }
                writeln!(out, "==> {label} <==")?;
            }
            if !document.text.is_empty() {
                writeln!(out, "{}", document.text)?;
            }
        }
        self.printed += 1;
        Ok(())
    }

    fn record_error(&mut self, out: &mut impl Write, name: &str, error: &RecordError) -> Result<()> {
        note!("priorart: {}", record_error_line(name, error));
        if self.json {
            let mut object = Map::new();
            object.insert("file".into(), json!(name));
            insert_record_identity(
                &mut object,
                error.uri.as_deref(),
                error.record_id.as_deref(),
                Some(error.offset),
            );
            object.insert("error".into(), json!(error.error.to_string()));
            writeln!(out, "{}", Value::Object(object))?;
        }
        Ok(())
    }

    fn file_error(&mut self, out: &mut impl Write, name: &str, error: &anyhow::Error) -> Result<()> {
        if self.json {
            writeln!(out, "{}", json!({ "file": name, "error": format!("{error:#}") }))?;
        }
        Ok(())
    }
}

fn insert_record_identity(
    object: &mut Map<String, Value>,
    uri: Option<&str>,
    id: Option<&str>,
    offset: Option<u64>,
) {
    if let Some(uri) = uri {
        object.insert("uri".into(), json!(uri));
    }
    if let Some(id) = id {
        object.insert("record_id".into(), json!(id));
    }
    if let Some(offset) = offset {
        object.insert("offset".into(), json!(offset));
    }
}
