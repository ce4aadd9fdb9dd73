//! How much of a relay's time, events and bytes one query accepts.

use priorart_nip::limits::{
    MAX_BYTES_PER_RELAY_ANSWER, MAX_EVENTS_PER_RELAY_ANSWER, MAX_RELAY_MESSAGE_BYTES,
};
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
            max_events: MAX_EVENTS_PER_RELAY_ANSWER,
            max_bytes: MAX_BYTES_PER_RELAY_ANSWER,
            max_message_bytes: MAX_RELAY_MESSAGE_BYTES,
        }
    }
}
