//! The world the page's browser tests (`web/tests`) and
//! `scripts/bench/web.mjs` run against, every part real and on 127.0.0.1:
//! a regtest chain with its Esplora server (CORS `*`, as public Esplora
//! servers answer) and an OpenTimestamps calendar that mines a block
//! whenever something is pending; three `priorart relay` processes; a relay
//! that lies and one that hangs (testkit's `ScriptedRelay`); and
//! `priorart serve` on that calendar, chain and relays, allowing the
//! page's origin (`--cors-origin`).
//!
//! The relays hold a scenario: one text, its first author (proof in block
//! h), a later copier (block h + 1), and a thief whose kind 1041 carries
//! the first author's proof (proof for another digest); and issue 31's
//! near copy: an essay proven early, an edited copy (another X) proven
//! later by another key (`near` in the JSON line). With
//! `--bench-events N`, they also hold N events of a second text (notes by
//! many authors, a tenth of the events proofs of some of them, each in its
//! own block).
//!
//! Prints one JSON line (every URL, the texts, their X, the authors), then
//! runs until its standard input closes.
//!
//! `cargo run -p priorart-cli --example web_world -- --origin http://127.0.0.1:PORT [--bench-events 1000]`
//! (the `priorart` binary beside `examples/`, or `PRIORART_BIN`).

use priorart_nip::nostr::prelude::{Event, Keys, Timestamp};
use priorart_nip::{Attestation, ContentEvent};
use priorart_nip_testkit::{Anchored, RegtestWorld, ServerProcess, unchecked_proof_event};
use priorart_testkit::{Frame, ScriptedRelay, SharedChain};
use serde_json::{Value, json};
use std::io::Read;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

type Error = Box<dyn std::error::Error>;

/// The scenario's text (one X for three authors).
const TEXT: &str = "The lighthouse keeper's logbook, kept through forty winters, records every ship \
    that passed the point, every storm that closed the harbour and every night the lamp was lit \
    by hand, a plain account that reads, page after page, like the memory of the whole coast.";

/// The near-copy case's essay (over 100 words: its notes carry fuzzy
/// discovery `B` tags).
const ESSAY: &str = "Every river town along the lower valley kept a flood book in the parish hall, a heavy \
    ledger in which the sexton wrote the height of the water each spring against the marks cut into the \
    church door. Read together, the books tell a slow story that no single winter could: the floods came \
    later in the year as the forests upstream were cleared, they rose faster once the marshes were drained \
    for pasture, and they fell away more quickly after the new embankments pushed the river into a narrow \
    channel. The sextons were not scientists. They wrote in the margins about drowned sheep, about the \
    miller who refused to leave his wheel, about the schoolmaster who rowed children home across the \
    square. Yet their numbers, taken one year after another, are as careful as any gauge, because each man \
    knew his successor would read them and judge him by them. Historians who once dismissed the books as \
    parish gossip now set them beside tree rings and river sediments, and find that the three records \
    agree to within a hand's breadth across two centuries of water.";

/// The copier's edits of [`ESSAY`]: one word in twenty changed (5 %)...
const ESSAY_EDITS: [(&str, &str); 10] = [
    ("heavy", "thick"),
    ("sexton", "verger"),
    ("slow", "quiet"),
    ("cleared,", "felled,"),
    ("pasture,", "grazing,"),
    ("narrow", "tight"),
    ("margins", "edges"),
    ("refused", "declined"),
    ("careful", "exact"),
    ("dismissed", "scorned"),
];

/// ... and a footer of its own: another `X`, within a few bits of the
/// essay's simhash-doc (`priorart compare`: distance 4, word 5-gram Jaccard
/// 0.55, above the near-copy floor of 0.5).
const COPY_FOOTER: &str = "First published on the Valley Heritage blog. Share freely with attribution.";

/// The benchmark's text.
const BENCH_TEXT: &str = "Harbour towns kept their archives in the cellars of customs houses, where \
    damp ledgers recorded every cargo of salt, timber, wool and copper that crossed the quay.";

/// How often the calendar puts what is pending into a block.
const MINING_INTERVAL: Duration = Duration::from_millis(250);

