#!/usr/bin/env bash
# Peers for the extract crate's tests: pdftotext (poppler-utils) is the oracle
# for PDF words and reading order. Idempotent: does nothing when installed.
set -euo pipefail
if command -v pdftotext >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends poppler-utils >/dev/null
