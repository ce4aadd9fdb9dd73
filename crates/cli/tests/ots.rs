//! `priorart ots …` end to end: real fixtures, loopback calendars and
//! Esplora servers, a regtest chain mined in the test.

use assert_cmd::Command;
use priorart_ots::bitcoin::hashes::Hash;
use priorart_ots::{DetachedTimestamp, header_from_hex};
use priorart_testkit::{Behavior, EsploraServer, LoopbackServer, RegtestChain, TestCalendar};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ots/tests/data")
}

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().unwrap();
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn info_prints_what_the_reference_prints() {
    for name in
        ["hello-world.txt.ots", "different-blockchains.txt.ots", "unknown-notary.txt.ots", "sha1/a-or-b.ots"]
    {
        let path = data().join(name);
        let Ok(expected) = std::fs::read_to_string(format!("{}.info.txt", path.display())) else { continue };
        priorart().args(["ots", "info"]).arg(&path).assert().success().stdout(expected);
    }
    let json = stdout_of(priorart().args(["ots", "info", "--json"]).arg(data().join("hello-world.txt.ots")));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["file_digest"], "03ba204e50d126e4674c005e04d82e84c21366780af1f43bd54a37816b6ab340");
    priorart().args(["ots", "info"]).arg(data().join("invalid/exceeds-max-msg-length.ots")).assert().code(1);
}

fn real_header_entry(
    height: u64,
) -> (u64, priorart_ots::bitcoin::BlockHash, priorart_ots::bitcoin::block::Header) {
    let text = std::fs::read_to_string(data().join(format!("headers/{height}.hex"))).unwrap();
    let header = header_from_hex(&text).unwrap();
    (height, header.block_hash(), header)
}

#[test]
fn verify_against_an_honest_and_a_lying_explorer() {
    let honest = EsploraServer::from_headers(vec![real_header_entry(358391)]);
    let run = |server: &EsploraServer, proof: &str| {
        let mut command = priorart();
        command
            .args(["ots", "verify", "--no-header-cache", "--esplora", &server.url()])
            .arg(data().join(proof));
        command.assert()
    };
    run(&honest, "hello-world.txt.ots").success().stdout(predicates::str::contains("Bitcoin block 358391"));
    run(&honest, "bad-stamp.txt.ots").code(1).stderr(predicates::str::contains("merkle root"));

    // A header made up to match bad-stamp's merkle root.
    let bad =
        DetachedTimestamp::from_bytes(&std::fs::read(data().join("bad-stamp.txt.ots")).unwrap()).unwrap();
    let (_, real_hash, mut forged) = real_header_entry(358391);
    forged.merkle_root =
        priorart_ots::bitcoin::TxMerkleNode::from_slice(&bad.attestations()[0].commitment).unwrap();
    let liar = EsploraServer::from_headers(vec![(358391, forged.block_hash(), forged)]);
    // A header failing its own checks blames the source, not the proof:
    // unverified (exit 3), never invalid.
    run(&liar, "bad-stamp.txt.ots").code(3).stderr(predicates::str::contains("no proof of work"));
    let liar = EsploraServer::from_headers(vec![(358391, real_hash, forged)]);
    run(&liar, "bad-stamp.txt.ots").code(3).stderr(predicates::str::contains("hashes to"));
    run(&liar, "hello-world.txt.ots").code(3).stderr(predicates::str::contains("UNVERIFIED (not invalid)"));
}

