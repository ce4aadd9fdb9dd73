//! `priorart event` and `priorart attest` signing through a NIP-46 bunker:
//! testkit's `TestBunker` on a `priorart relay` child process (127.0.0.1).
//! The attestation a bunker signs goes through the regtest flow to a valid
//! `priorart verify`; a lying bunker is refused by name (exit 1); a silent
//! one times out within `--timeout`; the URI's secret is never printed.

use crate::nip_common;
use crate::relay_common;

use nip_common::{TEXT, peer, stdout};
use priorart_nip::nostr::prelude::Event;
use priorart_nip_testkit::{RegtestWorld, priorart};
use priorart_testkit::{Behaviour, TestBunker};
use relay_common::RelayProcess;
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

struct World {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    relay: RelayProcess,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_owned();
        let relay = RelayProcess::priorart(&path.join("relay-db"));
        std::fs::write(path.join("post.md"), TEXT).unwrap();
        World { _dir: dir, dir: path, relay }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// The URI's secret (its last query parameter).
fn secret(uri: &str) -> &str {
    uri.rsplit("secret=").next().unwrap()
}

/// Runs a signing command; (exit code, stdout, stderr), neither output
/// holding the bunker's secret.
fn run(cmd: &mut assert_cmd::Command, uri: &str) -> (Option<i32>, String, String) {
    let output = cmd.output().unwrap();
    let (out, err) = (String::from_utf8(output.stdout).unwrap(), String::from_utf8(output.stderr).unwrap());
    assert!(!out.contains(secret(uri)) && !err.contains(secret(uri)), "the secret was printed: {err}");
    (output.status.code(), out, err)
}

fn verified(json: &str) -> Event {
    let event = Event::from_json(json.trim()).expect("an event");
    event.verify().expect("id and signature verify");
    event
}

#[test]
fn event_and_attest_sign_through_the_bunker_and_the_attestation_verifies() {
    let world = World::new();
    let bunker = TestBunker::start(&world.relay.url, Behaviour::Honest);
    let uri = bunker.uri();
    let client_key = world.file("bunker-client.key");

    // First run: `connect` with the secret, the client key kept.
    let (code, content_event, err) = run(
        priorart()
            .args(["event", "--kind", "30023", "--d", "essay-1", "--bunker", &uri, "--bunker-client-key"])
            .arg(&client_key)
            .arg(world.file("post.md")),
        &uri,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("signing through the bunker as npub1"), "{err}");
    let event = verified(&content_event);
    assert_eq!(event.pubkey, bunker.user_public_key());
    assert_eq!(event.content, TEXT);
    assert!(client_key.exists());

    // Second run: the secret is spent, the kept client key resumes.
    let (code, attestation, err) = run(
        priorart()
            .args(["attest", "--kind", "30023", "--bunker", &uri, "--bunker-client-key"])
            .arg(&client_key)
            .arg(world.file("post.md")),
        &uri,
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(verified(&attestation).pubkey, bunker.user_public_key());
    assert_eq!(
        bunker.requests(),
        ["connect", "get_public_key", "sign_event", "get_public_key", "sign_event"]
    );
    // Without the kept key, a fresh client cannot reuse the secret.
    let (code, _, err) = run(priorart().args(["attest", "--bunker", &uri]).arg(world.file("post.md")), &uri);
    assert_eq!(code, Some(1));
    assert!(err.contains("this secret was already used"), "{err}");

    if peer::available() {
        assert_eq!(peer::verify(&[content_event, attestation.clone()]), vec![(true, None), (true, None)]);
    }

    // The regtest flow: timestamp, a block, upgrade, proof, verify: valid,
    // and the author is the bunker's user.
    let RegtestWorld { calendar, esplora, .. } = RegtestWorld::new();
    let attestation_file = world.file("attestation.json");
    std::fs::write(&attestation_file, &attestation).unwrap();
    stdout(priorart().args(["timestamp", "-m", "1", "--calendar", &calendar.url()]).arg(&attestation_file));
    let ots = world.file("attestation.json.ots");
    let height = calendar.mine_block().expect("a block");
    stdout(priorart().args(["ots", "upgrade", "--allow", &calendar.url()]).arg(&ots));
    let user = bunker.user_public_key().to_hex();
    let proof = stdout(
        priorart()
            .args(["proof", "--a", &format!("30023:{user}:essay-1"), "--ots"])
            .arg(&ots)
            .arg(&attestation_file),
    );
    std::fs::write(world.file("proof.json"), proof).unwrap();
    let report = stdout(
        priorart()
            .args(["verify", "--json", "--network", "regtest", "--esplora", &esplora.url(), "--header-cache"])
            .arg(world.file("headers"))
            .arg(world.file("proof.json")),
    );
    let report: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["verdict"], "valid", "{report}");
    assert_eq!(report["author"], user);
    assert_eq!(report["bitcoin"]["height"], height);
}

fn attest_with(
    world: &World,
    behaviour: Behaviour,
    timeout: &str,
) -> (Option<i32>, String, String, Duration) {
    let bunker = TestBunker::start(&world.relay.url, behaviour);
    let uri = bunker.uri();
    let started = Instant::now();
    let (code, out, err) = run(
        priorart().args(["attest", "--timeout", timeout, "--bunker", &uri]).arg(world.file("post.md")),
        &uri,
    );
    (code, out, err, started.elapsed())
}

#[test]
fn a_lying_bunker_is_refused_by_name_and_a_silent_one_times_out() {
    let world = World::new();
    let (code, out, err, _) = attest_with(&world, Behaviour::SignOther, "10");
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert!(
        err.contains("the bunker's signed event is refused: a different event than the one asked for: its content differs"),
        "{err}"
    );

    let (code, _, err, _) = attest_with(&world, Behaviour::BadSignature, "10");
    assert_eq!(code, Some(1));
    assert!(err.contains("signature does not verify"), "{err}");

    let (code, _, err, _) = attest_with(&world, Behaviour::OtherKey, "10");
    assert_eq!(code, Some(1));
    assert!(err.contains("not with the author's key"), "{err}");

    let (code, _, err, _) = attest_with(&world, Behaviour::Refuse("not now".into()), "10");
    assert_eq!(code, Some(1));
    assert!(err.contains("the bunker refused `sign_event`: not now"), "{err}");

    let (code, out, err, elapsed) = attest_with(&world, Behaviour::Silent, "1.5");
    assert_eq!((code, out.as_str()), (Some(1), ""));
    assert!(err.contains("the bunker did not answer `connect` within 1.5s"), "{err}");
    assert!(elapsed < Duration::from_secs(8), "{elapsed:?}");
}

#[test]
fn bunker_options_are_checked() {
    let world = World::new();
    let uri = format!("bunker://{}?relay={}&secret=hunter2", "11".repeat(32), world.relay.url);
    // A key and a bunker at once; a client key without a bunker.
    priorart().args(["attest", "--key-file", "k", "--bunker", &uri, "x"]).assert().code(2);
    priorart().args(["attest", "--bunker-client-key", "k", "x"]).assert().code(2);
    // A malformed URI is bad input, and its secret is not echoed.
    let bad = format!("bunker://nokey?relay={}&secret=hunter2", world.relay.url);
    let (code, _, err) = run(priorart().args(["attest", "--bunker", &bad]).arg(world.file("post.md")), &bad);
    assert_eq!(code, Some(1));
    assert!(err.contains("not a bunker URI"), "{err}");
}

/// tests/peer/bunker-client.mjs (nostr-tools' `BunkerSigner`) against
/// `uri`, as an ES module read from stdin so that nostr-tools resolves from
/// its install directory.
fn nostr_tools_client(uri: &str) -> Value {
    nip_common::run_node_module(include_str!("peer/bunker-client.mjs"), &[uri])
}

/// The test bunker speaks NIP-46 as nostr-tools' client does (so the tests
/// above are not our client agreeing with itself).
#[test]
fn nostr_tools_bunker_client_gets_a_signature_from_the_test_bunker() {
    if !peer::available() {
        return;
    }
    let world = World::new();
    let bunker = TestBunker::start(&world.relay.url, Behaviour::Honest);
    let answer = nostr_tools_client(&bunker.uri());
    let user = bunker.user_public_key().to_hex();
    assert_eq!(answer["pubkey"], user, "{answer}");
    assert_eq!(answer["valid"], true, "{answer}");
    let event = verified(&answer["event"].to_string());
    assert_eq!((event.pubkey.to_hex(), event.kind.as_u16()), (user, 1042));
    assert_eq!(bunker.requests(), ["connect", "get_public_key", "sign_event"]);
}

/// NDK's NIP-46 backend on `relay` as a child process; killed when dropped.
struct NdkSigner {
    child: std::process::Child,
    uri: String,
    pubkey: String,
}

impl NdkSigner {
    /// The signer, once it printed its URI; None when NDK is not installed
    /// (`.ci/setup.d/nip46.sh`), unless PRIORART_REQUIRE_PEERS=1.
    fn start(relay: &str) -> Option<NdkSigner> {
        use std::io::{BufRead, BufReader};
        use std::process::{Command, Stdio};
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peer/nip46-signer");
        let installed = dir.join("node_modules/@nostr-dev-kit/ndk").is_dir();
        if !priorart_testkit::peers::peer_available("NDK", installed, "run .ci/setup.d/nip46.sh") {
            return None;
        }
        let mut child = Command::new("node")
            .args(["--experimental-websocket", "--no-warnings", "ndk-signer.mjs", relay])
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs");
        let stdout = child.stdout.take().unwrap();
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        let line = receiver.recv_timeout(Duration::from_secs(30)).expect("the NDK signer starts");
        let ready: Value = serde_json::from_str(&line).expect("the signer's URI");
        let (uri, pubkey) =
            (ready["uri"].as_str().unwrap().to_owned(), ready["pubkey"].as_str().unwrap().to_owned());
        Some(NdkSigner { child, uri, pubkey })
    }
}

impl Drop for NdkSigner {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// priorart's client against a remote signer that is not ours.
#[test]
fn event_and_attest_sign_through_ndks_nip46_backend() {
    let world = World::new();
    let Some(signer) = NdkSigner::start(&world.relay.url) else { return };
    for command in [&["attest", "--kind", "1"][..], &["event", "--kind", "1"][..]] {
        let output = priorart()
            .args(command)
            .args(["--timeout", "20", "--bunker", &signer.uri])
            .arg(world.file("post.md"))
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let event = verified(std::str::from_utf8(&output.stdout).unwrap());
        assert_eq!(event.pubkey.to_hex(), signer.pubkey);
    }
}
