//! "Who published this text first?": the NIP's discovery check, sans I/O.
//!
//! A front end (the CLI's `priorart check`, a WebAssembly page, a relay
//! policy, the Python package) asks relays for [`discovery_filter`] by its
//! own means, and hands [`check()`] what each relay answered and a
//! [`HeaderSource`]. `check` verifies every proof event, ranks the valid
//! ones by Bitcoin block, re-fingerprints every content event's text, and
//! returns a [`CheckReport`]: the `priorart-check/1` document (serde JSON)
//! and what the text rendering ([`CheckReport::table_text`],
//! [`CheckReport::verdict_line`]) prints. It reads no clock and opens no
//! socket; it asks `headers` for block headers, and nothing else.
//!
//! Near copies ([`NearQuery`], the `fuzzy` member): the text's `B` keys
//! asked for with [`NearQuery::filter`], every candidate verified by
//! [`NearQuery::verify`] (its simhash-doc recomputed from its content
//! within `k`, its word 5-gram Jaccard at least the threshold), the proofs
//! of the copies' `X` values asked for with
//! [`NearCandidates::proof_filter`] and ranked by
//! [`NearCandidates::report`].
//!
//! Answers come from `priorart-relay`'s client, which produces
//! [`RelayAnswer`]s, or from events received elsewhere through
//! [`UncheckedAnswer`], which checks each event's id, signature and match
//! with the filter as that client does.
//!
//! # The report (JSON format `priorart-check/1`)
//!
//! One object; members are only ever added, never renamed or removed:
//!
//! | member | value |
//! |---|---|
//! | `format` | `"priorart-check/1"` |
//! | `x` | the fingerprint asked for (64 lowercase hex) |
//! | `network` | `"mainnet"` or `"regtest"`: the chain proofs were checked against |
//! | `verdict` | `{"status", "text", "earliest", "other_authors"}`: `status` is `proven` (a valid proof of `X` exists and no near copy's is earlier), `near_copy_proven` (a near copy, found by the `B` keys with another `X`, carries a valid proof earlier than every valid proof of `X`: its author is the likely original; set by [`CheckReport::with_near_copies`]), `unverified` (proofs were found, of `X` or of near copies, but none could be checked for lack of block headers), `unproven` (events, but no proof), `nothing_found`, `no_relay_answered`, or `no_relay_asked` (no answers given: the CLI's `--index` alone); `text` the sentence; `earliest` `{"author", "npub", "event_id", "height", "time", "utc"}` of the first proof (with `near_copy_proven`, also `"near_copy": {"event_id", "author", "npub", "x", "jaccard"}`: the copy the proof is of), or, without one, `{"author", "npub", "event_id", "kind", "created_at", "utc"}` of the earliest event carrying `X` by its untrusted `created_at`, else `null`; `other_authors` how many other pubkeys published or proved the same `X` |
//! | `relays` | per relay: `{"url", "answered", "ending": {"status": "eose"/"closed"/"timeout"/"unreachable"/"disconnected"/"event_limit"/"byte_limit", …}, "events", "skipped": [{"reason", "count", "example"}], "notices", "elapsed_ms"}`; skip reasons: `not_json`, `not_relay_message`, `malformed_event`, `too_large`, `other_subscription`, `bad_id`, `bad_signature`, `not_matching_filter`, `duplicate`, `unexpected` |
//! | `proofs` | valid proofs, earliest first: `{"rank", "event_id", "author", "npub", "block": {"height", "time", "utc", "block_hash"}, "content": {"tag", "reference", "found"}, "relays", "report"}` (`report`: the `priorart-verify/1` report) |
//! | `unverified` | proofs that passed every check but the Bitcoin one, for lack of headers: `{"event_id", "author", "npub", "relays", "report"}` |
//! | `refused` | every other kind 1041 or 1040, never dropped: `{"event_id", "signer", "claimed_author", "verdict", "reasons", "relays", "report"}` (`claimed_author`: the embedded attestation's pubkey, when it could be read) (`reasons`: the report's failure names, e.g. `attestation_bad_signature`, `proof_for_other_digest`, or `proves_another_x`) |
//! | `set_aside` | kind 1041 events of another scheme (no `description` tag: no embedded attestation, so no claim of authorship; nostr-protocol/nips#2359 proposes the kind for third-party timestamps): `{"event_id", "signer", "detail", "relays"}`; neither proofs nor forgeries |
//! | `content_events` | `{"event_id", "author", "npub", "kind", "created_at", "created_at_trusted": false, "utc", "x_check", "detail", "relays"}`; `x_check`: `matches`, `does_not_match` (`detail` holds the content's fingerprint) or `cannot_check` (`detail`: `empty` or `encrypted`) |
//! | `index` | what the caller attached ([`CheckReport::index`]; the CLI: `{"path", "layout", "k", "documents", "answer"}` of `--index`), else `null` |
//! | `fuzzy` | the near copies (docs/nip-ff-3-fuzzy.md) when they were looked for, else `null`: `{"text", "simhash_doc", "k", "min_jaccard", "keys", "candidates", "not_reported": [{"reason", "count"}], "near_copies", "relays", "proof_relays"}`; each near copy `{"event_id", "author", "npub", "kind", "created_at", "created_at_trusted": false, "utc", "simhash_doc", "distance", "jaccard", "x", "fuzzy_tags", "relays", "proofs", "unverified", "refused"}` (its `X` and value recomputed from its text; `proofs` etc. as above, for its `X`), copies with a valid proof first (earliest block), then by Jaccard; `not_reported` reasons: `too_far` (recomputed beyond `k`: a lying tag or a chance key), `too_different` (Jaccard below the threshold), `unreadable` (empty or encrypted), `listed_by_x` (among `content_events` already) |
//!
//! # Example
//!
//! ```
//! use priorart_nip::check::{CheckStatus, Ending, UncheckedAnswer};
//! use priorart_nip::nostr::prelude::*;
//! use priorart_ots::{MemoryHeaders, Network};
//!
//! let text = "A note, published with its fingerprint so that copies can be found.";
//! let x = priorart_fingerprint::minhash_equality_v1(text);
//! let note = EventBuilder::new(Kind::TextNote, text)
//!     .tag(Tag::parse(["X", &x.to_string(), "minhash-equality-v1"])?)
//!     .finalize(&Keys::generate())?;
//! // What a relay sent, as a front end received it: the event's JSON.
//! let answer = UncheckedAnswer::from_event_json("wss://relay.example", Ending::Eose, &[priorart_nip::to_json(&note)]);
//! let answers = [answer.check(&x)];
//! let report = priorart_nip::check::check(&x, &answers, &MemoryHeaders::default(), Network::Mainnet);
//! assert_eq!(report.verdict.status, CheckStatus::Unproven); // a note, but no timestamp proof
//! assert_eq!(report.content_events.len(), 1);
//! assert!(report.to_json().starts_with(r#"{"format":"priorart-check/1""#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod answer;
mod content;
mod near;
mod report;
mod text;
mod verdict;

