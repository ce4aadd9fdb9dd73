//! `priorart policy strfry` through strfry's plugin protocol: the real
//! binary as strfry runs it, a request line written to its stdin, its
//! answer line read from its stdout.

use crate::policy_common::{
    RECEIVED_AT, TEXT, cache_headers, forged_proof_event, keys, note, policy_file, proof_event,
};
use priorart_nip::nostr::prelude::*;
use priorart_nip_testkit::priorart_binary;
use priorart_testkit::{LoopbackServer, RegtestChain};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// Generous: a debug build on a busy machine.
const ANSWER_DEADLINE: Duration = Duration::from_secs(20);

/// The plugin, running as strfry runs it.
struct Plugin {
    child: Child,
    stdin: ChildStdin,
    answers: Receiver<String>,
}

impl Plugin {
    fn start(config: &Path) -> Plugin {
        let mut child = Command::new(priorart_binary())
            .args(["policy", "strfry", "--config"])
            .arg(config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, answers) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Plugin { child, stdin, answers }
    }

    fn send_line(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the plugin reads");
        self.stdin.flush().expect("the plugin reads");
    }

    fn next_answer(&self) -> Value {
        let line = self.answers.recv_timeout(ANSWER_DEADLINE).expect("an answer line in time");
        serde_json::from_str(&line).expect("the answer is JSON")
    }

    /// Sends one `new` request and returns its answer, checking it is for
    /// this event and has only the protocol's members.
    fn decide(&mut self, event: &Event) -> Value {
        self.decide_at(event, RECEIVED_AT)
    }

    fn decide_at(&mut self, event: &Event, received_at: u64) -> Value {
        let request = json!({
            "type": "new",
            "event": serde_json::from_str::<Value>(&priorart_nip::to_json(event)).expect("event JSON"),
            "receivedAt": received_at,
            "sourceType": "IP4",
            "sourceInfo": "127.0.0.1",
        });
        self.send_line(&request.to_string());
        let answer = self.next_answer();
        assert_eq!(answer["id"], event.id.to_hex(), "{answer}");
        let mut members: Vec<&str> = answer.as_object().expect("object").keys().map(String::as_str).collect();
        members.sort_unstable();
        assert_eq!(members, ["action", "id", "msg"]);
        answer
    }
}

impl Drop for Plugin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn notes_x_tags_and_proofs_are_decided_as_the_policy_says() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut chain = RegtestChain::new();
    let proof = proof_event(&mut chain, &keys(0x11));
    cache_headers(&chain, &dir.path().join("headers"));
    let mut plugin = Plugin::start(&policy_file(dir.path(), &dir.path().join("headers"), ""));

    let plain = plugin.decide(&note(&keys(1), "hello", &[]));
    assert_eq!((plain["action"].as_str(), plain["msg"].as_str()), (Some("accept"), Some("")));

    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let honest = plugin.decide(&note(&keys(1), TEXT, &[&["X", &x, "minhash-equality-v1"]]));
    assert_eq!(honest["action"], "accept");
    let liar = plugin.decide(&note(&keys(1), "A different text", &[&["X", &x, "minhash-equality-v1"]]));
    assert_eq!(
        (liar["action"].as_str(), liar["msg"].as_str()),
        (Some("reject"), Some("blocked: x_mismatch"))
    );

    assert_eq!(plugin.decide(&proof)["action"], "accept");
    let refused = plugin.decide(&forged_proof_event(&proof));
    assert_eq!(refused["action"], "reject", "{refused}");
    assert_eq!(refused["msg"], "blocked: proof_for_other_digest", "{refused}");
}

#[test]
fn a_flood_of_near_identical_notes_from_many_keys_is_shadow_rejected_but_allow_listed_keys_pass() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trusted = keys(200);
    let extra = format!(
        "allow = [\"{}\"]\n[flood]\nevents = 5\nauthors = 3\nseconds = 60",
        trusted.public_key().to_hex()
    );
    let mut plugin = Plugin::start(&policy_file(dir.path(), &dir.path().join("headers"), &extra));
    let spam = "Claim your free tokens today, only a few hours left, visit the link in my profile now";
    let actions: Vec<String> = (0..10u8)
        .map(|n| {
            plugin.decide_at(&note(&keys(n + 1), &format!("{spam} #{n}"), &[]), RECEIVED_AT + u64::from(n))
        })
        .map(|answer| answer["action"].as_str().expect("action").to_owned())
        .collect();
    assert_eq!(&actions[..5], ["accept"; 5]);
    assert_eq!(&actions[5..], ["shadowReject"; 5]);
    assert_eq!(plugin.decide_at(&note(&trusted, spam, &[]), RECEIVED_AT + 11)["action"], "accept");
    let unrelated = "Notes from the garden: the tomatoes are late this year but the beans are doing well";
    assert_eq!(plugin.decide_at(&note(&keys(77), unrelated, &[]), RECEIVED_AT + 12)["action"], "accept");
}

