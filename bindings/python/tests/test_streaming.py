"""The batch APIs stream: generators and pyarrow arrays go in without
being collected first, a progress callback hears each batch, and peak
memory does not grow with the texts."""

import subprocess
import sys

import pytest

import priorart


def texts(n):
    return [f"text number {i} " + "word " * (i % 50) for i in range(n)]


def test_a_generator_gives_the_list_answer_with_progress():
    expected = priorart.simhash_doc_many(texts(40_000))
    calls = []
    found = priorart.simhash_doc_many((t for t in texts(40_000)),
                                      progress=lambda *call: calls.append(call))
    assert found == expected
    # 40,000 texts are three batches of at most 16,384.
    assert [rows for _, rows, _ in calls] == [16_384, 32_768, 40_000]
    assert {phase for phase, _, _ in calls} == {"fingerprinting"}
    columns = priorart.fingerprint_many(iter(texts(100)), ["simhash-doc-v2", "minhash-equality-v1"])
    assert columns[0] == [priorart.simhash_doc_text(v) for v in expected[:100]]


def test_pyarrow_arrays_are_accepted_directly():
    pa = pytest.importorskip("pyarrow")
    some = texts(1000)
    expected = priorart.simhash_doc_many(some)
    assert priorart.simhash_doc_many(pa.array(some)) == expected
    assert priorart.simhash_doc_many(pa.chunked_array([some[:300], some[300:]])) == expected
    assert priorart.fingerprint_many(pa.array(some), ["simhash-doc-v2"])[0] == [
        priorart.simhash_doc_text(v) for v in expected]
    with pytest.raises(TypeError, match=r"texts\[1\] is NoneType"):
        priorart.simhash_doc_many(pa.array(["a", None, "c"]))


def test_peak_memory_is_flat_when_the_input_doubles(tmp_path):
    """Peak RSS of a child fingerprinting N, then 2N generated texts of 3 KB:
    a call that collected them first would hold another 30 MB."""
    script = tmp_path / "peak.py"
    script.write_text(
        "import resource, sys, priorart\n"
        "n = int(sys.argv[1])\n"
        "priorart.simhash_doc_many(f'text {i} ' + 'word ' * 600 for i in range(n))\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    peaks = [int(subprocess.run([sys.executable, str(script), str(n)], check=True, capture_output=True,
                                text=True).stdout) for n in (10_000, 20_000)]
    assert peaks[1] - peaks[0] < 12_000, peaks
