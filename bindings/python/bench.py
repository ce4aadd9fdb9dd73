"""Throughput of the Python binding against the CLI and Python peers, in one run.

    python bench.py [--corpus /tmp/priorart-corpus/docs.jsonl] [--cli target/release/priorart]

The corpus is `scripts/corpus/build.sh`'s (one {"id", "text"} per line). Measured, each the best
of --repeat runs, on the texts already in memory (the CLI's figure includes reading and parsing
its JSONL, which favours the binding; the CLI is also timed on a JSONL of the texts alone):
- priorart.fingerprint_many on 1 thread and on all cores, and one call per text;
- `priorart fingerprint --jsonl --threads N --scheme S` (wall time, process start included);
- peers on the same texts: datasketch MinHash (128 permutations over word 5-gram shingles, as
  scripts/eval/dedup-quality.py) and the `simhash` package's Simhash (its default features), on a
  prefix of the corpus (--peer-mib) since they run at a few MB/s.
Prints one JSON object per line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import priorart


def best(runs, work):
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def report(**fields):
    print(json.dumps(fields), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="/tmp/priorart-corpus/docs.jsonl")
    parser.add_argument("--cli", help="the priorart binary (release build)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-mib", type=float, default=8.0)
    args = parser.parse_args()

    texts = [json.loads(line)["text"] for line in open(args.corpus, encoding="utf-8")]
    mib = sum(len(t.encode("utf-8")) for t in texts) / 2**20
    cores = os.cpu_count()
    report(corpus=args.corpus, documents=len(texts), mib=round(mib, 1), cores=cores)

    for scheme in ["minhash-equality-v1", "simhash-doc"]:
        for threads in sorted({1, cores}):
            seconds = best(args.repeat, lambda: priorart.fingerprint_many(texts, [scheme], threads=threads))
            report(what="python fingerprint_many", scheme=scheme, threads=threads,
                   seconds=round(seconds, 3), mib_per_s=round(mib / seconds, 1))
        seconds = best(args.repeat, lambda: [priorart.fingerprint(t, scheme) for t in texts])
        report(what="python fingerprint, one call per text", scheme=scheme, threads=1,
               seconds=round(seconds, 3), mib_per_s=round(mib / seconds, 1))
        if args.cli:
            with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as only_text:
                for t in texts:
                    only_text.write(json.dumps({"text": t}) + "\n")
            try:
                for threads in sorted({1, cores}):
                    command = [args.cli, "fingerprint", "--jsonl", "--threads", str(threads), "--scheme", scheme,
                               only_text.name]
                    seconds = best(args.repeat, lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL))
                    report(what="cli fingerprint --jsonl", scheme=scheme, threads=threads,
                           seconds=round(seconds, 3), mib_per_s=round(mib / seconds, 1))
            finally:
                os.unlink(only_text.name)
    seconds = best(args.repeat, lambda: priorart.simhash_doc_array(texts, threads=1))
    report(what="python simhash_doc_array (numpy)", scheme="simhash-doc", threads=1,
           seconds=round(seconds, 3), mib_per_s=round(mib / seconds, 1))
    for threads in (1, 4):
        seconds = best(args.repeat, lambda: priorart.fingerprint_many(
            texts, ["minhash-equality-v1", "simhash-doc"], threads=threads))
        report(what="python fingerprint_many, both schemes", threads=threads, seconds=round(seconds, 3))

    prefix, size = [], 0
    for t in texts:
        if size >= args.peer_mib * 2**20:
            break
        prefix.append(t)
        size += len(t.encode("utf-8"))
    peer_mib = size / 2**20
    seconds = best(1, lambda: priorart.fingerprint_many(prefix, ["minhash-equality-v1"], threads=1))
    report(what="python fingerprint_many (peer prefix)", scheme="minhash-equality-v1", threads=1,
           mib=round(peer_mib, 1), seconds=round(seconds, 3), mib_per_s=round(peer_mib / seconds, 1))
    seconds = best(1, lambda: priorart.fingerprint_many(prefix, ["simhash-doc"], threads=1))
    report(what="python fingerprint_many (peer prefix)", scheme="simhash-doc", threads=1,
           mib=round(peer_mib, 1), seconds=round(seconds, 3), mib_per_s=round(peer_mib / seconds, 1))
    try:
        from datasketch import MinHash

        word = re.compile(r"\w+")

        def datasketch_all():
            for t in prefix:
                words = word.findall(t.lower())
                shingles = {" ".join(words[i:i + 5]).encode() for i in range(max(1, len(words) - 4))}
                m = MinHash(num_perm=128, seed=1)
                m.update_batch(list(shingles))

        seconds = best(1, datasketch_all)
        report(what="datasketch MinHash 128 perm, word 5-grams", threads=1, mib=round(peer_mib, 1),
               seconds=round(seconds, 3), mib_per_s=round(peer_mib / seconds, 1))
    except ImportError:
        report(what="datasketch not installed")
    try:
        from simhash import Simhash

        seconds = best(1, lambda: [Simhash(t).value for t in prefix])
        report(what="simhash (PyPI) Simhash, default features", threads=1, mib=round(peer_mib, 1),
               seconds=round(seconds, 3), mib_per_s=round(peer_mib / seconds, 1))
    except ImportError:
        report(what="simhash not installed")
    except OverflowError as err:
        # simhash 2.1.2 multiplies uint8 arrays by token weights, which
        # numpy 2 refuses; it runs only beside numpy < 2.
        report(what="simhash (PyPI) needs numpy < 2", error=str(err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
