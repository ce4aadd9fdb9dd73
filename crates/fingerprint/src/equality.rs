//! Steps 3–8 of the NIP-FF-3 algorithm: stem, filter, bucket minima,
//! descriptor, final SHA-256. Shared by `minhash-equality-v1` and the legacy
//! `simhash-equality-v2`, which differ only in their parameters.

use crate::canonical::{Canonical, TokenRef};
use crate::{EqualityFingerprint, Scheme};
use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};

/// Tokens shorter than this (in UTF-16 code units) are filtered (step 4b).
pub(crate) const MIN_TOKEN_LENGTH: usize = 4;

/// Hex characters kept from each bucket minimum (the `k` of the descriptor).
const KEPT_HEX: usize = 3;

/// The stop words of step 4a, as the NIP lists them.
const STOP_WORDS: [&str; 69] = [
    "a", "an", "the", "and", "or", "but", "if", "to", "of", "in", "on", "for", "with", "at", "by", "from",
    "up", "down", "out", "over", "under", "into", "about", "between", "after", "before", "through", "during",
    "without", "within", "is", "are", "was", "were", "be", "been", "being", "it", "its", "that", "this",
    "these", "those", "as", "not", "can", "could", "should", "would", "will", "may", "might", "do", "does",
    "did", "done", "have", "has", "had", "i", "you", "he", "she", "we", "they", "them", "our", "your",
    "their",
];

/// [`STOP_WORDS`] packed into integers (none is longer than 8 bytes) and
/// sorted, so a lookup is a binary search over 69 `u64`s.
const PACKED_STOP_WORDS: [u64; STOP_WORDS.len()] = {
    let mut packed = [0u64; STOP_WORDS.len()];
    let mut i = 0;
    while i < packed.len() {
        packed[i] = pack(STOP_WORDS[i].as_bytes());
        let mut j = i;
        while j > 0 && packed[j - 1] > packed[j] {
            let swap = packed[j - 1];
            packed[j - 1] = packed[j];
            packed[j] = swap;
            j -= 1;
        }
        i += 1;
    }
    packed
};

/// Up to 8 bytes, little-endian, zero-padded.
const fn pack(word: &[u8]) -> u64 {
    assert!(word.len() <= 8);
    let mut padded = [0u8; 8];
    padded.split_at_mut(word.len()).0.copy_from_slice(word);
    u64::from_le_bytes(padded)
}

fn is_stop_word(token: &str) -> bool {
    token.len() <= 8 && PACKED_STOP_WORDS.binary_search(&pack(token.as_bytes())).is_ok()
}

/// The parameters that tell the two equality schemes apart.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    pub id: &'static str,
    pub buckets: usize,
    /// `true`: keep the last hex characters (b-bit minwise rule, v1);
    /// `false`: the first ones (the legacy v2 defect).
    pub keep_last: bool,
}

