//! An index directory: a manifest listing immutable segment files. Adding
//! writes a new segment and then a new manifest (atomically, through
//! `priorart-files`), so a build or an add either completes or leaves the
//! previous index as it was; compacting merges every segment into one the
//! same way. Queries see every listed segment.
//!
//! The manifest records how the sketches' shingles were cut into words
//! (`shingles`: a [`Shingling`] name), whose token rule is also that of
//! the index's simhash-doc values. A later default never changes how an
//! existing index's sketches and values are read or added to:
//!
//! - format `priorart-index/2` (written since simhash-doc-v2) names the
//!   shingling as it is;
//! - format `priorart-index/1` was written before scripts without spaces
//!   were cut into bigrams, so its `words` and `tokens` are
//!   [`Shingling::WordsV1`] and [`Shingling::TokensV1`] and its values
//!   simhash-doc; without `shingles` it was written before there was a
//!   choice, when every sketch was of simhash-doc tokens
//!   ([`Shingling::TokensV1`]).
//!
//! Format `priorart-index/3` is `priorart-index/2` with passage marks:
//! every segment has a marks file (`crate::marks`) and the manifest's
//! `marks` says how they were winnowed (`k`, `w`, stopwords), so that a
//! text looked up is winnowed the same way whatever a later default. An
//! index without marks is still written as `priorart-index/2`, which
//! earlier versions read; one with marks is refused by them rather than
//! compacted without its marks.

use crate::entry_spool::EntrySpool;
use crate::layout::{DistanceTooLarge, Layout, MAX_DISTANCE};
use crate::marks::{self, Marks, MarksFile};
use crate::passages::{self, MarkedSegment, PassageAnswer, PassageSearch};
use crate::query::{Answer, Match, Query, rank};
use crate::segment::{self, Columns, Entry, HeldColumns, Segment, SegmentError, SegmentFile, sketch_jaccard};
use crate::spool::MarkSpool;
use priorart_align::{AlignError, Mark, UnspacedLetters, Winnowing};
use priorart_files::FileError;
use priorart_fingerprint::{Shingling, TokenRule};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// How many of the repeated ids an error lists.
const LISTED_DUPLICATES: usize = 5;

