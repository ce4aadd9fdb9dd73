//! The passage search of `priorart dedup --passages` for Python: on texts
//! (`dedup_passages_jsonl`, the dedup crate's `PassageCollection`: texts
//! spilled to a temporary file as they stream in, the candidates re-read
//! from it) and in pieces for the Spark job (`passage_marks`: a batch's
//! winnowing marks as the search counts them; `PassageChecker`: each
//! candidate pair checked by the search's own `PairChecker`), so every
//! front end reports the CLI's pairs.

use super::{
    InputError, dedup_error, each_batch, in_range, on_engine_thread, on_threads, thread_count, with_reason,
};
use priorart_dedup::passages::{
    PairCheck, PairChecker, PassageSettings, PreparedText, boilerplate_in, boilerplate_line,
    boilerplate_line_of,
};
use priorart_dedup::{Document, PassageCollection};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// The largest `boilerplate` and `min_marks` accepted (document and mark
/// counts are 32-bit in the search).
const MAX_COUNT: u32 = u32::MAX;
/// The largest `min_words` accepted: no passage of a text the aligner
/// takes (64 MiB) has more words.
const MAX_WORDS: u32 = 64 << 20;

/// The search's settings from the Python arguments (the CLI's defaults
/// for those not given), each checked and named when out of range (an
/// `InputError`, reason `out_of_range`).
fn settings(
    py: Python<'_>,
    min_words: Option<&Bound<'_, PyAny>>,
    boilerplate: Option<&Bound<'_, PyAny>>,
    min_marks: Option<&Bound<'_, PyAny>>,
    min_coverage: Option<f64>,
) -> PyResult<PassageSettings> {
    let count = |name: &str, given: Option<&Bound<'_, PyAny>>, default: u32, min: u32, max: u32| {
        given.map_or(Ok(default), |value| in_range(py, name, value, min, max))
    };
    let min_words = count("min_words", min_words, PassageSettings::DEFAULT_MIN_WORDS as u32, 1, MAX_WORDS)?;
    let boilerplate = count("boilerplate", boilerplate, PassageSettings::DEFAULT_BOILERPLATE, 2, MAX_COUNT)?;
    let min_marks = count("min_marks", min_marks, PassageSettings::DEFAULT_MIN_MARKS, 1, MAX_COUNT)?;
    let min_coverage = min_coverage.unwrap_or(PassageSettings::DEFAULT_MIN_COVERAGE);
    if !(0.0..=1.0).contains(&min_coverage) {
        return Err(with_reason::<InputError>(
            py,
            "out_of_range",
            format!("min_coverage={min_coverage}: expected 0 to 1"),
        ));
    }
    PassageSettings::new(min_words as usize, boilerplate)
        .and_then(|settings| settings.with_min_marks(min_marks))
        .and_then(|settings| settings.with_min_coverage(min_coverage))
        .map_err(|err| dedup_error(py, err))
}

/// What `dedup_passages_jsonl` returns: the `passages.jsonl` lines, the
/// `boilerplate.jsonl` text, documents, empty texts, unmarked texts,
/// candidates, unaligned pairs.
type PassageSearchFound = (Vec<String>, String, usize, u64, u64, usize, usize);

