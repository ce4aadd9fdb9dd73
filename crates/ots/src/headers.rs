//! Where Bitcoin block headers come from: a local cache, an Esplora REST
//! server, or bitcoind's JSON-RPC. None of them is trusted: [`verify`]
//! checks every header (see [`crate::checkpoints`]) whatever its source.
//!
//! [`verify`]: crate::verify

use crate::checkpoints::{Network, check_header};
use crate::http::{Http, HttpError, join};
use crate::op::{hex, unhex};
use bitcoin::BlockHash;
use bitcoin::block::Header;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

/// Largest answer a header source may send (a header is 160 hex digits).
const MAX_SOURCE_ANSWER: u64 = 64 * 1024;

/// A header as a source serves it: the hash it claims for the height, and
/// the header it gave for that hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedHeader {
    pub claimed_hash: BlockHash,
    pub header: Header,
}

/// Why a source gave no header.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("{source_name}: no block at height {height}")]
    NotFound { source_name: String, height: u64 },
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error("{source_name}: unexpected answer: {detail}")]
    BadAnswer { source_name: String, detail: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

/// Anything that can look up the Bitcoin block header at a height.
pub trait HeaderSource: Send + Sync {
    /// A short description for messages (`esplora https://…`).
    fn describe(&self) -> String;
    /// The block at `height` as this source sees it.
    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError>;
}

impl<S: HeaderSource + ?Sized> HeaderSource for Box<S> {
    fn describe(&self) -> String {
        (**self).describe()
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        (**self).header_at(height)
    }
}

/// Decodes an 80-byte header from 160 hex digits (surrounding whitespace
/// ignored).
pub fn header_from_hex(text: &str) -> Option<Header> {
    let bytes = unhex(text.trim())?;
    if bytes.len() != 80 {
        return None;
    }
    bitcoin::consensus::encode::deserialize(&bytes).ok()
}

/// The 160 hex digits of a header.
pub fn header_to_hex(header: &Header) -> String {
    hex(&bitcoin::consensus::encode::serialize(header))
}

/// Headers already seen, in memory and optionally in a directory of
/// `HEIGHT.hex` files (one header in hex per file), so repeated verification
/// needs no network. As a source it serves only what it holds; its contents
/// are checked like any other source's.
pub struct HeaderCache {
    dir: Option<PathBuf>,
    memory: Mutex<HashMap<u64, Header>>,
}

impl HeaderCache {
    /// A cache kept in memory only.
    pub fn in_memory() -> HeaderCache {
        HeaderCache { dir: None, memory: Mutex::new(HashMap::new()) }
    }

    /// A cache backed by `dir` (created on first write).
    pub fn in_dir(dir: impl Into<PathBuf>) -> HeaderCache {
        HeaderCache { dir: Some(dir.into()), memory: Mutex::new(HashMap::new()) }
    }

    /// The default directory for `network`: `$XDG_CACHE_HOME/priorart/ots/headers/NETWORK`
    /// (`~/.cache/…` without XDG_CACHE_HOME).
    pub fn default_dir(network: Network) -> Option<PathBuf> {
        let base = match std::env::var_os("XDG_CACHE_HOME").filter(|dir| !dir.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => PathBuf::from(std::env::var_os("HOME")?).join(".cache"),
        };
        Some(base.join("priorart/ots/headers").join(network.name()))
    }

    pub fn get(&self, height: u64) -> Result<Option<Header>, SourceError> {
        if let Some(header) = self.lock().get(&height) {
            return Ok(Some(*header));
        }
        let Some(path) = self.path(height) else { return Ok(None) };
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(io_error(&path, err)),
        };
        let header = header_from_hex(&text).ok_or_else(|| SourceError::Io {
            path: path.display().to_string(),
            message: "not an 80-byte header in hex".into(),
        })?;
        self.lock().insert(height, header);
        Ok(Some(header))
    }

    /// Stores a header (callers store only headers that passed the checks).
    pub fn put(&self, height: u64, header: &Header) -> Result<(), SourceError> {
        self.lock().insert(height, *header);
        let Some(path) = self.path(height) else { return Ok(()) };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            // Write then rename, so a reader never sees half a header.
            let temporary = path.with_extension(format!("hex.tmp{}", std::process::id()));
            std::fs::write(&temporary, header_to_hex(header) + "\n")?;
            std::fs::rename(&temporary, &path)
        };
        write().map_err(|err| io_error(&path, err))
    }

    fn path(&self, height: u64) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{height}.hex")))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Header>> {
        // A panic elsewhere cannot leave the map half-updated: every
        // operation on it is a single insert or lookup.
        self.memory.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn io_error(path: &Path, err: std::io::Error) -> SourceError {
    SourceError::Io { path: path.display().to_string(), message: err.to_string() }
}

