"""The typed results of :mod:`priorart`: frozen dataclasses (with slots on
Python 3.10+) whose attribute names are the members of the JSON the
``priorart`` command prints for the same answer (``-`` becomes ``_``).
Sequences are tuples. Each report's :meth:`to_json` gives back that JSON
object (a dict), member for member, for tools that want the CLI's format.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, fields
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

__all__ = [
    "Attestation",
    "BitcoinAnchor",
    "BoilerplatePassage",
    "Bucket",
    "CheckBlock",
    "CheckReport",
    "CheckVerdict",
    "ContentEventSeen",
    "ContentReference",
    "CostToForge",
    "DedupCluster",
    "DedupPair",
    "DedupResult",
    "Earliest",
    "ContentCheck",
    "Explanation",
    "IndexMatch",
    "NearPair",
    "Operation",
    "OtsFailure",
    "OtsVerification",
    "Passage",
    "PassagePair",
    "PassageSearch",
    "PassageSide",
    "ProofInfo",
    "RankedProof",
    "RefusedProof",
    "RelayEnding",
    "RelaySummary",
    "SkippedMessages",
    "SimhashDocExplanation",
    "Step",
    "TimestampNode",
    "UnverifiedProof",
    "VerifyReport",
    "VerifyWarning",
    "WebArchiveRecord",
]

if TYPE_CHECKING:  # type checkers see a frozen dataclass (PEP 681)
    from typing_extensions import dataclass_transform

    _T = TypeVar("_T")

    @dataclass_transform(frozen_default=True)
    def _record(cls: type[_T]) -> type[_T]: ...
elif sys.version_info >= (3, 10):
    _record = dataclass(frozen=True, slots=True)
else:  # slots=True arrived in 3.10
    _record = dataclass(frozen=True)


def _plain(value: Any) -> Any:
    """A field's value as JSON: nested records as objects, tuples as arrays."""
    if hasattr(value, "to_json"):
        return value.to_json()
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


_Record = TypeVar("_Record", bound="_Json")


_HINTS: Dict[type, Dict[str, Any]] = {}


def _hints(cls: type) -> Dict[str, Any]:
    """A record's field annotations, evaluated once."""
    if cls not in _HINTS:
        _HINTS[cls] = get_type_hints(cls)
    return _HINTS[cls]


def _read(annotation: Any, value: Any) -> Any:
    """A JSON value as a field annotated `annotation` holds it: records
    through their ``from_json``, arrays as tuples, anything else as it is."""
    if value is None:
        return None
    origin = get_origin(annotation)
    if origin is Union:  # Optional[X]
        return _read(next(arg for arg in get_args(annotation) if arg is not type(None)), value)
    if origin is tuple:
        return tuple(_read(get_args(annotation)[0], item) for item in value)
    if isinstance(annotation, type) and issubclass(annotation, _Json):
        return annotation.from_json(value)
    return value


class _Json:
    """``to_json``: every field under its own name, in the order of the
    JSON (``_JSON_ORDER`` when the fields cannot come in it: a field with a
    default must follow those without); a field listed in ``_OPTIONAL`` is
    left out when it is ``None`` (the JSON omits it). tests/test_schemas.py
    holds the order to the schema's, bindings/wasm/tests/conformance.test.mjs
    the JSON to the CLI's."""

    __slots__ = ()
    _OPTIONAL: Tuple[str, ...] = ()
    _JSON_ORDER: Tuple[str, ...] = ()

    @classmethod
    def json_order(cls) -> Tuple[str, ...]:
        """The members of :meth:`to_json`, in order."""
        return cls._JSON_ORDER or tuple(field.name for field in fields(cls))  # type: ignore[arg-type]

    @classmethod
    def from_json(cls: Type[_Record], value: Dict[str, Any]) -> _Record:
        """The record of a JSON object: each field from the member of its
        name, read as its annotation says (a record, a tuple, ``Optional``);
        a member the object leaves out takes the field's default. A field
        added to a dataclass is read with no more code."""
        hints = _hints(cls)
        members = {field.name: _read(hints[field.name], value[field.name])
                   for field in fields(cls) if field.name in value}  # type: ignore[arg-type]
        return cls(**members)

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for name in self.json_order():
            value = getattr(self, name)
            if value is None and name in self._OPTIONAL:
                continue
            out[name] = _plain(value)
        return out


