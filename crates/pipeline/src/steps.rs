//! The pipeline's steps, each a pass over the jobs in one state: stamp
//! (signed → stamped), upgrade (stamped → anchored), build (anchored →
//! built) and publish (built → published). `protect` and `serve` run the
//! same [`run_round`].
//!
//! Side effects and the store: a calendar `POST` is made after the attempt
//! is counted and its proofs are stored after it returns; a crash in
//! between leaves the jobs `signed` and they are stamped again (a second
//! submission of a commitment is harmless: the first is simply never
//! upgraded). A kind 1041 is stored before it is sent to any relay and
//! only the stored event is ever sent, so a crash anywhere means at most
//! sending that same event again, which relays answer as a duplicate.

use crate::failpoint::failpoint;
use crate::job::{Job, JobState, Publication};
use crate::store::{Store, StoreError};
use priorart_nip::limits::MAX_EVENT_JSON_BYTES;
use priorart_nip::nostr::prelude::{Event, Timestamp};
use priorart_nip::{ProofEvent, ProofEventError};
use priorart_ots::calendar::DEFAULT_ALLOWLIST;
use priorart_ots::{Attestation, DetachedTimestamp};
use priorart_ots_net::{StampOptions, UpgradeOptions, stamp_digests, upgrade_all};
use priorart_relay::Acceptance;
use std::collections::BTreeMap;
use std::time::Duration;

/// Events sent to the relays in one connection (each relay gets a time
/// limit per chunk).
const PUBLISH_CHUNK: usize = 1_000;

/// Times a job's events are sent at most while some of its relays have
/// not answered (a relay refusal is an answer: it is not asked again).
pub const MAX_PUBLISH_ATTEMPTS: u32 = 10;

/// Name of the counter of failed calendar requests.
pub const CALENDAR_ERRORS: &str = "calendar_errors";
/// Name of the counter of relay answers other than accepted or duplicate.
pub const RELAY_ERRORS: &str = "relay_errors";

/// How the steps talk to calendars and relays.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Calendars, how many must answer, and their time limit.
    pub stamp: StampOptions,
    /// Time each calendar gets for an upgrade.
    pub upgrade_timeout: Duration,
    /// Time each relay gets for a chunk of events.
    pub publish_timeout: Duration,
}

/// Why a round stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// No runtime for the relay connections.
    #[error("cannot start the network runtime: {0}")]
    Runtime(std::io::Error),
}

reason_names!(PipelineError {
    Store => "store",
    Runtime => "runtime",
});

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<std::io::Error> for PipelineError {
    fn from(cause: std::io::Error) -> Self {
        PipelineError::Runtime(cause)
    }
}

/// What one round did (for progress lines and `--json`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Round {
    /// Jobs stamped, as one merkle tree, one request per calendar.
    pub stamped: usize,
    /// Calendars that answered the stamp.
    pub calendars_answered: Vec<String>,
    /// Jobs whose proof now reaches a Bitcoin block: (job, height).
    pub anchored: Vec<(i64, u64)>,
    /// Jobs still waiting for their block.
    pub still_pending: usize,
    /// Kind 1041 events built and stored: (job, event id).
    pub built: Vec<(i64, String)>,
    /// Jobs whose kind 1041 is now on a relay.
    pub published: Vec<i64>,
    /// Content events now on a relay.
    pub content_published: usize,
    /// What went wrong (calendars, relays, jobs), one line each.
    pub problems: Vec<String>,
}

/// One pass of every step, in order.
pub fn run_round(store: &mut Store, settings: &Settings) -> Result<Round, PipelineError> {
    let mut round = Round::default();
    stamp(store, &settings.stamp, &mut round)?;
    upgrade(store, settings.upgrade_timeout, &mut round)?;
    build(store, &mut round)?;
    publish(store, settings.publish_timeout, &mut round)?;
    Ok(round)
}

/// signed → stamped: the commitments of every signed job going to the
/// same calendars in one merkle tree, its root posted once to each.
pub fn stamp(store: &mut Store, options: &StampOptions, round: &mut Round) -> Result<(), PipelineError> {
    let mut groups: BTreeMap<Vec<String>, Vec<Job>> = BTreeMap::new();
    for job in store.jobs_in(JobState::Signed)? {
        let calendars =
            if job.calendars.is_empty() { options.calendars.clone() } else { job.calendars.clone() };
        groups.entry(calendars).or_default().push(job);
    }
    for (calendars, jobs) in groups {
        let options = StampOptions {
            min_answers: options.min_answers.clamp(1, calendars.len().max(1)),
            calendars,
            timeout: options.timeout,
        };
        stamp_group(store, &options, &jobs, round)?;
    }
    Ok(())
}

