//! `priorart relay --policy FILE`: the write policy in the embedded relay,
//! through `priorart publish` and `priorart check`.

use crate::relay_common;

use priorart_nip::nostr::prelude::*;
use priorart_nip_testkit::priorart;
use relay_common::{RelayProcess, write_lines};
use serde_json::Value;

const TEXT: &str = "The quick brown fox jumps over the lazy dog near the riverbank, \
    then naps under the willow while the farmer counts his sheep twice.";

fn note(author: &Keys, text: &str, x: &str) -> String {
    let event = EventBuilder::new(Kind::TextNote, text)
        .tag(Tag::parse(["X", x, "minhash-equality-v1"]).expect("tag"))
        .finalize(author)
        .expect("signs");
    priorart_nip::to_json(&event)
}

fn run_json(args: &[&str]) -> Value {
    let output = priorart().args(args).output().expect("runs");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{args:?}: {err}: {}", String::from_utf8_lossy(&output.stderr)))
}

#[test]
fn the_relay_refuses_what_its_policy_refuses_and_check_finds_only_the_rest() {
    let dir = tempfile::tempdir().expect("temp dir");
    let policy = dir.path().join("policy.toml");
    let headers = dir.path().join("headers");
    std::fs::write(
        &policy,
        format!("[proofs]\nnetwork = \"regtest\"\nheader_cache = {:?}\n", headers.display().to_string()),
    )
    .expect("writes");
    let relay =
        RelayProcess::priorart_with(&dir.path().join("db"), &["--policy".as_ref(), policy.as_os_str()]);

    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let honest = note(&Keys::generate(), TEXT, &x);
    let liar = note(&Keys::generate(), "Not the text that this X tag names, at all", &x);
    let file = write_lines(dir.path(), "events.jsonl", &[honest.clone(), liar.clone()]);
    let published =
        run_json(&["publish", "--json", "--relay", &relay.url, file.to_str().expect("UTF-8 path")]);
    let answers: Vec<&Value> =
        published["events"].as_array().expect("events").iter().map(|e| &e["relays"][0]).collect();
    assert_eq!(answers[0]["status"], "accepted", "{published}");
    assert_eq!(answers[1]["status"], "rejected", "{published}");
    assert_eq!(answers[1]["message"], "blocked: x_mismatch", "{published}");

    let checked = run_json(&[
        "check",
        "--x",
        &x,
        "--relay",
        &relay.url,
        "--json",
        "--network",
        "regtest",
        "--header-cache",
        headers.to_str().expect("UTF-8 path"),
    ]);
    let found: Vec<&str> = checked["content_events"]
        .as_array()
        .expect("content events")
        .iter()
        .map(|e| e["event_id"].as_str().expect("id"))
        .collect();
    let honest_id =
        serde_json::from_str::<Value>(&honest).expect("JSON")["id"].as_str().expect("id").to_owned();
    assert_eq!(found, [honest_id.as_str()], "{checked}");
}

#[test]
fn a_changed_policy_file_is_read_again_without_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let policy = dir.path().join("policy.toml");
    std::fs::write(&policy, "[proofs]\nverify = false\n").expect("writes");
    let relay =
        RelayProcess::priorart_with(&dir.path().join("db"), &["--policy".as_ref(), policy.as_os_str()]);
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    // A new lie each time: the relay answers a stored event as a duplicate.
    let publish_lie = |n: u32| {
        let liar = note(&Keys::generate(), &format!("Not the text that this X tag names, take {n}"), &x);
        let file = write_lines(dir.path(), "liar.jsonl", &[liar]);
        let published =
            run_json(&["publish", "--json", "--relay", &relay.url, file.to_str().expect("UTF-8 path")]);
        published["events"][0]["relays"][0].clone()
    };
    assert_eq!(publish_lie(0)["message"], "blocked: x_mismatch");

    std::fs::write(&policy, "[proofs]\nverify = false\n[x_tag]\nmismatch = \"accept\"\n").expect("writes");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    for n in 1.. {
        let answer = publish_lie(n);
        if answer["status"] == "accepted" {
            break;
        }
        assert_eq!(answer["message"], "blocked: x_mismatch", "{answer}");
        assert!(std::time::Instant::now() < deadline, "the changed policy was never read");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}
