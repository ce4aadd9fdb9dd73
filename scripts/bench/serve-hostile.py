#!/usr/bin/env python3
"""`priorart serve` against half-sent requests, measured (BENCHMARKS.md).

Opens N connections that each send a request line and one header and then
nothing, from many loopback addresses (each within the per-address cap),
then asks from another address (127.0.0.2) with a POST while they are held,
and times how long the service takes to close every half-sent one (its
request deadline) and how many descriptors it holds before and after.

    cargo build --release -p priorart-cli
    python3 scripts/bench/serve-hostile.py [--bin target/release/priorart] [--half 3000] [--deadline 10]

Prints one JSON object. Loopback only; every loop is bounded.
"""

import argparse
import json
import os
import socket
import subprocess
import tempfile
import time


def start(binary, state, deadline):
    process = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--state", state, "--relay", "ws://127.0.0.1:9",
         "--interval", "3600", "--request-deadline", str(deadline)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(100):
        line = process.stderr.readline()
        if "http://" in line:
            url = line[line.index("http://"):].split()[0]
            host, port = url[len("http://"):].rstrip("/").split(":")
            return process, (host, int(port))
    raise SystemExit("priorart serve printed no URL")


def descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def connect_from(source, address):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(address)
    return sock


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default="target/release/priorart")
    parser.add_argument("--half", type=int, default=3000)
    parser.add_argument("--deadline", type=int, default=10)
    parser.add_argument("--per-address", type=int, default=60, help="below serve's default cap of 64")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        process, address = start(args.bin, state, args.deadline)
        try:
            before = descriptors(process.pid)
            half = []
            for n in range(args.half):
                block = n // args.per_address
                sock = connect_from(f"127.0.{3 + block // 250}.{1 + block % 250}", address)
                sock.sendall(b"POST /v1/attestations HTTP/1.1\r\nHost: x\r\n")
                half.append(sock)
            sent = time.monotonic()
            held = descriptors(process.pid)

            started = time.monotonic()
            honest = connect_from("127.0.0.2", address)
            body = b"{}"
            honest.sendall(b"POST /v1/attestations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           b"Content-Length: 2\r\nConnection: close\r\n\r\n" + body)
            answer = honest.recv(4096).decode("latin-1").split("\r\n")[0]
            honest_s = time.monotonic() - started

            closed, last = 0, 0.0
            deadline = sent + args.deadline + 20
            for sock in half:
                sock.settimeout(max(0.1, deadline - time.monotonic()))
                try:
                    if sock.recv(1) == b"":
                        closed += 1
                except ConnectionResetError:
                    closed += 1
                except socket.timeout:
                    pass
                last = time.monotonic() - sent
                sock.close()
            time.sleep(0.5)
            after = descriptors(process.pid)
        finally:
            process.kill()
            process.wait()
    print(json.dumps({
        "half_sent": args.half, "deadline_s": args.deadline, "closed_by_the_service": closed,
        "all_closed_within_s": round(last, 2),
        "service_descriptors": {"before": before, "holding_them": held, "after": after},
        "other_address_post": {"answer": answer, "seconds": round(honest_s, 4)},
    }))


if __name__ == "__main__":
    main()
