#!/usr/bin/env python3
"""PAN's character-level text-alignment measures on a PAN-layout corpus.

    scripts/eval/pan-eval.py CORPUS [--run PRIORART | --difflib] [--detections DIR] [--json]
    scripts/eval/pan-eval.py --self-test

CORPUS is what scripts/eval/pan-eval-build.py writes: `susp/`, `src/`, `pairs`,
and one truth directory per obfuscation (`01-no-plagiarism`,
`02-no-obfuscation`, ...), each holding `SUSP-SRC.xml` files whose
`feature name="plagiarism"` elements are the cases. Detections are PAN's
`feature name="detected-plagiarism"` elements in `DIR/SUSP-SRC.xml`; with
`--run`, this script makes them first by running
`PRIORART compare --passages --pan --raw SUSP SRC` for every pair and
reports the end-to-end throughput (suspicious bytes per second of wall time,
process start-up included). `--difflib` makes them instead with a baseline
any Python has: difflib.SequenceMatcher's matching blocks of lowercased
words (default autojunk), each block of at least 8 words one detection.

The measures are the macro-averaged ones of Potthast et al., "An Evaluation
Framework for Plagiarism Detection" (COLING 2010), as PAN's
pan09-plagiarism-detection-performance-measures.py computes them:

- a detection r overlaps a case s when both name the same suspicious and
  source documents and their ranges overlap in both;
- recall    = mean over cases s of |s ∩ (union of overlapping r)| / |s|,
  where |.| counts characters in the suspicious *and* the source document;
- precision = the same with the roles of cases and detections swapped;
- granularity = mean, over cases overlapped by at least one detection, of
  the number of detections overlapping it;
- plagdet = F1(precision, recall) / log2(1 + granularity).

`--self-test` checks this implementation against the expected values in the
unit tests of PAN's script (its annotations ann1..ann10).
"""

import argparse
import difflib
import json
import math
import os
import re
import subprocess
import sys
import time
import xml.dom.minidom
from collections import defaultdict, namedtuple

Annotation = namedtuple("Annotation", "this_ref this_offset this_length source_ref source_offset source_length")


def read_annotations(path, feature_name):
    """The annotations named `feature_name` in one PAN XML file."""
    document = xml.dom.minidom.parse(path).documentElement
    this_ref = document.getAttribute("reference")
    found = []
    for node in document.getElementsByTagName("feature"):
        if node.getAttribute("name") != feature_name:
            continue
        found.append(
            Annotation(
                strip_txt(this_ref),
                int(node.getAttribute("this_offset")),
                int(node.getAttribute("this_length")),
                strip_txt(node.getAttribute("source_reference")),
                int(node.getAttribute("source_offset")),
                int(node.getAttribute("source_length")),
            )
        )
    return found


def strip_txt(reference):
    return reference[:-4] if reference.endswith(".txt") else reference


def ranges_overlap(offset_a, length_a, offset_b, length_b):
    return offset_b + length_b > offset_a and offset_b < offset_a + length_a


def overlapping(case, detection):
    return (
        case.this_ref == detection.this_ref
        and case.source_ref == detection.source_ref
        and ranges_overlap(case.this_offset, case.this_length, detection.this_offset, detection.this_length)
        and ranges_overlap(case.source_offset, case.source_length, detection.source_offset, detection.source_length)
    )


def covered(offset, length, others):
    """Characters of [offset, offset + length) inside the union of `others`
    ((offset, length) pairs)."""
    clipped = sorted(
        (max(offset, o), min(offset + length, o + n)) for o, n in others if o < offset + length and o + n > offset
    )
    total, reach = 0, offset
    for start, end in clipped:
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total


def case_recall(case, detections):
    found = [d for d in detections if overlapping(case, d)]
    if not found:
        return 0.0
    this = covered(case.this_offset, case.this_length, [(d.this_offset, d.this_length) for d in found])
    source = covered(case.source_offset, case.source_length, [(d.source_offset, d.source_length) for d in found])
    return (this + source) / (case.this_length + case.source_length)


def macro_recall(cases, detections):
    if not cases and not detections:
        return 1.0
    if not cases or not detections:
        return 0.0
    by_document = defaultdict(list)
    for detection in detections:
        by_document[detection.this_ref].append(detection)
    return sum(case_recall(case, by_document[case.this_ref]) for case in cases) / len(cases)


def macro_precision(cases, detections):
    return macro_recall(detections, cases)


def granularity(cases, detections):
    by_document = defaultdict(list)
    for detection in detections:
        by_document[detection.this_ref].append(detection)
    counts = [sum(overlapping(case, d) for d in by_document[case.this_ref]) for case in cases]
    detected = [count for count in counts if count > 0]
    return sum(detected) / len(detected) if detected else 1.0