/// `priorart dedup --passages` of texts: every pair of documents sharing a
/// passage, by the dedup crate's passage search on texts spilled to a
/// temporary file as they stream in. Returns the CLI's `passages.jsonl`
/// lines and `boilerplate.jsonl` text, and counts: documents, empty texts
/// skipped, texts too large to search, candidate pairs, pairs the aligner
/// refused.
#[pyfunction]
#[pyo3(signature = (texts, ids=None, min_words=None, boilerplate=None, min_marks=None, min_coverage=None,
                    working_set=None, threads=None, temp_dir=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup_passages_jsonl(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    ids: Option<&Bound<'_, PyAny>>,
    min_words: Option<&Bound<'_, PyAny>>,
    boilerplate: Option<&Bound<'_, PyAny>>,
    min_marks: Option<&Bound<'_, PyAny>>,
    min_coverage: Option<f64>,
    working_set: Option<u64>,
    threads: Option<&Bound<'_, PyAny>>,
    temp_dir: Option<PathBuf>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<PassageSearchFound> {
    let threads = thread_count(py, threads)?;
    let mut settings = settings(py, min_words, boilerplate, min_marks, min_coverage)?;
    if let Some(bytes) = working_set {
        settings.working_set = bytes;
    }
    settings.temp_dir = temp_dir;
    let mut collection = PassageCollection::new(settings).map_err(|err| dedup_error(py, err))?;
    each_batch(texts, ids, progress, |batch| {
        let documents: Vec<Document<'_>> = batch.iter().map(|(id, text)| Document { id, text }).collect();
        py.detach(|| on_threads(threads, || collection.push(&documents)))?.map_err(|err| dedup_error(py, err))
    })?;
    let (empty, unmarked) = (collection.empty(), collection.unmarked());
    let (catalog, outcome, pairs) = on_engine_thread(py, threads, progress, |control| {
        // Line by line: each becomes a `str` of its own width (one `str` of
        // them all takes four bytes a character once one is beyond U+FFFF).
        let mut pairs: Vec<String> = Vec::new();
        let (catalog, outcome) = collection.search(control, |round| {
            pairs.extend(round.into_iter().map(|found| found.line));
            Ok(())
        })?;
        Ok((catalog, outcome, pairs))
    })?;
    let boilerplate: String =
        outcome.boilerplate.iter().map(|found| boilerplate_line(&catalog, found)).collect();
    Ok((pairs, boilerplate, catalog.len(), empty, unmarked, outcome.candidates, outcome.unaligned))
}

/// The winnowing marks of each text as the passage search counts them
/// (`distinct_marks`: each hash once, at its first word): `(counts, hashes,
/// words)` with `counts[i]` the marks of text `i` (none for a blank text,
/// which the search skips, or one too large to winnow) and the
/// native-endian u64 hashes and u32 content-word positions of the first
/// text's marks, then the second's. For the Spark job: two documents
/// sharing `min_marks` hashes held by at most `boilerplate` documents are
/// candidates.
#[pyfunction]
#[pyo3(signature = (texts, threads=None))]
pub(crate) fn passage_marks<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<u32>, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let threads = thread_count(py, threads)?;
    let winnowing = PassageSettings::default().winnowing;
    let mut marks: Vec<Vec<(u64, u32)>> = Vec::new();
    each_batch(texts, None, None, |batch| {
        let found: Vec<Vec<(u64, u32)>> = py.detach(|| {
            on_threads(threads, || {
                batch
                    .par_iter()
                    .map(|(_, text)| {
                        let mut distinct = Vec::new();
                        if !priorart_dedup::is_blank(text)
                            && let Ok(found) = winnowing.marks(text)
                        {
                            priorart_dedup::passages::distinct_marks(&found, &mut distinct);
                        }
                        distinct
                    })
                    .collect()
            })
        })?;
        marks.extend(found);
        Ok(())
    })?;
    let counts = marks.iter().map(|found| found.len() as u32).collect();
    let hashes: Vec<u8> = marks.iter().flatten().flat_map(|(hash, _)| hash.to_ne_bytes()).collect();
    let words: Vec<u8> = marks.iter().flatten().flat_map(|(_, word)| word.to_ne_bytes()).collect();
    Ok((counts, PyBytes::new(py, &hashes), PyBytes::new(py, &words)))
}

/// Row `row`'s id and text.
fn key<'a>(ids: &'a [PyBackedStr], texts: &'a [PyBackedStr], row: usize) -> (&'a str, &'a str) {
    (&ids[row], &texts[row])
}

/// Candidate pairs checked as `priorart dedup --passages` checks them: the
/// passage search's `PairChecker` for its settings and boilerplate hashes.
#[pyclass(module = "priorart._priorart", frozen)]
pub(crate) struct PassageChecker {
    checker: PairChecker,
}

#[pymethods]
impl PassageChecker {
    /// A checker for the settings (the CLI's defaults for those not given)
    /// of a search whose boilerplate hashes (held by more than
    /// `boilerplate` documents) are `boilerplate_hashes`, native-endian
    /// u64s.
    #[new]
    #[pyo3(signature = (boilerplate_hashes, min_words=None, boilerplate=None, min_marks=None, min_coverage=None))]
    fn new(
        py: Python<'_>,
        boilerplate_hashes: &[u8],
        min_words: Option<&Bound<'_, PyAny>>,
        boilerplate: Option<&Bound<'_, PyAny>>,
        min_marks: Option<&Bound<'_, PyAny>>,
        min_coverage: Option<f64>,
    ) -> PyResult<PassageChecker> {
        let settings = settings(py, min_words, boilerplate, min_marks, min_coverage)?;
        if !boilerplate_hashes.len().is_multiple_of(8) {
            return Err(with_reason::<InputError>(
                py,
                "not_u64s",
                format!(
                    "boilerplate_hashes is {} bytes, not a whole number of u64s",
                    boilerplate_hashes.len()
                ),
            ));
        }
        let hashes = boilerplate_hashes
            .chunks_exact(8)
            .map(|bytes| u64::from_ne_bytes(bytes.try_into().expect("chunks of 8")))
            .collect();
        Ok(PassageChecker { checker: PairChecker::new(&settings, hashes) })
    }

