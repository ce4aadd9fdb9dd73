#!/usr/bin/env bash
# The Python binding's test suite: `pip install ./bindings/python` (maturin
# builds the extension from the workspace crates) into a virtualenv with
# the pinned test dependencies, then pytest (fingerprints, extraction,
# verification, and the Spark job on local[2]); -rs lists why any test was
# skipped. Before it, mypy's stubtest holds the extension's stub to what
# the extension defines. Needs what .ci/setup.d/python.sh and
# .ci/setup.d/spark.sh install.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(bash .ci/python-venv.sh)
echo "== python: pip install ./bindings/python"
# The committed bindings/python/Cargo.lock, as `cargo --locked` elsewhere in CI.
export MATURIN_PEP517_ARGS="--locked"
# In CI the extension is built in the dev profile into the workspace's target
# directory, so it reuses the dependencies `cargo test` compiled instead of a
# second, optimized build of them all (what `pip install` does by default).
if [ "${CI:-}" = true ]; then
    export MATURIN_PEP517_ARGS="$MATURIN_PEP517_ARGS --profile dev"
    export CARGO_TARGET_DIR="$PWD/target"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./bindings/python
echo "== python: stubtest (the stub _priorart.pyi against the extension just built)"
(cd bindings/python && .venv/bin/python -m mypy.stubtest priorart._priorart --concise --allowlist stubtest-allowlist.txt)
echo "== python: pytest"
status=0
(cd bindings/python && exec .venv/bin/python -m pytest -q -rs -p no:cacheprovider tests) || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure" >&2
    exit 1
fi
exit "$status"
