//! A segment's passage marks: every document's winnowing marks
//! ([`priorart_align::Winnowing`], Schleimer et al. 2003), so that a text
//! looked up finds the indexed documents it shares passages with, and
//! where in them, without the index keeping their texts
//! ([`crate::Index::query_passages`]).
//!
//! One file per segment, `seg-NNNNNN.pam` beside its `seg-NNNNNN.pai`,
//! written before the manifest that lists the segment (so a build or an
//! add either completes with both or leaves the index as it was), never
//! changed in place.
//!
//! # Format (little-endian)
//!
//! An 80-byte header — magic `priorart-marks\0\0`, version, document
//! count, row count, SHA-256 of the rest of the file (header included) —
//! then the body, each section on an 8-byte boundary: each document's mark
//! count (`u32`); then one row per mark, sorted by hash, then document,
//! then word, in columns: hashes (`u64`), document numbers, content-word
//! indexes, byte starts and byte ends (`u32` each). 24 bytes a mark;
//! about 2 in 5 content words carry one with the default winnowing.
//!
//! Opening checks the magic, the version, the length, the checksum and that
//! every row names a document of the segment and is in order, so that a
//! damaged or hostile file is refused ([`SegmentError`]), never read out of
//! bounds. Compaction reads the files it merges back as files
//! ([`MarksFile`]), not through their maps: the same checks, the rows'
//! order checked as they are merged.

use crate::section_reader::SectionReader;
use crate::segment::{Bytes, SegmentError, partition_point};
use crate::temporary::Temporary;
#[cfg(test)]
use priorart_align::Mark;
use priorart_files::FileError;
use sha2::{Digest, Sha256};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 16] = b"priorart-marks\0\0";
const VERSION: u32 = 1;
const HEADER_LEN: usize = 80;
/// Where the checksum is in the header.
const CHECKSUM: Range<usize> = 40..72;

/// One mark of an indexed document, as a lookup finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The document's number in its segment.
    pub document: u32,
    /// The mark's first content word in the document.
    pub word: u32,
    /// Its byte range in the document's text.
    pub start: u32,
    /// Just past its last byte.
    pub end: u32,
}

