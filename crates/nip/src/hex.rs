//! Lowercase hex, the only spelling NIP-01 allows for ids, keys and
//! signatures.

/// Whether `s` is exactly `len` lowercase hex digits.
pub(crate) fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