def plagdet(recall, precision, gran):
    if (recall == 0 and precision == 0) or recall < 0 or precision < 0 or gran < 1:
        return 0.0
    return (2 * recall * precision / (recall + precision)) / math.log2(1 + gran)


def measures(cases, detections):
    recall, precision, gran = macro_recall(cases, detections), macro_precision(cases, detections), granularity(
        cases, detections
    )
    return {
        "cases": len(cases),
        "detections": len(detections),
        "recall": recall,
        "precision": precision,
        "granularity": gran,
        "plagdet": plagdet(recall, precision, gran),
    }


def self_test():
    """The expected values of PAN's own unit tests (same annotations)."""
    ann1 = Annotation("tref1", 0, 100, "sref1", 0, 100)
    ann3 = Annotation("tref1", 100, 100, "sref1", 100, 100)
    ann4 = Annotation("tref1", 0, 200, "sref1", 0, 200)
    ann5 = Annotation("tref1", 0, 1, "sref1", 0, 1)
    ann6 = Annotation("tref1", 99, 1, "sref1", 99, 1)
    ann7 = Annotation("tref2", 0, 100, "sref2", 0, 100)
    ann9 = Annotation("tref2", 50, 100, "sref2", 50, 100)
    ann10 = Annotation("tref2", 25, 75, "sref2", 25, 75)
    checks = [
        (macro_recall([], []), 1),
        (macro_recall([ann1], []), 0),
        (macro_recall([], [ann1]), 0),
        (macro_recall([ann1], [ann1]), 1),
        (macro_recall([ann1, ann7], [ann1]), 0.5),
        (macro_recall([ann1], [ann7]), 0),
        (case_recall(ann1, []), 0),
        (case_recall(ann1, [ann3]), 0),
        (case_recall(ann1, [ann4]), 1),
        (case_recall(ann1, [ann4, ann7]), 1),
        (case_recall(ann1, [ann7, ann9]), 0),
        (case_recall(ann7, [ann9]), 0.5),
        (case_recall(ann7, [ann10]), 0.75),
        (case_recall(ann7, [ann9, ann10]), 0.75),
        (macro_precision([ann1, ann7], [ann1]), 1),
        (macro_precision([ann1], [ann4]), 0.5),
        (macro_precision([ann7], [ann10]), 1),
        (macro_precision([ann7], [ann9, ann10]), 0.75),
        (macro_precision([ann1], [ann3, ann4]), 0.25),
        (granularity([], []), 1),
        (granularity([ann1], [ann3]), 1),
        (granularity([ann1], [ann3, ann4, ann5]), 2),
        (granularity([ann1, ann3], [ann4, ann6]), 1.5),
        (plagdet(1, 1, 1), 1),
        (plagdet(0.5, 1, 1), 2 / 3),
        (plagdet(1, 1, 2), 0.63092975),
        (plagdet(0.25, 0.75, 2), 0.23659865),
        (plagdet(0, 1, 1), 0),
    ]
    failed = [(i, got, want) for i, (got, want) in enumerate(checks) if abs(got - want) > 1e-7]
    for i, got, want in failed:
        print(f"check {i}: got {got}, want {want}", file=sys.stderr)
    print(f"self-test: {len(checks) - len(failed)}/{len(checks)} of PAN's expected values")
    return 1 if failed else 0


def read_pairs(corpus):
    with open(os.path.join(corpus, "pairs"), encoding="utf-8") as pairs:
        return [tuple(line.split()) for line in pairs if line.strip()]


def run_detector(corpus, binary, out_dir, pairs):
    """Runs `compare --passages --pan` on every pair; returns
    (suspicious bytes, seconds)."""
    os.makedirs(out_dir, exist_ok=True)
    total_bytes, started = 0, time.monotonic()
    for susp, src in pairs:
        susp_path, src_path = os.path.join(corpus, "susp", susp), os.path.join(corpus, "src", src)
        total_bytes += os.path.getsize(susp_path)
        answer = subprocess.run(
            [binary, "compare", "--passages", "--pan", "--raw", susp_path, src_path],
            check=True,
            capture_output=True,
        )
        with open(os.path.join(out_dir, pair_file(susp, src)), "wb") as out:
            out.write(answer.stdout)
    return total_bytes, time.monotonic() - started


def read_category(corpus, category, detections_dir):
    """The cases of one truth directory and the detections of its pairs."""
    cases, detections = [], []
    for name in sorted(os.listdir(os.path.join(corpus, category))):
        if not name.endswith(".xml"):
            continue
        cases += read_annotations(os.path.join(corpus, category, name), "plagiarism")
        detected = os.path.join(detections_dir, name)
        if os.path.exists(detected):
            detections += read_annotations(detected, "detected-plagiarism")
    return cases, detections


WORDS = re.compile(r"\w+")


