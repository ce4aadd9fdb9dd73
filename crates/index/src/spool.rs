//! Passage marks spooled to disk as documents are read, so that building
//! or adding to an index holds a bounded number of them in memory whatever
//! the size of the collection's texts (about 24 bytes a mark and 2 marks
//! in 5 content words: 240 MB for a 170 MB collection, were they all held).
//!
//! A segment's marks file sorts every mark of the segment by hash
//! (`crate::marks`), so the spool is an external merge sort: marks are
//! gathered up to [`MarkSpool::DEFAULT_RUN_ROWS`] rows, sorted, and written
//! as a run (24 bytes a row) to a directory of its own inside the index
//! directory; the segment's file is then written from a merge of the runs
//! (and of the rows still in memory), row by row. The directory is removed
//! when the spool is dropped: after the segment is written, or when the
//! build is abandoned. A write that fails leaves the spool whole, to be
//! tried again (the Python package's `Index.save` keeps what was inserted).

use crate::marks::{self, RowKey, merge};
use crate::segment::SegmentError;
use priorart_align::Mark;
use priorart_files::FileError;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Bytes of a row in a run.
const ROW_BYTES: usize = 24;
/// Buffer of a run written, and of each run read during the merge.
const RUN_BUFFER: usize = 64 << 10;

/// Spools of this process so far (each spool's directory has its own name).
static SPOOLS: AtomicU32 = AtomicU32::new(0);

/// The passage marks of documents to index, in the order of their entries,
/// held on disk (see the module): what [`crate::Index::build_spooled`] and
/// [`crate::Index::add_spooled`] write as the new segment's marks.
pub struct MarkSpool {
    /// The spool's own directory, inside the index directory.
    dir: PathBuf,
    /// The index directory, when the spool created it (removed with the
    /// spool if nothing else was written there).
    created: Option<PathBuf>,
    run_rows: usize,
    /// Rows not yet in a run.
    buffer: Vec<RowKey>,
    runs: Vec<PathBuf>,
    /// Each document's mark count.
    counts: Vec<u32>,
    /// Which documents the segment keeps ([`MarkSpool::retain`]); all when
    /// `None`.
    kept: Option<Vec<bool>>,
}

impl MarkSpool {
    /// Rows sorted in memory before they are written as a run: 24 MiB.
    pub const DEFAULT_RUN_ROWS: usize = 1 << 20;

    /// An empty spool whose files go in the index directory `index_dir`
    /// (created if needed, and removed again with the spool if it is left
    /// empty).
    pub fn new(index_dir: &Path) -> Result<MarkSpool, SegmentError> {
        MarkSpool::with_run_rows(index_dir, MarkSpool::DEFAULT_RUN_ROWS)
    }

    /// [`MarkSpool::new`] sorting `run_rows` rows (at least 1) in memory at a
    /// time.
    pub fn with_run_rows(index_dir: &Path, run_rows: usize) -> Result<MarkSpool, SegmentError> {
        let (dir, created) = spool_dir(index_dir, ".marks-spool")?;
        Ok(MarkSpool {
            dir,
            created,
            run_rows: run_rows.max(1),
            buffer: Vec::new(),
            runs: Vec::new(),
            counts: Vec::new(),
            kept: None,
        })
    }

    /// A spool of `marks` (`marks[n]` of document `n`).
    pub fn of(index_dir: &Path, marks: &[Vec<Mark>]) -> Result<MarkSpool, SegmentError> {
        let mut spool = MarkSpool::new(index_dir)?;
        for held in marks {
            spool.push(held)?;
        }
        Ok(spool)
    }

    /// Adds the next document's marks (winnowed as the index's are:
    /// [`crate::Index::marks_winnowing`], [`crate::Index::passage_winnowing`]
    /// for a new one).
    pub fn push(&mut self, marks: &[Mark]) -> Result<(), SegmentError> {
        let too_many = || SegmentError::TooManyDocuments { docs: self.counts.len() + 1 };
        let document = u32::try_from(self.counts.len()).map_err(|_| too_many())?;
        let count = u32::try_from(marks.len()).map_err(|_| too_many())?;
        self.counts.push(count);
        for mark in marks {
            self.buffer.push((mark.hash, document, mark.word, mark.start, mark.end));
            if self.buffer.len() >= self.run_rows {
                self.write_run()?;
            }
        }
        Ok(())
    }

