#!/usr/bin/env bash
# What the page's browser tests (.ci/web.sh) need: Debian's chromium, driven
# by npm playwright-core (which downloads no browser of its own), and the
# page's toolchain (Vite, TypeScript, nostr-tools for the test signer),
# pinned in web/package-lock.json. Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v chromium >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
    $SUDO apt-get update -qq
    # Another installer may hold dpkg's lock for a while on a shared machine.
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -o DPkg::Lock::Timeout=600 -y -qq \
        --no-install-recommends chromium >/dev/null
fi
chromium --version
cd web
if [ ! -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
node -e "import('playwright-core').then(() => console.log('playwright-core ready'))"
