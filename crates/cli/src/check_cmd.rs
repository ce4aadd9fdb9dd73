//! `priorart check`: ask relays for every event carrying a text's `X` (the
//! NIP-FF-3 discovery query), verify each proof, rank the valid ones by
//! Bitcoin block and say who is the earliest proven author. With `--fuzzy`
//! (the default for a text of 100 words or more), also ask for the text's
//! fuzzy discovery keys (docs/nip-ff-3-fuzzy.md), verify each candidate
//! against the text, and ask for and rank the proofs of the near copies.
//!
//! The findings, ranking, verdict and report are
//! [`priorart_nip::check::check`]'s (pure, shared with every front end);
//! so are the near copies' ([`priorart_nip::check::NearQuery`]); this
//! command reads the document, asks the relays, looks in a local index and
//! prints.
//!
//! # JSON (`--json`, format `priorart-check/1`)
//!
//! The members are described by `schemas/priorart-check-1.schema.json`
//! (generated from [`priorart_nip::check::CheckReport`]: the reference);
//! `index`, which it leaves open (this command fills it), holds,
//! with `--index`, `{"path", "layout", "k", "documents", "answer"}`, where
//! `answer` is the object `priorart index query --json` prints for FILE
//! (near copies within `k` with their distance and estimated Jaccard, and
//! the documents with the same X), and `passages`: the indexed documents
//! that share passages with FILE, as `priorart index query --passages
//! --json` prints them, with `"shown": true`; or, for an index without
//! passage marks (built before `priorart-index/3` or with `--no-marks`)
//! or a check of `--x` alone, `{"shown": false, "why": "..."}`; else `null`.

use crate::exit::{self, UsageError};
use crate::index_passages::{self, PassageArgs};
use crate::lookup::{self, Lookup};
use crate::input;
use crate::args::{HeaderArgs, RelayListArgs};
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter};
use priorart_index::{AnswerJson, Index, PassageAnswer, PassageAnswerJson};
use priorart_nip::check;
use priorart_relay::QueryLimits;
use serde::Serialize;
use serde_json::Value;
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
    /// How --index is searched for passages FILE shares with its documents.
    #[command(flatten)]
    passage: PassageArgs,
    /// Also look for near copies: events whose text is within --fuzzy-k
    /// simhash-doc bits of FILE's, found by their `B` keys (one more REQ),
    /// each verified against FILE's text, with the proofs of its own X
    /// ranked by block. Default: on when FILE has 100 words or more.
    #[arg(long, conflicts_with_all = ["no_fuzzy", "x"])]
    fuzzy: bool,
    /// Do not look for near copies.
    #[arg(long)]
    no_fuzzy: bool,
    /// Largest simhash-doc distance of a near copy (at most 6: what the keys find).
    #[arg(long, value_name = "BITS", default_value_t = priorart_nip::fuzzy_tags::FUZZY_DISTANCE)]
    fuzzy_k: u32,
    /// Smallest word 5-gram Jaccard (as `dedup` measures it) of a near copy.
    #[arg(long, value_name = "J", default_value_t = check::DEFAULT_MIN_JACCARD)]
    min_jaccard: f64,
    /// Print one JSON object (format priorart-check/1, see `cargo doc -p priorart-cli`).
    #[arg(long)]
    json: bool,
    /// Events kept per relay: a relay that sends more is cut off there (a flood).
    #[arg(long, value_name = "N", default_value_t = priorart_nip::limits::MAX_EVENTS_PER_RELAY_ANSWER)]
    max_events: usize,
    /// How FILE is read.
    #[command(flatten)]
    document: input::DocumentArgs,
    #[command(flatten)]
    headers: HeaderArgs,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let (x, lookup, text) = match (&args.file, &args.x) {
        (_, Some(hex)) => {
            let x = hex.parse::<EqualityFingerprint>().map_err(|err| UsageError(format!("--x {hex}: {err}")))?;
            (x, Lookup::of_x(&x), None)
        }
        (Some(file), None) => {
            let text = input::read_document(file, &args.document)?.text;
            if let Some(index) = &args.index {
                // The index lookup computes X with everything else: once.
                let shingling = priorart_index::Index::shingling_of(index)?;
                let lookup = Lookup::of_text(file, &text, shingling, &mut Fingerprinter::new());
                (lookup.x().context("a document's lookup has its X")?, lookup, Some(text))
            } else {
                let x = priorart_fingerprint::minhash_equality_v1(&text);
                (x, Lookup::of_x(&x), Some(text))
            }
        }
        (None, None) => bail!(UsageError("give a FILE or --x HEX".into())),
    };
    let near = near_query(&args, text.as_deref())?;
    let local = match &args.index {
        Some(path) => Some(LocalIndex::look_up(path, &lookup, args.k, text.as_deref(), &args.passage)?),
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
    if let Some(near) = near.filter(|_| !relays.is_empty()) {
        let (count, value, keys) = (relays.len(), near.value(), near.keys().len());
        note!("priorart: asking {count} relay(s) for texts near simhash-doc {value} ({keys} keys)");
        let key_answers = priorart_relay::query(&relays, &near.filter(), &limits)?;
        let candidates = near.verify(&key_answers, &report);
        let proof_answers = match candidates.proof_filter() {
            Some(filter) => {
                note!("priorart: asking for the proofs of {} near cop(ies)", candidates.len());
                priorart_relay::query(&relays, &filter, &limits)?
            }
            None => Vec::new(),
        };
        let fuzzy = candidates.report(&near, &key_answers, &proof_answers, source.as_ref(), args.headers.network());
        report = report.with_near_copies(fuzzy);
    }
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
        out.write_all(report.verdict_line(colour, Some(HEADER_ADVICE)).as_bytes())?;
    }
    if report.verdict.status == check::CheckStatus::Unverified {
        note!("priorart: {}", exit::HEADER_SOURCE_HINT);
    }
    if !relays.is_empty() && !answers.iter().any(|answer| answer.answered) {
        note!("priorart: no relay answered");
        return Ok(ExitCode::from(exit::BAD_INPUT));
    }
    Ok(ExitCode::from(exit::OK))
}

