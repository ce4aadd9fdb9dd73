"""`priorart.dedup(texts, against=INDEX)`: `priorart dedup --against
INDEX`'s pairs, clusters and survivors from Python (the dedup crate's
`against`, which both call), on the Debian sample against an index of its
first 200 records built by the CLI; and the options it refuses."""

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

import priorart
from priorart import InputError
from conftest import DATA

SAMPLE = DATA / "debian-copyright.jsonl"


@pytest.fixture(scope="module")
def records() -> List[Dict[str, Any]]:
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def index(cli: str, tmp_path: Path, records: List[Dict[str, Any]]) -> Path:
    """An index (built by the CLI) of the sample's first 200 records: the
    rest of the sample holds near copies of some of them."""
    first = tmp_path / "first.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in records[:200]), encoding="utf-8")
    path = tmp_path / "docs.idx"
    subprocess.run([cli, "index", "build", str(path), "--jsonl", "--id-field", "id", str(first)],
                   check=True, capture_output=True)
    return path


def read_jsonl(path: Path) -> List[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("options", [{}, {"min_jaccard": 0.5, "k": 8}])
def test_pairs_clusters_and_survivors_equal_the_clis(cli, tmp_path, records, index, options):
    flags = []
    for name, value in options.items():
        flags += ["--" + name.replace("_", "-"), str(value)]
    out = tmp_path / "dups"
    subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", "--against", str(index), *flags,
                    "--out", str(out), str(SAMPLE)], check=True, capture_output=True)
    pairs, clusters, survivors = (read_jsonl(out / name) for name in
                                  ("pairs.jsonl", "clusters.jsonl", "survivors.jsonl"))
    # The sample gives every kind of answer: pairs with index documents,
    # pairs among the texts, and survivors fewer than the texts.
    assert {p["verification"] for p in pairs} == {"estimated", "exact"}
    assert any(c["from_index"] for c in clusters) and 0 < len(survivors) < len(records)

    found = priorart.dedup([r["text"] for r in records], [r["id"] for r in records], against=index, **options)
    assert [pair.to_json() for pair in found.pairs] == pairs
    assert [cluster.to_json() for cluster in found.clusters] == clusters
    assert [{"id": s} for s in found.survivors] == survivors
    assert [json.loads(line) for line in found.survivors_jsonl().splitlines()] == survivors
    # The first 200 are the index's own documents, found again by id.
    assert found.documents == len(records) and found.again == 200


def test_the_shingling_is_the_indexs(index, records):
    texts = [r["text"] for r in records[:5]]
    with pytest.raises(InputError) as refused:
        priorart.dedup(texts, against=index, shingles="tokens")
    assert refused.value.reason == "shingles_mismatch"
    # Python's argument names, not the CLI's flags.
    assert "shingles=" in str(refused.value) and "--" not in str(refused.value)
    assert priorart.dedup(texts, against=index, shingles="words").survivors == ()


def test_options_of_the_spilling_engine_are_refused(index):
    with pytest.raises(ValueError, match="candidates, temp_dir cannot be given with against="):
        priorart.dedup(["a text"], against=index, candidates="minhash", temp_dir=".")


def test_without_an_index_there_are_no_survivors():
    found = priorart.dedup(["one text here", "another text there"])
    assert found.survivors is None
    pair = priorart.DedupPair("a", "b", 0, 1.0)
    assert "verification" not in pair.to_json() and "verification" not in repr(pair)
    with pytest.raises(ValueError, match="against="):
        found.survivors_jsonl()


def test_a_directory_without_an_index_is_refused(tmp_path):
    with pytest.raises(InputError, match="no priorart index here"):
        priorart.dedup(["a text"], against=tmp_path)


def test_errors_name_python_arguments_not_the_clis_flags():
    # The index crate's hint names the CLI's --layout; a Python user
    # passes layout= to Index.
    index = priorart.Index()
    index.insert("a", "some text to index")
    with pytest.raises(InputError) as refused:
        index.query("some text to index", k=9)
    assert 'layout="k=9"' in str(refused.value) and "--" not in str(refused.value), str(refused.value)


def test_near_pairs_are_the_clis_simhash_pairs(cli, tmp_path, records):
    # min_jaccard 0 keeps every candidate within k: the CLI's simhash pairs
    # unverified, which near_pairs are.
    out = tmp_path / "dups"
    subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", "--candidates", "simhash", "-k", "4",
                    "--min-jaccard", "0", "--out", str(out), str(SAMPLE)], check=True, capture_output=True)
    expected = [{key: p[key] for key in ("a", "b", "hamming")} for p in read_jsonl(out / "pairs.jsonl")]
    ids = [r["id"] for r in records]
    found = priorart.near_pairs(priorart.simhash_doc_many([r["text"] for r in records]), k=4)
    assert expected and [pair.to_json(ids) for pair in found] == expected
    assert found[0].to_json() == {"a": found[0].a, "b": found[0].b, "hamming": found[0].distance}


#: Chinese without spaces: simhash-doc-v2 and simhash-doc differ on it.
CHINESE = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。潮汐磨坊把海水的涨落变成面粉，供附近的村庄使用。"


@pytest.mark.parametrize(("shingles", "scheme"), [("words", "simhash-doc-v2"), ("words-v1", "simhash-doc")])
def test_against_an_index_the_texts_have_its_shinglings_simhash_doc(cli, tmp_path, shingles, scheme):
    """The new texts' simhash-doc values are of the index's token rule (v2,
    or v1 for an index built before v2): the pairs' distances are those of
    that scheme, and equal the CLI's."""
    indexed = [{"id": "zh", "text": CHINESE}, {"id": "en", "text": "Tidal mills ground grain for eight centuries."}]
    new = [{"id": "zh-copy", "text": CHINESE + " 一"}, {"id": "zh-same", "text": CHINESE},
           {"id": "other", "text": "Salt marshes flood twice a day, and the tide mills stood beside them."}]
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in indexed), encoding="utf-8")
    second.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in new), encoding="utf-8")
    index = tmp_path / "zh.idx"
    subprocess.run([cli, "index", "build", str(index), "--shingles", shingles, "--jsonl", "--id-field", "id",
                    str(first)], check=True, capture_output=True)
    assert priorart.Index.open(index).shingles == shingles
    out = tmp_path / "dups"
    subprocess.run([cli, "dedup", "--jsonl", "--id-field", "id", "--against", str(index), "--min-jaccard", "0.3",
                    "--out", str(out), str(second)], check=True, capture_output=True)
    pairs, clusters, survivors = (read_jsonl(out / name) for name in
                                  ("pairs.jsonl", "clusters.jsonl", "survivors.jsonl"))
    found = priorart.dedup([r["text"] for r in new], [r["id"] for r in new], against=index, min_jaccard=0.3)
    assert [pair.to_json() for pair in found.pairs] == pairs
    assert [cluster.to_json() for cluster in found.clusters] == clusters
    assert [{"id": s} for s in found.survivors] == survivors
    texts = {r["id"]: r["text"] for r in indexed + new}
    assert ("zh", "zh-same") in {(p.a, p.b) for p in found.pairs}
    for pair in found.pairs:
        value = lambda name: priorart.simhash_doc(texts[name], scheme)  # noqa: E731
        assert pair.hamming == priorart.hamming(value(pair.a), value(pair.b)), pair
    for cluster in found.clusters:
        assert cluster.simhash_doc == priorart.simhash_doc_text(priorart.simhash_doc(texts[cluster.representative], scheme))