impl HeaderSource for HeaderCache {
    fn describe(&self) -> String {
        match &self.dir {
            Some(dir) => format!("header cache {}", dir.display()),
            None => "header cache (memory)".into(),
        }
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        match self.get(height)? {
            Some(header) => Ok(SourcedHeader { claimed_hash: header.block_hash(), header }),
            None => Err(SourceError::NotFound { source_name: self.describe(), height }),
        }
    }
}

/// A cache in front of another source: answers from the cache when it can,
/// otherwise asks `upstream` and keeps what passes the header checks.
pub struct CachedSource<S> {
    cache: HeaderCache,
    upstream: Option<S>,
    network: Network,
}

impl<S: HeaderSource> CachedSource<S> {
    pub fn new(cache: HeaderCache, upstream: Option<S>, network: Network) -> Self {
        CachedSource { cache, upstream, network }
    }
}

impl<S: HeaderSource> HeaderSource for CachedSource<S> {
    fn describe(&self) -> String {
        match &self.upstream {
            Some(upstream) => format!("{} (via {})", upstream.describe(), self.cache.describe()),
            None => self.cache.describe(),
        }
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        if let Some(header) = self.cache.get(height)? {
            return Ok(SourcedHeader { claimed_hash: header.block_hash(), header });
        }
        let Some(upstream) = &self.upstream else {
            return Err(SourceError::NotFound { source_name: self.cache.describe(), height });
        };
        let sourced = upstream.header_at(height)?;
        if check_header(self.network, height, &sourced.claimed_hash, &sourced.header).is_ok() {
            // A cache write failure only costs a later download.
            let _ = self.cache.put(height, &sourced.header);
        }
        Ok(sourced)
    }
}

/// An Esplora REST server (blockstream.info/api, mempool.space/api, …):
/// `GET /block-height/H` then `GET /block/HASH/header`.
pub struct Esplora {
    base: String,
    http: Http,
}

impl Esplora {
    pub fn new(base_url: &str, timeout: Duration) -> Esplora {
        Esplora { base: base_url.trim_end_matches('/').to_owned(), http: Http::new(timeout) }
    }

    fn get_text(&self, path: &str, height: u64) -> Result<String, SourceError> {
        let url = join(&self.base, path);
        let answer = self.http.get(&url, &[], MAX_SOURCE_ANSWER)?;
        match answer.status {
            200 => String::from_utf8(answer.body).map_err(|_| self.bad_answer("not UTF-8 text")),
            404 => Err(SourceError::NotFound { source_name: self.describe(), height }),
            status => Err(self.bad_answer(&format!("HTTP status {status} for {url}"))),
        }
    }

    fn bad_answer(&self, detail: &str) -> SourceError {
        SourceError::BadAnswer { source_name: self.describe(), detail: detail.to_owned() }
    }
}

impl HeaderSource for Esplora {
    fn describe(&self) -> String {
        format!("esplora {}", self.base)
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        let hash_text = self.get_text(&format!("block-height/{height}"), height)?;
        let claimed_hash = BlockHash::from_str(hash_text.trim())
            .map_err(|_| self.bad_answer("block hash is not 64 hex digits"))?;
        let header_text = self.get_text(&format!("block/{claimed_hash}/header"), height)?;
        let header =
            header_from_hex(&header_text).ok_or_else(|| self.bad_answer("header is not 160 hex digits"))?;
        Ok(SourcedHeader { claimed_hash, header })
    }
}

