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

/// Implements `reason()` for an error enum: the stable snake_case name of
/// each variant, as JSON reports and the Python binding give it, and
/// `REASONS`, every name it can return (in declaration order).
macro_rules! reason_names {
    ($error:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $error {
            /// The stable snake_case name of this error's kind, as JSON
            /// reports and the Python binding (`InputError.reason`) give it.
            pub fn reason(&self) -> &'static str {
                match self {
                    $($error::$variant { .. } => $name,)+
                }
            }

            /// Every name [`Self::reason`] returns, one per variant, in
            /// declaration order.
            pub const REASONS: &'static [&'static str] = &[$($name),+];
        }
    };
}

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
    /// Each name is snake_case (as the JSON reports spell reasons), and no
    /// two variants of one error share a name.
    fn assert_well_formed(names: &[&str]) {
        for name in names {
            let snake = !name.is_empty()
                && !name.starts_with('_')
                && !name.ends_with('_')
                && !name.contains("__")
                && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            assert!(snake, "{name:?} is not snake_case");
        }
        let mut sorted = names.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "a name repeats in {names:?}");
    }

    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        for names in [crate::CalendarError::REASONS, crate::StampError::REASONS, crate::HttpError::REASONS] {
            assert_well_formed(names);
        }
    }

    #[test]
    fn reason_names_are_stable() {
        use crate::*;
        assert_eq!(StampError::NoDigests.reason(), "no_digests");
        assert_eq!(HttpError::REASONS, ["timeout", "too_large", "transport"]);
    }
}
