#!/usr/bin/env bash
# The page's tests in a real browser (web/tests): builds the priorart npm
# package (scripts/build-wasm.sh) and the page on it (Vite, web/dist), then
# drives Debian's chromium with playwright-core against real components on
# 127.0.0.1 (crates/cli/examples/web_world.rs: `priorart relay` processes,
# a lying and a hanging relay, a loopback Esplora and calendar on regtest,
# `priorart serve`). Screenshots: target/web-screenshots.
#
# Like the peer cross-checks (crates/testkit/src/peers.rs): when chromium
# or the page's npm packages are missing (.ci/setup.d/web.sh installs
# them), the tests are skipped and the skip recorded in
# target/priorart-skipped.txt; with PRIORART_REQUIRE_PEERS=1, that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"

missing=()
command -v "${PRIORART_CHROMIUM:-chromium}" >/dev/null 2>&1 || missing+=("Debian's chromium")
[ -d web/node_modules/playwright-core ] || missing+=("npm playwright-core (web/node_modules)")
if [ "${#missing[@]}" -gt 0 ]; then
    what=$(IFS=', '; echo "${missing[*]}")
    case "${PRIORART_REQUIRE_PEERS:-}" in
        1)
            echo "web: ${what} required (PRIORART_REQUIRE_PEERS=1) but not installed: run .ci/setup.d/web.sh" >&2
            exit 1
            ;;
        "" | 0) ;;
        *)
            echo "PRIORART_REQUIRE_PEERS=${PRIORART_REQUIRE_PEERS}: use 1 (on) or 0 (off)" >&2
            exit 1
            ;;
    esac
    line="web browser tests: ${what} is not installed: run .ci/setup.d/web.sh"
    echo "skipped: ${line}"
    mkdir -p "$target"
    echo "$line" >>"$target/priorart-skipped.txt"
    exit 0
fi

echo "== web: the priorart package (scripts/build-wasm.sh)"
bash scripts/build-wasm.sh
echo "== web: the page (npm run build)"
(cd web && npm run --silent build)
# The binary and the fixture world, as `cargo test` built them (nothing to
# do after scripts/test.sh's own cargo test; a full build when run alone).
cargo test --locked --workspace --no-run --quiet
echo "== web: browser tests (chromium, playwright-core)"
cd web
exec node --test --test-concurrency=1 --test-reporter=spec tests/
