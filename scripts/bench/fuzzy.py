#!/usr/bin/env python3
"""Fuzzy discovery (docs/nip-ff-3-fuzzy.md) end to end on the Debian corpus:
recall and precision of `priorart check --fuzzy` on edited copies, and its cost.

1. Every corpus document of at most MAX_TEXT_BYTES becomes a kind 1 note
   (`priorart event`, with its B tags by default) published to a fresh local
   `priorart relay` (`priorart publish`): the originals and the distractors.
2. SAMPLE originals of more than 100 words are drawn (seeded). Each gets two
   copies, never published: one with the footer line "Posted by someone. All
   rights reserved." and one with 5% of its words (whitespace-separated; at
   least one) replaced by words drawn from the whole corpus.
3. `priorart check COPY --fuzzy --min-jaccard 0 --json` runs on every copy.
   With --min-jaccard 0 the report lists every candidate within k = 6 bits
   with its Jaccard; the script applies each threshold J (a near copy is
   reported at J when jaccard >= J, exactly `check`'s own filter), so one run
   gives the whole table; J = 0.5, k = 6 is what `check --fuzzy` reports by
   default.

Recall: the copy's original is found, by its X (the exact-X content events)
or as a near copy at (k, J). Precision, of the near copies reported at (k, J),
in two columns. "Verifies": the share whose word 5-gram Jaccard with the
checked text (the copy) is at least J, recomputed here (or that are the
original): whether what `check` reports is a near copy by the usual definition
at the threshold it was asked for. "The original or J >= 0.8 with it", a
stricter question (was this the document that was copied?): a reported
document is right when it is the original itself, or when its word 5-gram
Jaccard with the original is at least 0.8 (the corpus holds genuine near-duplicates: Handbook language editions left
partly untranslated, man-page families; a copy of one is a copy of the other).
That Jaccard is computed here in Python on lower-cased `\\w+` words (as
scripts/eval/dedup-quality.py builds its ground truth), independently of priorart's
tokens.

Cost: the bytes the B tags add to each published event (their JSON), and the
size of the key REQ, `["REQ","fuzzy",{"kinds":[...],"#B":[28 keys]}]`
(compact JSON, built from the copy's own keys as `priorart event` tags them);
candidates per lookup (content events returned for the keys), and the wall
time of one `check` (three REQs, to one relay on 127.0.0.1).

  scripts/bench/fuzzy.py [--only PREFIXES] [--edit words|auto] [CORPUS_DIR] [PRIORART_BINARY] [SAMPLE] [PUBLISHED]

PUBLISHED (default: every document) publishes only that many corpus documents,
the SAMPLE originals and distractors drawn at random (seeded), for a quicker run.

--only PREFIXES (comma-separated) keeps only the corpus documents whose id
starts with one of them, published and sampled alike: e.g. Japanese notes,
`--only man:ja,handbook:ja-JP,kernel:translations/ja_JP` (issue 32).
--edit auto makes the second copy of a document written mostly without spaces
(Chinese, Japanese, Thai: those characters at least 0.3 of its letters) by
replacing 2.5% of those characters (at least one) by characters of the same
class (Han, hiragana, katakana, Thai) drawn from the published documents, and
samples such documents when they have at least 200 of those characters; a
whitespace word there is a whole clause, so "5% of the words" would be a much
heavier edit. For such texts the Jaccard of the precision columns is computed
on character 5-grams (lower-cased, every run of non-word characters one space)
instead of word 5-grams, for the same reason. The default, --edit words,
replaces words in every document, as before.
"""
import base64, itertools, json, os, random, re, shutil, statistics, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

# The word 5-grams of lowercased `\w+` words and their Jaccard: the one
# reference copy, which crates/fingerprint/tests/word_shingles_peer.rs holds
# the Rust shingles to.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "fingerprint", "tests", "peer"))
from word_shingles import jaccard, shingles as word_shingles  # noqa: E402


def take_option(argv, name):
    """Remove `name VALUE` or `name=VALUE` from argv; return VALUE, or None."""
    for i, arg in enumerate(argv):
        if arg.startswith(name + "="):
            del argv[i]
            return arg[len(name) + 1:]
        if arg == name and i + 1 < len(argv):
            value = argv[i + 1]
            del argv[i:i + 2]
            return value
    return None


