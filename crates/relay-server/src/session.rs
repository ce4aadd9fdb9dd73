//! One client's NIP-01 session: `EVENT` (verify, store, `OK`), `REQ`
//! (stored events, `EOSE`, then live ones), `CLOSE`, and NIP-45 `COUNT`.

use super::limits::{Limits, MAX_SUBSCRIPTION_ID_CHARS, filter_values};
use super::{Admission, Shared};
use futures_util::{SinkExt, StreamExt};
use nostr::filter::MatchEventOptions;
use nostr::prelude::{ClientMessage, Event, EventId, Filter, RelayMessage, SubscriptionId};
use nostr_database::{NostrDatabase, RejectedReason, SaveEventStatus};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use tokio::net::TcpStream;
use tokio::sync::broadcast::error::RecvError;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

type Socket = WebSocketStream<TcpStream>;

/// Read and write buffers of a connection: nostr messages are small, and
/// thousands of idle connections must fit (tungstenite's defaults, 128 KiB
/// each, would make one idle connection cost a quarter of a megabyte).
const SOCKET_BUFFER_BYTES: usize = 8 * 1024;

pub(super) async fn run(stream: TcpStream, rest: Vec<u8>, shared: Arc<Shared>) {
    let max = shared.options.max_message_bytes;
    let config = WebSocketConfig::default()
        .max_message_size(Some(max))
        .max_frame_size(Some(max))
        .read_buffer_size(SOCKET_BUFFER_BYTES)
        .write_buffer_size(SOCKET_BUFFER_BYTES);
    let socket = WebSocketStream::from_partially_read(stream, rest, Role::Server, Some(config)).await;
    let limits = shared.options.limits.clone();
    let _ = Session { socket, shared, limits, subscriptions: HashMap::new() }.serve().await;
}

struct Session {
    socket: Socket,
    shared: Arc<Shared>,
    limits: Limits,
    subscriptions: HashMap<SubscriptionId, Subscription>,
}

/// An open subscription: its filters, and the stored events it was sent
/// whose live copies may still be queued. An event stored while a `REQ`
/// is answered is both in the stored answer and in this session's queue of
/// live events; it is sent once. The ids are kept until the live events
/// queued when the answer ended have been read (`unread`), then dropped.
struct Subscription {
    filters: Vec<Filter>,
    /// The values its filters name (what it costs to hold).
    values: usize,
    sent: HashSet<EventId>,
    unread: Option<usize>,
}

impl Subscription {
    /// One live event read: the ids are dropped once none queued before
    /// the answer ended is left.
    fn live_event_read(&mut self) {
        if let Some(unread) = &mut self.unread {
            *unread = unread.saturating_sub(1);
            if *unread == 0 {
                self.sent = HashSet::new();
                self.unread = None;
            }
        }
    }
}

