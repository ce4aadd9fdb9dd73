#!/usr/bin/env python3
"""Peers of `priorart dedup --passages` on the planted passages of
scripts/eval/passages-eval.py, in one run (BENCHMARKS.md "Partial copies",
issue 33).

    scripts/eval/passages-peers.py --priorart BIN --work DIR [--reuse]
        [--documents N] [--cases N] [--seed S] [--peers priorart,lee,lee-tool,passim]
        [--length-threshold BYTES] [--max-group N] [--lee-tool BIN]
        [--passim-script PY] [--passim-python PY]
        [--precision-sample N] [--only-planted]

The planted set is passages-eval's (same options, same seed, same
documents: DIR/docs.jsonl and DIR/truth.jsonl; --reuse takes them as they
are in DIR instead of building them again from $PRIORART_CORPUS;
--only-planted gives the peers the cases' hosts and sources alone). Each
peer reads the same documents and is scored with passages-eval's `score`:
pair recall (exact and replaced passages), pair precision (planted, or one
reported passage confirmed by difflib), and PAN's character measures on the
planted pairs. Each runs as its own process under /usr/bin/time -v (wall
time, peak RSS of the largest process).

Peers:
- priorart: `BIN dedup --passages --jsonl DIR/docs.jsonl --id-field id`.
- lee: the exact-substring method of Lee et al. 2022 ("Deduplicating
  Training Data Makes Language Models Better"), reimplemented here, not
  their tool: the documents' UTF-8 bytes concatenated, each preceded by a
  unique separator (0xff 0xff and its 4-byte number, as their
  load_dataset.py), one suffix array over it (libdivsufsort via PyPI's
  pydivsufsort) and its LCP array (Kasai); a substring of at least
  --length-threshold bytes (their default 100) repeated in two documents
  is a match. Their tool outputs duplicated byte ranges, not pairs; the
  pairs here are the documents that hold one repeated substring (a group of
  more than --max-group documents is boilerplate, like priorart's
  --boilerplate), and a pair's passages are its matches chained along one
  diagonal (offset in a minus offset in b), i.e. its maximal exact common
  substrings.
- lee-tool (with --lee-tool): Lee et al.'s own dedup_dataset, built from
  google-research/deduplicate-text-datasets (in no registry): make,
  self-similar, collect on the same concatenation. It reports duplicated
  byte ranges, not pairs: scored by the share of each planted passage
  (host side) its ranges cover.
- passim: dasmiq/passim's seriatim.py (not on PyPI, whose `passim` is a
  password library; --passim-script) run with a Python that has pyspark,
  graphframes-py and intervaltree (--passim-python), as its bin/passim
  does (--all-pairs, --filterpairs 'gid < gid2'), each document its own
  series, its defaults otherwise (25-character n-grams at word starts,
  --min-match 5, --maxDF 100, --gap 600, --min-align 50), with --pairwise
  (its aligned passages, align.json, are the pairs) and --docwise, which
  ends the run before the clustering step: that one needs GraphFrames' JVM
  package, which spark-submit --packages fetches from a Maven repository.
  Peak RSS is the sum over the process tree (the JVM, Python workers),
  sampled every second.

Prints one JSON object (per peer: the measures, seconds, peak RSS in MiB).
"""

import argparse
import glob
import json
import os
import random
import shlex
import struct
import subprocess
import sys
import time

from evalscripts import load_script




def read_jsonl(path):
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def planted_set(args):
    """(texts, cases): passages-eval's documents and cases, built or reused."""
    docs, truth = os.path.join(args.work, "docs.jsonl"), os.path.join(args.work, "truth.jsonl")
    if args.reuse and os.path.exists(docs) and os.path.exists(truth):
        texts = {record["id"]: record["text"] for record in read_jsonl(docs)}
        return texts, read_jsonl(truth)
    return EVAL.build(args, random.Random(args.seed))


