#!/usr/bin/env python3
"""Builds a text-alignment evaluation corpus in PAN's layout from real documents.

    scripts/eval/pan-eval-build.py DOCS.jsonl OUT [--pairs 100] [--seed 1] [--script latin|cjk]

DOCS.jsonl holds one {"id": ..., "text": ...} per line (the Debian corpus of
scripts/corpus/build.sh, or bindings/python/tests/data/debian-copyright.jsonl).
Each pair is a host document (the suspicious one) and an unrelated source
document (they share no word 5-gram before anything is inserted); one to
three passages of 40 to 300 words of the source are inserted into the host,
at line breaks and in an order of their own, after one obfuscation:

  01-no-plagiarism    nothing inserted (every detection is a false positive)
  02-no-obfuscation   the source's text verbatim
  03-shuffle          each word moved up to --shuffle-window places (a sort by
                      position + uniform(0, window))
  04-replacement      each word replaced, with probability --replace, by a word
                      (a run of letters) drawn from 200 of the documents
  05-deletion         each word deleted with probability --delete
  06-mixed            all three at once, at half those rates

Obfuscated passages are their words joined by single spaces. With
`--script cjk` the documents are Chinese and Japanese (most of their letters
ideographs or kana), a "word" is one such character (or a run of other
non-space characters), passages are 80 to 600 of them (a Chinese or Japanese
word is about two characters), replacements are characters drawn from the
documents, and obfuscated passages are joined without spaces between CJK
characters, as such text is written. Written:
OUT/susp/suspicious-documentNNNNN.txt, OUT/src/source-documentNNNNN.txt,
OUT/pairs ("SUSP SRC" per line), OUT/CATEGORY/SUSP-SRC.xml (the truth:
`feature name="plagiarism"` with this_/source_ offsets and lengths in
characters, as PAN's corpora have them) and OUT/meta.json (the settings).
Files are UTF-8 with "\\n" line ends, so character offsets are the same for
Python's str, PAN's evaluator and priorart.
"""

import argparse
import json
import os
import random
import re
import sys
from xml.sax.saxutils import quoteattr

WORD = re.compile(r"\S+")
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_CHARACTER = re.compile(f"[{CJK}]")
# A CJK character, or a run of other non-space characters.
CJK_WORD = re.compile(f"[{CJK}]|[^\\s{CJK}]+")
LOWER_WORDS = re.compile(r"\w+")
# Replacement words: runs of letters (not paths or code, which would insert
# many words for one).
LETTERS = re.compile(r"\b[^\W\d_]{2,}\b")
ENGLISH_HINTS = {"the", "and", "of", "to", "is", "in", "for", "that", "with", "this", "be", "are", "it", "on"}
CATEGORIES = ["01-no-plagiarism", "02-no-obfuscation", "03-shuffle", "04-replacement", "05-deletion", "06-mixed"]


def english_enough(text):
    words = LOWER_WORDS.findall(text[:20000].lower())
    return len(words) >= 300 and sum(word in ENGLISH_HINTS for word in words) / len(words) >= 0.12


def cjk_enough(text):
    return len(CJK_CHARACTER.findall(text)) >= 0.3 * len(text)


class Script:
    """What a word is, for one kind of text."""

    def __init__(self, name):
        self.cjk = name == "cjk"
        self.word = CJK_WORD if self.cjk else WORD
        self.usable = cjk_enough if self.cjk else english_enough
        self.lengths = (80, 600) if self.cjk else (40, 300)

    def words(self, text):
        return self.word.findall(text)

    def join(self, words):
        if not self.cjk:
            return " ".join(words)
        out = []
        for word in words:
            if out and not (CJK_CHARACTER.fullmatch(word) and CJK_CHARACTER.fullmatch(out[-1])):
                out.append(" ")
            out.append(word)
        return "".join(out)

    def five_grams(self, text):
        if self.cjk:
            characters = CJK_CHARACTER.findall(text)
            return {tuple(characters[i : i + 5]) for i in range(len(characters) - 4)}
        return five_grams(text)

    def vocabulary(self, documents):
        pattern = CJK_CHARACTER if self.cjk else LETTERS
        return sorted({w for text in documents[:200] for w in pattern.findall(text)})


