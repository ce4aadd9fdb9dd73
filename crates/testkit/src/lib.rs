//! Real components for priorart's end-to-end tests, shared by every crate's
//! tests and never by a library: a regtest chain of mined headers, a
//! loopback calendar that aggregates what it is sent into blocks of that
//! chain, loopback Esplora and bitcoind JSON-RPC servers, and the plain
//! [`LoopbackServer`] they are built on (for servers that lie or hang);
//! [`ScriptedRelay`], a nostr relay that answers as a test scripts it;
//! [`TestBunker`], a NIP-46 remote signer on a real relay.
//! Everything listens on 127.0.0.1 with an OS-chosen port and stops when
//! dropped.
//!
//! ```no_run
//! use priorart_testkit::{EsploraServer, RegtestChain, TestCalendar};
//! let chain = RegtestChain::shared();
//! let calendar = TestCalendar::start(chain.clone());
//! let esplora = EsploraServer::from_chain(chain.clone());
//! // stamp_digests(…, calendars: [calendar.url()]) → calendar.mine_block()
//! // → upgrade(… allow-list [calendar.url()]) → verify(…, Esplora::new(&esplora.url(), …), Network::Regtest)
//! ```

#![forbid(unsafe_code)]

mod bunker;
mod fuzz;
pub mod peers;
mod relay;

pub use bunker::{Behaviour, TestBunker};
pub use fuzz::{FUZZ_ARCHIVE_CAP_BYTES, Replayed, replay_fuzz_corpus};
pub use relay::{Frame, ScriptedRelay};

use priorart_ots::bitcoin::block::{Header, Version};
use priorart_ots::bitcoin::hashes::Hash;
use priorart_ots::bitcoin::pow::CompactTarget;
use priorart_ots::bitcoin::{self, BlockHash, TxMerkleNode};
use priorart_ots::hex::{decode as unhex, encode as hex};
use priorart_ots::{Attestation, HashOp, MemoryHeaders, MerkleTree, Op, Timestamp, header_to_hex};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Regtest's proof-of-work limit: about two tries per block.
pub const REGTEST_BITS: u32 = 0x207f_ffff;

/// A regtest chain shared between a calendar and an Esplora server.
pub type SharedChain = Arc<Mutex<RegtestChain>>;

/// A chain of real regtest headers, each mined to meet `0x207fffff`.
pub struct RegtestChain {
    headers: Vec<Header>,
}

impl RegtestChain {
    /// A chain holding regtest's genesis block (height 0).
    pub fn new() -> RegtestChain {
        let genesis = bitcoin::blockdata::constants::genesis_block(bitcoin::Network::Regtest).header;
        RegtestChain { headers: vec![genesis] }
    }

    /// A new chain, shared (a calendar mines into it, servers read it).
    pub fn shared() -> SharedChain {
        Arc::new(Mutex::new(RegtestChain::new()))
    }

    /// The height of the last block (0 for a new chain).
    pub fn tip_height(&self) -> u64 {
        self.headers.len() as u64 - 1
    }

    /// The header at `height`, if the chain is that long.
    pub fn header(&self, height: u64) -> Option<&Header> {
        self.headers.get(usize::try_from(height).ok()?)
    }

    /// Every header of the chain, as a header source holding them.
    pub fn memory_headers(&self) -> MemoryHeaders {
        (0..).zip(self.headers.iter().copied()).collect()
    }

    /// Mines a block whose merkle root is `merkle_root`; returns its height.
    pub fn mine_block(&mut self, merkle_root: [u8; 32]) -> u64 {
        let prev = self.headers[self.headers.len() - 1];
        let mut header = Header {
            version: Version::from_consensus(0x2000_0000),
            prev_blockhash: prev.block_hash(),
            merkle_root: TxMerkleNode::from_byte_array(merkle_root),
            time: prev.time + 600,
            bits: CompactTarget::from_consensus(REGTEST_BITS),
            nonce: 0,
        };
        mine(&mut header);
        self.headers.push(header);
        self.tip_height()
    }

