//! `/metrics`: the service's counts in Prometheus' text format (jobs by
//! state, failed calendar requests and rejected proofs by calendar, relay
//! errors, rounds, and submissions by outcome, [`RequestCounts`]).

use crate::job::JobState;
use crate::steps::{CALENDAR_ERRORS, RELAY_ERRORS};
use crate::store::REJECTED_PROOF_COUNTER;
use std::sync::atomic::{AtomicU64, Ordering};

/// Requests answered, by outcome (since start).
#[derive(Default)]
pub(super) struct RequestCounts {
    pub(super) accepted: AtomicU64,
    pub(super) repeated: AtomicU64,
    pub(super) invalid: AtomicU64,
    pub(super) malformed: AtomicU64,
    pub(super) too_large: AtomicU64,
    pub(super) rate_limited: AtomicU64,
    pub(super) queue_full: AtomicU64,
    pub(super) conflicting: AtomicU64,
}

/// The `Content-Type` of [`prometheus_text`].
pub(super) const CONTENT_TYPE: &str = "text/plain; version=0.0.4";

/// A Prometheus label value, escaped as the text format wants.
fn label(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// The metrics page: `counts` (jobs by state) and `counters` (the store's
/// named counters) as read from the store, `rounds` finished and the
/// `requests` answered since start.
pub(super) fn prometheus_text(
    counts: &[(JobState, u64)],
    counters: &[(String, u64)],
    rounds: u64,
    requests: &RequestCounts,
) -> String {
    let counter = |name: &str| counters.iter().find(|(n, _)| n == name).map_or(0, |(_, v)| *v);
    let mut text = String::from("# HELP priorart_jobs Jobs by state.\n# TYPE priorart_jobs gauge\n");
    for (state, count) in counts {
        text.push_str(&format!("priorart_jobs{{state=\"{}\"}} {count}\n", state.name()));
    }
    text.push_str("# HELP priorart_calendar_errors_total Calendar requests that failed, by calendar.\n");
    text.push_str("# TYPE priorart_calendar_errors_total counter\n");
    for (name, value) in counters {
        if let Some(calendar) = name.strip_prefix(CALENDAR_ERRORS) {
            text.push_str(&format!(
                "priorart_calendar_errors_total{{calendar=\"{}\"}} {value}\n",
                label(calendar)
            ));
        }
    }
    text.push_str("# HELP priorart_relay_errors_total Events a relay did not store (refused, no answer, unreachable).\n");
    text.push_str("# TYPE priorart_relay_errors_total counter\n");
    text.push_str(&format!("priorart_relay_errors_total {}\n", counter(RELAY_ERRORS)));
    text.push_str(
        "# HELP priorart_calendar_rejected_proofs_total Upgraded proofs that failed verification and were discarded, \
         by calendar (one per job it lied about).\n",
    );
    text.push_str("# TYPE priorart_calendar_rejected_proofs_total counter\n");
    for (name, value) in counters {
        if let Some(calendar) = name.strip_prefix(REJECTED_PROOF_COUNTER) {
            text.push_str(&format!(
                "priorart_calendar_rejected_proofs_total{{calendar=\"{}\"}} {value}\n",
                label(calendar)
            ));
        }
    }
    text.push_str(
        "# HELP priorart_rounds_total Rounds (stamp, upgrade, build, publish) finished since start.\n",
    );
    text.push_str("# TYPE priorart_rounds_total counter\n");
    text.push_str(&format!("priorart_rounds_total {rounds}\n"));
    text.push_str("# HELP priorart_requests_total Attestation submissions by outcome (since start).\n");
    text.push_str("# TYPE priorart_requests_total counter\n");
    for (outcome, count) in [
        ("accepted", &requests.accepted),
        ("repeated", &requests.repeated),
        ("invalid", &requests.invalid),
        ("malformed", &requests.malformed),
        ("too_large", &requests.too_large),
        ("rate_limited", &requests.rate_limited),
        ("queue_full", &requests.queue_full),
        ("conflicting", &requests.conflicting),
    ] {
        text.push_str(&format!(
            "priorart_requests_total{{outcome=\"{outcome}\"}} {}\n",
            count.load(Ordering::Relaxed)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{RequestCounts, prometheus_text};
    use crate::job::JobState;
    use std::sync::atomic::Ordering;

    #[test]
    fn labels_are_escaped_and_every_family_is_written() {
        let requests = RequestCounts::default();
        requests.queue_full.fetch_add(3, Ordering::Relaxed);
        let counters = [
            ("calendar_errors:http://a\"b\\c".to_owned(), 2),
            ("relay_errors".to_owned(), 5),
            ("rejected_proof:http://liar".to_owned(), 1),
        ];
        let text = prometheus_text(&[(JobState::Stamped, 4)], &counters, 7, &requests);
        for line in [
            "priorart_jobs{state=\"stamped\"} 4",
            "priorart_calendar_errors_total{calendar=\"http://a\\\"b\\\\c\"} 2",
            "priorart_relay_errors_total 5",
            "priorart_calendar_rejected_proofs_total{calendar=\"http://liar\"} 1",
            "priorart_rounds_total 7",
            "priorart_requests_total{outcome=\"queue_full\"} 3",
            "priorart_requests_total{outcome=\"accepted\"} 0",
        ] {
            assert!(text.lines().any(|have| have == line), "{line:?} missing from\n{text}");
        }
    }
}
