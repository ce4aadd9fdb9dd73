//! The API's answers about a job: [`JobView`] (a job with its relay
//! answers and calendar log) and [`job_json`], the JSON that `GET
//! /v1/attestations/ID` and `priorart protect --status --json` both print.

use crate::job::{CalendarOutcome, Job, Publication};
use crate::store::{Store, StoreError};
use base64::Engine;
use serde_json::{Value, json};

/// A job with everything the API and `protect --status --json` show.
pub struct JobView {
    /// The job.
    pub job: Job,
    /// What each relay said about its events.
    pub publications: Vec<Publication>,
    /// Each calendar's last answer.
    pub calendars: Vec<CalendarOutcome>,
}

impl JobView {
    /// Reads the job's relay answers and calendar log.
    pub fn read(store: &Store, job: Job) -> Result<JobView, StoreError> {
        let publications = store.publications(job.id)?;
        let calendars = store.calendar_outcomes(job.id)?;
        Ok(JobView { job, publications, calendars })
    }
}

/// A job as the API and `protect --status --json` show it: `block` is the
/// verified block (a proof is stored only once verified), `calendars` each
/// calendar's last answer (a `lied` one names the rejected proof's fault),
/// `unverified` why a claimed block could not be checked yet, and a
/// `failed` job's reason in `last_error`.
pub fn job_json(view: &JobView) -> Value {
    let job = &view.job;
    let proof = job
        .proof
        .as_ref()
        .filter(|_| job.state.is_anchored())
        .map(|proof| base64::engine::general_purpose::STANDARD.encode(proof));
    let proof_event = job.proof_event.as_deref().and_then(|event| serde_json::from_str::<Value>(event).ok());
    json!({
        "id": job.attestation_id,
        "job": job.id,
        "state": job.state,
        "x": job.attestation.fingerprint().to_string(),
        "author": job.attestation.event().pubkey.to_hex(),
        "block": job.block_height.filter(|_| job.state.is_anchored()),
        "block_verified": job.state.is_anchored(),
        "proof": proof,
        "proof_event": proof_event,
        "content_event_id": job.content_event_id,
        "publications": view.publications,
        "calendars": view.calendars,
        "unverified": job.unverified,
        "last_error": job.last_error,
        "created_at": job.created_at,
        "updated_at": job.updated_at,
    })
}
