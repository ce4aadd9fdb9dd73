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

/// 64 bytes of 0 or 1 as 64 bits (byte `j` → bit `j`). The multiplier puts
/// byte `i` of each 8-byte word at bit `56 + i`, without carries.
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

/// Bits `0..n` (`n <= 64`).
#[inline(always)]
pub(crate) fn below(n: u32) -> u64 {
    ((1u128 << n) - 1) as u64
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
    }

    #[test]
    fn bit_ranges() {
        assert_eq!(bits(0, 64), u64::MAX);
        assert_eq!(bits(3, 3), 0);
        assert_eq!(bits(5, 2), 0);
        assert_eq!(bits(1, 4), 0b1110);
        assert_eq!(run_starts(0b0111_0110), 0b0001_0010);
    }
}
