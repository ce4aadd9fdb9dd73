//! Partial copies: every pair of documents of a collection that share a
//! passage, with the passages, found without aligning every pair
//! (`priorart dedup --passages`, and the Python package).
//!
//! Pass 1 (the front end reads its inputs): each document's winnowing
//! marks ([`Winnowing`], Schleimer et al. 2003: a few hashes of its
//! content-word k-grams such that a shared run of `w + k - 1` content
//! words shares one) go to [`Postings`], one `(hash, document, word)`
//! record per mark, sorted on disk in runs of bounded size.
//!
//! Candidates: the runs merged, a hash at a time (in parts of the hashes,
//! one per core, side by side). A hash held by more than
//! [`PassageSettings::boilerplate`] documents is boilerplate (a license, a
//! header, navigation): it makes no pair, and runs of such hashes in their
//! first document as long as a reported passage are reported once each
//! ([`Boilerplate`]: how many documents, an example and where). The other
//! hashes held by two documents or more give every pair of their
//! documents with the hash's word in the first, themselves sorted on disk;
//! pairs sharing at least [`PassageSettings::min_marks`] hashes, five of
//! them (all of them when `min_marks` is fewer) within 64 content words of
//! the first document (a passage is made of such runs; scattered phrases
//! are not), are the candidates. The test
//! is made on these records, so the documents of pairs that fail it are
//! not read again.
//!
//! Pass 2 re-reads the candidates' documents in place order, a working set
//! at a time (as `dedup`'s verification), on all cores: each text is cut
//! into the aligner's words and winnowed once for all its pairs
//! ([`Aligner::mark`]), and each pair is aligned on the marks the two
//! share ([`Aligner::align_marked`]: the shared marks are the seeds, so
//! that two long documents sharing a paragraph cost that paragraph, not
//! every phrase both repeat; a passage sharing no mark but boilerplate is
//! not looked for, as it makes no candidate either). A pair is reported
//! with its passages of at least [`PassageSettings::min_words`] words on
//! both sides, less those mostly covered by boilerplate hashes.
//! [`PairChecker`] is that check, public so that a front end finding its
//! candidates itself gets the same passages from the two texts alone.
//!
//! Memory: the catalog (28 bytes a document and its id: no simhash-doc,
//! [`Catalog::without_simhashes`]), each document's shape (8), the sort
//! buffers ([`PassageSettings::sort_memory`]: the candidates' ranks are
//! sorted in one), where each candidate document is in the store of
//! prepared texts (12 bytes), the boilerplate hashes (24 bytes each), one
//! round's pairs (12 bytes each) and the working set (its texts with their
//! words and marks, about three times the text; by default smaller as the
//! rest grows, [`PassageSettings::MEMORY_TARGET`]), not the collection's
//! texts nor its candidates; the disk holds the postings (16 bytes per
//! mark, about 2 in 5 content words by default), the pairs (12 bytes per
//! shared mark), the candidates (12 bytes each, twice while their ranks
//! are sorted) and, in pass 2, each document streamed past a round as it
//! was prepared (about 3.5 times its text: read back in later rounds
//! instead of being read and prepared again). Sorted runs are merged in
//! levels, so that at most 64 per level are open at once. The postings'
//! and the pairs' runs, once merged, are kept open for the store to write
//! over (`spare.rs`: pages written again cost a virtual machine far
//! less than new ones); their disk space is held until the search ends,
//! where it was freed before pass 2.

use crate::catalog::{Catalog, Places};
use crate::error::DedupError;
use crate::runs::{Merged, Record, Runs, Spool, Spooled};
use crate::spare::Spare;
use crate::verify::{CandidatePairs, Memory, Reread, SpooledPairs, Stored, Tagged, each_pair};
use crate::{Control, Phase, Place};
use priorart_align::report::Shared;
use priorart_align::{Aligner, Mark, MarkedPassage, MarkedText, Params, Passage, Side, Span, Winnowing};
use rayon::prelude::*;
use rdst::{RadixKey, RadixSort};
use rustc_hash::FxHashSet;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Mutex;

/// What a passage search is asked for.
#[derive(Debug, Clone)]
pub struct PassageSettings {
    /// How documents are winnowed.
    pub winnowing: Winnowing,
    /// Fewest marks two documents share to be aligned.
    pub min_marks: u32,
    /// A hash held by more documents than this is boilerplate.
    pub boilerplate: u32,
    /// Fewest words (stopwords included, [`priorart_align::word_count`]:
    /// two letters of a script written without spaces count one) on both
    /// sides of a reported passage.
    pub min_words: usize,
    /// Smallest share of one side's content words found in the other in
    /// runs of `k` ([`MarkedText::coverage`]) of a reported passage.
    pub min_coverage: f64,
    /// Bytes pass 2 holds at once of the texts it reads again, each
    /// counted with what is made of it (its words and marks:
    /// [`MarkedText::held_bytes`]); `None` (the default) for
    /// [`PassageSettings::DEFAULT_WORKING_SET`], less as the collection
    /// grows ([`PassageSettings::working_set_beside`]).
    pub working_set: Option<u64>,
    /// Bytes of records each sort holds before writing a run to disk.
    pub sort_memory: u64,
    /// Where sorted runs are written (the system's temporary directory
    /// when `None`).
    pub temp_dir: Option<PathBuf>,
    /// Whether a pair's line carries each passage's text on both sides,
    /// not only where it is: off by default, as a collection's shared
    /// passages are often as large as the collection again (on the 3 GB
    /// generated corpus, 10.9 GB of lines with them; BENCHMARKS.md).
    pub passage_text: bool,
}