def with_texts(found, texts):
    """Adds each passage side's text (what `score` confirms) from offsets."""
    for line in found:
        for passage in line["passages"]:
            for side, doc in (("a", line["a"]), ("b", line["b"])):
                span = passage[side]
                span["text"] = texts[doc][span["char_offset"] : span["char_offset"] + span["char_length"]]
    return found


def host_coverage(found, cases):
    """Per kind, the mean share of a planted passage's characters (host side)
    inside the passages reported for its pair: comparable with the ranges of
    Lee et al.'s tool, which reports no pairs."""
    spans = {}
    for line in found:
        for passage in line["passages"]:
            for side in ("a", "b"):
                span = passage[side]
                spans.setdefault((line["a"], line["b"], line[side]), []).append((span["char_offset"], span["char_offset"] + span["char_length"]))
    by_kind = {}
    for case in cases:
        start, end = case["host_offset"], case["host_offset"] + case["host_length"]
        covered = set()
        for pair in ((case["host"], case["source"]), (case["source"], case["host"])):
            for lo, hi in spans.get(pair + (case["host"],), []):
                covered.update(range(max(lo, start), min(hi, end)))
        by_kind.setdefault(case["kind"], []).append(len(covered) / max(end - start, 1))
    return {kind: round(sum(v) / len(v), 3) for kind, v in sorted(by_kind.items())}


def scored(found, cases, texts, sample, rng):
    """passages-eval's score; with more than `sample` pairs not planted, their
    precision is estimated on a uniform sample of `sample` of them (difflib
    on every pair would take hours)."""
    planted = {frozenset((case["host"], case["source"])) for case in cases}
    mine = [line for line in found if frozenset((line["a"], line["b"])) in planted]
    others = [line for line in found if frozenset((line["a"], line["b"])) not in planted]
    sampled = others if len(others) <= sample else rng.sample(others, sample)
    result = EVAL.score(with_texts(mine + sampled, texts), cases)
    result["planted_host_covered"] = host_coverage(mine, cases)
    if len(sampled) < len(others):
        rate = result["unplanted_confirmed"] / len(sampled)
        result["unplanted_sampled"] = len(sampled)
        result["unplanted_pairs"] = len(others)
        result["unplanted_confirmed"] = round(rate * len(others))
        result["reported_pairs"] = len(mine) + len(others)
        result["pair_precision"] = (len(mine) + rate * len(others)) / result["reported_pairs"]
    return result


# --- Lee et al. 2022, reimplemented -------------------------------------------------


def concatenated(records):
    """(ids, starts, ends, bytes): the documents' UTF-8 texts, each after a
    separator of its own (0xff 0xff and its number, as Lee et al.'s
    load_dataset.py: 0xff never occurs in UTF-8, so no repeat spans two)."""
    ids, starts, ends, chunks, position = [], [], [], [], 0
    for number, record in enumerate(records):
        separator = b"\xff\xff" + struct.pack("<I", number)
        body = record["text"].encode("utf-8")
        ids.append(record["id"])
        starts.append(position + len(separator))
        ends.append(position + len(separator) + len(body))
        chunks += [separator, body]
        position = ends[-1]
    return ids, starts, ends, bytearray(b"".join(chunks))


