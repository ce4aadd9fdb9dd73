//! Events and an in-process embedded relay (priorart-relay-server) for the
//! client's tests.

use priorart_relay::nostr::prelude::{
    Event, EventBuilder, Filter, FinalizeEvent, Keys, Kind, SingleLetterTag, Tag,
};
use priorart_relay_server::{RelayServer, ServerOptions};

/// A fingerprint-shaped `X` value (the relay treats it as any tag value).
pub fn x_value(seed: u8) -> String {
    format!("{seed:02x}").repeat(32)
}

/// A signed event of `kind` with an `X` tag.
pub fn x_event(keys: &Keys, kind: u16, x: &str, content: &str) -> Event {
    let tag = Tag::parse(["X", x, "minhash-equality-v1"]).unwrap();
    EventBuilder::new(Kind::from_u16(kind), content).tag(tag).finalize(keys).unwrap()
}

/// The NIP's discovery filter for `x`.
pub fn discovery(x: &str) -> Filter {
    Filter::new()
        .kinds([1, 30023, 31337, 31338, 31339, 1041].map(Kind::from_u16))
        .custom_tag(SingleLetterTag::UPPERCASE_X, x)
}

/// A relay on an LMDB store in `dir`, served by its own runtime (which must
/// outlive it: drop the relay first).
pub struct InProcessRelay {
    pub server: Option<RelayServer>,
    pub runtime: tokio::runtime::Runtime,
}

impl InProcessRelay {
    pub fn start(dir: &std::path::Path) -> InProcessRelay {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let options = ServerOptions::new(dir.to_owned(), "127.0.0.1:0".parse().unwrap());
        let server = runtime.block_on(RelayServer::start(options)).expect("relay starts");
        InProcessRelay { server: Some(server), runtime }
    }

    pub fn url(&self) -> String {
        self.server.as_ref().unwrap().url()
    }

    /// Stops the relay and waits until it no longer listens.
    pub fn stop(mut self) {
        let server = self.server.take().unwrap();
        self.runtime.block_on(server.stop());
    }
}