impl PassageSettings {
    /// Reported passages have at least 50 words on each side by default:
    /// a paragraph (BENCHMARKS.md measures 60 to 300).
    pub const DEFAULT_MIN_WORDS: usize = 50;
    /// Hashes held by more than 32 documents are boilerplate by default
    /// (BENCHMARKS.md).
    pub const DEFAULT_BOILERPLATE: u32 = 32;
    /// Documents sharing 5 marks or more are aligned by default: on the
    /// Debian corpus 42 % fewer candidates than 3, and the same planted
    /// pairs but for 0.4 % (BENCHMARKS.md).
    pub const DEFAULT_MIN_MARKS: u32 = 5;
    /// A reported passage has at least this share of one side's content
    /// words in runs of 3 found on the other side by default
    /// (BENCHMARKS.md).
    pub const DEFAULT_MIN_COVERAGE: f64 = 0.65;
    /// Sort buffers of 256 MiB by default (a sort fills a second while the
    /// first is written, and the postings' and the pairs' sorts overlap):
    /// the planted sample's 13 million pair records (156 MB) are sorted in
    /// memory, where 128 MiB wrote and merged two runs, 0.4 s more
    /// (BENCHMARKS.md).
    pub const DEFAULT_SORT_MEMORY: u64 = 256 << 20;
    /// Pass 2 holds 1 GiB of prepared texts by default (about 256 MiB of
    /// English text, 150 of Chinese or Japanese): on the 3 GB generated
    /// corpus, 2 GiB verified no faster (BENCHMARKS.md, stop 53), and the
    /// rest of the run (the catalog, the pairs sorted by rank, the lines
    /// of a round's pairs) took about 0.5 GiB more there: a peak of 1.5.
    pub const DEFAULT_WORKING_SET: u64 = 1 << 30;
    /// 1.75 GiB: what the default working set and the rest pass 2 holds
    /// throughout (the catalog, a sort buffer, pass 2's tables) take
    /// together at most ([`PassageSettings::working_set_beside`]); the
    /// lines of a round's pairs and the allocator's slack take the rest
    /// of 2 GiB. The 3 GB generated corpus's 900,000 documents and 6
    /// million short documents leave the whole default (a peak of 1,651
    /// MiB); 12 million, 635 MiB (1,692 MiB, where 1 GiB peaked at 2,345
    /// MiB: BENCHMARKS.md, stops 55 and 56).
    pub const MEMORY_TARGET: u64 = 7 << 28;
    /// The working set held at least, however large the catalog.
    pub const LEAST_WORKING_SET: u64 = 64 << 20;

    /// The working set pass 2 holds beside `held` bytes (the catalog, the
    /// sort buffers and pass 2's tables): the one set, or by default what
    /// `held` leaves of [`PassageSettings::MEMORY_TARGET`], between
    /// [`PassageSettings::LEAST_WORKING_SET`] and
    /// [`PassageSettings::DEFAULT_WORKING_SET`].
    pub fn working_set_beside(&self, held: u64) -> u64 {
        self.working_set.unwrap_or_else(|| {
            let room = PassageSettings::MEMORY_TARGET.saturating_sub(held);
            room.clamp(PassageSettings::LEAST_WORKING_SET, PassageSettings::DEFAULT_WORKING_SET)
        })
    }

    /// The defaults with passages of at least `min_words` words and
    /// boilerplate past `boilerplate` documents, checked: at least one word
    /// and two documents.
    pub fn new(min_words: usize, boilerplate: u32) -> Result<PassageSettings, DedupError> {
        if min_words == 0 {
            return Err(DedupError::PassageSettings(
                "the fewest words of a passage must be at least 1".into(),
            ));
        }
        if boilerplate < 2 {
            return Err(DedupError::PassageSettings(format!(
                "the boilerplate threshold must be at least 2 documents, not {boilerplate}"
            )));
        }
        Ok(PassageSettings {
            winnowing: Winnowing::default(),
            min_marks: PassageSettings::DEFAULT_MIN_MARKS,
            boilerplate,
            min_words,
            min_coverage: PassageSettings::DEFAULT_MIN_COVERAGE,
            working_set: None,
            sort_memory: PassageSettings::DEFAULT_SORT_MEMORY,
            temp_dir: None,
            passage_text: false,
        })
    }

    /// The same settings with another smallest coverage (0 to 1).
    pub fn with_min_coverage(mut self, min_coverage: f64) -> Result<PassageSettings, DedupError> {
        if !(0.0..=1.0).contains(&min_coverage) {
            return Err(DedupError::PassageSettings(format!(
                "the coverage must be 0 to 1, not {min_coverage}"
            )));
        }
        self.min_coverage = min_coverage;
        Ok(self)
    }

    /// Bytes of plain texts read again at once where they are not
    /// prepared (the boilerplate's examples; the new documents of a search
    /// against an index): a batch of pass 2's, an eighth of the working
    /// set (the default's when it is chosen as the search runs).
    pub fn text_batch_bytes(&self) -> u64 {
        (self.working_set.unwrap_or(PassageSettings::DEFAULT_WORKING_SET) / 8).max(1)
    }

    /// The same settings, the passages' texts in the lines or not.
    pub fn with_passage_text(mut self, passage_text: bool) -> PassageSettings {
        self.passage_text = passage_text;
        self
    }

    /// The same settings with another number of shared marks (at least 1).
    pub fn with_min_marks(mut self, min_marks: u32) -> Result<PassageSettings, DedupError> {
        if min_marks == 0 {
            return Err(DedupError::PassageSettings("the fewest shared marks must be at least 1".into()));
        }
        self.min_marks = min_marks;
        Ok(self)
    }
}

impl Default for PassageSettings {
    fn default() -> PassageSettings {
        PassageSettings::new(PassageSettings::DEFAULT_MIN_WORDS, PassageSettings::DEFAULT_BOILERPLATE)
            .expect("the defaults are in range")
    }
}

/// Pass 1's marks, sorted on disk: one `(hash, document, word)` record per
/// mark of each document, the word's top bit set after a hash's first
/// (`REPEAT`); and each document's shape, for pass 2's working set.
pub struct Postings {
    runs: Runs<(u64, u32, u32)>,
    distinct: Vec<(u64, u32)>,
    /// Content words from a text's last mark to its end, about (its last
    /// window of k-grams: one more than a text of a spaced script has).
    past_last_mark: u32,
    /// Each document's content words (from its last mark's) and marks, by
    /// number.
    shapes: Vec<(u32, u32)>,
    /// The search's run files once merged, for its store to write over.
    spare: Spare,
}

impl Postings {
    /// No postings yet, sorted as `settings` say.
    pub fn new(settings: &PassageSettings) -> Postings {
        let winnowing = &settings.winnowing;
        let spare = Spare::default();
        Postings {
            runs: Runs::new(settings.sort_memory, settings.temp_dir.as_deref()).keeping_files_in(&spare),
            distinct: Vec::new(),
            past_last_mark: (winnowing.k() + winnowing.w()) as u32,
            shapes: Vec::new(),
            spare,
        }
    }

    /// Adds the marks of document `number` ([`Winnowing::marks`] of its
    /// text): every mark, those of a hash after its first with their
    /// word's top bit set (counted once, but placed at every word).
    pub fn add(&mut self, number: u32, marks: &[Mark]) -> Result<(), DedupError> {
        let words = marks.iter().map(|mark| mark.word.saturating_add(self.past_last_mark)).max();
        if self.shapes.len() <= number as usize {
            self.shapes.resize(number as usize + 1, (0, 0));
        }
        self.shapes[number as usize] = (words.unwrap_or(0), u32::try_from(marks.len()).unwrap_or(u32::MAX));
        self.distinct.clear();
        // Words of texts under 2 GiB are under the flag.
        self.distinct.extend(marks.iter().map(|mark| (mark.hash, mark.word.min(REPEAT - 1))));
        self.distinct.sort_unstable();
        let mut previous = None;
        for &(hash, word) in &self.distinct {
            let flag = if previous == Some(hash) { REPEAT } else { 0 };
            self.runs.push((hash, number, word | flag))?;
            previous = Some(hash);
        }
        Ok(())
    }

