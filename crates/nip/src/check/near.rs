//! Near copies (docs/nip-ff-3-fuzzy.md): content events whose text is
//! within `k` simhash-doc bits of the checked text and shares enough of its
//! word 5-grams, found through the `B` keys, each with the kind 1041 proofs
//! of its own `X` ranked by Bitcoin block.
//!
//! Three queries, asked by the front end: [`NearQuery::filter`] (the
//! content events carrying one of the text's keys), then
//! [`NearCandidates::proof_filter`] (the proofs of the verified copies'
//! `X` values). Nothing a candidate's tags say is trusted: its value, its
//! `X` and its overlap are recomputed from its content, and a candidate
//! beyond `k` bits or below the Jaccard threshold is not reported (only
//! counted, by reason).

use super::answer::{CONTENT_KINDS, Found, RelayAnswer, UncheckedAnswer, merge};
use super::report::{
    CheckReport, EventSeen, FuzzyReport, NearCopy, NotReported, NotReportedCount, RelaySummary,
};
use crate::fuzzy_tags::{FUZZY_DISTANCE, FuzzyTagCheck, check_fuzzy_tags, fuzzy_keys};
use nostr::prelude::{Filter, Kind, SingleLetterTag};
use priorart_fingerprint::{
    EqualityFingerprint, Fingerprinter, Shingling, SimhashDoc, TokenRule, WordShingles,
};
use priorart_ots::{HeaderSource, Network};
use std::collections::{BTreeMap, HashSet};

/// The word 5-grams a near copy is confirmed by: simhash-doc-v2's tokens,
/// as docs/nip-ff-3-fuzzy.md specifies (its thresholds were measured with
/// them).
const SHINGLING: Shingling = Shingling::Tokens;

/// The word 5-gram Jaccard a candidate needs by default. Measured on the
/// Debian corpus (BENCHMARKS.md, scripts/bench/fuzzy.py): copies with 5%
/// of their words changed fall to about 0.57, unrelated documents stay
/// below 0.1.
pub const DEFAULT_MIN_JACCARD: f64 = 0.5;

/// Why a near-copy query cannot be made as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NearQueryError {
    /// The keys find every text within [`FUZZY_DISTANCE`] bits, no farther.
    #[error("k = {0}: the B keys find every text within {FUZZY_DISTANCE} bits, no farther")]
    DistanceTooLarge(u32),
    /// A Jaccard threshold outside 0..=1.
    #[error("minimum Jaccard {0} is not between 0 and 1")]
    BadJaccard(f64),
}

reason_names!(NearQueryError {
    DistanceTooLarge => "distance_too_large",
    BadJaccard => "bad_jaccard",
});

/// The checked text, as near copies are looked up and verified.
#[derive(Debug, Clone)]
pub struct NearQuery {
    value: SimhashDoc,
    /// The text's simhash-doc (v1) value, when it differs from `value`:
    /// its keys find the events tagged before simhash-doc-v2.
    v1_value: Option<SimhashDoc>,
    shingles: WordShingles,
    k: u32,
    min_jaccard: f64,
}

impl NearQuery {
    /// Near copies of `text`: within `k` bits (at most
    /// [`FUZZY_DISTANCE`]), sharing at least `min_jaccard` of their word
    /// 5-grams.
    pub fn of_text(text: &str, k: u32, min_jaccard: f64) -> Result<NearQuery, NearQueryError> {
        if k > FUZZY_DISTANCE {
            return Err(NearQueryError::DistanceTooLarge(k));
        }
        if !(0.0..=1.0).contains(&min_jaccard) {
            return Err(NearQueryError::BadJaccard(min_jaccard));
        }
        let mut fingerprinter = Fingerprinter::new();
        let value = fingerprinter.simhash_doc(text, TokenRule::V2);
        let v1_value = Some(fingerprinter.simhash_doc(text, TokenRule::V1)).filter(|&v1| v1 != value);
        Ok(NearQuery { value, v1_value, shingles: WordShingles::of(text, SHINGLING), k, min_jaccard })
    }

    /// The text's simhash-doc-v2 value.
    pub fn value(&self) -> SimhashDoc {
        self.value
    }

    /// The text's lookup keys: those of its simhash-doc-v2 value, then
    /// (for text that simhash-doc cuts differently) those of its
    /// simhash-doc value that are not among them, so that events tagged
    /// before simhash-doc-v2 are found too.
    pub fn keys(&self) -> Vec<String> {
        let mut keys = fuzzy_keys(self.value);
        if let Some(v1_value) = self.v1_value {
            let v2: HashSet<String> = keys.iter().cloned().collect();
            keys.extend(fuzzy_keys(v1_value).into_iter().filter(|key| !v2.contains(key)));
        }
        keys
    }

