//! One immutable segment file: documents (ids, simhash-doc values, optional
//! `X`, shingle sketches) and one sorted permuted table per layout table,
//! memory-mapped for queries.
//!
//! # Format (little-endian)
//!
//! A 128-byte header — magic `priorart-index\0\0`, version, table count,
//! document count, id bytes, sketch width, flags, layout length, SHA-256 of
//! the rest of the file (header included) — then the body: the layout as JSON; document id offsets and
//! the id bytes (UTF-8); simhash values; `X` values (if any document has
//! one); sketches (`width` sorted hashes per document, padded with
//! `u64::MAX`); for each table the sorted permuted fingerprints and their
//! document numbers; the document numbers sorted by `X` (if any document
//! has one; those without first); one byte per document saying what it has
//! (has an `X`, has a sketch: a document imported from a list of
//! simhash-doc values has neither). Sections start on 8-byte boundaries.
//!
//! Version 1 (written before documents without a sketch or an `X` could be
//! indexed) has no presence bytes: every document has a sketch, and an
//! `X` when the segment has them. Both versions are read; version 2 is
//! written, so compacting an index migrates it.
//!
//! Opening checks the magic, the version, that the file has exactly the
//! length its header implies (so no read past the end can happen), the
//! checksum (SHA-256 over the body; about a second per 1.5 GB), the layout
//! and the id offsets: a corrupt, truncated or foreign file is refused with
//! a [`SegmentError`], never a panic or an out-of-bounds read.
//!
//! Compaction reads the segments it merges back from their files a section
//! at a time ([`SegmentFile`]), not through their maps, whose pages would
//! all count in its memory.
//!
//! Segment files are never changed in place: they are written whole under
//! a new name and then listed (see `crate::Index`). A memory map of a file
//! that another program truncates while it is open raises SIGBUS on the
//! next read of a lost page; nothing in priorart truncates them.

use crate::layout::{Layout, LayoutError, Permutation};
use crate::section_reader::SectionReader;
use priorart_files::FileError;
use sha2::{Digest, Sha256};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 16] = b"priorart-index\0\0";
/// The version written.
const VERSION: u32 = 2;
/// The versions read.
const READABLE: std::ops::RangeInclusive<u32> = 1..=VERSION;
const HEADER_LEN: usize = 128;
const FLAG_X: u32 = 1;
/// A document's presence byte: it has an `X`.
const HAS_X: u8 = 1;
/// A document's presence byte: it has a sketch.
const HAS_SKETCH: u8 = 2;
/// Bounds on header fields, so that a hostile header cannot make the
/// expected length overflow or an allocation explode.
const MAX_DOCS: u64 = u32::MAX as u64;
const MAX_SKETCH_WIDTH: u32 = 4096;
const MAX_LAYOUT_BYTES: u64 = 1 << 20;

/// One document as it goes into a segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The user's id for the document.
    pub id: String,
    /// Its simhash-doc value.
    pub simhash: u64,
    /// Its minhash-equality-v1 value, when known.
    pub x: Option<[u8; 32]>,
    /// The smallest shingle hashes of its text, sorted (at most the
    /// segment's sketch width are kept); `None` when its text was never
    /// seen (a simhash-doc value imported from a list), so that nothing
    /// can be estimated.
    pub sketch: Option<Vec<u64>>,
}

