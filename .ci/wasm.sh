#!/usr/bin/env bash
# The npm package's test suite (bindings/wasm): builds it with
# scripts/build/wasm.sh, then runs its Node tests (node:test) against the
# `priorart` binary of the workspace (every shared vector, explain, HTML
# extraction, the verifier's tamper and attack cases, events for NIP-07
# signers, `npm pack` installed in a fresh directory, every export fuzzed
# with random JavaScript values, the README's examples, a client compiled
# against nostr-tools' types, and the package bundled by esbuild, Vite 5 and
# webpack 5 and loaded in chromium: those two need
# .ci/setup.d/wasm-bundlers.sh and .ci/setup.d/web.sh). Called by
# scripts/test.sh. Without the WebAssembly toolchain (.ci/setup.d/wasm.sh)
# it skips, recorded in target/priorart-skipped.txt like a missing peer,
# unless PRIORART_REQUIRE_PEERS=1 (CI), which makes that a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' bindings/wasm/Cargo.lock)
bindgen="${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen"
# .ci/setup.d/wasm.sh may still be building wasm-bindgen-cli in the
# background: wait for it (at most 45 minutes).
pidfile="${TMPDIR:-/tmp}/priorart-wasm-bindgen-install.pid"
if [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    echo "== wasm: waiting for the wasm-bindgen-cli build of .ci/setup.d/wasm.sh"
    for _ in $(seq 540); do
        kill -0 "$(cat "$pidfile")" 2>/dev/null || break
        sleep 5
    done
fi
if [ ! -x /usr/bin/rustc ] || [ ! -x /usr/lib/llvm-19/bin/wasm-ld ] \
    || [ "$("$bindgen" --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
    line="bindings/wasm: the WebAssembly toolchain is not installed: run .ci/setup.d/wasm.sh"
    if [ "${PRIORART_REQUIRE_PEERS:-0}" = 1 ]; then
        echo "$line (required: PRIORART_REQUIRE_PEERS=1)" >&2
        exit 1
    fi
    echo "skipped: $line"
    mkdir -p "$target"
    echo "$line" >> "$target/priorart-skipped.txt"
    exit 0
fi
echo "== wasm: scripts/build/wasm.sh"
bash scripts/build/wasm.sh
echo "== wasm: the priorart binary the tests compare with"
# With priorart-schema, as `cargo test --workspace` built it: the same
# features (its `schema` feature on the crates below), so nothing is
# compiled again.
cargo build --locked -q -p priorart-cli -p priorart-schema
export PRIORART_BIN="$target/debug/priorart"
echo "== wasm: node --test"
cd bindings/wasm
exec node --test --test-reporter=spec tests/
