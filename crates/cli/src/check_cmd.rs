//! `priorart check`: ask relays for every event carrying a text's `X` (the
//! NIP-FF-3 discovery query), verify each proof, rank the valid ones by
//! Bitcoin block and say who is the earliest proven author.
//!
//! # JSON (`--json`, format `priorart-check/1`)
//!
//! One object; members are only ever added, never renamed or removed:
//!
//! | member | value |
//! |---|---|
//! | `format` | `"priorart-check/1"` |
//! | `x` | the fingerprint asked for (64 lowercase hex) |
//! | `network` | `"mainnet"` or `"regtest"`: the chain proofs were checked against |
//! | `verdict` | `{"status", "text", "earliest", "other_authors"}`: `status` is `proven` (a valid proof exists), `unproven` (events, but no valid proof), `nothing_found`, `no_relay_answered`, or `no_relay_asked` (`--index` alone); `text` the sentence; `earliest` `{"author", "npub", "event_id", "height", "time", "utc"}` of the first proof (or, without one, `{"author", "npub", "event_id", "kind", "created_at", "utc"}` of the earliest event by its untrusted `created_at`), else `null`; `other_authors` how many other pubkeys published or proved the same `X` |
//! | `relays` | per relay: `{"url", "answered", "ending": {"status": "eose"/"closed"/"timeout"/"unreachable"/"disconnected"/"event_limit"/"byte_limit", …}, "events", "skipped": [{"reason", "count", "example"}], "notices", "elapsed_ms"}`; skip reasons: `not_json`, `not_relay_message`, `malformed_event`, `too_large`, `other_subscription`, `bad_id`, `bad_signature`, `not_matching_filter`, `duplicate`, `unexpected` |
//! | `proofs` | valid proofs, earliest first: `{"rank", "event_id", "author", "npub", "block": {"height", "time", "utc", "block_hash"}, "content": {"tag", "reference", "found"}, "relays", "report"}` (`report`: the `priorart-verify/1` report) |
//! | `unverified` | proofs that passed every check but the Bitcoin one, for lack of headers: `{"event_id", "author", "npub", "relays", "report"}` |
//! | `refused` | every other kind 1041, never dropped: `{"event_id", "signer", "claimed_author", "verdict", "reasons", "relays", "report"}` (`claimed_author`: the embedded attestation's pubkey, when it could be read) (`reasons`: the report's failure names, e.g. `attestation_bad_signature`, `proof_for_other_digest`; `not_nip_ff_3` for other schemes) |
//! | `index` | with `--index`: `{"path", "layout", "k", "documents", "answer"}`, where `answer` is the object `priorart index query --json` prints for FILE (near copies within `k` with their distance and estimated Jaccard, and the documents with the same X); else `null` |
//! | `content_events` | `{"event_id", "author", "npub", "kind", "created_at", "created_at_trusted": false, "utc", "x_check", "detail", "relays"}`; `x_check`: `matches`, `does_not_match` (`detail` holds the content's fingerprint) or `cannot_check` (`detail`: `empty` or `encrypted`) |

use crate::exit::{self, UsageError};
use crate::index_cmd::{self, Lookup};
use crate::input;
use crate::args::{HeaderArgs, RelayListArgs};
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_fingerprint::{EqualityFingerprint, Fingerprinter};
use priorart_index::Index;
use priorart_nip::{Ranking, Report, Verdict};
use priorart_ots::{HeaderSource, Network};
use priorart_relay::nostr::prelude::{
    Event, Filter, Kind, PublicKey, SingleLetterTag, ToBech32,
};
use priorart_relay::{Ending, Found, QueryLimits, RelayAnswer};
use serde_json::{Value, json};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// The kinds of the NIP's discovery query: notes, long-form articles, the
/// other content kinds it lists, and proof events.
const DISCOVERY_KINDS: [u16; 6] = [1, 30023, 31337, 31338, 31339, priorart_nip::PROOF_KIND];

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
            if args.index.is_some() {
                // The index lookup computes X with everything else: once.
                let lookup = Lookup::of_text(file, &text, &mut Fingerprinter::new());
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
    let x = x.to_string();
    let relays = if local.is_some() { args.relays.resolve_any()? } else { args.relays.resolve()? };
    let source = args.headers.source()?;
    let limits =
        QueryLimits { timeout: args.headers.timeout(), max_events: args.max_events.max(1), ..QueryLimits::default() };
    let answers = if relays.is_empty() {
        Vec::new()
    } else {
        note!("priorart: asking {} relay(s) for events with X {x}", relays.len());
        priorart_relay::query(&relays, &discovery_filter(&x), &limits)?
    };
    let found = priorart_relay::merge(&answers);
    let findings = Findings::new(&x, found, source.as_ref(), args.headers.network());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let mut report = findings.to_json(&answers);
        report["index"] = local.as_ref().map_or(Value::Null, |local| local.to_json(&lookup));
        writeln!(out, "{report}")?;
    } else {
        let colour = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        findings.write_table(&mut out, &answers, colour)?;
        if let Some(local) = &local {
            local.write(&mut out, &lookup)?;
        }
        findings.write_verdict(&mut out, &answers, colour)?;
    }
    if !findings.unverified.is_empty() {
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
    answer: index_cmd::Answer,
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
            "answer": index_cmd::answer_json(lookup, &self.answer),
        })
    }

    fn write(&self, out: &mut impl Write, lookup: &Lookup) -> std::io::Result<()> {
        writeln!(out, "local index {} (layout {}):", self.path.display(), self.layout)?;
        index_cmd::write_answer(out, lookup, &self.answer, self.k)
    }
}