/// Why a segment file is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SegmentError {
    /// The file could not be read or written.
    #[error(transparent)]
    File(#[from] priorart_files::FileError),
    /// The file could not be mapped.
    #[error("{path}: cannot map")]
    Map {
        /// The segment file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Not a priorart index segment.
    #[error("{path}: not a priorart index segment (bad magic)")]
    Foreign {
        /// The segment file.
        path: String,
    },
    /// A version this build does not read.
    #[error("{path}: index format version {version}; this priorart reads versions 1 to {VERSION}")]
    Version {
        /// The segment file.
        path: String,
        /// The version found.
        version: u32,
    },
    /// The file is shorter or longer than its header says, or a field is out of bounds.
    #[error("{path}: corrupt or truncated: {detail}")]
    Corrupt {
        /// The segment file.
        path: String,
        /// What does not hold.
        detail: String,
    },
    /// The body does not match its checksum.
    #[error("{path}: checksum mismatch: the file is damaged")]
    Checksum {
        /// The segment file.
        path: String,
    },
    /// The recorded layout is unusable.
    #[error("{path}: bad layout")]
    Layout {
        /// The segment file.
        path: String,
        /// Why.
        #[source]
        source: LayoutError,
    },
    /// Too many documents for one segment.
    #[error("{docs} documents: a segment holds at most {MAX_DOCS}")]
    TooManyDocuments {
        /// Documents given.
        docs: usize,
    },
}

reason_names!(SegmentError {
    File => "file",
    Map => "map",
    Foreign => "foreign",
    Version => "version",
    Corrupt => "corrupt",
    Checksum => "checksum",
    Layout => "layout",
    TooManyDocuments => "too_many_documents",
});

/// Where each section starts, computed from the header.
#[derive(Debug, Clone, Copy)]
struct Sections {
    layout: usize,
    id_offsets: usize,
    ids: usize,
    /// Just past the ids' bytes.
    ids_end: usize,
    simhash: usize,
    x: Option<usize>,
    sketch: usize,
    tables: usize,
    x_order: Option<usize>,
    presence: Option<usize>,
    end: usize,
}

fn align8(n: usize) -> usize {
    n.div_ceil(8) * 8
}

impl Sections {
    fn new(
        version: u32,
        docs: u64,
        tables: u32,
        ids_bytes: u64,
        width: u32,
        has_x: bool,
        layout_bytes: u64,
    ) -> Option<Sections> {
        let docs = usize::try_from(docs).ok()?;
        let ids_bytes = usize::try_from(ids_bytes).ok()?;
        let layout = HEADER_LEN;
        let id_offsets = align8(layout.checked_add(usize::try_from(layout_bytes).ok()?)?);
        let ids = id_offsets.checked_add(docs.checked_add(1)?.checked_mul(8)?)?;
        let ids_end = ids.checked_add(ids_bytes)?;
        let simhash = align8(ids_end);
        let after_simhash = simhash.checked_add(docs.checked_mul(8)?)?;
        let (x, after_x) = if has_x {
            (Some(after_simhash), after_simhash.checked_add(docs.checked_mul(32)?)?)
        } else {
            (None, after_simhash)
        };
        let sketch = after_x;
        let tables_at = sketch.checked_add(docs.checked_mul(width as usize)?.checked_mul(8)?)?;
        let after_tables =
            align8(tables_at.checked_add(docs.checked_mul(12)?.checked_mul(tables as usize)?)?);
        let (x_order, after_x_order) = if has_x {
            (Some(after_tables), after_tables.checked_add(docs.checked_mul(4)?)?)
        } else {
            (None, after_tables)
        };
        let (presence, end) = if version >= 2 {
            let presence = align8(after_x_order);
            (Some(presence), presence.checked_add(docs)?)
        } else {
            (None, after_x_order)
        };
        Some(Sections {
            layout,
            id_offsets,
            ids,
            ids_end,
            simhash,
            x,
            sketch,
            tables: tables_at,
            x_order,
            presence,
            end,
        })
    }

    /// What every document of a version 1 segment (which has no presence
    /// bytes) has: a sketch, and an `X` when the segment holds them.
    fn implied_presence(&self) -> u8 {
        HAS_SKETCH | if self.x.is_some() { HAS_X } else { 0 }
    }
}

/// Where the header holds the segment's checksum.
const CHECKSUM: std::ops::Range<usize> = 56..88;

/// SHA-256 of the whole file but the 32 bytes that hold it (header fields
/// and reserved bytes included, so no byte escapes the check).
fn checksum(bytes: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hash_outside_checksum(&mut hasher, bytes, 0);
    hasher.finalize().into()
}

/// Hashes `chunk`, the bytes of a segment from offset `at`, but for those
/// in [`CHECKSUM`]: every writer and reader of the checksum feeds it
/// through here, whole or a block at a time.
fn hash_outside_checksum(hasher: &mut Sha256, chunk: &[u8], at: usize) {
    let before = CHECKSUM.start.saturating_sub(at).min(chunk.len());
    let after = CHECKSUM.end.saturating_sub(at).min(chunk.len());
    hasher.update(&chunk[..before]);
    hasher.update(&chunk[after..]);
}

/// [`checksum`] of a segment file read a block at a time rather than
/// through its map: what is read stays in the page cache, not in the
/// process's resident memory (a 2 GB segment mapped and hashed whole made
/// opening it, after a build, count 2 GB more at its peak), and queries
/// then touch only the pages they read.
fn checksum_read(mut file: &std::fs::File) -> std::io::Result<[u8; 32]> {
    use std::io::Read;
    file.seek(SeekFrom::Start(0))?;
    let mut block = vec![0u8; 1 << 20];
    let mut hasher = Sha256::new();
    let mut at = 0usize;
    loop {
        let read = match file.read(&mut block) {
            Ok(0) => break,
            Ok(read) => read,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        hash_outside_checksum(&mut hasher, &block[..read], at);
        at += read;
    }
    Ok(hasher.finalize().into())
}

/// What is wrong with ids that are not UTF-8.
const NOT_UTF8: &str = "document ids are not UTF-8";

/// Checks a segment's id offsets (one per document and the end) against
/// its `ids`: from 0 to their length, in order, each on a character
/// boundary, so that every id is a slice of them; what is wrong if not.
fn check_id_offsets(offsets: impl Iterator<Item = u64>, ids: &str) -> Result<(), &'static str> {
    let mut previous = 0u64;
    for (i, offset) in offsets.enumerate() {
        let within = usize::try_from(offset).is_ok_and(|offset| ids.is_char_boundary(offset));
        if offset < previous || !within || (i == 0 && offset != 0) {
            return Err("document id offsets are out of order or out of range");
        }
        previous = offset;
    }
    if previous != ids.len() as u64 {
        return Err("document id offsets do not end at the ids' length");
    }
    Ok(())
}

/// A sketch from its slots as stored (the width's hashes, little-endian,
/// padded with `u64::MAX`).
fn sketch_of(slots: &[u8]) -> Vec<u64> {
    slots
        .chunks_exact(8)
        .map(|slot| u64::from_le_bytes(slot.try_into().expect("8 bytes")))
        .take_while(|&h| h != u64::MAX)
        .collect()
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Writes a segment of `entries` under `layout` to `path` (which must not
/// exist), keeping `sketch_width` sketch hashes per document.
pub fn write(path: &Path, layout: &Layout, entries: &[Entry], sketch_width: u32) -> Result<(), SegmentError> {
    priorart_files::write_new(path, &encode(layout, entries, sketch_width)?)?;
    Ok(())
}

/// What a segment's writer knows before its documents: where each section
/// goes, the layout as stored, the header's first 56 bytes (all but the
/// checksum, which follows them) and the sketch width kept.
struct Plan {
    sections: Sections,
    layout_json: Vec<u8>,
    header: [u8; 56],
    width: u32,
}

impl Plan {
    /// The plan of a segment of `docs` documents (any with an `X` when
    /// `has_x`, their ids `ids_bytes` long) in `layout`.
    fn new(
        layout: &Layout,
        docs: usize,
        has_x: bool,
        ids_bytes: usize,
        sketch_width: u32,
    ) -> Result<Plan, SegmentError> {
        if docs as u64 > MAX_DOCS {
            return Err(SegmentError::TooManyDocuments { docs });
        }
        let layout_json = serde_json::to_vec(layout).expect("a layout serializes");
        let width = sketch_width.min(MAX_SKETCH_WIDTH);
        let tables = layout.tables.len() as u32;
        let sections = Sections::new(
            VERSION,
            docs as u64,
            tables,
            ids_bytes as u64,
            width,
            has_x,
            layout_json.len() as u64,
        )
        .ok_or(SegmentError::TooManyDocuments { docs })?;
        let mut header = [0u8; 56];
        header[..16].copy_from_slice(MAGIC);
        header[16..20].copy_from_slice(&VERSION.to_le_bytes());
        header[20..24].copy_from_slice(&tables.to_le_bytes());
        header[24..32].copy_from_slice(&(docs as u64).to_le_bytes());
        header[32..40].copy_from_slice(&(ids_bytes as u64).to_le_bytes());
        header[40..44].copy_from_slice(&width.to_le_bytes());
        header[44..48].copy_from_slice(&(if has_x { FLAG_X } else { 0 }).to_le_bytes());
        header[48..56].copy_from_slice(&(layout_json.len() as u64).to_le_bytes());
        Ok(Plan { sections, layout_json, header, width })
    }
}

/// A segment's bytes.
pub fn encode(layout: &Layout, entries: &[Entry], sketch_width: u32) -> Result<Vec<u8>, SegmentError> {
    let docs = entries.len();
    let has_x = entries.iter().any(|entry| entry.x.is_some());
    let ids_bytes: usize = entries.iter().map(|entry| entry.id.len()).sum();
    let Plan { sections, layout_json, header, width } =
        Plan::new(layout, docs, has_x, ids_bytes, sketch_width)?;
    let mut out = vec![0u8; sections.end];
    out[..header.len()].copy_from_slice(&header);
    out[sections.layout..sections.layout + layout_json.len()].copy_from_slice(&layout_json);
    let mut offset = 0u64;
    for (i, entry) in entries.iter().enumerate() {
        let at = sections.ids + offset as usize;
        out[at..at + entry.id.len()].copy_from_slice(entry.id.as_bytes());
        out[sections.id_offsets + 8 * i..][..8].copy_from_slice(&offset.to_le_bytes());
        offset += entry.id.len() as u64;
        out[sections.simhash + 8 * i..][..8].copy_from_slice(&entry.simhash.to_le_bytes());
        if let (Some(x_at), Some(x)) = (sections.x, entry.x) {
            out[x_at + 32 * i..][..32].copy_from_slice(&x);
        }
        if let Some(presence) = sections.presence {
            out[presence + i] = presence_byte(entry);
        }
        let sketch = entry.sketch.as_deref().unwrap_or_default();
        for slot in 0..width as usize {
            let value = sketch.get(slot).copied().unwrap_or(u64::MAX);
            out[sections.sketch + 8 * (i * width as usize + slot)..][..8]
                .copy_from_slice(&value.to_le_bytes());
        }
    }
    out[sections.id_offsets + 8 * docs..][..8].copy_from_slice(&offset.to_le_bytes());
    for (t, table) in layout.tables.iter().enumerate() {
        let permutation = Permutation::new(table);
        let mut rows: Vec<(u64, u32)> = entries
            .iter()
            .enumerate()
            .map(|(i, entry)| (permutation.apply(entry.simhash), i as u32))
            .collect();
        rows.sort_unstable();
        let values = sections.tables + t * docs * 12;
        let numbers = values + docs * 8;
        for (row, (value, number)) in rows.into_iter().enumerate() {
            out[values + 8 * row..][..8].copy_from_slice(&value.to_le_bytes());
            out[numbers + 4 * row..][..4].copy_from_slice(&number.to_le_bytes());
        }
    }
    if let Some(x_order) = sections.x_order {
        let mut order: Vec<u32> = (0..docs as u32).collect();
        order.sort_by_key(|&i| entries[i as usize].x);
        for (row, number) in order.into_iter().enumerate() {
            out[x_order + 4 * row..][..4].copy_from_slice(&number.to_le_bytes());
        }
    }
    let checksum = checksum(&out);
    out[CHECKSUM].copy_from_slice(&checksum);
    Ok(out)
}

/// The documents of a segment streamed to its file ([`write_streamed`]):
/// what is held in memory of them, by number (the sketches come apart, in
/// order).
pub(crate) trait Columns {
    /// How many documents.
    fn len(&self) -> usize;
    /// Document `n`'s id.
    fn id(&self, n: usize) -> &str;
    /// Document `n`'s simhash-doc value.
    fn simhash(&self, n: usize) -> u64;
    /// Document `n`'s `X`, if known.
    fn x(&self, n: usize) -> Option<[u8; 32]>;
}

/// Documents' ids, simhash-doc values and `X`s held in memory, in order:
/// about 50 bytes and the id a document (an [`crate::EntrySpool`]'s
/// documents, those compaction reads back from an index's segments).
#[derive(Default)]
pub(crate) struct HeldColumns {
    /// Every id, one after another.
    ids: String,
    /// Where each id ends in `ids`.
    id_ends: Vec<usize>,
    simhashes: Vec<u64>,
    xs: Vec<Option<[u8; 32]>>,
}

impl HeldColumns {
    /// Adds the next document.
    pub(crate) fn push(&mut self, id: &str, simhash: u64, x: Option<[u8; 32]>) {
        self.ids.push_str(id);
        self.id_ends.push(self.ids.len());
        self.simhashes.push(simhash);
        self.xs.push(x);
    }
}

impl Columns for HeldColumns {
    fn len(&self) -> usize {
        self.id_ends.len()
    }

    fn id(&self, n: usize) -> &str {
        let start = if n == 0 { 0 } else { self.id_ends[n - 1] };
        &self.ids[start..self.id_ends[n]]
    }

    fn simhash(&self, n: usize) -> u64 {
        self.simhashes[n]
    }

    fn x(&self, n: usize) -> Option<[u8; 32]> {
        self.xs[n]
    }
}

/// Writes the segment of [`encode`], byte for byte, to `path` (which must
/// not exist) a section at a time: memory for the tables' rows of one
/// table and the `X` order, not for the file. `sketches` gives each
/// document's sketch in order (`None`: it has none). The file is written
/// under a temporary name and linked at `path` once complete, so that
/// `path` is the whole segment or nothing.
pub(crate) fn write_streamed(
    path: &Path,
    layout: &Layout,
    sketch_width: u32,
    columns: &impl Columns,
    sketches: impl Iterator<Item = Result<Option<Vec<u64>>, FileError>>,
) -> Result<(), SegmentError> {
    let docs = columns.len();
    let has_x = (0..docs).any(|n| columns.x(n).is_some());
    let ids_bytes: usize = (0..docs).map(|n| columns.id(n).len()).sum();
    let Plan { sections, layout_json, header: start, width } =
        Plan::new(layout, docs, has_x, ids_bytes, sketch_width)?;
    let temporary = crate::temporary::Temporary::beside(path);
    let io = |action: &'static str| {
        let path = temporary.path.clone();
        move |source| SegmentError::File(FileError::Io { path, action, source })
    };
    let file = std::fs::File::options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temporary.path)
        .map_err(io("create"))?;
    let mut header = [0u8; HEADER_LEN];
    header[..start.len()].copy_from_slice(&start);
    let mut out = HashingWriter::new(std::io::BufWriter::with_capacity(1 << 20, file));
    hash_outside_checksum(&mut out.hasher, &header, 0);
    out.inner.write_all(&header).map_err(io("write"))?;
    out.at = HEADER_LEN;
    let presence =
        write_documents(&mut out, &temporary.path, &sections, &layout_json, width, columns, sketches)?;
    write_tables(&mut out, &sections, layout, columns).map_err(io("write"))?;
    if let Some(x_order) = sections.x_order {
        out.pad_to(x_order).map_err(io("write"))?;
        let mut order: Vec<u32> = (0..docs as u32).collect();
        order.sort_by_key(|&n| columns.x(n as usize));
        for number in order {
            out.write_all(&number.to_le_bytes()).map_err(io("write"))?;
        }
    }
    if let Some(at) = sections.presence {
        out.pad_to(at).map_err(io("write"))?;
        out.write_all(&presence).map_err(io("write"))?;
    }
    debug_assert_eq!(out.at, sections.end, "the sections written are the sections counted");
    let checksum: [u8; 32] = out.hasher.finalize().into();
    let mut file = out.inner.into_inner().map_err(|err| io("write")(err.into_error()))?;
    file.seek(SeekFrom::Start(CHECKSUM.start as u64)).map_err(io("write"))?;
    file.write_all(&checksum).map_err(io("write"))?;
    file.sync_all().map_err(io("write"))?;
    drop(file);
    Ok(temporary.link(path)?)
}

/// The layout, ids, simhash values, `X`s and sketches of [`write_streamed`];
/// the documents' presence bytes, known once their sketches are read.
fn write_documents<W: Write>(
    out: &mut HashingWriter<W>,
    path: &Path,
    sections: &Sections,
    layout_json: &[u8],
    width: u32,
    columns: &impl Columns,
    sketches: impl Iterator<Item = Result<Option<Vec<u64>>, FileError>>,
) -> Result<Vec<u8>, SegmentError> {
    let io = |source| FileError::Io { path: path.to_owned(), action: "write", source };
    let docs = columns.len();
    out.write_all(layout_json).map_err(io)?;
    out.pad_to(sections.id_offsets).map_err(io)?;
    let mut offset = 0u64;
    for n in 0..docs {
        out.write_all(&offset.to_le_bytes()).map_err(io)?;
        offset += columns.id(n).len() as u64;
    }
    out.write_all(&offset.to_le_bytes()).map_err(io)?;
    for n in 0..docs {
        out.write_all(columns.id(n).as_bytes()).map_err(io)?;
    }
    out.pad_to(sections.simhash).map_err(io)?;
    for n in 0..docs {
        out.write_all(&columns.simhash(n).to_le_bytes()).map_err(io)?;
    }
    if sections.x.is_some() {
        for n in 0..docs {
            out.write_all(&columns.x(n).unwrap_or_default()).map_err(io)?;
        }
    }
    let mut presence = Vec::with_capacity(docs);
    let mut sketches = sketches.fuse();
    for n in 0..docs {
        // Fewer sketches than documents: the spool was cut short.
        let sketch = sketches.next().unwrap_or_else(|| {
            Err(FileError::Io {
                path: path.to_owned(),
                action: "read",
                source: std::io::ErrorKind::UnexpectedEof.into(),
            })
        })?;
        let has_x = if columns.x(n).is_some() { HAS_X } else { 0 };
        presence.push(has_x | if sketch.is_some() { HAS_SKETCH } else { 0 });
        let sketch = sketch.unwrap_or_default();
        for slot in 0..width as usize {
            out.write_all(&sketch.get(slot).copied().unwrap_or(u64::MAX).to_le_bytes()).map_err(io)?;
        }
    }
    Ok(presence)
}

/// Each table's sorted permuted values and their document numbers.
fn write_tables<W: Write>(
    out: &mut HashingWriter<W>,
    sections: &Sections,
    layout: &Layout,
    columns: &impl Columns,
) -> std::io::Result<()> {
    let docs = columns.len();
    debug_assert_eq!(out.at, sections.tables);
    let mut rows: Vec<(u64, u32)> = Vec::with_capacity(docs);
    for table in &layout.tables {
        let permutation = Permutation::new(table);
        rows.clear();
        rows.extend((0..docs).map(|n| (permutation.apply(columns.simhash(n)), n as u32)));
        rows.sort_unstable();
        for &(value, _) in &rows {
            out.write_all(&value.to_le_bytes())?;
        }
        for &(_, number) in &rows {
            out.write_all(&number.to_le_bytes())?;
        }
    }
    Ok(())
}

/// A writer that hashes what it writes (the body of a segment: its
/// checksum) and counts it.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256,
    at: usize,
}

