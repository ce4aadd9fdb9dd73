//! Operations: the edges of a timestamp tree, each turning a message into the
//! next one (hash it, append or prepend bytes, reverse, hexlify).

use crate::codec::{DecodeError, Reader, write_varbytes};
use sha2::Digest;
use std::cmp::Ordering;

/// Longest message an op may be applied to, and longest result it may give
/// (the reference's `MAX_MSG_LENGTH` / `MAX_RESULT_LENGTH`). This bounds the
/// memory needed to follow one path of a proof.
pub const MAX_MSG_LEN: usize = 4096;
/// Longest argument of `append` / `prepend`.
pub const MAX_ARG_LEN: usize = 4096;

/// A hash function usable as an op and as the file hash of a detached proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HashOp {
    /// SHA-1 (tag 0x02): still read, but collisions are practical.
    Sha1,
    /// RIPEMD-160 (tag 0x03).
    Ripemd160,
    /// SHA-256 (tag 0x08): what stamping uses.
    Sha256,
    /// Ethereum's Keccak-256 (not SHA3-256: the original padding), which
    /// Ethereum attestations reach through.
    Keccak256,
}

impl HashOp {
    /// The op's tag byte in the proof format.
    pub fn tag(self) -> u8 {
        match self {
            HashOp::Sha1 => 0x02,
            HashOp::Ripemd160 => 0x03,
            HashOp::Sha256 => 0x08,
            HashOp::Keccak256 => 0x67,
        }
    }

    /// The hash op with this tag byte, if any.
    pub fn from_tag(tag: u8) -> Option<Self> {
        match tag {
            0x02 => Some(HashOp::Sha1),
            0x03 => Some(HashOp::Ripemd160),
            0x08 => Some(HashOp::Sha256),
            0x67 => Some(HashOp::Keccak256),
            _ => None,
        }
    }

    /// The name the reference prints (`sha256`, …).
    pub fn name(self) -> &'static str {
        match self {
            HashOp::Sha1 => "sha1",
            HashOp::Ripemd160 => "ripemd160",
            HashOp::Sha256 => "sha256",
            HashOp::Keccak256 => "keccak256",
        }
    }

    /// Bytes of its digest.
    pub fn digest_len(self) -> usize {
        match self {
            HashOp::Sha1 | HashOp::Ripemd160 => 20,
            HashOp::Sha256 | HashOp::Keccak256 => 32,
        }
    }

    /// The digest of `msg`.
    pub fn hash(self, msg: &[u8]) -> Vec<u8> {
        let mut hasher = self.hasher();
        hasher.update(msg);
        hasher.finish()
    }

    /// An incremental hasher, for hashing files as a stream.
    pub fn hasher(self) -> Hasher {
        match self {
            HashOp::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            HashOp::Ripemd160 => Hasher::Ripemd160(ripemd::Ripemd160::new()),
            HashOp::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            HashOp::Keccak256 => Hasher::Keccak256(Box::new(sha3::Keccak256::new())),
        }
    }
}

/// An incremental hasher for one [`HashOp`].
#[derive(Clone)]
pub enum Hasher {
    /// SHA-1.
    Sha1(sha1::Sha1),
    /// RIPEMD-160.
    Ripemd160(ripemd::Ripemd160),
    /// SHA-256.
    Sha256(sha2::Sha256),
    /// Keccak-256 (boxed: its state is large).
    Keccak256(Box<sha3::Keccak256>),
}

impl Hasher {
    /// Feeds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Ripemd160(h) => h.update(bytes),
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Keccak256(h) => h.update(bytes),
        }
    }

    /// The digest of everything fed.
    pub fn finish(self) -> Vec<u8> {
        match self {
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Ripemd160(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Keccak256(h) => h.finalize().to_vec(),
        }
    }
}

/// One operation of a timestamp tree.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// The message's digest.
    Hash(HashOp),
    /// `msg ‖ arg`, with 1..=4096 argument bytes.
    Append(Vec<u8>),
    /// `arg ‖ msg`, with 1..=4096 argument bytes.
    Prepend(Vec<u8>),
    /// The message's bytes in reverse order.
    Reverse,
    /// Lower-case hex of the message (at most 2048 message bytes).
    Hexlify,
}

