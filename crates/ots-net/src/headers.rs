//! Header sources that need the outside world: a cache directory of
//! `HEIGHT.hex` files, an Esplora REST server, bitcoind's JSON-RPC. None of
//! them is trusted: `priorart_ots::verify` checks every header whatever its
//! source.

use crate::http::{Http, join};
use base64::prelude::{BASE64_STANDARD, Engine as _};
use priorart_files::write_atomic;
use priorart_ots::bitcoin::BlockHash;
use priorart_ots::bitcoin::block::Header;
use priorart_ots::checkpoints::{check_header, difficulty_is_tabled};
use priorart_ots::{
    HeaderSource, MemoryHeaders, Network, SourceError, SourcedHeader, TipHeight, header_from_hex,
    header_to_hex,
};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Largest answer a header source may send (a header is 160 hex digits).
const MAX_SOURCE_ANSWER: u64 = 64 * 1024;

/// Headers already seen, in memory and optionally in a directory of
/// `HEIGHT.hex` files (one header in hex per file), so repeated verification
/// needs no network. As a source it serves only what it holds; its contents
/// are checked like any other source's.
pub struct HeaderCache {
    dir: Option<PathBuf>,
    memory: MemoryHeaders,
    /// When the directory was last listed, and the highest height in it.
    listed: Mutex<Option<(Instant, Option<u64>)>>,
}

/// How long a listing of the directory answers [`HeaderCache::highest`]:
/// a relay's write policy asks it for every proof, and listing a cache of
/// thousands of headers each time cost more than the verification itself.
/// Headers this cache reads or stores count at once (they are in memory);
/// only those another process adds wait for the next listing.
const LISTING_LIFETIME: Duration = Duration::from_secs(1);

impl HeaderCache {
    /// A cache kept in memory only.
    pub fn in_memory() -> HeaderCache {
        HeaderCache { dir: None, memory: MemoryHeaders::new(), listed: Mutex::new(None) }
    }

    /// A cache backed by `dir` (created on first write).
    pub fn in_dir(dir: impl Into<PathBuf>) -> HeaderCache {
        HeaderCache { dir: Some(dir.into()), memory: MemoryHeaders::new(), listed: Mutex::new(None) }
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

    /// The header at `height` if held (in memory or in the directory).
    pub fn get(&self, height: u64) -> Result<Option<Header>, SourceError> {
        if let Some(header) = self.memory.get(height) {
            return Ok(Some(header));
        }
        let Some(path) = self.path(height) else { return Ok(None) };
        let Some(text) = read_header_file(&path)? else { return Ok(None) };
        let header = std::str::from_utf8(&text).ok().and_then(header_from_hex).ok_or_else(|| {
            SourceError::BadAnswer {
                source_name: path.display().to_string(),
                detail: "not an 80-byte header in hex".into(),
            }
        })?;
        self.memory.insert(height, header);
        Ok(Some(header))
    }

    /// Stores a header (callers store only headers that passed the checks).
    pub fn put(&self, height: u64, header: &Header) -> Result<(), SourceError> {
        self.memory.insert(height, *header);
        let Some(path) = self.path(height) else { return Ok(()) };
        write_atomic(&path, (header_to_hex(header) + "\n").as_bytes())
            .map_err(|err| SourceError::unavailable(path.display().to_string(), err))
    }

    /// The highest height cached, in memory or in the directory (`HEIGHT.hex`,
    /// listed at most once every [`LISTING_LIFETIME`]).
    pub fn highest(&self) -> Result<Option<u64>, SourceError> {
        let in_memory = self.memory.highest();
        let Some(dir) = &self.dir else { return Ok(in_memory) };
        let mut listed = self.listed.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let in_dir = match *listed {
            Some((at, highest)) if at.elapsed() < LISTING_LIFETIME => highest,
            _ => {
                let highest = highest_in(dir)?;
                *listed = Some((Instant::now(), highest));
                highest
            }
        };
        Ok(in_memory.max(in_dir))
    }

    fn path(&self, height: u64) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{height}.hex")))
    }
}

