//! Hex, the one spelling of bytes in this crate's text (commitments, block
//! hashes, headers), on `hex-conservative` as re-exported by `bitcoin`.

use bitcoin::hex::{DisplayHex, FromHex};

/// Lower-case hex.
pub fn encode(bytes: &[u8]) -> String {
    bytes.to_lower_hex_string()
}

/// Hex of the bytes in reverse order, as Bitcoin shows hashes.
pub fn encode_reversed(bytes: &[u8]) -> String {
    bytes.iter().rev().copied().collect::<Vec<u8>>().to_lower_hex_string()
}

/// Parses hex (either case); `None` for odd length or a non-hex character.
pub fn decode(text: &str) -> Option<Vec<u8>> {
    Vec::<u8>::from_hex(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_non_hex() {
        assert_eq!(encode(&[0x00, 0xab, 0xff]), "00abff");
        assert_eq!(encode_reversed(&[0x00, 0xab, 0xff]), "ffab00");
        assert_eq!(decode("00ABff"), Some(vec![0x00, 0xab, 0xff]));
        assert_eq!(decode("abc"), None);
        assert_eq!(decode("zz"), None);
        assert_eq!(decode(""), Some(vec![]));
    }
}
