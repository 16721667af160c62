"""A simulated interleaving experiment (cranfield.logs.interleaving_experiment): two runs, a
click function, N impressions per query; the driver a click model plugs into."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import OptionError
from cranfield.logs.interleaving_experiment import independent_clicks, interleaving_experiment

GOOD = {f"q{i}": [f"r{i}", f"n{i}", f"m{i}"] for i in range(6)}
BAD = {f"q{i}": [f"n{i}", f"m{i}", f"r{i}"] for i in range(6)}
RELEVANT = {(f"q{i}", f"r{i}"): 0.9 for i in range(6)}


@pytest.mark.parametrize("method", ["team-draft", "balanced", "probabilistic"])
def test_the_better_run_wins_under_every_method(method: str) -> None:
    e = interleaving_experiment(
        GOOD, BAD, independent_clicks(RELEVANT), method=method, impressions=200, seed=1
    )
    assert e.preference.delta > 0.1
    # the sign test counts queries: all 6 won, p = 2 / 2**6
    assert (e.preference.unit_wins, e.preference.unit_losses) == (6, 0)
    assert e.preference.p_value == 2 / 2**6
    assert e.preference.interval[0] > 0
    assert e.query_ids == tuple(sorted(GOOD))
    assert e.outcomes.shape == (1200,)
    assert sum(sum(v) for v in e.per_query().values()) == 1200


def test_a_run_against_itself_has_no_preference() -> None:
    e = interleaving_experiment(GOOD, GOOD, independent_clicks(RELEVANT), impressions=500, seed=2)
    lo, hi = e.preference.interval
    assert lo < 0 < hi


def test_examination_by_rank_is_a_position_based_user() -> None:
    """Only rank 1 is examined: the better run's relevant document is at rank 1 only when it
    is shown first."""
    clicks = independent_clicks({("q", "r"): 1.0}, examination=[1.0])
    shown = np.array([[0, 1], [1, 0]])
    got = clicks("q", ("r", "n"), shown, np.random.default_rng(0))
    assert got.tolist() == [[True, False], [False, False]]


def test_seeded_and_reproducible_and_queries_of_one_run_are_named() -> None:
    b = dict(BAD)
    b["only-b"] = ["x"]
    one = interleaving_experiment(GOOD, b, independent_clicks(RELEVANT), impressions=20, seed=5)
    two = interleaving_experiment(GOOD, b, independent_clicks(RELEVANT), impressions=20, seed=5)
    assert (one.outcomes == two.outcomes).all()
    assert one.left_out == ("only-b",)


def test_a_click_function_of_the_wrong_shape_is_an_option_error() -> None:
    def wrong(query_id: str, doc_ids: tuple[str, ...], shown: object, gen: object) -> object:
        return np.zeros((1, 1), dtype=bool)

    with pytest.raises(OptionError, match="boolean array"):
        interleaving_experiment(GOOD, BAD, wrong, impressions=3, seed=0)  # type: ignore[arg-type]
    with pytest.raises(OptionError):
        interleaving_experiment({"a": ["x"]}, {"b": ["x"]}, independent_clicks({}), seed=0)
    with pytest.raises(OptionError):
        interleaving_experiment(GOOD, BAD, independent_clicks({}), method="x", seed=0)  # type: ignore[arg-type]
    with pytest.raises(OptionError):
        independent_clicks({("q", "d"): 1.5})


def test_agreement_grows_with_the_number_of_impressions() -> None:
    """Chapelle et al.'s curve: with one impression the share is P(win) + P(tie) / 2; with
    many it goes to 1; the two signs share the draws, so their agreements add up to 1."""
    e = interleaving_experiment(
        GOOD, BAD, independent_clicks(RELEVANT), impressions=300, seed=4, depth=2
    )
    o = e.outcomes
    curve = e.agreement(1, [1, 5, 50, 500], repetitions=4000, seed=1)
    single = (o > 0).mean() + 0.5 * (o == 0).mean()
    assert curve[0] == pytest.approx(single, abs=0.03)
    assert list(curve) == sorted(curve)
    assert curve[-1] == 1.0
    other = e.agreement(-1, [1, 5, 50, 500], repetitions=4000, seed=1)
    assert np.allclose(curve + other, 1.0)
    with pytest.raises(OptionError):
        e.agreement(0, [1])
    with pytest.raises(OptionError):
        e.agreement(1, [0])
