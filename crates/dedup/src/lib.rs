//! Every near-duplicate pair of a collection, in memory that does not grow
//! with its texts: the engine behind `priorart dedup`, for every front end
//! (the CLI, the Python package).
//!
//! Pass 1 (the front end reads its inputs) keeps per document its id, its
//! simhash-doc value and either where it lives ([`Place`]: input, byte
//! offset, what the reader needs to find it again) or, when an input cannot
//! be read twice (a pipe), a bottom-k sketch of its word shingles
//! ([`Catalog<Sketches>`]). Candidates come from one of two generators
//! ([`Candidates`]):
//!
//! - `minhash` (the default): MinHash LSH over the same word 5-grams that
//!   verification compares ([`Lsh`], bands and rows chosen for the
//!   threshold); pass 1 writes each document's band keys to temporary
//!   files (4 bytes per band), and the candidates are the documents that
//!   share a key in some band, one band sorted at a time. Their number
//!   follows the similar pairs: at ten million documents the simhash
//!   candidates below would be about 2 × 10¹⁰ (BENCHMARKS.md);
//! - `simhash`: the pairs within simhash-doc distance `k`
//!   (`priorart_index::all_pairs`, one sorted table of 16 bytes per
//!   document per thread), which in one language's texts grow with the
//!   square of the collection.
//!
//! Pass 2 verifies them:
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
//! 8 × 256 bytes per document instead of the place. Sketch catalogs find
//! their candidates by simhash-doc.

#![forbid(unsafe_code)]

#[macro_use]
extern crate priorart_reason;

pub mod against;
mod bands;
mod catalog;
mod error;
pub mod minhash;
pub mod output;
pub mod passage_files;
pub mod passages;
pub mod passages_against;
mod runs;
mod spare;
mod texts;
mod verify;

pub use bands::{FULL_RUN, WINDOW};
pub use catalog::{Catalog, Ids, Kept, Place, Places, Sketches};
pub use error::DedupError;
pub use minhash::Lsh;
pub use priorart_index::{Pair, SKETCH_WIDTH, VerifiedPair};
pub use texts::{Document, PassageCollection, Spill, SpillReader, TextCollection, is_blank};
pub use verify::{Reread, RereadError};

use priorart_fingerprint::Shingling;
use priorart_index::Layout;
use rayon::prelude::*;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a run is asked for.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Largest simhash-doc distance of a candidate pair.
    pub k: u32,
    /// Smallest Jaccard similarity of word 5-grams of a kept pair.
    pub min_jaccard: f64,
    /// Bytes of text whose shingles pass 2 holds at once (three quarters
    /// for the chunk held, a quarter for the documents streamed past it:
    /// an eighth checked, the next eighth read); shingles take about 1.4
    /// times their text.
    pub working_set: u64,
    /// How texts are cut into words for their 5-grams.
    pub shingling: Shingling,
    candidates: Candidates,
    layout: Layout,
}

/// How candidate pairs are found (see the crate's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Candidates {
    /// Documents sharing a MinHash LSH band key of their word 5-grams.
    Minhash,
    /// Documents within simhash-doc distance `k`.
    Simhash,
}

impl Candidates {
    /// Every generator, by name.
    pub const ALL: [Candidates; 2] = [Candidates::Minhash, Candidates::Simhash];

    /// Its name on command lines.
    pub fn name(self) -> &'static str {
        match self {
            Candidates::Minhash => "minhash",
            Candidates::Simhash => "simhash",
        }
    }
}

impl fmt::Display for Candidates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Candidates {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Candidates::ALL
            .into_iter()
            .find(|candidates| candidates.name() == name)
            .ok_or_else(|| format!("unknown candidate generator {name:?} (minhash or simhash)"))
    }
}

/// The working set when none is given: 256 MiB of text, about 360 MiB of
/// shingles.
pub const DEFAULT_WORKING_SET: u64 = 256 << 20;

