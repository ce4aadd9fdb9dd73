//! Pruning: once a proof reaches Bitcoin, its calendar attestations (and
//! any later Bitcoin paths) are dead weight.

use crate::attestation::Attestation;
use crate::detached::DetachedTimestamp;
use crate::timestamp::Timestamp;

/// What [`prune`] removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PruneReport {
    /// Pending (calendar) attestations dropped.
    pub pending_removed: usize,
    /// Bitcoin attestations dropped (later than the one kept).
    pub bitcoin_removed: usize,
}

impl PruneReport {
    /// Whether anything was dropped.
    pub fn changed(&self) -> bool {
        self.pending_removed + self.bitcoin_removed > 0
    }
}

/// Why nothing was pruned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum PruneError {
    #[error("the proof has no Bitcoin attestation; its pending attestations are all it has")]
    NoBitcoinAttestation,
}

reason_names!(PruneError {
    NoBitcoinAttestation => "no_bitcoin_attestation",
});

/// Drops every pending attestation of a proof that has a Bitcoin
/// attestation (as the reference's `ots prune` does by default), and with
/// `earliest_only` every Bitcoin attestation but the lowest block (the
/// shortest path to it on a tie); then drops branches left empty.
pub fn prune(proof: &mut DetachedTimestamp, earliest_only: bool) -> Result<PruneReport, PruneError> {
    if !proof.has_bitcoin_attestation() {
        return Err(PruneError::NoBitcoinAttestation);
    }
    let keep = if earliest_only { earliest_bitcoin_path(proof.timestamp(), 0) } else { None };
    let mut report = PruneReport::default();
    let keep = keep.as_ref().map(|((height, _), path)| (*height, path.as_slice()));
    prune_node(proof.timestamp_mut(), &mut report, keep, true);
    Ok(report)
}

/// `(height, depth)` and the path (child indices among ops, in stored
/// order) of the lowest Bitcoin attestation, shallowest on a tie.
fn earliest_bitcoin_path(node: &Timestamp, depth: usize) -> Option<((u64, usize), Vec<usize>)> {
    let here = node
        .attestations()
        .filter_map(|a| match a {
            Attestation::Bitcoin { height } => Some(((*height, depth), Vec::new())),
            _ => None,
        })
        .min();
    let below = node
        .ops()
        .enumerate()
        .filter_map(|(index, (_, child))| {
            let (key, mut path) = earliest_bitcoin_path(child, depth + 1)?;
            path.insert(0, index);
            Some((key, path))
        })
        .min_by_key(|(key, _)| *key);
    match (here, below) {
        (Some(here), Some(below)) => Some(if below.0 < here.0 { below } else { here }),
        (here, below) => here.or(below),
    }
}

/// `keep`: with `earliest_only`, the height of the one Bitcoin attestation
/// to keep and the path to it from this node; `on_path` says whether this
/// node is on that path.
fn prune_node(node: &mut Timestamp, report: &mut PruneReport, keep: Option<(u64, &[usize])>, on_path: bool) {
    let mut kept_one = false;
    node.retain_attestations(|attestation| match (attestation, keep) {
        (Attestation::Pending { .. }, _) => {
            report.pending_removed += 1;
            false
        }
        (Attestation::Bitcoin { height }, Some((keep_height, path))) => {
            let keep_this = on_path && path.is_empty() && *height == keep_height && !kept_one;
            kept_one |= keep_this;
            report.bitcoin_removed += usize::from(!keep_this);
            keep_this
        }
        _ => true,
    });
    for (index, (_, child)) in node.children_mut().enumerate() {
        let child_on_path = on_path && keep.is_some_and(|(_, path)| path.first() == Some(&index));
        let child_keep = keep.map(|(height, path)| (height, if child_on_path { &path[1..] } else { path }));
        prune_node(child, report, child_keep, child_on_path);
    }
    node.drop_empty_children();
}
