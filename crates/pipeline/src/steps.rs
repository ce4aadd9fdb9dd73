//! The pipeline's steps, each a pass over the jobs in one state: stamp
//! (signed → stamped), upgrade (stamped → anchored, or failed), build
//! (anchored → built) and publish (built → published). `protect` and
//! `serve` run the same [`run_round`].
//!
//! Nothing a calendar says is signed unchecked: each calendar's upgrade is
//! verified on its own against the header source, as `priorart verify`
//! does, before it is stored ([`upgrade`]); a proof that fails is
//! discarded and its calendar named in the job's log and counted. The
//! built kind 1041 goes through the NIP verifier before it is stored
//! ([`build`]).
//!
//! Side effects and the store: a calendar `POST` is made after the attempt
//! is counted and its proofs are stored after it returns; a crash in
//! between leaves the jobs `signed` and they are stamped again (a second
//! submission of a commitment is harmless: the first is simply never
//! upgraded). A kind 1041 is stored before it is sent to any relay and
//! only the stored event is ever sent, so a crash anywhere means at most
//! sending that same event again, which relays answer as a duplicate.

use crate::failpoint::failpoint;
use crate::job::{CalendarVerdict, Job, JobState, Publication};
use crate::store::{Store, StoreError, UpgradeUpdate, now};
use priorart_nip::limits::MAX_EVENT_JSON_BYTES;
use priorart_nip::nostr::prelude::{Event, Timestamp};
use priorart_nip::{ProofEvent, ProofEventError};
use priorart_ots::calendar::{DEFAULT_ALLOWLIST, pending_upgrades, same_calendar, url_matches};
use priorart_ots::{AttestationError, DetachedTimestamp, HeaderSource, Network, VerifiedBlock, VerifyError};
use priorart_ots_net::{CalendarError, StampError, StampOptions, UpgradeOptions, stamp_digests, upgrade_all};
use priorart_relay::Acceptance;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

/// Events sent to the relays in one connection (each relay gets a time
/// limit per chunk).
const PUBLISH_CHUNK: usize = 1_000;

/// Times a job's events are sent at most while some of its relays have
/// not answered (a relay refusal is an answer: it is not asked again).
pub const MAX_PUBLISH_ATTEMPTS: u32 = 10;

/// Prefix of the counters of failed calendar requests, one per calendar
/// (`calendar_errors:URL`), so that `/metrics` says which calendar fails.
pub const CALENDAR_ERRORS: &str = "calendar_errors:";
/// Name of the counter of relay answers other than accepted or duplicate.
pub const RELAY_ERRORS: &str = "relay_errors";

/// How long a job may have only calendars that lie or fail before it is
/// `failed`, unless told otherwise.
pub const DEFAULT_GIVE_UP_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);

/// How the steps talk to calendars, header sources and relays.
#[derive(Clone)]
pub struct Settings {
    /// Calendars, how many must answer, and their time limit.
    pub stamp: StampOptions,
    /// Whether the calendars of `stamp` were named for this run: then they
    /// stamp every signed job, whatever calendars it was queued with (a
    /// calendar that was down must not hold a job for ever).
    pub calendars_named: bool,
    /// Time each calendar gets for an upgrade.
    pub upgrade_timeout: Duration,
    /// Time each relay gets for a chunk of events.
    pub publish_timeout: Duration,
    /// The relays the front end runs with now (`serve --relay`, `protect
    /// --resume --relay`): every event not yet published goes to these as
    /// well as to its job's own, so a job submitted when only a silent relay
    /// was named moves once a working one is.
    pub relays: Vec<String>,
    /// Where the headers every upgraded proof is verified against come from.
    pub headers: Arc<dyn HeaderSource>,
    /// The chain they belong to.
    pub network: Network,
    /// How long every calendar of a job may lie or fail before the job is `failed`.
    pub give_up_after: Duration,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("stamp", &self.stamp)
            .field("calendars_named", &self.calendars_named)
            .field("upgrade_timeout", &self.upgrade_timeout)
            .field("publish_timeout", &self.publish_timeout)
            .field("headers", &self.headers.describe())
            .field("network", &self.network)
            .field("give_up_after", &self.give_up_after)
            .finish()
    }
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
    /// Jobs whose proof now reaches a Bitcoin block, verified: (job, height).
    pub anchored: Vec<(i64, u64)>,
    /// Upgraded proofs that failed verification and were discarded:
    /// (job, calendar, why).
    pub rejected: Vec<(i64, String, String)>,
    /// Jobs whose upgraded proof could not be checked for lack of headers
    /// (retried next round): (job, why).
    pub unverified: Vec<(i64, String)>,
    /// Jobs that gave up: every calendar lied or failed for too long.
    pub failed: Vec<(i64, String)>,
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
    stamp(store, settings, &mut round)?;
    upgrade(store, settings, &mut round)?;
    build(store, settings, &mut round)?;
    publish(store, settings.publish_timeout, &settings.relays, &mut round)?;
    Ok(round)
}