    /// The content events carrying one of the text's keys: the REQ that
    /// finds every tagged text within [`FUZZY_DISTANCE`] bits.
    pub fn filter(&self) -> Filter {
        Filter::new()
            .kinds(CONTENT_KINDS.map(Kind::from_u16))
            .custom_tags(SingleLetterTag::UPPERCASE_B, self.keys())
    }

    /// Verifies every content event of `answers` against the text, leaving
    /// out those `exact` already lists (found by the same `X`).
    pub fn verify(&self, answers: &[RelayAnswer], exact: &CheckReport) -> NearCandidates {
        let listed: HashSet<&str> = exact.content_events.iter().map(|c| c.event.event_id.as_str()).collect();
        self.verify_listed(answers, &listed)
    }

    /// The proofs to ask for next ([`NearCandidates::proof_filter`]) when
    /// the exact query's report is not at hand yet (a front end that asks
    /// both queries at once): events it would list count as copies here,
    /// which at most adds their `X` to the filter.
    pub fn proof_filter(&self, key_answers: &[RelayAnswer]) -> Option<Filter> {
        self.verify_listed(key_answers, &HashSet::new()).proof_filter()
    }

    /// The whole near-copy half of a check on answers received elsewhere
    /// (a front end doing its own I/O: WebAssembly, Python): the key
    /// answers checked against [`NearQuery::filter`], the proof answers
    /// against the verified copies' proof filter, as the relay client
    /// checks them; then [`NearCandidates::report`].
    pub fn report_unchecked(
        &self,
        exact: &CheckReport,
        key_answers: Vec<UncheckedAnswer>,
        proof_answers: Vec<UncheckedAnswer>,
        headers: &dyn HeaderSource,
        network: Network,
    ) -> FuzzyReport {
        let key_answers: Vec<RelayAnswer> =
            key_answers.into_iter().map(|answer| answer.check_against(self.filter())).collect();
        let candidates = self.verify(&key_answers, exact);
        let proof_answers: Vec<RelayAnswer> = match candidates.proof_filter() {
            Some(filter) => {
                proof_answers.into_iter().map(|answer| answer.check_against(filter.clone())).collect()
            }
            None => Vec::new(),
        };
        candidates.report(self, &key_answers, &proof_answers, headers, network)
    }

    fn verify_listed(&self, answers: &[RelayAnswer], listed: &HashSet<&str>) -> NearCandidates {
        let found = merge(answers);
        let mut candidates = NearCandidates { candidates: found.len(), ..NearCandidates::default() };
        for found in found {
            match self.verify_one(&found, listed) {
                Ok(copy) => candidates.copies.push(copy),
                Err(reason) => *candidates.not_reported.entry(reason).or_default() += 1,
            }
        }
        candidates
    }

    fn verify_one(&self, found: &Found, listed: &HashSet<&str>) -> Result<Verified, NotReported> {
        let content = &found.event.content;
        if super::unreadable(content).is_some() {
            return Err(NotReported::Unreadable);
        }
        if listed.contains(found.event.id.to_hex().as_str()) {
            return Err(NotReported::ListedByX);
        }
        let value = Fingerprinter::new().simhash_doc(content, TokenRule::V2);
        let distance = value.distance(self.value);
        if distance > self.k {
            return Err(NotReported::TooFar);
        }
        let jaccard = self.shingles.jaccard(&WordShingles::of(content, SHINGLING));
        if jaccard < self.min_jaccard {
            return Err(NotReported::TooDifferent);
        }
        let x = priorart_fingerprint::minhash_equality_v1(content);
        Ok(Verified { found: found.clone(), value, distance, jaccard, x })
    }
}

/// A candidate that verified.
#[derive(Debug, Clone)]
struct Verified {
    found: Found,
    value: SimhashDoc,
    distance: u32,
    jaccard: f64,
    x: EqualityFingerprint,
}

/// The verified near copies of one key query, before their proofs.
#[derive(Debug, Clone, Default)]
pub struct NearCandidates {
    copies: Vec<Verified>,
    candidates: usize,
    not_reported: BTreeMap<NotReported, usize>,
}

impl NearCandidates {
    /// How many near copies verified.
    pub fn len(&self) -> usize {
        self.copies.len()
    }

    /// Whether none did.
    pub fn is_empty(&self) -> bool {
        self.copies.is_empty()
    }