    /// Records added.
    pub fn len(&self) -> u64 {
        self.runs.len()
    }

    /// Whether none was added.
    pub fn is_empty(&self) -> bool {
        self.runs.len() == 0
    }
}

/// The marks of a document as the search counts them, into `distinct`
/// (cleared first): `(hash, word)`, each hash once at its first word,
/// sorted by hash. Public so that a front end that counts shared hashes
/// itself (the Python package's Spark job) counts the same.
pub fn distinct_marks(marks: &[Mark], distinct: &mut Vec<(u64, u32)>) {
    distinct.clear();
    distinct.extend(marks.iter().map(|mark| (mark.hash, mark.word)));
    distinct.sort_unstable();
    distinct.dedup_by_key(|(hash, _)| *hash);
}

/// Two documents and the passages they share.
#[derive(Debug, Clone, PartialEq)]
pub struct PassagePair {
    /// The earlier document's number.
    pub a: u32,
    /// The later's.
    pub b: u32,
    /// Winnowing marks they share.
    pub marks: u32,
    /// Their passages of at least the settings' words, not boilerplate,
    /// in the order they come in `a` (offsets into `a` and `b`'s texts).
    pub passages: Vec<Passage>,
}

/// A passage many documents share, reported once.
#[derive(Debug, Clone, PartialEq)]
pub struct Boilerplate {
    /// The most documents holding one of its hashes (each more than the
    /// boilerplate threshold).
    pub documents: u32,
    /// Its boilerplate hashes.
    pub marks: u32,
    /// The first document holding it (by number).
    pub example: u32,
    /// Where it is in the example.
    pub span: Span,
    /// Its text in the example, at most [`SNIPPET_CHARS`] characters.
    pub snippet: String,
}

/// The most characters of a boilerplate passage's text reported.
pub const SNIPPET_CHARS: usize = 400;

/// What a search found, besides the pairs handed over as they were found.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageOutcome {
    /// Postings read back (marks of all documents).
    pub postings: u64,
    /// Pairs sharing at least the settings' marks.
    pub sharing: usize,
    /// Those of them with 5 shared marks (or `min_marks` when fewer)
    /// within 64 content words of the first document (passages are made of
    /// such runs), aligned.
    pub candidates: usize,
    /// Pairs reported.
    pub pairs: usize,
    /// Passages in them.
    pub passages: usize,
    /// Pairs the aligner refused (a text over its size limit, or too
    /// repetitive), left out.
    pub unaligned: usize,
    /// The boilerplate passages, by example document and position.
    pub boilerplate: Vec<Boilerplate>,
    /// The bytes of prepared texts pass 2 held at once
    /// ([`PassageSettings::working_set_beside`]).
    pub working_set: u64,
}

/// A pair found, with its `passages.jsonl` line.
#[derive(Debug, Clone)]
pub struct Found {
    /// The pair.
    pub pair: PassagePair,
    /// `{"a", "b", "marks", "passages"}`, the passages as `compare
    /// --passages --json` writes them (`priorart-passages/1`), ending in a
    /// newline.
    pub line: String,
}

/// Every pair of the catalog's documents that share passages, handed to
/// `found` a round at a time (in a fixed order: the same inputs give the
/// same lines), and the boilerplate. `postings` holds the marks of every
/// document of `catalog` (by its numbers), texts come back through
/// `reread`.
pub fn find_passages(
    catalog: &Catalog<Places>,
    mut postings: Postings,
    settings: &PassageSettings,
    reread: &dyn Reread,
    control: Control<'_>,
    mut found: impl FnMut(Vec<Found>) -> Result<(), DedupError>,
) -> Result<PassageOutcome, DedupError> {
    control.check()?;
    control.progress.phase(Phase::Candidates, 0);
    let records = postings.len();
    let shapes = std::mem::take(&mut postings.shapes);
    let spare = postings.spare.clone();
    let shared = shared_hashes(postings, settings, control)?;
    let (mut candidates, sharing) = candidates(shared.pairs, settings, control)?;
    let boilerplate_hashes: Vec<u64> = shared.boilerplate.iter().map(|mark| mark.hash).collect();
    let checker = PairChecker::new(settings, boilerplate_hashes);
    let prepare = |text: String| checker.prepare(text);
    let check = |(first, second, marks): Tagged, a: &PreparedText, b: &PreparedText| {
        let passages = match checker.check(a, b) {
            PairCheck::Unrelated => return None,
            PairCheck::Refused => return Some(Checked::Refused),
            PairCheck::Passages(passages) => passages,
        };
        let ids = catalog.ids();
        let line = checker.line([ids.get(first), ids.get(second)], marks, &passages, [a, b]);
        Some(Checked::Found(Found { pair: PassagePair { a: first, b: second, marks, passages }, line }))
    };
    let (mut pairs, mut passages, mut unaligned) = (0, 0, 0);
    let stored = Stored { write: PreparedText::write_to, read: PreparedText::read_from };
    // A text held is counted as what is made of it: about 4 times its
    // bytes in English, 7 in Chinese or Japanese (a word a letter).
    let places = catalog.kept();
    let held_bytes = |number: u32| {
        let (words, marks) = shapes.get(number as usize).copied().unwrap_or_default();
        MarkedText::held_bytes(u64::from(places.text_bytes(number)), u64::from(words), u64::from(marks))
    };
    let working_set = settings.working_set_beside(held_beside_working_set(catalog, settings, &checker));
    let memory = Memory {
        working_set,
        held_bytes: &held_bytes,
        sort_memory: settings.sort_memory,
        temp_dir: settings.temp_dir.as_deref(),
        spare: Some(&spare),
    };
    each_pair(catalog, &mut candidates, memory, reread, control, (prepare, Some(stored)), check, |round| {
        let mut kept = Vec::with_capacity(round.len());
        for checked in round {
            match checked {
                Checked::Found(pair) => kept.push(pair),
                Checked::Refused => unaligned += 1,
            }
        }
        pairs += kept.len();
        passages += kept.iter().map(|found| found.pair.passages.len()).sum::<usize>();
        found(kept)
    })?;
    let boilerplate = boilerplate(catalog, shared.boilerplate, settings, reread, control)?;
    Ok(PassageOutcome {
        postings: records,
        sharing,
        candidates: candidates.len() as usize,
        pairs,
        passages,
        unaligned,
        boilerplate,
        working_set,
    })
}

