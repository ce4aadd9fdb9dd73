//! Bob Jenkins' lookup3 `hashlittle2` (public domain, May 2006): the token
//! hash of `simhash-doc`.
//!
//! Why this hash: it is the "64-bit Jenkins hash" of the only production
//! Jenkins-based 64-bit SimHash (seomoz simhash-cpp, seeds 0/0, feature
//! `(c << 32) | b`), the one npm simhash-js ships (with a rotate bug), and
//! fast on short keys such as words. This is a portable transcription of
//! the C function's *result*: the C code reads aligned words, half-words or
//! bytes depending on the pointer, and all three paths give the same value
//! on a little-endian machine, which is the value computed here on any
//! machine (key bytes are read as little-endian 32-bit words, the last
//! partial block padded with zero bytes).

/// The two 32-bit outputs of `hashlittle2`: `c` ("better mixed", the one
/// `hashlittle` returns) and `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lookup3 {
    /// The primary hash (`*pc` on return).
    pub c: u32,
    /// The secondary hash (`*pb` on return).
    pub b: u32,
}

impl Lookup3 {
    /// The 64-bit feature of `simhash-doc`: `(c << 32) | b`, as seomoz
    /// simhash-cpp combined them.
    pub const fn feature(self) -> u64 {
        (self.c as u64) << 32 | self.b as u64
    }
}

/// `hashlittle2(key, key.len(), &pc, &pb)` with initial values `pc`, `pb`.
///
/// lookup3 adds the length to its state as a `uint32_t`, so keys longer
/// than 4 GiB hash as C would on a 64-bit machine (length modulo 2^32).
#[inline]
pub fn hashlittle2(key: &[u8], pc: u32, pb: u32) -> Lookup3 {
    let init = 0xdead_beef_u32.wrapping_add(key.len() as u32).wrapping_add(pc);
    let (mut a, mut b, mut c) = (init, init, init.wrapping_add(pb));
    let mut rest = key;
    while rest.len() > 12 {
        let (block, tail) = rest.split_at(12);
        a = a.wrapping_add(word(block, 0));
        b = b.wrapping_add(word(block, 4));
        c = c.wrapping_add(word(block, 8));
        mix(&mut a, &mut b, &mut c);
        rest = tail;
    }
    if rest.is_empty() {
        // Only a zero-length key gets here: the loop leaves 1..=12 bytes
        // of any longer one. The C code returns the state unmixed.
        return Lookup3 { c, b };
    }
    let [ka, kb, kc] = last_block(rest);
    a = a.wrapping_add(ka);
    b = b.wrapping_add(kb);
    c = c.wrapping_add(kc);
    final_mix(&mut a, &mut b, &mut c);
    Lookup3 { c, b }
}

/// [`hashlittle2`] of the first `len` bytes of `padded`, which must hold at
/// least 12 bytes more (any values): the last block is then read as three
/// whole words and masked, without branching on its length.
#[inline]
pub(crate) fn hashlittle2_padded(padded: &[u8], len: usize, pc: u32, pb: u32) -> Lookup3 {
    let init = 0xdead_beef_u32.wrapping_add(len as u32).wrapping_add(pc);
    let (mut a, mut b, mut c) = (init, init, init.wrapping_add(pb));
    if len == 0 {
        return Lookup3 { c, b };
    }
    let mut at = 0;
    while len - at > 12 {
        a = a.wrapping_add(word(padded, at));
        b = b.wrapping_add(word(padded, at + 4));
        c = c.wrapping_add(word(padded, at + 8));
        mix(&mut a, &mut b, &mut c);
        at += 12;
    }
    let [ma, mb, mc] = LAST_BLOCK_MASKS[len - at];
    a = a.wrapping_add(word(padded, at) & ma);
    b = b.wrapping_add(word(padded, at + 4) & mb);
    c = c.wrapping_add(word(padded, at + 8) & mc);
    final_mix(&mut a, &mut b, &mut c);
    Lookup3 { c, b }
}

/// Keys of 1 to 12 bytes (most words) waiting to be hashed together: for
/// them lookup3 is one `final` on three words, a chain of dependent steps,
/// so hashing [`BATCH`] at once in lanes lets the compiler use vector
/// instructions and the CPU overlap the chains.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShortKeys {
    count: usize,
    a: [u32; BATCH],
    b: [u32; BATCH],
    c: [u32; BATCH],
}

/// Keys per [`ShortKeys`] batch: as many as the counters take at once.
pub(crate) const BATCH: usize = crate::bit_counts::BATCH;

impl ShortKeys {
    /// Adds the first `len` (1..=12) bytes of `key` (whatever follows them
    /// in it is masked off), seeds 0/0. Returns whether the batch is full.
    #[inline(always)]
    pub(crate) fn push(&mut self, key: &[u8; 12], len: usize) -> bool {
        let [ma, mb, mc] = LAST_BLOCK_MASKS[len];
        let init = 0xdead_beef_u32.wrapping_add(len as u32);
        let lane = self.count % BATCH;
        self.a[lane] = init.wrapping_add(word(key, 0) & ma);
        self.b[lane] = init.wrapping_add(word(key, 4) & mb);
        self.c[lane] = init.wrapping_add(word(key, 8) & mc);
        self.count += 1;
        self.count == BATCH
    }

