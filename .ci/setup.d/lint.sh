#!/usr/bin/env bash
# What .ci/lint.sh needs: eslint, typescript-eslint and tsc (pinned in
# .ci/lint/package-lock.json); the page's npm packages, which its
# TypeScript imports (web/package-lock.json: also installed by web.sh,
# here so that the page is type-checked whether or not chromium is found).
# ruff and mypy go into the Python binding's virtualenv, which .ci/lint.sh
# makes (.ci/python-venv.sh) once every setup script, python.sh's venv
# support among them, has run. Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
for dir in .ci/lint web; do
    if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    fi
done
