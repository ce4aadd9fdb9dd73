//! `priorart relay`: run the embedded persistent nostr relay.

use crate::args::{stopped, xdg_dir};
use anyhow::{Context, Result};
use clap::Parser;
use priorart_relay_server::{RelayServer, ServerOptions};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

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
}

pub fn run(args: Args) -> Result<ExitCode> {
    let db = match args.db {
        Some(db) => db,
        None => default_db_dir().context("no data directory: give --db DIR (or set XDG_DATA_HOME or HOME)")?,
    };
    let runtime = tokio::runtime::Runtime::new().context("cannot start the relay's runtime")?;
    runtime.block_on(async {
        let server = RelayServer::start(ServerOptions::new(db.clone(), args.listen)).await?;
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