fn main() -> Result<(), Error> {
    let options = Options::parse()?;
    let dir = tempfile::tempdir()?;
    let world = Arc::new(RegtestWorld::new());
    let chain = &world.chain;
    mine_whenever_pending(world.clone());

    let relays: Vec<ServerProcess> = (0..3)
        .map(|n| {
            let db = dir.path().join(format!("relay-{n}"));
            ServerProcess::start(
                Command::new(&options.priorart).args(["relay", "--listen", "127.0.0.1:0", "--db"]).arg(db),
            )
        })
        .collect::<Result<_, _>>()?;
    let relay_urls: Vec<String> = relays.iter().map(|relay| relay.url.clone()).collect();

    let scenario = Scenario::build(chain)?;
    publish(&relay_urls[..1], &[&scenario.first_note, &scenario.first_proof])?;
    publish(&relay_urls[1..2], &[&scenario.copier_note, &scenario.copier_proof])?;
    publish(&relay_urls[2..], &[&scenario.copier_proof, &scenario.stolen_proof])?;
    let near = NearCopyCase::build(chain)?;
    // The essay and its proof on one relay, the copy and its proof on
    // another: the reader's verdict needs both relays' answers.
    publish(&relay_urls[..1], &[&near.essay_note, &near.essay_proof])?;
    publish(&relay_urls[1..2], &[&near.copy_note, &near.copy_proof])?;
    let liar = lying_relay(&scenario);
    let hang = ScriptedRelay::start(|_| vec![Frame::Hang]);
    let silent = ScriptedRelay::silent();

    let bench = match options.bench_events {
        0 => Value::Null,
        events => {
            let bench_events = bench_events(chain, events)?;
            let refs: Vec<&Event> = bench_events.iter().collect();
            publish(&relay_urls, &refs)?;
            json!({"text": BENCH_TEXT, "x": priorart_fingerprint::minhash_equality_v1(BENCH_TEXT).to_string(), "events": events})
        }
    };

    let mut serve_command = Command::new(&options.priorart);
    serve_command
        .args(["serve", "--listen", "127.0.0.1:0", "--state"])
        .arg(dir.path().join("serve"))
        .args(["--interval", "1", "--calendar", &world.calendar.url()])
        .args(world.header_args());
    for relay in &relay_urls {
        serve_command.args(["--relay", relay]);
    }
    for origin in &options.origins {
        serve_command.args(["--cors-origin", origin]);
    }
    let serve = ServerProcess::start(&mut serve_command)?;

    let world = json!({
        "relays": relay_urls,
        "liar": liar.url(),
        "hang": hang.url(),
        "silent": silent.url(),
        "esplora": world.esplora.url(),
        "calendar": world.calendar.url(),
        "serve": serve.url,
        "network": "regtest",
        "scenario": {
            "text": TEXT,
            "x": fingerprint().to_string(),
            "discovery_filter": serde_json::to_value(priorart_nip::check::discovery_filter(&fingerprint()))?,
            "first": scenario.first.public_key().to_hex(),
            "first_block": scenario.first_block,
            "copier": scenario.copier.public_key().to_hex(),
            "copier_block": scenario.copier_block,
            "thief": scenario.thief.public_key().to_hex(),
            "stolen_proof": scenario.stolen_proof.id.to_hex(),
        },
        "near": {
            "essay": ESSAY,
            "copy": near.copy,
            "essay_x": priorart_fingerprint::minhash_equality_v1(ESSAY).to_string(),
            "copy_x": priorart_fingerprint::minhash_equality_v1(&near.copy).to_string(),
            "author": near.author.public_key().to_hex(),
            "author_block": near.essay_block,
            "essay_event": near.essay_note.id.to_hex(),
            "copier": near.copier.public_key().to_hex(),
            "copier_block": near.copy_block,
        },
        "bench": bench,
    });
    println!("{world}");
    // Runs until the test closes our standard input (or ends).
    let _ = std::io::stdin().read_to_end(&mut Vec::new());
    drop((relays, serve));
    Ok(())
}

struct Options {
    priorart: PathBuf,
    origins: Vec<String>,
    bench_events: usize,
}