/// Where each section starts.
#[derive(Debug, Clone, Copy)]
struct Sections {
    counts: usize,
    hashes: usize,
    documents: usize,
    words: usize,
    starts: usize,
    ends: usize,
    end: usize,
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

impl Sections {
    fn new(docs: u64, rows: u64) -> Option<Sections> {
        let (docs, rows) = (usize::try_from(docs).ok()?, usize::try_from(rows).ok()?);
        let counts = HEADER_LEN;
        let hashes = align8(counts.checked_add(docs.checked_mul(4)?)?);
        let documents = hashes.checked_add(rows.checked_mul(8)?)?;
        let words = documents.checked_add(rows.checked_mul(4)?)?;
        let starts = words.checked_add(rows.checked_mul(4)?)?;
        let ends = starts.checked_add(rows.checked_mul(4)?)?;
        let end = ends.checked_add(rows.checked_mul(4)?)?;
        Some(Sections { counts, hashes, documents, words, starts, ends, end })
    }
}

fn checksum(bytes: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(&bytes[..CHECKSUM.start]);
    hasher.update(&bytes[CHECKSUM.end..]);
    hasher.finalize().into()
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// The marks file of the segment at `segment` (`seg-NNNNNN.pai` →
/// `seg-NNNNNN.pam`).
pub(crate) fn path_of(segment: &Path) -> PathBuf {
    segment.with_extension("pam")
}

/// A mark as a row of the file, in the file's order: hash, document,
/// content word, byte start, byte end.
pub(crate) type RowKey = (u64, u32, u32, u32, u32);

/// Bytes of each column gathered before they are written.
const COLUMN_BUFFER: usize = 256 << 10;

/// Writes the marks file `path`, which must not exist: `counts[n]` marks of
/// document `n`, and the `total` `rows`, sorted (each read as written, so
/// that memory does not grow with them). The file is written under a
/// temporary name beside `path`, synced, and only then linked at `path`
/// (as `priorart_files::write_new`): a failure or a kill leaves no file
/// at `path`, and the temporary name is removed on failure.
pub(crate) fn write_sorted<E>(
    path: &Path,
    counts: &[u32],
    total: u64,
    rows: impl Iterator<Item = Result<RowKey, E>>,
) -> Result<(), SegmentError>
where
    SegmentError: From<E>,
{
    let too_many = || SegmentError::TooManyDocuments { docs: counts.len() };
    let docs = u64::try_from(counts.len()).map_err(|_| too_many())?;
    if docs > u64::from(u32::MAX) {
        return Err(too_many());
    }
    let sections = Sections::new(docs, total).ok_or_else(too_many)?;
    let temporary = Temporary::beside(path);
    let io = |action: &'static str| {
        let path = temporary.path.clone();
        move |source| SegmentError::File(FileError::Io { path, action, source })
    };
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temporary.path)
        .map_err(io("create"))?;
    let mut head = vec![0u8; sections.hashes];
    head[..16].copy_from_slice(MAGIC);
    head[16..20].copy_from_slice(&VERSION.to_le_bytes());
    head[24..32].copy_from_slice(&docs.to_le_bytes());
    head[32..40].copy_from_slice(&total.to_le_bytes());
    for (n, count) in counts.iter().enumerate() {
        head[sections.counts + 4 * n..][..4].copy_from_slice(&count.to_le_bytes());
    }
    file.write_all(&head).map_err(io("write"))?;
    let mut columns = Columns::new(&sections);
    let mut written = 0u64;
    for row in rows {
        columns.push(&mut file, row?).map_err(io("write"))?;
        written += 1;
    }
    columns.flush(&mut file).map_err(io("write"))?;
    debug_assert_eq!(written, total, "the rows counted are the rows given");
    let sum = checksum_of(&mut file).map_err(io("read"))?;
    file.seek(SeekFrom::Start(CHECKSUM.start as u64)).map_err(io("write"))?;
    file.write_all(&sum).map_err(io("write"))?;
    file.sync_all().map_err(io("write"))?;
    drop(file);
    Ok(temporary.link(path)?)
}

/// The SHA-256 of a marks file as [`checksum`] computes it, read back a
/// block at a time (the body is written column by column, so its bytes
/// are only in file order once all are written).
fn checksum_of(file: &mut File) -> std::io::Result<[u8; 32]> {
    file.seek(SeekFrom::Start(0))?;
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut header = [0u8; HEADER_LEN];
    reader.read_exact(&mut header)?;
    let mut hasher = Sha256::new();
    hasher.update(&header[..CHECKSUM.start]);
    hasher.update(&header[CHECKSUM.end..]);
    loop {
        let block = reader.fill_buf()?;
        if block.is_empty() {
            break;
        }
        hasher.update(block);
        let read = block.len();
        reader.consume(read);
    }
    Ok(hasher.finalize().into())
}

/// The five columns of the rows, each gathered in a buffer and written at
/// its own place in the file.
struct Columns {
    /// Where each column's next bytes go.
    at: [u64; 5],
    buffers: [Vec<u8>; 5],
}

impl Columns {
    fn new(sections: &Sections) -> Columns {
        let s = sections;
        Columns {
            at: [s.hashes, s.documents, s.words, s.starts, s.ends].map(|at| at as u64),
            buffers: std::array::from_fn(|_| Vec::with_capacity(COLUMN_BUFFER)),
        }
    }

    fn push(&mut self, file: &mut File, (hash, document, word, start, end): RowKey) -> std::io::Result<()> {
        self.buffers[0].extend_from_slice(&hash.to_le_bytes());
        for (buffer, value) in self.buffers[1..].iter_mut().zip([document, word, start, end]) {
            buffer.extend_from_slice(&value.to_le_bytes());
        }
        if self.buffers[0].len() >= COLUMN_BUFFER {
            self.flush(file)?;
        }
        Ok(())
    }

