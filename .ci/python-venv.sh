#!/usr/bin/env bash
# The Python binding's virtualenv (bindings/python/.venv) with the pinned
# test and lint dependencies of bindings/python/requirements-ci.txt,
# created again when that file changes. Used by .ci/python.sh (pytest,
# stubtest) and .ci/lint.sh (ruff, mypy). Prints the venv's path.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bindings/python/.venv
if [ ! -x "$venv/bin/python" ] || [ bindings/python/requirements-ci.txt -nt "$venv/pyvenv.cfg" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r bindings/python/requirements-ci.txt >&2
fi
echo "$venv"
