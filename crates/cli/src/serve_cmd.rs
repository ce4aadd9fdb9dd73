//! `priorart serve`: the open timestamping service (`priorart_pipeline::service`):
//! authors POST their signed kind 1042; the service batches the
//! commitments to the calendars, upgrades, builds and signs the kind 1041
//! with its own key (the NIP allows any signer) and publishes it.

use crate::args::{CalendarArgs, PipelineArgs, RelayListArgs};
use crate::input;
use crate::exit::UsageError;
use anyhow::{Context, Result, bail};
use clap::Parser;
use priorart_pipeline::RunLock;
use priorart_pipeline::service::{Caps, CorsOrigins, Limits, Service, ServiceOptions};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(Parser)]
#[command(after_help = "API: POST /v1/attestations {\"attestation\": <kind 1042>, \"a\": \"KIND:PUBKEY:D\" | \"e\": \
                        \"<id>\", \"k\": KIND, \"relays\": [\"wss://…\"]} → 202 {\"id\"} (409: queued already \
                        with another reference); GET /v1/attestations/ID; POST /v1/attestations/ID/restamp (a failed \
                        or stuck job); GET /metrics; GET /healthz. Every upgraded proof is verified against the header \
                        source (--esplora, --bitcoin-rpc, --header-cache) before the kind 1041 is signed; a calendar \
                        whose proof fails is named in the job and in /metrics. Stops on Ctrl-C or SIGTERM; accepted jobs are on disk before \
                        the 202 (and survive a kill -9).")]
pub struct Args {
    /// Address to listen on (port 0: any free port, printed on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    #[command(flatten)]
    relays: RelayListArgs,
    #[command(flatten)]
    calendars: CalendarArgs,
    #[command(flatten)]
    pipeline: PipelineArgs,
    /// State directory (default: $XDG_DATA_HOME/priorart/serve).
    #[arg(long, value_name = "DIR")]
    state: Option<PathBuf>,
    /// Seconds between rounds: every attestation received in one goes to
    /// each calendar as one merkle tree.
    #[arg(long, default_value = "60", value_parser = input::parse_seconds)]
    interval: Duration,
    /// Seconds each relay gets to answer a batch of events.
    #[arg(long, default_value = "30", value_parser = input::parse_seconds)]
    relay_timeout: Duration,
    /// Largest request body in bytes.
    #[arg(long, default_value = "16384")]
    max_body: usize,
    /// Requests per client address per minute.
    #[arg(long, default_value = "600")]
    rate_limit: u32,
    /// Jobs not yet published, at most (then 503).
    #[arg(long, default_value = "1000000")]
    max_queued: u64,
    /// Seconds a client has to send a request's head, and again its body
    /// (a keep-alive connection idle this long is closed too).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().request_deadline.as_secs())]
    request_deadline: u64,
    /// Connections at once, in all (more are answered 503 with Retry-After).
    #[arg(long, value_name = "N", default_value_t = Limits::default().connections.total)]
    max_connections: usize,
    /// Connections at once from one client address (IPv6: one /64).
    #[arg(long, value_name = "N", default_value_t = Limits::default().connections.per_source)]
    max_connections_per_address: usize,
    /// A web page origin (scheme://host[:port]) whose scripts may call the
    /// API from a browser (CORS headers and preflight answers); repeatable;
    /// `*` for any origin. Default: none.
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    cors_origins: Vec<String>,
    /// Serve the static files of DIR under / (the page built in web/dist).
    #[arg(long, value_name = "DIR")]
    web: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let state = match &args.state {
        Some(dir) => dir.clone(),
        None => crate::args::xdg_dir("XDG_DATA_HOME", ".local/share")
            .map(|dir| dir.join("priorart").join("serve"))
            .context("no data directory: give --state DIR (or set XDG_DATA_HOME or HOME)")?,
    };
    let cors = CorsOrigins::parse(&args.cors_origins).map_err(|err| UsageError(err.to_string()))?;
    if let Some(dir) = &args.web
        && !dir.join("index.html").is_file()
    {
        bail!(UsageError(format!("--web {}: no index.html there", dir.display())));
    }
    let relays: Vec<String> = args.relays.resolve()?.iter().map(ToString::to_string).collect();
    let _lock = RunLock::acquire(&state)?;
    args.pipeline.warn_without_upstream();
    let settings = args.pipeline.settings(&args.calendars, relays.clone(), args.relay_timeout)?;
    let options = ServiceOptions {
        state_dir: state.clone(),
        relays,
        settings,
        interval: args.interval,
        limits: Limits {
            max_body_bytes: args.max_body,
            requests_per_minute: args.rate_limit,
            max_open_jobs: args.max_queued,
            request_deadline: Duration::from_secs(args.request_deadline.max(1)),
            connections: Caps {
                total: args.max_connections.max(1),
                per_source: args.max_connections_per_address.max(1),
            },
        },
        cors,
        web_dir: args.web.clone(),
        log: Arc::new(|line| note!("{line}")),
    };
    // The store is opened (checked, migrated) before any address is taken:
    // a damaged store is refused without ever saying "listening".
    let service = Service::open(options)?;
    let runtime = tokio::runtime::Runtime::new().context("cannot start the service's runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("cannot listen on {}", args.listen))?;
        let address = listener.local_addr()?;
        note!("priorart: serve listening on http://{address} (state {})", state.display());
        service.run(listener, crate::args::stopped()).await?;
        note!("priorart: serve stopped");
        Ok(ExitCode::SUCCESS)
    })
}
