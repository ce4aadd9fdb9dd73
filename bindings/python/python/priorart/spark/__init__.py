"""Near-duplicate detection on Apache Spark with priorart's fingerprints.

The fingerprints are computed by priorart's Rust crates through the batch
API (:func:`priorart.fingerprint_many`, :func:`priorart.simhash_doc_array`)
in Arrow-based map functions, so a text has the same values here as from
the ``priorart`` command. Spark only moves rows:

- :func:`read_documents` / :func:`read_web_archives`: files into a
  DataFrame of documents, one task per file, web archives (WARC/ARC) read
  by the Rust extractor; a record or file that cannot be read is a row with
  ``error_reason`` and ``error``, never a failed job.
- :func:`fingerprint_columns`: ``minhash_equality_v1`` (string) and
  ``simhash_doc_v2`` (long: the unsigned 64 bits as a signed long) columns
  (``simhash_doc`` for the frozen ``simhash-doc``, when asked).
- :func:`near_duplicates`: every pair of documents within simhash-doc-v2
  Hamming distance ``k``, found as the lsh-interop spec's Manku lookup run
  as a join: identical fingerprints are collapsed first, each distinct
  fingerprint emits one key per permuted table (keys computed by the index
  crate, :func:`priorart.table_keys_many`), rows are joined on
  ``(table, key)`` (large keys split into salted blocks), pairs within
  ``k`` are kept once whatever the number of tables they meet in, and
  expanded back to documents.
- :func:`clusters`: connected components of a pair list by large-star /
  small-star label propagation; the representative of a cluster is its
  smallest id.
- :func:`exact_groups`: documents whose ``minhash-equality-v1`` (``X``)
  values are equal.
- :func:`verified_pairs` / :func:`verified_clusters`: what ``priorart
  dedup`` finds (and :func:`priorart.dedup`), distributed: each document's
  MinHash LSH band keys (the dedup engine's, for the threshold) as rows,
  candidates by a join on ``(band, key)``, each candidate verified by the
  exact Jaccard similarity of word 5-grams in a task that holds the two
  texts, clusters by connected components.
- :func:`passage_search` / :func:`passage_pairs`: what ``priorart dedup
  --passages`` finds (and :func:`priorart.dedup_passages`), distributed:
  each document's winnowing marks (the passage search's, computed by the
  Rust extension) as rows, boilerplate hashes (held by more than
  ``boilerplate`` documents) by counting, candidates (pairs sharing
  ``min_marks`` other hashes) by a join on the hash, each candidate
  checked by the search's own pair checker in a task that holds the two
  texts, each boilerplate passage placed by the search's own code.

``python -m priorart.spark dedup`` and ``python -m priorart.spark
passages`` run them on files (see ``__main__.py``); they run unchanged
under ``spark-submit``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Optional, Sequence

if TYPE_CHECKING:
    import pandas

try:
    import numpy as np
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
except ImportError as err:  # pragma: no cover - what a bare install sees
    raise ImportError(
        f"priorart.spark needs pyspark, pyarrow, pandas and numpy ({err.name} is missing): "
        "pip install 'priorart[spark]'"
    ) from err

import priorart

__all__ = [
    "DOCUMENT_SCHEMA",
    "column_name",
    "clusters",
    "exact_groups",
    "fingerprint_columns",
    "fingerprint_pairs",
    "near_duplicates",
    "passage_pairs",
    "passage_search",
    "read_documents",
    "read_web_archives",
    "to_pandas",
    "to_unsigned",
    "verified_clusters",
    "verified_pairs",
]

#: Rows of :func:`read_documents`: the id (``FILE``, or ``FILE#OFFSET URI``
#: for a web-archive record, as ``priorart dedup`` names them), where it
#: came from, its text, and for a record that could not be read the reason.
DOCUMENT_SCHEMA = T.StructType(
    [
        T.StructField("id", T.StringType(), True),
        T.StructField("path", T.StringType(), False),
        T.StructField("uri", T.StringType(), True),
        T.StructField("record_id", T.StringType(), True),
        T.StructField("offset", T.LongType(), True),
        T.StructField("text", T.StringType(), True),
        T.StructField("error_reason", T.StringType(), True),
        T.StructField("error", T.StringType(), True),
    ]
)

#: Largest number of distinct fingerprints joined with each other under one
#: table key in one task; a larger key is split into salted blocks.
DEFAULT_MAX_BUCKET = 10_000

#: The column of the simhash-doc values :func:`dedup` pairs documents by.
_SIMHASH = "simhash_doc_v2"


def _simhash_scheme_of(shingles: str) -> str:
    """The simhash-doc scheme of a shingling's token rule, as ``priorart
    dedup`` pairs them: ``simhash-doc`` for the shinglings of indexes built
    before simhash-doc-v2 (``words-v1``, ``tokens-v1``), ``simhash-doc-v2``
    for the others (an unknown name is refused by the extension)."""
    return "simhash-doc" if shingles in ("words-v1", "tokens-v1") else "simhash-doc-v2"


def column_name(scheme: str) -> str:
    """The DataFrame column of a scheme: ``minhash-equality-v1`` →
    ``minhash_equality_v1``."""
    return scheme.replace("-", "_")


def to_unsigned(value: int) -> int:
    """A ``simhash_doc_v2`` (or ``simhash_doc``) column value (signed long)
    as the unsigned 64-bit value :func:`priorart.simhash_doc` returns."""
    return value & 0xFFFF_FFFF_FFFF_FFFF


def to_pandas(df: DataFrame, unsigned: Sequence[str] = ("simhash_doc_v2", "simhash_doc")) -> "pandas.DataFrame":
    """``df`` as a pandas DataFrame with the ``unsigned`` columns (signed
    longs holding 64 bits, as ``simhash_doc_v2``) as exact unsigned values:
    pandas' nullable ``UInt64``. ``toPandas()`` gives them as signed, and
    as ``float64`` (53 bits: not the value) as soon as one is null. Through
    Arrow (``DataFrame.toArrow``), a bit-for-bit cast."""
    import pandas
    import pyarrow.compute as pc

    table = df.toArrow()
    for name in unsigned:
        if name in table.column_names:
            position = table.column_names.index(name)
            # An unchecked cast keeps the bits: -1 is 2**64 - 1.
            table = table.set_column(position, name, pc.cast(table.column(position), pa.uint64(), safe=False))
    return table.to_pandas(types_mapper={pa.uint64(): pandas.UInt64Dtype()}.get)


def _document_rows(path: str) -> Iterator[tuple]:
    """The documents of one file: a web archive's records (bad ones with
    their reason), or the file as one document; a file that cannot be read
    at all is one row with its reason."""
    try:
        for record in priorart.web_archive_records(path):
            offset = record.offset if record.offset is not None else 0
            doc_id = f"{path}#{offset} {record.uri}" if record.uri else f"{path}#{offset}"
            yield (doc_id, path, record.uri, record.record_id, record.offset, record.text,
                   record.error_reason, record.error)
        return
    except priorart.ExtractionError as err:
        if getattr(err, "reason", None) != "unsupported":
            yield (path, path, None, None, None, None, err.reason, str(err))
            return
    except OSError as err:
        yield (path, path, None, None, None, None, "io", str(err))
        return
    try:
        with open(path, "rb") as file:
            data = file.read((256 << 20) + 1)
        yield (path, path, None, None, None, priorart.extract(data), None, None)
    except priorart.InputError as err:
        yield (path, path, None, None, None, None, getattr(err, "reason", "invalid"), str(err))
    except OSError as err:
        yield (path, path, None, None, None, None, "io", str(err))


def read_documents(spark: SparkSession, paths: Sequence[str]) -> DataFrame:
    """Files as a DataFrame of documents (:data:`DOCUMENT_SCHEMA`), one
    Spark task per file: web archives (WARC, ARC, gzipped or not) give one
    row per record, read by priorart's extractor under the CLI's limits;
    other documents (HTML, XML, PDF, EPUB, text) one row each. A bad record
    or file is a row with ``text`` null and ``error_reason``/``error`` set.
    Paths must be readable by the executors (a shared file system)."""
    paths = list(paths)
    if not paths:
        return spark.createDataFrame([], DOCUMENT_SCHEMA)
    rdd = spark.sparkContext.parallelize(paths, len(paths)).flatMap(_document_rows)
    return spark.createDataFrame(rdd, DOCUMENT_SCHEMA)


#: Web archives are what :func:`read_documents` reads record by record.
read_web_archives = read_documents


def fingerprint_columns(
    df: DataFrame,
    text_col: str = "text",
    schemes: Sequence[str] = ("minhash-equality-v1", "simhash-doc-v2"),
    threads: Optional[int] = 1,
) -> DataFrame:
    """``df`` with one column per scheme (named by :func:`column_name`),
    computed by the batch API over Arrow batches: strings for the equality
    schemes, a long for ``simhash-doc-v2`` and ``simhash-doc`` (its 64
    bits; see :func:`to_unsigned`). Null texts get null fingerprints.
    ``threads`` per task: 1 by default, since Spark already runs a task
    per core."""
    schemes = list(schemes)
    unknown = [s for s in schemes if s not in priorart.SCHEMES]
    if unknown:
        raise priorart.InputError(f"unknown schemes: {', '.join(unknown)}")
    equality = [s for s in schemes if s not in priorart.SIMHASH_DOC_SCHEMES]
    simhashes = [s for s in schemes if s in priorart.SIMHASH_DOC_SCHEMES]
    fields = [
        T.StructField(column_name(s), T.LongType() if s in simhashes else T.StringType(), True)
        for s in schemes
    ]
    schema = T.StructType(df.schema.fields + fields)
    names = [f.name for f in schema.fields]

    def batches(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in iterator:
            texts = batch.column(batch.schema.get_field_index(text_col)).to_pylist()
            present = np.array([t is not None for t in texts], dtype=bool)
            given = [t for t in texts if t is not None]
            columns: Dict[str, pa.Array] = {}
            if equality:
                values = priorart.fingerprint_many(given, equality, threads) if given else [[] for _ in equality]
                for scheme, column in zip(equality, values):
                    it = iter(column)
                    columns[scheme] = pa.array([next(it) if p else None for p in present], pa.string())
            for scheme in simhashes:
                full = np.zeros(len(texts), dtype=np.uint64)
                if given:
                    full[present] = priorart.simhash_doc_array(given, threads, scheme=scheme)
                columns[scheme] = pa.array(full.view(np.int64), mask=~present)
            yield pa.RecordBatch.from_arrays(list(batch.columns) + [columns[s] for s in schemes], names=names)

    return df.mapInArrow(batches, schema)


def _table_key_rows(layout: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    tables = priorart.layout_shape(layout)[0]

    def rows(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in iterator:
            signed = batch.column(0).to_numpy(zero_copy_only=False).astype(np.int64)
            keys = priorart.table_keys_many(signed.view(np.uint64), layout)
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(np.repeat(signed, tables)),
                    pa.array(np.tile(np.arange(tables, dtype=np.int32), len(signed))),
                    pa.array(keys.reshape(-1).view(np.int64)),
                ],
                names=["fp", "table", "key"],
            )

    return rows


_KEY_SCHEMA = T.StructType(
    [
        T.StructField("fp", T.LongType(), True),
        T.StructField("table", T.IntegerType(), True),
        T.StructField("key", T.LongType(), True),
    ]
)


def fingerprint_pairs(fingerprints: DataFrame, k: int = 3, max_bucket: int = DEFAULT_MAX_BUCKET) -> DataFrame:
    """Every pair of distinct fingerprints (column ``fp``, distinct values)
    within Hamming distance ``k``, as ``(fp_a, fp_b, hamming)`` with
    ``fp_a < fp_b``, each pair once.

    The lookup of the lsh-interop spec as a join: each fingerprint emits
    its key in each table of the layout for ``k`` (``manku-16x28`` for
    k ≤ 3: 16 tables keyed on 28 bits), computed by the index crate; rows
    meeting on ``(table, key)`` are the candidates. A key held by more than
    ``max_bucket`` fingerprints is split into ``s`` salted groups and
    joined block by block (each group with each other, ``s(s+1)/2`` tasks
    of at most ``2 * max_bucket`` rows), so one key never lands whole in
    one task."""
    if k < 0 or k > priorart.MAX_DISTANCE:
        raise priorart.InputError(f"k={k}: expected 0 to {priorart.MAX_DISTANCE}")
    if max_bucket < 1:
        raise priorart.InputError("max_bucket must be at least 1")
    layout = f"k={k}"
    keys = fingerprints.select(F.col("fp").cast("long")).mapInArrow(_table_key_rows(layout), _KEY_SCHEMA)
    sizes = keys.groupBy("table", "key").agg(F.count(F.lit(1)).alias("n"))
    salted = (
        keys.join(sizes, ["table", "key"])
        .withColumn("s", F.greatest(F.lit(1), F.ceil(F.col("n") / F.lit(max_bucket))).cast("int"))
        .withColumn("g", F.pmod(F.xxhash64("fp"), F.col("s")).cast("int"))
        .withColumn("b", F.explode(F.sequence(F.lit(0), F.col("s") - 1)))
        .select("table", "key", "fp", "g", F.least("g", "b").alias("lo"), F.greatest("g", "b").alias("hi"))
    )
    a, b = salted.alias("a"), salted.alias("b")
    joined = a.join(
        b,
        (F.col("a.table") == F.col("b.table"))
        & (F.col("a.key") == F.col("b.key"))
        & (F.col("a.lo") == F.col("b.lo"))
        & (F.col("a.hi") == F.col("b.hi"))
        & (F.col("a.fp") < F.col("b.fp"))
        # The block of the pair's own two groups, so each pair is met once per table.
        & (F.least(F.col("a.g"), F.col("b.g")) == F.col("a.lo"))
        & (F.greatest(F.col("a.g"), F.col("b.g")) == F.col("a.hi")),
    )
    return (
        joined.select(F.col("a.fp").alias("fp_a"), F.col("b.fp").alias("fp_b"))
        .withColumn("hamming", F.expr("bit_count(fp_a ^ fp_b)").cast("int"))
        .where(F.col("hamming") <= k)
        .distinct()
    )


def near_duplicates(
    df: DataFrame,
    k: int = 3,
    id_col: str = "id",
    simhash_col: str = "simhash_doc_v2",
    max_bucket: int = DEFAULT_MAX_BUCKET,
) -> DataFrame:
    """Every pair of documents whose simhash-doc values (the column
    ``simhash_col``: ``simhash-doc-v2``'s by default) differ in at
    most ``k`` bits, as ``(a, b, hamming)`` with ``a < b`` (ids), each pair
    once: the pairs of :func:`fingerprint_pairs` on the distinct
    fingerprints, expanded to the documents holding them, plus the pairs of
    documents with equal fingerprints (distance 0). Rows with a null id or
    fingerprint are ignored. Equal fingerprints give every pair of their
    documents: for clusters alone, :func:`dedup` does not expand them."""
    docs = _documents(df, id_col, simhash_col)
    return _expand(docs, fingerprint_pairs(docs.select("fp").distinct(), k, max_bucket))


def _documents(df: DataFrame, id_col: str, simhash_col: str) -> DataFrame:
    return (
        df.select(F.col(id_col).alias("id"), F.col(simhash_col).alias("fp"))
        .where(F.col("id").isNotNull() & F.col("fp").isNotNull())
        .distinct()
    )


def _expand(docs: DataFrame, pairs: DataFrame) -> DataFrame:
    """Fingerprint pairs as document pairs, plus the pairs of documents
    sharing a fingerprint."""
    da, db = docs.alias("da"), docs.alias("db")
    across = (
        pairs.join(da, F.col("fp_a") == F.col("da.fp"))
        .join(db, F.col("fp_b") == F.col("db.fp"))
        .select(
            F.least(F.col("da.id"), F.col("db.id")).alias("a"),
            F.greatest(F.col("da.id"), F.col("db.id")).alias("b"),
            F.col("hamming"),
        )
    )
    same = (
        da.join(db, (F.col("da.fp") == F.col("db.fp")) & (F.col("da.id") < F.col("db.id")))
        .select(F.col("da.id").alias("a"), F.col("db.id").alias("b"), F.lit(0).alias("hamming"))
    )
    return across.unionByName(same)


def _edge_signature(edges: DataFrame) -> tuple:
    # Edges are distinct, so count and XOR of their hashes change when the set does.
    row = edges.agg(F.count(F.lit(1)).alias("n"), F.bit_xor(F.xxhash64("u", "v")).alias("h")).first()
    assert row is not None, "an aggregate without grouping has one row"
    return (row["n"], row["h"])


def _large_star(edges: DataFrame) -> DataFrame:
    both = edges.unionByName(edges.select(F.col("v").alias("u"), F.col("u").alias("v")))
    smallest = both.groupBy("u").agg(F.least(F.min("v"), F.first("u")).alias("m"))
    return (
        both.join(smallest, "u")
        .where(F.col("v") > F.col("u"))
        .select(F.col("v").alias("u"), F.col("m").alias("v"))
        .where(F.col("u") != F.col("v"))
        .select(F.least("u", "v").alias("u"), F.greatest("u", "v").alias("v"))
        .distinct()
    )


def _small_star(edges: DataFrame) -> DataFrame:
    # Edges are (smaller, larger): each node's smaller neighbours, itself included.
    down = edges.select(F.col("v").alias("node"), F.col("u").alias("w"))
    smallest = down.groupBy("node").agg(F.min("w").alias("m"))
    neighbours = down.unionByName(smallest.select("node", F.col("node").alias("w")))
    return (
        neighbours.join(smallest, "node")
        .where(F.col("w") != F.col("m"))
        .select(F.least("w", "m").alias("u"), F.greatest("w", "m").alias("v"))
        .distinct()
    )


def clusters(pairs: DataFrame, a: str = "a", b: str = "b", max_rounds: int = 64) -> DataFrame:
    """Connected components of the graph of ``pairs`` (columns ``a`` and
    ``b``, ids of any orderable type) as ``(id, representative)``, one row
    per id that is in some pair; the representative of a component is its
    smallest id, so the answer does not depend on partitioning or order.

    Large-star and small-star rounds (Kiveris et al., "Connected Components
    in MapReduce and Beyond", 2014) alternate until the edge set stops
    changing: then every component is a star around its smallest id.
    Rounds are O(log² n) at worst, a few in practice; each one is
    checkpointed so the plan does not grow."""
    edges = (
        pairs.select(F.col(a).alias("x"), F.col(b).alias("y"))
        .where(F.col("x") != F.col("y"))
        .select(F.least("x", "y").alias("u"), F.greatest("x", "y").alias("v"))
        .distinct()
        .localCheckpoint()
    )
    signature = _edge_signature(edges)
    for _ in range(max_rounds):
        edges = _small_star(_large_star(edges)).localCheckpoint()
        new_signature = _edge_signature(edges)
        if new_signature == signature:
            break
        signature = new_signature
    else:
        raise RuntimeError(f"connected components did not converge in {max_rounds} rounds")
    members = edges.select(F.col("v").alias("id"), F.col("u").alias("representative"))
    centres = edges.select(F.col("u").alias("id"), F.col("u").alias("representative")).distinct()
    return members.unionByName(centres)


def exact_groups(df: DataFrame, id_col: str = "id", x_col: str = "minhash_equality_v1") -> DataFrame:
    """Groups of two or more documents whose ``minhash-equality-v1`` values
    (NIP-FF-3 ``X``) are equal: ``(x, size, representative, members)``,
    members sorted, the representative the smallest id."""
    return (
        df.where(F.col(x_col).isNotNull() & F.col(id_col).isNotNull())
        .groupBy(F.col(x_col).alias("x"))
        .agg(F.count(F.lit(1)).alias("size"), F.array_sort(F.collect_list(F.col(id_col))).alias("members"))
        .where(F.col("size") > 1)
        .select("x", "size", F.element_at("members", 1).alias("representative"), "members")
    )


def dedup(
    documents: DataFrame,
    k: int = 3,
    max_bucket: int = DEFAULT_MAX_BUCKET,
    timings: Optional[Dict[str, float]] = None,
) -> Dict[str, DataFrame]:
    """The whole job on a DataFrame of documents (``id``, ``text``):
    fingerprints, near-duplicate pairs, clusters and exact-X groups, as
    DataFrames named ``fingerprints``, ``pairs`` (``a, b, hamming``),
    ``clusters`` (``representative, size, members``) and ``exact_x``.

    Clusters are computed on the distinct fingerprints (documents with
    equal fingerprints are in one component anyway), so a million copies of
    one text cost one node, not 5·10¹¹ pairs. With ``timings``, each stage
    is materialized and its wall time (seconds) recorded there."""

    def stage(name: str, frame: DataFrame) -> DataFrame:
        if timings is None:
            return frame
        started = time.perf_counter()
        frame = frame.cache()
        frame.count()
        timings[name] = time.perf_counter() - started
        return frame

    texts = documents.where(F.col("text").isNotNull()).select("id", "text")
    # Four stages read the fingerprints: computed once.
    fingerprints = stage("fingerprint", fingerprint_columns(texts).drop("text").cache())
    distinct = stage("distinct fingerprints", fingerprints.select(F.col(_SIMHASH).alias("fp")).distinct())
    fp_pairs = stage("16-table join", fingerprint_pairs(distinct, k, max_bucket))
    pairs = stage(
        "pairs (expanded to documents)", _expand(_documents(fingerprints, "id", _SIMHASH), fp_pairs)
    )
    components = stage(
        "connected components", clusters(fp_pairs, "fp_a", "fp_b").withColumnRenamed("id", "fp")
    )
    docs = fingerprints.select("id", F.col(_SIMHASH).alias("fp"))
    labelled = docs.join(components, "fp", "left").select(
        "id", F.coalesce(F.col("representative"), F.col("fp")).alias("component")
    )
    cluster_rows = stage(
        "clusters",
        labelled.groupBy("component")
        .agg(F.count(F.lit(1)).alias("size"), F.array_sort(F.collect_list("id")).alias("members"))
        .where(F.col("size") > 1)
        .select(F.element_at("members", 1).alias("representative"), "size", "members"),
    )
    exact = stage("exact X groups", exact_groups(fingerprints))
    return {"fingerprints": fingerprints, "pairs": pairs, "clusters": cluster_rows, "exact_x": exact}


#: Rows of :func:`verified_pairs`' band keys: a document, its simhash-doc
#: value of the shingling's token rule (signed long; ``simhash-doc-v2``
#: but for the v1 shinglings, as ``priorart dedup``) and one ``(band, key)``
#: of its MinHash LSH signature.
_BAND_SCHEMA = T.StructType(
    [
        T.StructField("id", T.StringType(), False),
        T.StructField("simhash", T.LongType(), False),
        T.StructField("band", T.IntegerType(), False),
        T.StructField("key", T.LongType(), False),
    ]
)

_PAIR_SCHEMA = T.StructType(
    [
        T.StructField("a", T.StringType(), False),
        T.StructField("b", T.StringType(), False),
        T.StructField("hamming", T.IntegerType(), False),
        T.StructField("jaccard", T.DoubleType(), False),
    ]
)


def _band_rows(min_jaccard: float, shingles: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    scheme = _simhash_scheme_of(shingles)

    def rows(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in iterator:
            ids = batch.column(0).to_pylist()
            texts = batch.column(1).to_pylist()
            bands, raw, blank = priorart._priorart.dedup_band_keys(texts, min_jaccard, shingles, 1)
            kept = ~np.array(blank, dtype=bool)
            keys = np.frombuffer(raw, dtype=np.uint32).reshape(len(texts), bands)[kept]
            simhashes = priorart.simhash_doc_array(texts, 1, scheme=scheme).view(np.int64)[kept]
            kept_ids = np.array(ids, dtype=object)[kept]
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(np.repeat(kept_ids, bands), pa.string()),
                    pa.array(np.repeat(simhashes, bands)),
                    pa.array(np.tile(np.arange(bands, dtype=np.int32), len(kept_ids))),
                    pa.array(keys.reshape(-1).astype(np.int64)),
                ],
                names=["id", "simhash", "band", "key"],
            )

    return rows


def _verify(min_jaccard: float, shingles: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    def rows(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in iterator:
            a, b, hamming, text_a, text_b = (batch.column(i) for i in range(5))
            jaccard = np.array(priorart._priorart.jaccard_many(text_a.to_pylist(), text_b.to_pylist(), shingles, 1))
            kept = jaccard >= min_jaccard
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(a.to_numpy(zero_copy_only=False)[kept], pa.string()),
                    pa.array(b.to_numpy(zero_copy_only=False)[kept], pa.string()),
                    pa.array(hamming.to_numpy(zero_copy_only=False)[kept].astype(np.int32)),
                    pa.array(jaccard[kept]),
                ],
                names=["a", "b", "hamming", "jaccard"],
            )

    return rows


def verified_pairs(
    documents: DataFrame,
    min_jaccard: float = 0.8,
    shingles: str = "words",
    id_col: str = "id",
    text_col: str = "text",
) -> DataFrame:
    """The pairs ``priorart dedup`` (MinHash candidates, the default) finds
    in ``documents``: ``a, b, hamming, jaccard`` with ``a < b`` by id (Spark
    has no input order), ``jaccard`` the exact Jaccard similarity of the
    two texts' word 5-grams (cut by ``shingles``, ``"words"`` or
    ``"tokens"``, or ``"words-v1"`` or ``"tokens-v1"`` as before
    simhash-doc-v2), at least ``min_jaccard`` (about 0.3 or more: below it
    MinHash bands pair nearly everything).

    Distributed, no step on the driver: each document's band keys (the
    dedup engine's bands and rows for the threshold, computed by the Rust
    extension) become rows ``(id, simhash, band, key)``; candidates are the
    pairs of a join on ``(band, key)``, each pair once; the texts are
    joined to the candidates and each pair verified in the task holding
    both. Empty texts (or only white space) and null texts are skipped, as
    the CLI skips them. Ids must be unique, as the CLI requires."""
    docs = documents.select(F.col(id_col).alias("id"), F.col(text_col).alias("text")).where(
        F.col("text").isNotNull()
    )
    keys = docs.mapInArrow(_band_rows(min_jaccard, shingles), _BAND_SCHEMA)
    left, right = keys.alias("l"), keys.alias("r")
    candidates = (
        left.join(right, (F.col("l.band") == F.col("r.band")) & (F.col("l.key") == F.col("r.key")))
        .where(F.col("l.id") < F.col("r.id"))
        .select(
            F.col("l.id").alias("a"),
            F.col("r.id").alias("b"),
            F.bit_count(F.col("l.simhash").bitwiseXOR(F.col("r.simhash"))).alias("hamming"),
        )
        .distinct()
    )
    texts_a = docs.select(F.col("id").alias("a"), F.col("text").alias("text_a"))
    texts_b = docs.select(F.col("id").alias("b"), F.col("text").alias("text_b"))
    with_texts = candidates.join(texts_a, "a").join(texts_b, "b").select("a", "b", "hamming", "text_a", "text_b")
    return with_texts.mapInArrow(_verify(min_jaccard, shingles), _PAIR_SCHEMA)


def verified_clusters(pairs: DataFrame) -> DataFrame:
    """The clusters of :func:`verified_pairs`' pairs (connected components):
    ``representative`` (the smallest id), ``size``, ``members`` (sorted)."""
    labelled = clusters(pairs)
    return (
        labelled.groupBy("representative")
        .agg(F.array_sort(F.collect_list("id")).alias("members"))
        .select("representative", F.size("members").alias("size"), "members")
    )


#: Rows of :func:`passage_pairs`: the two documents (``a`` the earlier),
#: the winnowing marks they share and the pair's line of ``priorart dedup
#: --passages``' ``passages.jsonl`` (without its newline: ``a``, ``b``,
#: ``marks`` and the ``passages`` as ``priorart compare --passages --json``
#: gives them).
PASSAGE_PAIR_SCHEMA = T.StructType(
    [
        T.StructField("a", T.StringType(), False),
        T.StructField("b", T.StringType(), False),
        T.StructField("marks", T.IntegerType(), False),
        T.StructField("line", T.StringType(), False),
    ]
)


def _mark_rows() -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Batches of ``(id, order, text)`` as one row per distinct winnowing
    mark of each text: ``(id, order, hash, word)``."""

    def rows(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in iterator:
            counts, hashes, words = priorart._priorart.passage_marks(batch.column(2).to_pylist(), 1)
            holder = np.repeat(np.arange(len(counts), dtype=np.int64), np.asarray(counts, dtype=np.int64))
            yield pa.RecordBatch.from_arrays(
                [
                    batch.column(0).take(pa.array(holder)),
                    batch.column(1).take(pa.array(holder)),
                    pa.array(np.frombuffer(hashes, dtype=np.uint64).view(np.int64)),
                    pa.array(np.frombuffer(words, dtype=np.uint32).astype(np.int32)),
                ],
                names=["id", "order", "hash", "word"],
            )

    return rows


def _check_pairs(
    boilerplate_hashes: bytes, min_words: int, boilerplate: int, min_marks: int, min_coverage: float,
    passage_text: bool,
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Batches of candidates ``(a, b, marks, text_a, text_b)`` as the pairs
    that share passages, checked by the passage search's pair checker."""

    def rows(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        checker = priorart._priorart.PassageChecker(boilerplate_hashes, min_words, boilerplate, min_marks,
                                                    min_coverage, passage_text)
        for batch in iterator:
            a, b, marks, text_a, text_b = (batch.column(i).to_pylist() for i in range(5))
            lines, _ = checker.check_many(a, b, marks, text_a, text_b, 1)
            kept = [row for row, line in enumerate(lines) if line is not None]
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([a[row] for row in kept], pa.string()),
                    pa.array([b[row] for row in kept], pa.string()),
                    pa.array([marks[row] for row in kept], pa.int32()),
                    pa.array([lines[row].rstrip("\n") for row in kept], pa.string()),  # type: ignore[union-attr]
                ],
                names=["a", "b", "marks", "line"],
            )

    return rows


def _boilerplate_rows(min_words: int) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """Batches of example documents ``(id, order, text, words, documents)``
    as their boilerplate passages' ``(example, order, byte_offset, line)``."""

    def rows(iterator: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in iterator:
            ids = batch.column(0).to_pylist()
            found = priorart._priorart.boilerplate_lines(
                ids, batch.column(2).to_pylist(), batch.column(3).to_pylist(), batch.column(4).to_pylist(),
                min_words, 1)
            holder = [row for row, lines in enumerate(found) for _ in lines]
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([ids[row] for row in holder], pa.string()),
                    batch.column(1).take(pa.array(holder, pa.int64())),
                    pa.array([offset for lines in found for offset, _ in lines], pa.int64()),
                    pa.array([line.rstrip("\n") for lines in found for _, line in lines], pa.string()),
                ],
                names=["example", "order", "byte_offset", "line"],
            )

    return rows