/// signed → stamped: the commitments of every signed job going to the
/// same calendars in one merkle tree, its root posted once to each. A job
/// goes to the calendars it was queued with, unless this run names
/// calendars (`calendars_named`): those then stamp every signed job.
pub fn stamp(store: &mut Store, settings: &Settings, round: &mut Round) -> Result<(), PipelineError> {
    let options = &settings.stamp;
    let mut groups: BTreeMap<Vec<String>, Vec<Job>> = BTreeMap::new();
    for job in store.jobs_in(JobState::Signed)? {
        let calendars = if job.calendars.is_empty() || settings.calendars_named {
            options.calendars.clone()
        } else {
            job.calendars.clone()
        };
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
    if settings.calendars_named {
        stamp_troubled_elsewhere(store, settings, round)?;
    }
    Ok(())
}

/// Stamped jobs whose every calendar lies or fails, when this run names
/// calendars they were not stamped at: stamped there too, the new pending
/// attestations merged into their proof, so that no job waits on dead or
/// lying calendars while a working one is named.
fn stamp_troubled_elsewhere(
    store: &mut Store,
    settings: &Settings,
    round: &mut Round,
) -> Result<(), PipelineError> {
    let named = &settings.stamp.calendars;
    let troubled: Vec<Job> = store
        .jobs_in(JobState::Stamped)?
        .into_iter()
        .filter(|job| job.trouble_since.is_some())
        .filter(|job| named.iter().any(|url| !job.calendars.iter().any(|had| same_calendar(had, url))))
        .collect();
    if troubled.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = troubled.iter().map(|job| job.id).collect();
    let digests: Vec<[u8; 32]> = troubled.iter().map(|job| job.attestation.commitment().0).collect();
    let options = StampOptions {
        min_answers: settings.stamp.min_answers.clamp(1, named.len().max(1)),
        calendars: named.clone(),
        timeout: settings.stamp.timeout,
    };
    store.note_stamp_attempt(&ids)?;
    let stamped = match stamp_digests(&digests, &options) {
        Ok(stamped) => stamped,
        Err(err) => {
            count_calendar_errors(store, named.iter().map(String::as_str))?;
            round.problems.push(stamp_failure(&err));
            return Ok(());
        }
    };
    count_calendar_errors(store, unanswered(named, &stamped.answered))?;
    let mut merged = Vec::new();
    for (job, fresh) in troubled.iter().zip(&stamped.proofs) {
        let stored = job.proof.as_deref().map(DetachedTimestamp::from_bytes);
        let Some(Ok(mut proof)) = stored else { continue };
        let root = proof.file_digest().to_vec();
        match proof.merge_at(&root, fresh.timestamp().clone()) {
            Ok(()) => {
                let mut calendars = job.calendars.clone();
                calendars.extend(stamped.answered.iter().cloned());
                merged.push((job.id, proof.to_bytes(), calendars));
            }
            Err(err) => round.problems.push(format!("job {}: cannot add the new calendars: {err}", job.id)),
        }
    }
    round.stamped += merged.len();
    round.calendars_answered.extend(stamped.answered);
    store.record_restamped_elsewhere(&merged)?;
    Ok(())
}

/// Why no stamp was made, in a few short lines: one per calendar, and when
/// no calendar's name resolved at all, that (no network, most likely),
/// since naming other calendars with -c would not help then.
pub fn stamp_failure(err: &StampError) -> String {
    match err {
        StampError::TooFewAnswers { answered, required, failed } => {
            let each: Vec<String> = failed.iter().map(CalendarError::brief).collect();
            let advice = if *answered == 0
                && !failed.is_empty()
                && failed.iter().all(CalendarError::name_not_resolved)
            {
                "no calendar's name resolves: is this machine offline?"
            } else {
                "name working calendars with -c URL (they stamp every waiting job)"
            };
            format!(
                "cannot stamp: {answered} of the {required} required calendar(s) answered ({}); {advice}",
                each.join("; ")
            )
        }
        other => format!("cannot stamp: {other}"),
    }
}

/// One failed request counted for each of `calendars`.
fn count_calendar_errors<'a>(
    store: &mut Store,
    calendars: impl IntoIterator<Item = &'a str>,
) -> Result<(), StoreError> {
    for calendar in calendars {
        store.bump(&format!("{CALENDAR_ERRORS}{calendar}"), 1)?;
    }
    Ok(())
}

