//! An external sort of fixed-size records: pushed into a buffer of bounded
//! size, each full buffer sorted on all cores and written to a temporary
//! file (a *run*) on a thread of its own while the next buffer fills, then
//! every run merged back in order, one buffered reader per run. Runs are
//! merged in levels: whenever [`FAN_IN`] runs of one level are written they
//! are merged into one run of the next, so at most `FAN_IN` runs per level
//! are open at once (about 2 levels for 1 TB of records with 256 MiB of
//! buffers), and each record is written once per level. Memory is the
//! buffer (the one written too, while it is) and the readers' buffers,
//! however many records pass through; the disk holds each record once
//! (twice while a merge writes).

use crate::error::DedupError;
use crate::spare::{RunFile, Spare};
use rayon::prelude::*;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A record of a run: ordered, and written as [`Record::BYTES`] bytes.
pub(crate) trait Record: Copy + Ord + Send + Sync + 'static {
    /// Its size on disk.
    const BYTES: usize;
    /// Appends its bytes to `to`.
    fn write(&self, to: &mut Vec<u8>);
    /// Reads it from exactly [`Record::BYTES`] bytes.
    fn read(from: &[u8]) -> Self;
    /// Its sort key, its fields in one integer: runs are sorted and merged
    /// by it, as one comparison of integers is cheaper than a comparison
    /// of tuples field by field (sorting the planted sample's 13 million
    /// pair records took 0.21 s instead of 0.37 s). Records of equal keys
    /// come out in any order: a key may leave out a field whose order does
    /// not matter (the passage search's pair records), and never orders
    /// two records against their `Ord`.
    fn packed(&self) -> u128;

    /// Sorts `records` by their keys, on all cores.
    fn sort(records: &mut [Self]) {
        records.par_sort_unstable_by_key(Record::packed);
    }
}

/// A pair of document numbers, the smaller first.
impl Record for (u32, u32) {
    const BYTES: usize = 8;

    fn write(&self, to: &mut Vec<u8>) {
        to.extend_from_slice(&self.0.to_le_bytes());
        to.extend_from_slice(&self.1.to_le_bytes());
    }

    fn read(from: &[u8]) -> Self {
        let word = |at: usize| u32::from_le_bytes(from[at..at + 4].try_into().expect("four bytes"));
        (word(0), word(4))
    }

    fn packed(&self) -> u128 {
        u128::from(self.0) << 32 | u128::from(self.1)
    }
}

/// Two document numbers (or ranks), the smaller first, and a number that
/// goes with them (a candidate's tag).
impl Record for (u32, u32, u32) {
    const BYTES: usize = 12;

    fn write(&self, to: &mut Vec<u8>) {
        to.extend_from_slice(&self.0.to_le_bytes());
        to.extend_from_slice(&self.1.to_le_bytes());
        to.extend_from_slice(&self.2.to_le_bytes());
    }

    fn read(from: &[u8]) -> Self {
        let word = |at: usize| u32::from_le_bytes(from[at..at + 4].try_into().expect("four bytes"));
        (word(0), word(4), word(8))
    }

    fn packed(&self) -> u128 {
        u128::from(self.0) << 64 | u128::from(self.1) << 32 | u128::from(self.2)
    }
}

/// A hash, a document number and a word position.
impl Record for (u64, u32, u32) {
    const BYTES: usize = 16;

    fn write(&self, to: &mut Vec<u8>) {
        to.extend_from_slice(&self.0.to_le_bytes());
        to.extend_from_slice(&self.1.to_le_bytes());
        to.extend_from_slice(&self.2.to_le_bytes());
    }

    fn read(from: &[u8]) -> Self {
        let word = |at: usize| u32::from_le_bytes(from[at..at + 4].try_into().expect("four bytes"));
        (u64::from_le_bytes(from[..8].try_into().expect("eight bytes")), word(8), word(12))
    }

    fn packed(&self) -> u128 {
        u128::from(self.0) << 64 | u128::from(self.1) << 32 | u128::from(self.2)
    }
}

/// Bytes each run's reader reads at once while merging (held twice: as
/// read, and decoded).
const READ_BUFFER: usize = 256 << 10;

/// Runs merged at once: at most this many of each level are open.
pub(crate) const FAN_IN: usize = 64;

