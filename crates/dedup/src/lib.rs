//! Every near-duplicate pair of a collection, in memory that does not grow
//! with its texts: the engine behind `priorart dedup`, for every front end
//! (the CLI, the Python package).
//!
//! Pass 1 (the front end reads its inputs) keeps per document its id, its
//! simhash-doc value and either where it lives ([`Place`]: input, byte
//! offset, what the reader needs to find it again) or, when an input cannot
//! be read twice (a pipe), a bottom-k sketch of its word shingles
//! ([`Catalog<Sketches>`]). Candidates are the pairs within simhash-doc
//! distance `k` (`priorart_index::all_pairs`, one sorted table of 16 bytes
//! per document per thread). Pass 2 verifies them:
//!
//! - with places, by the exact Jaccard similarity of word 5-grams, the
//!   candidate documents re-read through a front end's [`Reread`] in the
//!   order of their places (sequential reads), a bounded working set at a
//!   time ([`Settings::working_set`]): a chunk of documents is held, the
//!   later documents paired with it are streamed past it, so each pair is
//!   verified once and no more than the working set's texts' shingles are
//!   ever in memory;
//! - with sketches, by the Jaccard similarity estimated from the two
//!   sketches ([`SKETCH_WIDTH`] hashes: standard error `sqrt(J(1 − J)/256)`,
//!   about 0.025 at J = 0.8, and exact when the two texts together have at
//!   most 256 distinct shingles), each pair's standard error reported.
//!
//! Verified pairs are clustered (connected components, each led by its
//! earliest document), and [`output`] writes the two files `dedup` writes.
//! Memory: about 60 bytes per document plus its id in pass 1 (with places),
//! the candidates, and the working set in pass 2; with sketches up to
//! 8 × 256 bytes per document instead of the place.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

mod catalog;
mod error;
pub mod output;
mod verify;

pub use catalog::{Catalog, Ids, Kept, Place, Places, Sketches};
pub use error::DedupError;
pub use priorart_index::{Pair, SKETCH_WIDTH, VerifiedPair};
pub use verify::{Reread, RereadError};

use priorart_fingerprint::Shingling;
use priorart_index::Layout;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a run is asked for.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Largest simhash-doc distance of a candidate pair.
    pub k: u32,
    /// Smallest Jaccard similarity of word 5-grams of a kept pair.
    pub min_jaccard: f64,
    /// Bytes of text whose shingles pass 2 holds at once (three quarters
    /// for the chunk held, a quarter for the documents streamed past it);
    /// shingles take about 1.4 times their text.
    pub working_set: u64,
    /// How texts are cut into words for their 5-grams.
    pub shingling: Shingling,
    layout: Layout,
}

/// The working set when none is given: 256 MiB of text, about 360 MiB of
/// shingles.
pub const DEFAULT_WORKING_SET: u64 = 256 << 20;

impl Settings {
    /// Settings for distance `k`, threshold `min_jaccard` and `shingling`,
    /// checked: `k` at most `priorart_index::MAX_DISTANCE`, the threshold
    /// in 0..=1.
    pub fn new(k: u32, min_jaccard: f64, shingling: Shingling) -> Result<Settings, DedupError> {
        if !(0.0..=1.0).contains(&min_jaccard) {
            return Err(DedupError::Threshold { min_jaccard });
        }
        let layout = Layout::for_distance(k).map_err(|err| DedupError::Distance(err.to_string()))?;
        Ok(Settings { k, min_jaccard, working_set: DEFAULT_WORKING_SET, shingling, layout })
    }

    /// The table layout that finds every pair within `k`.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The same settings with another working set (at least one byte).
    pub fn with_working_set(mut self, bytes: u64) -> Settings {
        self.working_set = bytes.max(1);
        self
    }
}

/// The phases a run reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The self-join of simhash-doc tables (steps: none to count).
    Candidates,
    /// Re-reading and verifying (steps: candidate pairs).
    Verifying,
}

impl Phase {
    /// Its name, for progress lines.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Candidates => "candidates",
            Phase::Verifying => "verifying",
        }
    }
}

/// Where a run reports how far it is (a progress bar), from any thread.
pub trait Progress: Sync {
    /// A phase starts, with `steps` to do (0: not counted).
    fn phase(&self, phase: Phase, steps: u64);
    /// `steps` more of the current phase are done.
    fn advance(&self, steps: u64);
}