pub use crate::readable::{Unreadable, looks_encrypted, unreadable};
pub use answer::{
    CONTENT_KINDS, DISCOVERY_KINDS, Ending, Found, RelayAnswer, SignatureChecks, SkipReason, Skipped,
    UncheckedAnswer, discovery_filter, merge, skip_reason,
};
pub use content::{XCheck, check_x, coordinate_of};
pub use near::{DEFAULT_MIN_JACCARD, NearCandidates, NearQuery, NearQueryError};
pub use report::{
    Block, CHECK_FORMAT, CheckReport, CheckStatus, CheckVerdict, ContentEventSeen, ContentReference,
    Earliest, EarliestEvent, EarliestProof, EventSeen, FuzzyReport, NearCopy, NearCopyOf, NotReported,
    NotReportedCount, RankedProof, RefusedProof, RelaySummary, SetAside, UnverifiedProof,
};

use crate::rank::{Ranking, rank};
use crate::report::{Report, Verdict};
use nostr::prelude::{Event, PublicKey, ToBech32};
use priorart_fingerprint::EqualityFingerprint;
use priorart_ots::{HeaderSource, Network, UtcTime};
use verdict::Evidence;

/// Verifies, ranks and judges what `answers` hold for `x`: every kind 1041
/// (and 1040) is verified against `headers` on `network`, every content
/// event's text re-fingerprinted. `answers` in the order the relays were
/// asked (the report keeps it); no answers at all means no relay was asked.
pub fn check(
    x: &EqualityFingerprint,
    answers: &[RelayAnswer],
    headers: &dyn HeaderSource,
    network: Network,
) -> CheckReport {
    let findings = Findings::new(x, merge(answers), headers, network);
    let relays_of =
        |found: &Found| -> Vec<String> { found.relays.iter().map(|&i| answers[i].relay.clone()).collect() };
    let mut report = CheckReport {
        format: CHECK_FORMAT,
        x: x.to_string(),
        network,
        // Judged below, from the report itself.
        verdict: CheckVerdict {
            status: CheckStatus::NothingFound,
            text: String::new(),
            earliest: None,
            other_authors: 0,
        },
        relays: answers.iter().map(RelaySummary::of).collect(),
        proofs: findings.ranked(&relays_of),
        unverified: findings.unverified(&relays_of),
        refused: findings.refused(&relays_of),
        set_aside: findings.set_aside(&relays_of),
        content_events: findings
            .contents
            .iter()
            .map(|content| content.seen(relays_of(&content.found)))
            .collect(),
        index: None,
        fuzzy: None,
    };
    report.verdict = verdict::judge(&report, findings.evidence());
    report
}

