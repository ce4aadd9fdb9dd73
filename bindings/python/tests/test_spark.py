"""priorart.spark on local[2]: the Spark pairs equal brute force all-pairs
within k (and `priorart dedup`'s, when the CLI is built) on a real corpus
sample, WARC input from the extractor's fixtures, skewed inputs."""

import itertools
import json
import os
import subprocess
import sys

import numpy
import pytest

pyspark = pytest.importorskip("pyspark")

import priorart  # noqa: E402
from priorart import spark as pspark  # noqa: E402
from conftest import DATA, EXTRACT_DATA  # noqa: E402

SAMPLE = DATA / "debian-copyright.jsonl"


@pytest.fixture(scope="module")
def spark():
    session = pspark.spark_session("local[2]", shuffle_partitions=2)
    yield session
    session.stop()


def sample_records():
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


def brute_force_pairs(ids, values, k):
    """Every pair (a < b by id) within k bits, by comparing all of them."""
    values = numpy.asarray(values, dtype=numpy.uint64)
    xor = values[:, None] ^ values[None, :]
    distance = numpy.unpackbits(xor.view(numpy.uint8), axis=None).reshape(len(values), len(values), 64).sum(axis=2)
    pairs = set()
    for i, j in zip(*numpy.nonzero(distance <= k)):
        if i < j:
            a, b = sorted((ids[i], ids[j]))
            pairs.add((a, b, int(distance[i, j])))
    return pairs


def components(pairs):
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, *_ in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups = {}
    for x in list(parent):
        groups.setdefault(find(x), set()).add(x)
    return {min(members): sorted(members) for members in groups.values()}


@pytest.fixture(scope="module")
def sample(spark):
    records = sample_records()
    frame = pspark.documents_from_records(spark, [(r["id"], r["text"]) for r in records])
    return records, pspark.fingerprint_columns(frame).cache()


def test_fingerprint_columns_are_the_batch_apis(sample):
    records, fingerprinted = sample
    rows = {row["id"]: row for row in fingerprinted.collect()}
    texts = [r["text"] for r in records]
    x = priorart.fingerprint_many(texts, ["minhash-equality-v1"])[0]
    doc = priorart.simhash_doc_many(texts)
    for record, expected_x, expected_doc in zip(records, x, doc):
        row = rows[record["id"]]
        assert row["minhash_equality_v1"] == expected_x
        assert pspark.to_unsigned(row["simhash_doc_v2"]) == int(expected_doc)


def test_pairs_equal_brute_force_on_a_real_corpus(sample, k=3):
    records, fingerprinted = sample
    ids = [r["id"] for r in records]
    values = priorart.simhash_doc_many([r["text"] for r in records])
    expected = brute_force_pairs(ids, values, k)
    assert len(expected) > 50, "the sample must hold near-duplicates"
    assert any(d > 0 for _, _, d in expected), "and pairs at a distance"
    found = [tuple(row) for row in pspark.near_duplicates(fingerprinted, k=k).collect()]
    assert len(found) == len(set(found)), "each pair once"
    assert set(found) == expected
    # Splitting every table key into salted blocks changes nothing.
    salted = {tuple(row) for row in pspark.near_duplicates(fingerprinted, k=k, max_bucket=2).collect()}
    assert salted == expected


def test_pairs_equal_the_clis_dedup(cli, sample, tmp_path):
    records, fingerprinted = sample
    out = tmp_path / "dups"
    subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", "-k", "3", "--min-jaccard", "0",
                    "--out", str(out), str(SAMPLE)], check=True, capture_output=True)
    from_cli = set()
    for line in (out / "pairs.jsonl").read_text().splitlines():
        pair = json.loads(line)
        a, b = sorted((pair["a"], pair["b"]))
        from_cli.add((a, b, pair["hamming"]))
    assert {tuple(row) for row in pspark.near_duplicates(fingerprinted, k=3).collect()} == from_cli


