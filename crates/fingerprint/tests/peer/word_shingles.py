"""Word 5-grams of lowercased `\\w+` words, as the usual dedup tools define
them: the one Python copy, which the measurement scripts import (scripts/eval,
scripts/bench/fuzzy.py) and tests/word_shingles_peer.rs holds the Rust
shingles to. Run as a script: for each pair of texts on stdin (a JSON list of
[a, b]), the shingle counts of both and their Jaccard similarity."""
import json, re, sys, unicodedata

WORD = re.compile(r"\w+")

def shingles(text):
    words = WORD.findall(text.lower())
    if len(words) < 5:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i:i + 5]) for i in range(len(words) - 4)}

def jaccard(a, b):
    return len(a & b) / len(a | b) if a or b else 1.0

if __name__ == "__main__":
    answers = []
    for a, b in json.load(sys.stdin):
        sa, sb = shingles(a), shingles(b)
        answers.append([len(sa), len(sb), jaccard(sa, sb)])
    json.dump({"unicode": unicodedata.unidata_version, "answers": answers}, sys.stdout)
