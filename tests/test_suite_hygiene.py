"""The test suite behaves on a busy, shared machine (issue 29).

* The ``slow`` marker is registered, and ``pytest -m "not slow"`` (``scripts/check --fast``)
  selects tests and leaves the slow ones out.
* Every test that starts a Dask cluster or a browser is marked slow: read from the test files
  with :mod:`ast`, so a new one cannot slip into the fast subset.
* Every Dask ``LocalCluster`` (the library's, the tests', the benchmarks') listens on
  127.0.0.1 only and on no fixed port: ``host="127.0.0.1"`` and a dashboard on
  ``127.0.0.1:0`` (``dashboard_address=None`` still serves the scheduler's pages on 8787,
  ``":0"`` on every interface).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO

TESTS = REPO / "tests"
# fixtures that start a Dask cluster or a browser: whoever asks for one is slow
SLOW_FIXTURES = frozenset({"dask_cluster", "cluster", "browser", "watched"})


def test_the_slow_marker_is_registered() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_options = config["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in pytest_options["addopts"]
    assert any(m.startswith("slow:") for m in pytest_options["markers"])


def test_the_fast_subset_selects_tests_and_leaves_out_the_slow_ones() -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not slow"),
            *("-p", "no:cacheprovider", "tests/test_readme.py"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    found = re.search(r"(\d+)/(\d+) tests collected \((\d+) deselected\)", done.stdout)
    assert found is not None, done.stdout
    selected, total, deselected = map(int, found.groups())
    assert selected > 0
    assert deselected > 0
    assert selected + deselected == total
    assert "test_a_readme_command_runs_when_pasted" not in done.stdout


def test_scripts_check_fast_runs_the_fast_subset_and_ci_runs_everything() -> None:
    check = (REPO / "scripts" / "check").read_text(encoding="utf-8")
    assert '"--fast"' in check
    assert 'marker=(-m "not slow")' in check
    # on every core, each test file in one worker (its module fixtures made once)
    assert '"$venv/bin/pytest" -n auto --dist loadfile "${marker[@]}" "$@"' in check
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "exec scripts/check\n" in ci  # no --fast, no -m


def _test_files() -> Iterator[Path]:
    yield from sorted(TESTS.rglob("test_*.py"))


def _marked_slow(decorators: list[ast.expr]) -> bool:
    return any("mark.slow" in ast.unparse(d) for d in decorators)


def _module_slow(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return "mark.slow" in ast.unparse(node.value)
    return False


def _called_name(node: ast.AST) -> str:
    """The last name of what ``node`` calls (``LocalCluster`` for ``distributed.LocalCluster(
    ...)``), "" for anything else: what ``ast.unparse(node.func)`` ends with, without
    unparsing every call of every file."""
    if not isinstance(node, ast.Call):
        return ""
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return ""


def _starts_a_cluster(function: ast.FunctionDef) -> bool:
    return any(_called_name(node).endswith("LocalCluster") for node in ast.walk(function))


def test_every_test_that_starts_dask_or_a_browser_is_marked_slow() -> None:
    unmarked = []
    seen = 0
    for path in _test_files():
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        if _module_slow(tree):
            continue
        # a module that never names LocalCluster starts none itself: its functions are not walked
        starts = _starts_a_cluster if "LocalCluster" in text else lambda _: False
        fixtures = {  # module fixtures that start a cluster themselves (test_datasets' cluster)
            node.name for node in tree.body if isinstance(node, ast.FunctionDef) and starts(node)
        }
        for node in tree.body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
                continue
            wants = {a.arg for a in node.args.args} & (SLOW_FIXTURES | fixtures)
            if wants or starts(node):
                seen += 1
                if not _marked_slow(node.decorator_list):
                    unmarked.append(f"{path.relative_to(REPO)}::{node.name}")
    assert unmarked == [], f"mark these @pytest.mark.slow: {unmarked}"
    assert seen >= 10


def _local_clusters() -> Iterator[tuple[str, ast.Call]]:
    for folder in ("src", "tests", "benchmarks"):
        for path in sorted((REPO / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "LocalCluster" not in text:  # no call can name it: not worth parsing
                continue
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.Call) and _called_name(node).endswith("LocalCluster"):
                    yield f"{path.relative_to(REPO)}:{node.lineno}", node


def test_every_local_cluster_listens_on_the_loopback_on_free_ports() -> None:
    clusters = list(_local_clusters())
    assert len(clusters) >= 5  # the library's, three in tests, the benchmarks'
    for where, call in clusters:
        given = {k.arg: ast.unparse(k.value) for k in call.keywords}
        assert given.get("host") == "'127.0.0.1'", where
        assert given.get("dashboard_address") == "'127.0.0.1:0'", where