# --- fingerprint --explain ---------------------------------------------------


@_record
class Bucket(_Json):
    """The winning shingle of one bucket of ``minhash-equality-v1``."""

    token: str
    min_hash: str
    kept_hex: str


@_record
class Explanation(_Json):
    """Every intermediate value of an equality fingerprint
    (``minhash-equality-v1``, ``simhash-equality-v2``), as ``priorart
    fingerprint --explain --json`` prints it (less ``file`` and ``input``)."""

    scheme: str
    canonical_text: str
    tokens: Tuple[str, ...]
    tokens_total: int
    kept_tokens: Tuple[str, ...]
    kept_tokens_total: int
    fallback: bool
    empty: bool
    buckets: Tuple[Optional[Bucket], ...]
    descriptor: str
    fingerprint: str


@_record
class SimhashDocExplanation(_Json):
    """Every intermediate value of a simhash-doc value: the hashed tokens,
    each distinct token's feature (16 hex digits), the numbers and
    identifiers left out, the 64 counters (index = bit number) and the
    result. ``scheme`` says whose: ``"simhash-doc-v2"`` (Chinese, Japanese,
    Thai... cut into character bigrams) or ``"simhash-doc"`` (the frozen
    first rule)."""

    scheme: str
    tokens: Tuple[str, ...]
    features: Dict[str, str]
    numeric: Tuple[str, ...]
    identifiers: Tuple[str, ...]
    counters: Tuple[int, ...]
    hex: str
    fingerprint: str


# --- near duplicates ---------------------------------------------------------


class NearPair(NamedTuple):
    """A tuple, as numpy rows and Spark pairs are: two values within the asked Hamming distance: positions ``a < b`` in
    the input and their ``distance``."""

    a: int
    b: int
    distance: int

    def to_json(self, ids: Optional[Sequence[str]] = None) -> Dict[str, Any]:
        """The pair as the CLI writes a simhash-doc pair: ``{"a", "b",
        "hamming"}``, the members a line of ``priorart dedup --candidates
        simhash``'s ``pairs.jsonl`` starts with (that line adds the
        ``jaccard`` it verified; a near pair is not verified). ``a`` and
        ``b`` are the documents' ``ids`` (the ids of ``values``, in order)
        when given, else their positions."""
        if ids is None:
            return {"a": self.a, "b": self.b, "hamming": self.distance}
        return {"a": ids[self.a], "b": ids[self.b], "hamming": self.distance}


@_record
class DedupPair(_Json):
    """A near-duplicate pair :func:`priorart.dedup` verified: documents
    ``a`` and ``b`` (their ids; ``a`` the earlier in the input), their
    simhash-doc distance ``hamming``, and the exact Jaccard similarity of
    their word 5-grams ``jaccard``. :meth:`to_json` is a line of the CLI's
    ``pairs.jsonl``.

    Deduplicated ``against`` an index, ``verification`` says how the pair
    was kept, as ``priorart dedup --against`` writes it: ``"exact"`` (two
    new documents), ``"estimated"`` (``a`` an index document, ``jaccard``
    estimated from its sketch) or ``"unverified"`` (an index document with
    no sketch: ``jaccard`` is ``None``). Without an index it is ``None``
    and left out of the JSON, as the CLI leaves it out.
    ``jaccard_standard_error`` is the CLI's where it estimates ``jaccard``
    from bottom-k sketches (an input read once: standard input); ``None``
    (left out) here, where every pair is verified exactly."""

    _OPTIONAL = ("jaccard_standard_error", "verification")

    a: str
    b: str
    hamming: int
    jaccard: Optional[float]
    jaccard_standard_error: Optional[float] = None
    verification: Optional[str] = None

    def __repr__(self) -> str:
        # The optional members shown only when there is one, as the JSON
        # shows them.
        extra = "".join(f", {name}={getattr(self, name)!r}" for name in self._OPTIONAL
                        if getattr(self, name) is not None)
        return f"DedupPair(a={self.a!r}, b={self.b!r}, hamming={self.hamming!r}, jaccard={self.jaccard!r}{extra})"