def lee_pairs(docs_path, threshold, max_group, out_path):
    """Writes the pairs of documents sharing a substring of `threshold` bytes
    or more (JSON Lines, priorart's passages format without texts)."""
    import numpy as np
    from pydivsufsort import divsufsort, kasai

    started = time.time()
    ids, starts, ends, data = concatenated(read_jsonl(docs_path))
    data = np.frombuffer(data, dtype=np.uint8)
    starts, ends = np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
    suffixes = divsufsort(data)
    lcp = kasai(data, suffixes)
    built = time.time()
    # Adjacent suffixes sharing `threshold` bytes; runs of them are groups of
    # positions that all begin with one repeated substring.
    adjacent = np.flatnonzero(lcp[:-1] >= threshold)
    del lcp
    if len(adjacent) == 0:
        return write_lee_pairs(np, data, ids, starts, ends, [], threshold, 0, out_path)
    opens = np.ones(len(adjacent), dtype=bool)
    opens[1:] = adjacent[1:] != adjacent[:-1] + 1
    first = adjacent[opens]
    last = np.append(adjacent[np.flatnonzero(opens)[1:] - 1], adjacent[-1]) + 1
    del adjacent, opens
    # Every member of every group: its position, document and preceding byte.
    sizes = last - first + 1
    group = np.repeat(np.arange(len(first)), sizes)
    member = first[group] + (np.arange(len(group)) - np.repeat(np.cumsum(sizes) - sizes, sizes))
    positions = suffixes[member].astype(np.int64)
    del suffixes, member
    docs = np.searchsorted(starts, positions, "right") - 1
    inside = positions + threshold <= ends[docs]
    before = data[positions - 1]
    # A group whose members all follow the same byte is the tail of a longer
    # repeat found one byte earlier: only left-maximal groups give matches.
    order = np.lexsort((docs, group))
    group, docs, positions, before, inside = group[order], docs[order], positions[order], before[order], inside[order]
    new_doc = np.ones(len(group), dtype=bool)
    new_doc[1:] = (group[1:] != group[:-1]) | (docs[1:] != docs[:-1])
    group_docs = np.bincount(group, weights=(new_doc & inside), minlength=len(first))
    group_start = np.searchsorted(group, np.arange(len(first)))
    low, high = np.minimum.reduceat(before, group_start), np.maximum.reduceat(before, group_start)
    maximal = low != high
    boilerplate = int(np.count_nonzero(maximal & (group_docs > max_group)))
    wanted = np.flatnonzero(maximal & (group_docs >= 2) & (group_docs <= max_group))
    sys.stderr.write(
        f"lee: {len(data):,} bytes, suffix array and LCP {built - started:.1f} s, {len(first):,} groups, "
        f"{len(wanted):,} left-maximal in 2 to {max_group} documents, {boilerplate:,} in more\n"
    )
    group_end = np.append(group_start[1:], len(group))
    matches = []  # (doc a, doc b, position a, position b)
    for g in wanted.tolist():
        lo, hi = group_start[g], group_end[g]
        members = [(int(d), int(p), int(c)) for d, p, c, ok in zip(docs[lo:hi], positions[lo:hi], before[lo:hi], inside[lo:hi]) if ok]
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                (da, pa, ca), (db, pb, cb) = members[x], members[y]
                if da != db and ca != cb:
                    matches.append((da, db, pa, pb) if da < db else (db, da, pb, pa))
    sys.stderr.write(f"lee: {len(matches):,} matches, {time.time() - built:.1f} s\n")
    return write_lee_pairs(np, data, ids, starts, ends, matches, threshold, boilerplate, out_path)


def common_end(np, data, a, b, limit_a, limit_b):
    """The first offsets past a and b where the two byte strings differ."""
    step = 4096
    while a < limit_a and b < limit_b:
        n = min(step, limit_a - a, limit_b - b)
        differ = np.flatnonzero(data[a : a + n] != data[b : b + n])
        if len(differ):
            return a + int(differ[0]), b + int(differ[0])
        a, b = a + n, b + n
    return a, b