fn stamp_group(
    store: &mut Store,
    options: &StampOptions,
    jobs: &[Job],
    round: &mut Round,
) -> Result<(), PipelineError> {
    let ids: Vec<i64> = jobs.iter().map(|job| job.id).collect();
    let digests: Vec<[u8; 32]> = jobs.iter().map(|job| job.attestation.commitment().0).collect();
    store.note_stamp_attempt(&ids)?;
    failpoint("before_stamp");
    match stamp_digests(&digests, options) {
        Ok(stamped) => {
            failpoint("after_stamp");
            store.bump(CALENDAR_ERRORS, stamped.failed.len() as u64)?;
            round.problems.extend(stamped.failed.iter().map(|err| format!("calendar: {err}")));
            let proofs: Vec<(i64, Vec<u8>)> =
                ids.iter().copied().zip(stamped.proofs.iter().map(DetachedTimestamp::to_bytes)).collect();
            store.record_stamped(&proofs, &stamped.answered)?;
            round.stamped += proofs.len();
            round.calendars_answered.extend(stamped.answered);
        }
        Err(err) => {
            store.bump(CALENDAR_ERRORS, options.calendars.len() as u64)?;
            let message = format!("cannot stamp: {err}");
            store.record_error(&ids, &message)?;
            round.problems.push(message);
        }
    }
    Ok(())
}

/// stamped → anchored: asks the calendars for the complete proofs (one
/// request per calendar and batch) and keeps what they add.
pub fn upgrade(store: &mut Store, timeout: Duration, round: &mut Round) -> Result<(), PipelineError> {
    let jobs = store.jobs_in(JobState::Stamped)?;
    if jobs.is_empty() {
        return Ok(());
    }
    let mut allowlist: Vec<String> = DEFAULT_ALLOWLIST.iter().map(|url| url.to_string()).collect();
    let mut readable = Vec::new();
    let mut proofs = Vec::new();
    for job in jobs {
        match job.proof.as_deref().map(DetachedTimestamp::from_bytes) {
            Some(Ok(proof)) => {
                // The calendars this job was stamped at were chosen by whoever
                // queued it; they may be asked for the upgrade.
                allowlist.extend(job.calendars.iter().cloned());
                proofs.push(proof);
                readable.push(job);
            }
            Some(Err(err)) => {
                let message = format!("job {}: the stored proof is unreadable: {err}", job.id);
                store.record_error(&[job.id], &message)?;
                round.problems.push(message);
            }
            None => round.problems.push(format!("job {}: stamped but no proof stored", job.id)),
        }
    }
    allowlist.sort();
    allowlist.dedup();
    let options = UpgradeOptions { allowlist, calendar_map: Vec::new(), timeout };
    failpoint("before_upgrade");
    let reports = upgrade_all(&mut proofs, &options);
    let mut changed = Vec::new();
    let mut errors = 0;
    for ((job, proof), report) in readable.iter().zip(&proofs).zip(&reports) {
        errors += report.errors.len();
        round.problems.extend(report.errors.iter().map(|err| format!("job {}: calendar: {err}", job.id)));
        if !report.changed {
            round.still_pending += 1;
            continue;
        }
        let height = earliest_block(proof);
        match height {
            Some(height) => round.anchored.push((job.id, height)),
            None => round.still_pending += 1,
        }
        changed.push((job.id, proof.to_bytes(), height));
    }
    store.bump(CALENDAR_ERRORS, errors as u64)?;
    store.record_upgraded(&changed)?;
    Ok(())
}

/// The lowest Bitcoin block height a proof claims (checked by readers,
/// against headers, when they verify the kind 1041).
pub fn earliest_block(proof: &DetachedTimestamp) -> Option<u64> {
    proof
        .attestations()
        .iter()
        .filter_map(|at| match at.attestation {
            Attestation::Bitcoin { height } => Some(height),
            _ => None,
        })
        .min()
}

