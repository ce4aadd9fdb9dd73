//! The round worker: one thread with its own store connection that runs
//! [`run_round`] every interval, so that every commitment received in an
//! interval goes to each calendar as one merkle tree, and logs what each
//! round did.

use super::ServiceOptions;
use crate::steps::{Round, run_round};
use crate::store::Store;
use std::sync::atomic::{AtomicU64, Ordering};

/// The worker: a round every interval until told to stop (the first after
/// one interval, so that what arrives meanwhile joins the first batch).
pub(super) fn work(
    mut store: Store,
    options: &ServiceOptions,
    stop: &std::sync::mpsc::Receiver<()>,
    rounds: &AtomicU64,
) {
    // The problems the last round logged: a problem that persists (a
    // calendar down, no network) is logged when it starts or changes, not
    // every round.
    let mut logged = Vec::new();
    loop {
        match stop.recv_timeout(options.interval) {
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            _ => return,
        }
        match run_round(&mut store, &options.settings) {
            Ok(round) => log_round(&round, options, &mut logged),
            Err(err) => (options.log)(format!("priorart serve: round failed: {err}")),
        }
        rounds.fetch_add(1, Ordering::Relaxed);
    }
}

/// A round's progress line, then every rejected proof and failed job (each
/// names its calendar), then the first other problems not already logged by
/// the round before (`logged`: what that round had).
fn log_round(round: &Round, options: &ServiceOptions, logged: &mut Vec<String>) {
    let done = [
        (round.stamped, "stamped"),
        (round.anchored.len(), "anchored (verified)"),
        (round.unverified.len(), "anchored-unverified"),
        (round.rejected.len(), "proof(s) rejected"),
        (round.failed.len(), "failed"),
        (round.built.len(), "kind 1041 built"),
        (round.published.len(), "published"),
    ];
    let said: Vec<String> =
        done.iter().filter(|(n, _)| *n > 0).map(|(n, what)| format!("{n} {what}")).collect();
    if !said.is_empty() {
        (options.log)(format!("priorart serve: {}", said.join(", ")));
    }
    for (job, calendar, why) in &round.rejected {
        (options.log)(format!("priorart serve: job {job}: calendar {calendar} lied, proof discarded: {why}"));
    }
    for (job, why) in &round.failed {
        (options.log)(format!("priorart serve: job {job} failed: {why}"));
    }
    for problem in round.problems.iter().filter(|problem| !logged.contains(problem)).take(5) {
        (options.log)(format!("priorart serve: {problem}"));
    }
    if round.problems.is_empty() && !logged.is_empty() {
        (options.log)("priorart serve: the problems logged earlier are gone".to_owned());
    }
    logged.clone_from(&round.problems);
}
