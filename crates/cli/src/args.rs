//! Arguments several commands share, so that no `*_cmd` module imports
//! another: the header source of every verifying command (`HeaderArgs`), the
//! calendars of every stamping command (`CalendarArgs`), the relays of every
//! relay-talking command (`RelayListArgs`) and the XDG base directories.

use crate::exit::UsageError;
use anyhow::{Context, Result, bail};
use clap::Args as ClapArgs;
use priorart_ots::{HeaderSource, Network};
use priorart_ots_net::{HeaderConfig, StampOptions};
use priorart_pipeline::Settings;
use priorart_relay::nostr::prelude::RelayUrl;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Longest relay list file read.
const MAX_RELAY_LIST_BYTES: u64 = 64 * 1024;

/// `$VAR`, or `$HOME/fallback`, as the XDG base directory spec says.
pub(crate) fn xdg_dir(var: &str, fallback: &str) -> Option<PathBuf> {
    match std::env::var_os(var).filter(|dir| !dir.is_empty()) {
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(|home| PathBuf::from(home).join(fallback)),
    }
}

/// Where headers come from: the options of `verify`, `ots verify`,
/// `check`, `protect` and `serve` (each gives the time a request gets under
/// its own name); they describe a [`HeaderConfig`], which checks and builds it.
#[derive(ClapArgs)]
pub(crate) struct HeaderSourceArgs {
    /// Esplora REST base URL (e.g. https://blockstream.info/api).
    #[arg(long, value_name = "URL", conflicts_with = "bitcoin_rpc")]
    esplora: Option<String>,
    /// bitcoind JSON-RPC URL (e.g. http://127.0.0.1:8332).
    #[arg(long, value_name = "URL")]
    bitcoin_rpc: Option<String>,
    /// bitcoind cookie file (default with --bitcoin-rpc and no user:
    /// ~/.bitcoin/.cookie, or ~/.bitcoin/regtest/.cookie).
    #[arg(long, value_name = "PATH", requires = "bitcoin_rpc")]
    rpc_cookie: Option<PathBuf>,
    /// bitcoind RPC user (with --rpc-password).
    #[arg(long, requires = "bitcoin_rpc", conflicts_with = "rpc_cookie")]
    rpc_user: Option<String>,
    /// bitcoind RPC password (or the environment variable, which keeps it out
    /// of the process list; or --rpc-password-file).
    #[arg(long, env = "PRIORART_RPC_PASSWORD", hide_env_values = true, requires = "rpc_user")]
    rpc_password: Option<String>,
    /// A file holding the bitcoind RPC password (its first line).
    #[arg(long, value_name = "PATH", requires = "rpc_user", conflicts_with = "rpc_password")]
    rpc_password_file: Option<PathBuf>,
    /// Directory of cached headers (HEIGHT.hex); default
    /// $XDG_CACHE_HOME/priorart/ots/headers/NETWORK.
    #[arg(long, value_name = "DIR")]
    header_cache: Option<PathBuf>,
    /// Do not read or write the header cache.
    #[arg(long, conflicts_with = "header_cache")]
    no_header_cache: bool,
    /// mainnet (checked against the checkpoint table) or regtest.
    #[arg(long, default_value = "mainnet")]
    network: Network,
}

impl HeaderSourceArgs {
    /// The chain the headers must belong to.
    pub(crate) fn network(&self) -> Network {
        self.network
    }

    /// What these options describe, each request getting `timeout`.
    pub(crate) fn config(&self, timeout: Duration) -> HeaderConfig {
        HeaderConfig {
            esplora: self.esplora.clone(),
            bitcoin_rpc: self.bitcoin_rpc.clone(),
            rpc_cookie: self.rpc_cookie.clone(),
            rpc_user: self.rpc_user.clone(),
            rpc_password: self.rpc_password.clone(),
            rpc_password_file: self.rpc_password_file.clone(),
            header_cache: self.header_cache.clone(),
            no_header_cache: self.no_header_cache,
            network: self.network,
            timeout,
        }
    }
}

/// The header source options with `--timeout` (`verify`, `ots verify`, `check`).
#[derive(ClapArgs)]
pub(crate) struct HeaderArgs {
    #[command(flatten)]
    source: HeaderSourceArgs,
    /// Seconds a header source gets per request.
    #[arg(long, default_value = "10", value_parser = crate::input::parse_seconds)]
    timeout: Duration,
}

impl HeaderArgs {
    /// The chain the headers must belong to.
    pub(crate) fn network(&self) -> Network {
        self.source.network()
    }

    /// Seconds each request gets (also `check`'s per-relay limit).
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The header source these options describe; a combination that cannot
    /// work is a usage error.
    pub(crate) fn source(&self) -> Result<Box<dyn HeaderSource>> {
        build_header_source(&self.source.config(self.timeout))
    }
}

/// Builds `config`'s source; refused options exit as a usage error.
pub(crate) fn build_header_source(config: &HeaderConfig) -> Result<Box<dyn HeaderSource>> {
    config.build().map_err(|err| {
        if err.is_usage() { anyhow::Error::new(UsageError(err.to_string())) } else { anyhow::Error::new(err) }
    })
}

