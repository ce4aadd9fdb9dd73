//! What pass 1 keeps of each document: its id (in one arena), its
//! simhash-doc value, and either its [`Place`] or a sketch of its shingles.

use crate::bands::BandKeys;
use crate::error::DedupError;
use crate::minhash::Lsh;
use priorart_fingerprint::WordShingles;
use priorart_index::{SKETCH_WIDTH, sketch, sketch_jaccard};
use rayon::prelude::*;
use std::path::Path;

/// Where a document lives, for a reader that finds it again. The engine
/// only orders documents by `(input, offset, extent)` (the order reads
/// are sequential in); what the numbers mean is the reader's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Place {
    /// Its byte offset in its input (a JSONL line's, a web archive record's
    /// or its gzip member's; 0 for a whole file).
    pub offset: u64,
    /// The input it is in, as the front end numbers them.
    pub input: u32,
    /// What the reader needs besides: a line's length, or the document's
    /// position among those of the archive unit at `offset`.
    pub extent: u32,
}

impl Place {
    /// The order of sequential reads.
    pub fn order(&self) -> (u32, u64, u32) {
        (self.input, self.offset, self.extent)
    }
}

/// The ids of a collection, in input order, in one arena (no allocation
/// per id). A `String`, so that an id is a slice of it: checked as text
/// once, not at every look-up (each pair a passage search reports looks up
/// two).
#[derive(Debug, Clone, Default)]
pub struct Ids {
    text: String,
    ends: Vec<u64>,
}

impl Ids {
    /// The id of document `number`.
    pub fn get(&self, number: u32) -> &str {
        let number = number as usize;
        let start = if number == 0 { 0 } else { self.ends[number - 1] as usize };
        &self.text[start..self.ends[number] as usize]
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len() as u64);
    }

    /// Documents whose id an earlier document has, as `(earlier, later)`,
    /// in the order of the later, at most `limit` of them, and how many
    /// there are in all (each document needs its own id).
    pub fn repeated(&self, limit: usize) -> (Vec<(u32, u32)>, usize) {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.par_sort_by(|&x, &y| self.get(x).cmp(self.get(y)).then(x.cmp(&y)));
        let mut repeated: Vec<(u32, u32)> = Vec::new();
        for run in order.chunk_by(|&x, &y| self.get(x) == self.get(y)) {
            repeated.extend(run[1..].iter().map(|&later| (run[0], later)));
        }
        repeated.sort_unstable_by_key(|&(_, later)| later);
        let all = repeated.len();
        repeated.truncate(limit);
        (repeated, all)
    }
}

/// What a catalog keeps of each document besides its id and simhash-doc.
pub trait Kept: Default {
    /// Bytes kept per document, about (for documentation and tests).
    fn bytes(&self) -> usize;
}

/// Where each document is, and its text's length (what re-reading it
/// costs, and a check that the input has not changed since); with MinHash
/// candidates, the band keys too (on disk).
#[derive(Debug, Default)]
pub struct Places {
    places: Vec<Place>,
    text_bytes: Vec<u32>,
    band_keys: Option<BandKeys>,
}

impl Places {
    /// Where document `number` is.
    pub fn place(&self, number: u32) -> Place {
        self.places[number as usize]
    }

    /// The length of its text when pass 1 read it (at most `u32::MAX`).
    pub fn text_bytes(&self, number: u32) -> u32 {
        self.text_bytes[number as usize]
    }
}

impl Kept for Places {
    fn bytes(&self) -> usize {
        self.places.capacity() * size_of::<Place>() + self.text_bytes.capacity() * 4
    }
}

/// A bottom-k sketch of each document's word shingles
/// ([`SKETCH_WIDTH`] smallest hashes), in one arena.
#[derive(Debug, Clone, Default)]
pub struct Sketches {
    hashes: Vec<u64>,
    ends: Vec<u64>,
}

impl Sketches {
    /// The sketch of document `number`.
    pub fn sketch(&self, number: u32) -> &[u64] {
        let number = number as usize;
        let start = if number == 0 { 0 } else { self.ends[number - 1] as usize };
        &self.hashes[start..self.ends[number] as usize]
    }

