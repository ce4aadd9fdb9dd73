#!/usr/bin/env python3
"""Near-duplicate quality per writing system: Chinese, Japanese, Korean and
Thai texts beside English, with the same kinds of light edit (issue 32).

Why: simhash-doc's token (docs/simhash-doc.md §5) is a run of word characters
between punctuation, so in a script written without spaces a token is a whole
clause, and one changed character changes the whole token. This script
measures what that costs, and what a new token rule buys, on real documents of
the Debian corpus (scripts/corpus/build.sh):

  zh  Chinese: handbook:zh-CN, handbook:zh-TW, kernel:translations/zh_CN, zh_TW
  ja  Japanese: handbook:ja-JP, kernel:translations/ja_JP, man:ja
  ko  Korean: handbook:ko-KR, kernel:translations/ko_KR, and Korean pages of
      --deb packages or --extra files (below)
  th  Thai: documents of --deb packages or --extra files that are mostly Thai
      (the corpus has none)
  en  English: kernel (not translations), pydoc, pgdoc, man:manN, handbook:en-US

A document qualifies when it has at least 150 words (en; ko also 150 Hangul
syllables) or 300 characters of its script (zh, ja, th), and its script makes at least
MIN_SHARE of its letters (en: ASCII letters at least 0.95 of them). A CJK
character carries about as much text as two or three Latin letters, so 0.3 of
the letters is already most of the text; the handbook translations leave much
English untranslated. --extra files are classified by script alone.

Per script, POOL documents are drawn (seeded): the first --per-script are the
held-out originals, the rest distractors. Each original gets three copies:

  replace  zh, ja, th: 2.5 % of the script's characters (at least one) replaced
           by characters of the same script class (Han, hiragana, katakana,
           Thai) drawn from the script's documents; en, ko: 5 % of the words
           (whitespace-separated; at least one) replaced by words drawn from
           the script's POOL documents.
  footer   one line appended, in the script's language.
  moved    one paragraph (or line, in texts of fewer than three paragraphs)
           moved to another place.

dedup: originals, copies and distractors of every script in one JSONL, run
through `BINARY dedup --jsonl F --id-field id --min-jaccard J [--shingles S]`
at J = 0.5 and 0.8. Recall per script and edit: planted (original, copy) pairs
reported / planted. Precision per script: reported pairs that are right /
reported. A pair is right when both documents come from one original (the
original and a copy, or two copies), or when the character 5-gram Jaccard of
their normalized texts (NFKC, casefold, every run of non-word characters one
space) is at least 0.5: a truth that treats every script alike and depends on
no tokenizer; or when they are one page in its zh-CN and zh-TW editions (the
same text in Simplified and Traditional characters, whose character 5-grams
mostly differ). The "planted" column counts only the first kind as right.

simhash-doc distances: `BINARY fingerprint --jsonl --scheme SCHEME` on every
document. Copies: the share within 3 and within 6 bits of their original, per
script and edit, and how light each edit is by the truth (the median
character 5-gram Jaccard of copy and original). Unrelated pairs: every pair
of the script's POOL documents whose character 5-gram Jaccard is below 0.5,
except one page's zh-CN and zh-TW editions: distance percentiles and
histogram, and candidates per lookup, the mean number of other such documents
within k = 3 and k = 6 bits of a document, or sharing one of the 28 keys of
the B tags' layout (pigeonhole-8-2: two of the eight 8-bit blocks equal),
what a relay returns to `check --fuzzy` before its distance check (also per
1,000 documents, as the scripts' pools differ in size): a fuzzy lookup's
false candidates.

  scripts/eval/scripts-quality.py [--corpus DIR] [--binary PATH]
      [--scheme simhash-doc|simhash-doc-v2] [--shingles words|tokens]
      [--per-script N] [--pool M] [--seed S]
      [--extra JSONL]... [--deb PACKAGE]... [--extra-scripts ko,th] [--json]

The corpus holds almost no Korean (the ko-KR handbook is mostly untranslated
English: 1 page qualifies, and 3 kernel translations): --deb
installation-guide-amd64 --deb gnome-user-docs adds the Korean pages of those
Debian packages (`apt-get download`, `dpkg-deb -x`, `BINARY extract`).
--extra and --deb documents join only the --extra-scripts, and only after the
corpus's own documents. No Debian package of Thai documents was found (Thai is
there only as dictionaries, word lists and interface translations), so th is
left out unless --extra or --deb brings Thai texts.

The first line printed is the command line, so the output can be pasted into
BENCHMARKS.md as it is.
"""
import argparse, base64, json, os, random, re, shlex, shutil, statistics, subprocess, sys, tempfile, time, unicodedata
from collections import Counter, defaultdict