/// The calendars of `asked` that are not among those that `answered`.
fn unanswered<'a>(asked: &'a [String], answered: &'a [String]) -> impl Iterator<Item = &'a str> {
    asked.iter().filter(|url| !answered.iter().any(|had| same_calendar(had, url))).map(String::as_str)
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
            count_calendar_errors(store, unanswered(&options.calendars, &stamped.answered))?;
            round.problems.extend(stamped.failed.iter().map(|err| format!("calendar {}", err.brief())));
            let proofs: Vec<(i64, Vec<u8>)> =
                ids.iter().copied().zip(stamped.proofs.iter().map(DetachedTimestamp::to_bytes)).collect();
            store.record_stamped(&proofs, &stamped.answered)?;
            round.stamped += proofs.len();
            round.calendars_answered.extend(stamped.answered);
        }
        Err(err) => {
            count_calendar_errors(store, options.calendars.iter().map(String::as_str))?;
            let message = stamp_failure(&err);
            store.record_error(&ids, &message)?;
            round.problems.push(message);
        }
    }
    Ok(())
}

/// stamped → anchored: each calendar holding a pending attestation of a
/// job is asked for its complete proof (one request per calendar and
/// batch), and each answer is verified on its own against the header
/// source before anything is kept:
/// - verified: the job is anchored on that proof, at the verified block;
/// - fails verification: discarded, the calendar named in the job's log
///   (and counted); the job keeps its other calendars' attestations;
/// - no header for the claimed block: nothing stored, the job says why,
///   and the next round asks and checks again.
///
/// A job whose every calendar lies or fails for `give_up_after` is failed.
pub fn upgrade(store: &mut Store, settings: &Settings, round: &mut Round) -> Result<(), PipelineError> {
    let jobs = store.jobs_in(JobState::Stamped)?;
    if jobs.is_empty() {
        return Ok(());
    }
    let mut readable = Vec::new();
    for job in jobs {
        match job.proof.as_deref().map(DetachedTimestamp::from_bytes) {
            Some(Ok(proof)) => readable.push((job, proof)),
            Some(Err(err)) => {
                let message = format!("job {}: the stored proof is unreadable: {err}", job.id);
                store.record_error(&[job.id], &message)?;
                round.problems.push(message);
            }
            None => round.problems.push(format!("job {}: stamped but no proof stored", job.id)),
        }
    }
    // Which jobs each calendar is asked about.
    let mut by_calendar: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut updates: Vec<UpgradeUpdate> =
        readable.iter().map(|(job, _)| UpgradeUpdate { job: job.id, ..UpgradeUpdate::default() }).collect();
    for (at, (job, proof)) in readable.iter().enumerate() {
        for pending in pending_upgrades(proof) {
            if may_ask(&pending.calendar, job) {
                let asked = by_calendar.entry(pending.calendar).or_default();
                if asked.last() != Some(&at) {
                    asked.push(at);
                }
            } else {
                let detail = "not on the allow-list, not asked".to_owned();
                updates[at].outcomes.push((pending.calendar, CalendarVerdict::Failed, detail));
            }
        }
    }
    failpoint("before_upgrade");
    let mut verified: Vec<Option<(DetachedTimestamp, VerifiedBlock)>> = vec![None; readable.len()];
    let mut errors: BTreeMap<String, u64> = BTreeMap::new();
    for (calendar, asked) in by_calendar {
        let mut candidates: Vec<DetachedTimestamp> = asked.iter().map(|&at| readable[at].1.clone()).collect();
        let options = UpgradeOptions {
            allowlist: vec![calendar.clone()],
            calendar_map: Vec::new(),
            timeout: settings.upgrade_timeout,
        };
        let reports = upgrade_all(&mut candidates, &options);
        for ((&at, candidate), report) in asked.iter().zip(candidates).zip(reports) {
            let (verdict, detail) = if !report.errors.is_empty() {
                *errors.entry(calendar.clone()).or_default() += report.errors.len() as u64;
                let said: Vec<String> =
                    report.errors.iter().map(|err| priorart_ots_net::error_chain(err)).collect();
                (CalendarVerdict::Failed, said.join("; "))
            } else if !report.changed {
                let said: Vec<&str> =
                    report.still_pending.iter().map(|(_, message)| message.as_str()).collect();
                (CalendarVerdict::Pending, said.join("; "))
            } else {
                match check_upgraded(&candidate, settings) {
                    Checked::Verified(block) => {
                        // A regtest height is no Bitcoin block: the status must
                        // not claim mainnet for a test chain.
                        let chain = match settings.network {
                            Network::Mainnet => "Bitcoin",
                            Network::Regtest => "regtest",
                        };
                        let detail = format!("{chain} block {}", block.height);
                        let earlier =
                            verified[at].as_ref().is_some_and(|(_, kept)| kept.height <= block.height);
                        if !earlier {
                            verified[at] = Some((candidate, block));
                        }
                        (CalendarVerdict::Verified, detail)
                    }
                    Checked::Lied(why) => (CalendarVerdict::Lied, why),
                    Checked::Unverifiable(why) => (CalendarVerdict::Unverifiable, why),
                }
            };
            updates[at].outcomes.push((calendar.clone(), verdict, detail));
        }
    }
    for (calendar, count) in &errors {
        store.bump(&format!("{CALENDAR_ERRORS}{calendar}"), *count)?;
    }
    let now = now();
    for ((update, (job, _)), verified) in updates.iter_mut().zip(&readable).zip(verified) {
        conclude(update, job, verified, settings.give_up_after, now, round);
    }
    store.record_upgrades(&updates)?;
    Ok(())
}

