"""`priorart.dedup_passages`, `priorart.iter_dedup_passages` and Spark's passage job against
`priorart dedup --passages` on the same corpus, in one run.

    python bench_passages.py --corpus /tmp/priorart-corpus/docs.jsonl --cli target/release/priorart

The corpus is one {"id", "text"} per line. Runs, each timed on the wall clock and in CPU seconds
(user + system: on a shared machine the ratio of CPU times is the steadier one), with its peak RSS
(the CLI's and Spark's by /usr/bin/time, Python's by its child process's own VmHWM: its
`ru_maxrss` starts at this process's peak, inherited through vfork and exec, and this process
once held whole passages.jsonl files):
- the CLI: `priorart dedup --passages --jsonl --id-field id CORPUS --out DIR` (process start,
  reading and parsing the JSONL included);
- Python, in a process of its own per run, the texts from a generator that parses the same JSONL
  line by line (what the CLI does), in each of the ways asked for (--python, all by default):
  `records`: `priorart.dedup_passages(texts, ids)` (every pair held as a record, then written out);
  `iterate`: `priorart.iter_dedup_passages(texts, ids)`, each pair written out as it comes;
  `write`: `priorart.iter_dedup_passages(texts, ids).write(DIR)` (the extension writes both files);
- Spark (--spark MASTER, e.g. local[2]): `python -m priorart.spark passages --input CORPUS
  --output DIR --master MASTER` (JVM start included).
Checks each one's passages.jsonl lines equal the CLI's (in order; as sets for Spark, the order of
whose part files is not the CLI's; `write`'s files byte for byte), and prints one JSON object per
run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Tuple

#: What the Python run does, in a child process (its peak RSS is its own).
PYTHON_RUN = r"""
import collections, json, resource, sys, time
import priorart
corpus, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]
pending = collections.deque()
def texts():
    with open(corpus, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            pending.append(record["id"])
            yield record["text"]
def ids():
    # Read in step with texts: each id right after its text.
    while pending:
        yield pending.popleft()
def peak_rss_mib():
    # This process's own peak (ru_maxrss would start at the parent's).
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) // 1024
def line(pair):
    return json.dumps(pair.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
started = time.perf_counter()
if mode == "records":
    found = priorart.dedup_passages(texts(), ids())
    # Timed and measured before the pairs are written out (a pair at a time).
    seconds, usage = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    peak = peak_rss_mib()
    with open(out + "/passages.jsonl", "w", encoding="utf-8") as pairs_out:
        for pair in found.pairs:
            pairs_out.write(line(pair))
    pairs, candidates = len(found.pairs), found.candidates
elif mode == "iterate":
    pairs = 0
    with priorart.iter_dedup_passages(texts(), ids()) as search, \
            open(out + "/passages.jsonl", "w", encoding="utf-8") as pairs_out:
        for pair in search:
            pairs_out.write(line(pair))
            pairs += 1
    candidates = search.candidates
else:
    with priorart.iter_dedup_passages(texts(), ids()) as search:
        pairs = search.write(out)
    candidates = search.candidates
if mode != "records":
    seconds, usage = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    peak = peak_rss_mib()
print(json.dumps({"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime, "pairs": pairs,
                  "candidates": candidates, "peak_rss_mib": peak}))
"""


#: The ways of running the search from Python.
PYTHON_MODES = ("records", "iterate", "write")


def timed(command: List[str]) -> Tuple[float, float, int, str]:
    """Wall seconds, CPU seconds (user + system, its children included), peak RSS (MiB, of the
    largest process) and stdout of `command`, by /usr/bin/time -v."""
    started = time.perf_counter()
    run = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started

    def field(name: str) -> float:
        return next(float(line.split()[-1]) for line in run.stderr.splitlines() if name in line)

    cpu = field("User time (seconds)") + field("System time (seconds)")
    return seconds, cpu, int(field("Maximum resident")) // 1024, run.stdout


def lines(*paths: Path) -> List[bytes]:
    """A digest of each line of the files, in order (the files are hundreds of MB: their lines
    are not held)."""
    found = []
    for path in paths:
        with path.open("rb") as file:
            found.extend(hashlib.sha1(line).digest() for line in file)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/priorart-corpus/docs.jsonl"))
    parser.add_argument("--cli", default="target/release/priorart")
    parser.add_argument("--python", nargs="*", choices=PYTHON_MODES, default=list(PYTHON_MODES),
                        help="the Python runs (all by default; none with --python alone)")
    parser.add_argument("--spark", metavar="MASTER", help="also run the Spark job on this master (local[2])")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        seconds, cpu, rss, _ = timed([args.cli, "dedup", "--passages", "--jsonl", "--id-field", "id",
                                      str(args.corpus), "--out", str(out / "cli")])
        expected = lines(out / "cli" / "passages.jsonl")
        print(json.dumps({"run": "cli", "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                          "peak_rss_mib": rss, "pairs": len(expected), "load": os.getloadavg()[0]}), flush=True)

        for mode in args.python:
            (out / mode).mkdir()
            run = subprocess.run([sys.executable, "-c", PYTHON_RUN, str(args.corpus), str(out / mode), mode],
                                 capture_output=True, text=True, check=True)
            python = json.loads(run.stdout)
            found = lines(out / mode / "passages.jsonl")
            same_files = {} if mode != "write" else {
                "same_files": all((out / mode / name).read_bytes() == (out / "cli" / name).read_bytes()
                                  for name in ("passages.jsonl", "boilerplate.jsonl"))}
            print(json.dumps({"run": f"python {mode}", "seconds": round(python["seconds"], 2),
                              "cpu_seconds": round(python["cpu_seconds"], 2),
                              "cpu_ratio_to_cli": round(python["cpu_seconds"] / cpu, 2),
                              "peak_rss_mib": python["peak_rss_mib"],
                              "rss_ratio_to_cli": round(python["peak_rss_mib"] / rss, 2), "pairs": len(found),
                              "load": os.getloadavg()[0], "same_lines_in_order": found == expected,
                              "same_lines": sorted(found) == sorted(expected),
                              **same_files,
                              "ratio_to_cli": round(python["seconds"] / seconds, 2)}), flush=True)
            (out / mode / "passages.jsonl").unlink()

        if args.spark:
            spark_seconds, spark_cpu, spark_rss, stdout = timed(
                [sys.executable, "-m", "priorart.spark", "passages", "--input", str(args.corpus),
                 "--output", str(out / "spark"), "--master", args.spark])
            found = lines(*sorted((out / "spark" / "passages").glob("part-*")))
            boilerplate = lines(*sorted((out / "spark" / "boilerplate").glob("part-*")))
            print(json.dumps({"run": f"spark {args.spark}", "seconds": round(spark_seconds, 2),
                              "cpu_seconds": round(spark_cpu, 2), "cpu_ratio_to_cli": round(spark_cpu / cpu, 2),
                              "peak_rss_mib_largest_process": spark_rss, "pairs": len(found),
                              "same_boilerplate": boilerplate == lines(out / "cli" / "boilerplate.jsonl"),
                              "load": os.getloadavg()[0],
                              "same_lines": sorted(found) == sorted(expected),
                              "ratio_to_cli": round(spark_seconds / seconds, 2),
                              "summary": json.loads(stdout.strip().splitlines()[-1])}), flush=True)
    os.sync()


if __name__ == "__main__":
    main()