impl Options {
    fn parse() -> Result<Options, Error> {
        let mut options = Options { priorart: priorart_binary()?, origins: Vec::new(), bench_events: 0 };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
            match arg.as_str() {
                "--origin" => options.origins.push(value()?),
                "--bench-events" => options.bench_events = value()?.parse()?,
                other => return Err(format!("unknown argument {other}").into()),
            }
        }
        Ok(options)
    }
}

/// `PRIORART_BIN`, else the `priorart` built beside this example.
fn priorart_binary() -> Result<PathBuf, Error> {
    let path = priorart_nip_testkit::priorart_binary();
    if path.is_file() {
        return Ok(path);
    }
    Err(format!(
        "no priorart binary at {}: build it (cargo build -p priorart-cli) or set PRIORART_BIN",
        path.display()
    )
    .into())
}

/// The calendar's pending commitments go into a block every
/// [`MINING_INTERVAL`], so that `priorart serve` gets its proofs soon.
fn mine_whenever_pending(world: Arc<RegtestWorld>) {
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(MINING_INTERVAL);
            world.calendar.mine_block();
        }
    });
}

fn publish(relays: &[String], events: &[&Event]) -> Result<(), Error> {
    let urls =
        relays.iter().map(|url| priorart_relay::parse_relay_url(url)).collect::<Result<Vec<_>, _>>()?;
    let events: Vec<Event> = events.iter().map(|event| (*event).clone()).collect();
    for answer in priorart_relay::publish(&urls, &events, Duration::from_secs(30))? {
        for acceptance in &answer.acceptances {
            if !matches!(acceptance, priorart_relay::Acceptance::Accepted { .. }) {
                return Err(format!("{}: {acceptance:?}", answer.relay).into());
            }
        }
    }
    Ok(())
}

/// Three authors of [`TEXT`] and their events.
struct Scenario {
    first: Keys,
    first_note: Event,
    first_proof: Event,
    first_block: u64,
    copier: Keys,
    copier_note: Event,
    copier_proof: Event,
    copier_block: u64,
    thief: Keys,
    stolen_proof: Event,
}

impl Scenario {
    fn build(chain: &SharedChain) -> Result<Scenario, Error> {
        let now = Timestamp::now().as_secs();
        let (first, copier, thief) = (Keys::generate(), Keys::generate(), Keys::generate());
        let service = Keys::generate();
        let first_note = note(&first, TEXT, now - 7_200)?;
        let Anchored { event: first_proof, height: first_block, ots: first_ots } =
            anchored(chain, &first, &first_note, &service)?;
        let copier_note = note(&copier, TEXT, now - 3_600)?;
        let Anchored { event: copier_proof, height: copier_block, .. } =
            anchored(chain, &copier, &copier_note, &service)?;
        // The thief's own attestation with the first author's proof: the
        // proof is for another digest (verifier step 8).
        let thief_note = note(&thief, TEXT, now - 10_000)?;
        let thief_attestation =
            Attestation::sign(&thief, fingerprint(), Some(1), Timestamp::from_secs(now - 10_000))?;
        let stolen_proof = unchecked_proof_event(&thief, &thief_attestation, thief_note.id, &first_ots);
        Ok(Scenario {
            first,
            first_note,
            first_proof,
            first_block,
            copier,
            copier_note,
            copier_proof,
            copier_block,
            thief,
            stolen_proof,
        })
    }
}

/// Issue 31's case: an author protects an essay (valid proof, early
/// block); later a copier publishes an edited copy (another `X`) under
/// another key, with a valid proof of its own at a later block. A reader
/// checking the copy must be shown the essay's author.
struct NearCopyCase {
    author: Keys,
    essay_note: Event,
    essay_proof: Event,
    essay_block: u64,
    copier: Keys,
    copy: String,
    copy_note: Event,
    copy_proof: Event,
    copy_block: u64,
}

