//! One WebSocket connection to a relay: the URL check, TLS on rustls with
//! the Mozilla roots, and a cap on message size set before any byte is read.

use nostr::prelude::RelayUrl;
pub(crate) use priorart_reason::error_chain;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{Connector, MaybeTlsStream, WebSocketStream};

/// A WebSocket to a relay.
pub(crate) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Why a relay could not be reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// Not a `ws://` or `wss://` URL.
    #[error("{url}: not a relay URL (ws:// or wss://): {reason}")]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No WebSocket within the time limit.
    #[error("no connection within {0:?}")]
    Timeout(Duration),
    /// DNS, TCP, TLS or the WebSocket handshake failed.
    #[error("cannot connect")]
    Failed(
        /// The WebSocket layer's error (tungstenite's, boxed: its type is
        /// not part of this crate's API).
        #[source]
        Box<dyn std::error::Error + Send + Sync>,
    ),
}

reason_names!(ConnectError {
    BadUrl => "bad_url",
    Timeout => "timeout",
    Failed => "failed",
});

/// Parses a relay URL: `ws://` or `wss://`, nothing else.
pub fn parse_relay_url(url: &str) -> Result<RelayUrl, ConnectError> {
    RelayUrl::parse(url).map_err(|err| ConnectError::BadUrl { url: url.to_owned(), reason: err.to_string() })
}

/// Opens a WebSocket to `url` within `timeout`; messages longer than
/// `max_message_bytes` will end it (tungstenite refuses to buffer them).
pub(crate) async fn connect(
    url: &RelayUrl,
    timeout: Duration,
    max_message_bytes: usize,
) -> Result<Socket, ConnectError> {
    let config = WebSocketConfig::default()
        .max_message_size(Some(max_message_bytes))
        .max_frame_size(Some(max_message_bytes));
    let connector = Connector::Rustls(tls_config());
    let handshake =
        tokio_tungstenite::connect_async_tls_with_config(url.as_str(), Some(config), true, Some(connector));
    match tokio::time::timeout(timeout, handshake).await {
        Err(_) => Err(ConnectError::Timeout(timeout)),
        Ok(Err(err)) => Err(ConnectError::Failed(err.into())),
        Ok(Ok((socket, _response))) => Ok(socket),
    }
}

/// One TLS configuration for every connection: ring for the cryptography
/// (the provider the rest of the workspace already links through ureq) and
/// the webpki (Mozilla) roots, so no system certificate store is needed.
fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("ring supports rustls' default protocol versions")
                .with_root_certificates(roots)
                .with_no_client_auth();
            Arc::new(config)
        })
        .clone()
}

/// At most `max` characters of `text`, for quoting what a relay said.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connect_failure_keeps_its_cause_and_the_report_line_says_it_once() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let error = ConnectError::Failed(tokio_tungstenite::tungstenite::Error::Io(refused).into());
        assert_eq!(error.to_string(), "cannot connect");
        let cause = std::error::Error::source(&error).expect("the cause is kept");
        assert_eq!(cause.to_string(), "IO error: connection refused");
        assert_eq!(error_chain(&error), "cannot connect: IO error: connection refused");
    }
}