    fn flush(&mut self, file: &mut File) -> std::io::Result<()> {
        for (at, buffer) in self.at.iter_mut().zip(&mut self.buffers) {
            file.seek(SeekFrom::Start(*at))?;
            file.write_all(buffer)?;
            *at += buffer.len() as u64;
            buffer.clear();
        }
        Ok(())
    }
}

/// The bytes of a marks file, all in memory: what [`write_sorted`] must
/// write, byte for byte (the tests' reference).
#[cfg(test)]
pub(crate) fn encode(marks: &[Vec<Mark>]) -> Result<Vec<u8>, SegmentError> {
    let too_many = || SegmentError::TooManyDocuments { docs: marks.len() };
    let docs = u32::try_from(marks.len()).map_err(|_| too_many())?;
    let mut rows: Vec<RowKey> = Vec::with_capacity(marks.iter().map(Vec::len).sum());
    for (document, held) in (0..docs).zip(marks) {
        rows.extend(held.iter().map(|mark| (mark.hash, document, mark.word, mark.start, mark.end)));
    }
    rows.sort_unstable();
    let sections = Sections::new(u64::from(docs), rows.len() as u64).ok_or_else(too_many)?;
    let mut out = vec![0u8; sections.end];
    out[..16].copy_from_slice(MAGIC);
    out[16..20].copy_from_slice(&VERSION.to_le_bytes());
    out[24..32].copy_from_slice(&u64::from(docs).to_le_bytes());
    out[32..40].copy_from_slice(&(rows.len() as u64).to_le_bytes());
    for (n, held) in marks.iter().enumerate() {
        let count = u32::try_from(held.len()).map_err(|_| too_many())?;
        out[sections.counts + 4 * n..][..4].copy_from_slice(&count.to_le_bytes());
    }
    for (r, &(hash, document, word, start, end)) in rows.iter().enumerate() {
        out[sections.hashes + 8 * r..][..8].copy_from_slice(&hash.to_le_bytes());
        out[sections.documents + 4 * r..][..4].copy_from_slice(&document.to_le_bytes());
        out[sections.words + 4 * r..][..4].copy_from_slice(&word.to_le_bytes());
        out[sections.starts + 4 * r..][..4].copy_from_slice(&start.to_le_bytes());
        out[sections.ends + 4 * r..][..4].copy_from_slice(&end.to_le_bytes());
    }
    let sum = checksum(&out);
    out[CHECKSUM].copy_from_slice(&sum);
    Ok(out)
}

/// An open, checked marks file.
pub(crate) struct Marks {
    bytes: Bytes,
    sections: Sections,
    rows: usize,
}

/// What a marks file's header says, checked against the file's length and
/// its segment's document count.
struct Header {
    sections: Sections,
    docs: usize,
    rows: usize,
}

impl Header {
    /// The header at the start of `bytes` (the file's first bytes, at
    /// least [`HEADER_LEN`] of them unless the file is shorter) of a file
    /// `length` bytes long.
    fn check(bytes: &[u8], length: u64, name: &str, expected_docs: usize) -> Result<Header, SegmentError> {
        let corrupt = |detail: String| SegmentError::Corrupt { path: name.to_owned(), detail };
        if bytes.len() < HEADER_LEN || &bytes[..16] != MAGIC {
            return Err(SegmentError::Foreign { path: name.to_owned() });
        }
        let version = u32_at(bytes, 16);
        if version != VERSION {
            return Err(SegmentError::Version { path: name.to_owned(), version });
        }
        let (docs, rows) = (u64_at(bytes, 24), u64_at(bytes, 32));
        if docs != expected_docs as u64 {
            return Err(corrupt(format!("marks of {docs} documents, the segment holds {expected_docs}")));
        }
        let sections = Sections::new(docs, rows).ok_or_else(|| corrupt("sizes overflow".into()))?;
        if sections.end as u64 != length {
            return Err(corrupt(format!("{length} bytes where the header implies {}", sections.end)));
        }
        // Both fit a `usize`: `Sections::new` converted them.
        Ok(Header { sections, docs: docs as usize, rows: rows as usize })
    }
}

