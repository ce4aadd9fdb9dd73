"""OpenTimestamps and NIP-FF-3 verification through the Python API, on the
repository's fixtures with cached block headers (no network)."""

import hashlib
import json
import shutil
import subprocess

import pytest

import priorart
import priorart.nip
import priorart.ots
from conftest import DATA, OTS_DATA

NIP = DATA / "nip"


@pytest.fixture
def headers(tmp_path):
    """A scratch copy of the fixture headers (the cache is a directory the
    verifier may write to)."""
    target = tmp_path / "headers"
    shutil.copytree(OTS_DATA / "headers", target)
    return priorart.HeaderSource(header_cache=target)


def proof(name):
    return (OTS_DATA / name).read_bytes()


def test_info_decodes_the_tree():
    info = priorart.ots.info(proof("hello-world.txt.ots"))
    assert isinstance(info, priorart.results.ProofInfo)
    assert info.file_hash_op == "sha256"
    assert info.file_digest == hashlib.sha256((OTS_DATA / "hello-world.txt").read_bytes()).hexdigest()

    def heights(node):
        found = [a.height for a in node.attestations if a.type == "bitcoin"]
        for op in node.ops:
            found += heights(op.timestamp)
        return found

    assert heights(info.timestamp) == [358391] == list(info.timestamp.bitcoin_heights())
    pending = priorart.ots.info(proof("incomplete.txt.ots"))
    assert "pending" in json.dumps(pending.to_json())


def test_info_is_the_clis(cli):
    out = subprocess.run([cli, "ots", "info", "--json", str(OTS_DATA / "different-blockchains.txt.ots")],
                         check=True, capture_output=True, text=True).stdout
    assert priorart.ots.info(proof("different-blockchains.txt.ots")).to_json() == json.loads(out)


def test_invalid_proofs_are_typed_errors():
    for name in ["bad-major-version.ots", "exceeds-max-msg-length.ots", "invalid-file-digest-type.ots"]:
        with pytest.raises(priorart.ProofError) as caught:
            priorart.ots.info(proof("invalid/" + name))
        assert isinstance(caught.value, ValueError)
        assert caught.value.reason
    with pytest.raises(priorart.ProofError) as caught:
        priorart.ots.info(b"not a proof")
    with pytest.raises(priorart.ProofError) as caught:
        priorart.ots.info(b"\0" * (priorart.ots.MAX_PROOF_BYTES + 1))
    assert caught.value.reason == "too_large"


def test_a_real_proof_verifies_against_cached_headers(headers):
    digest = hashlib.sha256((OTS_DATA / "hello-world.txt").read_bytes()).digest()
    result = priorart.ots.verify(proof("hello-world.txt.ots"), digest, header_source=headers)
    assert isinstance(result, priorart.results.OtsVerification)
    assert result.verified is True
    assert (result.height, result.network) == (358391, "mainnet")
    header = bytes.fromhex((OTS_DATA / "headers" / "358391.hex").read_text().strip())
    assert result.block_hash == hashlib.sha256(hashlib.sha256(header).digest()).digest()[::-1].hex()
    assert priorart.ots.verify(proof("hello-world.txt.ots"), digest.hex(), header_source=headers).verified


def test_failures_say_why(headers, tmp_path):
    digest = hashlib.sha256((OTS_DATA / "hello-world.txt").read_bytes()).digest()
    wrong = priorart.ots.verify(proof("hello-world.txt.ots"), b"\0" * 32, header_source=headers)
    assert (wrong.verified, wrong.reason) == (False, "digest_mismatch")
    empty = tmp_path / "empty"
    empty.mkdir()
    unverified = priorart.ots.verify(proof("hello-world.txt.ots"), digest,
                                     header_source=priorart.HeaderSource(header_cache=empty))
    assert (unverified.verified, unverified.unverified, unverified.reason) == (False, True, "headers_unavailable")
    bad = (OTS_DATA / "bad-stamp.txt").read_bytes()
    forged = priorart.ots.verify(proof("bad-stamp.txt.ots"), hashlib.sha256(bad).digest(), header_source=headers)
    assert (forged.verified, forged.unverified) == (False, False)
    pending_digest = hashlib.sha256((OTS_DATA / "incomplete.txt").read_bytes()).digest()
    pending = priorart.ots.verify(proof("incomplete.txt.ots"), pending_digest, header_source=headers)
    assert (pending.verified, pending.reason) == (False, "pending")
    with pytest.raises(priorart.InputError):
        priorart.ots.verify(proof("hello-world.txt.ots"), "not hex", header_source=headers)


