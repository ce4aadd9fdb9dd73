//! Seeds into passages (the extension step of Sanchez-Perez et al., PAN
//! 2014): split the seeds wherever they leave a gap of more than `max_gap`
//! content words in the first text, split each part wherever it leaves such
//! a gap in the second, and repeat until no part splits. What remains are
//! groups of seeds close together in both texts, whatever their order
//! inside: a passage survives reordered words and sentences, and a passage
//! moved elsewhere is another group. Then neighbouring groups that are
//! still one passage (a longer edit split them) are joined when the joined
//! pair stays similar.

use crate::seeds::Seed;
use std::collections::HashMap;

/// A candidate passage in content-word indices (inclusive ranges).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Group {
    pub(crate) a_first: u32,
    pub(crate) a_last: u32,
    pub(crate) b_first: u32,
    pub(crate) b_last: u32,
    pub(crate) seeds: usize,
}

#[derive(Clone, Copy)]
enum Axis {
    A,
    B,
}

impl Axis {
    fn of(self, seed: &Seed) -> u32 {
        match self {
            Axis::A => seed.a,
            Axis::B => seed.b,
        }
    }

    fn other(self) -> Axis {
        match self {
            Axis::A => Axis::B,
            Axis::B => Axis::A,
        }
    }
}

/// The seeds that have a neighbour on about the same diagonal: another seed
/// at most `max_gap` content words away in the first text whose offset
/// between the texts (`b - a`) differs by at most `max_shift`. Inside a
/// copied passage seeds line up (edits shift them a little); a word pair
/// that merely happens to occur in both texts has no such neighbour, and
/// left in it would stretch a passage past its true end.
pub(crate) fn supported(mut seeds: Vec<Seed>, max_gap: u32, max_shift: u32) -> Vec<Seed> {
    seeds.sort_unstable_by_key(|seed| (seed.a, seed.b));
    let diagonal = |seed: &Seed| i64::from(seed.b) - i64::from(seed.a);
    let mut keep = vec![false; seeds.len()];
    for i in 0..seeds.len() {
        for j in i + 1..seeds.len() {
            if seeds[j].a - seeds[i].a > max_gap {
                break;
            }
            if (diagonal(&seeds[i]) - diagonal(&seeds[j])).unsigned_abs() <= u64::from(max_shift) {
                keep[i] = true;
                keep[j] = true;
            }
        }
    }
    seeds.into_iter().zip(keep).filter_map(|(seed, kept)| kept.then_some(seed)).collect()
}

