//! Whether a content event's text can be fingerprinted at all: not when it
//! is empty, nor when it is ciphertext (NIP-04, NIP-44). The discovery
//! check (`check`) and the fuzzy tags (`fuzzy_tags`) both ask, so it is
//! neither's.

use serde::Serialize;

/// Why a content event's text cannot be fingerprinted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unreadable {
    /// Nothing but white space.
    Empty,
    /// A NIP-04 or NIP-44 payload.
    Encrypted,
}

impl Unreadable {
    /// `empty` or `encrypted`.
    pub fn name(self) -> &'static str {
        match self {
            Unreadable::Empty => "empty",
            Unreadable::Encrypted => "encrypted",
        }
    }
}

/// Why `content` has no text to fingerprint (empty, or ciphertext), or
/// `None` when it has.
pub fn unreadable(content: &str) -> Option<Unreadable> {
    if content.trim().is_empty() {
        Some(Unreadable::Empty)
    } else if looks_encrypted(content) {
        Some(Unreadable::Encrypted)
    } else {
        None
    }
}

/// NIP-04 (`<base64>?iv=<base64>`) and NIP-44 payloads (one base64 word of
/// at least 132 characters whose first byte, version 2, encodes as `A`
/// followed by a character from `g` to `v`): ciphertext, not text to hash.
pub fn looks_encrypted(content: &str) -> bool {
    let base64 =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
    if let Some((ciphertext, iv)) = content.split_once("?iv=") {
        return base64(ciphertext) && base64(iv);
    }
    let bytes = content.as_bytes();
    content.len() >= 132 && base64(content) && bytes[0] == b'A' && (b'g'..=b'v').contains(&bytes[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ciphertexts_are_not_hashed_as_text() {
        assert!(looks_encrypted("c2VjcmV0IG1lc3NhZ2U=?iv=MTIzNDU2Nzg5MDEyMzQ1Ng=="));
        let nip44 = format!("Ag{}", "B".repeat(140));
        assert!(looks_encrypted(&nip44));
        assert!(!looks_encrypted("An article about ships?iv= is not base64"));
        assert!(!looks_encrypted(&"Ab".repeat(80)));
        assert!(!looks_encrypted("A short note"));
    }
}
