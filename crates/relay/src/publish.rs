//! Events sent to many relays at once, with each relay's `OK` per event.

use crate::connection::{self, Socket, excerpt};
use futures_util::{SinkExt, StreamExt};
use nostr::prelude::{ClientMessage, Event, EventId, RelayMessage, RelayUrl};
use serde::Serialize;
use std::collections::HashMap;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// Longest message read while waiting for `OK`s (an `OK` is a few hundred bytes).
const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// Characters of a relay's message quoted in a report.
const EXCERPT_CHARS: usize = 200;

/// What a relay said about one event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Acceptance {
    /// `OK true`: stored.
    Accepted {
        /// The relay's message (often empty).
        message: String,
    },
    /// `OK` with a `duplicate:` message: the relay already had it.
    Duplicate {
        /// The relay's message.
        message: String,
    },
    /// `OK false`: refused, saying why.
    Rejected {
        /// The relay's message (`blocked: …`, `invalid: …`, `pow: …`…).
        message: String,
    },
    /// No `OK` within the time limit.
    NoAnswer,
    /// Never sent: the relay could not be reached or the connection broke first.
    NotSent {
        /// Why.
        error: String,
    },
}

impl Acceptance {
    /// Whether the relay has the event now (accepted or already had it).
    pub fn has_event(&self) -> bool {
        matches!(self, Acceptance::Accepted { .. } | Acceptance::Duplicate { .. })
    }

    fn from_ok(status: bool, message: &str) -> Acceptance {
        let message_text = excerpt(message, EXCERPT_CHARS);
        if message.starts_with("duplicate:") {
            Acceptance::Duplicate { message: message_text }
        } else if status {
            Acceptance::Accepted { message: message_text }
        } else {
            Acceptance::Rejected { message: message_text }
        }
    }
}

/// What one relay said about every event.
#[derive(Debug, Clone)]
pub struct PublishAnswer {
    /// The relay URL.
    pub relay: String,
    /// One per event, in the order given.
    pub acceptances: Vec<Acceptance>,
    /// Its `NOTICE`s (the first few).
    pub notices: Vec<String>,
}

/// Sends every event to every relay at once, each relay on one connection,
/// and waits up to `timeout` per relay for its `OK`s. The events must be
/// verified already (relays drop events whose id or signature is wrong).
pub fn publish(
    relays: &[RelayUrl],
    events: &[Event],
    timeout: Duration,
) -> std::io::Result<Vec<PublishAnswer>> {
    Ok(crate::runtime()?.block_on(publish_async(relays, events, timeout)))
}

/// [`publish`] on the caller's runtime.
pub async fn publish_async(relays: &[RelayUrl], events: &[Event], timeout: Duration) -> Vec<PublishAnswer> {
    futures_util::future::join_all(relays.iter().map(|relay| publish_to(relay, events, timeout))).await
}

async fn publish_to(url: &RelayUrl, events: &[Event], timeout: Duration) -> PublishAnswer {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut answer = PublishAnswer { relay: url.to_string(), acceptances: Vec::new(), notices: Vec::new() };
    let not_sent = |error: String| vec![Acceptance::NotSent { error }; events.len()];
    let mut socket = match connection::connect(url, timeout, MAX_ANSWER_BYTES).await {
        Ok(socket) => socket,
        // A relay that takes the connection and then says nothing (no
        // WebSocket handshake) is silent, as one that never sends its `OK`s:
        // no answer, not "never sent" for a reason it does not have.
        Err(connection::ConnectError::Timeout(_)) => {
            answer.acceptances = vec![Acceptance::NoAnswer; events.len()];
            return answer;
        }
        Err(err) => {
            answer.acceptances = not_sent(connection::error_chain(&err));
            return answer;
        }
    };
    let sent = async {
        for event in events {
            socket.feed(Message::text(ClientMessage::event(event.clone()).as_json())).await?;
        }
        socket.flush().await
    };
    match tokio::time::timeout_at(deadline, sent).await {
        Ok(Ok(())) => {}
        Ok(Err(err)) => {
            answer.acceptances = not_sent(err.to_string());
            return answer;
        }
        Err(_) => {
            answer.acceptances = not_sent("could not send within the time limit".into());
            return answer;
        }
    }
    let mut waiting: HashMap<EventId, Option<Acceptance>> = events.iter().map(|e| (e.id, None)).collect();
    read_oks(&mut socket, &mut waiting, &mut answer.notices, deadline).await;
    let _ = tokio::time::timeout(Duration::from_millis(300), socket.close(None)).await;
    answer.acceptances = events
        .iter()
        .map(|e| waiting.get(&e.id).cloned().flatten().unwrap_or(Acceptance::NoAnswer))
        .collect();
    answer
}

/// Reads until every event has its `OK`, the deadline, or the connection ends.
async fn read_oks(
    socket: &mut Socket,
    waiting: &mut HashMap<EventId, Option<Acceptance>>,
    notices: &mut Vec<String>,
    deadline: tokio::time::Instant,
) {
    while waiting.values().any(Option::is_none) {
        let text = match tokio::time::timeout_at(deadline, socket.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => text,
            Ok(Some(Ok(Message::Close(_)))) | Ok(Some(Err(_))) | Ok(None) | Err(_) => return,
            Ok(Some(Ok(_))) => continue,
        };
        match RelayMessage::from_json(text.as_str()) {
            Ok(RelayMessage::Ok { event_id, status, message }) => {
                if let Some(slot) = waiting.get_mut(&event_id).filter(|slot| slot.is_none()) {
                    *slot = Some(Acceptance::from_ok(status, &message));
                }
            }
            Ok(RelayMessage::Notice(notice)) if notices.len() < 10 => {
                notices.push(excerpt(&notice, EXCERPT_CHARS))
            }
            _ => {}
        }
    }
}
