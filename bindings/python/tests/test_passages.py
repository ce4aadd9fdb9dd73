"""priorart.passages: typed results whose offsets index the Python strings,
the same answer as ``priorart compare --passages --json``."""

import json
import subprocess

import pytest

import priorart
from priorart.results import Passage, PassageSide

BORROWED = (
    "Lighthouse keepers once recorded every passing vessel in heavy leather logbooks, noting weather, "
    "cargo flags and the hour each ship rounded the headland. Historians now read these volumes to "
    "reconstruct coastal trade routes, estimate seasonal traffic and date shipwrecks whose remains divers "
    "still discover beneath shifting sandbanks along the northern estuary."
)
HOST = (
    "Sourdough starters depend on wild yeast and lactic bacteria living together in flour paste. Bakers "
    "feed them daily, discarding part of the culture, and judge readiness by smell and bubbles."
)
SOURCE = (
    "Mountain railways climb steep gradients using rack systems, cogwheels gripping a toothed rail laid "
    "between running rails.\n\n" + BORROWED
)


def test_offsets_are_str_indices_into_both_texts():
    suspicious = "Ünïcödé «" + HOST + "»\n\n" + BORROWED.upper()
    found = priorart.passages(suspicious, SOURCE)
    assert len(found) == 1
    passage = found[0]
    assert isinstance(passage, Passage) and isinstance(passage.a, PassageSide)
    for text, side in ((suspicious, passage.a), (SOURCE, passage.b)):
        assert text[side.char_offset : side.char_offset + side.char_length] == side.text
        encoded = text.encode("utf-8")
        assert encoded[side.byte_offset : side.byte_offset + side.byte_length].decode("utf-8") == side.text
    # From the first matching word to the last: the final full stop is not in it.
    assert passage.a.text == BORROWED.upper().rstrip(".")
    assert passage.similarity == 1.0
    assert passage.seeds > 10


def test_unrelated_texts_share_nothing():
    assert priorart.passages(HOST, SOURCE.split("\n\n")[0]) == []
    assert priorart.passages("", "") == []


def test_a_text_over_the_limit_is_an_input_error():
    with pytest.raises(priorart.InputError) as raised:
        priorart.passages("word " * (13 << 20), "word")
    assert raised.value.reason == "text_too_large"


def test_the_same_answer_as_the_cli(tmp_path, cli):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    suspicious = HOST + "\n\n" + BORROWED
    a.write_text(suspicious, encoding="utf-8")
    b.write_text(SOURCE, encoding="utf-8")
    cli = json.loads(subprocess.run([cli, "compare", "--passages", "--json", str(a), str(b)], check=True, capture_output=True).stdout)
    assert [p.to_json() for p in priorart.passages(suspicious, SOURCE)] == cli["passages"]
    # The document's members in the CLI's order, whatever map this build keeps.
    raw = json.loads(priorart._priorart.passages_json(suspicious, SOURCE, "a", "b"))
    assert list(raw) == list(cli) and list(raw["passages"][0]["a"]) == list(cli["passages"][0]["a"])
