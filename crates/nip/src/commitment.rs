//! The value anchored in Bitcoin: SHA-256 of the attestation's raw
//! signature bytes.
//!
//! Why the signature and not the fingerprint: the fingerprint, the pubkey,
//! their XOR and any event id are all computable from public data, so anyone
//! could stamp them early and wait for a key to leak (Attack B). A BIP-340
//! signature exists only once the key holder has signed.

use nostr::prelude::Signature;
use sha2::{Digest, Sha256};
use std::fmt;

/// `SHA256(hex_decode(attestation.sig))`, 32 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Commitment(pub [u8; 32]);

impl Commitment {
    /// The commitment of a kind 1042 signature.
    pub fn of_signature(sig: &Signature) -> Self {
        Self(Sha256::digest(sig.as_bytes()).into())
    }
}

impl fmt::Display for Commitment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&priorart_ots::hex::encode(&self.0))
    }
}
