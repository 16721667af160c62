"""The spine: one options object, one evaluator, one run-naming rule, for every caller."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

import cranfield
from cranfield import OptionError
from cranfield.evaluation.evaluator import Evaluator, evaluate_stream
from cranfield.evaluation.execution import Execution
from cranfield.evaluation.options import EvalKwargs, EvalOptions
from cranfield.evaluation.results import ScoreTable
from cranfield.io.runset import RunSet, run_name
from cranfield.stats import compare

QRELS = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1, "d": 0}, "q3": {"e": 2}}
RUN_A = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}, "q2": {"d": 2.0, "c": 1.0}, "q3": {"e": 1.0}}
RUN_B = {"q1": {"x": 3.0, "a": 2.0}, "q2": {"c": 2.0}}


def test_eval_kwargs_list_exactly_the_options() -> None:
    """The TypedDict that types ``**kwargs`` is the options object's field list, no drift."""
    fields = {f.name: f.type for f in dataclasses.fields(EvalOptions)}
    hints = typing.get_type_hints(EvalKwargs, localns={"Measure": cranfield.Measure})
    assert list(hints) == list(fields)
    resolved = typing.get_type_hints(EvalOptions, localns={"Measure": cranfield.Measure})
    assert {k: resolved[k] for k in fields} == hints


@pytest.mark.parametrize(
    ("option", "value", "sentence"),
    [
        ("depth", -1, "The 'depth' option must be an integer >= 0 or None, got -1."),
        ("missing", "drop", "The 'missing' option must be one of 'zero', 'skip', 'error', got"),
        ("relevance_level", 1.5, "The 'relevance_level' option must be an integer, got 1.5."),
        ("judged_only", "yes", "The 'judged_only' option must be True or False, got 'yes'."),
        ("float32", 1, "The 'float32' option must be True or False, got 1."),
        ("compat", 8, "The 'compat' option must be one of 9, 10, got 8."),
        ("num_docs", -5, "The 'num_docs' option must be an integer >= 0, got -5."),
        ("epsilon", 0.0, "The 'epsilon' option must be a number > 0, got 0.0."),
        ("aggregate", "harmonic", "The 'aggregate' option must be one of 'mean', 'sum'"),
    ],
)
def test_every_option_is_checked_once_with_one_sentence(
    option: str, value: object, sentence: str
) -> None:
    callers = [
        lambda: EvalOptions(**{option: value}),
        lambda: cranfield.evaluate(QRELS, RUN_A, "AP", **{option: value}),
        lambda: compare(QRELS, {"a": RUN_A, "b": RUN_B}, "AP", **{option: value}),
        lambda: Evaluator(QRELS, "AP", **{option: value}),
    ]
    for call in callers:
        with pytest.raises(OptionError) as exc:
            call()
        assert str(exc.value).startswith(sentence)
        assert exc.value.option == option
        assert isinstance(exc.value, ValueError)


def test_an_unknown_option_names_the_accepted_ones() -> None:
    with pytest.raises(OptionError, match="Accepted evaluation options: missing, relevance"):
        cranfield.evaluate(QRELS, RUN_A, "AP", missng="skip")  # type: ignore[call-arg]


def test_command_line_wording_uses_the_flag() -> None:
    with pytest.raises(OptionError) as exc:
        EvalOptions(num_docs=-1)
    assert exc.value.for_command_line() == (
        "The --num-docs option must be an integer >= 0, got -1."
    )


def test_compare_accepts_every_evaluation_option_and_input() -> None:
    """Coverage needs known=, which compare could not take; now it takes every option."""
    known = {"q1": {"a": 1}, "q2": {"c": 1}, "q3": {"e": 1}}
    runs = {"a": RUN_A, "b": RUN_B}
    c = compare(QRELS, runs, ["Coverage", "SetFallout"], known=known, num_docs=1000, compat=9)
    for name, run in runs.items():
        alone = cranfield.evaluate(
            QRELS, run, ["Coverage", "SetFallout"], known=known, num_docs=1000, compat=9
        )
        assert c.means["Coverage"][name] == alone["Coverage"]
        assert c.means["SetFallout"][name] == alone["SetFallout"]
    options = EvalOptions(missing="skip", depth=1)
    c2 = compare(QRELS, runs, ["AP"], options=options)
    assert c2.topics == ["q1", "q2"]
    alone_a = cranfield.evaluate(QRELS, RUN_A, "AP", options=options).per_query("AP")
    assert c2.means["AP"]["a"] == pytest.approx((alone_a["q1"] + alone_a["q2"]) / 2)