impl CheckReport {
    /// The report with its near copies (the `fuzzy` member) attached and
    /// the verdict judged again: a near copy proven earlier than every
    /// valid proof of `X` names the likely original, and near copies'
    /// proofs that could not be checked count as found.
    pub fn with_near_copies(mut self, fuzzy: FuzzyReport) -> CheckReport {
        self.fuzzy = Some(fuzzy);
        self.verdict = verdict::judge(&self, Evidence::of(&self.verdict));
        self
    }
}

/// A content event (a note, an article…) carrying the `X`.
struct Content {
    found: Found,
    check: XCheck,
}

impl Content {
    fn seen(&self, relays: Vec<String>) -> ContentEventSeen {
        ContentEventSeen { event: EventSeen::of(&self.found.event), x_check: self.check.clone(), relays }
    }
}

/// Everything found, verified and ranked.
struct Findings {
    x: String,
    /// The proof events (kind 1041 and 1040)…
    proofs: Vec<Found>,
    /// …and their reports, index for index (what `rank` takes).
    reports: Vec<Report>,
    ranking: Ranking,
    contents: Vec<Content>,
}

impl Findings {
    fn new(
        x: &EqualityFingerprint,
        found: Vec<Found>,
        headers: &dyn HeaderSource,
        network: Network,
    ) -> Findings {
        let (mut proofs, mut reports, mut contents) = (Vec::new(), Vec::new(), Vec::new());
        for found in found {
            if found.event.kind.as_u16() == crate::PROOF_KIND {
                reports.push(crate::verify_event(&found.event, headers, network));
                proofs.push(found);
            } else {
                let check = check_x(&found.event, x);
                contents.push(Content { found, check });
            }
        }
        let x = x.to_string();
        let ranking = rank(&reports, &x);
        Findings { x, proofs, reports, ranking, contents }
    }

    /// The reference (`a` coordinate or `e` id) of a proof, and whether a
    /// content event it names was among the answers.
    fn content_reference(&self, proof: &Found) -> Option<ContentReference> {
        let event = &proof.event;
        let tag = |name: &str| event.tags.iter().find(|t| t.kind() == name).and_then(|t| t.content());
        if let Some(coordinate) = tag("a") {
            let found =
                self.contents.iter().any(|c| coordinate_of(&c.found.event).as_deref() == Some(coordinate));
            return Some(ContentReference { tag: "a", reference: coordinate.to_owned(), found });
        }
        let id = tag("e")?;
        let found = self.contents.iter().any(|c| c.found.event.id.to_hex() == id);
        Some(ContentReference { tag: "e", reference: id.to_owned(), found })
    }

    /// Every pubkey that published or proved this `X`, earliest proof first.
    fn authors(&self) -> Vec<String> {
        let mut authors: Vec<String> =
            self.ranking.proven_authors(&self.reports).into_iter().map(str::to_owned).collect();
        let others = self.ranking.unverified.iter().filter_map(|&i| self.reports[i].author.clone());
        for author in others.chain(self.contents.iter().map(|c| c.found.event.pubkey.to_hex())) {
            if !authors.contains(&author) {
                authors.push(author);
            }
        }
        authors
    }

    fn earliest_event(&self) -> Option<&Event> {
        let events = self.contents.iter().map(|c| &c.found.event).chain(self.proofs.iter().map(|p| &p.event));
        events.min_by_key(|event| (event.created_at, event.id))
    }