/// The NIP's discovery query for `x`.
fn discovery_filter(x: &str) -> Filter {
    Filter::new()
        .kinds(DISCOVERY_KINDS.map(Kind::from_u16))
        .custom_tag(SingleLetterTag::UPPERCASE_X, x)
}

/// A proof event and what its verification said.
struct Proof {
    found: Found,
    report: Report,
}

/// Whether a content event's text has the `X` it carries.
enum XCheck {
    Matches,
    DoesNotMatch(String),
    CannotCheck(&'static str),
}

/// A content event (a note, an article…) carrying the `X`.
struct Content {
    found: Found,
    check: XCheck,
}

/// Everything found, verified and ranked.
struct Findings {
    x: String,
    network: Network,
    proofs: Vec<Proof>,
    ranking: Ranking,
    unverified: Vec<usize>,
    contents: Vec<Content>,
}

impl Findings {
    fn new(x: &str, found: Vec<Found>, headers: &dyn HeaderSource, network: Network) -> Findings {
        let mut proofs = Vec::new();
        let mut contents = Vec::new();
        for found in found {
            if found.event.kind.as_u16() == priorart_nip::PROOF_KIND {
                let report = priorart_nip::verify_event(&found.event, headers, network);
                proofs.push(Proof { found, report });
            } else {
                let check = check_x(&found.event, x);
                contents.push(Content { found, check });
            }
        }
        let reports: Vec<Report> = proofs.iter().map(|proof| proof.report.clone()).collect();
        let ranking = priorart_nip::rank(&reports, x);
        let unverified = ranking.unverified.clone();
        Findings { x: x.to_owned(), network, proofs, ranking, unverified, contents }
    }

    /// The reference (`a` coordinate or `e` id) of a proof, and whether a
    /// content event it names was among the answers.
    fn content_reference(&self, proof: &Proof) -> Option<(&'static str, String, bool)> {
        let event = &proof.found.event;
        let tag = |name: &str| event.tags.iter().find(|t| t.kind() == name).and_then(|t| t.content());
        if let Some(coordinate) = tag("a") {
            let found = self.contents.iter().any(|c| coordinate_of(&c.found.event).as_deref() == Some(coordinate));
            return Some(("a", coordinate.to_owned(), found));
        }
        let id = tag("e")?;
        let found = self.contents.iter().any(|c| c.found.event.id.to_hex() == id);
        Some(("e", id.to_owned(), found))
    }

    /// Every pubkey that published or proved this `X`, earliest proof first.
    fn authors(&self) -> Vec<String> {
        let reports: Vec<Report> = self.proofs.iter().map(|p| p.report.clone()).collect();
        let mut authors: Vec<String> = self.ranking.proven_authors(&reports).into_iter().map(str::to_owned).collect();
        let others = self.unverified.iter().filter_map(|&i| self.proofs[i].report.author.clone());
        for author in others.chain(self.contents.iter().map(|c| c.found.event.pubkey.to_hex())) {
            if !authors.contains(&author) {
                authors.push(author);
            }
        }
        authors
    }

    fn earliest_event(&self) -> Option<&Event> {
        let events = self.contents.iter().map(|c| &c.found.event).chain(self.proofs.iter().map(|p| &p.found.event));
        events.min_by_key(|event| (event.created_at, event.id))
    }

