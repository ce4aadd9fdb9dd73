//! What a verified proof is worth: the work a forger would have to redo to
//! replace the attested block and every block on top of it, from headers
//! that pass the same checks as the attested one (proof of work, exact
//! difficulty) and link to it. A source's tip height only says where to
//! stop fetching; it is never counted without the headers.

use crate::checkpoints::{Network, RETARGET_INTERVAL, difficulty_is_tabled};
use crate::headers::{HeaderSource, SourceError};
use crate::verify::{AttestationError, VerifiedBlock, check_sourced_header, mainnet_bits_past_table};
use bitcoin::pow::Work;

/// How many headers on top of the attested block [`cost_to_forge`] fetches
/// by default (one day of blocks): past it, the cost is a lower bound.
pub const DEFAULT_FORGE_HEADERS: u64 = 144;

/// Seconds between blocks that the difficulty aims at.
const BLOCK_SECONDS: f64 = 600.0;

/// The cost of rewriting the chain from the attested block to the tip.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CostToForge {
    /// Blocks on top of the attested one, each header fetched and checked.
    pub blocks: u64,
    /// log2 of the expected number of hashes to redo the attested block and
    /// the `blocks` on top (the sum of 2^256 / (target + 1) per header).
    pub work_log2: f64,
    /// That work in days of the network's hash rate at the attested block
    /// (estimated from its difficulty: its work per 600 seconds).
    pub days_at_attested_hashrate: f64,
    /// Blocks on top that the source claims (its tip height minus the
    /// attested height), checked or not.
    pub claimed_blocks: u64,
    /// Whether every claimed block was checked; if not, the figures are a
    /// lower bound (at most the bound given was fetched, or a header
    /// stopped coming).
    pub complete: bool,
    /// Whether the tip is only the highest header the source holds (a
    /// header cache): the chain may be longer than it knows.
    pub tip_as_far_as_held: bool,
}

impl std::fmt::Display for CostToForge {
    /// One line: `2^78.3 hashes (0.04 days of the network's hash rate at
    /// the attested block) to redo the attested block and the 5 on top`,
    /// with what makes it a lower bound.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at_least = if self.complete { "" } else { "at least " };
        let days = self.days_at_attested_hashrate;
        let days = if days < 10.0 { format!("{days:.2}") } else { format!("{days:.0}") };
        write!(
            f,
            "{at_least}2^{:.1} hashes ({days} days of the network's hash rate at the attested block) \
             to redo the attested block and the {} on top",
            self.work_log2, self.blocks
        )?;
        if !self.complete {
            write!(f, "; a lower bound: the source claims {} block(s) on top", self.claimed_blocks)?;
        }
        if self.tip_as_far_as_held {
            f.write_str(" (its tip as far as the headers it holds go)")?;
        }
        Ok(())
    }
}

/// Why the cost could not be computed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum ForgeError {
    #[error("no tip height: {0}")]
    Tip(SourceError),
    #[error("block {height} on top of the attested block is refused: {reason}")]
    Refused { height: u64, reason: AttestationError },
    #[error("block {height} does not build on block {}", .height - 1)]
    NotLinked { height: u64 },
    #[error("the source now serves another block {height} than the one verified")]
    AttestedBlockChanged { height: u64 },
}

reason_names!(ForgeError {
    Tip => "tip",
    Refused => "refused",
    NotLinked => "not_linked",
    AttestedBlockChanged => "attested_block_changed",
});