/// Records being sorted: the buffer filling, the run being sorted and
/// written from the buffer before it, and the runs written so far with
/// their levels (a run of level `n` merges `FAN_IN^n` buffers; levels do
/// not increase along the list).
pub(crate) struct Runs<R: Record> {
    buffer: Vec<R>,
    capacity: usize,
    /// The run being written, and then its buffer back, emptied, to fill
    /// next: a full buffer was sorted and written on the thread that
    /// pushed, and the threads pushing waited (the 3 GB generated corpus's
    /// candidates phase ran on 1.0 to 1.5 cores while its pair records'
    /// runs were written, BENCHMARKS.md).
    writing: Option<JoinHandle<Result<Written<R>, DedupError>>>,
    files: Vec<(u32, RunFile)>,
    fan_in: usize,
    temp_dir: Option<PathBuf>,
    /// Where its files go once merged, if anywhere ([`Runs::keeping_files_in`]).
    spare: Option<Spare>,
    records: u64,
}

impl<R: Record> Runs<R> {
    /// Runs of at most `memory` bytes of records each (at least one
    /// record), written in `temp_dir` (the system's when `None`). While a
    /// run is written the next buffer fills: for that time the sort holds
    /// up to twice `memory` (half each would have spilled the planted
    /// sample's pair records, sorted in memory now: 0.4 s more).
    pub(crate) fn new(memory: u64, temp_dir: Option<&Path>) -> Runs<R> {
        let capacity = usize::try_from(memory / size_of::<R>() as u64).unwrap_or(usize::MAX).max(1);
        Runs {
            buffer: Vec::new(),
            capacity,
            writing: None,
            files: Vec::new(),
            fan_in: FAN_IN,
            temp_dir: temp_dir.map(Path::to_owned),
            spare: None,
            records: 0,
        }
    }

    /// The same, its files given to `spare` once they are merged and
    /// dropped, for the search's next files to write over.
    pub(crate) fn keeping_files_in(mut self, spare: &Spare) -> Runs<R> {
        self.spare = Some(spare.clone());
        self
    }

    /// A file of these runs.
    fn run_file(&self, file: File) -> RunFile {
        RunFile::new(file, self.spare.clone())
    }

    /// The same, merging `fan_in` runs at once (at least 2).
    #[cfg(test)]
    fn with_fan_in(mut self, fan_in: usize) -> Runs<R> {
        self.fan_in = fan_in.max(2);
        self
    }

    /// Adds a record.
    pub(crate) fn push(&mut self, record: R) -> Result<(), DedupError> {
        if self.buffer.len() == self.capacity {
            self.spill()?;
        }
        if self.buffer.len() == self.buffer.capacity() {
            // Doubled as a vector grows, but never past the bound: a
            // vector's own doubling overshoots it by up to a half when it
            // is not a power of two (12-byte records in 256 MiB: 402 MB).
            let more = self.buffer.len().max(1 << 16).min(self.capacity - self.buffer.len());
            self.buffer.reserve_exact(more);
        }
        self.buffer.push(record);
        self.records += 1;
        Ok(())
    }

    /// Records pushed so far.
    pub(crate) fn len(&self) -> u64 {
        self.records
    }

    /// Hands the full buffer to a thread that sorts and writes it, once
    /// the run before it is written, and fills that run's buffer next.
    fn spill(&mut self) -> Result<(), DedupError> {
        let next = self.written()?.unwrap_or_default();
        let full = std::mem::replace(&mut self.buffer, next);
        let temp_dir = self.temp_dir.clone();
        self.writing = Some(std::thread::spawn(move || write_run(full, temp_dir.as_deref())));
        Ok(())
    }

    /// Waits for the run being written, if one is, and adds it to the
    /// runs (merging levels that are full): its buffer, emptied.
    fn written(&mut self) -> Result<Option<Vec<R>>, DedupError> {
        let Some(writing) = self.writing.take() else { return Ok(None) };
        let (file, mut buffer) = writing.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        buffer.clear();
        let file = self.run_file(file);
        self.files.push((0, file));
        // Whenever the last `fan_in` runs are of one level, they become
        // one of the next.
        while self.files.len() >= self.fan_in {
            let tail = self.files.len() - self.fan_in;
            let level = self.files[tail].0;
            if self.files[tail..].iter().any(|&(other, _)| other != level) {
                break;
            }
            let merged = self.merge_into_one(tail)?;
            self.files.push((level + 1, merged));
        }
        Ok(Some(buffer))
    }

    /// The runs from `from` on, merged into one run (and closed).
    fn merge_into_one(&mut self, from: usize) -> Result<RunFile, DedupError> {
        let files = self.files.split_off(from).into_iter().map(|(_, file)| file).collect();
        let mut writer = RunWriter::new(self.temp_dir.as_deref())?;
        for record in Merged::<R>::of_files(files)? {
            writer.push(record?)?;
        }
        Ok(self.run_file(writer.finish()?))
    }

