//! The open timestamping service behind `priorart serve`: an HTTP API
//! (axum) that accepts authors' signed kind 1042 attestations and does the
//! rest for them on the same [`crate::steps`] as `priorart protect`.
//!
//! Three parts share one store directory, each with its own SQLite
//! connection: the HTTP handlers (validation, reads), one writer thread
//! that commits the submissions waiting at that moment in one transaction
//! before any of them is answered 202 (group commit: durable and fast),
//! and one worker thread that runs a round every interval, so every
//! commitment received in an interval goes to each calendar as one merkle
//! tree.

use crate::failpoint::failpoint;
use crate::job::{CalendarOutcome, ContentTarget, Job, NewJob, Publication};
use crate::steps::{CALENDAR_ERRORS, RELAY_ERRORS, Round, Settings, run_round};
use crate::store::{AddOutcome, REJECTED_PROOF_COUNTER, Store, StoreError};
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
pub use priorart_admission::Caps;
use priorart_nip::nostr::prelude::EventId;
use priorart_nip::{Attestation, AttestationParseError, ContentRef};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::services::ServeDir;

/// Submissions committed together at most.
const MAX_GROUP: usize = 2_000;
/// Submissions waiting for the writer at most (then senders wait).
const WRITER_QUEUE: usize = 10_000;
/// Clients remembered by the rate limiter before expired ones are dropped.
const RATE_TABLE_PRUNE: usize = 10_000;

/// The service's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest request body (413 beyond).
    pub max_body_bytes: usize,
    /// Requests per client address per minute (429 beyond).
    pub requests_per_minute: u32,
    /// Jobs not yet published (503 beyond).
    pub max_open_jobs: u64,
    /// Time a client has to send a request's head, and again its body;
    /// a keep-alive connection idle this long is closed too.
    pub request_deadline: Duration,
    /// Connections at once, in all and per client address (IPv6: per
    /// /64); one over either is answered 503 with `Retry-After` at once.
    pub connections: Caps,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 16 * 1024,
            requests_per_minute: 600,
            max_open_jobs: 1_000_000,
            request_deadline: Duration::from_secs(10),
            connections: Caps { total: 4_096, per_source: 64 },
        }
    }
}

/// How the service runs.
#[derive(Clone)]
pub struct ServiceOptions {
    /// The state directory (the job store).
    pub state_dir: PathBuf,
    /// Relays every kind 1041 goes to.
    pub relays: Vec<String>,
    /// Calendars and time limits.
    pub settings: Settings,
    /// Time between rounds (stamp batch, upgrade, build, publish).
    pub interval: Duration,
    /// Request limits.
    pub limits: Limits,
    /// The web pages (origins) a browser lets call the API.
    pub cors: CorsOrigins,
    /// A directory of static files served under `/` (the page, `web/dist`).
    pub web_dir: Option<PathBuf>,
    /// Where progress lines go (the CLI: stderr).
    pub log: Arc<dyn Fn(String) + Send + Sync>,
}

/// How long a browser may keep a preflight answer (`Access-Control-Max-Age`).
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// Which web pages may call the API from a browser (CORS): a browser
/// lets a page of another origin read the answers only when the service
/// names that origin in `Access-Control-Allow-Origin`. The API needs no
/// cookie or credential, so allowing any origin exposes nothing a plain
/// HTTP client could not read; the list exists for operators who want to
/// say which front ends use their service.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// No CORS headers: only same-origin pages and non-browser clients.
    #[default]
    None,
    /// Every origin (`*`).
    Any,
    /// These origins exactly (`scheme://host[:port]`, lowercase).
    Only(Vec<String>),
}