impl<W: Write> HashingWriter<W> {
    fn new(inner: W) -> HashingWriter<W> {
        HashingWriter { inner, hasher: Sha256::new(), at: 0 }
    }

    /// Zeros up to the offset `at` (a section's start).
    fn pad_to(&mut self, at: usize) -> std::io::Result<()> {
        let zeros = at.checked_sub(self.at).expect("sections are written in order");
        self.write_all(&vec![0u8; zeros])
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        self.at += written;
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn presence_byte(entry: &Entry) -> u8 {
    (if entry.x.is_some() { HAS_X } else { 0 }) | (if entry.sketch.is_some() { HAS_SKETCH } else { 0 })
}

/// The bytes of an open segment: a memory map, or a buffer (tests, small
/// in-memory indexes).
pub(crate) enum Bytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(bytes) => bytes,
        }
    }
}

/// An open, checked segment.
pub struct Segment {
    bytes: Bytes,
    sections: Sections,
    docs: usize,
    width: usize,
    layout: Layout,
    permutations: Vec<Permutation>,
}

/// A document found near a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Its number in the segment.
    pub number: u32,
    /// Hamming distance to the query's simhash-doc.
    pub distance: u32,
}

impl Segment {
    /// Maps and checks the segment file at `path`.
    pub fn open(path: &Path) -> Result<Segment, SegmentError> {
        let name = path.display().to_string();
        let file =
            std::fs::File::open(path).map_err(|source| SegmentError::Map { path: name.clone(), source })?;
        // SAFETY: segment files are written whole and never modified in
        // place (see the module docs); the length is checked below before
        // any read, so every access is within the mapping.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .map_err(|source| SegmentError::Map { path: name.clone(), source })?;
        Segment::check(Bytes::Mapped(map), &name, Some(&file))
    }

