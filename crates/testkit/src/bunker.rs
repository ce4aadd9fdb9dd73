//! A NIP-46 remote signer ("bunker") on a real relay, built on rust-nostr's
//! NIP-46 types: honest, or refusing, lying or silent as a test asks.

use nostr::nips::nip46::{
    NostrConnectEventBuilder, NostrConnectMessage, NostrConnectRequest, NostrConnectResponse, ResponseResult,
};
use nostr::nips::{nip04, nip44};
use nostr::prelude::{
    ClientMessage, Event, EventBuilder, Filter, FinalizeEvent, Keys, Kind, PublicKey, RelayMessage,
    SignEvent, SubscriptionId, Tag, UnsignedEvent,
};
use std::collections::HashSet;
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// How a [`TestBunker`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behaviour {
    /// Answers every request as NIP-46 says.
    Honest,
    /// Answers `sign_event` with this error message.
    Refuse(String),
    /// Signs an event with other content than asked (a lie that verifies).
    SignOther,
    /// Returns the event asked for with the signature of another event.
    BadSignature,
    /// Signs the event asked for with a key other than its user's.
    OtherKey,
    /// Answers `sign_event` first with this auth challenge URL, then
    /// (as if the user had approved) with the signed event.
    AuthUrl(String),
    /// Answers everything NIP-04 encrypted (the protocol's old encryption).
    Nip04,
    /// Receives requests and never answers any.
    Silent,
}

/// A remote signer holding a user's key, listening on one relay. Its own
/// (remote signer) key differs from the user's, as NIP-46 allows, so a
/// client that mixes them up fails. The URI's secret is honoured once;
/// requests other than `connect` from clients that have not connected are
/// refused. Stops when dropped.
pub struct TestBunker {
    signer: Keys,
    user: Keys,
    secret: String,
    relay: String,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

/// How long the bunker waits for its relay to confirm the subscription.
const STARTUP: Duration = Duration::from_secs(10);

impl TestBunker {
    /// A bunker answering as `behaviour` says, subscribed on `relay`
    /// (a `ws://` URL) before this returns.
    pub fn start(relay: &str, behaviour: Behaviour) -> TestBunker {
        let signer = Keys::generate();
        let user = Keys::generate();
        let secret = random_secret();
        let bunker = TestBunker {
            signer: signer.clone(),
            user: user.clone(),
            secret: secret.clone(),
            relay: relay.to_owned(),
            requests: Arc::new(Mutex::new(Vec::new())),
            stop: Arc::new(AtomicBool::new(false)),
        };
        let mut socket = subscribe(relay, signer.public_key());
        let state = State {
            signer,
            user,
            secret,
            secret_used: false,
            clients: HashSet::new(),
            behaviour,
            requests: bunker.requests.clone(),
        };
        let stop = bunker.stop.clone();
        std::thread::spawn(move || state.serve(&mut socket, &stop));
        bunker
    }

    /// `bunker://<remote signer pubkey>?relay=…&secret=…`
    pub fn uri(&self) -> String {
        format!("bunker://{}?relay={}&secret={}", self.signer.public_key().to_hex(), self.relay, self.secret)
    }

    /// The URI with another secret.
    pub fn uri_with_secret(&self, secret: &str) -> String {
        format!("bunker://{}?relay={}&secret={}", self.signer.public_key().to_hex(), self.relay, secret)
    }

    /// The user's public key: what the bunker signs with.
    pub fn user_public_key(&self) -> PublicKey {
        self.user.public_key()
    }

    /// The remote signer's own key (the URI's).
    pub fn signer_public_key(&self) -> PublicKey {
        self.signer.public_key()
    }

