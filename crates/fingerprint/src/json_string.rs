//! A JSON string (its quotes and the body between them, escapes not yet
//! decoded) as text, decoded exactly as serde_json decodes it.
//!
//! JSON Lines corpora are the bulk input of fingerprinting, and JSON
//! writers often escape every non-ASCII character (Python's default), so
//! that a `\u` escape may come every few words. [`Fingerprinter`]
//! (crate::Fingerprinter) decodes such a body while it folds it, in one
//! pass, instead of decoding it into a string first; this module holds the
//! decoding both ways share.

use std::borrow::Cow;

/// The text of the JSON string at the start of `json` (from its opening
/// quote), and the length of that string in bytes (through its closing
/// quote); `None` where serde_json would reject the string: no quotes
/// around it, a control character, an unknown or short escape, a lone
/// surrogate (which a Rust string cannot hold). Borrowed when there is no
/// escape.
pub fn decode_json_string(json: &str) -> Option<(Cow<'_, str>, usize)> {
    let mut buffer = Vec::new();
    let (decoded, len) = decode_json_string_reusing(json, &mut buffer)?;
    let text = match decoded {
        Decoded::Borrowed(text) => Cow::Borrowed(text),
        Decoded::Unescaped(text) => Cow::Owned(text.to_owned()),
    };
    Some((text, len))
}

