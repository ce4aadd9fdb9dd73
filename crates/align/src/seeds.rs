//! Seeds: places where both texts have the same few content words next to
//! each other, in any order (a *sorted* word n-gram: shuffling words inside
//! it does not change its key). Each text's keys are sorted once
//! ([`sorted_keys`]) and two texts' seeds are a merge of their lists
//! ([`joined_seeds`]); the tests check it against a table of the second
//! text's keys looked up word by word (`SourceKeys`).

use crate::AlignError;
use crate::words::Word;
use std::hash::Hasher;
use std::ops::Range;

/// Content words per seed key, at most.
pub const MAX_SEED_WORDS: usize = 8;

/// A seed: the index (among content words) of the first word of the same
/// key in the first text (`a`) and in the second (`b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Seed {
    pub(crate) a: u32,
    pub(crate) b: u32,
}

/// The most words a key is made of: a winnowing k-gram of
/// [`MAX_SEED_WORDS`] words holds twice as many letters of a script
/// written without spaces ([`crate::Winnowing`]).
const MAX_KEY_WORDS: usize = 2 * MAX_SEED_WORDS;

/// The key of `words` (at most [`MAX_KEY_WORDS`]): their hashes sorted and
/// mixed, so that the order of the words does not matter.
#[inline]
pub(crate) fn key(words: &[Word]) -> u64 {
    // The default k-gram, three words, sorted by three compare-exchanges
    // in registers: keys are made for every k-gram of every text winnowed,
    // in both passes of a passage search, and making them through the
    // general sort below was a tenth of the planted sample's search
    // (BENCHMARKS.md, stop 50).
    if let [x, y, z] = words {
        let (low, high) = (x.hash.min(y.hash), x.hash.max(y.hash));
        let (middle, top) = (high.min(z.hash), high.max(z.hash));
        return [low.min(middle), low.max(middle), top].into_iter().fold(KEY_START, mixed);
    }
    assert!(words.len() <= MAX_KEY_WORDS, "a key is made of at most {MAX_KEY_WORDS} words");
    let mut hashes = [0u64; MAX_KEY_WORDS];
    for (slot, word) in hashes.iter_mut().zip(words) {
        *slot = word.hash;
    }
    let hashes = &mut hashes[..words.len()];
    sort_few(hashes);
    hashes.iter().copied().fold(KEY_START, mixed)
}

/// A key's value before its first hash.
const KEY_START: u64 = 0x9e37_79b9_7f4a_7c15;

/// `key` with one more hash (the next larger) mixed in.
#[inline]
fn mixed(key: u64, hash: u64) -> u64 {
    (key.rotate_left(23) ^ hash).wrapping_mul(0x2545_f491_4f6c_dd1d)
}

/// `hashes` (at most [`MAX_KEY_WORDS`]) sorted by odd-even transposition:
/// compare-exchanges as `min` and `max`, without branches. Keys are of a
/// few words (3 by default) and made for every k-gram of every text
/// winnowed; a sort that branches on random hashes mispredicts about once
/// a key (winnowing the planted sample's texts on one core: 1.01 s with
/// `sort_unstable`, 0.94 s with this).
fn sort_few(hashes: &mut [u64]) {
    let n = hashes.len();
    for round in 0..n {
        for at in (round % 2..n.saturating_sub(1)).step_by(2) {
            let (x, y) = (hashes[at], hashes[at + 1]);
            hashes[at] = x.min(y);
            hashes[at + 1] = x.max(y);
        }
    }
}

/// Keys (and word hashes) are already well-mixed hashes: a map over them
/// needs no hashing.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8)) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = value;
    }
}

/// Sorted keys and where each was found, side by side: a merge of two
/// texts' keys reads the keys alone, 8 bytes a step where `(key, place)`
/// pairs cost 16 (the merge waits on memory: most of a text's keys are
/// read once per pair it is aligned with).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keys<'k> {
    pub(crate) keys: &'k [u64],
    pub(crate) places: &'k [u32],
}

/// [`Keys`] owned.
#[derive(Debug, Clone)]
pub(crate) struct KeyList {
    keys: Vec<u64>,
    places: Vec<u32>,
}

impl KeyList {
    /// `(key, place)` pairs sorted, split.
    pub(crate) fn of_sorted(keyed: &[(u64, u32)]) -> KeyList {
        KeyList {
            keys: keyed.iter().map(|&(key, _)| key).collect(),
            places: keyed.iter().map(|&(_, at)| at).collect(),
        }
    }

