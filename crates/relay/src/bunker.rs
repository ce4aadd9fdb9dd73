//! A NIP-46 remote signer ("bunker") client: the author's key stays in the
//! bunker, priorart sends it the events to sign over relays.
//!
//! The protocol types are rust-nostr's `nostr::nips::nip46` (URI, request,
//! response, kind 24133 event builder) and NIP-44 v2; the transport is this
//! crate's relay connection; reading the `bunker://` URI and checking the
//! signed event are `priorart_nip::nip46`'s, which need no network.
//! rust-nostr's own client, `nostr-connect`, is not
//! used: it depends on `nostr-sdk`, and no non-yanked 0.45 `nostr-sdk`
//! builds against the workspace's `nostr` 0.45.6 (see Cargo.toml).
//!
//! # The bunker is untrusted
//!
//! Every answer is checked: the response event must be signed by the
//! remote signer, p-tag this client and decrypt with NIP-44; a signed
//! event must be exactly the one asked for (pubkey, kind, tags, content,
//! `created_at`) with a valid id and signature. Every wait is bounded by
//! [`BunkerOptions::timeout`], and each failure is a named [`BunkerError`].
//!
//! # Encryption
//!
//! NIP-46 specifies NIP-44 for requests and responses and no longer
//! mentions NIP-04 (the old text used it); nothing in it lets a client fall
//! back. Requests are NIP-44 encrypted; a NIP-04 response is refused with
//! [`BunkerError::Nip04Response`], which tells the user their signer is
//! out of date rather than timing out.
//!
//! # Client keypair
//!
//! The client keypair only authenticates this client to the bunker. The
//! caller chooses: [`Bunker::connect`] sends `connect` with the URI's
//! secret (a fresh keypair per run is the default of the CLI: nothing to
//! keep or leak), [`Bunker::resume`] skips it for a keypair the bunker has
//! already accepted (bunkers honour a secret once, so a kept keypair is how
//! a one-time secret is used by more than one run).

use crate::connection::{self, ConnectError, Socket};
use futures_util::{SinkExt, StreamExt};
use nostr::nips::nip44;
use nostr::nips::nip46::{
    NostrConnectEventBuilder, NostrConnectMessage, NostrConnectMethod, NostrConnectRequest, ResponseResult,
};
use nostr::prelude::{
    ClientMessage, Event, EventId, Filter, FinalizeEvent, Keys, Kind, PublicKey, RelayMessage, RelayUrl,
    SubscriptionId, UnsignedEvent,
};
use priorart_nip::nip46::{BunkerUri, BunkerUriError, SignRequest, SignedEventError, check_signed_event};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{broadcast, mpsc};
use tokio_tungstenite::tungstenite::Message;

/// Longest relay message read: a signed event echoes the request's content
/// (at most [`MAX_REQUEST_BYTES`]), NIP-44 and base64 add about half.
const MAX_MESSAGE_BYTES: usize = 256 * 1024;
/// Longest request JSON: NIP-44 v2 encrypts at most 65,535 bytes (rust-nostr
/// also writes an extended format past that, which other signers cannot
/// read, so larger requests are refused before they are sent).
pub const MAX_REQUEST_BYTES: usize = 65_535;
/// The subscription for the bunker's answers.
const SUBSCRIPTION: &str = "priorart-nip46";
/// Characters of a signer's message kept in an error.
const MESSAGE_CHARS: usize = 300;

/// The cause of a failure in a foreign library (rust-nostr, the WebSocket
/// layer), kept whole as the error's source.
pub(crate) type Cause = Box<dyn std::error::Error + Send + Sync>;