    /// Mines a block with a coinbase-like transaction whose OP_RETURN output
    /// carries `commitment` (32 bytes), next to one other transaction, and
    /// returns the proof from `commitment` to the block — the ops a real
    /// calendar's proof has: into the transaction, double SHA-256 to its
    /// txid, up the block's merkle tree — ending in a Bitcoin attestation.
    pub fn commit(&mut self, commitment: &[u8]) -> (u64, Timestamp) {
        let height = self.tip_height() + 1;
        let (prefix, suffix) = coinbase_around_commitment(height, commitment.len());
        let tx = [&prefix[..], commitment, &suffix[..]].concat();
        let txid = sha256d(&tx);
        // A second transaction, so the proof climbs one merkle level.
        let other_txid = sha256d(&height.to_le_bytes());
        let merkle_root = sha256d(&[&txid[..], &other_txid[..]].concat());
        let mut root = [0u8; 32];
        root.copy_from_slice(&merkle_root);
        let height = self.mine_block(root);
        let sha256 = || Op::Hash(HashOp::Sha256);
        let ops = vec![
            Op::Prepend(prefix),
            Op::Append(suffix),
            sha256(),
            sha256(),
            Op::Append(other_txid),
            sha256(),
            sha256(),
        ];
        let mut tip = Timestamp::default();
        tip.add_attestation(Attestation::Bitcoin { height });
        (height, Timestamp::from_path(ops, tip))
    }
    /// Commits the SHA-256 digest `digest` to a new block, as
    /// [`commit`](RegtestChain::commit) does, and returns the block's height
    /// and the detached `.ots` file a stamping client would hold: magic,
    /// version 1, SHA-256 as the file hash, the digest, then the proof.
    pub fn stamp(&mut self, digest: &[u8; 32]) -> (u64, Vec<u8>) {
        let (height, timestamp) = self.commit(digest);
        (height, ots_file(digest, &timestamp))
    }

    /// Commits every digest of `digests` to one new block, as a calendar
    /// does a round's submissions: each digest with its own nonce, under one
    /// merkle tree whose root goes into the block. Returns the block's
    /// height and one `.ots` file per digest, in order.
    pub fn stamp_all(&mut self, digests: &[[u8; 32]]) -> (u64, Vec<Vec<u8>>) {
        let nonce = |index: usize| (index as u128).to_le_bytes().to_vec();
        let commitments = digests
            .iter()
            .enumerate()
            .map(|(index, digest)| HashOp::Sha256.hash(&[&digest[..], &nonce(index)[..]].concat()));
        let tree = MerkleTree::new(commitments.collect());
        let (height, to_block) = self.commit(tree.root());
        let files = digests.iter().zip(tree.into_paths()).enumerate().map(|(index, (digest, path))| {
            let ops = [vec![Op::Append(nonce(index)), Op::Hash(HashOp::Sha256)], path].concat();
            ots_file(digest, &Timestamp::from_path(ops, to_block.clone()))
        });
        (height, files.collect())
    }
}

/// The detached `.ots` file of `digest`: magic, version 1, SHA-256 as the
/// file hash, the digest, then its proof.
fn ots_file(digest: &[u8; 32], timestamp: &Timestamp) -> Vec<u8> {
    let mut ots = priorart_ots::MAGIC.to_vec();
    ots.extend([0x01, HashOp::Sha256.tag()]);
    ots.extend(digest);
    ots.extend(timestamp.to_bytes());
    ots
}

impl Default for RegtestChain {
    fn default() -> Self {
        RegtestChain::new()
    }
}

/// Finds a nonce that makes `header` meet its own target.
pub fn mine(header: &mut Header) {
    while !header.target().is_met_by(header.block_hash()) {
        header.nonce = header.nonce.wrapping_add(1);
        if header.nonce == 0 {
            header.time += 1;
        }
    }
}

fn sha256d(bytes: &[u8]) -> Vec<u8> {
    HashOp::Sha256.hash(&HashOp::Sha256.hash(bytes))
}

/// A version-1 transaction with one coinbase input (height in the script)
/// and one `OP_RETURN <commitment>` output, split around the commitment.
fn coinbase_around_commitment(height: u64, commitment_len: usize) -> (Vec<u8>, Vec<u8>) {
    let mut prefix = vec![1, 0, 0, 0, 1];
    prefix.extend([0u8; 32]);
    prefix.extend([0xff; 4]);
    let height_bytes = height.to_le_bytes();
    prefix.extend([4, 3]);
    prefix.extend(&height_bytes[..3]);
    prefix.extend([0xff; 4]);
    prefix.push(1);
    prefix.extend([0u8; 8]);
    prefix.extend([commitment_len as u8 + 2, 0x6a, commitment_len as u8]);
    (prefix, vec![0, 0, 0, 0])
}

