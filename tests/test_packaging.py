"""cranfield as a package others depend on (issue 29): one version source, the wheel carries
``py.typed`` and the LICENSE, and a user's mypy sees cranfield's types once it is installed.

The wheel is built from this checkout with the virtualenv's own pip and hatchling (the
``test`` extra), offline: ``--no-build-isolation --no-index --no-deps``. The user's mypy runs
against a throwaway virtualenv with nothing in it but that wheel, so cranfield is found only
as an installed package, the way PEP 561 asks (``py.typed``), never as source on a path; its
dependencies are absent there, which mypy takes as ``Any`` and which keeps the check to a few
seconds.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from cranfield._version import __version__
from tests.conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_has_one_source() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project, "the version lives in src/cranfield/_version.py only"
    assert "version" in project["dynamic"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "src/cranfield/_version.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__), "semantic versioning: MAJOR.MINOR.PATCH"


def test_the_license_file_is_the_license_pyproject_names() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Copyright (c) " in text
    assert "cranfield developers" in text


def test_the_changelog_opens_with_unreleased_then_this_version() -> None:
    # a release bumps _version.py and turns Unreleased into its heading in the same commit
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.MULTILINE)
    assert headings[0] == ("Unreleased", "")
    assert headings[1][0] == __version__
    assert headings[1][1], "a released version has its date"
    for section in re.findall(r"^### (.+)$", text, re.MULTILINE):
        assert section in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def _build_wheel(into: Path) -> Path:
    """The wheel of this checkout, built offline with the virtualenv's hatchling."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.fail(
            "Building the wheel needs hatchling in this virtualenv: pip install -e '.[test]'."
        )
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", str(REPO)),
            *("--no-deps", "--no-build-isolation", "--no-index", "--quiet"),
            *("--wheel-dir", str(into)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    [wheel] = into.glob("cranfield-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.mark.slow
def test_the_wheel_ships_py_typed_the_license_and_the_version(wheel: Path) -> None:
    assert wheel.name.startswith(f"cranfield-{__version__}-")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "cranfield/py.typed" in names
    assert f"cranfield-{__version__}.dist-info/licenses/LICENSE" in names
    assert "cranfield/_version.py" in names


def _installed(wheel: Path, where: Path) -> tuple[Path, Path]:
    """A virtualenv at ``where`` holding only ``wheel``: its python and its site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet"),
            *("--target", site, str(wheel)),
        ],
        capture_output=True,
        check=True,
    )
    return python, Path(site)


USER_SCRIPT = """\
import cranfield

results = cranfield.evaluate("qrels.txt", "run.txt", ["AP"])
reveal_type(results)
wrong: int = cranfield.evaluate("qrels.txt", "run.txt", ["AP"])
"""


def _mypy(folder: Path, python: Path) -> str:
    """mypy's report on ``user.py`` in ``folder``, searching the packages of ``python`` (no
    configuration file, no PYTHONPATH, a cache of its own)."""
    (folder / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental"),
            *("--python-executable", str(python), "--cache-dir", str(folder / "cache")),
            "user.py",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.stdout + done.stderr


@pytest.mark.slow
def test_a_users_mypy_sees_the_installed_packages_types(wheel: Path, tmp_path: Path) -> None:
    python, site = _installed(wheel, tmp_path / "venv")
    assert sysconfig.get_path("purelib") != str(site)  # not this virtualenv's packages
    user = tmp_path / "user"
    user.mkdir()
    (user / "user.py").write_text(USER_SCRIPT, encoding="utf-8")

    report = _mypy(user, python)
    assert 'user.py:4: note: Revealed type is "cranfield.evaluation.results.Results"' in report
    assert 'user.py:5: error: Incompatible types in assignment (expression has type "Results",' in (
        report
    )
    assert "Found 1 error in 1 file" in report

    # the control: without py.typed the same package gives the user no types at all
    (site / "cranfield" / "py.typed").unlink()
    report = _mypy(user, python)
    assert "missing library stubs or py.typed marker" in report
