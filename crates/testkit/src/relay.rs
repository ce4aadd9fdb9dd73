//! Relays on loopback that speak the nostr protocol as a test scripts them:
//! badly (malformed JSON, forged events, floods, no `EOSE`), or not at all.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tungstenite::Message;

/// One thing a [`ScriptedRelay`] sends back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A text frame, sent as is (any JSON, or none).
    Text(String),
    /// A binary frame.
    Binary(Vec<u8>),
    /// A WebSocket close.
    Close,
    /// Nothing more, ever: the connection stays open and every later
    /// message is ignored (a relay that never sends `EOSE` or `OK`).
    Hang,
}

/// What a [`ScriptedRelay`] answers to one client message.
type Script = dyn Fn(&serde_json::Value) -> Vec<Frame> + Send + Sync;

/// A WebSocket relay whose every answer is scripted: for each client
/// message (parsed as JSON; `null` when it is not), `script` returns the
/// frames to send. Stops when dropped.
pub struct ScriptedRelay {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Connections held open without an answer ([`ScriptedRelay::silent`]).
    held: Arc<Mutex<Vec<TcpStream>>>,
}

impl ScriptedRelay {
    /// A relay answering each client message with `script(message)`.
    pub fn start(script: impl Fn(&serde_json::Value) -> Vec<Frame> + Send + Sync + 'static) -> ScriptedRelay {
        let script: Arc<Script> = Arc::new(script);
        ScriptedRelay::listen(move |stream, stop| {
            let script = script.clone();
            std::thread::spawn(move || converse(stream, &*script, &stop));
        })
    }

    /// A relay that accepts TCP connections and then says nothing at all,
    /// not even the WebSocket handshake.
    pub fn silent() -> ScriptedRelay {
        let held = Arc::new(Mutex::new(Vec::new()));
        let holding = held.clone();
        let mut relay = ScriptedRelay::listen(move |stream, _| holding.lock().unwrap().push(stream));
        relay.held = held;
        relay
    }

    fn listen(on_connection: impl Fn(TcpStream, Arc<AtomicBool>) + Send + 'static) -> ScriptedRelay {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        listener.set_nonblocking(true).expect("non-blocking listener");
        let addr = listener.local_addr().expect("a local address");
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        std::thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let _ = stream.set_nonblocking(false);
                        on_connection(stream, stopping.clone());
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        ScriptedRelay { addr, stop, held: Arc::new(Mutex::new(Vec::new())) }
    }

    /// `ws://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("ws://{}", self.addr)
    }
}

impl Drop for ScriptedRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.held.lock().unwrap().clear();
    }
}

fn converse(
    stream: TcpStream,
    script: &(dyn Fn(&serde_json::Value) -> Vec<Frame> + Send + Sync),
    stop: &AtomicBool,
) {
    let Ok(mut socket) = tungstenite::accept(stream) else { return };
    // Reads wake up now and then to notice the relay being dropped.
    let _ = socket.get_mut().set_read_timeout(Some(Duration::from_millis(100)));
    let mut hanging = false;
    while !stop.load(Ordering::SeqCst) {
        let text = match socket.read() {
            Ok(Message::Text(text)) => text,
            Ok(Message::Close(_)) => return,
            Ok(_) => continue,
            Err(tungstenite::Error::Io(err)) if is_timeout(&err) => continue,
            Err(_) => return,
        };
        if hanging {
            continue;
        }
        let message = serde_json::from_str(text.as_str()).unwrap_or(serde_json::Value::Null);
        for frame in script(&message) {
            let sent = match frame {
                Frame::Text(text) => socket.send(Message::text(text)),
                Frame::Binary(bytes) => socket.send(Message::binary(bytes)),
                Frame::Close => {
                    let _ = socket.close(None);
                    let _ = socket.flush();
                    return;
                }
                Frame::Hang => {
                    hanging = true;
                    break;
                }
            };
            if sent.is_err() {
                return;
            }
        }
    }
}

fn is_timeout(err: &std::io::Error) -> bool {
    matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
}
