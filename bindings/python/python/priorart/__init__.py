"""priorart from Python: content fingerprints (NIP-FF-3 ``minhash-equality-v1``,
``simhash-doc``), document extraction, OpenTimestamps and NIP-FF-3
verification.

Every answer is computed by priorart's Rust crates, the same code as the
``priorart`` command, so a text has the same fingerprints here as there.
Bad input raises :class:`InputError` (a :class:`ValueError`) or one of its
subclasses, whose ``reason`` attribute names the typed reason
(``too_large``, ``unknown_scheme``, ...).

Submodules: :mod:`priorart.ots` (OpenTimestamps proofs), :mod:`priorart.nip`
(NIP-FF-3 events), :mod:`priorart.spark` (near-duplicate detection on
Apache Spark; needs ``pyspark``).
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import _priorart
from ._priorart import ExtractionError, InputError, ProofError

__all__ = [
    "EQUALITY_SCHEMES",
    "SCHEMES",
    "ExtractionError",
    "HeaderSource",
    "InputError",
    "ProofError",
    "WebArchiveRecord",
    "explain",
    "extract",
    "fingerprint",
    "fingerprint_many",
    "hamming",
    "layout_shape",
    "near_pairs",
    "similarity",
    "simhash_doc",
    "simhash_doc_many",
    "simhash_doc_text",
    "simhash_doc_value",
    "table_keys",
    "table_keys_many",
    "warc_records",
    "web_archive_records",
]

#: The equality schemes (a 64-hex-digit ``X``).
EQUALITY_SCHEMES = ("minhash-equality-v1", "simhash-equality-v2")
#: Every scheme identifier :func:`fingerprint` accepts.
SCHEMES = EQUALITY_SCHEMES + ("simhash-doc",)

#: Where block headers come from (keyword arguments as the CLI's options:
#: ``esplora``, ``bitcoin_rpc``, ``rpc_cookie``, ``rpc_user``,
#: ``rpc_password``, ``header_cache``, ``no_header_cache``, ``network``
#: (``mainnet`` or ``regtest``), ``timeout`` in seconds). With no
#: arguments: the default header cache directory and no network.
HeaderSource = _priorart.HeaderSourceOptions

SimhashLike = Union[int, str]


def fingerprint(text: str, scheme: str = "minhash-equality-v1") -> str:
    """The fingerprint of ``text`` under ``scheme``, in its wire form: 64
    lowercase hex digits for the equality schemes (NIP-FF-3's ``X`` for
    ``minhash-equality-v1``), 13 base32hex characters for ``simhash-doc``.

    Raises :class:`InputError` (reason ``unknown_scheme``) for an unknown
    scheme."""
    return _priorart.fingerprint(text, scheme)


def explain(text: str, scheme: str = "minhash-equality-v1") -> dict:
    """Every intermediate value behind ``fingerprint(text, scheme)``: the
    object ``priorart fingerprint --explain --json`` prints, without its
    ``file`` and ``input`` members (canonical text, tokens, kept tokens,
    bucket minima, descriptor for the equality schemes; tokens, features
    and counters for ``simhash-doc``)."""
    return json.loads(_priorart.explain_json(text, scheme))


def simhash_doc(text: str) -> int:
    """The ``simhash-doc`` of ``text`` as an unsigned 64-bit int."""
    return _priorart.simhash_doc(text)


def simhash_doc_text(value: SimhashLike) -> str:
    """The 13-character base32hex form of a ``simhash-doc`` value (what
    ``fingerprint(text, "simhash-doc")`` returns)."""
    return _priorart.simhash_doc_text(value)


def simhash_doc_value(value: SimhashLike) -> int:
    """A ``simhash-doc`` value from an int or its base32hex or hex text."""
    return _priorart.simhash_doc_value(value)


def hamming(a: SimhashLike, b: SimhashLike) -> int:
    """How many bits two ``simhash-doc`` values (ints or text) differ in."""
    return _priorart.hamming(a, b)


def similarity(a: SimhashLike, b: SimhashLike) -> float:
    """``1 - hamming(a, b) / 64``."""
    return _priorart.similarity(a, b)


def fingerprint_many(
    texts: Iterable[str],
    schemes: Sequence[str] = ("minhash-equality-v1",),
    threads: Optional[int] = None,
) -> List[List[str]]:
    """The fingerprints of many texts, computed on ``threads`` cores (all by
    default) with the GIL released: one list per scheme, each in the order
    of ``texts`` (``result[i][j]`` is ``fingerprint(texts[j], schemes[i])``).
    ``texts`` may be any iterable of strings."""
    if isinstance(schemes, str):
        schemes = [schemes]
    return _priorart.fingerprint_many(texts, list(schemes), threads)


def simhash_doc_many(texts: Iterable[str], threads: Optional[int] = None) -> Any:
    """The ``simhash-doc`` values of many texts on all cores (GIL
    released): a ``numpy.ndarray`` of ``uint64`` when numpy is installed,
    else a list of ints."""
    raw = _priorart.simhash_doc_many_bytes(texts, threads)
    try:
        import numpy
    except ImportError:
        return [int.from_bytes(raw[i : i + 8], _native_order()) for i in range(0, len(raw), 8)]
    return numpy.frombuffer(raw, dtype=numpy.uint64)


def table_keys(value: SimhashLike, layout: str = "manku-16x28") -> List[int]:
    """The key of a ``simhash-doc`` value in each table of an index layout
    (``manku-16x28``: the lsh-interop spec's 16 tables keyed on 28 bits,
    exact for k <= 3; ``k=N``; ``pigeonhole-B-T``), computed by the index
    crate: two values within the layout's distance share at least one
    table's key."""
    return _priorart.table_keys(value, layout)


