//! The passage search of `priorart dedup --passages` for Python: on texts
//! (`dedup_passages_jsonl`, the dedup crate's `PassageCollection`: texts
//! spilled to a temporary file as they stream in, the candidates re-read
//! from it) and in pieces for the Spark job (`passage_marks`: a batch's
//! winnowing marks as the search counts them; `PassageChecker`: each
//! candidate pair checked by the search's own `PairChecker`), so every
//! front end reports the CLI's pairs.

use super::{
    InputError, POLL, Steps, dedup_error, each_batch, in_range, on_threads, thread_count, with_reason,
};
use priorart_dedup::passage_files::PassageFiles;
use priorart_dedup::passages::{
    PairCheck, PairChecker, PassageSettings, PreparedText, boilerplate_in, boilerplate_line,
    boilerplate_line_of,
};
use priorart_dedup::{DedupError, Document, PassageCollection};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

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
    passage_text: bool,
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
        .map(|settings| settings.with_passage_text(passage_text))
        .map_err(|err| dedup_error(py, err))
}

/// What the engine thread ends with once every round is handed over: the
/// `boilerplate.jsonl` text, the candidates aligned, the pairs the
/// aligner refused.
struct Ending {
    boilerplate: String,
    candidates: usize,
    unaligned: usize,
}

/// What the engine thread returns: an error building its worker pool (a
/// `PyErr` made without the GIL), or the search's answer.
type EngineAnswer = PyResult<Result<Ending, DedupError>>;

/// `priorart dedup --passages` of texts, running: the texts were read and
/// winnowed when it was made (`dedup_passages_stream`); the search runs on
/// a thread of its own, which hands each round of pairs (their
/// `passages.jsonl` lines) over a channel holding none (the thread waits
/// until the round is taken), so at most the round being handed out and
/// the next one are held, whatever the number of pairs. Iterating gives
/// the lines in the CLI's order; `write` writes both of the CLI's files
/// instead. Closing it (or dropping it, or Ctrl-C while it waits) stops
/// the search at its next check, waits for the thread and removes the
/// temporary files.
#[pyclass(module = "priorart._priorart")]
pub(crate) struct PassageRounds {
    /// The rounds to come (`None` once the thread ended or was let go). In
    /// a mutex only because a Python object must be `Sync` (a receiver is
    /// not); `&mut self` reaches it without locking.
    rounds: Option<Mutex<Receiver<Vec<String>>>>,
    /// The lines of the round being handed out.
    held: std::vec::IntoIter<String>,
    engine: Option<JoinHandle<EngineAnswer>>,
    stop: Arc<AtomicBool>,
    steps: Arc<Steps>,
    progress: Option<Py<PyAny>>,
    /// Whether a line was asked for or the search closed: `write` must
    /// have every pair.
    started: bool,
    ending: Option<Ending>,
    #[pyo3(get)]
    documents: usize,
    #[pyo3(get)]
    empty: u64,
    #[pyo3(get)]
    unmarked: u64,
}