    /// The verdict: its status, the sentence, and the earliest author.
    fn verdict(&self, answers: &[RelayAnswer]) -> (&'static str, String, Value) {
        if answers.is_empty() {
            return ("no_relay_asked", "no relay asked: only the local index was searched".into(), Value::Null);
        }
        if !answers.iter().any(|answer| answer.answered) {
            return ("no_relay_answered", "no relay answered: nothing is known about this X".into(), Value::Null);
        }
        let other_authors = self.authors().len().saturating_sub(1);
        let others = match other_authors {
            0 => "no other author published the same X".to_owned(),
            1 => "1 other author published the same X".to_owned(),
            n => format!("{n} other authors published the same X"),
        };
        if let Some(&first) = self.ranking.proven.first() {
            let report = &self.proofs[first].report;
            let block = report.bitcoin.as_ref().expect("proven reports have a block");
            let author = report.author.clone().unwrap_or_default();
            let chain = if self.network == Network::Regtest { " of REGTEST (not Bitcoin)" } else { "" };
            let text = format!(
                "earliest proven author: {} at block {}{chain} ({}); {others}",
                npub(&author),
                block.height,
                utc(block.time)
            );
            let earliest = json!({"author": author, "npub": npub(&author), "event_id": report.event_id,
                                  "height": block.height, "time": block.time, "utc": utc(block.time)});
            return ("proven", text, earliest);
        }
        let Some(event) = self.earliest_event() else {
            return ("nothing_found", "no event with this X on the relays that answered".into(), Value::Null);
        };
        let author = event.pubkey.to_hex();
        let created = event.created_at.as_secs();
        let mut text = format!(
            "no timestamp proof found; earliest seen by created_at (untrusted): {} (kind {}, {}); {others}",
            npub(&author),
            event.kind.as_u16(),
            utc(created)
        );
        if !self.unverified.is_empty() {
            text.push_str(&format!(
                "; {} proof(s) could not be checked for lack of block headers",
                self.unverified.len()
            ));
        }
        let earliest = json!({"author": author, "npub": npub(&author), "event_id": event.id.to_hex(),
                              "kind": event.kind.as_u16(), "created_at": created, "utc": utc(created)});
        ("unproven", text, earliest)
    }

    fn to_json(&self, answers: &[RelayAnswer]) -> Value {
        let relays_of = |found: &Found| -> Vec<&str> { found.relays.iter().map(|&i| answers[i].relay.as_str()).collect() };
        let proofs: Vec<Value> = self.ranking.proven.iter().enumerate().map(|(rank, &index)| {
            let proof = &self.proofs[index];
            let block = proof.report.bitcoin.as_ref().expect("proven reports have a block");
            let author = proof.report.author.clone().unwrap_or_default();
            let content = self.content_reference(proof).map(|(tag, reference, found)| json!({"tag": tag, "reference": reference, "found": found}));
            json!({"rank": rank + 1, "event_id": proof.report.event_id, "author": author, "npub": npub(&author),
                   "block": {"height": block.height, "time": block.time, "utc": utc(block.time), "block_hash": block.block_hash},
                   "content": content, "relays": relays_of(&proof.found), "report": proof.report})
        }).collect();
        let unverified: Vec<Value> = self.unverified.iter().map(|&index| {
            let proof = &self.proofs[index];
            let author = proof.report.author.clone().unwrap_or_default();
            json!({"event_id": proof.report.event_id, "author": author, "npub": npub(&author),
                   "relays": relays_of(&proof.found), "report": proof.report})
        }).collect();
        let refused: Vec<Value> = self.ranking.refused.iter().map(|&index| {
            let proof = &self.proofs[index];
            json!({"event_id": proof.report.event_id, "signer": proof.report.signer, "claimed_author": proof.report.author, "verdict": proof.report.verdict,
                   "reasons": refusal_reasons(&proof.report, &self.x), "relays": relays_of(&proof.found), "report": proof.report})
        }).collect();
        let contents: Vec<Value> = self.contents.iter().map(|content| {
            let event = &content.found.event;
            let (x_check, detail) = match &content.check {
                XCheck::Matches => ("matches", Value::Null),
                XCheck::DoesNotMatch(fingerprint) => ("does_not_match", json!(fingerprint)),
                XCheck::CannotCheck(why) => ("cannot_check", json!(why)),
            };
            let author = event.pubkey.to_hex();
            json!({"event_id": event.id.to_hex(), "author": author, "npub": npub(&author), "kind": event.kind.as_u16(),
                   "created_at": event.created_at.as_secs(), "created_at_trusted": false, "utc": utc(event.created_at.as_secs()),
                   "x_check": x_check, "detail": detail, "relays": relays_of(&content.found)})
        }).collect();
        let (status, text, earliest) = self.verdict(answers);
        json!({
            "format": "priorart-check/1",
            "x": self.x,
            "network": self.network.name(),
            "verdict": {"status": status, "text": text, "earliest": earliest,
                        "other_authors": self.authors().len().saturating_sub(1)},
            "relays": answers.iter().map(relay_json).collect::<Vec<_>>(),
            "proofs": proofs,
            "unverified": unverified,
            "refused": refused,
            "content_events": contents,
        })
    }

