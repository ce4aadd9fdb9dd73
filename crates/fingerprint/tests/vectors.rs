//! The shared conformance vectors: 3030 inputs run through the JavaScript
//! reference (simhash-ts 0.2.0 on Node 20 / ICU 78 / Unicode 17).

use priorart_fingerprint::{Fingerprinter, Scheme, explain};
use serde::Deserialize;

#[derive(Deserialize)]
struct Vectors {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    input: String,
    #[serde(rename = "minhash-equality-v1")]
    minhash_equality_v1: String,
    #[serde(rename = "simhash-equality-v2")]
    simhash_equality_v2: String,
}

fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/equality-vectors.json");
    let text = std::fs::read_to_string(path).expect("vectors/equality-vectors.json is in the repo");
    let vectors: Vectors = serde_json::from_str(&text).expect("the vector file is valid JSON");
    assert_eq!(vectors.cases.len(), 3030);
    vectors.cases
}

#[test]
fn every_vector_matches_the_reference() {
    let schemes = [Scheme::MinhashEqualityV1, Scheme::SimhashEqualityV2];
    let mut fingerprinter = Fingerprinter::new();
    let mut failures = Vec::new();
    for case in cases() {
        let got = fingerprinter.fingerprint(&case.input, &schemes);
        let want = [&case.minhash_equality_v1, &case.simhash_equality_v2];
        for ((scheme, got), want) in schemes.iter().zip(&got).zip(want) {
            if got.to_string() != *want {
                failures.push(format!("{} [{scheme}]: input {:?}", case.name, case.input));
            }
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn explanation_agrees_with_the_fingerprint() {
    for case in cases().iter().step_by(7) {
        for (scheme, want) in [
            (Scheme::MinhashEqualityV1, &case.minhash_equality_v1),
            (Scheme::SimhashEqualityV2, &case.simhash_equality_v2),
        ] {
            let explanation = explain(&case.input, scheme).expect("an equality scheme");
            assert_eq!(explanation.fingerprint.to_string(), *want, "{}", case.name);
        }
    }
}