/// Whether a calendar named in a job's pending proof may be contacted: the
/// public calendars, and those the job was stamped at.
fn may_ask(calendar: &str, job: &Job) -> bool {
    DEFAULT_ALLOWLIST.iter().any(|pattern| url_matches(pattern, calendar))
        || job.calendars.iter().any(|stamped| same_calendar(stamped, calendar))
}

/// What verifying one calendar's upgraded proof found.
enum Checked {
    Verified(VerifiedBlock),
    Lied(String),
    Unverifiable(String),
}

/// The check `priorart verify` applies to a kind 1041's proof, on one
/// calendar's upgrade: every Bitcoin attestation it adds must hold; one
/// that cannot be checked for lack of headers makes it unverifiable.
fn check_upgraded(proof: &DetachedTimestamp, settings: &Settings) -> Checked {
    let no_header = |reason: &AttestationError| matches!(reason, AttestationError::Source(_));
    let describe = |failures: &[priorart_ots::AttestationFailure]| {
        failures.iter().map(|f| format!("block {}: {}", f.height, f.reason)).collect::<Vec<_>>().join("; ")
    };
    match priorart_ots::verify(proof, settings.headers.as_ref(), settings.network) {
        Ok(verification) if verification.failures.is_empty() => Checked::Verified(verification.earliest),
        Ok(verification) if verification.failures.iter().all(|f| no_header(&f.reason)) => {
            Checked::Unverifiable(describe(&verification.failures))
        }
        Ok(verification) => Checked::Lied(describe(&verification.failures)),
        Err(VerifyError::Failed { failures }) if failures.iter().all(|f| no_header(&f.reason)) => {
            Checked::Unverifiable(describe(&failures))
        }
        Err(VerifyError::Failed { failures }) => Checked::Lied(describe(&failures)),
        Err(other) => Checked::Lied(other.to_string()),
    }
}

