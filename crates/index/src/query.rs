//! Lookups ([`Query`]) and what they find ([`Answer`]), the same for an
//! index on disk ([`crate::Index`]) and one in memory ([`MemoryIndex`]).
//!
//! The similarity a query reports is an estimate: the Jaccard similarity of
//! word shingles computed from two sketches (the smallest
//! [`crate::SKETCH_WIDTH`] shingle hashes of each text; standard error
//! about 0.025 at J = 0.8), because the index keeps no text. Only both
//! texts give the exact value (`priorart compare`, `priorart dedup`). A
//! document indexed without a sketch (a simhash-doc value imported from a
//! list) is found by distance alone: its match has no estimate, it is
//! unverified.

use crate::document::{self, SKETCH_WIDTH};
use crate::index::{Index, IndexError};
use crate::layout::Layout;
use crate::segment::{Entry, sketch_jaccard};
use priorart_fingerprint::{Fingerprinter, Shingling, WordShingles};
use std::collections::HashMap;
use std::path::Path;

/// A document found by a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// The user's id.
    pub id: String,
    /// Its simhash-doc value.
    pub simhash: u64,
    /// Hamming distance to the query (0 for an `X` match).
    pub distance: u32,
    /// Jaccard similarity of word shingles *estimated* from the two
    /// sketches, when both the query and the document have one (see the
    /// module's note); `None`: unverified, found by distance alone.
    pub jaccard_estimate: Option<f64>,
}

/// What one lookup brings: any of a simhash-doc value (for near copies), an
/// `X` (for exact equality) and a shingle sketch (for the similarity
/// estimate).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    /// The simhash-doc value looked up within a distance.
    pub simhash: Option<u64>,
    /// The minhash-equality-v1 value looked up exactly.
    pub x: Option<[u8; 32]>,
    /// The sketch the matches' similarity is estimated against.
    pub sketch: Option<Vec<u64>>,
}

impl Query {
    /// A document's lookup: its simhash-doc, `X` and shingle sketch under
    /// `shingling` (the index's: [`Index::shingling`]).
    pub fn of_text(text: &str, shingling: Shingling, fingerprinter: &mut Fingerprinter) -> Query {
        let (x, simhash) = document::fingerprints(text, fingerprinter);
        Query {
            simhash: Some(simhash),
            x,
            sketch: Some(document::sketch(&WordShingles::of(text, shingling), SKETCH_WIDTH)),
        }
    }

    /// A lookup of a simhash-doc value alone (no similarity estimate).
    pub fn of_simhash(simhash: u64) -> Query {
        Query { simhash: Some(simhash), ..Query::default() }
    }

    /// A lookup of one `X` alone (no near copies, no similarity).
    pub fn of_x(x: [u8; 32]) -> Query {
        Query { x: Some(x), ..Query::default() }
    }
}

/// What an index holds near one lookup.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// Documents within the distance asked for: highest estimated
    /// similarity first, then nearest.
    pub near: Vec<Match>,
    /// Documents with the same `X`.
    pub same_x: Vec<Match>,
}

impl Answer {
    /// How many documents the answer names (near or with the same X).
    pub fn documents(&self) -> usize {
        self.near.len() + self.same_x.iter().filter(|x| !self.has_near(&x.id)).count()
    }

    /// Whether `id` is among the near documents.
    pub fn has_near(&self, id: &str) -> bool {
        self.near.iter().any(|m| m.id == id)
    }

    /// Whether `id` has the query's `X`.
    pub fn has_same_x(&self, id: &str) -> bool {
        self.same_x.iter().any(|m| m.id == id)
    }
}

/// Highest estimated similarity first, then nearest, then by id (so that
/// the order does not depend on how documents are spread over segments).
pub(crate) fn rank(matches: &mut [Match]) {
    matches.sort_by(|a, b| {
        let (ja, jb) = (a.jaccard_estimate.unwrap_or(0.0), b.jaccard_estimate.unwrap_or(0.0));
        jb.total_cmp(&ja).then(a.distance.cmp(&b.distance)).then_with(|| a.id.cmp(&b.id))
    });
}

/// An index in memory: insert documents, query them, then save it as an
/// index directory ([`MemoryIndex::save`]) that [`Index::open`] reads. The
/// answers are those the saved index gives (a test checks it); queries scan
/// every document, which is fast for the collections one builds in memory
/// (tens of millions of distances a second).
#[derive(Debug, Clone)]
pub struct MemoryIndex {
    layout: Layout,
    shingling: Shingling,
    entries: Vec<Entry>,
    positions: HashMap<String, usize>,
}

