//! An index in memory ([`MemoryIndex`]): built, queried and saved as an
//! index directory, answering as the saved index does. Its own file, so
//! that the lookups (`query.rs`) do not depend on the index on disk.

use crate::document::SKETCH_WIDTH;
use crate::index::{Index, IndexError};
use crate::layout::Layout;
use crate::query::{Answer, Match, Query, rank};
use crate::segment::{Entry, sketch_jaccard};
use priorart_fingerprint::{Fingerprinter, Shingling};
use std::collections::HashMap;
use std::path::Path;

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
