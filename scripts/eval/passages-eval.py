#!/usr/bin/env python3
"""Partial copies planted in real documents, and how well `priorart dedup
--passages` finds them (BENCHMARKS.md, issue 33).

    scripts/eval/passages-eval.py --priorart BIN --work DIR [--documents N] [--cases N] [--seed S]
                             [--dedup-args "..."] [--baseline] [--text-matcher]

Build: a uniform sample of --documents documents of the Debian corpus
($PRIORART_CORPUS/docs.jsonl, default /tmp/priorart-corpus; a family is the
id before `:`). --cases of them are hosts: each gets one passage of 60 to
300 words of a source document of another family, pasted at a line break;
half the passages verbatim ("exact"), half with 10 % of their words
replaced by random corpus words ("replaced"). No document is both a host
and a source, nor used twice. Passages whose text occurs elsewhere in the
source (a repeated word 8-gram) or in any other document of the sample (a
shared word 8-gram: licenses, translators' credits, templates) are not
picked. Writes DIR/docs.jsonl
({"id", "text"}) and DIR/truth.jsonl (one case per line: host, source,
their character offsets and lengths, kind).

Run: `BIN dedup --passages --jsonl DIR/docs.jsonl --id-field id --out
DIR/out` under /usr/bin/time -v (wall time, peak RSS), and with
--baseline `BIN dedup` (whole-text near duplicates) on the same file, for
the time ratio.

Score:
- pair recall: planted (host, source) pairs reported, over all cases, and
  per kind;
- pair precision: reported pairs that genuinely share a passage, over all
  reported: a planted pair, or a pair one of whose reported passages is
  confirmed independently (the two sides cut from the documents at their
  reported character offsets; difflib.SequenceMatcher on their
  lowercased words: matching blocks of 4 words or more cover at least half
  of the shorter side and at least 25 words; a letter of a script written
  without spaces is a token of its own, two counting one word, as priorart
  counts them);
- PAN's character measures (scripts/eval/pan-eval.py's code: macro recall,
  precision, granularity, plagdet) of the planted cases against the
  passages reported for the planted pairs (host side as PAN's suspicious
  document, source side as its source).

--text-matcher also runs the PyPI text-matcher (Reeve's text-reuse
matcher; run this script with a Python that has it) on every planted
pair and scores it the same way.
"""

import argparse
import difflib
import json
import os
import random
import re
import shlex
import subprocess
import sys
import time
from collections import defaultdict

from evalscripts import load_script
WORD = re.compile(r"\w+")




PAN = load_script("pan-eval")
BUILD = load_script("pan-eval-build")


def sample_documents(path, limit, rng):
    """A uniform sample (reservoir) of `limit` documents of 150 words or more."""
    sample, seen = [], 0
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            text = record["text"]
            if len(text) < 900 or len(WORD.findall(text[:4000])) < 150:
                continue
            seen += 1
            if len(sample) < limit:
                sample.append((record["id"], text))
            else:
                slot = rng.randrange(seen)
                if slot < limit:
                    sample[slot] = (record["id"], text)
    sample.sort()
    return sample


def family(document_id):
    return document_id.split(":", 1)[0]


def pick_passage(source, rng):
    """(start, end) character offsets of 60 to 300 words of `source` whose
    text does not repeat in it, or None."""
    spans = [m.span() for m in WORD.finditer(source)]
    if len(spans) < 120:
        return None
    repeated = BUILD.repeated_words(spans, source)
    for _ in range(20):
        length = rng.randint(60, min(300, len(spans) - 1))
        first = rng.randrange(0, len(spans) - length + 1)
        last = first + length - 1
        if not any(repeated[first : last + 1]):
            return spans[first][0], spans[last][1]
    return None


def eight_grams(text):
    words = WORD.findall(text.lower())
    return {hash(tuple(words[i : i + 8])) for i in range(len(words) - 7)}


def unique_passages(texts, proposals):
    """The proposals whose passage shares no word 8-gram with any document
    but its source: a passage that is also elsewhere (a license, a
    translation's credits, a template) would be rightly reported with the
    other documents, and its planted pair rightly set apart as
    boilerplate, yet scored as missed."""
    wanted = {}
    for number, (_, source, start, end) in enumerate(proposals):
        for gram in eight_grams(texts[source][start:end]):
            wanted.setdefault(gram, set()).add(number)
    holders = defaultdict(int)
    for text in texts.values():
        for gram in eight_grams(text) & wanted.keys():
            holders[gram] += 1
    common = {number for gram, count in holders.items() if count > 1 for number in wanted[gram]}
    return [proposal for number, proposal in enumerate(proposals) if number not in common]


