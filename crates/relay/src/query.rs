//! One filter asked of many relays at once, each until `EOSE` or its
//! limits; what each relay sent is verified, and what was skipped is named.

use crate::connection::{self, Socket, excerpt};
use crate::limits::QueryLimits;
use crate::message::{self, BadMessage};
use futures_util::{SinkExt, StreamExt};
use nostr::prelude::{ClientMessage, Event, EventId, Filter, RelayMessage, RelayUrl, SubscriptionId};
use priorart_nip::check::{Ending, RelayAnswer, SignatureChecks, SkipReason, Skipped, skip_reason};
use priorart_nip::limits::{MAX_NOTICES_PER_RELAY_ANSWER, MAX_RELAY_TEXT_CHARS};
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::Message;

/// The subscription id of every query: the one the NIP's discovery example uses.
const SUBSCRIPTION: &str = "plagiarism-check";
/// Time given to the polite `CLOSE` at the end; a relay that does not take
/// it is dropped anyway.
const GOODBYE: Duration = Duration::from_millis(300);

/// Asks every relay for `filter` at once and waits for all of them, each
/// within `limits`. One answer per relay, in the order given; each distinct
/// event's signature is verified once, whichever relays sent it.
pub fn query(
    relays: &[RelayUrl],
    filter: &Filter,
    limits: &QueryLimits,
) -> std::io::Result<Vec<RelayAnswer>> {
    Ok(crate::runtime()?.block_on(query_async(relays, filter, limits)))
}

/// [`query`] on the caller's runtime.
pub async fn query_async(relays: &[RelayUrl], filter: &Filter, limits: &QueryLimits) -> Vec<RelayAnswer> {
    let signatures = Arc::new(Mutex::new(SignatureChecks::default()));
    let asks = relays
        .iter()
        .map(|relay| ask(relay.clone(), filter.clone(), limits.clone(), Arc::clone(&signatures)));
    futures_util::future::join_all(asks).await
}

async fn ask(
    url: RelayUrl,
    filter: Filter,
    limits: QueryLimits,
    signatures: Arc<Mutex<SignatureChecks>>,
) -> RelayAnswer {
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + limits.timeout;
    let mut reading = Reading::new(&url, filter, &limits, signatures);
    match connection::connect(&url, limits.timeout, limits.transport_message_bytes()).await {
        Err(err) => reading.ending = Some(Ending::Unreachable { error: connection::error_chain(&err) }),
        Ok(mut socket) => {
            let subscription = SubscriptionId::new(SUBSCRIPTION);
            let request = ClientMessage::req(subscription.clone(), vec![reading.filter.clone()]).as_json();
            match tokio::time::timeout_at(deadline, socket.send(Message::text(request))).await {
                Ok(Ok(())) => reading.read(&mut socket, &subscription, deadline).await,
                Ok(Err(err)) => reading.ending = Some(Ending::Disconnected { error: err.to_string() }),
                Err(_) => reading.ending = Some(Ending::Timeout),
            }
            goodbye(&mut socket, subscription).await;
        }
    }
    reading.into_answer(started.elapsed())
}

/// `CLOSE` and a WebSocket close, briefly: the answer is already complete.
async fn goodbye(socket: &mut Socket, subscription: SubscriptionId) {
    let close = async {
        socket.send(Message::text(ClientMessage::close(subscription).as_json())).await?;
        socket.close(None).await
    };
    let _ = tokio::time::timeout(GOODBYE, close).await;
}

/// The state of one relay's answer while it is read.
struct Reading {
    relay: String,
    filter: Filter,
    limits: QueryLimits,
    ending: Option<Ending>,
    answered: bool,
    events: Vec<Event>,
    seen: HashSet<EventId>,
    /// The query's signature checks, shared with the other relays' readings.
    signatures: Arc<Mutex<SignatureChecks>>,
    skipped: BTreeMap<SkipReason, Skipped>,
    notices: Vec<String>,
    bytes: usize,
}

impl Reading {
    fn new(
        url: &RelayUrl,
        filter: Filter,
        limits: &QueryLimits,
        signatures: Arc<Mutex<SignatureChecks>>,
    ) -> Reading {
        Reading {
            relay: url.to_string(),
            filter,
            limits: limits.clone(),
            ending: None,
            answered: false,
            events: Vec::new(),
            seen: HashSet::new(),
            signatures,
            skipped: BTreeMap::new(),
            notices: Vec::new(),
            bytes: 0,
        }
    }

    async fn read(
        &mut self,
        socket: &mut Socket,
        subscription: &SubscriptionId,
        deadline: tokio::time::Instant,
    ) {
        while self.ending.is_none() {
            let frame = match tokio::time::timeout_at(deadline, socket.next()).await {
                Err(_) => {
                    self.ending = Some(Ending::Timeout);
                    break;
                }
                Ok(None) => {
                    self.ending =
                        Some(Ending::Disconnected { error: "the relay closed the connection".into() });
                    break;
                }
                Ok(Some(Err(err))) => {
                    self.ending = Some(Ending::Disconnected { error: err.to_string() });
                    break;
                }
                Ok(Some(Ok(frame))) => frame,
            };
            self.frame(frame, subscription);
        }
    }