impl CorsOrigins {
    /// The origins as given by an operator: each `scheme://host[:port]`
    /// (a trailing `/` is dropped, scheme and host lowercased, as
    /// browsers send them), or `*` alone for every origin.
    pub fn parse<S: AsRef<str>>(origins: &[S]) -> Result<CorsOrigins, ServiceError> {
        if origins.is_empty() {
            return Ok(CorsOrigins::None);
        }
        if origins.iter().any(|origin| origin.as_ref() == "*") {
            if origins.len() > 1 {
                return Err(bad_origin("*", "`*` allows every origin: give it alone"));
            }
            return Ok(CorsOrigins::Any);
        }
        let mut parsed = Vec::new();
        for origin in origins {
            let origin = normalize_origin(origin.as_ref())?;
            if !parsed.contains(&origin) {
                parsed.push(origin);
            }
        }
        Ok(CorsOrigins::Only(parsed))
    }

    /// The layer answering preflight requests and adding the headers, or
    /// `None` when no origin is allowed.
    fn layer(&self) -> Option<CorsLayer> {
        let allowed = match self {
            CorsOrigins::None => return None,
            CorsOrigins::Any => AllowOrigin::any(),
            CorsOrigins::Only(origins) => {
                AllowOrigin::list(origins.iter().filter_map(|origin| HeaderValue::from_str(origin).ok()))
            }
        };
        Some(
            CorsLayer::new()
                .allow_origin(allowed)
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([header::CONTENT_TYPE])
                .expose_headers([header::RETRY_AFTER])
                .max_age(PREFLIGHT_MAX_AGE),
        )
    }
}

/// `scheme://host[:port]` as a browser serializes it, or why not.
fn normalize_origin(given: &str) -> Result<String, ServiceError> {
    let origin = given.strip_suffix('/').unwrap_or(given).to_ascii_lowercase();
    let Some((scheme, authority)) = origin.split_once("://") else {
        return Err(bad_origin(given, "an origin is scheme://host[:port], e.g. https://example.org"));
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !scheme_ok {
        return Err(bad_origin(given, "the scheme is letters, digits, +, - or ."));
    }
    if authority.is_empty()
        || authority.contains(['/', '?', '#', '@'])
        || authority.contains(char::is_whitespace)
    {
        return Err(bad_origin(given, "an origin has a host and no path, query, fragment or user"));
    }
    if let Some((_, port)) = authority.rsplit_once(':')
        && !authority.ends_with(']')
        && (port.is_empty() || port.parse::<u16>().is_err())
    {
        return Err(bad_origin(given, "the port is a number 0-65535"));
    }
    if HeaderValue::from_str(&origin).is_err() {
        return Err(bad_origin(given, "not a valid header value"));
    }
    Ok(origin)
}

fn bad_origin(origin: &str, why: &'static str) -> ServiceError {
    ServiceError::CorsOrigin { origin: origin.to_owned(), why }
}

/// Why the service stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServiceError {
    /// The store cannot be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The listener failed.
    #[error("HTTP server: {0}")]
    Io(std::io::Error),
    /// An origin to allow (CORS) is not an origin.
    #[error("CORS origin {origin:?}: {why}")]
    CorsOrigin {
        /// The origin as given.
        origin: String,
        /// What is wrong with it.
        why: &'static str,
    },
}

reason_names!(ServiceError {
    Store => "store",
    Io => "io",
    CorsOrigin => "cors_origin",
});

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<std::io::Error> for ServiceError {
    fn from(cause: std::io::Error) -> Self {
        ServiceError::Io(cause)
    }
}

/// Requests answered, by outcome (for `/metrics`).
#[derive(Default)]
struct RequestCounts {
    accepted: AtomicU64,
    repeated: AtomicU64,
    invalid: AtomicU64,
    malformed: AtomicU64,
    too_large: AtomicU64,
    rate_limited: AtomicU64,
    queue_full: AtomicU64,
    conflicting: AtomicU64,
}

struct Submission {
    job: NewJob,
    reply: oneshot::Sender<Result<AddOutcome, String>>,
}

struct App {
    /// Reads, and the rare restamp.
    reader: Mutex<Store>,
    writer: mpsc::Sender<Submission>,
    relays: Vec<String>,
    calendars: Vec<String>,
    limits: Limits,
    rate: Mutex<HashMap<IpAddr, (Instant, u32)>>,
    requests: RequestCounts,
    /// Rounds the worker finished (since start).
    rounds: Arc<AtomicU64>,
}