/// Checks that the documents' mark counts add up to the rows.
fn check_counts(counts: impl Iterator<Item = u32>, rows: u64) -> Result<(), &'static str> {
    let counted: u64 = counts.map(u64::from).sum();
    if counted == rows { Ok(()) } else { Err("the documents' mark counts do not add up to the rows") }
}

/// The order of a marks file's rows, checked one row at a time: sorted
/// by hash, document and word, each naming a document of the file and
/// its byte range not reversed.
struct RowOrder {
    docs: usize,
    previous: (u64, u32, u32),
}

impl RowOrder {
    fn new(docs: usize) -> RowOrder {
        RowOrder { docs, previous: (0, 0, 0) }
    }

    /// Checks the next row (what is wrong if it does not hold).
    fn check(&mut self, (hash, document, word, start, end): RowKey) -> Result<(), &'static str> {
        let key = (hash, document, word);
        if document as usize >= self.docs || key < self.previous || start > end {
            return Err("a mark is out of order or names no document");
        }
        self.previous = key;
        Ok(())
    }
}

impl Marks {
    /// Maps and checks the marks file at `path`, of a segment of `docs`
    /// documents.
    pub(crate) fn open(path: &Path, docs: usize) -> Result<Marks, SegmentError> {
        let name = path.display().to_string();
        let file =
            std::fs::File::open(path).map_err(|source| SegmentError::Map { path: name.clone(), source })?;
        // SAFETY: marks files are written whole and never modified in
        // place (see the module docs); their length is checked before any
        // read.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|source| SegmentError::Map { path: name.clone(), source })?;
        Marks::check(Bytes::Mapped(map), &name, docs)
    }

    /// Checks marks held in memory.
    #[cfg(test)]
    pub(crate) fn from_bytes(bytes: Vec<u8>, docs: usize) -> Result<Marks, SegmentError> {
        Marks::check(Bytes::Owned(bytes), "(memory)", docs)
    }

    fn check(bytes: Bytes, name: &str, expected_docs: usize) -> Result<Marks, SegmentError> {
        let corrupt = |detail: &str| SegmentError::Corrupt { path: name.to_owned(), detail: detail.into() };
        let Header { sections, docs, rows } = Header::check(&bytes, bytes.len() as u64, name, expected_docs)?;
        if checksum(&bytes)[..] != bytes[CHECKSUM] {
            return Err(SegmentError::Checksum { path: name.to_owned() });
        }
        let marks = Marks { bytes, sections, rows };
        check_counts((0..docs).map(|n| marks.count(n as u32)), rows as u64).map_err(corrupt)?;
        let mut order = RowOrder::new(docs);
        for r in 0..marks.rows {
            let row = marks.row(r);
            order.check((marks.hash(r), row.document, row.word, row.start, row.end)).map_err(corrupt)?;
        }
        Ok(marks)
    }

    /// How many marks document `number` has.
    fn count(&self, number: u32) -> u32 {
        u32_at(&self.bytes, self.sections.counts + 4 * number as usize)
    }

    fn hash(&self, row: usize) -> u64 {
        u64_at(&self.bytes, self.sections.hashes + 8 * row)
    }

    fn row(&self, r: usize) -> Row {
        let s = &self.sections;
        Row {
            document: u32_at(&self.bytes, s.documents + 4 * r),
            word: u32_at(&self.bytes, s.words + 4 * r),
            start: u32_at(&self.bytes, s.starts + 4 * r),
            end: u32_at(&self.bytes, s.ends + 4 * r),
        }
    }

