//! priorart's embedded relay: NIP-01 over WebSocket, NIP-11 over HTTP,
//! events kept in an LMDB store (nostr-lmdb: every single-letter tag
//! indexed, so `#X` queries are index lookups; commits are durable before
//! `OK` is sent, and LMDB's copy-on-write pages survive a kill -9 without
//! repair). For offline use and for archivists who keep their own copy of
//! `X`-tagged events; `priorart relay` runs it.
//!
//! The sessions are written here, on nostr's message types, because
//! rust-nostr's relay builder cannot be linked with nostr 0.45.6 (see
//! Cargo.toml); the storage engine is not. [`RelayServer::start`] is async:
//! the server runs on its caller's tokio runtime. The clients (publish,
//! query, the NIP-46 bunker) are `priorart-relay`, which does not link LMDB.

#![forbid(unsafe_code)]

mod http;
mod limits;
mod session;

pub use limits::Limits;
use priorart_admission::Connections;

use nostr::prelude::Event;
use nostr_lmdb::NostrLmdb;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, broadcast};

/// Why the relay could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The store directory cannot be created or opened.
    #[error("store {dir}: {reason}")]
    Store {
        /// The directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}")]
    Listen {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

priorart_reason::reason_names!(ServerError {
    Store => "store",
    Listen => "listen",
});

/// How the relay runs.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Directory of the LMDB store (created if missing).
    pub db: PathBuf,
    /// Address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// Longest client message (an event with its envelope).
    pub max_message_bytes: usize,
    /// Connections at once, per source, and what each may hold.
    pub limits: Limits,
    /// Asked about every event whose id and signature are valid, before it
    /// is stored (`priorart relay --policy`); `None` accepts all.
    pub write_policy: Option<WritePolicy>,
}

/// What a write policy says of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// Store it.
    Accept,
    /// Refuse it: `OK false` with this message (`blocked: …`).
    Reject(String),
    /// Drop it, answering `OK true` as if it were stored.
    ShadowReject,
}

/// A write policy: a function of the event, run on a blocking thread (it
/// may wait on a header source), one event at a time per connection.
#[derive(Clone)]
pub struct WritePolicy(Arc<dyn Fn(&Event) -> Admission + Send + Sync>);

impl WritePolicy {
    /// The policy `admit` implements.
    pub fn new(admit: impl Fn(&Event) -> Admission + Send + Sync + 'static) -> WritePolicy {
        WritePolicy(Arc::new(admit))
    }

    /// What the policy says of `event`.
    pub fn admit(&self, event: &Event) -> Admission {
        (self.0)(event)
    }
}

impl std::fmt::Debug for WritePolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WritePolicy(..)")
    }
}

impl ServerOptions {
    /// Defaults for a store in `db` listening on `listen`.
    pub fn new(db: PathBuf, listen: SocketAddr) -> ServerOptions {
        ServerOptions {
            db,
            listen,
            max_message_bytes: priorart_nip::limits::MAX_RELAY_MESSAGE_BYTES,
            limits: Limits::default(),
            write_policy: None,
        }
    }
}

/// What every session shares.
pub(crate) struct Shared {
    store: NostrLmdb,
    /// Each stored event, to the sessions whose subscriptions may want it.
    live: broadcast::Sender<Arc<Event>>,
    options: ServerOptions,
}

/// A running relay; stops when [`RelayServer::stop`] is called or it is dropped.
pub struct RelayServer {
    addr: SocketAddr,
    stop: Arc<Notify>,
    accept_loop: tokio::task::JoinHandle<()>,
}

impl RelayServer {
    /// Opens the store and starts listening.
    pub async fn start(options: ServerOptions) -> Result<RelayServer, ServerError> {
        let store_error = |reason: String| ServerError::Store { dir: options.db.clone(), reason };
        std::fs::create_dir_all(&options.db).map_err(|err| store_error(err.to_string()))?;
        let store = NostrLmdb::open(&options.db).await.map_err(|err| store_error(err.to_string()))?;
        let listener = TcpListener::bind(options.listen)
            .await
            .map_err(|source| ServerError::Listen { addr: options.listen, source })?;
        let addr =
            listener.local_addr().map_err(|source| ServerError::Listen { addr: options.listen, source })?;
        let (live, _) = broadcast::channel(1024);
        let connections = Connections::new(options.limits.caps());
        let shared = Arc::new(Shared { store, live, options });
        let stop = Arc::new(Notify::new());
        let accept_loop = tokio::spawn(accept(listener, shared, connections, stop.clone()));
        Ok(RelayServer { addr, stop, accept_loop })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `ws://ADDR`.
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }

    /// Stops accepting connections and waits for the listener to close.
    pub async fn stop(mut self) {
        self.stop.notify_one();
        let _ = (&mut self.accept_loop).await;
    }
}

impl Drop for RelayServer {
    fn drop(&mut self) {
        self.accept_loop.abort();
    }
}

/// Takes every connection at once, so that none waits unanswered in the
/// listen backlog: an admitted one is served, one over a limit is told so
/// (HTTP 503 with `Retry-After`) and closed.
async fn accept(
    listener: TcpListener,
    shared: Arc<Shared>,
    connections: Arc<Connections>,
    stop: Arc<Notify>,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.notified() => return,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            // The peer left, or the process is out of descriptors: that
            // connection is lost; wait a moment rather than spin.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        match connections.admit(peer.ip()) {
            Ok(ticket) => {
                let shared = shared.clone();
                tokio::spawn(async move {
                    serve(stream, shared).await;
                    drop(ticket);
                });
            }
            Err(full) => {
                tokio::spawn(http::answer_full(stream, full));
            }
        }
    }
}

/// One connection: the HTTP request first, then a WebSocket session or a
/// plain answer (the NIP-11 document, a hint).
async fn serve(mut stream: TcpStream, shared: Arc<Shared>) {
    let _ = stream.set_nodelay(true);
    match http::read_request(&mut stream).await {
        Ok(http::Request::WebSocket { accept_key, rest }) => {
            if http::switch_protocols(&mut stream, &accept_key).await.is_ok() {
                session::run(stream, rest, shared).await;
            }
        }
        Ok(http::Request::Plain { wants_relay_info, preflight }) => {
            let _ = http::answer_plain(&mut stream, wants_relay_info, preflight, &shared.options).await;
        }
        Err(problem) => {
            let _ = http::answer_error(&mut stream, problem).await;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn server_errors_name_each_kind_once_in_snake_case() {
        priorart_reason::check_names(super::ServerError::REASONS).unwrap();
    }
}
