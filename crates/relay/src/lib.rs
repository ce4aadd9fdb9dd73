//! Nostr relays for priorart: a client that publishes events to relays and
//! queries them ([`publish`], [`query`]), trusting none of them, and an
//! embedded persistent relay ([`RelayServer`]) for offline use and for
//! archivists who keep their own copy of `X`-tagged events; and a NIP-46
//! remote signer client ([`Bunker`]) for authors whose key is in a bunker.
//!
//! The protocol types are rust-nostr's (`ClientMessage`, `RelayMessage`,
//! `Filter`, event id and signature checks); this crate adds the network
//! and the distrust.
//!
//! # Relays are untrusted
//!
//! A relay may be down, slow, never send `EOSE`, send malformed JSON,
//! events that do not match the filter, events with bad ids or signatures,
//! duplicates, oversized messages or a flood. [`query`] bounds each relay
//! by time, event count and bytes ([`QueryLimits`]), keeps only verified
//! events that match the filter, and says per relay what it skipped and why
//! ([`RelayAnswer::skipped`], [`Ending`]). One bad relay never holds up the
//! others: they are asked at once and each stops at its own deadline.
//!
//! # Blocking API
//!
//! [`publish`] and [`query`] build a small tokio runtime for the call (a
//! [`Bunker`] keeps one for its connection's life), so
//! that callers (the `priorart` CLI) stay synchronous; nothing async
//! leaks out. The server needs a runtime of its own: [`RelayServer::start`]
//! is async.

#![forbid(unsafe_code)]

mod bunker;
mod connection;
mod limits;
mod message;
mod publish;
mod query;
mod server;

pub use bunker::{Bunker, BunkerError, BunkerOptions, MAX_REQUEST_BYTES};
pub use connection::{ConnectError, parse_relay_url};
pub use limits::QueryLimits;
pub use publish::{Acceptance, PublishAnswer, publish, publish_async};
pub use query::{Ending, Found, RelayAnswer, SkipReason, Skipped, merge, query, query_async};
pub use server::{RelayServer, ServerError, ServerOptions};

/// Re-exported so that callers use the same `nostr` types.
pub use nostr;

/// A runtime for one blocking call: the network work is I/O bound, two
/// worker threads are plenty and leave the machine to the verifier.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
}
