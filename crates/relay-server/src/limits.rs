//! What one client may make the relay hold, and how many clients it serves
//! at once: the limits that keep one hostile client from locking the relay
//! for everyone else, and the connection counts that enforce them.
//!
//! A relay that runs out of a shared resource fails everyone, so each
//! limit is per source: connections per address (IPv6 per /64, which one
//! host usually holds whole), subscriptions, filters and filter values per
//! connection, and an idle timeout for connections that neither speak nor
//! answer pings. A client refused for a limit is told at once (HTTP 503
//! with `Retry-After`, or NIP-01 `CLOSED`/`NOTICE` with a machine-readable
//! prefix), never left waiting in silence. Connections are counted by
//! `priorart-admission`.

use nostr::prelude::Filter;
use priorart_admission::Caps;
use std::time::Duration;

/// The limits, with defaults for one machine open to the internet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once, in all. An idle WebSocket costs about
    /// 20 KiB here (its buffers are sized for nostr messages, not bulk
    /// transfer), so the default, 8,192, is about 160 MiB.
    pub max_connections: usize,
    /// Connections at once from one source: an IPv4 address, or an IPv6
    /// /64 network.
    pub max_connections_per_address: usize,
    /// A connection that sends nothing for this long is closed when it has
    /// no open subscription; with one, it is pinged, and closed if the ping
    /// is not answered within the same time.
    pub idle_timeout: Duration,
    /// Open subscriptions per connection.
    pub max_subscriptions: usize,
    /// Filters per `REQ`.
    pub max_filters: usize,
    /// Values per filter: ids, authors, kinds and every tag's values
    /// together (a client asking for a batch of events by id names
    /// thousands; 2,500 leaves room for that).
    pub max_filter_values: usize,
    /// Filter values one connection's open subscriptions may hold in all.
    pub max_held_values: usize,
    /// Stored events sent per filter (its `limit`, or this when it has none).
    pub max_limit: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 8_192,
            max_connections_per_address: 32,
            idle_timeout: Duration::from_secs(60),
            max_subscriptions: 32,
            max_filters: 16,
            max_filter_values: 2_500,
            max_held_values: 10_000,
            max_limit: 5_000,
        }
    }
}

impl Limits {
    /// The connection caps, for `priorart-admission`.
    pub(crate) fn caps(&self) -> Caps {
        Caps { total: self.max_connections, per_source: self.max_connections_per_address }
    }
}

/// NIP-01: subscription ids are at most 64 characters.
pub(crate) const MAX_SUBSCRIPTION_ID_CHARS: usize = 64;

/// How many values a filter names: what a subscription makes the relay
/// hold and match every stored event against.
pub(crate) fn filter_values(filter: &Filter) -> usize {
    let count = |set: Option<usize>| set.unwrap_or(0);
    count(filter.ids.as_ref().map(|ids| ids.len()))
        + count(filter.authors.as_ref().map(|authors| authors.len()))
        + count(filter.kinds.as_ref().map(|kinds| kinds.len()))
        + filter.generic_tags.values().map(|values| values.len()).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_a_filter_names_counts() {
        use nostr::prelude::{Keys, Kind, SingleLetterTag};
        let authors = (0..3).map(|_| Keys::generate().public_key());
        let filter = Filter::new()
            .authors(authors)
            .kinds([Kind::TextNote, Kind::from_u16(1041)])
            .custom_tags(SingleLetterTag::UPPERCASE_X, ["a", "b", "c", "d"]);
        assert_eq!(filter_values(&filter), 9);
        assert_eq!(filter_values(&Filter::new()), 0);
    }
}