/// How to log in to bitcoind.
#[derive(Clone)]
pub enum RpcAuth {
    /// The `.cookie` file bitcoind writes (`__cookie__:password`).
    Cookie(PathBuf),
    UserPassword {
        user: String,
        password: String,
    },
    None,
}

/// bitcoind's JSON-RPC: `getblockhash` then `getblockheader HASH false`.
pub struct BitcoinRpc {
    url: String,
    auth: RpcAuth,
    http: Http,
}

impl BitcoinRpc {
    pub fn new(url: &str, auth: RpcAuth, timeout: Duration) -> BitcoinRpc {
        BitcoinRpc { url: url.to_owned(), auth, http: Http::new(timeout) }
    }

    fn authorization(&self) -> Result<Option<String>, SourceError> {
        let credentials = match &self.auth {
            RpcAuth::None => return Ok(None),
            RpcAuth::UserPassword { user, password } => format!("{user}:{password}"),
            RpcAuth::Cookie(path) => {
                std::fs::read_to_string(path).map_err(|err| io_error(path, err))?.trim().to_owned()
            }
        };
        Ok(Some(format!("Basic {}", base64(credentials.as_bytes()))))
    }

    fn call(&self, method: &str, params: serde_json::Value, height: u64) -> Result<String, SourceError> {
        let request =
            serde_json::json!({"jsonrpc": "1.0", "id": "priorart", "method": method, "params": params});
        let authorization = self.authorization()?;
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(value) = &authorization {
            headers.push(("Authorization", value));
        }
        let answer =
            self.http.post(&self.url, &headers, request.to_string().as_bytes(), MAX_SOURCE_ANSWER)?;
        let bad = |detail: String| SourceError::BadAnswer { source_name: self.describe(), detail };
        if answer.status == 401 || answer.status == 403 {
            return Err(bad(format!("HTTP status {}: wrong RPC credentials", answer.status)));
        }
        let reply: serde_json::Value = serde_json::from_slice(&answer.body)
            .map_err(|_| bad(format!("HTTP status {}, not JSON", answer.status)))?;
        if let Some(error) = reply.get("error").filter(|error| !error.is_null()) {
            // -8: height out of range; -5: unknown block.
            if matches!(error.get("code").and_then(|code| code.as_i64()), Some(-8 | -5)) {
                return Err(SourceError::NotFound { source_name: self.describe(), height });
            }
            return Err(bad(format!("{method}: {error}")));
        }
        match reply.get("result").and_then(|result| result.as_str()) {
            Some(result) => Ok(result.to_owned()),
            None => Err(bad(format!("{method}: result is not a string"))),
        }
    }
}

impl HeaderSource for BitcoinRpc {
    fn describe(&self) -> String {
        format!("bitcoind {}", self.url)
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        let bad =
            |detail: &str| SourceError::BadAnswer { source_name: self.describe(), detail: detail.to_owned() };
        let hash_text = self.call("getblockhash", serde_json::json!([height]), height)?;
        let claimed_hash =
            BlockHash::from_str(&hash_text).map_err(|_| bad("block hash is not 64 hex digits"))?;
        let header_text =
            self.call("getblockheader", serde_json::json!([claimed_hash.to_string(), false]), height)?;
        let header = header_from_hex(&header_text).ok_or_else(|| bad("header is not 160 hex digits"))?;
        Ok(SourcedHeader { claimed_hash, header })
    }
}

/// Standard base64 with padding, for HTTP basic authentication.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word =
            chunk.iter().enumerate().fold(0u32, |word, (i, &byte)| word | u32::from(byte) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(word >> (18 - 6 * i) & 0x3f) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_matches_rfc4648() {
        for (plain, encoded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }
}