    /// Checks segment bytes held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Segment, SegmentError> {
        Segment::check(Bytes::Owned(bytes), "(memory)", None)
    }

    /// Checks `bytes`; those of a map of `file` are hashed as read from
    /// the file ([`checksum_read`]).
    fn check(bytes: Bytes, name: &str, file: Option<&std::fs::File>) -> Result<Segment, SegmentError> {
        let corrupt =
            |detail: &str| SegmentError::Corrupt { path: name.to_owned(), detail: detail.to_owned() };
        if bytes.len() < HEADER_LEN || &bytes[..16] != MAGIC {
            return Err(SegmentError::Foreign { path: name.to_owned() });
        }
        let version = u32_at(&bytes, 16);
        if !READABLE.contains(&version) {
            return Err(SegmentError::Version { path: name.to_owned(), version });
        }
        let (tables, docs, ids_bytes) = (u32_at(&bytes, 20), u64_at(&bytes, 24), u64_at(&bytes, 32));
        let (width, flags, layout_bytes) = (u32_at(&bytes, 40), u32_at(&bytes, 44), u64_at(&bytes, 48));
        if docs > MAX_DOCS
            || width > MAX_SKETCH_WIDTH
            || layout_bytes > MAX_LAYOUT_BYTES
            || tables as usize > crate::layout::MAX_TABLES
        {
            return Err(corrupt("a header field is out of bounds"));
        }
        let sections =
            Sections::new(version, docs, tables, ids_bytes, width, flags & FLAG_X != 0, layout_bytes)
                .ok_or_else(|| corrupt("sizes overflow"))?;
        if sections.end != bytes.len() {
            return Err(corrupt(&format!("{} bytes where the header implies {}", bytes.len(), sections.end)));
        }
        let sum = match file {
            Some(file) => {
                checksum_read(file).map_err(|source| SegmentError::Map { path: name.to_owned(), source })?
            }
            None => checksum(&bytes),
        };
        if sum[..] != bytes[CHECKSUM] {
            return Err(SegmentError::Checksum { path: name.to_owned() });
        }
        let layout: Layout =
            serde_json::from_slice(&bytes[sections.layout..sections.layout + layout_bytes as usize])
                .map_err(|_| corrupt("the layout is not JSON"))?;
        layout.validate().map_err(|source| SegmentError::Layout { path: name.to_owned(), source })?;
        if layout.tables.len() != tables as usize {
            return Err(corrupt("the layout's table count differs from the header's"));
        }
        let docs = docs as usize;
        let ids =
            std::str::from_utf8(&bytes[sections.ids..sections.ids_end]).map_err(|_| corrupt(NOT_UTF8))?;
        check_id_offsets((0..=docs).map(|i| u64_at(&bytes, sections.id_offsets + 8 * i)), ids)
            .map_err(corrupt)?;
        let permutations = layout.tables.iter().map(Permutation::new).collect();
        Ok(Segment { bytes, sections, docs, width: width as usize, layout, permutations })
    }

    /// How many documents.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// Whether the segment holds no document.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// The layout the tables were built with.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Document `number`'s id.
    pub fn id(&self, number: u32) -> &str {
        let i = number as usize;
        let (start, end) = (
            u64_at(&self.bytes, self.sections.id_offsets + 8 * i),
            u64_at(&self.bytes, self.sections.id_offsets + 8 * i + 8),
        );
        let ids = &self.bytes[self.sections.ids + start as usize..self.sections.ids + end as usize];
        // Checked at open: UTF-8, offsets on character boundaries.
        std::str::from_utf8(ids).unwrap_or_default()
    }

    /// Document `number`'s simhash-doc value.
    pub fn simhash(&self, number: u32) -> u64 {
        u64_at(&self.bytes, self.sections.simhash + 8 * number as usize)
    }

    /// What document `number` has (`HAS_X`, `HAS_SKETCH`): in a
    /// version 1 segment every document has a sketch, and an `X` when the
    /// segment holds them.
    fn presence(&self, number: u32) -> u8 {
        match self.sections.presence {
            Some(at) => self.bytes[at + number as usize],
            None => self.sections.implied_presence(),
        }
    }

    /// Document `number`'s `X`, if it has one.
    pub fn x(&self, number: u32) -> Option<[u8; 32]> {
        let at = self.sections.x? + 32 * number as usize;
        (self.presence(number) & HAS_X != 0).then(|| self.bytes[at..at + 32].try_into().expect("32 bytes"))
    }

    /// Document `number`'s sketch (sorted shingle hashes, at most the
    /// width), if it has one.
    pub fn sketch(&self, number: u32) -> Option<Vec<u64>> {
        if self.presence(number) & HAS_SKETCH == 0 {
            return None;
        }
        let at = self.sections.sketch + 8 * self.width * number as usize;
        Some(sketch_of(&self.bytes[at..at + 8 * self.width]))
    }

    /// The sketch width (hashes kept per document).
    pub fn sketch_width(&self) -> usize {
        self.width
    }

    fn table_value(&self, table: usize, row: usize) -> u64 {
        u64_at(&self.bytes, self.sections.tables + table * self.docs * 12 + 8 * row)
    }

    fn table_number(&self, table: usize, row: usize) -> u32 {
        u32_at(&self.bytes, self.sections.tables + table * self.docs * 12 + self.docs * 8 + 4 * row)
    }

    /// Every document within Hamming distance `k` of `simhash` (at most the
    /// layout's guaranteed distance), each once, nearest first.
    pub fn near(&self, simhash: u64, k: u32) -> Vec<Hit> {
        let mut hits: Vec<Hit> = Vec::new();
        for (table, permutation) in self.permutations.iter().enumerate() {
            let permuted = permutation.apply(simhash);
            let key = permutation.key(permuted);
            let first = partition_point(self.docs, |row| permutation.key(self.table_value(table, row)) < key);
            for row in first..self.docs {
                let value = self.table_value(table, row);
                if permutation.key(value) != key {
                    break;
                }
                let distance = (value ^ permuted).count_ones();
                let number = self.table_number(table, row);
                if distance <= k && (number as usize) < self.docs {
                    hits.push(Hit { number, distance });
                }
            }
        }
        hits.sort_by_key(|hit| (hit.distance, hit.number));
        hits.dedup_by_key(|hit| hit.number);
        hits.sort_by_key(|hit| (hit.distance, hit.number));
        hits
    }

    /// Every document whose `X` is `x` (none if the segment holds no `X`).
    pub fn same_x(&self, x: &[u8; 32]) -> Vec<u32> {
        let Some(order) = self.sections.x_order else { return Vec::new() };
        let number_at = |row: usize| u32_at(&self.bytes, order + 4 * row);
        let x_of = |row: usize| {
            let number = number_at(row);
            if (number as usize) < self.docs { self.x(number) } else { None }
        };
        // Documents without an `X` sort first.
        let first = partition_point(self.docs, |row| x_of(row).is_none_or(|found| &found < x));
        (first..self.docs).take_while(|&row| x_of(row).as_ref() == Some(x)).map(number_at).collect()
    }
}

