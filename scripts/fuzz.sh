#!/usr/bin/env bash
# Runs fuzz targets for a fixed number of executions and prints one line per
# target for FUZZING.md: target, runs, seconds, corpus size. Then minimizes each
# corpus and packs it into crates/CRATE/fuzz/corpora/TARGET.tar.gz with its
# manifest TARGET.sum (replayed by `cargo test`, see FUZZING.md).
#
#   scripts/fuzz.sh fingerprint:equality:10000000 extract:pdf:1000000 ...
#   scripts/fuzz.sh pack CRATE:TARGET DIR    # pack DIR's files as the target's corpus
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Working corpora live in $FUZZ_WORK (default /tmp/priorart-fuzz); each run
# starts from the target's seeds (fuzz/seeds/TARGET) and its unpacked archive.
# FUZZ_SANITIZER=none skips AddressSanitizer (about twice the exec rate; it
# finds nothing more in safe Rust, where panics and failed checks still
# abort); the default is address. Debug assertions (overflow checks, the
# debug_assert! beside each `unsafe`) are on in every build.
set -euo pipefail
SANITIZER="${FUZZ_SANITIZER:-address}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${FUZZ_WORK:-/tmp/priorart-fuzz}"
# The same cap as priorart_testkit::FUZZ_ARCHIVE_CAP_BYTES, which the replay
# test enforces: a corpus that outgrows it needs a lower -max_len or a
# deliberate, reviewed raise of both numbers, not a silent megabyte a run.
ARCHIVE_CAP_BYTES=1048576

# pack CRATE TARGET DIR: DIR's files, sorted by name, as a reproducible
# tar.gz (no times, owners or modes that differ between machines, so an
# unchanged corpus packs to the same bytes), and the manifest replayed by
# testkit: the input count and the SHA-256 of their `sha256sum` listing.
pack() {
    local crate="$1" target="$2" dir="$3"
    local corpora="$ROOT/crates/$crate/fuzz/corpora"
    local archive="$corpora/$target.tar.gz" tmp
    mkdir -p "$corpora"
    tmp="$(mktemp "$corpora/.$target.XXXXXX")"
    (cd "$dir" && find . -maxdepth 1 -type f -printf '%P\n' | LC_ALL=C sort |
        tar --format=ustar --no-recursion --mtime=@0 --owner=0 --group=0 --numeric-owner --mode=0644 \
            -cf - -T - | gzip -9n) >"$tmp"
    local bytes
    bytes=$(stat -c %s "$tmp")
    if (( bytes > ARCHIVE_CAP_BYTES )); then
        rm -f "$tmp"
        echo "$crate/$target: packed corpus is $bytes bytes, over the cap of $ARCHIVE_CAP_BYTES; archive left unchanged" >&2
        return 1
    fi
    mv "$tmp" "$archive"
    local count digest
    count=$(find "$dir" -maxdepth 1 -type f | wc -l)
    digest=$(cd "$dir" && find . -maxdepth 1 -type f -printf '%P\n' | LC_ALL=C sort |
        xargs -r -d '\n' sha256sum | sha256sum | cut -c1-64)
    echo "$count $digest" >"$corpora/$target.sum"
    echo "$crate/$target: packed $count inputs into $archive ($bytes bytes)"
}

if [[ "${1:-}" == pack ]]; then
    IFS=: read -r crate target <<<"$2"
    pack "$crate" "$target" "$3"
    exit
fi

for spec in "$@"; do
    IFS=: read -r crate target runs <<<"$spec"
    fuzz="$ROOT/crates/$crate/fuzz"
    corpus="$WORK/$crate-$target"
    minimized="$WORK/$crate-$target.minimized"
    mkdir -p "$corpus"
    # Start from the seeds and what is already minimized, so runs build on each other.
    cp -n "$fuzz/seeds/$target"/* "$corpus"/ 2>/dev/null || true
    if [[ -f "$fuzz/corpora/$target.tar.gz" ]]; then
        tar -xzf "$fuzz/corpora/$target.tar.gz" -C "$corpus"
    fi
    (cd "$fuzz" && cargo +nightly fuzz build -O -a -s "$SANITIZER" "$target" >/dev/null 2>&1)
    bin="$fuzz/target/x86_64-unknown-linux-gnu/release/$target"
    log="$WORK/$crate-$target.log"
    start=$(date +%s)
    "$bin" "$corpus" -runs="$runs" -max_len=65536 -timeout=30 -rss_limit_mb=4096 >"$log" 2>&1 || {
        echo "$crate/$target: FAILED, see $log"; continue; }
    seconds=$(( $(date +%s) - start ))
    rm -rf "$minimized" && mkdir -p "$minimized"
    "$bin" -merge=1 "$minimized" "$corpus" >>"$log" 2>&1
    echo "$crate/$target: $runs runs in ${seconds}s (sanitizer $SANITIZER), corpus $(ls "$corpus" | wc -l) inputs, minimized $(ls "$minimized" | wc -l) inputs ($(du -sb "$minimized" | cut -f1) bytes), $(date -u +%F)"
    pack "$crate" "$target" "$minimized"
done