/// A loopback HTTP server calling `handler(method, url, body)` for each
/// request, on its own thread. Stops when dropped.
pub struct LoopbackServer {
    url: String,
    server: Arc<tiny_http::Server>,
    stop: Arc<AtomicBool>,
}

/// `(status, body)` of an answer.
pub type Reply = (u16, Vec<u8>);

impl LoopbackServer {
    /// Serves every request with `handler(method, path, body)`.
    pub fn start(handler: impl Fn(&str, &str, &[u8]) -> Reply + Send + Sync + 'static) -> LoopbackServer {
        LoopbackServer::start_guarded(None, false, handler)
    }

    /// Like [`LoopbackServer::start`], with `Access-Control-Allow-Origin: *`
    /// on every answer, as public Esplora servers answer: a web page of any
    /// origin may read them.
    pub fn start_public(
        handler: impl Fn(&str, &str, &[u8]) -> Reply + Send + Sync + 'static,
    ) -> LoopbackServer {
        LoopbackServer::start_guarded(None, true, handler)
    }

    /// Like [`LoopbackServer::start`], but answers 401 to every request whose
    /// `Authorization` header is not exactly `authorization`.
    pub fn start_authenticated(
        authorization: String,
        handler: impl Fn(&str, &str, &[u8]) -> Reply + Send + Sync + 'static,
    ) -> LoopbackServer {
        LoopbackServer::start_guarded(Some(authorization), false, handler)
    }

    fn start_guarded(
        authorization: Option<String>,
        public: bool,
        handler: impl Fn(&str, &str, &[u8]) -> Reply + Send + Sync + 'static,
    ) -> LoopbackServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind a loopback port"));
        let port = server.server_addr().to_ip().map(|addr| addr.port()).expect("an IP listener");
        let stop = Arc::new(AtomicBool::new(false));
        let handler = Arc::new(handler);
        let authorization = Arc::new(authorization);
        let (accepting, stopping) = (server.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stopping.load(Ordering::SeqCst) {
                let Ok(Some(mut request)) = accepting.recv_timeout(Duration::from_millis(100)) else {
                    continue;
                };
                let (handler, authorization) = (handler.clone(), authorization.clone());
                // One thread per request, so a slow answer blocks no other.
                std::thread::spawn(move || {
                    let mut body = Vec::new();
                    let _ = request.as_reader().take(1 << 20).read_to_end(&mut body);
                    let (status, reply) = if authorized(&request, authorization.as_deref()) {
                        handler(request.method().as_str(), request.url(), &body)
                    } else {
                        (401, Vec::new())
                    };
                    let mut response = tiny_http::Response::from_data(reply).with_status_code(status);
                    if public {
                        response.add_header(any_origin());
                    }
                    let _ = request.respond(response);
                });
            }
        });
        LoopbackServer { url: format!("http://127.0.0.1:{port}"), server, stop }
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        self.url.clone()
    }
}

fn any_origin() -> tiny_http::Header {
    tiny_http::Header::from_bytes(&b"Access-Control-Allow-Origin"[..], &b"*"[..]).expect("a valid header")
}

fn authorized(request: &tiny_http::Request, expected: Option<&str>) -> bool {
    let Some(expected) = expected else { return true };
    request
        .headers()
        .iter()
        .any(|header| header.field.equiv("Authorization") && header.value.as_str() == expected)
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.server.unblock();
    }
}

/// How a [`TestCalendar`] behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behavior {
    /// Answers as a real calendar does.
    Honest,
    /// Answers every request with 200 and bytes that are no timestamp.
    Garbage,
    /// Answers nothing for this long.
    Hang(Duration),
    /// Stamps like an honest calendar, but its upgraded proofs claim this
    /// block height for a root it never put in a block: a block whose
    /// merkle root is something else, or one the chain never had.
    Lying {
        /// The block height the lying proofs claim.
        claimed_height: u64,
    },
}

