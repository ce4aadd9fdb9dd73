//! Hostile clients against `priorart relay` on loopback, measured: the
//! command of BENCHMARKS.md's "Hostile clients" section (`cargo run
//! --release -p priorart-relay-server --example hostile_load -- …`).
//!
//! 1. Idle connections from many loopback addresses (`--idle N`, each
//!    address within the per-address cap): the relay's memory per idle
//!    connection, and an honest client's REQ → EOSE round trip from
//!    127.0.0.2 while they are held.
//! 2. One attacker address (127.0.0.1): `--attack N` connections at once
//!    (the cap's worth admitted, the rest answered 503 at once), then
//!    `--reqs N` REQs of 1,000 authors over its admitted connections, then
//!    a 50 MB frame; the honest round trip after each, and the relay's
//!    peak memory (VmHWM).
//!
//! Prints one JSON object. The relay is the `priorart` binary (`PRIORART_BIN`,
//! else `target/release/priorart`), run as a child so that its memory is its own.
//!
//! `cargo run --release -p priorart-relay-server --example hostile_load -- --idle 10000 --max-connections 12000`

use futures_util::{SinkExt, StreamExt};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

type Socket = WebSocketStream<TcpStream>;

struct Options {
    idle: usize,
    attack: usize,
    reqs: usize,
    /// The relay's `--max-connections` (its default holds 8,192).
    max_connections: usize,
}

fn options() -> Options {
    let default = priorart_relay_server::Limits::default().max_connections;
    let mut options = Options { idle: 2_000, attack: 2_000, reqs: 5_000, max_connections: default };
    let mut args = std::env::args().skip(1);
    while let Some(name) = args.next() {
        let value: usize = args.next().and_then(|v| v.parse().ok()).expect("a number after each option");
        match name.as_str() {
            "--idle" => options.idle = value,
            "--attack" => options.attack = value,
            "--reqs" => options.reqs = value,
            "--max-connections" => options.max_connections = value,
            other => panic!("unknown option {other}"),
        }
    }
    options
}

