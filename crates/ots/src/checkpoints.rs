//! What a Bitcoin header must satisfy before anything it says is believed.
//!
//! A header source (explorer, node, cache file) is never trusted. Every
//! header must hash to the block hash the source named, meet the target of
//! its own `bits`, and — on mainnet — carry the real difficulty of its
//! height:
//!
//! - Up to height 749951 (372 retarget periods of 2016 blocks), `bits` must
//!   equal the period's value from the checkpoint table, and the last block
//!   of each period up to height 747935 must have the recorded hash. The table is Electrum's
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

use bitcoin::BlockHash;
use bitcoin::block::Header;
use bitcoin::pow::{CompactTarget, Target};

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

/// One retarget period `i` of the table: the display hash of its last
/// block, and the `bits` of period `i + 1` (Electrum stores "the target
/// after the chunk"; period 0 has the proof-of-work limit).
pub(crate) struct Checkpoint {
    next_bits: u32,
    last_hash: [u8; 64],
}

/// The last height whose difficulty the table fixes (the end of the period
/// after the last checkpointed hash).
pub fn last_checkpoint_height() -> u64 {
    (table::MAINNET.len() as u64 + 1) * RETARGET_INTERVAL - 1
}

/// The `bits` of every block in `period`, if the table covers it.
fn period_bits(period: u64) -> Option<u32> {
    match period {
        0 => Some(MAINNET_LIMIT_BITS),
        _ => table::MAINNET.get(usize::try_from(period - 1).ok()?).map(|checkpoint| checkpoint.next_bits),
    }
}

/// The display hash of the last block of `period`, if recorded.
fn period_last_hash(period: u64) -> Option<&'static [u8; 64]> {
    table::MAINNET.get(usize::try_from(period).ok()?).map(|checkpoint| &checkpoint.last_hash)
}

const MAINNET_LIMIT_BITS: u32 = 0x1d00_ffff;

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
pub fn check_header(
    network: Network,
    height: u64,
    asked: &BlockHash,
    header: &Header,
) -> Result<(), HeaderError> {
    let hash = header.block_hash();
    if hash != *asked {
        return Err(HeaderError::HashMismatch { height, asked: *asked, got: hash });
    }
    let bits = header.bits.to_consensus();
    let target = valid_target(bits, network).ok_or(HeaderError::InvalidBits {
        height,
        bits,
        network: network.name(),
    })?;
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

fn check_mainnet_difficulty(
    height: u64,
    bits: u32,
    target: Target,
    hash: &BlockHash,
) -> Result<(), HeaderError> {
    let period = height / RETARGET_INTERVAL;
    let Some(expected) = period_bits(period) else {
        let floor = easiest_target_after_table(period);
        if target > floor {
            let floor = floor.to_compact_lossy().to_consensus();
            return Err(HeaderError::BelowDifficultyFloor { height, bits, floor });
        }
        return Ok(());
    };
    if bits != expected {
        return Err(HeaderError::WrongDifficulty { height, bits, expected });
    }
    let is_last_of_period = (height + 1).is_multiple_of(RETARGET_INTERVAL);
    if let Some(last_hash) = period_last_hash(period)
        && is_last_of_period
        && hash.to_string().as_bytes() != last_hash
    {
        let expected = String::from_utf8_lossy(last_hash).into_owned();
        return Err(HeaderError::CheckpointMismatch { height, got: *hash, expected });
    }
    Ok(())
}

/// The easiest target a period past the table can have: the last known
/// period's target, times 4 for every period since, capped at the limit.
fn easiest_target_after_table(period: u64) -> Target {
    let limit = Network::Mainnet.pow_limit();
    let last_known_period = table::MAINNET.len() as u64;
    let Some(last_bits) = period_bits(last_known_period) else { return limit };
    let mut target = Target::from_compact(CompactTarget::from_consensus(last_bits));
    for _ in 0..period.saturating_sub(last_known_period) {
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
        assert_eq!(last_checkpoint_height(), 749_951);
        assert_eq!(period_bits(0), Some(0x1d00ffff));
        assert_eq!(period_bits(1), Some(0x1d00ffff));
        for checkpoint in &table::MAINNET {
            assert!(valid_target(checkpoint.next_bits, Network::Mainnet).is_some());
        }
    }

    #[test]
    fn floor_relaxes_by_four_per_period_then_caps() {
        let last = Target::from_compact(CompactTarget::from_consensus(table::MAINNET[370].next_bits));
        assert_eq!(easiest_target_after_table(372), last.max_transition_threshold_unchecked());
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