# Jaccard of two sets, from the one reference copy of the shingle measures.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "fingerprint", "tests", "peer"))
from word_shingles import jaccard  # noqa: E402

SCRIPTS = ["zh", "ja", "ko", "th", "en"]
PREFIXES = {
    "zh": ("handbook:zh-CN", "handbook:zh-TW", "kernel:translations/zh_CN", "kernel:translations/zh_TW"),
    "ja": ("handbook:ja-JP", "kernel:translations/ja_JP", "man:ja/"),
    "ko": ("handbook:ko-KR", "kernel:translations/ko_KR"),
    "th": (),
    "en": ("handbook:en-US", "pydoc:", "pgdoc:", "man:man", "kernel:"),
}
# Character classes: a replaced character is replaced by one of its own class.
CLASSES = {
    "han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f",
    "hiragana": "\u3041-\u309f",
    "katakana": "\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    "hangul": "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f",
    "thai": "\u0e01-\u0e5b",
}
CLASS_RE = {name: re.compile(f"[{chars}]") for name, chars in CLASSES.items()}
SCRIPT_CLASSES = {"zh": ["han"], "ja": ["han", "hiragana", "katakana"], "th": ["thai"], "ko": ["hangul"]}
CHARACTER_EDIT = {"zh", "ja", "th"}  # scripts written without spaces: characters replaced, not words
LETTER = re.compile(r"[^\W\d_]")
ASCII_LETTER = re.compile(r"[A-Za-z]")
MIN_SHARE = 0.3
MIN_WORDS = 150
MIN_SCRIPT_CHARS = 300
CHAR_RATE = 0.025
WORD_RATE = 0.05
TRUTH_J = 0.5
JACCARDS = [0.5, 0.8]
EDITS = ["replace", "footer", "moved"]
FOOTERS = {
    "zh": "由某人发布。保留所有权利。",
    "ja": "投稿者：ある人。無断転載を禁じます。",
    "ko": "누군가가 게시함. 모든 권리 보유.",
    "th": "โพสต์โดยใครบางคน สงวนลิขสิทธิ์",
    "en": "Posted by someone. All rights reserved.",
}
BUCKETS = [(0, 3), (4, 6), (7, 10), (11, 15), (16, 20), (21, 25), (26, 64)]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--corpus", default=os.environ.get("PRIORART_CORPUS", "/tmp/priorart-corpus"))
    p.add_argument("--binary", default="target/release/priorart")
    p.add_argument("--scheme", default="simhash-doc", help="the fingerprint scheme of the distances")
    p.add_argument("--shingles", choices=["words", "tokens"], help="dedup --shingles (default: dedup's)")
    p.add_argument("--per-script", type=int, default=100, help="held-out originals per script")
    p.add_argument("--pool", type=int, default=300, help="documents per script: originals and distractors")
    p.add_argument("--seed", type=int, default=32)
    p.add_argument("--extra", action="append", default=[], help="more JSONL documents ({id, text}), grouped by script")
    p.add_argument("--deb", action="append", default=[],
                   help="a Debian package (.deb file, or a name for apt-get download) whose HTML/XML/Mallard "
                        "documents are added, through `BINARY extract`, like --extra documents")
    p.add_argument("--extra-scripts", default="ko,th",
                   help="the scripts that --extra and --deb documents may join, after the corpus's (default ko,th: "
                        "the corpus has almost no Korean and no Thai text)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the tables")
    return p.parse_args()


# --- choosing documents -----------------------------------------------------

def script_of_id(doc_id):
    """The script group an id's prefix names, or None (translations into other languages)."""
    for script in SCRIPTS:
        if doc_id.startswith(PREFIXES[script]):
            if script == "en" and doc_id.startswith("kernel:translations/"):
                return None
            return script
    return None


def class_counts(text):
    return {name: len(pattern.findall(text)) for name, pattern in CLASS_RE.items()}