#[test]
fn malformed_lines_are_answered_and_the_plugin_goes_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut plugin = Plugin::start(&policy_file(dir.path(), &dir.path().join("headers"), ""));
    for (line, id) in [
        ("this is not JSON", ""),
        (r#"{"type":"new","event":{"id":"abcd","kind":1},"receivedAt":1}"#, "abcd"),
        (r#"{"type":"new","receivedAt":1}"#, ""),
        ("[1,2,3]", ""),
        ("\u{1F600}\u{0}{", ""),
    ] {
        plugin.send_line(line);
        let answer = plugin.next_answer();
        assert_eq!(answer["id"], id, "{line}: {answer}");
        assert_eq!(answer["action"], "reject", "{line}: {answer}");
        assert!(answer["msg"].as_str().expect("msg").starts_with("invalid: "), "{line}: {answer}");
    }
    // Not answered (strfry expects no answer to other types): the next
    // answer is the next request's.
    plugin.send_line(r#"{"type":"someFutureType","event":{"id":"ffff"}}"#);
    assert_eq!(plugin.decide(&note(&keys(1), "still here", &[]))["action"], "accept");
}

#[test]
fn requests_sent_back_to_back_are_all_answered_without_waiting_for_more_input() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut plugin = Plugin::start(&policy_file(dir.path(), &dir.path().join("headers"), ""));
    let notes: Vec<Event> = (0..50u8).map(|n| note(&keys(n + 1), &format!("note number {n}"), &[])).collect();
    let mut batch = String::new();
    for event in &notes {
        let event = serde_json::from_str::<Value>(&priorart_nip::to_json(event)).expect("event JSON");
        let request = json!({"type": "new", "event": event, "receivedAt": RECEIVED_AT,
                             "sourceType": "IP4", "sourceInfo": "127.0.0.1"});
        batch += &format!("{request}\n");
    }
    // The answers the plugin holds back while requests wait must all come
    // out when the last line it can read gets no answer: a blank line, then
    // a request of another type. stdin stays open.
    batch += "\n{\"type\":\"someFutureType\",\"event\":{\"id\":\"ffff\"}}\n";
    plugin.stdin.write_all(batch.as_bytes()).expect("the plugin reads");
    plugin.stdin.flush().expect("the plugin reads");
    for event in &notes {
        let answer = plugin.next_answer();
        assert_eq!(
            (answer["id"].as_str(), answer["action"].as_str()),
            (Some(&*event.id.to_hex()), Some("accept"))
        );
    }
    assert_eq!(plugin.decide(&note(&keys(1), "and one more", &[]))["action"], "accept");
}

#[test]
fn a_hanging_header_source_makes_the_proof_unverified_after_the_timeout() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hanging = LoopbackServer::start(|_, _, _| {
        std::thread::sleep(Duration::from_secs(30));
        (404, Vec::new())
    });
    let path = dir.path().join("policy.toml");
    let text = format!(
        "[proofs]\nnetwork = \"regtest\"\nunverified = \"reject\"\ntimeout_seconds = 0.5\nesplora = \"{}\"\nheader_cache = {:?}\n",
        hanging.url(),
        dir.path().join("headers").display().to_string()
    );
    std::fs::write(&path, text).expect("writes");
    let mut plugin = Plugin::start(&path);
    let mut chain = RegtestChain::new();
    let started = Instant::now();
    let answer = plugin.decide(&proof_event(&mut chain, &keys(0x11)));
    assert_eq!(answer["msg"], "blocked: proof_headers_unavailable", "{answer}");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
}

#[test]
fn a_changed_policy_file_is_read_again() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("headers");
    let path = policy_file(dir.path(), &cache, "");
    let mut plugin = Plugin::start(&path);
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let liar = note(&keys(1), "A different text", &[&["X", &x, "minhash-equality-v1"]]);
    assert_eq!(plugin.decide(&liar)["action"], "reject");
    policy_file(dir.path(), &cache, "[x_tag]\nmismatch = \"accept\"");
    let deadline = Instant::now() + ANSWER_DEADLINE;
    while plugin.decide(&liar)["action"] == "reject" {
        assert!(Instant::now() < deadline, "the changed policy was never read");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_broken_policy_file_is_named_once_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("policy.toml");
    std::fs::write(&config, "x = [\n").unwrap();
    let commands: [&[&str]; 3] = [
        &["policy", "strfry", "--config"],
        &["policy", "grpc", "--listen", "127.0.0.1:0", "--config"],
        &["relay", "--listen", "127.0.0.1:0", "--policy"],
    ];
    for args in commands {
        let output = Command::new(priorart_binary())
            .args(args)
            .arg(&config)
            .args(["--db"].iter().filter(|_| args[0] == "relay"))
            .args([dir.path().join("db")].iter().filter(|_| args[0] == "relay"))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.matches("TOML parse error").count(), 1, "{args:?}: said once: {stderr}");
    }
}
