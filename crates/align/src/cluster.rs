//! Seeds into passages (the extension step of Sanchez-Perez et al., PAN
//! 2014): split the seeds wherever they leave a gap of more than `max_gap`
//! content words in the first text, split each part wherever it leaves such
//! a gap in the second, then wherever their diagonals (`b - a`) leave a gap
//! of more than `max_shift`, and repeat until no part splits. What remains are
//! groups of seeds close together in both texts, whatever their order
//! inside: a passage survives reordered words and sentences, and a passage
//! moved elsewhere is another group. Then neighbouring groups that are
//! still one passage (a longer edit split them) are joined when the joined
//! pair stays similar.

use crate::seeds::{self, KeyHasher, Seed};
use crate::words::Word;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// A candidate passage in content-word indices (inclusive ranges).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Group {
    pub(crate) a_first: u32,
    pub(crate) a_last: u32,
    pub(crate) b_first: u32,
    pub(crate) b_last: u32,
    pub(crate) seeds: usize,
    /// Content words the two sides share, counted with repeats (the
    /// numerator of their Dice similarity; for joined groups, a lower
    /// bound: what each part shares).
    pub(crate) shared: u64,
}

/// A direction along which seeds are split.
#[derive(Clone, Copy)]
enum Axis {
    /// Position in the first text.
    A,
    /// Position in the second text.
    B,
    /// Offset between the texts (`b - a`): seeds of one passage drift
    /// along it slowly (words inserted, deleted or moved); a phrase that
    /// also occurs elsewhere nearby makes seeds on another diagonal.
    Diagonal,
}

impl Axis {
    /// Where `seed` is along this axis, and how far it reaches.
    fn of(self, seed: &Seed, width: u32) -> (i64, i64) {
        let (a, b) = (i64::from(seed.a), i64::from(seed.b));
        let width = i64::from(width);
        match self {
            Axis::A => (a, a + width - 1),
            Axis::B => (b, b + width - 1),
            Axis::Diagonal => (b - a, b - a),
        }
    }

    /// Where `seed` sorts along this axis: by its place, then by the other
    /// text's (what `of` gives, then `a`, then `b`), packed in one integer
    /// so that sorting compares one number. Word indices are below 2^31
    /// (texts are at most `MAX_TEXT_BYTES`), so a diagonal shifted by 2^31
    /// fits in 32 bits; on a diagonal, `a` alone orders the seeds.
    fn order(self, seed: &Seed) -> u64 {
        let (a, b) = (u64::from(seed.a), u64::from(seed.b));
        match self {
            Axis::A => a << 32 | b,
            Axis::B => b << 32 | a,
            Axis::Diagonal => ((b + (1 << 31) - a) << 32) | a,
        }
    }

    fn next(self) -> Axis {
        match self {
            Axis::A => Axis::B,
            Axis::B => Axis::Diagonal,
            Axis::Diagonal => Axis::A,
        }
    }
}

/// Axes a group is split along.
const AXES: u8 = 3;

/// The seeds that have a neighbour on about the same diagonal: another seed
/// at most `max_gap` content words away in the first text whose offset
/// between the texts (`b - a`) differs by at most `max_shift`. Inside a
/// copied passage seeds line up (edits shift them a little); a word pair
/// that merely happens to occur in both texts has no such neighbour, and
/// left in it would stretch a passage past its true end.
pub(crate) fn supported(mut seeds: Vec<Seed>, max_gap: u32, max_shift: u32) -> Vec<Seed> {
    seeds.sort_unstable_by_key(in_first_text_order);
    let diagonal = |seed: &Seed| i64::from(seed.b) - i64::from(seed.a);
    let near = |x: &Seed, y: &Seed| (diagonal(x) - diagonal(y)).unsigned_abs() <= u64::from(max_shift);
    // Each seed looks for one neighbour, the closest in the first text
    // first, and stops there: inside a passage it is the next seed.
    let keep: Vec<bool> = (0..seeds.len())
        .map(|i| {
            let seed = &seeds[i];
            seeds[i + 1..]
                .iter()
                .take_while(|later| later.a - seed.a <= max_gap)
                .any(|later| near(seed, later))
                || seeds[..i]
                    .iter()
                    .rev()
                    .take_while(|earlier| seed.a - earlier.a <= max_gap)
                    .any(|earlier| near(seed, earlier))
        })
        .collect();
    seeds.into_iter().zip(keep).filter_map(|(seed, kept)| kept.then_some(seed)).collect()
}

