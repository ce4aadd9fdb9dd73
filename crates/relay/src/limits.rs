//! How much of a relay's time, events and bytes one query accepts.

use std::time::Duration;

/// Bounds on what one relay may cost a query. The defaults are far above
/// what an honest relay sends for one `X` (a handful of events) and low
/// enough that a flood cannot exhaust memory.
#[derive(Debug, Clone)]
pub struct QueryLimits {
    /// From connecting to the end of stored events (`EOSE`), per relay; the
    /// relays are asked in parallel, so this is also the query's wall time.
    pub timeout: Duration,
    /// Events kept per relay; the relay's answer stops there (a flood).
    pub max_events: usize,
    /// Bytes of messages read per relay, all messages together.
    pub max_bytes: usize,
    /// Longest single message accepted; a longer one is skipped and named
    /// (an event that large is not a NIP-FF-3 event: they are a few KiB).
    pub max_message_bytes: usize,
}

impl QueryLimits {
    /// Messages longer than this end the connection (the WebSocket layer
    /// refuses to buffer them); between `max_message_bytes` and this they
    /// are read, skipped and counted.
    pub(crate) fn transport_message_bytes(&self) -> usize {
        self.max_message_bytes.saturating_mul(4).max(64 * 1024)
    }
}

impl Default for QueryLimits {
    fn default() -> Self {
        QueryLimits {
            timeout: Duration::from_secs(5),
            max_events: 5_000,
            max_bytes: 64 * 1024 * 1024,
            max_message_bytes: priorart_max_event_bytes(),
        }
    }
}

/// The longest event JSON the NIP-FF-3 verifier reads (512 KiB), plus room
/// for the `["EVENT","<subscription>",…]` around it.
const fn priorart_max_event_bytes() -> usize {
    512 * 1024 + 1024
}