const MANIFEST: &str = "manifest.json";
const FORMAT: &str = "priorart-index/2";
/// The format of an index with passage marks (see the module).
const FORMAT_MARKS: &str = "priorart-index/3";
/// The format of indexes built before simhash-doc-v2 (see the module).
const FORMAT_V1: &str = "priorart-index/1";
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// Why an index cannot be opened or changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// A segment is refused.
    #[error(transparent)]
    Segment(#[from] SegmentError),
    /// A file could not be read or written.
    #[error(transparent)]
    File(#[from] priorart_files::FileError),
    /// The directory holds no index.
    #[error("{0}: no priorart index here (no {MANIFEST})")]
    Missing(PathBuf),
    /// The manifest is not one this priorart writes.
    #[error("{path}: not a priorart index manifest ({detail})")]
    Manifest {
        /// The manifest file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// Segments built with different layouts.
    #[error("{path}: built with layout {found}, the index uses {expected}")]
    LayoutMismatch {
        /// The segment file.
        path: PathBuf,
        /// Its layout.
        found: String,
        /// The index's.
        expected: String,
    },
    /// A query asks for a distance the layout cannot guarantee.
    #[error("{0}; {hint}", hint = rebuild_hint(.0.k))]
    DistanceTooLarge(DistanceTooLarge),
    /// Ids given twice, or already in the index: each document has one id,
    /// and one id names one document.
    #[error("{} given more than once or already in the index: {}", ids_noun(.ids.len()), list_ids(.ids))]
    DuplicateIds {
        /// The repeated ids (the first few).
        ids: Vec<String>,
    },
    /// A passage lookup in an index built without passage marks.
    #[error(
        "{0}: this index holds no passage marks (built before priorart-index/3, or from simhash-doc lists): \
         rebuild it from the documents with `priorart index build --replace`"
    )]
    NoMarks(PathBuf),
    /// A text the winnowing refuses (over the aligner's size limit).
    #[error(transparent)]
    Text(#[from] AlignError),
    /// Marks given for a different number of documents than entries.
    #[error("marks of {marks} documents given with {entries} entries")]
    MarksCount {
        /// Entries given.
        entries: usize,
        /// Documents' marks given.
        marks: usize,
    },
    /// The directory could not be created or listed.
    #[error("{path}: {action}")]
    Directory {
        /// The directory.
        path: PathBuf,
        /// What failed.
        action: &'static str,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

fn rebuild_hint(k: u32) -> String {
    if k <= MAX_DISTANCE {
        format!("rebuild with --layout k={k}")
    } else {
        format!("no layout serves k > {MAX_DISTANCE}")
    }
}

fn ids_noun(count: usize) -> &'static str {
    if count == 1 { "an id was" } else { "ids were" }
}

fn list_ids(ids: &[String]) -> String {
    let listed: Vec<String> = ids.iter().take(LISTED_DUPLICATES).map(|id| format!("{id:?}")).collect();
    let more = ids.len().saturating_sub(LISTED_DUPLICATES);
    if more > 0 { format!("{} and {more} more", listed.join(", ")) } else { listed.join(", ") }
}

/// The `ids` that repeat one given earlier, or one `taken`.
fn repeated_ids<'a>(ids: impl Iterator<Item = &'a str>, taken: impl Fn(&str) -> bool) -> Vec<String> {
    let mut seen: HashSet<&'a str> = HashSet::with_capacity(ids.size_hint().0);
    ids.filter(|&id| !seen.insert(id) || taken(id)).map(str::to_owned).collect()
}

/// The documents of a new segment: entries held in memory, spooled, or
/// those of an index's segments (compaction).
enum NewDocuments<'a> {
    Held(&'a [Entry]),
    Spooled(&'a mut EntrySpool),
    Segments(Concatenated<'a>),
}

/// An index's segments read back from their files for compaction (not
/// through their maps: `segment::SegmentFile`): their documents' ids,
/// simhash-doc values and `X`s held in memory, numbered on from one
/// segment to the next, and their sketches read in order as the new
/// segment's are written, so that memory grows by a few dozen bytes a
/// document, not by the segments' pages.
struct Concatenated<'a> {
    columns: HeldColumns,
    files: Vec<SegmentFile<'a>>,
}

impl<'a> Concatenated<'a> {
    /// The documents of `segments`, whose files are at `paths`.
    fn read(segments: &'a [Segment], paths: &[PathBuf]) -> Result<Concatenated<'a>, SegmentError> {
        let mut columns = HeldColumns::default();
        let mut files = Vec::with_capacity(segments.len());
        for (segment, path) in segments.iter().zip(paths) {
            let file = SegmentFile::open(segment, path)?;
            file.read_columns(&mut columns)?;
            files.push(file);
        }
        Ok(Concatenated { columns, files })
    }

    /// Every document's sketch, segment after segment.
    fn sketches(&self) -> impl Iterator<Item = Result<Option<Vec<u64>>, FileError>> + '_ {
        type Sketches<'s> = Box<dyn Iterator<Item = Result<Option<Vec<u64>>, FileError>> + 's>;
        self.files.iter().flat_map(|file| match file.sketches() {
            Ok(sketches) => Box::new(sketches) as Sketches<'_>,
            Err(err) => Box::new(std::iter::once(Err(err))),
        })
    }
}

impl NewDocuments<'_> {
    /// How many documents the segment gets.
    fn len(&self) -> usize {
        match self {
            NewDocuments::Held(entries) => entries.len(),
            NewDocuments::Spooled(spool) => spool.kept_len(),
            NewDocuments::Segments(segments) => segments.columns.len(),
        }
    }

    fn ids(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match self {
            NewDocuments::Held(entries) => Box::new(entries.iter().map(|entry| entry.id.as_str())),
            NewDocuments::Spooled(spool) => Box::new(spool.kept_ids()),
            NewDocuments::Segments(segments) => {
                Box::new((0..segments.columns.len()).map(|n| segments.columns.id(n)))
            }
        }
    }

    /// Writes them as the segment `path`, which must not exist.
    fn write(&mut self, path: &Path, layout: &Layout, sketch_width: u32) -> Result<(), SegmentError> {
        match self {
            NewDocuments::Held(entries) => segment::write(path, layout, entries, sketch_width),
            NewDocuments::Spooled(spool) => spool.write(path, layout, sketch_width),
            NewDocuments::Segments(segments) => {
                segment::write_streamed(path, layout, sketch_width, &segments.columns, segments.sketches())
            }
        }
    }
}

reason_names!(IndexError {
    Segment => "segment",
    File => "file",
    Missing => "missing",
    Manifest => "manifest",
    LayoutMismatch => "layout_mismatch",
    DistanceTooLarge => "distance_too_large",
    Directory => "directory",
    DuplicateIds => "duplicate_ids",
    NoMarks => "no_marks",
    Text => "text",
    MarksCount => "marks_count",
});

// The cause is part of the message above, so it is not also a `source()`:
// an error chain (anyhow's `{:#}`) would print it twice.
impl From<DistanceTooLarge> for IndexError {
    fn from(cause: DistanceTooLarge) -> Self {
        IndexError::DistanceTooLarge(cause)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    format: String,
    layout: String,
    sketch_width: u32,
    /// The sketches' shingling, by name (absent: tokens, see the module).
    #[serde(default = "tokens_name")]
    shingles: String,
    segments: Vec<String>,
    /// How the passage marks were winnowed (none: the index holds none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    marks: Option<MarkParams>,
}

/// The winnowing of an index's passage marks, as its manifest records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct MarkParams {
    k: usize,
    w: usize,
    english_stopwords: bool,
    /// Whether two letters of a script written without spaces count one
    /// word in a k-gram ([`UnspacedLetters::TwoToAWord`]); absent (one
    /// word each) in indexes built before 2026-11-29, whose texts are
    /// still winnowed their way.
    #[serde(default)]
    unspaced_letters_paired: bool,
}

impl MarkParams {
    /// The winnowing of [`Index::passage_winnowing`].
    fn default_params() -> MarkParams {
        let winnowing = Index::passage_winnowing();
        MarkParams {
            k: winnowing.k(),
            w: winnowing.w(),
            english_stopwords: true,
            unspaced_letters_paired: winnowing.unspaced_letters() == UnspacedLetters::TwoToAWord,
        }
    }

    fn winnowing(&self) -> Result<Winnowing, AlignError> {
        let letters = if self.unspaced_letters_paired {
            UnspacedLetters::TwoToAWord
        } else {
            UnspacedLetters::OneWordEach
        };
        Ok(Winnowing::new(self.k, self.w, self.english_stopwords)?.with_unspaced_letters(letters))
    }
}

fn tokens_name() -> String {
    Shingling::Tokens.name().to_owned()
}

/// An open index.
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    layout: Layout,
    shingling: Shingling,
    segments: Vec<Segment>,
    /// Each segment's passage marks, opened (and checked: a SHA-256 over
    /// five times the segments' bytes) at the first passage lookup, so
    /// that opening an index for near copies costs what it did.
    marks: OnceLock<Vec<Marks>>,
    /// How they were winnowed.
    winnowing: Option<Winnowing>,
}

