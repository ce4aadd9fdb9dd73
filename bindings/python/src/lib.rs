//! `priorart._priorart`: the Python extension module of priorart. Every
//! answer comes from the workspace's crates (fingerprint, extract, index,
//! ots, ots-net, nip); this file only converts arguments, results and
//! errors, and releases the GIL around the work. The `priorart` package
//! (`python/priorart/`) wraps it with docstrings, dicts and iterators.

use priorart_extract::{ExtractError, Format, Limits};
use priorart_fingerprint::{Fingerprint, Fingerprinter, Scheme, SimhashDoc};
use priorart_index::{Layout, TableKeys};
use priorart_ots::{AttestationError, DetachedTimestamp, HeaderSource, Network, VerifyError};
use priorart_ots_net::{BitcoinRpc, CachedSource, Esplora, HeaderCache, RpcAuth};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyBytes;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::Duration;

create_exception!(_priorart, InputError, PyValueError, "Bad input; `reason` names the typed reason.");
create_exception!(
    _priorart,
    ExtractionError,
    InputError,
    "A document could not be read (`reason`: the extractor's)."
);
create_exception!(_priorart, ProofError, InputError, "An OpenTimestamps proof could not be decoded.");

/// A typed error's variant as a Python-friendly reason: `TooLarge { .. }`
/// becomes `too_large`.
fn reason_of(debug: &str) -> String {
    let name: String = debug.chars().take_while(char::is_ascii_alphanumeric).collect();
    let mut reason = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                reason.push('_');
            }
            reason.push(c.to_ascii_lowercase());
        } else {
            reason.push(c);
        }
    }
    reason
}

/// An exception of type `E` with `reason` set on it.
fn with_reason<E: pyo3::PyTypeInfo>(py: Python<'_>, reason: &str, message: String) -> PyErr {
    let err = PyErr::new::<E, _>(message);
    // Setting an attribute on a fresh exception instance cannot fail.
    let _ = err.value(py).setattr("reason", reason);
    err
}

fn extract_error(py: Python<'_>, err: &ExtractError) -> PyErr {
    with_reason::<ExtractionError>(py, &reason_of(&format!("{err:?}")), err.to_string())
}

fn file_error(py: Python<'_>, err: priorart_files::FileError) -> PyErr {
    match err {
        priorart_files::FileError::TooLarge { .. } => {
            with_reason::<ExtractionError>(py, "too_large", err.to_string())
        }
        other => PyOSError::new_err(other.to_string()),
    }
}

fn scheme(py: Python<'_>, name: &str) -> PyResult<Scheme> {
    name.parse().map_err(|err: priorart_fingerprint::UnknownScheme| {
        with_reason::<InputError>(py, "unknown_scheme", err.to_string())
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
        with_reason::<InputError>(py, "invalid_simhash_doc", err.to_string())
    })
}

/// The strings of any iterable, kept alive without copying while the GIL
/// is released.
fn texts_of(texts: &Bound<'_, PyAny>) -> PyResult<Vec<PyBackedStr>> {
    texts.try_iter()?.map(|item| item?.extract::<PyBackedStr>()).collect()
}

/// Runs `work` on a pool of `threads` workers (all cores when `None`).
fn on_threads<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    match threads {
        None => Ok(work()),
        Some(0) => Err(PyValueError::new_err("threads must be at least 1")),
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
        Some(explanation) => explanation.to_json().to_string(),
        None => priorart_fingerprint::explain_simhash_doc(&text).to_json().to_string(),
    }))
}