/// Why the bunker did not sign.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BunkerError {
    /// The `bunker://` URI cannot be used.
    #[error(transparent)]
    Uri(#[from] BunkerUriError),
    /// No relay of the URI could be reached.
    #[error("no relay of the bunker could be reached: {}", describe_unreachable(.0))]
    Unreachable(Vec<(RelayUrl, SubscribeError)>),
    /// Every relay dropped the connection while waiting.
    #[error("every relay of the bunker closed the connection while waiting for `{method}`")]
    Disconnected {
        /// The request waited for.
        method: NostrConnectMethod,
    },
    /// Every relay refused to carry the request (`OK false`).
    #[error("the relays refused the `{method}` request: {message}")]
    RelaysRefused {
        /// The request.
        method: NostrConnectMethod,
        /// The last relay's reason.
        message: String,
    },
    /// No answer within the time limit.
    #[error("the bunker did not answer `{method}` within {}s", .after.as_secs_f64())]
    Timeout {
        /// The request.
        method: NostrConnectMethod,
        /// The limit.
        after: Duration,
    },
    /// The bunker asked the user to authorize at a URL, and no answer came
    /// before the time limit.
    #[error("the bunker asks you to authorize this request at {url}; no answer came within {}s", .after.as_secs_f64())]
    AuthNotCompleted {
        /// The URL the bunker sent.
        url: String,
        /// The limit.
        after: Duration,
    },
    /// The bunker answered with an error.
    #[error("the bunker refused `{method}`: {message}")]
    Rejected {
        /// The request.
        method: NostrConnectMethod,
        /// The signer's message.
        message: String,
    },
    /// The bunker answered with NIP-04 encryption, which NIP-46 replaced by NIP-44.
    #[error(
        "the bunker answered `{method}` with NIP-04 encryption; NIP-46 uses NIP-44 now (update the signer)"
    )]
    Nip04Response {
        /// The request.
        method: NostrConnectMethod,
    },
    /// An answer that does not decrypt or parse, or that is not what the method returns.
    #[error("the bunker's answer to `{method}` is not valid: {reason}")]
    BadResponse {
        /// The request.
        method: NostrConnectMethod,
        /// What is wrong with it.
        reason: String,
        /// rust-nostr's error, when it found the problem.
        #[source]
        cause: Option<Cause>,
    },
    /// `connect` answered with a secret other than the URI's.
    #[error("the bunker's `connect` answer carries a secret other than the URI's")]
    WrongSecret,
    /// The event to sign is not for the bunker's user.
    #[error("the event to sign has pubkey {asked}, but the bunker signs for {user}")]
    NotTheUser {
        /// The event's pubkey.
        asked: PublicKey,
        /// The bunker's user.
        user: PublicKey,
    },
    /// The event the bunker returned is not the one asked for, validly signed.
    #[error("the bunker's signed event is refused")]
    SignedEvent(#[source] SignedEventError),
    /// The request is too large for NIP-44.
    #[error(
        "the request is {0} bytes; NIP-44 encrypts at most {MAX_REQUEST_BYTES}, so a bunker cannot sign an event this large"
    )]
    RequestTooLarge(usize),
    /// The request could not be built or encrypted.
    #[error("cannot build the request")]
    Request(#[source] Cause),
    /// No tokio runtime.
    #[error("cannot start the network runtime")]
    Runtime(#[source] std::io::Error),
}

/// Why one relay of the bunker could not carry its answers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubscribeError {
    /// No WebSocket.
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// The connection failed while subscribing.
    #[error("the connection failed")]
    Transport(#[source] Cause),
    /// The relay closed the connection before confirming the subscription.
    #[error("the relay closed the connection")]
    Closed,
    /// The relay refused the subscription (`CLOSED`).
    #[error("the relay refused the subscription: {0}")]
    Refused(String),
    /// No `EOSE` for the subscription in time.
    #[error("no EOSE for the subscription within the time limit")]
    NoEose,
}

fn describe_unreachable(relays: &[(RelayUrl, SubscribeError)]) -> String {
    relays
        .iter()
        .map(|(relay, why)| format!("{relay}: {}", connection::error_chain(why)))
        .collect::<Vec<_>>()
        .join("; ")
}

reason_names!(BunkerError {
    Uri => "uri",
    Unreachable => "unreachable",
    Disconnected => "disconnected",
    RelaysRefused => "relays_refused",
    Timeout => "timeout",
    AuthNotCompleted => "auth_not_completed",
    Rejected => "rejected",
    Nip04Response => "nip04_response",
    BadResponse => "bad_response",
    WrongSecret => "wrong_secret",
    NotTheUser => "not_the_user",
    SignedEvent => "signed_event",
    RequestTooLarge => "request_too_large",
    Request => "request",
    Runtime => "runtime",
});

reason_names!(SubscribeError {
    Connect => "connect",
    Transport => "transport",
    Closed => "closed",
    Refused => "refused",
    NoEose => "no_eose",
});

/// How long to wait, and whom to tell about authorization URLs.
#[derive(Clone)]
pub struct BunkerOptions {
    /// Each wait: connecting to the relays, then each request's answer.
    pub timeout: Duration,
    /// Called with the URL of an auth challenge (the user must open it);
    /// the request then waits for its answer until the time limit.
    pub on_auth_url: Arc<dyn Fn(&str) + Send + Sync>,
}

impl BunkerOptions {
    /// `timeout`, auth URLs ignored (the error still names the last one).
    pub fn new(timeout: Duration) -> BunkerOptions {
        BunkerOptions { timeout, on_auth_url: Arc::new(|_| {}) }
    }
}

/// A connection to a remote signer, ready to sign for its user.
pub struct Bunker {
    runtime: tokio::runtime::Runtime,
    client: Keys,
    remote_signer: PublicKey,
    user: PublicKey,
    options: BunkerOptions,
    relay_count: usize,
    /// Relays whose connection ended (counted across requests).
    closed: AtomicUsize,
    outgoing: broadcast::Sender<Arc<String>>,
    incoming: Mutex<mpsc::Receiver<Incoming>>,
}

impl std::fmt::Debug for Bunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bunker")
            .field("remote_signer", &self.remote_signer)
            .field("user", &self.user)
            .field("client", &self.client.public_key())
            .finish_non_exhaustive()
    }
}

