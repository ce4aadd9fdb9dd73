//! Word-at-a-time (SWAR) masks over ASCII: eight bytes tested or lowercased
//! in one `u64`, each mask exact because no lane carries into the next.

use super::*;

/// Bit 7 of every byte, for testing eight bytes at a time.
pub(super) const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
/// The byte 0x01 in every lane, to broadcast a byte to eight lanes.
pub(super) const LANES: u64 = 0x0101_0101_0101_0101;

/// Appends the bytes of `bytes` from `at` on, lowercased, to `out`, up to
/// the first that stops, and returns where they end. `lanes` tells, by
/// bit 7 of each lane of a word, which bytes stop (exactly: every
/// non-ASCII byte, and maybe others) and which to write as a space
/// instead. Eight bytes at a time: a word with a byte that stops is
/// appended whole and cut back, which is cheaper than copying a prefix of
/// varying length.
#[inline(always)]
pub(super) fn push_ascii_lowercase(
    bytes: &[u8],
    mut at: usize,
    out: &mut Vec<u8>,
    lanes: impl Fn(u64) -> (u64, u64),
) -> usize {
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        let word = u64::from_le_bytes(*chunk);
        let (stops, spaces) = lanes(word);
        let spaces = (spaces >> 7) * 0xff;
        let lowered = ascii_lowercase(word) & !spaces | ((u64::from(b' ') * LANES) & spaces);
        out.extend_from_slice(&lowered.to_le_bytes());
        if stops != 0 {
            let ascii = (stops.trailing_zeros() / 8) as usize;
            out.truncate(out.len() - 8 + ascii);
            return at + ascii;
        }
        at += 8;
    }
    // One byte in the lowest lane: it stops or it is copied.
    while let Some(&b) = bytes.get(at).filter(|&&b| lanes(u64::from(b)).0 & 0x80 == 0) {
        out.push(b.to_ascii_lowercase());
        at += 1;
    }
    at
}

/// Bit 7 of each lane of `word` that holds a zero byte; exact, as no lane
/// carries into the next.
#[inline(always)]
pub(super) fn zero_lanes(word: u64) -> u64 {
    !(((word & !HIGH_BITS) + 0x7f * LANES) | word) & HIGH_BITS
}

/// [`push_ascii_lowercase`]'s lanes of a word of a JSON string body: it
/// stops at the closing quote, a control character (invalid), non-ASCII
/// and escapes, except the escapes of whitespace (`\n`, `\r`, `\t`, `\f`),
/// whose two bytes are written as two spaces.
///
/// The folded text only goes to the scan then, for which any run of
/// whitespace is one separator, also where the URL rule ends a URL, so two
/// spaces tokenize as the one whitespace character would; texts that have
/// no token, which need the canonical text, are decoded in full instead.
/// Escapes are common in JSON Lines text (a line break, a tab), and
/// stopping at each costs more than the bytes around it.
///
/// Why a backslash taken for the start of a whitespace escape is one:
/// `at` (lane 0) is never inside an escape, and a backslash that is the
/// second byte of an escaped backslash follows a backslash that stops, so
/// lanes past the first stop are never used. An escape whose letter is in
/// the next word (a backslash in lane 7) stops.
#[inline(always)]
pub(super) fn json_plain_lanes(word: u64) -> (u64, u64) {
    let byte = |b: u8| zero_lanes(word ^ (u64::from(b) * LANES));
    // The letter after each lane's byte; lane 7 gets 0, which is none.
    let next = |b: u8| zero_lanes((word >> 8) ^ (u64::from(b) * LANES));
    let backslash = byte(b'\\');
    let escapes = backslash & (next(b'n') | next(b'r') | next(b't') | next(b'f'));
    // Below 0x20 (bit 7 of `low7 + 0x60` clear) and ASCII.
    let control = !(((word & !HIGH_BITS) + 0x60 * LANES) | word) & HIGH_BITS;
    let stops = word & HIGH_BITS | byte(b'"') | control | backslash & !escapes;
    (stops, escapes | escapes << 8)
}

/// `word` with `A`–`Z` lowercased in each ASCII lane: 0x20 (bit 7 shifted
/// right twice) is added to exactly the lanes in `A`..=`Z` (computed as in
/// [`ascii_letter_bits`]; other lanes are left as they are).
#[inline(always)]
pub(super) fn ascii_lowercase(word: u64) -> u64 {
    let low7 = word & !HIGH_BITS;
    let at_least_a = low7 + (0x80 - u64::from(b'A')) * LANES;
    let above_z = low7 + (0x80 - u64::from(b'Z') - 1) * LANES;
    word | (at_least_a & !above_z & !word & HIGH_BITS) >> 2
}

/// Bit 7 of each byte of `word` set exactly where the byte is an ASCII
/// letter. Each lane computes on its low seven bits plus a constant below
/// 0x80, so no lane carries into the next: after OR-ing in 0x20 (which
/// maps `A`–`Z` onto `a`–`z`, and no non-letter onto a letter: `@` and `[`
/// become `` ` `` and `{`), adding 0x80 − `a` sets bit 7 exactly for bytes
/// ≥ `a`, adding 0x80 − (`z` + 1) exactly for bytes > `z`; bytes with bit 7
/// set (not ASCII) are cleared at the end.
#[inline(always)]
pub(super) fn ascii_letter_bits(word: u64) -> u64 {
    let low7 = (word | (0x20 * LANES)) & !HIGH_BITS;
    let at_least_a = low7 + (0x80 - u64::from(b'a')) * LANES;
    let above_z = low7 + (0x80 - u64::from(b'z') - 1) * LANES;
    at_least_a & !above_z & !word & HIGH_BITS
}

/// Bit 7 of each byte of `word` set exactly where the byte is *not* a
/// [`Byte::Separator`]: a letter, a digit, a control other than
/// whitespace (0x00–0x08, 0x0E–0x1F, 0x7F) or not ASCII. `at_least(k)`
/// works as in [`ascii_letter_bits`]; non-ASCII lanes are garbage there but
/// are set by `word`'s own bit 7. Tested against [`BYTES`] below.
#[inline(always)]
pub(super) fn non_separator_bits(word: u64) -> u64 {
    let low7 = word & !HIGH_BITS;
    let at_least = |k: u8| low7 + (0x80 - u64::from(k)) * LANES;
    let digit = at_least(b'0') & !at_least(b'9' + 1);
    let whitespace_control = at_least(0x09) & !at_least(0x0E);
    let control = !at_least(0x20) & !whitespace_control;
    let delete = at_least(0x7F);
    (ascii_letter_bits(word) | digit | control | delete | word) & HIGH_BITS
}

/// The end of the run of separators of `padded` starting at `start`.
#[inline(always)]
pub(super) fn separator_run_end(padded: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(chunk) = padded[end..].first_chunk::<8>() {
        let others = non_separator_bits(u64::from_le_bytes(*chunk));
        if others != 0 {
            return end + (others.trailing_zeros() / 8) as usize;
        }
        end += 8;
    }
    end + padded[end..].iter().take_while(|&&b| BYTES[usize::from(b)] == Byte::Separator).count()
}

/// The end of the run of ASCII letters of `bytes` starting at `start`.
#[inline(always)]
pub(super) fn ascii_letter_run_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(chunk) = bytes[end..].first_chunk::<8>() {
        let others = !ascii_letter_bits(u64::from_le_bytes(*chunk)) & HIGH_BITS;
        if others != 0 {
            return end + (others.trailing_zeros() / 8) as usize;
        }
        end += 8;
    }
    end + bytes[end..].iter().take_while(|b| b.is_ascii_alphabetic()).count()
}