/// What a job's calendar answers of this round mean for it.
fn conclude(
    update: &mut UpgradeUpdate,
    job: &Job,
    verified: Option<(DetachedTimestamp, VerifiedBlock)>,
    give_up_after: Duration,
    now: i64,
    round: &mut Round,
) {
    for (calendar, verdict, detail) in &update.outcomes {
        match verdict {
            CalendarVerdict::Lied => {
                round.rejected.push((job.id, calendar.clone(), detail.clone()));
                round.problems.push(format!(
                    "job {}: calendar {calendar} gave a proof that fails verification, discarded: {detail}",
                    job.id
                ));
            }
            CalendarVerdict::Failed => {
                round.problems.push(format!("job {}: calendar {calendar}: {detail}", job.id))
            }
            _ => {}
        }
    }
    if let Some((proof, block)) = verified {
        round.anchored.push((job.id, block.height));
        update.anchored = Some((proof.to_bytes(), block.height));
        return;
    }
    let unverifiable: Vec<String> = update
        .outcomes
        .iter()
        .filter(|(_, verdict, _)| *verdict == CalendarVerdict::Unverifiable)
        .map(|(calendar, _, detail)| {
            format!("{calendar} claims a block with no header to check it ({detail})")
        })
        .collect();
    if !unverifiable.is_empty() {
        let why = format!("anchored-unverified, checked again next round: {}", unverifiable.join("; "));
        round.unverified.push((job.id, why.clone()));
        update.unverified = Some(why);
    }
    let troubles: Vec<String> = update
        .outcomes
        .iter()
        .filter(|(_, verdict, _)| verdict.is_trouble())
        .map(|(calendar, verdict, detail)| format!("{calendar} {}: {detail}", verdict.name()))
        .collect();
    let all_in_trouble = !update.outcomes.is_empty() && troubles.len() == update.outcomes.len();
    update.note = (!troubles.is_empty()).then(|| troubles.join("; "));
    if !all_in_trouble {
        return;
    }
    let since = job.trouble_since.unwrap_or(now);
    update.trouble_since = Some(since);
    let waited = u64::try_from(now - since).unwrap_or(0);
    if waited >= give_up_after.as_secs() {
        let reason = format!(
            "every calendar lied or failed for {waited} s: {}; restamp it (protect --restamp {}, or POST \
             /v1/attestations/{}/restamp)",
            troubles.join("; "),
            job.id,
            job.attestation_id
        );
        round.failed.push((job.id, reason.clone()));
        update.failed = Some(reason);
    }
}