/// Why an op cannot be applied to a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum OpError {
    #[error("message of {len} bytes is too long for {op} (limit {limit})")]
    MessageTooLong { op: &'static str, len: usize, limit: usize },
    #[error("result of {op} would be {len} bytes, over the {limit}-byte limit")]
    ResultTooLong { op: &'static str, len: usize, limit: usize },
    #[error("{op} argument must be 1..=4096 bytes, not {len}")]
    BadArgLength { op: &'static str, len: usize },
    #[error("{op} of an empty message")]
    EmptyMessage { op: &'static str },
}

reason_names!(OpError {
    MessageTooLong => "message_too_long",
    ResultTooLong => "result_too_long",
    BadArgLength => "bad_arg_length",
    EmptyMessage => "empty_message",
});

impl Op {
    /// The op's tag byte in the proof format.
    pub fn tag(&self) -> u8 {
        match self {
            Op::Hash(hash) => hash.tag(),
            Op::Append(_) => 0xf0,
            Op::Prepend(_) => 0xf1,
            Op::Reverse => 0xf2,
            Op::Hexlify => 0xf3,
        }
    }

    /// The name the reference prints (`append`, `sha256`, …).
    pub fn name(&self) -> &'static str {
        match self {
            Op::Hash(hash) => hash.name(),
            Op::Append(_) => "append",
            Op::Prepend(_) => "prepend",
            Op::Reverse => "reverse",
            Op::Hexlify => "hexlify",
        }
    }

    /// The argument of `append` / `prepend`.
    pub fn arg(&self) -> Option<&[u8]> {
        match self {
            Op::Append(arg) | Op::Prepend(arg) => Some(arg),
            _ => None,
        }
    }

    fn max_msg_len(&self) -> usize {
        match self {
            Op::Hexlify => MAX_MSG_LEN / 2,
            _ => MAX_MSG_LEN,
        }
    }

    /// Length of the result for a message of `len` bytes, or why the op may
    /// not be applied to it. Lengths alone decide validity, so a proof can be
    /// checked against every limit without hashing anything.
    pub fn result_len(&self, len: usize) -> Result<usize, OpError> {
        let op = self.name();
        if len > self.max_msg_len() {
            return Err(OpError::MessageTooLong { op, len, limit: self.max_msg_len() });
        }
        if len == 0 && matches!(self, Op::Reverse | Op::Hexlify) {
            return Err(OpError::EmptyMessage { op });
        }
        let result = match self {
            Op::Hash(hash) => hash.digest_len(),
            Op::Append(arg) | Op::Prepend(arg) => len + arg.len(),
            Op::Reverse => len,
            Op::Hexlify => 2 * len,
        };
        if result > MAX_MSG_LEN {
            return Err(OpError::ResultTooLong { op, len: result, limit: MAX_MSG_LEN });
        }
        Ok(result)
    }

    /// Applies the op, enforcing every limit.
    pub fn apply(&self, msg: &[u8]) -> Result<Vec<u8>, OpError> {
        if let Op::Append(arg) | Op::Prepend(arg) = self
            && (arg.is_empty() || arg.len() > MAX_ARG_LEN)
        {
            return Err(OpError::BadArgLength { op: self.name(), len: arg.len() });
        }
        self.result_len(msg.len())?;
        Ok(self.compute(msg))
    }

    /// Applies the op to a message already known to be within its limits
    /// (as every message of a decoded proof is).
    pub(crate) fn compute(&self, msg: &[u8]) -> Vec<u8> {
        match self {
            Op::Hash(hash) => hash.hash(msg),
            Op::Append(arg) => [msg, arg].concat(),
            Op::Prepend(arg) => [arg, msg].concat(),
            Op::Reverse => msg.iter().rev().copied().collect(),
            Op::Hexlify => crate::hex::encode(msg).into_bytes(),
        }
    }

    /// Decodes the op whose tag byte was just read.
    pub(crate) fn decode(reader: &mut Reader<'_>, tag: u8) -> Result<Op, DecodeError> {
        if let Some(hash) = HashOp::from_tag(tag) {
            return Ok(Op::Hash(hash));
        }
        match tag {
            0xf0 => Ok(Op::Append(reader.varbytes(1, MAX_ARG_LEN)?.to_vec())),
            0xf1 => Ok(Op::Prepend(reader.varbytes(1, MAX_ARG_LEN)?.to_vec())),
            0xf2 => Ok(Op::Reverse),
            0xf3 => Ok(Op::Hexlify),
            _ => Err(DecodeError::UnknownOp { tag, offset: reader.offset() - 1 }),
        }
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.tag());
        if let Some(arg) = self.arg() {
            write_varbytes(out, arg);
        }
    }
}

/// The reference's canonical order: by tag, then by argument bytes.
impl Ord for Op {
    fn cmp(&self, other: &Self) -> Ordering {
        self.tag().cmp(&other.tag()).then_with(|| self.arg().cmp(&other.arg()))
    }
}

impl PartialOrd for Op {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// As the reference prints an op: `sha256`, `append 0a1b…`.
impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.arg() {
            Some(arg) => write!(f, "{} {}", self.name(), crate::hex::encode(arg)),
            None => f.write_str(self.name()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keccak256_is_ethereum_keccak_not_sha3() {
        // Keccak-256 of the empty string, as Ethereum defines it.
        assert_eq!(
            crate::hex::encode(&HashOp::Keccak256.hash(b"")),
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
        );
    }

    #[test]
    fn limits_are_enforced() {
        let big = vec![1u8; 4000];
        assert!(Op::Append(vec![0; 96]).apply(&big).is_ok());
        assert!(matches!(Op::Append(vec![0; 97]).apply(&big), Err(OpError::ResultTooLong { .. })));
        assert!(matches!(Op::Hexlify.apply(&big), Err(OpError::MessageTooLong { .. })));
        assert!(matches!(Op::Append(vec![]).apply(b"x"), Err(OpError::BadArgLength { .. })));
        assert_eq!(Op::Hexlify.apply(&[0xab, 0x01]), Ok(b"ab01".to_vec()));
        assert_eq!(Op::Reverse.apply(&[1, 2, 3]), Ok(vec![3, 2, 1]));
    }

    #[test]
    fn order_is_tag_then_argument() {
        let mut ops = vec![
            Op::Prepend(vec![1]),
            Op::Append(vec![2]),
            Op::Append(vec![1, 9]),
            Op::Hash(HashOp::Keccak256),
            Op::Hash(HashOp::Sha1),
        ];
        ops.sort();
        assert_eq!(
            ops,
            vec![
                Op::Hash(HashOp::Sha1),
                Op::Hash(HashOp::Keccak256),
                Op::Append(vec![1, 9]),
                Op::Append(vec![2]),
                Op::Prepend(vec![1])
            ]
        );
    }
}