/// No progress reports.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn phase(&self, _: Phase, _: u64) {}
    fn advance(&self, _: u64) {}
}

/// How a run reports and is stopped: once `stop` is set (a Ctrl-C
/// handler), the run ends at its next check with
/// [`DedupError::Interrupted`], having written nothing.
#[derive(Clone, Copy)]
pub struct Control<'a> {
    /// Where progress goes.
    pub progress: &'a dyn Progress,
    /// Set to stop the run.
    pub stop: &'a AtomicBool,
}

impl Control<'_> {
    /// [`DedupError::Interrupted`] once the run is asked to stop.
    pub fn check(&self) -> Result<(), DedupError> {
        if self.stop.load(Ordering::Relaxed) { Err(DedupError::Interrupted) } else { Ok(()) }
    }
}

/// What a run found.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Candidate pairs (within `k`).
    pub candidates: usize,
    /// The verified pairs, sorted by `(a, b)`.
    pub pairs: Vec<VerifiedPair>,
    /// Clusters of two or more documents, each led by its earliest.
    pub clusters: Vec<Vec<u32>>,
    /// Whether `jaccard` is estimated from sketches (else exact).
    pub estimated: bool,
}

impl Outcome {
    /// Documents a deduplication removes (all but each cluster's first).
    pub fn removable(&self) -> usize {
        self.clusters.iter().map(|members| members.len() - 1).sum()
    }
}

/// Every verified pair of a collection whose documents can be re-read:
/// candidates from the simhash-doc values, each verified by the exact
/// Jaccard similarity of the two texts, re-read through `reread`.
pub fn deduplicate(
    catalog: &Catalog<Places>,
    settings: &Settings,
    reread: &dyn Reread,
    control: Control<'_>,
) -> Result<Outcome, DedupError> {
    let candidates = candidates(catalog.simhashes(), settings, control)?;
    let pairs = verify::by_rereading(catalog, &candidates, settings, reread, control)?;
    Ok(finish(catalog.len(), candidates.len(), pairs, false))
}

/// Every pair of a collection kept as sketches whose estimated Jaccard
/// similarity is at least the threshold (see the crate's documentation
/// for the estimate's error).
pub fn deduplicate_sketches(
    catalog: &Catalog<Sketches>,
    settings: &Settings,
    control: Control<'_>,
) -> Result<Outcome, DedupError> {
    let candidates = candidates(catalog.simhashes(), settings, control)?;
    control.progress.phase(Phase::Verifying, candidates.len() as u64);
    let pairs: Vec<VerifiedPair> = candidates
        .par_iter()
        .filter_map(|&Pair { a, b, distance }| {
            control.progress.advance(1);
            let jaccard = catalog.kept().estimate(a, b);
            (jaccard >= settings.min_jaccard).then_some(VerifiedPair { a, b, distance, jaccard })
        })
        .collect();
    control.check()?;
    Ok(finish(catalog.len(), candidates.len(), pairs, true))
}

/// The standard error of a Jaccard similarity `jaccard` estimated from two
/// sketches [`SKETCH_WIDTH`] wide (`sqrt(J(1 − J)/k)`), 0 when the sketches
/// held both sets whole (the value is then exact).
pub fn standard_error(jaccard: f64, exact: bool) -> f64 {
    if exact { 0.0 } else { (jaccard * (1.0 - jaccard) / f64::from(SKETCH_WIDTH)).sqrt() }
}

fn candidates(simhashes: &[u64], settings: &Settings, control: Control<'_>) -> Result<Vec<Pair>, DedupError> {
    control.check()?;
    control.progress.phase(Phase::Candidates, 0);
    let pairs = priorart_index::all_pairs(simhashes, &settings.layout, settings.k)
        .map_err(|err| DedupError::Distance(err.to_string()))?;
    control.check()?;
    Ok(pairs)
}

fn finish(documents: usize, candidates: usize, mut pairs: Vec<VerifiedPair>, estimated: bool) -> Outcome {
    pairs.par_sort_unstable_by_key(|pair| (pair.a, pair.b));
    let clusters = priorart_index::clusters(documents, pairs.iter().map(|pair| (pair.a, pair.b)));
    Outcome { candidates, pairs, clusters, estimated }
}

#[cfg(test)]
mod reason_names_tests {
    #[test]
    fn every_error_names_each_variant_once_in_snake_case() {
        priorart_reason::check_names(crate::DedupError::REASONS).unwrap();
    }
}
