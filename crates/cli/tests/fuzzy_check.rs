//! Fuzzy discovery (docs/nip-ff-3-fuzzy.md) end to end, through the CLI
//! only, on a regtest chain and an embedded `priorart relay`: `event` tags a
//! text by default, `publish` stores it with its kind 1041, and `check
//! --fuzzy` on an edited copy (another X) finds the original as a near copy
//! with its proof ranked by block.

use crate::nip_common;
use crate::relay_common;

use nip_common::stdout;
use priorart_nip_testkit::{RegtestWorld, priorart};
use relay_common::{RelayProcess, write_lines};
use serde_json::Value;
use std::path::Path;

/// 400 words drawn from 300 (seeded): a text of the length fuzzy tags are for.
fn original() -> String {
    let mut rng = fastrand::Rng::with_seed(23);
    (0..400).map(|_| format!("term{}", rng.u32(0..300))).collect::<Vec<_>>().join(" ")
}

/// The original with every 50th word changed and a footer.
fn copy() -> String {
    let words: Vec<String> = original()
        .split(' ')
        .enumerate()
        .map(|(i, word)| if i % 50 == 7 { format!("other{i}") } else { word.to_owned() })
        .collect();
    format!("{}\n\nPosted by someone. All rights reserved.", words.join(" "))
}

fn fuzzy_tags(event: &Value) -> usize {
    event["tags"].as_array().expect("tags").iter().filter(|tag| tag[0] == "B").count()
}

