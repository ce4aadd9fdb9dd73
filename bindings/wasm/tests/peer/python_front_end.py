"""The Python package's answers, for tests/conformance.test.mjs: reads a
JSON list of requests on standard input and writes, for each, the JSON text
the native module returns (``native``) and the typed result's ``to_json()``
written back as JSON (``typed``: member order and values as the dataclasses
keep them)."""

import json
import sys

import priorart
from priorart import _priorart


def dumps(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def source(cache):
    return priorart.HeaderSource(header_cache=cache, network="regtest")


def answer(request):
    kind = request["kind"]
    if kind == "explain":
        native = _priorart.explain_json(request["text"], request["scheme"])
        typed = priorart.explain(request["text"], request["scheme"]).to_json()
    elif kind == "passages":
        native = _priorart.passages_json(request["a"], request["b"], "a", "b")
        typed = [passage.to_json() for passage in priorart.passages(request["a"], request["b"])]
    elif kind == "verify":
        native = _priorart.nip_verify_json(request["event"], source(request["cache"]), request.get("content"))
        typed = priorart.nip.verify(request["event"], source(request["cache"]), request.get("content")).to_json()
    elif kind == "check":
        answers = dumps(request["answers"])
        native = _priorart.check_json(request["x"], answers, source(request["cache"]), None)
        typed = priorart.check(request["x"], request["answers"], source(request["cache"])).to_json()
    elif kind == "ots_info":
        with open(request["proof"], "rb") as file:
            proof = file.read()
        native = _priorart.ots_info_json(proof)
        typed = priorart.ots.info(proof).to_json()
    elif kind == "ots_verify":
        with open(request["proof"], "rb") as file:
            proof = file.read()
        digest = bytes.fromhex(request["digest"])
        headers = priorart.HeaderSource(header_cache=request["cache"])
        native = _priorart.ots_verify_json(proof, digest, headers)
        typed = priorart.ots.verify(proof, digest, headers).to_json()
    else:
        raise ValueError(f"unknown request {kind}")
    return {"native": native, "typed": dumps(typed)}


print(dumps([answer(request) for request in json.load(sys.stdin)]))
