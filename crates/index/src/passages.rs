//! Partial copies against an index (`priorart index query --passages`,
//! `check --index`, `dedup --passages --against`): the indexed documents
//! that share passages with a text, and where, from the winnowing marks
//! the index stores ([`crate::Index::query_passages`]).
//!
//! The text is winnowed as the indexed documents were (the manifest's
//! `k` and `w`); each of its marks is looked up in every segment's marks.
//! A hash held by more than [`PassageSearch::boilerplate`] indexed
//! documents is boilerplate (a license, a header): it pairs nothing, and
//! runs of such marks in the text as long as a passage are reported once,
//! with how many documents hold them ([`BoilerplateSpan`]). The other
//! hits are grouped by document and chained: a mark joins a chain when it
//! comes within [`CHAIN_GAP`] content words of the chain's last mark in the
//! text, and its place in the document within as many words of where the
//! chain's last mark puts it (in either direction: words shuffled or
//! sentences swapped inside a passage keep it whole). A chain
//! of [`PassageSearch::min_marks`] marks whose stretch of the text has
//! [`PassageSearch::min_words`] words, not mostly boilerplate, sharing
//! [`PassageSearch::min_similarity`] of the text's marks there, and whose
//! stretch of the document is within half to twice as long (in content
//! words), is a passage; of the chains of one document whose stretches of
//! the text overlap, the one with the most marks (a document repeating
//! lines gives a copied passage weak echoes).
//!
//! A passage's text side is the stretch of the text from its first shared
//! mark to its last (offsets and text, as `compare --passages` gives a
//! side); its indexed side is the byte range its marks cover in the
//! indexed document's text: the index keeps no text, so no characters,
//! and `priorart compare --passages` on both files aligns them word by
//! word. Winnowing guarantees a shared mark in every shared run of
//! `w + k - 1` content words (6 by default), so a passage's ends are within
//! a few words of the marked stretch's.

use crate::marks::Marks;
use priorart_align::{Mark, Span, Winnowing};
use serde::Serialize;
use std::ops::Range;

/// How far apart, in content words, two marks of one passage may be (on
/// each side): a passage with one word in ten replaced keeps a mark every
/// few words; 32 words bridges a sentence rewritten.
pub const CHAIN_GAP: u32 = 32;
/// The most rows of one hash read per segment, and the most places of one
/// hash in the text: a hash repeated more than that (a line of a log,
/// a table) says nothing about where a passage is, and the work of a lookup
/// stays bounded whatever the index.
const MAX_ROWS_PER_HASH: usize = 256;
const MAX_PLACES_PER_HASH: usize = 16;

/// What a passage lookup asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PassageSearch {
    /// Fewest words (stopwords included) of a passage, on the text's side.
    pub min_words: usize,
    /// Fewest shared marks of a passage.
    pub min_marks: u32,
    /// A hash held by more indexed documents than this is boilerplate.
    pub boilerplate: u32,
    /// Smallest [`IndexedPassage::similarity`] of a passage.
    pub min_similarity: f64,
}

impl PassageSearch {
    /// 50 words: a paragraph, as `dedup --passages` reports them.
    pub const DEFAULT_MIN_WORDS: usize = 50;
    /// 5 marks: a passage of 50 words with one word in ten replaced keeps
    /// about 5 (`dedup --passages` asks the same of a pair).
    pub const DEFAULT_MIN_MARKS: u32 = 5;
    /// Hashes held by more than 32 documents are boilerplate, as in
    /// `dedup --passages`.
    pub const DEFAULT_BOILERPLATE: u32 = 32;
    /// A passage shares at least 35 % of the text's marks in it: a copy
    /// with one word in ten replaced shares about 60 %; two manual pages
    /// or tables filled in from one template share phrases, about 25 %
    /// (BENCHMARKS.md).
    pub const DEFAULT_MIN_SIMILARITY: f64 = 0.35;
}

impl Default for PassageSearch {
    fn default() -> PassageSearch {
        PassageSearch {
            min_words: PassageSearch::DEFAULT_MIN_WORDS,
            min_marks: PassageSearch::DEFAULT_MIN_MARKS,
            boilerplate: PassageSearch::DEFAULT_BOILERPLATE,
            min_similarity: PassageSearch::DEFAULT_MIN_SIMILARITY,
        }
    }
}