impl Bunker {
    /// Connects to the bunker of `uri` with the `client` keypair: `connect`
    /// (with the URI's secret), then `get_public_key`.
    pub fn connect(uri: &str, client: Keys, options: BunkerOptions) -> Result<Bunker, BunkerError> {
        Bunker::open(uri, client, options, true)
    }

    /// As [`Bunker::connect`], for a `client` keypair the bunker accepted
    /// before: no `connect` (its secret is spent), only `get_public_key`.
    pub fn resume(uri: &str, client: Keys, options: BunkerOptions) -> Result<Bunker, BunkerError> {
        Bunker::open(uri, client, options, false)
    }

    fn open(
        uri: &str,
        client: Keys,
        options: BunkerOptions,
        send_connect: bool,
    ) -> Result<Bunker, BunkerError> {
        let uri = BunkerUri::parse(uri)?;
        let remote_signer = uri.remote_signer;
        let runtime = crate::runtime().map_err(BunkerError::Runtime)?;
        let (outgoing, _) = broadcast::channel(16);
        let (incoming_sender, incoming) = mpsc::channel(64);
        let route = Route { client: client.public_key(), remote_signer };
        let connected =
            runtime.block_on(connect_relays(&uri.relays, route, &outgoing, incoming_sender, options.timeout));
        let relay_count = connected?;
        let mut bunker = Bunker {
            runtime,
            client,
            remote_signer,
            user: remote_signer,
            options,
            relay_count,
            closed: AtomicUsize::new(0),
            outgoing,
            incoming: Mutex::new(incoming),
        };
        if send_connect {
            let request = NostrConnectRequest::Connect {
                remote_signer_public_key: remote_signer,
                secret: uri.secret().map(str::to_owned),
            };
            match bunker.call(&request)? {
                ResponseResult::Ack => {}
                ResponseResult::ConnectSecret(echo) if Some(echo.as_str()) == uri.secret() => {}
                ResponseResult::ConnectSecret(_) => return Err(BunkerError::WrongSecret),
                other => return Err(unexpected(NostrConnectMethod::Connect, &other)),
            }
        }
        bunker.user = match bunker.call(&NostrConnectRequest::GetPublicKey)? {
            ResponseResult::GetPublicKey(user) => user,
            other => return Err(unexpected(NostrConnectMethod::GetPublicKey, &other)),
        };
        Ok(bunker)
    }

