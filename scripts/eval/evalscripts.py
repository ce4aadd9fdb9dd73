"""The evaluation scripts' loader: their names have hyphens, so one script
uses another's code by loading its file (`load_script("pan-eval")`)."""

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load_script(name):
    """The module of `scripts/eval/NAME.py`, loaded from its file."""
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