/// A passage the text shares with an indexed document.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexedPassage {
    /// Where it is in the text looked up.
    pub text: Span,
    /// Its byte range in the indexed document's text.
    pub indexed: Range<usize>,
    /// Marks shared.
    pub marks: u32,
    /// The share of the text's marks in the passage that the indexed
    /// document holds there: 1 for a verbatim copy, about 0.5 with one
    /// word in ten replaced.
    pub similarity: f64,
}

/// An indexed document sharing passages with the text.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageMatch {
    /// Its id.
    pub id: String,
    /// Marks shared in its passages.
    pub marks: u32,
    /// Its passages, in the order they come in the text.
    pub passages: Vec<IndexedPassage>,
}

/// A stretch of the text that many indexed documents hold (boilerplate).
#[derive(Debug, Clone, PartialEq)]
pub struct BoilerplateSpan {
    /// Where it is in the text.
    pub text: Span,
    /// The most indexed documents holding one of its marks (more than the
    /// threshold; counted up to one past it).
    pub documents: u32,
}

/// What a passage lookup found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PassageAnswer {
    /// The text's winnowing marks.
    pub marks: usize,
    /// The documents sharing passages: most marks shared first, then by id.
    pub documents: Vec<PassageMatch>,
    /// The text's boilerplate, in text order.
    pub boilerplate: Vec<BoilerplateSpan>,
}

/// One segment's marks and where its documents start in the index's
/// numbering.
pub(crate) struct MarkedSegment<'a> {
    pub(crate) first: u32,
    pub(crate) marks: &'a Marks,
}

/// A shared mark: the text's mark (its index in the text's marks) found
/// in document `document` at content word `word`, bytes `start..end`.
#[derive(Debug, Clone, Copy)]
struct Hit {
    document: u32,
    mark: usize,
    word: u32,
    start: u32,
    end: u32,
}

