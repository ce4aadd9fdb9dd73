//! Documents to index spooled to disk as they are read, so that building
//! or adding to an index holds only a few dozen bytes a document in memory
//! whatever the size of the collection (a document's [`Entry`] holds a
//! sketch of up to 256 hashes: 2 KiB, 1.8 GB for 900,000 documents, and
//! the segment written from them as much again, were they all held).
//!
//! The sketches go to a file in a directory of its own inside the index
//! directory (as [`crate::MarkSpool`]'s runs); the ids (one string, and
//! where each ends), simhash-doc values and `X`s stay in memory: the ids to
//! check that none repeats (and, adding, that the index holds none of
//! them), the values to sort the permuted tables and the `X` order. The
//! segment is then streamed from them (`segment::write_streamed`), byte for
//! byte the one [`crate::encode`] makes of the same entries. The directory
//! is removed when the spool is dropped: after the segment is written, or
//! when the build is abandoned. A write that fails leaves the spool whole,
//! to be tried again.

use crate::layout::Layout;
use crate::segment::{self, Columns, Entry, HeldColumns, SegmentError};
use crate::spool::{remove_spool_dir, spool_dir};
use priorart_files::FileError;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Buffer of the sketches written, and read back.
const SKETCH_BUFFER: usize = 1 << 20;
/// A sketch's length in the file when the document has none.
const NO_SKETCH: u32 = u32::MAX;

/// The documents of a new segment, in order, their sketches on disk (see
/// the module): what [`crate::Index::build_from_spool`] and
/// [`crate::Index::add_from_spool`] write as the new segment.
pub struct EntrySpool {
    /// The spool's own directory, inside the index directory.
    dir: PathBuf,
    /// The index directory, when the spool created it (removed with the
    /// spool if nothing else was written there).
    created: Option<PathBuf>,
    sketches_path: PathBuf,
    /// Each document's sketch: its length (or [`NO_SKETCH`]) and hashes.
    sketches: BufWriter<File>,
    /// Each document's id, simhash-doc value and `X`.
    documents: HeldColumns,
    /// Which documents the segment keeps ([`EntrySpool::retain`]); all when
    /// `None`.
    kept: Option<Vec<bool>>,
}

impl EntrySpool {
    /// An empty spool whose file goes in the index directory `index_dir`
    /// (created if needed, and removed again with the spool if it is left
    /// empty).
    pub fn new(index_dir: &Path) -> Result<EntrySpool, SegmentError> {
        let (dir, created) = spool_dir(index_dir, ".entries-spool")?;
        let sketches_path = dir.join("sketches");
        let file = match File::create(&sketches_path) {
            Ok(file) => file,
            Err(source) => {
                remove_spool_dir(&dir, created.as_deref());
                return Err(FileError::Io { path: sketches_path, action: "create", source }.into());
            }
        };
        Ok(EntrySpool {
            dir,
            created,
            sketches_path,
            sketches: BufWriter::with_capacity(SKETCH_BUFFER, file),
            documents: HeldColumns::default(),
            kept: None,
        })
    }

    /// A spool of `entries`.
    pub fn of(index_dir: &Path, entries: &[Entry]) -> Result<EntrySpool, SegmentError> {
        let mut spool = EntrySpool::new(index_dir)?;
        for entry in entries {
            spool.push(entry)?;
        }
        Ok(spool)
    }

    /// Adds the next document.
    pub fn push(&mut self, entry: &Entry) -> Result<(), SegmentError> {
        let too_many = || SegmentError::TooManyDocuments { docs: self.len() + 1 };
        if u32::try_from(self.len()).is_err() {
            return Err(too_many());
        }
        let length = match &entry.sketch {
            Some(sketch) => {
                u32::try_from(sketch.len()).ok().filter(|&len| len != NO_SKETCH).ok_or_else(too_many)?
            }
            None => NO_SKETCH,
        };
        let io = |source| FileError::Io { path: self.sketches_path.clone(), action: "write", source };
        self.sketches.write_all(&length.to_le_bytes()).map_err(io)?;
        for hash in entry.sketch.iter().flatten() {
            self.sketches.write_all(&hash.to_le_bytes()).map_err(io)?;
        }
        self.documents.push(&entry.id, entry.simhash, entry.x);
        if let Some(kept) = &mut self.kept {
            kept.push(true);
        }
        Ok(())
    }

    /// How many documents were pushed (kept or not).
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether no document was pushed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Document `n`'s id (`n` below [`EntrySpool::len`], kept or not).
    pub fn id(&self, n: usize) -> &str {
        self.documents.id(n)
    }

    /// Document `n`'s simhash-doc value.
    pub fn simhash(&self, n: usize) -> u64 {
        self.documents.simhash(n)
    }

    /// Document `n`'s `X`, if known.
    pub fn x(&self, n: usize) -> Option<[u8; 32]> {
        self.documents.x(n)
    }