    /// Every record pushed, in order (equal records each as often as
    /// pushed).
    pub(crate) fn merged(self) -> Result<Merged<R>, DedupError> {
        Ok(self.merged_in_parts(1, |key| key)?.pop().expect("one part"))
    }

    /// Every record pushed, in order, in at most `parts` parts of
    /// consecutive records, each to be merged and taken on a core of its
    /// own: the final merge of a collection's postings or pairs is
    /// hundreds of millions of records, each a sift through the runs'
    /// heads, and one thread's work otherwise. A part ends only where
    /// `group` (the smallest key of a record's group, from its key)
    /// changes, so that a group's records (a hash's postings, a pair's
    /// shared hashes) are all in one part. The parts are cut at the keys
    /// of the largest run found at equal steps through it.
    pub(crate) fn merged_in_parts(
        mut self,
        parts: usize,
        group: impl Fn(u128) -> u128,
    ) -> Result<Vec<Merged<R>>, DedupError> {
        if self.files.is_empty() && self.writing.is_none() {
            R::sort(&mut self.buffer);
            let buffer = Arc::new(std::mem::take(&mut self.buffer));
            let cuts = cuts_in(parts, buffer.len(), |at| Ok(buffer[at].packed()), &group)?;
            let first_from = |cut: u128| buffer.partition_point(|record| record.packed() < cut);
            let ends: Vec<usize> = cuts.into_iter().map(first_from).chain([buffer.len()]).collect();
            let starts = [0].into_iter().chain(ends.iter().copied());
            return Ok(starts
                .zip(&ends)
                .map(|(start, &end)| Merged::of_memory(Arc::clone(&buffer), start..end))
                .collect());
        }
        if !self.buffer.is_empty() {
            self.spill()?;
        }
        self.buffer = Vec::new();
        self.written()?;
        // Runs of several levels may still be more than `fan_in`: the
        // newest (smallest) are merged first.
        while self.files.len() > self.fan_in {
            let from = self.files.len() - self.fan_in;
            let level = self.files[from].0;
            let merged = self.merge_into_one(from)?;
            self.files.push((level + 1, merged));
        }
        let files: Vec<Arc<RunFile>> =
            std::mem::take(&mut self.files).into_iter().map(|(_, file)| Arc::new(file)).collect();
        let lengths = files
            .iter()
            .map(|file| Ok(file.metadata().map_err(DedupError::SortRuns)?.len() / R::BYTES as u64))
            .collect::<Result<Vec<u64>, DedupError>>()?;
        let largest = (0..files.len()).max_by_key(|&run| lengths[run]).expect("runs were written");
        let cuts =
            cuts_in(parts, lengths[largest] as usize, |at| key_at::<R>(&files[largest], at as u64), &group)?;
        // Where each part starts and ends in each run, in records.
        let mut bounds: Vec<Vec<u64>> = Vec::with_capacity(files.len());
        for (file, &length) in files.iter().zip(&lengths) {
            let first_at_or_after = |key: u128| first_record_from::<R>(file, length, key);
            let mut ends = Vec::with_capacity(cuts.len() + 1);
            for &cut in &cuts {
                ends.push(first_at_or_after(cut)?);
            }
            ends.push(length);
            bounds.push(ends);
        }
        (0..=cuts.len())
            .map(|part| {
                let ranges = files.iter().zip(&bounds).map(|(file, ends)| {
                    let start = if part == 0 { 0 } else { ends[part - 1] };
                    (Arc::clone(file), start * R::BYTES as u64..ends[part] * R::BYTES as u64)
                });
                Merged::of_ranges(ranges.collect())
            })
            .collect()
    }
}

/// Waits for a run still being written when the sort is dropped (on an
/// error, or a search stopped): no thread outlives it.
impl<R: Record> Drop for Runs<R> {
    fn drop(&mut self) {
        if let Some(writing) = self.writing.take() {
            // Its run is not wanted: a failure to write it is not one.
            drop(writing.join());
        }
    }
}

/// A run written, and the buffer it was written from.
type Written<R> = (File, Vec<R>);

/// `buffer` sorted and written to a new run: the run, and the buffer.
fn write_run<R: Record>(mut buffer: Vec<R>, temp_dir: Option<&Path>) -> Result<Written<R>, DedupError> {
    R::sort(&mut buffer);
    let mut writer = RunWriter::new(temp_dir)?;
    for &record in &buffer {
        writer.push(record)?;
    }
    Ok((writer.finish()?, buffer))
}