impl NearCopyCase {
    fn build(chain: &SharedChain) -> Result<NearCopyCase, Error> {
        let now = Timestamp::now().as_secs();
        let (author, copier, service) = (Keys::generate(), Keys::generate(), Keys::generate());
        let essay_note = note(&author, ESSAY, now - 20_000)?;
        let Anchored { event: essay_proof, height: essay_block, .. } =
            anchored(chain, &author, &essay_note, &service)?;
        let edited: Vec<&str> = ESSAY
            .split_whitespace()
            .map(|word| ESSAY_EDITS.iter().find(|(from, _)| *from == word).map_or(word, |(_, to)| *to))
            .collect();
        let copy = format!("{}\n\n{COPY_FOOTER}", edited.join(" "));
        let copy_note = note(&copier, &copy, now - 1_000)?;
        let Anchored { event: copy_proof, height: copy_block, .. } =
            anchored(chain, &copier, &copy_note, &service)?;
        Ok(NearCopyCase {
            author,
            essay_note,
            essay_proof,
            essay_block,
            copier,
            copy,
            copy_note,
            copy_proof,
            copy_block,
        })
    }
}

fn fingerprint() -> priorart_fingerprint::EqualityFingerprint {
    priorart_fingerprint::minhash_equality_v1(TEXT)
}

fn note(keys: &Keys, text: &str, created_at: u64) -> Result<Event, Error> {
    Ok(ContentEvent::new(1, text, Timestamp::from_secs(created_at)).sign(keys)?)
}

/// The author's attestation of `note`, anchored in a new block of
/// `chain`, as a kind 1041 signed by `service` a minute after the note.
fn anchored(chain: &SharedChain, author: &Keys, note: &Event, service: &Keys) -> Result<Anchored, Error> {
    let x = priorart_fingerprint::minhash_equality_v1(&note.content);
    let attestation = Attestation::sign(author, x, Some(1), note.created_at)?;
    let mut chain = chain.lock().map_err(|_| "chain lock")?;
    let created_at = Timestamp::from_secs(note.created_at.as_secs() + 60);
    Ok(priorart_nip_testkit::anchored(&mut chain, &attestation, note.id, service, created_at))
}

/// A relay that answers every query with lies and garbage, then `EOSE`:
/// the first author's proof with its content changed (bad id), the
/// copier's note under someone else's signature, an event for another
/// subscription, a frame that is no JSON, and the stolen proof.
fn lying_relay(scenario: &Scenario) -> ScriptedRelay {
    let mut tampered: Value =
        serde_json::from_str(&priorart_nip::to_json(&scenario.first_proof)).unwrap_or_default();
    tampered["created_at"] = json!(1);
    let mut resigned: Value =
        serde_json::from_str(&priorart_nip::to_json(&scenario.copier_note)).unwrap_or_default();
    resigned["sig"] = json!(Keys::generate().sign_schnorr(scenario.copier_note.id.as_bytes()).to_string());
    let stolen: Value =
        serde_json::from_str(&priorart_nip::to_json(&scenario.stolen_proof)).unwrap_or_default();
    ScriptedRelay::start(move |message| {
        let Some("REQ") = message.get(0).and_then(Value::as_str) else { return Vec::new() };
        let subscription = message.get(1).cloned().unwrap_or(Value::Null);
        let event = |event: &Value| Frame::Text(json!(["EVENT", subscription, event]).to_string());
        vec![
            event(&tampered),
            event(&resigned),
            Frame::Text(json!(["EVENT", "not-yours", stolen]).to_string()),
            Frame::Text("{this is not json".to_owned()),
            event(&stolen),
            Frame::Text(json!(["EOSE", subscription]).to_string()),
        ]
    })
}

/// `count` events of [`BENCH_TEXT`]: notes by as many authors, a tenth
/// of whom also have a kind 1041 anchored in a block of its own.
fn bench_events(chain: &SharedChain, count: usize) -> Result<Vec<Event>, Error> {
    let now = Timestamp::now().as_secs();
    let service = Keys::generate();
    let proofs = count / 10;
    let mut events = Vec::with_capacity(count);
    for i in 0..count - proofs {
        let author = Keys::generate();
        let note = note(&author, BENCH_TEXT, now - 100_000 + i as u64)?;
        if i < proofs {
            events.push(anchored(chain, &author, &note, &service)?.event);
        }
        events.push(note);
    }
    Ok(events)
}
