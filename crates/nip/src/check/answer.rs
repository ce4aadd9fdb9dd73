//! What relays answered the discovery query: plain data, produced by the
//! relay client (`priorart-relay`) or built from events a front end
//! received itself ([`UncheckedAnswer`]).

use nostr::filter::MatchEventOptions;
use nostr::prelude::{Event, EventId, Filter, Kind, Signature, SingleLetterTag};
use priorart_fingerprint::EqualityFingerprint;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Duration;

use crate::limits::{MAX_EVENT_JSON_BYTES, MAX_NOTICES_PER_RELAY_ANSWER, MAX_RELAY_TEXT_CHARS};

/// The kinds of the NIP's discovery query: notes, long-form articles, the
/// other content kinds it lists, and proof events.
pub const DISCOVERY_KINDS: [u16; 6] = [1, 30023, 31337, 31338, 31339, crate::PROOF_KIND];

/// The content kinds among them: what a near-copy query asks for.
pub const CONTENT_KINDS: [u16; 5] = [1, 30023, 31337, 31338, 31339];

/// The NIP's discovery query for `x`: every event of the
/// [`DISCOVERY_KINDS`] with the tag `["X", x]`.
pub fn discovery_filter(x: &EqualityFingerprint) -> Filter {
    Filter::new()
        .kinds(DISCOVERY_KINDS.map(Kind::from_u16))
        .custom_tag(SingleLetterTag::UPPERCASE_X, x.to_string())
}

/// Why the answer of a relay ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "RelayEnding"))]
pub enum Ending {
    /// `EOSE`: every stored event it has for the filter was sent.
    Eose,
    /// `CLOSED`: the relay refused or ended the subscription, saying why.
    Closed {
        /// The relay's message.
        message: String,
    },
    /// No `EOSE` within the time limit: what came before is kept.
    Timeout,
    /// The relay could not be reached.
    Unreachable {
        /// Why.
        error: String,
    },
    /// The connection ended before `EOSE`.
    Disconnected {
        /// Why.
        error: String,
    },
    /// Reading stopped at the event limit (a flood): more may exist.
    EventLimit {
        /// The limit.
        limit: usize,
    },
    /// Reading stopped at the byte limit.
    ByteLimit {
        /// The limit.
        limit: usize,
    },
}

impl Ending {
    /// Whether the relay said something about the subscription by ending
    /// it (`EOSE` or `CLOSED`).
    fn is_an_answer(&self) -> bool {
        matches!(self, Ending::Eose | Ending::Closed { .. })
    }
}

/// Why something a relay sent was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum SkipReason {
    /// A frame that is not JSON.
    NotJson,
    /// JSON, but not a relay message.
    NotRelayMessage,
    /// An `EVENT` message whose event is not a NIP-01 event.
    MalformedEvent,
    /// A message over the size limit.
    TooLarge,
    /// A message for a subscription we did not open.
    OtherSubscription,
    /// An event whose id is not the hash of its fields.
    BadId,
    /// An event whose signature does not verify.
    BadSignature,
    /// A verified event the filter does not match (wrong kind, no such tag…).
    NotMatchingFilter,
    /// The same event again from the same relay.
    Duplicate,
    /// A message that has no place in a query (`OK`, `COUNT`, binary frames…).
    Unexpected,
}

/// How many messages a relay sent that were skipped for one reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "SkippedMessages"))]
pub struct Skipped {
    /// The reason.
    pub reason: SkipReason,
    /// How many times.
    pub count: usize,
    /// The first one, quoted (cut to a few hundred characters).
    pub example: String,
}

/// What one relay answered.
#[derive(Debug, Clone)]
pub struct RelayAnswer {
    /// The relay URL.
    pub relay: String,
    /// How its answer ended.
    pub ending: Ending,
    /// Whether the relay said anything at all about our subscription
    /// (an event, `EOSE`, `CLOSED`, a notice): a relay that accepts the
    /// connection and stays silent did not answer.
    pub answered: bool,
    /// Its events whose id and signature verified and that match the
    /// discovery filter, each once, in the order received. [`check`](super::check())
    /// trusts these two checks (it does not repeat them): build answers
    /// from untrusted events with [`UncheckedAnswer`].
    pub events: Vec<Event>,
    /// What was skipped, by reason.
    pub skipped: Vec<Skipped>,
    /// Its `NOTICE`s (the first few, cut short).
    pub notices: Vec<String>,
    /// From the start of the connection to the end of the answer.
    pub elapsed: Duration,
}

/// An event, once, with every relay that had it.
#[derive(Debug, Clone)]
pub struct Found {
    /// The event (id and signature verified, matching the filter).
    pub event: Event,
    /// Indexes into the answers of the relays that sent it, in order.
    pub relays: Vec<usize>,
}