@_record
class DedupCluster(_Json):
    """A connected group of two or more verified near duplicates:
    ``members`` in input order, the first (``representative``) the one a
    deduplication keeps; ``simhash_doc`` is the representative's value in
    its text form. :meth:`to_json` is a line of the CLI's ``clusters.jsonl``
    (its member ``simhash-doc``). Deduplicated ``against`` an index,
    ``from_index`` lists the members that are the index's (a cluster
    holding one is led by it); else it is ``None`` and left out."""

    representative: str
    size: int
    members: Tuple[str, ...]
    simhash_doc: str
    from_index: Optional[Tuple[str, ...]] = None

    def __repr__(self) -> str:
        # from_index shown only when there is one, as the JSON shows it.
        extra = "" if self.from_index is None else f", from_index={self.from_index!r}"
        return (f"DedupCluster(representative={self.representative!r}, size={self.size!r}, "
                f"members={self.members!r}, simhash_doc={self.simhash_doc!r}{extra})")

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {
            "representative": self.representative,
            "size": self.size,
            "members": list(self.members),
        }
        # The CLI's key order: from_index before simhash-doc.
        if self.from_index is not None:
            out["from_index"] = list(self.from_index)
        out["simhash-doc"] = self.simhash_doc
        return out


@_record
class DedupResult:
    """What :func:`priorart.dedup` found: the verified ``pairs`` (sorted by
    input order of ``a``, then ``b``) and ``clusters`` (in input order of
    their representatives), as ``priorart dedup`` writes them; the
    ``documents`` compared, the ``empty`` texts skipped (empty or only white
    space: every such text would pair with every other), and the
    ``candidates`` verified.

    Deduplicated ``against`` an index, ``survivors`` are the ids kept (in
    no pair with an index document nor with an earlier text: the CLI's
    ``survivors.jsonl``), ``again`` counts the texts found in the index
    under their own id (neither pairs nor survivors), and ``candidates``
    counts the pairs among the texts; without an index ``survivors`` is
    ``None``."""

    pairs: Tuple[DedupPair, ...]
    clusters: Tuple[DedupCluster, ...]
    documents: int
    empty: int
    candidates: int
    survivors: Optional[Tuple[str, ...]] = None
    again: int = 0

    @property
    def removable(self) -> int:
        """Documents a deduplication removes: all but each cluster's first."""
        return sum(cluster.size - 1 for cluster in self.clusters)

    def pairs_jsonl(self) -> str:
        """These pairs as the CLI's ``pairs.jsonl``: line for line the same
        JSON values (a float may be spelled differently, ``1e-05`` for
        ``1e-5``)."""
        return "".join(_json_line(pair.to_json()) for pair in self.pairs)

    def clusters_jsonl(self) -> str:
        """These clusters as the CLI's ``clusters.jsonl`` (the same JSON
        values, line for line)."""
        return "".join(_json_line(cluster.to_json()) for cluster in self.clusters)

    def survivors_jsonl(self) -> str:
        """The survivors as the CLI's ``survivors.jsonl`` (``{"id": ...}``
        per line); ``ValueError`` without an index (``against``)."""
        if self.survivors is None:
            raise ValueError("survivors are listed only when deduplicating against an index (against=...)")
        return "".join(_json_line({"id": survivor}) for survivor in self.survivors)


