#!/usr/bin/env bash
# Cross-media check for simhash-doc: the same documents in several formats,
# extracted to text with `priorart extract`, then (when the binary has
# `priorart compare`, i.e. simhash-doc) compared pairwise.
#
# Sources: Debian documentation packages that ship one manual as HTML, text,
# PDF and EPUB, plus an article typeset by groff (PDF, text, HTML) and
# converted by pandoc (EPUB, plain text).
#
# Usage: scripts/eval/cross-media.sh [OUT_DIR]   (default /tmp/cross-media)
#   PRIORART=path/to/priorart overrides the binary (default: cargo build --release);
#   PRIORART_COMPARE=path/to/priorart, the binary whose `compare` is used (default: the same).
# Output: OUT_DIR/<document>/<format>.txt, OUT_DIR/words.tsv, OUT_DIR/table.tsv
# (document, format A, format B, distance, similarity, band) and a summary: share of pairs within 3 bits and
# within the loose band (similarity >= 0.90, i.e. at most 6 bits).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${1:-/tmp/cross-media}"
PACKAGES=(debian-policy developers-reference debian-reference-en maint-guide debian-faq groff poppler-utils pandoc)

install_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return
    apt-get update -qq
    # Documentation packages: Debian's default dpkg config may exclude /usr/share/doc;
    # unpack the .debs ourselves so that their files are there in any case.
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

unpack_docs() {
    local debs="$OUT/debs"
    mkdir -p "$debs/root"
    (cd "$debs" && apt-get download -qq debian-policy developers-reference debian-reference-en maint-guide debian-faq)
    for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$debs/root"; done
}

if [ -z "${PRIORART:-}" ]; then
    (cd "$ROOT" && cargo build --release --locked -q -p priorart-cli)
    PRIORART="${CARGO_TARGET_DIR:-$ROOT/target}/release/priorart"
fi

install_packages
rm -rf "$OUT"
mkdir -p "$OUT"
unpack_docs
R="$OUT/debs/root"
SRC="$OUT/sources"
mkdir -p "$SRC"

# extract NAME FORMAT FILE... : FILE(s) → OUT/NAME/FORMAT.txt (chapters concatenated in order).
extract() {
    local name=$1 format=$2
    shift 2
    mkdir -p "$OUT/$name"
    local out="$OUT/$name/$format.txt"
    : >"$out"
    for f in "$@"; do
        case "$f" in
            *.gz) gunzip -c "$f" >"$SRC/tmp" && f="$SRC/tmp" ;;
        esac
        "$PRIORART" extract "$f" >>"$out" || echo "cross-media: $name/$format: $f failed" >&2
        echo >>"$out"
    done
}

# HTML chapters in the order the index page links them.
chapters() {
    local index=$1 dir
    dir=$(dirname "$index")
    echo "$index"
    grep -o 'href="[^"#:]*\.html' "$index" | sed 's/^href="//' | awk '!seen[$0]++' | while read -r page; do
        [ -f "$dir/$page" ] && [ "$dir/$page" != "$index" ] && echo "$dir/$page"
    done
}

D="$R/usr/share/doc/debian-policy"
for doc in menu-policy perl-policy; do
    extract "$doc" html "$D/$doc-1.html"
    extract "$doc" html-chapters $(chapters "$D/$doc.html/index.html")
    extract "$doc" text "$D/$doc.txt.gz"
done
extract fhs-3.0 html "$D/fhs/fhs-3.0.html"
extract fhs-3.0 pdf "$D/fhs/fhs-3.0.pdf.gz"
extract fhs-3.0 text "$D/fhs/fhs-3.0.txt.gz"
[ -f "$D/policy.epub" ] && extract policy epub "$D/policy.epub"
[ -f "$D/policy.txt.gz" ] && extract policy text "$D/policy.txt.gz"
extract policy html-chapters $(chapters "$D/policy.html/index.html")

D="$R/usr/share/developers-reference"
extract developers-reference epub "$D/developers-reference.epub"
extract developers-reference pdf "$D/developers-reference.pdf"
extract developers-reference text "$D/developers-reference.txt.gz"
extract developers-reference html-chapters $(chapters "$D/index.html")

D="$R/usr/share/debian-reference"
extract debian-reference pdf "$D/debian-reference.en.pdf"
extract debian-reference text "$D/debian-reference.en.txt.gz"
extract debian-reference html-chapters $(chapters "$D/index.en.html")

D="$R/usr/share/doc/maint-guide"
extract maint-guide pdf "$D/maint-guide.en.pdf"
extract maint-guide text "$D/maint-guide.en.txt.gz"
extract maint-guide html-chapters $(chapters "$D/html/index.en.html")

D="$R/usr/share/doc/debian/FAQ"
extract debian-faq pdf "$D/debian-faq.en.pdf.gz"
extract debian-faq text "$D/debian-faq.en.txt.gz"
extract debian-faq html-chapters $(chapters "$D/index.en.html")