/// anchored → built: each kind 1041 built and signed with the store's key,
/// checked by the NIP verifier against the header source (what `priorart
/// verify` applies to it), then all of them stored in one transaction
/// before any is published. An event the verifier does not call valid is
/// never stored: the job stays anchored, with the verifier's words.
pub fn build(store: &mut Store, settings: &Settings, round: &mut Round) -> Result<(), PipelineError> {
    let jobs = store.jobs_in(JobState::Anchored)?;
    if jobs.is_empty() {
        return Ok(());
    }
    let signer = store.signer()?;
    let mut events = Vec::new();
    for job in &jobs {
        match proof_event(job, &signer) {
            Ok(event) => {
                let report = priorart_nip::verify_event(&event, settings.headers.as_ref(), settings.network);
                if report.is_valid() {
                    events.push((job.id, event));
                } else {
                    let failed: Vec<String> = report
                        .steps
                        .iter()
                        .filter(|step| step.reason.is_some())
                        .map(|step| step.detail.clone())
                        .collect();
                    let message = format!(
                        "job {}: the built kind 1041 is {:?} under the verifier, not stored: {}",
                        job.id,
                        report.verdict,
                        failed.join("; ")
                    );
                    store.record_error(&[job.id], &message)?;
                    round.problems.push(message);
                }
            }
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
pub fn publish(
    store: &mut Store,
    timeout: Duration,
    current: &[String],
    round: &mut Round,
) -> Result<(), PipelineError> {
    // (job, stored event JSON), grouped by the relays they go to: the job's
    // own and, while it is unpublished, the ones the front end runs with now.
    let mut groups: BTreeMap<Vec<String>, Vec<(i64, String)>> = BTreeMap::new();
    let with_current = |own: Vec<String>| {
        let mut relays = own;
        relays.extend(current.iter().cloned());
        relays.sort();
        relays.dedup();
        relays
    };
    for job in store.unpublished_content()? {
        if let Some(event) = job.content_event {
            groups.entry(with_current(job.relays)).or_default().push((job.id, event));
        }
    }
    for job in store.jobs_in(JobState::Built)? {
        if let Some(event) = job.proof_event {
            groups.entry(with_current(job.relays)).or_default().push((job.id, event));
        }
    }
    for job in store.published_missing_relays(MAX_PUBLISH_ATTEMPTS)? {
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
                    let publication = publication(event, &answer.relay, acceptance, timeout);
                    if !publication.stored() {
                        errors += 1;
                    }
                    publications.push((*job, publication));
                }
            }
            store.bump(RELAY_ERRORS, errors)?;
            let mut unstored = Vec::new();
            for (job, event) in jobs.iter().zip(&events) {
                let id = event.id.to_hex();
                let stored = publications.iter().any(|(_, p)| p.event_id == id && p.stored());
                if !stored {
                    // What each relay said, so that the job's last_error
                    // says what failed, not only that something did.
                    let said: Vec<String> = publications
                        .iter()
                        .filter(|(_, p)| p.event_id == id)
                        .map(|(_, p)| {
                            let message =
                                if p.message.is_empty() { String::new() } else { format!(": {}", p.message) };
                            format!("{} {}{message}", p.relay, p.outcome)
                        })
                        .collect();
                    let message = format!("event {id} is on no relay yet ({})", said.join("; "));
                    round.problems.push(format!("job {job}: {message}"));
                    unstored.push((*job, message));
                } else if event.kind.as_u16() == priorart_nip::PROOF_KIND {
                    round.published.push(*job);
                } else {
                    round.content_published += 1;
                }
            }
            store.record_publications(&publications)?;
            for (job, message) in &unstored {
                store.record_error(&[*job], message)?;
            }
        }
    }
    Ok(())
}

fn publication(event: &Event, relay: &str, acceptance: &Acceptance, timeout: Duration) -> Publication {
    let (outcome, message) = match acceptance {
        Acceptance::Accepted { message } => ("accepted", message.clone()),
        Acceptance::Duplicate { message } => ("duplicate", message.clone()),
        Acceptance::Rejected { message } => ("rejected", message.clone()),
        // A silent relay: connected (or not even that) but no answer.
        Acceptance::NoAnswer => ("no_answer", format!("no answer within {} s", timeout.as_secs_f64())),
        Acceptance::NotSent { error } => ("not_sent", error.clone()),
    };
    Publication { event_id: event.id.to_hex(), relay: relay.to_owned(), outcome: outcome.to_owned(), message }
}