def write_lee_pairs(np, data, ids, starts, ends, matches, threshold, boilerplate, out_path):
    """Each left-maximal match extended to its end (a maximal exact common
    substring; two on one diagonal of a pair merged), byte offsets turned
    into character offsets, written per pair."""
    char_index = {}

    def chars(doc, byte_offset):
        if doc not in char_index:
            body = data[starts[doc] : ends[doc]]
            char_index[doc] = np.concatenate(([0], np.cumsum((body & 0xC0) != 0x80)))
        return int(char_index[doc][byte_offset - starts[doc]])

    pairs = {}
    for a, b, pos_a, pos_b in sorted(set(matches)):
        runs = pairs.setdefault((a, b), [])
        if runs and runs[-1][0] - runs[-1][1] == pos_a - pos_b and pos_a <= runs[-1][2]:
            continue  # inside the previous run on this diagonal
        end_a, _ = common_end(np, data, pos_a, pos_b, int(ends[a]), int(ends[b]))
        if end_a - pos_a >= threshold:
            runs.append((pos_a, pos_b, end_a))
    with open(out_path, "w", encoding="utf-8") as out:
        written = 0
        for (a, b), runs in pairs.items():
            passages = []
            for pos_a, pos_b, end_a in runs:
                start_a, start_b = chars(a, pos_a), chars(b, pos_b)
                passages.append(
                    {
                        "a": {"char_offset": start_a, "char_length": chars(a, end_a) - start_a},
                        "b": {"char_offset": start_b, "char_length": chars(b, pos_b + end_a - pos_a) - start_b},
                    }
                )
            if passages:
                written += 1
                out.write(json.dumps({"a": ids[a], "b": ids[b], "passages": passages}) + "\n")
    return {"boilerplate_groups": boilerplate, "pairs": written}


def run_lee(args, docs, cases, texts, rng):
    out = os.path.join(args.work, "lee-pairs.jsonl")
    command = [sys.executable, os.path.abspath(__file__), "lee-worker", docs, str(args.length_threshold), str(args.max_group), out]
    seconds, rss = EVAL.timed(command, os.path.join(args.work, "lee.time"))
    result = {"command": shlex.join(command), "seconds": round(seconds, 2), "peak_rss_mib": round(rss / 1024, 1)}
    result.update(scored(read_jsonl(out), cases, texts, args.precision_sample, rng))
    return result


def run_lee_tool(args, docs, cases, texts, rng):
    """Lee et al.'s own dedup_dataset (built from google-research/
    deduplicate-text-datasets, in no registry): make, self-similar, collect
    on the same concatenation. It reports duplicated byte ranges, not pairs,
    so it is scored by how much of each planted passage (host side) its
    ranges cover."""
    if not args.lee_tool:
        return {"error": "no --lee-tool (google-research/deduplicate-text-datasets' dedup_dataset)"}
    ids, starts, ends, data = concatenated({"id": i, "text": t} for i, t in texts.items())
    path = os.path.join(args.work, "lee-tool.data")
    cache = os.path.join(args.work, "lee-tool-cache")
    subprocess.call(["rm", "-rf", cache])
    os.makedirs(cache)
    with open(path, "wb") as out:
        out.write(data)
    steps = [
        ["make", "--data-file", path],
        ["self-similar", "--data-file", path, "--length-threshold", str(args.length_threshold), "--cache-dir", cache, "--num-threads", "2"],
        ["collect", "--data-file", path, "--cache-dir", cache, "--length-threshold", str(args.length_threshold)],
    ]
    result, seconds, peak = {"commands": []}, 0.0, 0
    for step in steps:
        command = [args.lee_tool] + step
        log = os.path.join(args.work, f"lee-tool-{step[0]}.time")
        with open(log, "w") as err, open(log + ".out", "w") as out:
            started = time.time()
            code = subprocess.call(["/usr/bin/time", "-v"] + command, stderr=err, stdout=out, cwd=args.work)
            seconds += time.time() - started
        if code != 0:
            return {"error": f"{shlex.join(command)} failed ({code}): see {log}"}
        peak = max(peak, int(__import__("re").search(r"Maximum resident set size \(kbytes\): (\d+)", open(log).read()).group(1)))
        result["commands"].append(shlex.join(command))
    lines = open(log + ".out").read().split("out\n", 1)[-1].split("\n")
    ranges = sorted(tuple(map(int, line.split())) for line in lines if line.strip())
    covered = bytearray(len(data))
    for start, end in ranges:
        covered[start:end] = b"\x01" * (end - start)
    index = {document_id: number for number, document_id in enumerate(ids)}
    by_kind = {}
    for case in cases:
        host = texts[case["host"]]
        offset = starts[index[case["host"]]] + len(host[: case["host_offset"]].encode("utf-8"))
        length = len(host[case["host_offset"] : case["host_offset"] + case["host_length"]].encode("utf-8"))
        share = sum(covered[offset : offset + length]) / max(length, 1)
        by_kind.setdefault(case["kind"], []).append(share)
    result.update(
        {
            "seconds": round(seconds, 2),
            "peak_rss_mib": round(peak / 1024, 1),
            "duplicated_ranges": len(ranges),
            "duplicated_bytes": sum(covered),
            "planted_bytes_covered": {kind: round(sum(v) / len(v), 3) for kind, v in sorted(by_kind.items())},
            "planted_half_covered": {kind: round(sum(x >= 0.5 for x in v) / len(v), 3) for kind, v in sorted(by_kind.items())},
        }
    )
    os.remove(path)
    return result


