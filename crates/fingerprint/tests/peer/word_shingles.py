"""Word 5-grams of lowercased `\\w+` words, as scripts/dedup-quality.py and
the usual dedup tools define them: for each pair of texts on stdin (a JSON
list of [a, b]), the shingle counts of both and their Jaccard similarity."""
import json, re, sys, unicodedata

WORD = re.compile(r"\w+")

def shingles(text):
    words = WORD.findall(text.lower())
    if len(words) < 5:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i:i + 5]) for i in range(len(words) - 4)}

answers = []
for a, b in json.load(sys.stdin):
    sa, sb = shingles(a), shingles(b)
    union = len(sa | sb)
    answers.append([len(sa), len(sb), len(sa & sb) / union if union else 1.0])
json.dump({"unicode": unicodedata.unidata_version, "answers": answers}, sys.stdout)