#[derive(Default)]
struct CalendarState {
    pending: Vec<Vec<u8>>,
    complete: HashMap<Vec<u8>, Vec<u8>>,
    submissions: usize,
}

/// A calendar on loopback: `POST /digest` answers like a real calendar
/// (append a nonce, sha256, pending attestation with this calendar's URL);
/// [`TestCalendar::mine_block`] aggregates everything pending into one
/// regtest block; `GET /timestamp/<hex>` then serves the complete proofs.
pub struct TestCalendar {
    server: LoopbackServer,
    chain: SharedChain,
    state: Arc<Mutex<CalendarState>>,
    behavior: Behavior,
}

impl TestCalendar {
    /// An honest calendar that anchors into `chain`.
    pub fn start(chain: SharedChain) -> TestCalendar {
        TestCalendar::start_with(chain, Behavior::Honest)
    }

    /// A calendar on `chain` that behaves as `behavior` says.
    pub fn start_with(chain: SharedChain, behavior: Behavior) -> TestCalendar {
        let state = Arc::new(Mutex::new(CalendarState::default()));
        let url = Arc::new(Mutex::new(String::new()));
        let (handler_state, handler_url) = (state.clone(), url.clone());
        let server = LoopbackServer::start(move |method, path, body| match behavior {
            Behavior::Garbage => (200, b"\xff\xff garbage".to_vec()),
            Behavior::Hang(pause) => {
                std::thread::sleep(pause);
                (500, Vec::new())
            }
            Behavior::Honest | Behavior::Lying { .. } => {
                let url = lock(&handler_url).clone();
                answer(&mut lock(&handler_state), &url, method, path, body)
            }
        });
        *lock(&url) = server.url();
        TestCalendar { server, chain, state, behavior }
    }

    /// The server's base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// How many digests were submitted.
    pub fn submissions(&self) -> usize {
        lock(&self.state).submissions
    }

    /// Puts every pending commitment into one new block (merkle tree of the
    /// commitments, its root in the block's coinbase-like transaction) and
    /// returns the block's height, or `None` if nothing was pending. A
    /// [`Behavior::Lying`] calendar mines nothing: its proofs end at the
    /// tree's root with a Bitcoin attestation of the height it claims.
    pub fn mine_block(&self) -> Option<u64> {
        let mut state = lock(&self.state);
        if state.pending.is_empty() {
            return None;
        }
        let commitments = std::mem::take(&mut state.pending);
        let tree = MerkleTree::new(commitments.clone());
        let (height, to_block) = match self.behavior {
            Behavior::Lying { claimed_height } => {
                let mut tip = Timestamp::default();
                tip.add_attestation(Attestation::Bitcoin { height: claimed_height });
                (claimed_height, tip)
            }
            _ => lock(&self.chain).commit(tree.root()),
        };
        for (commitment, path) in commitments.into_iter().zip(tree.into_paths()) {
            let proof = Timestamp::from_path(path, to_block.clone());
            state.complete.insert(commitment, proof.to_bytes());
        }
        Some(height)
    }
}

