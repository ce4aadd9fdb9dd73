//! `priorart relay`: run the embedded persistent nostr relay. Also the relay
//! list every relay-talking command (`publish`, `check`) takes: `--relay`
//! URLs, or the user's list in the XDG config directory.

use crate::exit::UsageError;
use anyhow::{Context, Result, bail};
use clap::{Args as ClapArgs, Parser};
use priorart_relay::nostr::prelude::RelayUrl;
use priorart_relay_server::{RelayServer, ServerOptions};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// Longest relay list file read.
const MAX_RELAY_LIST_BYTES: u64 = 64 * 1024;

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

/// Waits for Ctrl-C, or SIGTERM on Unix.
pub(crate) async fn stopped() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut terminate) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

fn default_db_dir() -> Option<PathBuf> {
    xdg_dir("XDG_DATA_HOME", ".local/share").map(|dir| dir.join("priorart").join("relay"))
}

/// `$VAR`, or `$HOME/fallback`, as the XDG base directory spec says.
pub(crate) fn xdg_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    match std::env::var_os(var).filter(|dir| !dir.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("HOME").filter(|home| !home.is_empty()).map(|home| PathBuf::from(home).join(fallback)),
    }
}

/// The relays a command talks to, shared by `publish` and `check`.
#[derive(ClapArgs)]
pub(crate) struct RelayListArgs {
    /// A relay URL (ws:// or wss://); repeat for several. Without it, the
    /// relays listed in $XDG_CONFIG_HOME/priorart/relays (one URL per line,
    /// `#` comments) are used; priorart never contacts a relay you did not name.
    #[arg(long = "relay", value_name = "URL")]
    relays: Vec<String>,
}

impl RelayListArgs {
    /// The `--relay` URLs, or else the config file's; a usage error if none.
    pub(crate) fn resolve(&self) -> Result<Vec<RelayUrl>> {
        let relays = self.resolve_any()?;
        if relays.is_empty() {
            let file = relay_list_path().map_or_else(|| "~/.config/priorart/relays".into(), |p| p.display().to_string());
            bail!(UsageError(format!(
                "no relay named: give --relay URL, or list relays in {file} (one ws:// or wss:// URL per line; none is enabled until you add it)"
            )));
        }
        Ok(relays)
    }

    /// The `--relay` URLs, or else the config file's, or none.
    pub(crate) fn resolve_any(&self) -> Result<Vec<RelayUrl>> {
        let (urls, origin) = if self.relays.is_empty() {
            let path = relay_list_path();
            let listed = match &path {
                Some(path) if path.exists() => read_relay_list(path)?,
                _ => Vec::new(),
            };
            let origin = path.map_or_else(|| "the relay list".to_owned(), |p| p.display().to_string());
            (listed, origin)
        } else {
            (self.relays.clone(), "--relay".to_owned())
        };
        let mut parsed: Vec<RelayUrl> = Vec::new();
        for url in urls {
            let relay = priorart_relay::parse_relay_url(&url).map_err(|err| UsageError(format!("{origin}: {err}")))?;
            if !parsed.contains(&relay) {
                parsed.push(relay);
            }
        }
        Ok(parsed)
    }
}

/// `$XDG_CONFIG_HOME/priorart/relays` (`~/.config/…` without XDG_CONFIG_HOME).
fn relay_list_path() -> Option<PathBuf> {
    xdg_dir("XDG_CONFIG_HOME", ".config").map(|dir| dir.join("priorart").join("relays"))
}

/// The URLs of a relay list: one per line, blank lines and `#` comments skipped.
fn read_relay_list(path: &std::path::Path) -> Result<Vec<String>> {
    let bytes = priorart_files::read_limited(path, MAX_RELAY_LIST_BYTES)?;
    let text = String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8", path.display()))?;
    Ok(text
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relay_lists_skip_comments_and_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("relays");
        std::fs::write(&path, "# shipped with none enabled\n#wss://relay.example\n\n  ws://127.0.0.1:7777  # mine\n").unwrap();
        assert_eq!(read_relay_list(&path).unwrap(), vec!["ws://127.0.0.1:7777"]);
    }

    #[test]
    fn the_shipped_relay_list_enables_none() {
        let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../relay/relays.example");
        let text = std::fs::read_to_string(&shipped).unwrap();
        assert!(text.contains("wss://"), "it lists examples");
        assert_eq!(read_relay_list(&shipped).unwrap(), Vec::<String>::new());
    }
}
