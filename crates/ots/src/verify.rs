//! Verification: follow every path of a proof to its Bitcoin attestations
//! and check each against a header that passed every check.

use crate::attestation::Attestation;
use crate::checkpoints::{
    HeaderError, Network, RETARGET_INTERVAL, check_header, difficulty_is_tabled, last_table_period,
    next_period_bits, period_bits,
};
use crate::detached::DetachedTimestamp;
use crate::headers::{HeaderSource, SourceError};
use crate::hex::encode_reversed;
use bitcoin::hashes::Hash;

/// A Bitcoin attestation that checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedBlock {
    /// Block height.
    pub height: u64,
    /// The block's hash (its header hashed, checked).
    pub block_hash: bitcoin::BlockHash,
    /// The header's time, seconds since the Unix epoch (UTC).
    pub time: u32,
}

/// A Bitcoin attestation that did not check out, and why.
#[derive(Debug, Clone)]
pub struct AttestationFailure {
    /// The height the attestation names.
    pub height: u64,
    /// Why it failed.
    pub reason: AttestationError,
}

/// Why one Bitcoin attestation failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum AttestationError {
    #[error("the proof reaches {found} at block {height}, but that block's merkle root is {merkle_root}")]
    MerkleRootMismatch { height: u64, merkle_root: String, found: String },
    #[error("the proof reaches a {len}-byte message at block {height}; a merkle root has 32 bytes")]
    NotAMerkleRoot { height: u64, len: usize },
    #[error("header refused: {0}")]
    Header(HeaderError),
    #[error("no header: {0}")]
    Source(SourceError),
    /// A header of a period boundary, needed to compute the real difficulty
    /// past the checkpoint table, was refused.
    #[error(
        "block {height}: its difficulty cannot be established: boundary block {boundary} refused: {reason}"
    )]
    Boundary { height: u64, boundary: u64, reason: HeaderError },
}

reason_names!(AttestationError {
    MerkleRootMismatch => "merkle_root_mismatch",
    NotAMerkleRoot => "not_a_merkle_root",
    Header => "header",
    Source => "source",
    Boundary => "boundary",
});

impl AttestationError {
    /// Whether this failure is the header source's, not the proof's: no
    /// header could be had, or the one served fails its own checks (its
    /// hash, its proof of work, the difficulty its height requires, a
    /// checkpoint). Such a header proves nothing either way, so the proof
    /// is unchecked, never false: a proof is false only against a header
    /// that passed every check ([`AttestationError::MerkleRootMismatch`]).
    pub fn blames_source(&self) -> bool {
        matches!(
            self,
            AttestationError::Source(_) | AttestationError::Header(_) | AttestationError::Boundary { .. }
        )
    }
}

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<HeaderError> for AttestationError {
    fn from(cause: HeaderError) -> Self {
        AttestationError::Header(cause)
    }
}
impl From<SourceError> for AttestationError {
    fn from(cause: SourceError) -> Self {
        AttestationError::Source(cause)
    }
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
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum VerifyError {
    #[error("pending: only calendar attestations ({}); upgrade the proof later", calendars.join(", "))]
    Pending { calendars: Vec<String> },
    #[error("no Bitcoin attestation in the proof")]
    NoBitcoinAttestation { unverified: Vec<Attestation> },
    #[error("no Bitcoin attestation verified: {}", describe_failures(failures))]
    Failed { failures: Vec<AttestationFailure> },
}

reason_names!(VerifyError {
    Pending => "pending",
    NoBitcoinAttestation => "no_bitcoin_attestation",
    Failed => "failed",
});

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
    let past_table = match difficulty_is_tabled(network, height) {
        true => None,
        false => Some(mainnet_bits_past_table(source, height)?),
    };
    check_sourced_header(network, height, &sourced, past_table)?;
    let merkle_root = sourced.header.merkle_root.to_byte_array();
    if merkle_root[..] != *commitment {
        return Err(AttestationError::MerkleRootMismatch {
            height,
            merkle_root: encode_reversed(&merkle_root),
            found: encode_reversed(commitment),
        });
    }
    source.confirmed(height, &sourced.header);
    Ok(VerifiedBlock { height, block_hash: sourced.claimed_hash, time: sourced.header.time })
}

/// Checks a sourced header: its hash, its proof of work and its difficulty
/// ([`check_header`]), and past the checkpoint table the `bits` computed
/// for its period (`past_table_bits`, from [`mainnet_bits_past_table`]).
pub(crate) fn check_sourced_header(
    network: Network,
    height: u64,
    sourced: &crate::headers::SourcedHeader,
    past_table_bits: Option<u32>,
) -> Result<(), HeaderError> {
    check_header(network, height, &sourced.claimed_hash, &sourced.header)?;
    let bits = sourced.header.bits.to_consensus();
    match past_table_bits {
        Some(expected) if bits != expected => Err(HeaderError::WrongDifficulty { height, bits, expected }),
        _ => Ok(()),
    }
}

/// The real `bits` of the mainnet block at `height`, past the checkpoint
/// table: from the table's last period, each period's first and last
/// headers give the next period's bits ([`next_period_bits`]). Every
/// boundary header must pass [`check_header`] and carry the bits computed
/// for its period, so a source cannot bend the difficulty without mining at
/// it. Boundary headers that pass are confirmed to the source (for caching).
pub(crate) fn mainnet_bits_past_table(
    source: &dyn HeaderSource,
    height: u64,
) -> Result<u32, AttestationError> {
    let target_period = height / RETARGET_INTERVAL;
    let first_period = last_table_period();
    let mut bits = period_bits(first_period).expect("the table covers its own last period");
    for period in first_period..target_period {
        let first = boundary_header(source, height, period * RETARGET_INTERVAL, bits)?;
        let last = boundary_header(source, height, period * RETARGET_INTERVAL + RETARGET_INTERVAL - 1, bits)?;
        bits = next_period_bits(bits, first.time, last.time);
    }
    Ok(bits)
}

/// The header at `boundary`, checked, with `bits` as its period's bits.
fn boundary_header(
    source: &dyn HeaderSource,
    height: u64,
    boundary: u64,
    bits: u32,
) -> Result<bitcoin::block::Header, AttestationError> {
    let sourced = source.header_at(boundary)?;
    let refused = |reason| AttestationError::Boundary { height, boundary, reason };
    check_header(Network::Mainnet, boundary, &sourced.claimed_hash, &sourced.header).map_err(refused)?;
    let found = sourced.header.bits.to_consensus();
    if found != bits {
        return Err(refused(HeaderError::WrongDifficulty { height: boundary, bits: found, expected: bits }));
    }
    source.confirmed(boundary, &sourced.header);
    Ok(sourced.header)
}
