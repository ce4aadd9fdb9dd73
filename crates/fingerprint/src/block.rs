//! Block masks: 64 bytes of text classified at once, one bit per byte, so
//! that scanners find runs of a class with a few bit operations per run
//! instead of a branch per byte. Shared by the equality and `simhash-doc`
//! scanners, which classify differently but pack and cut masks alike.

/// Bytes classified at once.
pub(crate) const BLOCK: usize = 64;

/// The block of `BLOCK` bytes at `at`, if `bytes` has that many there.
#[inline(always)]
pub(crate) fn block_at(bytes: &[u8], at: usize) -> Option<&[u8; BLOCK]> {
    bytes.get(at..)?.first_chunk::<BLOCK>()
}

/// 64 bytes of 0 or 1 as 64 bits (byte `j` → bit `j`). On x86-64 (where
/// SSE2 is always present) each 16 bytes are shifted so that the 1 lands in
/// the sign bit, and `pmovmskb` gathers the 16 sign bits: the multiplication
/// form below compiled to 40 scalar multiplies per block of the
/// `simhash-doc` scanner, which was 11% of `fingerprint --scheme
/// simhash-doc --jsonl` (perf, measured).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn pack(bytes: &[u8; BLOCK]) -> u64 {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_slli_epi16};
    let mut mask = 0;
    for k in 0..BLOCK / 16 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so every x86-64
        // CPU has these instructions; bytes 16k..16k+16 of a 64-byte array
        // are in bounds, and an unaligned load has no alignment requirement.
        let signs = unsafe {
            let sixteen = _mm_loadu_si128(bytes.as_ptr().add(16 * k).cast::<__m128i>());
            _mm_movemask_epi8(_mm_slli_epi16::<7>(sixteen)) as u16
        };
        mask |= u64::from(signs) << (16 * k);
    }
    mask
}

/// 64 bytes of 0 or 1 as 64 bits (byte `j` → bit `j`). The multiplier puts
/// byte `i` of each 8-byte word at bit `56 + i`, without carries.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn pack(bytes: &[u8; BLOCK]) -> u64 {
    let mut mask = 0;
    for (k, eight) in bytes.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes([
            eight[0], eight[1], eight[2], eight[3], eight[4], eight[5], eight[6], eight[7],
        ]);
        mask |= (word.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    mask
}

/// Bits `from..to` of a block mask (`from, to <= 64`; empty if `from >=
/// to`), without a branch: token lengths are too irregular to predict.
#[inline(always)]
pub(crate) fn bits(from: u32, to: u32) -> u64 {
    below(to) & !below(from)
}

/// Bits `0..n` (`n <= 64`). Not `(1u128 << n) - 1`: 128-bit shifts
/// compile to a shift pair and conditional moves, which made this one line
/// 7% of `simhash-doc` (perf, measured).
#[inline(always)]
pub(crate) fn below(n: u32) -> u64 {
    let all_if_64 = 0u64.wrapping_sub(u64::from(n >> 6));
    ((1u64 << (n & 63)) - 1) | all_if_64
}

/// The runs of set bits of `mask`, in order, as `(start, end)` bit
/// positions (`end` exclusive): the k-th run start pairs with the k-th run
/// end, so each run costs two `trailing_zeros` and no search.
#[inline(always)]
pub(crate) fn runs(mask: u64) -> impl Iterator<Item = (u32, u32)> {
    let (mut starts, mut lasts) = (mask & !(mask << 1), mask & !(mask >> 1));
    std::iter::from_fn(move || {
        if starts == 0 {
            return None;
        }
        let (start, last) = (starts.trailing_zeros(), lasts.trailing_zeros());
        starts &= starts - 1;
        lasts &= lasts - 1;
        Some((start, last + 1))
    })
}

/// The bits of `mask` where a run of set bits starts.
#[inline(always)]
pub(crate) fn run_starts(mask: u64) -> u64 {
    mask & !(mask << 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_puts_byte_j_at_bit_j() {
        for j in 0..BLOCK {
            let mut bytes = [0; BLOCK];
            bytes[j] = 1;
            assert_eq!(pack(&bytes), 1 << j);
        }
        assert_eq!(pack(&[1; BLOCK]), u64::MAX);
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let bytes: [u8; BLOCK] = std::array::from_fn(|j| (rng >> j & 1) as u8);
            assert_eq!(pack(&bytes), rng);
        }
    }

    #[test]
    fn bit_ranges() {
        assert_eq!(bits(0, 64), u64::MAX);
        assert_eq!(bits(3, 3), 0);
        assert_eq!(bits(5, 2), 0);
        assert_eq!(bits(1, 4), 0b1110);
        for n in 0..=64 {
            assert_eq!(below(n), ((1u128 << n) - 1) as u64, "{n}");
        }
        assert_eq!(run_starts(0b0111_0110), 0b0001_0010);
        assert_eq!(runs(0b0111_0110).collect::<Vec<_>>(), [(1, 3), (4, 7)]);
        assert_eq!(runs(u64::MAX).collect::<Vec<_>>(), [(0, 64)]);
        assert_eq!(runs(1 << 63 | 1).collect::<Vec<_>>(), [(0, 1), (63, 64)]);
        assert_eq!(runs(0).count(), 0);
    }
}