    /// The features `(c << 32) | b` of the keys added, in order, and how
    /// many there are (the lanes after them are zero); empties the batch.
    #[inline(always)]
    pub(crate) fn features(&mut self) -> ([u64; BATCH], usize) {
        let (mut a, mut b, mut c) = (self.a, self.b, self.c);
        final_mix_lanes(&mut a, &mut b, &mut c);
        let count = std::mem::take(&mut self.count);
        let features =
            std::array::from_fn(
                |lane| {
                    if lane < count { Lookup3 { c: c[lane], b: b[lane] }.feature() } else { 0 }
                },
            );
        (features, count)
    }
}

/// [`final_mix`] on every lane. On x86-64 with SSE2 (always present) four
/// lanes per instruction: the compiler leaves the lane loops below scalar,
/// as SSE2 has no rotation (measured: 7% of `simhash-doc` on the corpus).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn final_mix_lanes(a: &mut [u32; BATCH], b: &mut [u32; BATCH], c: &mut [u32; BATCH]) {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_or_si128, _mm_slli_epi32, _mm_srli_epi32, _mm_storeu_si128,
        _mm_sub_epi32, _mm_xor_si128,
    };
    /// `x = (x ^ y) - rotate_left(y, L)`, with `R = 32 - L`.
    #[inline(always)]
    fn step<const L: i32, const R: i32>(x: &mut __m128i, y: __m128i) {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe {
            let rotated = _mm_or_si128(_mm_slli_epi32::<L>(y), _mm_srli_epi32::<R>(y));
            *x = _mm_sub_epi32(_mm_xor_si128(*x, y), rotated);
        }
    }
    for half in 0..BATCH / 4 {
        // SAFETY: SSE2 is part of the x86-64 baseline; lanes 4 * half..+4 of
        // an 8-lane array are in bounds, and these loads and stores have no
        // alignment requirement.
        unsafe {
            let lanes = |x: &[u32; BATCH]| _mm_loadu_si128(x.as_ptr().add(4 * half).cast::<__m128i>());
            let (mut va, mut vb, mut vc) = (lanes(a), lanes(b), lanes(c));
            step::<14, 18>(&mut vc, vb);
            step::<11, 21>(&mut va, vc);
            step::<25, 7>(&mut vb, va);
            step::<16, 16>(&mut vc, vb);
            step::<4, 28>(&mut va, vc);
            step::<14, 18>(&mut vb, va);
            step::<24, 8>(&mut vc, vb);
            for (x, v) in [(&mut *a, va), (&mut *b, vb), (&mut *c, vc)] {
                _mm_storeu_si128(x.as_mut_ptr().add(4 * half).cast::<__m128i>(), v);
            }
        }
    }
}

/// [`final_mix`] on every lane.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn final_mix_lanes(a: &mut [u32; BATCH], b: &mut [u32; BATCH], c: &mut [u32; BATCH]) {
    for lane in 0..BATCH {
        final_mix(&mut a[lane], &mut b[lane], &mut c[lane]);
    }
}

/// For a last block of `n` bytes (1..=12), the masks keeping its bytes in
/// each of the three words.
const LAST_BLOCK_MASKS: [[u32; 3]; 13] = {
    let mut table = [[0u32; 3]; 13];
    let mut n = 0;
    while n <= 12 {
        let mut w = 0;
        while w < 3 {
            let bytes = if n > 4 * w { if n - 4 * w >= 4 { 4 } else { n - 4 * w } } else { 0 };
            table[n][w] = if bytes == 4 { u32::MAX } else { (1u32 << (8 * bytes)) - 1 };
            w += 1;
        }
        n += 1;
    }
    table
};

/// The three little-endian words of a last block of 1 to 12 bytes, padded
/// with zero bytes, read with overlapping loads instead of a copy.
#[inline(always)]
fn last_block(rest: &[u8]) -> [u32; 3] {
    let n = rest.len();
    if n >= 8 {
        [word(rest, 0), word(rest, 4), if n > 8 { tail_bytes(&rest[8..]) } else { 0 }]
    } else if n >= 4 {
        [word(rest, 0), if n > 4 { tail_bytes(&rest[4..]) } else { 0 }, 0]
    } else {
        [tail_bytes(rest), 0, 0]
    }
}

/// 1 to 4 bytes as a little-endian word, padded with zero bytes.
#[inline(always)]
fn tail_bytes(bytes: &[u8]) -> u32 {
    let n = bytes.len();
    if n == 4 {
        return word(bytes, 0);
    }
    // For 1 to 3 bytes: bytes 0, n/2 and n-1 cover every position.
    u32::from(bytes[0]) | u32::from(bytes[n / 2]) << (8 * (n / 2)) | u32::from(bytes[n - 1]) << (8 * (n - 1))
}

