//! Single-thread text → `simhash-doc` throughput on the real corpus, beside
//! `openssl dgst -sha256` over the same bytes and `minhash-equality-v1`.
//!
//! Each is measured twice: wall-clock time (criterion's default) and CPU
//! time (the benchmark thread's for priorart, the child's user time for
//! openssl). On a loaded machine wall-clock time favours openssl's short
//! runs, which the scheduler serves at once, over a long-running thread;
//! CPU time compares the work itself.
//!
//! The corpus is built by `scripts/corpus/build.sh` (outside the
//! repository); point `PRIORART_CORPUS` at its directory (default
//! `/tmp/priorart-corpus`). Without it the bench says so and measures
//! nothing. Run:
//!
//! ```sh
//! cargo bench -p priorart-fingerprint --bench simhash_doc
//! ```

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use priorart_fingerprint::{Fingerprinter, Scheme, TokenRule};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn corpus_dir() -> PathBuf {
    std::env::var_os("PRIORART_CORPUS").map_or_else(|| PathBuf::from("/tmp/priorart-corpus"), PathBuf::from)
}

/// The texts of `docs.jsonl`.
fn load() -> Option<Vec<String>> {
    let jsonl = std::fs::read_to_string(corpus_dir().join("docs.jsonl")).ok()?;
    let docs = jsonl
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|record| record.get("text")?.as_str().map(str::to_owned))
        .collect();
    Some(docs)
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// User CPU time of this process's waited-for children (`/proc/self/stat`
/// field 16, in clock ticks).
fn children_user_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("Linux /proc");
    let after_name = &stat[stat.rfind(')').expect("comm field") + 2..];
    let ticks: u64 = after_name.split(' ').nth(13).and_then(|f| f.parse().ok()).expect("cutime");
    Duration::from_secs_f64(ticks as f64 / rustix::param::clock_ticks_per_second() as f64)
}

fn openssl_sha256(file: &Path) {
    let status =
        Command::new("openssl").args(["dgst", "-sha256", "-r"]).arg(file).stdout(Stdio::null()).status();
    assert!(status.is_ok_and(|s| s.success()), "openssl dgst failed");
}

fn all_simhash(fingerprinter: &mut Fingerprinter, docs: &[String]) {
    for doc in docs {
        black_box(fingerprinter.simhash_doc(doc, TokenRule::V2));
    }
}

fn throughput(c: &mut Criterion) {
    let Some(docs) = load() else {
        eprintln!(
            "simhash_doc bench: no corpus in {} (build it with scripts/corpus/build.sh)",
            corpus_dir().display()
        );
        return;
    };
    // The same bytes for openssl: the texts, concatenated.
    let concatenated = std::env::temp_dir().join("priorart-simhash-bench.txt");
    std::fs::write(&concatenated, docs.concat()).expect("temp file");
    let bytes: usize = docs.iter().map(String::len).sum();

    let mut group = c.benchmark_group("corpus");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("simhash-doc", |b| {
        let mut fingerprinter = Fingerprinter::new();
        b.iter(|| all_simhash(&mut fingerprinter, &docs))
    });
    group.bench_function("simhash-doc, cpu time", |b| {
        let mut fingerprinter = Fingerprinter::new();
        b.iter_custom(|iters| {
            let start = thread_cpu();
            for _ in 0..iters {
                all_simhash(&mut fingerprinter, &docs);
            }
            thread_cpu() - start
        })
    });
    group.bench_function("openssl-dgst-sha256", |b| b.iter(|| openssl_sha256(&concatenated)));
    group.bench_function("openssl-dgst-sha256, cpu time", |b| {
        b.iter_custom(|iters| {
            let start = children_user_cpu();
            for _ in 0..iters {
                openssl_sha256(&concatenated);
            }
            children_user_cpu() - start
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
    group.finish();
    let _ = std::fs::remove_file(&concatenated);
}

criterion_group!(benches, throughput);
criterion_main!(benches);