/// What `protect` and `serve` need to check every proof before they sign:
/// the header source, and when to give up on calendars that lie or fail.
#[derive(ClapArgs)]
pub(crate) struct PipelineArgs {
    #[command(flatten)]
    headers: HeaderSourceArgs,
    /// Seconds a header source gets per request.
    #[arg(long, default_value = "10", value_parser = crate::input::parse_seconds)]
    header_timeout: Duration,
    /// Seconds a job may have only calendars that lie or fail before it is
    /// `failed` (then restamp it); 604800 is one week.
    #[arg(long, value_name = "SECONDS", default_value = "604800", value_parser = crate::input::parse_seconds)]
    give_up_after: Duration,
}

impl PipelineArgs {
    /// Says on stderr when no upstream header source is given: every proof
    /// is then checked against the header cache alone, and stays unverified
    /// until the cache holds its block.
    pub(crate) fn warn_without_upstream(&self) {
        if self.headers.esplora.is_none() && self.headers.bitcoin_rpc.is_none() {
            note!(
                "priorart: warning: no --esplora or --bitcoin-rpc: upgraded proofs are checked against the header \
                 cache only, and nothing is signed until they verify"
            );
        }
    }

    /// The pipeline's settings: stamps at `calendars`, upgrades checked
    /// against the header source, events sent with `publish_timeout` to each
    /// job's relays and, while unpublished, to `relays` (the ones named now).
    pub(crate) fn settings(
        &self,
        calendars: &CalendarArgs,
        relays: Vec<String>,
        publish_timeout: Duration,
    ) -> Result<Settings> {
        let headers = build_header_source(&self.headers.config(self.header_timeout))?;
        Ok(Settings {
            relays,
            stamp: calendars.options()?,
            calendars_named: calendars.named(),
            upgrade_timeout: calendars.timeout().max(Duration::from_secs(10)),
            publish_timeout,
            headers: Arc::from(headers),
            network: self.headers.network(),
            give_up_after: self.give_up_after,
        })
    }
}

/// Calendar options of `ots stamp`, `timestamp`, `protect` and `serve`.
#[derive(ClapArgs)]
pub(crate) struct CalendarArgs {
    /// Calendar URL (repeatable; default: the public OpenTimestamps calendars).
    #[arg(short = 'c', long = "calendar", value_name = "URL")]
    calendars: Vec<String>,
    /// How many calendars must answer (default: 2, or every calendar given if fewer).
    #[arg(short = 'm', long, value_name = "N")]
    min_answers: Option<usize>,
    /// Seconds each calendar gets.
    #[arg(long, default_value = "5", value_parser = crate::input::parse_seconds)]
    timeout: Duration,
}

impl CalendarArgs {
    /// The stamp options these arguments ask for; an explicit `-m` that no
    /// set of calendars can meet is refused, never silently lowered.
    pub(crate) fn options(&self) -> Result<StampOptions> {
        let defaults = StampOptions::default();
        let calendars = if self.calendars.is_empty() { defaults.calendars } else { self.calendars.clone() };
        let min_answers = match self.min_answers {
            Some(n) if n == 0 || n > calendars.len() => bail!(UsageError(format!(
                "-m {n}: must be between 1 and the number of calendars ({})",
                calendars.len()
            ))),
            Some(n) => n,
            None => defaults.min_answers.min(calendars.len()),
        };
        Ok(StampOptions { calendars, min_answers, timeout: self.timeout })
    }

    /// Whether calendars were named with `-c` (else the defaults apply).
    pub(crate) fn named(&self) -> bool {
        !self.calendars.is_empty()
    }

    /// The time each calendar gets.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// The relays a command talks to, shared by `publish`, `check`, `protect`
/// and `serve`.
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
            let file = relay_list_path()
                .map_or_else(|| "~/.config/priorart/relays".into(), |p| p.display().to_string());
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
            let relay = priorart_relay::parse_relay_url(&url)
                .map_err(|err| UsageError(format!("{origin}: {err}")))?;
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
fn read_relay_list(path: &Path) -> Result<Vec<String>> {
    let bytes = priorart_files::read_limited(path, MAX_RELAY_LIST_BYTES)?;
    let text = String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8", path.display()))?;
    Ok(text
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect())
}

/// Waits for Ctrl-C, or SIGTERM on Unix (the long-running `relay` and `serve`).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relay_lists_skip_comments_and_blank_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("relays");
        std::fs::write(
            &path,
            "# shipped with none enabled\n#wss://relay.example\n\n  ws://127.0.0.1:7777  # mine\n",
        )
        .unwrap();
        assert_eq!(read_relay_list(&path).unwrap(), vec!["ws://127.0.0.1:7777"]);
    }

    #[test]
    fn the_shipped_relay_list_enables_none() {
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../relay/relays.example");
        let text = std::fs::read_to_string(&shipped).unwrap();
        assert!(text.contains("wss://"), "it lists examples");
        assert_eq!(read_relay_list(&shipped).unwrap(), Vec::<String>::new());
    }
}
