//! `priorart._priorart`: the Python extension module of priorart. Every
//! answer comes from the workspace's crates (fingerprint, extract, index,
//! ots, ots-net, nip); this file only converts arguments, results and
//! errors, and releases the GIL around the work. The `priorart` package
//! (`python/priorart/`) wraps it with docstrings, dicts and iterators.

use priorart_align::Winnowing;
use priorart_align::report::Named;
use priorart_dedup::{Candidates, DedupError, Document as DedupDocument, Settings, TextCollection};
use priorart_extract::{ArchiveRecords, ExtractError, Format, Limits};
use priorart_fingerprint::{Fingerprint, Fingerprinter, Scheme, Shingling, SimhashDoc, TokenRule};
use priorart_index::{Answer, Entry, Layout, MarkSpool, Match, MemoryIndex, Query, SKETCH_WIDTH, TableKeys};
use priorart_nip::check::{DEFAULT_MIN_JACCARD, NearQuery, UncheckedAnswer};
use priorart_nip::fuzzy_tags::FUZZY_DISTANCE;
use priorart_ots::{DetachedTimestamp, HeaderSource, Network, VerifyReport as OtsVerifyReport};
use priorart_ots_net::{DEFAULT_HEADER_TIMEOUT, HeaderConfig, HeaderConfigError};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

mod passages;

// Their module is `priorart` (which exports them), not `_priorart`: pickle
// finds a class again by module and name, and `_priorart` alone is not
// importable, so a worker process's error could not reach its parent.
create_exception!(priorart, InputError, PyValueError, "Bad input; `reason` names the typed reason.");
create_exception!(
    priorart,
    ExtractionError,
    InputError,
    "A document could not be read (`reason`: the extractor's)."
);
create_exception!(priorart, ProofError, InputError, "An OpenTimestamps proof could not be decoded.");

/// An exception of type `E` with `reason` set on it.
fn with_reason<E: pyo3::PyTypeInfo>(py: Python<'_>, reason: &str, message: String) -> PyErr {
    let err = PyErr::new::<E, _>(message);
    // Setting an attribute on a fresh exception instance cannot fail.
    let _ = err.value(py).setattr("reason", reason);
    err
}

fn extract_error(py: Python<'_>, err: &ExtractError) -> PyErr {
    with_reason::<ExtractionError>(py, err.reason(), in_python_terms(err.to_string()))
}

/// A message of a crate the CLI shares, with the CLI's flags it names put
/// in this package's terms: a Python user has no `--layout` to pass.
fn in_python_terms(message: String) -> String {
    const LAYOUT: &str = "--layout k=";
    let mut message =
        message.replace("`priorart extract --json` lists them", "priorart.web_archive_records lists them");
    if let Some(start) = message.find(LAYOUT) {
        let digits = message[start + LAYOUT.len()..].chars().take_while(char::is_ascii_digit).count();
        let k = message[start + LAYOUT.len()..][..digits].to_owned();
        message.replace_range(start..start + LAYOUT.len() + digits, &format!("layout=\"k={k}\""));
    }
    message
}

fn file_error(py: Python<'_>, err: priorart_files::FileError) -> PyErr {
    match err {
        priorart_files::FileError::TooLarge { .. } => {
            with_reason::<ExtractionError>(py, err.reason(), err.to_string())
        }
        priorart_files::FileError::Io { path, source, action } => {
            os_error(py, &source, &path, &format!("cannot {action}"))
        }
        other => PyOSError::new_err(other.to_string()),
    }
}

/// An `OSError` as Python raises one: `errno`, `strerror` and `filename`
/// set (so its subclass, `FileNotFoundError` and the like), the action in
/// the message when the operating system gave no error number.
fn os_error(py: Python<'_>, err: &std::io::Error, path: &Path, action: &str) -> PyErr {
    let filename = path.display().to_string();
    match err.raw_os_error() {
        Some(code) => {
            let strerror = py
                .import("os")
                .and_then(|os| os.getattr("strerror")?.call1((code,))?.extract::<String>())
                .unwrap_or_else(|_| err.to_string());
            PyOSError::new_err((code, format!("{action}: {strerror}"), filename))
        }
        None => PyOSError::new_err((format!("{filename}: {action}: {err}"),)),
    }
}

fn scheme(py: Python<'_>, name: &str) -> PyResult<Scheme> {
    name.parse().map_err(|err: priorart_fingerprint::UnknownScheme| {
        with_reason::<InputError>(py, err.reason(), err.to_string())
    })
}

/// The token rule of the simhash-doc scheme named `name` (`simhash-doc-v2`
/// or `simhash-doc`); an equality scheme is refused, naming the argument.
fn simhash_rule(py: Python<'_>, name: &str) -> PyResult<TokenRule> {
    let scheme = self::scheme(py, name)?;
    scheme.token_rule().ok_or_else(|| {
        with_reason::<InputError>(
            py,
            "not_a_simhash_doc_scheme",
            format!(
                "scheme={name:?} is not a simhash-doc scheme: expected {} or {}",
                Scheme::SimhashDocV2,
                Scheme::SimhashDoc
            ),
        )
    })
}

fn simhash_value(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<SimhashDoc> {
    if let Ok(number) = value.extract::<u64>() {
        return Ok(SimhashDoc(number));
    }
    let text: PyBackedStr = value.extract().map_err(|_| {
        with_reason::<InputError>(
            py,
            "invalid_simhash_doc",
            "a simhash-doc is an int in 0..2**64 or its base32hex or hex text".into(),
        )
    })?;
    text.parse().map_err(|err: priorart_fingerprint::InvalidSimhashDoc| {
        with_reason::<InputError>(py, err.reason(), err.to_string())
    })
}

/// Text bytes converted per batch: enough to keep every core busy, small
/// enough that the batch's texts (held as Python strings while the GIL is
/// released) do not grow with the input.
const BATCH_BYTES: usize = 16 << 20;
/// Texts per batch at most (many short texts).
const BATCH_TEXTS: usize = 16_384;

/// `work` on the texts of any iterable, a batch at a time with the GIL
/// released (on `threads` cores), its answers in order: the texts are
/// never all held at once, so an iterator of any length streams. After
/// each batch, `progress(phase, rows so far, 0)` when given.
fn in_batches<T: Send>(
    texts: &Bound<'_, PyAny>,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
    phase: &str,
    work: impl Fn(&[PyBackedStr]) -> Vec<T> + Sync,
) -> PyResult<Vec<T>> {
    let py = texts.py();
    refuse_one_text(py, "texts", texts)?;
    let mut answers = Vec::new();
    let mut batch: Vec<PyBackedStr> = Vec::new();
    let (mut batch_bytes, mut rows) = (0, 0u64);
    let mut flush = |batch: &mut Vec<PyBackedStr>, rows: u64| -> PyResult<()> {
        answers.extend(py.detach(|| on_threads(threads, || work(batch)))?);
        batch.clear();
        // Iterating a list runs no Python code: Ctrl-C is seen here.
        py.check_signals()?;
        if let Some(progress) = progress {
            progress.call1((phase, rows, 0u64))?;
        }
        Ok(())
    };
    for item in texts.try_iter()? {
        let text = row_text(rows, &item?)?;
        rows += 1;
        batch_bytes += text.len();
        batch.push(text);
        if batch_bytes >= BATCH_BYTES || batch.len() >= BATCH_TEXTS {
            flush(&mut batch, rows)?;
            batch_bytes = 0;
        }
    }
    if !batch.is_empty() || rows == 0 {
        flush(&mut batch, rows)?;
    }
    Ok(answers)
}

/// A `str` (or `bytes`) where a collection belongs is refused: iterating it
/// would take each character for a text.
fn refuse_one_text(py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
    if value.is_instance_of::<pyo3::types::PyString>() || value.is_instance_of::<PyBytes>() {
        return Err(with_reason::<InputError>(
            py,
            "not_a_collection",
            format!("{name} is one text: pass a list (or any iterable) of texts"),
        ));
    }
    Ok(())
}

/// An integer argument checked against its range: a negative or too large
/// value (of any size) is an [`InputError`] (reason `out_of_range`) naming
/// the argument, not the `OverflowError` of a conversion to an unsigned type.
fn in_range(py: Python<'_>, name: &str, value: &Bound<'_, PyAny>, min: u32, max: u32) -> PyResult<u32> {
    let number = match value.extract::<i64>() {
        Ok(number) => Some(number),
        Err(err) if err.is_instance_of::<PyOverflowError>(py) => None,
        Err(err) => return Err(err),
    };
    match number.and_then(|n| u32::try_from(n).ok()).filter(|n| (min..=max).contains(n)) {
        Some(number) => Ok(number),
        None => Err(with_reason::<InputError>(
            py,
            "out_of_range",
            format!("{name}={value}: expected {min} to {max}"),
        )),
    }
}

/// The largest `k` a lookup serves (index queries, near pairs, dedup
/// candidates): the largest distance a table layout finds every pair
/// within, the fingerprint crate's own bound.
const MAX_DISTANCE: u32 = priorart_fingerprint::layout::MAX_DISTANCE;
/// The most worker threads a call may ask for.
const MAX_THREADS: u32 = 1 << 16;

/// A `k` argument: a Hamming distance, 0 to [`MAX_DISTANCE`] (3 when not given).
fn distance(py: Python<'_>, k: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
    k.map_or(Ok(3), |k| in_range(py, "k", k, 0, MAX_DISTANCE))
}

/// A `threads` argument: `None` for all cores, else 1 to 65536.
fn thread_count(py: Python<'_>, threads: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
    threads.map(|n| in_range(py, "threads", n, 1, MAX_THREADS).map(|n| n as usize)).transpose()
}

/// Runs `work` on a pool of `threads` workers (all cores when `None`).
fn on_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    match threads {
        None => Ok(work()),
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|err| PyOSError::new_err(format!("cannot start worker threads: {err}")))?;
            Ok(pool.install(work))
        }
    }
}

