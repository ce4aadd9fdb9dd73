//! The MinHash band keys of a collection, kept on disk during pass 1 (one
//! temporary file per band, 4 bytes per document: 80 bytes a document in
//! memory would be 800 MB at ten million), and the candidates they give:
//! band by band, the keys are read back, sorted with their document
//! numbers, and every run of equal keys is paired. Memory is one band's
//! sorted rows (8 bytes per document) plus the pairs found, deduplicated
//! after each band (a pair is found in several bands).
//!
//! A run of more than [`FULL_RUN`] documents sharing one key (empty or
//! boilerplate texts, thousands of copies of one page) is not paired in
//! full, which would cost the square of its length: each of its documents
//! is paired with the [`WINDOW`] documents after it in the run (by
//! number), at most `WINDOW` candidates per document and band. Clusters
//! still join the whole run through these overlapping windows; the pairs
//! of such a group farther apart than the window are not listed.

use crate::error::DedupError;
use crate::minhash::Lsh;
use crate::{Control, Phase};
use rayon::prelude::*;
use std::fs::File;
use std::io::{BufWriter, Read, Write};

/// Runs of one key up to this many documents are paired in full.
pub const FULL_RUN: usize = 1024;

/// Documents after it in a longer run that each document is paired with.
pub const WINDOW: usize = 16;

/// Band keys written during pass 1, one temporary file per band (removed
/// when this is dropped).
#[derive(Debug)]
pub struct BandKeys {
    lsh: Lsh,
    directory: tempfile::TempDir,
    writers: Vec<BufWriter<File>>,
    documents: u32,
}

fn spill(action: &str, err: std::io::Error) -> DedupError {
    DedupError::BandKeys(format!("cannot {action} the temporary band keys: {err}"))
}

impl BandKeys {
    /// Band keys of `lsh`'s shape in a new temporary directory inside
    /// `parent` (the system's temporary directory when `None`).
    pub fn new(lsh: Lsh, parent: Option<&std::path::Path>) -> Result<BandKeys, DedupError> {
        let directory = match parent {
            Some(parent) => tempfile::Builder::new().prefix("priorart-bands-").tempdir_in(parent),
            None => tempfile::Builder::new().prefix("priorart-bands-").tempdir(),
        }
        .map_err(|err| spill("create", err))?;
        let writers = (0..lsh.bands)
            .map(|band| File::create(directory.path().join(format!("band-{band}"))).map(BufWriter::new))
            .collect::<Result<_, _>>()
            .map_err(|err| spill("create", err))?;
        Ok(BandKeys { lsh, directory, writers, documents: 0 })
    }

    /// The shape of the keys.
    pub fn lsh(&self) -> Lsh {
        self.lsh
    }

    /// Appends the next document's keys (one per band).
    pub(crate) fn push(&mut self, keys: &[u32]) -> Result<(), DedupError> {
        if keys.len() != self.writers.len() {
            return Err(DedupError::BandKeys(format!(
                "{} band keys for {} bands",
                keys.len(),
                self.writers.len()
            )));
        }
        for (writer, key) in self.writers.iter_mut().zip(keys) {
            writer.write_all(&key.to_le_bytes()).map_err(|err| spill("write", err))?;
        }
        self.documents += 1;
        Ok(())
    }

    /// One band's keys, by document number.
    fn band(&mut self, band: usize) -> Result<Vec<u32>, DedupError> {
        self.writers[band].flush().map_err(|err| spill("write", err))?;
        let mut bytes = Vec::with_capacity(self.documents as usize * 4);
        File::open(self.directory.path().join(format!("band-{band}")))
            .and_then(|mut file| file.read_to_end(&mut bytes))
            .map_err(|err| spill("read", err))?;
        if bytes.len() != self.documents as usize * 4 {
            return Err(DedupError::BandKeys(format!("band {band} holds {} bytes", bytes.len())));
        }
        Ok(bytes.chunks_exact(4).map(|key| u32::from_le_bytes(key.try_into().expect("4 bytes"))).collect())
    }

    /// Every pair of documents that share a key in some band, as
    /// `a << 32 | b` with `a < b`, sorted and distinct.
    pub(crate) fn candidates(&mut self, control: Control<'_>) -> Result<Vec<u64>, DedupError> {
        control.progress.phase(Phase::Candidates, u64::from(self.lsh.bands));
        let mut found: Vec<u64> = Vec::new();
        for band in 0..self.writers.len() {
            control.check()?;
            let pairs = pairs_sharing_a_key(&self.band(band)?);
            found = merge(&found, &pairs);
            control.progress.advance(1);
        }
        control.check()?;
        Ok(found)
    }
}

/// The pairs of documents with equal `keys` (indexed by document), sorted
/// and distinct; long runs by window (see the module's documentation).
pub(crate) fn pairs_sharing_a_key(keys: &[u32]) -> Vec<u64> {
    let mut rows: Vec<u64> =
        keys.iter().zip(0u32..).map(|(&key, number)| u64::from(key) << 32 | u64::from(number)).collect();
    rows.par_sort_unstable();
    let mut pairs: Vec<u64> = rows
        .par_chunk_by(|x, y| x >> 32 == y >> 32)
        .filter(|run| run.len() > 1)
        .flat_map_iter(|run| {
            let reach = if run.len() <= FULL_RUN { run.len() } else { WINDOW + 1 };
            (0..run.len()).flat_map(move |i| {
                run[i + 1..run.len().min(i + reach)]
                    .iter()
                    .map(move |&later| run[i] << 32 | (later & 0xFFFF_FFFF))
            })
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}

/// The union of two sorted, distinct lists.
fn merge(x: &[u64], y: &[u64]) -> Vec<u64> {
    let mut union = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => {
                union.push(x[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                union.push(y[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                union.push(x[i]);
                i += 1;
                j += 1;
            }
        }
    }
    union.extend_from_slice(&x[i..]);
    union.extend_from_slice(&y[j..]);
    union
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_paired_in_full_and_long_runs_by_window() {
        let keys = [7, 3, 7, 9, 7, 3];
        let pair = |a: u64, b: u64| a << 32 | b;
        assert_eq!(pairs_sharing_a_key(&keys), vec![pair(0, 2), pair(0, 4), pair(1, 5), pair(2, 4)]);
        let long = vec![1u32; FULL_RUN + 1];
        let pairs = pairs_sharing_a_key(&long);
        assert_eq!(pairs.len(), (FULL_RUN + 1) * WINDOW - WINDOW * (WINDOW + 1) / 2);
        assert!(pairs.iter().all(|pair| (pair & 0xFFFF_FFFF) - (pair >> 32) <= WINDOW as u64));
    }

    #[test]
    fn merging_keeps_each_pair_once() {
        assert_eq!(merge(&[1, 4, 9], &[2, 4, 10, 11]), vec![1, 2, 4, 9, 10, 11]);
        assert_eq!(merge(&[], &[3]), vec![3]);
    }
}
