//! `priorart serve` against clients that send half a request and hold on,
//! or open more connections than their share: they are closed at the
//! deadline or answered 503 at once, while another address is served.

use crate::serve_common::{ServeProcess, client, get};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A TCP connection to `addr` from the loopback address `source`.
fn connect_from(source: &str, addr: SocketAddr) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let stream = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
        socket.connect(addr).await.unwrap().into_std().unwrap()
    });
    stream.set_nonblocking(false).unwrap();
    stream
}

/// Whether the server has closed `stream` (EOF or reset) within `within`.
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut rest = Vec::new();
    match stream.read_to_end(&mut rest) {
        Ok(_) => true,
        Err(err) => err.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

#[test]
fn half_sent_requests_are_closed_at_the_deadline_and_one_address_gets_its_share() {
    let dir = tempfile::tempdir().unwrap();
    let relay = "ws://127.0.0.1:9"; // never reached: no round runs
    let args = [
        "--request-deadline",
        "1",
        "--max-connections-per-address",
        "40",
        "--interval",
        "3600",
        "--relay",
        relay,
    ];
    let serve = ServeProcess::start(&dir.path().join("state"), &args, None);
    let addr: SocketAddr = serve.url.trim_start_matches("http://").trim_end_matches('/').parse().unwrap();

    // 40 connections that send a request line and one header, then nothing.
    let mut half: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut stream = connect_from("127.0.0.1", addr);
            stream.write_all(b"POST /v1/attestations HTTP/1.1\r\nHost: x\r\n").unwrap();
            stream
        })
        .collect();
    // The 41st from the same address is told at once.
    let mut over = connect_from("127.0.0.1", addr);
    over.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut answer = String::new();
    let _ = over.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503") && answer.contains("Retry-After: 10"), "{answer}");

    // Another address is answered meanwhile.
    let mut other = connect_from("127.0.0.2", addr);
    other.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    other.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut health = String::new();
    let _ = other.read_to_string(&mut health);
    assert!(health.starts_with("HTTP/1.1 200") && health.ends_with("ok\n"), "{health}");

    // Every half-sent request is closed by the deadline (1 s), not held.
    let started = Instant::now();
    for stream in &mut half {
        assert!(closed_within(stream, Duration::from_secs(5)), "still open after {:?}", started.elapsed());
    }
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());

    // Their places are free again: the address is served.
    std::thread::sleep(Duration::from_millis(200));
    let (status, _) = get(&client(), &format!("{}/metrics", serve.url));
    assert_eq!(status, 200);
}
