//! `priorart publish`, `check` and `relay` end to end, offline: two authors
//! publish near-identical articles (same X), anchored in successive regtest
//! blocks through a loopback calendar; a thief reuses the original's proof
//! (attack A); two `priorart relay` processes each hold part of the events.
//! Also: relays that lie or stay silent, and `priorart relay` killed -9.

use crate::nip_common;
use crate::relay_common;

use nip_common::stdout;
use priorart_nip::nostr::prelude::{Event, EventBuilder, FinalizeEvent, Keys, Kind, Tag};
use priorart_nip_testkit::{RegtestWorld, priorart};
use priorart_testkit::{EsploraServer, Frame, ScriptedRelay, TestCalendar};
use relay_common::{RelayProcess, write_lines};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The original article: long enough that X keeps its words after a light edit.
const ORIGINAL: &str = "Harbour towns kept their archives in the cellars of customs houses, where damp \
    ledgers recorded every cargo of salt, timber, wool and copper that crossed the quay. Historians \
    who read those ledgers today reconstruct trade routes, family fortunes and the slow decline of \
    sailing ships against steam. A careful reader notices marginal notes written by clerks who \
    complained about weather, wages, smugglers and the endless arithmetic of tariffs. Such small \
    complaints reveal how ordinary people experienced the grand movements of commerce, and why \
    preserving fragile paper matters for understanding the past.";

/// A light edit of `ORIGINAL` with the same X: one word dropped, the first
/// whose removal leaves every bucket minimum in place.
fn light_edit() -> String {
    let x = priorart_fingerprint::minhash_equality_v1(ORIGINAL);
    let words: Vec<&str> = ORIGINAL.split_whitespace().collect();
    (1..words.len())
        .map(|skip| [&words[..skip], &words[skip + 1..]].concat().join(" "))
        .find(|edited| priorart_fingerprint::minhash_equality_v1(edited) == x)
        .expect("some word is no bucket minimum")
}

struct Author {
    keys_file: PathBuf,
    pubkey: String,
    keys: Keys,
}

struct World {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    calendar: TestCalendar,
    esplora: EsploraServer,
}