    fn write_table(&self, out: &mut impl Write, answers: &[RelayAnswer], colour: bool) -> std::io::Result<()> {
        let paint = |code: &str, text: &str| if colour { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() };
        let relays_of = |found: &Found| -> String {
            found.relays.iter().map(|&i| answers[i].relay.as_str()).collect::<Vec<_>>().join(", ")
        };
        writeln!(out, "X {} ({})", self.x, self.network.name())?;
        if answers.is_empty() {
            return Ok(());
        }
        writeln!(out, "relays:")?;
        for answer in answers {
            writeln!(
                out,
                "  {}  {}  {} event(s) kept  {:.2}s",
                answer.relay,
                ending_text(&answer.ending),
                answer.events.len(),
                answer.elapsed.as_secs_f64()
            )?;
            for skipped in &answer.skipped {
                let reason = serde_json::to_value(skipped.reason).unwrap_or_default();
                let reason = reason.as_str().unwrap_or("unknown");
                writeln!(out, "      skipped {} × {reason} (first: {})", skipped.count, skipped.example)?;
            }
            for notice in &answer.notices {
                writeln!(out, "      notice: {notice}")?;
            }
        }
        writeln!(out, "proofs, earliest Bitcoin block first:")?;
        if self.ranking.proven.is_empty() {
            writeln!(out, "  none valid")?;
        }
        for (rank, &index) in self.ranking.proven.iter().enumerate() {
            let proof = &self.proofs[index];
            let block = proof.report.bitcoin.as_ref().expect("proven reports have a block");
            let content = match self.content_reference(proof) {
                Some((tag, reference, found)) => {
                    format!("{tag} {reference} ({})", if found { "found" } else { "not among the answers" })
                }
                None => "no content reference".into(),
            };
            let author = npub(proof.report.author.as_deref().unwrap_or_default());
            writeln!(out, "  #{} {}  block {}  {}", rank + 1, paint("1", &author), block.height, utc(block.time))?;
            writeln!(out, "      content {content}; proof {} on {}", proof.found.event.id, relays_of(&proof.found))?;
        }
        for &index in &self.unverified {
            let proof = &self.proofs[index];
            let author = npub(proof.report.author.as_deref().unwrap_or_default());
            writeln!(out, "  UNVERIFIED (no block headers to check it) {author}  proof {}", proof.found.event.id)?;
        }
        if !self.ranking.refused.is_empty() {
            writeln!(out, "refused kind 1041 events:")?;
        }
        for &index in &self.ranking.refused {
            let proof = &self.proofs[index];
            let verdict = serde_json::to_value(proof.report.verdict).unwrap_or_default();
            let claim = proof.report.author.as_deref().map(|author| format!(" claims {}", npub(author)));
            writeln!(
                out,
                "  {} {} [{}]{} on {}",
                proof.found.event.id,
                paint("31", &verdict.as_str().unwrap_or("invalid").to_uppercase()),
                refusal_reasons(&proof.report, &self.x).join(", "),
                claim.unwrap_or_default(),
                relays_of(&proof.found)
            )?;
        }
        writeln!(out, "content events (created_at is the author's claim, untrusted):")?;
        if self.contents.is_empty() {
            writeln!(out, "  none")?;
        }
        for content in &self.contents {
            let event = &content.found.event;
            let check = match &content.check {
                XCheck::Matches => "X matches the content".to_owned(),
                XCheck::DoesNotMatch(fingerprint) => format!("X does NOT match the content (its X: {fingerprint})"),
                XCheck::CannotCheck(why) => format!("X cannot be checked ({why} content)"),
            };
            writeln!(
                out,
                "  {}  kind {}  {}  {check}  {} on {}",
                npub(&event.pubkey.to_hex()),
                event.kind.as_u16(),
                utc(event.created_at.as_secs()),
                event.id,
                relays_of(&content.found)
            )?;
        }
        Ok(())
    }