    pub(crate) fn as_keys(&self) -> Keys<'_> {
        Keys { keys: &self.keys, places: &self.places }
    }
}

/// The keys of `words` (`width` words each) with where each starts,
/// sorted by key then position, so that two texts' seeds are a merge of
/// two sorted lists ([`joined_seeds`]) instead of a table of one text.
pub(crate) fn sorted_keys(words: &[Word], width: usize) -> KeyList {
    let mut keyed: Vec<(u64, u32)> =
        words.windows(width).enumerate().map(|(at, window)| (key(window), index(at))).collect();
    keyed.sort_unstable();
    KeyList::of_sorted(&keyed)
}

/// The seeds of two texts' sorted keys (`a`'s and `b`'s: their
/// [`sorted_keys`], or their winnowing marks): every pair of positions
/// with the same key, but for keys found more than `max_occurrences` times
/// in `b` (boilerplate, which locates nothing, and would make the seeds
/// grow with the product of the texts' lengths), or
/// [`AlignError::TooManySeeds`] past `max_seeds`. In key order.
pub(crate) fn joined_seeds(
    a: Keys<'_>,
    b: Keys<'_>,
    max_occurrences: usize,
    max_seeds: usize,
) -> Result<Vec<Seed>, AlignError> {
    let mut seeds = Vec::new();
    each_shared(a, b, |a_run, b_run| {
        if b_run.len() <= max_occurrences {
            add_seeds(&mut seeds, a_run, b_run, max_seeds)?;
        }
        Ok(())
    })?;
    Ok(seeds)
}

/// Adds to `seeds` every pair of places of one key's runs in `a` and `b`,
/// or leaves them and returns [`AlignError::TooManySeeds`] past
/// `max_seeds`. A key held once by each text (most are) is pushed as it
/// is: going through the general loop, with the seeds moved in and out of
/// a `Result` for each key, was a tenth of a candidate pair's merge.
pub(crate) fn add_seeds(
    seeds: &mut Vec<Seed>,
    a_run: &[u32],
    b_run: &[u32],
    max_seeds: usize,
) -> Result<(), AlignError> {
    let total = seeds.len() + a_run.len() * b_run.len();
    if total > max_seeds {
        return Err(AlignError::TooManySeeds { seeds: total, limit: max_seeds });
    }
    if let ([a], [b]) = (a_run, b_run) {
        seeds.push(Seed { a: *a, b: *b });
        return Ok(());
    }
    for &at_a in a_run {
        seeds.extend(b_run.iter().map(|&at_b| Seed { a: at_a, b: at_b }));
    }
    Ok(())
}

/// Calls `found` with the places in `a` and in `b` (both sorted) of each
/// key both hold, in key order, until it fails. Texts of about the same
/// length are merged without branching on their keys ([`stepping`]); a
/// text many times shorter than the other is looked up in it by
/// galloping ([`galloping`]).
pub(crate) fn each_shared<E>(
    a: Keys<'_>,
    b: Keys<'_>,
    mut found: impl FnMut(&[u32], &[u32]) -> Result<(), E>,
) -> Result<(), E> {
    let (shorter, longer) = (a.keys.len().min(b.keys.len()), a.keys.len().max(b.keys.len()));
    let runs = |a_run: Range<usize>, b_run: Range<usize>| {
        found(a.places.get(a_run).unwrap_or_default(), b.places.get(b_run).unwrap_or_default())
    };
    if longer > GALLOP_PAST * shorter {
        galloping(a.keys, b.keys, runs)
    } else {
        stepping(a.keys, b.keys, runs)
    }
}

/// How many times longer one text's keys are than the other's for
/// [`each_shared`] to gallop through them.
const GALLOP_PAST: usize = 8;

