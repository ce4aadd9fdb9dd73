//! Partial copies against an index (`priorart dedup --passages --against
//! INDEX`): the new documents' pairs with each other come from
//! [`crate::passages::find_passages`], as without an index; this adds
//! their pairs with the index's documents, found by
//! [`Index::query_passages`] from the passage marks the index stores, and
//! never pairs the index's documents with each other.
//!
//! Each new document is read again (in place order, a working set at a
//! time, as pass 2 re-reads candidates) and looked up in the index on all
//! cores. The index keeps no text, so a pair's passages give the new
//! document's side as `compare --passages --json` gives a side (offsets
//! and text) and the indexed side as a byte range of the text it indexed.

use crate::catalog::{Catalog, Places};
use crate::error::DedupError;
use crate::verify::Reread;
use crate::{Control, Phase, Place};
use priorart_index::{Index, IndexError, PassageMatch, PassageSearch};
use rayon::prelude::*;
use serde::Serialize;

/// A new document and an indexed one sharing passages.
#[derive(Debug, Clone)]
pub struct IndexPassagePair {
    /// The new document's number in the catalog.
    pub document: u32,
    /// The indexed document and the passages.
    pub matched: PassageMatch,
    /// Its `passages.jsonl` line (see [`index_pair_line`]).
    pub line: String,
}

/// What the lookups found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexPassageOutcome {
    /// New documents looked up.
    pub documents: usize,
    /// Pairs with indexed documents reported.
    pub pairs: usize,
    /// Passages in them.
    pub passages: usize,
    /// New documents the winnowing refused (over the aligner's size limit).
    pub refused: usize,
}

/// The passages each document of `catalog` shares with the documents of
/// `index`, handed to `found` a batch at a time in place
/// order (the same inputs give the same lines). Texts come back through
/// `reread`, at most `working_set` bytes at once.
pub fn passages_against_index(
    index: &Index,
    catalog: &Catalog<Places>,
    search: &PassageSearch,
    working_set: u64,
    reread: &dyn Reread,
    control: Control<'_>,
    mut found: impl FnMut(Vec<IndexPassagePair>) -> Result<(), DedupError>,
) -> Result<IndexPassageOutcome, DedupError> {
    let places = catalog.kept();
    let mut order: Vec<u32> = (0..catalog.len() as u32).collect();
    order.sort_unstable_by_key(|&number| places.place(number).order());
    control.progress.phase(Phase::Verifying, order.len() as u64);
    let mut outcome = IndexPassageOutcome { documents: order.len(), ..IndexPassageOutcome::default() };
    let mut start = 0;
    while start < order.len() {
        control.check()?;
        let (mut end, mut bytes) = (start, 0u64);
        while end < order.len() && (end == start || bytes < working_set) {
            bytes += u64::from(places.text_bytes(order[end]));
            end += 1;
        }
        let batch = &order[start..end];
        let at: Vec<Place> = batch.iter().map(|&number| places.place(number)).collect();
        let texts = reread.texts(&at).map_err(DedupError::Reread)?;
        let answers: Vec<Result<Vec<IndexPassagePair>, IndexError>> = batch
            .par_iter()
            .zip(&texts)
            .map(|(&number, text)| {
                let answer = index.query_passages(text, search)?;
                control.progress.advance(1);
                let id = catalog.ids().get(number);
                Ok(answer
                    .documents
                    .into_iter()
                    .map(|matched| {
                        let line = index_pair_line(&matched, id, text);
                        IndexPassagePair { document: number, matched, line }
                    })
                    .collect())
            })
            .collect();
        let mut kept = Vec::new();
        for answer in answers {
            match answer {
                Ok(pairs) => kept.extend(pairs),
                Err(_) => outcome.refused += 1,
            }
        }
        outcome.pairs += kept.len();
        outcome.passages += kept.iter().map(|pair| pair.matched.passages.len()).sum::<usize>();
        found(kept)?;
        start = end;
    }
    Ok(outcome)
}

/// A `passages.jsonl` line of a pair with an indexed document: `{"a",
/// "b", "marks", "from_index": true, "passages": [{"a": {"byte_offset",
/// "byte_length"}, "b": {"char_offset", "char_length", "byte_offset",
/// "byte_length", "text"}, "marks", "similarity"}]}`, `a` the indexed
/// document (its side a byte range of the text it indexed: the index keeps
/// no text) and `b` the new one, of text `text`; ending in a newline.
pub fn index_pair_line(matched: &PassageMatch, id: &str, text: &str) -> String {
    #[derive(Serialize)]
    struct Line<'t> {
        a: &'t str,
        b: &'t str,
        marks: u32,
        from_index: bool,
        passages: Vec<Shared<'t>>,
    }
    #[derive(Serialize)]
    struct Shared<'t> {
        a: Indexed,
        b: Side<'t>,
        marks: u32,
        similarity: f64,
    }
    #[derive(Serialize)]
    struct Indexed {
        byte_offset: usize,
        byte_length: usize,
    }
    #[derive(Serialize)]
    struct Side<'t> {
        char_offset: usize,
        char_length: usize,
        byte_offset: usize,
        byte_length: usize,
        text: &'t str,
    }
    let passages = matched
        .passages
        .iter()
        .map(|passage| Shared {
            a: Indexed { byte_offset: passage.indexed.start, byte_length: passage.indexed.len() },
            b: Side {
                char_offset: passage.text.char_offset,
                char_length: passage.text.char_length,
                byte_offset: passage.text.byte_offset,
                byte_length: passage.text.byte_length,
                text: &text[passage.text.bytes()],
            },
            marks: passage.marks,
            similarity: passage.similarity,
        })
        .collect();
    let line = Line { a: &matched.id, b: id, marks: matched.marks, from_index: true, passages };
    let mut text = serde_json::to_string(&line).expect("a passages line serializes");
    text.push('\n');
    text
}