# --- passim ------------------------------------------------------------------------


def tree_rss_kib(root):
    """The resident memory of `root` and all its descendants (the JVM that
    pyspark starts and Spark's Python workers), summed, in KiB."""
    parents, rss = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
        except OSError:
            continue
        parents[int(entry)] = int(fields["PPid"])
        rss[int(entry)] = int(fields.get("VmRSS", "0 kB").split()[0])
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(rss.get(pid, 0) for pid in tree)


def run_passim(args, docs, cases, texts, rng):
    """passim's seriatim.py with --pairwise --docwise: docwise stops the run
    after the pairwise alignments are written, before clustering (which
    needs GraphFrames' JVM package from a Maven repository)."""
    if not args.passim_script:
        return {"error": "no --passim-script (dasmiq/passim's passim/seriatim.py)"}
    passim_docs = os.path.join(args.work, "passim-in.jsonl")
    with open(passim_docs, "w", encoding="utf-8") as out:
        for document_id, text in texts.items():
            out.write(json.dumps({"id": document_id, "series": document_id, "text": text}, ensure_ascii=False) + "\n")
    output = os.path.join(args.work, "passim-out")
    subprocess.call(["rm", "-rf", output])
    command = [args.passim_python, args.passim_script, "--all-pairs", "--fields", "xxhash64(series) as gid", "--filterpairs", "gid < gid2"]
    command += ["--pairwise", "--docwise"] + shlex.split(args.passim_args) + [passim_docs, output]
    environment = dict(os.environ, PYSPARK_PYTHON=args.passim_python, PYSPARK_DRIVER_PYTHON=args.passim_python)
    environment.setdefault("PYSPARK_SUBMIT_ARGS", "--master local[2] --driver-memory 3g pyspark-shell")
    started = time.time()
    log = os.path.join(args.work, "passim.log")
    with open(log, "w") as err:
        process = subprocess.Popen(command, stderr=err, stdout=subprocess.DEVNULL, env=environment)
        peak = 0
        while process.poll() is None:
            peak = max(peak, tree_rss_kib(process.pid))
            time.sleep(1)
    seconds = time.time() - started
    result = {"command": shlex.join(command), "seconds": round(seconds, 2), "exit": process.returncode, "peak_rss_mib": round(peak / 1024, 1)}
    parts = glob.glob(os.path.join(output, "align.json", "part-*"))
    if not parts:
        result["error"] = open(log).read()[-3000:]
        return result
    pairs = {}
    for part in parts:
        for record in read_jsonl(part):
            a, b = record["id"], record["id2"]
            passage = {
                "a": {"char_offset": record["begin"], "char_length": record["end"] - record["begin"]},
                "b": {"char_offset": record["begin2"], "char_length": record["end2"] - record["begin2"]},
            }
            pairs.setdefault((a, b), []).append(passage)
    found = [{"a": a, "b": b, "passages": passages} for (a, b), passages in pairs.items()]
    result.update(scored(found, cases, texts, args.precision_sample, rng))
    return result


