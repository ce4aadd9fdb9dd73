//! The synthetic collection both index benches measure.

/// `PRIORART_INDEX_BENCH_DOCS` (default 1,000,000; BENCHMARKS.md uses
/// 10,000,000).
pub fn docs() -> usize {
    std::env::var("PRIORART_INDEX_BENCH_DOCS").ok().and_then(|n| n.parse().ok()).unwrap_or(1_000_000)
}

/// Random fingerprints; every tenth is a near copy (1 to 3 bits flipped)
/// of an earlier one.
pub fn fingerprints(count: usize) -> Vec<u64> {
    let mut rng = fastrand::Rng::with_seed(42);
    let mut values: Vec<u64> = (0..count).map(|_| rng.u64(..)).collect();
    for i in (10..count).step_by(10) {
        let mut near = values[rng.usize(..i)];
        for _ in 0..rng.u32(1..=3) {
            near ^= 1 << rng.u32(0..64);
        }
        values[i] = near;
    }
    values
}