/// The little-endian 32-bit word at `at`; `bytes` has at least `at + 4`.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u32 {
    // One bounds check and one load; indexing the four bytes one by one
    // compiled to four checks and four loads (perf: 6% of `simhash-doc`).
    let Some(four) = bytes[at..].first_chunk::<4>() else {
        panic!("a word at {at} of {} bytes", bytes.len());
    };
    u32::from_le_bytes(*four)
}

/// lookup3's `mix(a,b,c)`.
#[inline(always)]
fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

/// lookup3's `final(a,b,c)`.
#[inline(always)]
fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(14));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(11));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(25));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(16));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(4));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(14));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(24));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of the project's research notes (lookup3.c compiled, seeds
    /// 0/0, aligned and unaligned reads), checked here independently.
    #[test]
    fn research_notes_table() {
        let table: [(&str, u64); 7] = [
            ("", 0xDEADBEEF_DEADBEEF),
            ("a", 0x58D68708_582647AC),
            ("the", 0x07176276_32FCC083),
            ("Jabberwock", 0xA2FEEEB1_7641984A),
            ("hello world", 0x4AA94E65_BC3E110A),
            ("Four score and seven years ago", 0x17770551_CE7226E6),
            ("été", 0xEBAF34F9_58452A03),
        ];
        for (token, feature) in table {
            assert_eq!(hashlittle2(token.as_bytes(), 0, 0).feature(), feature, "{token:?}");
        }
    }

    /// The self-test values printed by `driver5()` in Jenkins' lookup3.c.
    #[test]
    fn lookup3_driver5_values() {
        let empty = |pc, pb| hashlittle2(b"", pc, pb);
        assert_eq!(empty(0, 0), Lookup3 { c: 0xdeadbeef, b: 0xdeadbeef });
        assert_eq!(empty(0, 0xdeadbeef), Lookup3 { c: 0xbd5b7dde, b: 0xdeadbeef });
        assert_eq!(empty(0xdeadbeef, 0xdeadbeef), Lookup3 { c: 0x9c093ccd, b: 0xbd5b7dde });
        let four_score = b"Four score and seven years ago";
        assert_eq!(hashlittle2(four_score, 0, 0), Lookup3 { c: 0x17770551, b: 0xce7226e6 });
        assert_eq!(hashlittle2(four_score, 0, 1), Lookup3 { c: 0xe3607cae, b: 0xbd371de4 });
        assert_eq!(hashlittle2(four_score, 1, 0), Lookup3 { c: 0xcd628161, b: 0x6cbea4b3 });
    }

    /// The overlapping loads of the last block against a plain zero-padded copy.
    #[test]
    fn last_block_equals_zero_padding() {
        let bytes: Vec<u8> = (1..=12).map(|b| b * 17).collect();
        for n in 1..=12 {
            let mut padded = [0u8; 12];
            padded[..n].copy_from_slice(&bytes[..n]);
            let want = [word(&padded, 0), word(&padded, 4), word(&padded, 8)];
            assert_eq!(last_block(&bytes[..n]), want, "{n}");
        }
    }

    #[test]
    fn padded_reads_equal_the_plain_hash() {
        let text: Vec<u8> = (0..80u8).map(|b| b.wrapping_mul(37).wrapping_add(11)).collect();
        for start in 0..4 {
            for len in 0..=40 {
                let plain = hashlittle2(&text[start..start + len], 0, 0);
                assert_eq!(hashlittle2_padded(&text[start..], len, 0, 0), plain, "{start} {len}");
            }
        }
    }

    #[test]
    fn short_key_batches_equal_the_plain_hash() {
        let text: Vec<u8> = (0..40u8).map(|b| b.wrapping_mul(91).wrapping_add(5)).collect();
        let mut batch = ShortKeys::default();
        let mut want = Vec::new();
        let mut got = Vec::new();
        for round in 0..3 {
            for len in 1..=12 {
                want.push(hashlittle2(&text[round..round + len], 0, 0).feature());
                if batch.push(text[round..].first_chunk().expect("12 bytes"), len) {
                    let (features, count) = batch.features();
                    got.extend_from_slice(&features[..count]);
                }
            }
        }
        let (features, count) = batch.features();
        assert!(features[count..].iter().all(|&f| f == 0));
        got.extend_from_slice(&features[..count]);
        assert_eq!(got, want);
    }

    #[test]
    fn block_boundaries_use_final_only_on_the_last_block() {
        // 12 and 24 bytes: the last full block is not mixed, only finalled,
        // so appending a zero byte must change the hash (length differs).
        for len in [11, 12, 13, 23, 24, 25] {
            let key = vec![0u8; len];
            let longer = vec![0u8; len + 1];
            assert_ne!(hashlittle2(&key, 0, 0), hashlittle2(&longer, 0, 0), "{len}");
        }
    }
}