    /// The `passages.jsonl` line of each pair `(a_ids[i], b_ids[i])` of
    /// texts `a_texts[i]` and `b_texts[i]` sharing `marks[i]` marks, or
    /// `None` when they share no passage; and how many pairs the aligner
    /// refused (too large or too repetitive; `None` too). A text is cut
    /// and winnowed once per call however many of its pairs are given
    /// (by id).
    #[pyo3(signature = (a_ids, b_ids, marks, a_texts, b_texts, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn check_many(
        &self,
        py: Python<'_>,
        a_ids: Vec<PyBackedStr>,
        b_ids: Vec<PyBackedStr>,
        marks: Vec<u32>,
        a_texts: Vec<PyBackedStr>,
        b_texts: Vec<PyBackedStr>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<(Vec<Option<String>>, usize)> {
        let threads = thread_count(py, threads)?;
        let rows = a_ids.len();
        if [b_ids.len(), marks.len(), a_texts.len(), b_texts.len()].iter().any(|&length| length != rows) {
            return Err(with_reason::<InputError>(
                py,
                "lengths",
                "a_ids, b_ids, marks, a_texts and b_texts must be as long as each other".into(),
            ));
        }
        let checker = &self.checker;
        py.detach(|| {
            on_threads(threads, || {
                // Each text prepared once (by id and text: two documents
                // given one id stay apart).
                let mut distinct: Vec<(&str, &str)> = (0..rows)
                    .flat_map(|row| [key(&a_ids, &a_texts, row), key(&b_ids, &b_texts, row)])
                    .collect();
                distinct.sort_unstable();
                distinct.dedup();
                let prepared: HashMap<(&str, &str), PreparedText> = distinct
                    .into_par_iter()
                    .map(|(id, text)| ((id, text), checker.prepare(text.to_owned())))
                    .collect();
                let pair = |row: usize| {
                    (&prepared[&key(&a_ids, &a_texts, row)], &prepared[&key(&b_ids, &b_texts, row)])
                };
                let checked: Vec<PairCheck> = (0..rows)
                    .into_par_iter()
                    .map(|row| {
                        let (a, b) = pair(row);
                        checker.check(a, b)
                    })
                    .collect();
                let refused = checked.iter().filter(|check| matches!(check, PairCheck::Refused)).count();
                let lines = checked
                    .into_iter()
                    .enumerate()
                    .map(|(row, check)| match check {
                        PairCheck::Passages(passages) => {
                            let (a, b) = pair(row);
                            let ids = [&*a_ids[row], &*b_ids[row]];
                            Some(priorart_dedup::passages::pair_line(
                                ids,
                                marks[row],
                                &passages,
                                a.text(),
                                b.text(),
                            ))
                        }
                        PairCheck::Unrelated | PairCheck::Refused => None,
                    })
                    .collect();
                (lines, refused)
            })
        })
    }
}

/// The `boilerplate.jsonl` lines of the boilerplate passages of documents
/// `ids[i]` of texts `texts[i]`, each the first (by input order) to hold
/// the boilerplate hashes it holds at content words `words[i]` (as
/// `passage_marks` gives them), held by `documents[i]` documents each: for
/// each document its passages' `(byte_offset, line)`. For the Spark job,
/// which finds the boilerplate hashes by counting: the passages are
/// grouped and placed by the passage search's own code.
#[pyfunction]
#[pyo3(signature = (ids, texts, words, documents, min_words=None, threads=None))]
pub(crate) fn boilerplate_lines(
    py: Python<'_>,
    ids: Vec<PyBackedStr>,
    texts: Vec<PyBackedStr>,
    words: Vec<Vec<u32>>,
    documents: Vec<Vec<u32>>,
    min_words: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Vec<(usize, String)>>> {
    let threads = thread_count(py, threads)?;
    let settings = settings(py, min_words, None, None, None)?;
    let rows = ids.len();
    let lengths = [texts.len(), words.len(), documents.len()];
    if lengths.iter().any(|&length| length != rows)
        || words.iter().zip(&documents).any(|(words, documents)| words.len() != documents.len())
    {
        return Err(with_reason::<InputError>(
            py,
            "lengths",
            "ids, texts, words and documents must be as long as each other (and each words[i] as documents[i])"
                .into(),
        ));
    }
    let found: Vec<Option<Vec<(usize, String)>>> = py.detach(|| {
        on_threads(threads, || {
            (0..rows)
                .into_par_iter()
                .map(|row| {
                    let mut marks: Vec<(u32, u32)> =
                        words[row].iter().copied().zip(documents[row].iter().copied()).collect();
                    marks.sort_unstable();
                    let found = boilerplate_in(0, &texts[row], &marks, &settings)?;
                    Some(
                        found
                            .iter()
                            .map(|passage| {
                                (passage.span.byte_offset, boilerplate_line_of(&ids[row], passage))
                            })
                            .collect(),
                    )
                })
                .collect()
        })
    })?;
    found
        .into_iter()
        .enumerate()
        .map(|(row, lines)| {
            lines.ok_or_else(|| {
                with_reason::<InputError>(
                    py,
                    "changed",
                    format!("{}: the text does not hold the marks given for it", &*ids[row]),
                )
            })
        })
        .collect()
}