/// Bytes pass 2 holds beside its working set through its rounds: the
/// catalog and the documents' shapes, the boilerplate hashes, the pairs
/// sorted by rank (in memory up to a sort buffer) and, for a candidate,
/// its number and place in the store. (Each document's rank and flag,
/// 5 bytes, are gone before the first round: fewer than the store's.)
fn held_beside_working_set(
    catalog: &Catalog<Places>,
    settings: &PassageSettings,
    checker: &PairChecker,
) -> u64 {
    // Shape, then a candidate's number and place in the store.
    const PER_DOCUMENT: u64 = 8 + 4 + 12;
    let documents = catalog.len() as u64;
    // A set's slot: its hash and a control byte.
    let boilerplate = 9 * checker.boilerplate.capacity() as u64;
    catalog.bytes() as u64 + boilerplate + settings.sort_memory + PER_DOCUMENT * documents
}

/// Shared marks a candidate needs close together to be aligned: a
/// passage of 50 words (about 25 content words) shares about 9 verbatim,
/// 5 with one word in ten replaced. Measured on the planted passages
/// (BENCHMARKS.md, "Fewer candidates"): 5 aligns a third fewer pairs than
/// 3, and finds the same planted ones and all but 1 in 2,000 of the others.
const NEARBY_MARKS: usize = 5;
/// How close, in content words of the first document.
const NEARBY_WORDS: u32 = 64;

/// Whether the words (sorted) of the hashes a document shares with another
/// hold [`NEARBY_MARKS`] (the search's `min_marks` when fewer) within
/// [`NEARBY_WORDS`] content words: a shared passage has them; documents
/// that share only scattered phrases need not be aligned. The candidates
/// are picked with it from the postings, and [`PairChecker::check`] asks it
/// of two texts, so both agree.
fn nearby(words: &[u32], min_marks: u32) -> bool {
    let marks = (min_marks as usize).clamp(1, NEARBY_MARKS);
    words.windows(marks).any(|run| run[marks - 1] - run[0] <= NEARBY_WORDS)
}

/// What an aligned pair gave.
enum Checked {
    Found(Found),
    Refused,
}

/// How every candidate pair of a search is checked: both texts prepared
/// once ([`PairChecker::prepare`]), then aligned when they share marks
/// close together, their passages kept when long enough, not boilerplate
/// and found in runs of words. Public so that a front end that finds its
/// candidates itself (the Python package's Spark job) checks them exactly
/// as [`find_passages`] does.
pub struct PairChecker {
    aligner: Aligner,
    settings: PassageSettings,
    /// The boilerplate hashes: a set, not a sorted list, as every mark of
    /// every text read again is looked up (on 900,000 generated documents,
    /// binary searches through their boilerplate hashes, one cache miss a
    /// step, were 30 % of pass 2).
    boilerplate: FxHashSet<u64>,
}

/// What [`PairChecker::check`] found for two texts.
#[derive(Debug, Clone, PartialEq)]
pub enum PairCheck {
    /// No shared passage.
    Unrelated,
    /// The aligner refused one of the texts (too large or too repetitive).
    Refused,
    /// Their passages, in the order they come in the first text.
    Passages(Vec<Passage>),
}

impl PairChecker {
    /// The checker of a search with `settings` whose boilerplate hashes
    /// (held by more than [`PassageSettings::boilerplate`] documents) are
    /// `boilerplate_hashes`.
    pub fn new(settings: &PassageSettings, boilerplate_hashes: Vec<u64>) -> PairChecker {
        // The aligner leaves out the stopwords the winnowing leaves out, so
        // that every text can be marked (`Aligner::mark`).
        let english_stopwords = settings.winnowing.leaves_out_english_stopwords();
        let aligner = Aligner::new(Params { english_stopwords, ..Params::default() })
            .expect("the default parameters are in range");
        let boilerplate = boilerplate_hashes.into_iter().collect();
        PairChecker { aligner, settings: settings.clone(), boilerplate }
    }

    /// A text cut and winnowed once for all its pairs.
    pub fn prepare(&self, text: String) -> PreparedText {
        PreparedText::new(text, &self.aligner, &self.settings.winnowing, &self.boilerplate)
    }

    /// The `passages.jsonl` line ([`pair_line`]) of documents of ids `ids`
    /// and texts `texts` sharing `marks` marks and `passages`, with the
    /// passages' texts when the settings ask for them.
    pub fn line(
        &self,
        ids: [&str; 2],
        marks: u32,
        passages: &[Passage],
        texts: [&PreparedText; 2],
    ) -> String {
        let texts = self.settings.passage_text.then(|| texts.map(PreparedText::text));
        pair_line(ids, marks, passages, texts)
    }

    /// The passages `a` and `b` share, as [`find_passages`] reports them.
    pub fn check(&self, a: &PreparedText, b: &PreparedText) -> PairCheck {
        let (Some(a_marked), Some(b_marked)) = (&a.marked, &b.marked) else { return PairCheck::Refused };
        let shared = self.aligner.shared_marks(a_marked, b_marked);
        if !nearby(shared.words(), self.settings.min_marks) {
            return PairCheck::Unrelated;
        }
        match self.aligner.align_marked_of(a_marked, b_marked, shared, self.settings.min_words) {
            Err(_) => PairCheck::Refused,
            Ok(found) => {
                let passages: Vec<Passage> = found
                    .into_iter()
                    .filter(|found| keep(found, a, b, &self.settings))
                    .map(|found| found.passage)
                    .collect();
                if passages.is_empty() { PairCheck::Unrelated } else { PairCheck::Passages(passages) }
            }
        }
    }
}

/// A text read back, cut into the aligner's words and winnowed once for
/// all its pairs, its boilerplate marks left out (none when the aligner
/// refuses it: too large), and the byte ranges those cover (sorted,
/// disjoint).
pub struct PreparedText {
    marked: Option<MarkedText>,
    boilerplate: Vec<(u32, u32)>,
    /// The bytes all of them cover: a side longer than twice that is not
    /// mostly boilerplate, without searching the ranges (a search, its
    /// ranges far from the rest of the text in memory, was 3 % of the 3 GB
    /// corpus's verifying).
    boilerplate_total: usize,
}