/// The text of a JSON string, from [`decode_json_string_reusing`].
pub(crate) enum Decoded<'json, 'buffer> {
    /// The string has no escape: its body is the text.
    Borrowed(&'json str),
    /// The string had escapes: decoded into the caller's buffer.
    Unescaped(&'buffer str),
}

impl Decoded<'_, '_> {
    /// The text, wherever it is.
    pub(crate) fn text(&self) -> &str {
        match self {
            Decoded::Borrowed(text) | Decoded::Unescaped(text) => text,
        }
    }
}

/// [`decode_json_string`], decoding a string with escapes into `buffer`
/// (cleared first), which the caller keeps from one string to the next: a
/// fresh buffer per string grows by copying, several times per document
/// (measured: allocation and copies were 4% of `fingerprint --jsonl`).
pub(crate) fn decode_json_string_reusing<'json, 'buffer>(
    json: &'json str,
    buffer: &'buffer mut Vec<u8>,
) -> Option<(Decoded<'json, 'buffer>, usize)> {
    let body = json.strip_prefix('"')?;
    let bytes = body.as_bytes();
    let plain = quote_escape_or_control(bytes);
    match bytes.get(plain)? {
        b'"' => Some((Decoded::Borrowed(&body[..plain]), plain + 2)),
        b'\\' => {
            buffer.clear();
            buffer.extend_from_slice(&bytes[..plain]);
            let end = decode_escaped(bytes, plain, buffer)?;
            // Checking the UTF-8 again cost 12% of `fingerprint --jsonl` on
            // the benchmark corpus (measured), and it cannot fail; debug
            // builds (every test) still check it.
            debug_assert!(std::str::from_utf8(buffer).is_ok());
            // SAFETY: `buffer` holds valid UTF-8: a concatenation of pieces
            // of `body` (a `str`) that start and end next to ASCII bytes
            // (backslashes, escape sequences, the closing quote) or at its
            // start, so on character boundaries, and of encoded `char`s.
            let text = unsafe { std::str::from_utf8_unchecked(buffer) };
            Some((Decoded::Unescaped(text), end + 2))
        }
        _ => None,
    }
}

/// Appends the value of the rest of a JSON string body, from the escape at
/// `at` to the closing quote, to `out`, and returns where that quote is.
///
/// One pass: plain text is copied eight bytes at a time while it is
/// searched for the next quote, backslash or control character, which in
/// text with many escapes (JSON writers that escape all non-ASCII) costs
/// much less than a search and a copy per piece.
fn decode_escaped(bytes: &[u8], mut at: usize, out: &mut Vec<u8>) -> Option<usize> {
    loop {
        let (c, len) = escape_at(bytes, at)?;
        push_utf8(c, out);
        at = copy_plain(bytes, at + len, out);
        match bytes.get(at)? {
            b'"' => return Some(at),
            b'\\' => {}
            _ => return None,
        }
    }
}

/// The character of the escape whose backslash is at `at` of `bytes`, and
/// the escape's length; `None` if it is not a valid JSON escape.
#[inline(always)]
pub(crate) fn escape_at(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let escape = &bytes[at..];
    let kind = *escape.get(1)?;
    if kind == b'u' {
        return unicode_escape(escape);
    }
    let simple = SIMPLE_ESCAPES[usize::from(kind)];
    (simple != 0).then_some((char::from(simple), 2))
}

/// The characters that the JSON string body `body` stands for, from byte
/// `at` on, up to its closing quote or to the first invalid escape.
pub(crate) fn decoded_chars(body: &str, mut at: usize) -> impl Iterator<Item = char> + '_ {
    let bytes = body.as_bytes();
    std::iter::from_fn(move || {
        let (c, len) = match bytes.get(at)? {
            b'"' => return None,
            b'\\' => escape_at(bytes, at)?,
            _ => body[at..].chars().next().map(|c| (c, c.len_utf8()))?,
        };
        at += len;
        Some(c)
    })
}

/// Appends the UTF-8 of `c` to `out` without a branch on its length,
/// which in text that mixes two- and three-byte characters is
/// unpredictable: all four encodings are computed and one is selected, and
/// four bytes are appended and cut back.
#[inline(always)]
pub(crate) fn push_utf8(c: char, out: &mut Vec<u8>) {
    let c = u32::from(c);
    let continuation = |shift: u32| 0x80 | (c >> shift & 0x3f);
    let (encoded, len) = if c < 0x80 {
        (c, 1)
    } else if c < 0x800 {
        (0xc0 | c >> 6 | continuation(0) << 8, 2)
    } else if c < 0x1_0000 {
        (0xe0 | c >> 12 | continuation(6) << 8 | continuation(0) << 16, 3)
    } else {
        (0xf0 | c >> 18 | continuation(12) << 8 | continuation(6) << 16 | continuation(0) << 24, 4)
    };
    out.extend_from_slice(&encoded.to_le_bytes());
    out.truncate(out.len() - 4 + len);
}

/// Appends the bytes of `bytes` from `at` up to the first quote, backslash
/// or control character to `out`, and returns where they end. A word is
/// appended whole and cut back, as a copy of varying length costs more.
fn copy_plain(bytes: &[u8], mut at: usize, out: &mut Vec<u8>) -> usize {
    #[cfg(target_arch = "x86_64")]
    while let Some(chunk) = bytes[at..].first_chunk::<16>() {
        out.extend_from_slice(chunk);
        let found = special_bits_16(chunk);
        if found != 0 {
            let plain = found.trailing_zeros() as usize;
            out.truncate(out.len() - 16 + plain);
            return at + plain;
        }
        at += 16;
    }
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        out.extend_from_slice(chunk);
        let found = special_bits(u64::from_le_bytes(*chunk));
        if found != 0 {
            let plain = (found.trailing_zeros() / 8) as usize;
            out.truncate(out.len() - 8 + plain);
            return at + plain;
        }
        at += 8;
    }
    let plain = quote_escape_or_control(&bytes[at..]);
    out.extend_from_slice(&bytes[at..at + plain]);
    at + plain
}

/// What each simple escape `\x` stands for, by `x` (0: not one; `\u` is
/// decoded by [`unicode_escape`]).
const SIMPLE_ESCAPES: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The value of each hexadecimal digit, by byte; -1 for other bytes.
const HEX_VALUES: [i8; 256] = {
    let mut table = [-1; 256];
    let mut digit = 0;
    while digit < 16 {
        table[b"0123456789abcdef"[digit] as usize] = digit as i8;
        table[b"0123456789ABCDEF"[digit] as usize] = digit as i8;
        digit += 1;
    }
    table
};

/// The position of the first quote, backslash or control character (below
/// 0x20) of `bytes`, or its length; eight bytes at a time.
fn quote_escape_or_control(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        let found = special_bits(u64::from_le_bytes(*chunk));
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + bytes[at..].iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20).unwrap_or(bytes.len() - at)
}