impl Index {
    /// Builds an index of `entries` in `dir` (created if needed), replacing
    /// what `dir` held only once the new index is complete. Ids must be
    /// unique ([`IndexError::DuplicateIds`]). The entries' sketches are
    /// `sketch_width` hashes of shingles cut by `shingling`.
    pub fn build(
        dir: &Path,
        layout: Layout,
        sketch_width: u32,
        shingling: Shingling,
        entries: &[Entry],
    ) -> Result<Index, IndexError> {
        Index::build_marked(dir, layout, sketch_width, shingling, NewDocuments::Held(entries), None)
    }

    /// [`Index::build`] with each document's passage marks (`marks[n]` of
    /// `entries[n]`, winnowed by [`Index::passage_winnowing`]), so that
    /// [`Index::query_passages`] finds the documents a text shares
    /// passages with (format `priorart-index/3`). All marks in memory:
    /// [`Index::build_spooled`] takes them as they are read.
    pub fn build_with_marks(
        dir: &Path,
        layout: Layout,
        sketch_width: u32,
        shingling: Shingling,
        entries: &[Entry],
        marks: &[Vec<Mark>],
    ) -> Result<Index, IndexError> {
        check_marks_count(entries.len(), marks.len())?;
        let mut spool = MarkSpool::of(dir, marks)?;
        Index::build_marked(
            dir,
            layout,
            sketch_width,
            shingling,
            NewDocuments::Held(entries),
            Some(&mut spool),
        )
    }

