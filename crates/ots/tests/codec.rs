//! The codec against every real proof in tests/data: byte-exact round trip,
//! the reference client's `ots info` text, and the invalid ones refused.

use priorart_ots::{Attestation, DecodeError, DetachedTimestamp, HashOp, info_text};
use std::path::{Path, PathBuf};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// Every valid `.ots` fixture (everything outside `invalid/`).
fn valid_proofs() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for dir in [data(), data().join("sha1"), data().join("ripemd160")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|ext| ext == "ots") {
                found.push(path);
            }
        }
    }
    found.sort();
    assert!(found.len() >= 18, "fixtures missing: {found:?}");
    found
}

fn load(name: &str) -> DetachedTimestamp {
    DetachedTimestamp::from_bytes(&std::fs::read(data().join(name)).unwrap()).unwrap()
}

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    for path in valid_proofs() {
        let bytes = std::fs::read(&path).unwrap();
        let proof =
            DetachedTimestamp::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(proof.to_bytes(), bytes, "{}", path.display());
    }
}

#[test]
fn info_matches_the_reference_client() {
    for path in valid_proofs() {
        let expected_path = PathBuf::from(format!("{}.info.txt", path.display()));
        let Ok(expected) = std::fs::read_to_string(&expected_path) else { continue };
        let proof = DetachedTimestamp::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
        // The reference's print() adds one blank line after the tree.
        assert_eq!(format!("{}\n", info_text(&proof)), expected, "{}", path.display());
    }
}

#[test]
fn invalid_fixtures_are_refused_with_the_right_reason() {
    let read = |name: &str| DetachedTimestamp::from_bytes(&std::fs::read(data().join(name)).unwrap());
    assert_eq!(read("invalid/bad-major-version.ots"), Err(DecodeError::UnsupportedMajorVersion(1151)));
    assert!(matches!(
        read("invalid/exceeds-max-msg-length.ots"),
        Err(DecodeError::ResultTooLong { op: "append", len: 4112, limit: 4096, .. })
    ));
    assert_eq!(read("invalid/invalid-file-digest-type.ots"), Err(DecodeError::UnknownFileHashOp(0xf3)));
}

#[test]
fn attestations_are_listed_with_their_commitments() {
    let proof = load("different-blockchains.txt.ots");
    let kinds: Vec<Attestation> = proof.attestations().into_iter().map(|a| a.attestation).collect();
    assert!(kinds.contains(&Attestation::Bitcoin { height: 455605 }));
    assert!(kinds.contains(&Attestation::Ethereum { height: 3283713 }));
    let bitcoin = proof
        .attestations()
        .into_iter()
        .find(|a| a.attestation == Attestation::Bitcoin { height: 455605 })
        .unwrap();
    assert_eq!(
        priorart_ots::hex::encode_reversed(&bitcoin.commitment),
        "2a19192cf00fb1baeea516b69b3a62195849589b4caafeb6ad6ebba58b9ae69a"
    );
    assert_eq!(load("bitcoin.pdf.ots").file_hash_op(), HashOp::Sha1);
    assert_eq!(load("ripemd160/README.md.ots").file_hash_op(), HashOp::Ripemd160);
}

#[test]
fn unknown_attestations_are_kept_verbatim() {
    let proof = load("unknown-notary.txt.ots");
    let unknown = proof.attestations().into_iter().map(|a| a.attestation).next().unwrap();
    assert_eq!(unknown, Attestation::Unknown { tag: [1, 2, 3, 4, 5, 6, 7, 8], payload: vec![b'x'; 46] });
}

#[test]
fn file_digests_match_the_stamped_files() {
    for (proof, file) in [
        ("hello-world.txt.ots", "hello-world.txt"),
        ("empty.ots", "empty"),
        ("sha1/a-or-b.ots", "sha1/a"),
        ("ripemd160/README.md.ots", "ripemd160/README.md"),
    ] {
        let proof = load(proof);
        assert!(proof.matches_file(std::fs::File::open(data().join(file)).unwrap()).unwrap(), "{file}");
    }
    assert!(!load("hello-world.txt.ots").matches_file(&b"hello world!\n"[..]).unwrap());
}

#[test]
fn calendar_answers_decode_and_round_trip() {
    let dir = data().join("calendar-responses");
    let body = std::fs::read_to_string(dir.join("POST-digest-request-body.hex")).unwrap();
    let digest = priorart_ots::hex::decode(body.trim()).unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("POST-digest-") && name.ends_with(".bin") {
            let bytes = std::fs::read(&path).unwrap();
            let answer = priorart_ots::Timestamp::from_bytes(&bytes, &digest).unwrap();
            assert_eq!(answer.to_bytes(), bytes, "{name}");
            assert!(
                answer
                    .all_attestations(&digest)
                    .iter()
                    .all(|a| matches!(a.attestation, Attestation::Pending { .. }))
            );
            seen += 1;
        }
    }
    assert_eq!(seen, 4);
}
