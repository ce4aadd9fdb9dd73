//! Lowercase hex, the only spelling NIP-01 allows for ids, keys and
//! signatures.

/// Whether `s` is exactly `len` lowercase hex digits.
pub(crate) fn is_lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A public key written as NIP-01 writes it: exactly 64 lowercase hex
/// digits. rust-nostr's `PublicKey::from_hex` reads the first 64 digits of
/// any longer string, so a key with anything appended would pass as the
/// same key; every key read from untrusted text goes through here.
pub fn pubkey_from_hex(s: &str) -> Option<nostr::prelude::PublicKey> {
    is_lower_hex(s, 64).then(|| nostr::prelude::PublicKey::from_hex(s).ok()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pubkey_is_exactly_64_lowercase_hex_digits_of_a_point() {
        let key = nostr::prelude::Keys::generate().public_key().to_hex();
        assert!(pubkey_from_hex(&key).is_some());
        for bad in [format!("{key}00"), key.repeat(2), key.to_uppercase(), key[..62].to_owned()] {
            assert!(pubkey_from_hex(&bad).is_none(), "{bad}");
        }
    }
}