fn answer(state: &mut CalendarState, url: &str, method: &str, path: &str, body: &[u8]) -> Reply {
    match (method, path) {
        ("POST", "/digest") if !body.is_empty() && body.len() <= 64 => {
            state.submissions += 1;
            let mut nonce = [0u8; 16];
            nonce[..8].copy_from_slice(&(state.submissions as u64).to_le_bytes());
            let commitment = HashOp::Sha256.hash(&[body, &nonce].concat());
            let mut tip = Timestamp::default();
            tip.add_attestation(Attestation::Pending { uri: url.to_owned() });
            let proof = Timestamp::from_path(vec![Op::Append(nonce.to_vec()), Op::Hash(HashOp::Sha256)], tip);
            state.pending.push(commitment);
            (200, proof.to_bytes())
        }
        ("GET", _) if path.starts_with("/timestamp/") => {
            let commitment = unhex(&path["/timestamp/".len()..]).unwrap_or_default();
            if let Some(proof) = state.complete.get(&commitment) {
                (200, proof.clone())
            } else if state.pending.contains(&commitment) {
                (404, b"Pending confirmation in Bitcoin blockchain".to_vec())
            } else {
                (404, format!("Commitment {} not found", hex(&commitment)).into_bytes())
            }
        }
        _ => (400, b"bad request".to_vec()),
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// An Esplora REST server on loopback: `GET /blocks/tip/height`, `GET /block-height/H`,
/// `GET /block/HASH/header`; readable by web pages of any origin, as public
/// Esplora servers are.
pub struct EsploraServer {
    server: LoopbackServer,
}

impl EsploraServer {
    /// Serves the headers of a (growing) regtest chain.
    pub fn from_chain(chain: SharedChain) -> EsploraServer {
        let tip_chain = chain.clone();
        EsploraServer::start_with_tip(
            move |height| {
                let chain = lock(&chain);
                chain.header(height).map(|header| (header.block_hash(), *header))
            },
            move || Some(lock(&tip_chain).tip_height()),
        )
    }

    /// Serves fixed answers: for each height, the hash it claims and the
    /// header it serves under that hash (which may be a lie).
    /// The tip is the highest height given.
    pub fn from_headers(headers: Vec<(u64, BlockHash, Header)>) -> EsploraServer {
        let tip = headers.iter().map(|(height, _, _)| *height).max();
        EsploraServer::start_with_tip(
            move |height| {
                headers.iter().find(|(h, _, _)| *h == height).map(|(_, hash, header)| (*hash, *header))
            },
            move || tip,
        )
    }

    /// Serves whatever `lookup` answers for a height: the hash it claims and
    /// the header served under that hash (`None`: 404); no tip height (404).
    pub fn start_with(
        lookup: impl Fn(u64) -> Option<(BlockHash, Header)> + Send + Sync + 'static,
    ) -> EsploraServer {
        EsploraServer::start_with_tip(lookup, || None)
    }

    /// [`EsploraServer::start_with`], with `GET /blocks/tip/height`
    /// answering what `tip` says (`None`: 404).
    pub fn start_with_tip(
        lookup: impl Fn(u64) -> Option<(BlockHash, Header)> + Send + Sync + 'static,
        tip: impl Fn() -> Option<u64> + Send + Sync + 'static,
    ) -> EsploraServer {
        let by_hash: Arc<Mutex<HashMap<String, Header>>> = Arc::default();
        let server = LoopbackServer::start_public(move |method, path, _| {
            if method != "GET" {
                return (405, Vec::new());
            }
            if path == "/blocks/tip/height" {
                return match tip() {
                    Some(height) => (200, height.to_string().into_bytes()),
                    None => (404, b"Not found".to_vec()),
                };
            }
            if let Some(height) = path.strip_prefix("/block-height/").and_then(|h| h.parse::<u64>().ok()) {
                return match lookup(height) {
                    Some((hash, header)) => {
                        lock(&by_hash).insert(hash.to_string(), header);
                        (200, hash.to_string().into_bytes())
                    }
                    None => (404, b"Block not found".to_vec()),
                };
            }
            let hash = path.strip_prefix("/block/").and_then(|rest| rest.strip_suffix("/header"));
            match hash.and_then(|hash| lock(&by_hash).get(hash).copied()) {
                Some(header) => (200, header_to_hex(&header).into_bytes()),
                None => (404, b"Block not found".to_vec()),
            }
        });
        EsploraServer { server }
    }

    /// The server's base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        self.server.url()
    }
}

/// A bitcoind JSON-RPC endpoint on loopback serving a (growing) regtest
/// chain: `getblockcount`, `getblockhash HEIGHT` and `getblockheader HASH false`, with
/// bitcoind's error codes (-8 height out of range, -5 unknown block), behind
/// HTTP basic authentication.
pub struct BitcoindServer {
    server: LoopbackServer,
}

impl BitcoindServer {
    /// `authorization` is the whole `Authorization` header value expected,
    /// e.g. `Basic dXNlcjpwYXNz`.
    pub fn start(chain: SharedChain, authorization: String) -> BitcoindServer {
        let server = LoopbackServer::start_authenticated(authorization, move |method, _, body| {
            if method != "POST" {
                return (405, Vec::new());
            }
            let Ok(call) = serde_json::from_slice::<serde_json::Value>(body) else {
                return (
                    500,
                    b"{\"result\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error\"}}".to_vec(),
                );
            };
            let reply = bitcoind_call(&lock(&chain), &call);
            (200, reply.to_string().into_bytes())
        });
        BitcoindServer { server }
    }

    /// The server's base URL (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        self.server.url()
    }
}