fn check(dir: &Path, relay: &str, esplora: &str, extra: &[&str]) -> std::process::Output {
    priorart()
        .args(["check", "--relay", relay, "--network", "regtest", "--esplora", esplora, "--header-cache"])
        .arg(dir.join("headers"))
        .arg(dir.join("copy.md"))
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
fn an_edited_copy_finds_the_tagged_original_and_its_proof_ranked_by_block() {
    let RegtestWorld { calendar, esplora, .. } = RegtestWorld::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);
    let relay = RelayProcess::priorart(&path("db"));
    let key = path("alice.key");
    stdout(priorart().args(["key", "generate"]).arg(&key));
    std::fs::write(path("post.md"), original()).expect("writes");
    std::fs::write(path("copy.md"), copy()).expect("writes");
    assert_ne!(
        priorart_fingerprint::minhash_equality_v1(&original()),
        priorart_fingerprint::minhash_equality_v1(&copy()),
        "the copy must escape the exact-X query for this test to mean anything"
    );

    // `event` adds the B tags by default, and leaves them out when asked.
    let note = stdout(priorart().args(["event", "--kind", "1", "--key-file"]).arg(&key).arg(path("post.md")));
    let event: Value = serde_json::from_str(&note).expect("JSON");
    assert_eq!(fuzzy_tags(&event), 29, "{event}");
    let bare = stdout(
        priorart()
            .args(["event", "--kind", "1", "--no-fuzzy-tags", "--key-file"])
            .arg(&key)
            .arg(path("post.md")),
    );
    assert_eq!(fuzzy_tags(&serde_json::from_str(&bare).expect("JSON")), 0);

    // Its kind 1041, on the regtest chain.
    let attestation =
        stdout(priorart().args(["attest", "--kind", "1", "--key-file"]).arg(&key).arg(path("post.md")));
    std::fs::write(path("attestation.json"), attestation).expect("writes");
    stdout(
        priorart()
            .args(["timestamp", "-m", "1", "--calendar", &calendar.url()])
            .arg(path("attestation.json")),
    );
    let height = calendar.mine_block().expect("a block");
    stdout(priorart().args(["ots", "upgrade", "--allow", &calendar.url()]).arg(path("attestation.json.ots")));
    let proof = stdout(
        priorart()
            .args(["proof", "--e", event["id"].as_str().expect("id"), "--key-file"])
            .arg(&key)
            .arg("--ots")
            .arg(path("attestation.json.ots"))
            .arg(path("attestation.json")),
    );
    let events = write_lines(dir.path(), "events.jsonl", &[note.trim().to_owned(), proof.trim().to_owned()]);
    stdout(priorart().args(["publish", "--relay", &relay.url]).arg(events));

    // The copy is long enough: fuzzy is on without asking.
    let out = check(dir.path(), &relay.url, &esplora.url(), &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["content_events"], serde_json::json!([]), "{report}");
    let fuzzy = &report["fuzzy"];
    assert_eq!(fuzzy["keys"], 28, "{fuzzy}");
    let near = &fuzzy["near_copies"][0];
    assert_eq!(near["event_id"], event["id"], "{fuzzy}");
    assert!(near["distance"].as_u64().expect("distance") <= 6, "{near}");
    assert!(near["jaccard"].as_f64().expect("jaccard") >= 0.5, "{near}");
    assert_eq!(near["fuzzy_tags"], "matches");
    assert_eq!(near["x"], event["tags"].as_array().unwrap().iter().find(|t| t[0] == "X").unwrap()[1]);
    let ranked = &near["proofs"][0];
    assert_eq!(
        (ranked["rank"].as_u64(), ranked["block"]["height"].as_u64()),
        (Some(1), Some(height)),
        "{near}"
    );
    assert_eq!(ranked["report"]["verdict"], "valid");

    // For people: the near copy, its proof, and the summary line.
    let out = check(dir.path(), &relay.url, &esplora.url(), &[]);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.contains("near copies (simhash-doc"), "{text}");
    assert!(text.contains(&format!("block {height}")), "{text}");
    assert!(text.contains("near copies: 1 near copy (within 6 bits"), "{text}");

    // --no-fuzzy: the exact query alone; --fuzzy with --x is a usage error.
    let out = check(dir.path(), &relay.url, &esplora.url(), &["--json", "--no-fuzzy"]);
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).expect("JSON")["fuzzy"], Value::Null);
    let out = priorart()
        .args(["check", "--fuzzy", "--x", &"ab".repeat(32), "--relay", &relay.url])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));

    // The reader's case: a copier publishes the edited copy under his own
    // key (its own X, so the exact query finds his note and no proof).
    // The verdict names the proven original, not the copier.
    let mallory = path("mallory.key");
    stdout(priorart().args(["key", "generate"]).arg(&mallory));
    let copied =
        stdout(priorart().args(["event", "--kind", "1", "--key-file"]).arg(&mallory).arg(path("copy.md")));
    let copied: Value = serde_json::from_str(&copied).expect("JSON");
    let events = write_lines(dir.path(), "copy.jsonl", &[copied.to_string()]);
    stdout(priorart().args(["publish", "--relay", &relay.url]).arg(events));
    let out = check(dir.path(), &relay.url, &esplora.url(), &[]);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let verdict = text.lines().last().expect("a verdict line");
    let npub = ranked["npub"].as_str().expect("npub");
    assert!(
        verdict.starts_with(&format!("verdict: a near copy was proven earlier: {npub} at block {height}")),
        "{text}"
    );
    assert!(verdict.contains(event["id"].as_str().expect("id")), "{verdict}");
    assert!(!verdict.contains(copied["pubkey"].as_str().expect("pubkey")), "{verdict}");
    let out = check(dir.path(), &relay.url, &esplora.url(), &["--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["verdict"]["status"], "near_copy_proven", "{}", report["verdict"]);
    assert_eq!(report["verdict"]["earliest"]["near_copy"]["event_id"], event["id"]);

    // Without block headers the proof is named as found and unchecked,
    // before any untrusted created_at.
    let out = priorart()
        .args(["check", "--relay", &relay.url, "--network", "regtest"])
        .arg(path("copy.md"))
        .output()
        .expect("runs");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let verdict = text.lines().last().expect("a verdict line");
    assert!(
        verdict.starts_with(
            "verdict: 1 proof of near copies found, none could be checked: no block headers to check them \
             against (give --esplora URL"
        ),
        "{text}"
    );
}

/// Part of manpages-ja's services(5) (Debian's manpages-ja 0.5): Japanese,
/// written without spaces between words.
const JAPANESE: &str = include_str!("data/ja-manpage.txt");

#[test]
fn an_edited_japanese_copy_finds_the_tagged_original() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = |name: &str| dir.path().join(name);
    let relay = RelayProcess::priorart(&path("db"));
    let key = path("alice.key");
    stdout(priorart().args(["key", "generate"]).arg(&key));
    std::fs::write(path("post.md"), JAPANESE).expect("writes");
    std::fs::write(path("copy.md"), crate::compare::every_fortieth_unspaced_letter_replaced(JAPANESE, 'ア'))
        .expect("writes");

    // Two kana or ideographs count as one word: the note is long enough
    // for fuzzy tags, which name simhash-doc-v2.
    let note = stdout(priorart().args(["event", "--kind", "1", "--key-file"]).arg(&key).arg(path("post.md")));
    let event: Value = serde_json::from_str(&note).expect("JSON");
    assert_eq!(fuzzy_tags(&event), 29, "{event}");
    let value_tag = event["tags"].as_array().unwrap().iter().find(|t| t[0] == "B" && t.get(2).is_some());
    assert_eq!(value_tag.expect("a value tag")[2], "simhash-doc-v2");
    let events = write_lines(dir.path(), "events.jsonl", &[note.trim().to_owned()]);
    stdout(priorart().args(["publish", "--relay", &relay.url]).arg(events));

    let out = priorart()
        .args(["check", "--json", "--relay", &relay.url, "--network", "regtest"])
        .arg(path("copy.md"))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let fuzzy = &report["fuzzy"];
    // The keys of both values: events tagged before simhash-doc-v2 are asked for too.
    assert!(fuzzy["keys"].as_u64().expect("keys") > 28, "{fuzzy}");
    let near = &fuzzy["near_copies"][0];
    assert_eq!(near["event_id"], event["id"], "{fuzzy}");
    assert!(near["jaccard"].as_f64().expect("jaccard") >= 0.5, "{near}");
    assert_eq!(near["fuzzy_tags"], "matches", "{near}");
}
