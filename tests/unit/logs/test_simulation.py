"""Simulated users over runs and qrels (issue 20 §5): the users' table, click functions from
click models, logs that follow their model, and Chapelle et al.'s agreement experiment."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield import Evaluator
from cranfield.errors import OptionError
from cranfield.logs.click_metrics import click_metrics
from cranfield.logs.click_models import Cascade, PairTable
from cranfield.logs.interleaving_experiment import independent_clicks
from cranfield.logs.simulation import (
    USERS,
    ModelClicks,
    RecordedClicks,
    graded_model,
    run_rankings,
    simulate_ab_test,
    simulate_interleaving,
    simulate_log,
    user_probabilities,
)

# eight queries, ten documents each; grades 0..3 (as TREC DL), the relevant ones spread out
QUERIES = [f"q{i}" for i in range(8)]
GRADES = {q: {f"{q}-d{j}": (3 - j // 3 if j < 9 else 0) for j in range(10)} for q in QUERIES}
BEST = {q: {d: 10.0 - j for j, d in enumerate(GRADES[q])} for q in QUERIES}  # grades 3,3,3,2,..
WORST = {q: {d: float(j) for j, d in enumerate(GRADES[q])} for q in QUERIES}  # reversed
_LOWER = (3, 4, 5, 0, 1, 2, 6, 7, 8, 9)  # the three best documents at ranks 4-6
LOWER = {q: {f"{q}-d{j}": 10.0 - r for r, j in enumerate(_LOWER)} for q in QUERIES}


def _evaluator() -> Evaluator:
    return Evaluator(GRADES, ["nDCG@10"])


def test_binary_grades_get_hofmann_et_al_binary_users_and_five_grades_the_table() -> None:
    for user, (click, stop) in USERS.items():
        c, s = user_probabilities(user, [0, 1], max_grade=1)  # type: ignore[arg-type]
        assert (c.tolist(), s.tolist()) == ([click[0], click[4]], [stop[0], stop[4]])
        c, s = user_probabilities(user, [0, 1, 2, 3, 4], max_grade=4)  # type: ignore[arg-type]
        assert (c.tolist(), s.tolist()) == (list(click), list(stop))
    c, _ = user_probabilities("perfect", [-2, -1, 7], max_grade=3)  # unjudged 0, above the top
    assert c.tolist() == [0.0, 0.0, 1.0]


def test_run_rankings_follow_the_ranking_rule_not_the_file_order() -> None:
    # equal scores: trec_eval orders by doc id descending, whatever the order given
    run = {"q0": {"q0-d1": 1.0, "q0-d2": 1.0, "q0-d0": 2.0}}
    graded = run_rankings(_evaluator(), {"r": run}, depth=10)
    assert graded.of("r") == {"q0": ("q0-d0", "q0-d2", "q0-d1")}
    assert graded.grades[("q0", "q0-d2")] == 3
    assert graded.max_grade == 3
    cut = run_rankings(_evaluator(), {"r": BEST}, depth=2)
    assert all(len(docs) == 2 for docs in cut.of("r").values())


@pytest.mark.parametrize("model", ["dbn", "cascade", "pbm"])
def test_simulated_clicks_follow_the_model(model: str) -> None:
    graded = run_rankings(_evaluator(), {"best": BEST}, depth=10)
    clicks = graded_model(graded, model=model, user="informational")  # type: ignore[arg-type]
    log = simulate_log(graded.of("best"), clicks, impressions=4000, seed=5)
    assert len(log) == 8 * 4000
    shown = np.array([[clicks.doc_ids.index(log.doc_ids[c]) for c in row] for row in log.shown[:1]])
    expected = clicks.model.click_probabilities([0], shown)[0]  # every query ranks alike
    got = click_metrics(log).rank_ctr
    assert np.abs(got - expected).max() < 0.015


def test_a_pbm_log_has_ctr_examination_times_attractiveness() -> None:
    graded = run_rankings(_evaluator(), {"best": BEST}, depth=10)
    clicks = graded_model(graded, model="pbm", user="perfect")
    log = simulate_log(graded.of("best"), clicks, impressions=4000, seed=2)
    grades = [GRADES["q0"][d] for d in graded.of("best")["q0"]]
    attract, _ = user_probabilities("perfect", grades, max_grade=3)
    expected = attract / np.arange(1, 11)
    assert np.abs(click_metrics(log).rank_ctr - expected).max() < 0.015


def test_a_log_is_the_same_for_a_seed_and_another_for_another_seed() -> None:
    graded = run_rankings(_evaluator(), {"best": BEST}, depth=10)
    clicks = graded_model(graded)
    one = simulate_log(graded.of("best"), clicks, impressions=50, seed=1)
    two = simulate_log(graded.of("best"), clicks, impressions=50, seed=1)
    other = simulate_log(graded.of("best"), clicks, impressions=50, seed=2)
    assert np.array_equal(one.clicked, two.clicked)
    assert np.array_equal(one.shown, two.shown)
    assert not np.array_equal(one.clicked, other.clicked)


def test_a_fitted_model_plugs_in_and_an_unknown_document_gets_the_prior() -> None:
    model = Cascade(PairTable.from_pairs([0], [0], [1.0], prior=0.0))
    clicks = ModelClicks(model, ("q",), ("a",))
    log = simulate_log({"q": ["x", "a"], "other": ["a"]}, clicks, impressions=5, seed=0)
    assert log.clicked.tolist() == [[False, False]] * 5 + [[False, True]] * 5


def test_recorded_clicks_make_the_log_of_what_was_shown() -> None:
    rec = RecordedClicks(independent_clicks({("q", "b"): 1.0}))
    rec("q", ("a", "b"), np.array([[0, 1], [1, 0]]), np.random.default_rng(0))
    rec("p", ("b",), np.array([[0]]), np.random.default_rng(0))
    log = rec.sessions()
    assert log.query_ids == ("q", "p")
    assert log.shown.tolist() == [[0, 1], [1, 0], [1, -1]]
    assert log.clicked.tolist() == [[False, True], [True, False], [False, False]]
    assert len(RecordedClicks(independent_clicks({})).sessions()) == 0


def test_agreement_goes_to_one_for_a_large_offline_difference() -> None:
    result, log = simulate_interleaving(
        _evaluator(),
        BEST,
        LOWER,
        names=("best", "lower"),
        user="informational",
        sizes=(1, 10, 100),
        seed=3,
        record=True,
    )
    assert result.offline_sign == 1
    assert result.overall[0] < 0.9  # one impression: often a tie
    assert (np.diff(result.overall) >= 0).all()
    assert result.overall[2] > 0.99
    assert result.experiment.preference.delta > 0.05
    assert np.nanmin(result.per_query[:, 2]) > 0.9
    assert log is not None
    assert len(log) == 8 * 1000  # ten times the largest N per query
    assert log.query_ids == tuple(QUERIES)


def test_agreement_is_a_half_for_identical_runs() -> None:
    result, _ = simulate_interleaving(
        _evaluator(), BEST, BEST, names=("a", "a"), sizes=(10, 100), seed=4
    )
    assert result.names == ("a (A)", "a (B)")
    assert result.offline_sign == 0
    assert np.isnan(result.per_query).all()  # no query has an offline sign
    assert np.abs(result.overall - 0.5).max() < 0.05


def test_the_same_seed_gives_the_same_agreement() -> None:
    kw = {"sizes": (10, 50), "impressions": 60, "repetitions": 200, "seed": 9}
    one, _ = simulate_interleaving(_evaluator(), BEST, WORST, method="probabilistic", **kw)
    two, _ = simulate_interleaving(_evaluator(), BEST, WORST, method="probabilistic", **kw)
    assert one.to_dict() == two.to_dict()


def test_bad_options_are_option_errors() -> None:
    graded = run_rankings(_evaluator(), {"best": BEST})
    with pytest.raises(OptionError, match="model"):
        graded_model(graded, model="ubm")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="user"):
        graded_model(graded, user="lazy")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="examination"):
        graded_model(graded, model="dbn", examination=[1.0])
    with pytest.raises(OptionError, match="examination"):
        graded_model(graded, model="pbm", examination=[1.5])
    with pytest.raises(OptionError, match="impressions"):
        simulate_log(graded.of("best"), graded_model(graded), impressions=0)
    with pytest.raises(OptionError, match="sizes"):
        simulate_interleaving(_evaluator(), BEST, WORST, sizes=())
    with pytest.raises(OptionError, match="sizes"):
        simulate_interleaving(_evaluator(), BEST, WORST, sizes=(0,))
    with pytest.raises(OptionError, match="runs"):
        simulate_interleaving(_evaluator(), {"zz": {"d": 1.0}}, BEST)


def test_a_model_fitted_on_a_simulated_log_simulates_it_again() -> None:
    from cranfield.logs.click_models import PBM

    graded = run_rankings(_evaluator(), {"best": BEST, "worst": WORST}, depth=10)
    users = graded_model(graded, model="pbm", user="navigational")
    # both runs' rankings are shown, so each document appears at two ranks (PBM is identified)
    best = simulate_log(graded.of("best"), users, impressions=3000, seed=1)
    worst = simulate_log(graded.of("worst"), users, impressions=3000, seed=2)
    assert best.query_ids == worst.query_ids
    docs = np.array([best.doc_ids.index(d) for d in worst.doc_ids])
    fitted = PBM.fit(
        np.concatenate([best.query, worst.query]),
        np.concatenate([best.shown, docs[worst.shown]]),
        np.concatenate([best.clicked, worst.clicked]),
    )
    clicks = ModelClicks(fitted, best.query_ids, best.doc_ids)
    again = simulate_log(graded.of("worst"), clicks, impressions=3000, seed=3)
    assert np.abs(click_metrics(again).rank_ctr - click_metrics(worst).rank_ctr).max() < 0.03


def test_a_simulated_ab_test_finds_a_large_difference_and_none_between_twins() -> None:
    r = simulate_ab_test(_evaluator(), WORST, BEST, names=("worst", "best"), users=300, seed=2)
    assert r.offline > 0.3
    assert r.test.interval[0] > 0  # far from 0: the best run's first clicks come earlier
    assert r.agrees
    assert (r.test.control.name, r.test.treatment.name) == ("worst", "best")
    assert (r.test.control.units, r.test.control.rows, r.test.unit) == (300, 1500, "user")
    twins = [
        simulate_ab_test(_evaluator(), BEST, BEST, users=200, seed=s, metric="ctr").test
        for s in range(20)
    ]
    covered = sum(t.interval[0] <= 0 <= t.interval[1] for t in twins)
    assert covered >= 17  # 95% intervals of no difference: about 19 of 20 cover 0
    again = simulate_ab_test(_evaluator(), WORST, BEST, names=("worst", "best"), users=300, seed=2)
    assert again.test.difference == r.test.difference
    assert again.to_dict()["test"] == r.to_dict()["test"]


def test_a_simulated_ab_test_refuses_bad_settings() -> None:
    for bad in ({"users": 1}, {"sessions": 0}, {"metric": "dwell"}, {"depth": 0}):
        with pytest.raises(OptionError):
            simulate_ab_test(_evaluator(), WORST, BEST, **bad)  # type: ignore[arg-type]