    /// The kind 1041 proofs of the near copies' `X` values (recomputed from
    /// their texts), or `None` without a near copy.
    pub fn proof_filter(&self) -> Option<Filter> {
        let mut xs: Vec<String> = self.copies.iter().map(|copy| copy.x.to_string()).collect();
        xs.sort();
        xs.dedup();
        (!xs.is_empty()).then(|| {
            Filter::new()
                .kind(Kind::from_u16(crate::PROOF_KIND))
                .custom_tags(SingleLetterTag::UPPERCASE_X, xs)
        })
    }

    /// The report: every near copy with the proofs of its `X` from
    /// `proof_answers` verified against `headers` and ranked by block;
    /// copies with a proof first (earliest block), then by overlap.
    pub fn report(
        self,
        query: &NearQuery,
        key_answers: &[RelayAnswer],
        proof_answers: &[RelayAnswer],
        headers: &dyn HeaderSource,
        network: Network,
    ) -> FuzzyReport {
        let mut near_copies: Vec<NearCopy> = self
            .copies
            .into_iter()
            .map(|copy| NearCopy::of(copy, key_answers, proof_answers, headers, network))
            .collect();
        near_copies.sort_by(|a, b| {
            let block = |copy: &NearCopy| copy.proofs.first().map_or(u64::MAX, |proof| proof.block.height);
            (block(a), b.jaccard).partial_cmp(&(block(b), a.jaccard)).unwrap_or(std::cmp::Ordering::Equal)
        });
        let not_reported: Vec<NotReportedCount> =
            self.not_reported.into_iter().map(|(reason, count)| NotReportedCount { reason, count }).collect();
        FuzzyReport {
            text: summary(&near_copies, self.candidates, query, network),
            simhash_doc: query.value.to_string(),
            k: query.k,
            min_jaccard: query.min_jaccard,
            keys: query.keys().len(),
            candidates: self.candidates,
            not_reported,
            near_copies,
            relays: key_answers.iter().map(RelaySummary::of).collect(),
            proof_relays: proof_answers.iter().map(RelaySummary::of).collect(),
        }
    }
}

/// The sentence of a [`FuzzyReport`].
fn summary(copies: &[NearCopy], candidates: usize, query: &NearQuery, network: Network) -> String {
    let within = format!("within {} bits, word 5-gram Jaccard >= {}", query.k, query.min_jaccard);
    if copies.is_empty() {
        return format!("no near copy ({within}) among {candidates} candidate(s)");
    }
    let proven = copies.iter().filter_map(|copy| copy.proofs.first().map(|proof| (copy, proof)));
    let chain = if network == Network::Regtest { " of REGTEST (not Bitcoin)" } else { "" };
    match proven.min_by_key(|(_, proof)| proof.block.height) {
        Some((copy, proof)) => format!(
            "{} near cop{} ({within}); earliest proven: {} at block {}{chain} ({}), Jaccard {:.2}",
            copies.len(),
            if copies.len() == 1 { "y" } else { "ies" },
            proof.npub,
            proof.block.height,
            proof.block.utc,
            copy.jaccard
        ),
        None => format!(
            "{} near cop{} ({within}), none with a valid timestamp proof",
            copies.len(),
            if copies.len() == 1 { "y" } else { "ies" }
        ),
    }
}

impl NearCopy {
    fn of(
        copy: Verified,
        key_answers: &[RelayAnswer],
        proof_answers: &[RelayAnswer],
        headers: &dyn HeaderSource,
        network: Network,
    ) -> NearCopy {
        let x = copy.x.to_string();
        // The proofs carrying this X only: `check` ranks one X.
        let answers: Vec<RelayAnswer> = proof_answers
            .iter()
            .map(|answer| RelayAnswer {
                events: answer.events.iter().filter(|event| carries_x(event, &x)).cloned().collect(),
                ..answer.clone()
            })
            .collect();
        let proofs = super::check(&copy.x, &answers, headers, network);
        let event = &copy.found.event;
        let fuzzy_tags = match check_fuzzy_tags(event) {
            FuzzyTagCheck::Matches => "matches",
            FuzzyTagCheck::DoesNotMatch(_) => "does_not_match",
            _ => "malformed",
        };
        NearCopy {
            event: EventSeen::of(event),
            simhash_doc: copy.value.to_string(),
            distance: copy.distance,
            jaccard: copy.jaccard,
            x,
            fuzzy_tags,
            relays: copy.found.relays.iter().map(|&i| key_answers[i].relay.clone()).collect(),
            proofs: proofs.proofs,
            unverified: proofs.unverified,
            refused: proofs.refused,
        }
    }
}

/// Whether `event` has the tag `["X", x, …]`.
fn carries_x(event: &nostr::prelude::Event, x: &str) -> bool {
    event.tags.iter().any(|tag| matches!(tag.as_slice(), [name, value, ..] if name == "X" && value == x))
}

#[cfg(test)]
mod tests;