    /// The user's public key: the key the bunker signs with (`get_public_key`).
    pub fn public_key(&self) -> PublicKey {
        self.user
    }

    /// The remote signer's own key (from the URI; it may differ from the user's).
    pub fn remote_signer(&self) -> PublicKey {
        self.remote_signer
    }

    /// The client keypair this connection uses.
    pub fn client_keys(&self) -> &Keys {
        &self.client
    }

    /// Has the bunker sign `unsigned` (whose pubkey must be the user's) and
    /// checks that the answer is that event, with a valid id and signature
    /// (`priorart_nip::nip46::check_signed_event`).
    pub fn sign_event(&self, unsigned: UnsignedEvent) -> Result<Event, BunkerError> {
        if unsigned.pubkey != self.user {
            return Err(BunkerError::NotTheUser { asked: unsigned.pubkey, user: self.user });
        }
        let asked = SignRequest::from(&unsigned);
        let signed_json = self.call_raw(&NostrConnectRequest::SignEvent(unsigned))?;
        check_signed_event(&asked, &signed_json).map_err(BunkerError::SignedEvent)
    }

    /// Sends one request and reads its answer as the method's result.
    fn call(&self, request: &NostrConnectRequest) -> Result<ResponseResult, BunkerError> {
        let method = request.method();
        let result = self.call_raw(request)?;
        ResponseResult::parse(method, result)
            .map_err(|err| bad(method, "it is not what the method returns", Some(err.into())))
    }

    /// Sends one request and waits for its answer's `result` text.
    fn call_raw(&self, request: &NostrConnectRequest) -> Result<String, BunkerError> {
        let method = request.method();
        let message = NostrConnectMessage::request(request);
        let json_bytes = message.as_json().len();
        if json_bytes > MAX_REQUEST_BYTES {
            return Err(BunkerError::RequestTooLarge(json_bytes));
        }
        let event = NostrConnectEventBuilder::new(self.remote_signer, message.clone())
            .finalize(&self.client)
            .map_err(|err| BunkerError::Request(err.into()))?;
        let mut incoming = self.incoming.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Answers to earlier requests that came late are dropped unread.
        while let Ok(stale) = incoming.try_recv() {
            if matches!(stale, Incoming::Closed) {
                self.closed.fetch_add(1, Ordering::Relaxed);
            }
        }
        if self.closed.load(Ordering::Relaxed) >= self.relay_count {
            return Err(BunkerError::Disconnected { method });
        }
        let frame = Arc::new(ClientMessage::event(event.clone()).as_json());
        let _ = self.outgoing.send(frame);
        self.runtime.block_on(self.answer(&mut incoming, method, message.id(), event.id))
    }

    async fn answer(
        &self,
        incoming: &mut mpsc::Receiver<Incoming>,
        method: NostrConnectMethod,
        id: &str,
        request_event: EventId,
    ) -> Result<String, BunkerError> {
        let after = self.options.timeout;
        let deadline = tokio::time::Instant::now() + after;
        let mut refusals = 0;
        let mut auth_url: Option<String> = None;
        loop {
            let next = match tokio::time::timeout_at(deadline, incoming.recv()).await {
                Err(_) => {
                    return Err(match auth_url {
                        Some(url) => BunkerError::AuthNotCompleted { url, after },
                        None => BunkerError::Timeout { method, after },
                    });
                }
                Ok(None) => return Err(BunkerError::Disconnected { method }),
                Ok(Some(next)) => next,
            };
            let event = match next {
                Incoming::Event(event) => event,
                Incoming::Refused { event_id, message } if event_id == request_event => {
                    refusals += 1;
                    if refusals + self.closed.load(Ordering::Relaxed) >= self.relay_count {
                        return Err(BunkerError::RelaysRefused { method, message });
                    }
                    continue;
                }
                Incoming::Refused { .. } => continue,
                Incoming::Closed => {
                    if self.closed.fetch_add(1, Ordering::Relaxed) + 1 >= self.relay_count {
                        return Err(BunkerError::Disconnected { method });
                    }
                    continue;
                }
            };
            let Some(response) = self.open_response(&event, method)? else { continue };
            let NostrConnectMessage::Response { id: answer_id, result, error } = response else { continue };
            if answer_id != id {
                continue;
            }
            if result.as_deref() == Some("auth_url") {
                let url = error.map(|url| excerpt(&url)).unwrap_or_default();
                (self.options.on_auth_url)(&url);
                auth_url = Some(url);
                continue;
            }
            if let Some(message) = error.filter(|message| !message.is_empty()) {
                return Err(BunkerError::Rejected { method, message: excerpt(&message) });
            }
            return result.ok_or_else(|| bad(method, "it has neither a result nor an error", None));
        }
    }

