"""`priorart.dedup` against `priorart dedup` on the same corpus, in one run.

    python bench_dedup.py --corpus /tmp/priorart-corpus/docs.jsonl --cli target/release/priorart

The corpus is one {"id", "text"} per line (`scripts/corpus/build.sh`'s). Alternating runs
(--repeat each), best and median wall time of each:
- the CLI: `priorart dedup --jsonl --id-field id CORPUS --out DIR` (process start, reading and
  parsing the JSONL included);
- Python: `priorart.dedup(texts, ids)` on texts already in memory, and from a generator that
  parses the same JSONL line by line (what the CLI does).
Checks the pairs are equal, and prints one JSON object per line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Tuple

import priorart


def records(corpus: Path) -> Iterator[Tuple[str, str]]:
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            yield record["id"], record["text"]


def timed(work: Callable[[], object]) -> Tuple[float, object]:
    started = time.perf_counter()
    answer = work()
    return time.perf_counter() - started, answer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/priorart-corpus/docs.jsonl"))
    parser.add_argument("--cli", default="target/release/priorart")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    loaded = list(records(args.corpus))
    ids = [id_ for id_, _ in loaded]
    texts = [text for _, text in loaded]
    times: Dict[str, List[float]] = {"cli": [], "python (list)": [], "python (JSONL generator)": []}
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "dups"

        def cli() -> List[dict]:
            subprocess.run([args.cli, "dedup", "--jsonl", "--id-field", "id", str(args.corpus), "--out", str(out)],
                           check=True, capture_output=True)
            return [json.loads(line) for line in (out / "pairs.jsonl").read_text().splitlines()]

        def streamed() -> priorart.DedupResult:
            rows = records(args.corpus)
            pairs = ((id_, text) for id_, text in rows)
            first, second = _tee(pairs)
            return priorart.dedup(second, first)

        for _ in range(args.repeat):
            seconds, from_cli = timed(cli)
            times["cli"].append(seconds)
            seconds, listed = timed(lambda: priorart.dedup(texts, ids))
            times["python (list)"].append(seconds)
            seconds, from_stream = timed(streamed)
            times["python (JSONL generator)"].append(seconds)
            assert [pair.to_json() for pair in listed.pairs] == from_cli
            assert from_stream == listed
    cli_best = min(times["cli"])
    for name, runs in times.items():
        print(json.dumps({
            "what": name, "documents": len(texts), "pairs": len(from_cli), "best_s": round(min(runs), 2),
            "median_s": round(statistics.median(runs), 2), "best_vs_cli": round(min(runs) / cli_best, 2),
        }), flush=True)


def _tee(pairs: Iterator[Tuple[str, str]]) -> Tuple[Iterator[str], Iterator[str]]:
    """Ids and texts of one stream of pairs, each read in step by `dedup`
    (which takes one id per text), without holding the stream."""
    pending: List[str] = []

    def texts() -> Iterator[str]:
        for id_, text in pairs:
            pending.append(id_)
            yield text

    def ids() -> Iterator[str]:
        while True:
            if not pending:
                return
            yield pending.pop(0)

    return ids(), texts()


if __name__ == "__main__":
    main()
