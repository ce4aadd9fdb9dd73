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
//! prefix), never left waiting in silence.

use nostr::prelude::Filter;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
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
    /// together.
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
            max_filter_values: 1_000,
            max_held_values: 10_000,
            max_limit: 5_000,
        }
    }
}

/// How long a refused client is asked to wait before trying again.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(10);

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

/// Why a connection was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    /// The relay serves `max_connections` already.
    Relay,
    /// This source holds `max_connections_per_address` already.
    Address,
}

impl Full {
    /// The sentence a refused client reads.
    pub(crate) fn message(self) -> &'static str {
        match self {
            Full::Relay => "rate-limited: the relay serves as many connections as it can",
            Full::Address => "rate-limited: too many connections from your address",
        }
    }
}

/// The connections open now, in all and per source.
#[derive(Debug)]
pub(crate) struct Connections {
    limits: Limits,
    open: Mutex<Open>,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    per_source: HashMap<IpAddr, usize>,
}

impl Connections {
    pub(crate) fn new(limits: Limits) -> Arc<Connections> {
        Arc::new(Connections { limits, open: Mutex::new(Open::default()) })
    }

    /// A place for a connection from `peer`, held until the ticket drops,
    /// or why there is none.
    pub(crate) fn admit(self: &Arc<Connections>, peer: IpAddr) -> Result<Ticket, Full> {
        let source = source_of(peer);
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.total >= self.limits.max_connections {
            return Err(Full::Relay);
        }
        let from_source = open.per_source.entry(source).or_default();
        if *from_source >= self.limits.max_connections_per_address {
            return Err(Full::Address);
        }
        *from_source += 1;
        open.total += 1;
        Ok(Ticket { connections: self.clone(), source })
    }

    fn release(&self, source: IpAddr) {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.per_source.get_mut(&source) {
            *count -= 1;
            if *count == 0 {
                open.per_source.remove(&source);
            }
        }
    }
}

/// One admitted connection's place; freed when dropped.
#[derive(Debug)]
pub(crate) struct Ticket {
    connections: Arc<Connections>,
    source: IpAddr,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.connections.release(self.source);
    }
}

/// The source a connection is counted under: an IPv4 address (an
/// IPv4-mapped IPv6 one too), or the /64 network of an IPv6 address, since
/// one host is usually given a whole /64 and can pick any address in it.
fn source_of(peer: IpAddr) -> IpAddr {
    match peer {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(total: usize, per_address: usize) -> Limits {
        Limits { max_connections: total, max_connections_per_address: per_address, ..Limits::default() }
    }

    #[test]
    fn a_source_is_capped_below_the_relay_and_a_freed_place_is_taken_again() {
        let connections = Connections::new(limits(4, 2));
        let attacker: IpAddr = "127.0.0.1".parse().unwrap();
        let first = connections.admit(attacker).unwrap();
        let _second = connections.admit(attacker).unwrap();
        assert_eq!(connections.admit(attacker).unwrap_err(), Full::Address);
        let honest: IpAddr = "127.0.0.2".parse().unwrap();
        let _third = connections.admit(honest).unwrap();
        let _fourth = connections.admit(honest).unwrap();
        assert_eq!(connections.admit("127.0.0.3".parse().unwrap()).unwrap_err(), Full::Relay);
        drop(first);
        assert!(connections.admit(attacker).is_ok());
    }

    #[test]
    fn ipv6_addresses_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        let connections = Connections::new(limits(100, 1));
        let _one = connections.admit("2001:db8:1:2::1".parse().unwrap()).unwrap();
        let other_in_64: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        assert_eq!(connections.admit(other_in_64).unwrap_err(), Full::Address);
        assert!(connections.admit("2001:db8:1:3::1".parse().unwrap()).is_ok());
        let _v4 = connections.admit("192.0.2.7".parse().unwrap()).unwrap();
        assert_eq!(connections.admit("::ffff:192.0.2.7".parse().unwrap()).unwrap_err(), Full::Address);
    }

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
