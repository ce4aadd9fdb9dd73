#!/usr/bin/env bash
# What the npm package's bundler and type tests need
# (bindings/wasm/tests/bundlers.test.mjs, types.test.mjs): esbuild, Vite 5,
# Vite 8 (as the alias vite8) and webpack 5 to bundle a tiny app, playwright-core to load it in
# Debian's chromium (installed by .ci/setup.d/web.sh; playwright-core
# downloads no browser of its own), TypeScript 5.9 and nostr-tools 2.25 to
# compile a client against nostr-tools' own types, and ws (Node 20 has no
# WebSocket) for nostr-tools' Relay against `priorart relay`
# (tests/relay.test.mjs). Exact versions pinned in
# bindings/wasm/tests/bundlers/package-lock.json. Idempotent: installs only
# when node_modules is missing or older than the lock.
set -euo pipefail
cd "$(dirname "$0")/../../bindings/wasm/tests/bundlers"
if [ ! -d node_modules/vite ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    # `npm install`, not `npm ci`: Vite 8 names an optional dependency for
    # Windows (napi-windows-process-start-time) that the registry does not
    # serve, so the lock cannot hold it and `npm ci` refuses the lock as out
    # of sync; `npm install` takes every locked version as it is and skips
    # the optional one (the lock is left unchanged).
    npm install --no-audit --no-fund --loglevel=error
fi
echo "wasm bundler tests ready: esbuild $(node -p 'require("esbuild/package.json").version'), vite $(node -p 'require("vite/package.json").version') and $(node -p 'require("vite8/package.json").version'), webpack $(node -p 'require("webpack/package.json").version')"
