"""`priorart.dedup`: the CLI's verified pairs and clusters from Python (the
same engine), on the Debian sample, plus its edges: empty texts, a `str`
for a list, rows that are not text, repeated ids, streaming inputs."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import priorart
from priorart import DedupCluster, DedupPair, InputError
from conftest import DATA

SAMPLE = DATA / "debian-copyright.jsonl"


@pytest.fixture(scope="module")
def records():
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


def cli_dedup(cli, tmp_path, *options):
    """The CLI's pairs.jsonl and clusters.jsonl for the sample, as JSON values."""
    out = tmp_path / "dups"
    subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", *options, "--out", str(out), str(SAMPLE)],
                   check=True, capture_output=True)
    return [[json.loads(line) for line in (out / name).read_text().splitlines()]
            for name in ("pairs.jsonl", "clusters.jsonl")]


@pytest.mark.parametrize("options", [
    {},
    {"min_jaccard": 0.5, "shingles": "tokens"},
    {"candidates": "simhash", "k": 3},
])
def test_pairs_and_clusters_equal_the_clis(cli, tmp_path, records, options):
    flags = []
    for name, value in options.items():
        flags += ["--" + name.replace("_", "-"), str(value)]
    pairs, clusters = cli_dedup(cli, tmp_path, *flags)
    assert pairs, "the sample has near duplicates"
    found = priorart.dedup([r["text"] for r in records], [r["id"] for r in records], **options)
    assert [pair.to_json() for pair in found.pairs] == pairs
    assert [cluster.to_json() for cluster in found.clusters] == clusters
    assert [json.loads(line) for line in found.pairs_jsonl().splitlines()] == pairs
    assert found.documents == len(records) and found.empty == 0
    assert found.removable == sum(c["size"] - 1 for c in clusters)


def test_a_stream_of_texts_gives_the_same_answer_in_small_batches(records):
    texts = [r["text"] for r in records]
    whole = priorart.dedup(texts, working_set=1)
    calls = []
    # A generator (read once) with ids from another generator.
    streamed = priorart.dedup((t for t in texts), (str(n) for n in range(len(texts))), working_set=1 << 12,
                              progress=lambda phase, done, total: calls.append((phase, done)))
    assert streamed == whole
    assert ("reading", len(texts)) in calls
    # The last report is the verification's, every candidate done.
    assert calls[-1] == ("verifying", streamed.candidates)
    assert whole.pairs[0] == DedupPair(whole.pairs[0].a, whole.pairs[0].b, whole.pairs[0].hamming,
                                       whole.pairs[0].jaccard)


def test_pyarrow_arrays_are_read_as_texts(records):
    pa = pytest.importorskip("pyarrow")
    texts = [r["text"] for r in records]
    expected = priorart.dedup(texts)
    chunked = pa.chunked_array([texts[:100], texts[100:]])
    assert priorart.dedup(chunked) == expected
    assert priorart.dedup(pa.array(texts)) == expected


def test_empty_texts_are_skipped_and_counted():
    text = " ".join(f"word{n}" for n in range(100))
    found = priorart.dedup([""] * 3000 + [text, "  \n\t", text])
    assert found.empty == 3001
    assert found.documents == 2
    assert [(p.a, p.b, p.jaccard) for p in found.pairs] == [("3000", "3002", 1.0)]
    assert found.clusters == (DedupCluster("3000", 2, ("3000", "3002"), found.clusters[0].simhash_doc),)


def test_a_str_is_refused_where_texts_belong():
    with pytest.raises(InputError) as err:
        priorart.dedup("one text, not a list")
    assert err.value.reason == "not_a_collection"
    with pytest.raises(InputError) as err:
        priorart.dedup(["a b c"], ids="a")
    assert err.value.reason == "not_a_collection"


def test_a_row_that_is_not_text_is_named():
    with pytest.raises(TypeError, match=r"texts\[2\] is NoneType"):
        priorart.dedup(["a", "b", None, "d"])
    with pytest.raises(TypeError, match=r"ids\[1\] is NoneType"):
        priorart.dedup(["a", "b"], ["x", None])


