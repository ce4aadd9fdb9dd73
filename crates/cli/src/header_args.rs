//! Where verification commands get Bitcoin block headers from. Every header
//! is checked (proof of work, and on mainnet the real difficulty) whatever
//! its source, so these choose availability and privacy, not trust.

use anyhow::Result;
use priorart_ots::{BitcoinRpc, CachedSource, Esplora, HeaderCache, HeaderSource, Network, RpcAuth};
use std::path::PathBuf;
use std::time::Duration;

/// The Esplora server asked when nothing else is said.
const DEFAULT_ESPLORA: &str = "https://blockstream.info/api";

#[derive(clap::Args)]
pub struct HeaderArgs {
    /// Chain of the Bitcoin attestations: mainnet or regtest.
    #[arg(long, default_value = "mainnet")]
    network: Network,
    /// Header cache directory (HEIGHT.hex files; default: ~/.cache/priorart/ots/headers/NETWORK).
    #[arg(long, value_name = "DIR")]
    headers: Option<PathBuf>,
    /// Use only cached headers: no network access.
    #[arg(long, conflicts_with_all = ["esplora", "bitcoind"])]
    offline: bool,
    /// Esplora REST server for headers not cached.
    #[arg(long, value_name = "URL", conflicts_with = "bitcoind")]
    esplora: Option<String>,
    /// bitcoind JSON-RPC URL for headers not cached (your own node).
    #[arg(long, value_name = "URL")]
    bitcoind: Option<String>,
    /// bitcoind's .cookie file, for --bitcoind.
    #[arg(long, value_name = "FILE", requires = "bitcoind")]
    rpc_cookie: Option<PathBuf>,
    /// Seconds each header request gets.
    #[arg(long, default_value_t = 10)]
    header_timeout: u64,
}

impl HeaderArgs {
    pub fn network(&self) -> Network {
        self.network
    }

    /// The cache, in front of the chosen upstream (none with --offline).
    pub fn source(&self) -> Result<Box<dyn HeaderSource>> {
        let cache = match self.headers.clone().or_else(|| HeaderCache::default_dir(self.network)) {
            Some(dir) => HeaderCache::in_dir(dir),
            None => HeaderCache::in_memory(),
        };
        let timeout = Duration::from_secs(self.header_timeout);
        let network = self.network;
        if self.offline {
            return Ok(Box::new(CachedSource::<Esplora>::new(cache, None, network)));
        }
        if let Some(url) = &self.bitcoind {
            let auth = self.rpc_cookie.clone().map_or(RpcAuth::None, RpcAuth::Cookie);
            return Ok(Box::new(CachedSource::new(
                cache,
                Some(BitcoinRpc::new(url, auth, timeout)),
                network,
            )));
        }
        let url = self.esplora.as_deref().unwrap_or(DEFAULT_ESPLORA);
        Ok(Box::new(CachedSource::new(cache, Some(Esplora::new(url, timeout)), network)))
    }
}
