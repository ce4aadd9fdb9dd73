//! Verification: follow every path of a proof to its Bitcoin attestations
//! and check each against a header that passed every check.

use crate::attestation::Attestation;
use crate::checkpoints::{HeaderError, Network, check_header};
use crate::detached::DetachedTimestamp;
use crate::headers::{HeaderSource, SourceError};
use crate::hex::encode_reversed;
use bitcoin::hashes::Hash;

/// A Bitcoin attestation that checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedBlock {
    pub height: u64,
    pub block_hash: bitcoin::BlockHash,
    /// The header's time, seconds since the Unix epoch (UTC).
    pub time: u32,
}

/// A Bitcoin attestation that did not check out, and why.
#[derive(Debug, Clone)]
pub struct AttestationFailure {
    pub height: u64,
    pub reason: AttestationError,
}

/// Why one Bitcoin attestation failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum AttestationError {
    #[error("the proof reaches {found} at block {height}, but that block's merkle root is {merkle_root}")]
    MerkleRootMismatch { height: u64, merkle_root: String, found: String },
    #[error("the proof reaches a {len}-byte message at block {height}; a merkle root has 32 bytes")]
    NotAMerkleRoot { height: u64, len: usize },
    #[error("header refused: {0}")]
    Header(#[from] HeaderError),
    #[error("no header: {0}")]
    Source(#[from] SourceError),
}

/// The outcome of a successful verification.
#[derive(Debug, Clone)]
pub struct Verification {
    /// The earliest block that attests the file existed.
    pub earliest: VerifiedBlock,
    /// Bitcoin attestations at lower heights that failed (those higher than
    /// the earliest verified one are not looked at).
    pub failures: Vec<AttestationFailure>,
    /// Calendars still holding pending attestations.
    pub pending: Vec<String>,
    /// Attestations present but not verified: Litecoin, Ethereum, unknown.
    pub unverified: Vec<Attestation>,
}

/// Why a proof did not verify.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    #[error("pending: only calendar attestations ({}); upgrade the proof later", calendars.join(", "))]
    Pending { calendars: Vec<String> },
    #[error("no Bitcoin attestation in the proof")]
    NoBitcoinAttestation { unverified: Vec<Attestation> },
    #[error("no Bitcoin attestation verified: {}", describe_failures(failures))]
    Failed { failures: Vec<AttestationFailure> },
}

fn describe_failures(failures: &[AttestationFailure]) -> String {
    let parts: Vec<String> = failures.iter().map(|f| format!("block {}: {}", f.height, f.reason)).collect();
    parts.join("; ")
}

/// Verifies every path of `proof` to a Bitcoin attestation, lowest height
/// first, until one holds. The file digest is not checked here (see
/// [`DetachedTimestamp::matches_file`]).
pub fn verify(
    proof: &DetachedTimestamp,
    source: &dyn HeaderSource,
    network: Network,
) -> Result<Verification, VerifyError> {
    let mut bitcoin = Vec::new();
    let mut pending = Vec::new();
    let mut unverified = Vec::new();
    for found in proof.attestations() {
        match found.attestation {
            Attestation::Bitcoin { height } => bitcoin.push((height, found.commitment)),
            Attestation::Pending { uri } => pending.push(uri),
            other => unverified.push(other),
        }
    }
    pending.sort();
    pending.dedup();
    bitcoin.sort();
    bitcoin.dedup();
    if bitcoin.is_empty() {
        return Err(if pending.is_empty() {
            VerifyError::NoBitcoinAttestation { unverified }
        } else {
            VerifyError::Pending { calendars: pending }
        });
    }
    let mut failures = Vec::new();
    for (height, commitment) in bitcoin {
        match verify_attestation(source, network, height, &commitment) {
            Ok(earliest) => return Ok(Verification { earliest, failures, pending, unverified }),
            Err(reason) => failures.push(AttestationFailure { height, reason }),
        }
    }
    Err(VerifyError::Failed { failures })
}

/// Checks that `commitment` is the merkle root of the checked header at `height`.
pub fn verify_attestation(
    source: &dyn HeaderSource,
    network: Network,
    height: u64,
    commitment: &[u8],
) -> Result<VerifiedBlock, AttestationError> {
    if commitment.len() != 32 {
        return Err(AttestationError::NotAMerkleRoot { height, len: commitment.len() });
    }
    let sourced = source.header_at(height)?;
    check_header(network, height, &sourced.claimed_hash, &sourced.header)?;
    let merkle_root = sourced.header.merkle_root.to_byte_array();
    if merkle_root[..] != *commitment {
        return Err(AttestationError::MerkleRootMismatch {
            height,
            merkle_root: encode_reversed(&merkle_root),
            found: encode_reversed(commitment),
        });
    }
    Ok(VerifiedBlock { height, block_hash: sourced.claimed_hash, time: sourced.header.time })
}