def build(args, rng):
    corpus = os.path.join(os.environ.get("PRIORART_CORPUS", "/tmp/priorart-corpus"), "docs.jsonl")
    documents = sample_documents(corpus, args.documents, rng)
    vocabulary = [w for _, text in rng.sample(documents, min(len(documents), 500)) for w in BUILD.LETTERS.findall(text[:3000])]
    texts = dict(documents)
    ids = [document_id for document_id, _ in documents]
    order = ids[:]
    rng.shuffle(order)
    # Four times the cases proposed, each document in one at most; those whose
    # passage is elsewhere in the corpus dropped; the first --cases kept.
    used, proposals = set(), []
    for host in order:
        if len(proposals) == 4 * args.cases:
            break
        if host in used:
            continue
        for _ in range(50):
            source = rng.choice(ids)
            if source in used or source == host or family(source) == family(host):
                continue
            picked = pick_passage(texts[source], rng)
            if picked is None:
                continue
            used.update((host, source))
            proposals.append((host, source, picked[0], picked[1]))
            break
    cases = []
    for host, source, start, end in unique_passages(texts, proposals)[: args.cases]:
        kind = "exact" if len(cases) % 2 == 0 else "replaced"
        passage = texts[source][start:end]
        if kind == "replaced":
            passage = " ".join(BUILD.replace(passage.split(), rng, 0.1, vocabulary))
        text, [(offset, length)] = BUILD.insert(texts[host], [passage], rng)
        texts[host] = text
        cases.append(
            {
                "host": host,
                "source": source,
                "kind": kind,
                "host_offset": offset,
                "host_length": length,
                "source_offset": start,
                "source_length": end - start,
                "words": len(WORD.findall(passage)),
            }
        )
    os.makedirs(args.work, exist_ok=True)
    with open(os.path.join(args.work, "docs.jsonl"), "w", encoding="utf-8") as out:
        for document_id in ids:
            out.write(json.dumps({"id": document_id, "text": texts[document_id]}, ensure_ascii=False) + "\n")
    with open(os.path.join(args.work, "truth.jsonl"), "w", encoding="utf-8") as out:
        for case in cases:
            out.write(json.dumps(case) + "\n")
    return texts, cases


