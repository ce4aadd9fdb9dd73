//! The verdict: who came first, in one status and one sentence, judged from
//! a report's evidence in one place for the exact `X` and its near copies.
//!
//! The order of the rules is the reader's: a proof is worth more than a
//! claim, a near copy's proof that is earlier than every proof of `X`
//! itself names the likely original (an edited copy has another `X`, and
//! the copier's own note would otherwise be "the earliest seen"), and a
//! proof that could not be checked is named as such before any untrusted
//! `created_at` is.

use super::report::{
    CheckReport, CheckStatus, CheckVerdict, Earliest, EarliestEvent, EarliestProof, NearCopyOf, RankedProof,
    UnverifiedProof,
};
use super::report::{FuzzyReport, NearCopy};
use crate::report::Reason;
use crate::steps::{AlgorithmStep, ProofEventStep};
use priorart_ots::Network;

/// What an `unverified` verdict says of its proofs; a front end may follow
/// it with how to give headers ([`CheckReport::verdict_line`]).
pub(super) const NO_HEADERS: &str = "none could be checked: no block headers to check them against";

/// What an `unverified` verdict says when the header source lied: the
/// proofs are unchecked, and the source (named in each proof's step 8),
/// not the proofs, is at fault.
const SOURCE_UNRELIABLE: &str = "none could be checked: the block header source is unreliable (it served headers that fail their own checks)";

/// What a verdict is judged from, besides the report's relays and proofs.
pub(super) struct Evidence {
    /// The earliest event carrying `X` by its untrusted `created_at`.
    pub seen: Option<EarliestEvent>,
    /// How many other pubkeys published or proved the same `X`.
    pub other_authors: usize,
}

impl Evidence {
    /// The evidence a verdict already holds (what `check` judged from):
    /// the earliest event it names when `X` has no proof.
    pub(super) fn of(verdict: &CheckVerdict) -> Evidence {
        let seen = match &verdict.earliest {
            Some(Earliest::Seen(event)) => Some(event.clone()),
            _ => None,
        };
        Evidence { seen, other_authors: verdict.other_authors }
    }
}

/// The verdict on `report` (its relays, proofs, unverified proofs and near
/// copies) and `evidence`.
pub(super) fn judge(report: &CheckReport, evidence: Evidence) -> CheckVerdict {
    let Evidence { seen, other_authors } = evidence;
    let verdict = |status, text: String, earliest| CheckVerdict { status, text, earliest, other_authors };
    if report.relays.is_empty() {
        let text = "no relay asked: only the local index was searched".into();
        return verdict(CheckStatus::NoRelayAsked, text, None);
    }
    if !report.relays.iter().any(|relay| relay.answered) {
        let text = "no relay answered: nothing is known about this X".into();
        return verdict(CheckStatus::NoRelayAnswered, text, None);
    }
    let others = others(other_authors);
    let chain = chain(report.network);
    let first = report.proofs.first();
    if let Some((copy, proof)) = earlier_near_copy(report.fuzzy.as_ref(), first) {
        let own = match first {
            Some(own) => format!("this X's own earliest proof is at block {}", own.block.height),
            None => "this X has no valid proof".to_owned(),
        };
        let text = format!(
            "a near copy was proven earlier: {} at block {}{chain} ({}), in event {} (word 5-gram Jaccard {:.2} \
             with this text); {own}; {others}",
            proof.npub, proof.block.height, proof.block.utc, copy.event.event_id, copy.jaccard
        );
        let earliest = EarliestProof { near_copy: Some(NearCopyOf::of(copy)), ..EarliestProof::of(proof) };
        return verdict(CheckStatus::NearCopyProven, text, Some(Earliest::Proven(earliest)));
    }
    if let Some(first) = first {
        let text = format!(
            "earliest proven author: {} at block {}{chain} ({}); {others}",
            first.npub, first.block.height, first.block.utc
        );
        return verdict(CheckStatus::Proven, text, Some(Earliest::Proven(EarliestProof::of(first))));
    }
    let seen_text = seen.as_ref().map(|event| {
        format!(
            "earliest seen by created_at (untrusted): {} (kind {}, {})",
            event.npub, event.kind, event.utc
        )
    });
    let earliest = seen.clone().map(Earliest::Seen);
    if let Some(unverified) = Unverified::count(report) {
        let why = if unverified.source_unreliable { SOURCE_UNRELIABLE } else { NO_HEADERS };
        let mut text = format!("{unverified}, {why}");
        if let Some(seen) = seen_text {
            text.push_str(&format!("; {seen}; {others}"));
        }
        return verdict(CheckStatus::Unverified, text, earliest);
    }
    match seen_text {
        Some(seen) => {
            verdict(CheckStatus::Unproven, format!("no timestamp proof found; {seen}; {others}"), earliest)
        }
        None => {
            let text = "no event with this X on the relays that answered".into();
            verdict(CheckStatus::NothingFound, text, None)
        }
    }
}

/// The near copy whose valid proof is the earliest, when it is earlier
/// than `own` (the first valid proof of `X` itself), or `X` has none.
fn earlier_near_copy<'a>(
    fuzzy: Option<&'a FuzzyReport>,
    own: Option<&RankedProof>,
) -> Option<(&'a NearCopy, &'a RankedProof)> {
    let copies = fuzzy?.near_copies.iter();
    let (copy, proof) = copies
        .filter_map(|copy| copy.proofs.first().map(|proof| (copy, proof)))
        .min_by_key(|(_, proof)| (proof.block.height, proof.block.time))?;
    let earlier = own.is_none_or(|own| proof.block.height < own.block.height);
    earlier.then_some((copy, proof))
}

/// Proofs found that could not be checked: of `X`, and of its near copies.
struct Unverified {
    own: usize,
    near: usize,
    /// Whether the header source served a header failing its own checks.
    source_unreliable: bool,
}

impl Unverified {
    fn count(report: &CheckReport) -> Option<Unverified> {
        let copies = report.fuzzy.iter().flat_map(|fuzzy| &fuzzy.near_copies);
        let near: Vec<&UnverifiedProof> = copies.flat_map(|copy| &copy.unverified).collect();
        let source_unreliable = report.unverified.iter().chain(near.iter().copied()).any(|proof| {
            let step8 = proof.report.step(ProofEventStep::ProofVerifies.number());
            step8.is_some_and(|step| step.reason == Some(Reason::ProofHeaderSourceUnreliable))
        });
        let counted = Unverified { own: report.unverified.len(), near: near.len(), source_unreliable };
        (counted.own + counted.near > 0).then_some(counted)
    }
}

impl std::fmt::Display for Unverified {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let proofs = |n: usize| if n == 1 { "1 proof".to_owned() } else { format!("{n} proofs") };
        match (self.own, self.near) {
            (own, 0) => write!(f, "{} found", proofs(own)),
            (0, near) => write!(f, "{} of near copies found", proofs(near)),
            (own, near) => write!(f, "{} found (and {} of near copies)", proofs(own), proofs(near)),
        }
    }
}

fn others(other_authors: usize) -> String {
    match other_authors {
        0 => "no other author published the same X".to_owned(),
        1 => "1 other author published the same X".to_owned(),
        n => format!("{n} other authors published the same X"),
    }
}

fn chain(network: Network) -> &'static str {
    if network == Network::Regtest { " of REGTEST (not Bitcoin)" } else { "" }
}
