//! Tests' texts: two word sequences of a few distinct words (so that
//! repeats are common), the second a copy of the first lightly edited
//! (words replaced, deleted, inserted) or unrelated, for checking a fast
//! path against the plain computation it skips.

use crate::words::Word;

/// Up to 40 words of `distinct` hashes, and the second side.
pub(crate) fn related_words(rng: &mut fastrand::Rng, distinct: u64) -> (Vec<Word>, Vec<Word>) {
    let a: Vec<u64> = (0..rng.usize(0..40)).map(|_| rng.u64(0..distinct)).collect();
    let mut b =
        if rng.bool() { a.clone() } else { (0..rng.usize(0..40)).map(|_| rng.u64(0..distinct)).collect() };
    for _ in 0..rng.usize(0..4) {
        match rng.u8(0..3) {
            0 if !b.is_empty() => {
                let at = rng.usize(0..b.len());
                b[at] = rng.u64(0..distinct);
            }
            1 if !b.is_empty() => {
                b.remove(rng.usize(0..b.len()));
            }
            _ => b.insert(rng.usize(0..=b.len()), rng.u64(0..distinct)),
        }
    }
    let words = |hashes: Vec<u64>| hashes.into_iter().map(|hash| Word { hash, start: 0, end: 0 }).collect();
    (words(a), words(b))
}