/// The keys at which `parts` parts of `length` sorted records (whose keys
/// `key_at` reads) start, but for the first: the smallest key of the group
/// of the record at each equal step, each cut once and none at the first
/// record's group, so that no part is empty (a group larger than a step
/// makes fewer parts).
fn cuts_in(
    parts: usize,
    length: usize,
    key_at: impl Fn(usize) -> Result<u128, DedupError>,
    group: impl Fn(u128) -> u128,
) -> Result<Vec<u128>, DedupError> {
    let mut cuts: Vec<u128> = Vec::new();
    if length == 0 {
        return Ok(cuts);
    }
    let mut last = group(key_at(0)?);
    for part in 1..parts {
        let cut = group(key_at(length * part / parts)?);
        if cut > last {
            cuts.push(cut);
            last = cut;
        }
    }
    Ok(cuts)
}

/// The key of record `at` of a run.
fn key_at<R: Record>(file: &File, at: u64) -> Result<u128, DedupError> {
    let mut bytes = [0u8; 16];
    let bytes = &mut bytes[..R::BYTES];
    file.read_exact_at(bytes, at * R::BYTES as u64).map_err(DedupError::SortRuns)?;
    Ok(R::read(bytes).packed())
}

/// The index of the first record of a run of `length` records whose key
/// is at least `key` (`length` if none), by binary search.
fn first_record_from<R: Record>(file: &File, length: u64, key: u128) -> Result<u64, DedupError> {
    let (mut low, mut high) = (0, length);
    while low < high {
        let middle = low + (high - low) / 2;
        if key_at::<R>(file, middle)? < key {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    Ok(low)
}

/// A run being written to a temporary file.
struct RunWriter<R: Record> {
    writer: BufWriter<File>,
    bytes: Vec<u8>,
    record: std::marker::PhantomData<R>,
}

/// A temporary file (gone when closed) in `temp_dir`, the system's when
/// `None`: the runs', the passage search's store and the Python package's
/// spilled texts.
pub(crate) fn temp_file(temp_dir: Option<&Path>) -> std::io::Result<File> {
    match temp_dir {
        Some(dir) => tempfile::tempfile_in(dir),
        None => tempfile::tempfile(),
    }
}

/// Records written to a run at once.
const WRITE_RECORDS: usize = 4096;

impl<R: Record> RunWriter<R> {
    fn new(temp_dir: Option<&Path>) -> Result<RunWriter<R>, DedupError> {
        let file = temp_file(temp_dir).map_err(DedupError::SortRuns)?;
        Ok(RunWriter {
            writer: BufWriter::with_capacity(1 << 20, file),
            bytes: Vec::with_capacity(R::BYTES * WRITE_RECORDS),
            record: std::marker::PhantomData,
        })
    }

    fn push(&mut self, record: R) -> Result<(), DedupError> {
        record.write(&mut self.bytes);
        if self.bytes.len() >= R::BYTES * WRITE_RECORDS {
            self.writer.write_all(&self.bytes).map_err(DedupError::SortRuns)?;
            self.bytes.clear();
        }
        Ok(())
    }

    /// The run, written (read back at offsets: [`RunReader`], [`Spooled::records`]).
    fn finish(mut self) -> Result<File, DedupError> {
        self.writer.write_all(&self.bytes).map_err(DedupError::SortRuns)?;
        self.writer.into_inner().map_err(|err| DedupError::SortRuns(err.into_error()))
    }
}

/// Records read from `source` a buffer at a time, and decoded a buffer at
/// a time: a merge takes hundreds of millions of them, and reading each
/// through a buffered reader (a copy of its 12 or 16 bytes and its checks,
/// a call each) was a fifth of the passage search's candidates phase.
struct Decoded<R, S> {
    source: S,
    bytes: Vec<u8>,
    records: Vec<R>,
    next: usize,
}

impl<R: Record, S: Read> Decoded<R, S> {
    fn new(source: S) -> Decoded<R, S> {
        let bytes = vec![0; READ_BUFFER / R::BYTES * R::BYTES];
        Decoded { source, bytes, records: Vec::new(), next: 0 }
    }

    /// The next record, or `None` at the end.
    fn next_record(&mut self) -> Result<Option<R>, DedupError> {
        if self.next == self.records.len() && !self.refill()? {
            return Ok(None);
        }
        let record = self.records[self.next];
        self.next += 1;
        Ok(Some(record))
    }

    /// Reads and decodes the next buffer's records: whether there were any.
    fn refill(&mut self) -> Result<bool, DedupError> {
        let mut filled = 0;
        while filled < self.bytes.len() {
            match self.source.read(&mut self.bytes[filled..]) {
                Ok(0) => break,
                Ok(read) => filled += read,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) => return Err(DedupError::SortRuns(err)),
            }
        }
        if filled % R::BYTES != 0 {
            let cut = std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "a run ends inside a record");
            return Err(DedupError::SortRuns(cut));
        }
        self.records.clear();
        self.records.extend(self.bytes[..filled].chunks_exact(R::BYTES).map(R::read));
        self.next = 0;
        Ok(filled > 0)
    }
}

