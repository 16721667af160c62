"""``cranfield logs interleave``: two runs interleaved for simulated users, against the exact
outcome worked out by hand."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from cranfield.cli.main import main

if TYPE_CHECKING:
    from pathlib import Path

QUERIES = [f"q{i}" for i in range(12)]


def _files(tmp_path: Path) -> tuple[str, str, str]:
    """Every query: r (grade 1) and n (grade 0); A ranks r first, B n first."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 r 1\n{q} 0 n 0\n" for q in QUERIES))
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    a.write_text("".join(f"{q} Q0 r 1 2.0 a\n{q} Q0 n 2 1.0 a\n" for q in QUERIES))
    b.write_text("".join(f"{q} Q0 n 1 2.0 b\n{q} Q0 r 2 1.0 b\n" for q in QUERIES))
    return str(qrels), str(a), str(b)


def test_simulated_users_agree_with_the_exact_win_probability(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Team-draft of A = (r, n) and B = (n, r) for informational PBM users: click r with 0.9,
    n with 0.4 (grades 1 and 0 on Hofmann et al.'s scale), examine rank 1 always and rank 2
    with 1/2. A picks first with 1/2: shown (r, n), A wins 0.9 * (1 - 0.2) = 0.72, B wins
    0.1 * 0.2 = 0.02; B first: shown (n, r), A wins 0.45 * 0.6 = 0.27, B wins 0.4 * 0.55 =
    0.22. So P(A wins) = 0.495, P(B wins) = 0.12 and Δ_AB = (0.495 - 0.12) / 2 = 0.1875,
    inside the command's interval; its win share within four standard errors of 0.495."""
    qrels, a, b = _files(tmp_path)
    argv = ["logs", "interleave", a, b, "--qrels", qrels, "--model", "pbm"]
    argv += ["--user", "informational", "--impressions-per-query", "2000", "-f", "json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["a"], data["b"], data["queries"], data["impressions"]) == ("a", "b", 12, 24_000)
    lo, hi = data["interval"]
    assert lo <= 0.1875 <= hi
    assert hi - lo < 0.02
    se = (0.495 * 0.505 / 24_000) ** 0.5
    assert abs(data["wins"] / 24_000 - 0.495) < 4 * se
    assert data["unit_wins"] == 12
    assert data["p_value"] == pytest.approx(2 * 0.5**12)


def test_users_fitted_on_a_click_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--clicks: DocumentCTR fitted on a log where r is clicked in 3 of 4 sessions and n in 1
    of 4 (smoothed: 4/6 and 2/6) clicks independently of the rank, so r always on A's team
    and n on B's give Δ_AB = (2/3 - 1/3) / 2 = 1/6, inside the interval; the table says so."""
    _, a, b = _files(tmp_path)
    log = tmp_path / "log.jsonl"
    sessions = [
        {"query_id": q, "shown": ["r", "n"], "clicks": c}
        for q in QUERIES
        for c in (["r"], ["r", "n"], ["r"], [])
    ]
    log.write_text("".join(json.dumps(s) + "\n" for s in sessions))
    argv = ["logs", "interleave", a, b, "--clicks", str(log), "--model", "DocumentCTR"]
    assert main([*argv, "--impressions-per-query", "2000", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "DocumentCTR fitted on" in data["users"]
    lo, hi = data["interval"]
    assert lo <= 1 / 6 <= hi
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "preferred: A" in text
    assert "Delta_AB +0.1" in text


def test_the_users_are_given_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels, a, b = _files(tmp_path)
    assert main(["logs", "interleave", a, b]) == 1
    assert "either --qrels QRELS or --clicks LOG" in capsys.readouterr().err
    assert main(["logs", "interleave", a, b, "--qrels", qrels, "--model", "ubm"]) == 1
    assert "--model with --qrels is one of dbn, cascade, pbm" in capsys.readouterr().err


def test_more_runs_are_multileaved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A, B and C = A again: by symmetry A and C tie in expectation (Δ = 0 inside its
    interval); both are preferred to B; two runs give the interleaving's own figures."""
    qrels, a, b = _files(tmp_path)
    c = tmp_path / "c.run"
    c.write_text((tmp_path / "a.run").read_text())
    argv = ["logs", "interleave", a, b, str(c), "--qrels", qrels, "--model", "pbm"]
    argv += ["--user", "informational", "--impressions-per-query", "1000", "-f", "json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    pairs = {(p["a"], p["b"]): p for p in data["pairs"]}
    assert set(pairs) == {("a", "b"), ("a", "c"), ("b", "c")}
    lo, hi = pairs["a", "c"]["interval"]
    assert lo <= 0.0 <= hi
    assert pairs["a", "b"]["delta"] > 0.1
    assert pairs["b", "c"]["delta"] < -0.1
    balanced = ["logs", "interleave", a, b, str(c), "--qrels", qrels, "--method", "balanced"]
    assert main(balanced) == 1
    assert "multileaved by team-draft only" in capsys.readouterr().err