    /// How many documents' marks were pushed (kept or not).
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether no document's marks were pushed.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Keeps only the documents `n` for which `keep(n)` holds, numbered
    /// again in order (as the entries a caller filters the same way).
    pub fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let kept = self.kept.get_or_insert_with(|| vec![true; self.counts.len()]);
        for (n, kept) in kept.iter_mut().enumerate() {
            *kept = *kept && keep(n);
        }
    }

    /// How many documents are kept.
    pub(crate) fn kept_len(&self) -> usize {
        self.kept.as_ref().map_or(self.counts.len(), |kept| kept.iter().filter(|&&kept| kept).count())
    }

    /// Sorts the rows in memory and writes them as a run.
    fn write_run(&mut self) -> Result<(), SegmentError> {
        self.buffer.sort_unstable();
        let path = self.dir.join(format!("run-{:06}", self.runs.len()));
        let io = |source| FileError::Io { path: path.clone(), action: "write", source };
        let file = File::create(&path).map_err(io)?;
        let mut out = BufWriter::with_capacity(RUN_BUFFER, file);
        for &row in &self.buffer {
            out.write_all(&row_bytes(row)).map_err(io)?;
        }
        out.flush().map_err(io)?;
        self.runs.push(path);
        self.buffer.clear();
        Ok(())
    }

    /// Writes the marks file `path` (which must not exist) of the kept
    /// documents, from a merge of the runs, which stay (the spool is
    /// removed when dropped), so that a failed write can be tried again.
    pub(crate) fn write(&mut self, path: &Path) -> Result<(), SegmentError> {
        self.buffer.sort_unstable();
        let numbers: Option<Vec<Option<u32>>> = self.kept.as_ref().map(|kept| {
            let mut next = 0u32;
            kept.iter()
                .map(|&kept| {
                    kept.then(|| {
                        next += 1;
                        next - 1
                    })
                })
                .collect()
        });
        let counts: Vec<u32> = match &numbers {
            Some(numbers) => self
                .counts
                .iter()
                .zip(numbers)
                .filter(|(_, number)| number.is_some())
                .map(|(&c, _)| c)
                .collect(),
            None => self.counts.clone(),
        };
        let total: u64 = counts.iter().map(|&count| u64::from(count)).sum();
        let mut sources: Vec<Box<dyn Iterator<Item = Result<RowKey, FileError>> + '_>> =
            Vec::with_capacity(self.runs.len() + 1);
        for path in &self.runs {
            sources.push(Box::new(run_rows(path)?));
        }
        sources.push(Box::new(self.buffer.iter().map(|&row| Ok(row))));
        // Renumbering keeps the rows in order: the kept documents keep theirs.
        let rows = merge(sources).filter_map(|row| match (row, &numbers) {
            (Ok(row), Some(numbers)) => {
                numbers[row.1 as usize].map(|number| Ok((row.0, number, row.2, row.3, row.4)))
            }
            (row, _) => Some(row),
        });
        marks::write_sorted(path, &counts, total, rows)?;
        self.created = None;
        Ok(())
    }
}

/// A new directory named `prefix`-(process id)-(a count) inside `index_dir`
/// (created if needed: then also returned, to be removed with the spool if
/// nothing else is written there).
pub(crate) fn spool_dir(index_dir: &Path, prefix: &str) -> Result<(PathBuf, Option<PathBuf>), SegmentError> {
    let created = (!index_dir.exists()).then(|| index_dir.to_owned());
    std::fs::create_dir_all(index_dir).map_err(|source| FileError::Io {
        path: index_dir.to_owned(),
        action: "create",
        source,
    })?;
    let name = format!("{prefix}-{}-{}", std::process::id(), SPOOLS.fetch_add(1, Ordering::Relaxed));
    let dir = index_dir.join(name);
    let made = match std::fs::create_dir(&dir) {
        // A leftover of a killed run with this process id.
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_dir_all(&dir).and_then(|()| std::fs::create_dir(&dir))
        }
        made => made,
    };
    if let Err(source) = made {
        if let Some(created) = &created {
            let _ = std::fs::remove_dir(created);
        }
        return Err(FileError::Io { path: dir, action: "create", source }.into());
    }
    Ok((dir, created))
}

/// Removes a spool's directory and, if the spool created it, the index
/// directory when nothing else was written there.
pub(crate) fn remove_spool_dir(dir: &Path, created: Option<&Path>) {
    let _ = std::fs::remove_dir_all(dir);
    if let Some(created) = created {
        let _ = std::fs::remove_dir(created);
    }
}