impl World {
    fn new() -> World {
        let RegtestWorld { calendar, esplora, .. } = RegtestWorld::new();
        let dir = tempfile::tempdir().unwrap();
        World { dir: dir.path().to_owned(), _dir: dir, calendar, esplora }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn author(&self, name: &str) -> Author {
        let keys_file = self.file(&format!("{name}.key"));
        stdout(priorart().args(["key", "generate"]).arg(&keys_file));
        let public = stdout(priorart().args(["key", "public", "--json", "--key-file"]).arg(&keys_file));
        let pubkey = serde_json::from_str::<Value>(&public).unwrap()["pubkey"].as_str().unwrap().to_owned();
        let nsec = std::fs::read_to_string(&keys_file).unwrap();
        Author { keys_file, pubkey, keys: Keys::parse(nsec.trim()).unwrap() }
    }

    /// The author's article event, attestation, stamped and upgraded proof
    /// (in the next block), and proof event: (content event, proof event, height).
    fn publish_article(&self, author: &Author, name: &str, text: &str) -> (String, String, u64) {
        let article = self.file(&format!("{name}.md"));
        std::fs::write(&article, text).unwrap();
        let with_key = |args: &[&str]| {
            let mut cmd = priorart();
            cmd.args(args).arg("--key-file").arg(&author.keys_file);
            cmd
        };
        let content = stdout(with_key(&["event", "--kind", "30023", "--d", "essay"]).arg(&article));
        let attestation = self.file(&format!("{name}.attestation.json"));
        std::fs::write(&attestation, stdout(with_key(&["attest", "--kind", "30023"]).arg(&article))).unwrap();
        stdout(
            priorart().args(["timestamp", "-m", "1", "--calendar", &self.calendar.url()]).arg(&attestation),
        );
        let height = self.calendar.mine_block().expect("a block");
        let ots = PathBuf::from(format!("{}.ots", attestation.display()));
        stdout(priorart().args(["ots", "upgrade", "--allow", &self.calendar.url()]).arg(&ots));
        let coordinate = format!("30023:{}:essay", author.pubkey);
        let proof = stdout(with_key(&["proof", "--a", &coordinate]).arg("--ots").arg(&ots).arg(&attestation));
        (content.trim().to_owned(), proof.trim().to_owned(), height)
    }

    /// `priorart check` on regtest against these relays, as JSON.
    fn check(&self, relays: &[&str], target: &Path) -> Value {
        let mut cmd = priorart();
        cmd.args([
            "check",
            "--json",
            "--network",
            "regtest",
            "--esplora",
            &self.esplora.url(),
            "--header-cache",
        ])
        .arg(self.file("headers"))
        .arg(target);
        for relay in relays {
            cmd.args(["--relay", relay]);
        }
        serde_json::from_str(&stdout(&mut cmd)).unwrap()
    }
}

/// Attack A: the thief's own attestation of the same text, carried by a
/// kind 1041 whose proof is the original's (for another commitment).
fn steal_proof(world: &World, thief: &Author, original_proof: &str) -> String {
    let article = world.file("thief.md");
    std::fs::write(&article, light_edit()).unwrap();
    let attestation = stdout(
        priorart().args(["attest", "--kind", "30023", "--key-file"]).arg(&thief.keys_file).arg(&article),
    );
    let original: Value = serde_json::from_str(original_proof).unwrap();
    let tags = original["tags"].as_array().unwrap().iter().map(|tag| {
        let mut tag: Vec<String> = serde_json::from_value(tag.clone()).unwrap();
        match tag[0].as_str() {
            "a" => tag[1] = format!("30023:{}:essay", thief.pubkey),
            "description" => tag[1] = attestation.trim().to_owned(),
            _ => {}
        }
        Tag::parse(tag).unwrap()
    });
    let stolen: Event = EventBuilder::new(Kind::from_u16(1041), original["content"].as_str().unwrap())
        .tags(tags)
        .finalize(&thief.keys)
        .unwrap();
    priorart_nip::to_json(&stolen)
}

fn publish(world: &World, name: &str, events: &[String], relay: &str) {
    let file = write_lines(&world.dir, name, events);
    let out = stdout(priorart().args(["publish", "--json", "--relay", relay]).arg(file));
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(answer["ok"], true, "{answer}");
}

#[test]
fn check_ranks_the_original_first_lists_the_copier_and_refuses_the_stolen_proof() {
    let world = World::new();
    let (alice, bob, mallory) = (world.author("alice"), world.author("bob"), world.author("mallory"));
    let (alice_article, alice_proof, alice_height) = world.publish_article(&alice, "alice", ORIGINAL);
    let (bob_article, bob_proof, bob_height) = world.publish_article(&bob, "bob", &light_edit());
    assert!(alice_height < bob_height);
    let stolen = steal_proof(&world, &mallory, &alice_proof);

    let (one, two) =
        (RelayProcess::priorart(&world.file("relay-1")), RelayProcess::priorart(&world.file("relay-2")));
    publish(&world, "to-one.jsonl", &[alice_article, alice_proof.clone(), stolen], &one.url);
    publish(&world, "to-two.jsonl", &[bob_article, bob_proof, alice_proof], &two.url);

    let report = world.check(&[&one.url, &two.url], &world.file("alice.md"));
    assert_eq!(report["format"], "priorart-check/1");
    assert_eq!(report["x"], priorart_fingerprint::minhash_equality_v1(ORIGINAL).to_string());
    let proofs = report["proofs"].as_array().unwrap();
    assert_eq!(proofs.len(), 2, "{report:#}");
    assert_eq!(
        (&proofs[0]["author"], &proofs[0]["block"]["height"]),
        (&json!(alice.pubkey), &json!(alice_height))
    );
    assert_eq!(
        (&proofs[1]["author"], &proofs[1]["block"]["height"]),
        (&json!(bob.pubkey), &json!(bob_height))
    );
    assert_eq!(proofs[0]["relays"], json!([one.url, two.url]), "the original's proof is on both");
    assert_eq!(proofs[1]["relays"], json!([two.url]));
    assert_eq!(
        proofs[0]["content"],
        json!({"tag": "a", "reference": format!("30023:{}:essay", alice.pubkey), "found": true})
    );

    let refused = report["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 1, "{report:#}");
    assert_eq!(refused[0]["signer"], json!(mallory.keys.public_key().to_hex()));
    assert!(
        refused[0]["reasons"].as_array().unwrap().contains(&json!("proof_for_other_digest")),
        "{:#}",
        refused[0]
    );
    assert_eq!(refused[0]["relays"], json!([one.url]));

    let contents = report["content_events"].as_array().unwrap();
    assert_eq!(contents.len(), 2);
    assert!(contents.iter().all(|c| c["x_check"] == "matches" && c["created_at_trusted"] == false));
    assert_eq!(report["verdict"]["status"], "proven");
    assert_eq!(report["verdict"]["other_authors"], 1);
    assert!(report["relays"].as_array().unwrap().iter().all(|r| r["ending"]["status"] == "eose"));

    // The human table says the same, with the verdict last.
    let mut human = priorart();
    human
        .args(["check", "--network", "regtest", "--header-cache"])
        .arg(world.file("headers"))
        .args(["--relay", &one.url, "--relay", &two.url])
        .arg(world.file("bob.md"));
    let table = stdout(&mut human);
    let verdict = table.lines().last().unwrap();
    assert!(verdict.starts_with("verdict: earliest proven author: npub1"), "{table}");
    assert!(verdict.contains(&format!("at block {alice_height} of REGTEST")), "{verdict}");
    assert!(verdict.contains("1 other author published the same X"), "{verdict}");
    assert!(table.contains("proof_for_other_digest"), "{table}");
    assert!(table.contains("#2 npub"), "{table}");
}

#[test]
fn relays_that_lie_or_stay_silent_are_named_and_do_not_stall_the_check() {
    let keys = Keys::generate();
    let x = "ab".repeat(32);
    let note = EventBuilder::new(Kind::from_u16(1), "a note")
        .tag(Tag::parse(["X", &x, "minhash-equality-v1"]).unwrap())
        .finalize(&keys)
        .unwrap();
    let mut forged: Value = serde_json::to_value(&note).unwrap();
    forged["content"] = json!("changed after signing");
    let lying = ScriptedRelay::start(move |message| {
        if message[0] != "REQ" {
            return Vec::new();
        }
        let sub = &message[1];
        vec![
            Frame::Text("{{{".into()),
            Frame::Text(json!(["EVENT", sub, note]).to_string()),
            Frame::Text(json!(["EVENT", sub, forged]).to_string()),
            Frame::Hang,
        ]
    });
    let silent = ScriptedRelay::silent();
    let started = Instant::now();
    let out = priorart()
        .args([
            "check",
            "--json",
            "--timeout",
            "1",
            "--no-header-cache",
            "--esplora",
            "http://127.0.0.1:9",
            "--x",
            &x,
        ])
        .args(["--relay", &lying.url(), "--relay", &silent.url()])
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(6), "took {:?}", started.elapsed());
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let relays = report["relays"].as_array().unwrap();
    assert_eq!(relays[0]["ending"]["status"], "timeout");
    let reasons: Vec<&str> =
        relays[0]["skipped"].as_array().unwrap().iter().map(|s| s["reason"].as_str().unwrap()).collect();
    assert_eq!(reasons, vec!["not_json", "bad_id"]);
    assert_eq!(relays[1]["ending"]["status"], "unreachable");
    assert_eq!(relays[1]["answered"], false);
    assert_eq!(report["content_events"].as_array().unwrap().len(), 1);
    assert_eq!(report["verdict"]["status"], "unproven");

    // Only the silent one: nobody answered, exit 1.
    let out = priorart()
        .args(["check", "--timeout", "1", "--no-header-cache", "--esplora", "http://127.0.0.1:9", "--x", &x])
        .args(["--relay", &silent.url()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("verdict: no relay answered"));
}

#[test]
fn the_relay_keeps_every_acknowledged_event_through_kill_9_and_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let keys = Keys::generate();
    let x = "5e".repeat(32);
    let events: Vec<String> = (0..25)
        .map(|i| {
            let event = EventBuilder::new(Kind::from_u16(1), format!("note {i}"))
                .tag(Tag::parse(["X", &x, "minhash-equality-v1"]).unwrap())
                .finalize(&keys)
                .unwrap();
            priorart_nip::to_json(&event)
        })
        .collect();
    let file = write_lines(dir.path(), "events.jsonl", &events);
    let count = |relay: &RelayProcess| {
        let out = stdout(
            priorart()
                .args(["check", "--json", "--no-header-cache", "--esplora", "http://127.0.0.1:9"])
                .args(["--x", &x, "--relay", &relay.url]),
        );
        serde_json::from_str::<Value>(&out).unwrap()["content_events"].as_array().unwrap().len()
    };

    let relay = RelayProcess::priorart(&db);
    stdout(priorart().args(["publish", "--relay", &relay.url]).arg(&file));
    relay.kill();
    let relay = RelayProcess::priorart(&db);
    assert_eq!(count(&relay), 25, "after kill -9");
    relay.terminate();
    let relay = RelayProcess::priorart(&db);
    assert_eq!(count(&relay), 25, "after SIGTERM and a restart");
    let again = priorart().args(["publish", "--json", "--relay", &relay.url]).arg(&file).output().unwrap();
    let answer: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(answer["events"][0]["relays"][0]["status"], "duplicate");
}

#[test]
fn publish_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let keys = Keys::generate();
    let event = EventBuilder::new(Kind::from_u16(1), "hello").finalize(&keys).unwrap();
    let file = write_lines(dir.path(), "event.json", &[priorart_nip::to_json(&event)]);
    let down = format!("ws://127.0.0.1:{}", priorart_testkit::free_port());
    priorart().args(["publish", "--timeout", "2", "--relay", &down]).arg(&file).assert().code(1);
    let refusing = ScriptedRelay::start(|message| {
        vec![Frame::Text(json!(["OK", message[1]["id"], false, "blocked: no"]).to_string())]
    });
    let out = priorart().args(["publish", "--relay", &refusing.url()]).arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("REJECTED (blocked: no)"));
    // No relay named (and no relay list): a usage error; a bad URL too.
    priorart().env("XDG_CONFIG_HOME", dir.path()).args(["publish"]).arg(&file).assert().code(2);
    priorart().args(["publish", "--relay", "http://example.invalid"]).arg(&file).assert().code(2);
    // A relay list with one enabled line is used when --relay is absent.
    std::fs::create_dir_all(dir.path().join("priorart")).unwrap();
    std::fs::write(dir.path().join("priorart/relays"), format!("# none by default\n{}\n", refusing.url()))
        .unwrap();
    let out = priorart().env("XDG_CONFIG_HOME", dir.path()).args(["publish"]).arg(&file).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(&refusing.url()));
    // A forged event is never sent.
    let mut forged: Value = serde_json::to_value(&event).unwrap();
    forged["content"] = json!("edited");
    let forged_file = write_lines(dir.path(), "forged.json", &[forged.to_string()]);
    priorart().args(["publish", "--relay", &refusing.url()]).arg(&forged_file).assert().code(1);
}