def _json_line(value: Dict[str, Any]) -> str:
    """One JSON Lines line as the CLI writes it: compact, UTF-8 kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


@_record
class IndexMatch(_Json):
    """A document an :class:`priorart.Index` query found.

    ``distance`` is the exact Hamming distance of the two ``simhash-doc``
    values. ``jaccard_estimate`` is an *estimate* of the Jaccard similarity
    of the two texts' word shingles, from the 256-hash sketches the index
    keeps (standard error about 0.025 at 0.8); ``None`` (unverified: found
    by distance alone) when the query was a value or the document was
    inserted by value (neither has a sketch). For the
    exact figure, compare the texts (``priorart compare``). ``same_x``: the
    two texts have the same ``minhash-equality-v1`` (``X``)."""

    id: str
    simhash_doc: int
    distance: int
    jaccard_estimate: Optional[float]
    same_x: bool

    def to_json(self) -> Dict[str, Any]:
        """The entry of ``near`` that ``priorart index query --json`` prints
        for this match: ``simhash-doc`` in its text form, ``similarity``
        (``1 - distance / 64``) and ``verification`` (``estimated`` with a
        sketch estimate, else ``unverified``) besides the fields."""
        from . import simhash_doc_text

        return {
            "id": self.id,
            "simhash-doc": simhash_doc_text(self.simhash_doc),
            "distance": self.distance,
            "similarity": 1.0 - self.distance / 64.0,
            "jaccard_estimate": self.jaccard_estimate,
            "verification": "unverified" if self.jaccard_estimate is None else "estimated",
            "same_x": self.same_x,
        }


# --- passages ----------------------------------------------------------------


@_record
class PassageSide(_Json):
    """Where a shared passage is in one text: ``text[char_offset:char_offset
    + char_length]`` (Python's ``str`` indices); the byte offsets are into
    the text's UTF-8 encoding. ``text`` is that passage's text:
    :func:`priorart.passages` always gives it, the collection searches
    (:func:`priorart.dedup_passages`) only with ``passage_text=True``, else
    ``None``."""

    char_offset: int
    char_length: int
    byte_offset: int
    byte_length: int
    text: Optional[str] = None

    _OPTIONAL = ("text",)


@_record
class Passage(_Json):
    """A passage two texts share (:func:`priorart.passages`): where it is in
    the first (``a``) and in the second (``b``), its word-bag similarity
    (Dice of the content words of both sides, 0 to 1) and its ``seeds``
    (shared word pairs), as ``priorart compare --passages --json`` prints
    each member of ``passages``."""

    a: PassageSide
    b: PassageSide
    similarity: float
    seeds: int

    @classmethod
    def from_json(cls, value: Dict[str, Any]) -> "Passage":
        return cls(
            a=PassageSide(**value["a"]),
            b=PassageSide(**value["b"]),
            similarity=value["similarity"],
            seeds=value["seeds"],
        )


@_record
class PassagePair(_Json):
    """Two documents of a collection sharing passages
    (:func:`priorart.dedup_passages`): their ids ``a`` (the earlier in the
    input) and ``b``, the winnowing ``marks`` they share, and their
    ``passages`` (offsets into ``a``'s text and ``b``'s), in the order they
    come in ``a``. :meth:`to_json` is a line of the CLI's
    ``passages.jsonl`` (``priorart dedup --passages``)."""

    a: str
    b: str
    marks: int
    passages: Tuple[Passage, ...]

    @classmethod
    def from_json(cls, value: Dict[str, Any]) -> "PassagePair":
        passages = tuple(Passage.from_json(passage) for passage in value["passages"])
        return cls(a=value["a"], b=value["b"], marks=value["marks"], passages=passages)


@_record
class BoilerplatePassage(_Json):
    """A passage more than the search's ``boilerplate`` documents share (a
    license, a header), reported once instead of as pairs: the most
    ``documents`` holding one of its winnowing hashes, its boilerplate
    ``marks``, the first document holding it (``example``, an id), where
    it is there (``str`` and UTF-8 offsets) and its ``text`` (at most 400
    characters). :meth:`to_json` is a line of the CLI's
    ``boilerplate.jsonl``."""

    documents: int
    marks: int
    example: str
    char_offset: int
    char_length: int
    byte_offset: int
    byte_length: int
    text: str


@_record
class PassageSearch:
    """What :func:`priorart.dedup_passages` found: the ``pairs`` sharing
    passages and the ``boilerplate`` passages, as ``priorart dedup
    --passages`` writes them; the ``documents`` searched, the ``empty``
    texts skipped, the texts too large to search (``unmarked``: over
    64 MiB, in no pair), the ``candidates`` aligned (pairs sharing
    ``min_marks`` winnowing hashes) and the pairs the aligner refused
    (``unaligned``: too large or too repetitive)."""

    pairs: Tuple[PassagePair, ...]
    boilerplate: Tuple[BoilerplatePassage, ...]
    documents: int
    empty: int
    unmarked: int
    candidates: int
    unaligned: int

    def passages_jsonl(self) -> str:
        """The pairs as the CLI's ``passages.jsonl`` (the same JSON values,
        line for line)."""
        return "".join(_json_line(pair.to_json()) for pair in self.pairs)

    def boilerplate_jsonl(self) -> str:
        """The boilerplate as the CLI's ``boilerplate.jsonl``."""
        return "".join(_json_line(found.to_json()) for found in self.boilerplate)


# --- web archives ------------------------------------------------------------