fn bitcoind_call(chain: &RegtestChain, call: &serde_json::Value) -> serde_json::Value {
    let id = call["id"].clone();
    let params = &call["params"];
    let result = match call["method"].as_str() {
        Some("getblockcount") => Ok(serde_json::Value::from(chain.tip_height())),
        Some("getblockhash") => params[0]
            .as_u64()
            .and_then(|height| chain.header(height))
            .map(|header| header.block_hash().to_string().into())
            .ok_or((-8, "Block height out of range")),
        Some("getblockheader") if params[1] == serde_json::Value::Bool(false) => {
            let wanted = params[0].as_str().unwrap_or_default();
            (0..=chain.tip_height())
                .filter_map(|height| chain.header(height))
                .find(|header| header.block_hash().to_string() == wanted)
                .map(|header| header_to_hex(header).into())
                .ok_or((-5, "Block not found"))
        }
        _ => Err((-32601, "Method not found")),
    };
    match result {
        Ok(value) => serde_json::json!({"result": value, "error": null, "id": id}),
        Err((code, message)) => {
            serde_json::json!({"result": null, "error": {"code": code, "message": message}, "id": id})
        }
    }
}

/// A loopback port nothing listens on now: the OS picks a free one, which
/// is released at once. For a server that cannot pick its own port (it
/// binds it next), or a peer that must be down (connections refused).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

/// Fails unless every test file of `CRATE_DIR/tests` (`NAME.rs`, or a
/// helper `NAME/mod.rs`) is declared `mod NAME;` in `root`, the source of
/// the crate's one integration-test binary (`tests/tests.rs`). Those crates
/// set `autotests = false`, so an undeclared file would never run.
pub fn assert_every_test_file_is_a_module(crate_dir: &str, root: &str) {
    let tests = Path::new(crate_dir).join("tests");
    let declared: Vec<&str> =
        root.lines().filter_map(|line| line.trim().strip_prefix("mod ")?.strip_suffix(';')).collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&tests).expect("a readable tests directory") {
        let path = entry.expect("a readable tests directory").path();
        let name = match path.file_name().and_then(|name| name.to_str()) {
            Some("tests.rs") | None => continue,
            Some(file) if path.is_file() => match file.strip_suffix(".rs") {
                Some(module) => module.to_owned(),
                None => continue,
            },
            Some(dir) if path.join("mod.rs").is_file() => dir.to_owned(),
            Some(_) => continue,
        };
        if !declared.contains(&name.as_str()) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/tests.rs does not declare `mod NAME;` for {missing:?}: they would never run"
    );
}

/// Every entry directly in `dir` with its bytes (a directory's empty),
/// sorted by name: what a failed or interrupted run must leave as it was.
pub fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|entry| {
            let path = entry.expect("a readable directory").path();
            let bytes =
                if path.is_dir() { Vec::new() } else { std::fs::read(&path).expect("a readable file") };
            (path.file_name().expect("a named entry").to_string_lossy().into_owned(), bytes)
        })
        .collect();
    files.sort();
    files
}

/// A named pipe at `path` (`mkfifo`). Given as a command's last input, it
/// keeps the command reading, its earlier inputs read and its signal
/// handlers set, until it is opened for writing ([`interrupt_reader`]).
pub fn named_pipe(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Interrupts `child` while it reads `pipe` (a [`named_pipe`] it reads,
/// opened for writing): one more JSON Lines record written, SIGINT sent,
/// the pipe closed. Returns its standard error (piped) once it has exited
/// 130, as an interrupted command does.
pub fn interrupt_reader(child: std::process::Child, mut pipe: std::fs::File) -> String {
    use std::io::Write;
    writeln!(pipe, r#"{{"text": "late words"}}"#).expect("the reader takes a record");
    let pid = child.id().to_string();
    assert!(std::process::Command::new("kill").args(["-INT", &pid]).status().expect("kill runs").success());
    drop(pipe);
    let output = child.wait_with_output().expect("the interrupted command exits");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    stderr
}
