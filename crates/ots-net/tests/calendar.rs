//! Calendars over loopback HTTP: the recorded real upgrade, pruning, and a
//! full stamp → upgrade → verify on a regtest chain mined in the test.

use priorart_ots::{Attestation, DetachedTimestamp, HeaderError, Network, VerifyError, prune, verify};
use priorart_ots_net::{Esplora, StampError, StampOptions, UpgradeOptions, stamp_digests, upgrade};
use priorart_testkit::{Behavior, EsploraServer, LoopbackServer, RegtestChain, TestCalendar};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../ots/tests/data")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data().join(name)).unwrap()
}

const ALICE: &str = "https://alice.btc.calendar.opentimestamps.org";
const COMMITMENT: &str =
    "57cfa5c46716df9bd9e83595bce439c58108d8fcc1678f30d4c6731c3f1fa6c79ed712c66fb1ac8d4e4eb0e7";

/// Serves alice's recorded answer for the one commitment it knows.
fn recorded_alice() -> LoopbackServer {
    let answer = read(&format!("calendar-responses/alice-GET-timestamp-{COMMITMENT}.bin"));
    LoopbackServer::start(move |method, path, _| {
        if method == "GET" && path == format!("/timestamp/{COMMITMENT}") {
            (200, answer.clone())
        } else {
            (404, b"Not found".to_vec())
        }
    })
}

#[test]
fn upgrading_through_the_recorded_calendar_gives_the_real_upgraded_proof() {
    let alice = recorded_alice();
    let mut proof = DetachedTimestamp::from_bytes(&read("incomplete.txt.ots")).unwrap();
    let options =
        UpgradeOptions { calendar_map: vec![(ALICE.into(), alice.url())], ..UpgradeOptions::default() };
    let report = upgrade(&mut proof, &options);
    assert!(report.changed, "{report:?}");
    assert_eq!(report.upgraded, vec![ALICE.to_owned()]);
    assert_eq!(proof.to_bytes(), read("incomplete-upgraded.txt.ots"));

    // Complete now: a second upgrade asks nothing and changes nothing.
    let again = upgrade(&mut proof, &options);
    assert!(!again.changed && again.upgraded.is_empty() && again.errors.is_empty());
}

#[test]
fn calendars_off_the_allow_list_are_not_contacted() {
    let alice = recorded_alice();
    let mut proof = DetachedTimestamp::from_bytes(&read("incomplete.txt.ots")).unwrap();
    let options = UpgradeOptions {
        allowlist: vec!["https://*.example.org".into()],
        calendar_map: vec![(ALICE.into(), alice.url())],
        ..UpgradeOptions::default()
    };
    let report = upgrade(&mut proof, &options);
    assert_eq!(report.not_allowed, vec![ALICE.to_owned()]);
    assert_eq!(proof.to_bytes(), read("incomplete.txt.ots"));
}

#[test]
fn a_calendar_answering_garbage_fails_alone() {
    let garbage = TestCalendar::start_with(RegtestChain::shared(), Behavior::Garbage);
    let mut proof = DetachedTimestamp::from_bytes(&read("incomplete.txt.ots")).unwrap();
    let options =
        UpgradeOptions { calendar_map: vec![(ALICE.into(), garbage.url())], ..UpgradeOptions::default() };
    let report = upgrade(&mut proof, &options);
    assert!(!report.changed);
    assert_eq!(report.errors.len(), 1, "{report:?}");
    assert_eq!(proof.to_bytes(), read("incomplete.txt.ots"));
}

#[test]
fn pruning_the_upgraded_proof_gives_the_real_pruned_proof() {
    let mut proof = DetachedTimestamp::from_bytes(&read("incomplete-upgraded.txt.ots")).unwrap();
    let report = prune(&mut proof, false).unwrap();
    assert_eq!(report.pending_removed, 1);
    assert_eq!(proof.to_bytes(), read("incomplete-pruned.txt.ots"));

    let mut pending_only = DetachedTimestamp::from_bytes(&read("incomplete.txt.ots")).unwrap();
    assert!(prune(&mut pending_only, false).is_err());
}

