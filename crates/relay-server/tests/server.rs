//! The embedded relay through our own client: NIP-01 round trips, `#X`
//! lookups, refusals, NIP-11, and events kept across a restart.

use priorart_relay::nostr::prelude::{
    Event, EventBuilder, Filter, FinalizeEvent, Keys, Kind, RelayUrl, SingleLetterTag, Tag, Timestamp,
};
use priorart_relay::{Acceptance, Ending, QueryLimits};
use priorart_relay_server::{RelayServer, ServerOptions};
use std::io::{Read, Write};
use std::time::Duration;

#[path = "server/hostile.rs"]
mod hostile;

/// A fingerprint-shaped `X` value (the relay treats it as any tag value).
fn x_value(seed: u8) -> String {
    format!("{seed:02x}").repeat(32)
}

/// A signed event of `kind` with an `X` tag.
fn x_event(keys: &Keys, kind: u16, x: &str, content: &str) -> Event {
    let tag = Tag::parse(["X", x, "minhash-equality-v1"]).unwrap();
    EventBuilder::new(Kind::from_u16(kind), content).tag(tag).finalize(keys).unwrap()
}

/// The NIP's discovery filter for `x`.
fn discovery(x: &str) -> Filter {
    Filter::new()
        .kinds([1, 30023, 31337, 31338, 31339, 1041].map(Kind::from_u16))
        .custom_tag(SingleLetterTag::UPPERCASE_X, x)
}

/// A relay on an LMDB store in `dir`, served by its own runtime (which must
/// outlive it: drop the relay first).
struct InProcessRelay {
    server: Option<RelayServer>,
    runtime: tokio::runtime::Runtime,
}

impl InProcessRelay {
    fn start(dir: &std::path::Path) -> InProcessRelay {
        InProcessRelay::start_with(ServerOptions::new(dir.to_owned(), "127.0.0.1:0".parse().unwrap()))
    }

    fn start_with(options: ServerOptions) -> InProcessRelay {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let server = runtime.block_on(RelayServer::start(options)).expect("relay starts");
        InProcessRelay { server: Some(server), runtime }
    }

    fn url(&self) -> String {
        self.server.as_ref().unwrap().url()
    }

    fn addr(&self) -> std::net::SocketAddr {
        self.server.as_ref().unwrap().local_addr()
    }

    /// The NIP-11 document.
    fn information(&self) -> serde_json::Value {
        let addr = self.addr();
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        write!(stream, "GET / HTTP/1.1\r\nHost: {addr}\r\nAccept: application/nostr+json\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        serde_json::from_str(response.split_once("\r\n\r\n").unwrap().1).unwrap()
    }

    /// Stops the relay and waits until it no longer listens.
    fn stop(mut self) {
        let server = self.server.take().unwrap();
        self.runtime.block_on(server.stop());
    }
}

fn url(text: &str) -> RelayUrl {
    priorart_relay::parse_relay_url(text).unwrap()
}

fn publish(relay: &str, events: &[Event]) -> Vec<Acceptance> {
    let answers = priorart_relay::publish(&[url(relay)], events, Duration::from_secs(5)).unwrap();
    answers.into_iter().next().unwrap().acceptances
}

fn query(relay: &str, filter: &Filter) -> Vec<Event> {
    let answers = priorart_relay::query(&[url(relay)], filter, &QueryLimits::default()).unwrap();
    let answer = answers.into_iter().next().unwrap();
    assert_eq!(answer.ending, Ending::Eose);
    assert!(answer.skipped.is_empty(), "{:?}", answer.skipped);
    answer.events
}

#[test]
fn x_queries_find_exactly_the_tagged_events_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let relay = InProcessRelay::start(dir.path());
    let (alice, bob) = (Keys::generate(), Keys::generate());
    let x = x_value(0x5a);
    let events = [
        x_event(&alice, 1, &x, "a note"),
        x_event(&bob, 1041, &x, "a proof"),
        x_event(&bob, 30023, &x, "an article"),
        x_event(&alice, 7, &x, "a reaction: not a discovery kind"),
        x_event(&alice, 1, &x_value(0x5b), "another text"),
    ];
    let accepted = Acceptance::Accepted { message: String::new() };
    assert_eq!(publish(&relay.url(), &events), vec![accepted; 5]);
    assert!(matches!(publish(&relay.url(), &events[..1])[0], Acceptance::Duplicate { .. }));

    let mut found: Vec<_> = query(&relay.url(), &discovery(&x)).into_iter().map(|e| e.id).collect();
    let mut expected = vec![events[0].id, events[1].id, events[2].id];
    found.sort();
    expected.sort();
    assert_eq!(found, expected);

    relay.stop();
    let relay = InProcessRelay::start(dir.path());
    assert_eq!(query(&relay.url(), &discovery(&x)).len(), 3, "kept across a restart");
    let by_author = Filter::new().author(alice.public_key()).kind(Kind::from_u16(1));
    assert_eq!(query(&relay.url(), &by_author).len(), 2);
    relay.stop();
}