@_record
class WebArchiveRecord(_Json):
    """One record of a WARC or ARC file: a document (``text`` set) or a
    record that could not be read (``error_reason`` and ``error`` set)."""

    uri: Optional[str]
    record_id: Optional[str]
    offset: Optional[int]
    text: Optional[str]
    error_reason: Optional[str]
    error: Optional[str]


# --- OpenTimestamps ----------------------------------------------------------


@_record
class Attestation(_Json):
    """An attestation of a proof: ``type`` ``bitcoin`` (``height``),
    ``litecoin``, ``ethereum``, ``pending`` (``uri`` of the calendar) or
    ``unknown`` (``tag`` and ``payload`` in hex)."""

    _OPTIONAL = ("height", "uri", "tag", "payload")

    type: str
    height: Optional[int] = None
    uri: Optional[str] = None
    tag: Optional[str] = None
    payload: Optional[str] = None

    @classmethod
    def from_json(cls, value: Dict[str, Any]) -> "Attestation":
        return cls(**value)


@_record
class Operation(_Json):
    """One operation of a proof's tree: its name, argument (hex, for
    ``append``/``prepend``), result and the subtree it leads to."""

    _OPTIONAL = ("arg",)

    op: str
    result: str
    timestamp: "TimestampNode"
    arg: Optional[str] = None


@_record
class TimestampNode(_Json):
    """A node of a proof's tree: the message at this point, its
    attestations and the operations leaving it; ``transaction_id`` when the
    message is a Bitcoin transaction, ``merkle_root`` when a block attests it."""

    _OPTIONAL = ("transaction_id", "merkle_root")

    msg: str
    attestations: Tuple[Attestation, ...]
    ops: Tuple[Operation, ...]
    transaction_id: Optional[str] = None
    merkle_root: Optional[str] = None

    def bitcoin_heights(self) -> Tuple[int, ...]:
        """The heights of every Bitcoin attestation in this subtree."""
        heights = [a.height for a in self.attestations if a.type == "bitcoin" and a.height is not None]
        for op in self.ops:
            heights.extend(op.timestamp.bitcoin_heights())
        return tuple(heights)


@_record
class ProofInfo(_Json):
    """A decoded proof, as ``priorart ots info --json`` prints it."""

    file_hash_op: str
    file_digest: str
    timestamp: TimestampNode


@_record
class OtsFailure(_Json):
    """A Bitcoin attestation that did not verify, and why."""

    height: int
    reason: str


@_record
class CostToForge(_Json):
    """How much work a forger would have to redo, from the header source's
    tip: ``blocks`` on top of the attested one (each fetched and checked),
    the expected hashes as ``work_log2`` and as
    ``days_at_attested_hashrate``; ``complete`` false (or
    ``tip_as_far_as_held``) makes the figures a lower bound."""

    blocks: int
    work_log2: float
    days_at_attested_hashrate: float
    claimed_blocks: int
    complete: bool
    tip_as_far_as_held: bool