def qualifies(script, text):
    """Long enough, and mostly of the script (module docstring)."""
    letters = len(LETTER.findall(text)) or 1
    if script == "en":
        return len(text.split()) >= MIN_WORDS and len(ASCII_LETTER.findall(text)) >= 0.95 * letters
    counts = class_counts(text)
    own = sum(counts[c] for c in SCRIPT_CLASSES[script])
    if script == "zh" and counts["hiragana"] + counts["katakana"] > 0.05 * own:
        return False  # Japanese
    if own < MIN_SHARE * letters:
        return False
    if script == "ko":
        return len(text.split()) >= MIN_WORDS and own >= MIN_SCRIPT_CHARS / 2
    return own >= MIN_SCRIPT_CHARS


def detect_script(text):
    """The script of an --extra document: the first that it qualifies for."""
    for script in ["th", "ja", "zh", "ko", "en"]:
        if qualifies(script, text):
            return script
    return None


def load_documents(args):
    """{script: [docs]} of candidates: the corpus's, then --extra's and --deb's (each part in file order)."""
    by_script = defaultdict(list)
    with open(os.path.join(args.corpus, "docs.jsonl")) as f:
        for line in f:
            doc = json.loads(line)
            script = script_of_id(str(doc["id"]))
            if script:
                by_script[script].append({"id": str(doc["id"]), "text": doc["text"]})
    allowed = set(args.extra_scripts.split(","))
    extra = [json.loads(line) for path in args.extra for line in open(path)]
    extra += [doc for package in args.deb for doc in deb_documents(args.binary, package, allowed)]
    for doc in extra:
        script = detect_script(doc["text"])
        if script in allowed:
            by_script[script].append({"id": str(doc["id"]), "text": doc["text"], "extra": True})
    return by_script


DOCUMENT_FILE = re.compile(r"\.(html?|xhtml|xml|page)(\.gz)?$")


