//! Where Bitcoin block headers come from, as a trait: [`HeaderSource`].
//! The network and file sources (Esplora, bitcoind, the header cache
//! directory) live in `priorart-ots-net`; here is only what verification
//! needs, and [`MemoryHeaders`] for headers already at hand. No source is
//! trusted: [`verify`] checks every header (see [`crate::checkpoints`])
//! whatever its source.
//!
//! [`verify`]: crate::verify

use bitcoin::BlockHash;
use bitcoin::block::Header;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A header as a source serves it: the hash it claims for the height, and
/// the header it gave for that hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcedHeader {
    /// The hash the source says the block at the height has.
    pub claimed_hash: BlockHash,
    /// The header it served for that hash (checked against it by the verifier).
    pub header: Header,
}

/// The cause of a source failure, kept whole (an HTTP error, an
/// `std::io::Error` with its kind) behind a shared pointer so that reports
/// holding it stay cheap to clone.
pub type Cause = Arc<dyn std::error::Error + Send + Sync>;

/// Why a source gave no header. Every variant means "could not check", not
/// "the proof is false": a verifier reports it as unverified.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant is documented by its #[error] message, which names its fields
pub enum SourceError {
    /// The source has no block at that height (yet).
    #[error("{source_name}: no block at height {height}")]
    NotFound { source_name: String, height: u64 },
    /// The source could not be reached or read (network, timeout, file).
    #[error("{source_name} is unavailable")]
    Unavailable {
        source_name: String,
        #[source]
        cause: Cause,
    },
    /// The source answered something that is not a header.
    #[error("{source_name}: unexpected answer: {detail}")]
    BadAnswer { source_name: String, detail: String },
    /// The source cannot say which block is the tip of its chain.
    #[error("{source_name}: no tip height known")]
    NoTip { source_name: String },
}

reason_names!(SourceError {
    NotFound => "not_found",
    Unavailable => "unavailable",
    BadAnswer => "bad_answer",
    NoTip => "no_tip",
});

impl SourceError {
    /// An [`SourceError::Unavailable`] from any error.
    pub fn unavailable(
        source_name: impl Into<String>,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        SourceError::Unavailable { source_name: source_name.into(), cause: Arc::new(cause) }
    }
}

/// The height of the tip of a source's chain, as the source tells it: a
/// claim, never trusted for more than where to stop fetching headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TipHeight {
    /// The height claimed.
    pub height: u64,
    /// Whether it is only the highest header the source holds (a cache),
    /// not the tip of a chain it follows: "as far as the cache knows".
    pub as_far_as_held: bool,
}

/// Anything that can look up the Bitcoin block header at a height.
pub trait HeaderSource: Send + Sync {
    /// A short description for messages (`esplora https://…`).
    fn describe(&self) -> String;
    /// The block at `height` as this source sees it.
    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError>;
    /// Told when `header` at `height` passed every check, difficulty
    /// included: a caching source stores it then, and only then, so one
    /// lying answer cannot poison its cache. Does nothing by default.
    fn confirmed(&self, _height: u64, _header: &Header) {}
    /// The height of the tip of this source's chain. By default the source
    /// cannot say ([`SourceError::NoTip`]).
    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        Err(SourceError::NoTip { source_name: self.describe() })
    }
}

impl<S: HeaderSource + ?Sized> HeaderSource for Box<S> {
    fn describe(&self) -> String {
        (**self).describe()
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        (**self).header_at(height)
    }

    fn confirmed(&self, height: u64, header: &Header) {
        (**self).confirmed(height, header)
    }

    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        (**self).tip_height()
    }
}

impl<S: HeaderSource + ?Sized> HeaderSource for &S {
    fn describe(&self) -> String {
        (**self).describe()
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        (**self).header_at(height)
    }

    fn confirmed(&self, height: u64, header: &Header) {
        (**self).confirmed(height, header)
    }

    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        (**self).tip_height()
    }
}

/// Decodes an 80-byte header from 160 hex digits (surrounding whitespace
/// ignored).
pub fn header_from_hex(text: &str) -> Option<Header> {
    let bytes = crate::hex::decode(text.trim())?;
    if bytes.len() != 80 {
        return None;
    }
    bitcoin::consensus::encode::deserialize(&bytes).ok()
}

/// The 160 hex digits of a header.
pub fn header_to_hex(header: &Header) -> String {
    crate::hex::encode(&bitcoin::consensus::encode::serialize(header))
}

/// Headers held in memory, by height: a source that serves only what it
/// was given (fixtures, headers fetched earlier, a test chain). Its
/// contents are checked like any other source's.
#[derive(Debug, Default)]
pub struct MemoryHeaders {
    headers: Mutex<HashMap<u64, Header>>,
}

impl MemoryHeaders {
    /// An empty set: every lookup is "not found".
    pub fn new() -> MemoryHeaders {
        MemoryHeaders::default()
    }

    /// The header at `height`, if held.
    pub fn get(&self, height: u64) -> Option<Header> {
        self.lock().get(&height).copied()
    }

    /// Holds `header` as the block at `height`.
    pub fn insert(&self, height: u64, header: Header) {
        self.lock().insert(height, header);
    }

    /// The highest height held, if any.
    pub fn highest(&self) -> Option<u64> {
        self.lock().keys().max().copied()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Header>> {
        // A panic elsewhere cannot leave the map half-updated: every
        // operation on it is a single insert or lookup.
        self.headers.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl FromIterator<(u64, Header)> for MemoryHeaders {
    fn from_iter<I: IntoIterator<Item = (u64, Header)>>(headers: I) -> Self {
        MemoryHeaders { headers: Mutex::new(headers.into_iter().collect()) }
    }
}

impl HeaderSource for MemoryHeaders {
    fn describe(&self) -> String {
        "headers in memory".into()
    }

    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        match self.get(height) {
            Some(header) => Ok(SourcedHeader { claimed_hash: header.block_hash(), header }),
            None => Err(SourceError::NotFound { source_name: self.describe(), height }),
        }
    }

    /// The highest header held: a set of headers knows no chain beyond it.
    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        match self.highest() {
            Some(height) => Ok(TipHeight { height, as_far_as_held: true }),
            None => Err(SourceError::NoTip { source_name: self.describe() }),
        }
    }
}
