#!/usr/bin/env python3
"""Near-duplicate quality and speed of `priorart dedup` against a ground truth
and peers, in one run, on the Debian corpus (scripts/corpus/build.sh).

Ground truth: pairs whose word 5-gram Jaccard (J5) is at least 0.8, words being
lowercased `\\w+` runs; candidates from datasketch MinHashLSH at threshold 0.5
(128 permutations), then exact J5 (as in issue 14); cached beside the corpus as
truth-j5-0.8.json. Peers: datasketch MinHashLSH, rensa RMinHashLSH and gaoya
MinHashStringIndex at threshold 0.8, their candidates taken as the answer (how
they are commonly used), timed from text to pairs. priorart: `priorart dedup`
end to end (reading JSONL, fingerprints, candidates, verification, clusters),
timed as a user runs it, with each candidate generator (`--candidates simhash`
at k = 3 and 6, `--candidates minhash`) and each shingling of its verification
(`--shingles tokens`, simhash-doc's tokens; `--shingles words`, the ground
truth's words).

  scripts/eval/dedup-quality.py [CORPUS_DIR] [PRIORART_BINARY]

Installs the peers into a virtualenv beside the corpus on first use.
"""
import json, os, subprocess, sys, tempfile, time

corpus = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PRIORART_CORPUS", "/tmp/priorart-corpus")
binary = sys.argv[2] if len(sys.argv) > 2 else "target/release/priorart"
venv = os.path.join(corpus, "bench-venv")
# The peers, pinned: MinHash LSH in Python (datasketch) and in Rust with
# Python bindings (rensa, gaoya).
PEERS = ["datasketch==1.6.5", "rensa==0.5.0", "gaoya==0.2.2"]
if not os.path.exists(os.path.join(venv, "bin", "python")) or not os.path.exists(os.path.join(venv, "peers-3")):
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet", *PEERS, "numpy"], check=True)
    open(os.path.join(venv, "peers-3"), "w").close()
if sys.prefix != venv:
    os.execv(os.path.join(venv, "bin", "python"), [os.path.join(venv, "bin", "python")] + sys.argv)

from datasketch import MinHash, MinHashLSH  # noqa: E402

# The word 5-grams of lowercased `\w+` words and their Jaccard: the one
# reference copy, which crates/fingerprint/tests/word_shingles_peer.rs holds
# the Rust shingles to.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "fingerprint", "tests", "peer"))
from word_shingles import jaccard, shingles  # noqa: E402

def minhashes(sets):
    hashes = []
    for s in sets:
        m = MinHash(num_perm=128, seed=1)
        m.update_batch([shingle.encode() for shingle in s])
        hashes.append(m)
    return hashes

def lsh_pairs(hashes, threshold):
    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    pairs = set()
    for i, m in enumerate(hashes):
        for j in lsh.query(m):
            pairs.add((j, i))
        lsh.insert(i, m)
    return pairs

docs = [json.loads(line) for line in open(os.path.join(corpus, "docs.jsonl"))]
ids = [str(d["id"]) for d in docs]
index = {id_: i for i, id_ in enumerate(ids)}
sets = [shingles(d["text"]) for d in docs]
truth_path = os.path.join(corpus, "truth-j5-0.8.json")
if os.path.exists(truth_path):
    truth = {tuple(p) for p in json.load(open(truth_path))}
else:
    candidates = lsh_pairs(minhashes(sets), 0.5)
    truth = {(a, b) for a, b in candidates if jaccard(sets[a], sets[b]) >= 0.8}
    json.dump(sorted(truth), open(truth_path, "w"))

def score(name, pairs, seconds):
    found = len(pairs & truth)
    recall = found / len(truth) if truth else 1.0
    precision = found / len(pairs) if pairs else 1.0
    print(f"| {name} | {len(pairs):,} | {recall:.3f} | {precision:.3f} | {seconds:.1f} |")

print(f"{len(docs):,} documents, {len(truth):,} ground-truth pairs (J5 >= 0.8)\n")
print("| tool | pairs | recall | precision | wall s |")
print("|---|---:|---:|---:|---:|")
start = time.time()
texts = [d["text"] for d in docs]
peer = lsh_pairs(minhashes([shingles(t) for t in texts]), 0.8)
score("datasketch MinHashLSH t=0.8, 128 perm (unverified)", peer, time.time() - start)

def rensa_pairs(texts):
    from rensa import RMinHash, RMinHashLSH
    lsh = RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16)
    pairs = set()
    for i, text in enumerate(texts):
        m = RMinHash(num_perm=128, seed=1)
        m.update(list(shingles(text)))
        for j in lsh.query(m):
            pairs.add((j, i))
        lsh.insert(i, m)
    return pairs

start = time.time()
score("rensa RMinHashLSH t=0.8, 128 perm, 16 bands (unverified)", rensa_pairs(texts), time.time() - start)

def gaoya_pairs(texts):
    # Word 5-grams of lowercased words, as the ground truth; both cores (par_bulk_*).
    from gaoya.minhash import MinHashStringIndex
    index = MinHashStringIndex(hash_size=32, jaccard_threshold=0.8, num_bands=16, band_size=8,
                               analyzer="word", lowercase=True, ngram_range=(5, 5))
    index.par_bulk_insert_docs(list(range(len(texts))), texts)
    pairs = set()
    for i, found in enumerate(index.par_bulk_query(texts)):
        pairs.update((min(i, j), max(i, j)) for j in found if j != i)
    return pairs

start = time.time()
score("gaoya MinHashStringIndex t=0.8, 16x8 (both cores)", gaoya_pairs(texts), time.time() - start)

def priorart(extra):
    with tempfile.TemporaryDirectory() as out:
        start = time.time()
        subprocess.run([binary, "dedup", "--jsonl", "--id-field", "id", "--out", out, *extra,
                        os.path.join(corpus, "docs.jsonl")], check=True, stderr=subprocess.DEVNULL)
        seconds = time.time() - start
        pairs = set()
        for line in open(os.path.join(out, "pairs.jsonl")):
            p = json.loads(line)
            a, b = index[p["a"]], index[p["b"]]
            pairs.add((min(a, b), max(a, b)))
        return pairs, seconds

for k in (3, 6):
    pairs, seconds = priorart(["--candidates", "simhash", "-k", str(k), "--min-jaccard", "0"])
    score(f"simhash-doc within k={k} alone (priorart dedup --min-jaccard 0)", pairs, seconds)
    # Both shinglings of the verification: simhash-doc's tokens (numbers and
    # identifiers dropped) and lowercased \w+ words (the ground truth's).
    for shingles in ("tokens", "words"):
        pairs, seconds = priorart(["--candidates", "simhash", "-k", str(k), "--shingles", shingles])
        score(f"priorart dedup --candidates simhash -k {k} --shingles {shingles} (verified, --min-jaccard 0.8)",
              pairs, seconds)
# MinHash LSH candidates over the verification's own word 5-grams (the
# default): bands and rows chosen for --min-jaccard 0.8.
for shingles in ("tokens", "words"):
    pairs, seconds = priorart(["--candidates", "minhash", "--shingles", shingles])
    score(f"priorart dedup --candidates minhash --shingles {shingles} (verified, --min-jaccard 0.8)",
          pairs, seconds)
