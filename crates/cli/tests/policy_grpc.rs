//! `priorart policy grpc` through nostr-rs-relay's event admission protocol:
//! the real binary, asked by a Python grpcio client generated from the same
//! proto (tests/peer/nauthz_client.py; .ci/setup.d/grpc.sh installs
//! grpcio and grpcio-tools).

use crate::policy_common::{
    GrpcPolicy, TEXT, cache_headers, forged_proof_event, keys, note, policy_file, proof_event,
};
use priorart_nip::nostr::prelude::*;
use priorart_testkit::{LoopbackServer, RegtestChain};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn grpcio_installed() -> bool {
    let probe =
        Command::new("python3").args(["-c", "import grpc, grpc_tools"]).stderr(Stdio::null()).status();
    let installed = probe.is_ok_and(|status| status.success());
    priorart_testkit::peers::peer_available("Python grpcio", installed, "run .ci/setup.d/grpc.sh")
}

/// The Python client of one test: its generated code kept in `dir`.
struct Client {
    generated: PathBuf,
}

impl Client {
    fn new(dir: &Path) -> Client {
        Client { generated: dir.join("nauthz-python") }
    }

    /// Sends each request in turn; one reply (or `{"error": …}`) each.
    fn ask(&self, server: &GrpcPolicy, requests: &[Value]) -> Vec<Value> {
        self.ask_timed(server, requests).into_iter().map(|(reply, _)| reply).collect()
    }

    /// [`Client::ask`], with the time each call took as the client saw it.
    fn ask_timed(&self, server: &GrpcPolicy, requests: &[Value]) -> Vec<(Value, Duration)> {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut child = Command::new("python3")
            .arg(manifest.join("tests/peer/nauthz_client.py"))
            .arg(&server.address)
            .arg(manifest.join("../policy-grpc/proto/nauthz.proto"))
            .arg(&self.generated)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs");
        let mut stdin = child.stdin.take().expect("stdin");
        for request in requests {
            writeln!(stdin, "{request}").expect("the client reads");
        }
        drop(stdin);
        let output = child.wait_with_output().expect("the client ends");
        assert!(output.status.success(), "the client failed: {}", output.status);
        let replies: Vec<(Value, Duration)> = String::from_utf8(output.stdout)
            .expect("UTF-8")
            .lines()
            .map(|line| {
                let mut reply: Value = serde_json::from_str(line).expect("JSON");
                let seconds = reply.as_object_mut().and_then(|reply| reply.remove("seconds"));
                (reply, Duration::from_secs_f64(seconds.and_then(|s| s.as_f64()).expect("seconds")))
            })
            .collect();
        assert_eq!(replies.len(), requests.len(), "{replies:?}");
        replies
    }

    fn ask_about(&self, server: &GrpcPolicy, events: &[&Event]) -> Vec<Value> {
        self.ask(server, &events.iter().map(|event| event_request(event)).collect::<Vec<_>>())
    }
}

fn event_request(event: &Event) -> Value {
    json!({"event": serde_json::from_str::<Value>(&priorart_nip::to_json(event)).expect("JSON")})
}

fn permit() -> Value {
    json!({"decision": "DECISION_PERMIT", "message": null})
}

fn deny(message: &str) -> Value {
    json!({"decision": "DECISION_DENY", "message": message})
}

#[test]
fn notes_x_tags_and_proofs_are_permitted_or_denied_with_their_reason() {
    if !grpcio_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let mut chain = RegtestChain::new();
    let proof = proof_event(&mut chain, &keys(0x11));
    cache_headers(&chain, &dir.path().join("headers"));
    let server = GrpcPolicy::start(&policy_file(dir.path(), &dir.path().join("headers"), ""));
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let plain = note(&keys(1), "hello", &[]);
    let honest = note(&keys(1), TEXT, &[&["X", &x, "minhash-equality-v1"]]);
    let liar = note(&keys(1), "A different text", &[&["X", &x, "minhash-equality-v1"]]);
    let forged = forged_proof_event(&proof);
    let replies = Client::new(dir.path()).ask_about(&server, &[&plain, &honest, &liar, &proof, &forged]);
    assert_eq!(replies, [permit(), permit(), deny("x_mismatch"), permit(), deny("proof_for_other_digest")]);
}

