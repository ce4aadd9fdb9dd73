"""priorart.spark's passage_search and `python -m priorart.spark passages`
on local[2]: the pairs and boilerplate of `priorart dedup --passages`, line for line, on
the repository's Markdown with passages planted (test_dedup_passages's
corpus)."""

import json
import subprocess
import sys

import pytest

pyspark = pytest.importorskip("pyspark")

import priorart  # noqa: E402
from priorart import spark as pspark  # noqa: E402
from pyspark.sql import types as T  # noqa: E402
from test_dedup_passages import BOILERPLATE, cli_passages, planted_corpus  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    session = pspark.spark_session("local[2]", shuffle_partitions=2)
    yield session
    session.stop()


@pytest.fixture(scope="module")
def corpus():
    return planted_corpus()


def frame(spark, documents):
    schema = T.StructType([
        T.StructField("id", T.StringType(), False),
        T.StructField("text", T.StringType(), True),
        T.StructField("row", T.LongType(), False),
    ])
    # Few rows per partition: candidates meet across tasks.
    return spark.createDataFrame([(i, t, n) for n, (i, t) in enumerate(documents)], schema).repartition(4)


def test_passage_pairs_and_boilerplate_equal_the_clis(spark, cli, tmp_path, corpus):
    documents, planted = corpus
    pairs, boilerplate = cli_passages(cli, tmp_path, documents, "--boilerplate", str(BOILERPLATE))
    assert len(pairs) >= len(planted) and boilerplate
    search = pspark.passage_search(frame(spark, documents), boilerplate=BOILERPLATE, order_col="row")
    found = search["pairs"].collect()
    assert sorted(row["line"] for row in found) == sorted(pairs)
    in_order = search["boilerplate"].orderBy("order", "byte_offset").collect()
    assert [row["line"] for row in in_order] == boilerplate
    for row in found:
        line = json.loads(row["line"])
        assert (row["a"], row["b"], row["marks"]) == (line["a"], line["b"], line["marks"])
    # And Python's, from the same texts.
    python = priorart.dedup_passages([t for _, t in documents], [i for i, _ in documents], boilerplate=BOILERPLATE)
    assert sorted(python.passages_jsonl().split("\n")[:-1]) == sorted(pairs)


def test_passage_pairs_by_id_and_other_settings(spark, corpus):
    documents, _ = corpus
    # Without an order, a pair's a is the smaller id: the CLI's pairs with ids in input order.
    by_id = sorted(documents, key=lambda document: document[0])
    options = {"min_words": 70, "min_marks": 6, "min_coverage": 0.7, "boilerplate": BOILERPLATE, "passage_text": True}
    expected = priorart.dedup_passages([t for _, t in by_id], [i for i, _ in by_id], **options)
    found = pspark.passage_pairs(frame(spark, documents), **options).collect()
    assert sorted(row["line"] for row in found) == sorted(expected.passages_jsonl().split("\n")[:-1])
    with pytest.raises(priorart.InputError, match="min_marks"):
        pspark.passage_pairs(frame(spark, documents), min_marks=0)


def test_the_passages_command_equals_the_cli(cli, tmp_path, corpus):
    documents, _ = corpus
    pairs, boilerplate = cli_passages(cli, tmp_path, documents, "--boilerplate", str(BOILERPLATE))
    out = tmp_path / "spark"
    run = subprocess.run(
        [sys.executable, "-m", "priorart.spark", "passages", "--input", str(tmp_path / "corpus.jsonl"),
         "--output", str(out), "--master", "local[2]", "--boilerplate", str(BOILERPLATE)],
        capture_output=True, text=True, check=True)
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    def lines(name):
        return [line for part in sorted((out / name).glob("part-*")) for line in
                part.read_text(encoding="utf-8").split("\n")[:-1]]

    assert sorted(lines("passages")) == sorted(pairs)
    assert lines("boilerplate") == boilerplate
    assert (summary["pairs"], summary["boilerplate_passages"]) == (len(pairs), len(boilerplate))
    assert (summary["documents"], summary["empty"]) == (len(documents) - 2, 2)


def test_the_passages_command_refuses_an_id_given_twice(tmp_path):
    corpus = tmp_path / "twice.jsonl"
    corpus.write_text('{"id": "x", "text": "one"}\n{"id": "x", "text": "two"}\n', encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "priorart.spark", "passages", "--input", str(corpus), "--output",
         str(tmp_path / "out"), "--master", "local[2]"], capture_output=True, text=True)
    assert run.returncode == 2 and "'x' is given to two documents" in run.stderr
