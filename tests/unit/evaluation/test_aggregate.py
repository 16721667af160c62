"""Aggregation over queries: the ``aggregate`` option, each measure's declared default, micro
averaging where a measure allows it, and GMAP's epsilon; errors in one sentence."""

from __future__ import annotations

import numpy as np
import pytest

import cranfield
from cranfield.errors import MeasureError
from tests.conftest import one_sentence

QRELS = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1, "e": 1}}
RUN = {"1": {"a": 3.0, "b": 2.0, "x": 1.0}, "2": {"e": 1.0, "y": 0.5}}


@pytest.mark.parametrize("how", ["mean", "sum", "gmean", "median"])
def test_aggregate_applies_to_every_measure(how: str) -> None:
    res = cranfield.evaluate(QRELS, RUN, ["AP", "P@2"], aggregate=how)
    for m in ("AP", "P@2"):
        assert res.how(m) == how
        assert res[m] == res.aggregate(m, how)


def test_default_aggregates_are_the_declared_ones() -> None:
    res = cranfield.evaluate(QRELS, RUN, ["AP", "GMAP", "NumRet"])
    assert (res.how("AP"), res.how("GMAP"), res.how("NumRet")) == ("mean", "gmean", "sum")
    assert res["NumRet"] == 5
    assert res.aggregate("AP", "median") == float(np.median(res.values[res._key("AP")]))


def test_micro_for_a_ranked_measure_is_refused() -> None:
    with pytest.raises(MeasureError, match="cannot be micro-averaged") as exc:
        cranfield.evaluate(QRELS, RUN, ["SetP", "AP"], aggregate="micro")
    one_sentence(exc)
    res = cranfield.evaluate(QRELS, RUN, ["SetP", "AP"])
    with pytest.raises(MeasureError, match="cannot be micro-averaged"):
        res.aggregate("AP", "micro")


def test_unknown_aggregation_and_measure_in_mapping() -> None:
    with pytest.raises(cranfield.OptionError, match="The 'aggregate' option must be one of") as e:
        cranfield.evaluate(QRELS, RUN, ["AP"], aggregate="harmonic")  # type: ignore[arg-type]
    one_sentence(e)
    with pytest.raises(MeasureError, match="not among the measures evaluated"):
        cranfield.evaluate(QRELS, RUN, ["AP"], aggregate={"P@5": "median"})
    with pytest.raises(ValueError, match="epsilon"):
        cranfield.evaluate(QRELS, RUN, ["GMAP"], epsilon=0.0)
    res = cranfield.evaluate(QRELS, RUN, ["GMAP"])
    with pytest.raises(cranfield.OptionError, match="The 'how' option must be one of 'mean'") as e:
        res.aggregate("GMAP", "harmonic")  # type: ignore[arg-type]
    one_sentence(e)
    with pytest.raises(cranfield.OptionError, match="The 'epsilon' option must be a number > 0"):
        res.aggregate("GMAP", "gmean", epsilon=0.0)


def test_epsilon_reaches_the_geometric_mean() -> None:
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, "2": {"z": 1.0}}
    assert cranfield.evaluate(qrels, run, ["GMAP"])["GMAP"] == pytest.approx(np.sqrt(1e-5))
    assert cranfield.evaluate(qrels, run, ["GMAP"], epsilon=0.01)["GMAP"] == pytest.approx(0.1)