@_record
class OtsVerification(_Json):
    """The answer of ``priorart ots verify --json`` (the ots crate's
    ``VerifyReport``). ``verified``: the proof reaches Bitcoin block
    ``height`` (``block_hash``, header ``time``, ``time_utc``), and
    ``cost_to_forge`` says what rewriting it would cost (``None`` when the
    source could not say: then a warning says why). Otherwise ``error`` and
    ``reason`` say why, and ``unverified`` is true when only block headers
    were missing (no judgement on the proof: check again with headers).

    When verified, ``pending`` lists calendars still to be asked,
    ``unverified_attestations`` the attestations that could not be checked
    (the JSON's ``unverified`` array) and ``failures`` those that failed."""

    verified: bool
    unverified: bool
    network: Optional[str] = None
    height: Optional[int] = None
    block_hash: Optional[str] = None
    time: Optional[int] = None
    time_utc: Optional[str] = None
    pending: Tuple[str, ...] = ()
    unverified_attestations: Tuple[Attestation, ...] = ()
    failures: Tuple[OtsFailure, ...] = ()
    warnings: Tuple[str, ...] = ()
    cost_to_forge: Optional[CostToForge] = None
    error: Optional[str] = None
    reason: Optional[str] = None

    @classmethod
    def from_json(cls, value: Dict[str, Any]) -> "OtsVerification":
        listed = value.get("unverified")
        cost = value.get("cost_to_forge")
        return cls(
            verified=value["verified"],
            unverified=listed is True,
            network=value.get("network"),
            height=value.get("height"),
            block_hash=value.get("block_hash"),
            time=value.get("time"),
            time_utc=value.get("time_utc"),
            pending=tuple(value.get("pending", ())),
            unverified_attestations=tuple(
                Attestation.from_json(a) for a in (listed if isinstance(listed, list) else ())
            ),
            failures=tuple(OtsFailure(**f) for f in value.get("failures", ())),
            warnings=tuple(value.get("warnings", ())),
            cost_to_forge=None if cost is None else CostToForge(**cost),
            error=value.get("error"),
            reason=value.get("reason"),
        )

    def to_json(self) -> Dict[str, Any]:
        """The object ``priorart ots verify --json`` prints (its members
        depend on the outcome, as there)."""
        if self.verified:
            return {
                "verified": True,
                "network": self.network,
                "height": self.height,
                "block_hash": self.block_hash,
                "time": self.time,
                "time_utc": self.time_utc,
                "pending": list(self.pending),
                "unverified": [a.to_json() for a in self.unverified_attestations],
                "failures": [f.to_json() for f in self.failures],
                "warnings": list(self.warnings),
                "cost_to_forge": None if self.cost_to_forge is None else self.cost_to_forge.to_json(),
            }
        if self.reason == "digest_mismatch":
            return {"verified": False, "error": self.error, "reason": self.reason}
        return {
            "verified": False,
            "unverified": self.unverified,
            "network": self.network,
            "error": self.error,
            "reason": self.reason,
        }


# --- NIP-FF-3 verification ---------------------------------------------------


@_record
class Step(_Json):
    """One step of the NIP's client algorithm: its number, what it checks,
    ``status`` (``pass``, ``fail``, ``skip``), the named ``reason`` of a
    failure and what was found."""

    step: int
    check: str
    status: str
    reason: Optional[str]
    detail: str


@_record
class VerifyWarning(_Json):
    """Something worth knowing that does not change the verdict."""

    reason: str
    detail: str


@_record
class BitcoinAnchor(_Json):
    """The Bitcoin block a proof reaches."""

    height: int
    time: int
    block_hash: str


@_record
class ContentCheck(_Json):
    """The plaintext check: the text's ``minhash-equality-v1`` and whether
    it is the attested ``X``."""

    fingerprint: str
    matches_x: bool


@_record
class VerifyReport(_Json):
    """The ``priorart-verify/1`` report (``priorart verify --json``):
    ``verdict`` (``valid``, ``valid-but-forgeable``, ``invalid``,
    ``unverified``, ``not-nip-ff-3``), every step, the author, fingerprint,
    commitment and Bitcoin block, warnings, the content check, and for a
    verified proof the cost to forge it."""

    format: str
    verdict: str
    scheme: Optional[str]
    network: Optional[str]
    event_id: Optional[str]
    kind: Optional[int]
    signer: Optional[str]
    author: Optional[str]
    fingerprint: Optional[str]
    commitment: Optional[str]
    bitcoin: Optional[BitcoinAnchor]
    steps: Tuple[Step, ...]
    warnings: Tuple[VerifyWarning, ...]
    content: Optional[ContentCheck]
    cost_to_forge: Optional[CostToForge] = None

    _JSON_ORDER = ("format", "verdict", "scheme", "network", "event_id", "kind", "signer", "author", "fingerprint",
                   "commitment", "bitcoin", "cost_to_forge", "steps", "warnings", "content")

    @property
    def is_valid(self) -> bool:
        """Whether the verdict is ``valid`` or ``valid-but-forgeable``."""
        return self.verdict in ("valid", "valid-but-forgeable")


# --- check: who published this text first -----------------------------------


@_record
class Earliest(_Json):
    """The earliest author: of the first valid proof (``height``, ``time``),
    or, without one, of the earliest event by its untrusted ``created_at``
    (``kind``, ``created_at``)."""

    _OPTIONAL = ("height", "time", "kind", "created_at", "near_copy")
    # A proof's members, then an event's: each variant leaves the other's out.
    _JSON_ORDER = ("author", "npub", "event_id", "height", "time", "kind", "created_at", "utc", "near_copy")

    author: str
    npub: str
    event_id: str
    utc: str
    height: Optional[int] = None
    time: Optional[int] = None
    kind: Optional[int] = None
    created_at: Optional[int] = None
    # With the status ``near_copy_proven``: the near copy the proof is of
    # (``event_id``, ``author``, ``npub``, ``x``, ``jaccard``).
    near_copy: Optional[Dict[str, Any]] = None


