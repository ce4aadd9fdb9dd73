#!/usr/bin/env python3
"""A large JSONL corpus from real text, with planted near-copies and their
ground truth, for `priorart dedup` beyond memory (BENCHMARKS.md).

    gen-big-corpus.py generate --source docs.jsonl --out DIR [--docs N] [--shard I/S]
    gen-big-corpus.py trim --out DIR [--shards S]
    gen-big-corpus.py score --truth DIR --pairs OUT/pairs.jsonl

`generate` writes DIR/corpus-I.jsonl ({"id", "text"} per line) and
DIR/truth-I.tsv (ORIGINAL<TAB>COPY per planted copy), streaming: nothing of
the output is held, only the source texts (the Debian corpus,
scripts/corpus/build.sh, about 100 to 160 MB). Documents are
numbered 0 to --docs - 1; shard I of S (default 0/1) writes those whose
number is I modulo S, so that S processes write one corpus in parallel
(every document is a function of its number and the seed). Documents
average about 3.3 kB: ten million are over 30 GB.

A document is three to five passages of random source texts (250 to 1,200
characters each, cut at spaces) with two words replaced by random source
words (the random edits), so that two generated documents share almost no
word 5-gram unless one is planted as a copy of the other. A document is a
planted near-copy with probability --copy-rate: its original is a uniformly
chosen earlier document that is no copy itself, regenerated from its seed
(nothing is remembered), and then lightly edited: up to one word edit per
250 words (replaced, deleted, inserted, or two words swapped), so that the
word 5-gram Jaccard of an original and its copy stays above about 0.9, and
of two copies of one original above about 0.8.

`trim` makes a corpus whose generation was stopped early usable: each
corpus-I.jsonl is cut after its last whole line, DIR/present.json records
the last document number of each shard, and truth-I.tsv is written again
for exactly the documents present (the truth is a function of the numbers
and the seed, so nothing is lost with the stopped writers' buffers).

`score` counts the planted pairs (every two documents of a family: an
original and its copies) that a `dedup` pairs.jsonl found (recall), and the
share of found pairs that are planted (precision).
"""

import argparse
import glob
import json
import os
import random
import sys
import time

IDS = "d{:09d}"


def load_source(path, min_chars):
    texts = []
    with open(path, encoding="utf-8") as source:
        for line in source:
            text = json.loads(line).get("text", "")
            if len(text) >= min_chars:
                texts.append(text)
    if not texts:
        sys.exit(f"{path}: no text of at least {min_chars} characters")
    return texts


