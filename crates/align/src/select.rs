//! Groups into the passages reported: neighbouring groups that are parts of
//! one passage joined, short or dissimilar ones dropped, groups that overlap
//! in both texts merged, and each stretch of the first text left with its
//! strongest match. Every step is linear (or nearly) in the groups' spans:
//! a join is judged from counts kept with each group, and the word bags are
//! compared once per passage.

use crate::Params;
use crate::cluster::{self, Group};
use crate::seeds;
use crate::words::Word;

/// How many of the latest passages a group may join.
const JOIN_LOOKBACK: usize = 8;

/// Up to this many content words (both sides together), a joined pair's
/// similarity is computed exactly; past it, from the parts' counts (a lower
/// bound), so that growing one long passage by many joins stays linear.
const EXACT_JOIN_WORDS: u32 = 4096;

/// Most seed comparisons spent trimming one passage's second side (see
/// `trim_second`): natural passages need far fewer.
const TRIM_COMPARISONS: usize = 64 << 20;

/// Whether a passage's second side is trimmed to where its first side's
/// words are (`trim_second`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trim {
    /// Trimmed: seeds of every shared word pair stretch it in a repetitive
    /// source.
    Second,
    /// Left as found (seeds of shared marks, `marked.rs`).
    No,
}

/// The passages among `groups` (sorted by their first word in the first
/// text), each with its exact similarity.
pub(crate) fn passages(
    groups: Vec<Group>,
    a: &[Word],
    b: &[Word],
    params: &Params,
    trim: Trim,
) -> Vec<(Group, f64)> {
    let with_shared = groups.into_iter().map(|group| Group { shared: shared(&group, a, b), ..group });
    let joined = join(with_shared, params, |group| shared(group, a, b));
    let long_enough = joined.into_iter().filter(|(group, _)| {
        let (a_words, b_words) = group.lengths();
        a_words >= params.min_words && b_words >= params.min_words
    });
    let similar: Vec<Group> = long_enough
        .map(|(group, exact)| if exact { group } else { Group { shared: shared(&group, a, b), ..group } })
        .filter(|group| group.dice() >= params.min_similarity)
        .collect();
    let merged = merge_overlapping(similar)
        .into_iter()
        .map(|(group, exact)| if exact { group } else { Group { shared: shared(&group, a, b), ..group } })
        .collect();
    drop_shadowed(merged)
        .into_iter()
        .map(|group| {
            if trim == Trim::No {
                return group;
            }
            let trimmed = trim_second(group, a, b, params);
            if trimmed == group { group } else { Group { shared: shared(&trimmed, a, b), ..trimmed } }
        })
        .map(|group| (group, group.dice()))
        .collect()
}

/// A passage's second side cut to where its first side's words are: in a
/// repetitive source, a phrase of the passage also occurs a little before,
/// after or inside it, and those seeds stretched the second side up to
/// hundreds of words past the shared text. Of the seeds of one word of the
/// first side, only those best supported (most seeds within `max_gap`
/// words in the first text on about the same diagonal) place it; the
/// second side runs from the first to the last word so placed. The first
/// side, where each word is found once, stays as it is.
fn trim_second(group: Group, a: &[Word], b: &[Word], params: &Params) -> Group {
    let width = params.seed_words;
    let a_side = &a[group.a_first as usize..=group.a_last as usize];
    let b_side = &b[group.b_first as usize..=group.b_last as usize];
    if a_side.len() < width || b_side.len() < width {
        return group;
    }
    let (a_keys, b_keys) = (seeds::sorted_keys(a_side, width), seeds::sorted_keys(b_side, width));
    // The group's own rectangle holds at most its words' seeds: bounded as
    // the whole texts' seeds were, and a failure only leaves it untrimmed.
    let Ok(mut seeds) =
        seeds::joined_seeds(a_keys.as_keys(), b_keys.as_keys(), params.max_key_occurrences, params.max_seeds)
    else {
        return group;
    };
    seeds.sort_unstable_by_key(cluster::in_first_text_order);
    let diagonal = |seed: &seeds::Seed| i64::from(seed.b) - i64::from(seed.a);
    let (gap, shift) = (params.max_gap, i64::from(params.max_shift));
    // Seeds within `gap` in the first text on about the same diagonal,
    // counted only where a word has several seeds to choose from, and
    // within a budget of comparisons (past it, the group stays as it is),
    // so that a text repeating one phrase thousands of times costs little.
    let mut support = vec![0usize; seeds.len()];
    let mut budget = TRIM_COMPARISONS;
    let mut from = 0;
    let mut to = 0;
    for i in 0..seeds.len() {
        while seeds[i].a - seeds[from].a > gap {
            from += 1;
        }
        to = to.max(i);
        while to + 1 < seeds.len() && seeds[to + 1].a - seeds[i].a <= gap {
            to += 1;
        }
        let alone = (i == 0 || seeds[i - 1].a != seeds[i].a)
            && seeds.get(i + 1).is_none_or(|next| next.a != seeds[i].a);
        if alone {
            continue;
        }
        budget = match budget.checked_sub(to - from + 1) {
            Some(left) => left,
            None => return group,
        };
        support[i] =
            (from..=to).filter(|&j| (diagonal(&seeds[j]) - diagonal(&seeds[i])).abs() <= shift).count();
    }
    let (mut first, mut last) = (u32::MAX, 0u32);
    for run in (0..seeds.len()).collect::<Vec<_>>().chunk_by(|&x, &y| seeds[x].a == seeds[y].a) {
        let best = run.iter().map(|&i| support[i]).max().unwrap_or(0);
        for &i in run.iter().filter(|&&i| support[i] == best) {
            first = first.min(seeds[i].b);
            last = last.max(seeds[i].b + width as u32 - 1);
        }
    }
    if first > last {
        return group;
    }
    Group { b_first: group.b_first + first, b_last: group.b_first + last, ..group }
}