def load_documents(path, limit, rng, min_chars, max_chars, usable):
    """A uniform sample (reservoir) of at most `limit` usable documents
    (English ones, or Chinese and Japanese ones) of a usable length, with
    line ends made "\\n"."""
    sample, seen = [], 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            text = json.loads(line)["text"].replace("\r\n", "\n").replace("\r", "\n")
            if not (min_chars <= len(text) <= max_chars) or not usable(text):
                continue
            seen += 1
            if len(sample) < limit:
                sample.append(text)
            else:
                slot = rng.randrange(seen)
                if slot < limit:
                    sample[slot] = text
    return sample


def five_grams(text):
    words = LOWER_WORDS.findall(text.lower())
    return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}


def shuffle(words, rng, window):
    keyed = sorted(range(len(words)), key=lambda i: i + rng.uniform(0, window))
    return [words[i] for i in keyed]


def replace(words, rng, probability, vocabulary):
    return [rng.choice(vocabulary) if rng.random() < probability else word for word in words]


def delete(words, rng, probability):
    kept = [word for word in words if rng.random() >= probability]
    return kept or words[:1]


def obfuscate(category, passage, rng, settings, vocabulary, script):
    if category == "02-no-obfuscation":
        return passage
    words = script.words(passage)
    if category == "03-shuffle":
        words = shuffle(words, rng, settings.shuffle_window)
    elif category == "04-replacement":
        words = replace(words, rng, settings.replace, vocabulary)
    elif category == "05-deletion":
        words = delete(words, rng, settings.delete)
    elif category == "06-mixed":
        words = shuffle(words, rng, settings.shuffle_window / 2)
        words = replace(words, rng, settings.replace / 2, vocabulary)
        words = delete(words, rng, settings.delete / 2)
    return script.join(words)


def repeated_words(spans, source):
    """For each word of the source (by `spans`), whether a word 8-gram
    starting there occurs more than once in the source."""
    words = [source[start:end].lower() for start, end in spans]
    grams = [tuple(words[i : i + 8]) for i in range(len(words))]
    counts = {}
    for gram in grams:
        counts[gram] = counts.get(gram, 0) + 1
    return [counts[gram] > 1 for gram in grams]