def timed(command, log):
    """Runs `command` under /usr/bin/time -v: (seconds, peak RSS in KiB)."""
    started = time.time()
    with open(log, "w") as err:
        code = subprocess.call(["/usr/bin/time", "-v"] + command, stderr=err, stdout=subprocess.DEVNULL)
    seconds = time.time() - started
    text = open(log).read()
    if code != 0:
        sys.exit(f"{shlex.join(command)} failed ({code}), see {log}:\n{text[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    return seconds, rss


def confirmed(a_text, b_text):
    """Whether two passage sides genuinely share text (difflib on their
    words, counted as priorart counts them: see CONFIRM_WORD)."""
    a, b = CONFIRM_WORD.findall(a_text.lower()), CONFIRM_WORD.findall(b_text.lower())
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    blocks = [a[block.a : block.a + block.size] for block in matcher.get_matching_blocks()]
    matched = sum(words(block) for block in blocks if words(block) >= 4)
    return matched >= 25 and 2 * matched >= min(words(a), words(b))


# A letter of a script written without spaces (Chinese, Japanese, Thai), or
# a run of other word characters. As in priorart's word count, two such
# letters count one word: split at `\w+`, a Japanese clause is one "word",
# and no Japanese passage could ever be confirmed.
UNSPACED = BUILD.CJK + "\u0e00-\u0e7f"
CONFIRM_WORD = re.compile(f"[{UNSPACED}]|[^\\W{UNSPACED}]+")
UNSPACED_LETTER = re.compile(f"[{UNSPACED}]")


def words(tokens):
    """The words `tokens` (CONFIRM_WORD's) make: two unspaced letters one."""
    unspaced = sum(1 for token in tokens if UNSPACED_LETTER.fullmatch(token))
    return len(tokens) - unspaced + unspaced / 2


def score(found_pairs, cases, texts):
    """Pair recall (all, per kind), precision (each side's text cut from
    the documents `texts` at its character offsets), and PAN measures."""
    planted = {}
    for case in cases:
        planted[frozenset((case["host"], case["source"]))] = case
    reported = {}
    for line in found_pairs:
        reported[frozenset((line["a"], line["b"]))] = line
    recall_by_kind = defaultdict(lambda: [0, 0])
    for key, case in planted.items():
        recall_by_kind[case["kind"]][1] += 1
        recall_by_kind[case["kind"]][0] += key in reported
    right = 0
    unplanted_right = unplanted = 0
    for key, line in reported.items():
        if key in planted:
            right += 1
            continue
        unplanted += 1
        def side(document, at):
            return texts[document][at["char_offset"]:at["char_offset"] + at["char_length"]]

        if any(confirmed(side(line["a"], p["a"]), side(line["b"], p["b"])) for p in line["passages"]):
            right += 1
            unplanted_right += 1
    truth, detections = [], []
    for key, case in planted.items():
        truth.append(
            PAN.Annotation(case["host"], case["host_offset"], case["host_length"], case["source"], case["source_offset"], case["source_length"])
        )
        line = reported.get(key)
        if line is None:
            continue
        host_is_a = line["a"] == case["host"]
        for passage in line["passages"]:
            host, source = (passage["a"], passage["b"]) if host_is_a else (passage["b"], passage["a"])
            detections.append(
                PAN.Annotation(case["host"], host["char_offset"], host["char_length"], case["source"], source["char_offset"], source["char_length"])
            )
    found = sum(count for count, _ in recall_by_kind.values())
    return {
        "cases": len(planted),
        "pair_recall": found / len(planted) if planted else 1.0,
        "pair_recall_by_kind": {kind: count / total for kind, (count, total) in sorted(recall_by_kind.items())},
        "reported_pairs": len(reported),
        "pair_precision": right / len(reported) if reported else 1.0,
        "unplanted_pairs": unplanted,
        "unplanted_confirmed": unplanted_right,
        "pan": PAN.measures(truth, detections),
    }


def run_text_matcher(texts, cases):
    """text-matcher (PyPI, its command's defaults: trigrams, threshold 3,
    cutoff 5; stopwords kept, as NLTK's list needs a separate download) on
    every planted pair, host first: its detections scored like ours. It
    compares two texts at a time, so it is given the planted pairs only:
    its pair precision says nothing, its recall and PAN measures do."""
    try:
        from text_matcher.matcher import Matcher, Text
    except ImportError:
        return {"error": "text-matcher is not installed (pip install text-matcher; run this script with that Python)"}
    import contextlib
    import io

    found = []
    started = time.time()
    for case in cases:
        host, source = texts[case["host"]], texts[case["source"]]
        with contextlib.redirect_stdout(io.StringIO()):
            matcher = Matcher(Text(host, case["host"], removeStopwords=False), Text(source, case["source"], removeStopwords=False), removeStopwords=False)
            matcher.match()
        passages = []
        for (a_start, a_end), (b_start, b_end) in zip(matcher.locationsA, matcher.locationsB):
            passages.append(
                {
                    "a": {"char_offset": a_start, "char_length": a_end - a_start},
                    "b": {"char_offset": b_start, "char_length": b_end - b_start},
                }
            )
        if passages:
            found.append({"a": case["host"], "b": case["source"], "passages": passages})
    result = score(found, cases, texts)
    result["seconds"] = round(time.time() - started, 2)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--priorart", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--documents", type=int, default=6000)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dedup-args", default="", help="more arguments for dedup --passages")
    parser.add_argument("--baseline", action="store_true", help="also time priorart dedup on the same file")
    parser.add_argument("--text-matcher", action="store_true", help="also score the PyPI text-matcher")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    texts, cases = build(args, rng)
    docs = os.path.join(args.work, "docs.jsonl")
    out = os.path.join(args.work, "out")
    command = [args.priorart, "dedup", "--passages", "--jsonl", docs, "--id-field", "id", "--out", out]
    command += shlex.split(args.dedup_args)
    seconds, rss = timed(command, os.path.join(args.work, "passages.time"))
    with open(os.path.join(out, "passages.jsonl"), encoding="utf-8") as lines:
        found = [json.loads(line) for line in lines]
    with open(os.path.join(out, "boilerplate.jsonl"), encoding="utf-8") as lines:
        boilerplate = sum(1 for _ in lines)
    result = {
        "documents": len(texts),
        "bytes": os.path.getsize(docs),
        "command": shlex.join(command),
        "seconds": round(seconds, 2),
        "peak_rss_mib": round(rss / 1024, 1),
        "boilerplate_passages": boilerplate,
    }
    result.update(score(found, cases, texts))
    if args.baseline:
        base = [args.priorart, "dedup", "--jsonl", docs, "--id-field", "id", "--out", os.path.join(args.work, "dedup-out")]
        base_seconds, base_rss = timed(base, os.path.join(args.work, "dedup.time"))
        result["dedup"] = {"command": shlex.join(base), "seconds": round(base_seconds, 2), "peak_rss_mib": round(base_rss / 1024, 1)}
        result["time_ratio"] = round(seconds / base_seconds, 2)
    if args.text_matcher:
        result["text_matcher"] = run_text_matcher(texts, cases)
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