/// The service with its store open (three connections: reads, the
/// writer, the worker), not yet listening: a store that cannot be opened is
/// refused before any address is taken.
pub struct Service {
    options: ServiceOptions,
    stores: [Store; 3],
}

impl Service {
    /// Opens (and checks, and migrates) the store of `options.state_dir`.
    pub fn open(options: ServiceOptions) -> Result<Service, ServiceError> {
        let reader = Store::open(&options.state_dir)?;
        let writer = Store::open(&options.state_dir)?;
        let worker = Store::open(&options.state_dir)?;
        Ok(Service { options, stores: [reader, writer, worker] })
    }

    /// Runs the service on `listener` until `shutdown` completes; the worker
    /// finishes its round first.
    pub async fn run(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServiceError> {
        let Service { options, stores: [reader, writer_store, worker_store] } = self;
        let (writer, submissions) = mpsc::channel(WRITER_QUEUE);
        let max_open = options.limits.max_open_jobs;
        let writer_thread =
            std::thread::spawn(move || write_submissions(writer_store, submissions, max_open));
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let worker_options = options.clone();
        let rounds = Arc::new(AtomicU64::new(0));
        let worker_rounds = rounds.clone();
        let worker_thread =
            std::thread::spawn(move || work(worker_store, &worker_options, &stopped, &worker_rounds));
        let app = Arc::new(App {
            reader: Mutex::new(reader),
            writer,
            relays: options.relays.clone(),
            calendars: options.settings.stamp.calendars.clone(),
            limits: options.limits,
            rate: Mutex::new(HashMap::new()),
            requests: RequestCounts::default(),
            rounds,
        });
        let mut router = Router::new()
            .route("/v1/attestations", post(submit))
            .route("/v1/attestations/{id}", get(job_status))
            .route("/v1/attestations/{id}/restamp", post(restamp))
            .route("/v1/attestations/{id}/republish", post(republish))
            .route("/metrics", get(metrics))
            .route("/healthz", get(|| async { "ok\n" }))
            .layer(DefaultBodyLimit::max(options.limits.max_body_bytes))
            .with_state(app);
        if let Some(dir) = &options.web_dir {
            router = router.fallback_service(ServeDir::new(dir));
        }
        // Outermost, so that a preflight (OPTIONS) is answered before any
        // route looks at its method.
        if let Some(cors) = options.cors.layer() {
            router = router.layer(cors);
        }
        let limits = options.limits;
        crate::http_server::serve(listener, router, limits.connections, limits.request_deadline, shutdown)
            .await;
        drop(stop);
        let _ = tokio::task::spawn_blocking(move || {
            let _ = worker_thread.join();
            let _ = writer_thread.join();
        })
        .await;
        Ok(())
    }
}

/// The writer: each wake-up commits every submission waiting, then answers them.
fn write_submissions(mut store: Store, mut submissions: mpsc::Receiver<Submission>, max_open: u64) {
    while let Some(first) = submissions.blocking_recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match submissions.try_recv() {
                Ok(next) => group.push(next),
                Err(_) => break,
            }
        }
        let jobs: Vec<NewJob> = group.iter().map(|submission| submission.job.clone()).collect();
        match store.add_jobs(&jobs, Some(max_open)) {
            Ok(added) => {
                failpoint("after_accept");
                for (submission, added) in group.into_iter().zip(added) {
                    let _ = submission.reply.send(Ok(added));
                }
            }
            Err(err) => {
                for submission in group {
                    let _ = submission.reply.send(Err(err.to_string()));
                }
            }
        }
    }
}

