#!/usr/bin/env python3
"""Throughput and latency of `priorart policy strfry` through strfry's protocol.

Runs the release binary pinned to one core (taskset -c 0 when available) and
sends it strfry's request lines:

- notes: kind 1 events of 30 random words, every text different (so each one
  is fingerprinted and scanned against the flood window, which fills up);
- proofs: real kind 1041 events (distinct attestations, proofs on a regtest
  chain; crates/policy/examples/bench_fixture.rs writes them), checked
  against a header cache holding their blocks.

Two ways for each: "lockstep" as strfry does it (one request, wait for its
answer, next request), which gives the latency per event (p50, p99) and the
rate strfry would see; and "pipelined" (all requests written at once), the
rate of the plugin alone. The notes are not signed (the plugin trusts strfry
to have checked ids and signatures); their pubkeys are valid curve points.

Usage: scripts/bench-policy.py [--notes N] [--proofs N] [--binary PATH]
(build first: cargo build --release -p priorart-cli, and the fixture is
built and run by this script with cargo run --release --example).
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

P = 2**256 - 2**32 - 977


def valid_pubkey(rng):
    """A random x coordinate of a secp256k1 point (x^3 + 7 a square mod p)."""
    while True:
        x = rng.getrandbits(256) % P
        if pow((x**3 + 7) % P, (P - 1) // 2, P) == 1:
            return f"{x:064x}"


def note_lines(count, rng):
    keys = [valid_pubkey(rng) for _ in range(200)]
    # A vocabulary large enough that random texts are not near-duplicates.
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
             for _ in range(5000)]
    for n in range(count):
        text = " ".join(rng.choice(words) for _ in range(30))
        event = {
            "id": f"{rng.getrandbits(256):064x}",
            "pubkey": rng.choice(keys),
            "created_at": 1_700_000_000 + n,
            "kind": 1,
            "tags": [],
            "content": text,
            "sig": f"{rng.getrandbits(512):0128x}",
        }
        yield event


def request(event, received_at):
    return json.dumps({"type": "new", "event": event, "receivedAt": received_at,
                       "sourceType": "IP4", "sourceInfo": "127.0.0.1"},
                      separators=(",", ":")) + "\n"


def start(binary, config):
    command = [binary, "policy", "strfry", "--config", config]
    if shutil.which("taskset"):
        command = ["taskset", "-c", "0"] + command
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0)


def lockstep(binary, config, lines):
    plugin = start(binary, config)
    out = plugin.stdout
    latencies = []
    actions = {}
    started = time.perf_counter()
    for line in lines:
        sent = time.perf_counter()
        plugin.stdin.write(line.encode())
        answer = out.readline()
        latencies.append(time.perf_counter() - sent)
        action = json.loads(answer)["action"]
        actions[action] = actions.get(action, 0) + 1
    elapsed = time.perf_counter() - started
    plugin.stdin.close()
    plugin.wait()
    latencies.sort()
    return {
        "events": len(lines),
        "per_second": round(len(lines) / elapsed),
        "p50_us": round(latencies[len(latencies) // 2] * 1e6, 1),
        "p99_us": round(latencies[int(len(latencies) * 0.99)] * 1e6, 1),
        "max_us": round(latencies[-1] * 1e6, 1),
        "actions": actions,
    }


def pipelined(binary, config, lines):
    plugin = start(binary, config)
    payload = "".join(lines).encode()

    def feed():
        plugin.stdin.write(payload)
        plugin.stdin.close()

    started = time.perf_counter()
    writer = threading.Thread(target=feed)
    writer.start()
    answers = plugin.stdout.read().count(b"\n")
    elapsed = time.perf_counter() - started
    writer.join()
    plugin.wait()
    assert answers == len(lines), (answers, len(lines))
    return {"events": len(lines), "per_second": round(len(lines) / elapsed)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=50_000)
    parser.add_argument("--proofs", type=int, default=2_000)
    parser.add_argument("--binary", default="target/release/priorart")
    args = parser.parse_args()
    rng = random.Random(7)
    work = tempfile.mkdtemp(prefix="bench-policy-")
    try:
        subprocess.run(["cargo", "run", "--quiet", "--release", "-p", "priorart-policy", "--example",
                        "bench_fixture", "--", work, str(args.proofs)], check=True)
        config = os.path.join(work, "policy.toml")
        with open(config, "w") as f:
            f.write(f'[proofs]\nnetwork = "regtest"\nheader_cache = {json.dumps(os.path.join(work, "headers"))}\n')
        notes = [request(event, 1_700_000_000 + n // 1000) for n, event in enumerate(note_lines(args.notes, rng))]
        with open(os.path.join(work, "proofs.jsonl")) as f:
            proofs = [request(json.loads(line), 1_700_000_000) for line in f]
        results = {}
        for name, lines in (("notes", notes), ("proofs", proofs)):
            results[name] = {"lockstep": lockstep(args.binary, config, lines),
                             "pipelined": pipelined(args.binary, config, lines)}
        results["machine"] = {"cpus": os.cpu_count(), "load_average": os.getloadavg()}
        json.dump(results, sys.stdout, indent=2)
        print()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
