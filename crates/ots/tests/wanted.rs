//! `WantedHeaders`: run, fetch what was wanted, run again. The last run's
//! report is the report a source holding every header gives, on every
//! fixture proof; what the caller could not get is answered as it said.

use priorart_ots::{
    DEFAULT_FORGE_HEADERS, DetachedTimestamp, HeaderSource, MemoryHeaders, Network, SourceError,
    VerifyReport, WantedHeaders, header_from_hex,
};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn every_header() -> MemoryHeaders {
    std::fs::read_dir(data().join("headers"))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let height = path.file_stem().unwrap().to_str().unwrap().parse().unwrap();
            (height, header_from_hex(&std::fs::read_to_string(&path).unwrap()).unwrap())
        })
        .collect()
}

fn proofs() -> Vec<(String, DetachedTimestamp)> {
    let mut proofs: Vec<_> = std::fs::read_dir(data())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ots"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, DetachedTimestamp::from_bytes(&std::fs::read(&path).unwrap()).unwrap())
        })
        .collect();
    proofs.sort_by(|a, b| a.0.cmp(&b.0));
    proofs
}

fn report(proof: &DetachedTimestamp, source: &dyn HeaderSource) -> String {
    VerifyReport::verify(proof, source, Network::Mainnet, DEFAULT_FORGE_HEADERS).to_json()
}

/// Runs until nothing new is wanted, fetching from `full`; the last report
/// and the number of runs.
fn in_rounds(proof: &DetachedTimestamp, full: &MemoryHeaders) -> (String, usize, WantedHeaders) {
    let wanted = WantedHeaders::new(full.describe());
    for runs in 1..=50 {
        let answer = report(proof, &wanted);
        let (heights, tip) = wanted.take_wanted();
        if heights.is_empty() && !tip {
            return (answer, runs, wanted);
        }
        for height in heights {
            match full.get(height) {
                Some(header) => wanted.insert(height, header),
                None => wanted.absent(height),
            }
        }
        if tip {
            wanted.set_tip(full.tip_height());
        }
    }
    panic!("still wanting headers after 50 runs");
}

#[test]
fn the_last_round_is_the_report_of_a_source_holding_every_header() {
    let full = every_header();
    let mut verified = 0;
    for (name, proof) in proofs() {
        let (answer, runs, wanted) = in_rounds(&proof, &full);
        assert_eq!(answer, report(&proof, &full), "{name}");
        if answer.contains("\"verified\":true") {
            verified += 1;
            assert!(runs >= 2, "{name}: a verified proof needed its header fetched");
            let confirmed = wanted.confirmed();
            assert!(!confirmed.is_empty(), "{name}");
            for (height, header) in confirmed {
                assert_eq!(full.get(height), Some(header), "{name}: only headers served are confirmed");
            }
        }
    }
    assert!(verified >= 2, "{verified} fixture proofs verified");
}

#[test]
fn what_the_caller_could_not_get_is_answered_as_it_said_and_not_wanted_again() {
    let (_, proof) = proofs().into_iter().find(|(name, _)| name == "hello-world.txt.ots").unwrap();
    let wanted = WantedHeaders::new("esplora https://example.invalid");
    let first = report(&proof, &wanted);
    let (heights, _) = wanted.take_wanted();
    assert_eq!(heights, [358391]);
    assert!(first.contains("no block at height 358391"), "{first}");

    let cause = std::io::Error::new(std::io::ErrorKind::TimedOut, "timed out");
    wanted.failed(358391, SourceError::unavailable("esplora https://example.invalid", cause));
    let second = report(&proof, &wanted);
    assert_eq!(wanted.take_wanted(), (vec![], false), "a failed height is not wanted again");
    assert!(second.contains("esplora https://example.invalid is unavailable"), "{second}");
    assert!(second.contains("\"unverified\":true"), "{second}");

    // A lying header (another block's) is refused, whoever served it.
    let other = every_header().get(428648).unwrap();
    wanted.insert(358391, other);
    let lied = report(&proof, &wanted);
    assert!(lied.contains("\"verified\":false"), "{lied}");
    assert!(wanted.confirmed().is_empty(), "a refused header is never confirmed");
}
