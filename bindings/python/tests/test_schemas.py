"""The typed results against the JSON Schemas generated from the Rust types
(``schemas/*.schema.json``, written by ``crates/schema``): every object of
every shared document is a dataclass of :mod:`priorart.results` with
exactly its members (or is listed below as kept as a plain ``dict``), and a
member that may be ``null`` or absent is ``Optional``. A member added in
Rust fails here until the dataclass has it."""

import json
import random
import string
from dataclasses import MISSING, fields
from typing import Any, Dict, List, Set

import pytest

import priorart
from priorart import results

from conftest import REPO

SCHEMAS = REPO / "schemas"

# Schema name -> (dataclass, {JSON member: field name} where they differ).
TYPED: Dict[str, Any] = {
    "VerifyReport": (results.VerifyReport, {}),
    "VerifyStep": (results.Step, {}),
    "VerifyWarning": (results.VerifyWarning, {}),
    "BitcoinAnchor": (results.BitcoinAnchor, {}),
    "ContentCheck": (results.ContentCheck, {}),
    "CostToForge": (results.CostToForge, {}),
    "CheckReport": (results.CheckReport, {}),
    "CheckVerdict": (results.CheckVerdict, {}),
    "Earliest": (results.Earliest, {}),
    "RelaySummary": (results.RelaySummary, {}),
    "RelayEnding": (results.RelayEnding, {}),
    "SkippedMessages": (results.SkippedMessages, {}),
    "RankedProof": (results.RankedProof, {}),
    "CheckBlock": (results.CheckBlock, {}),
    "ContentReference": (results.ContentReference, {}),
    "UnverifiedProof": (results.UnverifiedProof, {}),
    "RefusedProof": (results.RefusedProof, {}),
    "ContentEventSeen": (results.ContentEventSeen, {}),
    "Passage": (results.Passage, {}),
    "PassageSide": (results.PassageSide, {}),
    "EqualityExplanation": (results.Explanation, {}),
    "Bucket": (results.Bucket, {}),
    "SimhashDocExplanation": (results.SimhashDocExplanation, {}),
    # `unverified` is a flag when the proof did not verify and the
    # unverified attestations when it did: two fields.
    "OtsVerification": (results.OtsVerification, {"unverified": ("unverified", "unverified_attestations")}),
    "OtsFailure": (results.OtsFailure, {}),
    "Attestation": (results.Attestation, {}),
    "ProofInfo": (results.ProofInfo, {}),
    "TimestampNode": (results.TimestampNode, {}),
    "Operation": (results.Operation, {}),
    "DedupPair": (results.DedupPair, {}),
    "DedupCluster": (results.DedupCluster, {"simhash-doc": "simhash_doc"}),
    "DedupPassages": (results.PassagePair, {}),
    "DedupBoilerplate": (results.BoilerplatePassage, {}),
}

# Objects the package hands over as plain dicts (or does not hand over:
# the passages document's texts, the document itself, whose passages are a list).
UNTYPED = {
    "NearCopyOf": "Earliest.near_copy is a dict",
    "SetAside": "CheckReport.set_aside holds dicts",
    "FuzzyReport": "CheckReport.fuzzy is a dict",
    "NearCopy": "inside CheckReport.fuzzy",
    "NotReportedCount": "inside CheckReport.fuzzy",
    "PassagesReport": "passages() returns the list of passages",
    "PassagesText": "passages() returns the list of passages",
    "DedupSurvivor": "DedupResult.survivors holds the ids",
    # `dedup --passages --against INDEX` is the CLI's alone.
    "DedupIndexPassages": "the package has no passage search against an index",
    "DedupIndexPassage": "inside DedupIndexPassages",
    "TextSpan": "inside DedupIndexPassages and IndexPassagesAnswer",
    "ByteRange": "inside DedupIndexPassages and IndexPassagesAnswer",
    "IndexPassagesAnswer": "Index.query_passages returns the JSON as a dict",
    "IndexPassagesMatch": "inside IndexPassagesAnswer",
    "IndexedPassage": "inside IndexPassagesAnswer",
    "IndexBoilerplate": "inside IndexPassagesAnswer",
    "IndexAnswer": "Index.query returns the list of IndexMatch",
    # Its to_json adds members derived from the fields (similarity,
    # verification): held to the schema by test_index_matches_to_json_...
    "IndexMatch": "IndexMatch.to_json derives similarity and verification",
    # The variants of OtsVerification, checked through it.
    "OtsVerified": "a variant of OtsVerification",
    "OtsDigestMismatch": "a variant of OtsVerification",
    "OtsNotVerified": "a variant of OtsVerification",
    # The variants of Earliest, checked through it.
    "EarliestProof": "a variant of Earliest",
    "EarliestEvent": "a variant of Earliest",
}


def _documents() -> List[Dict[str, Any]]:
    found = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(SCHEMAS.glob("*.schema.json"))]
    assert len(found) >= 7, f"the schemas in {SCHEMAS}"
    return found


def _named() -> Dict[str, Dict[str, Any]]:
    """Every named schema (the roots and their $defs) and the defs to resolve its references."""
    named: Dict[str, Dict[str, Any]] = {}
    for document in _documents():
        defs = document.get("$defs", {})
        for name, schema in [(document["title"], document), *defs.items()]:
            named[name] = {"schema": schema, "defs": defs}
    return named


