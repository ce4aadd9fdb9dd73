//! Ranking the proofs found for one fingerprint: the NIP's "sort kind:1041
//! results by verified OTS block height to surface the most likely
//! original author". Pure: it orders reports already produced by
//! [`crate::verify_event`], it verifies nothing itself.

use crate::report::{Report, Verdict};

/// The reports of one discovery query, sorted into what they prove.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ranking {
    /// Valid NIP-FF-3 proofs of the fingerprint, earliest first: by block
    /// height, then block time, then author and event id (so that ties have
    /// one order whatever the relays sent first). Indexes into the reports.
    pub proven: Vec<usize>,
    /// Proofs every check of which passed but the Bitcoin one, which could
    /// not run for lack of block headers: neither valid nor invalid yet.
    pub unverified: Vec<usize>,
    /// Everything else, in input order: invalid proofs, kind 1041 events of
    /// other schemes, NIP-03 timestamps (forgeable by pre-stamping), and
    /// valid proofs of another fingerprint. Each report names its reasons.
    pub refused: Vec<usize>,
}

impl Ranking {
    /// Each author once, in the order of their earliest proven block.
    pub fn proven_authors<'a>(&self, reports: &'a [Report]) -> Vec<&'a str> {
        let mut authors: Vec<&str> = Vec::new();
        for author in self.proven.iter().filter_map(|&index| reports[index].author.as_deref()) {
            if !authors.contains(&author) {
                authors.push(author);
            }
        }
        authors
    }
}

/// Sorts `reports` (one per proof event found for `fingerprint`, the
/// lowercase hex `X`) into a [`Ranking`].
pub fn rank(reports: &[Report], fingerprint: &str) -> Ranking {
    let mut ranking = Ranking::default();
    for (index, report) in reports.iter().enumerate() {
        let of_fingerprint = report.fingerprint.as_deref() == Some(fingerprint);
        match report.verdict {
            Verdict::Valid if of_fingerprint && report.bitcoin.is_some() => ranking.proven.push(index),
            Verdict::Unverified if of_fingerprint => ranking.unverified.push(index),
            _ => ranking.refused.push(index),
        }
    }
    ranking.proven.sort_by_key(|&index| {
        let report = &reports[index];
        let anchor = report.bitcoin.as_ref().map(|block| (block.height, block.time));
        (anchor, report.author.clone(), report.event_id.clone())
    });
    ranking
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{BitcoinAnchor, Specification};

    fn proof(id: &str, author: &str, verdict: Verdict, block: Option<(u64, u64)>, x: &str) -> Report {
        let mut report = Report::new(Some(Specification::NipFf3));
        report.verdict = verdict;
        report.event_id = Some(id.to_owned());
        report.author = Some(author.to_owned());
        report.fingerprint = Some(x.to_owned());
        report.bitcoin =
            block.map(|(height, time)| BitcoinAnchor { height, time, block_hash: format!("{height:064x}") });
        report
    }

    #[test]
    fn valid_proofs_go_by_height_then_time_then_author() {
        let x = "ab".repeat(32);
        let reports = [
            proof("e1", "copier", Verdict::Valid, Some((120, 5_000)), &x),
            proof("e2", "thief", Verdict::Invalid, None, &x),
            proof("e3", "original", Verdict::Valid, Some((100, 9_000)), &x),
            proof("e4", "late-twin", Verdict::Valid, Some((120, 5_000)), &x),
            proof("e5", "waiting", Verdict::Unverified, None, &x),
            proof("e6", "elsewhere", Verdict::Valid, Some((1, 1)), &"cd".repeat(32)),
            proof("e7", "original", Verdict::Valid, Some((130, 9_500)), &x),
        ];
        let ranking = rank(&reports, &x);
        assert_eq!(ranking.proven, vec![2, 0, 3, 6]);
        assert_eq!(ranking.unverified, vec![4]);
        assert_eq!(ranking.refused, vec![1, 5]);
        assert_eq!(ranking.proven_authors(&reports), vec!["original", "copier", "late-twin"]);
    }

    #[test]
    fn nothing_found_ranks_nothing() {
        assert_eq!(rank(&[], "00"), Ranking::default());
    }
}
