//! OpenTimestamps over the network, on top of the pure `priorart-ots`:
//! calendar round trips ([`stamp_digests`], [`upgrade`]), header sources
//! that reach outside the process ([`Esplora`], [`BitcoinRpc`], the
//! [`HeaderCache`] directory, [`CachedSource`] in front of any of them) and
//! the small blocking HTTP client they share ([`HttpError`]), and
//! [`HeaderConfig`], the one description of a header source every front
//! end builds its source from.
//!
//! Nothing fetched here is trusted: calendar answers go through the same
//! decoder and limits as any proof, and every header goes through
//! `priorart_ots::verify`'s checks whatever its source. Kept apart from the
//! codec so that decoding and verification (the `nip` crate, Python
//! bindings, a relay plugin) never link TLS or sockets.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod calendar;
mod config;
mod headers;
mod http;

pub use calendar::{
    CalendarError, StampError, StampOptions, Stamped, UpgradeOptions, UpgradeReport, error_chain,
    stamp_digests, submit_everywhere, upgrade, upgrade_all,
};
pub use config::{DEFAULT_HEADER_TIMEOUT, HeaderConfig, HeaderConfigError};
pub use headers::{BitcoinRpc, CachedSource, Esplora, HeaderCache, RpcAuth};
pub use http::HttpError;

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        for names in [
            crate::CalendarError::REASONS,
            crate::StampError::REASONS,
            crate::HttpError::REASONS,
            crate::HeaderConfigError::REASONS,
        ] {
            priorart_reason::check_names(names).unwrap();
        }
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::*;
        assert_eq!(StampError::NoDigests.reason(), "no_digests");
        assert_eq!(HttpError::REASONS, ["timeout", "too_large", "transport"]);
    }
}
