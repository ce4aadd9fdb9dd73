//! Relays and clients we did not write: npm nostr-tools publishes to and
//! queries `priorart relay`; `priorart publish` and `check` talk to PyPI
//! nostr-relay and (when built: it is an opt-in peer) nostr-rs-relay.
//! Installed by `.ci/setup.d/nip.sh` and `.ci/setup.d/relay.sh`.

use crate::nip_common;
use crate::policy_common;
use crate::relay_common;

use nip_common::{peer, stdout};
use priorart_nip::nostr::prelude::{EventBuilder, FinalizeEvent, Keys, Kind, Tag, Timestamp};
use priorart_nip_testkit::priorart;
use relay_common::{RelayProcess, peer_on_path, write_lines};
use serde_json::Value;
use std::path::Path;

/// A signed note with an `X` tag, as one JSON line.
fn note(keys: &Keys, x: &str, text: &str, created_at: u64) -> String {
    let event = EventBuilder::new(Kind::from_u16(1), text)
        .tag(Tag::parse(["X", x, "minhash-equality-v1"]).unwrap())
        .custom_created_at(Timestamp::from_secs(created_at))
        .finalize(keys)
        .unwrap();
    priorart_nip::to_json(&event)
}

fn check_json(relay: &str, x: &str) -> Value {
    let out = stdout(
        priorart()
            .args(["check", "--json", "--no-header-cache", "--esplora", "http://127.0.0.1:9", "--x", x])
            .args(["--relay", relay]),
    );
    serde_json::from_str(&out).unwrap()
}

