"""cranfield as a package others depend on (issue 29): one version source and its license."""

from __future__ import annotations

import re
import tomllib

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