/// The worker: a round every interval until told to stop (the first after
/// one interval, so that what arrives meanwhile joins the first batch).
fn work(
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

/// A refusal: status, a stable snake_case name, and words.
struct Refusal {
    status: StatusCode,
    error: String,
    detail: String,
}

impl Refusal {
    fn new(status: StatusCode, error: impl Into<String>, detail: impl Into<String>) -> Refusal {
        Refusal { status, error: error.into(), detail: detail.into() }
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut response =
            (self.status, axum::Json(json!({"error": self.error, "detail": self.detail}))).into_response();
        if matches!(self.status, StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE) {
            response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static("60"));
        }
        response
    }
}

async fn submit(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let counts = &app.requests;
    if !app.allow(peer.ip()) {
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
    /// Counts a request of `client` and says whether it is within the limit.
    fn allow(&self, client: IpAddr) -> bool {
        let now = Instant::now();
        let minute = Duration::from_secs(60);
        let mut table = self.rate.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if table.len() > RATE_TABLE_PRUNE {
            table.retain(|_, (start, _)| now.duration_since(*start) < minute);
        }
        let (start, count) = table.entry(client).or_insert((now, 0));
        if now.duration_since(*start) >= minute {
            *start = now;
            *count = 0;
        }
        *count += 1;
        *count <= self.limits.requests_per_minute
    }

    fn read<T>(&self, read: impl FnOnce(&mut Store) -> Result<T, StoreError>) -> Result<T, Refusal> {
        let mut store = self.reader.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        read(&mut store)
            .map_err(|err| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "store_failed", err.to_string()))
    }
}

/// `{"attestation": <kind 1042, object or string>, "a": "KIND:PUBKEY:D"}`
/// or `{"attestation": …, "e": "<id>", "k": KIND}`, with optional
/// `"relays": ["wss://…"]` (the first becomes the 1041's relay hint). The
/// attestation goes through the verifier's step 3; the reference through
/// the checks of step 4.
fn parse_submission(body: &[u8], relays: &[String]) -> Result<NewJob, Refusal> {
    let bad = |error: &str, detail: String| Refusal::new(StatusCode::BAD_REQUEST, error, detail);
    let invalid = |error: &str, detail: String| Refusal::new(StatusCode::UNPROCESSABLE_ENTITY, error, detail);
    let request: Value =
        serde_json::from_slice(body).map_err(|err| bad("malformed_json", err.to_string()))?;
    let Some(request) = request.as_object() else {
        return Err(bad("malformed_json", "the body is not a JSON object".into()));
    };
    let attestation_json = match request.get("attestation") {
        Some(Value::String(text)) => text.clone(),
        Some(object @ Value::Object(_)) => object.to_string(),
        Some(_) => {
            return Err(bad("attestation_malformed", "attestation is an event object or its JSON".into()));
        }
        None => return Err(bad("attestation_missing", "no attestation member".into())),
    };
    let attestation = Attestation::from_json(&attestation_json).map_err(|err| match &err {
        AttestationParseError::Invalid(reason) => invalid(err.reason(), reason.to_string()),
        AttestationParseError::Json(_) => invalid(err.reason(), err.to_string()),
    })?;
    let text = |name: &str| request.get(name).and_then(Value::as_str);
    let requested_kind = match request.get("k") {
        None | Some(Value::Null) => None,
        Some(k) => Some(
            k.as_u64()
                .and_then(|k| u16::try_from(k).ok())
                .ok_or_else(|| bad("k_malformed", "k is a kind number 0-65535".into()))?,
        ),
    };
    let content = match (text("a"), text("e")) {
        (Some(_), Some(_)) => {
            return Err(bad("content_reference_ambiguous", "give either a or e, not both".into()));
        }
        (None, None) => {
            return Err(bad("content_reference_missing", "give a (KIND:PUBKEY:D) or e (event id)".into()));
        }
        (Some(a), None) => ContentTarget::Address(a.to_owned()),
        (None, Some(e)) => ContentTarget::Event(
            EventId::from_hex(e).map_err(|_| bad("e_malformed", "e is a 64-hex event id".into()))?,
        ),
    };
    let reference = content.content_ref(&attestation).map_err(|err| match err {
        priorart_nip::ProofEventError::AuthorMismatch { .. } => invalid("author_mismatch", err.to_string()),
        other => invalid("author_malformed", other.to_string()),
    })?;
    let content_kind = match reference {
        ContentRef::Address { kind, .. } => Some(kind),
        ContentRef::Event { .. } => requested_kind.or(attestation.content_kind()),
    };
    match (content_kind, attestation.content_kind()) {
        (None, _) => {
            return Err(invalid(
                "kind_unknown",
                "the attestation has no k tag: give the content kind as k".into(),
            ));
        }
        (Some(content), Some(scoped)) if content != scoped => {
            return Err(invalid(
                "k_mismatch",
                format!("the content is kind {content} but the attestation is scoped to kind {scoped}"),
            ));
        }
        _ => {}
    }
    let relay_hint = match request.get("relays") {
        None | Some(Value::Null) => None,
        Some(Value::Array(hints)) => {
            let hint = hints.first().and_then(Value::as_str);
            match hint {
                Some(url) if priorart_relay::parse_relay_url(url).is_ok() => Some(url.to_owned()),
                Some(url) => {
                    return Err(bad("relays_malformed", format!("{url:?} is not a ws:// or wss:// URL")));
                }
                None if hints.is_empty() => None,
                None => return Err(bad("relays_malformed", "relays is an array of URLs".into())),
            }
        }
        Some(_) => return Err(bad("relays_malformed", "relays is an array of URLs".into())),
    };
    Ok(NewJob {
        attestation,
        content,
        content_kind: if matches!(reference, ContentRef::Event { .. }) { content_kind } else { None },
        relay_hint,
        content_event: None,
        relays: relays.to_vec(),
        calendars: Vec::new(),
        label: None,
    })
}

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