/// Buffer of a segment's file read back ([`SegmentFile`]).
const READ_BUFFER: usize = 1 << 20;

/// The file of an open segment read back a section at a time, not through
/// its map: what compaction reads of each segment it merges, so that the
/// segments' pages never count in its memory (see `crate::section_reader`).
/// Its sections are the open segment's, checked when it was opened; a file
/// changed since (another header or length) is refused, and what is read
/// again is checked again where a wrong value would slice out of bounds
/// (the ids), so that a damaged file is a [`SegmentError`], never a panic.
pub(crate) struct SegmentFile<'a> {
    segment: &'a Segment,
    path: PathBuf,
    /// What each document has (`HAS_X`, `HAS_SKETCH`).
    presence: Vec<u8>,
}

impl<'a> SegmentFile<'a> {
    /// The file at `path` of the open `segment`, its presence bytes read.
    pub(crate) fn open(segment: &'a Segment, path: &Path) -> Result<SegmentFile<'a>, SegmentError> {
        let corrupt = |detail: String| SegmentError::Corrupt { path: path.display().to_string(), detail };
        let length = std::fs::metadata(path)
            .map_err(|source| FileError::Io { path: path.to_owned(), action: "read", source })?
            .len();
        let sections = &segment.sections;
        if length != sections.end as u64 {
            return Err(corrupt(format!("{length} bytes where the header implies {}", sections.end)));
        }
        let mut header = [0u8; HEADER_LEN];
        SectionReader::open(path, 0, HEADER_LEN)?.read(&mut header)?;
        if header[..] != segment.bytes[..HEADER_LEN] {
            return Err(corrupt("its header changed since the index was opened".to_owned()));
        }
        let presence = match sections.presence {
            Some(at) => {
                let mut presence = vec![0u8; segment.docs];
                SectionReader::open(path, at as u64, READ_BUFFER)?.read(&mut presence)?;
                presence
            }
            None => vec![sections.implied_presence(); segment.docs],
        };
        Ok(SegmentFile { segment, path: path.to_owned(), presence })
    }

    /// Appends the segment's documents' ids, simhash-doc values and `X`s
    /// to `columns`, read section by section.
    pub(crate) fn read_columns(&self, columns: &mut HeldColumns) -> Result<(), SegmentError> {
        let sections = &self.segment.sections;
        let corrupt = |detail: &str| SegmentError::Corrupt {
            path: self.path.display().to_string(),
            detail: detail.into(),
        };
        let mut reader = SectionReader::open(&self.path, sections.id_offsets as u64, READ_BUFFER)?;
        let offsets = (0..=self.segment.docs).map(|_| reader.u64()).collect::<Result<Vec<u64>, _>>()?;
        let mut ids = vec![0u8; sections.ids_end - sections.ids];
        reader.read(&mut ids)?;
        let ids = String::from_utf8(ids).map_err(|_| corrupt(NOT_UTF8))?;
        check_id_offsets(offsets.iter().copied(), &ids).map_err(corrupt)?;
        let mut reader = SectionReader::open(&self.path, sections.simhash as u64, READ_BUFFER)?;
        let simhashes = offsets[1..].iter().map(|_| reader.u64()).collect::<Result<Vec<u64>, _>>()?;
        // The `X`s follow the simhash values.
        let mut x = [0u8; 32];
        for (n, (ends, simhash)) in offsets.windows(2).zip(simhashes).enumerate() {
            // Checked above: in order, within the ids, on character boundaries.
            let id = &ids[ends[0] as usize..ends[1] as usize];
            let has_x = match sections.x {
                Some(_) => {
                    reader.read(&mut x)?;
                    self.presence[n] & HAS_X != 0
                }
                None => false,
            };
            columns.push(id, simhash, has_x.then_some(x));
        }
        Ok(())
    }

    /// Each document's sketch, in order, read a block at a time.
    pub(crate) fn sketches(
        &self,
    ) -> Result<impl Iterator<Item = Result<Option<Vec<u64>>, FileError>> + '_, FileError> {
        let mut reader = SectionReader::open(&self.path, self.segment.sections.sketch as u64, READ_BUFFER)?;
        let mut slots = vec![0u8; 8 * self.segment.width];
        Ok(self.presence.iter().map(move |&presence| {
            reader.read(&mut slots)?;
            Ok((presence & HAS_SKETCH != 0).then(|| sketch_of(&slots)))
        }))
    }
}

/// The first index in `0..len` for which `before` is false (`before` is
/// true for a prefix): a binary search over rows read from a mapped file,
/// which no slice holds.
pub(crate) fn partition_point(len: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, len);
    while low < high {
        let middle = low + (high - low) / 2;
        if before(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}

/// Jaccard similarity estimated from two bottom-k sketches (Broder): among
/// the `k` smallest hashes of the union, the share found in both. Exact when
/// both sets are smaller than `k`; otherwise its standard error is about
/// `sqrt(J(1 − J)/k)` (0.025 at J = 0.8 with k = 256).
pub fn sketch_jaccard(a: &[u64], b: &[u64], k: usize) -> f64 {
    let (mut i, mut j, mut seen, mut common) = (0, 0, 0, 0);
    while seen < k && (i < a.len() || j < b.len()) {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                common += 1;
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => i += 1,
            (Some(_), None) => i += 1,
            _ => j += 1,
        }
        seen += 1;
    }
    if seen == 0 { 1.0 } else { common as f64 / seen as f64 }
}
