#!/usr/bin/env bash
# What .ci/python.sh needs to build and test the Python binding on a fresh
# machine: python3 with venv and pip (Debian splits them out). The build
# itself needs only the Rust toolchain CI already has. Idempotent.
set -euo pipefail
if python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv python3-pip >/dev/null