/// The fingerprint of `text` under `scheme`, in its wire form.
#[pyfunction]
#[pyo3(signature = (text, scheme="minhash-equality-v1"))]
fn fingerprint(py: Python<'_>, text: PyBackedStr, scheme: &str) -> PyResult<String> {
    let scheme = self::scheme(py, scheme)?;
    Ok(py.detach(|| Fingerprinter::new().fingerprint(&text, &[scheme])[0].to_string()))
}

/// The explanation of `text` under `scheme` as the JSON text of
/// `priorart fingerprint --explain --json` (without `file` and `input`).
#[pyfunction]
#[pyo3(signature = (text, scheme="minhash-equality-v1"))]
fn explain_json(py: Python<'_>, text: PyBackedStr, scheme: &str) -> PyResult<String> {
    let scheme = self::scheme(py, scheme)?;
    Ok(py.detach(|| match priorart_fingerprint::explain(&text, scheme) {
        // Serialized as such (not through a `Value`, whose members this
        // build would sort): the CLI's member order.
        Some(explanation) => serde_json::to_string(&explanation).expect("an explanation serializes"),
        None => {
            let rule =
                scheme.token_rule().expect("every scheme without an equality explanation is a simhash-doc");
            serde_json::to_string(&priorart_fingerprint::explain_simhash_doc(&text, rule))
                .expect("an explanation serializes")
        }
    }))
}

/// The simhash-doc value of `text` under `scheme` (`simhash-doc-v2` or
/// `simhash-doc`) as an unsigned 64-bit int.
#[pyfunction]
#[pyo3(signature = (text, scheme="simhash-doc-v2"))]
fn simhash_doc(py: Python<'_>, text: PyBackedStr, scheme: &str) -> PyResult<u64> {
    let rule = simhash_rule(py, scheme)?;
    Ok(py.detach(|| Fingerprinter::new().simhash_doc(&text, rule).0))
}

/// The 13-character base32hex form of a `simhash-doc` value.
#[pyfunction]
fn simhash_doc_text(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(simhash_value(py, value)?.to_string())
}

/// A `simhash-doc` value from an int or its base32hex or hex text.
#[pyfunction]
fn simhash_doc_value(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(simhash_value(py, value)?.0)
}

/// Differing bits of two `simhash-doc` values (ints or text).
#[pyfunction]
fn hamming(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(simhash_value(py, a)?.distance(simhash_value(py, b)?))
}

/// `1 - hamming(a, b) / 64`.
#[pyfunction]
fn similarity(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
    Ok(simhash_value(py, a)?.similarity(simhash_value(py, b)?))
}

/// Fingerprints of many texts on all cores: one list per scheme, in the
/// order of `texts`.
#[pyfunction]
#[pyo3(signature = (texts, schemes, threads=None, progress=None))]
fn fingerprint_many(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    schemes: Vec<String>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Vec<String>>> {
    let threads = thread_count(py, threads)?;
    let schemes: Vec<Scheme> = schemes.iter().map(|name| scheme(py, name)).collect::<PyResult<_>>()?;
    let rows: Vec<Vec<Fingerprint>> = in_batches(texts, threads, progress, "fingerprinting", |batch| {
        batch
            .par_iter()
            .map_init(Fingerprinter::new, |fingerprinter, text| fingerprinter.fingerprint(text, &schemes))
            .collect()
    })?;
    Ok((0..schemes.len()).map(|column| rows.iter().map(|row| row[column].to_string()).collect()).collect())
}

/// Simhash-doc values (of `scheme`) of many texts on all cores.
fn simhash_docs(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
    scheme: &str,
) -> PyResult<Vec<u64>> {
    let rule = simhash_rule(py, scheme)?;
    let threads = thread_count(py, threads)?;
    in_batches(texts, threads, progress, "fingerprinting", |batch| {
        batch.par_iter().map_init(Fingerprinter::new, |f, text| f.simhash_doc(text, rule).0).collect()
    })
}

/// Simhash-doc values (of `scheme`) of many texts on all cores, as a list
/// of ints.
#[pyfunction]
#[pyo3(signature = (texts, threads=None, progress=None, scheme="simhash-doc-v2"))]
fn simhash_doc_many(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
    scheme: &str,
) -> PyResult<Vec<u64>> {
    simhash_docs(py, texts, threads, progress, scheme)
}

/// Simhash-doc values (of `scheme`) of many texts on all cores, as
/// native-endian 8-byte integers (numpy reads them without a copy).
#[pyfunction]
#[pyo3(signature = (texts, threads=None, progress=None, scheme="simhash-doc-v2"))]
fn simhash_doc_many_bytes<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
    scheme: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let values = simhash_docs(py, texts, threads, progress, scheme)?;
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    Ok(PyBytes::new(py, &bytes))
}

fn layout(py: Python<'_>, name: &str) -> PyResult<Layout> {
    Layout::parse(name).map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))
}

/// `values` as native-endian 8-byte integers (what numpy's `tobytes`
/// gives for a `uint64` array).
fn native_u64s(values: &[u8]) -> PyResult<Vec<u64>> {
    if !values.len().is_multiple_of(8) {
        return Err(PyValueError::new_err("values must be whole 8-byte integers"));
    }
    Ok(values.chunks_exact(8).map(|chunk| u64::from_ne_bytes(chunk.try_into().expect("8 bytes"))).collect())
}

/// The keys of `value` in each table of `layout` (the index crate's).
#[pyfunction]
#[pyo3(signature = (value, layout="manku-16x28"))]
fn table_keys(py: Python<'_>, value: &Bound<'_, PyAny>, layout: &str) -> PyResult<Vec<u64>> {
    let value = simhash_value(py, value)?;
    Ok(TableKeys::new(&self::layout(py, layout)?).keys(value.0).collect())
}

/// The table keys of many values (native-endian 8-byte integers): the
/// keys of the first value in table order, then the second's, and so on.
#[pyfunction]
#[pyo3(signature = (values, layout="manku-16x28"))]
fn table_keys_many_bytes<'py>(py: Python<'py>, values: &[u8], layout: &str) -> PyResult<Bound<'py, PyBytes>> {
    let values = native_u64s(values)?;
    let keys = TableKeys::new(&self::layout(py, layout)?);
    let out: Vec<u8> = py.detach(|| {
        values
            .iter()
            .flat_map(|&value| keys.keys(value).collect::<Vec<_>>())
            .flat_map(u64::to_ne_bytes)
            .collect()
    });
    Ok(PyBytes::new(py, &out))
}