def test_clusters_and_exact_groups(spark, sample):
    records, fingerprinted = sample
    pairs = pspark.near_duplicates(fingerprinted, k=3)
    expected = components(tuple(row) for row in pairs.collect())
    found = {}
    for row in pspark.clusters(pairs).collect():
        found.setdefault(row["representative"], []).append(row["id"])
    assert {rep: sorted(members) for rep, members in found.items()} == expected
    # A long chain needs several rounds; its representative is its smallest id.
    chain = spark.createDataFrame([(f"n{i:03}", f"n{i + 1:03}") for i in range(64)], ["a", "b"])
    labels = {row["id"]: row["representative"] for row in pspark.clusters(chain).collect()}
    assert len(labels) == 65 and set(labels.values()) == {"n000"}
    by_x = {}
    for record, x in zip(records, priorart.fingerprint_many([r["text"] for r in records])[0]):
        by_x.setdefault(x, []).append(record["id"])
    expected_groups = {x: sorted(ids) for x, ids in by_x.items() if len(ids) > 1}
    assert expected_groups, "the sample has identical copyright files"
    groups = {row["x"]: row["members"] for row in pspark.exact_groups(fingerprinted).collect()}
    assert groups == expected_groups


def test_web_archives_are_read_record_by_record(spark):
    names = ["sample.warc.gz", "sample.warc", "sample.arc.gz", "bomb.warc.gz", "html-utf8.html", "bomb.epub"]
    paths = [str(EXTRACT_DATA / name) for name in names]
    rows = pspark.read_documents(spark, paths).collect()
    for path in paths[:4]:
        mine = [r for r in rows if r["path"] == path]
        expected = list(priorart.web_archive_records(path))
        assert [(r["uri"], r["offset"], r["text"], r["error_reason"]) for r in mine] == [
            (e.uri, e.offset, e.text, e.error_reason) for e in expected
        ]
        for r in mine:
            assert r["id"] == (f"{path}#{r['offset']} {r['uri']}" if r["uri"] else f"{path}#{r['offset']}")
    bad = sorted(r["error_reason"] for r in rows if r["text"] is None)
    assert bad == ["decompression_bomb", "decompression_bomb", "malformed", "truncated_gzip"]
    html = [r for r in rows if r["path"].endswith("html-utf8.html")]
    assert [(r["id"], r["text"]) for r in html] == [(paths[4], priorart.extract((EXTRACT_DATA / "html-utf8.html").read_bytes()))]


def test_a_thousand_identical_documents_finish(spark, sample):
    records, _ = sample
    copies = [(f"copy-{i:04}", records[0]["text"]) for i in range(1000)]
    frame = pspark.documents_from_records(spark, copies + [(r["id"], r["text"]) for r in records[1:50]])
    outputs = pspark.dedup(frame, k=3)
    pairs = outputs["pairs"]
    assert pairs.where(pairs.a.startswith("copy-") & pairs.b.startswith("copy-")).count() == 1000 * 999 // 2
    clusters = outputs["clusters"].collect()
    biggest = max(clusters, key=lambda row: row["size"])
    assert biggest["size"] >= 1000 and biggest["representative"] == min(biggest["members"])
    exact = outputs["exact_x"].collect()
    assert max(row["size"] for row in exact) >= 1000


def test_many_fingerprints_under_one_key_are_split(spark):
    rng = numpy.random.default_rng(11)
    # 400 values sharing their top 28 bits (table 0's key), plus near copies.
    base = numpy.uint64(0xABCDEF1) << numpy.uint64(36)
    low = rng.integers(0, 2**36, size=400, dtype=numpy.uint64)
    values = list(base | low)
    values += [v ^ numpy.uint64(1 << int(rng.integers(0, 64))) for v in values[:100]]
    values = sorted(set(int(v) for v in values))
    frame = spark.createDataFrame([(v - 2**64 if v >= 2**63 else v,) for v in values], ["fp"])
    found = {(pspark.to_unsigned(a), pspark.to_unsigned(b), d)
             for a, b, d in pspark.fingerprint_pairs(frame, k=3, max_bucket=16).collect()}
    expected = set()
    for a, b in itertools.combinations(values, 2):
        d = bin(a ^ b).count("1")
        if d <= 3:
            signed = lambda v: v - 2**64 if v >= 2**63 else v  # noqa: E731
            lo, hi = sorted((a, b), key=signed)
            expected.add((lo, hi, d))
    assert len(expected) >= 100
    assert found == expected