/// Where `seed` sorts by place in the first text, then in the second.
pub(crate) fn in_first_text_order(seed: &Seed) -> u64 {
    Axis::A.order(seed)
}

/// `seeds` sorted along `axis`, and where to cut them (into `cuts`,
/// emptied first): the indices of the seeds starting more than `max_gap`
/// after the reach of every earlier one (none, mostly: the seeds of one
/// passage stay whole).
fn sort_and_cut(seeds: &mut [Seed], axis: Axis, width: u32, max_gap: u32, cuts: &mut Vec<usize>) {
    seeds.sort_unstable_by_key(|seed| axis.order(seed));
    cuts.clear();
    let mut reach = i64::MIN;
    for (at_seed, seed) in seeds.iter().enumerate() {
        let (at, end) = axis.of(seed, width);
        if at_seed > 0 && at > reach + i64::from(max_gap) {
            cuts.push(at_seed);
        }
        // A seed ends where it starts or later: past a cut, `end` is the reach.
        reach = reach.max(end);
    }
}

/// The groups of seeds close together in both texts and on nearby
/// diagonals (see the module): gaps of at most `max_gap` words in either
/// text, `max_shift` between diagonals.
pub(crate) fn groups(mut seeds: Vec<Seed>, width: u32, max_gap: u32, max_shift: u32) -> Vec<Group> {
    // Each piece of work: a range of `seeds`, the axis to split along next,
    // and along how many axes in a row it is known to be whole. A piece
    // sorted in place stays inside its range, so its parts are ranges too:
    // cut into copies, a pair's pieces were a third of the allocations of
    // a passage search (BENCHMARKS.md, stop 60).
    if seeds.is_empty() {
        return Vec::new();
    }
    let mut work = vec![(0..seeds.len(), Axis::A, 0u8)];
    let (mut groups, mut cuts) = (Vec::new(), Vec::new());
    while let Some((range, axis, whole)) = work.pop() {
        let gap = if matches!(axis, Axis::Diagonal) { max_shift } else { max_gap };
        let piece = &mut seeds[range.clone()];
        sort_and_cut(piece, axis, width, gap, &mut cuts);
        if cuts.is_empty() {
            if whole + 1 == AXES {
                groups.push(group_of(piece, width));
            } else {
                work.push((range, axis.next(), whole + 1));
            }
            continue;
        }
        let bounds = |cut: &usize| range.start + cut;
        let ends = cuts.iter().map(bounds).chain([range.end]);
        let starts = [range.start].into_iter().chain(cuts.iter().map(bounds));
        work.extend(starts.zip(ends).map(|(start, end)| (start..end, axis.next(), 1)));
    }
    groups.sort_unstable_by_key(|group| (group.a_first, group.b_first));
    groups
}

fn group_of(seeds: &[Seed], width: u32) -> Group {
    let a_first = seeds.iter().map(|s| s.a).min().expect("a group has seeds");
    let a_last = seeds.iter().map(|s| s.a).max().expect("a group has seeds") + width - 1;
    let b_first = seeds.iter().map(|s| s.b).min().expect("a group has seeds");
    let b_last = seeds.iter().map(|s| s.b).max().expect("a group has seeds") + width - 1;
    Group { a_first, a_last, b_first, b_last, seeds: seeds.len(), shared: 0 }
}

/// How many words two bags of words share, counted with repeats. Word
/// order does not count, so reordering inside a passage costs nothing.
///
/// Words equal at the same offset of both sides are paired off first:
/// taking one word out of both bags lowers the count by exactly one
/// (`min(x, y) − 1 = min(x − 1, y − 1)`), so the count is those words plus
/// what the rest share. A verbatim passage is all such words and never
/// reaches the map; on the generated corpus, where most reported passages
/// are verbatim, counting was 7 % of the search's time.
pub(crate) fn shared_words(a: &[Word], b: &[Word]) -> u64 {
    let common = a.len().min(b.len());
    let differs = |&at: &usize| a[at].hash != b[at].hash;
    let paired = (0..common).filter(|at| !differs(at)).count();
    if paired == a.len() || paired == b.len() {
        return paired as u64;
    }
    let a_rest =
        (0..common).filter(differs).map(|at| a[at].hash).chain(a[common..].iter().map(|word| word.hash));
    let b_rest =
        (0..common).filter(differs).map(|at| b[at].hash).chain(b[common..].iter().map(|word| word.hash));
    paired as u64 + bag_shared(a_rest, a.len() - paired, b_rest)
}