def test_evaluate_many_returns_the_aligned_table() -> None:
    table = cranfield.evaluate_many(QRELS, [RUN_A, RUN_B], ["AP", "P@2"])
    assert isinstance(table, ScoreTable)
    assert table.names == ["run1", "run2"]
    assert table.topics == ["q1", "q2", "q3"]
    assert table.matrix("AP").shape == (3, 2)
    assert table["run2"].per_query("AP")["q3"] == 0.0  # missing="zero": scored 0
    frame = table.to_polars()
    assert frame.columns == ["run", "query_id", "AP", "P@2"]
    assert frame.height == 6
    skipped = cranfield.evaluate_many(QRELS, [RUN_A, RUN_B], ["AP"], missing="skip")
    assert skipped.topics == ["q1", "q2"]
    assert skipped.dropped_topics == ["q3"]


def test_evaluate_many_takes_names_and_the_execution_options(tmp_path: Path) -> None:
    named = cranfield.evaluate_many(QRELS, [RUN_A, RUN_B], "AP", names=["a", "b"])
    assert named.names == ["a", "b"]
    stored = cranfield.evaluate_many(QRELS, {"a": RUN_A}, "AP", store=tmp_path, depth=1)
    assert stored["a"].options == EvalOptions(depth=1)
    with pytest.raises(
        OptionError,
        match="The 'jobs' option must be left out when execution= is given to evaluate_many",
    ):
        cranfield.evaluate_many(QRELS, [RUN_A], "AP", execution=Execution(), jobs=2)


def test_one_evaluator_scores_one_run_a_stream_and_many(tmp_path: Path) -> None:
    run_path = tmp_path / "bm25.run"
    run_path.write_text(
        "".join(
            f"{q} Q0 {d} {i + 1} {s} tag\n"
            for q, docs in RUN_A.items()
            for i, (d, s) in enumerate(docs.items())
        )
    )
    known = {"q1": {"a": 1}}
    ev = Evaluator(QRELS, ["AP", "Coverage"], known=known, relevance_level=1)
    one = ev.evaluate(run_path)
    streamed = ev.stream(run_path, block_bytes=16)
    many = ev.many([run_path])
    assert one.run_name == streamed.run_name == many.names[0] == "bm25"
    assert one.to_dict() == streamed.to_dict() == many["bm25"].to_dict()
    alone = evaluate_stream(QRELS, run_path, ["AP", "Coverage"], known=known, block_bytes=16)
    assert alone.to_dict() == one.to_dict()
    assert one.options == EvalOptions()


def test_streaming_refuses_micro_averaging_with_one_sentence(tmp_path: Path) -> None:
    run_path = tmp_path / "run.txt"
    run_path.write_text("q1 Q0 a 1 1.0 t\n")
    with pytest.raises(OptionError, match="The 'aggregate' option must be a summary other than"):
        evaluate_stream(QRELS, run_path, "SetP", aggregate="micro")


def test_the_naming_rule(tmp_path: Path) -> None:
    assert run_name("runs/input.pircRBa1.gz") == "input.pircRBa1"
    assert run_name("bm25.txt.gz") == "bm25"
    assert run_name("dense.parquet") == "dense"
    assert run_name("-") == "stdin"
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "bm25.run").write_text("q1 Q0 a 1 1.0 t\n")
    paths = [tmp_path / "a" / "bm25.run", tmp_path / "b" / "bm25.run"]
    runs = RunSet.of(paths)
    assert runs.names == ("a/bm25", "b/bm25")
    assert runs.find(paths[1]) == 1
    assert runs.find("a/bm25") == 0
    with pytest.raises(OptionError, match="The 'baseline' option must be a run's name or path"):
        runs.find("c/bm25")
    # A run loaded with read_run carries the same name as its path gets.
    assert cranfield.load_run(paths[0]).name == "bm25"
    assert RunSet.of({"x": RUN_A, "y": RUN_B}).names == ("x", "y")
    assert RunSet.of([RUN_A, RUN_B]).names == ("run1", "run2")
    with pytest.raises(OptionError, match="one name per run"):
        RunSet.of([RUN_A, RUN_B], ["only"])


def test_the_same_run_has_the_same_name_everywhere(tmp_path: Path) -> None:
    from cranfield.lab.pooling import load_runs
    from cranfield.report.plots import named_runs

    paths = []
    for name, run in (("input.bm25.gz", RUN_A), ("input.dense.gz", RUN_B)):
        import gzip

        lines = "".join(
            f"{q} Q0 {d} {i + 1} {s} tag\n"
            for q, docs in run.items()
            for i, (d, s) in enumerate(docs.items())
        )
        (tmp_path / name).write_bytes(gzip.compress(lines.encode()))
        paths.append(tmp_path / name)
    expected = ["input.bm25", "input.dense"]
    assert compare(QRELS, paths, "AP").runs == expected
    assert [r.run_name for r in cranfield.evaluate_many(QRELS, paths, "AP")] == expected
    assert [n for n, _ in named_runs(paths)] == expected
    assert list(load_runs(paths)) == expected
    assert cranfield.evaluate(QRELS, paths[0], "AP").run_name == expected[0]


