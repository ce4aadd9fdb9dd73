//! Per-bit counts of one-bits over many 64-bit words: the counters of
//! `simhash-doc` (counter *i* is `2 * ones[i] - words`).
//!
//! # Why bit-sliced
//!
//! Counting a word into 64 separate counters costs 64 updates, or, with
//! byte lanes and a lookup table, eight loads and eight additions. Counted
//! *bit-sliced* instead, the 64 counters are a handful of words whose bit
//! *i* holds one binary digit of counter *i*, and eight words are added at
//! once with seven carry-save adders (Harley and Seal's population count,
//! applied per bit position): about seven logical operations per word,
//! and no loads. The slices are turned into plain counts only every
//! [`FLUSH_BATCHES`] batches and at the end.

/// Words added at once.
pub(crate) const BATCH: usize = 8;

/// Digits of the count of eights kept bit-sliced; [`FLUSH_BATCHES`] is the
/// largest count they hold.
const EIGHTS_DIGITS: usize = 8;
const FLUSH_BATCHES: u32 = (1 << EIGHTS_DIGITS) - 1;

/// The one-bits counted so far at each of the 64 bit positions.
#[derive(Debug, Clone)]
pub(crate) struct BitCounts {
    /// Digits of weight 1, 2 and 4 of each count since the last flush.
    ones: u64,
    twos: u64,
    fours: u64,
    /// The count of eights since the last flush, digit `j` in `eights[j]`.
    eights: [u64; EIGHTS_DIGITS],
    batches: u32,
    /// Words waiting for a full batch.
    pending: [u64; BATCH],
    pending_len: usize,
    /// Counts flushed out of the slices, index = bit number.
    flushed: [u64; 64],
    /// Words in the batches added (`totals` adds the pending ones).
    words: u64,
}

impl Default for BitCounts {
    fn default() -> Self {
        BitCounts {
            ones: 0,
            twos: 0,
            fours: 0,
            eights: [0; EIGHTS_DIGITS],
            batches: 0,
            pending: [0; BATCH],
            pending_len: 0,
            flushed: [0; 64],
            words: 0,
        }
    }
}

/// Carry-save adder: the digits (high, low) of `a + b + c` at every bit.
#[inline(always)]
fn carry_save(a: u64, b: u64, c: u64) -> (u64, u64) {
    let u = a ^ b;
    ((a & b) | (u & c), u ^ c)
}

impl BitCounts {
    /// Counts one word.
    #[inline(always)]
    pub(crate) fn add(&mut self, word: u64) {
        self.pending[self.pending_len] = word;
        self.pending_len += 1;
        if self.pending_len == BATCH {
            self.pending_len = 0;
            self.add_batch(self.pending, BATCH);
        }
    }

    /// Counts the first `len` words of `batch`; the others must be zero.
    #[inline(always)]
    pub(crate) fn add_batch(&mut self, batch: [u64; BATCH], len: usize) {
        debug_assert!(batch[len..].iter().all(|&w| w == 0));
        let [w0, w1, w2, w3, w4, w5, w6, w7] = batch;
        let (twos_a, ones) = carry_save(self.ones, w0, w1);
        let (twos_b, ones) = carry_save(ones, w2, w3);
        let (fours_a, twos) = carry_save(self.twos, twos_a, twos_b);
        let (twos_a, ones) = carry_save(ones, w4, w5);
        let (twos_b, ones) = carry_save(ones, w6, w7);
        let (fours_b, twos) = carry_save(twos, twos_a, twos_b);
        let (eights, fours) = carry_save(self.fours, fours_a, fours_b);
        (self.ones, self.twos, self.fours) = (ones, twos, fours);
        let mut carry = eights;
        for digit in &mut self.eights {
            let next = *digit & carry;
            *digit ^= carry;
            carry = next;
        }
        self.words += len as u64;
        self.batches += 1;
        if self.batches == FLUSH_BATCHES {
            self.flush_eights();
        }
    }

    /// Moves the count of eights into `flushed` before it can overflow.
    fn flush_eights(&mut self) {
        for (j, &digit) in self.eights.iter().enumerate() {
            add_slice(&mut self.flushed, digit, 8 << j);
        }
        self.eights = [0; EIGHTS_DIGITS];
        self.batches = 0;
    }

    /// The words counted, and the one-bits at each position (index = bit
    /// number, 0 = least significant).
    pub(crate) fn totals(&self) -> (u64, [u64; 64]) {
        let mut counts = self.clone();
        let pending = std::mem::take(&mut counts.pending_len);
        let mut batch = [0; BATCH];
        batch[..pending].copy_from_slice(&self.pending[..pending]);
        counts.add_batch(batch, pending);
        counts.flush_eights();
        let mut totals = counts.flushed;
        add_slice(&mut totals, counts.ones, 1);
        add_slice(&mut totals, counts.twos, 2);
        add_slice(&mut totals, counts.fours, 4);
        (counts.words, totals)
    }
}

/// Adds `weight` to the total of every bit set in `slice`. A loop over all
/// 64 totals without a branch, which the compiler turns into vector code;
/// most slices of a short document are zero and skipped.
#[inline]
fn add_slice(totals: &mut [u64; 64], slice: u64, weight: u64) {
    if slice != 0 {
        for (bit, total) in totals.iter_mut().enumerate() {
            *total += (slice >> bit & 1) * weight;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a plain count, across many flushes and every pending length.
    #[test]
    fn equals_a_plain_count() {
        let mut rng = fastrand::Rng::with_seed(7);
        for words in [0, 1, 7, 8, 9, 100, 8 * FLUSH_BATCHES as usize + 3, 20_000] {
            let mut counts = BitCounts::default();
            let mut plain = [0u64; 64];
            for k in 0..words {
                // Biased words too, so that counts drift far from half.
                let word = if k % 3 == 0 { rng.u64(..) | rng.u64(..) } else { rng.u64(..) };
                if k % 5 == 0 {
                    let mut batch = [0; BATCH];
                    batch[0] = word;
                    counts.add_batch(batch, 1);
                } else {
                    counts.add(word);
                }
                for (bit, count) in plain.iter_mut().enumerate() {
                    *count += word >> bit & 1;
                }
            }
            assert_eq!(counts.totals(), (words as u64, plain), "{words} words");
        }
    }

    #[test]
    fn all_ones_reach_the_largest_counts() {
        let mut counts = BitCounts::default();
        let n = 3 * 8 * FLUSH_BATCHES as usize + 5;
        for _ in 0..n {
            counts.add(u64::MAX);
        }
        assert_eq!(counts.totals(), (n as u64, [n as u64; 64]));
    }
}