    /// The rows of `hash` (sorted by document, then word).
    pub(crate) fn rows_of(&self, hash: u64) -> impl Iterator<Item = Row> + '_ {
        let first = partition_point(self.rows, |r| self.hash(r) < hash);
        (first..self.rows).take_while(move |&r| self.hash(r) == hash).map(|r| self.row(r))
    }
}

/// Buffer of each column of a marks file read back ([`MarksFile`]).
const COLUMN_READ_BUFFER: usize = 64 << 10;

/// A segment's marks file checked as read from its file, not through its
/// map, and its rows read back a block of each column at a time: what
/// compaction merges (see `crate::section_reader`). The header, length,
/// checksum and mark counts are checked at open (the file read once, a
/// block at a time), the rows' order as they are read, so that a damaged
/// file is a [`SegmentError`], never a panic.
pub(crate) struct MarksFile {
    path: PathBuf,
    sections: Sections,
    rows: usize,
    /// Each document's mark count.
    counts: Vec<u32>,
}

impl MarksFile {
    /// Checks the marks file at `path`, of a segment of `docs` documents.
    pub(crate) fn open(path: &Path, docs: usize) -> Result<MarksFile, SegmentError> {
        let name = path.display().to_string();
        let io = |action| move |source| FileError::Io { path: path.to_owned(), action, source };
        let mut file = File::open(path).map_err(io("open"))?;
        let length = file.metadata().map_err(io("read"))?.len();
        let mut header = Vec::with_capacity(HEADER_LEN);
        Read::take(&mut file, HEADER_LEN as u64).read_to_end(&mut header).map_err(io("read"))?;
        let Header { sections, rows, .. } = Header::check(&header, length, &name, docs)?;
        if checksum_of(&mut file).map_err(io("read"))?[..] != header[CHECKSUM] {
            return Err(SegmentError::Checksum { path: name });
        }
        let mut reader = SectionReader::open(path, sections.counts as u64, COLUMN_READ_BUFFER)?;
        let counts = (0..docs).map(|_| reader.u32()).collect::<Result<Vec<u32>, _>>()?;
        check_counts(counts.iter().copied(), rows as u64)
            .map_err(|detail| SegmentError::Corrupt { path: name, detail: detail.into() })?;
        Ok(MarksFile { path: path.to_owned(), sections, rows, counts })
    }

    /// Every row in file order, its document numbered from `first`; a row
    /// out of order, or naming no document of the segment, is an error
    /// that ends them.
    fn rows(
        &self,
        first: u32,
    ) -> Result<impl Iterator<Item = Result<RowKey, SegmentError>> + '_, SegmentError> {
        let s = &self.sections;
        let open = |at: usize| SectionReader::open(&self.path, at as u64, COLUMN_READ_BUFFER);
        let mut columns = [open(s.documents)?, open(s.words)?, open(s.starts)?, open(s.ends)?];
        let mut hashes = open(s.hashes)?;
        let mut order = RowOrder::new(self.counts.len());
        let corrupt = |detail: &str| SegmentError::Corrupt {
            path: self.path.display().to_string(),
            detail: detail.into(),
        };
        Ok((0..self.rows).map(move |_| {
            let hash = hashes.u64()?;
            let [document, word, start, end] = columns.each_mut().map(SectionReader::u32);
            let row = (hash, document?, word?, start?, end?);
            order.check(row).map_err(corrupt)?;
            Ok((hash, first + row.1, row.2, row.3, row.4))
        }))
    }
}

