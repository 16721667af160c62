"""``cranfield trec-eval``'s help and long options, as trec_eval's ``-h``, ``--help`` and
``-h -m MEASURE`` (the documentation of the named measures)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cranfield.cli.trec_eval import main
from cranfield.measures import parse_measure
from cranfield.measures.trec_names import NICKNAMES
from tests.conftest import CONFORMANCE, require

HEADER = "Individual measure documentation for requested measures"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def documented(text: str) -> list[str]:
    """The measure names documented after the header (unindented lines)."""
    after = text.split(HEADER + "\n", 1)[1]
    return [line for line in after.splitlines() if line and not line.startswith(" ")]


def test_help_documents_the_named_measure() -> None:
    code, out, err = run("-h", "-m", "map")
    assert (code, err) == (0, "")
    assert out.startswith("Usage: cranfield trec-eval")
    assert documented(out) == ["map"]
    spec = parse_measure("AP").spec
    flat = " ".join(out.split())
    assert " ".join(spec.summary.split()) in flat
    assert " ".join(spec.formula.split()) in flat
    assert "In cranfield: AP." in flat


def test_help_documents_parameters_and_the_cranfield_measure() -> None:
    code, out, _ = run("-h", "-m", "ndcg_cut.10", "-m", "Rprec_mult")
    assert code == 0
    assert documented(out) == ["Rprec_mult", "ndcg_cut"]  # trec_eval's order
    flat = " ".join(out.split())
    assert "In cranfield: nDCG@k." in flat
    assert "In cranfield: Rprec(mult=m)." in flat
    assert "cutoffs k, one line ndcg_cut_k each (default 5,10,15,20,30,100,200,500,1000)" in flat


def test_help_expands_nicknames_in_trec_eval_order() -> None:
    code, out, _ = run("-h", "-m", "official")
    assert code == 0
    assert documented(out) == list(NICKNAMES["official"])


@pytest.mark.parametrize("name", ["relstring", "prefs_simp", "P_avgjg", "runid"])
def test_help_documents_rows_that_are_not_measures(name: str) -> None:
    code, out, _ = run("-h", "-m", name)
    assert code == 0
    assert documented(out) == [name]
    assert out.split(HEADER, 1)[1].count("\n    ") >= 1


def test_help_without_measures_says_how_to_ask() -> None:
    code, out, err = run("-h")
    assert (code, err) == (0, "")
    assert out.startswith("Usage: cranfield trec-eval")
    assert "-- No measures indicated." in out
    assert "cranfield trec-eval -h -m map" in out


def test_help_with_an_unknown_measure_is_refused() -> None:
    code, out, err = run("-h", "-m", "nope")
    assert (code, out) == (1, "")
    assert err == "trec_eval: illegal measure 'nope'\n"


def test_help_follows_compat() -> None:
    assert run("-h", "-m", "rbp")[0] == 0
    code, _, err = run("--compat", "9", "-h", "-m", "rbp")
    assert code == 1
    assert "illegal measure 'rbp'" in err


def test_long_help_is_short_help() -> None:
    assert run("--help") == run("-h")
    assert run("--help", "-m", "P") == run("-h", "-m", "P")


def test_long_version() -> None:
    code, out, err = run("--version")
    assert (code, out) == (0, "")
    assert err.startswith("trec_eval version 10.0")


def test_long_options_are_trec_eval_s(monkeypatch: pytest.MonkeyPatch) -> None:
    require(CONFORMANCE / "qrels.test")
    monkeypatch.chdir(CONFORMANCE)
    files = ["qrels.test", "results.test"]
    short = run("-q", "-m", "map", "-m", "P.5", "-l", "1", *files)
    long = run(
        "--query_eval_wanted",
        "--measure=map",
        "--measure",
        "P.5",
        "--level_for_rel=1",
        *files,
    )
    assert short[0] == 0
    assert long == short


def test_a_bad_option_value_is_one_line_naming_the_flag(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 a 1\n")
    run = tmp_path / "run"
    run.write_text("q Q0 a 1 1.0 t\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(["-M", "-1", "-m", "map", str(qrels), str(run)], out, err)
    assert code == 1
    assert err.getvalue() == (
        "cranfield trec-eval: The -M option must be an integer >= 0, got -1.\n"
    )
    assert out.getvalue() == ""


# --------------------------------------------------------------------------- several runs

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
QRELS, BM25, NEURAL = (str(EXAMPLES / n) for n in ("qrels.txt", "bm25.run", "neural.run"))


def test_several_runs_print_each_runs_output_in_turn() -> None:
    alone = [run("-q", "-m", "all_trec", QRELS, r) for r in (BM25, NEURAL, BM25)]
    together = run("-q", "-m", "all_trec", QRELS, BM25, NEURAL, BM25)
    assert together == (0, "".join(o for _, o, _ in alone), "".join(e for _, _, e in alone))
    assert run("--jobs", "2", "-q", "-m", "all_trec", QRELS, BM25, NEURAL, BM25) == together
    assert run("-q", "-m", "all_trec", "--jobs=2", QRELS, BM25, NEURAL, BM25) == together


def test_a_run_on_standard_input_is_scored_here_beside_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = run("-m", "official", QRELS, NEURAL, BM25)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(Path(BM25).read_bytes())))
    assert run("--jobs", "2", "-m", "official", QRELS, NEURAL, "-") == expected


def test_one_bad_run_among_several_prints_nothing_but_its_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 one tag\n")
    for more in ([], ["--jobs", "2"]):
        code, out, err = run(*more, "-m", "map", QRELS, BM25, str(bad), NEURAL)
        assert (code, out) == (2, ""), err
        assert err.startswith(f"cranfield trec-eval: {bad}:1: ")


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--jobs", "-1"], "The --jobs option must be an integer >= 0, got -1.\n"),
        (["--jobs", "two"], "bad numeric option (--jobs 'two')\n"),
        (["--jobs", "2", "--scheduler", "tcp://h:1"], "The --jobs option must be 1 (the default)"),
        (["--scheduler"], "--scheduler takes a value\n"),
    ],
)
def test_bad_jobs_or_scheduler_is_one_line_naming_the_option(options: list[str], said: str) -> None:
    code, out, err = run("-m", "map", QRELS, BM25, NEURAL, *options)
    assert (code, out) == (1, "")
    assert err.startswith(f"cranfield trec-eval: {said}"), err