/// The content words a group's two sides share.
fn shared(group: &Group, a: &[Word], b: &[Word]) -> u64 {
    let (a_first, a_last, b_first, b_last) =
        (group.a_first as usize, group.a_last as usize, group.b_first as usize, group.b_last as usize);
    cluster::shared_words(&a[a_first..=a_last], &b[b_first..=b_last])
}

/// Each group (its `shared` count exact) joined to a recent one it
/// continues (within `join_gap` in both texts) when the joined pair stays
/// similar (see [`EXACT_JOIN_WORDS`]; `exact_shared` counts the words a
/// group's sides share), each with whether its count is still exact. A
/// few recent passages are tried, not only the last: a stray group (a
/// phrase an edit brought in) may sit between two parts of one.
fn join(
    groups: impl Iterator<Item = Group>,
    params: &Params,
    exact_shared: impl Fn(&Group) -> u64,
) -> Vec<(Group, bool)> {
    let mut joined: Vec<(Group, bool)> = Vec::new();
    for group in groups {
        let recent = joined.len().saturating_sub(JOIN_LOOKBACK);
        let into = (recent..joined.len()).rev().find_map(|at| {
            let earlier = &joined[at].0;
            if !cluster::continues(earlier, &group, params.join_gap) {
                return None;
            }
            let mut both = cluster::joined(earlier, &group);
            let (a_words, b_words) = both.lengths();
            let exact = a_words + b_words <= EXACT_JOIN_WORDS;
            if exact {
                both.shared = exact_shared(&both);
            }
            (both.dice() >= params.min_similarity).then_some((at, (both, exact)))
        });
        match into {
            Some((at, both)) => joined[at] = both,
            None => joined.push((group, true)),
        }
    }
    joined
}

/// Groups that overlap in both texts merged into one: one passage reached
/// twice (split, then joined to different neighbours) is reported once.
/// Each comes with whether its `shared` count is still exact.
fn merge_overlapping(mut groups: Vec<Group>) -> Vec<(Group, bool)> {
    groups.sort_unstable_by_key(|group| (group.a_first, group.b_first));
    let mut merged: Vec<(Group, bool)> = Vec::with_capacity(groups.len());
    for group in groups {
        let open = merged.iter().rposition(|(kept, _)| cluster::overlaps(kept, &group));
        match open {
            Some(at) => merged[at] = (cluster::joined(&merged[at].0, &group), false),
            None => merged.push((group, true)),
        }
    }
    merged
}

/// The passages left when each stretch of the first text keeps its
/// strongest match (most seeds): a passage with more than half of its first
/// side inside stronger ones is dropped. A copied passage also matches, more
/// weakly, other places of the source that repeat some of its phrases; its
/// true origin is the strong one.
fn drop_shadowed(mut groups: Vec<Group>) -> Vec<Group> {
    groups.sort_unstable_by(|x, y| y.seeds.cmp(&x.seeds).then(y.lengths().0.cmp(&x.lengths().0)));
    let mut kept: Vec<Group> = Vec::with_capacity(groups.len());
    for group in groups {
        let mut inside: Vec<(u32, u32)> = kept
            .iter()
            .filter(|k| k.a_first <= group.a_last && group.a_first <= k.a_last)
            .map(|k| (k.a_first.max(group.a_first), k.a_last.min(group.a_last)))
            .collect();
        if covered(&mut inside) * 2 <= u64::from(group.lengths().0) {
            kept.push(group);
        }
    }
    kept.sort_unstable_by_key(|group| (group.a_first, group.b_first));
    kept
}

/// Words covered by the union of inclusive ranges.
fn covered(ranges: &mut [(u32, u32)]) -> u64 {
    ranges.sort_unstable();
    let (mut total, mut reach) = (0u64, None::<u32>);
    for &(first, last) in ranges.iter() {
        let start = reach.map_or(first, |r| first.max(r + 1));
        if last >= start {
            total += u64::from(last - start + 1);
            reach = Some(last);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(a: (u32, u32), b: (u32, u32), seeds: usize) -> Group {
        Group { a_first: a.0, a_last: a.1, b_first: b.0, b_last: b.1, seeds, shared: 0 }
    }

    #[test]
    fn covered_counts_each_word_once() {
        assert_eq!(covered(&mut [(5, 9), (0, 2), (8, 12)]), 3 + 8);
        assert_eq!(covered(&mut []), 0);
    }

    #[test]
    fn a_weaker_match_of_the_same_stretch_is_dropped() {
        let strong = group((0, 99), (500, 599), 60);
        let weak_inside = group((10, 40), (50, 80), 8);
        let partly = group((90, 150), (700, 760), 30);
        let kept = drop_shadowed(vec![weak_inside, partly, strong]);
        assert_eq!(kept, [strong, partly]);
    }

    #[test]
    fn groups_overlapping_in_both_texts_are_merged() {
        let merged = merge_overlapping(vec![
            group((0, 50), (0, 50), 10),
            group((40, 90), (45, 95), 10),
            group((40, 90), (300, 350), 5),
        ]);
        let groups: Vec<Group> = merged.iter().map(|(g, _)| *g).collect();
        assert_eq!(groups, [group((0, 90), (0, 95), 20), group((40, 90), (300, 350), 5)]);
        assert_eq!(merged.iter().map(|(_, exact)| *exact).collect::<Vec<_>>(), [false, true]);
    }
}