    /// What the verdict is judged from, besides the report itself.
    fn evidence(&self) -> Evidence {
        let other_authors = self.authors().len().saturating_sub(1);
        let seen = self.earliest_event().map(|event| {
            let author = event.pubkey.to_hex();
            let created = event.created_at.as_secs();
            EarliestEvent {
                npub: npub(&author),
                author,
                event_id: event.id.to_hex(),
                kind: event.kind.as_u16(),
                created_at: created,
                utc: utc(created),
            }
        });
        Evidence { seen, other_authors }
    }

    fn ranked(&self, relays_of: &dyn Fn(&Found) -> Vec<String>) -> Vec<RankedProof> {
        let ranked = self.ranking.proven.iter().enumerate().filter_map(|(rank, &index)| {
            let (proof, report) = (&self.proofs[index], &self.reports[index]);
            // `rank` puts only reports with a block among the proven.
            let block = report.bitcoin.as_ref()?;
            let author = report.author.clone().unwrap_or_default();
            Some(RankedProof {
                rank: rank + 1,
                event_id: proof.event.id.to_hex(),
                npub: npub(&author),
                author,
                block: Block {
                    height: block.height,
                    time: block.time,
                    utc: utc(block.time),
                    block_hash: block.block_hash.clone(),
                },
                content: self.content_reference(proof),
                relays: relays_of(proof),
                report: report.clone(),
            })
        });
        ranked.collect()
    }

    fn unverified(&self, relays_of: &dyn Fn(&Found) -> Vec<String>) -> Vec<UnverifiedProof> {
        let unverified = self.ranking.unverified.iter().map(|&index| {
            let (proof, report) = (&self.proofs[index], &self.reports[index]);
            let author = report.author.clone().unwrap_or_default();
            UnverifiedProof {
                event_id: proof.event.id.to_hex(),
                npub: npub(&author),
                author,
                relays: relays_of(proof),
                report: report.clone(),
            }
        });
        unverified.collect()
    }

    fn refused(&self, relays_of: &dyn Fn(&Found) -> Vec<String>) -> Vec<RefusedProof> {
        let refused =
            self.ranking.refused.iter().filter(|&&index| !self.is_other_scheme(index)).map(|&index| {
                let (proof, report) = (&self.proofs[index], &self.reports[index]);
                RefusedProof {
                    event_id: proof.event.id.to_hex(),
                    signer: report.signer.clone(),
                    claimed_author: report.author.clone(),
                    verdict: report.verdict,
                    reasons: refusal_reasons(report, &self.x),
                    relays: relays_of(proof),
                    report: report.clone(),
                }
            });
        refused.collect()
    }
}

impl Findings {
    /// Whether the proof event at `index` is a kind 1041 of another scheme.
    fn is_other_scheme(&self, index: usize) -> bool {
        self.reports[index].verdict == Verdict::NotNipFf3
    }

    fn set_aside(&self, relays_of: &dyn Fn(&Found) -> Vec<String>) -> Vec<SetAside> {
        let other = self.ranking.refused.iter().filter(|&&index| self.is_other_scheme(index));
        let set_aside = other.map(|&index| {
            let (proof, report) = (&self.proofs[index], &self.reports[index]);
            let warning =
                report.warnings.iter().find(|warning| warning.reason == crate::report::Reason::NotNipFf3);
            SetAside {
                event_id: proof.event.id.to_hex(),
                signer: report.signer.clone(),
                detail: warning.map(|warning| warning.detail.clone()).unwrap_or_default(),
                relays: relays_of(proof),
            }
        });
        set_aside.collect()
    }
}

/// Why a kind 1041 is not ranked: its failed steps, or what else it is.
pub fn refusal_reasons(report: &Report, x: &str) -> Vec<String> {
    let mut reasons: Vec<String> = report.failures().iter().map(ToString::to_string).collect();
    reasons.extend(report.warnings.iter().map(|warning| warning.reason.to_string()));
    if report.verdict == Verdict::Valid && report.fingerprint.as_deref() != Some(x) {
        reasons.push("proves_another_x".into());
    }
    if reasons.is_empty() {
        reasons.push("invalid".into());
    }
    reasons
}

/// The NIP-19 `npub` of a hex pubkey (the hex itself if it is not one).
fn npub(hex: &str) -> String {
    PublicKey::from_hex(hex).ok().and_then(|key| key.to_bech32().ok()).unwrap_or_else(|| hex.to_owned())
}

fn utc(seconds: u64) -> String {
    UtcTime::from_unix(seconds).to_string()
}

#[cfg(test)]
mod tests;
