#!/usr/bin/env bash
# Build a real benchmark corpus (about 21,000 documents, 164 MB of text) from Debian bookworm (main) packages.
#
# Output ($PRIORART_CORPUS, default /tmp/priorart-corpus):
#         /tmp/priorart-corpus/docs.jsonl  -- one {"id":..., "text":...} per line
#         /tmp/priorart-corpus/docs.txt    -- all texts concatenated (hash baselines)
#         /tmp/priorart-corpus/stats.json  -- per-source doc/byte counts
# Needs: Debian 12 apt sources (main), root for the one apt-get install,
#        python3 (stdlib only). Takes ~3-4 minutes on 2 cores.
# Nothing here is written into the repository: everything lives in /tmp.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
C=${PRIORART_CORPUS:-/tmp/priorart-corpus}
mkdir -p "$C/debs"

# Tools used for extraction: groff-base renders man pages, libsword-utils
# (mod2imp) exports the two SWORD Bible modules to text.
if ! command -v groff >/dev/null || ! command -v mod2imp >/dev/null; then
  apt-get update -qq
  apt-get install -y -q --no-install-recommends groff-base libsword-utils
fi

# The document packages (all Debian bookworm main, arch "all").
PKGS=(
  linux-doc-6.1            # kernel Documentation/ sources (rst/txt), incl. translations
  python3.11-doc           # Python docs, reST sources in html/_sources
  debian-handbook          # The Debian Administrator's Handbook, HTML, 26 languages
  postgresql-doc-15        # PostgreSQL 15 manual, HTML
  manpages manpages-dev    # Linux man-pages project (English)
  manpages-de manpages-de-dev manpages-fr manpages-fr-dev
  manpages-es manpages-es-dev manpages-it manpages-it-dev
  manpages-pl manpages-pl-dev manpages-ru manpages-ru-dev
  manpages-nl manpages-pt-br manpages-ro manpages-uk
  manpages-ja manpages-ja-dev  # translated man pages (manpages-l10n, JM project)
  sword-text-kjv sword-text-web  # King James Version + World English Bible
)
cd "$C/debs"
if ! apt-get download "${PKGS[@]}" 2>/dev/null; then
  apt-get update -qq
  apt-get download "${PKGS[@]}"
fi
ls -1 "$C/debs"/*.deb | sed 's#.*/##' > "$C/packages.txt"

rm -rf "$C/src"; mkdir -p "$C/src"
for f in "$C"/debs/*.deb; do dpkg -x "$f" "$C/src"; done

# Bible modules -> OSIS import text (one file per translation)
export SWORD_PATH="$C/src/usr/share/sword"
mkdir -p "$C/bible"
mod2imp engKJV2006eb > "$C/bible/KJV.imp" 2>/dev/null
mod2imp engWEB2015eb > "$C/bible/WEB.imp" 2>/dev/null

python3 "$HERE/extract_corpus.py" "$C"
sha256sum "$C/docs.jsonl" | tee "$C/docs.jsonl.sha256"
ls -la "$C/docs.jsonl" "$C/docs.txt"
cat "$C/stats.json"