impl PreparedText {
    fn new(
        text: String,
        aligner: &Aligner,
        winnowing: &Winnowing,
        boilerplate_hashes: &FxHashSet<u64>,
    ) -> PreparedText {
        let mut covered: Vec<(u32, u32)> = Vec::new();
        let marked = aligner
            .mark(text, winnowing, |mark| {
                let boilerplate = boilerplate_hashes.contains(&mark.hash);
                if boilerplate {
                    covered.push((mark.start, mark.end));
                }
                !boilerplate
            })
            .ok();
        PreparedText::of(marked, merged(covered))
    }

    /// Appends it to `out`, to be read back by [`PreparedText::read_from`]:
    /// whether the aligner took the text (a byte), the text and what was
    /// made of it ([`MarkedText::write_to`]), and its boilerplate ranges
    /// (their count, then start and end, `u32` little-endian each).
    fn write_to(&self, out: &mut Vec<u8>) {
        match &self.marked {
            Some(marked) => {
                out.push(1);
                marked.write_to(out);
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(self.boilerplate.len() as u32).to_le_bytes());
        for &(start, end) in &self.boilerplate {
            out.extend_from_slice(&start.to_le_bytes());
            out.extend_from_slice(&end.to_le_bytes());
        }
    }

    /// What [`PreparedText::write_to`] wrote, checked: a damaged record is
    /// an error, not a text.
    fn read_from(bytes: &[u8]) -> Result<PreparedText, DedupError> {
        let invalid = |error: Box<dyn std::error::Error + Send + Sync>| {
            DedupError::Spill(std::io::Error::new(std::io::ErrorKind::InvalidData, error))
        };
        let damaged = |why: &str| invalid(format!("a prepared text read back is damaged: {why}").into());
        let (marked, rest) = match bytes.split_first() {
            Some((1, rest)) => {
                let (marked, rest) = MarkedText::read_from(rest).map_err(|err| invalid(err.into()))?;
                (Some(marked), rest)
            }
            Some((0, rest)) => (None, rest),
            _ => return Err(damaged("no marker")),
        };
        let text_bytes = marked.as_ref().map_or(0, |marked| marked.text().len());
        let (count, rest) = rest.split_first_chunk::<4>().ok_or_else(|| damaged("ranges cut short"))?;
        let count = u32::from_le_bytes(*count) as usize;
        if rest.len() != 8 * count {
            return Err(damaged("ranges cut short or too long"));
        }
        let boilerplate: Vec<(u32, u32)> = rest
            .chunks_exact(8)
            .map(|range| {
                let at =
                    |from: usize| u32::from_le_bytes(range[from..from + 4].try_into().expect("four bytes"));
                (at(0), at(4))
            })
            .collect();
        let in_order = boilerplate.windows(2).all(|pair| pair[0].1 < pair[1].0);
        let inside = boilerplate.iter().all(|&(start, end)| start <= end && end as usize <= text_bytes);
        if !in_order || !inside {
            return Err(damaged("ranges out of order"));
        }
        Ok(PreparedText::of(marked, boilerplate))
    }

    /// A text and its boilerplate ranges (sorted, disjoint).
    fn of(marked: Option<MarkedText>, boilerplate: Vec<(u32, u32)>) -> PreparedText {
        let boilerplate_total = boilerplate.iter().map(|&(start, end)| (end - start) as usize).sum();
        PreparedText { marked, boilerplate, boilerplate_total }
    }

    /// Whether boilerplate marks cover more than half of `span`.
    fn mostly_boilerplate(&self, span: &Span) -> bool {
        2 * self.boilerplate_total > span.byte_length && 2 * self.boilerplate_bytes(span) > span.byte_length
    }

    /// The text (empty when it was refused: its pairs are not aligned).
    pub fn text(&self) -> &str {
        self.marked.as_ref().map_or("", MarkedText::text)
    }

    /// Bytes of `span` its boilerplate marks cover.
    fn boilerplate_bytes(&self, span: &Span) -> usize {
        let range = span.bytes();
        // The ranges are sorted and disjoint: those ending after the span
        // starts, up to the first starting after it ends.
        let first = self.boilerplate.partition_point(|&(_, end)| end as usize <= range.start);
        self.boilerplate[first..]
            .iter()
            .take_while(|&&(start, _)| (start as usize) < range.end)
            .map(|&(start, end)| {
                let (start, end) = (start as usize, end as usize);
                end.min(range.end).saturating_sub(start.max(range.start))
            })
            .sum()
    }
}

/// Byte ranges (in text order, as marks come) merged where they touch or
/// overlap: sorted and disjoint.
fn merged(ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// Whether a passage is reported: long enough on both sides, not mostly
/// boilerplate on either, and one side found in the other in runs of
/// words (two texts sharing many words but few runs, as a translation and
/// its original or two pages of one template do, share no passage). One
/// side is enough: the aligner may stretch a copy's source side over the
/// repetitive text around it.
fn keep(found: &MarkedPassage, a: &PreparedText, b: &PreparedText, settings: &PassageSettings) -> bool {
    let (Some(a_marked), Some(b_marked)) = (&a.marked, &b.marked) else { return false };
    let passage = &found.passage;
    let covered = |side: Side| found.coverage(side, a_marked, b_marked) >= settings.min_coverage;
    found.word_counts(a_marked, b_marked).iter().all(|&words| words >= settings.min_words)
        && !a.mostly_boilerplate(&passage.a)
        && !b.mostly_boilerplate(&passage.b)
        && (covered(Side::A) || covered(Side::B))
}

/// A `passages.jsonl` line: `{"a", "b", "marks", "passages"}` for the
/// documents of ids `ids`, the passages as `compare --passages --json`
/// writes them, their text on each side when the documents' `texts` are
/// given ([`PassageSettings::passage_text`]), ending in a newline.
pub fn pair_line(ids: [&str; 2], marks: u32, passages: &[Passage], texts: Option<[&str; 2]>) -> String {
    let line = PassagesLine {
        a: ids[0],
        b: ids[1],
        marks,
        passages: passages.iter().map(|passage| Shared::with_texts(texts, passage)).collect(),
    };
    crate::output::json_line(&line)
}

/// A line of `passages.jsonl` (written by [`pair_line`]): two documents
/// sharing passages.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "DedupPassages"))]
pub struct PassagesLine<'t> {
    /// The earlier document's id.
    pub a: &'t str,
    /// The later document's id.
    pub b: &'t str,
    /// Marks (winnowed word n-gram hashes) the two share.
    pub marks: u32,
    /// The passages, as `compare --passages --json` writes them.
    pub passages: Vec<Shared<'t>>,
}

/// A boilerplate hash: how many documents hold it, and where the first
/// holds it.
#[derive(Debug, Clone, Copy)]
struct BoilerplateMark {
    hash: u64,
    documents: u32,
    example: u32,
    word: u32,
}

/// The merged postings, split: pairs of documents sharing a hash (one
/// record per shared hash, on disk: the earlier document, the later, and
/// the hash's word in the earlier) and the boilerplate hashes.
struct SharedHashes {
    pairs: Runs<SharedHash>,
    boilerplate: Vec<BoilerplateMark>,
}

/// A hash two documents share, as the candidates' sort holds it: the two
/// documents (the earlier first) and the hash's word in the earlier
/// (flagged [`REPEAT`] after its first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct SharedHash {
    a: u32,
    b: u32,
    word: u32,
}

