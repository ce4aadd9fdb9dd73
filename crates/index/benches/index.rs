//! Lookup speed at scale: synthetic random fingerprints with planted near
//! copies, held in one segment (built in memory, as a mapped file would be
//! read). Measures one k-query per layout, the build, and reports bytes per
//! document. `PRIORART_INDEX_BENCH_DOCS` sets the size (default 1,000,000;
//! the figures in BENCHMARKS.md use 10,000,000).
//!
//!     cargo bench -p priorart-index --bench index

use criterion::{Criterion, criterion_group, criterion_main};
use priorart_index::{Entry, Layout, Segment, encode};
use std::hint::black_box;
use std::time::Instant;

mod common;
use common::{docs, fingerprints};

fn bench_layouts(c: &mut Criterion) {
    let count = docs();
    let values = fingerprints(count);
    let entries: Vec<Entry> =
        values.iter().map(|&simhash| Entry { id: String::new(), simhash, x: None, sketch: None }).collect();
    for layout in [Layout::manku_16x28(), Layout::for_distance(5).unwrap(), Layout::for_distance(8).unwrap()]
    {
        let started = Instant::now();
        let bytes = encode(&layout, &entries, 0).expect("encodes");
        let built = started.elapsed();
        let size = bytes.len();
        let segment = Segment::from_bytes(bytes).expect("a valid segment");
        eprintln!(
            "{}: {count} fingerprints, {} tables, built in {built:.1?}, {:.1} bytes per document",
            layout.name,
            layout.tables.len(),
            size as f64 / count as f64
        );
        let k = layout.max_distance;
        let mut rng = fastrand::Rng::with_seed(7);
        c.bench_function(&format!("near/{}/k{k}/{count}", layout.name), |b| {
            b.iter(|| {
                let query = values[rng.usize(..count)] ^ (1 << rng.u32(0..64));
                black_box(segment.near(black_box(query), k))
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_layouts
}
criterion_main!(benches);
