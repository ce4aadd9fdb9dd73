//! Single-thread text → `simhash-doc` throughput on the real corpus, beside
//! `openssl dgst -sha256` over the same bytes and `minhash-equality-v1`.
//!
//! The corpus is built by `shared/corpus/build_corpus.sh` (outside the
//! repository); point `PRIORART_CORPUS` at its directory (default
//! `/tmp/priorart-corpus`). Without it the bench says so and measures
//! nothing. Run:
//!
//! ```sh
//! cargo bench -p priorart-fingerprint --bench simhash_doc
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use priorart_fingerprint::{Fingerprinter, Scheme};
use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;

fn corpus_dir() -> PathBuf {
    std::env::var_os("PRIORART_CORPUS").map_or_else(|| PathBuf::from("/tmp/priorart-corpus"), PathBuf::from)
}

/// The corpus documents: the texts of `docs.jsonl`, and `docs.txt` (the same
/// texts concatenated, for openssl).
fn load() -> Option<(Vec<String>, PathBuf)> {
    let dir = corpus_dir();
    let jsonl = std::fs::read_to_string(dir.join("docs.jsonl")).ok()?;
    let docs = jsonl
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|record| record.get("text")?.as_str().map(str::to_owned))
        .collect();
    Some((docs, dir.join("docs.txt")))
}

fn throughput(c: &mut Criterion) {
    let Some((docs, concatenated)) = load() else {
        eprintln!(
            "simhash_doc bench: no corpus in {} (build it with build_corpus.sh)",
            corpus_dir().display()
        );
        return;
    };
    let bytes: usize = docs.iter().map(String::len).sum();
    let concatenated_bytes = std::fs::metadata(&concatenated).map(|m| m.len()).unwrap_or(0);
    let mut group = c.benchmark_group("corpus");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("simhash-doc", |b| {
        let mut fingerprinter = Fingerprinter::new();
        b.iter(|| {
            for doc in &docs {
                black_box(fingerprinter.simhash_doc(doc));
            }
        })
    });
    group.bench_function("minhash-equality-v1", |b| {
        let mut fingerprinter = Fingerprinter::new();
        b.iter(|| {
            for doc in &docs {
                black_box(fingerprinter.fingerprint(doc, &[Scheme::MinhashEqualityV1]));
            }
        })
    });
    if concatenated_bytes > 0 {
        group.throughput(Throughput::Bytes(concatenated_bytes));
        group.bench_function("openssl-dgst-sha256", |b| {
            b.iter(|| {
                let status = Command::new("openssl")
                    .args(["dgst", "-sha256", "-r"])
                    .arg(&concatenated)
                    .stdout(std::process::Stdio::null())
                    .status();
                assert!(status.is_ok_and(|s| s.success()), "openssl dgst failed");
            })
        });
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
