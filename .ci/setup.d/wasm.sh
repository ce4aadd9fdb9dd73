#!/usr/bin/env bash
# The WebAssembly toolchain of bindings/wasm (scripts/build/wasm.sh), beside
# the rustup toolchain that builds everything else (see
# bindings/wasm/README.md, "Building"):
# - Debian's rustc/cargo (`rustc-web`, `cargo-web`) and the std sources
#   (`rust-web-src`): rustup cannot download the wasm32 target here, and
#   Debian's compiler rebuilds std for wasm32 from those sources;
# - `lld-19` (wasm-ld, the linker), `clang-19` (secp256k1's C code for
#   wasm32), `llvm-19` (llvm-ar);
# - wasm-bindgen-cli, exactly the version of the `wasm-bindgen` crate in
#   bindings/wasm/Cargo.lock (its output must match the crate's). Built
#   from crates.io by `cargo install` WITHOUT --locked: its published lock
#   pins a webpki-roots release the registry no longer serves. It lands in
#   ~/.cargo/bin, so a cached ~/.cargo skips the build. The build takes 7
#   minutes on an idle 2-core machine (38 under the load of a busy one), so
#   it runs in the background (log and pid in $TMPDIR), beside the Rust
#   tests CI runs next; .ci/wasm.sh waits for it. PRIORART_WASM_SETUP_WAIT=1
#   waits here instead.
# Idempotent: what is already there is not installed again.
set -euo pipefail
cd "$(dirname "$0")/../.."
lock=bindings/wasm/Cargo.lock
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$lock")
[ -n "$version" ] || { echo "no wasm-bindgen in $lock" >&2; exit 1; }

packages="rustc-web cargo-web rust-web-src lld-19 clang-19 llvm-19"
missing=""
for package in $packages; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing="$missing $package"
done
if [ -n "$missing" ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

bindgen="${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen"
pidfile="${TMPDIR:-/tmp}/priorart-wasm-bindgen-install.pid"
if [ "$("$bindgen" --version 2>/dev/null)" != "wasm-bindgen $version" ] \
    && ! { [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }; then
    # rustup's cargo (the native toolchain) builds the tool for this machine.
    log="${TMPDIR:-/tmp}/priorart-wasm-bindgen-install.log"
    setsid nohup cargo install wasm-bindgen-cli --version "=$version" --force --quiet >"$log" 2>&1 </dev/null &
    echo $! >"$pidfile"
    echo "building wasm-bindgen-cli $version in the background (log: $log)"
    if [ "${PRIORART_WASM_SETUP_WAIT:-0}" = 1 ]; then
        wait "$(cat "$pidfile")"
    fi
fi
echo "wasm toolchain: $(/usr/bin/rustc --version), $("$bindgen" --version 2>/dev/null || echo "wasm-bindgen $version (building)")"