/// The records of [`Runs`] in order: from the runs on disk, or from memory
/// when none was written. The heap holds each run's next record, ordered
/// by its packed key and its run, and the entry of the run just read from
/// is replaced in place: one sift comparing integers a record, where a pop
/// and a push compared tuples field by field twice (the merges of the 3 GB
/// corpus's hundreds of millions of records are its candidates phase, on
/// one core).
pub(crate) struct Merged<R: Record> {
    readers: Vec<Decoded<R, RunReader>>,
    heap: BinaryHeap<Head<R>>,
    /// Sorted records held in memory, and the range of them merged here
    /// (when no run was written).
    memory: Arc<Vec<R>>,
    next: Range<usize>,
}

/// A range of a run's bytes, read at its own offset: the parts of a merge
/// read one run each from where their records are.
struct RunReader {
    file: Arc<RunFile>,
    bytes: Range<u64>,
}

impl Read for RunReader {
    fn read(&mut self, into: &mut [u8]) -> std::io::Result<usize> {
        let left = usize::try_from(self.bytes.end - self.bytes.start).unwrap_or(usize::MAX);
        let into_len = into.len().min(left);
        let read = self.file.read_at(&mut into[..into_len], self.bytes.start)?;
        self.bytes.start += read as u64;
        Ok(read)
    }
}

/// A run's next record in a merge's heap.
#[derive(Clone, Copy)]
struct Head<R> {
    key: u128,
    run: usize,
    record: R,
}

impl<R: Record> Head<R> {
    fn of(record: R, run: usize) -> Head<R> {
        Head { key: record.packed(), run, record }
    }
}

/// Reversed, so that the heap's greatest is the smallest record: by its key
/// (the record's order), then its run, the record itself not compared.
impl<R> Ord for Head<R> {
    fn cmp(&self, other: &Head<R>) -> std::cmp::Ordering {
        (other.key, other.run).cmp(&(self.key, self.run))
    }
}

impl<R> PartialOrd for Head<R> {
    fn partial_cmp(&self, other: &Head<R>) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<R> PartialEq for Head<R> {
    fn eq(&self, other: &Head<R>) -> bool {
        (self.key, self.run) == (other.key, other.run)
    }
}

impl<R> Eq for Head<R> {}

impl<R: Record> Merged<R> {
    /// The records of `files` (runs, each sorted) in order.
    fn of_files(files: Vec<RunFile>) -> Result<Merged<R>, DedupError> {
        let ranges = files
            .into_iter()
            .map(|file| {
                let bytes = file.metadata().map_err(DedupError::SortRuns)?.len();
                Ok((Arc::new(file), 0..bytes))
            })
            .collect::<Result<_, DedupError>>()?;
        Merged::of_ranges(ranges)
    }

    /// The records of ranges of runs (each sorted), in order.
    fn of_ranges(ranges: Vec<(Arc<RunFile>, Range<u64>)>) -> Result<Merged<R>, DedupError> {
        let mut readers: Vec<Decoded<R, RunReader>> =
            ranges.into_iter().map(|(file, bytes)| Decoded::new(RunReader { file, bytes })).collect();
        let mut heap = BinaryHeap::with_capacity(readers.len());
        for (run, reader) in readers.iter_mut().enumerate() {
            if let Some(record) = reader.next_record()? {
                heap.push(Head::of(record, run));
            }
        }
        Ok(Merged { readers, heap, memory: Arc::new(Vec::new()), next: 0..0 })
    }

