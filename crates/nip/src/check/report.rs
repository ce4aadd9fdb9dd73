//! The typed `priorart-check/1` report. Its JSON (serde) is the format the
//! CLI prints with `check --json`: members are only ever added, never
//! renamed or removed, and they serialize in the documented order.

use super::answer::{Ending, RelayAnswer, Skipped};
use super::content::XCheck;
use super::{npub, utc};
use crate::report::{Report, Verdict};
use nostr::prelude::Event;
use priorart_ots::Network;
use serde::{Serialize, Serializer};
use std::time::Duration;

/// The `format` member of every check report.
pub const CHECK_FORMAT: &str = "priorart-check/1";

/// Everything found for one `X`, verified and ranked, with the verdict.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckReport {
    /// Always [`CHECK_FORMAT`].
    #[cfg_attr(feature = "schema", schemars(extend("const" = CHECK_FORMAT)))]
    pub format: &'static str,
    /// The fingerprint asked for (64 lowercase hex).
    pub x: String,
    /// The chain proofs were checked against.
    #[serde(serialize_with = "network_name")]
    pub network: Network,
    /// Who came first, in one status and one sentence.
    pub verdict: CheckVerdict,
    /// What each relay answered, in the order asked.
    pub relays: Vec<RelaySummary>,
    /// Valid proofs of `X`, earliest Bitcoin block first.
    pub proofs: Vec<RankedProof>,
    /// Proofs that passed every check but the Bitcoin one, for lack of
    /// block headers.
    pub unverified: Vec<UnverifiedProof>,
    /// Every other kind 1041 (and 1040) that claims to be a proof, never
    /// dropped, with its reasons.
    pub refused: Vec<RefusedProof>,
    /// Kind 1041 events of another scheme (no embedded NIP-FF-3
    /// attestation: other drafts reuse the kind), set aside: neither a proof
    /// nor a forgery.
    pub set_aside: Vec<SetAside>,
    /// The content events (notes, articles…) carrying `X`.
    pub content_events: Vec<ContentEventSeen>,
    /// What a local index holds near the document: filled in by the caller
    /// that looked it up (the CLI's `--index`), `null` otherwise. It does
    /// not change the verdict.
    pub index: Option<serde_json::Value>,
    /// The near copies, when they were looked for (`check --fuzzy`), else
    /// `null`. Attached with [`CheckReport::with_near_copies`]: a near
    /// copy proven earlier than every proof of `X` changes the verdict.
    pub fuzzy: Option<FuzzyReport>,
}

/// The verdict of a check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckVerdict {
    /// What kind of answer it is.
    pub status: CheckStatus,
    /// The sentence, for people.
    pub text: String,
    /// The first proof, or without one the earliest event by its
    /// (untrusted) `created_at`; `null` when nothing was found.
    pub earliest: Option<Earliest>,
    /// How many other pubkeys published or proved the same `X`.
    pub other_authors: usize,
}

/// The status of a [`CheckVerdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CheckStatus {
    /// A valid proof of `X` exists.
    Proven,
    /// A near copy (another `X`, found through the fuzzy keys) carries a
    /// valid proof earlier than every valid proof of `X`: its author is the
    /// likely original.
    NearCopyProven,
    /// Proofs were found, but none could be checked for lack of block
    /// headers (neither valid nor invalid yet).
    Unverified,
    /// Events carry `X`, but no valid proof.
    Unproven,
    /// The relays that answered have no event with `X`.
    NothingFound,
    /// Relays were asked, none answered.
    NoRelayAnswered,
    /// No relay was asked (a local index alone was searched).
    NoRelayAsked,
}

/// The earliest author of a verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Earliest {
    /// The author of the first valid proof.
    Proven(EarliestProof),
    /// Without a proof: the earliest event by its untrusted `created_at`.
    Seen(EarliestEvent),
}

/// The first valid proof, in a verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EarliestProof {
    /// The attestation's pubkey (hex).
    pub author: String,
    /// The same, NIP-19.
    pub npub: String,
    /// The kind 1041's id.
    pub event_id: String,
    /// Its Bitcoin block height.
    pub height: u64,
    /// Its block time.
    pub time: u64,
    /// The block time in UTC.
    pub utc: String,
    /// With the status `near_copy_proven`: the near copy the proof is of
    /// (the member is absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub near_copy: Option<NearCopyOf>,
}

impl EarliestProof {
    pub(super) fn of(proof: &RankedProof) -> EarliestProof {
        EarliestProof {
            author: proof.author.clone(),
            npub: proof.npub.clone(),
            event_id: proof.event_id.clone(),
            height: proof.block.height,
            time: proof.block.time,
            utc: proof.block.utc.clone(),
            near_copy: None,
        }
    }
}

/// Why a candidate is not reported as a near copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum NotReported {
    /// Its text, recomputed, is more than `k` bits away (its tags lie, or
    /// it shares a key by chance).
    TooFar,
    /// Within `k` bits, but sharing too few word 5-grams.
    TooDifferent,
    /// Empty or encrypted content: nothing to compare.
    Unreadable,
    /// Already among the content events found by the same `X`.
    ListedByX,
}

