"""Shared paths: the repository's vectors and fixtures (the tests run from a checkout)."""

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
VECTORS = REPO / "vectors"
EXTRACT_DATA = REPO / "crates" / "extract" / "tests" / "data"
OTS_DATA = REPO / "crates" / "ots" / "tests" / "data"
DATA = Path(__file__).resolve().parent / "data"


def priorart_cli():
    """The `priorart` binary of this checkout (debug or release) or on PATH, or None."""
    for build in ("debug", "release"):
        candidate = REPO / "target" / build / "priorart"
        if candidate.exists():
            return str(candidate)
    return shutil.which("priorart")


@pytest.fixture
def cli():
    """The CLI, for equality checks against it; those tests are skipped
    where it is not built (CI builds it in `cargo test` before this suite)."""
    path = priorart_cli()
    if path is None:
        if os.environ.get("PRIORART_PYTHON_REQUIRE_CLI") == "1":
            pytest.fail("PRIORART_PYTHON_REQUIRE_CLI=1 and no priorart binary in target/ or on PATH")
        pytest.skip("no priorart binary built")
    return path