    /// The records `next` of sorted `memory`, in order.
    fn of_memory(memory: Arc<Vec<R>>, next: Range<usize>) -> Merged<R> {
        Merged { readers: Vec::new(), heap: BinaryHeap::new(), memory, next }
    }
}

/// Records a merge hands over at once ([`Merged::each_batch`]): 1 to 2 MB.
const BATCH_RECORDS: usize = 1 << 17;

impl<R: Record> Merged<R> {
    /// Calls `each` with every record in order, a batch at a time. Records
    /// merged from runs on disk are merged on a thread of their own, the
    /// next batch while `each` takes this one: the merges of the 3 GB
    /// corpus's postings and pairs (hundreds of millions of records each)
    /// ran on one core, with what was made of their records waiting for
    /// them (BENCHMARKS.md). At most two batches wait at once.
    pub(crate) fn each_batch(
        mut self,
        mut each: impl FnMut(&[R]) -> Result<(), DedupError>,
    ) -> Result<(), DedupError> {
        if self.readers.is_empty() {
            return self.memory[self.next].chunks(BATCH_RECORDS).try_for_each(each);
        }
        let (batches, merged) = std::sync::mpsc::sync_channel::<Result<Vec<R>, DedupError>>(2);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                // Until the records end, or the receiver is gone (`each`
                // failed): a send that fails ends the merge.
                loop {
                    let batch: Result<Vec<R>, DedupError> = self.by_ref().take(BATCH_RECORDS).collect();
                    let last = batch.as_ref().map_or(true, |batch| batch.len() < BATCH_RECORDS);
                    if batches.send(batch).is_err() || last {
                        return;
                    }
                }
            });
            // The receiver is moved in, and so dropped when `each` fails,
            // before the scope waits for the merge: its next send fails.
            merged.into_iter().try_for_each(|batch| each(&batch?))
        })
    }
}

impl<R: Record> Iterator for Merged<R> {
    type Item = Result<R, DedupError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.readers.is_empty() {
            let at = self.next.next()?;
            return Some(Ok(self.memory[at]));
        }
        let mut top = self.heap.peek_mut()?;
        let Head { run, record, .. } = *top;
        match self.readers[run].next_record() {
            Ok(Some(next)) => *top = Head::of(next, run),
            Ok(None) => {
                PeekMut::pop(top);
            }
            Err(err) => return Some(Err(err)),
        }
        Some(Ok(record))
    }
}

/// Records kept in a temporary file in the order they were pushed, to be
/// read back in that order as many times as needed: a list too long to
/// hold (the passage search's candidate pairs, 14.5 million on the 3 GB
/// generated corpus, each read twice by pass 2's schedule).
pub(crate) struct Spool<R: Record> {
    writer: RunWriter<R>,
    records: u64,
}

impl<R: Record> Spool<R> {
    /// An empty spool, its file in `temp_dir` (the system's when `None`).
    pub(crate) fn new(temp_dir: Option<&Path>) -> Result<Spool<R>, DedupError> {
        Ok(Spool { writer: RunWriter::new(temp_dir)?, records: 0 })
    }

    pub(crate) fn push(&mut self, record: R) -> Result<(), DedupError> {
        self.records += 1;
        self.writer.push(record)
    }

    /// Its records, to be read.
    pub(crate) fn finish(self) -> Result<Spooled<R>, DedupError> {
        Ok(Spooled { file: self.writer.finish()?, records: self.records, record: std::marker::PhantomData })
    }
}

/// A [`Spool`]'s records, written.
pub(crate) struct Spooled<R: Record> {
    file: File,
    records: u64,
    record: std::marker::PhantomData<R>,
}

impl<R: Record> Spooled<R> {
    pub(crate) fn len(&self) -> u64 {
        self.records
    }

