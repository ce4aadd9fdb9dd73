#!/usr/bin/env bash
# The linters of every front end but the Rust ones (.ci/run runs fmt and
# clippy): eslint over the JavaScript and TypeScript of the page (web/),
# the npm package (bindings/wasm) and the scripts (.ci/lint/eslint.config.js);
# tsc over the page and over the package's declarations on their own
# (bindings/wasm/tsconfig.json); ruff and mypy over the Python package
# (bindings/python/pyproject.toml). Needs .ci/setup.d/lint.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.ci/lint/node_modules/.bin
if [ ! -x "$bin/eslint" ] || [ ! -d web/node_modules ]; then
    echo "lint: the linters are not installed: run .ci/setup.d/lint.sh" >&2
    exit 1
fi
echo "== lint: eslint"
"$bin/eslint" --config .ci/lint/eslint.config.js --max-warnings 0 web bindings/wasm scripts
echo "== lint: tsc (the page; the npm package's declarations)"
"$bin/tsc" -p web
"$bin/tsc" -p bindings/wasm
venv=$(bash .ci/python-venv.sh)
echo "== lint: ruff, mypy (the Python package)"
(cd bindings/python && "../../$venv/bin/ruff" check python/priorart && "../../$venv/bin/mypy")
