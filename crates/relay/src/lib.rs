//! Nostr relay clients for priorart: a pool that publishes events to relays
//! and queries them ([`publish`], [`query`]), trusting none of them, and a
//! NIP-46 remote signer client ([`Bunker`]) for authors whose key is in a
//! bunker. The embedded relay is a crate of its own (`priorart-relay-server`),
//! so that a client never links its LMDB store.
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
//! that callers (the `priorart` CLI) stay synchronous. Callers that have a
//! runtime of their own (the pipeline's service, the embedded relay's
//! tests) use [`publish_async`] and [`query_async`].

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod bunker;
mod connection;
mod limits;
mod message;
mod publish;
mod query;

pub use bunker::{Bunker, BunkerError, BunkerOptions, MAX_REQUEST_BYTES, SubscribeError};
pub use connection::{ConnectError, parse_relay_url};
pub use limits::QueryLimits;
pub use publish::{Acceptance, PublishAnswer, publish, publish_async};
// The answer types are plain data of `priorart-nip`, so that `check` runs
// on answers from any client (a browser, a relay policy) without this crate.
pub use priorart_nip::check::{Ending, Found, RelayAnswer, SkipReason, Skipped, merge};
pub use query::{query, query_async};

/// Re-exported so that callers use the same `nostr` types.
pub use nostr;

/// A runtime for one blocking call: the network work is I/O bound, two
/// worker threads are plenty and leave the machine to the verifier.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()
}

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        for names in
            [crate::BunkerError::REASONS, crate::ConnectError::REASONS, crate::SubscribeError::REASONS]
        {
            priorart_reason::check_names(names).unwrap();
        }
        assert_eq!(crate::ConnectError::REASONS, ["bad_url", "timeout", "failed"]);
    }
}
