"""`priorart.dedup_passages` and `iter_dedup_passages`: the pairs and
boilerplate of `priorart dedup --passages` (the same search), on the
repository's own Markdown cut into sections with passages planted in them
(verbatim and with one word in ten replaced) and a paragraph shared by
more documents than the boilerplate threshold: as records, pair by pair
as the search runs, and as the CLI's two files written by the extension;
a search left half-way (closed, dropped, an exception, Ctrl-C) stops, its
thread and temporary files gone; and the edges: empty texts, a `str` for
a list, rows that are not text, repeated ids, settings out of range,
progress."""

import gc
import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest

import priorart
from priorart import BoilerplatePassage, InputError, PassagePair, PassageSearch, PassageStream
from conftest import REPO

#: A passage planted in this many documents is boilerplate with this threshold.
BOILERPLATE = 4
LICENSE_HOLDERS = 6


def sections():
    """The repository's Markdown cut at its second-level headings: a few
    hundred real documents of prose, code and tables."""
    paths = sorted(REPO.glob("*.md")) + sorted((REPO / "docs").glob("*.md"))
    found = []
    for path in paths:
        for number, section in enumerate(re.split(r"\n(?=## )", path.read_text(encoding="utf-8"))):
            if len(section.split()) >= 40:
                found.append((f"{path.relative_to(REPO)}#{number}", section))
    return found


def planted_corpus():
    """Sections with 12 passages of 60 to 150 words copied from one into
    another of a different file (every other one with one word in ten
    replaced), a 90-word paragraph appended to six, and two blank texts."""
    rng = random.Random(33)
    documents = [[doc_id, text] for doc_id, text in sections()]
    vocabulary = sorted({word for _, text in documents for word in text.split()})
    planted = []
    for copy in range(12):
        while True:
            source, host = rng.sample(range(len(documents)), 2)
            words = documents[source][1].split()
            if documents[source][0].split("#")[0] == documents[host][0].split("#")[0] or len(words) < 160:
                continue
            length = rng.randint(60, 150)
            start = rng.randint(0, len(words) - length)
            passage = words[start:start + length]
            if copy % 2:
                passage = [rng.choice(vocabulary) if n % 10 == 5 else word for n, word in enumerate(passage)]
            # Sixty tokens holding a word, well over the search's 50 words:
            # a table's `|` and a list's `-` are not words.
            if sum(1 for word in passage if re.search(r"\w", word)) >= 60:
                break
        host_text = documents[host][1]
        cut = host_text.find("\n\n", len(host_text) // 2)
        cut = len(host_text) if cut < 0 else cut
        documents[host][1] = host_text[:cut] + "\n\n" + " ".join(passage) + "\n\n" + host_text[cut:]
        planted.append((documents[source][0], documents[host][0]))
    license_text = " ".join(rng.choice(vocabulary) for _ in range(90))
    for holder in rng.sample(range(len(documents)), LICENSE_HOLDERS):
        documents[holder][1] += "\n\n" + license_text + "\n"
    documents.insert(len(documents) // 3, ["blank", "  \n\t"])
    documents.append(["empty", ""])
    return [tuple(document) for document in documents], planted


@pytest.fixture(scope="module")
def corpus():
    return planted_corpus()


FILES = ("passages.jsonl", "boilerplate.jsonl")


def cli_files(cli, tmp_path, documents, *options):
    """The directory of the CLI's passages.jsonl and boilerplate.jsonl for `documents`."""
    corpus = tmp_path / "corpus.jsonl"
    with corpus.open("w", encoding="utf-8") as out:
        for doc_id, text in documents:
            out.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False) + "\n")
    out = tmp_path / "found"
    subprocess.run([cli, "dedup", "--passages", "--jsonl", "--id-field", "id", *options, "--out", str(out),
                    str(corpus)], check=True, capture_output=True)
    return out


def cli_passages(cli, tmp_path, documents, *options):
    """The CLI's passages.jsonl and boilerplate.jsonl lines for `documents`."""
    out = cli_files(cli, tmp_path, documents, *options)
    return [(out / name).read_text(encoding="utf-8").split("\n")[:-1] for name in FILES]


