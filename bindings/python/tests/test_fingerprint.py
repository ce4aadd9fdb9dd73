"""Fingerprints through the Python API: every shared vector, explain, the
batch forms, the simhash-doc helpers and the index layout keys."""

import dataclasses
import json
import subprocess

import numpy
import pytest

import priorart
from conftest import DATA, VECTORS

EQUALITY = json.loads((VECTORS / "equality-vectors.json").read_text(encoding="utf-8"))["cases"]
SIMHASH_DOC = json.loads((VECTORS / "simhash-doc.json").read_text(encoding="utf-8"))["cases"]
SIMHASH_DOC_V2 = json.loads((VECTORS / "simhash-doc-v2.json").read_text(encoding="utf-8"))["cases"]
#: Chinese written without spaces: simhash-doc hashes each clause whole,
#: simhash-doc-v2 cuts it into character bigrams.
CHINESE = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。潮汐磨坊把海水的涨落变成面粉。"


def test_every_equality_vector_of_both_schemes():
    assert len(EQUALITY) >= 3000
    for case in EQUALITY:
        for scheme in ("minhash-equality-v1", "simhash-equality-v2"):
            assert priorart.fingerprint(case["input"], scheme) == case[scheme], (case["name"], scheme)


def test_every_equality_vector_in_one_batch():
    texts = [case["input"] for case in EQUALITY]
    minhash, simhash = priorart.fingerprint_many(texts, ["minhash-equality-v1", "simhash-equality-v2"])
    assert minhash == [case["minhash-equality-v1"] for case in EQUALITY]
    assert simhash == [case["simhash-equality-v2"] for case in EQUALITY]


@pytest.mark.parametrize(("scheme", "cases"), [("simhash-doc", SIMHASH_DOC), ("simhash-doc-v2", SIMHASH_DOC_V2)])
def test_every_simhash_doc_vector(scheme, cases):
    assert len(cases) >= 50
    default = scheme == "simhash-doc-v2"
    for case in cases:
        value = priorart.simhash_doc(case["input"], scheme=scheme)
        assert value == int(case["hex"], 16), case["name"]
        assert 0 <= value < 2**64
        if default:
            assert priorart.simhash_doc(case["input"]) == value, case["name"]
        assert priorart.fingerprint(case["input"], scheme) == case["base32"], case["name"]
        assert priorart.simhash_doc_text(value) == case["base32"]
        assert priorart.simhash_doc_value(case["base32"]) == value
        assert priorart.simhash_doc_value(case["hex"]) == value
        explained = priorart.explain_simhash_doc(case["input"], scheme=scheme)
        assert (explained.scheme, explained.fingerprint) == (scheme, case["base32"]), case["name"]
    expected = [int(case["hex"], 16) for case in cases]
    values = priorart.simhash_doc_many((case["input"] for case in cases), scheme=scheme)
    assert type(values) is list and values == expected
    array = priorart.simhash_doc_array((case["input"] for case in cases), scheme=scheme)
    assert isinstance(array, numpy.ndarray) and array.dtype == numpy.uint64
    assert array.tolist() == expected
    if default:
        assert priorart.simhash_doc_many(case["input"] for case in cases) == expected
        assert priorart.simhash_doc_array(case["input"] for case in cases).tolist() == expected
    (column,) = priorart.fingerprint_many([case["input"] for case in cases], [scheme])
    assert column == [case["base32"] for case in cases]


def test_the_two_simhash_doc_vectors_differ_only_on_unspaced_scripts():
    v1 = {case["input"]: case["base32"] for case in SIMHASH_DOC}
    shared = [case for case in SIMHASH_DOC_V2 if case["input"] in v1]
    assert shared, "the two files share inputs"
    differing = [case["name"] for case in shared if case["base32"] != v1[case["input"]]]
    assert differing, "some inputs (Chinese, Japanese, Thai...) have another value in v2"
    assert len(differing) < len(shared), "text without those scripts has the same value"