/// [`each_shared`]'s merge of two sorted lists of keys of about the same
/// length, calling `found` with the index ranges of each key both hold.
/// Which key is smaller, and whether two are equal, is as random as the
/// hashes: branching on it mispredicts about every other step. So the
/// merge goes [`STEPS`] steps at a time, moving on by the comparisons'
/// outcomes alone (both lists on equal keys) and writing down where the
/// keys were equal; then it goes through those (a few) and takes each
/// key's runs where it first met them, at the start of both.
fn stepping<E>(
    a: &[u64],
    b: &[u64],
    mut found: impl FnMut(Range<usize>, Range<usize>) -> Result<(), E>,
) -> Result<(), E> {
    // On the stack: no allocation for each pair of a search, whatever the
    // texts' lengths.
    let mut equal = [(0u32, 0u32); STEPS];
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let mut count = 0;
        // At each write, fewer equal pairs than steps taken in this block.
        for _ in 0..STEPS {
            let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) else { break };
            equal[count] = (index(i), index(j));
            count += usize::from(x == y);
            (i, j) = (i + usize::from(x <= y), j + usize::from(y <= x));
        }
        for &(i, j) in &equal[..count] {
            let (i, j) = (i as usize, j as usize);
            // Past a run's first equal pair, both lists are inside its runs.
            if i > 0 && a[i - 1] == a[i] {
                continue;
            }
            found(i..run_end(a, i), j..run_end(b, j))?;
        }
    }
    Ok(())
}

/// Steps [`stepping`] takes before going through the equal keys found.
const STEPS: usize = 256;

/// [`each_shared`]'s merge of a short list of keys with a long one,
/// calling `found` with the index ranges of each key both hold, moving
/// past unequal keys by galloping: the smaller key's list moves to its
/// first key not below the other's.
fn galloping<E>(
    a: &[u64],
    b: &[u64],
    mut found: impl FnMut(Range<usize>, Range<usize>) -> Result<(), E>,
) -> Result<(), E> {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x == y {
            let (a_end, b_end) = (run_end(a, i), run_end(b, j));
            found(i..a_end, j..b_end)?;
            (i, j) = (a_end, b_end);
        } else if x < y {
            i = skip(a, i, |key| key < y);
        } else {
            j = skip(b, j, |key| key < x);
        }
    }
    Ok(())
}

/// The end of the run of `keys[from]`'s key (a key held once, mostly).
fn run_end(keys: &[u64], from: usize) -> usize {
    let key = keys[from];
    from + 1 + keys[from + 1..].iter().take_while(|&&other| other == key).count()
}

/// The first index after `from` of sorted `keys` whose key is not
/// `before` (`keys.len()` if none), `before` holding for `keys[from]` and
/// then for a prefix of the rest: found by galloping (steps doubling from
/// `from`, then a binary search), so that a short text's keys are found in
/// a long one's in time growing with the short one's. The next key is
/// tried first: the skip ends there when the two texts are of about the
/// same length, and a key's run ends there (one place, mostly); the first
/// step's binary search was a third of the merge.
fn skip(keys: &[u64], from: usize, before: impl Fn(u64) -> bool) -> usize {
    if keys.get(from + 1).is_none_or(|&next| !before(next)) {
        return from + 1;
    }
    let (mut low, mut step) = (from + 1, 1);
    while low + step < keys.len() && before(keys[low + step]) {
        low += step;
        step *= 2;
    }
    let high = (low + step + 1).min(keys.len());
    low + keys[low..high].partition_point(|&key| before(key))
}