impl Settings {
    /// Settings for distance `k`, threshold `min_jaccard` and `shingling`,
    /// checked: `k` at most `priorart_index::MAX_DISTANCE`, the threshold
    /// in 0..=1. Candidates by MinHash where [`Lsh::for_threshold`] has
    /// bands for the threshold, else by simhash-doc.
    pub fn new(k: u32, min_jaccard: f64, shingling: Shingling) -> Result<Settings, DedupError> {
        if !(0.0..=1.0).contains(&min_jaccard) {
            return Err(DedupError::Threshold { min_jaccard });
        }
        let layout = Layout::for_distance(k).map_err(|err| DedupError::Distance(err.to_string()))?;
        let candidates =
            if Lsh::for_threshold(min_jaccard).is_some() { Candidates::Minhash } else { Candidates::Simhash };
        Ok(Settings { k, min_jaccard, working_set: DEFAULT_WORKING_SET, shingling, candidates, layout })
    }

    /// The same settings with another candidate generator: MinHash needs a
    /// threshold it has bands for (about 0.3 or more).
    pub fn with_candidates(mut self, candidates: Candidates) -> Result<Settings, DedupError> {
        if candidates == Candidates::Minhash && Lsh::for_threshold(self.min_jaccard).is_none() {
            return Err(DedupError::MinhashThreshold { min_jaccard: self.min_jaccard });
        }
        self.candidates = candidates;
        Ok(self)
    }

    /// How candidates are found.
    pub fn candidates(&self) -> Candidates {
        self.candidates
    }

    /// The MinHash bands a catalog keeps for these settings
    /// ([`Catalog::with_band_keys`]), when candidates are by MinHash.
    pub fn lsh(&self) -> Option<Lsh> {
        match self.candidates {
            Candidates::Minhash => Lsh::for_threshold(self.min_jaccard),
            Candidates::Simhash => None,
        }
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
    /// Candidates: the self-join of simhash-doc tables (steps: none to
    /// count), or MinHash bands (steps: bands).
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
    /// Candidate pairs.
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
/// candidates as `settings` say (by MinHash, the catalog must keep band
/// keys of [`Settings::lsh`]'s shape), each verified by the exact Jaccard
/// similarity of the two texts, re-read through `reread`.
///
/// # Panics
///
/// When `catalog` keeps no simhash-doc values
/// ([`Catalog::without_simhashes`], the passage search's).
pub fn deduplicate(
    catalog: &mut Catalog<Places>,
    settings: &Settings,
    reread: &dyn Reread,
    control: Control<'_>,
) -> Result<Outcome, DedupError> {
    assert_keeps_simhashes(catalog);
    let candidates = match settings.candidates {
        Candidates::Simhash => candidates(catalog.simhashes(), settings, control)?,
        Candidates::Minhash => minhash_candidates(catalog, settings, control)?,
    };
    let pairs = verify::by_rereading(catalog, &candidates, settings, reread, control)?;
    Ok(finish(catalog.len(), candidates.len(), pairs, false))
}

/// Every pair of a collection kept as sketches whose estimated Jaccard
/// similarity is at least the threshold (see the crate's documentation
/// for the estimate's error).
///
/// # Panics
///
/// When `catalog` keeps no simhash-doc values
/// ([`Catalog::without_simhashes`]).
pub fn deduplicate_sketches(
    catalog: &Catalog<Sketches>,
    settings: &Settings,
    control: Control<'_>,
) -> Result<Outcome, DedupError> {
    assert_keeps_simhashes(catalog);
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

/// A catalog without simhash-doc values has none to find candidates by
/// or to report: passing one is the caller's mistake, not the input's.
fn assert_keeps_simhashes<K: Kept>(catalog: &Catalog<K>) {
    assert_eq!(
        catalog.simhashes().len(),
        catalog.len(),
        "deduplication needs a catalog that keeps simhash-doc values, not Catalog::without_simhashes"
    );
}

fn minhash_candidates(
    catalog: &mut Catalog<Places>,
    settings: &Settings,
    control: Control<'_>,
) -> Result<Vec<Pair>, DedupError> {
    control.check()?;
    if catalog.lsh() != settings.lsh() {
        return Err(DedupError::BandKeys(format!(
            "the catalog keeps band keys of {:?}, the settings want {:?}",
            catalog.lsh(),
            settings.lsh()
        )));
    }
    let band_keys = catalog.band_keys_mut().expect("the shapes are equal and some");
    let found = band_keys.candidates(control)?;
    let simhashes = catalog.simhashes();
    Ok(found
        .into_iter()
        .map(|pair| {
            let (a, b) = ((pair >> 32) as u32, pair as u32);
            Pair { a, b, distance: (simhashes[a as usize] ^ simhashes[b as usize]).count_ones() }
        })
        .collect())
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
