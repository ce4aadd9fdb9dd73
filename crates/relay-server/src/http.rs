//! The HTTP side of the relay: one request per connection, read under a
//! size and time limit with httparse, then either the WebSocket upgrade
//! (RFC 6455 handshake; the key derivation is tungstenite's) or a plain
//! answer: the NIP-11 document when asked for `application/nostr+json`.
//! Two fixed answers do not need an HTTP server stack.

use super::ServerOptions;
use super::limits::{Full, MAX_SUBSCRIPTION_ID_CHARS, RETRY_AFTER};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;

/// Longest request head (request line and headers).
const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Time a client gets to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Most headers in a request.
const MAX_HEADERS: usize = 64;

/// What the client asked for.
pub(super) enum Request {
    /// A WebSocket upgrade; `rest` is what the client sent after the head.
    WebSocket { accept_key: String, rest: Vec<u8> },
    /// Anything else over HTTP.
    Plain { wants_relay_info: bool, preflight: bool },
}

/// Why a request was refused.
#[derive(Debug)]
pub(super) enum Problem {
    TooLarge,
    Malformed,
    TimedOut,
    Closed,
}

pub(super) async fn read_request(stream: &mut TcpStream) -> Result<Request, Problem> {
    let mut buffer = Vec::with_capacity(1024);
    let head_len = match tokio::time::timeout(HEAD_TIMEOUT, read_head(stream, &mut buffer)).await {
        Err(_) => return Err(Problem::TimedOut),
        Ok(result) => result?,
    };
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut headers);
    match request.parse(&buffer[..head_len]) {
        Ok(httparse::Status::Complete(_)) => {}
        _ => return Err(Problem::Malformed),
    }
    let header = |name: &str| {
        request
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .and_then(|h| std::str::from_utf8(h.value).ok())
    };
    let has_token = |name: &str, token: &str| {
        header(name).is_some_and(|value| value.split(',').any(|part| part.trim().eq_ignore_ascii_case(token)))
    };
    let upgrade = has_token("upgrade", "websocket") && has_token("connection", "upgrade");
    if upgrade && request.method == Some("GET") {
        let key = header("sec-websocket-key").ok_or(Problem::Malformed)?;
        if header("sec-websocket-version") != Some("13") {
            return Err(Problem::Malformed);
        }
        let accept_key = derive_accept_key(key.trim().as_bytes());
        return Ok(Request::WebSocket { accept_key, rest: buffer[head_len..].to_vec() });
    }
    let wants_relay_info = header("accept").is_some_and(|accept| accept.contains("application/nostr+json"));
    Ok(Request::Plain { wants_relay_info, preflight: request.method == Some("OPTIONS") })
}

/// Reads until the blank line ending the head; returns the head's length.
async fn read_head(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Result<usize, Problem> {
    let mut chunk = [0u8; 2048];
    loop {
        let read = stream.read(&mut chunk).await.map_err(|_| Problem::Closed)?;
        if read == 0 {
            return Err(Problem::Closed);
        }
        let searched_from = buffer.len().saturating_sub(3);
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(at) = buffer[searched_from..].windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(searched_from + at + 4);
        }
        if buffer.len() > MAX_HEAD_BYTES {
            return Err(Problem::TooLarge);
        }
    }
}

pub(super) async fn switch_protocols(stream: &mut TcpStream, accept_key: &str) -> std::io::Result<()> {
    let response = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept_key}\r\n\r\n"
    );
    stream.write_all(response.as_bytes()).await
}

/// NIP-11: what this relay is and its limits, for clients deciding what to send.
pub(super) fn relay_information(options: &ServerOptions) -> serde_json::Value {
    serde_json::json!({
        "name": "priorart relay",
        "description": "A persistent NIP-01 relay embedded in priorart: keeps events (NIP-FF-3 X-tagged content, \
                        kind 1041 proofs) so that `priorart check` can find who published a text first.",
        "software": "priorart",
        "version": env!("CARGO_PKG_VERSION"),
        "supported_nips": [1, 11, 45],
        "limitation": {
            "max_message_length": options.max_message_bytes,
            "max_subscriptions": options.limits.max_subscriptions,
            "max_filters": options.limits.max_filters,
            "max_limit": options.limits.max_limit,
            "max_subid_length": MAX_SUBSCRIPTION_ID_CHARS,
            // Not (yet) NIP-11 names: what else a client is held to here.
            "max_filter_values": options.limits.max_filter_values,
            "max_connections_per_address": options.limits.max_connections_per_address,
            "idle_timeout_seconds": options.limits.idle_timeout.as_secs(),
            "auth_required": false,
            "payment_required": false,
            "restricted_writes": false,
        },
    })
}

pub(super) async fn answer_plain(
    stream: &mut TcpStream,
    wants_relay_info: bool,
    preflight: bool,
    options: &ServerOptions,
) -> std::io::Result<()> {
    const CORS: &str = "Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Headers: *\r\nAccess-Control-Allow-Methods: GET, OPTIONS\r\n";
    let (status, content_type, body) = if preflight {
        ("204 No Content", "text/plain", String::new())
    } else if wants_relay_info {
        ("200 OK", "application/nostr+json", relay_information(options).to_string())
    } else {
        (
            "200 OK",
            "text/plain; charset=utf-8",
            "priorart relay: connect with a nostr client (WebSocket).\n".into(),
        )
    };
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{CORS}Connection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// The answer to a connection over a limit, at once: 503 with
/// `Retry-After`, under a short deadline (a client that does not read
/// cannot hold the task).
pub(super) async fn answer_full(mut stream: TcpStream, full: Full) {
    let body = full.message();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: {}\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        RETRY_AFTER.as_secs(),
        body.len()
    );
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), write).await;
}

pub(super) async fn answer_error(stream: &mut TcpStream, problem: Problem) -> std::io::Result<()> {
    let status = match problem {
        Problem::TooLarge => "431 Request Header Fields Too Large",
        Problem::Malformed => "400 Bad Request",
        Problem::TimedOut => "408 Request Timeout",
        Problem::Closed => return Ok(()),
    };
    let response = format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}
