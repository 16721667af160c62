"""Execution: where and how runs are scored, declared once and taken by every function that
scores many runs, whole (``execution=``) or as keywords."""

from __future__ import annotations

import dataclasses
import inspect
import os
import typing
from pathlib import Path

import pytest

import cranfield
from cranfield.errors import OptionError
from cranfield.evaluation.engines import Engine
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.execution import (
    EXECUTION_NAMES,
    EvalExecutionKwargs,
    Execution,
    ExecutionKwargs,
    execution_from,
)
from cranfield.evaluation.options import EvalOptions
from cranfield.evaluation.store import ResultStore

NAMES = {"Measure": cranfield.Measure, "ResultStore": ResultStore}

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1}}
RUNS = {"a": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}, "b": {"q1": {"d2": 1.0}}}


def test_the_keywords_are_the_fields() -> None:
    fields = {f.name for f in dataclasses.fields(Execution)}
    assert set(typing.get_type_hints(ExecutionKwargs, localns=NAMES)) == fields
    assert fields == set(EXECUTION_NAMES)
    both = set(typing.get_type_hints(EvalExecutionKwargs, localns=NAMES))
    assert both == fields | {f.name for f in dataclasses.fields(EvalOptions)}


def test_compare_takes_the_evaluation_test_and_execution_options() -> None:
    from cranfield.stats.comparison import CompareExecutionKwargs, CompareKwargs

    hints = typing.get_type_hints(CompareExecutionKwargs, localns=NAMES)
    compare_only = typing.get_type_hints(CompareKwargs, localns=NAMES)
    assert set(hints) == set(compare_only) | set(EXECUTION_NAMES)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"jobs": -1}, "The 'jobs' option must be an integer >= 0, got -1."),
        ({"block_bytes": 0}, "The 'block_bytes' option must be an integer >= 1, got 0."),
        ({"stream": "yes"}, "'stream'"),
        ({"progress": 2}, "'progress'"),
        ({"store": 3}, "The 'store' option must be a folder, a ResultStore or None, got 3."),
        ({"jobs": 2, "scheduler": "tcp://127.0.0.1:1"}, "'jobs'"),
    ],
)
def test_a_bad_value_is_one_sentence(given: dict[str, object], message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Execution(**given)  # type: ignore[arg-type]


def test_whole_or_as_keywords_but_not_both() -> None:
    kwargs: dict[str, object] = {"jobs": 2, "missing": "skip"}
    assert execution_from(None, kwargs) == Execution(jobs=2)
    assert kwargs == {"missing": "skip"}  # what is not an execution keyword is left
    assert execution_from(None, {}, progress=None) == Execution(progress=None)
    given = Execution(stream=True)
    assert execution_from(given, {}) is given
    with pytest.raises(OptionError, match="'jobs' option must be left out when execution="):
        execution_from(given, {"jobs": 2}, caller="compare")
    with pytest.raises(OptionError, match="'execution' option must be an Execution or None"):
        execution_from("fast", {})  # type: ignore[arg-type]
    assert repr(Execution(jobs=2, stream=True)) == "Execution(jobs=2, stream=True)"


def test_every_function_that_scores_many_runs_takes_an_execution() -> None:
    from cranfield.lab.experiment import Experiment
    from cranfield.lab.folds import cross_validate
    from cranfield.lab.pooling import judged_at_k, leave_one_out, pool, pool_study
    from cranfield.report.html import html_report
    from cranfield.stats.comparison import compare
    from cranfield.stats.power_study import power
    from cranfield.stats.rank_correlation import correlate
    from cranfield.stats.reproducibility import reproduce

    takers = [
        Evaluator.each,
        Evaluator.many,
        Evaluator.evaluate_dataset,
        compare,
        html_report,
        pool,
        judged_at_k,
        leave_one_out,
        cross_validate,
        Experiment.__init__,
        power,
        reproduce,
        correlate,
        pool_study,
    ]
    for function in takers:
        parameters = inspect.signature(function).parameters
        assert "execution" in parameters, function.__qualname__
        assert not {"jobs", "scheduler", "store", "progress"} & set(parameters), (
            function.__qualname__
        )


def test_the_same_numbers_whole_or_as_keywords(tmp_path: Path) -> None:
    from cranfield.lab.pooling import judged_at_k
    from cranfield.stats.comparison import compare

    ev = Evaluator(QRELS, ["AP", "P@1"])
    by_keywords = ev.many(RUNS, stream=False, progress=False)
    by_object = ev.many(RUNS, execution=Execution())
    assert by_keywords.means() == by_object.means()
    with pytest.raises(OptionError, match="left out when execution="):
        ev.many(RUNS, execution=Execution(), jobs=1)
    assert judged_at_k(QRELS, RUNS, 2, execution=Execution()) == judged_at_k(QRELS, RUNS, 2)
    a = compare(QRELS, RUNS, "AP", execution=Execution(), seed=1).to_json()
    assert a == compare(QRELS, RUNS, "AP", progress=False, seed=1).to_json()


def test_the_lab_refuses_what_it_cannot_do() -> None:
    from cranfield.lab.experiment import Experiment

    with pytest.raises(OptionError, match="'store' option must be left at its default"):
        Experiment(None, [], store="x")  # type: ignore[arg-type]


def test_twins_share_the_judgments_read_once() -> None:
    ev = Evaluator(QRELS, ["AP"])
    ev.evaluate(RUNS["a"])
    assert ev.judgments.loaded is not None
    twin = ev.with_options(missing="skip")
    assert twin.judgments is ev.judgments  # the same reading: nothing read again
    assert ev.with_measures(ev.measures).judgments is ev.judgments
    other = ev.with_options(duplicates="error")  # read another way: read again
    assert other.judgments is not ev.judgments
    assert other.judgments.loaded is None


class _ElsewhereEngine(Engine):
    """Workers whose working folder is not the client's (a Dask worker on another machine):
    each item is scored from another folder, and the items sent are kept."""

    workers = 2

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.sent: list[object] = []

    def map(self, function, shared, items):  # type: ignore[no-untyped-def]
        here = Path.cwd()
        for item in items:
            self.sent.append(item.source)
            os.chdir(self.folder)
            try:
                yield function(shared, item)
            finally:
                os.chdir(here)

    def describe(self) -> str:
        return "elsewhere"


def test_relative_run_paths_are_made_absolute_before_they_reach_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run given relative to the client's folder is sent to the workers as an absolute
    path, so a worker in another folder reads the same file (the results are the same)."""
    (tmp_path / "client").mkdir()
    (tmp_path / "worker").mkdir()
    (tmp_path / "client" / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\n")
    monkeypatch.chdir(tmp_path / "client")
    engine = _ElsewhereEngine(tmp_path / "worker")
    monkeypatch.setattr(Execution, "engine", lambda self: engine)
    (res,) = Evaluator(QRELS, ["P@1"]).each(["a.run"])
    assert engine.sent == [str(tmp_path / "client" / "a.run")]
    assert res.run_name == "a"
    assert res.per_query("P@1")["q1"] == 1.0
