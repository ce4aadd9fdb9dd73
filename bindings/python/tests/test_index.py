"""priorart.Index: insert / query / save / open over the index crate, on
real near-duplicates (the Debian copyright sample), against brute force
and against `priorart index` on the same directory."""

import json
import subprocess

import pytest

import priorart
from conftest import DATA


def records():
    lines = (DATA / "debian-copyright.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines][:150]


def brute_force(texts, query, k):
    value = priorart.simhash_doc(query)
    return {doc_id for doc_id, text in texts.items() if priorart.hamming(value, priorart.simhash_doc(text)) <= k}


def test_queries_find_every_document_within_k():
    texts = {r["id"]: r["text"] for r in records()}
    index = priorart.Index()
    for doc_id, text in texts.items():
        index.insert(doc_id, text)
    assert len(index) == len(texts) and next(iter(texts)) in index and "nope" not in index
    for doc_id, text in list(texts.items())[:40]:
        found = index.query(text, k=3)
        assert all(isinstance(m, priorart.IndexMatch) for m in found)
        near = {m.id for m in found if m.distance <= 3}
        assert near == brute_force(texts, text, 3), doc_id
        me = next(m for m in found if m.id == doc_id)
        assert (me.distance, me.same_x, me.jaccard_estimate) == (0, True, 1.0)
        for m in found:
            assert m.distance == priorart.hamming(m.simhash_doc, priorart.simhash_doc(text))
            if m.distance <= 3:
                assert 0.0 <= m.jaccard_estimate <= 1.0
            else:  # found by X alone, after the near ones
                assert m.same_x and m.jaccard_estimate is None
        estimates = [m.jaccard_estimate for m in found if m.distance <= 3]
        assert estimates == sorted(estimates, reverse=True), "most similar first"


def test_values_and_the_layout_bound():
    index = priorart.Index(layout="k=5")
    base = 0x0123_4567_89AB_CDEF
    for bits in range(8):
        index.insert(f"v{bits}", base ^ ((1 << bits) - 1))
    found = index.query(base, k=5)
    assert sorted((m.id, m.distance) for m in found) == [(f"v{b}", b) for b in range(6)]
    assert all(m.jaccard_estimate is None and not m.same_x for m in found)
    with pytest.raises(priorart.InputError) as caught:
        index.query(base, k=6)
    assert caught.value.reason == "distance_too_large"
    with pytest.raises(priorart.InputError) as caught:
        index.query(base, k=-1)
    assert caught.value.reason == "out_of_range"
    with pytest.raises(priorart.InputError) as caught:
        index.insert("v0", base)
    assert caught.value.reason == "duplicate_ids"
    with pytest.raises(priorart.InputError):
        index.insert("negative", -1)
    with pytest.raises(priorart.InputError) as caught:
        priorart.Index(layout="nonsense")
    assert caught.value.reason == "unknown"  # LayoutError::reason(): no such layout


def test_save_open_and_append(tmp_path):
    texts = {r["id"]: r["text"] for r in records()}
    items = list(texts.items())
    index = priorart.Index()
    for doc_id, text in items[:100]:
        index.insert(doc_id, text)
    path = tmp_path / "docs.idx"
    index.save(path)
    reopened = priorart.Index.open(path)
    assert len(reopened) == 100 and reopened.layout == "manku-16x28"
    query = items[0][1]
    assert reopened.query(query) == index.query(query)
    with pytest.raises(priorart.InputError) as caught:
        reopened.insert(items[0][0], items[0][1])
    assert caught.value.reason == "duplicate_ids"
    # Inserted after opening: found before and after saving to the same place.
    for doc_id, text in items[100:]:
        reopened.insert(doc_id, text)
    before = reopened.query(query)
    reopened.save(path)
    again = priorart.Index.open(path)
    assert len(again) == len(items)
    assert {m.id for m in again.query(query)} == {m.id for m in before} == brute_force(texts, query, 3) | {
        m.id for m in before if m.same_x
    }
    with pytest.raises(priorart.InputError) as caught:
        priorart.Index.open(tmp_path)
    assert caught.value.reason == "missing"


def test_an_index_is_the_clis(cli, tmp_path):
    sample = records()[:60]
    index = priorart.Index()
    files = []
    for n, record in enumerate(sample):
        path = tmp_path / f"doc{n:03}.txt"
        path.write_text(record["text"], encoding="utf-8")
        files.append(str(path))
        index.insert(str(path), record["text"])
    saved = tmp_path / "py.idx"
    index.save(saved)
    built = tmp_path / "cli.idx"
    subprocess.run([cli, "index", "build", str(built), *files], check=True, capture_output=True)
    from_cli_build = priorart.Index.open(built)
    for path in files[:10]:
        out = subprocess.run([cli, "index", "query", "--json", str(saved), path], check=True,
                             capture_output=True, text=True).stdout
        answer = json.loads(out)
        text = open(path, encoding="utf-8").read()
        mine = index.query(text)
        near = {m.id: m.distance for m in mine if m.id in {n["id"] for n in answer["near"]}}
        assert near == {n["id"]: n["distance"] for n in answer["near"]}
        # Each match serialises as the CLI's entry for it, member for member.
        cli_near = {n["id"]: n for n in answer["near"]}
        assert {m.id: m.to_json() for m in mine if m.id in cli_near} == cli_near
        assert {m.id for m in mine if m.same_x} == set(answer["same_x"])
        assert {m.id for m in from_cli_build.query(text)} == {m.id for m in mine}


#: Chinese written without spaces, and a copy with one character changed:
#: simhash-doc-v2 (bigrams) and simhash-doc (a clause per token) differ on them.
CHINESE = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。潮汐磨坊把海水的涨落变成面粉，供附近的村庄使用。"
CHINESE_EDITED = CHINESE.replace("某", "一", 1)


@pytest.mark.parametrize(
    ("shingles", "scheme"),
    [("words", "simhash-doc-v2"), ("tokens", "simhash-doc-v2"), ("words-v1", "simhash-doc"), ("tokens-v1", "simhash-doc")],
)
def test_an_index_holds_the_simhash_doc_of_its_shinglings_rule(cli, tmp_path, shingles, scheme):
    assert priorart.simhash_doc(CHINESE) != priorart.simhash_doc(CHINESE, "simhash-doc")
    index = priorart.Index(shingles=shingles)
    assert index.shingles == shingles
    index.insert("zh", CHINESE)
    index.insert("en", "Tidal mills ground grain in the estuaries of Europe for eight centuries.")
    (me,) = [m for m in index.query(CHINESE) if m.id == "zh"]
    assert me.simhash_doc == priorart.simhash_doc(CHINESE, scheme)
    assert me.distance == 0
    # A value is found by distance in the index's scheme.
    assert "zh" in {m.id for m in index.query(priorart.simhash_doc(CHINESE, scheme), k=0)}
    edited = [m for m in index.query(CHINESE_EDITED, k=3) if m.id == "zh"]
    distance = priorart.hamming(priorart.simhash_doc(CHINESE_EDITED, scheme), priorart.simhash_doc(CHINESE, scheme))
    assert [m.distance for m in edited] == ([distance] if distance <= 3 else [])
    saved = tmp_path / "zh.idx"
    index.save(saved)
    assert priorart.Index.open(saved).shingles == shingles
    # The CLI answers from it as Python does.
    path = tmp_path / "query.txt"
    path.write_text(CHINESE, encoding="utf-8")
    answer = json.loads(subprocess.run([cli, "index", "query", "--json", str(saved), str(path)], check=True,
                                       capture_output=True, text=True).stdout)
    assert {n["id"]: n["distance"] for n in answer["near"]} == {"zh": 0}
    with pytest.raises(priorart.InputError) as caught:
        priorart.Index(shingles="bigrams")
    assert caught.value.reason == "unknown_shingling"


def test_passages_against_an_index_are_the_clis(cli, tmp_path):
    """A passage of an indexed record pasted into another text is found by
    Index.query_passages as `index query --passages --json` finds it; an
    index without passage marks says so (reason no_marks)."""
    sample = records()[:40]
    indexed = tmp_path / "indexed.jsonl"
    indexed.write_text("".join(json.dumps({"id": f"r{n}", "text": r["text"]}) + "\n" for n, r in enumerate(sample[1:])),
                       encoding="utf-8")
    built = tmp_path / "cli.idx"
    subprocess.run([cli, "index", "build", str(built), "--jsonl", "--id-field", "id", str(indexed)], check=True,
                   capture_output=True)
    source = max(range(1, len(sample)), key=lambda n: len(sample[n]["text"].split()))
    passage = " ".join(sample[source]["text"].split()[:150])
    text = sample[0]["text"] + "\n" + passage + "\n"
    essay = tmp_path / "essay.txt"
    essay.write_text(text, encoding="utf-8")
    answer = priorart.Index.open(built).query_passages(text)
    out = subprocess.run([cli, "index", "query", "--json", "--passages", str(built), str(essay)], check=True,
                         capture_output=True, text=True).stdout
    from_cli = json.loads(out)
    from_cli["query"] = "text"
    assert answer == from_cli
    assert f"r{source - 1}" in {found["id"] for found in answer["documents"]}, answer
    index = priorart.Index()
    index.insert("a", text)
    with pytest.raises(priorart.InputError) as caught:
        index.query_passages(text)
    assert caught.value.reason == "no_marks"


def passage_answers(cli, index_dir, essays):
    """`priorart index query --passages --json`'s answer for each essay file."""
    answers = []
    for essay in essays:
        out = subprocess.run([cli, "index", "query", "--json", "--passages", str(index_dir), str(essay)], check=True,
                             capture_output=True, text=True).stdout
        answers.append(json.loads(out))
    return answers


def cli_index(cli, command, index, rows, tmp_path):
    """`priorart index build|add INDEX` of `rows` ({"id", "text"}) as JSON Lines."""
    corpus = tmp_path / "indexed.jsonl"
    lines = (json.dumps({"id": r["id"], "text": r["text"]}) + "\n" for r in rows)
    corpus.write_text("".join(lines), encoding="utf-8")
    subprocess.run([cli, "index", command, str(index), "--jsonl", "--id-field", "id", str(corpus)], check=True,
                   capture_output=True)


def test_an_index_saved_from_python_answers_passages_as_the_clis(cli, tmp_path):
    """An index built from Python texts keeps their passage marks as
    `priorart index build` does: `index query --passages` and
    Index.query_passages answer from it as from the CLI's index of the same
    texts, for passages of several indexed records pasted into other
    texts; documents added to it by a second save are found too; without
    marks (marks=False, or opened and saved elsewhere) it says so."""
    sample = records()[:80]
    first, later = sample[:60], sample[60:]
    built = tmp_path / "cli.idx"
    cli_index(cli, "build", built, first, tmp_path)
    index = priorart.Index()
    for record in first:
        index.insert(record["id"], record["text"])
    saved = tmp_path / "py.idx"
    index.save(saved)
    longest = sorted(sample, key=lambda r: len(r["text"].split()), reverse=True)
    essays, texts = [], []
    for n, source in enumerate(longest[:6]):
        words = source["text"].split()
        text = f"An essay, number {n}, quoting a license.\n" + " ".join(words[10:130]) + "\nThe end.\n"
        essays.append(tmp_path / f"essay{n}.txt")
        essays[-1].write_text(text, encoding="utf-8")
        texts.append(text)
    expected = passage_answers(cli, built, essays)
    assert any(answer["documents"] for answer in expected), "the pasted passages are found"
    assert passage_answers(cli, saved, essays) == expected
    reopened = priorart.Index.open(saved)
    for text, answer in zip(texts, expected):
        assert reopened.query_passages(text) == {**answer, "query": "text"}
        assert index.query_passages(text) == {**answer, "query": "text"}
    # A second save to the same directory appends a segment with marks, as `index add` does.
    for record in later:
        reopened.insert(record["id"], record["text"])
    reopened.save(saved)
    cli_index(cli, "add", built, later, tmp_path)
    expected = passage_answers(cli, built, essays)
    assert {d["id"] for a in expected for d in a["documents"]} & {r["id"] for r in later}, "added ones are found"
    assert passage_answers(cli, saved, essays) == expected
    # Without marks: none kept, and lookups say so.
    for unmarked in (priorart.Index(marks=False), priorart.Index.open(saved)):
        unmarked.insert("extra", texts[0])
        unmarked.save(tmp_path / "unmarked.idx")
        with pytest.raises(priorart.InputError) as caught:
            unmarked.query_passages(texts[0])
        assert caught.value.reason == "no_marks"
        assert priorart.Index.open(tmp_path / "unmarked.idx").query(texts[0])


def test_marks_are_spooled_as_texts_are_inserted_and_kept_when_a_save_fails(cli, tmp_path, monkeypatch):
    """Passage marks go to a spool in the temporary directory as texts are
    inserted (not held in memory until save); a save that fails keeps them,
    so the next save answers `index query --passages` as the CLI's index of
    the same texts; nothing of the spool is left after."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    sample = records()[:40]
    built = tmp_path / "cli.idx"
    cli_index(cli, "build", built, sample, tmp_path)
    index = priorart.Index()
    for record in sample:
        index.insert(record["id"], record["text"])
    assert [p.name.startswith(".marks-spool-") for p in temporary.iterdir()] == [True]
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory", encoding="utf-8")
    with pytest.raises(OSError):
        index.save(blocked / "py.idx")
    assert len(list(temporary.iterdir())) == 1, "the spool is kept"
    saved = tmp_path / "py.idx"
    index.save(saved)
    assert list(temporary.iterdir()) == []
    source = max(sample, key=lambda r: len(r["text"].split()))
    essay = tmp_path / "essay.txt"
    essay.write_text("An essay quoting a license.\n" + " ".join(source["text"].split()[10:130]) + "\nThe end.\n",
                     encoding="utf-8")
    expected = passage_answers(cli, built, [essay])
    assert source["id"] in {d["id"] for d in expected[0]["documents"]}
    assert passage_answers(cli, saved, [essay]) == expected