def test_header_source_options_are_checked():
    with pytest.raises(priorart.InputError) as caught:
        priorart.HeaderSource(esplora="http://127.0.0.1:1", bitcoin_rpc="http://127.0.0.1:2")
    assert caught.value.reason == "two_header_sources"
    # The reasons are ots-net's HeaderConfigError::reason(), as the CLI's.
    for options, reason in [
        (dict(no_header_cache=True), "no_header_source"),
        (dict(network="testnet"), "unknown_network"),
        (dict(timeout=0), "out_of_range"),
        (dict(rpc_user="u"), "rpc_login_without_rpc"),
        (dict(bitcoin_rpc="http://127.0.0.1:1", rpc_user="u"), "user_without_password"),
        (dict(bitcoin_rpc="http://127.0.0.1:1", rpc_password="p"), "password_without_user"),
    ]:
        with pytest.raises(priorart.InputError) as caught:
            priorart.HeaderSource(**options)
        assert caught.value.reason == reason, options
    source = priorart.HeaderSource(bitcoin_rpc="http://127.0.0.1:1", rpc_user="u", rpc_password="secret")
    assert "secret" not in repr(source)


def nip_events():
    return [line for line in (NIP / "events.jsonl").read_text().splitlines() if line.strip()]


def test_nip_ff_3_proofs_verify_against_cached_headers(tmp_path):
    cache = tmp_path / "headers"
    shutil.copytree(NIP / "headers", cache)
    source = priorart.HeaderSource(header_cache=cache, network="regtest")
    events = nip_events()
    assert len(events) >= 3
    for event in events:
        report = priorart.nip.verify(event, header_source=source)
        assert isinstance(report, priorart.results.VerifyReport)
        assert report.verdict == "valid" and report.is_valid, report
        assert report.bitcoin.height >= 1
        assert report.fingerprint == (NIP / "x").read_text().strip()
        assert all(isinstance(step, priorart.results.Step) for step in report.steps)
    text = (NIP / "text.txt").read_text()
    matched = priorart.nip.verify(events[0], header_source=source, content=text)
    assert matched.content.matches_x is True
    other = priorart.nip.verify(events[0], header_source=source, content="ships and the sea, nothing else")
    assert other.content.matches_x is False


def test_nip_reports_name_what_is_wrong(tmp_path):
    event = json.loads(nip_events()[0])
    empty = tmp_path / "none"
    empty.mkdir()
    no_headers = priorart.nip.verify(json.dumps(event), priorart.HeaderSource(header_cache=empty, network="regtest"))
    assert no_headers.verdict == "unverified"
    event["content"] = "tampered"
    cache = tmp_path / "headers"
    shutil.copytree(NIP / "headers", cache)
    tampered = priorart.nip.verify(json.dumps(event), priorart.HeaderSource(header_cache=cache, network="regtest"))
    assert tampered.verdict == "invalid"
    assert any(step.status == "fail" and step.reason for step in tampered.steps), tampered
    garbage = priorart.nip.verify("{not json", priorart.HeaderSource(header_cache=cache, network="regtest"))
    assert garbage.verdict == "invalid"


def test_nip_report_is_the_clis(cli, tmp_path):
    cache = tmp_path / "headers"
    shutil.copytree(NIP / "headers", cache)
    event = tmp_path / "event.json"
    event.write_text(nip_events()[1])
    out = subprocess.run([cli, "verify", "--json", "--network", "regtest", "--header-cache", str(cache), str(event)],
                         capture_output=True, text=True).stdout
    source = priorart.HeaderSource(header_cache=cache, network="regtest")
    assert priorart.nip.verify(nip_events()[1], header_source=source).to_json() == json.loads(out)


@pytest.mark.parametrize("name, digest_of", [
    ("hello-world.txt.ots", "hello-world.txt"),
    ("bad-stamp.txt.ots", "bad-stamp.txt"),
    ("incomplete.txt.ots", "incomplete.txt"),
    ("hello-world.txt.ots", None),
])
def test_ots_verify_is_the_clis(cli, tmp_path, name, digest_of):
    """One owner of the answer (the ots crate's VerifyReport): the typed
    result gives back, member for member, what `ots verify --json` prints."""
    cache = tmp_path / "headers"
    shutil.copytree(OTS_DATA / "headers", cache)
    digest = hashlib.sha256((OTS_DATA / digest_of).read_bytes()).digest() if digest_of else b"\1" * 32
    out = subprocess.run([cli, "ots", "verify", "--json", "--header-cache", str(cache), "--digest", digest.hex(),
                          str(OTS_DATA / name)], capture_output=True, text=True).stdout
    from_cli = json.loads(out)
    # The CLI appends what to run next to a pending proof's error (it knows the path).
    hint = f": priorart ots upgrade {OTS_DATA / name}"
    if from_cli.get("error", "").endswith(hint):
        from_cli["error"] = from_cli["error"][: -len(hint)]
    result = priorart.ots.verify(proof(name), digest, header_source=priorart.HeaderSource(header_cache=cache))
    assert result.to_json() == from_cli
    if result.verified:
        assert result.cost_to_forge is not None or any("cost to forge" in w for w in result.warnings)
