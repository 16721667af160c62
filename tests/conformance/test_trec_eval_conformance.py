"""Every expected output of trec_eval's own test suite, reproduced byte for byte.

Cases come from ``cases.tsv`` (expected file, then the exact trec_eval arguments; a leading
``--compat 9`` selects trec_eval 9.0.8 semantics).
"""

from __future__ import annotations

import io
import os
import shlex

import pytest

from cranfield.cli.trec_eval import main
from tests.conftest import CONFORMANCE, require


def _cases() -> list[tuple[str, str]]:
    table = require(CONFORMANCE / "cases.tsv")
    rows = []
    for line in table.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        expected, args = line.split("\t")
        rows.append((expected, args))
    return rows


@pytest.mark.parametrize(
    ("expected", "args"), _cases(), ids=lambda v: v if "/" in v or "out." in v else None
)
def test_reproduces_trec_eval_output(
    expected: str, args: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(CONFORMANCE)
    out, err = io.StringIO(), io.StringIO()
    code = main(shlex.split(args), out, err)
    assert code == 0, err.getvalue()
    assert out.getvalue() == (CONFORMANCE / expected).read_text()


def test_every_expected_output_is_covered() -> None:
    covered = {e for e, _ in _cases()}
    on_disk = {
        os.path.relpath(os.path.join(d, f), CONFORMANCE)
        for d, _, files in os.walk(CONFORMANCE)
        for f in files
        if f.startswith("out.")
    }
    assert on_disk <= covered


def test_missing_topic_is_skipped_with_a_warning_without_c(monkeypatch: pytest.MonkeyPatch) -> None:
    """trec_eval 10 aborts here; cranfield follows 9.x (skip) and says so on stderr."""
    monkeypatch.chdir(CONFORMANCE)
    out, err = io.StringIO(), io.StringIO()
    assert main(["-m", "map", "qrels.test", "results.trunc"], out, err) == 0
    assert "1 judged topic(s) absent from the run were skipped (302)" in err.getvalue()
    assert "num_q" not in out.getvalue()
    assert "map                   \tall\t" in out.getvalue()


@pytest.mark.parametrize("files", [[], ["qrels.test", "results.test"]])
def test_version_flag_prints_the_version_and_stops(
    files: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """trec_eval -v prints its version on stderr and exits 0 without evaluating."""
    monkeypatch.chdir(CONFORMANCE)
    out, err = io.StringIO(), io.StringIO()
    assert main(["-v", *files], out, err) == 0
    assert out.getvalue() == ""
    assert err.getvalue() == "trec_eval version 10.0-rc3 (cranfield)\n"


def test_unknown_measure_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CONFORMANCE)
    out, err = io.StringIO(), io.StringIO()
    assert main(["-m", "mapp", "qrels.test", "results.test"], out, err) == 1
    assert "illegal measure 'mapp'" in err.getvalue()


def test_compat9_has_no_rbp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(CONFORMANCE)
    out, err = io.StringIO(), io.StringIO()
    assert main(["--compat", "9", "-m", "rbp", "qrels.test", "results.test"], out, err) == 1


def test_malformed_run_exits_2_naming_file_and_line(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("301 Q0 d1 1 0.5 t\n301 Q0 d2 2 abc t\n")
    out, err = io.StringIO(), io.StringIO()
    assert main([str(CONFORMANCE / "qrels.test"), str(bad)], out, err) == 2
    assert f"{bad}:2: score must be a number" in err.getvalue()


def test_duplicate_run_document_exits_4(tmp_path) -> None:
    bad = tmp_path / "dup.run"
    bad.write_text("301 Q0 d1 1 0.5 t\n301 Q0 d1 2 0.4 t\n")
    out, err = io.StringIO(), io.StringIO()
    assert main([str(CONFORMANCE / "qrels.test"), str(bad)], out, err) == 4
    assert (
        "dup.run:2: duplicate document 'd1' for query '301' (first seen on line 1)"
        in err.getvalue()
    )