/// Sorted by their pair alone: a pair's words are counted and sorted
/// when it is closed ([`candidates_in`]), whatever order they came in.
impl Record for SharedHash {
    const BYTES: usize = 12;

    fn write(&self, to: &mut Vec<u8>) {
        (self.a, self.b, self.word).write(to);
    }

    fn read(from: &[u8]) -> SharedHash {
        let (a, b, word) = <(u32, u32, u32)>::read(from);
        SharedHash { a, b, word }
    }

    fn packed(&self) -> u128 {
        u128::from(self.pair_key())
    }

    /// Radix-sorted on the pair's 8 bytes: twice as fast as comparing
    /// keys (22 million records of 900,000 documents: 0.23 s against 0.46
    /// on two cores), and the sorts of the 3 GB generated corpus's pair
    /// records were 40 % of its candidates phase.
    fn sort(records: &mut [SharedHash]) {
        records.radix_sort_unstable();
    }
}

impl SharedHash {
    fn pair_key(&self) -> u64 {
        u64::from(self.a) << 32 | u64::from(self.b)
    }
}

impl RadixKey for SharedHash {
    const LEVELS: usize = 8;

    /// The pair key's bytes, the least significant first.
    fn get_level(&self, level: usize) -> u8 {
        (self.pair_key() >> (level * 8)) as u8
    }
}

/// The flag of a word position (postings' and pair records') where a hash
/// is found again in a document: the pair's shared hashes are counted
/// once, but each place counts in [`nearby`].
const REPEAT: u32 = 1 << 31;

/// The postings merged on all cores, a part of the hashes each
/// ([`Runs::merged_in_parts`]): the final merge of the 3 GB corpus's 139
/// million postings, and of the pairs after it, was one thread's work.
fn shared_hashes(
    postings: Postings,
    settings: &PassageSettings,
    control: Control<'_>,
) -> Result<SharedHashes, DedupError> {
    let runs =
        Runs::new(settings.sort_memory, settings.temp_dir.as_deref()).keeping_files_in(&postings.spare);
    let pairs = Mutex::new(runs);
    // A record's group: its hash (the key's high 64 bits).
    let hash_group = |key: u128| key >> 64 << 64;
    let parts = postings.runs.merged_in_parts(rayon::current_num_threads(), hash_group)?;
    let found = on_threads(parts, |part| hashes_in(part, settings, &pairs, control))?;
    let pairs = pairs.into_inner().expect("the pairs' lock is not poisoned");
    Ok(SharedHashes { pairs, boilerplate: found.concat() })
}