# --- priorart ----------------------------------------------------------------------


def run_priorart(args, docs, cases, texts, rng):
    out = os.path.join(args.work, "out")
    command = [args.priorart, "dedup", "--passages", "--jsonl", docs, "--id-field", "id", "--out", out]
    seconds, rss = EVAL.timed(command, os.path.join(args.work, "passages.time"))
    found = read_jsonl(os.path.join(out, "passages.jsonl"))
    for line in found:  # scored from offsets, like the peers
        for passage in line["passages"]:
            for side in ("a", "b"):
                passage[side] = {"char_offset": passage[side]["char_offset"], "char_length": passage[side]["char_length"]}
    result = {"command": shlex.join(command), "seconds": round(seconds, 2), "peak_rss_mib": round(rss / 1024, 1)}
    result.update(scored(found, cases, texts, args.precision_sample, rng))
    return result


PEERS = {"priorart": run_priorart, "lee": run_lee, "lee-tool": run_lee_tool, "passim": run_passim}


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "lee-worker":
        summary = lee_pairs(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
        sys.stderr.write(json.dumps(summary) + "\n")
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--priorart", help="the priorart binary (for the priorart peer)")
    parser.add_argument("--work", required=True, help="passages-eval's work directory")
    parser.add_argument("--reuse", action="store_true", help="use DIR/docs.jsonl and DIR/truth.jsonl as they are")
    parser.add_argument("--documents", type=int, default=6000)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only-planted", action="store_true", help="give the peers the cases' hosts and sources alone")
    parser.add_argument("--peers", default="priorart,lee,passim", help="comma-separated: priorart, lee, lee-tool, passim")
    parser.add_argument("--length-threshold", type=int, default=100, help="lee: bytes (their --length-threshold, default 100)")
    parser.add_argument("--max-group", type=int, default=32, help="lee: a substring in more documents is boilerplate")
    parser.add_argument("--lee-tool", help="lee-tool: Lee et al.'s dedup_dataset binary (optional)")
    parser.add_argument("--passim-script", help="dasmiq/passim's passim/seriatim.py")
    parser.add_argument("--passim-python", default=sys.executable, help="a Python with pyspark, graphframes-py, intervaltree")
    parser.add_argument("--passim-args", default="", help="more arguments for seriatim.py")
    parser.add_argument("--precision-sample", type=int, default=5000, help="pairs not planted confirmed by difflib, at most")
    args = parser.parse_args()
    texts, cases = planted_set(args)
    docs = os.path.join(args.work, "docs.jsonl")
    if args.only_planted:
        planted = {case["host"] for case in cases} | {case["source"] for case in cases}
        texts = {document_id: text for document_id, text in texts.items() if document_id in planted}
        docs = os.path.join(args.work, "planted-docs.jsonl")
        with open(docs, "w", encoding="utf-8") as out:
            for document_id, text in texts.items():
                out.write(json.dumps({"id": document_id, "text": text}, ensure_ascii=False) + "\n")
    result = {"documents": len(texts), "bytes": os.path.getsize(docs), "cases": len(cases)}
    for peer in filter(None, args.peers.split(",")):
        sys.stderr.write(f"running {peer}\n")
        result[peer] = PEERS[peer](args, docs, cases, texts, random.Random(args.seed))
        sys.stderr.write(json.dumps({peer: {k: v for k, v in result[peer].items() if k != "error"}}) + "\n")
    json.dump(result, sys.stdout, indent=1)
    print()


EVAL = load_script("passages-eval")

if __name__ == "__main__":
    main()
