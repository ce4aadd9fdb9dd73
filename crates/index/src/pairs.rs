//! Every pair of a collection within Hamming distance `k`: a self-join of
//! the layout's tables ([`all_pairs`]); and every pair between a few new
//! fingerprints and a collection ([`cross_pairs`]).
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

/// A new fingerprint and one of a collection within the distance asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CrossPair {
    /// The new fingerprint's position.
    pub new: u32,
    /// The collection's fingerprint's position.
    pub old: u32,
    /// Differing bits.
    pub distance: u32,
}

/// Every pair of one of `new` and one of `old` within Hamming distance
/// `k`, each once, sorted by `(new, old)`. Only `new` is sorted into tables
/// (16 bytes per new fingerprint and table); each of `old` is looked up in
/// every table (a binary search), so memory does not grow with `old`,
/// which is read once, in order (an index's memory-mapped values).
///
/// # Panics
/// If `new` or `old` has more than `u32::MAX` fingerprints.
pub fn cross_pairs(
    new: &[u64],
    old: &[u64],
    layout: &Layout,
    k: u32,
) -> Result<Vec<CrossPair>, DistanceTooLarge> {
    layout.check_distance(k)?;
    assert!(u32::try_from(new.len().max(old.len())).is_ok(), "at most 2^32 - 1 fingerprints");
    let masks: Vec<u64> = layout.tables.iter().map(key_mask).collect();
    let tables: Vec<Vec<(u64, u32)>> = masks
        .par_iter()
        .map(|&mask| {
            let mut rows: Vec<(u64, u32)> =
                new.iter().zip(0u32..).map(|(&value, n)| (value & mask, n)).collect();
            rows.sort_unstable();
            rows
        })
        .collect();
    let mut pairs: Vec<CrossPair> = old
        .par_iter()
        .enumerate()
        .flat_map_iter(|(o, &value)| {
            let mut found = Vec::new();
            for (table, rows) in tables.iter().enumerate() {
                let key = value & masks[table];
                let first = rows.partition_point(|row| row.0 < key);
                for &(_, n) in rows[first..].iter().take_while(|row| row.0 == key) {
                    let differing = value ^ new[n as usize];
                    let distance = differing.count_ones();
                    if distance <= k && masks[..table].iter().all(|&mask| differing & mask != 0) {
                        found.push(CrossPair { new: n, old: o as u32, distance });
                    }
                }
            }
            found
        })
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
    fn the_cross_join_equals_brute_force_for_every_layout_and_distance() {
        let layouts = [Layout::manku_16x28(), Layout::for_distance(6).unwrap()];
        for (seed, layout) in layouts.iter().enumerate() {
            // The new values are near copies of old ones, and of each other.
            let values = planted(1_200, layout.max_distance, 10 + seed as u64);
            let (old, new) = values.split_at(700);
            for k in 0..=layout.max_distance {
                let mut expected = Vec::new();
                for (n, a) in new.iter().enumerate() {
                    for (o, b) in old.iter().enumerate() {
                        let distance = (a ^ b).count_ones();
                        if distance <= k {
                            expected.push(CrossPair { new: n as u32, old: o as u32, distance });
                        }
                    }
                }
                assert!(k < 2 || expected.len() > 50, "planted near copies across the split");
                assert_eq!(cross_pairs(new, old, layout, k).unwrap(), expected, "{} k={k}", layout.name);
            }
        }
        assert!(cross_pairs(&[1], &[2], &Layout::manku_16x28(), 4).is_err());
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
