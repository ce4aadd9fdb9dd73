//! All pairs within k of a synthetic collection (random fingerprints with
//! planted near copies, see `common`), for every built-in layout: wall time
//! on rayon's pool (all cores, or `RAYON_NUM_THREADS`), pairs found, and
//! exact recall against brute force on a 100,000-fingerprint sample for
//! every k the layout guarantees. One run each: at ten million a run takes
//! seconds, so criterion's repetitions would take an hour.
//!
//!     PRIORART_INDEX_BENCH_DOCS=10000000 cargo bench -p priorart-index --bench all_pairs

mod common;

use priorart_index::{Layout, Pair, all_pairs};
use std::time::Instant;

const SAMPLE: usize = 100_000;
/// Layouts that need more comparisons than this are skipped (an hour).
const MAX_COMPARISONS: f64 = 2e10;

fn main() {
    let count = common::docs();
    let values = common::fingerprints(count);
    let layouts = [Layout::manku_16x28(), Layout::for_distance(5).unwrap(), Layout::for_distance(8).unwrap()];
    let threads = rayon::current_num_threads();
    for layout in &layouts {
        let k = layout.max_distance;
        // Random values meet in a table when their keys agree: about
        // n² / 2^(key bits + 1) comparisons per table. Short keys (k = 8
        // keys on 12 or 13 bits) make that quadratic at ten million.
        let comparisons: f64 = layout
            .tables
            .iter()
            .map(|table| (count as f64).powi(2) / 2f64.powi(i32::from(table.key_bits) + 1))
            .sum();
        if comparisons > MAX_COMPARISONS {
            println!("{}: skipped at {count} fingerprints: about {comparisons:.1e} comparisons", layout.name);
            continue;
        }
        let started = Instant::now();
        let pairs = all_pairs(&values, layout, k).expect("k is the layout's");
        println!(
            "{}: all pairs within k={k} of {count} fingerprints on {threads} threads: {} pairs in {:.2?}",
            layout.name,
            pairs.len(),
            started.elapsed()
        );
    }
    let sample = &values[..SAMPLE.min(count)];
    let started = Instant::now();
    let truth = brute_force(sample, 8);
    println!(
        "brute force over {} fingerprints (k <= 8): {} pairs in {:.2?}",
        sample.len(),
        truth.len(),
        started.elapsed()
    );
    for layout in &layouts {
        for k in 0..=layout.max_distance {
            let expected: Vec<Pair> = truth.iter().copied().filter(|pair| pair.distance <= k).collect();
            let found = all_pairs(sample, layout, k).expect("k is the layout's");
            let recall = if expected.is_empty() {
                1.0
            } else {
                common_count(&found, &expected) as f64 / expected.len() as f64
            };
            println!(
                "{} k={k}: {} pairs, brute force {}, recall {recall:.6}, exact: {}",
                layout.name,
                found.len(),
                expected.len(),
                found == expected
            );
            assert_eq!(found, expected, "{} k={k}", layout.name);
        }
    }
}

/// Every pair within `k`, sorted, by comparing all of them (both cores).
fn brute_force(values: &[u64], k: u32) -> Vec<Pair> {
    use rayon::prelude::*;
    (0..values.len() as u32)
        .into_par_iter()
        .flat_map_iter(|a| {
            (a + 1..values.len() as u32).filter_map(move |b| {
                let distance = (values[a as usize] ^ values[b as usize]).count_ones();
                (distance <= k).then_some(Pair { a, b, distance })
            })
        })
        .collect()
}

/// How many of `expected` (sorted) are in `found` (sorted).
fn common_count(found: &[Pair], expected: &[Pair]) -> usize {
    expected.iter().filter(|pair| found.binary_search(pair).is_ok()).count()
}
