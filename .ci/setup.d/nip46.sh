#!/usr/bin/env bash
# Peer for the --bunker tests (crates/cli/tests/nip_bunker.rs): npm
# @nostr-dev-kit/ndk, whose NDKNip46Backend is a NIP-46 remote signer that
# runs headless on Node 20 (pinned in the committed package-lock.json).
# nostr-tools (nip.sh) has only the client side of NIP-46.
set -euo pipefail
cd "$(dirname "$0")/../../crates/cli/tests/peer/nip46-signer"
if [ ! -d node_modules/@nostr-dev-kit/ndk ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
node -e "import('@nostr-dev-kit/ndk').then(() => console.log('ndk ready'))"