def pick_passages(source, rng, count, script):
    """Up to `count` disjoint word ranges of the source, as (start, end)
    character offsets, each 40 to 300 words long (80 to 600 characters of
    CJK), whose text does not occur elsewhere in the source (no word 8-gram
    of it repeats there): a detector that finds the other copy would be
    right, yet scored wrong."""
    spans = [m.span() for m in script.word.finditer(source)]
    repeated = repeated_words(spans, source)
    chosen, taken = [], []
    shortest, longest = script.lengths
    if len(spans) // 2 < shortest:
        return chosen
    for _ in range(count * 10):
        if len(chosen) == count:
            break
        length = rng.randint(shortest, min(longest, len(spans) // 2))
        first = rng.randrange(0, len(spans) - length)
        last = first + length - 1
        if any(first <= t_last and t_first <= last for t_first, t_last in taken) or any(repeated[first : last + 1]):
            continue
        taken.append((first, last))
        chosen.append((spans[first][0], spans[last][1]))
    return chosen


def insert(host, passages, rng):
    """The host with `passages` (texts) inserted at distinct line breaks in
    the order given; returns the text and each passage's (offset, length)."""
    breaks = [m.end() for m in re.finditer("\n", host)] or [len(host)]
    points = sorted(rng.sample(breaks, min(len(passages), len(breaks))))
    while len(points) < len(passages):
        points.append(len(host))
    text, at, where = [], 0, []
    length = 0
    for point, passage in zip(points, passages):
        piece = host[at:point]
        text.append(piece)
        length += len(piece)
        if not piece.endswith("\n"):
            text.append("\n")
            length += 1
        where.append((length, len(passage)))
        text.append(passage + "\n")
        length += len(passage) + 1
        at = point
    text.append(host[at:])
    return "".join(text), where


def truth_xml(susp, src, cases, category):
    lines = [f'<?xml version="1.0" encoding="UTF-8"?>\n<document reference={quoteattr(susp)}>']
    for (this_offset, this_length), (source_offset, source_length) in cases:
        lines.append(
            f'<feature name="plagiarism" type="artificial" obfuscation="{category[3:]}" '
            f'this_offset="{this_offset}" this_length="{this_length}" source_reference={quoteattr(src)} '
            f'source_offset="{source_offset}" source_length="{source_length}"/>'
        )
    lines.append("</document>\n")
    return "\n".join(lines)


def write(path, text):
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs")
    parser.add_argument("out")
    parser.add_argument("--pairs", type=int, default=100, help="pairs per category (default 100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shuffle-window", type=float, default=4.0)
    parser.add_argument("--replace", type=float, default=0.2)
    parser.add_argument("--delete", type=float, default=0.2)
    parser.add_argument("--min-chars", type=int, default=3000)
    parser.add_argument("--max-chars", type=int, default=40000)
    parser.add_argument("--script", choices=["latin", "cjk"], default="latin",
                        help="English documents (words between spaces) or Chinese and Japanese ones")
    settings = parser.parse_args()
    script = Script(settings.script)
    rng = random.Random(settings.seed)
    needed = 2 * settings.pairs * len(CATEGORIES)
    documents = load_documents(
        settings.docs, max(needed * 2, 400), rng, settings.min_chars, settings.max_chars, script.usable
    )
    if len(documents) < 4:
        sys.exit(f"{settings.docs}: only {len(documents)} usable documents")
    vocabulary = script.vocabulary(documents)
    for directory in ["susp", "src"] + CATEGORIES:
        os.makedirs(os.path.join(settings.out, directory), exist_ok=True)
    pairs, number, skipped = [], 0, 0
    for category in CATEGORIES:
        made = 0
        while made < settings.pairs:
            host, source = rng.sample(documents, 2)
            if script.five_grams(host) & script.five_grams(source):
                skipped += 1
                if skipped > 100 * needed:
                    sys.exit("too few unrelated documents")
                continue
            number += 1
            made += 1
            susp, src = f"suspicious-document{number:05}.txt", f"source-document{number:05}.txt"
            cases = []
            if category == "01-no-plagiarism":
                suspicious = host
            else:
                spans = pick_passages(source, rng, rng.randint(1, 3), script)
                if not spans:
                    number -= 1
                    made -= 1
                    continue
                rng.shuffle(spans)
                texts = [
                    obfuscate(category, source[start:end], rng, settings, vocabulary, script) for start, end in spans
                ]
                suspicious, where = insert(host, texts, rng)
                cases = [(w, (start, end - start)) for w, (start, end) in zip(where, spans)]
            write(os.path.join(settings.out, "susp", susp), suspicious)
            write(os.path.join(settings.out, "src", src), source)
            write(os.path.join(settings.out, category, f"{susp[:-4]}-{src[:-4]}.xml"), truth_xml(susp, src, cases, category))
            pairs.append(f"{susp} {src}")
    write(os.path.join(settings.out, "pairs"), "\n".join(pairs) + "\n")
    meta = {k: v for k, v in vars(settings).items()}
    meta.update(documents_sampled=len(documents), pairs_total=len(pairs), related_pairs_skipped=skipped)
    write(os.path.join(settings.out, "meta.json"), json.dumps(meta, indent=2) + "\n")
    print(f"{settings.out}: {len(pairs)} pairs from {len(documents)} documents ({skipped} related pairs skipped)")


if __name__ == "__main__":
    main()
