//! Every pair of a collection within Hamming distance `k`: a self-join of
//! the layout's tables.
//!
//! Asking the tables once per fingerprint costs a binary search per table
//! and fingerprint, all random reads; the self-join sorts each table once
//! and compares the rows of each run of equal keys, which is what makes all
//! pairs over ten million fingerprints a matter of seconds (BENCHMARKS.md).
//!
//! A pair that meets in several tables is reported by the first of them
//! only: two values share table `t`'s key exactly when they agree on the
//! bits of `t`'s key mask, so a pair found in table `t` is dropped when it
//! agrees on the mask of an earlier table. No set of seen pairs is kept,
//! and memory is one sorted table (16 bytes per fingerprint) per thread
//! plus the pairs found.

use crate::layout::{DistanceTooLarge, Layout, Table};
use rayon::prelude::*;

/// Two fingerprints of the collection, by position (`a < b`), within the
/// distance asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pair {
    /// The earlier position.
    pub a: u32,
    /// The later position.
    pub b: u32,
    /// Differing bits.
    pub distance: u32,
}

/// Every pair of `values` within Hamming distance `k`, each once, sorted by
/// `(a, b)`. Tables are joined in parallel (rayon's pool).
///
/// # Panics
/// If `values` has more than `u32::MAX` fingerprints.
pub fn all_pairs(values: &[u64], layout: &Layout, k: u32) -> Result<Vec<Pair>, DistanceTooLarge> {
    layout.check_distance(k)?;
    assert!(u32::try_from(values.len()).is_ok(), "at most 2^32 - 1 fingerprints");
    let masks: Vec<u64> = layout.tables.iter().map(key_mask).collect();
    let mut pairs: Vec<Pair> = (0..masks.len())
        .into_par_iter()
        .flat_map_iter(|table| pairs_in_table(values, &masks, table, k))
        .collect();
    pairs.par_sort_unstable();
    Ok(pairs)
}

/// The bits (in the fingerprint's own positions) that a table's key holds.
fn key_mask(table: &Table) -> u64 {
    table.order[..usize::from(table.key_bits)].iter().fold(0, |mask, &bit| mask | 1 << bit)
}

/// The pairs within `k` that share table `table`'s key and no earlier
/// table's.
fn pairs_in_table(values: &[u64], masks: &[u64], table: usize, k: u32) -> Vec<Pair> {
    let mask = masks[table];
    let earlier = &masks[..table];
    let mut rows: Vec<(u64, u32)> =
        values.iter().zip(0u32..).map(|(&value, number)| (value & mask, number)).collect();
    rows.sort_unstable();
    let mut pairs = Vec::new();
    for run in rows.chunk_by(|x, y| x.0 == y.0).filter(|run| run.len() > 1) {
        for (i, &(_, a)) in run.iter().enumerate() {
            for &(_, b) in &run[i + 1..] {
                let differing = values[a as usize] ^ values[b as usize];
                let distance = differing.count_ones();
                if distance <= k && earlier.iter().all(|&mask| differing & mask != 0) {
                    pairs.push(Pair { a, b, distance });
                }
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(values: &[u64], k: u32) -> Vec<Pair> {
        let mut pairs = Vec::new();
        for a in 0..values.len() {
            for b in a + 1..values.len() {
                let distance = (values[a] ^ values[b]).count_ones();
                if distance <= k {
                    pairs.push(Pair { a: a as u32, b: b as u32, distance });
                }
            }
        }
        pairs
    }

    /// Random values, a third of them near copies (up to `max` bits) of an
    /// earlier one, some exact copies.
    fn planted(count: usize, max: u32, seed: u64) -> Vec<u64> {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut values: Vec<u64> = Vec::with_capacity(count);
        for i in 0..count {
            let value = if i > 0 && rng.u32(..3) == 0 {
                let mut near = values[rng.usize(..i)];
                for _ in 0..rng.u32(0..=max + 1) {
                    near ^= 1 << rng.u32(0..64);
                }
                near
            } else {
                rng.u64(..)
            };
            values.push(value);
        }
        values
    }

    #[test]
    fn the_self_join_equals_brute_force_for_every_layout_and_distance() {
        let layouts =
            [Layout::manku_16x28(), Layout::for_distance(5).unwrap(), Layout::for_distance(8).unwrap()];
        for (seed, layout) in layouts.iter().enumerate() {
            let values = planted(1_500, layout.max_distance, seed as u64);
            for k in 0..=layout.max_distance {
                assert_eq!(
                    all_pairs(&values, layout, k).unwrap(),
                    brute_force(&values, k),
                    "{} k={k}",
                    layout.name
                );
            }
        }
    }

    #[test]
    fn large_runs_of_equal_values_are_reported_once_per_pair() {
        let values = vec![7u64; 40];
        let pairs = all_pairs(&values, &Layout::manku_16x28(), 3).unwrap();
        assert_eq!(pairs.len(), 40 * 39 / 2);
        assert_eq!(pairs, brute_force(&values, 3));
    }

    #[test]
    fn a_distance_beyond_the_layout_is_refused() {
        let err = all_pairs(&[1, 2], &Layout::manku_16x28(), 4).unwrap_err();
        assert_eq!((err.k, err.max), (4, 3));
        assert!(all_pairs(&[], &Layout::manku_16x28(), 3).unwrap().is_empty());
    }
}