    /// [`Index::build_with_marks`] with the marks spooled to disk as the
    /// documents were read ([`MarkSpool`], of `dir`): memory for the
    /// entries, not for the marks. The spool is left whole when the build
    /// fails, so that a caller holding the only copy of the marks (texts
    /// handed over in memory) can try again; it is dropped after.
    pub fn build_spooled(
        dir: &Path,
        layout: Layout,
        sketch_width: u32,
        shingling: Shingling,
        entries: &[Entry],
        marks: &mut MarkSpool,
    ) -> Result<Index, IndexError> {
        Index::build_marked(dir, layout, sketch_width, shingling, NewDocuments::Held(entries), Some(marks))
    }

    /// [`Index::build`] (with passage marks if `marks` is given, as
    /// [`Index::build_spooled`]) of the documents spooled to disk as they
    /// were read ([`EntrySpool`], of `dir`): memory for a few dozen bytes a
    /// document, not for their sketches nor the segment file. The segment
    /// is the one [`Index::build`] writes of the same entries, byte for
    /// byte. The spools are left whole when the build fails.
    pub fn build_from_spool(
        dir: &Path,
        layout: Layout,
        sketch_width: u32,
        shingling: Shingling,
        entries: &mut EntrySpool,
        marks: Option<&mut MarkSpool>,
    ) -> Result<Index, IndexError> {
        Index::build_marked(dir, layout, sketch_width, shingling, NewDocuments::Spooled(entries), marks)
    }

    fn build_marked(
        dir: &Path,
        layout: Layout,
        sketch_width: u32,
        shingling: Shingling,
        mut documents: NewDocuments<'_>,
        marks: Option<&mut MarkSpool>,
    ) -> Result<Index, IndexError> {
        if let Some(marks) = &marks {
            check_marks_count(documents.len(), marks.kept_len())?;
        }
        let repeated = repeated_ids(documents.ids(), |_| false);
        if !repeated.is_empty() {
            return Err(IndexError::DuplicateIds { ids: repeated });
        }
        std::fs::create_dir_all(dir).map_err(|source| IndexError::Directory {
            path: dir.to_owned(),
            action: "cannot create",
            source,
        })?;
        let previous = read_manifest(dir).ok();
        let name = next_segment_name(dir)?;
        let with_marks = marks.is_some();
        let written = Uncommitted::write(&dir.join(&name), &layout, &mut documents, sketch_width, marks)?;
        let manifest = Manifest {
            format: if with_marks { FORMAT_MARKS } else { FORMAT }.into(),
            layout: layout.name.clone(),
            sketch_width,
            shingles: shingling.name().to_owned(),
            segments: vec![name],
            marks: with_marks.then(MarkParams::default_params),
        };
        write_manifest(dir, &manifest)?;
        written.commit();
        if let Some(previous) = previous {
            remove_segments(dir, &previous.segments);
        }
        Index::open(dir)
    }

    /// Opens and checks the index in `dir`.
    pub fn open(dir: &Path) -> Result<Index, IndexError> {
        let manifest = read_manifest(dir)?;
        let shingling = shingling(dir, &manifest)?;
        let winnowing = match manifest.marks {
            Some(params) => Some(params.winnowing().map_err(|err| IndexError::Manifest {
                path: dir.join(MANIFEST),
                detail: format!("marks: {err}"),
            })?),
            None => None,
        };
        let mut segments = Vec::with_capacity(manifest.segments.len());
        let mut layout: Option<Layout> = None;
        for name in &manifest.segments {
            let path = dir.join(name);
            let segment = Segment::open(&path)?;
            match &layout {
                Some(layout) if layout != segment.layout() => {
                    return Err(IndexError::LayoutMismatch {
                        path,
                        found: segment.layout().name.clone(),
                        expected: layout.name.clone(),
                    });
                }
                Some(_) => {}
                None => layout = Some(segment.layout().clone()),
            }
            segments.push(segment);
        }
        let layout = match layout {
            Some(layout) => layout,
            None => Layout::parse(&manifest.layout)
                .map_err(|err| IndexError::Manifest { path: dir.join(MANIFEST), detail: err.to_string() })?,
        };
        let marks = OnceLock::new();
        Ok(Index { dir: dir.to_owned(), manifest, layout, shingling, segments, marks, winnowing })
    }