    /// The methods of the requests received so far, in order.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for TestBunker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

type Socket = WebSocket<MaybeTlsStream<TcpStream>>;

const SUBSCRIPTION: &str = "test-bunker";

/// Connects to `relay` and subscribes to requests p-tagging `signer`;
/// returns once the relay sent `EOSE`.
fn subscribe(relay: &str, signer: PublicKey) -> Socket {
    let (mut socket, _) = tungstenite::connect(relay).expect("the bunker reaches its relay");
    if let MaybeTlsStream::Plain(stream) = socket.get_mut() {
        stream.set_read_timeout(Some(Duration::from_millis(100))).expect("read timeout");
    }
    let filter = Filter::new().kind(Kind::NostrConnect).pubkey(signer).limit(0);
    let request = ClientMessage::req(SubscriptionId::new(SUBSCRIPTION), vec![filter]).as_json();
    socket.send(Message::text(request)).expect("subscribe");
    let started = Instant::now();
    while started.elapsed() < STARTUP {
        if let Ok(Message::Text(text)) = socket.read()
            && let Ok(RelayMessage::EndOfStoredEvents(_)) = RelayMessage::from_json(text.as_str())
        {
            return socket;
        }
    }
    panic!("the bunker's relay sent no EOSE within {STARTUP:?}");
}

struct State {
    signer: Keys,
    user: Keys,
    secret: String,
    secret_used: bool,
    clients: HashSet<PublicKey>,
    behaviour: Behaviour,
    requests: Arc<Mutex<Vec<String>>>,
}

impl State {
    fn serve(mut self, socket: &mut Socket, stop: &AtomicBool) {
        while !stop.load(Ordering::SeqCst) {
            let text = match socket.read() {
                Ok(Message::Text(text)) => text,
                Ok(Message::Close(_)) => return,
                Ok(_) => continue,
                Err(tungstenite::Error::Io(err))
                    if matches!(
                        err.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(_) => return,
            };
            let Ok(RelayMessage::Event { event, .. }) = RelayMessage::from_json(text.as_str()) else {
                continue;
            };
            let event = event.into_owned();
            if event.verify().is_err() {
                continue;
            }
            for answer in self.answer(&event) {
                if socket.send(Message::text(ClientMessage::event(answer).as_json())).is_err() {
                    return;
                }
            }
        }
    }

    /// The response events to one request event (none, one, or an auth
    /// challenge and then the answer).
    fn answer(&mut self, request_event: &Event) -> Vec<Event> {
        let client = request_event.pubkey;
        let Ok(plaintext) = nip44::decrypt(self.signer.secret_key(), &client, &request_event.content) else {
            return Vec::new();
        };
        // Read as plain JSON first: nostr's types know only some methods,
        // and NIP-46 wants every other one answered with an error.
        let Ok(mut raw) = serde_json::from_str::<serde_json::Value>(&plaintext) else { return Vec::new() };
        let (Some(id), Some(method)) = (raw["id"].as_str(), raw["method"].as_str()) else {
            return Vec::new();
        };
        let (id, method) = (id.to_owned(), method.to_owned());
        self.requests.lock().unwrap().push(method.clone());
        if self.behaviour == Behaviour::Silent {
            return Vec::new();
        }
        if method == "sign_event" {
            self.complete_template(&mut raw);
        }
        let request =
            NostrConnectMessage::from_json(raw.to_string()).and_then(NostrConnectMessage::to_request);
        let responses = match request {
            Ok(request) => self.respond(client, request),
            Err(err) => vec![NostrConnectResponse::with_error(format!("unsupported request: {err}"))],
        };
        responses.into_iter().map(|response| self.seal(client, &id, response)).collect()
    }

    /// NIP-46 clients send `{kind, content, tags, created_at}`: the signer
    /// adds its user's pubkey (nostr's `UnsignedEvent` needs one).
    fn complete_template(&self, request: &mut serde_json::Value) {
        let Some(template) = request["params"][0].as_str() else { return };
        let Ok(mut template) = serde_json::from_str::<serde_json::Value>(template) else { return };
        if let Some(fields) = template.as_object_mut() {
            fields.entry("pubkey").or_insert_with(|| self.user.public_key().to_hex().into());
        }
        request["params"][0] = template.to_string().into();
    }

    fn respond(&mut self, client: PublicKey, request: NostrConnectRequest) -> Vec<NostrConnectResponse> {
        let ok = |result| vec![NostrConnectResponse::with_result(result)];
        let error = |message: &str| vec![NostrConnectResponse::with_error(message)];
        match request {
            NostrConnectRequest::Connect { remote_signer_public_key, secret } => {
                if remote_signer_public_key != self.signer.public_key() {
                    return error("connect names another remote signer");
                }
                if self.clients.contains(&client) {
                    return ok(ResponseResult::Ack);
                }
                match secret {
                    Some(secret) if secret == self.secret && !self.secret_used => {
                        self.secret_used = true;
                        self.clients.insert(client);
                        ok(ResponseResult::Ack)
                    }
                    Some(secret) if secret == self.secret => error("this secret was already used"),
                    _ => error("invalid secret"),
                }
            }
            _ if !self.clients.contains(&client) => error("unauthorized client: connect first"),
            NostrConnectRequest::GetPublicKey => ok(ResponseResult::GetPublicKey(self.user.public_key())),
            NostrConnectRequest::Ping => ok(ResponseResult::Pong),
            NostrConnectRequest::SignEvent(unsigned) => self.sign(unsigned),
            _ => error("unsupported method"),
        }
    }

    fn sign(&self, mut unsigned: UnsignedEvent) -> Vec<NostrConnectResponse> {
        unsigned.id = None;
        unsigned.pubkey = self.user.public_key();
        let signed = |keys: &Keys, unsigned: UnsignedEvent| {
            let event = keys.sign_event(unsigned).expect("sign");
            vec![NostrConnectResponse::with_result(ResponseResult::SignEvent(Box::new(event)))]
        };
        match &self.behaviour {
            Behaviour::Honest | Behaviour::Nip04 | Behaviour::Silent => signed(&self.user, unsigned),
            Behaviour::Refuse(message) => vec![NostrConnectResponse::with_error(message.clone())],
            Behaviour::SignOther => {
                unsigned.content.push_str(" (edited by the bunker)");
                signed(&self.user, unsigned)
            }
            Behaviour::BadSignature => {
                let mut other = unsigned.clone();
                other.content.push_str(" (another event)");
                let other = self.user.sign_event(other).expect("sign");
                let mut event = self.user.sign_event(unsigned).expect("sign");
                event.sig = other.sig;
                vec![NostrConnectResponse::with_result(ResponseResult::SignEvent(Box::new(event)))]
            }
            Behaviour::OtherKey => {
                let stranger = Keys::generate();
                unsigned.pubkey = stranger.public_key();
                signed(&stranger, unsigned)
            }
            Behaviour::AuthUrl(url) => {
                let mut answers =
                    vec![NostrConnectResponse::new(Some(ResponseResult::AuthUrl), Some(url.clone()))];
                answers.extend(signed(&self.user, unsigned));
                answers
            }
        }
    }

    /// The kind 24133 response event for `client`.
    fn seal(&self, client: PublicKey, id: &str, response: NostrConnectResponse) -> Event {
        let message = NostrConnectMessage::response(id, response);
        if self.behaviour == Behaviour::Nip04 {
            let content =
                nip04::encrypt(self.signer.secret_key(), &client, message.as_json()).expect("NIP-04");
            return EventBuilder::new(Kind::NostrConnect, content)
                .tag(Tag::public_key(client))
                .finalize(&self.signer)
                .expect("sign");
        }
        NostrConnectEventBuilder::new(client, message).finalize(&self.signer).expect("sign")
    }
}

/// Sixteen random hex digits from the OS (through nostr's key generation).
fn random_secret() -> String {
    Keys::generate().secret_key().to_secret_hex()[..16].to_owned()
}
