//! Proofs verified per second with cached headers: decode the `.ots` bytes,
//! walk every path, check the header (hash, proof of work, mainnet
//! checkpoint difficulty) and the merkle root. One core, no network.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use priorart_ots::{DetachedTimestamp, MemoryHeaders, Network, header_from_hex, verify};
use std::hint::black_box;
use std::path::Path;

fn data(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)).unwrap()
}

fn cached_headers() -> MemoryHeaders {
    [358391, 428648]
        .into_iter()
        .map(|height| {
            let text = String::from_utf8(data(&format!("headers/{height}.hex"))).unwrap();
            (height, header_from_hex(&text).unwrap())
        })
        .collect()
}

fn bench_verify(c: &mut Criterion) {
    let cache = cached_headers();
    let mut group = c.benchmark_group("verify_cached");
    group.throughput(Throughput::Elements(1));
    for name in ["hello-world.txt.ots", "incomplete-upgraded.txt.ots"] {
        let bytes = data(name);
        group.bench_function(name, |b| {
            b.iter(|| {
                let proof = DetachedTimestamp::from_bytes(black_box(&bytes)).unwrap();
                verify(&proof, &cache, Network::Mainnet).unwrap()
            })
        });
    }
    group.finish();
    let bytes = data("different-blockchains.txt.ots");
    c.bench_function("decode/different-blockchains.txt.ots", |b| {
        b.iter(|| DetachedTimestamp::from_bytes(black_box(&bytes)).unwrap())
    });
}

criterion_group!(benches, bench_verify);
criterion_main!(benches);