    /// Appends `entries` as a new segment. An id that the index holds
    /// already, or that `entries` repeat, is refused
    /// ([`IndexError::DuplicateIds`]) and nothing is added.
    /// In an index with passage marks, the documents added have none
    /// ([`Index::add_with_marks`] adds them with theirs).
    pub fn add(&mut self, entries: &[Entry]) -> Result<(), IndexError> {
        self.add_marked(NewDocuments::Held(entries), None)
    }

    /// [`Index::add`] with each document's passage marks (`marks[n]` of
    /// `entries[n]`, winnowed by [`Index::marks_winnowing`]); an index
    /// without marks keeps none (it must be rebuilt to answer passage
    /// lookups).
    pub fn add_with_marks(&mut self, entries: &[Entry], marks: &[Vec<Mark>]) -> Result<(), IndexError> {
        check_marks_count(entries.len(), marks.len())?;
        let mut spool = MarkSpool::of(&self.dir, marks)?;
        self.add_marked(NewDocuments::Held(entries), Some(&mut spool))
    }

    /// [`Index::add_with_marks`] with the marks spooled to disk as the
    /// documents were read ([`MarkSpool`], of this index's directory); as
    /// [`Index::build_spooled`], the spool is left whole on a failure.
    pub fn add_spooled(&mut self, entries: &[Entry], marks: &mut MarkSpool) -> Result<(), IndexError> {
        self.add_marked(NewDocuments::Held(entries), Some(marks))
    }

    /// [`Index::add`] (with passage marks if `marks` is given, as
    /// [`Index::add_spooled`]) of the kept documents of a spool
    /// ([`EntrySpool`], of this index's directory), as
    /// [`Index::build_from_spool`]; the spools are left whole on a failure.
    pub fn add_from_spool(
        &mut self,
        entries: &mut EntrySpool,
        marks: Option<&mut MarkSpool>,
    ) -> Result<(), IndexError> {
        self.add_marked(NewDocuments::Spooled(entries), marks)
    }

    fn add_marked(
        &mut self,
        mut documents: NewDocuments<'_>,
        marks: Option<&mut MarkSpool>,
    ) -> Result<(), IndexError> {
        if let Some(marks) = &marks {
            check_marks_count(documents.len(), marks.kept_len())?;
        }
        let new: HashSet<&str> = documents.ids().collect();
        let held: HashSet<String> = self.with_ids(&new).into_iter().map(|entry| entry.id).collect();
        drop(new);
        let repeated = repeated_ids(documents.ids(), |id| held.contains(id));
        if !repeated.is_empty() {
            return Err(IndexError::DuplicateIds { ids: repeated });
        }
        let name = next_segment_name(&self.dir)?;
        let path = self.dir.join(&name);
        let mut unmarked = None;
        let marks = match (self.winnowing.is_some(), marks) {
            (false, _) => None,
            (true, Some(marks)) => Some(marks),
            (true, None) => {
                Some(unmarked.insert(MarkSpool::of(&self.dir, &vec![Vec::new(); documents.len()])?))
            }
        };
        let written =
            Uncommitted::write(&path, &self.layout, &mut documents, self.manifest.sketch_width, marks)?;
        let mut manifest = self.manifest.clone();
        manifest.segments.push(name.clone());
        write_manifest(&self.dir, &manifest)?;
        written.commit();
        let segment = Segment::open(&path)?;
        if let Some(opened) = self.marks.get_mut() {
            opened.push(Marks::open(&marks::path_of(&path), segment.len())?);
        }
        self.segments.push(segment);
        self.manifest = manifest;
        Ok(())
    }