/// `priorart dedup --passages` of texts, started: the texts read (a batch
/// at a time, winnowed on all cores, spilled to a temporary file) before
/// this returns, then the search on a thread of its own, its pairs handed
/// over by the `PassageRounds` returned.
#[pyfunction]
#[pyo3(signature = (texts, ids=None, min_words=None, boilerplate=None, min_marks=None, min_coverage=None,
                    passage_text=false, working_set=None, threads=None, temp_dir=None, progress=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn dedup_passages_stream(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    ids: Option<&Bound<'_, PyAny>>,
    min_words: Option<&Bound<'_, PyAny>>,
    boilerplate: Option<&Bound<'_, PyAny>>,
    min_marks: Option<&Bound<'_, PyAny>>,
    min_coverage: Option<f64>,
    passage_text: bool,
    working_set: Option<u64>,
    threads: Option<&Bound<'_, PyAny>>,
    temp_dir: Option<PathBuf>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<PassageRounds> {
    let threads = thread_count(py, threads)?;
    let mut settings = settings(py, min_words, boilerplate, min_marks, min_coverage, passage_text)?;
    settings.working_set = working_set;
    settings.temp_dir = temp_dir;
    let mut collection = PassageCollection::new(settings).map_err(|err| dedup_error(py, err))?;
    each_batch(texts, ids, progress.as_ref(), |batch| {
        let documents: Vec<Document<'_>> = batch.iter().map(|(id, text)| Document { id, text }).collect();
        py.detach(|| on_threads(threads, || collection.push(&documents)))?.map_err(|err| dedup_error(py, err))
    })?;
    let (documents, empty, unmarked) = (collection.len(), collection.empty(), collection.unmarked());
    let (stop, steps) = (Arc::new(AtomicBool::new(false)), Arc::new(Steps::default()));
    // No room in the channel: the engine waits for each round to be taken.
    let (sender, rounds) = sync_channel::<Vec<String>>(0);
    let engine = {
        let (stop, steps) = (Arc::clone(&stop), Arc::clone(&steps));
        std::thread::Builder::new()
            .name("priorart-passages".into())
            .spawn(move || {
                let control = priorart_dedup::Control { progress: &*steps, stop: &stop };
                on_threads(threads, || search(collection, control, &sender))
            })
            .map_err(|err| PyOSError::new_err(format!("cannot start the search's thread: {err}")))?
    };
    Ok(PassageRounds {
        rounds: Some(Mutex::new(rounds)),
        held: Vec::new().into_iter(),
        engine: Some(engine),
        stop,
        steps,
        progress: progress.map(Bound::unbind),
        started: false,
        ending: None,
        documents,
        empty,
        unmarked,
    })
}

/// The search, on the engine thread: each round's lines sent (a round with
/// none is not), then the boilerplate. A receiver gone (the search closed)
/// stops it as Ctrl-C does.
fn search(
    collection: PassageCollection,
    control: priorart_dedup::Control<'_>,
    sender: &SyncSender<Vec<String>>,
) -> Result<Ending, DedupError> {
    let (catalog, outcome) = collection.search(control, |round| {
        let lines: Vec<String> = round.into_iter().map(|found| found.line).collect();
        if lines.is_empty() {
            return Ok(());
        }
        sender.send(lines).map_err(|_| DedupError::Interrupted)
    })?;
    let boilerplate = outcome.boilerplate.iter().map(|found| boilerplate_line(&catalog, found)).collect();
    Ok(Ending { boilerplate, candidates: outcome.candidates, unaligned: outcome.unaligned })
}

/// What waiting for the next round gave.
enum Next {
    Round(Vec<String>),
    /// Nothing within [`POLL`]: time to report progress and check for Ctrl-C.
    Waiting,
    /// The engine thread ended (every round sent, or an error).
    Ended,
}

impl PassageRounds {
    /// The next round, waiting at most [`POLL`] with the GIL released.
    fn next_round(&mut self, py: Python<'_>) -> Next {
        let Some(mut rounds) = self.rounds.take() else { return Next::Ended };
        let (rounds, got) = py.detach(move || {
            let got = rounds.get_mut().unwrap_or_else(PoisonError::into_inner).recv_timeout(POLL);
            (rounds, got)
        });
        match got {
            Ok(round) => {
                self.rounds = Some(rounds);
                Next::Round(round)
            }
            Err(RecvTimeoutError::Timeout) => {
                self.rounds = Some(rounds);
                Next::Waiting
            }
            Err(RecvTimeoutError::Disconnected) => Next::Ended,
        }
    }

    /// Ctrl-C checked and progress reported (while waiting, and as each
    /// round comes); either failing
    /// (a `KeyboardInterrupt`, an exception of the callback) stops the
    /// search before it is raised.
    fn poll(&mut self, py: Python<'_>) -> PyResult<()> {
        let checked = py.check_signals().and_then(|()| self.report(py));
        if checked.is_err() {
            self.abandon(py);
        }
        checked
    }

    fn report(&self, py: Python<'_>) -> PyResult<()> {
        match &self.progress {
            Some(progress) => self.steps.report(progress.bind(py)),
            None => Ok(()),
        }
    }

    /// The engine thread's answer, once it ended: its error raised, or
    /// what it found kept and the last progress reported.
    fn finish(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(engine) = self.engine.take() else { return Ok(()) };
        let answer = py.detach(|| engine.join());
        let answer = answer.map_err(|_| PyOSError::new_err("the search's thread panicked"))??;
        self.ending = Some(answer.map_err(|err| dedup_error(py, err))?);
        self.report(py)
    }

    /// Stops the search (at its next check, or at once when it waits to
    /// hand over a round) and waits for its thread, which removes the
    /// temporary files as it ends.
    fn abandon(&mut self, py: Python<'_>) {
        self.started = true;
        self.stop.store(true, Ordering::Relaxed);
        self.rounds = None;
        self.held = Vec::new().into_iter();
        if let Some(engine) = self.engine.take() {
            // Its answer is that it was interrupted.
            let _ = py.detach(|| engine.join());
        }
    }
}

#[pymethods]
impl PassageRounds {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next pair's `passages.jsonl` line (ending in a newline), in the
    /// CLI's order; `None` (`StopIteration`) after the last, once the
    /// boilerplate is found too.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<String>> {
        self.started = true;
        loop {
            if let Some(line) = self.held.next() {
                return Ok(Some(line));
            }
            match self.next_round(py) {
                Next::Round(round) => {
                    self.held = round.into_iter();
                    self.poll(py)?;
                }
                Next::Waiting => self.poll(py)?,
                Next::Ended => {
                    self.rounds = None;
                    self.finish(py)?;
                    return Ok(None);
                }
            }
        }
    }

    /// Writes every pair to `out/passages.jsonl` and the boilerplate to
    /// `out/boilerplate.jsonl`, as `priorart dedup --passages --out OUT`
    /// writes them (the dedup crate's `PassageFiles`: the pairs as they
    /// come to a temporary file in `out` that takes its name once the
    /// search is complete, removed if it stops; then the boilerplate). Returns how many pairs. Only before
    /// any pair is taken.
    fn write(&mut self, py: Python<'_>, out: PathBuf) -> PyResult<u64> {
        if self.started {
            return Err(PyValueError::new_err(
                "write takes every pair: this search has handed some over already, or was closed",
            ));
        }
        self.started = true;
        let mut files = py.detach(|| PassageFiles::create(&out)).map_err(|err| dedup_error(py, err))?;
        let mut pairs = 0u64;
        loop {
            match self.next_round(py) {
                Next::Round(round) => {
                    pairs += round.len() as u64;
                    let written = py.detach(|| round.iter().try_for_each(|line| files.write_line(line)));
                    if let Err(err) = written {
                        self.abandon(py);
                        return Err(dedup_error(py, err));
                    }
                    self.poll(py)?;
                }
                Next::Waiting => self.poll(py)?,
                Next::Ended => break,
            }
        }
        self.rounds = None;
        self.finish(py)?;
        let files = py.detach(|| files.complete()).map_err(|err| dedup_error(py, err))?;
        let ending = self.ending.as_ref().expect("finish keeps the ending");
        // The last moment to stop with nothing written.
        py.check_signals()?;
        py.detach(|| files.place(ending.boilerplate.as_bytes(), &[])).map_err(|err| dedup_error(py, err))?;
        Ok(pairs)
    }

    /// Stops the search if it runs (its thread waited for, its temporary
    /// files removed); the pairs not taken are not found.
    fn close(&mut self, py: Python<'_>) {
        self.abandon(py);
    }

    /// Once every pair was handed over (or written): the `boilerplate.jsonl`
    /// text, the candidates aligned and the pairs the aligner refused;
    /// `None` before, or when the search was closed first.
    fn ending(&self) -> Option<(String, usize, usize)> {
        self.ending.as_ref().map(|ending| (ending.boilerplate.clone(), ending.candidates, ending.unaligned))
    }
}

impl Drop for PassageRounds {
    /// A search let go of while it runs is stopped and its thread waited
    /// for (which needs no GIL), so that its temporary files go with it.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.rounds = None;
        if let Some(engine) = self.engine.take() {
            let _ = engine.join();
        }
    }
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
    /// u64s; its lines carry the passages' texts when `passage_text`.
    #[new]
    #[pyo3(signature = (boilerplate_hashes, min_words=None, boilerplate=None, min_marks=None, min_coverage=None,
                        passage_text=false))]
    fn new(
        py: Python<'_>,
        boilerplate_hashes: &[u8],
        min_words: Option<&Bound<'_, PyAny>>,
        boilerplate: Option<&Bound<'_, PyAny>>,
        min_marks: Option<&Bound<'_, PyAny>>,
        min_coverage: Option<f64>,
        passage_text: bool,
    ) -> PyResult<PassageChecker> {
        let settings = settings(py, min_words, boilerplate, min_marks, min_coverage, passage_text)?;
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
                            Some(checker.line(ids, marks[row], &passages, [a, b]))
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
    let settings = settings(py, min_words, None, None, None, false)?;
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