def table_keys_many(values: Any, layout: str = "manku-16x28") -> Any:
    """:func:`table_keys` of many values (a numpy ``uint64`` array): a
    ``(len(values), tables)`` ``uint64`` array. Needs numpy."""
    import numpy

    values = numpy.ascontiguousarray(values, dtype=numpy.uint64)
    tables = _priorart.layout_shape(layout)[0]
    raw = _priorart.table_keys_many_bytes(values.tobytes(), layout)
    return numpy.frombuffer(raw, dtype=numpy.uint64).reshape(len(values), tables)


def near_pairs(
    values: Any, k: int = 3, layout: Optional[str] = None, threads: Optional[int] = None
) -> Any:
    """Every pair of ``simhash-doc`` values (a numpy ``uint64`` array or a
    sequence of ints) within Hamming distance ``k``, each once, sorted by
    position: ``(a, b, distance)`` with ``a < b`` indexes into ``values``.
    The layout is the cheapest exact one for ``k`` (the spec's for k <= 3)
    unless named; a ``k`` beyond the named layout's distance is an
    :class:`InputError`. Runs on all cores (GIL released), each table
    sorted once and joined with itself: all pairs within k = 3 of ten
    million values take seconds. A ``(pairs, 3)`` ``uint32`` array when
    numpy is installed, else a list of tuples."""
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        raw_values = numpy.ascontiguousarray(values, dtype=numpy.uint64).tobytes()
    else:
        raw_values = b"".join(int(v).to_bytes(8, _native_order()) for v in values)
    raw = _priorart.near_pairs_bytes(raw_values, k, layout, threads)
    if numpy is not None:
        return numpy.frombuffer(raw, dtype=numpy.uint32).reshape(-1, 3)
    words = [int.from_bytes(raw[i : i + 4], _native_order()) for i in range(0, len(raw), 4)]
    return [tuple(words[i : i + 3]) for i in range(0, len(words), 3)]


def layout_shape(layout: str = "manku-16x28") -> Tuple[int, int, List[int]]:
    """``(tables, max_distance, key_bits per table)`` of an index layout."""
    return _priorart.layout_shape(layout)


def extract(data: bytes, format: Optional[str] = None) -> str:
    """The text of one document (HTML, XML, PDF, EPUB, text; detected from
    the content unless ``format`` is given), exactly as every priorart
    command reads a file before fingerprinting it, under the same limits.
    A web archive holds many documents: read it with
    :func:`warc_records`. Raises :class:`ExtractionError` with the
    extractor's ``reason``."""
    return _priorart.extract(data, format)


class WebArchiveRecord(NamedTuple):
    """One record of a WARC or ARC file: a document (``text`` set) or a
    record that could not be read (``error_reason`` and ``error`` set)."""

    uri: Optional[str]
    record_id: Optional[str]
    offset: Optional[int]
    text: Optional[str]
    error_reason: Optional[str]
    error: Optional[str]


def web_archive_records(path: Union[str, "os.PathLike[str]"]) -> Iterator[WebArchiveRecord]:
    """Every record of a WARC or ARC file (gzipped or not), in file order,
    bad ones included with their reason: one bad record does not stop the
    others. Raises :class:`ExtractionError` if the file is not a web
    archive or is too large, :class:`OSError` if it cannot be read."""
    return (WebArchiveRecord(*record) for record in _priorart.web_archive_records(os.fspath(path)))


def warc_records(
    path: Union[str, "os.PathLike[str]"],
) -> Iterator[Tuple[Optional[str], Optional[str], Optional[int], str]]:
    """``(uri, record_id, offset, text)`` of every document of a WARC or
    ARC file, the way ``priorart dedup`` and ``priorart index`` read one
    (records that fail are skipped: see :func:`web_archive_records`)."""
    for record in web_archive_records(path):
        if record.text is not None:
            yield (record.uri, record.record_id, record.offset, record.text)


def _native_order() -> str:
    import sys

    return sys.byteorder