/// Every pair of `values` (native-endian 8-byte integers) within Hamming
/// distance `k`, each once, sorted: `(a, b, distance)` triples as
/// native-endian 4-byte integers, `a < b` by position (the index crate's
/// self-join of the layout's tables, on all cores or `threads`).
#[pyfunction]
#[pyo3(signature = (values, k=None, layout=None, threads=None))]
fn near_pairs_bytes<'py>(
    py: Python<'py>,
    values: &[u8],
    k: Option<&Bound<'py, PyAny>>,
    layout: Option<&str>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let k = distance(py, k)?;
    let threads = thread_count(py, threads)?;
    let values = native_u64s(values)?;
    if values.len() >= u32::MAX as usize {
        return Err(with_reason::<InputError>(py, "too_large", "at most 2^32 - 2 values".into()));
    }
    let layout = match layout {
        Some(name) => self::layout(py, name)?,
        None => Layout::for_distance(k)
            .map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))?,
    };
    let pairs = py
        .detach(|| on_threads(threads, || priorart_index::all_pairs(&values, &layout, k)))?
        .map_err(|err| with_reason::<InputError>(py, err.reason(), in_python_terms(err.to_string())))?;
    let out: Vec<u8> =
        pairs.iter().flat_map(|pair| [pair.a, pair.b, pair.distance]).flat_map(u32::to_ne_bytes).collect();
    Ok(PyBytes::new(py, &out))
}

/// Tables and guaranteed distance of a layout.
#[pyfunction]
#[pyo3(signature = (layout="manku-16x28"))]
fn layout_shape(py: Python<'_>, layout: &str) -> PyResult<(usize, u32, Vec<u32>)> {
    let layout = self::layout(py, layout)?;
    // u32, not the table's u8: pyo3 turns a Vec<u8> into `bytes`.
    let key_bits = layout.tables.iter().map(|table| u32::from(table.key_bits)).collect();
    Ok((layout.tables.len(), layout.max_distance, key_bits))
}

fn index_error(py: Python<'_>, err: priorart_index::IndexError) -> PyErr {
    use priorart_index::IndexError;
    match err {
        IndexError::File(err) => file_error(py, err),
        IndexError::Directory { path, action, source } => os_error(py, &source, &path, action),
        other => with_reason::<InputError>(py, other.reason(), in_python_terms(other.to_string())),
    }
}

/// A text (`str`) or a simhash-doc value (`int`), as `Index` takes them.
enum Document {
    Text(PyBackedStr),
    Value(u64),
}

impl Document {
    fn of(py: Python<'_>, item: &Bound<'_, PyAny>) -> PyResult<Document> {
        if let Ok(text) = item.extract::<PyBackedStr>() {
            return Ok(Document::Text(text));
        }
        item.extract::<u64>().map(Document::Value).map_err(|_| {
            let message = "expected a text (str) or a simhash-doc value (int in 0..2**64)";
            with_reason::<InputError>(py, "invalid_simhash_doc", message.into())
        })
    }
}

/// One document found by a query: `(id, simhash, distance, jaccard_estimate, same_x)`.
type IndexHit = (String, u64, u32, Option<f64>, bool);

/// A near-duplicate index over the index crate: documents inserted in
/// memory (a [`MemoryIndex`]), plus the index directory it was opened from
/// or last saved to (the directory format of `priorart index`).
///
/// Safe to share between threads: the state is behind a mutex, taken only
/// with the GIL released (a thread waiting for it never holds the GIL a
/// thread inside needs), so inserts and queries from several threads run
/// one at a time instead of failing with pyo3's "Already borrowed".
#[pyclass(frozen, module = "priorart")]
struct Index {
    state: Mutex<IndexState>,
}

struct IndexState {
    /// The index on disk, and its ids (an id is never inserted twice).
    saved: Option<(PathBuf, priorart_index::Index)>,
    saved_ids: HashSet<String>,
    /// Documents inserted since.
    pending: MemoryIndex,
    /// How texts inserted are winnowed for their passage marks, as `priorart
    /// index build` keeps them ([`priorart_index::Index::passage_winnowing`]);
    /// `None`: no marks (`marks=False`, or an index opened without them).
    winnowing: Option<Winnowing>,
    /// The passage marks of each document of `pending`, in its order (none
    /// for a simhash-doc value, or a text the winnowing refuses), spooled
    /// to disk as texts are inserted (`priorart index build`'s
    /// [`MarkSpool`], in the temporary directory: an index opened may be
    /// read-only), so that memory does not grow with the texts; kept whole
    /// when a save fails. `None` without `winnowing`, and until the first
    /// insert after a save.
    pending_marks: Option<MarkSpool>,
}

impl Index {
    /// `work` on the state, with the GIL released while waiting and working.
    fn with_state<T: Send>(&self, py: Python<'_>, work: impl FnOnce(&mut IndexState) -> T + Send) -> T {
        py.detach(|| {
            // A panic inside cannot leave the state half-changed in a way
            // later calls trip over (each method changes it last), so a
            // poisoned lock is taken as it is.
            let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            work(&mut state)
        })
    }

    fn new_state(state: IndexState) -> Index {
        Index { state: Mutex::new(state) }
    }
}