fn content_ids(report: &Value) -> Vec<String> {
    let mut ids: Vec<String> = report["content_events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["event_id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// tests/peer/relay-roundtrip.mjs against `relay`.
fn nostr_tools_roundtrip(relay: &str, x: &str) -> Value {
    nip_common::run_node_module(include_str!("peer/relay-roundtrip.mjs"), &[relay, x])
}

#[test]
fn nostr_tools_publishes_to_and_queries_priorart_relay() {
    if !peer::available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let relay = RelayProcess::priorart(&dir.path().join("db"));
    let x = "7c".repeat(32);
    let ours = note(&Keys::generate(), &x, "published by priorart", 1_700_000_000);
    stdout(priorart().args(["publish", "--relay", &relay.url]).arg(write_lines(
        dir.path(),
        "ours.json",
        std::slice::from_ref(&ours),
    )));

    let answer = nostr_tools_roundtrip(&relay.url, &x);
    assert_eq!(answer["accepted"], true, "{answer}");
    let ours_id = serde_json::from_str::<Value>(&ours).unwrap()["id"].as_str().unwrap().to_owned();
    let theirs_id = answer["published"].as_str().unwrap().to_owned();
    let mut received: Vec<String> =
        answer["received"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_owned()).collect();
    received.sort();
    let mut both = vec![ours_id, theirs_id];
    both.sort();
    assert_eq!(received, both, "nostr-tools gets both events back");
    assert!(answer["received"].as_array().unwrap().iter().all(|e| e["valid"] == true));
    assert_eq!(content_ids(&check_json(&relay.url, &x)), both, "and priorart sees nostr-tools' event");
}

/// Two authors' notes published to `relay`, then found by `check`, earliest first.
fn publish_and_check(dir: &Path, relay: &str) {
    let x = "3d".repeat(32);
    let (first, second) = (Keys::generate(), Keys::generate());
    let now = Timestamp::now().as_secs();
    let events = [note(&first, &x, "the first note", now - 60), note(&second, &x, "a later note", now - 30)];
    let file = write_lines(dir, "notes.jsonl", &events);
    let published: Value =
        serde_json::from_str(&stdout(priorart().args(["publish", "--json", "--relay", relay]).arg(&file)))
            .unwrap();
    assert_eq!(published["ok"], true, "{published}");
    assert!(published["events"].as_array().unwrap().iter().all(|e| e["relays"][0]["status"] == "accepted"));
    let again: Value =
        serde_json::from_str(&stdout(priorart().args(["publish", "--json", "--relay", relay]).arg(&file)))
            .unwrap();
    assert_eq!(again["ok"], true, "a duplicate is still on the relay: {again}");

    let report = check_json(relay, &x);
    assert_eq!(report["relays"][0]["ending"]["status"], "eose", "{report}");
    assert_eq!(report["relays"][0]["skipped"], serde_json::json!([]));
    assert_eq!(report["content_events"].as_array().unwrap().len(), 2);
    assert_eq!(report["verdict"]["status"], "unproven");
    assert_eq!(report["verdict"]["earliest"]["author"], first.public_key().to_hex());
    assert_eq!(report["verdict"]["other_authors"], 1);
}

#[test]
fn publish_and_check_against_pypi_nostr_relay() {
    if !peer_on_path("nostr-relay", "PRIORART_REQUIRE_PEERS", "run .ci/setup.d/relay.sh") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let relay = relay_common::python_relay(dir.path());
    publish_and_check(dir.path(), &relay.url);
}

#[test]
fn publish_and_check_against_nostr_rs_relay() {
    let install = "PRIORART_BUILD_NOSTR_RS_RELAY=1 bash .ci/setup.d/relay.sh";
    if !peer_on_path("nostr-rs-relay", "PRIORART_REQUIRE_NOSTR_RS_RELAY", install) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let relay = relay_common::nostr_rs_relay(dir.path());
    publish_and_check(dir.path(), &relay.url);
}

/// nostr-rs-relay asking `priorart policy grpc` about every event (its
/// `[grpc] event_admission_server`): what the policy denies is refused with
/// its reason and never stored; `check` finds only the rest.
#[test]
fn nostr_rs_relay_admits_only_what_priorart_policy_grpc_permits() {
    use policy_common::{
        GrpcPolicy, TEXT, cache_headers, forged_proof_event, keys, policy_file, proof_event,
    };
    let install = "PRIORART_BUILD_NOSTR_RS_RELAY=1 bash .ci/setup.d/relay.sh";
    if !peer_on_path("nostr-rs-relay", "PRIORART_REQUIRE_NOSTR_RS_RELAY", install) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let headers = dir.path().join("headers");
    let mut chain = priorart_testkit::RegtestChain::new();
    let proof = proof_event(&mut chain, &keys(0x11));
    cache_headers(&chain, &headers);
    let policy = GrpcPolicy::start(&policy_file(dir.path(), &headers, ""));
    let relay_dir = dir.path().join("relay");
    std::fs::create_dir(&relay_dir).unwrap();
    let grpc = format!("[grpc]\nevent_admission_server = \"http://{}\"\n", policy.address);
    let relay = relay_common::nostr_rs_relay_with(&relay_dir, &grpc);

    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let now = Timestamp::now().as_secs();
    let author = Keys::generate();
    let events = [
        note(&author, &x, TEXT, now - 60),
        note(&author, &x, "Not the text this X names", now - 30),
        priorart_nip::to_json(&proof),
        priorart_nip::to_json(&forged_proof_event(&proof)),
    ];
    let file = write_lines(dir.path(), "events.jsonl", &events);
    // Exit 1: not every event is stored (two are refused, as they must be).
    let output = priorart().args(["publish", "--json", "--relay", &relay.url]).arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let published: Value = serde_json::from_slice(&output.stdout).unwrap();
    let answers: Vec<(&str, &str)> = published["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (e["relays"][0]["status"].as_str().unwrap(), e["relays"][0]["message"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(answers[0].0, "accepted", "{published}");
    assert_eq!(answers[1], ("rejected", "blocked: x_mismatch"), "{published}");
    assert_eq!(answers[2].0, "accepted", "{published}");
    assert_eq!(answers[3], ("rejected", "blocked: proof_for_other_digest"), "{published}");

    let out = stdout(
        priorart()
            .args(["check", "--json", "--network", "regtest", "--header-cache"])
            .arg(&headers)
            .args(["--x", &x, "--relay", &relay.url]),
    );
    let report: Value = serde_json::from_str(&out).unwrap();
    let honest_id = serde_json::from_str::<Value>(&events[0]).unwrap()["id"].as_str().unwrap().to_owned();
    assert_eq!(content_ids(&report), [honest_id], "{report}");
    let proofs: Vec<&str> =
        report["proofs"].as_array().unwrap().iter().map(|p| p["event_id"].as_str().unwrap()).collect();
    assert_eq!(proofs, [proof.id.to_hex()], "{report}");
    assert_eq!(report["refused"], serde_json::json!([]), "the forged proof was not stored: {report}");
}
