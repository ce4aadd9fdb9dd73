//! [`WantedHeaders`]: a header source for front ends whose headers arrive
//! asynchronously (a browser's `fetch`, an async runtime), while
//! [`HeaderSource`] is synchronous. The verifier runs against the headers
//! known so far; the source records every height (and the tip) it was
//! asked for and lacked; the caller fetches those, hands them in, and runs
//! the verifier again, until nothing new is wanted. The answer of the last
//! run is then exactly what a synchronous source holding the same headers
//! gives. Nothing handed in is trusted: the verifier checks every header.

use crate::headers::{HeaderSource, SourceError, SourcedHeader, TipHeight};
use bitcoin::block::Header;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard};

/// The headers known so far, what the caller could not get, and what the
/// verifier asked for and lacked (see the module docs).
#[derive(Debug)]
pub struct WantedHeaders {
    name: String,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    held: HashMap<u64, Header>,
    /// Heights the caller could not get, and why (asked again: same answer).
    failed: HashMap<u64, SourceError>,
    /// The tip as the caller told it (or why it could not).
    tip: Option<Result<TipHeight, SourceError>>,
    wanted: BTreeSet<u64>,
    tip_wanted: bool,
    confirmed: BTreeMap<u64, Header>,
}

impl WantedHeaders {
    /// An empty source described as `name` in messages (`esplora https://…`,
    /// `header cache DIR`: what the caller's own source is).
    pub fn new(name: impl Into<String>) -> WantedHeaders {
        WantedHeaders { name: name.into(), state: Mutex::default() }
    }

    /// Holds `header` as the block at `height` (as the caller's source
    /// served it; the verifier checks it).
    pub fn insert(&self, height: u64, header: Header) {
        let mut state = self.lock();
        state.failed.remove(&height);
        state.held.insert(height, header);
    }

    /// Records that the caller's source has no block at `height`: asked
    /// again, the answer is [`SourceError::NotFound`], and it is not wanted.
    pub fn absent(&self, height: u64) {
        let error = SourceError::NotFound { source_name: self.name.clone(), height };
        self.failed(height, error);
    }

    /// Records that the caller's source failed at `height` with `error`:
    /// asked again, that is the answer, and it is not wanted.
    pub fn failed(&self, height: u64, error: SourceError) {
        let mut state = self.lock();
        state.held.remove(&height);
        state.failed.insert(height, error);
    }

    /// The tip of the caller's source, or why it cannot say.
    pub fn set_tip(&self, tip: Result<TipHeight, SourceError>) {
        self.lock().tip = Some(tip);
    }

    /// The heights asked for and lacked since the last call, ascending,
    /// and whether the tip was asked for and is unknown. Empty and `false`:
    /// the last run had every answer it could get.
    pub fn take_wanted(&self) -> (Vec<u64>, bool) {
        let mut state = self.lock();
        let heights = std::mem::take(&mut state.wanted).into_iter().collect();
        (heights, std::mem::take(&mut state.tip_wanted))
    }

    /// The headers the verifier confirmed (passed every check), by height:
    /// the ones a cache may keep.
    pub fn confirmed(&self) -> Vec<(u64, Header)> {
        self.lock().confirmed.iter().map(|(&height, &header)| (height, header)).collect()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every operation on the state is a few inserts and lookups that
        // leave it consistent, so a panic elsewhere cannot corrupt it.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl HeaderSource for WantedHeaders {
    fn describe(&self) -> String {
        self.name.clone()
    }

    /// A header held, the caller's failure, or (recorded as wanted) not found.
    fn header_at(&self, height: u64) -> Result<SourcedHeader, SourceError> {
        let mut state = self.lock();
        if let Some(&header) = state.held.get(&height) {
            return Ok(SourcedHeader { claimed_hash: header.block_hash(), header });
        }
        if let Some(error) = state.failed.get(&height) {
            return Err(error.clone());
        }
        state.wanted.insert(height);
        Err(SourceError::NotFound { source_name: self.name.clone(), height })
    }

    fn confirmed(&self, height: u64, header: &Header) {
        self.lock().confirmed.insert(height, *header);
    }

    /// The caller's tip, or (recorded as wanted) none yet.
    fn tip_height(&self) -> Result<TipHeight, SourceError> {
        let mut state = self.lock();
        match &state.tip {
            Some(tip) => tip.clone(),
            None => {
                state.tip_wanted = true;
                Err(SourceError::NoTip { source_name: self.name.clone() })
            }
        }
    }
}