/// A Prometheus label value, escaped as the text format wants.
fn label(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
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
    let counter = |name: &str| counters.iter().find(|(n, _)| n == name).map_or(0, |(_, v)| *v);
    let mut text = String::from("# HELP priorart_jobs Jobs by state.\n# TYPE priorart_jobs gauge\n");
    for (state, count) in counts {
        text.push_str(&format!("priorart_jobs{{state=\"{}\"}} {count}\n", state.name()));
    }
    text.push_str("# HELP priorart_calendar_errors_total Calendar requests that failed, by calendar.\n");
    text.push_str("# TYPE priorart_calendar_errors_total counter\n");
    for (name, value) in &counters {
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
    for (name, value) in &counters {
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
    text.push_str(&format!("priorart_rounds_total {}\n", app.rounds.load(Ordering::Relaxed)));
    text.push_str("# HELP priorart_requests_total Attestation submissions by outcome (since start).\n");
    text.push_str("# TYPE priorart_requests_total counter\n");
    let requests = &app.requests;
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
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

#[cfg(test)]
mod cors_tests {
    use super::CorsOrigins;

    #[test]
    fn origins_are_kept_as_browsers_send_them() {
        let given =
            ["https://Page.Example/", "http://127.0.0.1:5173", "https://page.example", "http://[::1]:80"];
        let expected = ["https://page.example", "http://127.0.0.1:5173", "http://[::1]:80"];
        assert_eq!(
            CorsOrigins::parse(&given).unwrap(),
            CorsOrigins::Only(expected.map(String::from).to_vec())
        );
        assert_eq!(CorsOrigins::parse(&["*"]).unwrap(), CorsOrigins::Any);
        assert_eq!(CorsOrigins::parse::<&str>(&[]).unwrap(), CorsOrigins::None);
    }

    #[test]
    fn what_is_no_origin_is_refused_with_its_reason() {
        for bad in [
            &["page.example"][..],
            &["https://page.example/app"],
            &["https://page.example?q"],
            &["https://user@page.example"],
            &["https://page.example:http"],
            &["https://page.example:70000"],
            &["https://"],
            &["1http://page.example"],
            &["*", "https://page.example"],
        ] {
            let err = CorsOrigins::parse(bad).unwrap_err();
            assert_eq!(err.reason(), "cors_origin", "{bad:?}");
        }
    }
}