def test_simhash_doc_of_chinese_is_the_clis_simhash_doc_v2(cli):
    from_cli = {
        scheme: subprocess.run(
            [cli, "fingerprint", "--scheme", scheme, "-"], input=CHINESE, check=True, capture_output=True, text=True
        ).stdout.split()[0]
        for scheme in ("simhash-doc-v2", "simhash-doc")
    }
    assert from_cli["simhash-doc-v2"] != from_cli["simhash-doc"]
    assert priorart.simhash_doc_text(priorart.simhash_doc(CHINESE)) == from_cli["simhash-doc-v2"]
    assert priorart.simhash_doc_text(priorart.simhash_doc(CHINESE, scheme="simhash-doc")) == from_cli["simhash-doc"]
    assert priorart.simhash_doc(CHINESE, "simhash-doc-v2") == priorart.simhash_doc(CHINESE)
    assert priorart.fingerprint(CHINESE, "simhash-doc-v2") == from_cli["simhash-doc-v2"]
    assert priorart.fingerprint(CHINESE, "simhash-doc") == from_cli["simhash-doc"]
    assert priorart.explain(CHINESE, "simhash-doc-v2").fingerprint == from_cli["simhash-doc-v2"]
    assert priorart.explain_simhash_doc(CHINESE).scheme == "simhash-doc-v2"
    assert priorart.explain_simhash_doc(CHINESE, "simhash-doc").fingerprint == from_cli["simhash-doc"]


def test_simhash_doc_refuses_the_equality_schemes():
    for call in (
        lambda: priorart.simhash_doc("text", "minhash-equality-v1"),
        lambda: priorart.simhash_doc_many(["text"], scheme="simhash-equality-v2"),
        lambda: priorart.simhash_doc_array(["text"], scheme="minhash-equality-v1"),
        lambda: priorart.explain_simhash_doc("text", "minhash-equality-v1"),
    ):
        with pytest.raises(priorart.InputError) as caught:
            call()
        assert caught.value.reason == "not_a_simhash_doc_scheme"
        assert "equality" in str(caught.value)
    with pytest.raises(priorart.InputError) as caught:
        priorart.simhash_doc("text", "simhash-doc-v3")
    assert caught.value.reason == "unknown_scheme"
    assert "simhash-doc-v3" in str(caught.value)
    assert set(priorart.SIMHASH_DOC_SCHEMES) <= set(priorart.SCHEMES)
    assert priorart.SCHEMES == priorart.EQUALITY_SCHEMES + ("simhash-doc", "simhash-doc-v2")


def test_hamming_and_similarity_take_ints_and_text():
    a, b = 0, 0b1011
    assert priorart.hamming(a, b) == 3
    assert priorart.hamming(priorart.simhash_doc_text(a), b) == 3
    assert priorart.similarity(a, b) == 1 - 3 / 64
    assert priorart.hamming(2**64 - 1, 0) == 64
    with pytest.raises(priorart.InputError) as caught:
        priorart.hamming("not a simhash", 0)
    assert caught.value.reason == "invalid_simhash_doc"
    assert isinstance(caught.value, ValueError)
    with pytest.raises(priorart.InputError):
        priorart.hamming(2**64, 0)


def test_unknown_scheme_is_a_value_error_with_its_reason():
    with pytest.raises(ValueError) as caught:
        priorart.fingerprint("text", "md5")
    assert isinstance(caught.value, priorart.InputError)
    assert caught.value.reason == "unknown_scheme"
    with pytest.raises(priorart.InputError):
        priorart.fingerprint_many(["text"], ["minhash-equality-v1", "nope"])