impl Drop for MarkSpool {
    fn drop(&mut self) {
        remove_spool_dir(&self.dir, self.created.as_deref());
    }
}

fn row_bytes((hash, document, word, start, end): RowKey) -> [u8; ROW_BYTES] {
    let mut bytes = [0u8; ROW_BYTES];
    bytes[..8].copy_from_slice(&hash.to_le_bytes());
    for (at, value) in [document, word, start, end].into_iter().enumerate() {
        bytes[8 + 4 * at..][..4].copy_from_slice(&value.to_le_bytes());
    }
    bytes
}

fn row_of(bytes: &[u8; ROW_BYTES]) -> RowKey {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    (
        u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
        u32_at(8),
        u32_at(12),
        u32_at(16),
        u32_at(20),
    )
}

/// The rows of the run at `path`, in order.
fn run_rows(path: &Path) -> Result<impl Iterator<Item = Result<RowKey, FileError>> + use<>, FileError> {
    let file =
        File::open(path).map_err(|source| FileError::Io { path: path.to_owned(), action: "open", source })?;
    let mut reader = BufReader::with_capacity(RUN_BUFFER, file);
    let path = path.to_owned();
    let mut failed = false;
    Ok(std::iter::from_fn(move || {
        if failed {
            return None;
        }
        let mut bytes = [0u8; ROW_BYTES];
        match reader.read_exact(&mut bytes) {
            Ok(()) => Some(Ok(row_of(&bytes))),
            Err(err) if err.kind() == std::io::ErrorKind::UnexpectedEof => None,
            Err(source) => {
                failed = true;
                Some(Err(FileError::Io { path: path.clone(), action: "read", source }))
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marks::encode;

    /// Marks of `docs` documents, some without any, with hashes that repeat
    /// (within and across documents) as boilerplate does.
    fn random_marks(docs: usize, seed: u64) -> Vec<Vec<Mark>> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..docs)
            .map(|_| {
                let len = if rng.u8(..) < 40 { 0 } else { rng.usize(..60) };
                (0..len as u32)
                    .map(|word| {
                        let start = 7 * word;
                        Mark { hash: rng.u64(..50), word: 3 * word, start, end: start + rng.u32(..20) }
                    })
                    .collect()
            })
            .collect()
    }

    fn spooled(
        dir: &Path,
        marks: &[Vec<Mark>],
        run_rows: usize,
        keep: Option<&dyn Fn(usize) -> bool>,
    ) -> Vec<u8> {
        let mut spool = MarkSpool::with_run_rows(dir, run_rows).unwrap();
        for held in marks {
            spool.push(held).unwrap();
        }
        if let Some(keep) = keep {
            spool.retain(keep);
        }
        let path = dir.join("seg-000001.pam");
        spool.write(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        bytes
    }

    #[test]
    fn a_spooled_file_is_the_one_written_from_memory_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        for (docs, seed) in [(0, 1), (1, 2), (40, 3), (300, 4)] {
            let marks = random_marks(docs, seed);
            let expected = encode(&marks).unwrap();
            // One run in memory, a run per row, and runs of a few rows.
            for run_rows in [usize::MAX, 1, 7, 100] {
                assert_eq!(
                    spooled(dir.path(), &marks, run_rows, None),
                    expected,
                    "{docs} documents, runs of {run_rows}"
                );
            }
            // Nothing is left of the spool.
            assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        }
    }

    #[test]
    fn documents_left_out_are_numbered_as_the_entries_kept() {
        let dir = tempfile::tempdir().unwrap();
        let marks = random_marks(120, 5);
        let keep = |n: usize| n % 3 != 1;
        let kept: Vec<Vec<Mark>> =
            marks.iter().enumerate().filter(|(n, _)| keep(*n)).map(|(_, held)| held.clone()).collect();
        assert_eq!(spooled(dir.path(), &marks, 16, Some(&keep)), encode(&kept).unwrap());
    }

    #[test]
    fn a_spool_abandoned_leaves_nothing_and_removes_the_directory_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("new.idx");
        let mut spool = MarkSpool::with_run_rows(&index, 4).unwrap();
        spool.push(&random_marks(5, 6).concat()).unwrap();
        assert!(spool.runs.len() > 1, "runs written");
        drop(spool);
        assert!(!index.exists());
        // A directory that was there stays.
        let spool = MarkSpool::new(dir.path()).unwrap();
        drop(spool);
        assert!(dir.path().exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