/// How many hashes of `b` are found in the bag of `a` (`a_len` of them),
/// each found hash taken out of it.
fn bag_shared(a: impl Iterator<Item = u64>, a_len: usize, b: impl Iterator<Item = u64>) -> u64 {
    // Word hashes are mixed already: the map needs no hashing of its own.
    let mut counts: HashMap<u64, i64, BuildHasherDefault<KeyHasher>> =
        HashMap::with_capacity_and_hasher(a_len, BuildHasherDefault::default());
    for hash in a {
        *counts.entry(hash).or_default() += 1;
    }
    let mut shared = 0u64;
    for hash in b {
        if let Some(count) = counts.get_mut(&hash)
            && *count > 0
        {
            *count -= 1;
            shared += 1;
        }
    }
    shared
}

impl Group {
    /// Content words on each side.
    pub(crate) fn lengths(&self) -> (u32, u32) {
        (self.a_last - self.a_first + 1, self.b_last - self.b_first + 1)
    }

    /// Dice similarity of the two sides from `shared`: twice the shared
    /// words over the words of both, 0 to 1.
    pub(crate) fn dice(&self) -> f64 {
        let (a, b) = self.lengths();
        (2 * self.shared) as f64 / f64::from(a + b)
    }
}

/// Whether `next` (later in the first text) continues `group` within
/// `gap` words in both texts.
pub(crate) fn continues(group: &Group, next: &Group, gap: u32) -> bool {
    next.a_first <= group.a_last.saturating_add(gap)
        && next.b_first <= group.b_last.saturating_add(gap)
        && group.b_first <= next.b_last.saturating_add(gap)
}

/// Whether two groups overlap in both texts: two views of one passage.
pub(crate) fn overlaps(x: &Group, y: &Group) -> bool {
    x.a_first <= y.a_last && y.a_first <= x.a_last && x.b_first <= y.b_last && y.b_first <= x.b_last
}

/// The smallest group covering both.
pub(crate) fn joined(group: &Group, next: &Group) -> Group {
    Group {
        a_first: group.a_first.min(next.a_first),
        a_last: group.a_last.max(next.a_last),
        b_first: group.b_first.min(next.b_first),
        b_last: group.b_last.max(next.b_last),
        seeds: group.seeds + next.seeds,
        shared: group.shared + next.shared,
    }
}

/// Steps over an edit at a passage's end that keep it going, when the next
/// word on both sides does not match: past one word replaced, inserted in
/// the first text or inserted in the second, the two words after it
/// matching.
const EDITS: [[(u32, u32); 2]; 3] = [[(2, 2), (3, 3)], [(2, 1), (3, 2)], [(1, 2), (2, 3)]];

/// `group` with its ends moved outward over the words both texts have
/// there, in a row or past an edit ([`EDITS`]): its first and last seeds
/// may lie a few words inside the passage (winnowing marks are about 2 in
/// 5 of its k-grams).
pub(crate) fn extended(group: Group, a: &[Word], b: &[Word]) -> Group {
    let (a_first, b_first) = reach(a, b, (group.a_first, group.b_first), false);
    let (a_last, b_last) = reach(a, b, (group.a_last, group.b_last), true);
    Group { a_first, a_last, b_first, b_last, ..group }
}