    /// Merges every segment into one, written a section at a time from the
    /// segments' and marks' files read back as files, not through their
    /// maps: memory for a few dozen bytes a document and bounded buffers,
    /// not for the segments. A segment or marks file damaged (or changed
    /// since the index was opened) is refused ([`IndexError::Segment`])
    /// and leaves the index as it was.
    pub fn compact(&mut self) -> Result<(), IndexError> {
        let old = self.manifest.segments.clone();
        let paths: Vec<PathBuf> = old.iter().map(|name| self.dir.join(name)).collect();
        let name = next_segment_name(&self.dir)?;
        let path = self.dir.join(&name);
        let mut documents = NewDocuments::Segments(Concatenated::read(&self.segments, &paths)?);
        let mut written =
            Uncommitted::write(&path, &self.layout, &mut documents, self.manifest.sketch_width, None)?;
        // The documents' columns are not needed to merge the marks.
        drop(documents);
        if self.winnowing.is_some() {
            let files = paths
                .iter()
                .zip(&self.segments)
                .map(|(path, segment)| MarksFile::open(&marks::path_of(path), segment.len()))
                .collect::<Result<Vec<MarksFile>, _>>()?;
            marks::merge_segments(&marks::path_of(&path), &files)?;
            written.also(marks::path_of(&path));
        }
        let manifest = Manifest { segments: vec![name], ..self.manifest.clone() };
        write_manifest(&self.dir, &manifest)?;
        written.commit();
        *self = Index::open(&self.dir)?;
        remove_segments(&self.dir, &old);
        Ok(())
    }

    /// Every document, in segment order.
    pub fn entries(&self) -> Vec<Entry> {
        self.documents().collect()
    }

    /// Every document, in segment order, one at a time (memory for one).
    pub fn documents(&self) -> impl Iterator<Item = Entry> + '_ {
        self.segments.iter().flat_map(|segment| (0..segment.len() as u32).map(move |n| entry_of(segment, n)))
    }

    /// The documents whose id is one of `ids` (one pass over the ids of
    /// every segment; memory only for what is found).
    pub fn with_ids(&self, ids: &HashSet<&str>) -> Vec<Entry> {
        self.segments
            .iter()
            .flat_map(|segment| {
                (0..segment.len() as u32)
                    .filter(|&n| ids.contains(segment.id(n)))
                    .map(move |n| entry_of(segment, n))
            })
            .collect()
    }

    /// How many documents, over all segments.
    pub fn len(&self) -> usize {
        self.segments.iter().map(Segment::len).sum()
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many segments.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The sketch width (shingle hashes kept per document).
    pub fn sketch_width(&self) -> u32 {
        self.manifest.sketch_width
    }

    /// How the sketches' texts were cut into words: a text's lookup or a
    /// document added must be sketched the same way. Its token rule says
    /// which simhash-doc the index's values are
    /// ([`Shingling::token_rule`]).
    pub fn shingling(&self) -> Shingling {
        self.shingling
    }

    /// Every document's simhash-doc value, in segment order: document `n`
    /// of [`Index::document`].
    pub fn simhashes(&self) -> Vec<u64> {
        self.segments
            .iter()
            .flat_map(|segment| (0..segment.len() as u32).map(|n| segment.simhash(n)))
            .collect()
    }

    /// Document `n` in segment order (the order of [`Index::entries`] and
    /// [`Index::simhashes`]), if there is one.
    pub fn document(&self, mut n: usize) -> Option<Entry> {
        for segment in &self.segments {
            if n < segment.len() {
                return Some(entry_of(segment, n as u32));
            }
            n -= segment.len();
        }
        None
    }

    /// The documents within `k` bits of the query's simhash-doc value and
    /// those with its `X`.
    pub fn query(&self, query: &Query, k: u32) -> Result<Answer, IndexError> {
        let near = match query.simhash {
            Some(simhash) => self.near(simhash, k, query.sketch.as_deref())?,
            None => Vec::new(),
        };
        // A shared X is a copy or an advisory collision: only the distance
        // and the estimated Jaccard tell which, so a match gets both.
        let width = self.manifest.sketch_width as usize;
        let same_x = match query.x {
            Some(x) => self
                .segments
                .iter()
                .flat_map(|segment| {
                    segment.same_x(&x).into_iter().map(move |n| Match {
                        id: segment.id(n).to_owned(),
                        simhash: segment.simhash(n),
                        distance: query
                            .simhash
                            .map_or(0, |simhash| (simhash ^ segment.simhash(n)).count_ones()),
                        jaccard_estimate: query
                            .sketch
                            .as_deref()
                            .zip(segment.sketch(n))
                            .map(|(query, held)| sketch_jaccard(query, &held, width)),
                    })
                })
                .collect(),
            None => Vec::new(),
        };
        Ok(Answer { near, same_x })
    }

    /// Every document within distance `k` of `simhash`, with its Jaccard
    /// similarity estimated from the sketches when `sketch` is given and
    /// the document has one: most similar first, then nearest.
    pub fn near(&self, simhash: u64, k: u32, sketch: Option<&[u64]>) -> Result<Vec<Match>, IndexError> {
        self.layout.check_distance(k)?;
        let width = self.manifest.sketch_width as usize;
        let mut matches: Vec<Match> = self
            .segments
            .iter()
            .flat_map(|segment| {
                segment.near(simhash, k).into_iter().map(move |hit| Match {
                    id: segment.id(hit.number).to_owned(),
                    simhash: segment.simhash(hit.number),
                    distance: hit.distance,
                    jaccard_estimate: sketch
                        .zip(segment.sketch(hit.number))
                        .map(|(query, held)| sketch_jaccard(query, &held, width)),
                })
            })
            .collect();
        rank(&mut matches);
        Ok(matches)
    }

    /// Every document whose `X` is `x`.
    pub fn same_x(&self, x: &[u8; 32]) -> Vec<Match> {
        self.segments
            .iter()
            .flat_map(|segment| {
                segment.same_x(x).into_iter().map(move |n| Match {
                    id: segment.id(n).to_owned(),
                    simhash: segment.simhash(n),
                    distance: 0,
                    jaccard_estimate: None,
                })
            })
            .collect()
    }
}

