//! Attestations: the leaves of a timestamp tree, each saying who vouches for
//! the message reached there (a Bitcoin block, a calendar, …).

use crate::codec::{DecodeError, Reader, write_varbytes, write_varuint};
use std::cmp::Ordering;

/// Longest attestation payload (the reference's `MAX_PAYLOAD_SIZE`).
pub const MAX_PAYLOAD_LEN: usize = 8192;
/// Longest calendar URI in a pending attestation.
pub const MAX_URI_LEN: usize = 1000;
/// The only bytes a calendar URI may contain: no query, fragment, user info,
/// percent-encoding or IPv6 brackets, so a URI cannot smuggle anything.
pub const URI_CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._/:";

/// Type tags of the attestations the reference knows.
pub mod tags {
    /// A calendar's promise (`PendingAttestation`).
    pub const PENDING: [u8; 8] = [0x83, 0xdf, 0xe3, 0x0d, 0x2e, 0xf9, 0x0c, 0x8e];
    /// A Bitcoin block header's merkle root (`BitcoinBlockHeaderAttestation`).
    pub const BITCOIN: [u8; 8] = [0x05, 0x88, 0x96, 0x0d, 0x73, 0xd7, 0x19, 0x01];
    /// A Litecoin block header's merkle root.
    pub const LITECOIN: [u8; 8] = [0x06, 0x86, 0x9a, 0x0d, 0x73, 0xd7, 0x1b, 0x45];
    /// An Ethereum block's transactions root.
    pub const ETHEREUM: [u8; 8] = [0x30, 0xfe, 0x80, 0x87, 0xb5, 0xc7, 0xea, 0xd7];
}

/// One attestation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Attestation {
    /// The message is the merkle root of the Bitcoin block at this height.
    Bitcoin {
        /// Block height.
        height: u64,
    },
    /// The message is the merkle root of the Litecoin block at this height.
    Litecoin {
        /// Block height.
        height: u64,
    },
    /// The message is the transactions root of the Ethereum block at this height.
    Ethereum {
        /// Block number.
        height: u64,
    },
    /// A calendar holds the message and will later answer with a complete proof.
    Pending {
        /// The calendar's base URL, as the proof records it.
        uri: String,
    },
    /// A type no one here knows, kept byte for byte so that it round-trips.
    Unknown {
        /// Its 8-byte type tag.
        tag: [u8; 8],
        /// Its payload, undecoded.
        payload: Vec<u8>,
    },
}

impl Attestation {
    /// The 8-byte type tag written before the payload.
    pub fn tag(&self) -> [u8; 8] {
        match self {
            Attestation::Bitcoin { .. } => tags::BITCOIN,
            Attestation::Litecoin { .. } => tags::LITECOIN,
            Attestation::Ethereum { .. } => tags::ETHEREUM,
            Attestation::Pending { .. } => tags::PENDING,
            Attestation::Unknown { tag, .. } => *tag,
        }
    }

    /// A pending attestation, if `uri` is a valid calendar URI.
    pub fn pending(uri: &str) -> Result<Attestation, DecodeError> {
        check_uri(uri.as_bytes(), 0)?;
        Ok(Attestation::Pending { uri: uri.to_owned() })
    }