argv = sys.argv[1:]
only = take_option(argv, "--only")
edit_mode = take_option(argv, "--edit") or "words"
if edit_mode not in ("words", "auto"):
    sys.exit("--edit is words or auto")
corpus = argv[0] if len(argv) > 0 else os.environ.get("PRIORART_CORPUS", "/tmp/priorart-corpus")
binary = os.path.abspath(argv[1] if len(argv) > 1 else "target/release/priorart")
sample_size = int(argv[2]) if len(argv) > 2 else 1000
# How many corpus documents are published (the originals among them); default all.
published_size = int(argv[3]) if len(argv) > 3 else None
MAX_TEXT_BYTES = 400_000  # an event's JSON must stay under the relay's 512 KiB
FOOTER = "\n\nPosted by someone. All rights reserved."
WORKERS = 2
KS = [3, 4, 5, 6]
JS = [0.3, 0.4, 0.5, 0.6, 0.7]
# --edit auto: characters of scripts written without spaces, by class (a replacement keeps the class).
UNSPACED = {"han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f", "hiragana": "\u3041-\u309f",
            "katakana": "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f", "thai": "\u0e01-\u0e5b"}
UNSPACED_RE = {name: re.compile(f"[{chars}]") for name, chars in UNSPACED.items()}
ANY_UNSPACED = re.compile("[" + "".join(UNSPACED.values()) + "]")
LETTER = re.compile(r"[^\W\d_]")
CHAR_RATE = 0.025
REPLACED = "5% words" if edit_mode == "words" else "5% words or 2.5% chars"


def shingles(text):
    return char_shingles(text) if unspaced(text) else word_shingles(text)


def char_shingles(text):
    """Character 5-grams of the lower-cased text, every run of non-word characters one space (--edit auto,
    for texts mostly of an unspaced script, where a `\\w+` word is a whole clause)."""
    norm = re.sub(r"[\W_]+", " ", text.lower()).strip()
    return {norm[i:i + 5] for i in range(len(norm) - 4)} if len(norm) >= 5 else {norm}


def value_of(event):
    """The simhash-doc value of an event's B value tag, or None."""
    for tag in event["tags"]:
        if tag[0] == "B" and len(tag) == 3:
            return int.from_bytes(base64.b32hexdecode(tag[1] + "==="), "big")
    return None


def pigeonhole_keys(blocks, key_blocks):
    """The table keys of Layout::pigeonhole(blocks, key_blocks) (crates/fingerprint/src/layout.rs)."""
    base, extra = divmod(64, blocks)
    spans, top = [], 64
    for i in range(blocks):
        size = base + (i < extra)
        top -= size
        spans.append((top, size))
    def keys(v):
        parts = [(v >> start) & ((1 << size) - 1) for start, size in spans]
        return [(combo, tuple(parts[i] for i in combo)) for combo in itertools.combinations(range(blocks), key_blocks)]
    return keys


def manku_keys(v):
    """The 16 keys of Layout::manku_16x28 (k <= 3)."""
    outer = [(v >> (48 - 16 * i)) & 0xFFFF for i in range(4)]
    keys = []
    for i in range(4):
        rest = 0
        for j in range(4):
            if j != i:
                rest = (rest << 16) | outer[j]
        keys += [((i, j), (outer[i], (rest >> (36 - 12 * j)) & 0xFFF)) for j in range(4)]
    return keys


# Layouts compared offline on the same values: name, exact distance, keys, tables, key bits.
LAYOUTS = [("manku-16x28 (the draft's)", 3, manku_keys, 16, 28),
           ("pigeonhole-8-2 (B tags)", 6, pigeonhole_keys(8, 2), 28, 16),
           ("pigeonhole-9-3", 6, pigeonhole_keys(9, 3), 84, 21),
           ("pigeonhole-10-4", 6, pigeonhole_keys(10, 4), 210, 25)]


def unspaced(text):
    """Whether --edit auto edits this text by characters: mostly a script written without spaces."""
    return edit_mode == "auto" and len(ANY_UNSPACED.findall(text)) >= 0.3 * max(1, len(LETTER.findall(text)))


def long_enough(text):
    """An original: more than 100 words, or (--edit auto) 200 characters of an unspaced script."""
    if unspaced(text):
        return len(ANY_UNSPACED.findall(text)) >= 200
    return len(text.split()) > 100


