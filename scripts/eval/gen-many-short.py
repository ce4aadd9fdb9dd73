#!/usr/bin/env python3
"""Many short documents, each sharing a passage, for the memory of a passage
search at millions of documents (BENCHMARKS.md, issue 33).

    python3 scripts/eval/gen-many-short.py N OUT.jsonl

Writes N JSON Lines `{"id", "text"}`. Each document draws 60 words from a
Zipf-like vocabulary of 60,000 made-up words; the first keeps them all,
every later one keeps 25 and carries the first 56 of a random earlier
document's draw, so that the documents copying one source share a 56-word
passage. Each document is
rebuilt from its number, so nothing grows with N but the output
(6,000,000 documents: 2.5 GB, about 4 minutes).
"""
import random
import sys


def main():
    n, out_path = int(sys.argv[1]), sys.argv[2]
    base = random.Random(7)
    vocabulary = ["w%x" % i for i in range(60000)]
    weights = [1.0 / (i + 10) for i in range(60000)]
    pool = base.choices(vocabulary, weights=weights, k=4_000_000)

    def drawn(number):
        rng = random.Random(number * 2654435761 % 2**32)
        at = rng.randrange(0, len(pool) - 80)
        words = pool[at:at + 60]
        rng.shuffle(words)
        return words

    with open(out_path, "w") as out:
        for number in range(n):
            words = drawn(number)
            if number > 0:
                source = base.randrange(0, number)
                words = words[:12] + drawn(source)[:56] + words[12:25]
            out.write('{"id": "doc%08d", "text": "%s"}\n' % (number, " ".join(words)))


if __name__ == "__main__":
    main()
