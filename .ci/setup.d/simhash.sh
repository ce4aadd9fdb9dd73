#!/usr/bin/env bash
# Peers for crates/fingerprint/tests/simhash_doc_peers.rs: npm simhash-js
# (pinned in the committed package-lock.json) and PyPI jenkins-cffi, which
# compiles Bob Jenkins' lookup3.c (in a virtualenv beside it; needs a C
# compiler).
set -euo pipefail
cd "$(dirname "$0")/../../crates/fingerprint/tests/peer"
if [ ! -d node_modules/simhash-js ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
if ! .venv/bin/python -c 'import jenkins_cffi' 2>/dev/null || [ requirements.txt -nt .venv/pyvenv.cfg ]; then
    rm -rf .venv
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
fi
echo "simhash-doc peers ready: simhash-js $(node -p "require('simhash-js/package.json').version"), jenkins-cffi"