#[pymethods]
impl Index {
    /// `shingles`: how texts are cut into words for the sketches' word
    /// 5-grams, "words" (lowercased `\w+` runs) or "tokens" (simhash-doc-v2's
    /// tokens), or "words-v1" or "tokens-v1" (as indexes built before
    /// simhash-doc-v2, whose simhash-doc values are v1); an index opened
    /// keeps its own.
    /// `marks`: keep each text's passage marks (what `query_passages` and
    /// `priorart index query --passages` search), as `priorart index build`
    /// does unless `--no-marks`.
    #[new]
    #[pyo3(signature = (layout="manku-16x28", shingles="words", marks=true))]
    fn new(py: Python<'_>, layout: &str, shingles: &str, marks: bool) -> PyResult<Self> {
        let shingling = shingles
            .parse::<Shingling>()
            .map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))?;
        Ok(Index::new_state(IndexState {
            saved: None,
            saved_ids: HashSet::new(),
            pending: MemoryIndex::new(self::layout(py, layout)?, shingling),
            winnowing: marks.then(priorart_index::Index::passage_winnowing),
            pending_marks: None,
        }))
    }

    /// Opens the index directory `path` (as `priorart index build` writes it).
    #[staticmethod]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let index = py.detach(|| priorart_index::Index::open(&path)).map_err(|err| index_error(py, err))?;
        let saved_ids = index.entries().into_iter().map(|entry| entry.id).collect();
        let pending = MemoryIndex::like(&index);
        // Documents added to an index with marks get theirs (`priorart index add`).
        let winnowing = index.marks_winnowing().cloned();
        Ok(Index::new_state(IndexState {
            saved: Some((path, index)),
            saved_ids,
            pending,
            winnowing,
            pending_marks: None,
        }))
    }

    /// Adds a document: a text, or a simhash-doc value (an int).
    fn insert(&self, py: Python<'_>, id: String, item: &Bound<'_, PyAny>) -> PyResult<()> {
        let document = Document::of(py, item)?;
        self.with_state(py, |state| {
            if state.saved_ids.contains(&id) || state.pending.contains(&id) {
                return Err(priorart_index::IndexError::DuplicateIds { ids: vec![id] });
            }
            let (entry, marks) = match document {
                Document::Text(text) => {
                    // A text the winnowing refuses (over the aligner's size
                    // limit) is indexed without marks, as the CLI indexes it.
                    let marks = state.winnowing.as_ref().and_then(|winnowing| winnowing.marks(&text).ok());
                    let entry =
                        Entry::of_text(id, &text, state.pending.shingling(), &mut Fingerprinter::new());
                    (entry, marks.unwrap_or_default())
                }
                // No text, so no sketch (a match with it is found by
                // distance alone) and no marks.
                Document::Value(simhash) => (Entry { id, simhash, x: None, sketch: None }, Vec::new()),
            };
            if state.winnowing.is_some() {
                state.spool(&marks)?;
            }
            // Its id was checked: nothing refuses it after its marks are spooled.
            state.pending.insert(entry)
        })
        .map_err(|err| index_error(py, err))
    }

    /// Documents within Hamming distance `k` of a text or value, and for a
    /// text those with the same `X`.
    #[pyo3(signature = (item, k=None))]
    fn query(
        &self,
        py: Python<'_>,
        item: &Bound<'_, PyAny>,
        k: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Vec<IndexHit>> {
        let k = distance(py, k)?;
        let document = Document::of(py, item)?;
        let found = self.with_state(py, |state| {
            let query = match document {
                Document::Text(text) => {
                    Query::of_text(&text, state.pending.shingling(), &mut Fingerprinter::new())
                }
                Document::Value(simhash) => Query::of_simhash(simhash),
            };
            let mut answers = vec![state.pending.query(&query, k)?];
            if let Some((_, index)) = &state.saved {
                answers.push(index.query(&query, k)?);
            }
            Ok(hits(&query, answers))
        });
        found.map_err(|err| index_error(py, err))
    }

    /// The documents of the index directory this was opened from that
    /// share passages with `text`, as the JSON text `priorart index query
    /// --passages --json` prints (its `query` is `name`). Only an index
    /// built by `priorart index build` holds passage marks: documents
    /// inserted here have none (`no_marks` when nothing searched has any).
    #[pyo3(signature = (text, name="text"))]
    fn query_passages_json(&self, py: Python<'_>, text: PyBackedStr, name: &str) -> PyResult<String> {
        let found = self.with_state(py, |state| match &state.saved {
            Some((_, index)) => {
                index.query_passages(&text, &priorart_index::PassageSearch::default()).map(|answer| {
                    serde_json::to_string(&answer.json(name, &text)).expect("an answer serializes")
                })
            }
            None => Err(priorart_index::IndexError::NoMarks(PathBuf::from("an index in memory"))),
        });
        found.map_err(|err| index_error(py, err))
    }

    /// Writes the index to the directory `path`: appends what was inserted
    /// as a new segment when `path` is where the index was opened from or
    /// last saved to, else writes a whole new index there (replacing what
    /// `path` held once the new one is complete). On an error nothing is
    /// lost: the inserted documents stay pending.
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        self.with_state(py, |state| state.save(path)).map_err(|err| index_error(py, err))
    }

    /// The layout's name.
    #[getter]
    fn layout(&self, py: Python<'_>) -> String {
        self.with_state(py, |state| state.pending.layout().name.clone())
    }

    /// The shingling's name ("words", "tokens", "words-v1", "tokens-v1").
    #[getter]
    fn shingles(&self, py: Python<'_>) -> String {
        self.with_state(py, |state| state.pending.shingling().name().to_owned())
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.with_state(py, |state| state.saved_ids.len() + state.pending.len())
    }

    fn __contains__(&self, py: Python<'_>, id: &str) -> bool {
        self.with_state(py, |state| state.saved_ids.contains(id) || state.pending.contains(id))
    }
}

impl IndexState {
    /// Appends a segment of the pending documents (with their marks when
    /// the index has marks), or builds a new index: with marks when every
    /// document's are known (all were inserted here, `marks=True`); an
    /// index opened and saved elsewhere has none (the index crate gives no
    /// way to copy its documents' marks), so that `query_passages` says so
    /// (`no_marks`) instead of missing its documents.
    fn save(&mut self, path: PathBuf) -> Result<(), priorart_index::IndexError> {
        let pending = &self.pending;
        let marked = self.winnowing.is_some();
        match &mut self.saved {
            Some((dir, index)) if same_dir(dir, &path) => match &mut self.pending_marks {
                _ if pending.is_empty() => {}
                Some(marks) if index.has_marks() => index.add_spooled(pending.entries(), marks)?,
                _ => index.add(pending.entries())?,
            },
            saved => {
                let (layout, shingling) = (pending.layout().clone(), pending.shingling());
                let index = match (saved.as_ref(), marked) {
                    (None, true) => {
                        let marks = match &mut self.pending_marks {
                            Some(marks) => marks,
                            // Nothing inserted: an empty index with marks.
                            none => none.insert(MarkSpool::new(&std::env::temp_dir())?),
                        };
                        priorart_index::Index::build_spooled(
                            &path,
                            layout,
                            SKETCH_WIDTH,
                            shingling,
                            pending.entries(),
                            marks,
                        )?
                    }
                    (previous, _) => {
                        let previous = previous.map(|(_, index)| index);
                        let mut entries = previous.map(priorart_index::Index::entries).unwrap_or_default();
                        entries.extend_from_slice(pending.entries());
                        priorart_index::Index::build(&path, layout, SKETCH_WIDTH, shingling, &entries)?
                    }
                };
                self.winnowing = index.marks_winnowing().cloned();
                *saved = Some((path, index));
            }
        }
        self.saved_ids.extend(self.pending.entries().iter().map(|entry| entry.id.clone()));
        self.pending = MemoryIndex::new(self.pending.layout().clone(), self.pending.shingling());
        self.pending_marks = None;
        Ok(())
    }

    /// Adds the next document's marks to the spool (made at the first
    /// insert after a save). A document whose marks could not all be
    /// written is left out of it again, as it is left out of `pending`.
    fn spool(&mut self, marks: &[priorart_align::Mark]) -> Result<(), priorart_index::IndexError> {
        let spool = match &mut self.pending_marks {
            Some(spool) => spool,
            none => none.insert(MarkSpool::new(&std::env::temp_dir())?),
        };
        let document = spool.len();
        spool.push(marks).map_err(|err| {
            if spool.len() > document {
                spool.retain(|n| n != document);
            }
            err.into()
        })
    }
}

/// Whether two paths name one directory.
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The answers of the documents in memory and on disk as one list: the
/// near ones ranked as the index crate ranks them (highest Jaccard estimate
/// first, then nearest, then by id), then those found by their `X` alone,
/// with their real distance.
fn hits(query: &Query, answers: Vec<Answer>) -> Vec<IndexHit> {
    let (mut near, mut same_x) = (Vec::new(), Vec::new());
    for answer in answers {
        near.extend(answer.near);
        same_x.extend(answer.same_x);
    }
    near.sort_by(|a, b| {
        let (ja, jb) = (a.jaccard_estimate.unwrap_or(0.0), b.jaccard_estimate.unwrap_or(0.0));
        jb.total_cmp(&ja).then(a.distance.cmp(&b.distance)).then_with(|| a.id.cmp(&b.id))
    });
    let has_x = |id: &str| same_x.iter().any(|m: &Match| m.id == id);
    let mut hits: Vec<IndexHit> = near
        .iter()
        .map(|m| (m.id.clone(), m.simhash, m.distance, m.jaccard_estimate, has_x(&m.id)))
        .collect();
    let distance = |m: &Match| query.simhash.map_or(m.distance, |simhash| (simhash ^ m.simhash).count_ones());
    hits.extend(
        same_x
            .iter()
            .filter(|m| !near.iter().any(|n| n.id == m.id))
            .map(|m| (m.id.clone(), m.simhash, distance(m), None, true)),
    );
    hits
}

fn format_of(py: Python<'_>, format: Option<&str>) -> PyResult<Option<Format>> {
    format
        .map(|name| {
            name.parse::<Format>().map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))
        })
        .transpose()
}

/// The text of one document as every priorart command fingerprints it.
#[pyfunction]
#[pyo3(signature = (data, format=None))]
fn extract(py: Python<'_>, data: &[u8], format: Option<&str>) -> PyResult<String> {
    let format = format_of(py, format)?;
    py.detach(|| priorart_extract::document_text(data, format, &Limits::default()))
        .map(|document| document.text)
        .map_err(|err| extract_error(py, &err))
}

