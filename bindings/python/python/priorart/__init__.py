"""priorart from Python: content fingerprints (NIP-FF-3 ``minhash-equality-v1``,
``simhash-doc-v2``, ``simhash-doc``), document extraction, OpenTimestamps and NIP-FF-3
verification.

Every answer is computed by priorart's Rust crates, the same code as the
``priorart`` command, so a text has the same fingerprints here as there.
Bad input raises :class:`InputError` (a :class:`ValueError`) or one of its
subclasses, whose ``reason`` attribute names the typed reason
(``too_large``, ``unknown_scheme``, ...).

Structured answers are typed (frozen dataclasses of
:mod:`priorart.results`, named as the CLI's JSON members); every function
returns one type.

Submodules: :mod:`priorart.ots` (OpenTimestamps proofs), :mod:`priorart.nip`
(NIP-FF-3 events), :mod:`priorart.results` (the result types),
:mod:`priorart.spark` (near-duplicate detection on Apache Spark; install
``priorart[spark]``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import TracebackType
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Literal,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
    overload,
)

from . import _priorart
from ._priorart import ExtractionError, InputError, ProofError
from .results import (
    BoilerplatePassage,
    CheckReport,
    DedupCluster,
    DedupPair,
    DedupResult,
    Explained,
    Explanation,
    IndexMatch,
    NearPair,
    Passage,
    PassagePair,
    PassageSearch,
    SimhashDocExplanation,
    WebArchiveRecord,
)

if TYPE_CHECKING:
    import numpy
    from typing_extensions import Self

# The public names; also what dir(priorart) lists (`__dir__` below).
__all__ = [
    "BoilerplatePassage",
    "CheckReport",
    "DedupCluster",
    "DedupPair",
    "DedupResult",
    "EQUALITY_SCHEMES",
    "Explained",
    "Explanation",
    "ExtractionError",
    "HeaderSource",
    "Index",
    "IndexMatch",
    "InputError",
    "MAX_DISTANCE",
    "NearPair",
    "PDF_TIME_LIMIT",
    "Passage",
    "PassagePair",
    "PassageSearch",
    "PassageStream",
    "Progress",
    "ProofError",
    "SCHEMES",
    "SIMHASH_DOC_SCHEMES",
    "SimhashDocExplanation",
    "SimhashLike",
    "WebArchiveRecord",
    "check",
    "dedup",
    "dedup_passages",
    "explain",
    "explain_equality",
    "explain_simhash_doc",
    "extract",
    "fingerprint",
    "fingerprint_many",
    "hamming",
    "iter_dedup_passages",
    "layout_shape",
    "near_copies_filter",
    "near_copies_proof_filter",
    "near_pairs",
    "near_pairs_array",
    "nip",
    "ots",
    "passages",
    "results",
    "simhash_doc",
    "simhash_doc_array",
    "simhash_doc_many",
    "simhash_doc_text",
    "simhash_doc_value",
    "similarity",
    "table_keys",
    "table_keys_many",
    "warc_records",
    "web_archive_records",
]

#: Every scheme identifier :func:`fingerprint` accepts (the fingerprint
#: crate's list).
SCHEMES = tuple(_priorart.SCHEMES)
#: The simhash-doc schemes (a 64-bit value, 13 base32hex characters), the
#: default first: ``simhash-doc-v2`` cuts Chinese, Japanese, Thai, Lao,
#: Khmer and Myanmar letters into character bigrams (equal to
#: ``simhash-doc`` on text without them); ``simhash-doc`` is the frozen
#: first rule (a clause of those scripts is one token).
SIMHASH_DOC_SCHEMES = tuple(_priorart.SIMHASH_DOC_SCHEMES)
#: The equality schemes (a 64-hex-digit ``X``).
EQUALITY_SCHEMES = tuple(scheme for scheme in SCHEMES if scheme not in SIMHASH_DOC_SCHEMES)
#: The largest ``k`` a lookup serves (index queries, :func:`near_pairs`,
#: dedup's candidates): the largest distance whose table layout finds
#: every pair (the index crate's bound).
MAX_DISTANCE: int = _priorart.MAX_DISTANCE

#: Where block headers come from (keyword arguments as the CLI's options:
#: ``esplora``, ``bitcoin_rpc``, ``rpc_cookie``, ``rpc_user``,
#: ``rpc_password``, ``rpc_password_file``, ``header_cache``,
#: ``no_header_cache``, ``network`` (``mainnet`` or ``regtest``),
#: ``timeout`` in seconds, 10 by default). With no arguments: the default
#: header cache directory and no network. It is ots-net's ``HeaderConfig``:
#: a combination that cannot work is an :class:`InputError` whose
#: ``reason`` is the CLI's (``two_header_sources``, ``no_header_source``,
#: ``user_without_password``, ...).
HeaderSource = _priorart.HeaderSourceOptions

SimhashLike = Union[int, str]


def fingerprint(text: str, scheme: str = "minhash-equality-v1") -> str:
    """The fingerprint of ``text`` under ``scheme``, in its wire form: 64
    lowercase hex digits for the equality schemes (NIP-FF-3's ``X`` for
    ``minhash-equality-v1``), 13 base32hex characters for ``simhash-doc-v2``
    and ``simhash-doc``.

    Raises :class:`InputError` (reason ``unknown_scheme``) for an unknown
    scheme."""
    return _priorart.fingerprint(text, scheme)


@overload
def explain(text: str, scheme: Literal["simhash-doc-v2", "simhash-doc"]) -> SimhashDocExplanation: ...


@overload
def explain(
    text: str, scheme: Literal["minhash-equality-v1", "simhash-equality-v2"] = "minhash-equality-v1"
) -> Explanation: ...


@overload
def explain(text: str, scheme: str) -> Explained: ...


def explain(text: str, scheme: str = "minhash-equality-v1") -> Explained:
    """Every intermediate value behind ``fingerprint(text, scheme)``, with
    the members of ``priorart fingerprint --explain --json`` (less ``file``
    and ``input``): an :class:`~priorart.results.Explanation` (canonical
    text, tokens, kept tokens, bucket minima, descriptor) for the equality
    schemes, a :class:`~priorart.results.SimhashDocExplanation` (tokens,
    features, counters) for ``simhash-doc-v2`` and ``simhash-doc``. The type follows the scheme
    (the overloads say which for a literal scheme); for one return type
    whatever the argument: :func:`explain_equality` and
    :func:`explain_simhash_doc`."""
    value = json.loads(_priorart.explain_json(text, scheme))
    if value["scheme"] in SIMHASH_DOC_SCHEMES:
        return SimhashDocExplanation.from_json(value)
    return Explanation.from_json(value)


def explain_equality(text: str, scheme: str = "minhash-equality-v1") -> Explanation:
    """:func:`explain` for an equality scheme (``minhash-equality-v1``,
    ``simhash-equality-v2``): always an :class:`~priorart.results.Explanation`.
    Any other scheme is an :class:`InputError` (reason ``not_an_equality_scheme``)."""
    if scheme not in EQUALITY_SCHEMES:
        raise _input_error("not_an_equality_scheme", f"{scheme!r} is not an equality scheme: {EQUALITY_SCHEMES}")
    return Explanation.from_json(json.loads(_priorart.explain_json(text, scheme)))


def explain_simhash_doc(text: str, scheme: str = "simhash-doc-v2") -> SimhashDocExplanation:
    """:func:`explain` for a simhash-doc scheme (``simhash-doc-v2``, the
    default, or ``simhash-doc``): always a
    :class:`~priorart.results.SimhashDocExplanation`. Any other scheme is an
    :class:`InputError` (reason ``not_a_simhash_doc_scheme``)."""
    _simhash_doc_scheme(scheme)
    return SimhashDocExplanation.from_json(json.loads(_priorart.explain_json(text, scheme)))


def _simhash_doc_scheme(scheme: str) -> None:
    """Refuses a scheme that is not a simhash-doc scheme, as the extension
    does (an unknown name is ``unknown_scheme``)."""
    if scheme in EQUALITY_SCHEMES:
        raise _input_error(
            "not_a_simhash_doc_scheme",
            f"scheme={scheme!r} is not a simhash-doc scheme: expected simhash-doc-v2 or simhash-doc",
        )


def simhash_doc(text: str, scheme: str = "simhash-doc-v2") -> int:
    """The simhash-doc value of ``text`` as an unsigned 64-bit int: of
    ``simhash-doc-v2`` by default (Chinese, Japanese, Thai... cut into
    character bigrams, what ``priorart fingerprint --scheme
    simhash-doc-v2`` prints in base32hex), or of ``simhash-doc`` (the frozen
    first rule; the same value on text without those scripts). Any other
    scheme is an :class:`InputError` (reason ``not_a_simhash_doc_scheme``,
    or ``unknown_scheme``)."""
    return _priorart.simhash_doc(text, scheme)


def simhash_doc_text(value: SimhashLike) -> str:
    """The 13-character base32hex form of a simhash-doc value (what
    ``fingerprint(text, "simhash-doc-v2")`` returns for
    ``simhash_doc(text)``)."""
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


#: A progress callback: ``progress(phase, done, total)`` (``total`` 0 when
#: not known in advance), called between batches.
Progress = Callable[[str, int, int], None]


def fingerprint_many(
    texts: Iterable[str],
    schemes: Sequence[str] = ("minhash-equality-v1",),
    threads: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> List[List[str]]:
    """The fingerprints of many texts, computed on ``threads`` cores (all by
    default) with the GIL released: one list per scheme, each in the order
    of ``texts`` (``result[i][j]`` is ``fingerprint(texts[j], schemes[i])``).

    ``texts`` may be any iterable of strings (a generator, a pandas Series,
    a pyarrow ``Array`` or ``ChunkedArray``), read a batch (16 MiB of text)
    at a time: only the answers are kept, so memory does not grow with the
    texts. ``progress("fingerprinting", rows_so_far, 0)`` is called after
    each batch when given. A ``str`` instead of a collection is an
    :class:`InputError` (reason ``not_a_collection``); a row that is not a
    ``str`` a ``TypeError`` naming it (``texts[3] is NoneType``)."""
    if isinstance(schemes, str):
        schemes = [schemes]
    return _priorart.fingerprint_many(_rows(texts), list(schemes), threads, progress)


def simhash_doc_many(
    texts: Iterable[str],
    threads: Optional[int] = None,
    progress: Optional[Progress] = None,
    *,
    scheme: str = "simhash-doc-v2",
) -> List[int]:
    """The simhash-doc values (of ``scheme``, as :func:`simhash_doc`) of
    many texts, as a list of ints, computed on ``threads`` cores (all by
    default) with the GIL released, streamed as :func:`fingerprint_many`
    streams its texts. For a numpy array without a copy:
    :func:`simhash_doc_array`."""
    return _priorart.simhash_doc_many(_rows(texts), threads, progress, scheme)


def simhash_doc_array(
    texts: Iterable[str],
    threads: Optional[int] = None,
    progress: Optional[Progress] = None,
    *,
    scheme: str = "simhash-doc-v2",
) -> "numpy.ndarray":
    """:func:`simhash_doc_many` as a ``numpy.ndarray`` of ``uint64`` (read
    from the extension's buffer without a copy). Needs numpy
    (``pip install priorart[numpy]``)."""
    numpy = _numpy("simhash_doc_array")
    raw = _priorart.simhash_doc_many_bytes(_rows(texts), threads, progress, scheme)
    return numpy.frombuffer(raw, dtype=numpy.uint64)


def _numpy(function: str) -> Any:
    """numpy, or an ImportError that names the extra to install."""
    try:
        import numpy
    except ImportError as err:
        raise ImportError(f"priorart.{function} needs numpy: pip install 'priorart[numpy]'") from err
    return numpy


def table_keys(value: SimhashLike, layout: str = "manku-16x28") -> List[int]:
    """The key of a ``simhash-doc`` value in each table of an index layout
    (``manku-16x28``: the lsh-interop spec's 16 tables keyed on 28 bits,
    exact for k <= 3; ``k=N``; ``pigeonhole-B-T``), computed by the index
    crate: two values within the layout's distance share at least one
    table's key."""
    return _priorart.table_keys(value, layout)


def table_keys_many(values: Any, layout: str = "manku-16x28") -> Any:
    """:func:`table_keys` of many values (a numpy ``uint64`` array): a
    ``(len(values), tables)`` ``uint64`` array. Needs numpy
    (``pip install priorart[numpy]``)."""
    numpy = _numpy("table_keys_many")

    values = numpy.ascontiguousarray(values, dtype=numpy.uint64)
    tables = _priorart.layout_shape(layout)[0]
    raw = _priorart.table_keys_many_bytes(values.tobytes(), layout)
    return numpy.frombuffer(raw, dtype=numpy.uint64).reshape(len(values), tables)


def near_pairs(
    values: Iterable[int], k: int = 3, layout: Optional[str] = None, threads: Optional[int] = None
) -> List[NearPair]:
    """Every pair of ``simhash-doc`` values (ints, or a numpy ``uint64``
    array) within Hamming distance ``k``, each once, sorted by position:
    :class:`~priorart.results.NearPair` ``(a, b, distance)`` with ``a < b``
    indexes into ``values``. The layout is the cheapest exact one for ``k``
    (the spec's for k <= 3) unless named; a ``k`` outside 0..MAX_DISTANCE or beyond
    the named layout's distance is an :class:`InputError`. Runs on all
    cores (GIL released), each table sorted once and joined with itself:
    all pairs within k = 3 of ten million values take seconds. For a
    ``(pairs, 3)`` numpy array instead of a list: :func:`near_pairs_array`."""
    raw = _priorart.near_pairs_bytes(_u64_bytes(values), k, layout, threads)
    words = memoryview(raw).cast("I")
    return [NearPair(words[i], words[i + 1], words[i + 2]) for i in range(0, len(words), 3)]


def near_pairs_array(
    values: Any, k: int = 3, layout: Optional[str] = None, threads: Optional[int] = None
) -> "numpy.ndarray":
    """:func:`near_pairs` as a ``(pairs, 3)`` ``uint32`` numpy array (rows
    ``a, b, distance``). Needs numpy (``pip install priorart[numpy]``)."""
    numpy = _numpy("near_pairs_array")
    raw_values = numpy.ascontiguousarray(values, dtype=numpy.uint64).tobytes()
    raw = _priorart.near_pairs_bytes(raw_values, k, layout, threads)
    return numpy.frombuffer(raw, dtype=numpy.uint32).reshape(-1, 3)


def dedup(
    texts: Iterable[str],
    ids: Optional[Iterable[Union[str, int]]] = None,
    *,
    min_jaccard: float = 0.8,
    shingles: Optional[str] = None,
    candidates: Optional[str] = None,
    k: int = 6,
    working_set: Optional[int] = None,
    threads: Optional[int] = None,
    temp_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: Optional[Progress] = None,
    against: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> DedupResult:
    """Every near-duplicate pair of a collection, verified, and its
    clusters: what ``priorart dedup`` finds for the same texts, computed by
    the same engine (the ``priorart-dedup`` crate) with the same defaults.

    Candidates are documents sharing a MinHash LSH band key of their word
    5-grams (``candidates="minhash"``, the default from ``min_jaccard``
    0.3 up) or within simhash-doc distance ``k`` (``"simhash"``); each is
    kept when the exact Jaccard similarity of the two texts' word 5-grams
    is at least ``min_jaccard``. ``shingles``: ``"words"`` (lowercased
    ``\\w+`` runs, the default) or ``"tokens"`` (simhash-doc-v2's tokens),
    as the CLI's ``--shingles`` (both cut Chinese, Japanese, Thai... into
    character bigrams, and the simhash-doc values are ``simhash-doc-v2``'s);
    ``"words-v1"`` and ``"tokens-v1"`` are the rules before simhash-doc-v2
    (with ``simhash-doc`` values).

    ``texts`` is any iterable of ``str`` (a list, a generator, a pandas
    Series, a pyarrow ``Array`` or ``ChunkedArray`` of strings), read once,
    in batches: the texts go to a temporary file (in ``temp_dir``, the
    system's by default) as they arrive and only the candidates are read
    back, so memory does not grow with their total size. ``ids`` (same
    length; ``str`` or ``int``) name the documents; by default a document
    is named by its row number (``"0"``, ``"1"``, ...). Empty texts (or only
    white space) are skipped and counted (:attr:`DedupResult.empty`).
    ``progress``, if given, is called after each batch read as
    ``progress("reading", rows_so_far, 0)``, then about five times a second
    and once at the end as ``progress("candidates" or "verifying", done,
    total)``. Ctrl-C stops a run (``KeyboardInterrupt``) at the engine's next
    check.

    Raises :class:`InputError`: a ``str`` where the texts belong (reason
    ``not_a_collection``), ids not as many as the texts (``ids_length``), an
    id given twice (``repeated_id``), a threshold outside 0..1
    (``threshold``); ``TypeError`` for a row that is not a text, naming it
    (``texts[2] is NoneType``).

    ``against``: the directory of an index (``priorart index``), as the
    CLI's ``dedup --against INDEX``: the texts are paired with each other
    (verified exactly; candidates within ``k``) and with the index's
    documents (kept by the Jaccard estimated from its sketches, or
    unverified where it holds none), never the index's with each other;
    :attr:`DedupResult.survivors` lists the texts to keep. The texts'
    shingles are held in memory then (as the CLI holds them);
    ``shingles`` defaults to the index's, and another is refused
    (``shingles_mismatch``); ``candidates``, ``working_set`` and
    ``temp_dir`` do not apply (``ValueError``)."""
    if isinstance(texts, (str, bytes)):
        raise _input_error("not_a_collection", "texts is one text: pass a list (or any iterable) of texts")
    if isinstance(ids, (str, bytes)):
        raise _input_error("not_a_collection", "ids is one str: pass a list (or any iterable) of ids")
    if against is not None:
        return _dedup_against(texts, ids, os.fspath(against), min_jaccard, shingles, candidates, k,
                              working_set, threads, temp_dir, progress)
    found = _priorart.dedup_jsonl(
        _rows(texts),
        None if ids is None else _rows(ids),
        k,
        min_jaccard,
        "words" if shingles is None else shingles,
        candidates,
        working_set,
        threads,
        None if temp_dir is None else os.fspath(temp_dir),
        progress,
    )
    pairs_text, clusters_text, documents, empty, candidate_count = found
    pairs = tuple(DedupPair(**json.loads(line)) for line in pairs_text.splitlines())
    clusters = tuple(
        DedupCluster(c["representative"], c["size"], tuple(c["members"]), c["simhash-doc"])
        for c in map(json.loads, clusters_text.splitlines())
    )
    return DedupResult(pairs, clusters, documents, empty, candidate_count)


def _dedup_against(
    texts: Iterable[str],
    ids: Optional[Iterable[Union[str, int]]],
    against: str,
    min_jaccard: float,
    shingles: Optional[str],
    candidates: Optional[str],
    k: int,
    working_set: Optional[int],
    threads: Optional[int],
    temp_dir: Optional[Union[str, "os.PathLike[str]"]],
    progress: Optional[Progress],
) -> DedupResult:
    """:func:`dedup` with ``against=``: ``priorart dedup --against``."""
    unused = [name for name, value in (("candidates", candidates), ("working_set", working_set),
                                       ("temp_dir", temp_dir)) if value is not None]
    if unused:
        # The CLI's --against takes simhash candidates within k and holds
        # the shingles in memory: these options have nothing to change.
        raise ValueError(f"{', '.join(unused)} cannot be given with against= (candidates within k, in memory)")
    found = _priorart.dedup_against_jsonl(
        _rows(texts),
        against,
        None if ids is None else _rows(ids),
        k,
        min_jaccard,
        # None: the index's shingling.
        shingles,
        threads,
        progress,
    )
    pairs_text, clusters_text, survivors_text, documents, empty, candidate_count, again = found
    pairs = tuple(DedupPair(**json.loads(line)) for line in pairs_text.splitlines())
    clusters = tuple(
        DedupCluster(c["representative"], c["size"], tuple(c["members"]), c["simhash-doc"], tuple(c["from_index"]))
        for c in map(json.loads, clusters_text.splitlines())
    )
    survivors = tuple(json.loads(line)["id"] for line in survivors_text.splitlines())
    return DedupResult(pairs, clusters, documents, empty, candidate_count, survivors, again)


def dedup_passages(
    texts: Iterable[str],
    ids: Optional[Iterable[Union[str, int]]] = None,
    *,
    min_words: int = 50,
    boilerplate: int = 32,
    min_marks: int = 5,
    min_coverage: float = 0.65,
    passage_text: bool = False,
    working_set: Optional[int] = None,
    threads: Optional[int] = None,
    temp_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: Optional[Progress] = None,
) -> PassageSearch:
    """Every pair of documents of a collection that share a passage (a
    partial copy: a paragraph pasted into another text, verbatim or with
    words replaced), with the passages, and the boilerplate set apart:
    what ``priorart dedup --passages`` finds for the same texts, computed
    by the same search (the ``priorart-dedup`` crate) with the same
    defaults. :meth:`PassageSearch.passages_jsonl` and
    :meth:`PassageSearch.boilerplate_jsonl` are its two files.

    A pair's passages are where they are in both texts (offsets); with
    ``passage_text=True`` (the CLI's ``--passage-text``) their texts on
    both sides too, about as large as the collection again on one whose
    documents share much. Every pair is held: for a large collection,
    :func:`iter_dedup_passages` hands them over as the search finds them,
    or writes the CLI's two files, in memory that does not grow with
    them.

    Each text's winnowing marks (hashes of its content-word 3-grams) are
    sorted on disk; pairs of documents sharing at least ``min_marks`` of
    them (5 within 64 content words) are aligned by ``priorart compare
    --passages``'s aligner, and a passage is reported when it has at least
    ``min_words`` words on both sides (two Chinese, Japanese or Thai
    letters counting one) and one side is found in the other
    in runs of words (``min_coverage``, 0 to 1, of its content words). A
    hash more than ``boilerplate`` documents hold (licenses, headers) makes
    no pair: its passages are reported once each
    (:attr:`PassageSearch.boilerplate`). A pair is ``(a, b)`` with ``a``
    the earlier in the input.

    ``texts`` and ``ids`` are read as :func:`dedup` reads them (any
    iterable, pyarrow arrays a slice at a time, 16 MiB batches with the GIL
    released; the texts spilled to a temporary file in ``temp_dir`` and
    only the candidates read back: memory does not grow with their total
    size; ``working_set`` bytes of prepared texts aligned at once, each
    text counted with its words and marks, about 4 times its bytes in
    English and 7 in Chinese or Japanese: by default 1 GiB, less past
    about 6 million texts so that the search stays under 2 GiB, as the
    CLI's ``--working-set``). Empty texts are skipped and counted. ``progress``, if given,
    is called after each batch read as ``progress("reading", rows, 0)``,
    then about five times a second as ``progress("candidates" or
    "verifying", done, total)`` (verifying: aligning the candidates).
    Ctrl-C stops a run (``KeyboardInterrupt``).

    Raises :class:`InputError`: a ``str`` where the texts belong (reason
    ``not_a_collection``), ids not as many as the texts (``ids_length``),
    an id given twice (``repeated_id``), a setting out of range
    (``out_of_range``, naming it: ``min_words`` at least 1,
    ``boilerplate`` at least 2, ``min_marks`` at least 1); ``TypeError``
    for a row that is not a text, naming it."""
    with iter_dedup_passages(
        texts,
        ids,
        min_words=min_words,
        boilerplate=boilerplate,
        min_marks=min_marks,
        min_coverage=min_coverage,
        passage_text=passage_text,
        working_set=working_set,
        threads=threads,
        temp_dir=temp_dir,
        progress=progress,
    ) as search:
        pairs = tuple(search)
    return PassageSearch(pairs, search.boilerplate, search.documents, search.empty, search.unmarked,
                         search.candidates, search.unaligned)


def iter_dedup_passages(
    texts: Iterable[str],
    ids: Optional[Iterable[Union[str, int]]] = None,
    *,
    min_words: int = 50,
    boilerplate: int = 32,
    min_marks: int = 5,
    min_coverage: float = 0.65,
    passage_text: bool = False,
    working_set: Optional[int] = None,
    threads: Optional[int] = None,
    temp_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
    progress: Optional[Progress] = None,
) -> PassageStream:
    """:func:`dedup_passages` for collections of any size: the texts are
    read (and winnowed, and spilled to ``temp_dir``) before this returns,
    then the search runs on a thread of its own while the
    :class:`PassageStream` returned hands its pairs over as it finds them,
    in the CLI's order (a batch of at most a few thousand pairs at a time:
    two batches held at most, whatever the number of pairs), or writes
    ``priorart dedup --passages --out DIR``'s two files byte for byte
    (:meth:`PassageStream.write`).
    The arguments and errors are :func:`dedup_passages`' (an id given
    twice is raised by the first pair asked for).

    >>> with priorart.iter_dedup_passages(texts, ids) as search:    # doctest: +SKIP
    ...     for pair in search:
    ...         print(pair.a, pair.b, len(pair.passages))
    >>> search.boilerplate, search.candidates                     # doctest: +SKIP

    Use it in a ``with`` block (or call :meth:`PassageStream.close`): a
    search left before its last pair (a ``break``, an exception, Ctrl-C)
    is stopped there, its thread waited for and its temporary files
    removed; without one, that happens when the stream is garbage
    collected."""
    if isinstance(texts, (str, bytes)):
        raise _input_error("not_a_collection", "texts is one text: pass a list (or any iterable) of texts")
    if isinstance(ids, (str, bytes)):
        raise _input_error("not_a_collection", "ids is one str: pass a list (or any iterable) of ids")
    return PassageStream(_priorart.dedup_passages_stream(
        _rows(texts),
        None if ids is None else _rows(ids),
        min_words,
        boilerplate,
        min_marks,
        min_coverage,
        passage_text,
        working_set,
        threads,
        None if temp_dir is None else os.fspath(temp_dir),
        progress,
    ))


class PassageStream(Iterator[PassagePair]):
    """A passage search running (:func:`iter_dedup_passages`): an iterator
    of its pairs (:class:`PassagePair`, the CLI's ``passages.jsonl`` lines
    parsed), in the CLI's order, and a context manager that stops it
    (:meth:`close`). ``documents``, ``empty`` and ``unmarked`` are known
    from the start; ``boilerplate``, ``candidates`` and ``unaligned`` once
    every pair has been handed over or written (before, or after
    :meth:`close` cut it short, they raise ``RuntimeError``)."""

    __slots__ = ("_boilerplate", "_search")

    def __init__(self, search: _priorart.PassageRounds) -> None:
        self._search = search
        self._boilerplate: Optional[Tuple[BoilerplatePassage, ...]] = None

    def __iter__(self) -> "PassageStream":
        return self

    def __next__(self) -> PassagePair:
        return PassagePair.from_json(json.loads(next(self._search)))

    def write(self, out: Union[str, "os.PathLike[str]"]) -> int:
        """Writes every pair to ``out/passages.jsonl`` and the boilerplate
        to ``out/boilerplate.jsonl`` (``out`` created if needed), byte for
        byte as ``priorart dedup --passages --out OUT`` writes them: the
        pairs go to a temporary file in ``out`` as they are found, which
        takes its name once the search is complete (an error or Ctrl-C
        removes it and leaves ``out`` as it was). Returns how many pairs.
        Only before any pair is taken (else ``ValueError``); the pairs never
        pass through Python."""
        return self._search.write(os.fspath(out))

    def close(self) -> None:
        """Stops the search if it runs (its thread waited for, its
        temporary files removed); the pairs not taken are not found."""
        self._search.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        value: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        self.close()

    @property
    def documents(self) -> int:
        """The documents searched (empty texts are not)."""
        return self._search.documents

    @property
    def empty(self) -> int:
        """The empty texts (or only white space) skipped."""
        return self._search.empty

    @property
    def unmarked(self) -> int:
        """The texts too large to search (over 64 MiB: in no pair)."""
        return self._search.unmarked

    def _ending(self) -> Tuple[str, int, int]:
        ending = self._search.ending()
        if ending is None:
            raise RuntimeError("known once every pair has been handed over (or written), and this search has not")
        return ending

    @property
    def boilerplate(self) -> Tuple[BoilerplatePassage, ...]:
        """The boilerplate passages (the CLI's ``boilerplate.jsonl``)."""
        if self._boilerplate is None:
            text, _, _ = self._ending()
            self._boilerplate = tuple(BoilerplatePassage(**json.loads(line)) for line in _jsonl(text))
        return self._boilerplate

    @property
    def candidates(self) -> int:
        """The candidate pairs aligned."""
        return self._ending()[1]

    @property
    def unaligned(self) -> int:
        """The pairs the aligner refused (too large or too repetitive)."""
        return self._ending()[2]

    def __repr__(self) -> str:
        return f"PassageStream(documents={self.documents})"


def _jsonl(text: str) -> Iterator[str]:
    """The lines of JSON Lines text, each ending in a newline, one at a
    time (not a list of copies of them all): split at newlines only
    (``str.splitlines`` also splits at U+2028 and U+0085, which JSON strings
    hold unescaped)."""
    start = 0
    while True:
        end = text.find("\n", start)
        if end < 0:
            return
        yield text[start:end]
        start = end + 1


#: Rows of a pyarrow array converted to Python at once (bounded memory).
_ARROW_SLICE = 65536


def _rows(values: Any) -> Iterable[Any]:
    """The items of ``values``; a pyarrow ``Array`` or ``ChunkedArray`` as
    Python values a slice at a time (iterating one gives pyarrow scalars,
    and ``to_pylist`` of the whole would hold every text at once)."""
    if hasattr(values, "chunks") and hasattr(values, "num_chunks"):
        return (row for chunk in values.chunks for row in _rows(chunk))
    if hasattr(values, "to_pylist") and hasattr(values, "slice") and hasattr(values, "type"):
        return (
            row
            for start in range(0, len(values), _ARROW_SLICE)
            for row in values.slice(start, _ARROW_SLICE).to_pylist()
        )
    return values


def _u64_bytes(values: Any) -> bytes:
    """Values as native-endian 8-byte integers: a numpy array's buffer, or
    each int converted (an int outside 0..2**64 is an :class:`InputError`)."""
    if hasattr(values, "dtype") and hasattr(values, "tobytes"):
        import numpy

        return numpy.ascontiguousarray(values, dtype=numpy.uint64).tobytes()
    try:
        return b"".join(int(v).to_bytes(8, sys.byteorder) for v in values)
    except OverflowError:
        raise _input_error("out_of_range", "a simhash-doc value is an int in 0..2**64") from None


def _input_error(reason: str, message: str) -> InputError:
    err = InputError(message)
    err.reason = reason
    return err


def layout_shape(layout: str = "manku-16x28") -> Tuple[int, int, List[int]]:
    """``(tables, max_distance, key_bits per table)`` of an index layout."""
    return _priorart.layout_shape(layout)


#: Seconds a PDF may take to read (the CLI's limit): past it the child
#: process reading it is killed.
PDF_TIME_LIMIT = 60.0


def extract(data: bytes, format: Optional[str] = None, *, time_limit: float = PDF_TIME_LIMIT) -> str:
    """The text of one document (HTML, XML, PDF, EPUB, text; detected from
    the content unless ``format`` is given), exactly as every priorart
    command reads a file before fingerprinting it, under the same limits.
    A web archive holds many documents: read it with
    :func:`warc_records`. Raises :class:`ExtractionError` with the
    extractor's ``reason``.

    A PDF is read as the CLI reads one: in a child process, killed when it
    runs longer than ``time_limit`` seconds (then the reason is
    ``timeout``), so that a hostile PDF cannot keep a thread of this
    process (or of a Spark executor) busy after the call returned."""
    if _priorart.detect_format(data, format) == "pdf":
        return _pdf_in_child(data, time_limit)
    return _priorart.extract(data, format)


def _pdf_in_child(data: bytes, time_limit: float) -> str:
    """The text of a PDF, read by ``python -m priorart._pdf_worker``."""
    if not time_limit > 0:
        raise _input_error("out_of_range", f"time_limit={time_limit}: expected a positive number of seconds")
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    child = subprocess.Popen(
        [sys.executable, "-m", "priorart._pdf_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        out, err = child.communicate(data, timeout=time_limit)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise _extraction_error("timeout", f"reading the PDF took longer than {time_limit:g} s: stopped") from None
    except BaseException:
        child.kill()
        child.communicate()
        raise
    try:
        answer = json.loads(out.decode("utf-8"))
    except ValueError:
        tail = err.decode("utf-8", "replace").strip()[-2000:]
        message = f"the PDF worker ended with status {child.returncode}: {tail}"
        raise _extraction_error("worker_failed", message) from None
    if "text" in answer:
        return answer["text"]
    raise _extraction_error(answer["reason"], answer["message"])


def _extraction_error(reason: str, message: str) -> ExtractionError:
    err = ExtractionError(message)
    err.reason = reason
    return err


def web_archive_records(path: Union[str, "os.PathLike[str]"]) -> Iterator[WebArchiveRecord]:
    """Every record of a WARC or ARC file (gzipped or not), in file order,
    bad ones included with their reason: one bad record does not stop the
    others. The file is read lazily (memory-mapped; one record or gzip
    member is held at a time), so an archive of any size streams; it must
    not be truncated while it is read (appending is fine). Raises
    :class:`ExtractionError` if the file is not a web archive,
    :class:`OSError` if it cannot be read."""
    reader = _priorart.web_archive_records(os.fspath(path))
    return (WebArchiveRecord(*record) for record in reader)


def warc_records(
    path: Union[str, "os.PathLike[str]"],
) -> Iterator[Tuple[Optional[str], Optional[str], Optional[int], str]]:
    """``(uri, record_id, offset, text)`` of every document of a WARC or
    ARC file, the way ``priorart dedup`` and ``priorart index`` read one,
    lazily (records that fail are skipped: see :func:`web_archive_records`)."""
    for record in web_archive_records(path):
        if record.text is not None:
            yield (record.uri, record.record_id, record.offset, record.text)


class Index:
    """A near-duplicate index of documents, as datasketch's ``MinHashLSH``
    is one of MinHash signatures: the index crate's permuted
    ``simhash-doc`` tables (every document within Hamming distance ``k``
    is found, none missed, for any ``k`` up to the layout's), exact
    ``minhash-equality-v1`` (``X``) equality, and a shingle sketch of each
    text for an estimate of its Jaccard similarity.

    >>> index = Index()
    >>> index.insert("a", "Tidal mills ground grain in the estuaries of Europe for eight centuries.")
    >>> index.insert("b", "Tidal mills ground grain in the estuaries of Europe for eight centuries!")
    >>> [m.id for m in index.query("Tidal mills ground grain in the estuaries of Europe for eight centuries.")]
    ['a', 'b']

    ``save(path)`` writes the directory ``priorart index`` reads and writes
    (``priorart index query PATH FILE`` answers from it), with each text's
    passage marks as ``priorart index build`` keeps them (so that
    :meth:`query_passages` and ``priorart index query --passages`` answer
    from it), and ``Index.open(path)`` opens one built by either."""

    __slots__ = ("_index",)

    def __init__(self, layout: str = "manku-16x28", shingles: str = "words", *, marks: bool = True) -> None:
        """An empty index with table ``layout``: ``manku-16x28`` (the
        lsh-interop spec's 16 tables, exact for k <= 3), ``k=N`` (exact for
        k <= N, more tables) or ``pigeonhole-B-T``. ``shingles`` says how
        texts are cut into words for the sketches' word 5-grams: ``words``
        (lowercased ``\\w+`` runs, as other dedup tools) or ``tokens``
        (``simhash-doc-v2``'s tokens), both with the texts'
        ``simhash-doc-v2`` values in the tables; ``words-v1`` and
        ``tokens-v1`` are the rules of indexes built before simhash-doc-v2
        (``simhash-doc`` values); an index opened keeps its own. A
        document inserted as a simhash-doc value has no sketch: its
        matches have no Jaccard estimate (``None``). ``marks``: keep each
        text's passage marks (its winnowing hashes with their places, 24
        bytes per about 2.5 content words, written to a temporary file as
        texts are inserted, so that memory does not grow with them, until
        :meth:`save`), as ``priorart index build`` does unless
        ``--no-marks``."""
        self._index = _priorart.Index(layout, shingles, marks)

    @classmethod
    def open(cls, path: Union[str, "os.PathLike[str]"]) -> "Index":
        """The index in directory ``path`` (written by :meth:`save` or
        ``priorart index build``). Raises :class:`InputError` for a
        directory that holds no index or a damaged one."""
        index = cls.__new__(cls)
        index._index = _priorart.Index.open(os.fspath(path))
        return index

    def insert(self, id: str, document: Union[str, int]) -> None:
        """Adds a document under ``id``: a text (``str``: its simhash-doc
        value, ``X`` and shingle sketch are kept) or a simhash-doc value
        (``int``: found by distance alone; of the index's scheme,
        ``simhash-doc-v2`` unless :attr:`shingles` is a v1 shingling). An
        ``id`` already in the index is an :class:`InputError`
        (``duplicate_ids``)."""
        self._index.insert(id, document)

    def query(self, document: Union[str, int], k: int = 3) -> List[IndexMatch]:
        """The documents within Hamming distance ``k`` of a text or
        simhash-doc value (as :meth:`insert` takes them), most similar first (by Jaccard estimate for
        a text), then nearest; for a text, also those with the same ``X``.
        ``k`` beyond the layout's distance is an :class:`InputError`."""
        return [IndexMatch(*hit) for hit in self._index.query(document, k)]

    def query_passages(self, text: str) -> Dict[str, Any]:
        """The indexed documents ``text`` shares passages with (50 words or
        more, verbatim or edited), as ``priorart index query --passages
        --json`` prints them: ``{"documents": [{"id", "marks", "passages":
        [{"text": {offsets and text in ``text``}, "indexed": {"byte_offset",
        "byte_length"}, "marks", "similarity"}]}], "boilerplate": [...]}``.
        The documents searched are those saved (:meth:`save`, or the
        directory it was opened from), with their marks: an index built
        with ``marks=False`` or ``--no-marks``, or saved to a directory
        other than the one it was opened from or last saved to (the marks
        on disk are not copied), holds none, and is an :class:`InputError`
        (reason ``no_marks``), as is one never saved."""
        return json.loads(self._index.query_passages_json(text))

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the index to directory ``path``: a new segment of what
        was inserted when ``path`` is where it was opened from or last
        saved to (with the texts' passage marks when the index holds
        marks), else a whole index (replacing what ``path`` held once the
        new one is complete; with the marks unless ``marks=False``, or the
        index was opened from or saved to another directory before, whose
        documents' marks cannot be copied). A save that fails loses
        nothing: what was inserted, with its marks, stays to be saved."""
        self._index.save(os.fspath(path))

    @property
    def layout(self) -> str:
        """The table layout's name."""
        return self._index.layout

    @property
    def shingles(self) -> str:
        """The shingling's name: ``words`` or ``tokens`` (the index holds
        ``simhash-doc-v2`` values), ``words-v1`` or ``tokens-v1`` (an index
        built before simhash-doc-v2: ``simhash-doc`` values)."""
        return self._index.shingles

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, id: object) -> bool:
        return isinstance(id, str) and id in self._index

    def __repr__(self) -> str:
        return f"Index(layout={self.layout!r}, documents={len(self)})"


def check(
    x_or_text: str,
    relay_answers: Sequence[Any],
    header_source: Optional["HeaderSource"] = None,
    near: Optional[Dict[str, Any]] = None,
) -> CheckReport:
    """Who published this text first: the NIP's discovery check on what
    relays answered, as ``priorart check`` runs it, without I/O (you ask
    the relays, for the filter ``{"kinds": [1, 20, 30023, 1041, 1040],
    "#X": [x]}``, by any means).

    ``x_or_text`` is the ``X`` (64 hex digits) or a text (its
    ``minhash-equality-v1`` is taken). ``relay_answers``: one dict per
    relay, ``{"url", "ending": {"status": "eose"}, "events": [...]}``
    (events as NIP-01 objects or their JSON text; optional ``notices``,
    ``answered``, ``elapsed_ms``); every event's id, signature and match
    with the filter are checked, as priorart's relay client checks them.
    Every kind 1041 is verified against ``header_source`` (default: the
    header cache directory alone), the valid ones ranked by block.

    ``near`` adds the near copies, as ``priorart check --fuzzy``:
    ``{"text": ..., "key_answers": [...], "proof_answers": [...]}``, the
    answers to :func:`near_copies_filter` ``(text)`` and to
    :func:`near_copies_proof_filter` (answers as above). A near copy proven
    earlier than every proof of X makes the verdict ``near_copy_proven``.
    Returns the ``priorart-check/1`` report, typed."""
    x = x_or_text.strip().lower()
    if not (len(x) == 64 and all(c in "0123456789abcdef" for c in x)):
        x = fingerprint(x_or_text)
    source = header_source if header_source is not None else HeaderSource()
    answers = json.dumps(list(relay_answers))
    copies = None
    if near is not None:
        copies = (
            near["text"],
            json.dumps(list(near.get("key_answers", []))),
            json.dumps(list(near.get("proof_answers", []))),
        )
    return CheckReport.from_json(json.loads(_priorart.check_json(x, answers, source, copies)))


def near_copies_filter(text: str) -> Dict[str, Any]:
    """The REQ filter of the near copies of ``text`` (docs/nip-ff-3-fuzzy.md):
    the content events carrying one of its ``B`` keys (the 28 of its
    ``simhash-doc-v2`` value and, for text ``simhash-doc`` cuts otherwise,
    those of its ``simhash-doc`` value, which events tagged before v2
    carry), which finds every tagged text within 6 bits, as ``priorart
    check --fuzzy`` sends it."""
    found = _priorart.near_copies_filter_json(text)
    assert found is not None, "without key answers, the filter is the B-key query itself"
    return json.loads(found)


def near_copies_proof_filter(text: str, key_answers: Sequence[Any]) -> Optional[Dict[str, Any]]:
    """The REQ filter of the kind 1041 proofs of the near copies among
    ``key_answers`` (what relays answered to :func:`near_copies_filter`),
    or ``None`` without a verified near copy."""
    found = _priorart.near_copies_filter_json(text, json.dumps(list(key_answers)))
    return None if found is None else json.loads(found)


def passages(a: str, b: str) -> List[Passage]:
    """The passages texts ``a`` and ``b`` share, in the order they come in
    ``a``, as ``priorart compare --passages`` finds them: robust to words
    edited, shuffled or deleted inside a passage, to reordered paragraphs
    and to passages moved elsewhere; none between unrelated texts.
    Offsets are ``str`` indices into ``a`` and ``b`` (and byte offsets into
    their UTF-8). A text over 64 MiB is an :class:`InputError` (reason
    ``text_too_large``)."""
    found = json.loads(_priorart.passages_json(a, b, "a", "b"))
    return [Passage.from_json(passage) for passage in found["passages"]]


# The submodules of verification, importable as attributes of the package
# (`priorart.ots.verify`); they import the names above.
from . import nip, ots  # noqa: E402


def __dir__() -> List[str]:
    """``dir(priorart)``: the public names, not the modules and typing
    names the package imports for its own use (PEP 562)."""
    return sorted(__all__)