def difflib_detections(suspicious, source, min_words=8):
    """(this_offset, this_length, source_offset, source_length) of each
    difflib matching block of at least `min_words` words."""
    a = [(m.group().lower(), m.start(), m.end()) for m in WORDS.finditer(suspicious)]
    b = [(m.group().lower(), m.start(), m.end()) for m in WORDS.finditer(source)]
    matcher = difflib.SequenceMatcher(None, [w for w, _, _ in a], [w for w, _, _ in b])
    found = []
    for block in matcher.get_matching_blocks():
        if block.size >= min_words:
            first_a, last_a = a[block.a], a[block.a + block.size - 1]
            first_b, last_b = b[block.b], b[block.b + block.size - 1]
            found.append((first_a[1], last_a[2] - first_a[1], first_b[1], last_b[2] - first_b[1]))
    return found


def run_difflib(corpus, out_dir, pairs):
    """The difflib baseline on every pair; returns (suspicious bytes, seconds)."""
    os.makedirs(out_dir, exist_ok=True)
    total_bytes, started = 0, time.monotonic()
    for susp, src in pairs:
        with open(os.path.join(corpus, "susp", susp), encoding="utf-8", newline="") as f:
            suspicious = f.read()
        with open(os.path.join(corpus, "src", src), encoding="utf-8", newline="") as f:
            source = f.read()
        total_bytes += len(suspicious.encode("utf-8"))
        lines = [f'<?xml version="1.0" encoding="UTF-8"?>\n<document reference="{susp}">']
        for this_offset, this_length, source_offset, source_length in difflib_detections(suspicious, source):
            lines.append(
                f'<feature name="detected-plagiarism" this_offset="{this_offset}" this_length="{this_length}" '
                f'source_reference="{src}" source_offset="{source_offset}" source_length="{source_length}"/>'
            )
        lines.append("</document>\n")
        with open(os.path.join(out_dir, pair_file(susp, src)), "w", encoding="utf-8") as out:
            out.write("\n".join(lines))
    return total_bytes, time.monotonic() - started


def pair_file(susp, src):
    return f"{strip_txt(susp)}-{strip_txt(src)}.xml"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?")
    parser.add_argument("--run", metavar="PRIORART", help="run this priorart binary on every pair first")
    parser.add_argument("--difflib", action="store_true", help="make the detections with the difflib baseline")
    parser.add_argument("--detections", metavar="DIR", help="detection XML files (default CORPUS/detections)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    parser.add_argument("--self-test", action="store_true", help="check the measures against PAN's tests")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.corpus:
        parser.error("CORPUS is required")
    detections_dir = args.detections or os.path.join(args.corpus, "detections")
    pairs = read_pairs(args.corpus)
    result = {"corpus": args.corpus, "pairs": len(pairs)}
    if args.run or args.difflib:
        if args.run:
            total_bytes, seconds = run_detector(args.corpus, args.run, detections_dir, pairs)
        else:
            total_bytes, seconds = run_difflib(args.corpus, detections_dir, pairs)
        result["run"] = {"detector": args.run or "difflib", "suspicious_bytes": total_bytes, "seconds": seconds, "mb_per_s": total_bytes / seconds / 1e6}
    categories = sorted(
        name for name in os.listdir(args.corpus) if name[:2].isdigit() and os.path.isdir(os.path.join(args.corpus, name))
    )
    annotations = {category: read_category(args.corpus, category, detections_dir) for category in categories}
    result["categories"] = {category: measures(*found) for category, found in annotations.items()}
    obfuscated = [c for c in categories if c not in ("01-no-plagiarism", "02-no-obfuscation")]
    for name, chosen in (("obfuscated", obfuscated), ("all", categories)):
        cases = [case for category in chosen for case in annotations[category][0]]
        detections = [detection for category in chosen for detection in annotations[category][1]]
        result[name] = measures(cases, detections)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


def print_table(result):
    print(f"{'category':22} {'cases':>6} {'dets':>6} {'recall':>7} {'prec':>7} {'gran':>6} {'plagdet':>8}")
    rows = list(result["categories"].items()) + [("obfuscated (03+)", result["obfuscated"]), ("all", result["all"])]
    for name, m in rows:
        print(
            f"{name:22} {m['cases']:6} {m['detections']:6} {m['recall']:7.4f} {m['precision']:7.4f} "
            f"{m['granularity']:6.3f} {m['plagdet']:8.4f}"
        )
    if "run" in result:
        run = result["run"]
        print(
            f"run: {result['pairs']} pairs, {run['suspicious_bytes'] / 1e6:.1f} MB suspicious text in "
            f"{run['seconds']:.1f} s: {run['mb_per_s']:.2f} MB/s end to end ({run['detector']})"
        )


if __name__ == "__main__":
    sys.exit(main())