class Generator:
    def __init__(self, texts, seed, copy_rate):
        self.texts = texts
        self.seed = seed
        self.copy_rate = copy_rate
        vocabulary_rng = random.Random(seed)
        words = []
        for text in vocabulary_rng.sample(texts, min(len(texts), 2000)):
            words.extend(w for w in text[:4000].split() if w.isalpha())
        self.vocabulary = words or ["word"]

    def rng(self, number):
        return random.Random(self.seed * 1_000_003_001 + number)

    def is_copy(self, number):
        return number > 0 and self.rng(number).random() < self.copy_rate

    def passage(self, rng):
        text = self.texts[rng.randrange(len(self.texts))]
        length = rng.randint(250, 1200)
        if len(text) <= length:
            return text
        start = rng.randrange(len(text) - length)
        space = text.find(" ", start)
        start = start if space < 0 else space + 1
        end = text.find(" ", start + length)
        return text[start:] if end < 0 else text[start:end]

    def original(self, number):
        """The text of a document that is no copy (a function of its number)."""
        rng = self.rng(number)
        rng.random()  # the copy draw
        text = "\n\n".join(self.passage(rng) for _ in range(rng.randint(3, 5)))
        for _ in range(2):
            at = text.find(" ", rng.randrange(len(text)))
            if at >= 0:
                end = text.find(" ", at + 1)
                end = len(text) if end < 0 else end
                text = text[: at + 1] + rng.choice(self.vocabulary) + text[end:]
        return text

    def source_of(self, number, rng=None):
        """The number of the document that `number` is a copy of, or None."""
        if not self.is_copy(number):
            return None
        rng = rng or self.rng(number)
        rng.random()
        while True:
            source = rng.randrange(number)
            if not self.is_copy(source):
                return source

    def document(self, number):
        """(text, original number or None)."""
        rng = self.rng(number)
        source = self.source_of(number, rng)
        if source is None:
            return self.original(number), None
        words = self.original(source).split(" ")
        for _ in range(rng.randint(0, len(words) // 250)):
            at = rng.randrange(len(words))
            edit = rng.randrange(4)
            if edit == 0:
                words[at] = rng.choice(self.vocabulary)
            elif edit == 1 and len(words) > 1:
                del words[at]
            elif edit == 2:
                words.insert(at, rng.choice(self.vocabulary))
            elif at + 1 < len(words):
                words[at], words[at + 1] = words[at + 1], words[at]
        return " ".join(words), source


def generate(args):
    texts = load_source(args.source, 400)
    generator = Generator(texts, args.seed, args.copy_rate)
    shard, shards = (int(part) for part in args.shard.split("/"))
    started = time.monotonic()
    written = 0
    number = shard
    copies = 0
    buffer = []
    buffered = 0
    corpus_path, truth_path = f"{args.out}/corpus-{shard}.jsonl", f"{args.out}/truth-{shard}.tsv"
    with open(corpus_path, "wb") as corpus, open(truth_path, "w") as truth:
        while number < args.docs:
            text, source = generator.document(number)
            line = ('{"id":"' + IDS.format(number) + '","text":' + json.dumps(text, ensure_ascii=False) + "}\n").encode()
            buffer.append(line)
            buffered += len(line)
            if source is not None:
                truth.write(f"{IDS.format(source)}\t{IDS.format(number)}\n")
                copies += 1
            number += shards
            if buffered >= 8 << 20:
                corpus.write(b"".join(buffer))
                written += buffered
                buffer.clear()
                buffered = 0
                rate = written / 1e6 / (time.monotonic() - started)
                print(f"\r{number:,} documents, {written / 1e9:.2f} GB, {rate:.0f} MB/s", end="", file=sys.stderr)
        corpus.write(b"".join(buffer))
        written += buffered
    print(
        f"\nshard {shard}/{shards}: {len(range(shard, args.docs, shards)):,} documents ({copies:,} planted copies), {written:,} bytes in "
        f"{time.monotonic() - started:.0f} s",
        file=sys.stderr,
    )


def trim(args):
    generator = Generator([""], args.seed, args.copy_rate)
    present = {}
    for shard in range(args.shards):
        path = f"{args.out}/corpus-{shard}.jsonl"
        with open(path, "rb+") as corpus:
            size = corpus.seek(0, 2)
            tail_start = max(0, size - (64 << 20))
            corpus.seek(tail_start)
            tail = corpus.read()
            end = tail.rfind(b"\n")
            start = tail.rfind(b"\n", 0, end) + 1
            corpus.truncate(tail_start + end + 1)
        last = int(json.loads(tail[start : end + 1])["id"][1:])
        present[shard] = last
        with open(f"{args.out}/truth-{shard}.tsv", "w") as truth:
            for number in range(shard, last + 1, args.shards):
                source = generator.source_of(number)
                if source is not None:
                    truth.write(f"{IDS.format(source)}\t{IDS.format(number)}\n")
    with open(f"{args.out}/present.json", "w") as out:
        json.dump({"shards": args.shards, "last": present}, out)
    print(json.dumps(present))


def score(args):
    family = {}
    for path in sorted(glob.glob(f"{args.truth}/truth-*.tsv")):
        with open(path) as truth:
            for line in truth:
                original, copy = line.rstrip("\n").split("\t")
                family[copy] = original
                family.setdefault(original, original)
    try:
        with open(f"{args.truth}/present.json") as info:
            present = json.load(info)
    except FileNotFoundError:
        present = None

    def is_present(document):
        if present is None:
            return True
        number = int(document[1:])
        return number <= present["last"][str(number % present["shards"])]

    members = {}
    for document, original in family.items():
        if is_present(document):
            members.setdefault(original, []).append(document)
    planted = sum(len(group) * (len(group) - 1) // 2 for group in members.values())
    found = right = 0
    seen = set()
    with open(args.pairs) as pairs:
        for line in pairs:
            pair = json.loads(line)
            a, b = pair["a"], pair["b"]
            found += 1
            if a in family and family.get(b) == family[a]:
                key = (a, b) if a < b else (b, a)
                if key not in seen:
                    seen.add(key)
                    right += 1
    recall = right / planted if planted else 1.0
    precision = right / found if found else 1.0
    print(json.dumps({"planted": planted, "found": found, "right": right, "recall": recall, "precision": precision}))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("generate")
    make.add_argument("--source", default=os.path.join(os.environ.get("PRIORART_CORPUS", "/tmp/priorart-corpus"), "docs.jsonl"))
    make.add_argument("--out", required=True)
    make.add_argument("--docs", type=int, default=10_000_000)
    make.add_argument("--shard", default="0/1", help="I/S: write the documents numbered I modulo S")
    make.add_argument("--copy-rate", type=float, default=0.1)
    make.add_argument("--seed", type=int, default=1)
    cut = commands.add_parser("trim")
    cut.add_argument("--out", required=True)
    cut.add_argument("--shards", type=int, default=1)
    cut.add_argument("--copy-rate", type=float, default=0.1)
    cut.add_argument("--seed", type=int, default=1)
    check = commands.add_parser("score")
    check.add_argument("--truth", required=True)
    check.add_argument("--pairs", required=True)
    args = parser.parse_args()
    {"generate": generate, "trim": trim, "score": score}[args.command](args)


if __name__ == "__main__":
    main()