/// Bit `j` set where byte `j` of `chunk` is a quote, a backslash or a
/// control character (below 0x20). SSE2 (part of the x86-64 baseline)
/// compares sixteen bytes at once: twice the bytes per step of
/// [`special_bits`], and exact, where escapes come every few dozen bytes
/// (a `\n` per line of text).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special_bits_16(chunk: &[u8; 16]) -> u32 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86-64 baseline; the load reads the 16
    // bytes of `chunk` and has no alignment requirement.
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
        let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
        let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
        // Unsigned `v <= 0x1f`: the maximum with 0x1f is 0x1f.
        let control = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), _mm_set1_epi8(0x1f));
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)) as u32
    }
}

/// Bit 7 set in the lowest lane of `word` that holds a quote, a backslash
/// or a control character (below 0x20), if any, and possibly in lanes
/// above it. `v - 0x01…` borrows into bit 7 of a lane where `v` is zero
/// (`x ^ b'"'`: a quote, `x ^ b'\\'`: a backslash) and `x - 0x20…` where
/// `x` is below 0x20; a borrow can also set bits in lanes *above* a true
/// match, never below, so the lowest bit is exact.
#[inline(always)]
pub(crate) fn special_bits(x: u64) -> u64 {
    const LANES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_lanes = |v: u64| v.wrapping_sub(LANES) & !v;
    let quote = zero_lanes(x ^ (u64::from(b'"') * LANES));
    let backslash = zero_lanes(x ^ (u64::from(b'\\') * LANES));
    let control = x.wrapping_sub(0x20 * LANES) & !x;
    (quote | backslash | control) & HIGH
}

/// The character of the `\uXXXX` escape (or surrogate pair of two) at the
/// start of `bytes`, and its length in bytes.
fn unicode_escape(bytes: &[u8]) -> Option<(char, usize)> {
    // Four table lookups OR-ed together: a non-digit's -1 makes the
    // result negative, so one test rejects any of them.
    let hex = |at: usize| -> Option<u32> {
        let digits =
            bytes.get(at..)?.first_chunk::<4>()?.map(|digit| i32::from(HEX_VALUES[usize::from(digit)]));
        let value = digits[0] << 12 | digits[1] << 8 | digits[2] << 4 | digits[3];
        u32::try_from(value | (digits[0] | digits[1] | digits[2] | digits[3]) >> 31).ok()
    };
    let unit = hex(2)?;
    match unit {
        0xD800..=0xDBFF if bytes.get(6..8) == Some(b"\\u") => {
            let low = hex(8).filter(|low| (0xDC00..=0xDFFF).contains(low))?;
            Some((char::from_u32(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))?, 12))
        }
        _ => Some((char::from_u32(unit)?, 6)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_without_branches_equals_std() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let mut out = vec![b'x'];
            push_utf8(c, &mut out);
            assert_eq!(&out[1..], c.encode_utf8(&mut [0; 4]).as_bytes(), "{c:?}");
        }
    }

    #[test]
    fn string_search_finds_the_first_quote_backslash_or_control() {
        for len in 0..20 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0x00, 0x1f] {
                    let mut bytes = vec![b'a'; len];
                    for (i, byte) in bytes.iter_mut().enumerate().skip(at + 1) {
                        *byte = [b'"', b'\\', 0x01, 0x80][i % 4];
                    }
                    if at < len {
                        bytes[at] = special;
                    }
                    assert_eq!(quote_escape_or_control(&bytes), at, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn escapes_decode_as_serde_json_does() {
        for body in [
            "plain",
            "",
            r#"x\"y\\z\/\b\f\n\r\t"#,
            r"caf\u00e9 \u00E9 \ud83d\ude00 \u2026 \u0000",
            r"\ud83d",
            r"\ude00 lone",
            r"\x",
            r"\u12",
            r"\",
            "raw\u{1}control",
            "a\"quote",
        ] {
            let json = format!("\"{body}\" tail");
            let mut serde = serde_json::Deserializer::from_str(&json).into_iter::<String>();
            let serde = serde.next().and_then(Result::ok).map(|text| (text, serde.byte_offset()));
            let decoded = decode_json_string(&json).map(|(text, len)| (text.into_owned(), len));
            assert_eq!(decoded, serde, "{body}");
        }
    }
}