impl MemoryIndex {
    /// An empty index that will be saved with `layout` (which also bounds
    /// the distance of a query, as on disk), sketching texts' shingles
    /// under `shingling`.
    pub fn new(layout: Layout, shingling: Shingling) -> MemoryIndex {
        MemoryIndex { layout, shingling, entries: Vec::new(), positions: HashMap::new() }
    }

    /// An empty index with the layout and shingling of `index` (to insert
    /// documents that will be added to it).
    pub fn like(index: &Index) -> MemoryIndex {
        MemoryIndex::new(index.layout().clone(), index.shingling())
    }

    /// Every document of an index on disk, in memory (to insert more and
    /// save the whole again, as one segment).
    pub fn from_index(index: &Index) -> MemoryIndex {
        let mut memory = MemoryIndex::like(index);
        for entry in index.entries() {
            // An index on disk never holds an id twice (build and add refuse it).
            memory.positions.insert(entry.id.clone(), memory.entries.len());
            memory.entries.push(entry);
        }
        memory
    }

    /// Adds a document; an id already inserted is refused
    /// ([`IndexError::DuplicateIds`]) and the index is left as it was.
    pub fn insert(&mut self, mut entry: Entry) -> Result<(), IndexError> {
        if self.positions.contains_key(&entry.id) {
            return Err(IndexError::DuplicateIds { ids: vec![entry.id] });
        }
        if let Some(sketch) = &mut entry.sketch {
            sketch.truncate(SKETCH_WIDTH as usize);
        }
        self.positions.insert(entry.id.clone(), self.entries.len());
        self.entries.push(entry);
        Ok(())
    }

    /// Adds a document by its text ([`Entry::of_text`], under the index's
    /// shingling).
    pub fn insert_text(
        &mut self,
        id: &str,
        text: &str,
        fingerprinter: &mut Fingerprinter,
    ) -> Result<(), IndexError> {
        if self.contains(id) {
            return Err(IndexError::DuplicateIds { ids: vec![id.to_owned()] });
        }
        self.insert(Entry::of_text(id, text, self.shingling, fingerprinter))
    }

    /// Whether a document has this id.
    pub fn contains(&self, id: &str) -> bool {
        self.positions.contains_key(id)
    }

    /// The document with this id.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.positions.get(id).map(|&n| &self.entries[n])
    }

    /// Every document, in insertion order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// How many documents.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no document.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The layout the index is saved with.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// How texts are cut into words for their sketches.
    pub fn shingling(&self) -> Shingling {
        self.shingling
    }

    /// The documents within `k` bits of the query's simhash-doc value and
    /// those with its `X`, as [`Index::query`] answers.
    pub fn query(&self, query: &Query, k: u32) -> Result<Answer, IndexError> {
        self.layout.check_distance(k)?;
        let matched = |entry: &Entry, distance: u32, sketch: Option<&[u64]>| Match {
            id: entry.id.clone(),
            simhash: entry.simhash,
            distance,
            jaccard_estimate: sketch
                .zip(entry.sketch.as_deref())
                .map(|(query, held)| sketch_jaccard(query, held, SKETCH_WIDTH as usize)),
        };
        let mut near: Vec<Match> = match query.simhash {
            Some(simhash) => self
                .entries
                .iter()
                .filter(|entry| (entry.simhash ^ simhash).count_ones() <= k)
                .map(|entry| matched(entry, (entry.simhash ^ simhash).count_ones(), query.sketch.as_deref()))
                .collect(),
            None => Vec::new(),
        };
        rank(&mut near);
        let same_x = match query.x {
            Some(x) => self
                .entries
                .iter()
                .filter(|entry| entry.x == Some(x))
                .map(|entry| {
                    let distance = query.simhash.map_or(0, |simhash| (entry.simhash ^ simhash).count_ones());
                    matched(entry, distance, query.sketch.as_deref())
                })
                .collect(),
            None => Vec::new(),
        };
        Ok(Answer { near, same_x })
    }

    /// Writes the index to `dir` ([`Index::build`]: what `dir` held is
    /// replaced only once the new index is complete) and opens it.
    pub fn save(&self, dir: &Path) -> Result<Index, IndexError> {
        Index::build(dir, self.layout.clone(), SKETCH_WIDTH, self.shingling, &self.entries)
    }
}