def deb_documents(binary, package, allowed):
    """The documents of a Debian package that hold characters of the allowed scripts, as {id, text}."""
    work = tempfile.mkdtemp(prefix="scripts-quality-deb-")
    try:
        deb = package
        if not package.endswith(".deb"):
            run_command(["apt-get", "download", package], cwd=work)
            deb = os.path.join(work, next(f for f in os.listdir(work) if f.endswith(".deb")))
        name = os.path.basename(deb).split("_")[0]
        root = os.path.join(work, "root")
        run_command(["dpkg-deb", "-x", deb, root])
        classes = "".join(CLASSES[c] for s in allowed for c in SCRIPT_CLASSES.get(s, []))
        wanted = re.compile(f"[{classes}]") if classes and "en" not in allowed else re.compile("")
        files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if DOCUMENT_FILE.search(f)]
        files = [f for f in sorted(files) if f.endswith(".gz") or wanted.search(open(f, errors="replace").read())]
        docs = []
        for start in range(0, len(files), 200):
            out = subprocess.run([binary, "extract", "--json", *files[start:start + 200]],
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                row = json.loads(line)
                if row.get("text"):
                    docs.append({"id": f"deb:{name}/{os.path.relpath(row['file'], root)}", "text": row["text"]})
        return docs
    finally:
        shutil.rmtree(work, ignore_errors=True)


def draw_pool(rng, script, candidates, size):
    """Up to `size` qualifying documents in a seeded random order: the corpus's first, then extra ones."""
    order = list(range(len(candidates)))
    rng.shuffle(order)
    order.sort(key=lambda i: candidates[i].get("extra", False))
    pool = []
    for i in order:
        if qualifies(script, candidates[i]["text"]):
            pool.append(candidates[i])
            if len(pool) == size:
                break
    return pool


# --- edits ------------------------------------------------------------------

def replace_characters(rng, text, script, alphabet):
    """CHAR_RATE of the script's characters replaced by others of the same class."""
    chars = list(text)
    positions = [(i, name) for i, ch in enumerate(chars) for name in SCRIPT_CLASSES[script]
                 if CLASS_RE[name].match(ch)]
    for i, name in rng.sample(positions, max(1, round(len(positions) * CHAR_RATE))):
        for _ in range(100):  # another character of the class, if the script's documents have one
            choice = rng.choice(alphabet[name])
            if choice != chars[i]:
                chars[i] = choice
                break
    return "".join(chars)


def replace_words(rng, text, vocabulary):
    """WORD_RATE of the whitespace-separated words replaced; the whitespace kept."""
    parts = re.split(r"(\s+)", text)
    words = [i for i, part in enumerate(parts) if part and not part.isspace()]
    for i in rng.sample(words, max(1, round(len(words) * WORD_RATE))):
        parts[i] = rng.choice(vocabulary)
    return "".join(parts)


def move_paragraph(rng, text):
    """One paragraph (or line, below three paragraphs) moved elsewhere."""
    separator = "\n\n"
    units = [u for u in re.split(r"\n[ \t]*\n", text) if u.strip()]
    if len(units) < 3:
        separator = "\n"
        units = [u for u in text.split("\n") if u.strip()]
    if len(units) < 2:
        return text[len(text) // 2:] + "\n" + text[:len(text) // 2]
    source = rng.randrange(len(units))
    unit = units.pop(source)
    target = rng.choice([j for j in range(len(units) + 1) if j != source] or [0])
    units.insert(target, unit)
    return separator.join(units)


def make_copies(rng, script, original, alphabet, vocabulary):
    text = original["text"]
    if script in CHARACTER_EDIT:
        replaced = replace_characters(rng, text, script, alphabet)
    else:
        replaced = replace_words(rng, text, vocabulary)
    edited = {"replace": replaced, "footer": text.rstrip("\n") + "\n\n" + FOOTERS[script] + "\n",
              "moved": move_paragraph(rng, text)}
    return [{"id": f"{original['id']}#{edit}", "text": copy, "original": original["id"], "edit": edit}
            for edit, copy in edited.items()]


def alphabet_of(script, candidates):
    """Every occurrence of each class's characters in the script's documents (frequency-weighted)."""
    if script not in CHARACTER_EDIT:
        return {}
    return {name: "".join(CLASS_RE[name].findall("".join(d["text"] for d in candidates)))
            for name in SCRIPT_CLASSES[script]}


def vocabulary_of(rng, pool):
    """The replacement words: the first 200 words of each of up to 2,000 of the script's qualifying documents."""
    sample = rng.sample(pool, min(2000, len(pool)))
    return [w for d in sample for w in d["text"].split()[:200]]


# --- truth --------------------------------------------------------------------

def char_grams(text):
    norm = re.sub(r"[\W_]+", " ", unicodedata.normalize("NFKC", text).casefold()).strip()
    if len(norm) < 5:
        return {norm}
    return {norm[i:i + 5] for i in range(len(norm) - 4)}


EDITION = re.compile(r"(?<=[:/])zh[-_](CN|TW)(?=/)")


def work_of(doc_id):
    """A document's id with its Chinese edition left out: zh-CN and zh-TW of one page are one work."""
    return EDITION.sub("zh", doc_id)


class Truth:
    """Character 5-gram Jaccard of documents, grams computed once."""

    def __init__(self, texts):
        self.texts, self.grams = texts, {}

    def of(self, doc_id):
        if doc_id not in self.grams:
            self.grams[doc_id] = char_grams(self.texts[doc_id])
        return self.grams[doc_id]

    def jaccard(self, a, b):
        return jaccard(self.of(a), self.of(b))


# --- running priorart ---------------------------------------------------------

def run_command(command, **kw):
    """A command's standard output; its standard error and an exit if it fails."""
    done = subprocess.run(command, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        sys.exit(f"{shlex.join(command[:4])} ... failed ({done.returncode}):\n{done.stderr.strip()}")
    return done.stdout


def write_jsonl(path, docs):
    with open(path, "w") as f:
        for d in docs:
            f.write(json.dumps({"id": d["id"], "text": d["text"]}, ensure_ascii=False) + "\n")


def run_dedup(args, jsonl, work, min_jaccard):
    out = os.path.join(work, f"dedup-{min_jaccard}")
    command = [args.binary, "dedup", "--jsonl", jsonl, "--id-field", "id", "--min-jaccard", str(min_jaccard)]
    if args.shingles:
        command += ["--shingles", args.shingles]
    started = time.time()
    run_command(command + ["--out", out])
    seconds = time.time() - started
    with open(os.path.join(out, "pairs.jsonl")) as f:
        pairs = [json.loads(line) for line in f]
    return [(p["a"], p["b"]) for p in pairs], seconds


def decode_value(value):
    """A simhash value as printed (13 base32hex characters, or 16 hex digits) as an int."""
    if re.fullmatch(r"[0-9a-f]{16}", value):
        return int(value, 16)
    return int.from_bytes(base64.b32hexdecode(value.upper() + "=" * (-len(value) % 8)), "big")


def fingerprints(args, jsonl):
    out = run_command([args.binary, "fingerprint", "--jsonl", "--scheme", args.scheme, jsonl])
    values = {}
    for line in out.splitlines():
        row = json.loads(line)
        value = row.get(args.scheme)
        if value is None:
            value = next((v for k, v in row.items() if k != "id" and isinstance(v, str)), None)
        if value:
            values[str(row["id"])] = decode_value(value)
    return values


def distance(a, b):
    return bin(a ^ b).count("1")


# --- measures -----------------------------------------------------------------

def dedup_scores(pairs, group, family, truth):
    """Recall per (script, edit) and precision per script of one dedup run."""
    reported = {frozenset(p) for p in pairs}
    recall = {}
    for (script, edit), planted in planted_pairs(family, group).items():
        recall[script, edit] = (sum(frozenset(p) in reported for p in planted), len(planted))
    precision = defaultdict(lambda: [0, 0, 0])  # reported, planted family, right
    for a, b in map(tuple, reported):
        script = group[a] if group[a] == group[b] else "mixed"
        same = family[a] == family[b]
        counts = precision[script]
        counts[0] += 1
        counts[1] += same
        counts[2] += same or work_of(family[a]) == work_of(family[b]) or truth.jaccard(a, b) >= TRUTH_J
    return recall, dict(precision)


def planted_pairs(family, group):
    """{(script, edit): [(original, copy)]}."""
    planted = defaultdict(list)
    for doc_id, original in family.items():
        if "#" in doc_id and doc_id.startswith(original + "#"):
            planted[group[doc_id], doc_id.rsplit("#", 1)[1]].append((original, doc_id))
    return planted


def copy_distances(values, family, group):
    """{(script, edit): [distance of each copy to its original]}."""
    result = defaultdict(list)
    for doc_id, original in family.items():
        if doc_id != original and doc_id in values and original in values:
            result[group[doc_id], doc_id.rsplit("#", 1)[1]].append(distance(values[doc_id], values[original]))
    return result


def unrelated_distances(values, pool, truth):
    """Distances of every unrelated pair of a pool; per document, the others within 3 and 6 bits and the
    others that share a B tag key with it."""
    ids = [d["id"] for d in pool if d["id"] in values]
    dists, related = [], 0
    near = {3: Counter(), 6: Counter(), "keys": Counter()}
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            d = distance(values[a], values[b])
            if work_of(a) == work_of(b) or d <= 12 and truth.jaccard(a, b) >= TRUTH_J:
                related += 1
                continue
            dists.append(d)
            for k in near:
                if d <= k if k != "keys" else shares_key(values[a], values[b]):
                    near[k][a] += 1
                    near[k][b] += 1
    return ids, dists, related, near


def shares_key(a, b):
    """Whether two values share a key of the B tags' layout, pigeonhole-8-2 (crates/fingerprint/src/layout.rs):
    two of their eight 8-bit blocks equal."""
    return (a ^ b).to_bytes(8, "big").count(0) >= 2


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else None


# --- the run ------------------------------------------------------------------

def build(args):
    by_script = load_documents(args)
    pools, originals, copies, group, family, notes = {}, {}, [], {}, {}, []
    for script in SCRIPTS:
        rng = random.Random(f"{args.seed}-{script}")  # each script's draw independent of the others'
        candidates = by_script.get(script, [])
        pool = draw_pool(rng, script, candidates, max(args.pool, args.per_script))
        if not pool:
            notes.append(f"{script}: no qualifying document ({len(candidates)} candidates; "
                         "the corpus has none: give --deb or --extra)")
            continue
        pools[script] = pool
        originals[script] = pool[:args.per_script]
        alphabet, vocabulary = alphabet_of(script, candidates), vocabulary_of(rng, pool)
        for d in pool:
            group[d["id"]], family[d["id"]] = script, d["id"]
        for original in originals[script]:
            for copy in make_copies(rng, script, original, alphabet, vocabulary):
                copies.append(copy)
                group[copy["id"]], family[copy["id"]] = script, original["id"]
    return pools, originals, copies, group, family, notes


def measure(args):
    pools, originals, copies, group, family, notes = build(args)
    docs = [d for script in pools for d in pools[script]] + copies
    truth = Truth({d["id"]: d["text"] for d in docs})
    work = tempfile.mkdtemp(prefix="scripts-quality-")
    try:
        jsonl = os.path.join(work, "docs.jsonl")
        write_jsonl(jsonl, docs)
        result = {"command": command_line(), "scheme": args.scheme, "shingles": args.shingles or "(dedup's default)",
                  "truth": f"same original, or one page in zh-CN and zh-TW, or character 5-gram Jaccard >= {TRUTH_J} "
                           "(NFKC, casefold, non-word runs as one space)",
                  "notes": notes, "scripts": describe_pools(pools, originals)}
        values = fingerprints(args, jsonl)
        result["dedup"] = {str(j): measure_dedup(args, jsonl, work, j, group, family, truth) for j in JACCARDS}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["copies"] = measure_copies(values, group, family, truth)
    result["unrelated"] = {script: measure_unrelated(values, pool, truth) for script, pool in pools.items()}
    return result


def describe_pools(pools, originals):
    return {script: {"pool": len(pool), "originals": len(originals[script]),
                     "median_words": statistics.median(len(d["text"].split()) for d in originals[script]),
                     "median_chars": statistics.median(len(d["text"]) for d in originals[script]),
                     "sources": dict(Counter(source_of(d["id"]) for d in pool))}
            for script, pool in pools.items()}


def measure_dedup(args, jsonl, work, min_jaccard, group, family, truth):
    pairs, seconds = run_dedup(args, jsonl, work, min_jaccard)
    recall, precision = dedup_scores(pairs, group, family, truth)
    return {"seconds": round(seconds, 2), "pairs": len(pairs),
            "recall": {f"{s}/{e}": v for (s, e), v in recall.items()}, "precision": precision}


def measure_copies(values, group, family, truth):
    result = {}
    for (script, edit), dists in copy_distances(values, family, group).items():
        copies = [c for c in family if group[c] == script and c.endswith("#" + edit)]
        result[f"{script}/{edit}"] = {
            "n": len(dists), "within3": sum(d <= 3 for d in dists), "within6": sum(d <= 6 for d in dists),
            "median": statistics.median(dists), "p95": percentile(dists, 0.95),
            "char_jaccard_median": round(statistics.median(truth.jaccard(c, family[c]) for c in copies), 3)}
    return result


def measure_unrelated(values, pool, truth):
    ids, dists, related, near = unrelated_distances(values, pool, truth)
    n = len(ids)
    mean = {k: sum(near[k].values()) / n if n else 0 for k in near}
    return {"documents": n, "pairs": len(dists), "related_pairs_left_out": related,
            "min": min(dists) if dists else None,
            "percentiles": {p: percentile(dists, p / 100) for p in (0.1, 1, 5, 25, 50)},
            "histogram": {f"{lo}-{hi}": sum(lo <= d <= hi for d in dists) for lo, hi in BUCKETS},
            "candidates": mean,
            "candidates_per_1000": {k: m / (n - 1) * 1000 if n > 1 else 0 for k, m in mean.items()}}


def source_of(doc_id):
    """The part of the corpus a document comes from: kernel, handbook:ja-JP, man:ja, deb:PACKAGE..."""
    parts = doc_id.split("/")
    if parts[0] in ("kernel:translations", "man:ja") or parts[0].startswith(("handbook:", "deb:", "man:man")):
        return "/".join(parts[:2]) if parts[0] == "kernel:translations" else parts[0]
    return parts[0].split(":")[0]


def command_line():
    return shlex.join(["scripts/eval/scripts-quality.py", *sys.argv[1:]])


# --- printing -----------------------------------------------------------------

def ratio(found, total):
    return f"{found / total:.3f}" if total else "–"


def print_tables(r):
    print(f"$ {r['command']}\n")
    print(f"Scheme {r['scheme']}, dedup --shingles {r['shingles']}. Truth of precision: {r['truth']}.")
    for note in r["notes"]:
        print(f"- {note}")
    print_pools(r)
    for j, run in r["dedup"].items():
        print_dedup(r, j, run)
    print_copies(r)
    print_unrelated(r)


def print_pools(r):
    print("\n| script | documents (originals + distractors) | originals | median words | median characters | sources |")
    print("|---|---|---|---|---|---|")
    for s, v in r["scripts"].items():
        sources = ", ".join(f"{k} {n}" for k, n in sorted(v["sources"].items()))
        print(f"| {s} | {v['pool']} | {v['originals']} | {v['median_words']:.0f} | {v['median_chars']:.0f} | {sources} |")


def print_dedup(r, j, run):
    print(f"\n`dedup --min-jaccard {j}`: {run['pairs']:,} pairs reported in {run['seconds']:.1f} s.\n")
    print("| script | recall replace | recall footer | recall moved | reported pairs | precision (truth) | precision (planted only) |")
    print("|---|---|---|---|---|---|---|")
    for s in list(r["scripts"]) + ["mixed"]:
        reported, planted, right = run["precision"].get(s, [0, 0, 0])
        if s == "mixed" and not reported:
            continue
        cells = [ratio(*run["recall"].get(f"{s}/{e}", (0, 0))) + cell_count(run["recall"].get(f"{s}/{e}"))
                 for e in EDITS]
        print(f"| {s} | " + " | ".join(cells) + f" | {reported:,} | {ratio(right, reported)} | {ratio(planted, reported)} |")


def print_copies(r):
    print(f"\n{r['scheme']} distance of each copy to its original: share within 3 / within 6 bits (median, p95).\n")
    print("| script | replace | footer | moved |")
    print("|---|---|---|---|")
    for s in r["scripts"]:
        cells = [copy_cell(r["copies"].get(f"{s}/{e}")) for e in EDITS]
        print(f"| {s} | " + " | ".join(cells) + " |")
    print("\nHow light the edits are, by the truth: median character 5-gram Jaccard of copy and original.\n")
    print("| script | replace | footer | moved |")
    print("|---|---|---|---|")
    for s in r["scripts"]:
        cells = [f"{r['copies'][f'{s}/{e}']['char_jaccard_median']:.3f}" if f"{s}/{e}" in r["copies"] else "–"
                 for e in EDITS]
        print(f"| {s} | " + " | ".join(cells) + " |")


def copy_cell(c):
    if not c:
        return "–"
    return f"{ratio(c['within3'], c['n'])} / {ratio(c['within6'], c['n'])} ({c['median']:.0f}, {c['p95']})"


def print_unrelated(r):
    print(f"\n{r['scheme']} distance of unrelated pairs of one script (every pair of its documents whose character "
          f"5-gram Jaccard is below {TRUTH_J}); candidates per lookup = mean number of the other documents within k "
          f"bits, or sharing a key of the B tags' layout (pigeonhole-8-2: two of eight 8-bit blocks equal; what a "
          f"relay returns to `check --fuzzy` before the distance check); per 1,000 = the same for a collection of "
          f"1,000 such documents.\n")
    head = " | ".join(f"{lo}–{hi}" for lo, hi in BUCKETS)
    print(f"| script | documents | pairs | min | p0.1 | p1 | p5 | median | {head} | candidates k=3 | k=6 | keys | per 1,000 k=3 | k=6 | keys |")
    print("|---|---|---|---|---|---|---|---|" + "---|" * len(BUCKETS) + "---|---|---|---|---|---|")
    for s, u in r["unrelated"].items():
        pct = u["percentiles"]
        hist = " | ".join(f"{n:,}" for n in u["histogram"].values())
        c, c1000 = u["candidates"], u["candidates_per_1000"]
        print(f"| {s} | {u['documents']} | {u['pairs']:,} | {u['min']} | {pct[0.1]} | {pct[1]} | {pct[5]} | {pct[50]} | "
              f"{hist} | {c[3]:.2f} | {c[6]:.2f} | {c['keys']:.2f} | {c1000[3]:.2f} | {c1000[6]:.2f} | {c1000['keys']:.2f} |")
    left_out = ", ".join(f"{s} {u['related_pairs_left_out']}" for s, u in r["unrelated"].items())
    print(f"\nRelated pairs left out of the unrelated ones (one page in zh-CN and zh-TW, or within 12 bits and "
          f"character 5-gram Jaccard >= {TRUTH_J}): {left_out}.")


def cell_count(found_total):
    return f" ({found_total[1]})" if found_total and found_total[1] else ""


def main():
    args = parse_args()
    result = measure(args)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))
    else:
        print_tables(result)


if __name__ == "__main__":
    main()