/// Every event of `answers` once, with the relays that had it: by
/// `created_at`, then id, so that the order does not depend on the relays'.
pub fn merge(answers: &[RelayAnswer]) -> Vec<Found> {
    let mut by_id: HashMap<EventId, Found> = HashMap::new();
    for (index, answer) in answers.iter().enumerate() {
        for event in &answer.events {
            let found =
                by_id.entry(event.id).or_insert_with(|| Found { event: event.clone(), relays: Vec::new() });
            found.relays.push(index);
        }
    }
    let mut found: Vec<Found> = by_id.into_values().collect();
    found.sort_by_key(|found| (found.event.created_at, found.event.id));
    found
}

/// A relay's answer as a front end received it (a browser's WebSocket, a
/// relay policy, a script): the events not yet checked. Deserializes from
///
/// ```json
/// {"url": "wss://relay.example", "ending": {"status": "eose"},
///  "events": [{"id": "…", "pubkey": "…", …}, "{\"id\": …}"],
///  "notices": [], "elapsed_ms": 420}
/// ```
///
/// (`events`: NIP-01 event objects, or their JSON text; `ending` as in the
/// `priorart-check/1` report; `answered`, `notices` and `elapsed_ms` may be
/// left out). [`UncheckedAnswer::check`] keeps what priorart's own relay
/// client keeps.
#[derive(Debug, Clone, Deserialize)]
pub struct UncheckedAnswer {
    /// The relay URL.
    pub url: String,
    /// How its answer ended.
    pub ending: Ending,
    /// The events as received.
    pub events: Vec<serde_json::Value>,
    /// Its `NOTICE`s (the first [`MAX_NOTICES_PER_RELAY_ANSWER`] kept, each
    /// cut to [`MAX_RELAY_TEXT_CHARS`], as the relay client keeps them).
    #[serde(default)]
    pub notices: Vec<String>,
    /// Whether the relay said anything about the subscription; when left
    /// out: it sent an event or a notice, or ended with `EOSE` or `CLOSED`.
    #[serde(default)]
    pub answered: Option<bool>,
    /// Milliseconds from the connection to the end of the answer.
    #[serde(default)]
    pub elapsed_ms: u64,
}

impl UncheckedAnswer {
    /// An answer of `url` that ended with `ending`, from event JSON texts.
    pub fn from_event_json<S: AsRef<str>>(url: &str, ending: Ending, events: &[S]) -> UncheckedAnswer {
        UncheckedAnswer {
            url: url.to_owned(),
            ending,
            events: events.iter().map(|event| serde_json::Value::String(event.as_ref().to_owned())).collect(),
            notices: Vec::new(),
            answered: None,
            elapsed_ms: 0,
        }
    }

    /// Checks every event as priorart's relay client does, for the
    /// discovery query of `x`: a readable NIP-01 event, its id, no
    /// duplicate, its signature, the filter (kind and `X` tag). What fails
    /// is counted in [`RelayAnswer::skipped`], never kept.
    pub fn check(self, x: &EqualityFingerprint) -> RelayAnswer {
        self.check_against(discovery_filter(x))
    }

    /// [`UncheckedAnswer::check`] on the answers of every relay asked, each
    /// distinct event's signature verified once: relays that hold the same
    /// events send the same copies, and the signature is the costly check.
    pub fn check_all(answers: Vec<UncheckedAnswer>, x: &EqualityFingerprint) -> Vec<RelayAnswer> {
        let filter = discovery_filter(x);
        let mut signatures = SignatureChecks::default();
        answers.into_iter().map(|answer| answer.sift(filter.clone(), &mut signatures)).collect()
    }

    /// [`UncheckedAnswer::check`] for any other query: the near-copy keys
    /// ([`NearQuery::filter`](super::NearQuery::filter)), their proofs
    /// ([`NearCandidates::proof_filter`](super::NearCandidates::proof_filter)).
    pub fn check_against(self, filter: Filter) -> RelayAnswer {
        self.sift(filter, &mut SignatureChecks::default())
    }

    fn sift(self, filter: Filter, signatures: &mut SignatureChecks) -> RelayAnswer {
        let answered = self
            .answered
            .unwrap_or(!self.events.is_empty() || !self.notices.is_empty() || self.ending.is_an_answer());
        let mut sieve = Sieve::new(filter, signatures);
        for value in &self.events {
            sieve.offer(value);
        }
        // A relay's texts as the relay client quotes them, whoever read
        // the relay: the same report from every front end.
        let ending = match self.ending {
            Ending::Closed { message } => Ending::Closed { message: excerpt(&message) },
            ending => ending,
        };
        RelayAnswer {
            relay: self.url,
            ending,
            answered,
            events: sieve.events,
            skipped: sieve.skipped.into_values().collect(),
            notices: self.notices.iter().take(MAX_NOTICES_PER_RELAY_ANSWER).map(|n| excerpt(n)).collect(),
            elapsed: Duration::from_millis(self.elapsed_ms),
        }
    }
}