    /// Its records from the first, in the order pushed (one reading at a
    /// time: they share the file's position).
    pub(crate) fn records(&mut self) -> Result<impl Iterator<Item = Result<R, DedupError>> + '_, DedupError> {
        (&self.file).seek(SeekFrom::Start(0)).map_err(DedupError::SortRuns)?;
        let mut reader = Decoded::new(&self.file);
        Ok(std::iter::from_fn(move || reader.next_record().transpose()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `records` pushed into runs of at most `memory` bytes.
    fn pushed<R: Record>(records: &[R], memory: u64) -> Runs<R> {
        let mut runs = Runs::new(memory, None);
        records.iter().try_for_each(|&record| runs.push(record)).unwrap();
        runs
    }

    /// `records` sorted.
    fn sorted<R: Record>(records: &[R]) -> Vec<R> {
        let mut sorted = records.to_vec();
        sorted.sort_unstable();
        sorted
    }

    #[test]
    fn records_are_decoded_across_buffers_and_a_cut_record_is_an_error() {
        let records: Vec<(u32, u32, u32)> = (0..100_000).map(|n| (n, n + 1, n * 3)).collect();
        let mut bytes = Vec::new();
        records.iter().for_each(|record| record.write(&mut bytes));
        let mut decoded = Decoded::<(u32, u32, u32), _>::new(&bytes[..]);
        let read: Vec<_> = std::iter::from_fn(|| decoded.next_record().unwrap()).collect();
        assert_eq!(read, records);
        let mut cut = Decoded::<(u32, u32, u32), _>::new(&bytes[..bytes.len() - 5]);
        let mut taken = 0;
        let error = loop {
            match cut.next_record() {
                Ok(Some(_)) => taken += 1,
                Ok(None) => panic!("a cut run ended without an error"),
                Err(error) => break error,
            }
        };
        assert!(matches!(error, DedupError::SortRuns(_)), "{error}");
        assert!(taken < records.len() - 1);
    }

    #[test]
    fn records_come_back_sorted_from_memory_and_from_many_runs() {
        let mut rng = fastrand::Rng::with_seed(3);
        let records: Vec<(u64, u32, u32)> =
            (0..10_000).map(|_| (rng.u64(0..500), rng.u32(0..50), rng.u32(..))).collect();
        let expected = sorted(&records);
        for memory in [1 << 30, 16 * 700, 16 * 64] {
            let runs = pushed(&records, memory);
            assert_eq!(runs.len(), 10_000);
            let merged: Vec<_> = runs.merged().unwrap().collect::<Result<_, _>>().unwrap();
            assert_eq!(merged, expected, "memory {memory}");
        }
    }

    #[test]
    fn a_run_that_cannot_be_written_is_an_error_when_the_records_are_asked_for() {
        let missing = std::env::temp_dir().join("priorart-runs-no-such-directory");
        let mut runs = Runs::new(12 * 100, Some(&missing));
        // Each run is written on a thread of its own: its failure comes
        // back with the next run handed over, or with the merge.
        let pushed: Result<(), DedupError> = (0..1_000u32).try_for_each(|n| runs.push((n, n, n)));
        let failed = pushed.and_then(|()| runs.merged().map(drop));
        assert!(matches!(failed, Err(DedupError::SortRuns(_))), "{failed:?}");
    }

    #[test]
    fn batches_hold_the_records_in_order_and_a_failure_stops_the_merge() {
        let mut rng = fastrand::Rng::with_seed(5);
        let records: Vec<(u32, u32, u32)> =
            (0..3 * BATCH_RECORDS + 7).map(|_| (rng.u32(0..900), rng.u32(..), rng.u32(..))).collect();
        let expected = sorted(&records);
        // In memory, and merged from runs on disk on a thread of its own.
        for memory in [1 << 30, 12 * 50_000] {
            let mut batches = Vec::new();
            let each = |batch: &[(u32, u32, u32)]| {
                batches.push(batch.to_vec());
                Ok(())
            };
            pushed(&records, memory).merged().unwrap().each_batch(each).unwrap();
            assert!(batches.iter().all(|batch| batch.len() <= BATCH_RECORDS), "memory {memory}");
            assert_eq!(batches.concat(), expected, "memory {memory}");
        }
        // The first failure is returned, and the merge ends with it.
        let mut taken = 0;
        let failed = pushed(&records, 12 * 50_000).merged().unwrap().each_batch(|_| {
            taken += 1;
            Err(DedupError::SortRuns(std::io::Error::other("full")))
        });
        assert!(matches!(failed, Err(DedupError::SortRuns(_))));
        assert_eq!(taken, 1);
    }

    #[test]
    fn parts_hold_the_records_in_order_and_a_group_whole() {
        let mut rng = fastrand::Rng::with_seed(7);
        // Pairs of documents and a word: a pair's records are a group.
        let records: Vec<(u32, u32, u32)> =
            (0..20_000).map(|_| (rng.u32(0..40), rng.u32(0..40), rng.u32(..))).collect();
        let expected = sorted(&records);
        let pair = |key: u128| key >> 32 << 32;
        // In memory, from one run and a buffer, and from many runs.
        for memory in [1 << 30, 12 * 15_000, 12 * 700] {
            for parts in [1, 2, 3, 8] {
                let merged: Vec<Vec<(u32, u32, u32)>> = pushed(&records, memory)
                    .merged_in_parts(parts, pair)
                    .unwrap()
                    .into_iter()
                    .map(|part| part.collect::<Result<_, _>>().unwrap())
                    .collect();
                assert_eq!(merged.concat(), expected, "memory {memory}, {parts} parts");
                assert!(merged.len() <= parts, "memory {memory}: {} parts of {parts}", merged.len());
                if parts > 1 {
                    assert!(merged.len() > 1, "memory {memory}: cut into {} parts", merged.len());
                }
                for (before, after) in merged.iter().zip(&merged[1..]) {
                    let (last, first) = (before.last().unwrap(), after.first().unwrap());
                    assert_ne!((last.0, last.1), (first.0, first.1), "a pair cut between two parts");
                }
            }
        }
        // A group larger than a part is not cut: fewer parts.
        let one_pair: Vec<(u32, u32, u32)> = (0..1_000).map(|word| (1, 2, word)).collect();
        assert_eq!(pushed(&one_pair, 1 << 30).merged_in_parts(4, pair).unwrap().len(), 1);
    }

    #[test]
    fn runs_merge_in_levels_with_few_open_at_once() {
        let mut rng = fastrand::Rng::with_seed(9);
        let records: Vec<(u32, u32, u32)> =
            (0..20_000).map(|_| (rng.u32(0..300), rng.u32(0..300), rng.u32(..))).collect();
        let expected = sorted(&records);
        // 100 records a run: 200 runs, merged 4 at a time.
        let mut runs = Runs::new(12 * 100, None).with_fan_in(4);
        let mut most_open = 0;
        for &record in &records {
            runs.push(record).unwrap();
            most_open = most_open.max(runs.files.len());
        }
        // 200 runs are levels 0 to 3 (4^3 = 64 runs each at the top):
        // at most 3 of each level wait, and a merge holds 4 more.
        assert!(most_open <= 3 * 4, "{most_open} runs open");
        assert!(runs.files.iter().any(|&(level, _)| level >= 2), "merged in levels");
        let merged: Vec<_> = runs.merged().unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(merged, expected);
    }

    /// Whether `packed` orders records of type `R` as they are ordered.
    fn packs_in_order<R: Record + std::fmt::Debug>(records: &[R]) {
        for x in records {
            for y in records {
                assert_eq!(x.packed().cmp(&y.packed()), x.cmp(y), "{x:?} {y:?}");
            }
        }
    }

    #[test]
    fn packed_records_sort_as_the_records() {
        let mut rng = fastrand::Rng::with_seed(11);
        // Values at the edges of each field, and random ones.
        let value = |rng: &mut fastrand::Rng| match rng.u8(0..4) {
            0 => 0,
            1 => u32::MAX,
            _ => rng.u32(..),
        };
        let small: Vec<(u32, u32)> = (0..40).map(|_| (value(&mut rng), value(&mut rng))).collect();
        let pairs: Vec<(u32, u32, u32)> =
            (0..40).map(|_| (value(&mut rng), value(&mut rng), value(&mut rng))).collect();
        let postings: Vec<(u64, u32, u32)> = (0..40)
            .map(|_| {
                (
                    u64::from(value(&mut rng)) << 32 | u64::from(value(&mut rng)),
                    value(&mut rng),
                    value(&mut rng),
                )
            })
            .collect();
        packs_in_order(&small);
        packs_in_order(&pairs);
        packs_in_order(&postings);
    }

    #[test]
    fn pairs_round_trip_through_their_bytes() {
        let mut bytes = Vec::new();
        (7u32, u32::MAX).write(&mut bytes);
        assert_eq!(bytes.len(), <(u32, u32)>::BYTES);
        assert_eq!(<(u32, u32)>::read(&bytes), (7, u32::MAX));
        bytes.clear();
        (1u32, 2u32, u32::MAX).write(&mut bytes);
        assert_eq!(bytes.len(), <(u32, u32, u32)>::BYTES);
        assert_eq!(<(u32, u32, u32)>::read(&bytes), (1, 2, u32::MAX));
    }

    #[test]
    fn a_spool_gives_its_records_back_in_order_each_time() {
        let mut rng = fastrand::Rng::with_seed(13);
        let records: Vec<(u32, u32, u32)> =
            (0..50_000).map(|_| (rng.u32(..), rng.u32(..), rng.u32(..))).collect();
        let mut spool = Spool::new(None).unwrap();
        records.iter().try_for_each(|&record| spool.push(record)).unwrap();
        let mut spooled = spool.finish().unwrap();
        assert_eq!(spooled.len(), 50_000);
        for _ in 0..2 {
            let read: Vec<_> = spooled.records().unwrap().collect::<Result<_, _>>().unwrap();
            assert_eq!(read, records);
        }
        let mut empty = Spool::<(u32, u32, u32)>::new(None).unwrap().finish().unwrap();
        assert_eq!(empty.records().unwrap().count(), 0);
    }

    #[test]
    fn a_buffer_never_grows_past_its_bound() {
        // 12-byte records in 1,200,000 bytes: 100,000 of them, not a power
        // of two, which a vector's doubling would pass (131,072).
        let mut runs = Runs::<(u32, u32, u32)>::new(12 * 100_000, None);
        for record in 0..100_000 {
            runs.push((record, 0, 0)).unwrap();
            assert!(runs.buffer.capacity() <= 100_000, "{} records", runs.buffer.capacity());
        }
        assert!(runs.files.is_empty(), "not spilled before the bound");
    }
}
