"""The edges issue 37 lists: picklable exceptions, OS errors with their
cause and path, an Index shared between threads, a `str` where a list of
texts belongs, a non-text row named, `layout_shape` as typed."""

import errno
import pickle
import threading
from concurrent.futures import ProcessPoolExecutor

import pytest

import priorart
from priorart import ExtractionError, InputError


def _bad_scheme(text):
    """In a worker process: raises InputError (reason unknown_scheme)."""
    return priorart.fingerprint(text, "no-such-scheme")


def test_exceptions_pickle_with_their_reason():
    for error_type in (InputError, ExtractionError, priorart.ProofError):
        assert error_type.__module__ == "priorart"
    with pytest.raises(InputError) as caught:
        priorart.fingerprint("x", "no-such-scheme")
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is InputError
    assert str(again) == str(caught.value) and again.reason == "unknown_scheme"


def test_a_worker_process_error_reaches_the_parent():
    with ProcessPoolExecutor(max_workers=1) as pool:
        with pytest.raises(InputError) as caught:
            pool.submit(_bad_scheme, "text").result()
    assert caught.value.reason == "unknown_scheme"


def test_os_errors_carry_errno_and_path(tmp_path):
    missing = tmp_path / "nonexistent.warc"
    with pytest.raises(FileNotFoundError) as caught:
        priorart.web_archive_records(missing)
    assert caught.value.errno == errno.ENOENT
    assert caught.value.filename == str(missing)
    assert "No such file" in str(caught.value)


def test_an_index_is_shared_between_threads():
    index = priorart.Index()
    errors = []

    def insert(thread):
        try:
            for n in range(200):
                index.insert(f"{thread}-{n}", f"document {n} of thread {thread} " * 20)
                index.query(f"document {n} of thread {thread} " * 20)
        except Exception as err:  # any error is the test's failure, reported below
            errors.append(err)

    threads = [threading.Thread(target=insert, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(index) == 800 and "3-199" in index


@pytest.mark.parametrize("call", [
    lambda texts: priorart.simhash_doc_many(texts),
    lambda texts: priorart.fingerprint_many(texts),
    lambda texts: priorart.dedup(texts),
])
def test_a_str_is_refused_where_a_list_of_texts_belongs(call):
    with pytest.raises(InputError) as caught:
        call("one text")
    assert caught.value.reason == "not_a_collection"


@pytest.mark.parametrize("call", [
    lambda texts: priorart.simhash_doc_many(texts),
    lambda texts: priorart.fingerprint_many(texts),
])
def test_a_row_that_is_not_text_is_named(call):
    with pytest.raises(TypeError, match=r"texts\[1\] is NoneType"):
        call(["a", None])


def test_layout_shape_gives_ints():
    tables, distance, key_bits = priorart.layout_shape()
    assert (tables, distance) == (16, 3)
    assert isinstance(key_bits, list) and key_bits == [28] * 16


def test_explain_has_one_return_type_per_function():
    text = "The quick brown fox jumps over the lazy dog, twice: the quick brown fox!"
    assert isinstance(priorart.explain_simhash_doc(text), priorart.results.SimhashDocExplanation)
    assert priorart.explain_simhash_doc(text) == priorart.explain(text, "simhash-doc-v2")
    assert priorart.explain_simhash_doc(text, "simhash-doc") == priorart.explain(text, "simhash-doc")
    for scheme in priorart.EQUALITY_SCHEMES:
        assert priorart.explain_equality(text, scheme) == priorart.explain(text, scheme)
    with pytest.raises(InputError) as caught:
        priorart.explain_equality(text, "simhash-doc")
    assert caught.value.reason == "not_an_equality_scheme"


def test_the_constants_are_the_crates_own():
    """Scheme lists and the largest k come from the Rust crates, so they
    cannot drift from what the functions accept (issue 35, item 2)."""
    assert priorart.SCHEMES == ("minhash-equality-v1", "simhash-equality-v2", "simhash-doc", "simhash-doc-v2")
    assert priorart.SIMHASH_DOC_SCHEMES[0] == "simhash-doc-v2"
    assert set(priorart.EQUALITY_SCHEMES) | set(priorart.SIMHASH_DOC_SCHEMES) == set(priorart.SCHEMES)
    for scheme in priorart.SCHEMES:
        priorart.fingerprint("one two three", scheme)
    values = [0, (1 << priorart.MAX_DISTANCE) - 1]
    assert [pair.distance for pair in priorart.near_pairs(values, k=priorart.MAX_DISTANCE)] == [priorart.MAX_DISTANCE]
    with pytest.raises(InputError) as refused:
        priorart.near_pairs(values, k=priorart.MAX_DISTANCE + 1)
    assert refused.value.reason == "out_of_range"