#[test]
fn forged_events_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let relay = InProcessRelay::start(dir.path());
    let keys = Keys::generate();
    let good = x_event(&keys, 1, &x_value(3), "signed");
    let forged = Event::new(
        good.id,
        good.pubkey,
        Timestamp::from_secs(good.created_at.as_secs() + 1),
        good.kind,
        good.tags.clone(),
        good.content.clone(),
        good.sig,
    );
    let other = x_event(&keys, 1, &x_value(3), "other");
    let stolen_signature = Event::new(
        other.id,
        other.pubkey,
        other.created_at,
        other.kind,
        other.tags.clone(),
        other.content.clone(),
        good.sig,
    );
    let answers = publish(&relay.url(), &[forged, stolen_signature]);
    assert!(
        matches!(&answers[0], Acceptance::Rejected { message } if message.starts_with("invalid:")),
        "{answers:?}"
    );
    assert!(
        matches!(&answers[1], Acceptance::Rejected { message } if message.contains("signature")),
        "{answers:?}"
    );
    assert!(query(&relay.url(), &discovery(&x_value(3))).is_empty());
    relay.stop();
}

#[test]
fn nip11_document_is_served_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let relay = InProcessRelay::start(dir.path());
    let addr = relay.url().trim_start_matches("ws://").to_owned();
    let mut stream = std::net::TcpStream::connect(&addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(stream, "GET / HTTP/1.1\r\nHost: {addr}\r\nAccept: application/nostr+json\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("Content-Type: application/nostr+json"), "{head}");
    assert!(head.contains("Access-Control-Allow-Origin: *"), "{head}");
    let document: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(document["software"], "priorart");
    assert!(document["supported_nips"].as_array().unwrap().contains(&1.into()));
    assert!(document["limitation"]["max_message_length"].as_u64().unwrap() > 500_000);

    let mut garbage = std::net::TcpStream::connect(&addr).unwrap();
    garbage.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    garbage.write_all(&[b'A'; 20_000]).unwrap();
    let mut refused = String::new();
    let _ = garbage.read_to_string(&mut refused);
    assert!(refused.starts_with("HTTP/1.1 431"), "{refused}");
    relay.stop();
}

#[test]
fn events_stored_after_eose_reach_open_subscriptions() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let dir = tempfile::tempdir().unwrap();
    let relay = InProcessRelay::start(dir.path());
    let relay_url = relay.url();
    let x = x_value(0x77);
    let event = x_event(&Keys::generate(), 1, &x, "arrives live");
    let received = relay.runtime.block_on(async {
        let (mut socket, _) = tokio_tungstenite::connect_async(relay_url.as_str()).await.unwrap();
        let request = serde_json::json!(["REQ", "live", {"#X": [x]}]).to_string();
        socket.send(Message::text(request)).await.unwrap();
        let mut next = async || -> serde_json::Value {
            let frame =
                tokio::time::timeout(Duration::from_secs(5), socket.next()).await.unwrap().unwrap().unwrap();
            serde_json::from_str(frame.to_text().unwrap()).unwrap()
        };
        assert_eq!(next().await, serde_json::json!(["EOSE", "live"]));
        let relays = [url(&relay_url)];
        let published =
            priorart_relay::publish_async(&relays, std::slice::from_ref(&event), Duration::from_secs(5));
        assert!(published.await[0].acceptances[0].has_event());
        next().await
    });
    assert_eq!(received[0], "EVENT");
    assert_eq!(received[1], "live");
    assert_eq!(received[2]["id"], event.id.to_hex());
    relay.stop();
}

#[test]
fn an_event_stored_as_a_subscription_is_answered_is_sent_to_it_once() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let dir = tempfile::tempdir().unwrap();
    let relay = InProcessRelay::start(dir.path());
    let relay_url = relay.url();
    relay.runtime.block_on(async {
        let (mut socket, _) = tokio_tungstenite::connect_async(relay_url.as_str()).await.unwrap();
        // Each round: an EVENT and a REQ for it sent together, so the event
        // is both in the stored answer and queued as live for this session;
        // then a marker event, live only, ends the round.
        for round in 0..20u8 {
            let x = x_value(round);
            let event = x_event(&Keys::generate(), 1, &x, "stored while asked for");
            let marker = x_event(&Keys::generate(), 1, &x, "the round's end");
            let event_json = serde_json::json!(["EVENT", event]).to_string();
            let request = serde_json::json!(["REQ", format!("r{round}"), {"#X": [x]}]).to_string();
            socket.send(Message::text(event_json)).await.unwrap();
            socket.send(Message::text(request)).await.unwrap();
            let mut sent_ids = Vec::new();
            let mut marker_sent = false;
            loop {
                let frame =
                    tokio::time::timeout(Duration::from_secs(5), socket.next()).await.unwrap().unwrap();
                let message: serde_json::Value =
                    serde_json::from_str(frame.unwrap().to_text().unwrap()).unwrap();
                if message[0] == "EOSE" && !marker_sent {
                    marker_sent = true;
                    socket
                        .send(Message::text(serde_json::json!(["EVENT", marker]).to_string()))
                        .await
                        .unwrap();
                }
                if message[0] != "EVENT" {
                    continue;
                }
                let id = message[2]["id"].as_str().unwrap().to_owned();
                if id == marker.id.to_hex() {
                    break;
                }
                sent_ids.push(id);
            }
            assert_eq!(sent_ids, [event.id.to_hex()], "round {round}");
        }
    });
    relay.stop();
}