/// How `check` is given block headers, in an `unverified` verdict.
const HEADER_ADVICE: &str = "give --esplora URL, --bitcoin-rpc URL or --header-cache DIR";

/// Why `check --index` shows no passages: the index holds no passage marks.
const NO_MARKS: &str = "the index holds no passage marks (built before priorart-index/3, or with --no-marks): \
    rebuild it with `priorart index build --replace`";
/// Why it shows none for a check of `--x` alone.
const NO_TEXT: &str = "no text to look up (--x)";

/// The near-copy query of FILE's text: with --fuzzy, or by default for a
/// text long enough to carry fuzzy tags; never with --no-fuzzy or --x.
fn near_query(args: &Args, text: Option<&str>) -> Result<Option<check::NearQuery>> {
    let Some(text) = text else { return Ok(None) };
    if args.no_fuzzy || !(args.fuzzy || priorart_nip::fuzzy_tags::long_enough(text)) {
        return Ok(None);
    }
    let query = check::NearQuery::of_text(text, args.fuzzy_k, args.min_jaccard)
        .map_err(|err| UsageError(format!("--fuzzy: {err}")))?;
    Ok(Some(query))
}

/// What a local index holds near the checked document.
struct LocalIndex {
    path: PathBuf,
    layout: String,
    k: u32,
    answer: lookup::Answer,
    /// FILE's text and the passages it shares with the index's documents,
    /// or why none are shown.
    passages: Result<(String, PassageAnswer), &'static str>,
}

impl LocalIndex {
    fn look_up(
        path: &std::path::Path,
        lookup: &Lookup,
        k: u32,
        text: Option<&str>,
        passage: &PassageArgs,
    ) -> Result<LocalIndex> {
        let search = passage.search()?;
        let index = Index::open(path)?;
        let answer = lookup.run(&index, k)?;
        let passages = match text {
            None => Err(NO_TEXT),
            Some(_) if !index.has_marks() => Err(NO_MARKS),
            Some(text) => Ok((text.to_owned(), index.query_passages(text, &search)?)),
        };
        Ok(LocalIndex { path: path.to_owned(), layout: index.layout().name.clone(), k, answer, passages })
    }

    fn to_json(&self, lookup: &Lookup) -> Value {
        let passages = match &self.passages {
            Ok((text, answer)) => {
                PassagesJson::Shown(ShownPassages { found: answer.json(lookup.name(), text), shown: true })
            }
            Err(why) => PassagesJson::NotShown(NoPassages { shown: false, why }),
        };
        let json = LocalIndexJson {
            path: self.path.display().to_string(),
            layout: &self.layout,
            k: self.k,
            documents: self.answer.documents(),
            answer: lookup::answer_json(lookup, &self.answer),
            passages,
        };
        serde_json::to_value(json).expect("a local index's answer serializes")
    }

    fn write(&self, out: &mut impl Write, lookup: &Lookup) -> std::io::Result<()> {
        writeln!(out, "local index {} (layout {}):", self.path.display(), self.layout)?;
        lookup::write_answer(out, lookup, &self.answer, self.k)?;
        match &self.passages {
            Ok((text, answer)) => index_passages::write_answer(out, lookup.name(), text, answer)?,
            Err(why) => writeln!(out, "passages: none shown: {why}")?,
        }
        Ok(())
    }
}

/// [`LocalIndex`] as `check --index --json` prints it (the report's
/// `index` member).
#[derive(Serialize)]
struct LocalIndexJson<'a> {
    path: String,
    layout: &'a str,
    k: u32,
    /// How many documents the answer holds.
    documents: usize,
    answer: AnswerJson<'a>,
    passages: PassagesJson<'a>,
}

/// The passages FILE shares with the index's documents, as `index query
/// --passages --json` prints them with `"shown": true`, or why none are
/// shown.
#[derive(Serialize)]
#[serde(untagged)]
enum PassagesJson<'a> {
    Shown(ShownPassages<'a>),
    NotShown(NoPassages),
}

#[derive(Serialize)]
struct ShownPassages<'a> {
    #[serde(flatten)]
    found: PassageAnswerJson<'a>,
    shown: bool,
}

#[derive(Serialize)]
struct NoPassages {
    shown: bool,
    why: &'static str,
}