    /// Decrypts a response event of the remote signer (already checked to be
    /// its, signed, and for this client).
    fn open_response(
        &self,
        event: &Event,
        method: NostrConnectMethod,
    ) -> Result<Option<NostrConnectMessage>, BunkerError> {
        let plaintext = match nip44::decrypt(self.client.secret_key(), &self.remote_signer, &event.content) {
            Ok(plaintext) => plaintext,
            Err(_) if event.content.contains("?iv=") => return Err(BunkerError::Nip04Response { method }),
            Err(err) => return Err(bad(method, "it does not decrypt with NIP-44", Some(err.into()))),
        };
        match NostrConnectMessage::from_json(&plaintext) {
            Ok(message) => Ok(Some(message)),
            // Not JSON-RPC at all: not an answer, and no request of ours.
            Err(err) => Err(bad(method, "not a NIP-46 message", Some(err.into()))),
        }
    }
}

fn unexpected(method: NostrConnectMethod, result: &ResponseResult) -> BunkerError {
    let what = match result {
        ResponseResult::Error => "\"error\" with no message".to_owned(),
        ResponseResult::AuthUrl => "an auth_url".to_owned(),
        // Never quote a secret echo.
        ResponseResult::ConnectSecret(_) => "a secret".to_owned(),
        other => format!("{other:?}"),
    };
    bad(method, &format!("unexpected result: {what}"), None)
}

fn bad(method: NostrConnectMethod, reason: &str, cause: Option<Cause>) -> BunkerError {
    BunkerError::BadResponse { method, reason: reason.to_owned(), cause }
}

/// What a signer or relay said, cut short and with control characters
/// (terminal escape sequences) replaced: it ends up on the user's terminal.
fn excerpt(text: &str) -> String {
    let printable: String = text.chars().map(|c| if c.is_control() { '\u{fffd}' } else { c }).collect();
    connection::excerpt(&printable, MESSAGE_CHARS)
}

/// What one relay passes on to the waiting request.
#[derive(Debug)]
enum Incoming {
    /// A kind 24133 event of the remote signer for this client, verified.
    Event(Event),
    /// The relay refused an event we sent.
    Refused { event_id: EventId, message: String },
    /// The relay's connection ended.
    Closed,
}

/// Who talks to whom: only the remote signer's events to this client count.
#[derive(Debug, Clone, Copy)]
struct Route {
    client: PublicKey,
    remote_signer: PublicKey,
}