/// Longest `HEIGHT.hex` file read: 160 hex digits and a line ending, with
/// room for stray whitespace. A longer file is not a header, and is not
/// read whole.
const MAX_HEADER_FILE_BYTES: u64 = 256;

/// The bytes of a cached header file (`None` when there is none), at most
/// [`MAX_HEADER_FILE_BYTES`] and one more, so a longer file fails to parse.
/// An `open` and, for a whole header, one `read` (no `stat`, no second read
/// to see the end): a relay's policy reads a header it has not seen for
/// each such proof.
fn read_header_file(path: &Path) -> Result<Option<Vec<u8>>, SourceError> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(io_error(path, err)),
    };
    let mut text = vec![0; MAX_HEADER_FILE_BYTES as usize + 1];
    let mut filled = 0;
    // A whole header line ends the reading; so does the end of the file.
    while filled < text.len() && !text[..filled].ends_with(b"\n") {
        match file.read(&mut text[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(io_error(path, err)),
        }
    }
    text.truncate(filled);
    Ok(Some(text))
}

/// The highest `HEIGHT.hex` in `dir` (none when `dir` does not exist).
fn highest_in(dir: &Path) -> Result<Option<u64>, SourceError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(io_error(dir, err)),
    };
    let mut highest = None;
    for entry in entries {
        let name = entry.map_err(|err| io_error(dir, err))?.file_name();
        let height = name.to_str().and_then(|name| name.strip_suffix(".hex")).and_then(|h| h.parse().ok());
        highest = highest.max(height);
    }
    Ok(highest)
}

fn io_error(path: &Path, err: std::io::Error) -> SourceError {
    SourceError::unavailable(path.display().to_string(), err)
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

    /// The highest header cached: as far as the cache knows.
    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        match self.highest()? {
            Some(height) => Ok(TipHeight { height, as_far_as_held: true }),
            None => Err(SourceError::NoTip { source_name: self.describe() }),
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
    /// `upstream` is asked only for what `cache` lacks; `None` means offline.
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
        // Where the header's own checks are complete, keep it now; past the
        // checkpoint table its difficulty needs the period boundaries, so
        // it is kept only once the verifier confirms it.
        if difficulty_is_tabled(self.network, height)
            && check_header(self.network, height, &sourced.claimed_hash, &sourced.header).is_ok()
        {
            // A cache write failure only costs a later download.
            let _ = self.cache.put(height, &sourced.header);
        }
        Ok(sourced)
    }

    fn confirmed(&self, height: u64, header: &Header) {
        if self.cache.get(height).ok().flatten().is_none() {
            let _ = self.cache.put(height, header);
        }
    }

    /// The upstream's tip; without one, the cache's highest header.
    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        match &self.upstream {
            Some(upstream) => upstream.tip_height(),
            None => self.cache.tip_height(),
        }
    }
}

/// An Esplora REST server (blockstream.info/api, mempool.space/api, …):
/// `GET /block-height/H` then `GET /block/HASH/header`.
pub struct Esplora {
    base: String,
    http: Http,
}

impl Esplora {
    /// An Esplora server at `base_url`; every request gets `timeout`.
    pub fn new(base_url: &str, timeout: Duration) -> Esplora {
        Esplora { base: base_url.trim_end_matches('/').to_owned(), http: Http::new(timeout) }
    }

    fn get_text(&self, path: &str, height: u64) -> Result<String, SourceError> {
        let url = join(&self.base, path);
        let answer = self.http.get(&url, &[], MAX_SOURCE_ANSWER).map_err(|err| self.unavailable(err))?;
        match answer.status {
            200 => String::from_utf8(answer.body).map_err(|_| self.bad_answer("not UTF-8 text")),
            404 => Err(SourceError::NotFound { source_name: self.describe(), height }),
            status => Err(self.bad_answer(&format!("HTTP status {status} for {url}"))),
        }
    }