#[test]
fn stamp_upgrade_verify_on_a_regtest_chain() {
    let chain = RegtestChain::shared();
    let first = TestCalendar::start(chain.clone());
    let second = TestCalendar::start(chain.clone());
    let garbage = TestCalendar::start_with(chain.clone(), Behavior::Garbage);
    let hanging = TestCalendar::start_with(chain.clone(), Behavior::Hang(Duration::from_secs(5)));
    let digests = [[1u8; 32], [2u8; 32], [3u8; 32]];
    let options = StampOptions {
        calendars: vec![first.url(), second.url(), garbage.url(), hanging.url()],
        min_answers: 2,
        timeout: Duration::from_millis(800),
    };
    let stamped = stamp_digests(&digests, &options).unwrap();
    assert_eq!(stamped.answered, vec![first.url(), second.url()]);
    assert_eq!(stamped.failed.len(), 2);
    assert_eq!((first.submissions(), second.submissions()), (1, 1), "one POST per calendar for all files");

    let esplora_server = EsploraServer::from_chain(chain.clone());
    let esplora = Esplora::new(&esplora_server.url(), Duration::from_secs(5));
    let mut proofs = stamped.proofs;
    for (proof, digest) in proofs.iter().zip(&digests) {
        assert_eq!(proof.file_digest(), digest);
        // Round trip of what we wrote.
        assert_eq!(DetachedTimestamp::from_bytes(&proof.to_bytes()).unwrap(), *proof);
        assert!(matches!(verify(proof, &esplora, Network::Regtest), Err(VerifyError::Pending { .. })));
    }

    let allow = UpgradeOptions {
        allowlist: vec![first.url(), second.url()],
        calendar_map: Vec::new(),
        timeout: Duration::from_secs(5),
    };
    // Nothing mined yet: still pending.
    let report = upgrade(&mut proofs[0], &allow);
    assert!(!report.changed && report.still_pending.len() == 2, "{report:?}");

    let first_height = first.mine_block().unwrap();
    let second_height = second.mine_block().unwrap();
    assert_eq!((first_height, second_height), (1, 2));
    for proof in &mut proofs {
        let report = upgrade(proof, &allow);
        assert_eq!(report.upgraded.len(), 2, "{report:?}");
        let verified = verify(proof, &esplora, Network::Regtest).unwrap();
        assert_eq!(verified.earliest.height, 1);
        let header_time = chain.lock().unwrap().header(1).unwrap().time;
        assert_eq!(verified.earliest.time, header_time);
        // A regtest header is no mainnet header.
        let err = verify(proof, &esplora, Network::Mainnet).unwrap_err();
        assert!(
            format!("{err}").contains(
                &HeaderError::InvalidBits { height: 1, bits: 0x207fffff, network: "mainnet" }.to_string()
            ),
            "{err}"
        );
    }

    // Pruning to the earliest block leaves one Bitcoin attestation.
    let mut pruned = proofs[0].clone();
    prune(&mut pruned, true).unwrap();
    let left: Vec<Attestation> = pruned.attestations().into_iter().map(|a| a.attestation).collect();
    assert_eq!(left, vec![Attestation::Bitcoin { height: 1 }]);
    assert_eq!(verify(&pruned, &esplora, Network::Regtest).unwrap().earliest.height, 1);
}

#[test]
fn stamping_fails_whole_when_too_few_calendars_answer() {
    let chain = RegtestChain::shared();
    let honest = TestCalendar::start(chain.clone());
    let garbage = TestCalendar::start_with(chain, Behavior::Garbage);
    let options = StampOptions {
        calendars: vec![honest.url(), garbage.url()],
        min_answers: 2,
        timeout: Duration::from_secs(2),
    };
    let err = stamp_digests(&[[7u8; 32]], &options).unwrap_err();
    assert!(matches!(err, StampError::TooFewAnswers { answered: 1, required: 2, .. }), "{err}");
}