/// The passages `text` (winnowed into `marks` by `winnowing`) shares with
/// the documents of `segments`; `id` names a document by its number.
pub(crate) fn find(
    text: &str,
    marks: &[Mark],
    winnowing: &Winnowing,
    segments: &[MarkedSegment<'_>],
    search: &PassageSearch,
    id: impl Fn(u32) -> String,
) -> PassageAnswer {
    let (hits, boilerplate_marks) = hits(marks, segments, search.boilerplate);
    let is_boilerplate: Vec<bool> = {
        let mut flags = vec![false; marks.len()];
        for &(at, _) in &boilerplate_marks {
            flags[at] = true;
        }
        flags
    };
    let covered = covered_bytes(marks, &is_boilerplate);
    let mut documents: Vec<PassageMatch> = hits
        .chunk_by(|x, y| x.document == y.document)
        .filter_map(|hits| {
            let passages: Vec<IndexedPassage> = strongest(chains(hits, marks), marks)
                .into_iter()
                .filter_map(|chain| passage(text, marks, &is_boilerplate, &covered, &chain, search))
                .collect();
            (!passages.is_empty()).then(|| PassageMatch {
                id: id(hits[0].document),
                marks: passages.iter().map(|passage| passage.marks).sum(),
                passages,
            })
        })
        .collect();
    documents.sort_by(|x, y| y.marks.cmp(&x.marks).then_with(|| x.id.cmp(&y.id)));
    PassageAnswer {
        marks: marks.len(),
        documents,
        boilerplate: boilerplate_spans(text, marks, boilerplate_marks, winnowing, search.min_words),
    }
}

/// Every hit of the text's marks, sorted by document, then by the text's
/// word; and the boilerplate marks with the documents holding them.
fn hits(marks: &[Mark], segments: &[MarkedSegment<'_>], boilerplate: u32) -> (Vec<Hit>, Vec<(usize, u32)>) {
    let mut by_hash: Vec<usize> = (0..marks.len()).collect();
    by_hash.sort_by_key(|&at| (marks[at].hash, marks[at].word));
    let mut hits = Vec::new();
    let mut boilerplate_marks = Vec::new();
    let mut rows = Vec::new();
    for places in by_hash.chunk_by(|&x, &y| marks[x].hash == marks[y].hash) {
        let hash = marks[places[0]].hash;
        rows.clear();
        let mut documents = 0u32;
        let mut repeated = false;
        for segment in segments {
            let mut previous = None;
            for (read, row) in segment.marks.rows_of(hash).enumerate() {
                if read == MAX_ROWS_PER_HASH {
                    repeated = true;
                    break;
                }
                if previous != Some(row.document) {
                    documents += 1;
                    previous = Some(row.document);
                }
                rows.push((segment.first + row.document, row));
                if documents > boilerplate {
                    break;
                }
            }
            if documents > boilerplate || repeated {
                break;
            }
        }
        if documents > boilerplate {
            boilerplate_marks.extend(places.iter().map(|&at| (at, documents)));
            continue;
        }
        if repeated || places.len() > MAX_PLACES_PER_HASH {
            continue;
        }
        for &(document, row) in &rows {
            for &at in places {
                hits.push(Hit { document, mark: at, word: row.word, start: row.start, end: row.end });
            }
        }
    }
    hits.sort_unstable_by_key(|hit| (hit.document, marks[hit.mark].word, hit.word));
    boilerplate_marks.sort_unstable();
    (hits, boilerplate_marks)
}

/// A run of shared marks close together in both texts.
#[derive(Debug, Clone)]
struct Chain {
    /// The text's first and last marks (indexes into its marks).
    first: usize,
    last: usize,
    /// Where its last mark is in the document less where it is in the
    /// text, in content words: a copied passage keeps it nearly constant.
    diagonal: i64,
    /// The indexed document's content words and bytes the marks cover.
    words: Range<u32>,
    bytes: Range<u32>,
    marks: u32,
}

/// The hits of one document, chained (see the module): each hit of a
/// text's mark joins the longest open chain whose diagonal it is within
/// [`CHAIN_GAP`] words of (each chain takes the nearest hit of a mark, and
/// each hit joins one chain), or starts a chain. A phrase the document
/// repeats elsewhere therefore neither stretches a passage nor joins it.
fn chains(hits: &[Hit], marks: &[Mark]) -> Vec<Chain> {
    let mut open: Vec<Chain> = Vec::new();
    let mut done: Vec<Chain> = Vec::new();
    let diagonal = |hit: &Hit| i64::from(hit.word) - i64::from(marks[hit.mark].word);
    for group in hits.chunk_by(|x, y| x.mark == y.mark) {
        let word = marks[group[0].mark].word;
        // `hits` come in the text's order: a chain left behind is done.
        let (gone, kept): (Vec<Chain>, Vec<Chain>) =
            open.into_iter().partition(|chain| word > marks[chain.last].word + CHAIN_GAP);
        done.extend(gone);
        open = kept;
        open.sort_by_key(|chain| std::cmp::Reverse(chain.marks));
        let mut joined = vec![false; group.len()];
        for chain in &mut open {
            let nearest = group
                .iter()
                .enumerate()
                .filter(|(at, hit)| {
                    !joined[*at] && (diagonal(hit) - chain.diagonal).abs() <= i64::from(CHAIN_GAP)
                })
                .min_by_key(|(_, hit)| (diagonal(hit) - chain.diagonal).abs());
            if let Some((at, hit)) = nearest {
                joined[at] = true;
                chain.last = hit.mark;
                chain.diagonal = diagonal(hit);
                chain.words = chain.words.start.min(hit.word)..chain.words.end.max(hit.word);
                chain.bytes = chain.bytes.start.min(hit.start)..chain.bytes.end.max(hit.end);
                chain.marks += 1;
            }
        }
        for (hit, _) in group.iter().zip(&joined).filter(|(_, joined)| !**joined) {
            open.push(Chain {
                first: hit.mark,
                last: hit.mark,
                diagonal: diagonal(hit),
                words: hit.word..hit.word,
                bytes: hit.start..hit.end,
                marks: 1,
            });
        }
    }
    done.extend(open);
    done.sort_by_key(|chain| (chain.first, chain.bytes.start));
    done
}

/// The chains of one document that are not echoes of a stronger one: a
/// chain whose stretch of the text lies mostly (over half) inside that of
/// a chain with more marks is left out. A document that repeats lines
/// (options of a manual page, rows of a table) gives the text's passage
/// a weak second chain wherever a few of its phrases come back; the
/// strongest chain is the copy. Two copies of a passage in the document
/// give it once, at the better.
fn strongest(mut chains: Vec<Chain>, marks: &[Mark]) -> Vec<Chain> {
    chains.sort_by_key(|chain| (std::cmp::Reverse(chain.marks), chain.first));
    let mut kept: Vec<Chain> = Vec::new();
    for chain in chains {
        let range = marks[chain.first].word..marks[chain.last].word + 1;
        let inside: u32 = kept
            .iter()
            .map(|held| {
                let other = marks[held.first].word..marks[held.last].word + 1;
                range.end.min(other.end).saturating_sub(range.start.max(other.start))
            })
            .sum();
        if 2 * inside <= range.len() as u32 {
            kept.push(chain);
        }
    }
    kept.sort_by_key(|chain| (chain.first, chain.bytes.start));
    kept
}

/// The passage of `chain`, if it is one: enough marks, enough words on the
/// text's side, not mostly boilerplate.
fn passage(
    text: &str,
    marks: &[Mark],
    is_boilerplate: &[bool],
    covered: &[Range<usize>],
    chain: &Chain,
    search: &PassageSearch,
) -> Option<IndexedPassage> {
    if chain.marks < search.min_marks {
        return None;
    }
    let (first, last) = (marks[chain.first], marks[chain.last]);
    let range = first.start as usize..last.end as usize;
    if priorart_align::word_count(&text[range.clone()]) < search.min_words {
        return None;
    }
    let boilerplate: usize = covered
        .iter()
        .map(|bytes| bytes.end.min(range.end).saturating_sub(bytes.start.max(range.start)))
        .sum();
    if 2 * boilerplate > range.len() {
        return None;
    }
    let inside = (chain.first..=chain.last).filter(|&at| !is_boilerplate[at]).count().max(1);
    let similarity = (f64::from(chain.marks) / inside as f64).min(1.0);
    // A copy is about as long on both sides: marks of a short stretch of
    // the document found all over a long stretch of the text (or the
    // other way round) are phrases it repeats, not a passage.
    let (text_words, indexed_words) = (last.word - first.word + 1, chain.words.end - chain.words.start + 1);
    if similarity < search.min_similarity || 2 * text_words < indexed_words || 2 * indexed_words < text_words
    {
        return None;
    }
    Some(IndexedPassage {
        text: span_of(text, range),
        indexed: chain.bytes.start as usize..chain.bytes.end as usize,
        marks: chain.marks,
        similarity,
    })
}

/// The byte ranges the text's boilerplate marks cover (sorted, disjoint).
fn covered_bytes(marks: &[Mark], is_boilerplate: &[bool]) -> Vec<Range<usize>> {
    let mut covered: Vec<Range<usize>> = Vec::new();
    for (mark, _) in marks.iter().zip(is_boilerplate).filter(|(_, flag)| **flag) {
        let (start, end) = (mark.start as usize, mark.end as usize);
        match covered.last_mut() {
            Some(last) if start <= last.end => last.end = last.end.max(end),
            _ => covered.push(start..end),
        }
    }
    covered
}

/// Runs of boilerplate marks (at most two windows apart, as `dedup
/// --passages` groups them) of at least `min_words` words.
fn boilerplate_spans(
    text: &str,
    marks: &[Mark],
    boilerplate_marks: Vec<(usize, u32)>,
    winnowing: &Winnowing,
    min_words: usize,
) -> Vec<BoilerplateSpan> {
    let gap = (2 * winnowing.w() + winnowing.k()) as u32;
    boilerplate_marks
        .chunk_by(|&(x, _), &(y, _)| marks[y].word - marks[x].word <= gap)
        .filter_map(|group| {
            let (first, last) = (marks[group[0].0], marks[group[group.len() - 1].0]);
            let range = first.start as usize..last.end as usize;
            (priorart_align::word_count(&text[range.clone()]) >= min_words).then(|| BoilerplateSpan {
                text: span_of(text, range),
                documents: group.iter().map(|&(_, documents)| documents).max().unwrap_or(0),
            })
        })
        .collect()
}

/// The span of a byte range of `text`.
fn span_of(text: &str, range: Range<usize>) -> Span {
    Span {
        char_offset: text[..range.start].chars().count(),
        char_length: text[range.clone()].chars().count(),
        byte_offset: range.start,
        byte_length: range.len(),
    }
}

/// What offsets count in [`PassageAnswer::json`].
pub const OFFSETS: &str = "text: offsets count from the start of the text looked up, in characters (Unicode \
    scalar values) and bytes of its UTF-8; indexed: bytes of the indexed document's text as it was indexed \
    (the index keeps no text)";

impl PassageAnswer {
    /// The answer as `priorart index query --passages --json` prints it
    /// for the text `text` named `name`.
    pub fn json<'a>(&'a self, name: &'a str, text: &'a str) -> PassageAnswerJson<'a> {
        let side = |span: &Span| TextSpanJson {
            char_offset: span.char_offset,
            char_length: span.char_length,
            byte_offset: span.byte_offset,
            byte_length: span.byte_length,
            text: Some(&text[span.bytes()]),
        };
        let documents = self
            .documents
            .iter()
            .map(|found| PassageMatchJson {
                id: &found.id,
                marks: found.marks,
                passages: found
                    .passages
                    .iter()
                    .map(|passage| IndexedPassageJson {
                        text: side(&passage.text),
                        indexed: ByteRangeJson {
                            byte_offset: passage.indexed.start,
                            byte_length: passage.indexed.len(),
                        },
                        marks: passage.marks,
                        similarity: passage.similarity,
                    })
                    .collect(),
            })
            .collect();
        let boilerplate = self
            .boilerplate
            .iter()
            .map(|found| BoilerplateJson { text: side(&found.text), documents: found.documents })
            .collect();
        PassageAnswerJson { query: name, offsets: OFFSETS, marks: self.marks, documents, boilerplate }
    }
}

