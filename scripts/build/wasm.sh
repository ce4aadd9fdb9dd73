#!/usr/bin/env bash
# Builds the npm package `priorart` in bindings/wasm: its two modules,
# the core (bindings/wasm/src: fingerprints, verification, events) and the
# extraction module (bindings/wasm/extract, loaded only when a page reads a
# file), compiled to wasm32-unknown-unknown, with wasm-bindgen's ES module
# glue and TypeScript declarations (bindings/wasm/pkg/). Then
# `npm pack` in bindings/wasm makes the package. Needs what
# .ci/setup.d/wasm.sh installs.
#
#   scripts/build/wasm.sh            # release build (what the package ships)
#
# The compiler is Debian's rustc (`rustc-web`), not rustup's: rustup cannot
# add the wasm32 target on these machines, and Debian's rustc carries the
# std sources (`rust-web-src`) to build std for it with -Zbuild-std.
# RUSTC_BOOTSTRAP=1 is what lets a stable compiler take the unstable
# -Zbuild-std flag; it is set for this build only, never for the native
# build, which keeps using rustup's toolchain.
set -euo pipefail
cd "$(dirname "$0")/../../bindings/wasm"

rustc=/usr/bin/rustc
cargo=/usr/bin/cargo
for tool in "$rustc" "$cargo" /usr/lib/llvm-19/bin/wasm-ld clang-19; do
    command -v "$tool" >/dev/null || { echo "missing $tool: run .ci/setup.d/wasm.sh" >&2; exit 1; }
done
bindgen="${CARGO_HOME:-$HOME/.cargo}/bin/wasm-bindgen"
version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ "$("$bindgen" --version 2>/dev/null)" != "wasm-bindgen $version" ]; then
    echo "wasm-bindgen $version is not installed: run .ci/setup.d/wasm.sh" >&2
    exit 1
fi

# Debian's wasm linker and C compiler (secp256k1's C code) for wasm32.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=/usr/lib/llvm-19/bin/wasm-ld
export CC_wasm32_unknown_unknown=clang-19 AR_wasm32_unknown_unknown=llvm-ar-19
# getrandom 0.4 takes its JavaScript backend only when this cfg is set
# (nothing here draws random numbers; see Cargo.toml).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS='--cfg getrandom_backend="wasm_js"'
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
rm -rf pkg
# Each module built on its own (`-p`), so that cargo's features unify per
# module: the core links none of the extraction crates.
for module in priorart_wasm:priorart-wasm priorart_extract:priorart-wasm-extract; do
    name=${module%%:*} package=${module#*:}
    RUSTC="$rustc" RUSTC_BOOTSTRAP=1 "$cargo" build --locked --release -p "$package" \
        --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort
    wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/${package//-/_}.wasm"
    # The name section (function names, for stack traces) is a tenth of
    # the download; a panic aborts here anyway.
    "$bindgen" --target web --remove-name-section --remove-producers-section --out-dir pkg --out-name "$name" "$wasm"
    echo "built bindings/wasm/pkg/${name}_bg.wasm: $(wc -c < "pkg/${name}_bg.wasm") bytes, $(gzip -9c "pkg/${name}_bg.wasm" | wc -c) gzipped"
done
# No wasm-opt pass: Debian's binaryen (108) predates the reference types
# wasm-bindgen emits (it breaks the externref table), and -Oz saved under 1 %
# of the gzipped size here.