impl Index {
    /// How texts are winnowed for an index's passage marks
    /// ([`Index::build_with_marks`]): the winnowing `dedup --passages`
    /// uses by default.
    pub fn passage_winnowing() -> Winnowing {
        Winnowing::default()
    }

    /// Whether the index holds passage marks ([`Index::query_passages`]
    /// answers).
    pub fn has_marks(&self) -> bool {
        self.winnowing.is_some()
    }

    /// How the index's passage marks were winnowed (none: it holds none):
    /// documents added to it must be winnowed so ([`Index::add_spooled`]),
    /// which may not be [`Index::passage_winnowing`] for an older index.
    pub fn marks_winnowing(&self) -> Option<&Winnowing> {
        self.winnowing.as_ref()
    }

    /// The indexed documents `text` shares passages with, and where (see
    /// `crate::passages`). An index without marks is
    /// [`IndexError::NoMarks`]; a text over the aligner's size limit
    /// [`IndexError::Text`].
    pub fn query_passages(&self, text: &str, search: &PassageSearch) -> Result<PassageAnswer, IndexError> {
        let winnowing = self.winnowing.as_ref().ok_or_else(|| IndexError::NoMarks(self.dir.clone()))?;
        let opened = self.opened_marks()?;
        let marks = winnowing.marks(text)?;
        let mut first = 0u32;
        let segments: Vec<MarkedSegment<'_>> = self
            .segments
            .iter()
            .zip(opened)
            .map(|(segment, marks)| {
                let marked = MarkedSegment { first, marks };
                first += segment.len() as u32;
                marked
            })
            .collect();
        let id = |n: u32| {
            let at = segments.partition_point(|segment| segment.first <= n) - 1;
            self.segments[at].id(n - segments[at].first).to_owned()
        };
        Ok(passages::find(text, &marks, winnowing, &segments, search, id))
    }
}

impl Index {
    /// Each segment's marks, opened and checked the first time.
    fn opened_marks(&self) -> Result<&[Marks], IndexError> {
        if let Some(opened) = self.marks.get() {
            return Ok(opened);
        }
        let opened = self
            .manifest
            .segments
            .iter()
            .zip(&self.segments)
            .map(|(name, segment)| Marks::open(&marks::path_of(&self.dir.join(name)), segment.len()))
            .collect::<Result<Vec<Marks>, _>>()?;
        // Another thread may have opened them meanwhile: either is right.
        Ok(self.marks.get_or_init(|| opened))
    }
}

fn check_marks_count(entries: usize, marks: usize) -> Result<(), IndexError> {
    if marks == entries { Ok(()) } else { Err(IndexError::MarksCount { entries, marks }) }
}

/// A new segment's files, written but not yet listed by the manifest:
/// removed when dropped unless committed, so that a failure leaves no
/// stray file (a kill may, which the next build or compaction ignores).
struct Uncommitted {
    paths: Vec<PathBuf>,
}