/// A word index of a text under 4 GiB (fewer words than bytes).
pub(crate) fn index(at: usize) -> u32 {
    u32::try_from(at).expect("texts are limited to fewer than 2^32 bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_hashes_are_sorted_as_a_sort_sorts_them() {
        let mut rng = fastrand::Rng::with_seed(17);
        for n in 0..=MAX_KEY_WORDS {
            for _ in 0..200 {
                // Few distinct values, so that equal hashes are common.
                let mut hashes: Vec<u64> = (0..n).map(|_| rng.u64(0..5) << 62 | rng.u64(0..3)).collect();
                let mut expected = hashes.clone();
                expected.sort_unstable();
                sort_few(&mut hashes);
                assert_eq!(hashes, expected);
            }
        }
    }
    use std::collections::HashMap;
    use std::hash::BuildHasherDefault;

    /// Where each key of the second text occurs: a range of `positions`.
    struct SourceKeys {
        ranges: HashMap<u64, (u32, u32), BuildHasherDefault<KeyHasher>>,
        positions: Vec<u32>,
    }

    impl SourceKeys {
        /// The keys of `words` (`width` words each). A key found more than
        /// `max_occurrences` times is left out: it is boilerplate, which
        /// locates nothing, and keeping it would make the seeds grow with the
        /// product of the texts' lengths.
        fn new(words: &[Word], width: usize, max_occurrences: usize) -> SourceKeys {
            let mut keyed: Vec<(u64, u32)> =
                words.windows(width).enumerate().map(|(at, window)| (key(window), index(at))).collect();
            keyed.sort_unstable();
            let mut ranges = HashMap::with_capacity_and_hasher(keyed.len(), BuildHasherDefault::default());
            let mut positions = Vec::with_capacity(keyed.len());
            for run in keyed.chunk_by(|x, y| x.0 == y.0) {
                if run.len() <= max_occurrences {
                    ranges.insert(run[0].0, (index(positions.len()), index(run.len())));
                    positions.extend(run.iter().map(|&(_, at)| at));
                }
            }
            SourceKeys { ranges, positions }
        }

        /// Every seed between `words` (the first text) and the indexed text,
        /// or [`AlignError::TooManySeeds`] past `max_seeds`.
        fn seeds(&self, words: &[Word], width: usize, max_seeds: usize) -> Result<Vec<Seed>, AlignError> {
            let mut seeds = Vec::new();
            for (at, window) in words.windows(width).enumerate() {
                if let Some(&(start, count)) = self.ranges.get(&key(window)) {
                    if seeds.len() + count as usize > max_seeds {
                        return Err(AlignError::TooManySeeds {
                            seeds: seeds.len() + count as usize,
                            limit: max_seeds,
                        });
                    }
                    let a = index(at);
                    let found = &self.positions[start as usize..(start + count) as usize];
                    seeds.extend(found.iter().map(|&b| Seed { a, b }));
                }
            }
            Ok(seeds)
        }
    }

    fn words(hashes: &[u64]) -> Vec<Word> {
        hashes.iter().map(|&hash| Word { hash, start: 0, end: 0 }).collect()
    }

    #[test]
    fn skipping_finds_the_first_key_past_a_run_as_a_scan_does() {
        let mut rng = fastrand::Rng::with_seed(19);
        for _ in 0..500 {
            let mut keys: Vec<u64> = (0..rng.usize(1..60)).map(|_| rng.u64(0..20)).collect();
            keys.sort_unstable();
            let from = rng.usize(0..keys.len());
            let key = keys[from];
            let bound = key + rng.u64(1..6);
            for before in [&(|other: u64| other == key) as &dyn Fn(u64) -> bool, &|other: u64| other < bound]
            {
                let scanned = (from..keys.len()).find(|&at| !before(keys[at])).unwrap_or(keys.len());
                assert_eq!(skip(&keys, from, before), scanned, "{keys:?} from {from}");
            }
        }
    }

    /// Each shared key's runs of places, in the first text and the second.
    type Runs = Vec<(Vec<u32>, Vec<u32>)>;
    /// [`stepping`] or [`galloping`], finding runs in a merge.
    type Merge =
        fn(&[u64], &[u64], &mut dyn FnMut(Range<usize>, Range<usize>) -> Result<(), ()>) -> Result<(), ()>;

    /// The runs `merge` finds in `a` and `b`.
    fn shared_runs(a: &KeyList, b: &KeyList, merge: Merge) -> Runs {
        let mut runs = Vec::new();
        let mut found = |x: Range<usize>, y: Range<usize>| {
            runs.push((a.places[x].to_vec(), b.places[y].to_vec()));
            Ok(())
        };
        merge(&a.keys, &b.keys, &mut found).unwrap();
        runs
    }

    /// Each shared key's runs of places found by comparing every key of
    /// `a` with every key of `b`.
    fn runs_by_brute_force(a: &KeyList, b: &KeyList) -> Runs {
        let mut runs: Runs = Vec::new();
        for (at, &key) in a.keys.iter().enumerate() {
            if at > 0 && a.keys[at - 1] == key {
                continue;
            }
            let places = |list: &KeyList| -> Vec<u32> {
                list.keys.iter().zip(&list.places).filter(|(k, _)| **k == key).map(|(_, &p)| p).collect()
            };
            let in_b = places(b);
            if !in_b.is_empty() {
                runs.push((places(a), in_b));
            }
        }
        runs
    }

    #[test]
    fn stepping_and_galloping_merges_find_every_shared_key_once() {
        let mut rng = fastrand::Rng::with_seed(23);
        let keys = |rng: &mut fastrand::Rng, most: usize| {
            // Few distinct keys, so that runs of one key are common.
            let mut keys: Vec<(u64, u32)> =
                (0..rng.usize(0..most)).map(|at| (rng.u64(0..40), at as u32)).collect();
            keys.sort_unstable();
            KeyList::of_sorted(&keys)
        };
        for _ in 0..2_000 {
            let longest = if rng.bool() { 600 } else { 60 };
            let (a, b) = (keys(&mut rng, 60), keys(&mut rng, longest));
            let expected = runs_by_brute_force(&a, &b);
            assert_eq!(shared_runs(&a, &b, |a, b, found| stepping(a, b, found)), expected, "{a:?} {b:?}");
            assert_eq!(shared_runs(&b, &a, |a, b, found| stepping(a, b, found)), runs_by_brute_force(&b, &a));
            assert_eq!(shared_runs(&a, &b, |a, b, found| galloping(a, b, found)), expected, "{a:?} {b:?}");
            let mut runs = Vec::new();
            each_shared(a.as_keys(), b.as_keys(), |x, y| {
                runs.push((x.to_vec(), y.to_vec()));
                Ok::<(), ()>(())
            })
            .unwrap();
            assert_eq!(runs, expected);
        }
    }

    #[test]
    fn a_key_ignores_the_order_of_its_words() {
        assert_eq!(key(&words(&[1, 2, 3])), key(&words(&[3, 1, 2])));
        assert_ne!(key(&words(&[1, 2, 3])), key(&words(&[1, 2, 4])));
        assert_ne!(key(&words(&[1, 2])), key(&words(&[1, 2, 2])));
    }

    #[test]
    fn a_key_is_its_hashes_sorted_and_mixed_whatever_their_number() {
        let mut rng = fastrand::Rng::with_seed(50);
        for _ in 0..20_000 {
            let len = rng.usize(1..=MAX_KEY_WORDS);
            // Small hashes too, so that keys with equal hashes are tried.
            let hashes: Vec<u64> =
                (0..len).map(|_| if rng.bool() { rng.u64(..4) } else { rng.u64(..) }).collect();
            let mut sorted = hashes.clone();
            sorted.sort_unstable();
            let expected = sorted.into_iter().fold(KEY_START, mixed);
            assert_eq!(key(&words(&hashes)), expected, "{hashes:?}");
        }
    }

    #[test]
    fn seeds_pair_every_occurrence_and_skip_frequent_keys() {
        let source = SourceKeys::new(&words(&[1, 2, 9, 1, 2, 5, 5, 5, 5]), 2, 2);
        let seeds = source.seeds(&words(&[2, 1, 7, 5, 5]), 2, 100).unwrap();
        // (1 2) is at 0 and 3; (5 5) occurs three times: too often.
        assert_eq!(seeds, [Seed { a: 0, b: 0 }, Seed { a: 0, b: 3 }]);
        let error = source.seeds(&words(&[2, 1, 7, 1, 2]), 2, 3).unwrap_err();
        assert_eq!(error, AlignError::TooManySeeds { seeds: 4, limit: 3 });
    }

    /// Up to 80 words of 6 distinct ones, so that keys repeat and some
    /// pass the cap.
    fn repetitive_text(rng: &mut fastrand::Rng) -> Vec<Word> {
        words(&(0..rng.usize(0..80)).map(|_| rng.u64(0..6)).collect::<Vec<_>>())
    }

    #[test]
    fn joined_seeds_are_the_source_keys_seeds() {
        let mut rng = fastrand::Rng::with_seed(5);
        for _ in 0..300 {
            let (a, b) = (repetitive_text(&mut rng), repetitive_text(&mut rng));
            let (width, cap) = (rng.usize(1..=3), rng.usize(1..=8));
            let mut expected = SourceKeys::new(&b, width, cap).seeds(&a, width, usize::MAX).unwrap();
            let (a_keys, b_keys) = (sorted_keys(&a, width), sorted_keys(&b, width));
            let mut joined = joined_seeds(a_keys.as_keys(), b_keys.as_keys(), cap, usize::MAX).unwrap();
            let order = |seed: &Seed| (seed.a, seed.b);
            expected.sort_unstable_by_key(order);
            joined.sort_unstable_by_key(order);
            assert_eq!(joined, expected);
            let limit = expected.len().saturating_sub(1).max(1);
            assert_eq!(
                joined_seeds(a_keys.as_keys(), b_keys.as_keys(), cap, limit).is_err(),
                expected.len() > limit
            );
        }
    }
}