def test_explain_agrees_with_the_fingerprint():
    text = "The quick brown fox jumps over the lazy dog, twice: the quick brown fox!"
    explanation = priorart.explain(text)
    assert isinstance(explanation, priorart.results.Explanation)
    assert explanation.scheme == "minhash-equality-v1"
    assert explanation.fingerprint == priorart.fingerprint(text)
    assert explanation.tokens[:3] == ("the", "quick", "brown")
    assert len(explanation.buckets) == 8
    assert all(isinstance(b, priorart.results.Bucket) for b in explanation.buckets if b is not None)
    assert not explanation.empty
    with pytest.raises(dataclasses.FrozenInstanceError):
        explanation.fingerprint = "changed"
    legacy = priorart.explain(text, "simhash-equality-v2")
    assert legacy.fingerprint == priorart.fingerprint(text, "simhash-equality-v2")
    for scheme in priorart.SIMHASH_DOC_SCHEMES:
        doc = priorart.explain(text, scheme)
        assert isinstance(doc, priorart.results.SimhashDocExplanation)
        assert doc.scheme == scheme
        assert doc.fingerprint == priorart.fingerprint(text, scheme)
        assert int(doc.hex, 16) == priorart.simhash_doc(text, scheme)
        assert len(doc.counters) == 64
    assert priorart.explain("").empty


@pytest.mark.parametrize("scheme", ["minhash-equality-v1", "simhash-doc", "simhash-doc-v2"])
def test_explain_is_the_clis_explain_json(cli, tmp_path, scheme):
    text = "Café society: naïve résumés, 3 ships and https://example.org/x in ΣΊΣΥΦΟΣ's harbour. " + CHINESE
    path = tmp_path / "doc.txt"
    path.write_text(text, encoding="utf-8")
    out = subprocess.run(
        [cli, "fingerprint", "--raw", "--scheme", scheme, "--explain", "--json", str(path)],
        check=True, capture_output=True, text=True,
    ).stdout
    from_cli = json.loads(out)
    del from_cli["file"], from_cli["input"]
    assert priorart.explain(text, scheme).to_json() == from_cli
    # The same bytes, members in the CLI's order (nested ones too), though
    # this build of serde_json does not preserve a map's order.
    assert priorart._priorart.explain_json(text, scheme) == json.dumps(from_cli, ensure_ascii=False, separators=(",", ":"))


def test_fingerprints_equal_the_clis_on_the_corpus_sample(cli):
    records = [json.loads(line) for line in (DATA / "debian-copyright.jsonl").read_text(encoding="utf-8").splitlines()]
    out = subprocess.run(
        [cli, "fingerprint", "--jsonl", "--scheme", "minhash-equality-v1,simhash-doc,simhash-doc-v2",
         str(DATA / "debian-copyright.jsonl")],
        check=True, capture_output=True, text=True,
    ).stdout.splitlines()
    from_cli = [json.loads(line) for line in out]
    texts = [r["text"] for r in records]
    x, doc, doc_v2 = priorart.fingerprint_many(texts, ["minhash-equality-v1", "simhash-doc", "simhash-doc-v2"])
    assert x == [r["minhash-equality-v1"] for r in from_cli]
    assert doc == [r["simhash-doc"] for r in from_cli]
    assert doc_v2 == [r["simhash-doc-v2"] for r in from_cli]