/// `priorart relay` on a free port, with its URL.
fn start_relay(db: &std::path::Path, max_connections: usize) -> (Child, SocketAddr) {
    let bin = std::env::var_os("PRIORART_BIN").map_or_else(|| "target/release/priorart".into(), Into::into);
    let mut child = Command::new::<std::path::PathBuf>(bin)
        .args(["relay", "--listen", "127.0.0.1:0", "--max-connections", &max_connections.to_string(), "--db"])
        .arg(db)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("priorart relay starts (build it: cargo build --release -p priorart-cli)");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = lines.next().expect("a line").expect("readable");
        if let Some(at) = line.find("ws://") {
            let url = line[at + 5..].split_whitespace().next().expect("an address");
            break url.parse().expect("host:port");
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    (child, addr)
}

/// The relay's resident and peak memory, in KiB.
fn memory(child: &Child) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// A WebSocket from `source`, or the HTTP status line of its refusal.
async fn connect_from(source: &str, relay: SocketAddr) -> Result<Socket, String> {
    let socket = TcpSocket::new_v4().map_err(|e| e.to_string())?;
    socket.bind(format!("{source}:0").parse().unwrap()).map_err(|e| e.to_string())?;
    let stream = socket.connect(relay).await.map_err(|e| e.to_string())?;
    // Small buffers: this process holds as many connections as the relay.
    let config = WebSocketConfig::default().read_buffer_size(4096).write_buffer_size(0);
    let request = format!("ws://{relay}");
    match tokio_tungstenite::client_async_with_config(request, stream, Some(config)).await {
        Ok((socket, _)) => Ok(socket),
        Err(err) => Err(err.to_string()),
    }
}

/// Seconds from an honest REQ to its EOSE, from 127.0.0.2.
async fn honest_round_trip(relay: SocketAddr) -> f64 {
    let started = Instant::now();
    let mut socket = connect_from("127.0.0.2", relay).await.expect("the honest client is admitted");
    socket.send(Message::text(r#"["REQ","honest",{"kinds":[1],"limit":10}]"#)).await.unwrap();
    let eose = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(Ok(message)) = socket.next().await {
            if message.to_text().is_ok_and(|text| text.starts_with(r#"["EOSE""#)) {
                return true;
            }
        }
        false
    });
    assert!(eose.await.unwrap_or(false), "no EOSE for the honest client");
    started.elapsed().as_secs_f64()
}

/// `count` connections from addresses 127.0.1.x upward, `per_address` each.
async fn idle_connections(relay: SocketAddr, count: usize, per_address: usize) -> Vec<Socket> {
    let mut held = Vec::with_capacity(count);
    for n in 0..count {
        let address = n / per_address;
        let source = format!("127.0.{}.{}", 1 + address / 250, 1 + address % 250);
        held.push(connect_from(&source, relay).await.expect("within the caps"));
    }
    held
}

#[tokio::main]
async fn main() {
    let options = options();
    let db = tempfile::tempdir().expect("a temporary directory");
    let (mut relay, addr) = start_relay(db.path(), options.max_connections);
    let per_address = priorart_relay_server::Limits::default().max_connections_per_address;
    let base = memory(&relay);
    let honest_alone = honest_round_trip(addr).await;

    let held = idle_connections(addr, options.idle, per_address).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let with_idle = memory(&relay);
    let honest_with_idle = honest_round_trip(addr).await;
    let per_connection_kib = (with_idle.0.saturating_sub(base.0)) as f64 / options.idle.max(1) as f64;
    drop(held);
    tokio::time::sleep(Duration::from_millis(500)).await;

    // One attacker address, all at once.
    let started = Instant::now();
    let attempts = (0..options.attack).map(|_| tokio::spawn(connect_from("127.0.0.1", addr)));
    let mut admitted = Vec::new();
    let mut refused_503 = 0;
    for attempt in attempts {
        match attempt.await.unwrap() {
            Ok(socket) => admitted.push(socket),
            Err(error) if error.contains("503") => refused_503 += 1,
            Err(error) => panic!("neither admitted nor refused with 503: {error}"),
        }
    }
    let attack_answered_s = started.elapsed().as_secs_f64();
    let honest_under_attack = honest_round_trip(addr).await;

    // REQs of 1,000 authors over the admitted connections.
    let authors: Vec<String> =
        (0..1_000).map(|_| priorart_relay::nostr::prelude::Keys::generate().public_key().to_hex()).collect();
    let req = |n: usize| {
        format!(r#"["REQ","s{n}",{{"authors":{},"kinds":[1,30023,1041]}}]"#, serde_json::json!(authors))
    };
    let started = Instant::now();
    let (mut eose, mut closed) = (0, 0);
    let connections = admitted.len();
    for n in 0..options.reqs {
        let socket = &mut admitted[n % connections];
        socket.send(Message::text(req(n))).await.unwrap();
        match tokio::time::timeout(Duration::from_secs(10), socket.next()).await {
            Ok(Some(Ok(message))) if message.to_text().is_ok_and(|t| t.starts_with(r#"["EOSE""#)) => {
                eose += 1
            }
            Ok(Some(Ok(message))) if message.to_text().is_ok_and(|t| t.starts_with(r#"["CLOSED""#)) => {
                closed += 1
            }
            other => panic!("unexpected answer to a REQ: {other:?}"),
        }
    }
    let reqs_s = started.elapsed().as_secs_f64();
    let honest_after_reqs = honest_round_trip(addr).await;

    // A 50 MB frame.
    let huge = Message::text("x".repeat(50 << 20));
    let mut victim = admitted.pop().expect("an admitted connection");
    let _ = victim.send(huge).await;
    let frame_closed = matches!(
        tokio::time::timeout(Duration::from_secs(10), victim.next()).await,
        Ok(None | Some(Err(_)) | Some(Ok(Message::Close(_))))
    );
    let honest_after_frame = honest_round_trip(addr).await;
    let after = memory(&relay);
    let alive = relay.try_wait().expect("status").is_none();
    drop(admitted);
    let _ = relay.kill();

    let report = serde_json::json!({
        "idle_connections": options.idle,
        "relay_rss_kib": {"start": base.0, "with_idle": with_idle.0, "end": after.0, "peak": after.1},
        "idle_connection_kib": (per_connection_kib * 10.0).round() / 10.0,
        "honest_eose_s": {
            "alone": honest_alone,
            "with_idle_connections": honest_with_idle,
            "under_attack": honest_under_attack,
            "after_reqs": honest_after_reqs,
            "after_50mb_frame": honest_after_frame,
        },
        "attack": {
            "connections_tried": options.attack,
            "admitted": options.attack - refused_503,
            "refused_503": refused_503,
            "all_answered_s": attack_answered_s,
            "reqs_sent": options.reqs,
            "reqs_eose": eose,
            "reqs_closed": closed,
            "reqs_s": reqs_s,
            "frame_50mb_closed": frame_closed,
        },
        "relay_alive": alive,
    });
    println!("{report}");
}