    /// Decodes an attestation after its `0x00` marker.
    pub(crate) fn decode(reader: &mut Reader<'_>) -> Result<Attestation, DecodeError> {
        let tag: [u8; 8] = reader.array()?;
        let payload = reader.varbytes(0, MAX_PAYLOAD_LEN)?;
        let mut inner = Reader::sub(payload, reader.offset() - payload.len());
        let attestation = match tag {
            tags::PENDING => {
                let base = inner.offset();
                let uri = inner.varbytes(0, MAX_URI_LEN)?;
                check_uri(uri, base)?;
                // Every allowed character is ASCII, so this cannot fail.
                Attestation::Pending { uri: String::from_utf8_lossy(uri).into_owned() }
            }
            tags::BITCOIN => Attestation::Bitcoin { height: inner.varuint()? },
            tags::LITECOIN => Attestation::Litecoin { height: inner.varuint()? },
            tags::ETHEREUM => Attestation::Ethereum { height: inner.varuint()? },
            _ => return Ok(Attestation::Unknown { tag, payload: payload.to_vec() }),
        };
        match inner.remaining() {
            0 => Ok(attestation),
            extra => Err(DecodeError::PayloadTrailingBytes(extra)),
        }
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.tag());
        let mut payload = Vec::new();
        match self {
            Attestation::Bitcoin { height }
            | Attestation::Litecoin { height }
            | Attestation::Ethereum { height } => write_varuint(&mut payload, *height),
            Attestation::Pending { uri } => write_varbytes(&mut payload, uri.as_bytes()),
            Attestation::Unknown { payload: raw, .. } => payload.extend_from_slice(raw),
        }
        write_varbytes(out, &payload);
    }

    /// The key the reference sorts attestations of one type by.
    fn sort_key(&self) -> SortKey<'_> {
        match self {
            Attestation::Bitcoin { height }
            | Attestation::Litecoin { height }
            | Attestation::Ethereum { height } => SortKey::Height(*height),
            Attestation::Pending { uri } => SortKey::Bytes(uri.as_bytes()),
            Attestation::Unknown { payload, .. } => SortKey::Bytes(payload),
        }
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum SortKey<'a> {
    Height(u64),
    Bytes(&'a [u8]),
}

/// The reference's canonical order: by type tag, then height, URI or payload.
impl Ord for Attestation {
    fn cmp(&self, other: &Self) -> Ordering {
        self.tag().cmp(&other.tag()).then_with(|| self.sort_key().cmp(&other.sort_key()))
    }
}

impl PartialOrd for Attestation {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// As the reference prints an attestation (Python reprs included).
impl std::fmt::Display for Attestation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Attestation::Bitcoin { height } => write!(f, "BitcoinBlockHeaderAttestation({height})"),
            Attestation::Litecoin { height } => write!(f, "LitecoinBlockHeaderAttestation({height})"),
            Attestation::Ethereum { height } => write!(f, "EthereumBlockHeaderAttestation({height})"),
            Attestation::Pending { uri } => write!(f, "PendingAttestation('{uri}')"),
            Attestation::Unknown { tag, payload } => {
                write!(f, "UnknownAttestation({}, {})", python_bytes_repr(tag), python_bytes_repr(payload))
            }
        }
    }
}

fn check_uri(uri: &[u8], base: usize) -> Result<(), DecodeError> {
    if uri.len() > MAX_URI_LEN {
        return Err(DecodeError::BadLength { offset: base, len: uri.len() as u64, min: 0, max: MAX_URI_LEN });
    }
    match uri.iter().position(|byte| !URI_CHARS.contains(byte)) {
        Some(index) => Err(DecodeError::UriBadChar { byte: uri[index], offset: base + index }),
        None => Ok(()),
    }
}

/// Python's `repr(bytes)`, which the reference client prints for unknown
/// attestations.
pub(crate) fn python_bytes_repr(bytes: &[u8]) -> String {
    let quote = if bytes.contains(&b'\'') && !bytes.contains(&b'"') { '"' } else { '\'' };
    let mut out = format!("b{quote}");
    for &byte in bytes {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            _ if byte as char == quote => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(byte as char),
            _ => out.push_str(&format!("\\x{byte:02x}")),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_repr_matches_the_reference() {
        assert_eq!(python_bytes_repr(&[1, 2, 3, 4, 5, 6, 7, 8]), r"b'\x01\x02\x03\x04\x05\x06\x07\x08'");
        assert_eq!(python_bytes_repr(b"it's"), r#"b"it's""#);
        assert_eq!(python_bytes_repr(b"a'\"b\\"), r#"b'a\'"b\\'"#);
    }

    #[test]
    fn uri_charset_is_enforced() {
        assert!(Attestation::pending("https://alice.btc.calendar.opentimestamps.org").is_ok());
        assert!(matches!(
            Attestation::pending("https://x/?q=1"),
            Err(DecodeError::UriBadChar { byte: b'?', .. })
        ));
        assert!(Attestation::pending(&"a".repeat(1001)).is_err());
    }
}