/// `seeds` sorted along `axis`, cut wherever the next seed starts more than
/// `max_gap` words after the end of every earlier one (a seed covers
/// `width` words).
fn split_along(mut seeds: Vec<Seed>, axis: Axis, width: u32, max_gap: u32) -> Vec<Vec<Seed>> {
    seeds.sort_unstable_by_key(|seed| (axis.of(seed), axis.other().of(seed)));
    let mut parts = Vec::new();
    let mut current: Vec<Seed> = Vec::new();
    let mut reach = 0u32;
    for seed in seeds {
        let at = axis.of(&seed);
        if !current.is_empty() && at > reach.saturating_add(max_gap) {
            parts.push(std::mem::take(&mut current));
        }
        reach = if current.is_empty() { at + width - 1 } else { reach.max(at + width - 1) };
        current.push(seed);
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// The groups of seeds close together in both texts (see the module).
pub(crate) fn groups(seeds: Vec<Seed>, width: u32, max_gap: u32) -> Vec<Group> {
    // Each piece of work: seeds, the axis to split along next, and whether
    // splitting along the other axis left them whole.
    let mut work = vec![(seeds, Axis::A, false)];
    let mut groups = Vec::new();
    while let Some((seeds, axis, whole_along_other)) = work.pop() {
        let mut parts = split_along(seeds, axis, width, max_gap);
        if parts.len() == 1 && whole_along_other {
            groups.push(group_of(&parts.pop().expect("one part"), width));
            continue;
        }
        let whole = parts.len() == 1;
        work.extend(parts.into_iter().map(|part| (part, axis.other(), whole)));
    }
    groups.sort_unstable_by_key(|group| (group.a_first, group.b_first));
    groups
}

fn group_of(seeds: &[Seed], width: u32) -> Group {
    let a_first = seeds.iter().map(|s| s.a).min().expect("a group has seeds");
    let a_last = seeds.iter().map(|s| s.a).max().expect("a group has seeds") + width - 1;
    let b_first = seeds.iter().map(|s| s.b).min().expect("a group has seeds");
    let b_last = seeds.iter().map(|s| s.b).max().expect("a group has seeds") + width - 1;
    Group { a_first, a_last, b_first, b_last, seeds: seeds.len() }
}

/// How much two bags of words have in common: twice the shared words
/// (counted with repeats) over the words of both, between 0 and 1. Word
/// order does not count, so reordering inside a passage costs nothing.
pub(crate) fn dice(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut counts: HashMap<u64, i64> = HashMap::with_capacity(a.len());
    for &word in a {
        *counts.entry(word).or_default() += 1;
    }
    let mut shared = 0usize;
    for &word in b {
        if let Some(count) = counts.get_mut(&word)
            && *count > 0
        {
            *count -= 1;
            shared += 1;
        }
    }
    (2 * shared) as f64 / (a.len() + b.len()) as f64
}

/// Whether `next` (later in the first text) continues `group` within
/// `gap` words in both texts.
pub(crate) fn continues(group: &Group, next: &Group, gap: u32) -> bool {
    next.a_first <= group.a_last.saturating_add(gap)
        && next.b_first <= group.b_last.saturating_add(gap)
        && group.b_first <= next.b_last.saturating_add(gap)
}

/// The smallest group covering both.
pub(crate) fn joined(group: &Group, next: &Group) -> Group {
    Group {
        a_first: group.a_first.min(next.a_first),
        a_last: group.a_last.max(next.a_last),
        b_first: group.b_first.min(next.b_first),
        b_last: group.b_last.max(next.b_last),
        seeds: group.seeds + next.seeds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seeds(pairs: &[(u32, u32)]) -> Vec<Seed> {
        pairs.iter().map(|&(a, b)| Seed { a, b }).collect()
    }

    #[test]
    fn close_seeds_make_one_group_in_any_order() {
        let found = groups(seeds(&[(10, 50), (11, 53), (12, 51), (14, 52)]), 2, 3);
        assert_eq!(found, [Group { a_first: 10, a_last: 15, b_first: 50, b_last: 54, seeds: 4 }]);
    }

    #[test]
    fn a_gap_in_either_text_splits_a_group() {
        // Close in the first text, far apart in the second: two passages.
        let found = groups(seeds(&[(0, 0), (1, 1), (2, 100), (3, 101)]), 1, 5);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].b_first, found[1].b_first), (0, 100));
        // Far apart in the first text.
        assert_eq!(groups(seeds(&[(0, 0), (1, 1), (100, 2), (101, 3)]), 1, 5).len(), 2);
    }

    #[test]
    fn splitting_repeats_until_stable() {
        // Along a: one run. Along b: {0,1,2} and {200}; then {0,1,2} along a
        // has a gap between 0,1 and 60 once 2 (at a=30, b=200) is gone.
        let found = groups(seeds(&[(0, 0), (1, 1), (30, 200), (60, 2)]), 1, 30);
        assert_eq!(found.len(), 3, "{found:?}");
    }

    #[test]
    fn a_seed_off_its_neighbours_diagonal_is_dropped() {
        // 0..4 on one diagonal (one shifted by 2); (5, 90) is alone.
        let kept = supported(seeds(&[(0, 10), (1, 11), (2, 14), (5, 90), (30, 40)]), 10, 3);
        assert_eq!(kept, seeds(&[(0, 10), (1, 11), (2, 14)]));
    }

    #[test]
    fn dice_counts_repeats_and_ignores_order() {
        assert_eq!(dice(&[1, 2, 3], &[3, 2, 1]), 1.0);
        assert_eq!(dice(&[1, 1, 2], &[1, 2, 2]), 2.0 * 2.0 / 6.0);
        assert_eq!(dice(&[1], &[2]), 0.0);
    }
}