/// A passage lookup's answer as `priorart index query --passages --json`
/// prints it ([`PassageAnswer::json`]).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "IndexPassagesAnswer"))]
pub struct PassageAnswerJson<'a> {
    /// What was looked up: the file's name.
    pub query: &'a str,
    /// What the offsets count ([`OFFSETS`]).
    pub offsets: &'static str,
    /// Winnowing marks of the text looked up.
    pub marks: usize,
    /// The indexed documents sharing passages with the text, most shared
    /// marks first.
    pub documents: Vec<PassageMatchJson<'a>>,
    /// Stretches of the text that many indexed documents hold.
    pub boilerplate: Vec<BoilerplateJson<'a>>,
}

/// An indexed document sharing passages with the text looked up.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "IndexPassagesMatch"))]
pub struct PassageMatchJson<'a> {
    /// Its id.
    pub id: &'a str,
    /// Marks shared in its passages.
    pub marks: u32,
    /// Its passages, in the order they come in the text.
    pub passages: Vec<IndexedPassageJson<'a>>,
}

/// A passage the text looked up and an indexed document share.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "IndexedPassage"))]
pub struct IndexedPassageJson<'a> {
    /// Where it is in the text looked up, and its text there.
    pub text: TextSpanJson<'a>,
    /// Its byte range in the indexed document's text (the index keeps no
    /// text).
    pub indexed: ByteRangeJson,
    /// Marks shared.
    pub marks: u32,
    /// The share of the text's marks in the passage that the indexed
    /// document holds there.
    pub similarity: f64,
}

/// A stretch of the text looked up that many indexed documents hold.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "IndexBoilerplate"))]
pub struct BoilerplateJson<'a> {
    /// Where it is in the text, and its text.
    pub text: TextSpanJson<'a>,
    /// The most indexed documents holding one of its marks (counted up to
    /// one past the threshold).
    pub documents: u32,
}

/// Where a passage is in a text (characters and bytes), and its text.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "TextSpan"))]
pub struct TextSpanJson<'a> {
    /// Its first character.
    pub char_offset: usize,
    /// Its characters.
    pub char_length: usize,
    /// Its first byte.
    pub byte_offset: usize,
    /// Its bytes.
    pub byte_length: usize,
    /// Its text: always in `index query --passages`' answer; in a `dedup
    /// --passages --against` line only with `--passage-text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub text: Option<&'a str>,
}

/// Where a passage is in an indexed document's text, in bytes.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "ByteRange"))]
pub struct ByteRangeJson {
    /// Its first byte.
    pub byte_offset: usize,
    /// Its bytes.
    pub byte_length: usize,
}