    fn unavailable(&self, err: crate::HttpError) -> SourceError {
        SourceError::unavailable(self.describe(), err)
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

    /// `GET /blocks/tip/height`.
    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        let url = join(&self.base, "blocks/tip/height");
        let answer = self.http.get(&url, &[], MAX_SOURCE_ANSWER).map_err(|err| self.unavailable(err))?;
        if answer.status != 200 {
            return Err(self.bad_answer(&format!("HTTP status {} for {url}", answer.status)));
        }
        let height = std::str::from_utf8(&answer.body).ok().and_then(|text| text.trim().parse().ok());
        let height = height.ok_or_else(|| self.bad_answer("the tip height is not a number"))?;
        Ok(TipHeight { height, as_far_as_held: false })
    }
}

/// How to log in to bitcoind.
#[derive(Clone)]
pub enum RpcAuth {
    /// The `.cookie` file bitcoind writes (`__cookie__:password`).
    Cookie(PathBuf),
    /// A user name and password (`-rpcuser`/`-rpcpassword` or `-rpcauth`).
    UserPassword {
        /// The RPC user.
        user: String,
        /// The RPC password.
        password: String,
    },
    /// No authentication (a proxy in front adds it).
    None,
}

/// bitcoind's JSON-RPC: `getblockhash` then `getblockheader HASH false`.
pub struct BitcoinRpc {
    url: String,
    auth: RpcAuth,
    http: Http,
}

impl BitcoinRpc {
    /// bitcoind at `url`, logged in with `auth`; every call gets `timeout`.
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
        Ok(Some(format!("Basic {}", BASE64_STANDARD.encode(credentials))))
    }

    fn call(
        &self,
        method: &str,
        params: serde_json::Value,
        height: u64,
    ) -> Result<serde_json::Value, SourceError> {
        let request =
            serde_json::json!({"jsonrpc": "1.0", "id": "priorart", "method": method, "params": params});
        let authorization = self.authorization()?;
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(value) = &authorization {
            headers.push(("Authorization", value));
        }
        let answer = self
            .http
            .post(&self.url, &headers, request.to_string().as_bytes(), MAX_SOURCE_ANSWER)
            .map_err(|err| SourceError::unavailable(self.describe(), err))?;
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
        match reply.get("result") {
            Some(result) if !result.is_null() => Ok(result.clone()),
            _ => Err(bad(format!("{method}: no result"))),
        }
    }

    /// [`Self::call`] for a method whose result is a string.
    fn call_for_text(
        &self,
        method: &str,
        params: serde_json::Value,
        height: u64,
    ) -> Result<String, SourceError> {
        match self.call(method, params, height)? {
            serde_json::Value::String(text) => Ok(text),
            _ => Err(SourceError::BadAnswer {
                source_name: self.describe(),
                detail: format!("{method}: result is not a string"),
            }),
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
        let hash_text = self.call_for_text("getblockhash", serde_json::json!([height]), height)?;
        let claimed_hash =
            BlockHash::from_str(&hash_text).map_err(|_| bad("block hash is not 64 hex digits"))?;
        let header_text = self.call_for_text(
            "getblockheader",
            serde_json::json!([claimed_hash.to_string(), false]),
            height,
        )?;
        let header = header_from_hex(&header_text).ok_or_else(|| bad("header is not 160 hex digits"))?;
        Ok(SourcedHeader { claimed_hash, header })
    }

    /// `getblockcount`.
    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        let count = self.call("getblockcount", serde_json::json!([]), 0)?;
        let height = count.as_u64().ok_or_else(|| SourceError::BadAnswer {
            source_name: self.describe(),
            detail: "getblockcount: result is not a height".into(),
        })?;
        Ok(TipHeight { height, as_far_as_held: false })
    }
}
