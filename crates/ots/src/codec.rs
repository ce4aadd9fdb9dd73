//! The byte-level primitives of the OpenTimestamps serialization: varuints,
//! varbytes, and the typed decoding errors with the reference's limits.

use thiserror::Error;

/// Every way a proof can be refused while decoding. Each reference limit has
/// its own variant so that callers (and tests) can tell them apart; offsets
/// count bytes from the start of the decoded buffer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum DecodeError {
    #[error("not an OpenTimestamps proof: the magic bytes are missing")]
    BadMagic,
    #[error("version {0} detached timestamp files are not supported")]
    UnsupportedMajorVersion(u64),
    #[error("unknown file hash op tag 0x{0:02x}")]
    UnknownFileHashOp(u8),
    #[error("unknown operation tag 0x{tag:02x} at offset {offset}")]
    UnknownOp { tag: u8, offset: usize },
    #[error("truncated at offset {offset}: {needed} more byte(s) expected")]
    Truncated { offset: usize, needed: usize },
    #[error("trailing bytes after the end of the proof at offset {0}")]
    TrailingBytes(usize),
    #[error("varuint at offset {0} does not fit in 64 bits")]
    VarUintOverflow(usize),
    #[error("variable-length field of {len} bytes at offset {offset}: allowed {min}..={max}")]
    BadLength { offset: usize, len: u64, min: usize, max: usize },
    #[error("message of {len} bytes is too long for {op} (limit {limit}) at offset {offset}")]
    MessageTooLong { op: &'static str, len: usize, limit: usize, offset: usize },
    #[error("result of {op} would be {len} bytes, over the {limit}-byte limit, at offset {offset}")]
    ResultTooLong { op: &'static str, len: usize, limit: usize, offset: usize },
    #[error("timestamp nested deeper than {limit} levels at offset {offset}")]
    RecursionLimit { limit: usize, offset: usize },
    #[error(
        "calendar URI contains the byte 0x{byte:02x}, outside the allowed characters, at offset {offset}"
    )]
    UriBadChar { byte: u8, offset: usize },
    #[error("attestation payload has {0} unread byte(s)")]
    PayloadTrailingBytes(usize),
}

reason_names!(DecodeError {
    BadMagic => "bad_magic",
    UnsupportedMajorVersion => "unsupported_major_version",
    UnknownFileHashOp => "unknown_file_hash_op",
    UnknownOp => "unknown_op",
    Truncated => "truncated",
    TrailingBytes => "trailing_bytes",
    VarUintOverflow => "var_uint_overflow",
    BadLength => "bad_length",
    MessageTooLong => "message_too_long",
    ResultTooLong => "result_too_long",
    RecursionLimit => "recursion_limit",
    UriBadChar => "uri_bad_char",
    PayloadTrailingBytes => "payload_trailing_bytes",
});

/// A cursor over a byte slice. `base` is added to reported offsets so that a
/// reader over an attestation payload reports positions in the whole proof.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0, base: 0 }
    }

    /// A reader over `bytes`, which were just read from this buffer at `base`.
    pub(crate) fn sub(bytes: &'a [u8], base: usize) -> Self {
        Reader { bytes, pos: 0, base }
    }

    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub(crate) fn byte(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.remaining() < n {
            return Err(DecodeError::Truncated { offset: self.offset(), needed: n - self.remaining() });
        }
        let slice = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// LEB128, as the reference reads it: non-canonical encodings (extra
    /// `0x80` groups) are accepted because the reference accepts them; only a
    /// value that does not fit in 64 bits is refused (the reference has
    /// unbounded integers, but no height or length comes near 2^64).
    pub(crate) fn varuint(&mut self) -> Result<u64, DecodeError> {
        let start = self.offset();
        let mut value: u64 = 0;
        let mut shift: u32 = 0;
        loop {
            let byte = self.byte()?;
            let group = u64::from(byte & 0x7f);
            if group != 0 {
                if shift >= 64 || (group << shift) >> shift != group {
                    return Err(DecodeError::VarUintOverflow(start));
                }
                value |= group << shift;
            }
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift = shift.saturating_add(7);
        }
    }

    /// A length-prefixed byte string of `min..=max` bytes.
    pub(crate) fn varbytes(&mut self, min: usize, max: usize) -> Result<&'a [u8], DecodeError> {
        let offset = self.offset();
        let len = self.varuint()?;
        if len > max as u64 || len < min as u64 {
            return Err(DecodeError::BadLength { offset, len, min, max });
        }
        self.take(len as usize)
    }

    pub(crate) fn expect_end(&self) -> Result<(), DecodeError> {
        if self.remaining() == 0 { Ok(()) } else { Err(DecodeError::TrailingBytes(self.offset())) }
    }
}

pub(crate) fn write_varuint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let group = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(group);
            return;
        }
        out.push(group | 0x80);
    }
}

pub(crate) fn write_varbytes(out: &mut Vec<u8>, bytes: &[u8]) {
    write_varuint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varuint_round_trips_and_bounds() {
        for value in [0, 1, 127, 128, 300, 358391, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            write_varuint(&mut out, value);
            assert_eq!(Reader::new(&out).varuint(), Ok(value));
        }
        // Non-canonical but in range: accepted like the reference does.
        assert_eq!(Reader::new(&[0x80, 0x80, 0x00]).varuint(), Ok(0));
        // 2^64 does not fit.
        let too_big = [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02];
        assert_eq!(Reader::new(&too_big).varuint(), Err(DecodeError::VarUintOverflow(0)));
        // A long run of continuation bytes neither panics nor loops forever.
        let mut long = vec![0x80; 10_000];
        long.push(0x01);
        assert_eq!(Reader::new(&long).varuint(), Err(DecodeError::VarUintOverflow(0)));
        assert!(matches!(Reader::new(&[0x80]).varuint(), Err(DecodeError::Truncated { .. })));
    }
}
