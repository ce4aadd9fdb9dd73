//! What a Bitcoin header must satisfy before anything it says is believed.
//!
//! A header source (explorer, node, cache file) is never trusted. Every
//! header must hash to the block hash the source named, meet the target of
//! its own `bits`, and — on mainnet — carry the real difficulty of its
//! height:
//!
//! - Up to height 747935 (371 retarget periods of 2016 blocks), `bits` must
//!   equal the period's value in the checkpoint table, and the last block of
//!   each period must have the recorded hash. The table is Electrum's
//!   `checkpoints.json` as shipped by Debian's `python3-electrum`
//!   4.3.4+dfsg1-1+deb12u2, converted by `tools/checkpoints.py`; the figures
//!   are public facts of the chain that any full node can re-derive.
//! - Past the table, the target may be at most the last checkpoint target
//!   times 4 per period since (consensus lets difficulty fall at most 4× per
//!   retarget), and never above the proof-of-work limit.
//!
//! So a lying source has to mine a block at (close to) real difficulty to
//! fool us. The Python, JavaScript and Go OpenTimestamps clients check none
//! of this: they compare the merkle root of whatever header they are given.

#[path = "checkpoint_table.rs"]
mod table;

use bitcoin::block::Header;
use bitcoin::pow::{CompactTarget, Target};
use bitcoin::BlockHash;

/// Blocks per difficulty period.
pub const RETARGET_INTERVAL: u64 = 2016;

/// Which chain headers belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Network {
    /// Bitcoin mainnet: proof-of-work limit `0x1d00ffff`, checkpoints.
    Mainnet,
    /// A private test chain: limit `0x207fffff`, no checkpoints, so tests can
    /// mine real headers in microseconds.
    Regtest,
}

impl Network {
    pub fn name(self) -> &'static str {
        match self {
            Network::Mainnet => "mainnet",
            Network::Regtest => "regtest",
        }
    }

    /// The easiest target a header of this network may have.
    pub fn pow_limit(self) -> Target {
        match self {
            Network::Mainnet => Target::MAX_ATTAINABLE_MAINNET,
            Network::Regtest => Target::MAX_ATTAINABLE_REGTEST,
        }
    }
}

impl std::str::FromStr for Network {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "mainnet" | "bitcoin" => Ok(Network::Mainnet),
            "regtest" => Ok(Network::Regtest),
            other => Err(format!("unknown network {other:?} (expected mainnet or regtest)")),
        }
    }
}

/// One retarget period of the table: its `bits` and the display hash of its
/// last block.
pub(crate) struct Checkpoint {
    bits: u32,
    last_hash: [u8; 64],
}

/// The last height the checkpoint table covers.
pub fn last_checkpoint_height() -> u64 {
    table::MAINNET.len() as u64 * RETARGET_INTERVAL - 1
}

/// Why a header from a source was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("block {height}: the source named block {asked} but served a header that hashes to {got}")]
    HashMismatch { height: u64, asked: BlockHash, got: BlockHash },
    #[error("block {height}: bits 0x{bits:08x} are not a valid target for {network}")]
    InvalidBits { height: u64, bits: u32, network: &'static str },
    #[error("block {height}: hash {hash} does not meet its own target (bits 0x{bits:08x}): no proof of work")]
    InsufficientWork { height: u64, hash: BlockHash, bits: u32 },
    #[error(
        "block {height}: bits 0x{bits:08x} are not the real mainnet difficulty for this height (0x{expected:08x}): forged header"
    )]
    WrongDifficulty { height: u64, bits: u32, expected: u32 },
    #[error(
        "block {height}: bits 0x{bits:08x} are easier than the mainnet difficulty can have fallen to by this height (floor 0x{floor:08x}): forged header"
    )]
    BelowDifficultyFloor { height: u64, bits: u32, floor: u32 },
    #[error("block {height}: hash {got} is not the checkpointed hash {expected}")]
    CheckpointMismatch { height: u64, got: BlockHash, expected: String },
}