/// Why a relay's event is not kept, or `None` to keep it: the one rule
/// for every client that reads untrusted relays (the relay crate's query,
/// [`UncheckedAnswer::check`]). `seen` holds the ids this relay's answer
/// kept so far; `signatures` the signature checks made so far, by this
/// relay's answer or by the others of the same query. The id first: a
/// forged copy that reuses a kept event's id is a bad id, not a duplicate;
/// the costly signature check last, and once per distinct event.
pub fn skip_reason(
    event: &Event,
    seen: &HashSet<EventId>,
    filter: &Filter,
    signatures: &mut SignatureChecks,
) -> Option<SkipReason> {
    if !event.verify_id() {
        Some(SkipReason::BadId)
    } else if seen.contains(&event.id) {
        Some(SkipReason::Duplicate)
    } else if !signatures.verify(event) {
        Some(SkipReason::BadSignature)
    } else if !filter.match_event(event, MatchEventOptions::new()) {
        Some(SkipReason::NotMatchingFilter)
    } else {
        None
    }
}

/// The outcome of every signature check made for one query, by event id
/// and signature, shared by the answers of every relay asked: relays that
/// hold the same events send the same copies. Sound only for events whose
/// id verified ([`skip_reason`] checks it first): the id is the hash of the
/// event's fields, its pubkey among them, so two copies with the same valid
/// id and the same signature are one signature check, whatever relay sent
/// them.
#[derive(Debug, Default)]
pub struct SignatureChecks(HashMap<(EventId, Signature), bool>);

impl SignatureChecks {
    /// Whether the signature of `event` (its id verified) verifies.
    fn verify(&mut self, event: &Event) -> bool {
        *self.0.entry((event.id, event.sig)).or_insert_with(|| event.verify_signature())
    }
}

/// Events kept and skipped, as they are offered.
struct Sieve<'a> {
    filter: Filter,
    signatures: &'a mut SignatureChecks,
    seen: HashSet<EventId>,
    events: Vec<Event>,
    skipped: BTreeMap<SkipReason, Skipped>,
}

impl<'a> Sieve<'a> {
    fn new(filter: Filter, signatures: &'a mut SignatureChecks) -> Sieve<'a> {
        Sieve { filter, signatures, seen: HashSet::new(), events: Vec::new(), skipped: BTreeMap::new() }
    }

    fn offer(&mut self, value: &serde_json::Value) {
        let json = match value {
            serde_json::Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let event = match crate::parse_event(&json, MAX_EVENT_JSON_BYTES) {
            Ok(event) => event,
            Err(crate::EventJsonError::TooLarge { limit }) => {
                return self
                    .skip(SkipReason::TooLarge, format!("an event of {} bytes (limit {limit})", json.len()));
            }
            Err(_) => return self.skip(SkipReason::MalformedEvent, excerpt(&json)),
        };
        match skip_reason(&event, &self.seen, &self.filter, self.signatures) {
            Some(reason) => self.skip(reason, format!("event {} (kind {})", event.id, event.kind.as_u16())),
            None => {
                self.seen.insert(event.id);
                self.events.push(event);
            }
        }
    }

    fn skip(&mut self, reason: SkipReason, example: String) {
        self.skipped.entry(reason).or_insert(Skipped { reason, count: 0, example }).count += 1;
    }
}

/// The first [`MAX_RELAY_TEXT_CHARS`] characters of `text`, marked when
/// cut (as the relay client quotes a relay).
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(MAX_RELAY_TEXT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_and_a_closed_message_are_kept_as_the_relay_client_keeps_them() {
        let long = "é".repeat(MAX_RELAY_TEXT_CHARS + 40);
        let mut answer = UncheckedAnswer::from_event_json(
            "wss://one",
            Ending::Closed { message: long.clone() },
            &[] as &[String],
        );
        answer.notices = vec![long.clone(); MAX_NOTICES_PER_RELAY_ANSWER + 5];
        let checked = answer.check(&EqualityFingerprint([0; 32]));
        let quoted = format!("{}…", "é".repeat(MAX_RELAY_TEXT_CHARS));
        assert_eq!(checked.notices, vec![quoted.clone(); MAX_NOTICES_PER_RELAY_ANSWER]);
        assert_eq!(checked.ending, Ending::Closed { message: quoted });
    }
}