#[test]
fn verify_checks_the_file_and_reports_pending() {
    let proof = data().join("hello-world.txt.ots");
    let cache = data().join("headers");
    priorart().args(["ots", "verify", "--header-cache"]).arg(&cache).arg(&proof).assert().success();
    priorart()
        .args(["ots", "verify", "--header-cache"])
        .arg(&cache)
        .arg(&proof)
        .args(["--file"])
        .arg(data().join("bad-stamp.txt"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("does not match"));
    priorart()
        .args(["ots", "verify", "--json", "--header-cache"])
        .arg(&cache)
        .arg(&proof)
        .args(["--digest", "03ba204e50d126e4674c005e04d82e84c21366780af1f43bd54a37816b6ab340"])
        .assert()
        .success()
        .stdout(predicates::str::contains("\"height\":358391"));
    priorart()
        .args(["ots", "verify", "--header-cache"])
        .arg(&cache)
        .arg(data().join("incomplete.txt.ots"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("pending").and(predicates::str::contains("priorart ots upgrade")));
}

use predicates::prelude::PredicateBooleanExt;
use priorart_nip_testkit::priorart;

#[test]
fn without_headers_a_proof_is_unverified_not_invalid() {
    let empty = tempfile::tempdir().unwrap();
    let proof = data().join("hello-world.txt.ots");
    // No header for block 358391 anywhere: exit 3, and the hint names the sources.
    priorart()
        .args(["ots", "verify", "--header-cache"])
        .arg(empty.path())
        .arg(&proof)
        .assert()
        .code(3)
        .stderr(
            predicates::str::contains("UNVERIFIED (not invalid)").and(predicates::str::contains("--esplora")),
        );
    let json = stdout_of(
        priorart().args(["ots", "verify", "--json", "--header-cache"]).arg(empty.path()).arg(&proof),
    );
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((value["verified"].as_bool(), value["unverified"].as_bool()), (Some(false), Some(true)));
    assert_eq!(value["network"], "mainnet");
    // A forged proof with headers at hand stays invalid: exit 1.
    priorart()
        .args(["ots", "verify", "--header-cache"])
        .arg(data().join("headers"))
        .arg(data().join("bad-stamp.txt.ots"))
        .assert()
        .code(1);
}

/// A scratch copy of fixtures.
fn scratch(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in names {
        std::fs::copy(data().join(name), dir.path().join(name)).unwrap();
    }
    dir
}

#[test]
fn upgrade_then_prune_reproduce_the_real_files() {
    let commitment =
        "57cfa5c46716df9bd9e83595bce439c58108d8fcc1678f30d4c6731c3f1fa6c79ed712c66fb1ac8d4e4eb0e7";
    let answer =
        std::fs::read(data().join(format!("calendar-responses/alice-GET-timestamp-{commitment}.bin")))
            .unwrap();
    let alice = LoopbackServer::start(move |_, path, _| {
        if path == format!("/timestamp/{commitment}") { (200, answer.clone()) } else { (404, Vec::new()) }
    });
    let dir = scratch(&["incomplete.txt.ots"]);
    let proof = dir.path().join("incomplete.txt.ots");
    let map = format!("https://alice.btc.calendar.opentimestamps.org={}", alice.url());
    priorart().args(["ots", "upgrade", "--calendar-map", &map]).arg(&proof).assert().success();
    assert_eq!(
        std::fs::read(&proof).unwrap(),
        std::fs::read(data().join("incomplete-upgraded.txt.ots")).unwrap()
    );
    assert_eq!(
        std::fs::read(dir.path().join("incomplete.txt.ots.bak")).unwrap(),
        std::fs::read(data().join("incomplete.txt.ots")).unwrap()
    );

    std::fs::remove_file(dir.path().join("incomplete.txt.ots.bak")).unwrap();
    priorart().args(["ots", "prune"]).arg(&proof).assert().success();
    assert_eq!(
        std::fs::read(&proof).unwrap(),
        std::fs::read(data().join("incomplete-pruned.txt.ots")).unwrap()
    );
}

#[test]
fn stamp_upgrade_verify_on_regtest_from_the_cli() {
    let chain = RegtestChain::shared();
    let first = TestCalendar::start(chain.clone());
    let second = TestCalendar::start(chain.clone());
    let esplora = EsploraServer::from_chain(chain.clone());
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> = ["a.txt", "b.txt"].iter().map(|name| dir.path().join(name)).collect();
    for (index, file) in files.iter().enumerate() {
        std::fs::write(file, format!("file number {index}\n")).unwrap();
    }
    priorart()
        .args(["ots", "stamp", "-m", "2", "-c", &first.url(), "-c", &second.url()])
        .args(&files)
        .assert()
        .success();
    let proofs: Vec<PathBuf> = files.iter().map(|f| PathBuf::from(format!("{}.ots", f.display()))).collect();
    let verify = |proof: &Path| {
        let mut command = priorart();
        command
            .args(["ots", "verify", "--network", "regtest", "--no-header-cache", "--esplora", &esplora.url()])
            .arg(proof);
        command.assert()
    };
    verify(&proofs[0]).code(1).stderr(predicates::str::contains("pending"));

    first.mine_block().unwrap();
    second.mine_block().unwrap();
    let allow = |calendar: &TestCalendar| ["--allow".to_owned(), calendar.url()];
    priorart()
        .args(["ots", "upgrade", "--no-default-allowlist"])
        .args(allow(&first))
        .args(allow(&second))
        .args(&proofs)
        .assert()
        .success();
    for proof in &proofs {
        verify(proof)
            .success()
            .stdout(predicates::str::contains("REGTEST (a private test chain, not Bitcoin) block 1 attests"));
    }
    // The cost to forge counts the blocks on top, each header checked: 2 hashes a regtest block.
    for root in [[7; 32], [8; 32], [9; 32]] {
        chain.lock().unwrap().mine_block(root);
    }
    let tip = chain.lock().unwrap().tip_height();
    let output = verify_json(&esplora, &proofs[0]);
    let report: serde_json::Value = serde_json::from_str(&output).unwrap();
    let on_top = tip - report["height"].as_u64().unwrap();
    let cost = &report["cost_to_forge"];
    assert_eq!(cost["blocks"], on_top, "{report}");
    assert_eq!((cost["claimed_blocks"].as_u64(), cost["complete"].as_bool()), (Some(on_top), Some(true)));
    assert_eq!(cost["tip_as_far_as_held"], false);
    let work_log2 = cost["work_log2"].as_f64().unwrap();
    assert!((work_log2 - (2.0 * (on_top + 1) as f64).log2()).abs() < 1e-9, "{report}");
    let days = cost["days_at_attested_hashrate"].as_f64().unwrap();
    assert!((days - (on_top + 1) as f64 * 600.0 / 86_400.0).abs() < 1e-9, "{report}");
    verify(&proofs[0]).success().stdout(predicates::str::contains(format!(
        "Cost to forge: 2^{:.1} hashes (0.03 days of the network's hash rate at the attested block) to redo the \
         attested block and the {on_top} on top\n",
        work_log2
    )));
    // Without --network regtest the header is refused as a mainnet header:
    // the source is wrong for mainnet, the proof unchecked (exit 3).
    priorart()
        .args(["ots", "verify", "--no-header-cache", "--esplora", &esplora.url()])
        .arg(&proofs[0])
        .assert()
        .code(3)
        .stderr(predicates::str::contains("not a valid target for mainnet"));
}

#[test]
fn stamp_writes_nothing_when_too_few_calendars_answer() {
    let chain = RegtestChain::shared();
    let honest = TestCalendar::start(chain.clone());
    let garbage = TestCalendar::start_with(chain, Behavior::Garbage);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.txt");
    std::fs::write(&file, "x").unwrap();
    priorart()
        .args(["ots", "stamp", "-m", "2", "-c", &honest.url(), "-c", &garbage.url()])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("only 1 of the 2"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no proof, no temporary file left");
    priorart().args(["ots", "stamp", "-m", "3", "-c", &honest.url()]).arg(&file).assert().code(2);
}

#[test]
fn stamp_and_timestamp_share_one_grammar() {
    let chain = RegtestChain::shared();
    let calendar = TestCalendar::start(chain);
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
    std::fs::write(&a, "a").unwrap();
    std::fs::write(&b, "b").unwrap();
    std::fs::write(dir.path().join("b.txt.ots"), "taken").unwrap();
    // -m above the calendars given is refused by both, never lowered.
    priorart().args(["ots", "stamp", "-m", "2", "-c", &calendar.url()]).arg(&a).assert().code(2);
    priorart().args(["timestamp", "-m", "2", "-c", &calendar.url()]).arg(&a).assert().code(2);
    // An existing proof is named before any calendar is asked; nothing is written.
    priorart()
        .args(["ots", "stamp", "-c", &calendar.url()])
        .arg(&a)
        .arg(&b)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("b.txt.ots"));
    assert_eq!(calendar.submissions(), 0);
    assert!(!dir.path().join("a.txt.ots").exists());
    // --force replaces it; the default minimum follows the calendars given.
    priorart()
        .args(["ots", "stamp", "--force", "--timeout", "2.5", "-c", &calendar.url()])
        .arg(&a)
        .arg(&b)
        .assert()
        .success();
    assert_ne!(std::fs::read(dir.path().join("b.txt.ots")).unwrap(), b"taken");
    assert_eq!(calendar.submissions(), 1);
}

#[test]
fn sha1_proofs_warn() {
    let empty = tempfile::tempdir().unwrap();
    for file in ["a", "b"] {
        priorart()
            .args(["ots", "verify", "--header-cache"])
            .arg(empty.path())
            .arg(data().join("sha1/a-or-b.ots"))
            .arg("--file")
            .arg(data().join("sha1").join(file))
            .assert()
            .code(3)
            .stderr(predicates::str::contains("SHA-1, whose collisions are practical"));
    }
}

fn verify_json(esplora: &EsploraServer, proof: &Path) -> String {
    stdout_of(
        priorart()
            .args([
                "ots",
                "verify",
                "--json",
                "--network",
                "regtest",
                "--no-header-cache",
                "--esplora",
                &esplora.url(),
            ])
            .arg(proof),
    )
}
