//! OpenTimestamps over the network, on top of the pure `priorart-ots`:
//! calendar round trips ([`stamp_digests`], [`upgrade`]), header sources
//! that reach outside the process ([`Esplora`], [`BitcoinRpc`], the
//! [`HeaderCache`] directory, [`CachedSource`] in front of any of them) and
//! the small blocking HTTP client they share ([`HttpError`]).
//!
//! Nothing fetched here is trusted: calendar answers go through the same
//! decoder and limits as any proof, and every header goes through
//! `priorart_ots::verify`'s checks whatever its source. Kept apart from the
//! codec so that decoding and verification (the `nip` crate, Python
//! bindings, a relay plugin) never link TLS or sockets.

#![forbid(unsafe_code)]

mod calendar;
mod headers;
mod http;

pub use calendar::{
    CalendarError, StampError, StampOptions, Stamped, UpgradeOptions, UpgradeReport, stamp_digests,
    submit_everywhere, upgrade, upgrade_all,
};
pub use headers::{BitcoinRpc, CachedSource, Esplora, HeaderCache, RpcAuth};
pub use http::HttpError;