/// Opens every relay at once and subscribes to the remote signer's answers;
/// returns how many relays are listening (at least one) once each relay
/// has either confirmed the subscription (`EOSE`) or failed.
async fn connect_relays(
    relays: &[RelayUrl],
    route: Route,
    outgoing: &broadcast::Sender<Arc<String>>,
    incoming: mpsc::Sender<Incoming>,
    timeout: Duration,
) -> Result<usize, BunkerError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let attempts = relays.iter().map(|relay| async move {
        let socket = tokio::time::timeout_at(deadline, subscribe(relay, route, timeout)).await;
        let result = match socket {
            Ok(result) => result,
            Err(_) => Err(SubscribeError::NoEose),
        };
        (relay.clone(), result)
    });
    let mut unreachable = Vec::new();
    let mut listening = 0;
    for (relay, result) in futures_util::future::join_all(attempts).await {
        match result {
            Ok(socket) => {
                listening += 1;
                tokio::spawn(serve_relay(socket, route, outgoing.subscribe(), incoming.clone()));
            }
            Err(why) => unreachable.push((relay, why)),
        }
    }
    if listening == 0 {
        return Err(BunkerError::Unreachable(unreachable));
    }
    Ok(listening)
}

/// Connects and subscribes to the remote signer's kind 24133 events that
/// p-tag the client, live only (`limit 0`), and waits for `EOSE` so that
/// no answer can come before the subscription is in place.
async fn subscribe(relay: &RelayUrl, route: Route, timeout: Duration) -> Result<Socket, SubscribeError> {
    let mut socket = connection::connect(relay, timeout, MAX_MESSAGE_BYTES).await?;
    let filter =
        Filter::new().kind(Kind::NostrConnect).author(route.remote_signer).pubkey(route.client).limit(0);
    let request = ClientMessage::req(SubscriptionId::new(SUBSCRIPTION), vec![filter]).as_json();
    socket.send(Message::text(request)).await.map_err(|err| SubscribeError::Transport(err.into()))?;
    loop {
        let text = match socket.next().await {
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Close(_))) | None => return Err(SubscribeError::Closed),
            Some(Err(err)) => return Err(SubscribeError::Transport(err.into())),
            Some(Ok(_)) => continue,
        };
        match RelayMessage::from_json(text.as_str()) {
            Ok(RelayMessage::EndOfStoredEvents(id)) if id.to_string() == SUBSCRIPTION => return Ok(socket),
            Ok(RelayMessage::Closed { subscription_id, message })
                if subscription_id.to_string() == SUBSCRIPTION =>
            {
                return Err(SubscribeError::Refused(excerpt(&message)));
            }
            _ => {}
        }
    }
}

/// One relay for the life of the connection: sends every request, passes
/// on the remote signer's verified answers and the relay's refusals.
async fn serve_relay(
    mut socket: Socket,
    route: Route,
    mut outgoing: broadcast::Receiver<Arc<String>>,
    incoming: mpsc::Sender<Incoming>,
) {
    loop {
        tokio::select! {
            frame = outgoing.recv() => match frame {
                Ok(frame) => {
                    if socket.send(Message::text(frame.as_str())).await.is_err() {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return,
            },
            frame = socket.next() => {
                let text = match frame {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => continue,
                };
                let passed = match RelayMessage::from_json(text.as_str()) {
                    Ok(RelayMessage::Event { subscription_id, event }) if subscription_id.to_string() == SUBSCRIPTION => {
                        let event = event.into_owned();
                        if !is_answer(&event, route) {
                            continue;
                        }
                        Incoming::Event(event)
                    }
                    Ok(RelayMessage::Ok { event_id, status: false, message }) => {
                        Incoming::Refused { event_id, message: excerpt(&message) }
                    }
                    _ => continue,
                };
                if incoming.send(passed).await.is_err() {
                    return;
                }
            }
        }
    }
    let _ = incoming.send(Incoming::Closed).await;
}

/// The remote signer's kind 24133 event to this client, id and signature valid.
fn is_answer(event: &Event, route: Route) -> bool {
    event.kind == Kind::NostrConnect
        && event.pubkey == route.remote_signer
        && event.tags.public_keys().any(|key| key == route.client)
        && event.verify().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_signer_says_cannot_drive_the_terminal() {
        assert_eq!(excerpt("open \u{1b}[2Jhttps://x\n"), "open \u{fffd}[2Jhttps://x\u{fffd}");
        assert_eq!(excerpt(&"a".repeat(400)).chars().count(), MESSAGE_CHARS + 1);
    }
}