/// Writes the marks file `path` (which must not exist) of the segments
/// whose marks are `segments`, merged into one in their order: a merge of
/// their rows (each file sorted), so that memory does not grow with them.
pub(crate) fn merge_segments(path: &Path, segments: &[MarksFile]) -> Result<(), SegmentError> {
    let docs: usize = segments.iter().map(|marks| marks.counts.len()).sum();
    let first_numbers = segments.iter().scan(0usize, |first, marks| {
        let this = *first;
        *first += marks.counts.len();
        Some(this)
    });
    let first_numbers: Vec<u32> = first_numbers
        .map(|first| u32::try_from(first).map_err(|_| SegmentError::TooManyDocuments { docs }))
        .collect::<Result<_, _>>()?;
    let counts: Vec<u32> = segments.iter().flat_map(|marks| marks.counts.iter().copied()).collect();
    let total = segments.iter().map(|marks| marks.rows as u64).sum();
    let sources = segments
        .iter()
        .zip(first_numbers)
        .map(|(marks, first)| Ok(Box::new(marks.rows(first)?) as Box<dyn Iterator<Item = _> + '_>))
        .collect::<Result<Vec<_>, SegmentError>>()?;
    write_sorted(path, &counts, total, merge(sources))
}

/// The rows of `sources`, each sorted, as one sorted sequence; the first
/// error ends it.
pub(crate) fn merge<'a, E: 'a>(
    mut sources: Vec<Box<dyn Iterator<Item = Result<RowKey, E>> + 'a>>,
) -> impl Iterator<Item = Result<RowKey, E>> + 'a {
    let mut heads: BinaryHeap<Reverse<(RowKey, usize)>> = BinaryHeap::with_capacity(sources.len());
    let mut failure: Option<E> = None;
    for (at, source) in sources.iter_mut().enumerate() {
        match source.next() {
            Some(Ok(row)) => heads.push(Reverse((row, at))),
            Some(Err(err)) => {
                failure.get_or_insert(err);
            }
            None => {}
        }
    }
    std::iter::from_fn(move || {
        if let Some(err) = failure.take() {
            heads.clear();
            return Some(Err(err));
        }
        let Reverse((row, at)) = heads.pop()?;
        match sources[at].next() {
            Some(Ok(next)) => heads.push(Reverse((next, at))),
            Some(Err(err)) => failure = Some(err),
            None => {}
        }
        Some(Ok(row))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(hash: u64, word: u32) -> Mark {
        Mark { hash, word, start: 10 * word, end: 10 * word + 9 }
    }

    fn sample() -> Vec<Vec<Mark>> {
        vec![vec![mark(7, 0), mark(3, 2), mark(7, 5)], vec![], vec![mark(3, 1), mark(9, 4)]]
    }

    #[test]
    fn rows_are_found_by_hash() {
        let marks = Marks::from_bytes(encode(&sample()).unwrap(), 3).unwrap();
        let of = |hash| marks.rows_of(hash).map(|row| (row.document, row.word)).collect::<Vec<_>>();
        assert_eq!(of(3), [(0, 2), (2, 1)]);
        assert_eq!(of(7), [(0, 0), (0, 5)]);
        assert_eq!(of(9), [(2, 4)]);
        assert!(of(8).is_empty());
        assert_eq!(marks.rows_of(9).next().unwrap().start, 40);
        assert_eq!((marks.count(0), marks.count(1), marks.count(2)), (3, 0, 2));
    }

    /// `bytes` written as the file `name` of `dir`.
    fn file(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Many marks, more than a column's read buffer holds.
    fn many(docs: u32, seed: u64) -> Vec<Vec<Mark>> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..docs).map(|_| (0..rng.u32(..5_000)).map(|word| mark(rng.u64(..1_000), word)).collect()).collect()
    }

    #[test]
    fn segments_merged_are_the_file_of_their_documents_together() {
        let dir = tempfile::tempdir().unwrap();
        let pieces = [sample(), vec![vec![mark(3, 0), mark(1, 3)], vec![mark(9, 2), mark(3, 6)]], many(9, 1)];
        assert!(pieces[2].iter().map(Vec::len).sum::<usize>() * 8 > COLUMN_READ_BUFFER);
        let opened: Vec<MarksFile> = pieces
            .iter()
            .enumerate()
            .map(|(n, marks)| {
                let path = file(dir.path(), &format!("seg-00000{n}.pam"), &encode(marks).unwrap());
                MarksFile::open(&path, marks.len()).unwrap()
            })
            .collect();
        let path = dir.path().join("seg-000009.pam");
        merge_segments(&path, &opened).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), encode(&pieces.concat()).unwrap());
        // Never over an existing file, and no temporary file left.
        assert!(matches!(merge_segments(&path, &opened), Err(SegmentError::File(FileError::Exists { .. }))));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 4);
    }

    /// What the file read back refuses, it refuses as the map does: at
    /// open (header, length, checksum, counts) or, a row out of order, as
    /// its rows are merged, leaving no file.
    #[test]
    fn a_damaged_or_foreign_file_read_back_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = encode(&sample()).unwrap();
        let open = |bytes: &[u8], docs| MarksFile::open(&file(dir.path(), "seg-000001.pam", bytes), docs);
        assert!(open(&bytes, 3).is_ok());
        assert!(matches!(open(&bytes, 2), Err(SegmentError::Corrupt { .. })));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(matches!(open(&flipped, 3), Err(SegmentError::Checksum { .. })));
        for cut in [0, 10, HEADER_LEN, bytes.len() - 4] {
            let err = open(&bytes[..cut], 3).err().expect("truncated");
            assert!(
                matches!(err, SegmentError::Foreign { .. } | SegmentError::Corrupt { .. }),
                "{cut}: {err}"
            );
        }
        assert!(matches!(
            MarksFile::open(&dir.path().join("seg-000002.pam"), 3),
            Err(SegmentError::File(FileError::Io { .. }))
        ));
        // Counts that do not add up, and a row naming a document the
        // segment lacks, with good checksums.
        let sections = Sections::new(3, 5).unwrap();
        let resummed = |mut bytes: Vec<u8>| {
            let sum = checksum(&bytes);
            bytes[CHECKSUM].copy_from_slice(&sum);
            bytes
        };
        let mut miscounted = bytes.clone();
        miscounted[sections.counts] += 1;
        assert!(matches!(open(&resummed(miscounted), 3), Err(SegmentError::Corrupt { .. })));
        let mut hostile = bytes;
        hostile[sections.documents + 4..][..4].copy_from_slice(&7u32.to_le_bytes());
        let hostile = open(&resummed(hostile), 3).unwrap();
        let merged = dir.path().join("seg-000003.pam");
        let err = merge_segments(&merged, &[hostile]).unwrap_err();
        assert!(matches!(err, SegmentError::Corrupt { .. }), "{err}");
        assert!(!merged.exists());
    }

    #[test]
    fn a_damaged_or_foreign_file_is_refused() {
        let bytes = encode(&sample()).unwrap();
        assert!(matches!(Marks::from_bytes(bytes.clone(), 2), Err(SegmentError::Corrupt { .. })));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(matches!(Marks::from_bytes(flipped, 3), Err(SegmentError::Checksum { .. })));
        assert!(matches!(
            Marks::from_bytes(bytes[..bytes.len() - 4].to_vec(), 3),
            Err(SegmentError::Corrupt { .. })
        ));
        let mut foreign = bytes.clone();
        foreign[0] = b'X';
        assert!(matches!(Marks::from_bytes(foreign, 3), Err(SegmentError::Foreign { .. })));
        // A row naming a document the segment lacks, with a good checksum.
        let mut hostile = bytes;
        let sections = Sections::new(3, 5).unwrap();
        hostile[sections.documents..sections.documents + 4].copy_from_slice(&7u32.to_le_bytes());
        let sum = checksum(&hostile);
        hostile[CHECKSUM].copy_from_slice(&sum);
        assert!(matches!(Marks::from_bytes(hostile, 3), Err(SegmentError::Corrupt { .. })));
    }
}