def _resolve(schema: Any, defs: Dict[str, Any]) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _variants(schema: Dict[str, Any], defs: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The object shapes a schema allows (one, or one per variant of a union)."""
    schema = _resolve(schema, defs)
    choices = schema.get("oneOf") or schema.get("anyOf")
    if choices:
        return [shape for choice in choices for shape in _variants(choice, defs)]
    return [schema] if "properties" in schema else []


def _may_be_missing(member: str, shapes: List[Dict[str, Any]], defs: Dict[str, Any]) -> bool:
    """Whether some shape leaves `member` out or lets it be null (or anything)."""
    for shape in shapes:
        if member not in shape.get("required", []):
            return True
        value = _resolve(shape["properties"][member], defs)
        if value is True or not any(key in value for key in ("type", "const", "enum", "oneOf", "anyOf")):
            return True
        kinds = value.get("type", [])
        choices = value.get("oneOf", []) + value.get("anyOf", [])
        if "null" in kinds or any(_resolve(choice, defs).get("type") == "null" for choice in choices):
            return True
    return False


def test_every_object_of_a_shared_document_is_typed_or_listed():
    named = _named()
    objects = {name for name, entry in named.items() if _variants(entry["schema"], entry["defs"])}
    unaccounted = objects - set(TYPED) - set(UNTYPED)
    assert not unaccounted, f"schemas with no dataclass in priorart.results: {sorted(unaccounted)}"
    stale = (set(TYPED) | set(UNTYPED)) - objects
    assert not stale, f"listed here but in no schema: {sorted(stale)}"


@pytest.mark.parametrize("name", sorted(TYPED))
def test_dataclass_has_exactly_the_schemas_members(name):
    entry = _named()[name]
    cls, renames = TYPED[name]
    shapes = _variants(entry["schema"], entry["defs"])
    members: Set[str] = {member for shape in shapes for member in shape["properties"]}
    expected: Set[str] = set()
    for member in members:
        renamed = renames.get(member, member)
        expected.update(renamed if isinstance(renamed, tuple) else (renamed,))
    names = {field.name for field in fields(cls)}
    assert names == expected, (
        f"{cls.__name__}: missing {sorted(expected - names)}, not in the schema {sorted(names - expected)}"
    )


@pytest.mark.parametrize("name", sorted(TYPED))
def test_members_that_may_be_missing_are_optional(name):
    entry = _named()[name]
    cls, renames = TYPED[name]
    shapes = _variants(entry["schema"], entry["defs"])
    declared = {field.name: field for field in fields(cls)}
    for member in {member for shape in shapes for member in shape["properties"]}:
        if member in renames:
            continue
        annotation = str(declared[member].type)
        optional = annotation.startswith("Optional[")
        # A member some shapes leave out may also be a field with a default (an empty tuple).
        has_default = declared[member].default is not MISSING
        if _may_be_missing(member, shapes, entry["defs"]):
            assert optional or has_default, f"{cls.__name__}.{member}: {annotation}, but it may be null or absent"
        else:
            assert not optional, f"{cls.__name__}.{member}: {annotation}, but it is never null or absent"


@pytest.mark.parametrize("name", sorted(name for name, (_, renames) in TYPED.items() if not renames))
def test_to_json_writes_the_members_in_the_schemas_order(name):
    entry = _named()[name]
    cls, _ = TYPED[name]
    order = cls.json_order()
    for shape in _variants(entry["schema"], entry["defs"]):
        members = list(shape["properties"])
        assert [member for member in order if member in members] == members, (
            f"{cls.__name__}.to_json writes {order}, the schema's order is {members}"
        )


def _holds_members(value: Dict[str, Any], name: str) -> None:
    """`value` has every required member of the schema `name`, no other,
    in the schema's order."""
    schema = _named()[name]["schema"]
    members = list(schema["properties"])
    assert set(schema["required"]) <= set(value), f"{name}: {value} lacks {set(schema['required']) - set(value)}"
    assert list(value) == [member for member in members if member in value], f"{name}: {list(value)}, not {members}"


def test_dedup_lines_have_their_schemas_members_in_order():
    sample = ("Tidal mills ground grain on the estuary: the incoming tide filled a pond behind a dam, "
              "and at ebb the water turned the wheel.")
    found = priorart.dedup([sample, sample + " Once more.", sample, "Something else entirely."])
    assert found.pairs and found.clusters, found
    for pair in found.pairs:
        _holds_members(pair.to_json(), "DedupPair")
    for cluster in found.clusters:
        _holds_members(cluster.to_json(), "DedupCluster")


def test_passage_lines_have_their_schemas_members_in_order():
    rng = random.Random(35)
    vocabulary = ["".join(rng.choice(string.ascii_lowercase) for _ in range(7)) for _ in range(2_000)]

    def words(count):
        return " ".join(rng.choice(vocabulary) for _ in range(count))

    license_text, shared = words(80), words(120)
    texts = [f"{words(200)} {license_text} {words(100)}" for _ in range(5)]
    texts += [f"{words(150)} {shared} {words(150)}" for _ in range(2)]
    found = priorart.dedup_passages(texts, boilerplate=3)
    assert found.pairs and found.boilerplate, found
    for pair in found.pairs:
        _holds_members(pair.to_json(), "DedupPassages")
    for passage in found.boilerplate:
        _holds_members(passage.to_json(), "DedupBoilerplate")


def test_index_matches_to_json_has_its_schemas_members_in_order():
    sample = "Tidal mills ground grain in the estuaries of Europe for eight centuries."
    index = priorart.Index()
    index.insert("text", sample)
    index.insert("value", priorart.simhash_doc(sample))
    matches = index.query(sample)
    assert {m.jaccard_estimate is None for m in matches} == {True, False}, matches
    for match in matches:
        _holds_members(match.to_json(), "IndexMatch")
