#!/usr/bin/env bash
# Peer for crates/cli/tests/ots_peer.rs: the Python OpenTimestamps reference
# client (`ots`) and library, pinned to the versions the fixtures' *.info.txt
# were made with.
set -euo pipefail
if ots --version 2>/dev/null | grep -q '^v0.7.2$' \
    && python3 -c 'import opentimestamps, sys; sys.exit(opentimestamps.__version__ != "0.4.5")' 2>/dev/null; then
    exit 0
fi
python3 -m pip install --quiet --disable-pip-version-check 'opentimestamps-client==0.7.2' 'opentimestamps==0.4.5'
