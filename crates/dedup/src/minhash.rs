//! MinHash LSH over the word 5-gram shingles that verification compares:
//! per document, `bands` keys of 32 bits; two documents whose shingle sets
//! have Jaccard similarity `J` share at least one key with probability
//! `1 − (1 − J^rows)^bands` (the LSH "S-curve"), and unrelated documents
//! almost never do. The candidates of a collection are then the documents
//! that share a key in some band (`bands.rs`), so their number grows with
//! the similar pairs, not with the square of the collection.
//!
//! The signature is one-permutation hashing with optimal densification
//! (Li, Owen and Zhang 2012; Shrivastava 2017) rather than `bands × rows`
//! independent hash functions: each shingle hash is mixed once and falls in
//! one of `bands × rows` bins, which keep their minimum; an empty bin
//! copies the bin its own probe sequence (a function of the bin's number
//! alone, the same for every document) first finds filled. Each bin of two
//! sets then agrees with probability exactly `J`, as a k-permutation
//! MinHash's values do, at the cost of one mix per shingle instead of
//! `bands × rows` (a 3 kB document has about 500 shingles and 90 bins: 90
//! times less hashing, which matters at ten million documents).
//!
//! Pure: no I/O.

use priorart_fingerprint::WordShingles;

/// Most bands a threshold is given: each costs 4 bytes per document (on
/// disk in pass 1) and one sort of the collection's keys. More bands allow
/// more rows per band, a sharper S-curve: at 0.8, 18 bands of 5 rows (the
/// best of at most 20) make a pair at J = 0.3 a candidate 4 % of the time
/// and one at 0.5 44 %, which at ten million generated documents gave 40
/// million candidates for 1.1 million true pairs; 48 bands of 9 rows
/// (the best of at most 50) make those 0.1 % and 9 %, for 1.9 GB of band
/// files at ten million documents.
pub const MAX_BANDS: u32 = 50;

/// Most rows per band.
pub const MAX_ROWS: u32 = 32;

/// The largest chance of missing a pair at exactly the threshold that
/// [`Lsh::for_threshold`] accepts: `(1 − t^rows)^bands ≤ MAX_MISS`.
/// Pairs above the threshold are missed less often (at 0.9 with the 0.8
/// parameters, 48 bands of 9 rows: one in 10¹⁰).
pub const MAX_MISS: f64 = 1e-3;

/// The bin value of a set without shingles: all empty texts are identical
/// (their Jaccard similarity is 1), so they share every key.
const EMPTY: u64 = u64::MAX;

/// How many bands of how many rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lsh {
    /// Bands: one key each.
    pub bands: u32,
    /// MinHash values hashed into each band's key.
    pub rows: u32,
}

impl Lsh {
    /// The bands and rows for threshold `min_jaccard`, like datasketch's
    /// parameter search but weighted for a verified answer: among the
    /// `(bands, rows)` with at most [`MAX_BANDS`] bands and [`MAX_ROWS`]
    /// rows that miss a pair at the threshold with probability at most
    /// [`MAX_MISS`], the one with the smallest false-positive area
    /// `∫₀ᵗ 1 − (1 − s^rows)^bands ds` (fewest candidates below the
    /// threshold to re-read and reject). For 0.8: 48 bands of 9 rows.
    /// `None` when no such pair exists (thresholds below about 0.3:
    /// there every document is a candidate of many others).
    pub fn for_threshold(min_jaccard: f64) -> Option<Lsh> {
        let mut best: Option<(f64, Lsh)> = None;
        for rows in 1..=MAX_ROWS {
            for bands in 1..=MAX_BANDS {
                let lsh = Lsh { bands, rows };
                if lsh.miss(min_jaccard) > MAX_MISS {
                    continue;
                }
                let area = lsh.false_positive_area(min_jaccard);
                if best.is_none_or(|(smallest, _)| area < smallest) {
                    best = Some((area, lsh));
                }
            }
        }
        best.map(|(_, lsh)| lsh)
    }

    /// The probability that a pair of similarity `jaccard` shares no key.
    pub fn miss(&self, jaccard: f64) -> f64 {
        (1.0 - jaccard.powi(self.rows as i32)).powi(self.bands as i32)
    }

    /// `∫₀ᵗ P(candidate | s) ds`, by the midpoint rule.
    fn false_positive_area(&self, threshold: f64) -> f64 {
        const STEPS: u32 = 200;
        let width = threshold / f64::from(STEPS);
        (0..STEPS).map(|step| 1.0 - self.miss((f64::from(step) + 0.5) * width)).sum::<f64>() * width
    }

    /// The number of MinHash values per document.
    pub fn bins(&self) -> usize {
        (self.bands * self.rows) as usize
    }