/// How far the words at `at` (in `a`, in `b`) extend, forwards or
/// backwards.
fn reach(a: &[Word], b: &[Word], mut at: (u32, u32), forwards: bool) -> (u32, u32) {
    let moved = |at: (u32, u32), by: (u32, u32)| moved(at, by, forwards);
    let alike = |(p, q): (&Word, &Word)| p.hash == q.hash;
    let same = |(x, y): (u32, u32)| a.get(x as usize).zip(b.get(y as usize)).is_some_and(alike);
    loop {
        // The words matching in a row, in one run (a passage's ends are
        // mostly words copied as they were; one step at a time, this was
        // 4 % of the 3 GB corpus's verifying).
        let (x, y) = (at.0 as usize, at.1 as usize);
        let in_a_row = if forwards {
            let (a_after, b_after) = (a.get(x + 1..).unwrap_or_default(), b.get(y + 1..).unwrap_or_default());
            a_after.iter().zip(b_after).take_while(|&pair| alike(pair)).count()
        } else {
            let (a_before, b_before) = (a.get(..x).unwrap_or_default(), b.get(..y).unwrap_or_default());
            a_before.iter().rev().zip(b_before.iter().rev()).take_while(|&pair| alike(pair)).count()
        };
        let in_a_row = seeds::index(in_a_row);
        at = moved(at, (in_a_row, in_a_row)).unwrap_or(at);
        let step = EDITS.iter().find_map(|&[first, second]| {
            let (first, second) = (moved(at, first)?, moved(at, second)?);
            (same(first) && same(second)).then_some(second)
        });
        match step {
            Some(next) => at = next,
            None => return at,
        }
    }
}