/// The format `data` is read as (`html`, `pdf`, ...): `format` when given
/// (checked, aliases resolved), else the one detected from the content.
#[pyfunction]
#[pyo3(signature = (data, format=None))]
fn detect_format(py: Python<'_>, data: &[u8], format: Option<&str>) -> PyResult<&'static str> {
    Ok(format_of(py, format)?.unwrap_or_else(|| priorart_extract::detect(data)).name())
}

/// One web-archive record: `(uri, record_id, offset, text, error_reason, error)`.
type Record = (Option<String>, Option<String>, Option<u64>, Option<String>, Option<String>, Option<String>);

/// A file's bytes through a read-only memory map (an empty file maps
/// nothing), so that an archive of any size is read page by page.
enum FileBytes {
    Mapped(memmap2::Mmap),
    Empty,
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(map) => map,
            FileBytes::Empty => &[],
        }
    }
}

impl FileBytes {
    fn open(path: &Path) -> std::io::Result<FileBytes> {
        let file = std::fs::File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(FileBytes::Empty);
        }
        // SAFETY: the map is read-only and only ever read as bytes, which
        // any content is valid as. The one hazard of a map, another process
        // truncating the file while it is read (the lost pages fault), is
        // the caller's to avoid, as the documentation of
        // `web_archive_records` says; appending, what a crawler does, is safe.
        let map = unsafe { memmap2::Mmap::map(&file) }?;
        Ok(FileBytes::Mapped(map))
    }
}

/// The records of a WARC or ARC file, read one at a time as Python
/// iterates (what is held at once: one record, or one gzip member).
#[pyclass(module = "priorart")]
struct WebArchiveReader {
    records: ArchiveRecords<FileBytes>,
}

#[pymethods]
impl WebArchiveReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(mut slf: PyRefMut<'_, Self>) -> Option<Record> {
        let py = slf.py();
        let records = &mut slf.records;
        Some(match py.detach(|| records.next())? {
            Ok(d) => (d.uri, d.record_id, d.offset, Some(d.text), None, None),
            Err(e) => {
                let reason = e.error.reason().to_owned();
                (e.uri, e.record_id, Some(e.offset), None, Some(reason), Some(e.error.to_string()))
            }
        })
    }
}

/// Every record of a WARC or ARC file (gzipped or not) under the CLI's
/// per-record limits, in file order, read lazily: documents with their
/// text, bad records with their reason and message.
#[pyfunction]
fn web_archive_records(py: Python<'_>, path: PathBuf) -> PyResult<WebArchiveReader> {
    let bytes = FileBytes::open(&path).map_err(|err| os_error(py, &err, &path, "cannot read"))?;
    let format = priorart_extract::detect(bytes.as_ref());
    let records = priorart_extract::archive_records(bytes, format, &Limits::default()).map_err(|err| {
        let message = format!("{}: {err}", path.display());
        with_reason::<ExtractionError>(py, err.reason(), message)
    })?;
    Ok(WebArchiveReader { records })
}

/// Where block headers come from, as the CLI's header options say: the
/// `ots-net` crate's [`HeaderConfig`], which checks and builds it.
#[pyclass(frozen, from_py_object, module = "priorart")]
#[derive(Clone)]
struct HeaderSourceOptions {
    config: HeaderConfig,
}

#[pymethods]
impl HeaderSourceOptions {
    #[new]
    #[pyo3(signature = (*, esplora=None, bitcoin_rpc=None, rpc_cookie=None, rpc_user=None, rpc_password=None,
                        rpc_password_file=None, header_cache=None, no_header_cache=false, network="mainnet",
                        timeout=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        esplora: Option<String>,
        bitcoin_rpc: Option<String>,
        rpc_cookie: Option<PathBuf>,
        rpc_user: Option<String>,
        rpc_password: Option<String>,
        rpc_password_file: Option<PathBuf>,
        header_cache: Option<PathBuf>,
        no_header_cache: bool,
        network: &str,
        timeout: Option<f64>,
    ) -> PyResult<Self> {
        let network: Network = network.parse().map_err(|_| {
            with_reason::<InputError>(py, "unknown_network", format!("{network}: not mainnet or regtest"))
        })?;
        let timeout = match timeout {
            None => DEFAULT_HEADER_TIMEOUT,
            Some(seconds) => {
                Duration::try_from_secs_f64(seconds).ok().filter(|t| !t.is_zero()).ok_or_else(|| {
                    with_reason::<InputError>(
                        py,
                        "out_of_range",
                        format!("timeout={seconds}: expected a positive number of seconds"),
                    )
                })?
            }
        };
        let config = HeaderConfig {
            esplora,
            bitcoin_rpc,
            rpc_cookie,
            rpc_user,
            rpc_password,
            rpc_password_file,
            header_cache,
            no_header_cache,
            network,
            timeout,
        };
        config.validate().map_err(|err| header_config_error(py, &err))?;
        Ok(HeaderSourceOptions { config })
    }

    /// `mainnet` or `regtest`.
    #[getter]
    fn network(&self) -> &'static str {
        self.config.network.name()
    }

    fn __repr__(&self) -> String {
        // HeaderConfig's Debug never shows the password.
        format!("HeaderSource({:?})", self.config)
    }
}

fn header_config_error(py: Python<'_>, err: &HeaderConfigError) -> PyErr {
    let message = priorart_reason::error_chain(err);
    if err.is_usage() {
        with_reason::<InputError>(py, err.reason(), message)
    } else {
        let err = PyOSError::new_err(message);
        let _ = err.value(py).setattr("reason", "password_file");
        err
    }
}

impl HeaderSourceOptions {
    /// Builds the source (reading a password file, if one was named); call
    /// inside `detach`, the source need not be `Send`.
    fn source(&self) -> Result<Box<dyn HeaderSource>, HeaderConfigError> {
        self.config.build()
    }
}

fn decode_proof(py: Python<'_>, proof: &[u8]) -> PyResult<DetachedTimestamp> {
    if proof.len() as u64 > priorart_ots::MAX_PROOF_BYTES {
        return Err(with_reason::<ProofError>(
            py,
            "too_large",
            format!("{} bytes: a proof is at most {} bytes", proof.len(), priorart_ots::MAX_PROOF_BYTES),
        ));
    }
    DetachedTimestamp::from_bytes(proof)
        .map_err(|err| with_reason::<ProofError>(py, err.reason(), err.to_string()))
}

/// The proof's tree as the JSON text of `priorart ots info --json`.
#[pyfunction]
fn ots_info_json(py: Python<'_>, proof: &[u8]) -> PyResult<String> {
    Ok(priorart_ots::info_json(&decode_proof(py, proof)?))
}

/// Verifies a proof of `digest` against Bitcoin headers: the JSON text of
/// `priorart ots verify --json` (the ots crate's [`OtsVerifyReport`]:
/// outcome, "lacks headers", SHA-1 warning, cost to forge).
#[pyfunction]
fn ots_verify_json(
    py: Python<'_>,
    proof: &[u8],
    digest: &[u8],
    headers: HeaderSourceOptions,
) -> PyResult<String> {
    let proof = decode_proof(py, proof)?;
    let network = headers.config.network;
    if !proof.matches_digest(digest) {
        return Ok(OtsVerifyReport::digest_mismatch(&proof, network).to_json());
    }
    let report = py
        .detach(|| {
            let source = headers.source()?;
            Ok(OtsVerifyReport::verify(&proof, source.as_ref(), network, priorart_ots::DEFAULT_FORGE_HEADERS))
        })
        .map_err(|err| header_config_error(py, &err))?;
    Ok(report.to_json())
}

/// The NIP-FF-3 client algorithm on an event: the `priorart-verify/1`
/// report's JSON text, as `priorart verify --json` prints it.
#[pyfunction]
#[pyo3(signature = (event_json, headers, content=None))]
fn nip_verify_json(
    py: Python<'_>,
    event_json: PyBackedStr,
    headers: HeaderSourceOptions,
    content: Option<PyBackedStr>,
) -> PyResult<String> {
    py.detach(|| {
        let source = headers.source()?;
        let mut report =
            priorart_nip::verify_event_json(event_json.trim(), source.as_ref(), headers.config.network);
        if let Some(content) = &content {
            report.check_content(content);
        }
        Ok(report.to_json())
    })
    .map_err(|err| header_config_error(py, &err))
}

