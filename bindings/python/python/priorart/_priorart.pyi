"""Type stub of the extension module (the Rust side of :mod:`priorart`)."""

from os import PathLike
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from typing_extensions import TypeAlias, final

_Simhash: TypeAlias = Union[int, str]
_Record: TypeAlias = Tuple[Optional[str], Optional[str], Optional[int], Optional[str], Optional[str], Optional[str]]
# (id, simhash_doc, distance, jaccard_estimate, same_x)
_IndexHit: TypeAlias = Tuple[str, int, int, Optional[float], bool]

MAX_PROOF_BYTES: int
MAX_DISTANCE: int
SCHEMES: List[str]
SIMHASH_DOC_SCHEMES: List[str]

class InputError(ValueError):
    """Bad input; ``reason`` names the typed reason."""

    reason: str

class ExtractionError(InputError):
    """A document could not be read (``reason``: the extractor's)."""

class ProofError(InputError):
    """An OpenTimestamps proof could not be decoded."""

@final
class HeaderSourceOptions:
    """Where block headers come from, as the CLI's header options say."""

    def __new__(
        cls,
        *,
        esplora: Optional[str] = None,
        bitcoin_rpc: Optional[str] = None,
        rpc_cookie: Optional[Union[str, PathLike[str]]] = None,
        rpc_user: Optional[str] = None,
        rpc_password: Optional[str] = None,
        rpc_password_file: Optional[Union[str, PathLike[str]]] = None,
        header_cache: Optional[Union[str, PathLike[str]]] = None,
        no_header_cache: bool = False,
        network: str = "mainnet",
        timeout: Optional[float] = None,
    ) -> HeaderSourceOptions: ...
    @property
    def network(self) -> str: ...

def fingerprint(text: str, scheme: str = "minhash-equality-v1") -> str: ...
def explain_json(text: str, scheme: str = "minhash-equality-v1") -> str: ...
def simhash_doc(text: str, scheme: str = "simhash-doc-v2") -> int: ...
def simhash_doc_text(value: _Simhash) -> str: ...
def simhash_doc_value(value: _Simhash) -> int: ...
def hamming(a: _Simhash, b: _Simhash) -> int: ...
def similarity(a: _Simhash, b: _Simhash) -> float: ...
_Progress: TypeAlias = Optional[Callable[[str, int, int], None]]

def fingerprint_many(
    texts: Iterable[object], schemes: Sequence[str], threads: Optional[int] = None, progress: _Progress = None
) -> List[List[str]]: ...
def simhash_doc_many(
    texts: Iterable[object],
    threads: Optional[int] = None,
    progress: _Progress = None,
    scheme: str = "simhash-doc-v2",
) -> List[int]: ...
def simhash_doc_many_bytes(
    texts: Iterable[object],
    threads: Optional[int] = None,
    progress: _Progress = None,
    scheme: str = "simhash-doc-v2",
) -> bytes: ...
def table_keys(value: _Simhash, layout: str = "manku-16x28") -> List[int]: ...
def table_keys_many_bytes(values: bytes, layout: str = "manku-16x28") -> bytes: ...
def near_pairs_bytes(
    values: bytes, k: Optional[int] = None, layout: Optional[str] = None, threads: Optional[int] = None
) -> bytes: ...
def dedup_jsonl(
    texts: Iterable[object],
    ids: Optional[Iterable[object]] = None,
    k: Optional[int] = None,
    min_jaccard: float = 0.8,
    shingles: str = "words",
    candidates: Optional[str] = None,
    working_set: Optional[int] = None,
    threads: Optional[int] = None,
    temp_dir: Optional[str] = None,
    progress: _Progress = None,
) -> Tuple[str, str, int, int, int]: ...
def dedup_against_jsonl(
    texts: Iterable[object],
    against: Union[str, PathLike[str]],
    ids: Optional[Iterable[object]] = None,
    k: Optional[int] = None,
    min_jaccard: float = 0.8,
    shingles: Optional[str] = None,
    threads: Optional[int] = None,
    progress: _Progress = None,
) -> Tuple[str, str, str, int, int, int, int]: ...
def dedup_band_keys(
    texts: Iterable[object], min_jaccard: float = 0.8, shingles: str = "words", threads: Optional[int] = None
) -> Tuple[int, bytes, List[bool]]: ...
def jaccard_many(
    a: Iterable[object], b: Iterable[object], shingles: str = "words", threads: Optional[int] = None
) -> List[float]: ...
def dedup_passages_stream(
    texts: Iterable[object],
    ids: Optional[Iterable[object]] = None,
    min_words: Optional[int] = None,
    boilerplate: Optional[int] = None,
    min_marks: Optional[int] = None,
    min_coverage: Optional[float] = None,
    passage_text: bool = False,
    working_set: Optional[int] = None,
    threads: Optional[int] = None,
    temp_dir: Optional[Union[str, PathLike[str]]] = None,
    progress: _Progress = None,
) -> PassageRounds: ...
@final
class PassageRounds(Iterator[str]):
    """A passage search running: its pairs' passages.jsonl lines (see priorart.PassageStream)."""

    @property
    def documents(self) -> int: ...
    @property
    def empty(self) -> int: ...
    @property
    def unmarked(self) -> int: ...
    def __iter__(self) -> PassageRounds: ...
    def __next__(self) -> str: ...
    def write(self, out: Union[str, PathLike[str]]) -> int: ...
    def close(self) -> None: ...
    def ending(self) -> Optional[Tuple[str, int, int]]: ...