/// How many candidates were not reported for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NotReportedCount {
    /// The reason.
    pub reason: NotReported,
    /// How many.
    pub count: usize,
}

/// The `fuzzy` member of the `priorart-check/1` report.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FuzzyReport {
    /// The sentence, for people.
    pub text: String,
    /// The checked text's simhash-doc value.
    pub simhash_doc: String,
    /// The largest distance of a near copy.
    pub k: u32,
    /// The smallest word 5-gram Jaccard of a near copy.
    pub min_jaccard: f64,
    /// How many keys the query carried.
    pub keys: usize,
    /// How many distinct content events the relays returned for them.
    pub candidates: usize,
    /// The candidates left out, by reason.
    pub not_reported: Vec<NotReportedCount>,
    /// The near copies, those with a valid proof first (earliest block).
    pub near_copies: Vec<NearCopy>,
    /// What each relay answered to the key query.
    pub relays: Vec<RelaySummary>,
    /// What each relay answered to the proof query (none without a copy).
    pub proof_relays: Vec<RelaySummary>,
}

/// A verified near copy and the proofs of its `X`.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NearCopy {
    /// Which event, by whom, claiming when.
    #[serde(flatten)]
    pub event: EventSeen,
    /// Its text's simhash-doc value, recomputed.
    pub simhash_doc: String,
    /// Bits from the checked text's value.
    pub distance: u32,
    /// Word 5-gram Jaccard with the checked text.
    pub jaccard: f64,
    /// Its text's `X`, recomputed (what its proofs were asked by).
    pub x: String,
    /// What its own `B` tags said: `matches`, `does_not_match`,
    /// `malformed` (informational: nothing relies on them).
    pub fuzzy_tags: &'static str,
    /// The relays that had it.
    pub relays: Vec<String>,
    /// Valid proofs of its `X`, earliest block first.
    pub proofs: Vec<RankedProof>,
    /// Proofs of its `X` that could not be checked for lack of headers.
    pub unverified: Vec<UnverifiedProof>,
    /// Other kind 1041s carrying its `X`, with their reasons.
    pub refused: Vec<RefusedProof>,
}

/// The near copy whose proof a `near_copy_proven` verdict names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NearCopyOf {
    /// The near copy's content event id.
    pub event_id: String,
    /// Its pubkey (hex): who published the copy (not always the prover).
    pub author: String,
    /// The same, NIP-19.
    pub npub: String,
    /// Its `X`, recomputed from its text.
    pub x: String,
    /// Its word 5-gram Jaccard with the checked text.
    pub jaccard: f64,
}

impl NearCopyOf {
    pub(super) fn of(copy: &NearCopy) -> NearCopyOf {
        NearCopyOf {
            event_id: copy.event.event_id.clone(),
            author: copy.event.author.clone(),
            npub: copy.event.npub.clone(),
            x: copy.x.clone(),
            jaccard: copy.jaccard,
        }
    }
}

/// The earliest event seen, in a verdict without a proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EarliestEvent {
    /// Its pubkey (hex).
    pub author: String,
    /// The same, NIP-19.
    pub npub: String,
    /// Its id.
    pub event_id: String,
    /// Its kind.
    pub kind: u16,
    /// Its `created_at` (the author's claim).
    pub created_at: u64,
    /// `created_at` in UTC.
    pub utc: String,
}

/// What one relay answered, without its events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RelaySummary {
    /// The relay URL.
    pub url: String,
    /// Whether it said anything about the subscription.
    pub answered: bool,
    /// How its answer ended.
    pub ending: Ending,
    /// How many events it sent that were kept.
    pub events: usize,
    /// What it sent that was skipped, by reason.
    pub skipped: Vec<Skipped>,
    /// Its notices.
    pub notices: Vec<String>,
    /// From the connection to the end of its answer (JSON: `elapsed_ms`).
    #[serde(rename = "elapsed_ms", serialize_with = "milliseconds")]
    #[cfg_attr(feature = "schema", schemars(with = "u64"))]
    pub elapsed: Duration,
}

impl RelaySummary {
    pub(crate) fn of(answer: &RelayAnswer) -> RelaySummary {
        RelaySummary {
            url: answer.relay.clone(),
            answered: answer.answered,
            ending: answer.ending.clone(),
            events: answer.events.len(),
            skipped: answer.skipped.clone(),
            notices: answer.notices.clone(),
            elapsed: answer.elapsed,
        }
    }
}

/// A valid proof of `X`, in rank order.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RankedProof {
    /// 1 for the earliest.
    pub rank: usize,
    /// The kind 1041's id.
    pub event_id: String,
    /// The attestation's pubkey (hex).
    pub author: String,
    /// The same, NIP-19.
    pub npub: String,
    /// The block the proof reaches.
    pub block: Block,
    /// The content event the proof names, if it names one.
    pub content: Option<ContentReference>,
    /// The relays that had the proof.
    pub relays: Vec<String>,
    /// Its `priorart-verify/1` report.
    pub report: Report,
}

