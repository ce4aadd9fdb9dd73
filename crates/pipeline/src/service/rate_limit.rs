//! Requests per client address per minute: a fixed one-minute window per
//! address, in a table pruned of expired windows once it holds many
//! clients, so that a flood from many addresses cannot grow it for ever.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Clients remembered before expired ones are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// The window a client's requests are counted in.
const WINDOW: Duration = Duration::from_secs(60);

/// Counts each client's requests in its current minute.
pub(super) struct RateLimiter {
    per_minute: u32,
    /// Each client's window: when it started, and requests in it so far.
    windows: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl RateLimiter {
    /// A limiter allowing `per_minute` requests per client and minute.
    pub(super) fn new(per_minute: u32) -> RateLimiter {
        RateLimiter { per_minute, windows: Mutex::new(HashMap::new()) }
    }

    /// Counts a request of `client` and says whether it is within the limit.
    pub(super) fn allow(&self, client: IpAddr) -> bool {
        let now = Instant::now();
        let mut table = self.windows.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if table.len() > PRUNE_ABOVE {
            table.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let (start, count) = table.entry(client).or_insert((now, 0));
        if now.duration_since(*start) >= WINDOW {
            *start = now;
            *count = 0;
        }
        *count += 1;
        *count <= self.per_minute
    }
}

#[cfg(test)]
mod tests {
    use super::RateLimiter;
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

    #[test]
    fn each_client_gets_its_own_allowance() {
        let limiter = RateLimiter::new(2);
        let (one, two) = (IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), IpAddr::V6(Ipv6Addr::LOCALHOST));
        assert!(limiter.allow(one) && limiter.allow(one));
        assert!(!limiter.allow(one), "the third request in the minute is over the limit");
        assert!(!limiter.allow(one), "and so is every later one");
        assert!(limiter.allow(two) && limiter.allow(two), "another client is not held by the first");
        assert!(!limiter.allow(two));
    }

    #[test]
    fn a_full_table_keeps_the_windows_still_open() {
        let limiter = RateLimiter::new(1);
        let first = IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1));
        assert!(limiter.allow(first));
        for n in 0..=super::PRUNE_ABOVE as u32 {
            limiter.allow(IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + n)));
        }
        assert!(!limiter.allow(first), "pruning drops expired windows only: the first client's is open");
    }
}
