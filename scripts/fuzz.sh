#!/usr/bin/env bash
# Runs fuzz targets for a fixed number of executions and prints one line per
# target for FUZZING.md: target, runs, seconds, corpus size. Then minimizes each
# corpus into crates/CRATE/fuzz/regression/TARGET (replayed by `cargo test`).
#
#   scripts/fuzz.sh fingerprint:equality:10000000 extract:pdf:1000000 ...
#
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`).
# Working corpora live in $FUZZ_WORK (default /tmp/priorart-fuzz).
# FUZZ_SANITIZER=none skips AddressSanitizer (about twice the exec rate; it
# finds nothing more in safe Rust, where panics and failed checks still
# abort); the default is address. Debug assertions (overflow checks, the
# debug_assert! beside each `unsafe`) are on in every build.
set -euo pipefail
SANITIZER="${FUZZ_SANITIZER:-address}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${FUZZ_WORK:-/tmp/priorart-fuzz}"
for spec in "$@"; do
    IFS=: read -r crate target runs <<<"$spec"
    fuzz="$ROOT/crates/$crate/fuzz"
    corpus="$WORK/$crate-$target"
    regression="$fuzz/regression/$target"
    mkdir -p "$corpus" "$regression"
    # Start from what is already minimized, so runs build on each other.
    cp -n "$regression"/* "$corpus"/ 2>/dev/null || true
    (cd "$fuzz" && cargo +nightly fuzz build -O -a -s "$SANITIZER" "$target" >/dev/null 2>&1)
    bin="$fuzz/target/x86_64-unknown-linux-gnu/release/$target"
    log="$WORK/$crate-$target.log"
    start=$(date +%s)
    "$bin" "$corpus" -runs="$runs" -max_len=65536 -timeout=30 -rss_limit_mb=4096 >"$log" 2>&1 || {
        echo "$crate/$target: FAILED, see $log"; continue; }
    seconds=$(( $(date +%s) - start ))
    rm -rf "$regression.new" && mkdir -p "$regression.new"
    "$bin" -merge=1 "$regression.new" "$corpus" >>"$log" 2>&1
    rm -rf "$regression" && mv "$regression.new" "$regression"
    echo "$crate/$target: $runs runs in ${seconds}s (sanitizer $SANITIZER), corpus $(ls "$corpus" | wc -l) inputs, minimized $(ls "$regression" | wc -l) inputs ($(du -sb "$regression" | cut -f1) bytes), $(date -u +%F)"
done