    /// The Jaccard similarity of two documents estimated from their
    /// sketches (exact when both sketches hold their whole sets).
    pub fn estimate(&self, a: u32, b: u32) -> f64 {
        sketch_jaccard(self.sketch(a), self.sketch(b), SKETCH_WIDTH as usize)
    }

    /// Whether the estimate of `a` and `b` is exact: both sketches are
    /// their whole shingle sets, and their union is at most the width.
    pub fn exact(&self, a: u32, b: u32) -> bool {
        let (x, y) = (self.sketch(a), self.sketch(b));
        let width = SKETCH_WIDTH as usize;
        x.len() < width && y.len() < width && union_size(x, y) <= width
    }
}

/// The size of the union of two sorted, distinct lists.
fn union_size(x: &[u64], y: &[u64]) -> usize {
    x.len() + y.len() - priorart_fingerprint::shared_hashes(x, y)
}

impl Kept for Sketches {
    fn bytes(&self) -> usize {
        self.hashes.capacity() * 8 + self.ends.capacity() * 8
    }
}

/// The documents of a collection as pass 1 leaves them: numbered from 0
/// in input order.
#[derive(Debug, Clone)]
pub struct Catalog<K: Kept> {
    ids: Ids,
    /// `None` in a catalog that keeps none ([`Catalog::without_simhashes`]).
    simhashes: Option<Vec<u64>>,
    kept: K,
}

impl<K: Kept> Default for Catalog<K> {
    fn default() -> Self {
        Catalog { ids: Ids::default(), simhashes: Some(Vec::new()), kept: K::default() }
    }
}

impl<K: Kept> Catalog<K> {
    /// An empty catalog.
    pub fn new() -> Self {
        Catalog::default()
    }

    /// An empty catalog that keeps no simhash-doc value, for the passage
    /// search (it finds its candidates by winnowing): 8 bytes a document
    /// less, which its working set gets at millions of documents.
    pub fn without_simhashes() -> Self {
        Catalog { simhashes: None, ..Catalog::default() }
    }

    /// How many documents.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The ids.
    pub fn ids(&self) -> &Ids {
        &self.ids
    }

    /// The simhash-doc values, by document number (none in a catalog
    /// [`Catalog::without_simhashes`]).
    pub fn simhashes(&self) -> &[u64] {
        self.simhashes.as_deref().unwrap_or_default()
    }

    /// What is kept besides.
    pub fn kept(&self) -> &K {
        &self.kept
    }

    /// Bytes held, about: what memory grows with per document.
    pub fn bytes(&self) -> usize {
        self.ids.text.capacity()
            + self.ids.ends.capacity() * 8
            + self.simhashes.as_ref().map_or(0, Vec::capacity) * 8
            + self.kept.bytes()
    }

    /// Adds a document's id and, when the catalog keeps them, its
    /// simhash-doc value.
    fn push_common(&mut self, id: &str, simhash: u64) -> Result<(), DedupError> {
        // Pairs number documents with u32 (`all_pairs`).
        if self.len() >= u32::MAX as usize {
            return Err(DedupError::TooManyDocuments);
        }
        self.ids.push(id);
        if let Some(simhashes) = &mut self.simhashes {
            simhashes.push(simhash);
        }
        Ok(())
    }
}

impl Catalog<Places> {
    /// An empty catalog that also keeps each document's MinHash band keys
    /// of `lsh`'s shape (in a temporary directory inside `temp_dir`, the
    /// system's when `None`): what [`crate::Candidates::Minhash`] needs.
    pub fn with_band_keys(lsh: Lsh, temp_dir: Option<&Path>) -> Result<Self, DedupError> {
        let mut catalog: Catalog<Places> = Catalog::new();
        catalog.kept.band_keys = Some(BandKeys::new(lsh, temp_dir)?);
        Ok(catalog)
    }

    /// The shape of the band keys kept, if any.
    pub fn lsh(&self) -> Option<Lsh> {
        self.kept.band_keys.as_ref().map(BandKeys::lsh)
    }

