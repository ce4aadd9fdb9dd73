//! Hostile clients on loopback: one address holding its connections, idle
//! sockets, and filters that name too much cannot lock the relay for an
//! honest client, which comes from another source address (127.0.0.2).

use super::InProcessRelay;
use priorart_relay::nostr::prelude::{Filter, Keys};
use priorart_relay_server::{Limits, ServerOptions};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{Message, WebSocket, client};

fn relay_with(dir: &std::path::Path, limits: Limits) -> InProcessRelay {
    let mut options = ServerOptions::new(dir.to_owned(), "127.0.0.1:0".parse().unwrap());
    options.limits = limits;
    InProcessRelay::start_with(options)
}

/// A TCP connection to `relay` from `source` (a loopback address).
fn tcp_from(relay: &InProcessRelay, source: &str) -> TcpStream {
    let addr = relay.addr();
    let stream = relay.runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
        socket.connect(addr).await.unwrap()
    });
    let stream = stream.into_std().unwrap();
    stream.set_nonblocking(false).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream
}

/// A WebSocket session with `relay` from `source`.
fn websocket_from(relay: &InProcessRelay, source: &str) -> WebSocket<TcpStream> {
    let (socket, _) = client(relay.url(), tcp_from(relay, source)).expect("handshake");
    socket
}

/// The next text message, skipping control frames.
fn next_text(socket: &mut WebSocket<TcpStream>) -> Option<serde_json::Value> {
    loop {
        match socket.read() {
            Ok(Message::Text(text)) => return Some(serde_json::from_str(text.as_str()).unwrap()),
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

fn req(socket: &mut WebSocket<TcpStream>, id: &str, filter: &Filter) {
    socket
        .send(Message::text(format!(r#"["REQ","{id}",{}]"#, serde_json::to_string(filter).unwrap())))
        .unwrap();
}

#[test]
fn one_address_holding_its_connections_cannot_keep_another_out() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { max_connections_per_address: 8, ..Limits::default() };
    let relay = relay_with(dir.path(), limits);
    let held: Vec<_> = (0..8).map(|_| websocket_from(&relay, "127.0.0.1")).collect();

    // The ninth from the same address is told at once, not left waiting.
    let started = Instant::now();
    let mut refused = tcp_from(&relay, "127.0.0.1");
    write!(refused, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    let _ = refused.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("Retry-After: 10") && answer.contains("too many connections from your address"));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());

    // Another address gets its answer while they are held.
    let started = Instant::now();
    let mut honest = websocket_from(&relay, "127.0.0.2");
    req(&mut honest, "s", &Filter::new().limit(1));
    assert_eq!(next_text(&mut honest).unwrap()[0], "EOSE");
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());

    // A place freed is taken again.
    drop(held);
    std::thread::sleep(Duration::from_millis(200));
    let mut again = websocket_from(&relay, "127.0.0.1");
    req(&mut again, "s", &Filter::new().limit(1));
    assert_eq!(next_text(&mut again).unwrap()[0], "EOSE");
    relay.stop();
}

#[test]
fn idle_connections_are_closed_and_subscribers_are_kept_while_they_answer_pings() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { idle_timeout: Duration::from_secs(1), ..Limits::default() };
    let relay = relay_with(dir.path(), limits);
    let mut silent = websocket_from(&relay, "127.0.0.1");
    let mut subscriber = websocket_from(&relay, "127.0.0.1");
    req(&mut subscriber, "live", &Filter::new().limit(0));
    assert_eq!(next_text(&mut subscriber).unwrap()[0], "EOSE");

    let started = Instant::now();
    let notice = next_text(&mut silent).expect("a notice before the close");
    assert_eq!(notice[0], "NOTICE");
    assert!(notice[1].as_str().unwrap().starts_with("error: closing"), "{notice}");
    assert!(next_text(&mut silent).is_none());
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());

    // Reading answers the relay's pings (tungstenite pongs on read): three
    // idle periods later the subscription is still open.
    let kept_until = Instant::now() + Duration::from_millis(3_500);
    let mut pings = 0;
    while let Some(left) = kept_until.checked_duration_since(Instant::now()) {
        subscriber.get_mut().set_read_timeout(Some(left.max(Duration::from_millis(1)))).unwrap();
        match subscriber.read() {
            Ok(Message::Ping(_)) => pings += 1,
            Err(tokio_tungstenite::tungstenite::Error::Io(err))
                if matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            other => panic!("the subscriber was not kept: {other:?}"),
        }
    }
    assert!(pings >= 2, "{pings} pings");

    // A client that never reads cannot answer a ping: it is closed.
    let mut deaf = tcp_from(&relay, "127.0.0.3");
    let (mut socket, _) = client(relay.url(), deaf.try_clone().unwrap()).expect("handshake");
    req(&mut socket, "deaf", &Filter::new().limit(0));
    std::thread::sleep(Duration::from_millis(3_000));
    let mut rest = Vec::new();
    deaf.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
    let _ = deaf.read_to_end(&mut rest);
    let text = String::from_utf8_lossy(&rest);
    assert!(text.contains("did not answer a ping"), "{text}");
    relay.stop();
}

#[test]
fn filters_that_name_too_much_are_closed_with_the_limit_named() {
    let dir = tempfile::tempdir().unwrap();
    let relay = relay_with(dir.path(), Limits::default());
    let authors: Vec<_> = (0..1_001).map(|_| Keys::generate().public_key()).collect();
    let mut socket = websocket_from(&relay, "127.0.0.1");

    req(&mut socket, "big", &Filter::new().authors(authors.iter().copied()));
    let closed = next_text(&mut socket).unwrap();
    assert_eq!((closed[0].as_str(), closed[1].as_str()), (Some("CLOSED"), Some("big")));
    assert!(
        closed[2].as_str().unwrap().starts_with("invalid: a filter names at most 1000 values"),
        "{closed}"
    );

    // Ten subscriptions of 1,000 values fill what one connection may hold.
    for i in 0..10 {
        req(&mut socket, &format!("s{i}"), &Filter::new().authors(authors[..1_000].iter().copied()).limit(0));
        assert_eq!(next_text(&mut socket).unwrap()[0], "EOSE");
    }
    req(&mut socket, "s10", &Filter::new().authors(authors[..1].iter().copied()).limit(0));
    let closed = next_text(&mut socket).unwrap();
    assert!(
        closed[2].as_str().unwrap().starts_with("rate-limited: this connection's subscriptions"),
        "{closed}"
    );
    // Replacing an open subscription frees what it held.
    req(&mut socket, "s0", &Filter::new().authors(authors[..1].iter().copied()).limit(0));
    assert_eq!(next_text(&mut socket).unwrap()[0], "EOSE");

    let document = relay.information();
    let limitation = &document["limitation"];
    assert_eq!(limitation["max_filter_values"], 1_000);
    assert_eq!(limitation["max_subscriptions"], 32);
    assert_eq!(limitation["max_connections_per_address"], 32);
    relay.stop();
}