impl Params {
    pub const fn of(scheme: Scheme) -> Option<Params> {
        match scheme {
            Scheme::MinhashEqualityV1 => Some(Params { id: scheme.id(), buckets: 8, keep_last: true }),
            Scheme::SimhashEqualityV2 => Some(Params { id: scheme.id(), buckets: 2, keep_last: false }),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

/// Step 3: the four-rule suffix stemmer, on a token of `len` UTF-16 code
/// units (JavaScript's `length`). Returns the stem and its length.
pub(crate) fn stem(token: &str, len: usize) -> (&str, usize) {
    let cut = if len > 5 && token.ends_with("ing") {
        3
    } else if len > 4 && (token.ends_with("ed") || token.ends_with("es")) {
        2
    } else if len > 3 && token.ends_with('s') {
        1
    } else {
        0
    };
    (&token[..token.len() - cut], len - cut)
}

/// Step 4: whether a stemmed token of `len` UTF-16 units survives the filters.
pub(crate) fn keeps(stemmed: &str, len: usize) -> bool {
    len >= MIN_TOKEN_LENGTH && !is_stop_word(stemmed)
}

/// Calls `kept` with each kept token of a canonical text, in order (steps
/// 3 and 4, with the fallback). Returns whether the fallback fired.
pub(crate) fn for_each_kept<'t>(canonical: &'t Canonical, mut kept: impl FnMut(&'t str)) -> bool {
    let stems =
        || canonical.tokens.iter().map(|token| stem(&canonical.text[token.range.clone()], token.utf16_len));
    let mut any = false;
    for (stemmed, len) in stems() {
        if keeps(stemmed, len) {
            any = true;
            kept(stemmed);
        }
    }
    if any || canonical.tokens.is_empty() {
        return false;
    }
    // Every regex match is non-empty and stemming never empties a token, so
    // the reference's `length > 0` fallback keeps every stemmed token.
    stems().for_each(|(stemmed, _)| kept(stemmed));
    true
}

/// SHA-256 of `eqs:` + the shingle (step 6.1–6.2).
pub(crate) fn shingle_hash(shingle: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(b"eqs:");
    hasher.update(shingle.as_bytes());
    hasher.finalize().into()
}

/// The distinct shingle hashes of a document: bucket minima depend only on
/// the *set* of shingles, so each distinct kept token is hashed once.
pub(crate) fn distinct_hashes(canonical: &Canonical, hashes: &mut Vec<[u8; 32]>) {
    hashes.clear();
    let mut seen = FxHashSet::default();
    for_each_kept(canonical, |token| {
        if seen.insert(token) {
            hashes.push(shingle_hash(token));
        }
    });
}

/// Step 6.4–6.5: the smallest hash (byte order equals hex order) per bucket.
pub(crate) fn bucket_minima(params: Params, hashes: &[[u8; 32]]) -> Vec<Option<[u8; 32]>> {
    let mut minima = Minima::default();
    for (index, hash) in (0..).zip(hashes) {
        minima.add(prefix(hash), index, hashes);
    }
    minima.buckets(params, hashes)[..params.buckets].to_vec()
}

/// The bucket minima of a document for the finest bucket count in use (8).
///
/// Both schemes' bucket counts divide 8, and `byte % b == (byte % 8) % b`,
/// so the minima of any scheme follow from these; repeated shingles leave
/// them unchanged, so no per-document set of distinct shingles is needed.
///
/// Each minimum is the index of a hash in a store of hashes, with the
/// hash's [`prefix`] (`u32::MAX`, above every prefix, and [`Minima::NONE`]
/// for an empty bucket). A smaller prefix means a smaller hash, so
/// [`Minima::add`] settles by comparing prefixes; only equal prefixes (a
/// repeat of the minimum, or a different hash with the same prefix) need
/// more.
///
/// The n-th distinct shingle of a document is a new minimum with
/// probability about 1/n, so the test in [`Minima::add`] is nearly always
/// false and well predicted, and the common case stores nothing. (A
/// branch-free update, with selects, stores every time, and each store
/// holds up the next update of the same bucket.)
#[derive(Debug, Clone)]
pub(crate) struct Minima {
    prefixes: [u32; FINEST_BUCKETS],
    indices: [u32; FINEST_BUCKETS],
}

const FINEST_BUCKETS: usize = 8;

impl Default for Minima {
    fn default() -> Self {
        Minima { prefixes: [u32::MAX; FINEST_BUCKETS], indices: [Self::NONE; FINEST_BUCKETS] }
    }
}

impl Minima {
    const NONE: u32 = u32::MAX;

    /// Adds `hashes[index]`, whose [`prefix`] is `prefix`.
    #[inline(always)]
    pub fn add(&mut self, prefix: u32, index: u32, hashes: &[[u8; 32]]) {
        // The bucket is the first byte of the hash, modulo 8.
        let bucket = (prefix >> (PREFIX_BITS - 8)) as usize % FINEST_BUCKETS;
        let (current, current_index) = (self.prefixes[bucket], self.indices[bucket]);
        // A repeat of the minimum (the same index) changes nothing, and is
        // common: the minimum of a bucket is often a frequent word.
        if (prefix < current) | ((prefix == current) & (index != current_index)) {
            self.lower(bucket, prefix, index, hashes);
        }
    }

    #[inline(never)]
    fn lower(&mut self, bucket: usize, prefix: u32, index: u32, hashes: &[[u8; 32]]) {
        if prefix == self.prefixes[bucket] {
            self.add_tied(bucket, index, hashes);
        } else {
            self.prefixes[bucket] = prefix;
            self.indices[bucket] = index;
        }
    }

    fn add_tied(&mut self, bucket: usize, index: u32, hashes: &[[u8; 32]]) {
        let current = self.indices[bucket];
        // An empty bucket's prefix is above every prefix: it never ties.
        debug_assert_ne!(current, Self::NONE);
        if hashes[index as usize] < hashes[current as usize] {
            self.indices[bucket] = index;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.indices.iter().all(|&index| index == Self::NONE)
    }

    /// The minima of `params.buckets` buckets (the first `params.buckets`
    /// entries of the array), from the store the indices point into.
    pub fn buckets(&self, params: Params, hashes: &[[u8; 32]]) -> [Option<[u8; 32]>; FINEST_BUCKETS] {
        debug_assert_eq!(FINEST_BUCKETS % params.buckets, 0);
        let mut buckets = [None; FINEST_BUCKETS];
        for (bucket, minimum) in buckets.iter_mut().enumerate().take(params.buckets) {
            let indices = self.indices.iter().skip(bucket).step_by(params.buckets);
            *minimum = indices
                .filter(|&&index| index != Self::NONE)
                .map(|&index| &hashes[index as usize])
                .min()
                .copied();
        }
        buckets
    }
}

/// The first [`PREFIX_BITS`] bits of `hash` as an integer, ordered as the
/// hashes are, which decides nearly every comparison of two hashes.
fn prefix(hash: &[u8; 32]) -> u32 {
    u32::from_be_bytes(*hash.first_chunk().expect("32 bytes have 4")) >> (32 - PREFIX_BITS)
}

/// 31, so that a prefix, an index and a flag fit in a [`Shingle`].
const PREFIX_BITS: u32 = 31;

/// What a token contributes to a fingerprint, in one integer so that the
/// cache of them stays small and a lookup stays in registers: whether it is
/// kept after stemming and filtering (steps 3–4, bit 0), and the hash of
/// its stem ([`shingle_hash`]), as its [`prefix`] (bits 33–63) and the
/// index of the whole hash in [`ShingleHashes::hashes`] (bits 1–32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shingle(u64);

impl Shingle {
    fn new(kept: bool, hash: &[u8; 32], index: u32) -> Shingle {
        Shingle(u64::from(prefix(hash)) << 33 | u64::from(index) << 1 | u64::from(kept))
    }

    pub fn kept(self) -> bool {
        self.0 & 1 == 1
    }

    pub fn prefix(self) -> u32 {
        (self.0 >> 33) as u32
    }

    pub fn index(self) -> u32 {
        (self.0 >> 1) as u32
    }
}

/// The [`Shingle`] of each token seen so far, across documents, keyed by
/// the token as it is in the text (its UTF-16 length, the stem and the
/// filters' verdict all follow from it), so a repeated token costs one
/// lookup.
///
/// Token frequencies follow Zipf's law, so after a few documents nearly
/// every token is a lookup. Tokens of up to 16 bytes are keyed by
/// [`TokenRef::key`]. Bounded: it starts afresh past
/// [`ShingleHashes::MAX_ENTRIES`].
#[derive(Debug)]
pub(crate) struct ShingleHashes {
    /// `(key, shingle)` of recent short tokens, direct-mapped (a multiply
    /// and one comparison, before the hash map); key 0 (no token: tokens
    /// are not empty) marks a free slot.
    recent: Vec<([u64; 2], Shingle)>,
    short: FxHashMap<u128, Shingle>,
    long: FxHashMap<Box<str>, Shingle>,
    hashes: Vec<[u8; 32]>,
}

const RECENT_BITS: u32 = 11;

impl Default for ShingleHashes {
    fn default() -> Self {
        ShingleHashes {
            recent: vec![([0; 2], Shingle(0)); 1 << RECENT_BITS],
            short: FxHashMap::default(),
            long: FxHashMap::default(),
            hashes: Vec::new(),
        }
    }
}

impl ShingleHashes {
    const MAX_ENTRIES: usize = 1 << 16;

    /// Starts afresh if the cache holds [`ShingleHashes::MAX_ENTRIES`] or
    /// more (called between documents, so the cache never holds more than
    /// that plus one document's tokens).
    pub fn bound(&mut self) {
        if self.hashes.len() >= Self::MAX_ENTRIES {
            self.recent.iter_mut().for_each(|(key, _)| *key = [0; 2]);
            self.short.clear();
            self.long.clear();
            self.hashes.clear();
        }
    }

    /// The shingle of `token`.
    #[inline(always)]
    pub fn get(&mut self, token: TokenRef<'_>) -> Shingle {
        let Some(key) = token.key else { return self.get_long(token) };
        let mixed = (key as u64) ^ ((key >> 64) as u64).rotate_left(31);
        let slot = (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - RECENT_BITS)) as usize;
        if self.recent[slot].0 == split(key) {
            return self.recent[slot].1;
        }
        self.get_short(key, slot, token)
    }

    /// [`ShingleHashes::get`] of a short token not in its `recent` slot.
    fn get_short(&mut self, key: u128, slot: usize, token: TokenRef<'_>) -> Shingle {
        let shingle = match self.short.get(&key) {
            Some(shingle) => *shingle,
            None => {
                let shingle = self.new_shingle(token);
                self.short.insert(key, shingle);
                shingle
            }
        };
        self.recent[slot] = (split(key), shingle);
        shingle
    }

    /// The whole hashes, which [`Shingle::index`] points into.
    pub fn hashes(&self) -> &[[u8; 32]] {
        &self.hashes
    }

    fn get_long(&mut self, token: TokenRef<'_>) -> Shingle {
        if let Some(shingle) = self.long.get(token.text) {
            return *shingle;
        }
        let shingle = self.new_shingle(token);
        self.long.insert(token.text.into(), shingle);
        shingle
    }

    fn new_shingle(&mut self, token: TokenRef<'_>) -> Shingle {
        let (stemmed, len) = stem(token.text, token.utf16_len);
        let hash = shingle_hash(stemmed);
        // At most MAX_ENTRIES plus one document's distinct tokens, far
        // below 2^32 (which would take tens of gigabytes of text).
        let index = self.hashes.len() as u32;
        self.hashes.push(hash);
        Shingle::new(keeps(stemmed, len), &hash, index)
    }
}

/// A key as two halves: `u64` is aligned to 8 bytes where `u128` is
/// aligned to 16, which would pad each `recent` entry to 32 bytes.
fn split(key: u128) -> [u64; 2] {
    [key as u64, (key >> 64) as u64]
}

/// Step 7: the descriptor string.
pub(crate) fn descriptor(params: Params, minima: &[Option<[u8; 32]>]) -> String {
    // Every number here is a single digit (at most 8 buckets), and every
    // byte ASCII, so bytes are written directly rather than through the
    // formatting machinery, which is a measurable share of the time per
    // short note.
    let digit = |n: usize| b"0123456789"[n];
    let mut out = Vec::with_capacity(48 + 8 * minima.len());
    out.extend_from_slice(params.id.as_bytes());
    out.extend_from_slice(b"|n=1|b=");
    out.extend_from_slice(&[digit(params.buckets), b'|', b'k', b'=', digit(KEPT_HEX)]);
    out.extend_from_slice(&[b'|', b'm', b'=', digit(MIN_TOKEN_LENGTH)]);
    for (index, minimum) in minima.iter().enumerate() {
        out.extend_from_slice(&[b'|', b'b', digit(index), b':']);
        match minimum {
            None => out.push(b'x'),
            Some(hash) => out.extend_from_slice(&kept_hex(params, hash)),
        }
    }
    String::from_utf8(out).expect("a descriptor is ASCII")
}

/// The [`KEPT_HEX`] hex digits of `hash` that enter the descriptor: two
/// bytes give four digits, of which the outer three are kept.
fn kept_hex(params: Params, hash: &[u8; 32]) -> [u8; KEPT_HEX] {
    const _: () = assert!(KEPT_HEX == 3);
    let pair = if params.keep_last { [hash[30], hash[31]] } else { [hash[0], hash[1]] };
    let [a, b, c, d] =
        [pair[0] >> 4, pair[0] & 0x0f, pair[1] >> 4, pair[1] & 0x0f].map(|n| HEX_DIGITS[usize::from(n)]);
    if params.keep_last { [b, c, d] } else { [a, b, c] }
}

/// Step 7's empty-content descriptor.
pub(crate) fn empty_descriptor(params: Params, canonical_text: &str) -> String {
    format!("{}|empty|{canonical_text}", params.id)
}

/// Step 8.
pub(crate) fn finish(descriptor: &str) -> EqualityFingerprint {
    EqualityFingerprint(Sha256::digest(descriptor.as_bytes()).into())
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

pub(crate) fn hex_lower(bytes: &[u8]) -> String {
    let mut out = vec![0; 2 * bytes.len()];
    write_hex(bytes, &mut out);
    String::from_utf8(out).expect("hex digits are ASCII")
}

/// Writes `bytes` as lowercase hex digits into `out`, which is twice as
/// long.
pub(crate) fn write_hex(bytes: &[u8], out: &mut [u8]) {
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&[HEX_DIGITS[usize::from(b >> 4)], HEX_DIGITS[usize::from(b & 0x0f)]]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stem_ascii(token: &str) -> &str {
        stem(token, token.len()).0
    }

    #[test]
    fn stemmer_rules_in_order() {
        assert_eq!(stem_ascii("running"), "runn");
        assert_eq!(stem_ascii("walked"), "walk");
        assert_eq!(stem_ascii("watches"), "watch");
        assert_eq!(stem_ascii("cats"), "cat");
        assert_eq!(stem_ascii("is"), "is");
        assert_eq!(stem_ascii("sing"), "sing"); // 4 ≤ 5: rule 1 does not fire, nor rule 4
        assert_eq!(stem_ascii("bed"), "bed");
        assert_eq!(stem_ascii("goes"), "goe"); // 4 > 3: rule 4
    }

    #[test]
    fn stop_words_are_filtered() {
        for word in STOP_WORDS {
            assert!(is_stop_word(word) && !keeps(word, word.len()), "{word}");
        }
        for word in ["fromm", "thes", "hav", "overs", "durin"] {
            assert_eq!(keeps(word, word.len()), word.len() >= MIN_TOKEN_LENGTH, "{word}");
        }
    }

    #[test]
    fn minima_compare_whole_hashes_when_prefixes_tie() {
        let with = |first: u8, last: u8| {
            let mut hash = [first; 32];
            hash[31] = last;
            hash
        };
        // Same bucket (first byte 0xff % 8 == 7) and the same prefix, told
        // apart by the last byte.
        let hashes = [with(0xff, 9), with(0xff, 3), with(0xff, 5), with(0x07, 0)];
        let mut minima = Minima::default();
        for index in [0, 1, 2, 1] {
            minima.add(prefix(&hashes[index]), index as u32, &hashes);
        }
        let params = Params::of(Scheme::MinhashEqualityV1).expect("an equality scheme");
        assert_eq!(minima.buckets(params, &hashes)[7], Some(hashes[1]));
        minima.add(prefix(&hashes[3]), 3, &hashes);
        assert_eq!(minima.buckets(params, &hashes)[7], Some(hashes[3]));
        assert!(minima.buckets(params, &hashes)[..7].iter().all(Option::is_none));
    }

    #[test]
    fn lengths_are_utf16_code_units() {
        // "中中s" is 3 UTF-16 units: rule 4 needs more than 3.
        assert_eq!(stem("中中s", 3), ("中中s", 3));
        // Two astral letters and `s`: 5 units, so rule 4 applies.
        assert_eq!(stem("𝒜𝒷s", 5), ("𝒜𝒷", 4));
        assert!(keeps("𝒜𝒷", 4));
        assert!(!keeps("ab", 2));
        assert!(!keeps("between", 7));
    }
}