def passage_pairs(
    documents: DataFrame,
    min_words: int = 50,
    boilerplate: int = 32,
    min_marks: int = 5,
    min_coverage: float = 0.65,
    id_col: str = "id",
    text_col: str = "text",
    order_col: Optional[str] = None,
    passage_text: bool = False,
) -> DataFrame:
    """The pairs ``priorart dedup --passages`` (and
    :func:`priorart.dedup_passages`) finds in ``documents``: rows of
    :data:`PASSAGE_PAIR_SCHEMA`, ``line`` the CLI's line for the pair, the
    same settings and defaults. ``a`` is the earlier document by
    ``order_col`` (any orderable column: a row number, a struct of file
    and line; give the input order to get the CLI's pairs, whose passage
    offsets are ``a``'s then ``b``'s), else by id; with ``passage_text``
    the lines carry the passages' texts (the CLI's ``--passage-text``).
    :func:`passage_search` gives the boilerplate passages too."""
    return passage_search(documents, min_words, boilerplate, min_marks, min_coverage, id_col, text_col,
                          order_col, passage_text)["pairs"]


def passage_search(
    documents: DataFrame,
    min_words: int = 50,
    boilerplate: int = 32,
    min_marks: int = 5,
    min_coverage: float = 0.65,
    id_col: str = "id",
    text_col: str = "text",
    order_col: Optional[str] = None,
    passage_text: bool = False,
) -> Dict[str, DataFrame]:
    """``priorart dedup --passages`` distributed: ``pairs``
    (:func:`passage_pairs`) and ``boilerplate``, the lines of its
    ``boilerplate.jsonl`` as ``(example, order, byte_offset, line)``
    (the CLI's order: by ``order`` of the example, then ``byte_offset``).

    No text on the driver: each document's winnowing marks (each hash
    once, at its first content word, as the search counts them; computed
    by the Rust extension) become rows ``(id, order, hash, word)``. A hash
    held by more than ``boilerplate`` documents is boilerplate: these
    hashes alone are collected on the driver (for the checker), and each
    is grouped under the first document holding it, whose text is joined
    to them and whose boilerplate passages the search's own code finds.
    The other hashes held by two documents or more give their pairs by a
    join on the hash; pairs sharing at least ``min_marks`` of them are the
    candidates; the texts are joined to the candidates and each pair is
    checked in the task holding both texts by the search's
    ``PairChecker`` (aligned when 5 shared marks lie within 64 content
    words, passages kept by ``min_words``, ``min_coverage`` and the
    boilerplate), each text prepared once per batch. Empty and null texts
    are skipped. Ids must be unique, as the CLI requires."""
    # Checked (and named) by the extension, as priorart.dedup_passages checks them.
    priorart._priorart.PassageChecker(b"", min_words, boilerplate, min_marks, min_coverage)
    order = F.col(order_col) if order_col is not None else F.col(id_col)
    docs = documents.select(
        F.col(id_col).cast("string").alias("id"), order.alias("order"), F.col(text_col).alias("text")
    ).where(F.col("text").isNotNull())
    order_type = docs.schema["order"].dataType
    mark_schema = T.StructType(
        [
            T.StructField("id", T.StringType(), True),
            T.StructField("order", order_type, True),
            T.StructField("hash", T.LongType(), False),
            T.StructField("word", T.IntegerType(), False),
        ]
    )
    marks = docs.mapInArrow(_mark_rows(), mark_schema).cache()
    holders = marks.groupBy("hash").agg(
        F.count(F.lit(1)).alias("n"), F.min(F.struct("order", "id", "word")).alias("first")
    )
    common = holders.where(F.col("n") > boilerplate).cache()
    boilerplate_hashes = np.array([row["hash"] for row in common.select("hash").collect()], dtype=np.int64).tobytes()
    shared = marks.join(holders.where((F.col("n") >= 2) & (F.col("n") <= boilerplate)), "hash").select(
        "hash", "id", "order"
    )
    left, right = shared.alias("l"), shared.alias("r")
    candidates = (
        left.join(right, (F.col("l.hash") == F.col("r.hash")) & (F.col("l.order") < F.col("r.order")))
        .groupBy(F.col("l.id").alias("a"), F.col("r.id").alias("b"))
        .agg(F.count(F.lit(1)).cast("int").alias("marks"))
        .where(F.col("marks") >= min_marks)
    )
    texts_a = docs.select(F.col("id").alias("a"), F.col("text").alias("text_a"))
    texts_b = docs.select(F.col("id").alias("b"), F.col("text").alias("text_b"))
    with_texts = (
        candidates.join(texts_b, "b")
        # Joined on a last, so a document's pairs are in one task, together
        # (sorted by a): its text is prepared once per batch.
        .join(texts_a, "a")
        .sortWithinPartitions("a")
        .select("a", "b", "marks", "text_a", "text_b")
    )
    check = _check_pairs(boilerplate_hashes, min_words, boilerplate, min_marks, min_coverage, passage_text)
    pairs = with_texts.mapInArrow(check, PASSAGE_PAIR_SCHEMA)
    examples = (
        common.groupBy(F.col("first.id").alias("id"))
        .agg(F.array_sort(F.collect_list(F.struct(F.col("first.word").alias("word"), F.col("n")))).alias("marks"))
        .join(docs, "id")
        .select("id", "order", "text", F.col("marks.word").alias("words"), F.col("marks.n").cast("array<int>")
                .alias("documents"))
    )
    boilerplate_schema = T.StructType(
        [
            T.StructField("example", T.StringType(), False),
            T.StructField("order", order_type, True),
            T.StructField("byte_offset", T.LongType(), False),
            T.StructField("line", T.StringType(), False),
        ]
    )
    found = examples.mapInArrow(_boilerplate_rows(min_words), boilerplate_schema)
    return {"pairs": pairs, "boilerplate": found}


