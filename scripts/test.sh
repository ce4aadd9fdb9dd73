#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run adds the peers' setup, fmt and
# clippy): the Rust tests, then the Python binding's (.ci/python.sh), the
# npm package's (.ci/wasm.sh, WebAssembly) and the page's in a real browser
# (.ci/web.sh), then one summary of the cross-checks that were skipped
# because a peer implementation is missing (each listed with how to install
# it). A skipped cross-check passes, so read the summary: the scripts in
# .ci/setup.d install the peers, and PRIORART_REQUIRE_PEERS=1 makes a
# missing peer fail instead.
#
#   scripts/test.sh [cargo test arguments…]
set -uo pipefail
cd "$(dirname "$0")/.."
skipped="${CARGO_TARGET_DIR:-target}/priorart-skipped.txt"
rm -f "$skipped"
status=0
cargo test --locked --workspace "$@" || status=$?
if [ "$status" -eq 0 ]; then
    bash .ci/python.sh || status=$?
fi
if [ "$status" -eq 0 ]; then
    bash .ci/wasm.sh || status=$?
fi
if [ "$status" -eq 0 ]; then
    bash .ci/web.sh || status=$?
fi
if [ -s "$skipped" ]; then
    echo
    echo "== $(sort -u "$skipped" | wc -l) peer cross-check(s) SKIPPED, counted as passed:"
    sort -u "$skipped" | sed 's/^/   /'
    echo "   Install the peers with the scripts in .ci/setup.d, then run again (PRIORART_REQUIRE_PEERS=1 makes a missing peer fail)."
fi
exit "$status"