/// The NIP's discovery check on what relays answered for `x`: the
/// `priorart-check/1` report's JSON text (`nip::check`, sans I/O; the
/// caller asked the relays). `answers_json` is a JSON array of
/// `{"url", "ending", "events", "notices"?, "answered"?, "elapsed_ms"?}`;
/// each event is checked (id, signature, filter) as the relay client does.
/// With `near` (the checked text, and the JSON arrays of what relays
/// answered to its near-copy key query and proof query), the near copies
/// too (the report's `fuzzy` member), which may change the verdict.
#[pyfunction]
#[pyo3(signature = (x, answers_json, headers, near=None))]
fn check_json(
    py: Python<'_>,
    x: PyBackedStr,
    answers_json: PyBackedStr,
    headers: HeaderSourceOptions,
    near: Option<(PyBackedStr, PyBackedStr, PyBackedStr)>,
) -> PyResult<String> {
    let x: priorart_fingerprint::EqualityFingerprint = x.parse().map_err(|_| {
        with_reason::<InputError>(py, "invalid_x", format!("{}: not a fingerprint (64 hex digits)", &*x))
    })?;
    let answers = unchecked_answers(py, &answers_json, "relay answers")?;
    let near = match &near {
        Some((text, keys, proofs)) => Some((
            near_query(py, text)?,
            unchecked_answers(py, keys, "near-copy key answers")?,
            unchecked_answers(py, proofs, "near-copy proof answers")?,
        )),
        None => None,
    };
    py.detach(|| {
        let source = headers.source()?;
        let network = headers.config.network;
        let answers: Vec<_> = answers.into_iter().map(|answer| answer.check(&x)).collect();
        let report = priorart_nip::check::check(&x, &answers, source.as_ref(), network);
        let report = match near {
            Some((query, keys, proofs)) => {
                let fuzzy = query.report_unchecked(&report, keys, proofs, source.as_ref(), network);
                report.with_near_copies(fuzzy)
            }
            None => report,
        };
        Ok(report.to_json())
    })
    .map_err(|err| header_config_error(py, &err))
}

fn unchecked_answers(py: Python<'_>, json: &str, what: &str) -> PyResult<Vec<UncheckedAnswer>> {
    serde_json::from_str(json)
        .map_err(|err| with_reason::<InputError>(py, "invalid_answers", format!("{what}: {err}")))
}

/// The near-copy query of `text` at the NIP extension's defaults (within
/// 6 simhash-doc bits, word 5-gram Jaccard at least 0.5).
fn near_query(py: Python<'_>, text: &str) -> PyResult<NearQuery> {
    NearQuery::of_text(text, FUZZY_DISTANCE, DEFAULT_MIN_JACCARD)
        .map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))
}

/// The REQ filters of the near-copy queries of `text`, as JSON: the
/// content events carrying one of its `B` keys, and, given what relays
/// answered to that (`key_answers_json`), the proofs of the verified near
/// copies' `X` values (`None` without a copy).
#[pyfunction]
#[pyo3(signature = (text, key_answers_json=None))]
fn near_copies_filter_json(
    py: Python<'_>,
    text: PyBackedStr,
    key_answers_json: Option<PyBackedStr>,
) -> PyResult<Option<String>> {
    let query = near_query(py, &text)?;
    let filter = match &key_answers_json {
        None => Some(query.filter()),
        Some(json) => {
            let answers: Vec<_> = unchecked_answers(py, json, "near-copy key answers")?
                .into_iter()
                .map(|answer| answer.check_against(query.filter()))
                .collect();
            query.proof_filter(&answers)
        }
    };
    Ok(filter.map(|filter| serde_json::to_string(&filter).expect("a filter serializes")))
}

/// The passages `a` and `b` share (`priorart_align`, default parameters)
/// as the JSON text of `priorart compare --passages --json`.
#[pyfunction]
fn passages_json(
    py: Python<'_>,
    a: PyBackedStr,
    b: PyBackedStr,
    a_name: &str,
    b_name: &str,
) -> PyResult<String> {
    let found = py
        .detach(|| priorart_align::align(&a, &b))
        .map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))?;
    let (a, b) = (Named { name: a_name, text: &a }, Named { name: b_name, text: &b });
    Ok(priorart_align::report::json_text(a, b, &found))
}

fn dedup_error(py: Python<'_>, err: DedupError) -> PyErr {
    match err {
        DedupError::Spill(io) => {
            PyOSError::new_err(format!("cannot write the texts to a temporary file: {io}"))
        }
        // An output file (`PassageStream.write`'s), as `OSError`.
        DedupError::OutputFile(err) => file_error(py, err),
        other => with_reason::<InputError>(py, other.reason(), other.to_string()),
    }
}

/// The text of row `row` of a batch of texts: a `str`, else a
/// `TypeError` naming the row and what it holds (`texts[2] is NoneType`).
fn row_text(row: u64, item: &Bound<'_, PyAny>) -> PyResult<PyBackedStr> {
    item.extract::<PyBackedStr>().map_err(|_| {
        let kind = item.get_type().name().map(|name| name.to_string()).unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!("texts[{row}] is {kind}, not a text (str)"))
    })
}

/// The id of row `row`: the `ids` item as a `str` (an int is written in
/// decimal), or the row's number when no ids are given.
fn row_id(
    py: Python<'_>,
    row: u64,
    ids: Option<&mut Bound<'_, pyo3::types::PyIterator>>,
) -> PyResult<String> {
    let Some(ids) = ids else { return Ok(row.to_string()) };
    let Some(item) = ids.next() else {
        return Err(with_reason::<InputError>(py, "ids_length", format!("fewer ids than texts ({row})")));
    };
    let item = item?;
    if let Ok(id) = item.extract::<String>() {
        return Ok(id);
    }
    if let Ok(number) = item.extract::<i64>() {
        return Ok(number.to_string());
    }
    let kind = item.get_type().name().map(|name| name.to_string()).unwrap_or_else(|_| "?".into());
    Err(PyTypeError::new_err(format!("ids[{row}] is {kind}, not a str or an int")))
}

/// Where a dedup run is, for the thread that reports it to Python: the
/// engine calls it from its worker threads, which cannot call Python.
#[derive(Default)]
struct Steps {
    verifying: AtomicBool,
    total: AtomicU64,
    done: AtomicU64,
}

impl priorart_dedup::Progress for Steps {
    fn phase(&self, phase: priorart_dedup::Phase, steps: u64) {
        self.verifying.store(phase == priorart_dedup::Phase::Verifying, Ordering::Relaxed);
        self.total.store(steps, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
    }

    fn advance(&self, steps: u64) {
        self.done.fetch_add(steps, Ordering::Relaxed);
    }
}

impl Steps {
    /// `progress(phase, done, total)` as the engine last reported.
    fn report(&self, progress: &Bound<'_, PyAny>) -> PyResult<()> {
        let phase = if self.verifying.load(Ordering::Relaxed) { "verifying" } else { "candidates" };
        let (done, total) = (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed));
        progress.call1((phase, done, total)).map(|_| ())
    }
}

/// How often a running dedup reports progress and checks for Ctrl-C.
const POLL: Duration = Duration::from_millis(200);

/// Reads `texts` (any iterable of `str`) with their `ids` (any iterable
/// of `str` or `int`; the row numbers when `None`) a batch at a time:
/// `batch` gets the `(id, text)` rows of each (at most [`BATCH_BYTES`] of
/// text or [`BATCH_TEXTS`] texts; it releases the GIL for its work), then
/// Ctrl-C is checked and `progress("reading", rows so far, 0)` called.
/// The texts are never all held at once, so an iterator of any length
/// streams. A `str` for either, a row that is not a text and ids not as
/// many as the texts are refused, naming the argument.
fn each_batch(
    texts: &Bound<'_, PyAny>,
    ids: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
    mut batch: impl FnMut(&[(String, PyBackedStr)]) -> PyResult<()>,
) -> PyResult<u64> {
    let py = texts.py();
    refuse_one_text(py, "texts", texts)?;
    if let Some(ids) = ids {
        refuse_one_text(py, "ids", ids)?;
    }
    let mut ids = ids.map(|ids| ids.try_iter()).transpose()?;
    let mut rows_held: Vec<(String, PyBackedStr)> = Vec::new();
    let (mut held_bytes, mut rows) = (0, 0u64);
    let mut flush = |rows_held: &mut Vec<(String, PyBackedStr)>, rows: u64| -> PyResult<()> {
        batch(rows_held)?;
        rows_held.clear();
        // Iterating a list runs no Python code: Ctrl-C is seen here.
        py.check_signals()?;
        if let Some(progress) = progress {
            progress.call1(("reading", rows, 0u64))?;
        }
        Ok(())
    };
    for item in texts.try_iter()? {
        let text = row_text(rows, &item?)?;
        let id = row_id(py, rows, ids.as_mut())?;
        rows += 1;
        held_bytes += text.len();
        rows_held.push((id, text));
        if held_bytes >= BATCH_BYTES || rows_held.len() >= BATCH_TEXTS {
            flush(&mut rows_held, rows)?;
            held_bytes = 0;
        }
    }
    flush(&mut rows_held, rows)?;
    if let Some(ids) = ids.as_mut()
        && ids.next().is_some()
    {
        return Err(with_reason::<InputError>(py, "ids_length", format!("more ids than texts ({rows})")));
    }
    Ok(rows)
}