@_record
class CheckVerdict(_Json):
    """``status``: ``proven``, ``near_copy_proven`` (a near copy's proof is
    earlier than every proof of the checked X), ``unverified`` (proofs found,
    none could be checked for lack of block headers), ``unproven``,
    ``nothing_found``, ``no_relay_answered`` or ``no_relay_asked``;
    ``text``: the sentence."""

    status: str
    text: str
    earliest: Optional[Earliest]
    other_authors: int


@_record
class RelayEnding(_Json):
    """How a relay's answer ended: ``status`` ``eose``, ``closed``
    (``message``), ``timeout``, ``unreachable``/``disconnected``
    (``error``), ``event_limit``/``byte_limit`` (``limit``)."""

    _OPTIONAL = ("message", "error", "limit")

    status: str
    message: Optional[str] = None
    error: Optional[str] = None
    limit: Optional[int] = None


@_record
class SkippedMessages(_Json):
    """Messages of a relay not kept for one ``reason``: how many, and the first."""

    reason: str
    count: int
    example: str


@_record
class RelaySummary(_Json):
    """What one relay answered."""

    url: str
    answered: bool
    ending: RelayEnding
    events: int
    skipped: Tuple[SkippedMessages, ...]
    notices: Tuple[str, ...]
    elapsed_ms: int


@_record
class CheckBlock(_Json):
    """The Bitcoin block of a ranked proof."""

    height: int
    time: int
    utc: str
    block_hash: str


@_record
class ContentReference(_Json):
    """The content event a proof names (``tag`` ``a`` or ``e``), and
    whether it was among the answers."""

    tag: str
    reference: str
    found: bool


@_record
class RankedProof(_Json):
    """A valid proof, ranked by block (``rank`` 1 is the earliest)."""

    rank: int
    event_id: str
    author: str
    npub: str
    block: CheckBlock
    content: Optional[ContentReference]
    relays: Tuple[str, ...]
    report: VerifyReport


@_record
class UnverifiedProof(_Json):
    """A proof that passed every check but the Bitcoin one, for lack of headers."""

    event_id: str
    author: str
    npub: str
    relays: Tuple[str, ...]
    report: VerifyReport


@_record
class RefusedProof(_Json):
    """Any other kind 1041, never dropped, with the ``reasons`` it is not ranked."""

    event_id: str
    signer: Optional[str]
    claimed_author: Optional[str]
    verdict: str
    reasons: Tuple[str, ...]
    relays: Tuple[str, ...]
    report: VerifyReport


@_record
class ContentEventSeen(_Json):
    """A content event carrying the ``X``; ``x_check``: ``matches``,
    ``does_not_match`` (``detail``: the content's fingerprint) or
    ``cannot_check`` (``detail``: ``empty`` or ``encrypted``)."""

    event_id: str
    author: str
    npub: str
    kind: int
    created_at: int
    created_at_trusted: bool
    utc: str
    x_check: str
    detail: Optional[str]
    relays: Tuple[str, ...]


@_record
class CheckReport(_Json):
    """The ``priorart-check/1`` report (``priorart check --json``)."""

    format: str
    x: str
    network: str
    verdict: CheckVerdict
    relays: Tuple[RelaySummary, ...]
    proofs: Tuple[RankedProof, ...]
    unverified: Tuple[UnverifiedProof, ...]
    refused: Tuple[RefusedProof, ...]
    # Kind 1041 events of another scheme (no embedded attestation), set
    # aside: ``{"event_id", "signer", "detail", "relays"}``.
    set_aside: Tuple[Dict[str, Any], ...]
    content_events: Tuple[ContentEventSeen, ...]
    index: Optional[Dict[str, Any]]
    # The near copies (``priorart check --fuzzy``, docs/nip-ff-3-fuzzy.md), as JSON.
    fuzzy: Optional[Dict[str, Any]]


Explained = Union[Explanation, SimhashDocExplanation]