def corpus_texts():
    lines = (DATA / "debian-copyright.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["text"] for line in lines]


def test_a_batch_on_four_threads_is_the_one_by_one_answer():
    texts = corpus_texts()
    schemes = ["minhash-equality-v1", "simhash-equality-v2", "simhash-doc"]
    batch = priorart.fingerprint_many(iter(texts), schemes, threads=4)
    one_by_one = [[priorart.fingerprint(t, s) for t in texts] for s in schemes]
    assert batch == one_by_one
    assert priorart.simhash_doc_many(texts, threads=4) == [priorart.simhash_doc(t) for t in texts]
    assert priorart.fingerprint_many([], schemes) == [[], [], []]
    for threads in (0, -1, 2**70):
        with pytest.raises(priorart.InputError) as caught:
            priorart.fingerprint_many(texts, schemes, threads=threads)
        assert caught.value.reason == "out_of_range" and "threads" in str(caught.value)
        with pytest.raises(priorart.InputError):
            priorart.simhash_doc_many(texts, threads=threads)
    with pytest.raises(TypeError):
        priorart.fingerprint_many(["a", 3], schemes)


def test_table_keys_find_every_pair_within_three_bits():
    tables, distance, key_bits = priorart.layout_shape()
    assert (tables, distance, set(key_bits)) == (16, 3, {28})
    values = priorart.simhash_doc_array(corpus_texts())
    keys = priorart.table_keys_many(values)
    assert keys.shape == (len(values), 16)
    assert all(int(k) < 2**28 for k in keys.reshape(-1))
    for value, row in zip(values[:20], keys[:20]):
        assert priorart.table_keys(int(value)) == [int(k) for k in row]
    # Pigeonhole: every value within 3 bits of another shares a key with it.
    rng = numpy.random.default_rng(7)
    for value in values[:200]:
        value = int(value)
        bits = rng.choice(64, size=int(rng.integers(0, 4)), replace=False)
        other = value
        for bit in bits:
            other ^= 1 << int(bit)
        assert set(enumerate(priorart.table_keys(value))) & set(enumerate(priorart.table_keys(other)))
    with pytest.raises(priorart.InputError) as caught:
        priorart.table_keys(0, "nonsense")
    assert caught.value.reason == "unknown"  # LayoutError::reason(): no such layout
    assert priorart.layout_shape("k=5")[1] == 5


def _brute_force_pairs(values, k):
    values = [int(v) for v in values]
    return [
        (a, b, bin(values[a] ^ values[b]).count("1"))
        for a in range(len(values))
        for b in range(a + 1, len(values))
        if bin(values[a] ^ values[b]).count("1") <= k
    ]


def test_near_pairs_are_the_brute_force_pairs():
    # Corpus fingerprints plus planted near copies (0 to 8 flipped bits).
    rng = numpy.random.default_rng(11)
    values = priorart.simhash_doc_many(corpus_texts())[:300]
    for i in range(300):
        value = values[int(rng.integers(0, len(values)))]
        for bit in rng.choice(64, size=int(rng.integers(0, 9)), replace=False):
            value ^= 1 << int(bit)
        values.append(value)
    array = numpy.array(values, dtype=numpy.uint64)
    for k in (0, 3, 5, 8):
        expected = _brute_force_pairs(values, k)
        found = priorart.near_pairs_array(array, k, threads=2)
        assert found.dtype == numpy.uint32 and found.shape == (len(expected), 3)
        assert [tuple(int(x) for x in row) for row in found] == expected, k
        # One type per function: a list of NearPair, whatever the input.
        listed = priorart.near_pairs(values, k)
        assert all(isinstance(pair, priorart.NearPair) for pair in listed)
        assert listed == expected == priorart.near_pairs(array, k)
    assert [(p.a, p.b, p.distance) for p in priorart.near_pairs(values[:50], 3)] == _brute_force_pairs(values[:50], 3)
    with pytest.raises(priorart.InputError) as caught:
        priorart.near_pairs(array, 4, layout="manku-16x28")
    assert caught.value.reason == "distance_too_large"
    assert priorart.near_pairs_array(numpy.array([], dtype=numpy.uint64)).shape == (0, 3)
    assert priorart.near_pairs([]) == []


@pytest.mark.parametrize("call", [priorart.near_pairs, priorart.near_pairs_array])
def test_out_of_range_arguments_are_input_errors(call):
    """k=-1 used to raise OverflowError (a failed conversion to an unsigned
    type): every negative or too large integer is an InputError naming it."""
    values = [0, 1, 3]
    for k in (-1, 65, 2**70, -(2**70)):
        with pytest.raises(priorart.InputError) as caught:
            call(values, k=k)
        assert caught.value.reason == "out_of_range", k
        assert f"k={k}" in str(caught.value)
        assert isinstance(caught.value, ValueError)
    for threads in (0, -1):
        with pytest.raises(priorart.InputError) as caught:
            call(values, k=3, threads=threads)
        assert caught.value.reason == "out_of_range"
    with pytest.raises(priorart.InputError) as caught:
        priorart.near_pairs([-1, 0])
    assert caught.value.reason == "out_of_range"
    assert len(call(values, k=10, threads=1)) == 3