/// The `simhash-doc` of `text` as an unsigned 64-bit int.
#[pyfunction]
fn simhash_doc(py: Python<'_>, text: PyBackedStr) -> u64 {
    py.detach(|| Fingerprinter::new().simhash_doc(&text).0)
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
#[pyo3(signature = (texts, schemes, threads=None))]
fn fingerprint_many(
    py: Python<'_>,
    texts: &Bound<'_, PyAny>,
    schemes: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Vec<Vec<String>>> {
    let schemes: Vec<Scheme> = schemes.iter().map(|name| scheme(py, name)).collect::<PyResult<_>>()?;
    let texts = texts_of(texts)?;
    py.detach(|| {
        on_threads(threads, || {
            let rows: Vec<Vec<Fingerprint>> = texts
                .par_iter()
                .map_init(Fingerprinter::new, |fingerprinter, text| fingerprinter.fingerprint(text, &schemes))
                .collect();
            (0..schemes.len())
                .map(|column| rows.iter().map(|row| row[column].to_string()).collect())
                .collect()
        })
    })
}

/// `simhash-doc` values of many texts on all cores, as native-endian
/// 8-byte integers (numpy reads them without a copy).
#[pyfunction]
#[pyo3(signature = (texts, threads=None))]
fn simhash_doc_many_bytes<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let texts = texts_of(texts)?;
    let values: Vec<u64> = py.detach(|| {
        on_threads(threads, || {
            texts.par_iter().map_init(Fingerprinter::new, |f, text| f.simhash_doc(text).0).collect()
        })
    })?;
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    Ok(PyBytes::new(py, &bytes))
}

fn layout(py: Python<'_>, name: &str) -> PyResult<Layout> {
    Layout::parse(name).map_err(|err| with_reason::<InputError>(py, "unknown_layout", err.to_string()))
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
#[pyo3(signature = (values, k=3, layout=None, threads=None))]
fn near_pairs_bytes<'py>(
    py: Python<'py>,
    values: &[u8],
    k: u32,
    layout: Option<&str>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let values = native_u64s(values)?;
    if values.len() >= u32::MAX as usize {
        return Err(PyValueError::new_err("at most 2^32 - 2 values"));
    }
    let layout = match layout {
        Some(name) => self::layout(py, name)?,
        None => Layout::for_distance(k).map_err(|err| PyValueError::new_err(err.to_string()))?,
    };
    let pairs = py
        .detach(|| on_threads(threads, || priorart_index::all_pairs(&values, &layout, k)))?
        .map_err(|err| with_reason::<InputError>(py, "distance_too_large", err.to_string()))?;
    let out: Vec<u8> =
        pairs.iter().flat_map(|pair| [pair.a, pair.b, pair.distance]).flat_map(u32::to_ne_bytes).collect();
    Ok(PyBytes::new(py, &out))
}

/// Tables and guaranteed distance of a layout.
#[pyfunction]
#[pyo3(signature = (layout="manku-16x28"))]
fn layout_shape(py: Python<'_>, layout: &str) -> PyResult<(usize, u32, Vec<u8>)> {
    let layout = self::layout(py, layout)?;
    let key_bits = layout.tables.iter().map(|table| table.key_bits).collect();
    Ok((layout.tables.len(), layout.max_distance, key_bits))
}

fn format_of(py: Python<'_>, format: Option<&str>) -> PyResult<Option<Format>> {
    format
        .map(|name| {
            name.parse::<Format>()
                .map_err(|err| with_reason::<InputError>(py, "unknown_format", err.to_string()))
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

/// One web-archive record: `(uri, record_id, offset, text, error_reason, error)`.
type Record = (Option<String>, Option<String>, Option<u64>, Option<String>, Option<String>, Option<String>);

/// Every record of a WARC or ARC file (gzipped or not) under the CLI's
/// limits, in file order: documents with their text, bad records with
/// their reason and message.
#[pyfunction]
fn web_archive_records(py: Python<'_>, path: PathBuf) -> PyResult<Vec<Record>> {
    let limits = Limits::default();
    let outcome = py.detach(|| {
        let bytes = priorart_files::read_limited(&path, limits.max_input_bytes).map_err(Err)?;
        let format = priorart_extract::detect(&bytes);
        if !format.is_archive() {
            return Err(Ok(ExtractError::Unsupported(format!(
                "{}: a {format} file, not a web archive (WARC or ARC)",
                path.display()
            ))));
        }
        priorart_extract::extract(&bytes, format, &limits).map_err(Ok)
    });
    let extraction = outcome.map_err(|err| match err {
        Ok(err) => extract_error(py, &err),
        Err(err) => file_error(py, err),
    })?;
    let mut records: Vec<(u64, Record)> = extraction
        .documents
        .into_iter()
        .map(|d| (d.offset.unwrap_or(0), (d.uri, d.record_id, d.offset, Some(d.text), None, None)))
        .collect();
    records.extend(extraction.record_errors.into_iter().map(|e| {
        let reason = reason_of(&format!("{:?}", e.error));
        (e.offset, (e.uri, e.record_id, Some(e.offset), None, Some(reason), Some(e.error.to_string())))
    }));
    records.sort_by_key(|(offset, _)| *offset);
    Ok(records.into_iter().map(|(_, record)| record).collect())
}

/// Where block headers come from, as the CLI's header options say.
#[pyclass(frozen, from_py_object, module = "priorart")]
#[derive(Clone)]
struct HeaderSourceOptions {
    esplora: Option<String>,
    bitcoin_rpc: Option<String>,
    rpc_cookie: Option<PathBuf>,
    rpc_user: Option<String>,
    rpc_password: Option<String>,
    header_cache: Option<PathBuf>,
    no_header_cache: bool,
    network: Network,
    timeout: Duration,
}

#[pymethods]
impl HeaderSourceOptions {
    #[new]
    #[pyo3(signature = (*, esplora=None, bitcoin_rpc=None, rpc_cookie=None, rpc_user=None, rpc_password=None,
                        header_cache=None, no_header_cache=false, network="mainnet", timeout=10.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        esplora: Option<String>,
        bitcoin_rpc: Option<String>,
        rpc_cookie: Option<PathBuf>,
        rpc_user: Option<String>,
        rpc_password: Option<String>,
        header_cache: Option<PathBuf>,
        no_header_cache: bool,
        network: &str,
        timeout: f64,
    ) -> PyResult<Self> {
        let invalid = |message: String| with_reason::<InputError>(py, "invalid_header_source", message);
        if esplora.is_some() && bitcoin_rpc.is_some() {
            return Err(invalid("esplora and bitcoin_rpc: choose one".into()));
        }
        if no_header_cache && esplora.is_none() && bitcoin_rpc.is_none() {
            return Err(invalid("no_header_cache needs a header source: esplora or bitcoin_rpc".into()));
        }
        if no_header_cache && header_cache.is_some() {
            return Err(invalid("header_cache and no_header_cache: choose one".into()));
        }
        if rpc_user.is_some() != rpc_password.is_some() {
            return Err(invalid("rpc_user and rpc_password go together".into()));
        }
        let network: Network =
            network.parse().map_err(|_| invalid(format!("{network}: not mainnet or regtest")))?;
        let timeout = Duration::try_from_secs_f64(timeout)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| invalid(format!("{timeout}: expected a positive number of seconds")))?;
        Ok(HeaderSourceOptions {
            esplora,
            bitcoin_rpc,
            rpc_cookie,
            rpc_user,
            rpc_password,
            header_cache,
            no_header_cache,
            network,
            timeout,
        })
    }

    /// `mainnet` or `regtest`.
    #[getter]
    fn network(&self) -> &'static str {
        self.network.name()
    }

    fn __repr__(&self) -> String {
        // Never the password.
        format!(
            "HeaderSource(esplora={:?}, bitcoin_rpc={:?}, header_cache={:?}, no_header_cache={}, network={:?})",
            self.esplora,
            self.bitcoin_rpc,
            self.header_cache,
            self.no_header_cache,
            self.network.name()
        )
    }
}

impl HeaderSourceOptions {
    /// The source the CLI builds from the same options: a header cache
    /// (the default directory unless told) in front of Esplora or bitcoind.
    fn source(&self) -> Box<dyn HeaderSource> {
        let upstream: Option<Box<dyn HeaderSource>> = if let Some(url) = &self.esplora {
            Some(Box::new(Esplora::new(url, self.timeout)))
        } else if let Some(url) = &self.bitcoin_rpc {
            let auth = match (&self.rpc_user, &self.rpc_password, &self.rpc_cookie) {
                (Some(user), Some(password), _) => {
                    RpcAuth::UserPassword { user: user.clone(), password: password.clone() }
                }
                (_, _, Some(cookie)) => RpcAuth::Cookie(cookie.clone()),
                _ => {
                    let subdir = if self.network == Network::Regtest { "regtest" } else { "" };
                    match std::env::var_os("HOME") {
                        Some(home) => {
                            RpcAuth::Cookie(PathBuf::from(home).join(".bitcoin").join(subdir).join(".cookie"))
                        }
                        None => RpcAuth::None,
                    }
                }
            };
            Some(Box::new(BitcoinRpc::new(url, auth, self.timeout)))
        } else {
            None
        };
        if self.no_header_cache
            && let Some(upstream) = upstream
        {
            return upstream;
        }
        let cache = match self.header_cache.clone().or_else(|| HeaderCache::default_dir(self.network)) {
            Some(dir) => HeaderCache::in_dir(dir),
            None => HeaderCache::in_memory(),
        };
        Box::new(CachedSource::new(cache, upstream, self.network))
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
        .map_err(|err| with_reason::<ProofError>(py, &reason_of(&format!("{err:?}")), err.to_string()))
}

/// The proof's tree as the JSON text of `priorart ots info --json`.
#[pyfunction]
fn ots_info_json(py: Python<'_>, proof: &[u8]) -> PyResult<String> {
    Ok(priorart_ots::info_json(&decode_proof(py, proof)?).to_string())
}

/// Verifies a proof of `digest` against Bitcoin headers: the JSON text of
/// `priorart ots verify --json` (less its local `time_utc`).
#[pyfunction]
fn ots_verify_json(
    py: Python<'_>,
    proof: &[u8],
    digest: &[u8],
    headers: HeaderSourceOptions,
) -> PyResult<String> {
    let proof = decode_proof(py, proof)?;
    let network = headers.network;
    if !proof.matches_digest(digest) {
        let expected = priorart_ots::hex::encode(proof.file_digest());
        let message =
            format!("file does not match the proof (expected {} {expected})", proof.file_hash_op().name());
        return Ok(
            serde_json::json!({"verified": false, "error": message, "reason": "digest_mismatch"}).to_string()
        );
    }
    let outcome = py.detach(|| priorart_ots::verify(&proof, &headers.source(), network));
    let value = match outcome {
        Ok(verification) => {
            let block = &verification.earliest;
            serde_json::json!({
                "verified": true,
                "network": network.name(),
                "height": block.height,
                "block_hash": block.block_hash.to_string(),
                "time": block.time,
                "pending": verification.pending,
                "unverified": verification.unverified.iter().map(priorart_ots::attestation_json).collect::<Vec<_>>(),
                "failures": verification.failures.iter()
                    .map(|f| serde_json::json!({"height": f.height, "reason": f.reason.to_string()}))
                    .collect::<Vec<_>>(),
                "warnings": sha1_warning(&proof).into_iter().collect::<Vec<_>>(),
            })
        }
        Err(err) => {
            let lacks_headers = matches!(&err, VerifyError::Failed { failures }
                if failures.iter().any(|failure| matches!(failure.reason, AttestationError::Source(_))));
            let reason =
                if lacks_headers { "headers_unavailable".to_owned() } else { reason_of(&format!("{err:?}")) };
            serde_json::json!({
                "verified": false,
                "unverified": lacks_headers,
                "network": network.name(),
                "error": err.to_string(),
                "reason": reason,
            })
        }
    };
    Ok(value.to_string())
}

/// The CLI's warning for SHA-1 file hashes.
fn sha1_warning(proof: &DetachedTimestamp) -> Option<&'static str> {
    (proof.file_hash_op() == priorart_ots::HashOp::Sha1).then_some(
        "the proof's file hash is SHA-1, whose collisions are practical: it shows that a file with this \
         SHA-1 digest existed, and another file can share the digest",
    )
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
) -> String {
    py.detach(|| {
        let mut report =
            priorart_nip::verify_event_json(event_json.trim(), headers.source().as_ref(), headers.network);
        if let Some(content) = &content {
            report.check_content(content);
        }
        report.to_json()
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
    module.add_class::<HeaderSourceOptions>()?;
    module.add_function(wrap_pyfunction!(fingerprint, module)?)?;
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
    module.add_function(wrap_pyfunction!(ots_info_json, module)?)?;
    module.add_function(wrap_pyfunction!(ots_verify_json, module)?)?;
    module.add_function(wrap_pyfunction!(nip_verify_json, module)?)?;
    Ok(())
}
