"""The package page's examples (README.md) are true: run as doctests from
the root of the checkout, as the page says (its paths are relative to it);
and so are the docstring examples of the package."""

import doctest
import os
import subprocess
import sys
from pathlib import Path

import priorart
from conftest import REPO

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_examples_run(monkeypatch):
    monkeypatch.chdir(REPO)
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted >= 25, result
    assert result.failed == 0, result


def test_the_docstring_examples_run():
    result = doctest.testmod(priorart, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 3 and result.failed == 0, result
    assert os.path.exists(README)


def test_a_missing_extra_is_named_in_the_import_error():
    """`pip install priorart` then `import priorart.spark` used to fail with
    a bare `ModuleNotFoundError: numpy`: the error names the extra."""
    for hidden, code, extra in [
        ("numpy", "import priorart.spark", "priorart[spark]"),
        ("pyspark", "import priorart.spark", "priorart[spark]"),
        ("pyarrow", "import priorart.spark", "priorart[spark]"),
        ("numpy", "import priorart; priorart.simhash_doc_array(['a'])", "priorart[numpy]"),
    ]:
        run = subprocess.run(
            [sys.executable, "-c", f"import sys; sys.modules[{hidden!r}] = None; {code}"],
            capture_output=True, text=True,
        )
        assert run.returncode == 1, (hidden, code)
        last = run.stderr.strip().splitlines()[-1]
        assert last.startswith("ImportError") and extra in last, (hidden, code, last)
        assert hidden in last