    /// Keeps only the documents `n` for which `keep(n)` holds, numbered
    /// again in order (as a [`crate::MarkSpool`] filtered the same way).
    pub fn retain(&mut self, mut keep: impl FnMut(usize) -> bool) {
        let docs = self.len();
        let kept = self.kept.get_or_insert_with(|| vec![true; docs]);
        for (n, kept) in kept.iter_mut().enumerate() {
            *kept = *kept && keep(n);
        }
    }

    /// How many documents are kept.
    pub fn kept_len(&self) -> usize {
        self.kept.as_ref().map_or(self.len(), |kept| kept.iter().filter(|&&kept| kept).count())
    }

    /// The ids of the documents kept, in order.
    pub(crate) fn kept_ids(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter(|&n| self.is_kept(n)).map(|n| self.id(n))
    }

    fn is_kept(&self, n: usize) -> bool {
        self.kept.as_ref().is_none_or(|kept| kept[n])
    }

    /// Writes the segment `path` (which must not exist) of the kept
    /// documents; the spool stays (it is removed when dropped), so that a
    /// failed write can be tried again.
    pub(crate) fn write(
        &mut self,
        path: &Path,
        layout: &Layout,
        sketch_width: u32,
    ) -> Result<(), SegmentError> {
        let io = |action| {
            let path = self.sketches_path.clone();
            move |source| FileError::Io { path, action, source }
        };
        self.sketches.flush().map_err(io("write"))?;
        let file = File::open(&self.sketches_path).map_err(io("open"))?;
        let spool: &EntrySpool = self;
        let kept = Kept {
            spool,
            numbers: spool
                .kept
                .as_ref()
                .map(|kept| (0..kept.len() as u32).filter(|&n| kept[n as usize]).collect()),
        };
        let mut sketches = SketchReader {
            reader: BufReader::with_capacity(SKETCH_BUFFER, file),
            path: &spool.sketches_path,
        };
        let sketches = (0..spool.len()).filter_map(move |n| match sketches.next() {
            Ok(sketch) => spool.is_kept(n).then_some(Ok(sketch)),
            Err(err) => Some(Err(err)),
        });
        segment::write_streamed(path, layout, sketch_width, &kept, sketches)?;
        self.created = None;
        Ok(())
    }
}

impl Drop for EntrySpool {
    fn drop(&mut self) {
        remove_spool_dir(&self.dir, self.created.as_deref());
    }
}

/// The kept documents of a spool, numbered again in order.
struct Kept<'a> {
    spool: &'a EntrySpool,
    /// Each kept document's number in the spool (all kept: `None`).
    numbers: Option<Vec<u32>>,
}

impl Kept<'_> {
    fn number(&self, n: usize) -> usize {
        self.numbers.as_ref().map_or(n, |numbers| numbers[n] as usize)
    }
}

impl Columns for Kept<'_> {
    fn len(&self) -> usize {
        self.numbers.as_ref().map_or(self.spool.len(), Vec::len)
    }

    fn id(&self, n: usize) -> &str {
        self.spool.id(self.number(n))
    }

    fn simhash(&self, n: usize) -> u64 {
        self.spool.simhash(self.number(n))
    }

    fn x(&self, n: usize) -> Option<[u8; 32]> {
        self.spool.x(self.number(n))
    }
}

/// The sketches of a spool's file, read back in order.
struct SketchReader<'a> {
    reader: BufReader<File>,
    path: &'a Path,
}

