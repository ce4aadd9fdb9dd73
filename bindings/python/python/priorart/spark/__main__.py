"""``python -m priorart.spark dedup``: near-duplicate pairs, clusters and
exact-X groups of a collection, on Spark (runs unchanged under
``spark-submit``). By default the pairs are ``priorart dedup``'s: MinHash
candidates verified by the exact Jaccard similarity of word 5-grams
(``--min-jaccard``, ``--shingles``); ``--candidates simhash`` gives the
unverified pairs within simhash-doc distance ``-k`` instead. The summary is
one JSON object on standard output.

``python -m priorart.spark passages``: the pairs of documents sharing
passages, ``priorart dedup --passages``' (the same lines, the documents
ordered as the inputs are named).

Exit codes: 0 ok, 1 some inputs or records could not be read (reported on
stderr and in DIR/errors, the rest processed), 2 usage error.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from typing import Any, Dict, List, Optional


def _expand(inputs: List[str]) -> List[str]:
    """Files named, directories walked, globs expanded (on the driver: the
    paths must be readable from the executors too)."""
    paths: List[str] = []
    for name in inputs:
        matches = sorted(glob.glob(name)) if glob.has_magic(name) else [name]
        for match in matches:
            if os.path.isdir(match):
                for root, _, files in sorted(os.walk(match)):
                    paths.extend(os.path.join(root, f) for f in sorted(files))
            else:
                paths.append(match)
    # A file named twice (or under two names, as overlapping globs give) is
    # read once, as the CLI does: else each of its documents is its own copy.
    seen = set()
    unique = []
    for path in paths:
        identity = os.path.realpath(path)
        if identity in seen:
            print(f"priorart: warning: {path} is a file already named; read once", file=sys.stderr)
            continue
        seen.add(identity)
        unique.append(path)
    return unique


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m priorart.spark", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dedup = commands.add_parser(
        "dedup",
        help="every pair within simhash-doc distance k, clusters, exact-X groups",
        description="Writes DIR/pairs (a, b, hamming), DIR/clusters (representative, size, members), "
        "DIR/exact_x (x, size, representative, members) and DIR/errors (records that could not be read).",
    )
    dedup.add_argument("--input", nargs="+", required=True, metavar="PATH",
                       help="files (web archives: one document per record), directories, globs; "
                       "*.jsonl and *.parquet files: one document per row (--id-field, --text-field)")
    dedup.add_argument("--output", required=True, metavar="DIR", help="output directory (must not exist)")
    dedup.add_argument("--candidates", choices=["minhash", "simhash"], default="minhash",
                       help="minhash (the default): priorart dedup's verified pairs; simhash: the pairs "
                       "within -k, unverified")
    dedup.add_argument("--min-jaccard", type=float, default=0.8,
                       help="smallest Jaccard similarity of word 5-grams of a kept pair (default 0.8)")
    dedup.add_argument("--shingles", choices=["words", "tokens", "words-v1", "tokens-v1"], default="words",
                       help="how texts are cut into words for their 5-grams (default words; the -v1 "
                       "shinglings cut Chinese, Japanese, Thai... as before simhash-doc-v2)")
    dedup.add_argument("-k", "--k", type=int, default=3,
                       help="with --candidates simhash: largest simhash-doc-v2 distance of a pair (default 3)")
    dedup.add_argument("--master", help="Spark master, e.g. local[2] (default: spark-submit's or Spark's)")
    dedup.add_argument("--format", choices=["parquet", "jsonl"], default="parquet")
    dedup.add_argument("--id-field", default="id", help="JSONL member or Parquet column holding the id (default id)")
    dedup.add_argument("--text-field", default="text",
                       help="JSONL member or Parquet column holding the text (default text)")
    dedup.add_argument("--shuffle-partitions", type=int, help="spark.sql.shuffle.partitions")
    dedup.add_argument("--driver-memory", metavar="SIZE",
                       help="spark.driver.memory, e.g. 8g (default with a local --master: half the machine's "
                            "memory, 1g to 16g, since the driver is the executor then; else spark-submit's)")
    dedup.add_argument("--max-bucket", type=int, default=None,
                       help="largest number of fingerprints joined under one table key in one task")
    dedup.add_argument("--timings", action="store_true",
                       help="materialize each stage and print its wall time on stderr")
    passages = commands.add_parser(
        "passages",
        help="every pair of documents sharing a passage, as priorart dedup --passages",
        description="Writes DIR/passages and DIR/boilerplate (priorart dedup --passages' passages.jsonl and "
        "boilerplate.jsonl lines, one part each; with --format parquet the columns a, b, marks, line and "
        "example, byte_offset, line) and DIR/errors (records that could not be read).",
    )
    passages.add_argument("--input", nargs="+", required=True, metavar="PATH",
                          help="as dedup's --input; documents are ordered as the inputs are named (a pair's a is "
                          "the earlier)")
    passages.add_argument("--output", required=True, metavar="DIR", help="output directory (must not exist)")
    passages.add_argument("--min-words", type=int, default=50,
                          help="fewest words on both sides of a reported passage (default 50)")
    passages.add_argument("--boilerplate", type=int, default=32,
                          help="a winnowing hash held by more documents is boilerplate (default 32)")
    passages.add_argument("--min-marks", type=int, default=5,
                          help="fewest winnowing hashes two documents share to be aligned (default 5)")
    passages.add_argument("--min-coverage", type=float, default=0.65,
                          help="smallest share of a passage's content words found in the other side in runs "
                          "(default 0.65)")
    passages.add_argument("--passage-text", action="store_true",
                          help="each passage's text on both sides in the lines, not only its offsets")
    passages.add_argument("--master", help="Spark master, e.g. local[2] (default: spark-submit's or Spark's)")
    passages.add_argument("--format", choices=["jsonl", "parquet"], default="jsonl")
    passages.add_argument("--id-field", default="id",
                          help="JSONL member or Parquet column holding the id (default id)")
    passages.add_argument("--text-field", default="text",
                          help="JSONL member or Parquet column holding the text (default text)")
    passages.add_argument("--shuffle-partitions", type=int, help="spark.sql.shuffle.partitions")
    passages.add_argument("--driver-memory", metavar="SIZE", help="spark.driver.memory, as dedup's")
    args = parser.parse_args(argv)
    if args.command == "passages":
        return _passages(parser, args)

    if args.k < 0 or args.k > 64:
        parser.error("--k must be between 0 and 64")
    if not 0.3 <= args.min_jaccard <= 1:
        parser.error("--min-jaccard must be between 0.3 and 1 (below, MinHash bands pair nearly everything)")
    if os.path.exists(args.output):
        parser.error(f"{args.output} exists; not overwriting it")
    paths = _expand(args.input)
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        parser.error(f"no such file: {missing[0]}")
    if not paths:
        parser.error("no input files")

    from pyspark.sql import functions as F

    from . import (
        DEFAULT_MAX_BUCKET,
        exact_groups,
        fingerprint_columns,
        read_documents,
        spark_session,
        verified_clusters,
        verified_pairs,
    )
    from . import dedup as run_dedup

    started = time.perf_counter()
    spark = spark_session(args.master, args.shuffle_partitions, args.driver_memory)
    jsonl = [p for p in paths if p.endswith(".jsonl")]
    parquet = [p for p in paths if p.endswith(".parquet")]
    others = [p for p in paths if p not in jsonl and p not in parquet]
    documents = read_documents(spark, others).select("id", "text", "error_reason", "error")
    # Tables (JSON Lines, Parquet): one document per row, its columns by name.
    for table in ([spark.read.json(jsonl)] if jsonl else []) + ([spark.read.parquet(*parquet)] if parquet else []):
        records = table.select(F.col(args.id_field).cast("string").alias("id"), F.col(args.text_field).alias("text"))
        documents = documents.unionByName(
            records.withColumn("error_reason", F.lit(None).cast("string")).withColumn(
                "error", F.lit(None).cast("string")
            )
        )
    documents = documents.cache()
    timings: Optional[Dict[str, float]] = {} if args.timings else None
    if timings is not None:
        began = time.perf_counter()
        documents.count()
        timings["read"] = time.perf_counter() - began
    def stage(name: str, frame):
        frame = frame.cache()
        if timings is not None:
            began = time.perf_counter()
            frame.count()
            timings[name] = time.perf_counter() - began
        return frame

    # Written, then counted for the summary: computed once.
    if args.candidates == "minhash":
        texts = documents.where(F.col("text").isNotNull()).select("id", "text")
        pairs = stage("verified pairs (band keys, join, verification)",
                      verified_pairs(texts, args.min_jaccard, args.shingles))
        outputs = {
            "pairs": pairs,
            "clusters": stage("connected components + clusters", verified_clusters(pairs)),
            "exact_x": stage(
                "exact X groups", exact_groups(fingerprint_columns(texts, schemes=["minhash-equality-v1"]))
            ),
        }
    else:
        outputs = {
            name: frame.cache()
            for name, frame in run_dedup(documents, args.k, args.max_bucket or DEFAULT_MAX_BUCKET, timings).items()
        }
    errors = documents.where(F.col("error_reason").isNotNull()).select("id", "error_reason", "error")

    def write(frame, name: str) -> None:
        began = time.perf_counter()
        path = os.path.join(args.output, name)
        if args.format == "parquet":
            frame.write.parquet(path)
        else:
            frame.write.json(path)
        if timings is not None:
            timings[f"write {name}"] = time.perf_counter() - began

    write(outputs["pairs"].orderBy("a", "b"), "pairs")
    write(outputs["clusters"].orderBy("representative"), "clusters")
    write(outputs["exact_x"].orderBy("representative"), "exact_x")
    write(errors, "errors")
    bad = errors.count()
    summary = {
        "documents": documents.where(F.col("text").isNotNull()).count(),
        # Skipped as the CLI skips them (no text to compare: they would all pair).
        "empty": documents.where(F.col("text").rlike(r"(?U)^\s*$")).count(),
        "unreadable": bad,
        "pairs": outputs["pairs"].count(),
        "clusters": outputs["clusters"].count(),
        "exact_x_groups": outputs["exact_x"].count(),
        "candidates": args.candidates,
        **({"min_jaccard": args.min_jaccard, "shingles": args.shingles} if args.candidates == "minhash"
           else {"k": args.k}),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if timings is not None:
        summary["stages"] = {name: round(seconds, 3) for name, seconds in timings.items()}
    print(json.dumps(summary))
    spark.stop()
    return 1 if bad else 0


def _checked_paths(parser: argparse.ArgumentParser, inputs: List[str], output: str) -> List[str]:
    if os.path.exists(output):
        parser.error(f"{output} exists; not overwriting it")
    paths = _expand(inputs)
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        parser.error(f"no such file: {missing[0]}")
    if not paths:
        parser.error("no input files")
    return paths


def _documents_in_order(spark, paths: List[str], id_field: str, text_field: str):
    """The documents of ``paths`` (``id, text, error_reason, error``) with
    ``order``, a struct ``(part, row)`` ordering them as the CLI numbers
    them: the inputs in the order named, records in file order (a run of
    documents and web archives is one part, one task per file in order; a
    JSON Lines or Parquet file is a part of its own, whose splits Spark
    numbers in file order)."""
    from pyspark.sql import functions as F

    from . import read_documents

    def is_table(path: str) -> bool:
        return path.endswith((".jsonl", ".parquet"))

    parts: List[Any] = []
    start = 0
    while start < len(paths):
        end = start + 1
        if not is_table(paths[start]):
            while end < len(paths) and not is_table(paths[end]):
                end += 1
            frame = read_documents(spark, paths[start:end]).select("id", "text", "error_reason", "error")
        else:
            path = paths[start]
            table = spark.read.json(path) if path.endswith(".jsonl") else spark.read.parquet(path)
            frame = table.select(
                F.col(id_field).cast("string").alias("id"),
                F.col(text_field).alias("text"),
                F.lit(None).cast("string").alias("error_reason"),
                F.lit(None).cast("string").alias("error"),
            )
        order = F.struct(F.lit(len(parts)).alias("part"), F.monotonically_increasing_id().alias("row"))
        parts.append(frame.withColumn("order", order))
        start = end
    documents = parts[0]
    for part in parts[1:]:
        documents = documents.unionByName(part)
    return documents


def _passages(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``passages``: the pairs of ``priorart dedup --passages``."""
    if args.min_words < 1 or args.boilerplate < 2 or args.min_marks < 1 or not 0 <= args.min_coverage <= 1:
        parser.error("--min-words and --min-marks must be at least 1, --boilerplate at least 2, "
                     "--min-coverage 0 to 1")
    paths = _checked_paths(parser, args.input, args.output)

    from pyspark.sql import functions as F

    from . import passage_search, spark_session

    started = time.perf_counter()
    spark = spark_session(args.master, args.shuffle_partitions, args.driver_memory)
    documents = _documents_in_order(spark, paths, args.id_field, args.text_field).cache()
    texts = documents.where(F.col("text").isNotNull())
    repeated = texts.groupBy("id").count().where(F.col("count") > 1).select("id").limit(1).collect()
    if repeated:
        print(f"priorart: id {repeated[0]['id']!r} is given to two documents: each needs its own",
              file=sys.stderr)
        spark.stop()
        return 2
    found = passage_search(texts, args.min_words, args.boilerplate, args.min_marks, args.min_coverage,
                           order_col="order", passage_text=args.passage_text)
    pairs = found["pairs"].cache()
    boilerplate = found["boilerplate"].cache()
    os.makedirs(args.output)
    ordered = {"passages": pairs.orderBy("a", "b"), "boilerplate": boilerplate.orderBy("order", "byte_offset")}
    for name, frame in ordered.items():
        if args.format == "jsonl":
            # One part, as the CLI's file: the boilerplate is in the CLI's order.
            frame.select("line").coalesce(1).write.text(os.path.join(args.output, name))
        else:
            frame.drop("order").write.parquet(os.path.join(args.output, name))
    errors = documents.where(F.col("error_reason").isNotNull()).select("id", "error_reason", "error")
    errors.write.json(os.path.join(args.output, "errors"))
    bad = errors.count()
    summary = {
        "documents": texts.where(~F.col("text").rlike(r"(?U)^\s*$")).count(),
        "empty": texts.where(F.col("text").rlike(r"(?U)^\s*$")).count(),
        "unreadable": bad,
        "pairs": pairs.count(),
        "boilerplate_passages": boilerplate.count(),
        "min_words": args.min_words,
        "boilerplate": args.boilerplate,
        "min_marks": args.min_marks,
        "min_coverage": args.min_coverage,
        "passage_text": args.passage_text,
        "seconds": round(time.perf_counter() - started, 3),
    }
    print(json.dumps(summary))
    spark.stop()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
