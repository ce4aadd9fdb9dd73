#!/usr/bin/env python3
"""Throughput of `priorart fingerprint --jsonl --threads 1` against
`openssl dgst -sha256` over the same text, measured in the same run.

The input is every case of vectors/equality-vectors.json repeated ten times
(about 45 MB of text; 54 MB as JSON Lines). Each command runs --runs times,
alternating, and the fastest run of each counts, which is the least
disturbed by other work on a shared machine; the median run is reported
too, as it also shows time lost to page faults and system calls. With --memory it also reports
the peak resident memory of a run over a 1 GB JSONL file.

Usage: python3 scripts/bench/fingerprint.py [--runs 5] [--memory]
(build first: cargo build --release --locked; PRIORART_BIN=path selects
another binary, e.g. one built with a CARGO_TARGET_DIR of its own)
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("PRIORART_BIN", os.path.join(ROOT, "target", "release", "priorart"))


def write_inputs(directory, repeat):
    with open(os.path.join(ROOT, "vectors", "equality-vectors.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    text_path = os.path.join(directory, "text.txt")
    jsonl_path = os.path.join(directory, "docs.jsonl")
    with open(text_path, "w", encoding="utf-8") as text, open(jsonl_path, "w", encoding="utf-8") as jsonl:
        for _ in range(repeat):
            for i, case in enumerate(cases):
                text.write(case["input"])
                jsonl.write(json.dumps({"id": i, "text": case["input"]}) + "\n")
    return text_path, jsonl_path


def run_time(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def peak_memory_mib(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(before, after) / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="also measure peak memory on 1 GB of JSONL")
    args = parser.parse_args()
    if not os.path.exists(BINARY):
        sys.exit("build first: cargo build --release --locked")
    with tempfile.TemporaryDirectory() as directory:
        text_path, jsonl_path = write_inputs(directory, 10)
        size = os.path.getsize(text_path)
        openssl = ["openssl", "dgst", "-sha256", text_path]
        priorart = [BINARY, "fingerprint", "--jsonl", "--threads", "1", jsonl_path]
        times = {"openssl": [], "priorart": []}
        for _ in range(args.runs):
            times["openssl"].append(run_time(openssl))
            times["priorart"].append(run_time(priorart))
        print(f"text: {size / 1e6:.1f} MB ({os.path.getsize(jsonl_path) / 1e6:.1f} MB as JSONL)")
        for label, pick in [("fastest run", min), ("median run", statistics.median)]:
            mbps = {name: size / pick(seconds) / 1e6 for name, seconds in times.items()}
            print(f"{label}: openssl dgst -sha256 {mbps['openssl']:.0f} MB/s, "
                  f"priorart fingerprint --jsonl --threads 1 {mbps['priorart']:.1f} MB/s, "
                  f"ratio {mbps['priorart'] / mbps['openssl']:.3f}")
        mbps = {name: size / min(seconds) / 1e6 for name, seconds in times.items()}
        print(f"vs the JavaScript reference (about 4 MB/s): {mbps['priorart'] / 4:.0f}x")
        if args.memory:
            big = os.path.join(directory, "big.jsonl")
            with open(big, "wb") as out, open(jsonl_path, "rb") as piece:
                chunk = piece.read()
                while out.tell() < 1 << 30:
                    out.write(chunk)
            size_big = os.path.getsize(big)
            peak = peak_memory_mib([BINARY, "fingerprint", "--jsonl", big])
            print(f"peak memory, --jsonl over {size_big / 1e9:.2f} GB, all cores: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
