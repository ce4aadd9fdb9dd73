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
//! - Past the table, every period's `bits` follow exactly from the
//!   previous period's: Bitcoin's retarget rule over the timestamps of that
//!   period's first and last headers ([`next_period_bits`]). Those boundary
//!   headers come from the same untrusted source and must each meet their
//!   own (computed) difficulty, so `crate::verify` walks them from the
//!   table's end to the block's period (about two headers per 2016 blocks);
//!   [`check_header`] alone does only the header's local checks there.
//!
//! So a lying source has to mine blocks at the real difficulty to fool us. The Python, JavaScript and Go OpenTimestamps clients check none
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
    /// `mainnet` or `regtest`.
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

/// The JSON name of a network ([`Network::name`]), as the reports write it.
#[cfg(feature = "schema")]
impl schemars::JsonSchema for Network {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Network".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names = [Network::Mainnet, Network::Regtest].map(Network::name);
        schemars::json_schema!({"type": "string", "enum": names})
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

/// The last retarget period whose `bits` the table fixes.
pub fn last_table_period() -> u64 {
    table::MAINNET.len() as u64
}

/// Whether [`check_header`] alone fully checks a header at `height`: always
/// on regtest (no difficulty rule), on mainnet only within the table. Past
/// it, the difficulty needs the period boundaries (see `crate::verify`).
pub fn difficulty_is_tabled(network: Network, height: u64) -> bool {
    network == Network::Regtest || height / RETARGET_INTERVAL <= last_table_period()
}

/// The `bits` of every block in `period`, if the table covers it.
pub fn period_bits(period: u64) -> Option<u32> {
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
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
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
    #[error("block {height}: hash {got} is not the checkpointed hash {expected}")]
    CheckpointMismatch { height: u64, got: BlockHash, expected: String },
}

reason_names!(HeaderError {
    HashMismatch => "hash_mismatch",
    InvalidBits => "invalid_bits",
    InsufficientWork => "insufficient_work",
    WrongDifficulty => "wrong_difficulty",
    CheckpointMismatch => "checkpoint_mismatch",
});

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
        check_mainnet_difficulty(height, bits, &hash)?;
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

fn check_mainnet_difficulty(height: u64, bits: u32, hash: &BlockHash) -> Result<(), HeaderError> {
    let period = height / RETARGET_INTERVAL;
    let Some(expected) = period_bits(period) else {
        // Past the table: the caller establishes the period's bits from
        // its boundary headers.
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

/// The `bits` of the period after one whose last block has `last_bits`,
/// whose first block has time `first_time` and whose last block has time
/// `last_time`: Bitcoin Core's `CalculateNextWorkRequired` on mainnet (the
/// timespan over 2015 intervals, clamped to a quarter and four times two
/// weeks, the old target scaled in 256-bit arithmetic, capped at the
/// proof-of-work limit, compact encoding truncated as `GetCompact` does),
/// through rust-bitcoin's implementation of it.
pub fn next_period_bits(last_bits: u32, first_time: u32, last_time: u32) -> u32 {
    // Core subtracts in 64 bits; a negative timespan is clamped up like any short one.
    let timespan = u64::try_from(i64::from(last_time) - i64::from(first_time)).unwrap_or(0);
    CompactTarget::from_next_work_required(
        CompactTarget::from_consensus(last_bits),
        timespan,
        bitcoin::consensus::Params::MAINNET,
    )
    .to_consensus()
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

    /// Every transition of the table is reachable by the retarget rule: some
    /// timespan within the clamp turns each period's bits into the next
    /// period's exactly. The rule is monotonic in the timespan, so a binary
    /// search finds it; a wrong scaling or compact encoding would miss.
    #[test]
    fn the_retarget_rule_reproduces_every_table_transition() {
        const TWO_WEEKS: u32 = 1_209_600;
        let (shortest, longest) = (TWO_WEEKS / 4, TWO_WEEKS * 4);
        let target = |bits: u32| Target::from_compact(CompactTarget::from_consensus(bits));
        for period in 1..last_table_period() {
            let (bits, next) = (period_bits(period).unwrap(), period_bits(period + 1).unwrap());
            let (mut low, mut high) = (shortest, longest);
            while low < high {
                let middle = low + (high - low) / 2;
                if target(next_period_bits(bits, 0, middle)) < target(next) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            assert_eq!(next_period_bits(bits, 0, low), next, "period {period} -> {}", period + 1);
        }
    }

    #[test]
    fn the_retarget_clamps_to_four_times_and_to_the_limit() {
        let bits = period_bits(last_table_period()).unwrap();
        let target = |bits: u32| Target::from_compact(CompactTarget::from_consensus(bits));
        // A period mined in no time: 4x harder, never more.
        let harder = next_period_bits(bits, 1_000, 1_000);
        assert_eq!(harder, next_period_bits(bits, 1_000, 1_000 + 302_400));
        assert!(target(harder) < target(bits));
        // A period of a year: 4x easier, never more.
        let easier = next_period_bits(bits, 0, 31_536_000);
        assert_eq!(easier, next_period_bits(bits, 0, 4_838_400));
        assert_eq!(next_period_bits(0x1d00ffff, 0, 4_838_400), 0x1d00ffff, "capped at the limit");
        // Exactly two weeks: unchanged.
        assert_eq!(next_period_bits(bits, 0, 1_209_600), bits);
        // Time going backwards is a short period, not a panic.
        assert_eq!(next_period_bits(bits, 2_000, 1_000), harder);
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