/// A Bitcoin block, with its time in UTC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "CheckBlock"))]
pub struct Block {
    /// Height.
    pub height: u64,
    /// Header time.
    pub time: u64,
    /// The header time in UTC.
    pub utc: String,
    /// Block hash (usual reversed hex).
    pub block_hash: String,
}

/// The content a proof names: its `a` coordinate or `e` id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContentReference {
    /// `a` or `e`.
    pub tag: &'static str,
    /// The coordinate or the event id.
    pub reference: String,
    /// Whether a content event it names was among the answers.
    pub found: bool,
}

/// A proof that could not be checked against Bitcoin for lack of headers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UnverifiedProof {
    /// The kind 1041's id.
    pub event_id: String,
    /// The attestation's pubkey (hex).
    pub author: String,
    /// The same, NIP-19.
    pub npub: String,
    /// The relays that had it.
    pub relays: Vec<String>,
    /// Its `priorart-verify/1` report.
    pub report: Report,
}

/// A proof event that is not ranked, and why.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RefusedProof {
    /// Its id.
    pub event_id: String,
    /// Who signed it (hex).
    pub signer: Option<String>,
    /// The embedded attestation's pubkey, when it could be read.
    pub claimed_author: Option<String>,
    /// Its verification verdict.
    pub verdict: Verdict,
    /// The report's failure names (e.g. `attestation_bad_signature`,
    /// `proof_for_other_digest`), or `proves_another_x`.
    pub reasons: Vec<String>,
    /// The relays that had it.
    pub relays: Vec<String>,
    /// Its `priorart-verify/1` report.
    pub report: Report,
}

/// A kind 1041 of another scheme, set aside.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SetAside {
    /// Its id.
    pub event_id: String,
    /// Who signed it (hex).
    pub signer: Option<String>,
    /// Why it is not a NIP-FF-3 proof.
    pub detail: String,
    /// The relays that had it.
    pub relays: Vec<String>,
}

/// A content event carrying `X`, and whether its text has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContentEventSeen {
    /// Which event, by whom, claiming when.
    #[serde(flatten)]
    pub event: EventSeen,
    /// Whether its text has `X`. JSON: two members, `x_check` (`matches`,
    /// `does_not_match` or `cannot_check`) and `detail` (the content's own
    /// fingerprint for `does_not_match`, `empty` or `encrypted` for
    /// `cannot_check`, else `null`).
    #[serde(flatten)]
    pub x_check: XCheck,
    /// The relays that had it.
    pub relays: Vec<String>,
}

/// What a report says of any event a relay returned: its id, its author
/// and the time it claims (JSON: members of the event's object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EventSeen {
    /// Its id.
    pub event_id: String,
    /// Its pubkey (hex).
    pub author: String,
    /// The same, NIP-19.
    pub npub: String,
    /// Its kind.
    pub kind: u16,
    /// Its `created_at`: the author's claim.
    pub created_at: u64,
    /// Always false: nothing proves when an event was written.
    #[cfg_attr(feature = "schema", schemars(extend("const" = false)))]
    pub created_at_trusted: bool,
    /// `created_at` in UTC.
    pub utc: String,
}

impl EventSeen {
    /// The members of `event`.
    pub fn of(event: &Event) -> EventSeen {
        let author = event.pubkey.to_hex();
        EventSeen {
            event_id: event.id.to_hex(),
            npub: npub(&author),
            author,
            kind: event.kind.as_u16(),
            created_at: event.created_at.as_secs(),
            created_at_trusted: false,
            utc: utc(event.created_at.as_secs()),
        }
    }
}

fn network_name<S: Serializer>(network: &Network, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(network.name())
}

fn milliseconds<S: Serializer>(elapsed: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
}

/// [`XCheck`]'s two members in a content event's object.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct XCheckMembers<'a> {
    /// Whether the content event's text has `X`.
    x_check: XCheckName,
    /// The content's own fingerprint for `does_not_match`, `empty` or
    /// `encrypted` for `cannot_check`, else `null`.
    detail: Option<&'a str>,
}

/// The name of an [`XCheck`].
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
enum XCheckName {
    Matches,
    DoesNotMatch,
    CannotCheck,
}

impl Serialize for XCheck {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let members = match self {
            XCheck::Matches => XCheckMembers { x_check: XCheckName::Matches, detail: None },
            XCheck::DoesNotMatch(fingerprint) => {
                XCheckMembers { x_check: XCheckName::DoesNotMatch, detail: Some(fingerprint) }
            }
            XCheck::CannotCheck(why) => {
                XCheckMembers { x_check: XCheckName::CannotCheck, detail: Some(why.name()) }
            }
        };
        members.serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for XCheck {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "XCheck".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        XCheckMembers::json_schema(generator)
    }
}

impl CheckReport {
    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a check report serializes")
    }
}
