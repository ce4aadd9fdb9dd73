#!/usr/bin/env python3
"""Throughput and latency of `priorart policy strfry` and `priorart policy grpc`.

Runs the release binary pinned to one core (taskset -c 0 when available) and,
from this script pinned to another core (so the two never share one), sends
it strfry's request lines:

- notes: kind 1 events of 30 random words, every text different (so each one
  is fingerprinted and scanned against the flood window, which fills up);
- proofs: real kind 1041 events (distinct attestations, proofs on a regtest
  chain; crates/policy/examples/bench_fixture.rs writes them), checked
  against a header cache holding their blocks. By default every proof has a
  block of its own, the worst case: the plugin reads a header file it has
  not read before for every proof. `--per-block N` stamps them in calendar
  rounds of N digests per block instead, as OpenTimestamps calendars do, so
  most headers are already in the plugin's memory.

Two ways for each: "lockstep" as strfry does it (one request, wait for its
answer, next request), which gives the latency per event (p50, p99) and the
rate strfry would see; and "back to back" (requests read from a file, answers
written to one), the rate of the plugin alone. Each is run `--runs` times and
the median run is shown, with the range. The notes are not signed (the plugin trusts strfry
to have checked ids and signatures); their pubkeys are valid curve points.

Two floors, measured in the same run because a shared machine's speed moves
from minute to minute: "harness_floor", lockstep through an accept-all
plugin (this harness's own round trip), and "signature_floor", the rate of
verifying the proofs' attestation signatures alone (crates/policy/examples/
signature_floor.rs), the one Schnorr verification every proof costs, run
just before each back-to-back run of the proofs; the proofs' rate is also
given as the median share of it.

The same events through nostr-rs-relay's gRPC event admission protocol:
`priorart policy grpc` pinned to core 0, asked by a Rust tonic client
(crates/policy-grpc/examples/admit_load.rs) pinned to core 1: "lockstep" (one
request in flight, as nostr-rs-relay asks) and "concurrent" (32 in flight on
one HTTP/2 connection, the server's own rate).

Usage: scripts/bench/policy.py [--notes N] [--proofs N] [--per-block N] [--runs N] [--binary PATH] [--no-grpc]
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


# An accept-all plugin in Perl: lockstep through it measures the round trip
# of this harness and the two pipes alone, the floor under the plugin's figures.
ACCEPT_ALL = ["perl", "-ne", 'BEGIN { $| = 1 } /"id":"([0-9a-f]*)"/; print qq({"id":"$1","action":"accept","msg":""}\\n)']


def strfry_plugin(binary, config):
    return pinned([binary, "policy", "strfry", "--config", config], 0)


def lockstep(command, lines):
    plugin = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, bufsize=0)
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


def back_to_back(command, lines, work):
    """The plugin's own rate: every request read from a file, every answer
    written to one, so no harness sits in the loop."""
    requests = os.path.join(work, "requests.jsonl")
    answers = os.path.join(work, "answers.jsonl")
    with open(requests, "w") as f:
        f.writelines(lines)
    with open(requests, "rb") as stdin, open(answers, "wb") as stdout:
        started = time.perf_counter()
        subprocess.run(command, stdin=stdin, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
        elapsed = time.perf_counter() - started
    with open(answers, "rb") as f:
        answered = f.read().count(b"\n")
    assert answered == len(lines), (answered, len(lines))
    return {"events": len(lines), "per_second": round(len(lines) / elapsed)}


def signature_floor(work):
    """The rate of the one Schnorr verification each proof needs, alone."""
    run = subprocess.run(pinned(["target/release/examples/signature_floor", work], 0),
                         check=True, capture_output=True, text=True)
    return json.loads(run.stdout)


def against_signature_floor(measure, work, runs):
    """`repeated(measure)`, each run right after a run of the signature
    floor, with the median of the per-pair ratios: the share of the bare
    verification rate the plugin reaches, which moves less than either."""
    pairs = [(signature_floor(work)["per_second"], measure()) for _ in range(runs)]
    ratios = sorted(result["per_second"] / floor for floor, result in pairs)
    floors = sorted(floor for floor, _ in pairs)
    median = median_run([result for _, result in pairs])
    median.update(signature_floor_per_second=floors[len(floors) // 2],
                  signature_floor_range=[floors[0], floors[-1]],
                  of_signature_floor=round(ratios[len(ratios) // 2], 3))
    return median


def repeated(measure, runs):
    """`runs` runs of `measure` (see `median_run`)."""
    return median_run([measure() for _ in range(runs)])


def median_run(results):
    """The median run's figures, with the number of runs and the range of
    the rate (a shared machine's neighbours move single runs by a third)."""
    results = sorted(results, key=lambda result: result["per_second"])
    median = dict(results[len(results) // 2])
    median["runs"] = len(results)
    median["per_second_range"] = [results[0]["per_second"], results[-1]["per_second"]]
    return median


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
    parser.add_argument("--runs", type=int, default=5, help="runs of each strfry measurement (the median is shown)")
    parser.add_argument("--per-block", type=int, default=1, help="proofs stamped into each block")
    parser.add_argument("--binary", default="target/release/priorart")
    parser.add_argument("--no-grpc", action="store_true", help="measure the strfry protocol only")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {1})
    rng = random.Random(7)
    work = tempfile.mkdtemp(prefix="bench-policy-")
    try:
        subprocess.run(["cargo", "run", "--quiet", "--release", "-p", "priorart-policy", "--example",
                        "bench_fixture", "--", work, str(args.proofs), str(args.per_block)], check=True)
        subprocess.run(["cargo", "build", "--quiet", "--release", "-p", "priorart-policy", "--example",
                        "signature_floor"], check=True)
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
        plugin = strfry_plugin(args.binary, config)
        results = {
            "harness_floor": {"lockstep": repeated(lambda: lockstep(pinned(ACCEPT_ALL, 0), proofs), args.runs)},
        }
        results["notes"] = {
            "lockstep": repeated(lambda: lockstep(plugin, notes), args.runs),
            "back_to_back": repeated(lambda: back_to_back(plugin, notes, work), args.runs),
        }
        results["proofs"] = {
            "lockstep": repeated(lambda: lockstep(plugin, proofs), args.runs),
            "back_to_back": against_signature_floor(lambda: back_to_back(plugin, proofs, work), work, args.runs),
        }
        if not args.no_grpc:
            results["grpc"] = {name: grpc(args.binary, config, events, work)
                               for name, events in (("notes", note_events), ("proofs", proof_events))}
        results["machine"] = {"cpus": os.cpu_count(), "load_average": os.getloadavg()}
        results["proofs_per_block"] = args.per_block
        json.dump(results, sys.stdout, indent=2)
        print()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
