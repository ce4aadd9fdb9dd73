//! `priorart check`: ask relays for every event carrying a text's `X` (the
//! NIP-FF-3 discovery query), verify each proof, rank the valid ones by
//! Bitcoin block and say who is the earliest proven author.
//!
//! The findings, ranking, verdict and report are
//! [`priorart_nip::check::check`]'s (pure, shared with every front end);
//! this command reads the document, asks the relays, looks in a local index
//! and prints.
//!
//! # JSON (`--json`, format `priorart-check/1`)
//!
//! The members are documented in [`priorart_nip::check`]; `index` holds,
//! with `--index`, `{"path", "layout", "k", "documents", "answer"}`, where
//! `answer` is the object `priorart index query --json` prints for FILE
//! (near copies within `k` with their distance and estimated Jaccard, and
//! the documents with the same X); else `null`.

use crate::exit::{self, UsageError};
use crate::lookup::{self, Lookup};
use crate::input;
use crate::args::{HeaderArgs, RelayListArgs};
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter};
use priorart_index::Index;
use priorart_nip::check;
use priorart_relay::QueryLimits;
use serde_json::{Value, json};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    mut_arg("timeout", |arg| arg
        .default_value("5")
        .help("Seconds each relay gets (connect to EOSE; relays are asked at once), and each header request")),
    after_help = "Exit codes: 0 the check ran (whatever it found), 1 no relay answered or the file cannot be read, 2 usage."
)]
pub struct Args {
    /// The document whose X to look for (`-`: standard input); read as
    /// `priorart fingerprint` reads it.
    #[arg(required_unless_present = "x", conflicts_with = "x", value_name = "FILE")]
    file: Option<String>,
    /// The X to look for (64 hex digits), instead of a document.
    #[arg(long, value_name = "HEX")]
    x: Option<String>,
    #[command(flatten)]
    relays: RelayListArgs,
    /// Also look FILE up in this local index (`priorart index build`): near
    /// copies within -k bits and documents with the same X. With --index and
    /// no relay named, no relay is asked.
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    /// Largest simhash-doc Hamming distance of a near copy in --index (at
    /// most what its layout guarantees).
    #[arg(short, long, default_value_t = 3, requires = "index")]
    k: u32,
    /// Print one JSON object (format priorart-check/1, see `cargo doc -p priorart-cli`).
    #[arg(long)]
    json: bool,
    /// Events kept per relay: a relay that sends more is cut off there (a flood).
    #[arg(long, value_name = "N", default_value = "5000")]
    max_events: usize,
    /// How FILE is read.
    #[command(flatten)]
    document: input::DocumentArgs,
    #[command(flatten)]
    headers: HeaderArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let (x, lookup) = match (&args.file, &args.x) {
        (_, Some(hex)) => {
            let x = hex.parse::<EqualityFingerprint>().map_err(|err| UsageError(format!("--x {hex}: {err}")))?;
            (x, Lookup::of_x(&x))
        }
        (Some(file), None) => {
            let text = input::read_document(file, &args.document)?.text;
            if let Some(index) = &args.index {
                // The index lookup computes X with everything else: once.
                let shingling = priorart_index::Index::shingling_of(index)?;
                let lookup = Lookup::of_text(file, &text, shingling, &mut Fingerprinter::new());
                (lookup.x().context("a document's lookup has its X")?, lookup)
            } else {
                let x = priorart_fingerprint::minhash_equality_v1(&text);
                (x, Lookup::of_x(&x))
            }
        }
        (None, None) => bail!(UsageError("give a FILE or --x HEX".into())),
    };
    let local = match &args.index {
        Some(path) => Some(LocalIndex::look_up(path, &lookup, args.k)?),
        None => None,
    };
    let relays = if local.is_some() { args.relays.resolve_any()? } else { args.relays.resolve()? };
    let source = args.headers.source()?;
    let limits =
        QueryLimits { timeout: args.headers.timeout(), max_events: args.max_events.max(1), ..QueryLimits::default() };
    let answers = if relays.is_empty() {
        Vec::new()
    } else {
        note!("priorart: asking {} relay(s) for events with X {x}", relays.len());
        priorart_relay::query(&relays, &check::discovery_filter(&x), &limits)?
    };
    let mut report = check::check(&x, &answers, source.as_ref(), args.headers.network());
    report.index = local.as_ref().map(|local| local.to_json(&lookup));
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        writeln!(out, "{}", report.to_json())?;
    } else {
        let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        out.write_all(report.table_text(colour).as_bytes())?;
        if let Some(local) = &local {
            local.write(&mut out, &lookup)?;
        }
        out.write_all(report.verdict_line(colour).as_bytes())?;
    }
    if !report.unverified.is_empty() {
        note!("priorart: {}", exit::HEADER_SOURCE_HINT);
    }
    if !relays.is_empty() && !answers.iter().any(|answer| answer.answered) {
        note!("priorart: no relay answered");
        return Ok(ExitCode::from(exit::BAD_INPUT));
    }
    Ok(ExitCode::from(exit::OK))
}

/// What a local index holds near the checked document.
struct LocalIndex {
    path: PathBuf,
    layout: String,
    k: u32,
    answer: lookup::Answer,
}

impl LocalIndex {
    fn look_up(path: &std::path::Path, lookup: &Lookup, k: u32) -> Result<LocalIndex> {
        let index = Index::open(path)?;
        let answer = lookup.run(&index, k)?;
        Ok(LocalIndex { path: path.to_owned(), layout: index.layout().name.clone(), k, answer })
    }

    fn to_json(&self, lookup: &Lookup) -> Value {
        json!({
            "path": self.path.display().to_string(),
            "layout": self.layout,
            "k": self.k,
            "documents": self.answer.documents(),
            "answer": lookup::answer_json(lookup, &self.answer),
        })
    }

    fn write(&self, out: &mut impl Write, lookup: &Lookup) -> std::io::Result<()> {
        writeln!(out, "local index {} (layout {}):", self.path.display(), self.layout)?;
        lookup::write_answer(out, lookup, &self.answer, self.k)
    }
}