    /// Adds a document found at `place`, whose text is `text_bytes` long,
    /// with its band keys ([`Lsh::band_keys`]; none when the catalog keeps
    /// none).
    pub fn push(
        &mut self,
        id: &str,
        simhash: u64,
        place: Place,
        text_bytes: usize,
        band_keys: &[u32],
    ) -> Result<(), DedupError> {
        match &mut self.kept.band_keys {
            Some(kept) => kept.push(band_keys)?,
            None if band_keys.is_empty() => {}
            None => return Err(DedupError::BandKeys("band keys for a catalog that keeps none".to_owned())),
        }
        self.push_common(id, simhash)?;
        self.kept.places.push(place);
        self.kept.text_bytes.push(u32::try_from(text_bytes).unwrap_or(u32::MAX));
        Ok(())
    }

    /// The band keys, to find candidates.
    pub(crate) fn band_keys_mut(&mut self) -> Option<&mut BandKeys> {
        self.kept.band_keys.as_mut()
    }
}

impl Catalog<Sketches> {
    /// Adds a document with its shingles (only their sketch is kept).
    pub fn push(&mut self, id: &str, simhash: u64, shingles: &WordShingles) -> Result<(), DedupError> {
        self.push_common(id, simhash)?;
        self.kept.hashes.extend(sketch(shingles, SKETCH_WIDTH));
        self.kept.ends.push(self.kept.hashes.len() as u64);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use priorart_fingerprint::Shingling;

    #[test]
    fn ids_are_kept_in_one_arena_and_repeats_found() {
        let mut catalog: Catalog<Places> = Catalog::new();
        for (n, id) in ["a", "b", "", "a", "ü", "b", "a"].iter().enumerate() {
            let place = Place { input: 0, offset: n as u64, extent: 0 };
            catalog.push(id, n as u64, place, 10, &[]).unwrap();
        }
        assert_eq!(catalog.ids().get(4), "ü");
        assert_eq!(catalog.ids().get(2), "");
        assert_eq!(catalog.ids().repeated(10), (vec![(0, 3), (1, 5), (0, 6)], 3));
        assert_eq!(catalog.ids().repeated(1), (vec![(0, 3)], 3));
        assert_eq!(size_of::<Place>(), 16);
    }

    #[test]
    fn a_catalog_without_simhashes_counts_its_documents_in_less() {
        let (mut kept, mut without) = (Catalog::<Places>::new(), Catalog::<Places>::without_simhashes());
        for n in 0..1000u32 {
            let place = Place { input: 0, offset: u64::from(n), extent: 0 };
            kept.push(&format!("d{n}"), u64::from(n) + 7, place, 10, &[]).unwrap();
            without.push(&format!("d{n}"), u64::from(n) + 7, place, 10, &[]).unwrap();
        }
        assert_eq!((kept.len(), without.len()), (1000, 1000));
        assert_eq!(kept.simhashes()[999], 1006);
        assert!(without.simhashes().is_empty());
        assert_eq!(without.ids().get(999), "d999");
        assert_eq!(without.kept().place(999), kept.kept().place(999));
        assert!(kept.bytes() - without.bytes() >= 8 * 1000);
    }

    #[test]
    fn sketches_estimate_and_say_when_exact() {
        let mut catalog: Catalog<Sketches> = Catalog::new();
        let a = WordShingles::of("one two three four five six seven", Shingling::default());
        let b = WordShingles::of("one two three four five six eight", Shingling::default());
        catalog.push("a", 0, &a).unwrap();
        catalog.push("b", 0, &b).unwrap();
        assert_eq!(catalog.kept().estimate(0, 1), a.jaccard(&b));
        assert!(catalog.kept().exact(0, 1));
        let long: String = (0..3_000)
            .map(|i| format!("w{} ", char::from(b'a' + (i * 7 % 26) as u8)) + &"x".repeat(i % 9 + 1) + " ")
            .collect();
        catalog.push("long", 0, &WordShingles::of(&long, Shingling::default())).unwrap();
        assert_eq!(catalog.kept().sketch(2).len(), SKETCH_WIDTH as usize);
        assert!(!catalog.kept().exact(0, 2));
    }
}
