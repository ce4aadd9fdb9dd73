#!/usr/bin/env bash
# Peer for the nip crate's tests: npm nostr-tools (pinned in the committed
# package-lock.json), used to cross-check every event priorart signs and to
# build events priorart must accept.
set -euo pipefail
cd "$(dirname "$0")/../../crates/nip/tests/peer"
if [ ! -d node_modules/nostr-tools ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
node -e "import('nostr-tools/pure').then(() => console.log('nostr-tools ready'))"