def test_the_dedup_command(tmp_path):
    out = tmp_path / "out"
    inputs = [str(SAMPLE), str(EXTRACT_DATA / "sample.warc.gz"), str(EXTRACT_DATA / "sample.arc.gz")]
    # The sample under a second name: read once, as the CLI reads it.
    (tmp_path / "again.jsonl").symlink_to(SAMPLE)
    # A Parquet table, its columns found by name: a copy of a sample text
    # under a new id (a pair), and a blank text (skipped and counted).
    import pyarrow as pa
    import pyarrow.parquet as pq

    first = sample_records()[0]
    table = pa.table({"text": [first["text"], "  "], "id": ["copy-of-first", "blank"], "extra": [1, 2]})
    pq.write_table(table, tmp_path / "more.parquet")
    # The workers' Python is found without PYSPARK_PYTHON.
    env = {name: value for name, value in os.environ.items() if name != "PYSPARK_PYTHON"}
    run = subprocess.run(
        [sys.executable, "-m", "priorart.spark", "dedup", "--input", *inputs, str(tmp_path / "again.jsonl"),
         str(tmp_path / "more.parquet"),
         "--output", str(out),
         "--master", "local[2]", "--shuffle-partitions", "4", "--format", "jsonl", "--timings"],
        capture_output=True, text=True, env=env, timeout=1200,
    )
    # sample.warc.gz has a truncated member: reported, exit 1, the rest written.
    assert run.returncode == 1, run.stderr[-3000:]
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    archives = [r for path in inputs[1:] for r in priorart.warc_records(path)]
    assert summary["documents"] == len(sample_records()) + len(archives) + 2
    assert summary["empty"] >= 1
    assert summary["unreadable"] == 1
    assert "verified pairs (band keys, join, verification)" in summary["stages"]
    assert summary["candidates"] == "minhash" and summary["min_jaccard"] == 0.8

    def read(name):
        rows = []
        for part in sorted((out / name).glob("part-*.json")):
            rows += [json.loads(line) for line in part.read_text().splitlines()]
        return rows

    assert len(read("pairs")) == summary["pairs"] > 0
    assert (first["id"], "copy-of-first") in {tuple(sorted((p["a"], p["b"]))) for p in read("pairs")}
    assert len(read("clusters")) == summary["clusters"]
    assert [row["error_reason"] for row in read("errors")] == ["truncated_gzip"]
    again = subprocess.run([sys.executable, "-m", "priorart.spark", "dedup", "--input", str(SAMPLE),
                            "--output", str(out)], capture_output=True, text=True, env=env)
    assert again.returncode == 2 and "exists" in again.stderr


def test_verified_pairs_and_clusters_equal_the_clis_dedup(cli, spark, tmp_path):
    """The distributed dedup (band keys as rows, join, verification next to
    the texts) gives the CLI's verified pairs, jaccard for jaccard, and its
    clusters; blank and null texts are skipped, columns found by name."""
    out = tmp_path / "dups"
    subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", "--out", str(out), str(SAMPLE)],
                   check=True, capture_output=True)
    expected = set()
    for line in (out / "pairs.jsonl").read_text().splitlines():
        pair = json.loads(line)
        a, b = sorted((pair["a"], pair["b"]))
        expected.add((a, b, pair["hamming"], pair["jaccard"]))
    assert expected, "the sample has near duplicates"
    rows = [(r["id"], r["text"]) for r in sample_records()] + [("blank-1", " \n"), ("blank-2", ""), ("null", None)]
    frame = spark.createDataFrame(rows, "name string, body string")
    pairs = pspark.verified_pairs(frame, id_col="name", text_col="body").cache()
    assert {tuple(row) for row in pairs.collect()} == expected
    expected_clusters = sorted(
        sorted(json.loads(line)["members"]) for line in (out / "clusters.jsonl").read_text().splitlines())
    found = sorted(list(row["members"]) for row in pspark.verified_clusters(pairs).collect())
    assert found == expected_clusters