    /// The band keys of a shingle set, one per band, into `keys`
    /// (cleared first). A key is 32 bits of a hash of its band's values:
    /// two documents whose band values differ still share its key with
    /// probability 2⁻³², about `N²/2³³` spurious candidates per band among
    /// `N` documents (12,000 at ten million, all rejected by verification).
    pub fn band_keys(&self, shingles: &WordShingles, keys: &mut Vec<u32>) {
        let values = self.signature(shingles.hashes());
        keys.clear();
        keys.extend(values.chunks(self.rows as usize).zip(0u64..).map(|(rows, band)| {
            let folded =
                rows.iter().fold(mix(band ^ 0x5851_F42D_4C95_7F2D), |hash, &value| mix(hash ^ value));
            (folded >> 32) as u32
        }));
    }

    /// One-permutation MinHash of `hashes`, densified.
    fn signature(&self, hashes: &[u64]) -> Vec<u64> {
        let bins = self.bins();
        let mut values = vec![EMPTY; bins];
        let mut filled = vec![false; bins];
        for &hash in hashes {
            let mixed = mix(hash);
            // The top 32 bits choose the bin (multiply-shift, no division).
            let bin = (((mixed >> 32) * bins as u64) >> 32) as usize;
            values[bin] = values[bin].min(mixed);
            filled[bin] = true;
        }
        if hashes.is_empty() {
            return values;
        }
        let donors: Vec<u64> = values.clone();
        for bin in 0..bins {
            if !filled[bin] {
                values[bin] = donors[densified_donor(bin, &filled)];
            }
        }
        values
    }
}

/// The filled bin an empty bin copies: the first filled one along the
/// bin's own probe sequence (the same for every document, which is what
/// keeps each bin's agreement probability at exactly `J`), or after
/// [`PROBES`] misses (a set in very few bins) the next filled one.
fn densified_donor(bin: usize, filled: &[bool]) -> usize {
    const PROBES: u64 = 4096;
    let bins = filled.len() as u64;
    for attempt in 0..PROBES {
        let probe = mix(((bin as u64) << 32 | attempt) ^ 0x2545_F491_4F6C_DD1D);
        let candidate = (((probe >> 32) * bins) >> 32) as usize;
        if filled[candidate] {
            return candidate;
        }
    }
    (1..filled.len()).map(|step| (bin + step) % filled.len()).find(|&at| filled[at]).unwrap_or(bin)
}

/// splitmix64's finalizer: every input bit moves every output bit (the
/// shingle hashes end with a multiplication, whose low bits are weak).
fn mix(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    value ^ (value >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use priorart_fingerprint::Shingling;

    #[test]
    fn parameters_meet_the_miss_bound_and_sharpen_with_the_threshold() {
        let lsh = Lsh::for_threshold(0.8).unwrap();
        assert!(lsh.miss(0.8) <= MAX_MISS);
        assert!(lsh.miss(0.3) > 0.9, "{lsh:?} makes pairs at 0.3 candidates too often");
        let high = Lsh::for_threshold(0.95).unwrap();
        assert!(high.rows > lsh.rows, "{high:?} against {lsh:?}");
        assert_eq!(Lsh::for_threshold(0.1), None);
    }

    #[test]
    fn bins_agree_about_as_often_as_the_jaccard_similarity() {
        let lsh = Lsh { bands: 25, rows: 8 };
        let words: Vec<String> = (0..1200).map(|i| format!("w{}", i * 7919 % 10007)).collect();
        let a = WordShingles::of(&words[..1000].join(" "), Shingling::Words);
        let b = WordShingles::of(&words[200..1200].join(" "), Shingling::Words);
        let jaccard = a.jaccard(&b);
        let (x, y) = (lsh.signature(a.hashes()), lsh.signature(b.hashes()));
        let agree = x.iter().zip(&y).filter(|(p, q)| p == q).count() as f64 / x.len() as f64;
        // 200 bins: standard error sqrt(J(1 − J)/200) ≈ 0.033.
        assert!((agree - jaccard).abs() < 0.12, "{agree} against J = {jaccard}");
    }

    #[test]
    fn equal_sets_share_every_key_and_empty_ones_too() {
        let lsh = Lsh::for_threshold(0.8).unwrap();
        let (mut x, mut y) = (Vec::new(), Vec::new());
        let text = "a short text of only a handful of words";
        lsh.band_keys(&WordShingles::of(text, Shingling::Words), &mut x);
        lsh.band_keys(&WordShingles::of(&text.to_uppercase(), Shingling::Words), &mut y);
        assert_eq!(x, y);
        assert_eq!(x.len(), lsh.bands as usize);
        lsh.band_keys(&WordShingles::of("", Shingling::Words), &mut x);
        lsh.band_keys(&WordShingles::of("  ", Shingling::Words), &mut y);
        assert_eq!(x, y);
        lsh.band_keys(&WordShingles::of("one", Shingling::Words), &mut y);
        assert_ne!(x, y);
    }
}
