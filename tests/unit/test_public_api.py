"""The public surface of ``cranfield``: small, explicit and listed in a sorted ``__all__``."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import subprocess
import sys
import types

import pytest

import cranfield

PUBLIC = list(cranfield.__all__)


def test_all_is_sorted_and_unique() -> None:
    assert sorted(PUBLIC) == PUBLIC
    assert len(PUBLIC) == len(set(PUBLIC))
    assert all(isinstance(name, str) for name in PUBLIC)


@pytest.mark.parametrize("name", PUBLIC)
def test_every_name_in_all_is_importable(name: str) -> None:
    namespace: dict[str, object] = {}
    exec(f"from cranfield import {name}", namespace)
    assert namespace[name] is getattr(cranfield, name)
    assert not isinstance(namespace[name], types.ModuleType)


def _public_names(module: types.ModuleType) -> set[str]:
    return {
        name
        for name in dir(module)
        if not name.startswith("_") and not isinstance(getattr(module, name), types.ModuleType)
    }


def test_no_public_name_is_missing_from_all() -> None:
    assert _public_names(cranfield) <= set(PUBLIC)
    assert {n for n in PUBLIC if not n.startswith("_")} <= _public_names(cranfield)


def test_star_import_gives_exactly_all() -> None:
    namespace: dict[str, object] = {}
    exec("from cranfield import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(PUBLIC)


def _fresh(code: str) -> str:
    """What ``code`` prints in a new interpreter, where no other test has imported anything."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout


def test_fresh_interpreter_surface() -> None:
    """Checked in a new process, so submodules imported by other tests cannot hide a leak."""
    code = (
        "import cranfield, json, types\n"
        "print(json.dumps(sorted(n for n in dir(cranfield)"
        " if not n.startswith('_') and not isinstance(getattr(cranfield, n), types.ModuleType))))"
    )
    assert json.loads(_fresh(code)) == sorted(n for n in PUBLIC if not n.startswith("_"))


def test_heavy_modules_are_imported_on_first_use() -> None:
    """Every CLI call imports cranfield; the statistics wait until they are used."""
    code = (
        "import sys, cranfield\n"
        "before = 'cranfield.stats' in sys.modules\n"
        "cranfield.compare\n"
        "print(before, 'cranfield.stats' in sys.modules)"
    )
    assert _fresh(code).split() == ["False", "True"]


def test_importing_the_package_imports_neither_numpy_nor_polars() -> None:
    """``cranfield --version`` and ``--help`` import the package: it must stay light."""
    code = (
        "import sys, cranfield\n"
        "print(sorted(m for m in ('numpy', 'polars', 'scipy', 'rich') if m in sys.modules))\n"
        "cranfield.evaluate, cranfield.Results, cranfield.Measure, cranfield.parse_measures\n"
        "print('numpy' in sys.modules)"
    )
    assert _fresh(code).split("\n")[:2] == ["[]", "True"]


def test_version() -> None:
    assert cranfield.__version__ == importlib.metadata.version("cranfield")


def test_errors_module_all_matches_the_package() -> None:
    errors = importlib.import_module("cranfield.errors")
    for name in errors.__all__:
        assert name in PUBLIC
        assert getattr(cranfield, name) is getattr(errors, name)


def test_exception_tree() -> None:
    assert issubclass(cranfield.InputError, cranfield.CranfieldError)
    assert issubclass(cranfield.MeasureError, cranfield.CranfieldError)
    assert issubclass(cranfield.EvaluationError, cranfield.CranfieldError)
    assert issubclass(cranfield.MissingTopicError, cranfield.EvaluationError)


def test_doctest_example_in_package_docstring() -> None:
    res = cranfield.evaluate({"q": {"a": 1}}, {"q": {"a": 2.0, "b": 1.0}}, "P@2")
    assert res["P@2"] == 0.5