/// `work` on each of `parts` on a thread of its own, its results in the
/// parts' order, or the first part's error.
fn on_threads<P: Send, T: Send>(
    parts: Vec<P>,
    work: impl Fn(P) -> Result<T, DedupError> + Sync,
) -> Result<Vec<T>, DedupError> {
    std::thread::scope(|scope| {
        let work = &work;
        let running: Vec<_> = parts.into_iter().map(|part| scope.spawn(move || work(part))).collect();
        running
            .into_iter()
            .map(|thread| thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

/// Pair records pushed at once into the shared sort: a lock taken per
/// 65,536 records, not per record.
const PAIRS_AT_ONCE: usize = 1 << 16;

/// One part of the merged postings: each hash's pairs pushed into `pairs`,
/// and its boilerplate hashes, in order.
fn hashes_in(
    part: Merged<(u64, u32, u32)>,
    settings: &PassageSettings,
    pairs: &Mutex<Runs<SharedHash>>,
    control: Control<'_>,
) -> Result<Vec<BoilerplateMark>, DedupError> {
    let mut boilerplate = Vec::new();
    let mut found: Vec<SharedHash> = Vec::with_capacity(PAIRS_AT_ONCE);
    let push_found = |found: &mut Vec<SharedHash>| -> Result<(), DedupError> {
        let mut pairs = pairs.lock().expect("the pairs' lock is not poisoned");
        found.drain(..).try_for_each(|record| pairs.push(record))
    };
    let limit = settings.boilerplate as usize;
    // The current hash's places (those of its first `limit + 1`
    // documents) and how many documents hold it.
    let mut holders: Vec<(u32, u32)> = Vec::with_capacity(limit + 1);
    let mut current: Option<(u64, u32)> = None;
    let mut flush = |hash: u64, count: u32, holders: &mut Vec<(u32, u32)>| -> Result<(), DedupError> {
        if count as usize > limit {
            let (example, word) = holders[0];
            boilerplate.push(BoilerplateMark { hash, documents: count, example, word });
        } else {
            // Each place of the earlier document, with every later one.
            for (at, &(first, word)) in holders.iter().enumerate() {
                let mut later =
                    holders[at + 1..].iter().map(|&(document, _)| document).filter(|&d| d != first);
                let mut previous = None;
                later.try_for_each(|second| {
                    if previous != Some(second) {
                        found.push(SharedHash { a: first, b: second, word });
                        if found.len() == PAIRS_AT_ONCE {
                            push_found(&mut found)?;
                        }
                        previous = Some(second);
                    }
                    Ok::<(), DedupError>(())
                })?;
            }
        }
        holders.clear();
        Ok(())
    };
    part.each_batch(|records| {
        control.check()?;
        for &(hash, document, word) in records {
            let first_place = word & REPEAT == 0;
            match current {
                Some((held, ref mut count)) if held == hash => *count += u32::from(first_place),
                _ => {
                    if let Some((held, count)) = current {
                        flush(held, count, &mut holders)?;
                    }
                    current = Some((hash, 1));
                }
            }
            if current.is_some_and(|(_, count)| count as usize <= limit + 1) {
                holders.push((document, word));
            }
        }
        Ok(())
    })?;
    if let Some((held, count)) = current {
        flush(held, count, &mut holders)?;
    }
    push_found(&mut found)?;
    Ok(boilerplate)
}

/// The candidates: pairs sharing at least the settings' `min_marks`
/// hashes, some of them close together in the first document
/// ([`nearby`]), as `(a, b, shared)`, written to temporary files, a part
/// of the pairs each, found on all cores (held, they would grow with the
/// collection: 14.5 million on the 3 GB generated corpus; pass 2 sorts
/// them by rank, so their order is not kept); and how many pairs share
/// `min_marks` hashes.
fn candidates(
    pairs: Runs<SharedHash>,
    settings: &PassageSettings,
    control: Control<'_>,
) -> Result<(SpooledPairs, usize), DedupError> {
    // A record's group: its two documents, its whole key.
    let parts = pairs.merged_in_parts(rayon::current_num_threads(), |key| key)?;
    let found = on_threads(parts, |part| candidates_in(part, settings, control))?;
    let sharing = found.iter().map(|(_, sharing)| sharing).sum();
    Ok((SpooledPairs(found.into_iter().map(|(kept, _)| kept).collect()), sharing))
}

/// The candidates of one part of the merged pairs, and how many of its
/// pairs share `min_marks` hashes.
fn candidates_in(
    part: Merged<SharedHash>,
    settings: &PassageSettings,
    control: Control<'_>,
) -> Result<(Spooled<Tagged>, usize), DedupError> {
    let min_marks = settings.min_marks;
    let mut kept = Spool::new(settings.temp_dir.as_deref())?;
    let mut sharing = 0;
    // The current pair and the places of its shared hashes in its first
    // document (flagged after a hash's first).
    let mut current: Option<(u32, u32)> = None;
    let mut words: Vec<u32> = Vec::new();
    let mut close = |pair: (u32, u32), words: &mut Vec<u32>| {
        let count = words.iter().filter(|&&word| word & REPEAT == 0).count();
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        if count >= min_marks {
            sharing += 1;
            words.iter_mut().for_each(|word| *word &= !REPEAT);
            words.sort_unstable();
            if nearby(words, min_marks) {
                return kept.push((pair.0, pair.1, count));
            }
        }
        Ok(())
    };
    part.each_batch(|records| {
        control.check()?;
        for &SharedHash { a, b, word } in records {
            if current != Some((a, b)) {
                if let Some(pair) = current {
                    close(pair, &mut words)?;
                }
                current = Some((a, b));
                words.clear();
            }
            words.push(word);
        }
        Ok(())
    })?;
    if let Some(pair) = current {
        close(pair, &mut words)?;
    }
    control.check()?;
    Ok((kept.finish()?, sharing))
}

/// Boilerplate hashes grouped into passages ([`boilerplate_in`]), each
/// example document read again.
fn boilerplate(
    catalog: &Catalog<Places>,
    mut marks: Vec<BoilerplateMark>,
    settings: &PassageSettings,
    reread: &dyn Reread,
    control: Control<'_>,
) -> Result<Vec<Boilerplate>, DedupError> {
    marks.sort_unstable_by_key(|mark| (mark.example, mark.word));
    let mut examples: Vec<u32> = marks.iter().map(|mark| mark.example).collect();
    examples.dedup();
    let places = catalog.kept();
    examples.sort_unstable_by_key(|&number| places.place(number).order());
    let mut reported = Vec::new();
    let mut batch_start = 0;
    while batch_start < examples.len() {
        control.check()?;
        let mut bytes = 0;
        let mut end = batch_start;
        while end < examples.len() && (end == batch_start || bytes < settings.text_batch_bytes()) {
            bytes += u64::from(places.text_bytes(examples[end]));
            end += 1;
        }
        let batch = &examples[batch_start..end];
        let at: Vec<Place> = batch.iter().map(|&number| places.place(number)).collect();
        let texts = reread.texts(&at).map_err(DedupError::Reread)?;
        // Each example winnowed again on all cores: on one, the 3 GB
        // generated corpus's 18,000 boilerplate passages were 2 s of the
        // search's end.
        let found: Vec<Vec<Boilerplate>> = batch
            .par_iter()
            .zip(&texts)
            .map(|(&number, text)| {
                let first = marks.partition_point(|mark| mark.example < number);
                let held: Vec<(u32, u32)> = marks[first..]
                    .iter()
                    .take_while(|mark| mark.example == number)
                    .map(|mark| (mark.word, mark.documents))
                    .collect();
                boilerplate_in(number, text, &held, settings).ok_or_else(|| DedupError::Changed {
                    id: catalog.ids().get(number).to_owned(),
                    first: u64::from(places.text_bytes(number)),
                    again: text.len() as u64,
                })
            })
            .collect::<Result<_, DedupError>>()?;
        reported.extend(found.into_iter().flatten());
        batch_start = end;
    }
    reported.sort_unstable_by_key(|found| (found.example, found.span.byte_offset));
    Ok(reported)
}

/// The boilerplate passages of document `example`, of text `text`, made of
/// the boilerplate hashes it is the first to hold: `marks` are their
/// `(word, documents)` (the content word it holds each at, as
/// [`distinct_marks`] gives it, and how many documents hold it), sorted by
/// word. Consecutive ones at most two windows apart are one passage,
/// reported when it has the settings' fewest words; its place is found by
/// winnowing the text again (`None` when a mark is not there: not the text
/// the marks came from). Public so that a front end that finds the
/// boilerplate hashes itself (the Spark job) reports them as
/// [`find_passages`] does.
pub fn boilerplate_in(
    example: u32,
    text: &str,
    marks: &[(u32, u32)],
    settings: &PassageSettings,
) -> Option<Vec<Boilerplate>> {
    let gap = (2 * settings.winnowing.w() + settings.winnowing.k()) as u32;
    let found = settings.winnowing.marks(text).unwrap_or_default();
    let of = |word: u32| found.binary_search_by_key(&word, |mark| mark.word).ok().map(|at| found[at]);
    let mut reported = Vec::new();
    for group in marks.chunk_by(|x, y| y.0 - x.0 <= gap) {
        let (start, last) = (of(group[0].0)?, of(group.last().expect("groups are not empty").0)?);
        let range = start.start as usize..last.end as usize;
        // A phrase many documents use is not a passage.
        if priorart_align::word_count(&text[range.clone()]) < settings.min_words {
            continue;
        }
        reported.push(Boilerplate {
            documents: group.iter().map(|&(_, documents)| documents).max().unwrap_or(0),
            marks: group.len() as u32,
            example,
            span: span_of(text, range.clone()),
            snippet: text[range].chars().take(SNIPPET_CHARS).collect(),
        });
    }
    Some(reported)
}

/// The span of a byte range of `text`.
fn span_of(text: &str, range: std::ops::Range<usize>) -> Span {
    let char_offset = text[..range.start].chars().count();
    Span {
        char_offset,
        char_length: text[range.clone()].chars().count(),
        byte_offset: range.start,
        byte_length: range.len(),
    }
}

/// A `boilerplate.jsonl` line: `{"documents", "marks", "example",
/// "char_offset", "char_length", "byte_offset", "byte_length", "text"}`
/// (the text at most [`SNIPPET_CHARS`] characters), ending in a newline.
pub fn boilerplate_line(catalog: &Catalog<Places>, found: &Boilerplate) -> String {
    boilerplate_line_of(catalog.ids().get(found.example), found)
}

/// [`boilerplate_line`] with the example's id given.
pub fn boilerplate_line_of(example: &str, found: &Boilerplate) -> String {
    let span = &found.span;
    let line = BoilerplateLine {
        documents: found.documents,
        marks: found.marks,
        example,
        char_offset: span.char_offset,
        char_length: span.char_length,
        byte_offset: span.byte_offset,
        byte_length: span.byte_length,
        text: &found.snippet,
    };
    crate::output::json_line(&line)
}

/// A line of `boilerplate.jsonl` (written by [`boilerplate_line_of`]): a
/// passage many documents hold.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "DedupBoilerplate"))]
pub struct BoilerplateLine<'t> {
    /// The most documents holding one of its hashes.
    pub documents: u32,
    /// Its boilerplate hashes.
    pub marks: u32,
    /// The id of the first document holding it.
    pub example: &'t str,
    /// Where it is in the example, in characters.
    pub char_offset: usize,
    /// Its length in characters.
    pub char_length: usize,
    /// Where it is in the example, in bytes.
    pub byte_offset: usize,
    /// Its length in bytes.
    pub byte_length: usize,
    /// Its text in the example, at most [`SNIPPET_CHARS`] characters.
    pub text: &'t str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_hashes_come_back_grouped_by_pair_with_all_their_words() {
        let mut rng = fastrand::Rng::with_seed(29);
        let records: Vec<SharedHash> = (0..50_000)
            .map(|_| {
                let (x, y) = (rng.u32(0..3_000), rng.u32(..));
                let word = rng.u32(..10) | if rng.bool() { REPEAT } else { 0 };
                SharedHash { a: x.min(y), b: x.max(y), word }
            })
            .collect();
        // Runs of 4,000 records, merged: their order is the pairs'.
        let mut runs = Runs::new(12 * 4_000, None);
        records.iter().try_for_each(|&record| runs.push(record)).unwrap();
        let merged: Vec<SharedHash> = runs.merged().unwrap().collect::<Result<_, _>>().unwrap();
        let pairs: Vec<(u32, u32)> = merged.iter().map(|record| (record.a, record.b)).collect();
        assert!(pairs.is_sorted());
        let mut expected = records.clone();
        expected.sort_unstable();
        let mut merged = merged;
        merged.sort_unstable();
        assert_eq!(merged, expected);
    }

    /// A text that shares its first sentence with `shared`, and its
    /// boilerplate hashes' ranges with the checker's.
    fn prepared_pair() -> (PairChecker, PreparedText, PreparedText) {
        let passage = "Partial copies are rarely whole texts: a paragraph pasted into a longer essay \
                       leaves the two documents sharing only that paragraph, its words in the same \
                       order, a few of them replaced by the copier to hide where it came from. \
                       Archivists and curators ask which documents of a collection share passages, \
                       and which passages, without reading every pair of documents one by one. ";
        let tail = "Then the first essay goes on about something else entirely, café and 漢字テスト.";
        let a = format!("{passage}{tail}");
        let b = format!("An introduction that nobody copied. {passage}And a conclusion of its own.");
        let settings = PassageSettings::new(20, 32).unwrap();
        let boilerplate: Vec<u64> =
            settings.winnowing.marks(tail).unwrap().iter().take(2).map(|mark| mark.hash).collect();
        let checker = PairChecker::new(&settings, boilerplate);
        let (a, b) = (checker.prepare(a), checker.prepare(b));
        (checker, a, b)
    }

    #[test]
    fn a_prepared_text_read_back_checks_as_the_text_prepared() {
        let (checker, a, b) = prepared_pair();
        let mut bytes = Vec::new();
        a.write_to(&mut bytes);
        let read = PreparedText::read_from(&bytes).unwrap();
        assert_eq!(read.text(), a.text());
        assert_eq!(read.boilerplate, a.boilerplate);
        assert!(!a.boilerplate.is_empty());
        let found = checker.check(&a, &b);
        assert!(matches!(found, PairCheck::Passages(_)), "{found:?}");
        assert_eq!(checker.check(&read, &b), found);
        assert_eq!(checker.check(&b, &read), checker.check(&b, &a));
        // A text the aligner refused comes back refused.
        let refused = PreparedText::of(None, Vec::new());
        bytes.clear();
        refused.write_to(&mut bytes);
        assert_eq!(checker.check(&PreparedText::read_from(&bytes).unwrap(), &b), PairCheck::Refused);
    }

    #[test]
    fn a_damaged_prepared_text_is_an_error() {
        let (_, a, _) = prepared_pair();
        let mut bytes = Vec::new();
        a.write_to(&mut bytes);
        for end in 0..bytes.len() {
            assert!(PreparedText::read_from(&bytes[..end]).is_err(), "cut at {end}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(PreparedText::read_from(&longer).is_err());
        let mut unknown = bytes.clone();
        unknown[0] = 2;
        assert!(matches!(PreparedText::read_from(&unknown), Err(DedupError::Spill(_))));
    }

    #[test]
    fn the_default_working_set_shrinks_as_the_rest_grows_and_one_set_is_kept() {
        let automatic = PassageSettings::default();
        let whole = PassageSettings::DEFAULT_WORKING_SET;
        assert_eq!(automatic.working_set_beside(0), whole);
        let beside = PassageSettings::MEMORY_TARGET - whole;
        assert_eq!(automatic.working_set_beside(beside), whole);
        assert_eq!(automatic.working_set_beside(beside + (100 << 20)), whole - (100 << 20));
        let least = PassageSettings::LEAST_WORKING_SET;
        assert_eq!(automatic.working_set_beside(PassageSettings::MEMORY_TARGET - 1), least);
        assert_eq!(automatic.working_set_beside(u64::MAX), least);
        let set = PassageSettings { working_set: Some(3 << 30), ..PassageSettings::default() };
        assert_eq!(set.working_set_beside(u64::MAX), 3 << 30);
        assert_eq!(set.text_batch_bytes(), 3 << 27);
        assert_eq!(automatic.text_batch_bytes(), whole / 8);
    }
}
