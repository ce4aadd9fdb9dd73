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
//!
//! This file opens the store and starts the three; each concern has its
//! own file: `handlers` (routes and handlers), `http_server` (the accept
//! loop: connection caps and deadlines), `submission` (a body → the
//! job), `refusal` (error answers), `rate_limit`, `cors`, `writer` (group
//! commit), `worker` (rounds), `view` (a job's JSON) and `metrics`
//! (Prometheus text).

mod cors;
mod handlers;
mod http_server;
mod metrics;
mod rate_limit;
mod refusal;
mod submission;
mod view;
mod worker;
mod writer;

pub use cors::CorsOrigins;
pub use priorart_admission::Caps;
pub use view::{JobView, job_json};

use crate::steps::Settings;
use crate::store::{Store, StoreError};
use handlers::App;
use metrics::RequestCounts;
use rate_limit::RateLimiter;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tower_http::services::ServeDir;

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
        let (writer, submissions) = mpsc::channel(writer::WRITER_QUEUE);
        let max_open = options.limits.max_open_jobs;
        let writer_thread =
            std::thread::spawn(move || writer::write_submissions(writer_store, submissions, max_open));
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let worker_options = options.clone();
        let rounds = Arc::new(AtomicU64::new(0));
        let worker_rounds = rounds.clone();
        let worker_thread =
            std::thread::spawn(move || worker::work(worker_store, &worker_options, &stopped, &worker_rounds));
        let app = Arc::new(App {
            reader: Mutex::new(reader),
            writer,
            relays: options.relays.clone(),
            calendars: options.settings.stamp.calendars.clone(),
            limits: options.limits,
            rate: RateLimiter::new(options.limits.requests_per_minute),
            requests: RequestCounts::default(),
            rounds,
        });
        let mut router = handlers::routes(app, options.limits.max_body_bytes);
        if let Some(dir) = &options.web_dir {
            router = router.fallback_service(ServeDir::new(dir));
        }
        // Outermost, so that a preflight (OPTIONS) is answered before any
        // route looks at its method.
        if let Some(cors) = options.cors.layer() {
            router = router.layer(cors);
        }
        let limits = options.limits;
        http_server::serve(listener, router, limits.connections, limits.request_deadline, shutdown).await;
        drop(stop);
        let _ = tokio::task::spawn_blocking(move || {
            let _ = worker_thread.join();
            let _ = writer_thread.join();
        })
        .await;
        Ok(())
    }
}
