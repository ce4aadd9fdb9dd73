//! `priorart relay`: run the embedded persistent nostr relay.

use crate::args::{stopped, xdg_dir};
use crate::policy_cmd::{load_policy, received_now, reload_policy};
use anyhow::{Context, Result};
use clap::Parser;
use priorart_policy::{Action, PolicyFile};
use priorart_relay_server::{Admission, Limits, RelayServer, ServerOptions, WritePolicy};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

#[derive(Parser)]
#[command(after_help = "Stops on Ctrl-C or SIGTERM; every event acknowledged with OK is on disk by then \
                        (and after a kill -9 too).")]
pub struct Args {
    /// Directory of the event store (LMDB); default $XDG_DATA_HOME/priorart/relay.
    #[arg(long, value_name = "DIR")]
    db: Option<PathBuf>,
    /// Address to listen on (port 0: any free port, printed on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7777")]
    listen: SocketAddr,
    /// A write policy (TOML, as `priorart policy strfry` takes; see
    /// docs/policy.md): every event is accepted, rejected or shadow-rejected
    /// by it before it is stored. The file is read again when it changes (a
    /// file that no longer parses leaves the policy in force).
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// What one client may hold, so that none can lock the relay for the
    /// others: connections over a limit get HTTP 503 with Retry-After at
    /// once, requests over one a CLOSED or NOTICE naming it. The limits are
    /// announced in the NIP-11 document.
    #[command(flatten)]
    limits: LimitArgs,
}

#[derive(clap::Args)]
struct LimitArgs {
    /// Connections served at once, in all (an idle one costs about 20 KiB).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// Connections at once from one IPv4 address or IPv6 /64.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections_per_address)]
    max_connections_per_address: usize,
    /// Seconds a connection may send nothing: then it is closed if it has
    /// no subscription, else pinged and closed if it does not answer.
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::default().idle_timeout.as_secs())]
    idle_timeout: u64,
    /// Open subscriptions per connection.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_subscriptions)]
    max_subscriptions: usize,
    /// Filters per REQ.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_filters)]
    max_filters: usize,
    /// Values per filter (ids, authors, kinds and tag values together).
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_filter_values)]
    max_filter_values: usize,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        Limits {
            max_connections: self.max_connections.max(1),
            max_connections_per_address: self.max_connections_per_address.max(1),
            idle_timeout: std::time::Duration::from_secs(self.idle_timeout.max(1)),
            max_subscriptions: self.max_subscriptions,
            max_filters: self.max_filters,
            max_filter_values: self.max_filter_values,
            ..Limits::default()
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let db = match args.db {
        Some(db) => db,
        None => default_db_dir().context("no data directory: give --db DIR (or set XDG_DATA_HOME or HOME)")?,
    };
    let policy = match &args.policy {
        Some(path) => Some(write_policy(load_policy(path)?)),
        None => None,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the relay's runtime")?;
    runtime.block_on(async {
        let mut options = ServerOptions::new(db.clone(), args.listen);
        options.write_policy = policy;
        options.limits = args.limits.limits();
        let server = RelayServer::start(options).await?;
        note!("priorart: relay listening on {} (store {})", server.url(), db.display());
        stopped().await;
        note!("priorart: relay stopping");
        server.stop().await;
        Ok(ExitCode::SUCCESS)
    })
}

fn default_db_dir() -> Option<PathBuf> {
    xdg_dir("XDG_DATA_HOME", ".local/share").map(|dir| dir.join("priorart").join("relay"))
}

/// `policy` as the relay's hook: one event at a time (the flood window is
/// shared), timed by the clock as strfry's `receivedAt` is, the file read
/// again when it changes.
fn write_policy(policy: PolicyFile) -> WritePolicy {
    let policy = Mutex::new(policy);
    WritePolicy::new(move |event| {
        let mut policy = policy.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        reload_policy(&mut policy);
        let decision = policy.decide(event, received_now());
        match decision.action {
            Action::Accept => Admission::Accept,
            Action::Reject => Admission::Reject(decision.msg),
            Action::ShadowReject => Admission::ShadowReject,
        }
    })
}
