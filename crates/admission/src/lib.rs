//! Connections admitted per source and in all, for priorart's servers (the
//! embedded relay, the timestamping service): the counting that lets a
//! server refuse one client's hundredth connection at once, with its own
//! protocol's answer, instead of letting it starve everyone else.
//!
//! A source is an IPv4 address, or the /64 network of an IPv6 address: one
//! host is usually given a whole /64 and can pick any address in it. A
//! place is held by a [`Ticket`] and freed when it drops, so a connection's
//! task cannot leak one whatever way it ends.

#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Why a connection was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Full {
    /// The server serves its `total` already.
    Server,
    /// This source holds its `per_source` already.
    Address,
}

impl Full {
    /// The sentence a refused client reads.
    pub fn message(self) -> &'static str {
        match self {
            Full::Server => "rate-limited: the server serves as many connections as it can",
            Full::Address => "rate-limited: too many connections from your address",
        }
    }
}

/// How long a refused client is asked to wait before trying again.
pub const RETRY_AFTER_SECONDS: u64 = 10;

impl Full {
    /// The whole HTTP answer to a refused connection: 503 with
    /// `Retry-After`, written before the request is read (a client over a
    /// limit is told at once, not left waiting for a place).
    pub fn http_response(self) -> String {
        let body = self.message();
        format!(
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: {RETRY_AFTER_SECONDS}\r\n\
             Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }
}

/// The connections open now, in all and per source.
#[derive(Debug)]
pub struct Connections {
    caps: Caps,
    open: Mutex<Open>,
}

/// How many connections at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// In all.
    pub total: usize,
    /// From one source (an IPv4 address, an IPv6 /64).
    pub per_source: usize,
}

#[derive(Debug, Default)]
struct Open {
    total: usize,
    per_source: HashMap<IpAddr, usize>,
}

impl Connections {
    /// No connection open yet, at most `caps` at once.
    pub fn new(caps: Caps) -> Arc<Connections> {
        Arc::new(Connections { caps, open: Mutex::new(Open::default()) })
    }

    /// A place for a connection from `peer`, held until the ticket drops,
    /// or why there is none.
    pub fn admit(self: &Arc<Connections>, peer: IpAddr) -> Result<Ticket, Full> {
        let source = source_of(peer);
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.total >= self.caps.total {
            return Err(Full::Server);
        }
        let from_source = open.per_source.entry(source).or_default();
        if *from_source >= self.caps.per_source {
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
pub struct Ticket {
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

    fn limits(total: usize, per_source: usize) -> Caps {
        Caps { total, per_source }
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
        assert_eq!(connections.admit("127.0.0.3".parse().unwrap()).unwrap_err(), Full::Server);
        drop(first);
        assert!(connections.admit(attacker).is_ok());
    }

    #[test]
    fn a_refusal_is_a_complete_http_answer() {
        let answer = Full::Address.http_response();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 10\r\n"), "{head}");
        assert!(head.ends_with(&format!("Content-Length: {}\r\nConnection: close", body.len())), "{head}");
        assert_eq!(body, Full::Address.message());
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
}
