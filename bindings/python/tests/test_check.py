"""priorart.check: the NIP's discovery check on relay answers (nip::check,
sans I/O), on the regtest NIP-FF-3 fixture proofs and their headers."""

import json
import shutil

import pytest

import priorart
from conftest import DATA

NIP = DATA / "nip"


def events():
    return [line for line in (NIP / "events.jsonl").read_text().splitlines() if line.strip()]


@pytest.fixture
def headers(tmp_path):
    cache = tmp_path / "headers"
    shutil.copytree(NIP / "headers", cache)
    return priorart.HeaderSource(header_cache=cache, network="regtest")


def test_valid_proofs_are_ranked_by_block(headers):
    x = (NIP / "x").read_text().strip()
    answers = [
        {"url": "wss://one.example", "ending": {"status": "eose"}, "events": events()},
        {"url": "wss://two.example", "ending": {"status": "eose"}, "events": [json.loads(e) for e in events()[:1]]},
    ]
    report = priorart.check(x, answers, header_source=headers)
    assert isinstance(report, priorart.results.CheckReport)
    assert (report.format, report.x, report.network) == ("priorart-check/1", x, "regtest")
    assert report.verdict.status == "proven"
    assert len(report.proofs) == len(events())
    heights = [p.block.height for p in report.proofs]
    assert heights == sorted(heights) and [p.rank for p in report.proofs] == list(range(1, len(heights) + 1))
    assert report.verdict.earliest.height == heights[0]
    assert all(p.report.verdict == "valid" for p in report.proofs)
    assert [r.url for r in report.relays] == ["wss://one.example", "wss://two.example"]
    assert report.relays[0].events == len(events()) and report.relays[0].ending.status == "eose"
    first = next(p for p in report.proofs if json.loads(events()[0])["id"] == p.event_id)
    assert set(first.relays) == {"wss://one.example", "wss://two.example"}
    # A text is taken by its X; the report is the library's JSON, member for member.
    from_text = priorart.check((NIP / "text.txt").read_text(), answers, header_source=headers)
    assert from_text.x == x and from_text.verdict == report.verdict
    raw = json.loads(priorart._priorart.check_json(x, json.dumps(answers), headers))
    assert report.to_json() == raw


def test_what_cannot_be_trusted_is_said(headers, tmp_path):
    x = (NIP / "x").read_text().strip()
    forged = json.loads(events()[0])
    forged["content"] = forged["content"][:-4] + "AAAA"
    answer = {"url": "wss://one.example", "ending": {"status": "eose"}, "events": [forged, "not json"]}
    report = priorart.check(x, [answer], header_source=headers)
    assert report.verdict.status == "nothing_found"
    assert sorted(s.reason for s in report.relays[0].skipped) == ["bad_id", "malformed_event"]
    empty = tmp_path / "empty"
    empty.mkdir()
    no_headers = priorart.HeaderSource(header_cache=empty, network="regtest")
    unchecked = priorart.check(x, [{"url": "wss://r", "ending": {"status": "eose"}, "events": events()}],
                               header_source=no_headers)
    assert unchecked.verdict.status == "unverified" and unchecked.proofs == ()
    assert len(unchecked.unverified) == len(events())
    assert unchecked.verdict.text.startswith(f"{len(events())} proofs found, none could be checked")
    assert unchecked.set_aside == ()
    assert priorart.check(x, [], header_source=headers).verdict.status == "no_relay_asked"
    down = {"url": "wss://down", "ending": {"status": "unreachable", "error": "refused"}, "events": []}
    silent = priorart.check(x, [down], header_source=headers)
    assert silent.verdict.status == "no_relay_answered"
    assert silent.relays[0].ending == priorart.results.RelayEnding(status="unreachable", error="refused")
    with pytest.raises(priorart.InputError) as caught:
        priorart.check(x, [{"url": "wss://r"}], header_source=headers)
    assert caught.value.reason == "invalid_answers"


def test_near_copies_are_asked_for_and_reported(headers):
    x = (NIP / "x").read_text().strip()
    text = (NIP / "text.txt").read_text()
    keys = priorart.near_copies_filter(text)
    assert len(keys["#B"]) == 28 and 1041 not in keys["kinds"]
    answers = [{"url": "wss://one.example", "ending": {"status": "eose"}, "events": events()}]
    # The proofs found by X are not content events: no near copy to ask proofs for.
    assert priorart.near_copies_proof_filter(text, answers) is None
    near = {"text": text, "key_answers": answers, "proof_answers": []}
    report = priorart.check(x, answers, header_source=headers, near=near)
    assert report.fuzzy["keys"] == 28 and report.fuzzy["near_copies"] == []
    # The proofs of X itself still decide: no near copy is earlier.
    assert report.verdict.status == "proven"
    with pytest.raises(priorart.InputError) as error:
        priorart.check(x, answers, header_source=headers, near={"text": text, "key_answers": "[not json"})
    assert error.value.reason == "invalid_answers"


def test_near_copies_of_chinese_are_asked_for_by_both_simhash_docs():
    """A text simhash-doc cuts otherwise than simhash-doc-v2 (Chinese) is
    looked up by the keys of both values: events tagged before v2 carry
    the keys of its simhash-doc value."""
    text = "但它也常常保留了某些不再开发的软件包版本，因为用户仍然需要它们。" * 4
    v2, v1 = (priorart.simhash_doc(text, scheme) for scheme in priorart.SIMHASH_DOC_SCHEMES)
    assert v1 != v2
    keys = priorart.near_copies_filter(text)["#B"]
    assert len(keys) == len(set(keys)) and 28 < len(keys) <= 56
    assert all(key.startswith("6-") for key in keys)
    # Text simhash-doc cuts as v2 does has one value: its 28 keys alone.
    english = "Tidal mills ground grain in the estuaries of Europe for eight centuries. " * 10
    assert priorart.simhash_doc(english) == priorart.simhash_doc(english, "simhash-doc")
    assert len(priorart.near_copies_filter(english)["#B"]) == 28

