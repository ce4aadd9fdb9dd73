#!/usr/bin/env python3
"""`priorart dedup --against INDEX` on the Debian corpus (scripts/corpus/build.sh):
how far the Jaccard similarity it *estimates* from the index's 256-hash sketches
strays from the exact value, and whether incremental deduplication finds what
deduplicating everything at once finds.

The corpus is split in two, alternate lines: the first half is indexed
(`priorart index build`), the second deduplicated against it. Exact values are
word 5-gram Jaccard (J5) of lowercased `\\w+` words, computed here (as in
scripts/eval/dedup-quality.py); the ground truth is that script's cached
truth-j5-0.8.json (run it first).

  scripts/eval/against-quality.py [CORPUS_DIR] [PRIORART_BINARY]
"""
import json, os, statistics, subprocess, sys, tempfile, time

corpus = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PRIORART_CORPUS", "/tmp/priorart-corpus")
binary = sys.argv[2] if len(sys.argv) > 2 else "target/release/priorart"
# The word 5-grams of lowercased `\w+` words and their Jaccard: the one
# reference copy, which crates/fingerprint/tests/word_shingles_peer.rs holds
# the Rust shingles to.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "fingerprint", "tests", "peer"))
from word_shingles import jaccard, shingles  # noqa: E402


lines = open(os.path.join(corpus, "docs.jsonl")).read().splitlines()
docs = [json.loads(line) for line in lines]
ids = [str(d["id"]) for d in docs]
position = {id_: i for i, id_ in enumerate(ids)}
sets = {}


def exact(a, b):
    for i in (a, b):
        if i not in sets:
            sets[i] = shingles(docs[i]["text"])
    return jaccard(sets[a], sets[b])


truth = {tuple(p) for p in json.load(open(os.path.join(corpus, "truth-j5-0.8.json")))}
indexed = lambda i: i % 2 == 0  # noqa: E731
# What incremental deduplication must find: pairs with an indexed document or
# among the new ones, never among the indexed ones.
wanted = {(a, b) for a, b in truth if not (indexed(a) and indexed(b))}


def run(*args):
    start = time.time()
    subprocess.run([binary, *args], check=True, stderr=subprocess.DEVNULL)
    return time.time() - start


with tempfile.TemporaryDirectory() as tmp:
    old, new = os.path.join(tmp, "old.jsonl"), os.path.join(tmp, "new.jsonl")
    with open(old, "w") as o, open(new, "w") as n:
        for i, line in enumerate(lines):
            (o if indexed(i) else n).write(line + "\n")
    index = os.path.join(tmp, "idx")
    build = run("index", "build", index, "--jsonl", "--id-field", "id", old)
    results = {}
    for minimum in ("0", "0.8"):
        out = os.path.join(tmp, "out-" + minimum)
        seconds = run("dedup", "--jsonl", "--id-field", "id", "--against", index, "--min-jaccard", minimum,
                      "--out", out, new)
        pairs = [json.loads(line) for line in open(os.path.join(out, "pairs.jsonl"))]
        results[minimum] = (pairs, seconds)

print(f"{len(docs):,} documents: {sum(map(indexed, range(len(docs)))):,} indexed ({build:.1f} s), "
      f"the rest deduplicated against them; {len(wanted):,} ground-truth pairs (J5 >= 0.8) to find\n")

# Estimate against exact, every candidate pair with an index document (k = 6).
every, _ = results["0"]
errors = []
for p in every:
    if p["verification"] == "estimated":
        a, b = position[p["a"]], position[p["b"]]
        errors.append((exact(a, b), p["jaccard"]))
near = [(x, e) for x, e in errors if 0.6 <= x <= 1.0]
for name, sample in (("every candidate pair (k = 6)", errors), ("pairs with exact J5 in [0.6, 1]", near)):
    deviations = sorted(abs(e - x) for x, e in sample)
    if not deviations:
        continue
    print(f"{name}: {len(sample):,} pairs; |estimate - exact| mean {statistics.mean(deviations):.4f}, "
          f"95th percentile {deviations[int(0.95 * (len(deviations) - 1))]:.4f}, "
          f"99th {deviations[int(0.99 * (len(deviations) - 1))]:.4f}, max {deviations[-1]:.4f}")
wrong_side = [(x, e) for x, e in errors if (x >= 0.8) != (e >= 0.8)]
print(f"on the other side of 0.8 than the exact value: {len(wrong_side)} of {len(errors):,} "
      f"(exact J5 of those: {', '.join(f'{x:.3f}' for x, _ in sorted(wrong_side)[:12])})\n")

print("| pairs reported | pairs | recall | precision | wall s |")
print("|---|---:|---:|---:|---:|")
pairs, seconds = results["0.8"]
found = set()
for p in pairs:
    a, b = position[p["a"]], position[p["b"]]
    found.add((min(a, b), max(a, b)))
for kind in ("estimated", "exact"):
    subset = {(min(position[p["a"]], position[p["b"]]), max(position[p["a"]], position[p["b"]]))
              for p in pairs if p["verification"] == kind}
    goal = {(a, b) for a, b in wanted if (indexed(a) or indexed(b)) == (kind == "estimated")}
    right = sum(1 for a, b in subset if exact(a, b) >= 0.8)
    print(f"| {kind} ({'with index documents' if kind == 'estimated' else 'among the new documents'}) "
          f"| {len(subset):,} | {len(subset & goal) / len(goal):.3f} | {right / len(subset) if subset else 1:.3f} | |")
right = sum(1 for a, b in found if exact(a, b) >= 0.8)
print(f"| all (`dedup --against`, k = 6, J >= 0.8) | {len(found):,} | {len(found & wanted) / len(wanted):.3f} "
      f"| {right / len(found):.3f} | {seconds:.1f} |")
