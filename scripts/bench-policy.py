#!/usr/bin/env python3
"""Throughput and latency of `priorart policy strfry` and `priorart policy grpc`.

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

The same events through nostr-rs-relay's gRPC event admission protocol:
`priorart policy grpc` pinned to core 0, asked by a Rust tonic client
(crates/policy-grpc/examples/admit_load.rs) pinned to core 1: "lockstep" (one
request in flight, as nostr-rs-relay asks) and "concurrent" (32 in flight on
one HTTP/2 connection, the server's own rate).

Usage: scripts/bench-policy.py [--notes N] [--proofs N] [--binary PATH] [--no-grpc]
(build first: cargo build --release -p priorart-cli; the fixture and the
gRPC client are built and run by this script with cargo run --release --example).
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


def pinned(command, core):
    if shutil.which("taskset"):
        return ["taskset", "-c", str(core)] + command
    return command


def start(binary, config):
    command = pinned([binary, "policy", "strfry", "--config", config], 0)
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


def grpc(binary, config, events, work):
    """Both loads of admit_load against one `priorart policy grpc` per run."""
    path = os.path.join(work, "grpc-events.jsonl")
    with open(path, "w") as f:
        f.writelines(json.dumps(event, separators=(",", ":")) + "\n" for event in events)
    results = {}
    for name, in_flight in (("lockstep", 1), ("concurrent", 32)):
        server = subprocess.Popen(pinned([binary, "policy", "grpc", "--listen", "127.0.0.1:0", "--config", config], 0),
                                  stderr=subprocess.PIPE, text=True)
        try:
            address = None
            for line in server.stderr:
                if "listening on http://" in line:
                    address = line.split("listening on http://")[1].strip()
                    break
            assert address, "priorart policy grpc did not start"
            load = subprocess.run(pinned(["target/release/examples/admit_load", address, path, str(in_flight)], 1),
                                  check=True, capture_output=True, text=True)
            results[name] = json.loads(load.stdout)
        finally:
            server.terminate()
            server.wait()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=50_000)
    parser.add_argument("--proofs", type=int, default=2_000)
    parser.add_argument("--binary", default="target/release/priorart")
    parser.add_argument("--no-grpc", action="store_true", help="measure the strfry protocol only")
    args = parser.parse_args()
    rng = random.Random(7)
    work = tempfile.mkdtemp(prefix="bench-policy-")
    try:
        subprocess.run(["cargo", "run", "--quiet", "--release", "-p", "priorart-policy", "--example",
                        "bench_fixture", "--", work, str(args.proofs)], check=True)
        if not args.no_grpc:
            subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "priorart-policy-grpc", "--example",
                            "admit_load"], check=True)
        config = os.path.join(work, "policy.toml")
        with open(config, "w") as f:
            f.write(f'[proofs]\nnetwork = "regtest"\nheader_cache = {json.dumps(os.path.join(work, "headers"))}\n')
        note_events = list(note_lines(args.notes, rng))
        notes = [request(event, 1_700_000_000 + n // 1000) for n, event in enumerate(note_events)]
        with open(os.path.join(work, "proofs.jsonl")) as f:
            proof_events = [json.loads(line) for line in f]
        proofs = [request(event, 1_700_000_000) for event in proof_events]
        results = {}
        for name, lines in (("notes", notes), ("proofs", proofs)):
            results[name] = {"lockstep": lockstep(args.binary, config, lines),
                             "pipelined": pipelined(args.binary, config, lines)}
        if not args.no_grpc:
            results["grpc"] = {name: grpc(args.binary, config, events, work)
                               for name, events in (("notes", note_events), ("proofs", proof_events))}
        results["machine"] = {"cpus": os.cpu_count(), "load_average": os.getloadavg()}
        json.dump(results, sys.stdout, indent=2)
        print()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