def alphabet_of(docs):
    """Every occurrence of each unspaced class's characters in the documents (frequency-weighted)."""
    if edit_mode != "auto":
        return {}
    return {name: "".join("".join(pattern.findall(d["text"])) for d in docs) for name, pattern in UNSPACED_RE.items()}


def replace_characters(rng, text, alphabet):
    """CHAR_RATE of the unspaced script's characters (at least one) replaced by others of their class."""
    chars = list(text)
    positions = [(i, name) for i, ch in enumerate(chars) for name, pattern in UNSPACED_RE.items() if pattern.match(ch)]
    for i, name in rng.sample(positions, max(1, round(len(positions) * CHAR_RATE))):
        for _ in range(100):  # another character of the class, if the published documents have one
            choice = rng.choice(alphabet[name])
            if choice != chars[i]:
                chars[i] = choice
                break
    return "".join(chars)


def found_at_defaults(rows, event_id):
    """The share of check results (i, edit, report, ...) that find original i by X or at k = 6, J = 0.5
    (event_id: event id -> document index)."""
    hits = 0
    for i, _, report, *_ in rows:
        exact = {event_id.get(c["event_id"]) for c in report["content_events"]}
        near = {event_id.get(c["event_id"]) for c in report["fuzzy"]["near_copies"]
                if c["distance"] <= 6 and c["jaccard"] >= 0.5}
        hits += i in exact or i in near
    return hits / len(rows) if rows else float("nan")


def run(args, **kw):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True, **kw)


def event_of(path, key):
    return run(["event", path, "--kind", "1", "--created-at", "1700000000", "--key-file", key]).stdout


def start_relay(db):
    proc = subprocess.Popen([binary, "relay", "--listen", "127.0.0.1:0", "--db", db],
                            stderr=subprocess.PIPE, text=True)
    url = re.search(r"ws://\S+", proc.stderr.readline()).group(0)
    return proc, url