def test_ids_must_match_and_be_unique():
    with pytest.raises(InputError) as err:
        priorart.dedup(["x y z", "u v w"], ["a"])
    assert err.value.reason == "ids_length"
    with pytest.raises(InputError) as err:
        priorart.dedup(["x y z"], ["a", "b"])
    assert err.value.reason == "ids_length"
    with pytest.raises(InputError, match='"a" names two documents') as err:
        priorart.dedup(["x y z", "u v w", "p q r"], ["a", "b", "a"])
    assert err.value.reason == "repeated_id"


@pytest.mark.parametrize("options, reason", [
    ({"min_jaccard": 1.5}, "threshold"),
    ({"min_jaccard": 0.1, "candidates": "minhash"}, "minhash_threshold"),
    ({"candidates": "bands"}, "unknown_candidates"),
    ({"k": 65}, "out_of_range"),
])
def test_bad_settings_are_input_errors(options, reason):
    with pytest.raises(InputError) as err:
        priorart.dedup(["x y z"], **options)
    assert err.value.reason == reason


def test_memory_stays_flat_when_the_input_doubles(tmp_path):
    """Peak RSS of a child that streams N and then 2N texts (no two alike,
    so the working set of pass 2 stays empty) through dedup: the texts go
    to disk a batch (16 MiB) at a time, so the second run must not need
    another N texts' worth of memory."""
    script = tmp_path / "peak.py"
    script.write_text(
        "import resource, sys, priorart\n"
        "n = int(sys.argv[1])\n"
        "texts = (f'document {i} ' + ' '.join(f'w{i}x{j}' for j in range(400)) for i in range(n))\n"
        "priorart.dedup(texts)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    peaks = [int(subprocess.run([sys.executable, str(script), str(n)], check=True, capture_output=True,
                                text=True).stdout) for n in (10_000, 20_000)]
    # 10,000 more texts are about 36 MB: a run that held them would grow by that.
    assert peaks[1] - peaks[0] < 12_000, peaks


#: Chinese written without spaces, its near copies and another text: the v1
#: shinglings (and simhash-doc) take each clause whole, the others cut it
#: into character bigrams (and simhash-doc-v2).
CHINESE = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。潮汐磨坊把海水的涨落变成面粉，供附近的村庄使用。"
CHINESE_TEXTS = {
    "zh": CHINESE,
    "zh-edited": CHINESE.replace("某", "一", 1),
    "zh-longer": CHINESE + "磨坊的水池在旧地图上仍然可以看到。",
    "zh-same": CHINESE,
    "en": "Tidal mills ground grain in the estuaries of Europe for eight centuries.",
}


@pytest.mark.parametrize("shingles", ["words", "tokens", "words-v1", "tokens-v1"])
@pytest.mark.parametrize("candidates", ["minhash", "simhash"])
def test_chinese_pairs_equal_the_clis_under_every_shingling(cli, tmp_path, shingles, candidates):
    path = tmp_path / "zh.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n"
                            for i, t in CHINESE_TEXTS.items()), encoding="utf-8")
    out = tmp_path / "dups"
    subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", "--shingles", shingles, "--candidates", candidates,
                    "--min-jaccard", "0.3", "--out", str(out), str(path)], check=True, capture_output=True)
    pairs, clusters = ([json.loads(line) for line in (out / name).read_text().splitlines()]
                       for name in ("pairs.jsonl", "clusters.jsonl"))
    found = priorart.dedup(list(CHINESE_TEXTS.values()), list(CHINESE_TEXTS), shingles=shingles,
                           candidates=candidates, min_jaccard=0.3)
    assert [pair.to_json() for pair in found.pairs] == pairs
    assert [cluster.to_json() for cluster in found.clusters] == clusters
    assert ("zh", "zh-same") in {(p.a, p.b) for p in found.pairs}
    scheme = "simhash-doc" if shingles.endswith("-v1") else "simhash-doc-v2"
    for pair in found.pairs:
        a, b = (priorart.simhash_doc(CHINESE_TEXTS[name], scheme) for name in (pair.a, pair.b))
        assert pair.hamming == priorart.hamming(a, b), pair
    jaccard = {(p.a, p.b): p.jaccard for p in found.pairs}
    if shingles.endswith("-v1"):
        # A clause is one word: one changed character leaves no 5-gram shared.
        assert ("zh", "zh-edited") not in jaccard
    elif candidates == "minhash":
        assert jaccard[("zh", "zh-edited")] >= 0.3
