"""``cranfield.stats.power``: discriminative power and topics needed in one call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cranfield
from cranfield.errors import EvaluationError, OptionError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.execution import Execution
from cranfield.stats import PowerStudy, discriminative_power, power, residual_variance
from cranfield.stats.topic_set_size import topic_set_size
from tests.conftest import REPO

EXAMPLES = REPO / "examples"
QRELS = str(EXAMPLES / "qrels.txt")
RUNS = [str(EXAMPLES / "bm25.run"), str(EXAMPLES / "neural.run")]
RNG = np.random.default_rng(3)
# Six queries, three runs of different quality: numbers that differ between measures.
SMALL_QRELS = {f"q{i}": {"d1": 1, "d2": 1, "d3": 0, "d4": 2} for i in range(6)}
SMALL_RUNS = {
    name: {
        f"q{i}": {d: float(s) for d, s in zip(("d1", "d2", "d3", "d4", "x"), row, strict=True)}
        for i, row in enumerate(RNG.uniform(0, 1, size=(6, 5)) + shift)
    }
    for name, shift in (("a", [0.5, 0.4, 0, 0.6, 0]), ("b", [0.2, 0, 0, 0.1, 0.3]), ("c", 0))
}


def test_it_equals_the_building_blocks_called_in_turn_on_one_table() -> None:
    """What ``cranfield power`` composed by hand before, number for number."""
    measures = ["AP", "nDCG@10", "P@5"]
    study = power(QRELS, RUNS, measures, n_resamples=300, trials=7, seed=9, min_d=0.1, beta=0.3)
    table = Evaluator(QRELS, measures).many(RUNS)
    by_hand = discriminative_power(table, measures, n_resamples=300, trials=7, seed=9)
    designs = {
        m: topic_set_size(
            residual_variance(table.matrix(m)), min_d=0.1, beta=0.3, systems=len(table)
        )
        for m in measures
    }
    expected = by_hand.to_dict()
    expected["topic_set_size"] = {m: d.to_dict() for m, d in designs.items()}
    assert study.to_dict() == expected
    assert json.loads(study.to_json()) == expected
    assert list(study.to_dict())[-1] == "topic_set_size"


def test_the_variance_is_the_residual_of_a_two_way_anova_of_the_per_query_scores() -> None:
    """Computed here from each run's own per-query AP, without a ScoreTable."""
    study = power(SMALL_QRELS, SMALL_RUNS, ["AP", "P@2"], n_resamples=50, trials=0, seed=1)
    for m in ("AP", "P@2"):
        x = np.array(
            [
                [cranfield.evaluate(SMALL_QRELS, run, m).per_query(m)[q] for q in SMALL_QRELS]
                for run in SMALL_RUNS.values()
            ]
        ).T  # queries × runs
        n, k = x.shape
        residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0) + x.mean()
        variance = float((residual**2).sum() / ((n - 1) * (k - 1)))
        assert study.variances[m] == pytest.approx(variance, rel=1e-12)
        assert study.topic_set_size[m].systems == 3
        assert study.topic_set_size[m].topics == topic_set_size(variance, systems=3).topics
    power_ = study.discriminative_power
    assert power_.runs == ("a", "b", "c")
    assert power_.queries == 6
    assert power_.pairs == 3


def test_measures_are_read_by_the_grammar_in_order_and_once() -> None:
    study = power(QRELS, RUNS, ["map", "P.5,10", "AP"], n_resamples=20, trials=0, seed=1)
    assert list(study.discriminative_power.measures) == ["AP", "P@5", "P@10"]
    assert list(study.topic_set_size) == ["AP", "P@5", "P@10"]


def test_the_same_seed_gives_the_same_study_and_runs_can_be_named() -> None:
    one = power(QRELS, RUNS, "AP", names=["bm25", "dense"], n_resamples=50, trials=3, seed=4)
    two = power(QRELS, {"bm25": RUNS[0], "dense": RUNS[1]}, "AP", n_resamples=50, trials=3, seed=4)
    assert one.to_json() == two.to_json()
    assert one.discriminative_power.runs == ("bm25", "dense")
    assert repr(one) == "PowerStudy(measures=['AP'], runs=2, queries=8, seed=4)"
    assert isinstance(one, PowerStudy)


def test_the_evaluation_options_reach_the_scores() -> None:
    study = power(QRELS, RUNS, "P@10", n_resamples=20, trials=0, seed=1, depth=3)
    table = Evaluator(QRELS, "P@10", depth=3).many(RUNS)
    assert study.variances["P@10"] == residual_variance(table.matrix("P@10"))


def test_where_the_runs_are_scored_is_passed_on_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}
    many = Evaluator.many

    def spy(self: Evaluator, runs: Any, **kwargs: Any) -> Any:
        seen.update(kwargs)
        return many(self, runs, **kwargs)

    monkeypatch.setattr(Evaluator, "many", spy)
    power(QRELS, RUNS, "AP", n_resamples=20, trials=0, seed=1, store=tmp_path, progress=None)
    assert seen == {"execution": Execution(store=tmp_path, progress=None)}


@pytest.mark.parametrize(
    ("option", "bad"),
    [
        ("min_d", 0.0),
        ("alpha", 1.0),
        ("beta", 0.0),
        ("delta", -1.0),
        ("n_resamples", 0),
        ("trials", -1),
        ("seed", -3),
    ],
)
def test_a_bad_setting_is_refused_before_anything_is_read(option: str, bad: object) -> None:
    with pytest.raises(OptionError, match=f"^The '{option}' option must be"):
        power("no/such/qrels", ["no/such/run", "no/such/run2"], **{option: bad})


def test_fewer_than_two_runs_or_a_single_path_is_an_option_error() -> None:
    with pytest.raises(OptionError, match=r"^The 'runs' option must be at least 2 runs, got 1"):
        power(QRELS, RUNS[:1], "AP")
    with pytest.raises(OptionError, match=r"^The 'runs' option must be a list or a dict"):
        power(QRELS, RUNS[0], "AP")
    with pytest.raises(OptionError, match=r"^The 'measures' option must be at least one"):
        power(QRELS, RUNS, [])


def test_one_query_is_too_few() -> None:
    qrels = {"q1": {"d1": 1}}
    runs = {"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"x": 1.0}}}
    with pytest.raises(EvaluationError, match="at least 2"):
        power(qrels, runs, "AP", n_resamples=10, trials=0, seed=1)
