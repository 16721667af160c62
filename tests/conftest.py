"""Shared test fixtures: where the shared data lives (``../shared`` beside the repository)."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    from playwright.sync_api import Browser

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CRANFIELD_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance" / "trec_eval"
REAL = SHARED / "data" / "real"

# matplotlib without a screen, for every test that draws (the report, `cranfield plot`)
os.environ.setdefault("MPLBACKEND", "Agg")

# No timings in pass/fail tests: hypothesis's per-example deadline and its too-slow health
# check are wall-clock assertions, and a busy machine (CI runs the tests on every core) is not
# a failure. Every property test still tries its examples; a test may set its own settings.
settings.register_profile("cranfield", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("cranfield")

# ir_datasets (the irds extra) makes its folders in its home when it is imported, and a test
# never changes the machine nor reads a user's cache: an empty home of the session's own.
_IRDS_HOME = tempfile.mkdtemp(prefix="cranfield-irds-home-")
atexit.register(shutil.rmtree, _IRDS_HOME, ignore_errors=True)
os.environ["IR_DATASETS_HOME"] = _IRDS_HOME


def require(path: Path) -> Path:
    """Fail (never skip) when shared test data is missing: a silent skip would hide it."""
    if not path.exists():
        pytest.fail(
            f"shared test data not found at {path}; clone with ../shared beside the repo "
            "or set CRANFIELD_SHARED"
        )
    return path


def one_sentence(exc: pytest.ExceptionInfo[BaseException]) -> None:
    """The error message is one sentence: one line, a capital first, a full stop last."""
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg[0].isupper()
    assert msg.endswith(".")


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def ensure_chromium() -> Path:
    """``/usr/bin/chromium``; fails the test, naming the script that installs it, if missing."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"The browser tests need Debian's Chromium at {CHROMIUM}: install it with "
            "scripts/install-chromium (as root), as .ci/run does."
        )
    return CHROMIUM


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """Headless Debian Chromium, shared by every browser test of the session (the report's,
    the workbench's): Playwright's sync API allows one at a time in a process."""
    executable = ensure_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(executable), args=CHROMIUM_FLAGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the clone's examples, with ``../shared`` and ``.venv/bin/``."""
    root = tmp_path_factory.mktemp("readme")
    (root / "shared").symlink_to(require(SHARED).resolve(), target_is_directory=True)
    copy = root / "clone"
    shutil.copytree(REPO / "examples", copy / "examples")
    # the whole virtualenv, not only its bin/: .venv/bin/python finds its packages through
    # the pyvenv.cfg beside bin/
    (copy / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    assert (copy / ".venv" / "bin").resolve() == Path(sys.executable).parent.resolve()
    return copy


@pytest.fixture(scope="session")
def dask_cluster() -> Iterator[Any]:
    """A Dask cluster of 2 single-threaded worker processes on this machine, started once for
    the tests that score or search on one: on the loopback only, its dashboard on a free port
    (":0" alone would listen on every interface; None on the fixed port 8787)."""
    distributed = pytest.importorskip("distributed")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            silence_logs=50,
        ) as local:
            yield local


@pytest.fixture
def fusion_in_blocks(monkeypatch: pytest.MonkeyPatch) -> Callable[[], list[object]]:
    """Call it, and every fusion input is taken as large, with two cores said to be there,
    so that fusing goes by blocks of queries on threads; it returns the list that fills with
    the blocks fused."""
    import importlib

    module = importlib.import_module("cranfield.fusion.fuse")  # the package's fuse is the function

    def in_blocks() -> list[object]:
        cut = module._query_blocks
        blocks: list[object] = []

        def counted(*args: Any) -> Iterator[object]:
            for block in cut(*args):
                blocks.append(block)
                yield block

        monkeypatch.setattr(module, "THREADED_ROWS", 0)
        monkeypatch.setattr(module, "_threads", lambda: 2)
        monkeypatch.setattr(module, "_query_blocks", counted)
        return blocks

    return in_blocks