def main():
    docs = [json.loads(line) for line in open(os.path.join(corpus, "docs.jsonl"))]
    docs = [d for d in docs if len(d["text"].encode()) <= MAX_TEXT_BYTES and d["text"].strip()]
    if only:
        docs = [d for d in docs if str(d["id"]).startswith(tuple(only.split(",")))]
    rng = random.Random(23)
    if published_size is not None and published_size < len(docs):
        docs = [docs[i] for i in sorted(rng.sample(range(len(docs)), published_size))]
    long_docs = [i for i, d in enumerate(docs) if long_enough(d["text"])]
    sample = rng.sample(long_docs, min(sample_size, len(long_docs)))
    vocabulary = [w for i in rng.sample(range(len(docs)), min(2000, len(docs))) for w in docs[i]["text"].split()[:200]]
    alphabet = alphabet_of(docs)
    work = tempfile.mkdtemp(prefix="bench-fuzzy-")
    relay = None
    try:
        key = os.path.join(work, "key")
        run(["key", "generate", key])
        texts = os.path.join(work, "texts")
        os.mkdir(texts)
        paths = []
        for i, d in enumerate(docs):
            path = os.path.join(texts, f"{i}.txt")
            with open(path, "w") as f:
                f.write(d["text"])
            paths.append(path)
        started = time.time()
        with ThreadPoolExecutor(WORKERS) as pool:
            events = list(pool.map(lambda p: event_of(p, key), paths))
        print(f"{len(events):,} events signed in {time.time() - started:.0f} s", file=sys.stderr)
        event_id, values = {}, {}
        tag_bytes, tagged = [], 0
        for i, line in enumerate(events):
            event = json.loads(line)
            event_id[event["id"]] = i
            if value_of(event) is not None:
                values[i] = value_of(event)
            fuzzy = [t for t in event["tags"] if t[0] == "B"]
            if fuzzy:
                tagged += 1
                tag_bytes.append(sum(len(json.dumps(t, separators=(",", ":"))) + 1 for t in fuzzy))
        relay, url = start_relay(os.path.join(work, "db"))
        stored = 0
        for start in range(0, len(events), 10_000):
            chunk = os.path.join(work, f"events-{start}.jsonl")
            with open(chunk, "w") as f:
                f.writelines(events[start:start + 10_000])
            out = subprocess.run([binary, "publish", "--timeout", "600", "--json", "--relay", url, chunk],
                                 capture_output=True, text=True).stdout
            stored += sum(e["relays"][0]["status"] in ("accepted", "duplicate") for e in json.loads(out)["events"])
        print(f"{stored:,} events stored by {url}", file=sys.stderr)

        copies, copy_texts = [], {}
        for n, i in enumerate(sample):
            text = docs[i]["text"]
            if unspaced(text):
                edited = replace_characters(rng, text, alphabet)
            else:
                words = text.split()
                changed = set(rng.sample(range(len(words)), max(1, round(len(words) * 0.05))))
                edited = " ".join(rng.choice(vocabulary) if j in changed else w for j, w in enumerate(words))
            for edit, copy in (("footer", text + FOOTER), (REPLACED, edited)):
                path = os.path.join(work, f"copy-{n}-{edit[0]}.txt")
                with open(path, "w") as f:
                    f.write(copy)
                copies.append((i, edit, path))
                copy_texts[i, edit] = copy

        def check(item):
            i, edit, path = item
            started = time.time()
            out = run(["check", path, "--fuzzy", "--min-jaccard", "0", "--json", "--timeout", "60",
                       "--relay", url]).stdout
            seconds = time.time() - started
            copy_event = json.loads(event_of(path, key))
            keys = [t[1] for t in copy_event["tags"] if t[0] == "B" and len(t) == 2]
            return i, edit, json.loads(out), seconds, keys, value_of(copy_event)

        started = time.time()
        with ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(check, copies))
        print(f"{len(results):,} checks in {time.time() - started:.0f} s", file=sys.stderr)
    finally:
        if relay:
            relay.terminate()
            relay.wait()
        shutil.rmtree(work, ignore_errors=True)

    originals = {i: shingles(docs[i]["text"]) for i in sample}
    reported_sets = {}

    copy_sets = {key: shingles(text) for key, text in copy_texts.items()}

    def reported_set(reported):
        if reported not in reported_sets:
            reported_sets[reported] = shingles(docs[reported]["text"])
        return reported_sets[reported]

    def right(original, reported):
        return reported == original or jaccard(originals[original], reported_set(reported)) >= 0.8

    def verifies(original, edit, reported, j):
        return reported == original or jaccard(copy_sets[original, edit], reported_set(reported)) >= j

    kept = f" whose id starts with {only.replace(',', ', ')}" if only else ""
    length = " (or 200 Han, kana or Thai characters)" if edit_mode == "auto" else ""
    print(f"Originals: {len(sample):,} documents of more than 100 words{length}, drawn from {len(docs):,} corpus documents{kept} "
          f"of at most {MAX_TEXT_BYTES:,} bytes, all published as kind 1 notes ({stored:,} stored, {tagged:,} "
          f"with B tags); 2 copies each, never published.\n")
    untagged = [i for i in sample if i not in values]
    if untagged:
        tagged_rows = [r for r in results if r[0] in values]
        recalls = ", ".join(f"{edit} {found_at_defaults([r for r in tagged_rows if r[1] == edit], event_id):.3f}"
                            for edit in ("footer", REPLACED))
        print(f"{len(untagged):,} of the {len(sample):,} originals have no B tags (`priorart event` tags texts of at "
              f"least 100 whitespace-separated words): `check --fuzzy` cannot find them, only by X. Recall at k = 6, "
              f"J = 0.5 of the copies of the {len(sample) - len(untagged):,} others: {recalls}.\n")
    print("| edit | k | J | recall (X or near) | by X alone | reported near copies | precision: verifies | precision: the original or J ≥ 0.8 with it |")
    print("|---|---|---|---|---|---|---|---|")
    for edit in ("footer", REPLACED):
        rows = [r for r in results if r[1] == edit]
        for k in KS:
            for j in JS:
                found = by_x = reported = correct = verified = 0
                for i, _, report, _, _, _ in rows:
                    exact = {event_id.get(c["event_id"]) for c in report["content_events"]}
                    near = [event_id.get(c["event_id"]) for c in report["fuzzy"]["near_copies"]
                            if c["distance"] <= k and c["jaccard"] >= j]
                    by_x += i in exact
                    found += i in exact or i in near
                    reported += len(near)
                    correct += sum(right(i, r) for r in near if r is not None)
                    verified += sum(verifies(i, edit, r, j) for r in near if r is not None)
                if (k, j) in ((6, 0.5), (3, 0.5), (6, 0.3), (6, 0.7), (4, 0.5), (5, 0.5)) or k == 6:
                    precision = correct / reported if reported else 1.0
                    verifying = verified / reported if reported else 1.0
                    print(f"| {edit} | {k} | {j} | {found / len(rows):.3f} | {by_x / len(rows):.3f} | "
                          f"{reported:,} | {verifying:.4f} | {precision:.4f} |")
    print()
    words = lambda i: len(docs[i]["text"].split())
    print("Recall at k = 6, J = 0.5 (the defaults), by document length:\n")
    print("| edit | 101–500 words | 501–5,000 | over 5,000 |")
    print("|---|---|---|---|")
    for edit in ("footer", REPLACED):
        cells = []
        for low, high in ((101, 500), (501, 5000), (5001, 10**9)):
            rows = [r for r in results if r[1] == edit and low <= words(r[0]) <= high]
            hits = 0
            for i, _, report, _, _, _ in rows:
                exact = {event_id.get(c["event_id"]) for c in report["content_events"]}
                near = {event_id.get(c["event_id"]) for c in report["fuzzy"]["near_copies"]
                        if c["distance"] <= 6 and c["jaccard"] >= 0.5}
                hits += i in exact or i in near
            cells.append(f"{hits / len(rows):.3f} ({len(rows)})" if rows else "–")
        print(f"| {edit} | " + " | ".join(cells) + " |")
    candidates = [r[2]["fuzzy"]["candidates"] for r in results]
    req = [len(json.dumps(["REQ", "fuzzy", {"kinds": [1, 30023, 31337, 31338, 31339], "#B": r[4]}],
                          separators=(",", ":"))) for r in results]
    seconds = [r[3] for r in results]
    q = lambda values, p: sorted(values)[min(len(values) - 1, int(p * len(values)))]
    print()
    print(f"- B tags per tagged event: {statistics.mean(tag_bytes):.0f} bytes of JSON (min {min(tag_bytes)}, "
          f"max {max(tag_bytes)}).")
    print(f"- key REQ: {statistics.mean(req):.0f} bytes (min {min(req)}, max {max(req)}), 28 keys.")
    print(f"- candidates per lookup (content events returned for the keys): median {statistics.median(candidates):.0f}, "
          f"mean {statistics.mean(candidates):.1f}, p95 {q(candidates, 0.95)}, max {max(candidates)}.")
    print()
    print("Layouts compared on the same simhash-doc values (every tagged corpus document as a stored event, "
          "each copy as a lookup; candidates = stored events sharing a key with the copy; recall = the original "
          "within the layout's exact distance, before the Jaccard check; tag bytes estimated as the value tag and "
          "one `[\"B\",\"k-tt-<hex>\"]` per table):\n")
    print(f"| layout | exact for k ≤ | tables | key bits | B tag bytes | candidates median / mean / p95 | recall footer | recall {REPLACED} |")
    print("|---|---|---|---|---|---|---|---|")
    for name, k, keys_of, tables, bits in LAYOUTS:
        buckets = {}
        for i, v in values.items():
            for key in keys_of(v):
                buckets.setdefault(key, []).append(i)
        counts, hits = [], {"footer": [], REPLACED: []}
        for i, edit, _, _, _, v in results:
            found = set()
            for key in keys_of(v) if v is not None else ():  # a copy too short for B tags looks nothing up
                found.update(buckets.get(key, ()))
            counts.append(len(found))
            hits[edit].append(v is not None and i in values and bin(values[i] ^ v).count("1") <= k)
        tag = 36 + tables * (len(f'["B","{k}-00-{"0" * ((bits + 3) // 4)}"]') + 1)
        print(f"| {name} | {k} | {tables} | {bits} | {tag} | {statistics.median(counts):.0f} / "
              f"{statistics.mean(counts):.1f} / {q(counts, 0.95)} | "
              f"{statistics.mean(hits['footer']):.3f} | {statistics.mean(hits[REPLACED]):.3f} |")
    print()
    print(f"- `check --fuzzy` wall time per copy (3 REQs, one relay on 127.0.0.1, {WORKERS} at once): "
          f"median {statistics.median(seconds):.3f} s, p95 {q(seconds, 0.95):.3f} s.")


main()