impl Uncommitted {
    /// Writes the segment `path` of `documents` and, given, its marks.
    fn write(
        path: &Path,
        layout: &Layout,
        documents: &mut NewDocuments<'_>,
        sketch_width: u32,
        marks: Option<&mut MarkSpool>,
    ) -> Result<Uncommitted, IndexError> {
        documents.write(path, layout, sketch_width)?;
        let mut written = Uncommitted { paths: vec![path.to_owned()] };
        if let Some(marks) = marks {
            marks.write(&marks::path_of(path))?;
            written.also(marks::path_of(path));
        }
        Ok(written)
    }

    /// Another file of the segment, written.
    fn also(&mut self, path: PathBuf) {
        self.paths.push(path);
    }

    /// The manifest lists the segment: its files stay.
    fn commit(mut self) {
        self.paths.clear();
    }
}

impl Drop for Uncommitted {
    fn drop(&mut self) {
        for path in &self.paths {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Document `n` of `segment`, as an [`Entry`].
fn entry_of(segment: &Segment, n: u32) -> Entry {
    Entry {
        id: segment.id(n).to_owned(),
        simhash: segment.simhash(n),
        x: segment.x(n),
        sketch: segment.sketch(n),
    }
}

impl Index {
    /// The shingling of the index in `dir`, from its manifest alone (no
    /// segment is opened): to sketch a text for a lookup before opening it.
    pub fn shingling_of(dir: &Path) -> Result<Shingling, IndexError> {
        shingling(dir, &read_manifest(dir)?)
    }
}

fn shingling(dir: &Path, manifest: &Manifest) -> Result<Shingling, IndexError> {
    let named = manifest
        .shingles
        .parse::<Shingling>()
        .map_err(|err| IndexError::Manifest { path: dir.join(MANIFEST), detail: err.to_string() })?;
    Ok(if manifest.format == FORMAT_V1 { named.with_rule(TokenRule::V1) } else { named })
}

fn read_manifest(dir: &Path) -> Result<Manifest, IndexError> {
    let path = dir.join(MANIFEST);
    if !path.exists() {
        return Err(IndexError::Missing(dir.to_owned()));
    }
    let bytes = priorart_files::read_limited(&path, MAX_MANIFEST_BYTES)?;
    let bad = |detail: String| IndexError::Manifest { path: path.clone(), detail };
    let manifest: Manifest = serde_json::from_slice(&bytes).map_err(|err| bad(err.to_string()))?;
    if ![FORMAT, FORMAT_V1, FORMAT_MARKS].contains(&manifest.format.as_str()) {
        return Err(bad(format!("format {:?}", manifest.format)));
    }
    if manifest.segments.iter().any(|name| !is_segment_name(name)) {
        return Err(bad("a segment name is not seg-NNNNNN.pai".into()));
    }
    Ok(manifest)
}

fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), IndexError> {
    let json = serde_json::to_vec_pretty(manifest).expect("a manifest serializes");
    priorart_files::write_atomic(&dir.join(MANIFEST), &json)?;
    Ok(())
}

/// Segment files are `seg-NNNNNN.pai`; nothing else is ever opened, so a
/// hostile manifest cannot point outside the directory.
fn is_segment_name(name: &str) -> bool {
    name.strip_prefix("seg-")
        .and_then(|rest| rest.strip_suffix(".pai"))
        .is_some_and(|digits| digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// A segment name not used in `dir` yet.
fn next_segment_name(dir: &Path) -> Result<String, IndexError> {
    let listing = std::fs::read_dir(dir).map_err(|source| IndexError::Directory {
        path: dir.to_owned(),
        action: "cannot list",
        source,
    })?;
    let highest = listing
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| is_segment_name(name))
        .filter_map(|name| name[4..10].parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    Ok(format!("seg-{:06}.pai", highest + 1))
}

/// Removes segments no manifest lists any more (a failure only leaves a
/// stray file, which the next build or compaction ignores).
fn remove_segments(dir: &Path, names: &[String]) {
    for name in names {
        let _ = std::fs::remove_file(dir.join(name));
        let _ = std::fs::remove_file(marks::path_of(&dir.join(name)));
    }
}