/// Checks a header the source says is block `asked` at `height`.
pub fn check_header(network: Network, height: u64, asked: &BlockHash, header: &Header) -> Result<(), HeaderError> {
    let hash = header.block_hash();
    if hash != *asked {
        return Err(HeaderError::HashMismatch { height, asked: *asked, got: hash });
    }
    let bits = header.bits.to_consensus();
    let target = valid_target(bits, network).ok_or(HeaderError::InvalidBits { height, bits, network: network.name() })?;
    if !target.is_met_by(hash) {
        return Err(HeaderError::InsufficientWork { height, hash, bits });
    }
    if network == Network::Mainnet {
        check_mainnet_difficulty(height, bits, target, &hash)?;
    }
    Ok(())
}

/// The target `bits` encode, if it is positive, not overflowing, and no
/// easier than the network allows.
fn valid_target(bits: u32, network: Network) -> Option<Target> {
    let size = bits >> 24;
    let negative = bits & 0x0080_0000 != 0;
    if negative || bits & 0x007f_ffff == 0 || size > 32 {
        return None;
    }
    let target = Target::from_compact(CompactTarget::from_consensus(bits));
    (target != Target::ZERO && target <= network.pow_limit()).then_some(target)
}

fn check_mainnet_difficulty(height: u64, bits: u32, target: Target, hash: &BlockHash) -> Result<(), HeaderError> {
    let period = height / RETARGET_INTERVAL;
    match table::MAINNET.get(period as usize) {
        Some(checkpoint) => {
            if bits != checkpoint.bits {
                return Err(HeaderError::WrongDifficulty { height, bits, expected: checkpoint.bits });
            }
            let is_last_of_period = (height + 1) % RETARGET_INTERVAL == 0;
            if is_last_of_period && hash.to_string().as_bytes() != checkpoint.last_hash {
                let expected = String::from_utf8_lossy(&checkpoint.last_hash).into_owned();
                return Err(HeaderError::CheckpointMismatch { height, got: *hash, expected });
            }
            Ok(())
        }
        None => {
            let floor = easiest_target_after_table(period);
            if target > floor {
                let floor = floor.to_compact_lossy().to_consensus();
                return Err(HeaderError::BelowDifficultyFloor { height, bits, floor });
            }
            Ok(())
        }
    }
}

/// The easiest target period `period` (past the table) can have: the last
/// checkpoint's target, times 4 for every period since, capped at the limit.
fn easiest_target_after_table(period: u64) -> Target {
    let limit = Network::Mainnet.pow_limit();
    let Some(last) = table::MAINNET.last() else { return limit };
    let mut target = Target::from_compact(CompactTarget::from_consensus(last.bits));
    let periods = period.saturating_sub(table::MAINNET.len() as u64 - 1);
    for _ in 0..periods {
        target = target.max_transition_threshold_unchecked();
        if target >= limit {
            return limit;
        }
    }
    target
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_complete_and_consistent() {
        assert_eq!(last_checkpoint_height(), 747_935);
        assert_eq!(table::MAINNET[0].bits, 0x1d00ffff);
        for checkpoint in &table::MAINNET {
            assert!(valid_target(checkpoint.bits, Network::Mainnet).is_some());
        }
    }

    #[test]
    fn floor_relaxes_by_four_per_period_then_caps() {
        let last = Target::from_compact(CompactTarget::from_consensus(table::MAINNET[370].bits));
        assert_eq!(easiest_target_after_table(371), last.max_transition_threshold_unchecked());
        assert_eq!(easiest_target_after_table(10_000), Network::Mainnet.pow_limit());
    }

    #[test]
    fn bad_bits_are_refused() {
        assert!(valid_target(0x1d00ffff, Network::Mainnet).is_some());
        assert!(valid_target(0x207fffff, Network::Mainnet).is_none());
        assert!(valid_target(0x207fffff, Network::Regtest).is_some());
        assert!(valid_target(0x1d80ffff, Network::Mainnet).is_none()); // negative
        assert!(valid_target(0xff7fffff, Network::Regtest).is_none()); // overflow
        assert!(valid_target(0x1d000000, Network::Mainnet).is_none()); // zero
    }
}