def local_driver_memory(total_bytes: Optional[int] = None) -> str:
    """``spark.driver.memory`` for a local master: half the machine's
    memory (``total_bytes``, else /proc/meminfo's), 1 to 16 GiB. In local
    mode the driver is the executor, and Spark's default 1 GiB cannot cache
    a corpus of a few GB (it recomputes the cached texts instead: the 3 GB
    corpus spent most of its time so)."""
    if total_bytes is None:
        try:
            with open("/proc/meminfo", encoding="ascii") as meminfo:
                kib = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
            total_bytes = kib * 1024
        except (OSError, StopIteration, ValueError, IndexError):
            return "1g"
    return f"{max(1, min(16, total_bytes // 2 // (1 << 30)))}g"


def spark_session(
    master: Optional[str] = None, shuffle_partitions: Optional[int] = None, driver_memory: Optional[str] = None
) -> SparkSession:
    """A session for the job: ``master`` only when given (``spark-submit``
    sets its own), the Python of this process on the executors in local
    mode, few shuffle partitions when asked; ``driver_memory`` when given,
    else :func:`local_driver_memory` for a local master (read when the JVM
    starts: a session already running keeps its own)."""
    import os
    import sys

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("priorart-dedup").config("spark.ui.enabled", "false")
    if master:
        builder = builder.master(master)
    if driver_memory is None and master and master.startswith("local"):
        driver_memory = local_driver_memory()
    if driver_memory:
        builder = builder.config("spark.driver.memory", driver_memory)
    if shuffle_partitions:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    return builder.getOrCreate()


def documents_from_records(spark: SparkSession, records: List[tuple]) -> DataFrame:
    """A documents DataFrame (``id``, ``text``) from Python tuples."""
    schema = T.StructType([T.StructField("id", T.StringType(), False), T.StructField("text", T.StringType(), True)])
    return spark.createDataFrame(records, schema)
