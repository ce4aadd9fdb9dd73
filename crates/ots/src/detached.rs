//! Detached timestamp files (`FILE.ots`): magic, version, file hash, tree.

use crate::codec::{DecodeError, Reader, write_varuint};
use crate::op::HashOp;
use crate::timestamp::{AttestationAt, MAX_DEPTH, MergeError, Timestamp};
use std::io::{self, Read};

/// The 31 bytes every `.ots` file starts with.
pub const MAGIC: &[u8; 31] = b"\x00OpenTimestamps\x00\x00Proof\x00\xbf\x89\xe2\xe8\x84\xe8\x92\x94";
/// The only major version there is.
pub const MAJOR_VERSION: u64 = 1;
/// The largest `.ots` file a reader should load: far above any real proof
/// (a few kilobytes; the decoder's own limits bound the tree), low enough
/// that a mistaken path to a large file fails at once.
pub const MAX_PROOF_BYTES: u64 = 4 << 20;

/// A proof for one file: which hash of the file it starts from, the digest,
/// and the timestamp tree over that digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetachedTimestamp {
    file_hash: HashOp,
    digest: Vec<u8>,
    timestamp: Timestamp,
}

impl DetachedTimestamp {
    /// Decodes a `.ots` file, enforcing every limit of the reference.
    pub fn from_bytes(bytes: &[u8]) -> Result<DetachedTimestamp, DecodeError> {
        let mut reader = Reader::new(bytes);
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(DecodeError::BadMagic);
        }
        reader.take(MAGIC.len())?;
        let major = reader.varuint()?;
        if major != MAJOR_VERSION {
            return Err(DecodeError::UnsupportedMajorVersion(major));
        }
        let tag = reader.byte()?;
        let file_hash = HashOp::from_tag(tag).ok_or(DecodeError::UnknownFileHashOp(tag))?;
        let digest = reader.take(file_hash.digest_len())?.to_vec();
        let timestamp = Timestamp::decode(&mut reader, digest.len(), MAX_DEPTH)?;
        reader.expect_end()?;
        Ok(DetachedTimestamp { file_hash, digest, timestamp })
    }

    /// Serializes in the reference's canonical order: for every proof the
    /// reference writes, `from_bytes(b)?.to_bytes() == b`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(MAGIC);
        write_varuint(&mut out, MAJOR_VERSION);
        out.push(self.file_hash.tag());
        out.extend_from_slice(&self.digest);
        self.timestamp.encode(&mut out);
        out
    }

    /// A proof with the given tree. `timestamp` must not be empty (have at
    /// least one attestation), or the file could not be read back.
    pub(crate) fn new(file_hash: HashOp, digest: Vec<u8>, timestamp: Timestamp) -> DetachedTimestamp {
        DetachedTimestamp { file_hash, digest, timestamp }
    }

    /// The hash the file digest was made with.
    pub fn file_hash_op(&self) -> HashOp {
        self.file_hash
    }

    /// The digest of the timestamped file (the tree's first message).
    pub fn file_digest(&self) -> &[u8] {
        &self.digest
    }

    /// The tree over the file digest.
    pub fn timestamp(&self) -> &Timestamp {
        &self.timestamp
    }

    pub(crate) fn timestamp_mut(&mut self) -> &mut Timestamp {
        &mut self.timestamp
    }

    /// Every attestation with the message it vouches for.
    pub fn attestations(&self) -> Vec<AttestationAt> {
        self.timestamp.all_attestations(&self.digest)
    }

    /// Whether some path of the proof ends in a Bitcoin attestation (the
    /// proof is complete, though not yet verified).
    pub fn has_bitcoin_attestation(&self) -> bool {
        self.timestamp.has_bitcoin_attestation()
    }

    /// Merges a calendar's answer for `commitment` into the tree.
    pub fn merge_at(&mut self, commitment: &[u8], answer: Timestamp) -> Result<(), MergeError> {
        self.timestamp.merge_at(&self.digest, commitment, answer)
    }

    /// Whether `digest` is the digest this proof is for.
    pub fn matches_digest(&self, digest: &[u8]) -> bool {
        digest == self.digest
    }

    /// Hashes `reader` with this proof's file hash and compares.
    pub fn matches_file(&self, reader: impl Read) -> io::Result<bool> {
        Ok(hash_reader(self.file_hash, reader)? == self.digest)
    }
}

/// Hashes a stream (a file) with `op`.
pub fn hash_reader(op: HashOp, mut reader: impl Read) -> io::Result<Vec<u8>> {
    let mut hasher = op.hasher();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return Ok(hasher.finish()),
            Ok(n) => hasher.update(&buffer[..n]),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}