def line(pair):
    """A pair as a line of the CLI's passages.jsonl (without its newline)."""
    return json.dumps(pair.to_json(), ensure_ascii=False, separators=(",", ":"))


def search_threads():
    """The names of this process's passage search threads (Linux), or None."""
    tasks = Path("/proc/self/task")
    if not tasks.is_dir():
        return None
    return [name for name in map(thread_name, tasks.iterdir()) if name.startswith("priorart-pass")]


def thread_name(task):
    """A thread's name, or "" for one that ended meanwhile."""
    try:
        return (task / "comm").read_text().strip()
    except OSError:
        return ""


def open_in(temp_dir):
    """The files in `temp_dir` this process holds open (Linux; the search's
    temporary files are unnamed: removed once closed), or None."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return None
    return [target for target in map(link_target, fds.iterdir()) if target.startswith(str(temp_dir) + os.sep)]


def link_target(fd):
    """Where an open file descriptor's link points, or "" for one closed
    meanwhile (the listing's own)."""
    try:
        return os.readlink(fd)
    except OSError:
        return ""


def assert_stopped(temp_dir):
    """No search thread left, and no temporary file in `temp_dir`, named or open."""
    assert os.listdir(temp_dir) == []
    assert open_in(temp_dir) in (None, [])
    assert search_threads() in (None, [])


def test_pairs_and_boilerplate_equal_the_clis(cli, tmp_path, corpus):
    documents, planted = corpus
    pairs, boilerplate = cli_passages(cli, tmp_path, documents, "--boilerplate", str(BOILERPLATE))
    found = priorart.dedup_passages([text for _, text in documents], [doc_id for doc_id, _ in documents],
                                    boilerplate=BOILERPLATE)
    assert isinstance(found, PassageSearch)
    assert [line(pair) for pair in found.pairs] == pairs
    assert found.passages_jsonl().split("\n")[:-1] == pairs
    assert found.boilerplate_jsonl().split("\n")[:-1] == boilerplate
    # What was planted is found; the license is boilerplate.
    assert {frozenset(copy) for copy in planted} <= {frozenset((pair.a, pair.b)) for pair in found.pairs}
    assert all(isinstance(pair, PassagePair) and pair.passages for pair in found.pairs)
    assert len(found.boilerplate) >= 1 and isinstance(found.boilerplate[0], BoilerplatePassage)
    assert any(passage.documents >= LICENSE_HOLDERS for passage in found.boilerplate)
    assert (found.documents, found.empty, found.unmarked) == (len(documents) - 2, 2, 0)
    assert found.candidates >= len(found.pairs)


def test_the_stream_hands_over_the_clis_pairs_and_writes_its_files(cli, tmp_path, corpus):
    """iter_dedup_passages: pair by pair, the CLI's passages.jsonl line for
    line, in order (the CLI's working set), and the same lines in small
    working sets (many rounds, whose order follows the rounds, as
    dedup_passages'); written by the extension, both files byte for byte
    the CLI's."""
    documents, _ = corpus
    texts, ids = [text for _, text in documents], [doc_id for doc_id, _ in documents]
    expected = cli_files(cli, tmp_path, documents, "--boilerplate", str(BOILERPLATE))
    pairs, boilerplate = [(expected / name).read_text(encoding="utf-8").split("\n")[:-1] for name in FILES]
    temp_dir = tmp_path / "temp"
    temp_dir.mkdir()
    for working_set in (None, 1 << 14):
        with priorart.iter_dedup_passages(iter(texts), iter(ids), boilerplate=BOILERPLATE, working_set=working_set,
                                          temp_dir=temp_dir) as search:
            assert isinstance(search, PassageStream)
            assert (search.documents, search.empty, search.unmarked) == (len(documents) - 2, 2, 0)
            with pytest.raises(RuntimeError):
                _ = search.boilerplate
            found = []
            for pair in search:
                assert isinstance(pair, PassagePair)
                found.append(line(pair))
            if working_set is None:
                assert found == pairs
            else:
                assert sorted(found) == sorted(pairs)
            assert [json.dumps(b.to_json(), ensure_ascii=False, separators=(",", ":"))
                    for b in search.boilerplate] == boilerplate
            assert search.candidates >= len(pairs) and search.unaligned == 0
            assert next(search, None) is None
        assert_stopped(temp_dir)
    out = tmp_path / "written"
    with priorart.iter_dedup_passages(texts, ids, boilerplate=BOILERPLATE, working_set=1 << 14,
                                      temp_dir=temp_dir) as search:
        assert search.write(out) == len(pairs)
        assert len(search.boilerplate) == len(boilerplate)
    assert sorted((out / FILES[0]).read_text(encoding="utf-8").split("\n")[:-1]) == sorted(pairs)
    assert (out / FILES[1]).read_bytes() == (expected / FILES[1]).read_bytes()
    assert sorted(os.listdir(out)) == sorted(FILES)
    assert_stopped(temp_dir)
    # Written again over the earlier files, as the CLI replaces them.
    with priorart.iter_dedup_passages(texts, ids, boilerplate=BOILERPLATE) as search:
        assert search.write(str(out)) == len(pairs)
    assert sorted(os.listdir(out)) == sorted(FILES)
    assert (out / FILES[0]).read_bytes() == (expected / FILES[0]).read_bytes()


def stream(documents, temp_dir, **options):
    """A search of the corpus three times over (ids by row) in small rounds."""
    texts = [text for _, text in documents] * 3
    return priorart.iter_dedup_passages(texts, boilerplate=BOILERPLATE, working_set=1 << 14, temp_dir=temp_dir,
                                        **options)


def test_a_stream_left_half_way_stops(corpus, tmp_path):
    """Closed, dropped, left by an exception or a `break` out of a `with`:
    the search stops, its thread ends and its temporary files go; what it
    would have said at the end is not known."""
    documents, _ = corpus
    temp_dir = tmp_path / "temp"
    temp_dir.mkdir()
    search = stream(documents, temp_dir)
    first = next(search)
    assert isinstance(first, PassagePair)
    assert open_in(temp_dir) != [] and search_threads() != [], "the search's files and thread, while it runs"
    search.close()
    assert_stopped(temp_dir)
    assert next(search, None) is None
    with pytest.raises(RuntimeError):
        _ = search.candidates
    with pytest.raises(ValueError):
        search.write(tmp_path / "out")
    search.close()

    search = stream(documents, temp_dir)
    next(search)
    del search
    gc.collect()
    assert_stopped(temp_dir)

    with pytest.raises(LookupError), stream(documents, temp_dir) as search:
        for n, _ in enumerate(search):
            if n == 2:
                raise LookupError("the consumer failed")
    assert_stopped(temp_dir)

    with stream(documents, temp_dir) as search:
        for _ in search:
            break
    assert_stopped(temp_dir)
    # A stream not iterated at all.
    with stream(documents, temp_dir) as search:
        pass
    assert_stopped(temp_dir)


def test_ctrl_c_stops_a_stream(corpus, tmp_path):
    """Ctrl-C (a KeyboardInterrupt seen while waiting for a round) stops the
    search, pair by pair or writing; the files it was writing are not
    left, nor earlier ones replaced."""
    documents, _ = corpus
    temp_dir = tmp_path / "temp"
    temp_dir.mkdir()

    def interrupt(phase, done, total):
        if phase == "verifying" and done > 0:
            raise KeyboardInterrupt

    search = stream(documents, temp_dir, progress=interrupt)
    with pytest.raises(KeyboardInterrupt):
        for _ in search:
            pass
    assert_stopped(temp_dir)
    out = tmp_path / "out"
    out.mkdir()
    (out / FILES[0]).write_text("earlier\n")
    with pytest.raises(KeyboardInterrupt), stream(documents, temp_dir, progress=interrupt) as search:
        search.write(out)
    assert_stopped(temp_dir)
    assert os.listdir(out) == [FILES[0]] and (out / FILES[0]).read_text() == "earlier\n"


def test_write_takes_every_pair(corpus, tmp_path):
    documents, _ = corpus
    with stream(documents, tmp_path) as search:
        next(search)
        with pytest.raises(ValueError, match="every pair"):
            search.write(tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_other_settings_equal_the_clis(cli, tmp_path, corpus):
    documents, _ = corpus
    options = {"min_words": 80, "min_marks": 8, "min_coverage": 0.8}
    flags = [part for name, value in options.items() for part in ("--" + name.replace("_", "-"), str(value))]
    pairs, boilerplate = cli_passages(cli, tmp_path, documents, *flags, "--passage-text")
    texts = dict(documents)
    found = priorart.dedup_passages(list(texts.values()), list(texts), passage_text=True, **options)
    assert found.passages_jsonl().split("\n")[:-1] == pairs
    assert found.boilerplate_jsonl().split("\n")[:-1] == boilerplate
    # Each side's text is the text at its offsets; without passage_text, only the offsets.
    for pair in found.pairs:
        for passage in pair.passages:
            for side, doc_id in ((passage.a, pair.a), (passage.b, pair.b)):
                assert side.text == texts[doc_id][side.char_offset:side.char_offset + side.char_length]
    offsets = priorart.dedup_passages(list(texts.values()), list(texts), **options)
    assert [(pair.a, pair.b) for pair in offsets.pairs] == [(pair.a, pair.b) for pair in found.pairs]
    assert all(passage.a.text is None and passage.b.text is None
               for pair in offsets.pairs for passage in pair.passages)
    assert all('"text"' not in line for line in offsets.passages_jsonl().split("\n"))


def test_a_stream_in_small_working_sets_gives_the_same_answer(corpus):
    documents, _ = corpus
    texts = [text for _, text in documents]
    whole = priorart.dedup_passages(texts, boilerplate=BOILERPLATE)
    assert whole.pairs and whole.pairs[0].a.isdigit(), "ids are row numbers by default"
    calls = []
    streamed = priorart.dedup_passages(
        (text for text in texts), (n for n in range(len(texts))), boilerplate=BOILERPLATE, working_set=1 << 12,
        threads=1, progress=lambda phase, done, total: calls.append((phase, done, total)))
    assert sorted(streamed.passages_jsonl().split("\n")) == sorted(whole.passages_jsonl().split("\n"))
    assert streamed.boilerplate == whole.boilerplate
    assert ("reading", len(texts), 0) in calls
    phases = [phase for phase, _, _ in calls]
    assert phases.index("reading") < phases.index("verifying")
    done, total = [(d, t) for phase, d, t in calls if phase == "verifying"][-1]
    assert done == total > 0


def test_edges():
    assert priorart.dedup_passages([]) == PassageSearch((), (), 0, 0, 0, 0, 0)
    assert priorart.dedup_passages(["", " "]).empty == 2
    with pytest.raises(InputError) as err:
        priorart.dedup_passages("one text")
    assert err.value.reason == "not_a_collection"
    with pytest.raises(InputError) as err:
        priorart.dedup_passages(["a", "b"], "ab")
    assert err.value.reason == "not_a_collection"
    with pytest.raises(TypeError, match=r"texts\[1\] is NoneType"):
        priorart.dedup_passages(["a", None])
    with pytest.raises(InputError) as err:
        priorart.dedup_passages(["a", "b"], ["x"])
    assert err.value.reason == "ids_length"
    with pytest.raises(InputError) as err:
        priorart.dedup_passages(["a", "b"], ["x", "y", "z"])
    assert err.value.reason == "ids_length"
    with pytest.raises(InputError) as err:
        priorart.dedup_passages(["some text", "other text"], ["x", "x"])
    assert err.value.reason == "repeated_id"
    for name, value in [("min_words", 0), ("boilerplate", 1), ("min_marks", 0), ("min_coverage", 1.5),
                        ("min_words", -1), ("boilerplate", 2**40)]:
        with pytest.raises(InputError, match=name) as err:
            priorart.dedup_passages(["a"], **{name: value})
        assert err.value.reason == "out_of_range"


def test_ctrl_c_is_a_keyboard_interrupt(corpus):
    documents, _ = corpus

    def interrupt(phase, done, total):
        if phase != "reading":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        priorart.dedup_passages([text for _, text in documents] * 3, progress=interrupt)