def test_unsigned_values_are_exact_through_pandas(spark):
    texts = [r["text"] for r in sample_records()[:50]] + [None]
    frame = pspark.fingerprint_columns(
        spark.createDataFrame([(str(n), t) for n, t in enumerate(texts)], "id string, text string"),
        schemes=["simhash-doc"])
    table = pspark.to_pandas(frame.orderBy(frame["id"].cast("int")))
    expected = priorart.simhash_doc_many(texts[:-1], scheme="simhash-doc")
    assert any(value >= 2**63 for value in expected), "the sample has values with the top bit set"
    assert str(table["simhash_doc"].dtype) == "UInt64"
    assert [int(v) for v in table["simhash_doc"][:-1]] == expected
    assert table["simhash_doc"].isna().tolist() == [False] * 50 + [True]


def test_a_local_driver_gets_half_the_memory_within_bounds():
    # In local mode the driver is the executor: Spark's 1 GiB default
    # recomputed the cached texts of a 3 GB corpus instead of holding them.
    gib = 1 << 30
    assert pspark.local_driver_memory(24 * gib) == "12g"
    assert pspark.local_driver_memory(gib) == "1g"
    assert pspark.local_driver_memory(256 * gib) == "16g"
    assert pspark.local_driver_memory() in {f"{n}g" for n in range(1, 17)}


#: Chinese without spaces (simhash-doc-v2 and simhash-doc differ on it),
#: near copies of it, and an English text.
CHINESE = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。潮汐磨坊把海水的涨落变成面粉，供附近的村庄使用。"
CHINESE_TEXTS = [
    ("zh", CHINESE),
    ("zh-edited", CHINESE.replace("某", "一", 1)),
    ("zh-same", CHINESE),
    ("zh-longer", CHINESE + "磨坊的水池在旧地图上仍然可以看到。"),
    ("en", "Tidal mills ground grain in the estuaries of Europe for eight centuries."),
]
#: The same with English words around: near copies under the v1 shinglings too.
_ENGLISH = (" A dam held the rising tide in a pond, and at low water the miller opened the sluice so that the "
            "falling water turned the wheel for a few hours twice a day.")
CHINESE_TEXTS += [("mixed", CHINESE + _ENGLISH), ("mixed-edited", CHINESE.replace("某", "一", 1) + _ENGLISH)]


def test_chinese_under_both_simhash_docs_and_every_shingling(spark, cli, tmp_path):
    frame = spark.createDataFrame(CHINESE_TEXTS, "id string, text string")
    columns = pspark.fingerprint_columns(frame, schemes=["simhash-doc-v2", "simhash-doc"])
    rows = {row["id"]: row for row in pspark.to_pandas(columns).to_dict("records")}
    texts = [t for _, t in CHINESE_TEXTS]
    for scheme in ("simhash-doc-v2", "simhash-doc"):
        expected = priorart.simhash_doc_many(texts, scheme=scheme)
        assert [int(rows[i][pspark.column_name(scheme)]) for i, _ in CHINESE_TEXTS] == expected
    assert rows["zh"]["simhash_doc_v2"] != rows["zh"]["simhash_doc"]
    path = tmp_path / "zh.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n" for i, t in CHINESE_TEXTS),
                    encoding="utf-8")
    for shingles in ("words", "words-v1"):
        out = tmp_path / f"dups-{shingles}"
        subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", "--shingles", shingles, "--min-jaccard", "0.3",
                        "--out", str(out), str(path)], check=True, capture_output=True)
        expected = set()
        for line in (out / "pairs.jsonl").read_text().splitlines():
            pair = json.loads(line)
            expected.add((*sorted((pair["a"], pair["b"])), pair["hamming"], pair["jaccard"]))
        assert ("zh", "zh-same", 0, 1.0) in expected
        # A pair at a distance: its hamming is of the shingling's simhash-doc.
        (mixed,) = [pair for pair in expected if pair[:2] == ("mixed", "mixed-edited")]
        scheme = "simhash-doc" if shingles == "words-v1" else "simhash-doc-v2"
        values = priorart.simhash_doc_many([CHINESE + _ENGLISH, CHINESE.replace("某", "一", 1) + _ENGLISH], scheme=scheme)
        assert mixed[2] == priorart.hamming(*values) > 0
        found = {tuple(row) for row in pspark.verified_pairs(frame, 0.3, shingles).collect()}
        assert found == expected, shingles
