#!/usr/bin/env python3
"""Relay benchmarks for BENCHMARKS.md (issue 13), with the release binary:

1. `priorart check` wall time against 3 `priorart relay` processes that each
   hold the same 1,000 events for one X (100 valid kind 1041 proofs on a
   regtest chain, 900 notes), headers from the header cache: median of RUNS.
2. Ingest rate of X-tagged events (10,000 notes, one `priorart publish`
   connection, pipelined, every OK awaited) into a fresh `priorart relay`,
   and into nostr-rs-relay and PyPI nostr-relay on the same machine when
   they are installed (same client, same events: the ratio compares relays).

Usage: python3 scripts/bench/relay.py [RUNS]   (CARGO_TARGET_DIR is honoured)
"""

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
PRIORART = TARGET / "release" / "priorart"
FIXTURE = TARGET / "release" / "examples" / "relay_bench_fixture"


def build():
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "priorart-cli"], cwd=ROOT, check=True)
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "priorart-relay", "--example",
                    "relay_bench_fixture"], cwd=ROOT, check=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def priorart_relay(db):
    proc = subprocess.Popen([PRIORART, "relay", "--listen", "127.0.0.1:0", "--db", db],
                            stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    url = re.search(r"ws://\S+", line).group(0)
    return proc, url


def nostr_rs_relay(work):
    port = free_port()
    config = work / "nostr-rs-relay.toml"
    config.write_text(f'[database]\ndata_directory = "{work}"\n[network]\naddress = "127.0.0.1"\nport = {port}\n'
                      "[limits]\nmessages_per_sec = 1000000\nmax_event_bytes = 524288\n")
    proc = subprocess.Popen(["nostr-rs-relay", "--config", config], cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port)
    return proc, f"ws://127.0.0.1:{port}"


def python_relay(work):
    port = free_port()
    config = work / "nostr-relay.yaml"
    config.write_text("DEBUG: false\nstorage:\n  sqlalchemy.url: sqlite+aiosqlite:///" + str(work / "db.sqlite3")
                      + "\n  validators:\n    - nostr_relay.validators.is_signed\n"
                      f"gunicorn:\n  bind: 127.0.0.1:{port}\n  workers: 1\n  loglevel: warning\n")
    proc = subprocess.Popen(["nostr-relay", "-c", config, "serve"], cwd=work,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(port)
    return proc, f"ws://127.0.0.1:{port}"


def publish(url, events):
    started = time.perf_counter()
    out = subprocess.run([PRIORART, "publish", "--json", "--timeout", "300", "--relay", url, events],
                         capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    answer = json.loads(out.stdout)
    accepted = sum(1 for e in answer["events"] if e["relays"][0]["status"] == "accepted")
    return elapsed, accepted


def stop(proc):
    proc.terminate()
    proc.wait(timeout=30)


def on_path(program):
    return any((Path(d) / program).is_file() for d in os.environ.get("PATH", "").split(os.pathsep))


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    build()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run([FIXTURE, work], check=True)
        x = (work / "x").read_text().strip()

        relays = [priorart_relay(work / f"check-{i}") for i in range(3)]
        for _, url in relays:
            publish(url, work / "check.jsonl")
        command = [PRIORART, "check", "--json", "--x", x, "--network", "regtest", "--header-cache",
                   work / "headers"] + [arg for _, url in relays for arg in ("--relay", url)]
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            out = subprocess.run(command, capture_output=True, text=True, check=True)
            times.append(time.perf_counter() - started)
        report = json.loads(out.stdout)
        for proc, _ in relays:
            stop(proc)
        print(f"check, 3 relays x 1,000 events: median {statistics.median(times):.3f} s "
              f"(min {min(times):.3f}, max {max(times):.3f}, {runs} runs); "
              f"{len(report['proofs'])} valid proofs ranked, {len(report['content_events'])} content events, "
              f"{len(report['refused'])} refused, {len(report['unverified'])} unverified")

        peers = [("priorart relay (nostr-lmdb)", lambda d: priorart_relay(d / "db"))]
        if on_path("nostr-rs-relay"):
            peers.append(("nostr-rs-relay 0.8.12 (SQLite)", nostr_rs_relay))
        if on_path("nostr-relay"):
            peers.append(("PyPI nostr-relay 1.14 (SQLite)", python_relay))
        for name, start in peers:
            data = work / re.sub(r"\W+", "-", name)
            data.mkdir()
            proc, url = start(data)
            elapsed, accepted = publish(url, work / "ingest.jsonl")
            stop(proc)
            print(f"ingest into {name}: 10,000 X-tagged notes in {elapsed:.2f} s = {10_000 / elapsed:,.0f} events/s "
                  f"({accepted} accepted)")


if __name__ == "__main__":
    main()
