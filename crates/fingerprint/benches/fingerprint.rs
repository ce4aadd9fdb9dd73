//! Library throughput of the equality fingerprints.
//!
//! - `note` and `article`: English prose of about 300 B and 30 KB, the two
//!   sizes NIP-FF-3 targets (short notes, long-form articles).
//! - `vectors`: every input of the conformance vectors (4.5 MB, adversarial
//!   Unicode), the corpus BENCHMARKS.md compares with `openssl dgst -sha256`.
//! - `json/*`: the vectors as JSON strings with every non-ASCII character
//!   escaped (as Python's `json.dumps` writes them), fingerprinted by
//!   decoding while folding (`fused`) and by decoding first (`decoded`).
//!
//! Run: `cargo bench -p priorart-fingerprint --bench fingerprint`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use priorart_fingerprint::{Fingerprinter, Scheme, decode_json_string};
use std::hint::black_box;

const PROSE: &str = include_str!("../../../README.md");

fn vector_inputs() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../vectors/equality-vectors.json");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("vectors"))
        .expect("the vector file is JSON");
    json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| case["input"].as_str().expect("input").to_owned())
        .collect()
}

/// `len` bytes of prose, cut at a character boundary.
fn prose(len: usize) -> String {
    let mut text = String::new();
    while text.len() < len {
        text.push_str(PROSE);
    }
    let mut end = len;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

fn bench(c: &mut Criterion) {
    let schemes = [Scheme::MinhashEqualityV1];
    let mut group = c.benchmark_group("minhash-equality-v1");
    for (name, text) in [("note", prose(300)), ("article", prose(30_000))] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        let mut fingerprinter = Fingerprinter::new();
        group.bench_function(name, |b| b.iter(|| fingerprinter.fingerprint(black_box(&text), &schemes)));
    }
    let inputs = vector_inputs();
    group.throughput(Throughput::Bytes(inputs.iter().map(|t| t.len() as u64).sum()));
    let mut fingerprinter = Fingerprinter::new();
    group.bench_function("vectors", |b| {
        b.iter(|| {
            inputs.iter().map(|t| fingerprinter.fingerprint(black_box(t), &schemes).len()).sum::<usize>()
        })
    });
    group.finish();
    bench_json(c, &inputs);
}

fn bench_json(c: &mut Criterion, inputs: &[String]) {
    let schemes = [Scheme::MinhashEqualityV1];
    let ascii_json = |text: &String| -> String {
        let mut json = String::new();
        for c in serde_json::to_string(text).expect("strings serialize").chars() {
            match c.is_ascii() {
                true => json.push(c),
                false => {
                    c.encode_utf16(&mut [0; 2]).iter().for_each(|u| json.push_str(&format!("\\u{u:04x}")))
                }
            }
        }
        json
    };
    let strings: Vec<String> = inputs.iter().map(ascii_json).collect();
    let mut group = c.benchmark_group("json");
    group.throughput(Throughput::Bytes(inputs.iter().map(|text| text.len() as u64).sum()));
    let mut fingerprinter = Fingerprinter::new();
    group.bench_function("fused", |b| {
        b.iter(|| {
            strings
                .iter()
                .filter_map(|s| fingerprinter.fingerprint_json_string(black_box(s), &schemes))
                .count()
        })
    });
    group.bench_function("decoded", |b| {
        b.iter(|| {
            strings
                .iter()
                .filter_map(|s| {
                    Some(fingerprinter.fingerprint(&decode_json_string(black_box(s))?.0, &schemes))
                })
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