    fn frame(&mut self, frame: Message, subscription: &SubscriptionId) {
        let text = match frame {
            Message::Text(text) => text,
            Message::Binary(bytes) => {
                self.count_bytes(bytes.len());
                self.skip(SkipReason::Unexpected, format!("a binary frame of {} bytes", bytes.len()));
                return;
            }
            Message::Close(_) => {
                self.ending = Some(Ending::Disconnected { error: "the relay closed the connection".into() });
                return;
            }
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => return,
        };
        if !self.count_bytes(text.len()) {
            return;
        }
        if text.len() > self.limits.max_message_bytes {
            let what = format!("a message of {} bytes (limit {})", text.len(), self.limits.max_message_bytes);
            self.skip(SkipReason::TooLarge, what);
            return;
        }
        match message::parse(text.as_str()) {
            Ok(message) => self.message(message, subscription, text.as_str()),
            Err(bad) => {
                let reason = match bad {
                    BadMessage::NotJson => SkipReason::NotJson,
                    BadMessage::MalformedEvent => SkipReason::MalformedEvent,
                    BadMessage::NotRelayMessage => SkipReason::NotRelayMessage,
                };
                self.skip(reason, excerpt(text.as_str(), MAX_RELAY_TEXT_CHARS));
            }
        }
    }

    /// Adds `len` to the bytes read; false (and the answer ends) past the limit.
    fn count_bytes(&mut self, len: usize) -> bool {
        self.bytes = self.bytes.saturating_add(len);
        if self.bytes > self.limits.max_bytes {
            self.ending = Some(Ending::ByteLimit { limit: self.limits.max_bytes });
            return false;
        }
        true
    }

    fn message(&mut self, message: RelayMessage<'static>, subscription: &SubscriptionId, text: &str) {
        match message {
            RelayMessage::Event { subscription_id, event } => {
                if subscription_id.as_ref() != subscription {
                    self.skip(SkipReason::OtherSubscription, excerpt(text, MAX_RELAY_TEXT_CHARS));
                    return;
                }
                self.answered = true;
                self.event(event.into_owned());
            }
            RelayMessage::EndOfStoredEvents(id) if id.as_ref() == subscription => {
                self.answered = true;
                self.ending = Some(Ending::Eose);
            }
            RelayMessage::Closed { subscription_id, message } if subscription_id.as_ref() == subscription => {
                self.answered = true;
                self.ending = Some(Ending::Closed { message: excerpt(&message, MAX_RELAY_TEXT_CHARS) });
            }
            RelayMessage::EndOfStoredEvents(_) | RelayMessage::Closed { .. } => {
                self.skip(SkipReason::OtherSubscription, excerpt(text, MAX_RELAY_TEXT_CHARS));
            }
            RelayMessage::Notice(notice) => {
                self.answered = true;
                self.notice(excerpt(&notice, MAX_RELAY_TEXT_CHARS));
            }
            RelayMessage::Auth { .. } => {
                self.notice(
                    "the relay asked for authentication (NIP-42); priorart does not authenticate".into(),
                );
            }
            RelayMessage::Ok { .. }
            | RelayMessage::Count { .. }
            | RelayMessage::NegMsg { .. }
            | RelayMessage::NegErr { .. } => {
                self.skip(SkipReason::Unexpected, excerpt(text, MAX_RELAY_TEXT_CHARS))
            }
        }
    }

    fn event(&mut self, event: Event) {
        // Held only for this synchronous check: the readings never await with it.
        let reason = {
            let mut signatures = self.signatures.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            skip_reason(&event, &self.seen, &self.filter, &mut signatures)
        };
        if let Some(reason) = reason {
            return self.skip(reason, format!("event {} (kind {})", event.id, event.kind.as_u16()));
        }
        self.seen.insert(event.id);
        self.events.push(event);
        if self.events.len() >= self.limits.max_events {
            self.ending = Some(Ending::EventLimit { limit: self.limits.max_events });
        }
    }

    fn skip(&mut self, reason: SkipReason, example: String) {
        self.skipped.entry(reason).or_insert(Skipped { reason, count: 0, example }).count += 1;
    }

    fn notice(&mut self, notice: String) {
        if self.notices.len() < MAX_NOTICES_PER_RELAY_ANSWER {
            self.notices.push(notice);
        }
    }

    fn into_answer(self, elapsed: Duration) -> RelayAnswer {
        RelayAnswer {
            relay: self.relay,
            ending: self.ending.unwrap_or(Ending::Timeout),
            answered: self.answered,
            events: self.events,
            skipped: self.skipped.into_values().collect(),
            notices: self.notices,
            elapsed,
        }
    }
}
