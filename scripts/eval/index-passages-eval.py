#!/usr/bin/env python3
"""Partial copies against an index: how well `priorart index query
--passages` finds the indexed documents a text copied passages from
(BENCHMARKS.md, issue 33), and what the passage marks cost.

    scripts/eval/index-passages-eval.py --priorart BIN --work DIR [--documents N] [--cases N] [--seed S]
                                   [--query-args "..."]

Build: the test set of scripts/eval/passages-eval.py (the same code and seed give
the same documents): a uniform sample of the Debian corpus, --cases hosts
each given one passage of 60 to 300 words of a source document of another
family, half verbatim, half with 10 % of the words replaced.

Index: every document of the sample but the hosts (DIR/indexed.jsonl),
built with `BIN index build --jsonl ... --id-field id` (passage marks) and
with `--no-marks`, each timed (wall, peak RSS) and sized (bytes of the
index directory).

Query: each host written to a file (DIR/hosts/N.txt), all looked up in one
`BIN index query INDEX --passages --json FILE...` run (timed: the time per
query is the run's over the hosts, the index opened once); the answers are
kept in DIR/answers.jsonl.

Score:
- pair recall: hosts whose answer lists their source, over all cases and
  per kind;
- pair precision: (host, document) pairs reported that genuinely share a
  passage: the planted pair, or one of whose passages difflib confirms
  (the host side's text against the indexed byte range of the document's
  text, as scripts/eval/passages-eval.py confirms a pair);
- PAN's character measures of the planted cases against the passages
  reported for them (the indexed byte ranges turned into characters of
  the source's text).
"""

import argparse
import json
import os
import random
import shlex
import subprocess
import sys
import time

from evalscripts import load_script




EVAL = load_script("passages-eval")
PAN = EVAL.PAN


def directory_bytes(path):
    return sum(os.path.getsize(os.path.join(path, name)) for name in os.listdir(path))


def char_span(text, byte_offset, byte_length):
    """The (character offset, character length) of a byte range of `text`'s UTF-8."""
    encoded = text.encode("utf-8")
    before = encoded[:byte_offset].decode("utf-8", errors="ignore")
    inside = encoded[byte_offset : byte_offset + byte_length].decode("utf-8", errors="ignore")
    return len(before), len(inside)


def score(answers, cases, texts):
    """Pair recall (all, per kind), precision, PAN measures."""
    planted = {case["host"]: case for case in cases}
    recall_by_kind = {}
    reported = right = unplanted = unplanted_right = 0
    truth, detections = [], []
    for case in cases:
        truth.append(
            PAN.Annotation(case["host"], case["host_offset"], case["host_length"], case["source"], case["source_offset"], case["source_length"])
        )
    for host, answer in answers.items():
        case = planted[host]
        found = {document["id"]: document for document in answer["documents"]}
        counts = recall_by_kind.setdefault(case["kind"], [0, 0])
        counts[1] += 1
        counts[0] += case["source"] in found
        for document_id, document in found.items():
            reported += 1
            if document_id == case["source"]:
                right += 1
                for passage in document["passages"]:
                    side, held = passage["text"], passage["indexed"]
                    offset, length = char_span(texts[document_id], held["byte_offset"], held["byte_length"])
                    detections.append(PAN.Annotation(host, side["char_offset"], side["char_length"], document_id, offset, length))
                continue
            unplanted += 1
            source = texts[document_id].encode("utf-8")
            if any(
                EVAL.confirmed(
                    passage["text"]["text"],
                    source[passage["indexed"]["byte_offset"] : passage["indexed"]["byte_offset"] + passage["indexed"]["byte_length"]].decode(
                        "utf-8", errors="ignore"
                    ),
                )
                for passage in document["passages"]
            ):
                right += 1
                unplanted_right += 1
    found = sum(count for count, _ in recall_by_kind.values())
    return {
        "cases": len(cases),
        "pair_recall": found / len(cases) if cases else 1.0,
        "pair_recall_by_kind": {kind: count / total for kind, (count, total) in sorted(recall_by_kind.items())},
        "reported_pairs": reported,
        "pair_precision": right / reported if reported else 1.0,
        "unplanted_pairs": unplanted,
        "unplanted_confirmed": unplanted_right,
        "pan": PAN.measures(truth, detections),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--priorart", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--documents", type=int, default=6000)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--query-args", default="", help="more arguments for index query --passages")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    texts, cases = EVAL.build(args, rng)
    hosts = {case["host"] for case in cases}
    indexed = os.path.join(args.work, "indexed.jsonl")
    with open(indexed, "w", encoding="utf-8") as out:
        for document_id, text in texts.items():
            if document_id not in hosts:
                out.write(json.dumps({"id": document_id, "text": text}, ensure_ascii=False) + "\n")
    host_dir = os.path.join(args.work, "hosts")
    os.makedirs(host_dir, exist_ok=True)
    files = {}
    for number, case in enumerate(cases):
        path = os.path.join(host_dir, f"{number}.txt")
        with open(path, "w", encoding="utf-8") as out:
            out.write(texts[case["host"]])
        files[path] = case["host"]
    result = {"documents": len(texts) - len(hosts), "bytes": os.path.getsize(indexed)}
    for name, extra in (("index_no_marks", ["--no-marks"]), ("index", [])):
        index = os.path.join(args.work, name)
        command = [args.priorart, "index", "build", index, "--jsonl", indexed, "--id-field", "id", "--replace"] + extra
        seconds, rss = EVAL.timed(command, os.path.join(args.work, name + ".time"))
        result[name] = {"command": shlex.join(command), "seconds": round(seconds, 2), "peak_rss_mib": round(rss / 1024, 1), "bytes": directory_bytes(index)}
    result["size_ratio"] = round(result["index"]["bytes"] / result["index_no_marks"]["bytes"], 2)
    index = os.path.join(args.work, "index")
    command = [args.priorart, "index", "query", index, "--passages", "--json"] + shlex.split(args.query_args) + list(files)
    started = time.time()
    with open(os.path.join(args.work, "query.time"), "w") as err:
        run = subprocess.run(["/usr/bin/time", "-v"] + command, stdout=subprocess.PIPE, stderr=err, text=True)
    seconds = time.time() - started
    if run.returncode != 0:
        sys.exit(f"index query failed ({run.returncode}), see {args.work}/query.time")
    with open(os.path.join(args.work, "answers.jsonl"), "w", encoding="utf-8") as out:
        out.write(run.stdout)
    answers = {}
    for line in run.stdout.splitlines():
        answer = json.loads(line)
        answers[files[answer["query"]]] = answer
    rss = int(EVAL.re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(os.path.join(args.work, "query.time")).read()).group(1))
    result["query"] = {
        "command": shlex.join(command[:6] + shlex.split(args.query_args)) + f" FILE... ({len(files)} files)",
        "seconds": round(seconds, 2),
        "ms_per_query": round(1000 * seconds / max(1, len(files)), 2),
        "peak_rss_mib": round(rss / 1024, 1),
    }
    result.update(score(answers, cases, texts))
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