/// `work` (a dedup engine's candidates and verification, or a passage
/// search) on a thread of its own while this one reports `progress` and
/// checks for signals: Ctrl-C (a `KeyboardInterrupt`) stops the engine at
/// its next check.
fn on_engine_thread<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(priorart_dedup::Control<'_>) -> Result<T, DedupError> + Send,
) -> PyResult<T> {
    let (steps, stop, finished) = (Steps::default(), AtomicBool::new(false), AtomicBool::new(false));
    let control = priorart_dedup::Control { progress: &steps, stop: &stop };
    std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            let answer = on_threads(threads, || work(control));
            finished.store(true, Ordering::Release);
            answer
        });
        let mut interrupted = None;
        while !finished.load(Ordering::Acquire) {
            py.detach(|| std::thread::sleep(POLL));
            let checked = py.check_signals().and_then(|()| progress.map_or(Ok(()), |p| steps.report(p)));
            if let Err(err) = checked {
                stop.store(true, Ordering::Relaxed);
                interrupted = Some(err);
                break;
            }
        }
        let answer = py.detach(|| run.join());
        if let Some(err) = interrupted {
            return Err(err);
        }
        let answer = answer.map_err(|_| PyOSError::new_err("the engine's thread panicked"))??;
        let answer = answer.map_err(|err| dedup_error(py, err))?;
        if let Some(progress) = progress {
            steps.report(progress)?;
        }
        Ok(answer)
    })
}

/// `priorart dedup` of texts: every pair whose word 5-gram Jaccard
/// similarity is at least `min_jaccard`, from the dedup engine's candidates
/// (MinHash bands, or simhash-doc within `k`), verified exactly on texts
/// spilled to a temporary file as they stream in. Returns the CLI's
/// `pairs.jsonl` and `clusters.jsonl` texts, and counts: documents,
/// empty texts skipped, candidate pairs.
#[pyfunction]
#[pyo3(signature = (texts, ids=None, k=None, min_jaccard=0.8, shingles="words", candidates=None,
                    working_set=None, threads=None, temp_dir=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn dedup_jsonl(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    ids: Option<&Bound<'_, PyAny>>,
    k: Option<&Bound<'_, PyAny>>,
    min_jaccard: f64,
    shingles: &str,
    candidates: Option<&str>,
    working_set: Option<u64>,
    threads: Option<&Bound<'_, PyAny>>,
    temp_dir: Option<PathBuf>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, String, usize, u64, usize)> {
    // The CLI's default distance (`priorart dedup -k`).
    let k = k.map_or(Ok(6), |k| in_range(py, "k", k, 0, MAX_DISTANCE))?;
    let threads = thread_count(py, threads)?;
    let shingling = shingles
        .parse::<Shingling>()
        .map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))?;
    let mut settings = Settings::new(k, min_jaccard, shingling).map_err(|err| dedup_error(py, err))?;
    if let Some(name) = candidates {
        let generator = name
            .parse::<Candidates>()
            .map_err(|message| with_reason::<InputError>(py, "unknown_candidates", message))?;
        settings = settings.with_candidates(generator).map_err(|err| dedup_error(py, err))?;
    }
    if let Some(bytes) = working_set {
        settings = settings.with_working_set(bytes);
    }
    let mut collection =
        TextCollection::new(settings, temp_dir.as_deref()).map_err(|err| dedup_error(py, err))?;
    each_batch(texts, ids, progress, |batch| {
        let documents: Vec<DedupDocument<'_>> =
            batch.iter().map(|(id, text)| DedupDocument { id, text }).collect();
        py.detach(|| on_threads(threads, || collection.push(&documents)))?.map_err(|err| dedup_error(py, err))
    })?;
    let empty = collection.empty();
    let (catalog, outcome) =
        on_engine_thread(py, threads, progress, |control| collection.deduplicate(control))?;
    let pairs = String::from_utf8(priorart_dedup::output::pair_lines(&catalog, &outcome, None))
        .expect("the output is JSON text");
    let clusters = String::from_utf8(priorart_dedup::output::cluster_lines(&catalog, &outcome))
        .expect("the output is JSON text");
    Ok((pairs, clusters, catalog.len(), empty, outcome.candidates))
}

/// One new document of `dedup_against_jsonl`: id, simhash-doc value,
/// word shingles.
type Fingerprinted = (String, u64, priorart_fingerprint::WordShingles);

/// `priorart dedup --against INDEX` of texts: the texts paired with each
/// other (exact word 5-gram Jaccard at least `min_jaccard`) and with the
/// documents of the index at `against` (Jaccard estimated from its
/// sketches, or unverified where it holds none), by the dedup crate's
/// `against` the CLI calls. The texts' shingles are held in memory, as
/// the CLI holds them. Returns the CLI's `pairs.jsonl`, `clusters.jsonl`
/// and `survivors.jsonl` texts, and counts: documents, empty texts
/// skipped, candidate pairs among the texts, texts already in the index
/// under their id.
#[pyfunction]
#[pyo3(signature = (texts, against, ids=None, k=None, min_jaccard=0.8, shingles=None, threads=None, progress=None))]
#[allow(clippy::too_many_arguments)]
fn dedup_against_jsonl(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    against: PathBuf,
    ids: Option<&Bound<'_, PyAny>>,
    k: Option<&Bound<'_, PyAny>>,
    min_jaccard: f64,
    shingles: Option<&str>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, String, String, usize, u64, usize, usize)> {
    let k = k.map_or(Ok(6), |k| in_range(py, "k", k, 0, MAX_DISTANCE))?;
    let threads = thread_count(py, threads)?;
    let index = py.detach(|| priorart_index::Index::open(&against)).map_err(|err| index_error(py, err))?;
    let shingling = index.shingling();
    if let Some(asked) = shingles {
        let asked = shingling_of(py, asked)?;
        if asked != shingling {
            return Err(with_reason::<InputError>(
                py,
                "shingles_mismatch",
                format!(
                    "shingles={:?}: {} is sketched with {shingling} shingles, and only those compare with its \
                     sketches (leave shingles out)",
                    asked.to_string(),
                    against.display()
                ),
            ));
        }
    }
    let settings = Settings::new(k, min_jaccard, shingling).map_err(|err| dedup_error(py, err))?;
    let mut documents: Vec<Fingerprinted> = Vec::new();
    let mut numbers: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let mut empty = 0u64;
    each_batch(texts, ids, progress, |batch| {
        // Skipped and counted, as the CLI and `dedup` do: every blank text
        // would pair with every other.
        let kept: Vec<&(String, PyBackedStr)> =
            batch.iter().filter(|(_, text)| !priorart_dedup::is_blank(text)).collect();
        empty += (batch.len() - kept.len()) as u64;
        let fingerprinted: Vec<Fingerprinted> = py.detach(|| {
            on_threads(threads, || {
                kept.par_iter()
                    .map_init(Fingerprinter::new, |f, (id, text)| {
                        (
                            id.clone(),
                            // The index's simhash-doc: v2, or v1 for an index built before it.
                            f.simhash_doc(text, shingling.token_rule()).0,
                            priorart_fingerprint::WordShingles::of(text, shingling),
                        )
                    })
                    .collect()
            })
        })?;
        for document in fingerprinted {
            let number =
                u32::try_from(documents.len()).map_err(|_| dedup_error(py, DedupError::TooManyDocuments))?;
            if let Some(&first) = numbers.get(&document.0) {
                let (id, second, count) = (document.0, number, 1);
                return Err(dedup_error(py, DedupError::RepeatedId { id, first, second, count }));
            }
            numbers.insert(document.0.clone(), number);
            documents.push(document);
        }
        Ok(())
    })?;
    drop(numbers);
    let new: Vec<priorart_dedup::against::NewDocument<'_>> = documents
        .iter()
        .map(|(id, simhash, shingles)| priorart_dedup::against::NewDocument {
            id,
            simhash: *simhash,
            shingles,
        })
        .collect();
    let steps = Steps::default();
    let found = py
        .detach(|| {
            on_threads(threads, || {
                priorart_dedup::against::against(&index, &new, settings.layout(), k, min_jaccard, &steps)
            })
        })?
        .map_err(|err| index_error(py, err))?;
    if let Some(progress) = progress {
        steps.report(progress)?;
    }
    let text = |lines: Vec<u8>| String::from_utf8(lines).expect("the output is JSON text");
    Ok((
        text(found.pair_lines(&new)),
        text(found.cluster_lines(&index, &new)),
        text(found.survivor_lines(&new)),
        new.len(),
        empty,
        found.candidates,
        found.again.len(),
    ))
}

