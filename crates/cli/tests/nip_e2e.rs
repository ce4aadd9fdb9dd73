//! End to end on a regtest chain, through the CLI only: key → content event → attest → timestamp through a loopback
//! calendar → the calendar mines a block → upgrade → proof → verify valid,
//! with the block height. Every signed event is cross-checked with
//! nostr-tools.

use crate::nip_common;

use assert_cmd::Command;
use nip_common::{TEXT, peer, stdout};
use priorart_nip_testkit::{RegtestWorld, priorart};
use priorart_testkit::{EsploraServer, TestCalendar};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Everything a test needs: a chain, its calendar and explorer, a key, files.
struct World {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    calendar: TestCalendar,
    esplora: EsploraServer,
    key: PathBuf,
}

impl World {
    fn new() -> World {
        let RegtestWorld { calendar, esplora, .. } = RegtestWorld::new();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_owned();
        let key = path.join("alice.key");
        stdout(priorart().args(["key", "generate"]).arg(&key));
        std::fs::write(path.join("post.md"), TEXT).unwrap();
        World { _dir: dir, dir: path, calendar, esplora, key }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn pubkey(&self) -> String {
        let public = stdout(priorart().args(["key", "public", "--json", "--key-file"]).arg(&self.key));
        serde_json::from_str::<Value>(&public).unwrap()["pubkey"].as_str().unwrap().to_owned()
    }

    /// `priorart attest` into attestation.json, then `priorart timestamp`.
    fn attest_and_stamp(&self) -> (String, PathBuf) {
        let attestation = stdout(
            priorart()
                .args(["attest", "--kind", "30023", "--key-file"])
                .arg(&self.key)
                .arg(self.file("post.md")),
        );
        std::fs::write(self.file("attestation.json"), &attestation).unwrap();
        let out = stdout(
            priorart()
                .args(["timestamp", "-m", "1", "--calendar", &self.calendar.url()])
                .arg(self.file("attestation.json")),
        );
        let ots = self.file("attestation.json.ots");
        assert!(out.ends_with(&format!("{}\n", ots.display())), "{out}");
        (attestation, ots)
    }

    fn verify(&self, event: &Path) -> Command {
        let mut cmd = priorart();
        cmd.args(["verify", "--network", "regtest", "--esplora", &self.esplora.url(), "--header-cache"])
            .arg(self.file("headers"))
            .arg(event);
        cmd
    }
}

/// `priorart ots upgrade`, allowed to contact the loopback calendar.
fn upgrade(ots: &Path, calendar: &TestCalendar) {
    stdout(priorart().args(["ots", "upgrade", "--allow", &calendar.url()]).arg(ots));
}

#[test]
fn key_event_attest_timestamp_upgrade_proof_verify() {
    let world = World::new();
    let pubkey = world.pubkey();
    let content_event = stdout(
        priorart()
            .args(["event", "--kind", "30023", "--d", "essay-1", "--key-file"])
            .arg(&world.key)
            .arg(world.file("post.md")),
    );
    let (attestation, ots) = world.attest_and_stamp();

    // Pending only: the NIP forbids publishing it, and `proof` says so.
    let coordinate = format!("30023:{pubkey}:essay-1");
    let pending = priorart()
        .args(["proof", "--a", &coordinate, "--ots"])
        .arg(&ots)
        .arg(world.file("attestation.json"))
        .output()
        .unwrap();
    assert_eq!(pending.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&pending.stderr).contains("upgrade"));

    let height = world.calendar.mine_block().expect("a block");
    upgrade(&ots, &world.calendar);

    let proof_output = priorart()
        .args(["proof", "--a", &coordinate, "--relay-hint", "wss://relay.example", "--key-file"])
        .arg(&world.key)
        .arg("--ots")
        .arg(&ots)
        .arg(world.file("attestation.json"))
        .output()
        .unwrap();
    assert!(proof_output.status.success(), "{}", String::from_utf8_lossy(&proof_output.stderr));
    assert!(String::from_utf8_lossy(&proof_output.stderr).contains("the attestation author's key"));
    let proof_event = String::from_utf8(proof_output.stdout).unwrap();
    std::fs::write(world.file("proof.json"), &proof_event).unwrap();

    let report = world.verify(&world.file("proof.json")).arg("--json").output().unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", String::from_utf8_lossy(&report.stdout));
    let report: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(report["verdict"], "valid");
    assert_eq!(report["bitcoin"]["height"], height);
    assert_eq!(report["author"], pubkey);
    // Nothing mined on top yet: the attested block's own work, 2 hashes at regtest's difficulty.
    let cost = &report["cost_to_forge"];
    assert_eq!((cost["blocks"].as_u64(), cost["complete"].as_bool()), (Some(0), Some(true)), "{report}");
    assert_eq!(cost["work_log2"], 1.0, "{report}");