impl Session {
    async fn serve(mut self) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        let mut live = self.shared.live.subscribe();
        let idle = self.limits.idle_timeout;
        let silence = tokio::time::sleep(idle);
        tokio::pin!(silence);
        // A ping sent and not answered yet: the peer must prove it still reads.
        let mut pinged = false;
        loop {
            tokio::select! {
                frame = self.socket.next() => {
                    silence.as_mut().reset(tokio::time::Instant::now() + idle);
                    pinged = false;
                    match frame {
                        Some(Ok(Message::Text(text))) => {
                            self.message(text.as_str()).await?;
                            self.count_queued(live.len());
                        }
                        Some(Ok(Message::Binary(_))) => {
                            self.send(RelayMessage::notice("invalid: binary frames are not nostr messages")).await?;
                        }
                        Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return Ok(()),
                        Some(Ok(_)) => {}
                    }
                },
                () = &mut silence => {
                    if self.subscriptions.is_empty() || pinged {
                        let why = if pinged { "did not answer a ping" } else { "sent nothing and holds no subscription" };
                        let notice = format!("error: closing: the connection {why} for {} s", idle.as_secs());
                        let _ = self.send(RelayMessage::notice(notice)).await;
                        return self.socket.close(None).await;
                    }
                    self.socket.send(Message::Ping(Vec::new().into())).await?;
                    pinged = true;
                    silence.as_mut().reset(tokio::time::Instant::now() + idle);
                },
                event = live.recv() => match event {
                    Ok(event) => self.forward(&event).await?,
                    Err(RecvError::Lagged(missed)) => {
                        let notice = format!("error: {missed} live events were not delivered (the connection is too slow)");
                        self.send(RelayMessage::notice(notice)).await?;
                    }
                    Err(RecvError::Closed) => return Ok(()),
                },
            }
        }
    }

    /// Marks the subscriptions just answered with how many live events are
    /// queued: those that may repeat their stored events.
    fn count_queued(&mut self, queued: usize) {
        for subscription in self.subscriptions.values_mut() {
            if subscription.unread.is_none() && !subscription.sent.is_empty() {
                if queued == 0 {
                    subscription.sent = HashSet::new();
                } else {
                    subscription.unread = Some(queued);
                }
            }
        }
    }

    async fn send(&mut self, message: RelayMessage<'_>) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        self.socket.send(Message::text(message.as_json())).await
    }

    async fn message(&mut self, text: &str) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        let message = match ClientMessage::from_json(text) {
            Ok(message) => message,
            Err(err) => {
                return self
                    .send(RelayMessage::notice(format!("invalid: not a client message: {err}")))
                    .await;
            }
        };
        match message {
            ClientMessage::Event(event) => {
                let reply = self.store(event.into_owned()).await;
                self.send(reply).await
            }
            ClientMessage::Req { subscription_id, filters } => {
                let filters = filters.into_iter().map(|f| f.into_owned()).collect();
                self.subscribe(subscription_id.into_owned(), filters).await
            }
            ClientMessage::Close(subscription_id) => {
                self.subscriptions.remove(subscription_id.as_ref());
                Ok(())
            }
            ClientMessage::Count { subscription_id, filter } => {
                let filter = filter.into_owned();
                if let Some(refusal) = self.too_many_values(std::slice::from_ref(&filter), 0) {
                    return self.send(RelayMessage::closed(subscription_id.into_owned(), refusal)).await;
                }
                let reply = match self.shared.store.count(filter).await {
                    Ok(count) => RelayMessage::count(subscription_id.into_owned(), count),
                    Err(err) => RelayMessage::closed(subscription_id.into_owned(), format!("error: {err}")),
                };
                self.send(reply).await
            }
            ClientMessage::Auth(_)
            | ClientMessage::NegOpen { .. }
            | ClientMessage::NegMsg { .. }
            | ClientMessage::NegClose { .. } => {
                self.send(RelayMessage::notice(
                    "unsupported: this relay speaks NIP-01, NIP-11 and NIP-45 only",
                ))
                .await
            }
        }
    }

    /// Verifies and stores one event; the `OK` goes out only once the store
    /// has committed it, so an accepted event survives a crash.
    async fn store(&mut self, event: Event) -> RelayMessage<'static> {
        let id = event.id;
        if !event.verify_id() {
            return RelayMessage::ok(id, false, "invalid: the id is not the hash of the event");
        }
        if !event.verify_signature() {
            return RelayMessage::ok(id, false, "invalid: bad signature");
        }
        if let Some(refusal) = self.refusal(&event).await {
            return refusal;
        }
        if event.kind.is_ephemeral() {
            let _ = self.shared.live.send(Arc::new(event));
            return RelayMessage::ok(id, true, "");
        }
        match self.shared.store.save_event(&event).await {
            Ok(SaveEventStatus::Success) => {
                let _ = self.shared.live.send(Arc::new(event));
                RelayMessage::ok(id, true, "")
            }
            Ok(SaveEventStatus::Rejected(reason)) => rejection(id, reason),
            Err(err) => RelayMessage::ok(id, false, format!("error: could not store: {err}")),
        }
    }

    /// The write policy's `OK` for an event it does not let through.
    async fn refusal(&self, event: &Event) -> Option<RelayMessage<'static>> {
        let policy = self.shared.options.write_policy.clone()?;
        let (id, asked) = (event.id, event.clone());
        match tokio::task::spawn_blocking(move || policy.admit(&asked)).await {
            Ok(Admission::Accept) => None,
            Ok(Admission::Reject(msg)) if msg.is_empty() => {
                Some(RelayMessage::ok(id, false, "blocked: refused by the write policy"))
            }
            Ok(Admission::Reject(msg)) => Some(RelayMessage::ok(id, false, msg)),
            Ok(Admission::ShadowReject) => Some(RelayMessage::ok(id, true, "")),
            Err(_) => Some(RelayMessage::ok(id, false, "error: the write policy failed")),
        }
    }

    async fn subscribe(
        &mut self,
        id: SubscriptionId,
        filters: Vec<Filter>,
    ) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        let limits = &self.limits;
        // A REQ that reuses an open id replaces that subscription.
        let replaced = self.subscriptions.get(&id).map_or(0, |subscription| subscription.values);
        let refusal = if id.as_str().is_empty() || id.as_str().chars().count() > MAX_SUBSCRIPTION_ID_CHARS {
            Some(format!("invalid: subscription ids have 1 to {MAX_SUBSCRIPTION_ID_CHARS} characters"))
        } else if filters.len() > limits.max_filters {
            Some(format!("invalid: at most {} filters per REQ", limits.max_filters))
        } else if !self.subscriptions.contains_key(&id)
            && self.subscriptions.len() >= limits.max_subscriptions
        {
            Some(format!(
                "rate-limited: at most {} open subscriptions per connection",
                limits.max_subscriptions
            ))
        } else {
            self.too_many_values(&filters, replaced)
        };
        if let Some(refusal) = refusal {
            return self.send(RelayMessage::closed(id, refusal)).await;
        }
        let values = filters.iter().map(filter_values).sum();
        let stored = match self.stored(&filters).await {
            Ok(stored) => stored,
            Err(err) => return self.send(RelayMessage::closed(id, format!("error: {err}"))).await,
        };
        let sent = stored.iter().map(|event| event.id).collect();
        for event in stored {
            self.send(RelayMessage::event(id.clone(), event)).await?;
        }
        self.send(RelayMessage::eose(id.clone())).await?;
        self.subscriptions.insert(id, Subscription { filters, values, sent, unread: None });
        Ok(())
    }

    /// Why `filters` cannot be held (a filter naming too many values, or
    /// the connection's subscriptions naming too many in all, `replaced`
    /// of them about to be dropped), if they cannot.
    fn too_many_values(&self, filters: &[Filter], replaced: usize) -> Option<String> {
        let limits = &self.limits;
        if filters.iter().any(|filter| filter_values(filter) > limits.max_filter_values) {
            return Some(format!(
                "invalid: a filter names at most {} values (ids, authors, kinds and tag values together)",
                limits.max_filter_values
            ));
        }
        let held: usize = self.subscriptions.values().map(|subscription| subscription.values).sum();
        let asked: usize = filters.iter().map(filter_values).sum();
        (held - replaced + asked > limits.max_held_values).then(|| {
            format!(
                "rate-limited: this connection's subscriptions may name at most {} filter values in all",
                limits.max_held_values
            )
        })
    }

    /// The stored events of every filter, each once, newest first (`Event`'s order).
    async fn stored(&self, filters: &[Filter]) -> Result<BTreeSet<Event>, nostr_database::error::Error> {
        let mut events = BTreeSet::new();
        for filter in filters {
            let max = self.limits.max_limit;
            let limit = filter.limit.map_or(max, |limit| limit.min(max));
            if limit == 0 {
                continue;
            }
            events.extend(self.shared.store.query(filter.clone().limit(limit)).await?);
        }
        Ok(events)
    }

    /// A newly stored event, to every subscription of this session that matches it.
    async fn forward(&mut self, event: &Event) -> Result<(), tokio_tungstenite::tungstenite::Error> {
        let mut matching = Vec::new();
        for (id, subscription) in &mut self.subscriptions {
            let wanted = subscription.filters.iter().any(|f| f.match_event(event, MatchEventOptions::new()));
            if wanted && !subscription.sent.contains(&event.id) {
                matching.push(id.clone());
            }
            subscription.live_event_read();
        }
        for id in matching {
            self.send(RelayMessage::event(id, event.clone())).await?;
        }
        Ok(())
    }
}

/// NIP-01's `OK` for an event the store did not take.
fn rejection(id: nostr::prelude::EventId, reason: RejectedReason) -> RelayMessage<'static> {
    let (accepted, message) = match reason {
        RejectedReason::Duplicate => (true, "duplicate: already have this event"),
        RejectedReason::Replaced => (false, "invalid: a newer version of this replaceable event is stored"),
        RejectedReason::Deleted => (false, "blocked: this event was deleted"),
        RejectedReason::Expired => (false, "invalid: this event has expired"),
        RejectedReason::InvalidDelete => (false, "blocked: a deletion may only name its author's events"),
        RejectedReason::Vanished => (false, "blocked: the author asked to vanish"),
        RejectedReason::Ephemeral | RejectedReason::Other => (false, "error: not stored"),
    };
    RelayMessage::ok(id, accepted, message)
}
