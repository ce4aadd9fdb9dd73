//! The HTTP API's handlers and routes: submit an attestation (rate-limited,
//! parsed, queued for the writer, answered once committed), a job's status,
//! restamp and republish, `/metrics` and `/healthz`. Every store access
//! runs on a blocking thread, through the one reading connection.

use super::Limits;
use super::metrics::{self, RequestCounts};
use super::rate_limit::RateLimiter;
use super::refusal::Refusal;
use super::submission::parse_submission;
use super::view::{JobView, job_json};
use super::writer::Submission;
use crate::job::ContentTarget;
use crate::store::{AddOutcome, Store, StoreError};
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use priorart_nip::nostr::prelude::EventId;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};

/// What the handlers share.
pub(super) struct App {
    /// Reads, and the rare restamp.
    pub(super) reader: Mutex<Store>,
    /// The group-commit writer's queue.
    pub(super) writer: mpsc::Sender<Submission>,
    /// The service's relays (every job's 1041 goes to them).
    pub(super) relays: Vec<String>,
    /// The service's calendars (a restamped job goes to them).
    pub(super) calendars: Vec<String>,
    pub(super) limits: Limits,
    pub(super) rate: RateLimiter,
    pub(super) requests: RequestCounts,
    /// Rounds the worker finished (since start).
    pub(super) rounds: Arc<AtomicU64>,
}

/// The API's routes on `app`, bodies limited to `max_body_bytes`.
pub(super) fn routes(app: Arc<App>, max_body_bytes: usize) -> Router {
    Router::new()
        .route("/v1/attestations", post(submit))
        .route("/v1/attestations/{id}", get(job_status))
        .route("/v1/attestations/{id}/restamp", post(restamp))
        .route("/v1/attestations/{id}/republish", post(republish))
        .route("/metrics", get(serve_metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .layer(DefaultBodyLimit::max(max_body_bytes))
        .with_state(app)
}

async fn submit(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let counts = &app.requests;
    if !app.rate.allow(peer.ip()) {
        counts.rate_limited.fetch_add(1, Ordering::Relaxed);
        let detail =
            format!("more than {} requests in a minute from {}", app.limits.requests_per_minute, peer.ip());
        return Refusal::new(StatusCode::TOO_MANY_REQUESTS, "rate_limited", detail).into_response();
    }
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            counts.too_large.fetch_add(1, Ordering::Relaxed);
            let detail = format!("{} (limit {} bytes)", rejection.body_text(), app.limits.max_body_bytes);
            return Refusal::new(rejection.status(), "body_refused", detail).into_response();
        }
    };
    let job = match parse_submission(&body, &app.relays) {
        Ok(job) => job,
        Err(refusal) => {
            let counter = if refusal.status == StatusCode::UNPROCESSABLE_ENTITY {
                &counts.invalid
            } else {
                &counts.malformed
            };
            counter.fetch_add(1, Ordering::Relaxed);
            return refusal.into_response();
        }
    };
    let id = job.attestation.event().id.to_hex();
    let submitted = job.content.clone();
    let (reply, answer) = oneshot::channel();
    if app.writer.send(Submission { job, reply }).await.is_err() {
        return Refusal::new(StatusCode::SERVICE_UNAVAILABLE, "shutting_down", "the service is stopping")
            .into_response();
    }
    match answer.await {
        Ok(Ok(outcome @ (AddOutcome::Added(_) | AddOutcome::Existing(_)))) => {
            let new = matches!(outcome, AddOutcome::Added(_));
            let counter = if new { &counts.accepted } else { &counts.repeated };
            counter.fetch_add(1, Ordering::Relaxed);
            let body = json!({"id": id, "new": new, "status": format!("/v1/attestations/{id}")});
            (StatusCode::ACCEPTED, axum::Json(body)).into_response()
        }
        Ok(Ok(AddOutcome::Conflict { stored, .. })) => {
            counts.conflicting.fetch_add(1, Ordering::Relaxed);
            let body = json!({
                "error": "reference_conflict",
                "detail": "this attestation is queued already, for other content; the stored reference is kept",
                "id": id,
                "stored": reference_json(&stored),
                "submitted": reference_json(&submitted),
                "status": format!("/v1/attestations/{id}"),
            });
            (StatusCode::CONFLICT, axum::Json(body)).into_response()
        }
        Ok(Ok(AddOutcome::QueueFull)) => {
            counts.queue_full.fetch_add(1, Ordering::Relaxed);
            let detail = format!("{} jobs are waiting already; try again later", app.limits.max_open_jobs);
            Refusal::new(StatusCode::SERVICE_UNAVAILABLE, "queue_full", detail).into_response()
        }
        Ok(Err(err)) => Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "store_failed", err).into_response(),
        Err(_) => Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "store_failed", "the writer stopped")
            .into_response(),
    }
}

