#!/usr/bin/env bash
# The page's tests in a real browser (web/tests): builds the page (Vite,
# web/dist) on the priorart npm package that .ci/wasm.sh built just before
# (scripts/test.sh runs it first; alone: bash .ci/wasm.sh first), then
# drives Debian's chromium with playwright-core against real components on
# 127.0.0.1 (crates/cli/examples/web_world.rs: `priorart relay` processes,
# a lying and a hanging relay, a loopback Esplora and calendar on regtest,
# `priorart serve`; tests/browser.test.mjs), and files against
# `priorart fingerprint` with the page's weight before the first file
# (tests/files.test.mjs, no fixture world). Screenshots:
# target/web-screenshots.
#
# Like the peer cross-checks (crates/testkit/src/peers.rs): when chromium
# or the page's npm packages are missing (.ci/setup.d/web.sh installs
# them), or the package is not built (its toolchain: .ci/setup.d/wasm.sh),
# the tests are skipped and the skip recorded in
# target/priorart-skipped.txt; with PRIORART_REQUIRE_PEERS=1, that fails.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"

missing=()
command -v "${PRIORART_CHROMIUM:-chromium}" >/dev/null 2>&1 || missing+=("Debian's chromium")
[ -d web/node_modules/playwright-core ] || missing+=("npm playwright-core (web/node_modules)")
[ -f bindings/wasm/pkg/priorart_wasm_bg.wasm ] || missing+=("the priorart package (bindings/wasm/pkg: .ci/wasm.sh builds it)")
if [ "${#missing[@]}" -gt 0 ]; then
    what=$(printf '%s; ' "${missing[@]}")
    what=${what%; }
    case "${PRIORART_REQUIRE_PEERS:-}" in
        1)
            echo "web: ${what} required (PRIORART_REQUIRE_PEERS=1) but not installed: run .ci/setup.d/web.sh and .ci/setup.d/wasm.sh" >&2
            exit 1
            ;;
        "" | 0) ;;
        *)
            echo "PRIORART_REQUIRE_PEERS=${PRIORART_REQUIRE_PEERS}: use 1 (on) or 0 (off)" >&2
            exit 1
            ;;
    esac
    line="web browser tests: ${what} not installed: run .ci/setup.d/web.sh and .ci/setup.d/wasm.sh"
    echo "skipped: ${line}"
    mkdir -p "$target"
    echo "$line" >>"$target/priorart-skipped.txt"
    exit 0
fi

echo "== web: the page (npm run build)"
(cd web && npm run --silent build)
echo "== web: the priorart binary and the fixture world"
# With priorart-schema: the features `cargo test --workspace` built them with.
cargo build --locked --quiet -p priorart-cli -p priorart-schema --bin priorart --example web_world
echo "== web: browser tests (chromium, playwright-core)"
cd web
exec node --test --test-concurrency=1 --test-reporter=spec tests/