/// Places `(x, y)` moved by `(by_x, by_y)` words forwards or backwards
/// (none before the texts' start).
fn moved((x, y): (u32, u32), (by_x, by_y): (u32, u32), forwards: bool) -> Option<(u32, u32)> {
    if forwards {
        x.checked_add(by_x).zip(y.checked_add(by_y))
    } else {
        x.checked_sub(by_x).zip(y.checked_sub(by_y))
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
        let found = groups(seeds(&[(10, 50), (11, 53), (12, 51), (14, 52)]), 2, 3, 3);
        assert_eq!(found, [Group { a_first: 10, a_last: 15, b_first: 50, b_last: 54, seeds: 4, shared: 0 }]);
    }

    #[test]
    fn a_gap_in_either_text_splits_a_group() {
        // Close in the first text, far apart in the second: two passages.
        let found = groups(seeds(&[(0, 0), (1, 1), (2, 100), (3, 101)]), 1, 5, 100);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].b_first, found[1].b_first), (0, 100));
        // Far apart in the first text.
        assert_eq!(groups(seeds(&[(0, 0), (1, 1), (100, 2), (101, 3)]), 1, 5, 200).len(), 2);
    }

    #[test]
    fn splitting_repeats_until_stable() {
        // Along a: one run. Along b: {0,1,2} and {200}; then {0,1,2} along a
        // has a gap between 0,1 and 60 once 2 (at a=30, b=200) is gone.
        let found = groups(seeds(&[(0, 0), (1, 1), (30, 200), (60, 2)]), 1, 30, 200);
        assert_eq!(found.len(), 3, "{found:?}");
    }

    #[test]
    fn a_phrase_repeated_nearby_is_another_diagonal() {
        // One passage on diagonal +10 (drifting to +12); a phrase of it
        // found again 30 words further in the second text.
        let pairs = [(0, 10), (2, 12), (4, 15), (6, 18), (8, 20), (3, 43), (4, 44)];
        let found = groups(seeds(&pairs), 1, 12, 6);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!((found[0].b_first, found[0].b_last), (10, 20));
    }

    /// [`groups`] by recursion on copies: each piece cut along an axis by
    /// [`sort_and_cut`], its parts copied out and split along the next
    /// axes, until one is whole along all three in a row. What it checks
    /// of [`groups`] is the bookkeeping of pieces as ranges of one array.
    fn groups_by_recursion(
        seeds: &[Seed],
        axis: Axis,
        whole: u8,
        width: u32,
        gap: u32,
        shift: u32,
    ) -> Vec<Group> {
        if whole == AXES {
            return vec![group_of(seeds, width)];
        }
        let (mut sorted, mut cuts) = (seeds.to_vec(), Vec::new());
        let limit = if matches!(axis, Axis::Diagonal) { shift } else { gap };
        sort_and_cut(&mut sorted, axis, width, limit, &mut cuts);
        if cuts.is_empty() {
            return groups_by_recursion(&sorted, axis.next(), whole + 1, width, gap, shift);
        }
        let bounds: Vec<usize> = [0].into_iter().chain(cuts).chain([sorted.len()]).collect();
        bounds
            .windows(2)
            .flat_map(|part| {
                groups_by_recursion(&sorted[part[0]..part[1]], axis.next(), 1, width, gap, shift)
            })
            .collect()
    }

    #[test]
    fn groups_are_those_of_splitting_copies_until_whole() {
        let mut rng = fastrand::Rng::with_seed(29);
        let key = |group: &Group| (group.a_first, group.b_first, group.a_last, group.b_last, group.seeds);
        for _ in 0..500 {
            let mut pairs: Vec<(u32, u32)> =
                (0..rng.usize(1..80)).map(|_| (rng.u32(0..120), rng.u32(0..120))).collect();
            pairs.sort_unstable();
            pairs.dedup();
            let (width, gap, shift) = (rng.u32(1..4), rng.u32(0..20), rng.u32(0..8));
            let mut expected = groups_by_recursion(&seeds(&pairs), Axis::A, 0, width, gap, shift);
            let mut shuffled = seeds(&pairs);
            rng.shuffle(&mut shuffled);
            let mut found = groups(shuffled, width, gap, shift);
            assert_eq!(found.iter().map(|group| group.seeds).sum::<usize>(), pairs.len());
            expected.sort_unstable_by_key(key);
            found.sort_unstable_by_key(key);
            assert_eq!(found, expected, "width {width} gap {gap} shift {shift}: {pairs:?}");
        }
    }

    #[test]
    fn a_seed_off_its_neighbours_diagonal_is_dropped() {
        // 0..4 on one diagonal (one shifted by 2); (5, 90) is alone.
        let kept = supported(seeds(&[(0, 10), (1, 11), (2, 14), (5, 90), (30, 40)]), 10, 3);
        assert_eq!(kept, seeds(&[(0, 10), (1, 11), (2, 14)]));
    }

    #[test]
    fn supported_seeds_are_those_with_a_close_neighbour() {
        let mut rng = fastrand::Rng::with_seed(13);
        for _ in 0..300 {
            let mut pairs: Vec<(u32, u32)> =
                (0..rng.usize(0..60)).map(|_| (rng.u32(0..80), rng.u32(0..80))).collect();
            pairs.sort_unstable();
            pairs.dedup();
            let (gap, shift) = (rng.u32(0..15), rng.u32(0..8));
            let close = |x: (u32, u32), y: (u32, u32)| {
                x.0.abs_diff(y.0) <= gap
                    && (i64::from(x.1) - i64::from(x.0) - (i64::from(y.1) - i64::from(y.0))).unsigned_abs()
                        <= u64::from(shift)
            };
            let expected: Vec<(u32, u32)> = pairs
                .iter()
                .enumerate()
                .filter(|&(i, &x)| pairs.iter().enumerate().any(|(j, &y)| i != j && close(x, y)))
                .map(|(_, &x)| x)
                .collect();
            let mut shuffled = seeds(&pairs);
            rng.shuffle(&mut shuffled);
            let kept: Vec<(u32, u32)> = supported(shuffled, gap, shift).iter().map(|s| (s.a, s.b)).collect();
            assert_eq!(kept, expected, "gap {gap} shift {shift}");
        }
    }

    fn words(hashes: &[u64]) -> Vec<Word> {
        hashes.iter().map(|&hash| Word { hash, start: 0, end: 0 }).collect()
    }

    #[test]
    fn a_group_extends_over_matching_words_and_single_edits() {
        //          0  1  2  3  4  5  6  7  8  9 10 11
        let a = words(&[9, 1, 2, 3, 4, 5, 6, 7, 8, 40, 41, 42]);
        let b = words(&[1, 2, 77, 4, 5, 6, 7, 88, 99, 41, 50]);
        // Seeds covered a 5..=6, b 4..=5 (diagonal -1).
        let group = Group { a_first: 5, a_last: 6, b_first: 4, b_last: 5, seeds: 2, shared: 0 };
        let found = extended(group, &a, &b);
        // Backwards: 4 (b 3) matches, 3 (b 2: 77) does not but 2 and 1 do;
        // then a 0 has no b before it. Forwards: 7 matches, then 8 and 9
        // both differ.
        assert_eq!((found.a_first, found.a_last, found.b_first, found.b_last), (1, 7, 0, 6));
        // A word inserted in the second text is stepped over.
        let (a, b) = (words(&[1, 2, 3, 4, 5, 6]), words(&[1, 2, 50, 3, 4, 5, 6]));
        let group = Group { a_first: 4, a_last: 5, b_first: 5, b_last: 6, seeds: 2, shared: 0 };
        let found = extended(group, &a, &b);
        assert_eq!((found.a_first, found.a_last, found.b_first, found.b_last), (0, 5, 0, 6));
        // At the texts' ends nothing moves past them.
        let whole = words(&[1, 2, 3]);
        let group = Group { a_first: 1, a_last: 1, b_first: 1, b_last: 1, seeds: 1, shared: 0 };
        let found = extended(group, &whole, &whole);
        assert_eq!((found.a_first, found.a_last, found.b_first, found.b_last), (0, 2, 0, 2));
    }

    #[test]
    fn shared_words_count_repeats_and_ignore_order() {
        let words = |hashes: &[u64]| -> Vec<Word> {
            hashes.iter().map(|&hash| Word { hash, start: 0, end: 0 }).collect()
        };
        assert_eq!(shared_words(&words(&[1, 2, 3]), &words(&[3, 2, 1])), 3);
        assert_eq!(shared_words(&words(&[1, 1, 2]), &words(&[1, 2, 2])), 2);
        assert_eq!(shared_words(&words(&[1]), &words(&[2])), 0);
        assert_eq!(shared_words(&words(&[1, 2, 3, 4]), &words(&[1, 2])), 2);
        assert_eq!(shared_words(&words(&[1, 2]), &words(&[1, 5, 2])), 2);
        let group = Group { a_first: 0, a_last: 2, b_first: 5, b_last: 7, seeds: 1, shared: 2 };
        assert_eq!(group.dice(), 4.0 / 6.0);
    }

    /// The shared words counted from the bags alone: each word's fewest
    /// occurrences on either side.
    fn shared_in_bags(a: &[Word], b: &[Word]) -> u64 {
        let mut counts: HashMap<u64, (u64, u64)> = HashMap::new();
        a.iter().for_each(|word| counts.entry(word.hash).or_default().0 += 1);
        b.iter().for_each(|word| counts.entry(word.hash).or_default().1 += 1);
        counts.values().map(|&(x, y)| x.min(y)).sum()
    }

    /// [`reach`] one word or edit at a time: the next words matching, or
    /// one of [`EDITS`].
    fn reach_step_by_step(a: &[Word], b: &[Word], mut at: (u32, u32), forwards: bool) -> (u32, u32) {
        let moved = |at: (u32, u32), by: (u32, u32)| moved(at, by, forwards);
        let same = |(x, y): (u32, u32)| {
            a.get(x as usize).zip(b.get(y as usize)).is_some_and(|(x, y)| x.hash == y.hash)
        };
        let steps = [[(1, 1), (1, 1)]].into_iter().chain(EDITS);
        loop {
            let step = steps.clone().find_map(|[first, second]| {
                let (first, second) = (moved(at, first)?, moved(at, second)?);
                (same(first) && same(second)).then_some(second)
            });
            match step {
                Some(next) => at = next,
                None => return at,
            }
        }
    }

    #[test]
    fn reaching_over_words_in_a_row_at_once_reaches_as_far_as_step_by_step() {
        let mut rng = fastrand::Rng::with_seed(43);
        for _ in 0..5_000 {
            let (a, b) = crate::related::related_words(&mut rng, 3);
            let at = (rng.u32(0..=a.len() as u32), rng.u32(0..=b.len() as u32));
            for forwards in [true, false] {
                assert_eq!(
                    reach(&a, &b, at, forwards),
                    reach_step_by_step(&a, &b, at, forwards),
                    "{a:?} {b:?} {at:?}"
                );
            }
        }
    }

    #[test]
    fn words_paired_off_at_the_same_offset_count_as_the_bags() {
        let mut rng = fastrand::Rng::with_seed(41);
        for _ in 0..2_000 {
            let (a, b) = crate::related::related_words(&mut rng, 8);
            assert_eq!(shared_words(&a, &b), shared_in_bags(&a, &b), "{a:?} {b:?}");
        }
    }
}