/// anchored → built: each kind 1041 built and signed with the store's key,
/// then all of them stored in one transaction before any is published.
pub fn build(store: &mut Store, round: &mut Round) -> Result<(), PipelineError> {
    let jobs = store.jobs_in(JobState::Anchored)?;
    if jobs.is_empty() {
        return Ok(());
    }
    let signer = store.signer()?;
    let mut events = Vec::new();
    for job in &jobs {
        match proof_event(job, &signer) {
            Ok(event) => events.push((job.id, event)),
            Err(err) => {
                let message = format!("job {}: cannot build the kind 1041: {err}", job.id);
                store.record_error(&[job.id], &message)?;
                round.problems.push(message);
            }
        }
    }
    failpoint("before_store_1041");
    for (job, event) in store.record_proof_events(&events)? {
        round.built.push((job, event));
    }
    failpoint("after_store_1041");
    Ok(())
}

fn proof_event(job: &Job, signer: &priorart_nip::nostr::prelude::Keys) -> Result<Event, ProofEventError> {
    let proof = job.proof.as_deref().unwrap_or_default();
    let spec = ProofEvent {
        attestation: &job.attestation,
        content: job.content.content_ref(&job.attestation)?,
        content_kind: job.content_kind,
        relay_hint: job.relay_hint.as_deref(),
        proof,
        created_at: Timestamp::now(),
    };
    spec.sign(signer)
}

/// built → published: the stored events (content events not yet on a
/// relay, then kind 1041s) sent to each job's relays.
pub fn publish(store: &mut Store, timeout: Duration, round: &mut Round) -> Result<(), PipelineError> {
    // (job, stored event JSON), grouped by the relays they go to.
    let mut groups: BTreeMap<Vec<String>, Vec<(i64, String)>> = BTreeMap::new();
    for job in store.unpublished_content()? {
        if let Some(event) = job.content_event {
            groups.entry(job.relays).or_default().push((job.id, event));
        }
    }
    let built = store.jobs_in(JobState::Built)?;
    let missing = store.published_missing_relays(MAX_PUBLISH_ATTEMPTS)?;
    for job in built.into_iter().chain(missing) {
        if let Some(event) = job.proof_event {
            groups.entry(job.relays).or_default().push((job.id, event));
        }
    }
    for (relays, outgoing) in groups {
        let urls: Vec<_> =
            relays.iter().filter_map(|url| priorart_relay::parse_relay_url(url).ok()).collect();
        if urls.is_empty() {
            round.problems.push(format!("no usable relay among {relays:?}"));
            continue;
        }
        for chunk in outgoing.chunks(PUBLISH_CHUNK) {
            let mut jobs = Vec::with_capacity(chunk.len());
            let mut events = Vec::with_capacity(chunk.len());
            for (job, json) in chunk {
                match priorart_nip::parse_event(json, MAX_EVENT_JSON_BYTES) {
                    Ok(event) => {
                        jobs.push(*job);
                        events.push(event);
                    }
                    Err(err) => {
                        round.problems.push(format!("job {job}: a stored event is unreadable: {err}"))
                    }
                }
            }
            store.note_publish_attempt(&jobs)?;
            failpoint("before_publish");
            let answers = priorart_relay::publish(&urls, &events, timeout)?;
            failpoint("after_publish");
            let mut publications = Vec::new();
            let mut errors = 0;
            for answer in &answers {
                for ((job, event), acceptance) in jobs.iter().zip(&events).zip(&answer.acceptances) {
                    let publication = publication(event, &answer.relay, acceptance);
                    if !publication.stored() {
                        errors += 1;
                    }
                    publications.push((*job, publication));
                }
            }
            store.bump(RELAY_ERRORS, errors)?;
            for (job, event) in jobs.iter().zip(&events) {
                let stored = publications.iter().any(|(_, p)| p.event_id == event.id.to_hex() && p.stored());
                if !stored {
                    round.problems.push(format!("job {job}: event {} is on no relay yet", event.id));
                } else if event.kind.as_u16() == priorart_nip::PROOF_KIND {
                    round.published.push(*job);
                } else {
                    round.content_published += 1;
                }
            }
            store.record_publications(&publications)?;
        }
    }
    Ok(())
}

fn publication(event: &Event, relay: &str, acceptance: &Acceptance) -> Publication {
    let (outcome, message) = match acceptance {
        Acceptance::Accepted { message } => ("accepted", message.clone()),
        Acceptance::Duplicate { message } => ("duplicate", message.clone()),
        Acceptance::Rejected { message } => ("rejected", message.clone()),
        Acceptance::NoAnswer => ("no_answer", String::new()),
        Acceptance::NotSent { error } => ("not_sent", error.clone()),
    };
    Publication { event_id: event.id.to_hex(), relay: relay.to_owned(), outcome: outcome.to_owned(), message }
}