    // The human report names the block; the plaintext check confirms X.
    let human = stdout(world.verify(&world.file("proof.json")).arg("--content").arg(world.file("post.md")));
    assert!(human.starts_with("verdict: VALID NIP-FF-3 proof"), "{human}");
    assert!(human.contains(&format!("block {height} ")), "{human}");
    assert!(human.contains("matches X"), "{human}");
    assert!(human.contains("forge cost:  2^1.0 hashes (0.01 days of the network's hash rate"), "{human}");
    // No headers to be had: the verdict is UNVERIFIED, and so is step 8, not FAIL.
    let unverified = priorart()
        .args([
            "verify",
            "--network",
            "regtest",
            "--esplora",
            "http://127.0.0.1:9",
            "--no-header-cache",
            "--timeout",
            "2",
        ])
        .arg(world.file("proof.json"))
        .output()
        .unwrap();
    assert_eq!(unverified.status.code(), Some(3));
    let human = String::from_utf8(unverified.stdout).unwrap();
    assert!(human.starts_with("verdict: UNVERIFIED"), "{human}");
    assert!(human.contains("  8 UNVERIFIED [proof_headers_unavailable]"), "{human}");
    assert!(!human.contains("FAIL"), "{human}");
    std::fs::write(world.file("other.md"), "Nothing like the original: a shopping list of eggs and flour.")
        .unwrap();
    let mismatch = world
        .verify(&world.file("proof.json"))
        .arg("--content")
        .arg(world.file("other.md"))
        .output()
        .unwrap();
    assert_eq!(mismatch.status.code(), Some(1));
    // The headline covers the whole command: a valid proof of another text is no "VALID".
    let human = String::from_utf8(mismatch.stdout).unwrap();
    assert!(
        human.starts_with("verdict: CONTENT DOES NOT MATCH: a valid NIP-FF-3 proof, but of another text"),
        "{human}"
    );
    assert!(human.contains("DOES NOT match X"), "{human}");

    if peer::available() {
        let answers = peer::verify(&[content_event, attestation, proof_event.clone()]);
        assert_eq!(answers, vec![(true, None), (true, None), (true, Some(true))]);
    }

    // A copy whose X is not the attested one fails with its named reason, exit 1.
    let mut tampered: Value = serde_json::from_str(&proof_event).unwrap();
    let other_x = priorart_fingerprint::minhash_equality_v1("a different text about ships and the sea");
    tampered["tags"][2][1] = Value::String(other_x.to_string());
    assert_eq!(tampered["tags"][2][0], "X");
    std::fs::write(world.file("tampered.json"), tampered.to_string()).unwrap();
    let out = world.verify(&world.file("tampered.json")).arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["steps"][4]["reason"], "x_mismatch", "{report}");
}

#[test]
fn the_e_form_signed_by_a_throwaway_key_verifies_too() {
    let world = World::new();
    let (_, ots) = world.attest_and_stamp();
    let height = world.calendar.mine_block().expect("a block");
    upgrade(&ots, &world.calendar);
    let note_id = "ab".repeat(32);
    let output = priorart()
        .args(["proof", "--e", &note_id, "--ots"])
        .arg(&ots)
        .arg(world.file("attestation.json"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("throwaway key"));
    let event: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_ne!(event["pubkey"], world.pubkey());
    assert_eq!(event["tags"][0], serde_json::json!(["e", note_id]));
    assert_eq!(event["tags"][1], serde_json::json!(["p", world.pubkey()]));
    std::fs::write(world.file("proof.json"), output.stdout).unwrap();
    let out = stdout(world.verify(&world.file("proof.json")).arg("--json"));
    let report: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (report["verdict"].clone(), report["bitcoin"]["height"].clone()),
        ("valid".into(), height.into())
    );
}

#[test]
fn an_attestation_given_to_verify_is_named_and_sent_to_priorart_proof() {
    let world = World::new();
    let attestation =
        stdout(priorart().args(["attest", "--key-file"]).arg(&world.key).arg(world.file("post.md")));
    std::fs::write(world.file("attestation.json"), attestation).unwrap();
    let out = world.verify(&world.file("attestation.json")).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let human = String::from_utf8(out.stdout).unwrap();
    assert!(
        human.starts_with("verdict: NOT A PROOF: this is a kind 1042 attestation, not a proof"),
        "{human}"
    );
    assert!(human.contains("build the proof with `priorart proof`"), "{human}");
    // The steps the wrong kind skipped are one line, not seven.
    assert_eq!(human.lines().filter(|line| line.contains(" skip ")).count(), 1, "{human}");
    assert!(human.contains("  2-8 skip  "), "{human}");
    let report: Value = serde_json::from_slice(
        &world.verify(&world.file("attestation.json")).arg("--json").output().unwrap().stdout,
    )
    .unwrap();
    assert_eq!(report["steps"][0]["reason"], "wrong_kind");
    assert!(
        report["steps"][0]["detail"].as_str().unwrap().contains("a NIP-FF-3 attestation, not a proof"),
        "{report}"
    );
}

#[test]
fn verify_help_states_the_exit_codes_the_code_uses() {
    // exit.rs: unreadable input is BAD_INPUT (1), a usage error 2, unverified 3.
    let help = stdout(priorart().args(["verify", "--help"]));
    assert!(
        help.contains(
            "1 invalid, not a NIP-FF-3 proof, --content that does not match X, or unreadable input"
        ),
        "{help}"
    );
    assert!(help.contains("2 usage error; 3 unverified"), "{help}");
    let help = stdout(priorart().args(["ots", "verify", "--help"]));
    assert!(help.contains("or unreadable input; 2 usage error; 3 unverified"), "{help}");
}

#[test]
fn verify_exit_codes_for_bad_input_and_usage() {
    let world = World::new();
    // An unreadable file is bad input (1), as in `ots verify`, not a usage error.
    world.verify(&world.file("missing.json")).assert().code(1);
    std::fs::write(world.file("garbage.json"), "{ not json").unwrap();
    world.verify(&world.file("garbage.json")).assert().code(1);
    priorart().args(["verify", "--network", "testnet4", "x.json"]).assert().code(2);
    // --a and --e are exclusive, one is required.
    priorart().args(["proof", "a.json", "--ots", "a.ots"]).assert().code(2);
}