/// The shingling named `shingles` ("words", "tokens", "words-v1" or
/// "tokens-v1").
fn shingling_of(py: Python<'_>, shingles: &str) -> PyResult<Shingling> {
    shingles.parse::<Shingling>().map_err(|err| with_reason::<InputError>(py, err.reason(), err.to_string()))
}

/// The MinHash LSH band keys `priorart dedup` gives each text for
/// `min_jaccard` (the dedup engine's bands and rows): `(bands, keys, blank)`
/// with `keys` the native-endian u32 keys of the first text's bands, then
/// the second's, and `blank[i]` true for a text the engine skips (empty or
/// white space; its keys are zeros). For distributed candidate generation
/// (the Spark job): two documents are candidates when they share a key in
/// some band.
#[pyfunction]
#[pyo3(signature = (texts, min_jaccard=0.8, shingles="words", threads=None))]
fn dedup_band_keys<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    min_jaccard: f64,
    shingles: &str,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<(u32, Bound<'py, PyBytes>, Vec<bool>)> {
    let threads = thread_count(py, threads)?;
    let shingling = shingling_of(py, shingles)?;
    let settings = Settings::new(0, min_jaccard, shingling).map_err(|err| dedup_error(py, err))?;
    let lsh = settings.lsh().ok_or_else(|| dedup_error(py, DedupError::MinhashThreshold { min_jaccard }))?;
    let rows: Vec<Option<Vec<u32>>> = in_batches(texts, threads, None, "band keys", |batch| {
        batch
            .par_iter()
            .map(|text| {
                (!priorart_dedup::is_blank(text)).then(|| {
                    let mut keys = Vec::new();
                    lsh.band_keys(&priorart_fingerprint::WordShingles::of(text, shingling), &mut keys);
                    keys
                })
            })
            .collect()
    })?;
    let zeros = vec![0u32; lsh.bands as usize];
    let bytes: Vec<u8> = rows
        .iter()
        .flat_map(|keys| keys.as_ref().unwrap_or(&zeros))
        .flat_map(|key| key.to_ne_bytes())
        .collect();
    Ok((lsh.bands, PyBytes::new(py, &bytes), rows.iter().map(Option::is_none).collect()))
}

/// The exact Jaccard similarity of the word 5-grams of `a[i]` and `b[i]`
/// for every `i` (what `priorart dedup` verifies a pair by), on all cores.
#[pyfunction]
#[pyo3(signature = (a, b, shingles="words", threads=None))]
fn jaccard_many(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    shingles: &str,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<f64>> {
    let threads = thread_count(py, threads)?;
    let shingling = shingling_of(py, shingles)?;
    refuse_one_text(py, "a", a)?;
    refuse_one_text(py, "b", b)?;
    let mut pairs: Vec<(PyBackedStr, PyBackedStr)> = Vec::new();
    for (row, (x, y)) in a.try_iter()?.zip(b.try_iter()?).enumerate() {
        pairs.push((row_text(row as u64, &x?)?, row_text(row as u64, &y?)?));
    }
    py.detach(|| {
        on_threads(threads, || {
            pairs
                .par_iter()
                .map(|(x, y)| {
                    use priorart_fingerprint::WordShingles;
                    WordShingles::of(x, shingling).jaccard(&WordShingles::of(y, shingling))
                })
                .collect()
        })
    })
}

/// The extension module.
#[pymodule]
fn _priorart(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("InputError", py.get_type::<InputError>())?;
    module.add("ExtractionError", py.get_type::<ExtractionError>())?;
    module.add("ProofError", py.get_type::<ProofError>())?;
    module.add("MAX_PROOF_BYTES", priorart_ots::MAX_PROOF_BYTES)?;
    // The constants the Python side names, from the crates that own them.
    module.add("MAX_DISTANCE", MAX_DISTANCE)?;
    let ids = |schemes: &mut dyn Iterator<Item = Scheme>| schemes.map(Scheme::id).collect::<Vec<_>>();
    module.add("SCHEMES", ids(&mut Scheme::ALL.into_iter()))?;
    let simhash_schemes = TokenRule::ALL.map(TokenRule::simhash_scheme);
    module.add("SIMHASH_DOC_SCHEMES", ids(&mut simhash_schemes.into_iter()))?;
    module.add_class::<HeaderSourceOptions>()?;
    module.add_function(wrap_pyfunction!(fingerprint, module)?)?;
    module.add_function(wrap_pyfunction!(passages_json, module)?)?;
    module.add_function(wrap_pyfunction!(explain_json, module)?)?;
    module.add_function(wrap_pyfunction!(simhash_doc, module)?)?;
    module.add_function(wrap_pyfunction!(simhash_doc_text, module)?)?;
    module.add_function(wrap_pyfunction!(simhash_doc_value, module)?)?;
    module.add_function(wrap_pyfunction!(hamming, module)?)?;
    module.add_function(wrap_pyfunction!(similarity, module)?)?;
    module.add_function(wrap_pyfunction!(fingerprint_many, module)?)?;
    module.add_function(wrap_pyfunction!(simhash_doc_many_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(table_keys, module)?)?;
    module.add_function(wrap_pyfunction!(table_keys_many_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(near_pairs_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(layout_shape, module)?)?;
    module.add_function(wrap_pyfunction!(extract, module)?)?;
    module.add_function(wrap_pyfunction!(web_archive_records, module)?)?;
    module.add_function(wrap_pyfunction!(detect_format, module)?)?;
    module.add_function(wrap_pyfunction!(simhash_doc_many, module)?)?;
    module.add_class::<WebArchiveReader>()?;
    module.add_class::<Index>()?;
    module.add_function(wrap_pyfunction!(ots_info_json, module)?)?;
    module.add_function(wrap_pyfunction!(ots_verify_json, module)?)?;
    module.add_function(wrap_pyfunction!(nip_verify_json, module)?)?;
    module.add_function(wrap_pyfunction!(check_json, module)?)?;
    module.add_function(wrap_pyfunction!(near_copies_filter_json, module)?)?;
    module.add_function(wrap_pyfunction!(dedup_jsonl, module)?)?;
    module.add_function(wrap_pyfunction!(dedup_against_jsonl, module)?)?;
    module.add_function(wrap_pyfunction!(dedup_band_keys, module)?)?;
    module.add_function(wrap_pyfunction!(jaccard_many, module)?)?;
    module.add_function(wrap_pyfunction!(passages::dedup_passages_stream, module)?)?;
    module.add_class::<passages::PassageRounds>()?;
    module.add_function(wrap_pyfunction!(passages::passage_marks, module)?)?;
    module.add_function(wrap_pyfunction!(passages::boilerplate_lines, module)?)?;
    module.add_class::<passages::PassageChecker>()?;
    Ok(())
}
