#!/usr/bin/env bash
# Peers for the relay tests (crates/cli/tests/relay_*.rs, crates/relay/tests):
# - PyPI nostr-relay: an independent relay (Python, SQLite) that priorart
#   publishes to and checks against;
# - npm nostr-tools (installed by nip.sh) publishes to and queries
#   `priorart relay`; Node 20 needs no WebSocket package
#   (--experimental-websocket).
# - nostr-rs-relay (Rust, SQLite: the relay most operators run) is an opt-in
#   peer: building it takes longer than CI allows (see BENCHMARKS.md), so it
#   is built only with PRIORART_BUILD_NOSTR_RS_RELAY=1, and its tests run
#   when it is on PATH (required with PRIORART_REQUIRE_NOSTR_RS_RELAY=1).
# Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."

NOSTR_RELAY_VERSION=1.14
if ! python3 -c "import importlib.metadata as m; assert m.version('nostr-relay') == '$NOSTR_RELAY_VERSION'" 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check "nostr-relay==$NOSTR_RELAY_VERSION"
fi
python3 -c "import nostr_relay; print('nostr-relay ready')"

NOSTR_RS_RELAY_VERSION=0.8.12
if [ "${PRIORART_BUILD_NOSTR_RS_RELAY:-0}" = 1 ] && ! command -v nostr-rs-relay >/dev/null; then
    # Its build runs protoc (tonic) and compiles SQLite.
    if ! command -v protoc >/dev/null; then
        if [ "$(id -u)" = 0 ]; then apt-get install -y -q protobuf-compiler; else sudo apt-get install -y -q protobuf-compiler; fi
    fi
    # Not --locked: its Cargo.lock pins time 0.3.25, which no longer
    # compiles with Rust 1.80 and later (E0282); the newest compatible
    # versions of its dependencies build (checked with Rust 1.95).
    cargo install --quiet nostr-rs-relay --version "$NOSTR_RS_RELAY_VERSION"
fi