impl SketchReader<'_> {
    fn next(&mut self) -> Result<Option<Vec<u64>>, FileError> {
        let io = |source| FileError::Io { path: self.path.to_owned(), action: "read", source };
        let mut word = [0u8; 8];
        self.reader.read_exact(&mut word[..4]).map_err(io)?;
        let length = u32::from_le_bytes(word[..4].try_into().expect("4 bytes"));
        if length == NO_SKETCH {
            return Ok(None);
        }
        let mut sketch = Vec::with_capacity(length as usize);
        for _ in 0..length {
            self.reader.read_exact(&mut word).map_err(io)?;
            sketch.push(u64::from_le_bytes(word));
        }
        Ok(Some(sketch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::{Segment, encode};

    /// `docs` entries: ids of a few bytes (some non-ASCII, some empty),
    /// simhash values that repeat (ties in the tables), an `X` for about
    /// half (some repeated: ties in the `X` order) when `with_x`, and
    /// sketches of any length up to past the width, or none, or empty.
    fn random_entries(docs: usize, seed: u64, with_x: bool) -> Vec<Entry> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..docs)
            .map(|n| Entry {
                id: format!("{}{n}", ["", "é", "doc-", "長い"][rng.usize(..4)]),
                simhash: if rng.bool() { rng.u64(..) } else { rng.u64(..8) },
                x: (with_x && rng.bool()).then(|| [rng.u8(..3); 32]),
                sketch: match rng.u8(..4) {
                    0 => None,
                    1 => Some(Vec::new()),
                    _ => {
                        let mut sketch: Vec<u64> = (0..rng.usize(..300)).map(|_| rng.u64(..)).collect();
                        sketch.sort_unstable();
                        Some(sketch)
                    }
                },
            })
            .collect()
    }

    fn spooled(
        dir: &Path,
        entries: &[Entry],
        layout: &Layout,
        width: u32,
        keep: Option<&dyn Fn(usize) -> bool>,
    ) -> Vec<u8> {
        let mut spool = EntrySpool::of(dir, entries).unwrap();
        if let Some(keep) = keep {
            spool.retain(keep);
        }
        let path = dir.join("seg-000001.pai");
        spool.write(&path, layout, width).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        bytes
    }

    #[test]
    fn a_spooled_segment_is_the_one_encoded_in_memory_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let layouts =
            [Layout::manku_16x28(), Layout::pigeonhole(6, 2).unwrap(), Layout::for_distance(5).unwrap()];
        for (docs, seed) in [(0, 1), (1, 2), (37, 3), (400, 4)] {
            for with_x in [false, true] {
                let entries = random_entries(docs, seed, with_x);
                for layout in &layouts {
                    for width in [0, 16, 256] {
                        let expected = encode(layout, &entries, width).unwrap();
                        let written = spooled(dir.path(), &entries, layout, width, None);
                        assert!(
                            written == expected,
                            "{docs} documents, X {with_x}, {}, width {width}",
                            layout.name
                        );
                    }
                }
                // Every document with a sketch, and none with one.
                let sketched: Vec<Entry> = entries
                    .iter()
                    .map(|entry| Entry {
                        sketch: Some(entry.sketch.clone().unwrap_or_default()),
                        ..entry.clone()
                    })
                    .collect();
                let unsketched: Vec<Entry> =
                    entries.iter().map(|entry| Entry { sketch: None, ..entry.clone() }).collect();
                for entries in [sketched, unsketched] {
                    let layout = Layout::manku_16x28();
                    let expected = encode(&layout, &entries, 256).unwrap();
                    assert!(
                        spooled(dir.path(), &entries, &layout, 256, None) == expected,
                        "{docs} documents"
                    );
                }
                // Nothing is left of the spool.
                assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
            }
        }
        let entries = random_entries(50, 5, true);
        let bytes = spooled(dir.path(), &entries, &Layout::manku_16x28(), 256, None);
        assert_eq!(Segment::from_bytes(bytes).unwrap().len(), 50, "a segment that opens");
    }

    #[test]
    fn documents_left_out_are_left_out_of_the_segment() {
        let dir = tempfile::tempdir().unwrap();
        let entries = random_entries(120, 6, true);
        let keep = |n: usize| n % 3 != 1;
        let kept: Vec<Entry> =
            entries.iter().enumerate().filter(|(n, _)| keep(*n)).map(|(_, e)| e.clone()).collect();
        let layout = Layout::manku_16x28();
        assert!(
            spooled(dir.path(), &entries, &layout, 256, Some(&keep)) == encode(&layout, &kept, 256).unwrap()
        );
        // None kept: an empty segment.
        assert!(
            spooled(dir.path(), &entries, &layout, 256, Some(&|_| false))
                == encode(&layout, &[], 256).unwrap()
        );
    }

    #[test]
    fn a_spool_keeps_what_it_was_given_and_removes_the_directory_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("new.idx");
        let entries = random_entries(30, 7, true);
        let mut spool = EntrySpool::of(&index, &entries).unwrap();
        assert_eq!(spool.len(), 30);
        for (n, entry) in entries.iter().enumerate() {
            assert_eq!(
                (spool.id(n), spool.simhash(n), spool.x(n)),
                (entry.id.as_str(), entry.simhash, entry.x)
            );
        }
        spool.retain(|n| n != 4);
        assert_eq!(spool.kept_len(), 29);
        assert_eq!(spool.kept_ids().nth(4), Some(entries[5].id.as_str()));
        // A segment that cannot be written (its name is taken by a
        // directory) leaves the spool whole: written afterwards.
        let path = index.join("seg-000001.pai");
        std::fs::create_dir(&path).unwrap();
        assert!(spool.write(&path, &Layout::manku_16x28(), 256).is_err());
        std::fs::remove_dir(&path).unwrap();
        assert_eq!(std::fs::read_dir(&index).unwrap().count(), 1, "the spool, and no temporary file");
        spool.write(&path, &Layout::manku_16x28(), 256).unwrap();
        std::fs::remove_file(&path).unwrap();
        drop(spool);
        assert!(index.exists(), "a segment was written there");
        std::fs::remove_dir(&index).unwrap();
        // Abandoned: nothing is left, not even the directory it made.
        drop(EntrySpool::of(&index, &entries).unwrap());
        assert!(!index.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