#[test]
fn a_flood_is_denied_since_nostr_rs_relay_has_no_shadow_reject() {
    if !grpcio_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let extra = "[flood]\nevents = 5\nauthors = 3\nseconds = 600";
    let server = GrpcPolicy::start(&policy_file(dir.path(), &dir.path().join("headers"), extra));
    let spam = "Claim your free tokens today, only a few hours left, visit the link in my profile now";
    let notes: Vec<Event> = (0..8u8).map(|n| note(&keys(n + 1), &format!("{spam} #{n}"), &[])).collect();
    let replies = Client::new(dir.path()).ask_about(&server, &notes.iter().collect::<Vec<_>>());
    assert_eq!(replies[..5], [permit(), permit(), permit(), permit(), permit()]);
    assert_eq!(
        replies[5..],
        [deny("near_duplicate_flood"), deny("near_duplicate_flood"), deny("near_duplicate_flood")]
    );
}

#[test]
fn malformed_requests_are_denied_with_a_reason_and_the_server_goes_on() {
    if !grpcio_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let server = GrpcPolicy::start(&policy_file(dir.path(), &dir.path().join("headers"), ""));
    let good = event_request(&note(&keys(1), "hello", &[]));
    let with = |field: &str, value: Value| {
        let mut request = good.clone();
        request["event"][field] = value;
        request
    };
    let replies = Client::new(dir.path()).ask(
        &server,
        &[
            with("id", json!("ab".repeat(31))),
            with("sig", json!("")),
            with("kind", json!(70_000)),
            with("tags", json!([[]])),
            json!({"no_event": true}),
            // Not protobuf: tonic cannot decode it, an error status.
            json!({"raw_hex": "ffffffffffffffffff"}),
            good.clone(),
        ],
    );
    assert_eq!(
        replies,
        [
            deny("invalid: `id` is not 32 bytes"),
            deny("invalid: `sig` is not 64 bytes"),
            deny("invalid: `kind` is not an integer from 0 to 65535"),
            deny("invalid: a tag is empty"),
            deny("invalid: not a nostr event: the request has no event"),
            json!({"error": "INTERNAL"}),
            permit(),
        ]
    );
}

#[test]
fn a_hanging_esplora_makes_the_proof_unverified_after_the_timeout() {
    if !grpcio_installed() {
        return;
    }
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
    let server = GrpcPolicy::start(&path);
    let mut chain = RegtestChain::new();
    let proof = proof_event(&mut chain, &keys(0x11));
    // Timed by the client, call by call: Python's start-up is not the server's.
    let replies = Client::new(dir.path()).ask_timed(&server, &[event_request(&proof)]);
    let (reply, took) = &replies[0];
    assert_eq!(*reply, deny("proof_headers_unavailable"));
    assert!(*took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn a_changed_policy_file_is_read_again() {
    if !grpcio_installed() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("headers");
    let path = policy_file(dir.path(), &cache, "");
    let server = GrpcPolicy::start(&path);
    let client = Client::new(dir.path());
    let x = priorart_fingerprint::minhash_equality_v1(TEXT).to_string();
    let liar = note(&keys(1), "A different text", &[&["X", &x, "minhash-equality-v1"]]);
    assert_eq!(client.ask_about(&server, &[&liar]), [deny("x_mismatch")]);
    policy_file(dir.path(), &cache, "[x_tag]\nmismatch = \"accept\"");
    let deadline = Instant::now() + Duration::from_secs(30);
    while client.ask_about(&server, &[&liar]) != [permit()] {
        assert!(Instant::now() < deadline, "the changed policy was never read");
        std::thread::sleep(Duration::from_millis(200));
    }
}