# The test article: groff typesets it three ways, pandoc converts the HTML on.
A="$SRC/article"
groff -ms -t -Tpdf "$ROOT/crates/extract/tests/data/article.ms" >"$A.pdf" 2>/dev/null
groff -ms -t -Tutf8 -P-cbou "$ROOT/crates/extract/tests/data/article.ms" >"$A.txt" 2>/dev/null
# -Thtml writes its images (grohtml-*.png) into the working directory: run it
# in the output directory, not the caller's.
(cd "$(dirname "$A")" && groff -ms -t -Thtml "$ROOT/crates/extract/tests/data/article.ms" >"$A.html" 2>/dev/null)
pandoc -f html -t epub3 -o "$A.epub" "$A.html"
pandoc -f html -t plain -o "$A.pandoc.txt" "$A.html"
extract article pdf "$A.pdf"
extract article text-groff "$A.txt"
extract article html "$A.html"
extract article epub "$A.epub"
extract article text-pandoc "$A.pandoc.txt"

echo "cross-media: texts in $OUT/<document>/<format>.txt" >&2
for dir in "$OUT"/*/; do
    name=$(basename "$dir")
    case "$name" in debs | sources) continue ;; esac
    for f in "$dir"*.txt; do
        printf '%s\t%s\t%s words\n' "$name" "$(basename "$f" .txt)" "$(wc -w <"$f")"
    done
done >"$OUT/words.tsv"
cat "$OUT/words.tsv"

# Distances, once the binary has `priorart compare` (simhash-doc).
COMPARE="${PRIORART_COMPARE:-$PRIORART}"
if ! "$COMPARE" compare --help >/dev/null 2>&1; then
    echo "cross-media: this priorart has no compare command yet; distances skipped" >&2
    exit 0
fi
printf 'document\tformat_a\tformat_b\tdistance\tsimilarity\tband\n' >"$OUT/table.tsv"
for dir in "$OUT"/*/; do
    name=$(basename "$dir")
    case "$name" in debs/ | debs | sources) continue ;; esac
    files=("$dir"*.txt)
    for ((i = 0; i < ${#files[@]}; i++)); do
        for ((j = i + 1; j < ${#files[@]}; j++)); do
            "$COMPARE" compare --json "${files[i]}" "${files[j]}" | python3 -c '
import json, sys
name, a, b = sys.argv[1:]
s = json.load(sys.stdin)["simhash-doc"]
d, sim, band = s["distance"], s["similarity"], s["band"]
print(f"{name}\t{a}\t{b}\t{d}\t{sim:.4f}\t{band}")
' "$name" "$(basename "${files[i]}" .txt)" "$(basename "${files[j]}" .txt)" >>"$OUT/table.tsv"
        done
    done
done
column -t -s $'\t' "$OUT/table.tsv"
python3 - "$OUT/table.tsv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
n = len(rows)
k3 = sum(int(r["distance"]) <= 3 for r in rows)
loose = sum(float(r["similarity"]) >= 0.90 for r in rows)
print(f"pairs: {n}; within 3 bits: {k3} ({k3 / max(n, 1):.0%}); loose band (>= 0.90): {loose} ({loose / max(n, 1):.0%})")
EOF

# Control: different documents (one format each, plain text where there is one)
# should be far apart; a pair within 3 bits here is a false match at k=3.
printf 'document_a\tdocument_b\tdistance\n' >"$OUT/control.tsv"
docs=()
for dir in "$OUT"/*/; do
    case "$(basename "$dir")" in debs | sources) ;; *) docs+=("$dir") ;; esac
done
pick() { ls "$1"text*.txt 2>/dev/null | head -1 || true; }
for ((i = 0; i < ${#docs[@]}; i++)); do
    for ((j = i + 1; j < ${#docs[@]}; j++)); do
        a=$(pick "${docs[i]}")
        b=$(pick "${docs[j]}")
        [ -n "$a" ] && [ -n "$b" ] || continue
        d=$("$COMPARE" compare --json "$a" "$b" | python3 -c 'import json, sys; print(json.load(sys.stdin)["simhash-doc"]["distance"])')
        printf '%s\t%s\t%s\n' "$(basename "${docs[i]}")" "$(basename "${docs[j]}")" "$d" >>"$OUT/control.tsv"
    done
done
python3 - "$OUT/control.tsv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
close = [r for r in rows if int(r["distance"]) <= 3]
print(f"control, different documents: {len(rows)} pairs, {len(close)} within 3 bits "
      f"(distances {min((int(r['distance']) for r in rows), default=0)}..{max((int(r['distance']) for r in rows), default=0)})")
for r in close:
    print(f"  false match: {r['document_a']} / {r['document_b']}: {r['distance']}")
EOF