def test_printing_results_shows_a_summary_not_arrays() -> None:
    res = cranfield.evaluate(QRELS, RUN_A, ["AP", "P@2"], run_name="bm25")
    shown = repr(res)
    assert shown == str(res)
    assert shown == "Results(run='bm25', queries=3, missing='zero', AP=0.7778, P@2=0.5000)"
    assert "array" not in shown


def test_to_pandas_without_pyarrow_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    res = cranfield.evaluate(QRELS, RUN_A, "AP")
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)
    with pytest.raises(ModuleNotFoundError) as exc:
        res.to_pandas()
    assert str(exc.value) == (
        "to_pandas() needs pyarrow, which is not installed; "
        "install the 'pandas' extra from cranfield's clone: pip install '.[pandas]'"
    )
    assert exc.value.name == "pyarrow"


def test_the_test_options_are_one_plan_validated_once() -> None:
    from cranfield.report.html import html_report
    from cranfield.stats.comparison import CompareKwargs
    from cranfield.stats.plan import TestKwargs, TestPlan

    fields = {f.name for f in dataclasses.fields(TestPlan)}
    assert set(typing.get_type_hints(TestKwargs)) == fields
    both = set(typing.get_type_hints(CompareKwargs, localns={"Measure": cranfield.Measure}))
    assert both == fields | {f.name for f in dataclasses.fields(EvalOptions)}
    runs = {"a": RUN_A, "b": RUN_B}
    plan = TestPlan(tests=["fisher", "t"], seed=3, intervals=["t", "percentile"])
    by_plan = compare(QRELS, runs, "AP", plan=plan)
    by_keywords = compare(
        QRELS, runs, "AP", tests=["randomization", "t-test"], seed=3, intervals=["t", "percentile"]
    )
    assert by_plan.to_json() == by_keywords.to_json()
    # html_report now takes every test option, intervals and risk aversion included.
    page = html_report(QRELS, runs, "AP", intervals=["bca"], risk_aversion=2.0, seed=1)
    assert page.startswith("<!DOCTYPE html>")
    for call in (
        lambda: compare(QRELS, runs, "AP", alpha=0),
        lambda: html_report(QRELS, runs, "AP", alpha=0),
        lambda: TestPlan(alpha=0),
    ):
        with pytest.raises(OptionError, match=r"The 'alpha' option must be a number > 0 and < 1"):
            call()
    with pytest.raises(OptionError, match="Accepted: tests, correction"):
        compare(QRELS, runs, "AP", test="t-test")  # type: ignore[call-arg]


def test_one_word_per_concept_in_public_signatures() -> None:
    """seed (never rng), per_query (never per_topic), n_folds and max_rank (k is a cutoff).
    The old spellings live on only as deprecated aliases, which signatures do not show
    (tests/unit/test_deprecation.py)."""
    import importlib
    import inspect

    from cranfield._deprecation import DeprecatedAlias

    modules = [
        "cranfield",
        "cranfield.stats",
        "cranfield.curves",
        "cranfield.plot",
        "cranfield.lab",
    ]
    # k is the cutoff of a search or of a measure (@k): these take it in that sense.
    cutoffs = {"judged_at_k", "Experiment", "measure_latency", "measure_throughput"}
    cutoffs |= {"LatencyStats", "ThroughputStats"}  # the search cutoff the timings used
    cutoffs.add("studentized_range_sf")  # k groups: scipy.stats.studentized_range's own name
    cutoffs |= {"diff_runs", "RunDiff"}  # the top k of a ranking (unjudged documents entering)
    seen = 0
    for name in modules:
        module = importlib.import_module(name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if not callable(obj) or (isinstance(obj, type) and issubclass(obj, BaseException)):
                continue
            try:
                params = inspect.signature(obj).parameters
            except (TypeError, ValueError):
                continue
            seen += 1
            where = f"{name}.{attr}"
            assert "rng" not in params, where
            assert "gain_depth" not in params, where
            assert not any(p.startswith("per_topic") for p in params), where
            if "k" in params:
                assert attr in cutoffs, f"{where} takes k in another sense than a cutoff"
            for method in ("per_topic",):  # only as the deprecated alias of per_query
                assert not hasattr(obj, method) or isinstance(
                    inspect.getattr_static(obj, method), DeprecatedAlias
                ), f"{where}.{method}"
    assert seen > 40
    assert compare(QRELS, {"a": RUN_A, "b": RUN_B}, "AP", tests="bootstrap", seed=42).seed == 42
