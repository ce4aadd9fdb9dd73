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
use crate::passages::PassageSettings;
use crate::verify::Reread;
use crate::{Control, Phase, Place};
use priorart_index::{ByteRangeJson, Index, IndexError, PassageMatch, PassageSearch, TextSpanJson};
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
/// `reread`, [`PassageSettings::text_batch_bytes`] at once; the lines carry
/// the passages' texts when `settings.passage_text`.
pub fn passages_against_index(
    index: &Index,
    catalog: &Catalog<Places>,
    search: &PassageSearch,
    settings: &PassageSettings,
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
        while end < order.len() && (end == start || bytes < settings.text_batch_bytes()) {
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
                        let line =
                            index_pair_line(&matched, id, settings.passage_text.then_some(text.as_str()));
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
/// "byte_length"}, "marks", "similarity"}]}`, `a` the indexed document (its
/// side a byte range of the text it indexed: the index keeps no text) and
/// `b` the new one, its side's text in `b` too when the new document's
/// `text` is given; ending in a newline.
pub fn index_pair_line(matched: &PassageMatch, id: &str, text: Option<&str>) -> String {
    let passages = matched
        .passages
        .iter()
        .map(|passage| IndexPassage {
            a: ByteRangeJson { byte_offset: passage.indexed.start, byte_length: passage.indexed.len() },
            b: TextSpanJson {
                char_offset: passage.text.char_offset,
                char_length: passage.text.char_length,
                byte_offset: passage.text.byte_offset,
                byte_length: passage.text.byte_length,
                text: text.map(|text| &text[passage.text.bytes()]),
            },
            marks: passage.marks,
            similarity: passage.similarity,
        })
        .collect();
    let line = IndexPassagesLine { a: &matched.id, b: id, marks: matched.marks, from_index: true, passages };
    crate::output::json_line(&line)
}

/// A line of `passages.jsonl` against an index (written by
/// [`index_pair_line`]): an indexed document and a new one sharing
/// passages.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "DedupIndexPassages"))]
pub struct IndexPassagesLine<'t> {
    /// The indexed document's id.
    pub a: &'t str,
    /// The new document's id.
    pub b: &'t str,
    /// Marks (winnowed word n-gram hashes) the two share.
    pub marks: u32,
    /// Always true: `a` is the index's.
    pub from_index: bool,
    /// The passages, in the order they come in the new document.
    pub passages: Vec<IndexPassage<'t>>,
}

/// A passage an indexed document and a new one share.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "DedupIndexPassage"))]
pub struct IndexPassage<'t> {
    /// Where it is in the text the index indexed (the index keeps no text).
    pub a: ByteRangeJson,
    /// Where it is in the new document, and its text there.
    pub b: TextSpanJson<'t>,
    /// Marks shared in it.
    pub marks: u32,
    /// How alike the two sides are (shared content words, Dice: 0 to 1).
    pub similarity: f64,
}