/// A content reference as the API names it: `{"a": …}` or `{"e": …}`.
fn reference_json(target: &ContentTarget) -> Value {
    match target {
        ContentTarget::Address(coordinate) => json!({"a": coordinate}),
        ContentTarget::Event(id) => json!({"e": id.to_hex()}),
    }
}

impl App {
    /// Runs `read` on the reading connection; a store failure is a 500.
    fn read<T>(&self, read: impl FnOnce(&mut Store) -> Result<T, StoreError>) -> Result<T, Refusal> {
        let mut store = self.reader.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        read(&mut store)
            .map_err(|err| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "store_failed", err.to_string()))
    }
}

/// A 64-hex attestation id, or the refusal to give.
fn attestation_id(id: &str) -> Result<String, Refusal> {
    if EventId::from_hex(id).is_err() || id.len() != 64 {
        return Err(Refusal::new(
            StatusCode::BAD_REQUEST,
            "id_malformed",
            "the id is the attestation's 64-hex event id",
        ));
    }
    Ok(id.to_ascii_lowercase())
}

async fn job_status(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let id = match attestation_id(&id) {
        Ok(id) => id,
        Err(refusal) => return refusal.into_response(),
    };
    let found = tokio::task::spawn_blocking(move || {
        app.read(|store| match store.job_by_attestation(&id)? {
            Some(job) => Ok(Some(JobView::read(store, job)?)),
            None => Ok(None),
        })
    })
    .await;
    view_response(found, StatusCode::OK)
}

/// `POST /v1/attestations/ID/restamp`: a job with no verified proof
/// (failed, or stuck signed or stamped) is stamped again at the service's
/// calendars; 409 for a job that is anchored already.
async fn restamp(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let id = match attestation_id(&id) {
        Ok(id) => id,
        Err(refusal) => return refusal.into_response(),
    };
    let calendars = app.calendars.clone();
    let restamped = tokio::task::spawn_blocking(move || {
        app.read(|store| match store.restamp(&id, &calendars)? {
            Some(job) => Ok(Some(JobView::read(store, job)?)),
            None => Ok(None),
        })
    })
    .await;
    if let Ok(Ok(Some(view))) = &restamped
        && view.job.state.is_anchored()
    {
        let detail = format!("the job is {} on a verified proof; nothing to restamp", view.job.state.name());
        return Refusal::new(StatusCode::CONFLICT, "already_anchored", detail).into_response();
    }
    view_response(restamped, StatusCode::ACCEPTED)
}

/// `POST /v1/attestations/{id}/republish`: the job's built kind 1041 sent
/// again in the next round, to its relays and the service's (202); 409 when
/// the job has no built proof yet.
async fn republish(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let id = match attestation_id(&id) {
        Ok(id) => id,
        Err(refusal) => return refusal.into_response(),
    };
    let republished = tokio::task::spawn_blocking(move || {
        app.read(|store| match store.republish(&id)? {
            Some(job) => Ok(Some(JobView::read(store, job)?)),
            None => Ok(None),
        })
    })
    .await;
    if let Ok(Ok(Some(view))) = &republished
        && view.job.proof_event_id.is_none()
    {
        let detail = format!("the job is {}: no kind 1041 is built yet", view.job.state.name());
        return Refusal::new(StatusCode::CONFLICT, "not_built", detail).into_response();
    }
    view_response(republished, StatusCode::ACCEPTED)
}

fn view_response(
    found: Result<Result<Option<JobView>, Refusal>, tokio::task::JoinError>,
    status: StatusCode,
) -> Response {
    match found {
        Ok(Ok(Some(view))) => (status, axum::Json(job_json(&view))).into_response(),
        Ok(Ok(None)) => {
            Refusal::new(StatusCode::NOT_FOUND, "unknown_attestation", "no job for this attestation")
                .into_response()
        }
        Ok(Err(refusal)) => refusal.into_response(),
        Err(err) => {
            Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "store_failed", err.to_string()).into_response()
        }
    }
}

async fn serve_metrics(State(app): State<Arc<App>>) -> Response {
    let reading = app.clone();
    let read =
        tokio::task::spawn_blocking(move || reading.read(|store| Ok((store.counts()?, store.counters()?))))
            .await;
    let (counts, counters) = match read {
        Ok(Ok(read)) => read,
        Ok(Err(refusal)) => return refusal.into_response(),
        Err(err) => {
            return Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "store_failed", err.to_string())
                .into_response();
        }
    };
    let rounds = app.rounds.load(Ordering::Relaxed);
    let text = metrics::prometheus_text(&counts, &counters, rounds, &app.requests);
    ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], text).into_response()
}
