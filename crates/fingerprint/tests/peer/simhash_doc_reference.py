"""simhash-doc written from docs/simhash-doc.md alone, in Python.

Reads {"inputs": [text, ...]} on standard input and prints
{"unicode": <unicodedata version>, "results": [hex or null, ...]}: null for an
input with a character unassigned in this Python's Unicode tables (the spec is
Unicode 17; the tables of older Pythons lack newer characters).

Python's unicodedata has no Default_Ignorable_Code_Point property; the ranges
are copied from the spec (section 2). lookup3 is Bob Jenkins' C code through
PyPI jenkins-cffi.
"""
import base64
import json
import sys
import unicodedata

from jenkins_cffi import hashlittle2

DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
]
WHITE_SPACE = set(range(0x09, 0x0E)) | {0x20, 0x85, 0xA0, 0x1680} | set(range(0x2000, 0x200B)) \
    | {0x2028, 0x2029, 0x202F, 0x205F, 0x3000}
WORD = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Nd", "Pc"}
LETTER = {"Lu", "Ll", "Lt", "Lm", "Lo"}


def ignorable(c):
    return any(lo <= ord(c) <= hi for lo, hi in DEFAULT_IGNORABLE)


def normalize(text):  # section 2
    nfkc = lambda t: unicodedata.normalize("NFKC", t)
    return nfkc(nfkc("".join(c for c in text if not ignorable(c))).casefold())


def chunks(text):  # section 3
    chunk = []
    for c in text:
        if ord(c) in WHITE_SPACE:
            if chunk:
                yield "".join(chunk)
            chunk = []
        else:
            chunk.append(c)
    if chunk:
        yield "".join(chunk)


def is_identifier(chunk):  # section 4
    if any(m in chunk for m in ("@", "://", "www.", "doi:", "urn:", "arxiv:")):
        return True
    for i in range(len(chunk)):
        if chunk.startswith("10.", i):
            digits = 0
            while i + 3 + digits < len(chunk) and chunk[i + 3 + digits] in "0123456789":
                digits += 1
            if 4 <= digits <= 9 and chunk[i + 3 + digits: i + 4 + digits] == "/":
                return True
    return False


def tokens(chunk):  # section 5
    run = []
    for c in chunk + "\x00":
        if unicodedata.category(c) in WORD:
            run.append(c)
            continue
        if any(unicodedata.category(r) in LETTER for r in run):
            yield "".join(run)
        run = []


def simhash_doc(text):  # sections 6 and 7
    counters = [0] * 64
    for chunk in chunks(normalize(text)):
        if is_identifier(chunk):
            continue
        for token in tokens(chunk):
            c, b = hashlittle2(token.encode("utf-8"), 0, 0)
            feature = (c << 32) | b
            for i in range(64):
                counters[i] += 1 if feature >> i & 1 else -1
    return sum(1 << i for i in range(64) if counters[i] > 0)


def base32(value):  # section 8
    return base64.b32hexencode(value.to_bytes(8, "big")).decode().rstrip("=")


def known(text):
    return all(unicodedata.category(c) != "Cn" or ignorable(c) for c in text)


inputs = json.load(sys.stdin)["inputs"]
results = []
for text in inputs:
    if not known(text):
        results.append(None)
        continue
    value = simhash_doc(text)
    results.append({"hex": "%016X" % value, "base32": base32(value)})
json.dump({"unicode": unicodedata.unidata_version, "results": results}, sys.stdout)