def passage_marks(texts: Iterable[object], threads: Optional[int] = None) -> Tuple[List[int], bytes, bytes]: ...
def boilerplate_lines(
    ids: Sequence[str],
    texts: Sequence[str],
    words: Sequence[Sequence[int]],
    documents: Sequence[Sequence[int]],
    min_words: Optional[int] = None,
    threads: Optional[int] = None,
) -> List[List[Tuple[int, str]]]: ...
@final
class PassageChecker:
    """Candidate pairs checked as ``priorart dedup --passages`` checks them."""

    def __new__(
        cls,
        boilerplate_hashes: bytes,
        min_words: Optional[int] = None,
        boilerplate: Optional[int] = None,
        min_marks: Optional[int] = None,
        min_coverage: Optional[float] = None,
        passage_text: bool = False,
    ) -> PassageChecker: ...
    def check_many(
        self,
        a_ids: Sequence[str],
        b_ids: Sequence[str],
        marks: Sequence[int],
        a_texts: Sequence[str],
        b_texts: Sequence[str],
        threads: Optional[int] = None,
    ) -> Tuple[List[Optional[str]], int]: ...

def layout_shape(layout: str = "manku-16x28") -> Tuple[int, int, List[int]]: ...
def extract(data: bytes, format: Optional[str] = None) -> str: ...
def detect_format(data: bytes, format: Optional[str] = None) -> str: ...

@final
class WebArchiveReader(Iterator[_Record]):
    """The records of a WARC or ARC file, read one at a time."""

    def __iter__(self) -> WebArchiveReader: ...
    def __next__(self) -> _Record: ...

def web_archive_records(path: Union[str, PathLike[str]]) -> WebArchiveReader: ...

@final
class Index:
    """A near-duplicate index over the index crate (see priorart.Index)."""

    def __new__(cls, layout: str = "manku-16x28", shingles: str = "words", marks: bool = True) -> Index: ...
    @staticmethod
    def open(path: Union[str, PathLike[str]]) -> Index: ...
    def insert(self, id: str, item: Union[str, int]) -> None: ...
    def query(self, item: Union[str, int], k: Optional[int] = None) -> List[_IndexHit]: ...
    def query_passages_json(self, text: str, name: str = "text") -> str: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    @property
    def layout(self) -> str: ...
    @property
    def shingles(self) -> str: ...
    def __len__(self) -> int: ...
    def __contains__(self, id: str, /) -> bool: ...
def ots_info_json(proof: bytes) -> str: ...
def ots_verify_json(proof: bytes, digest: bytes, headers: HeaderSourceOptions) -> str: ...
def nip_verify_json(event_json: str, headers: HeaderSourceOptions, content: Optional[str] = None) -> str: ...
def check_json(
    x: str, answers_json: str, headers: HeaderSourceOptions, near: Optional[Tuple[str, str, str]] = None
) -> str: ...
def near_copies_filter_json(text: str, key_answers_json: Optional[str] = None) -> Optional[str]: ...
def passages_json(a: str, b: str, a_name: str, b_name: str) -> str: ...