    fn write_verdict(&self, out: &mut impl Write, answers: &[RelayAnswer], colour: bool) -> std::io::Result<()> {
        let (_, text, _) = self.verdict(answers);
        let text = if colour { format!("\x1b[1m{text}\x1b[0m") } else { text };
        writeln!(out, "verdict: {text}")
    }
}

/// Why a kind 1041 is not ranked: its failed steps, or what else it is.
fn refusal_reasons(report: &Report, x: &str) -> Vec<String> {
    let mut reasons: Vec<String> = report.failures().iter().map(ToString::to_string).collect();
    reasons.extend(report.warnings.iter().map(|warning| warning.reason.to_string()));
    if report.verdict == Verdict::Valid && report.fingerprint.as_deref() != Some(x) {
        reasons.push("proves_another_x".into());
    }
    if reasons.is_empty() {
        reasons.push("invalid".into());
    }
    reasons
}

/// Re-fingerprints a content event's text, unless there is none to read.
fn check_x(event: &Event, x: &str) -> XCheck {
    if event.content.trim().is_empty() {
        return XCheck::CannotCheck("empty");
    }
    if looks_encrypted(&event.content) {
        return XCheck::CannotCheck("encrypted");
    }
    let fingerprint = priorart_fingerprint::minhash_equality_v1(&event.content).to_string();
    if fingerprint == x { XCheck::Matches } else { XCheck::DoesNotMatch(fingerprint) }
}

/// NIP-04 (`<base64>?iv=<base64>`) and NIP-44 payloads (one base64 word of
/// at least 132 characters whose first byte, version 2, encodes as `A`
/// followed by a character from `g` to `v`): ciphertext, not text to hash.
fn looks_encrypted(content: &str) -> bool {
    let base64 = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
    if let Some((ciphertext, iv)) = content.split_once("?iv=") {
        return base64(ciphertext) && base64(iv);
    }
    let bytes = content.as_bytes();
    content.len() >= 132 && base64(content) && bytes[0] == b'A' && (b'g'..=b'v').contains(&bytes[1])
}

/// `KIND:PUBKEY:D` of an addressable event (what an `a` tag names).
fn coordinate_of(event: &Event) -> Option<String> {
    event.kind.is_addressable().then(|| {
        let d = event.tags.identifier().unwrap_or_default();
        format!("{}:{}:{d}", event.kind.as_u16(), event.pubkey.to_hex())
    })
}

fn npub(hex: &str) -> String {
    PublicKey::from_hex(hex).ok().and_then(|key| key.to_bech32().ok()).unwrap_or_else(|| hex.to_owned())
}

fn utc(seconds: u64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp(seconds as i64, 0)
        .map_or_else(|| "out of range".to_owned(), |time| time.format("%Y-%m-%d %H:%M:%S UTC").to_string())
}

fn ending_text(ending: &Ending) -> String {
    match ending {
        Ending::Eose => "EOSE".into(),
        Ending::Closed { message } => format!("CLOSED ({message})"),
        Ending::Timeout => "TIMEOUT (no EOSE)".into(),
        Ending::Unreachable { error } => format!("UNREACHABLE ({error})"),
        Ending::Disconnected { error } => format!("DISCONNECTED before EOSE ({error})"),
        Ending::EventLimit { limit } => format!("CUT OFF at {limit} events"),
        Ending::ByteLimit { limit } => format!("CUT OFF at {limit} bytes"),
    }
}

fn relay_json(answer: &RelayAnswer) -> Value {
    json!({
        "url": answer.relay,
        "answered": answer.answered,
        "ending": answer.ending,
        "events": answer.events.len(),
        "skipped": answer.skipped,
        "notices": answer.notices,
        "elapsed_ms": answer.elapsed.as_millis() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ciphertexts_are_not_hashed_as_text() {
        assert!(looks_encrypted("c2VjcmV0IG1lc3NhZ2U=?iv=MTIzNDU2Nzg5MDEyMzQ1Ng=="));
        let nip44 = format!("Ag{}", "B".repeat(140));
        assert!(looks_encrypted(&nip44));
        assert!(!looks_encrypted("An article about ships?iv= is not base64"));
        assert!(!looks_encrypted(&"Ab".repeat(80)));
        assert!(!looks_encrypted("A short note"));
    }
}