/// The work to redo `attested` and the blocks on top of it up to the
/// source's tip, fetching at most `max_headers` headers on top. Every header
/// is checked as [`crate::verify`] checks the attested one and must build on
/// the one below; those that pass are confirmed to the source (for caching).
/// A header the source does not have ends the count early (`complete` is
/// then false); a header that fails a check is an error.
pub fn cost_to_forge(
    source: &dyn HeaderSource,
    network: Network,
    attested: &VerifiedBlock,
    max_headers: u64,
) -> Result<CostToForge, ForgeError> {
    let tip = source.tip_height().map_err(ForgeError::Tip)?;
    let claimed_blocks = tip.height.saturating_sub(attested.height);
    let base = source
        .header_at(attested.height)
        .map_err(|err| ForgeError::Refused { height: attested.height, reason: err.into() })?;
    if base.header.block_hash() != attested.block_hash {
        return Err(ForgeError::AttestedBlockChanged { height: attested.height });
    }
    let attested_work = base.header.work();
    let mut total = attested_work;
    let mut below = attested.block_hash;
    let mut period_bits: Option<(u64, u32)> = None;
    let mut blocks = 0;
    for height in attested.height + 1..=attested.height + claimed_blocks.min(max_headers) {
        let refused = |reason: AttestationError| ForgeError::Refused { height, reason };
        let sourced = match source.header_at(height) {
            Ok(sourced) => sourced,
            Err(SourceError::NotFound { .. }) => break,
            Err(err) => return Err(refused(err.into())),
        };
        let past_table = match difficulty_is_tabled(network, height) {
            true => None,
            false => Some(bits_of_period(source, height, &mut period_bits).map_err(refused)?),
        };
        check_sourced_header(network, height, &sourced, past_table).map_err(|err| refused(err.into()))?;
        if sourced.header.prev_blockhash != below {
            return Err(ForgeError::NotLinked { height });
        }
        source.confirmed(height, &sourced.header);
        total = total + sourced.header.work();
        below = sourced.claimed_hash;
        blocks += 1;
    }
    Ok(CostToForge {
        blocks,
        work_log2: total.log2(),
        days_at_attested_hashrate: days_at_hashrate_of(total, attested_work),
        claimed_blocks,
        complete: blocks == claimed_blocks,
        tip_as_far_as_held: tip.as_far_as_held,
    })
}

/// The past-table `bits` of `height`'s period, computed once per period.
fn bits_of_period(
    source: &dyn HeaderSource,
    height: u64,
    memo: &mut Option<(u64, u32)>,
) -> Result<u32, AttestationError> {
    let period = height / RETARGET_INTERVAL;
    match *memo {
        Some((memo_period, bits)) if memo_period == period => Ok(bits),
        _ => {
            let bits = mainnet_bits_past_table(source, height)?;
            *memo = Some((period, bits));
            Ok(bits)
        }
    }
}

/// `work` in days of a network that does `block_work` every 600 seconds.
fn days_at_hashrate_of(work: Work, block_work: Work) -> f64 {
    let blocks_of_work = (work.log2() - block_work.log2()).exp2();
    blocks_of_work * BLOCK_SECONDS / 86_400.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::{MemoryHeaders, header_from_hex};

    /// Mainnet block 358391 (the `hello-world.txt` fixture's), bits 0x181686f5.
    const HEADER_358391: &str = "02000000b96394585a281b7e5f438fd1c9ed492645a1fd61cb3802040000000000000000007ee445d23ad061af4a36b809501fab1ac4f2d7e7a739817dd0cbb7ec661b8a1e376755f58616186272def6";
    /// Its work, 2^256 // (target + 1) with target = 0x1686f5 * 256^(0x18 - 3),
    /// worked out apart from the bitcoin crate with Python's integers.
    const WORK_358391: u128 = 209_629_760_212_135_996_172;

    #[test]
    fn the_work_of_a_real_header_is_the_exact_figure() {
        let header = header_from_hex(HEADER_358391).unwrap();
        let mut exact = [0u8; 32];
        exact[16..].copy_from_slice(&WORK_358391.to_be_bytes());
        assert_eq!(header.work().to_be_bytes(), exact);
        // Python: math.log2(w) = 67.50640544221173, math.log2(2 * w) = 68.50640544221173.
        assert!((header.work().log2() - 67.506_405_442_211_73).abs() < 1e-9);
        assert!(((header.work() + header.work()).log2() - 68.506_405_442_211_73).abs() < 1e-9);
    }

    #[test]
    fn one_block_of_work_is_ten_minutes_at_its_own_rate() {
        let header = header_from_hex(HEADER_358391).unwrap();
        assert!((days_at_hashrate_of(header.work(), header.work()) - 600.0 / 86_400.0).abs() < 1e-12);
        let two = header.work() + header.work();
        assert!((days_at_hashrate_of(two, header.work()) - 1200.0 / 86_400.0).abs() < 1e-9);
    }

    #[test]
    fn a_block_with_nothing_on_top_costs_its_own_work_as_far_as_the_headers_held_know() {
        let header = header_from_hex(HEADER_358391).unwrap();
        let source: MemoryHeaders = [(358_391, header)].into_iter().collect();
        let attested = VerifiedBlock { height: 358_391, block_hash: header.block_hash(), time: header.time };
        let cost = cost_to_forge(&source, Network::Mainnet, &attested, DEFAULT_FORGE_HEADERS).unwrap();
        assert_eq!(
            (cost.blocks, cost.claimed_blocks, cost.complete, cost.tip_as_far_as_held),
            (0, 0, true, true)
        );
        assert!((cost.work_log2 - 67.506_405_442_211_73).abs() < 1e-9);
    }
}
