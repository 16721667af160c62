"""Crowd labels combined (issue 33, part 1): hand-computed cases, simulated crowds with known
worker accuracies, and crowd-kit 1.4 (the oracle, test-only) on the same labels."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import InputError, OptionError
from cranfield.io.crowd_labels import CrowdLabels
from cranfield.judges import combine
from tests.unit.judges.conftest import simulated_crowd


def _crowd(*rows: tuple[str, str, str, int]) -> CrowdLabels:
    w, q, d, lab = zip(*rows, strict=True)
    s = lambda v: np.array(v, dtype=np.str_)  # noqa: E731
    return CrowdLabels(s(w), s(q), s(d), np.array(lab, dtype=np.int64))


HAND = _crowd(
    ("a", "q1", "d1", 2),
    ("b", "q1", "d1", 2),
    ("c", "q1", "d1", 0),
    ("a", "q1", "d2", 1),
    ("b", "q1", "d2", 0),
    ("c", "q2", "d3", 3),
)


def test_majority_vote_by_hand_with_its_tie_to_the_lowest_grade() -> None:
    r = combine(HAND, method="majority")
    assert list(zip(r.queries.tolist(), r.docs.tolist(), r.labels.tolist(), strict=True)) == [
        ("q1", "d1", 2),
        ("q1", "d2", 0),  # 1 vs 0: a tie, the lowest grade
        ("q2", "d3", 3),
    ]
    assert r.grades == (0, 1, 2, 3)
    assert r.ties == 1
    assert r.probabilities[0].tolist() == pytest.approx([1 / 3, 0, 2 / 3, 0])
    by = {w.worker: w for w in r.workers}
    assert (by["a"].labels, by["a"].agreement) == (2, 0.5)  # d1 right, d2 not
    assert (by["b"].agreement, by["c"].agreement) == (1.0, 0.5)
    assert any("took the lowest" in n for n in r.notes)


def test_gold_scores_the_workers_and_holds_em() -> None:
    gold = {("q1", "d1"): 0, ("q1", "d2"): 1, ("zz", "nothing"): 2}
    r = combine(HAND, method="dawid-skene", gold=gold)
    by = {w.worker: w for w in r.workers}
    assert (by["a"].gold, by["a"].gold_accuracy) == (2, 0.5)  # d1 wrong, d2 right
    assert (by["c"].gold, by["c"].gold_accuracy) == (1, 1.0)
    assert (r.gold_pairs, r.gold_labelled) == (3, 2)
    labels = dict(zip(r.docs.tolist(), r.labels.tolist(), strict=True))
    assert (labels["d1"], labels["d2"]) == (0, 1)  # held at gold during EM
    assert np.isnan(combine(HAND, method="majority").workers[0].gold_accuracy)


def test_gold_that_shares_no_pair_is_one_sentence() -> None:
    with pytest.raises(InputError, match="no worker labelled any of the 1 gold pairs"):
        combine(HAND, gold={("q9", "d9"): 1})
    with pytest.raises(InputError, match="outside the scale 0-3"):
        combine(HAND, gold={("q1", "d1"): 7})
    with pytest.raises(OptionError):
        combine(HAND, method="mace")  # type: ignore[arg-type]


@pytest.mark.parametrize("method", ["majority", "dawid-skene", "one-coin", "glad"])
def test_simulated_crowd_recovers_the_truth_and_the_worker_accuracies(method: str) -> None:
    crowd, truth, accuracy = simulated_crowd()
    r = combine(crowd, method=method)  # type: ignore[arg-type]
    right = np.mean(
        [truth[(q, d)] == lab for q, d, lab in zip(r.queries, r.docs, r.labels, strict=True)]
    )
    # five labels a pair from workers 30-90 % right: majority 0.847, the EM methods 0.87-0.90
    assert right == pytest.approx(
        {"majority": 0.8467, "dawid-skene": 0.8733, "one-coin": 0.9, "glad": 0.8933}[method],
        abs=1e-4,
    )
    skills = np.array([w.skill for w in r.workers])
    known = np.array([accuracy[w.worker] for w in r.workers])
    assert np.corrcoef(skills, known)[0, 1] > 0.9  # the quality estimates order the workers


def test_the_result_as_qrels_and_plain_data() -> None:
    r = combine(HAND, method="majority")
    qrels = r.to_qrels("crowd")
    assert qrels.to_dict() == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 3}}
    data = r.to_dict()
    assert data["pairs"] == 3
    assert data["label_counts"] == {"0": 1, "1": 0, "2": 1, "3": 1}
    assert [w["worker"] for w in data["workers"]] == ["a", "b", "c"]


# --------------------------------------------------------------------------- crowd-kit


def _crowdkit_frame(crowd: CrowdLabels) -> object:
    import pandas as pd

    return pd.DataFrame(
        {
            "worker": crowd.workers.tolist(),
            "task": np.char.add(np.char.add(crowd.queries, "|"), crowd.docs).tolist(),
            "label": crowd.labels.tolist(),
        }
    )


def _theirs(aggregator: object, crowd: CrowdLabels, ours: object, **fit: object) -> tuple:
    frame = _crowdkit_frame(crowd)
    probas = aggregator.fit_predict_proba(frame, **fit)  # type: ignore[attr-defined]
    keys = np.char.add(np.char.add(ours.queries, "|"), ours.docs)  # type: ignore[attr-defined]
    grades = list(ours.grades)  # type: ignore[attr-defined]
    labels = aggregator.labels_.loc[keys].to_numpy()  # type: ignore[attr-defined]
    return probas.loc[keys, grades].to_numpy(), labels


TOLERANCE = {"dawid-skene": 1e-8, "one-coin": 1e-8, "glad": 1e-6}
"""Largest difference of a posterior allowed against crowd-kit: the same steps in another
order of summation (and crowd-kit's 1e-10 floor on probabilities that we floor likewise)."""


ORACLE_WARNINGS = pytest.mark.filterwarnings("ignore::Warning")
"""crowd-kit 1.4 warns under pandas 3 (inplace, copy keywords): its warnings, not ours."""


@pytest.mark.slow
@ORACLE_WARNINGS
@pytest.mark.parametrize("method", ["majority", "dawid-skene", "one-coin", "glad"])
def test_equal_to_crowdkit_on_a_simulated_crowd(method: str) -> None:
    from crowdkit.aggregation import GLAD, DawidSkene, MajorityVote, OneCoinDawidSkene

    crowd, _, _ = simulated_crowd()
    ours = combine(crowd, method=method)  # type: ignore[arg-type]
    aggregator = {
        "majority": MajorityVote(),
        "dawid-skene": DawidSkene(n_iter=100),
        "one-coin": OneCoinDawidSkene(n_iter=100),
        "glad": GLAD(),
    }[method]
    probas, labels = _theirs(aggregator, crowd, ours)
    if method == "majority":
        # the vote shares exactly; every untied pair's label exactly. crowd-kit breaks a tie
        # by its column order (the order pandas' value_counts meets the labels), we by the
        # lowest grade, stated
        assert np.array_equal(probas, ours.probabilities)
        untied = (ours.probabilities == ours.probabilities.max(axis=1, keepdims=True)).sum(1) == 1
        assert untied.sum() == ours.labels.size - ours.ties == 262
        assert np.array_equal(labels[untied], ours.labels[untied])
    else:
        assert np.abs(probas - ours.probabilities).max() < TOLERANCE[method]
        assert np.array_equal(labels, ours.labels)
        assert ours.iterations == len(aggregator.loss_history_)


@pytest.mark.slow
@ORACLE_WARNINGS
def test_dawid_skene_with_gold_equal_to_crowdkit_with_true_labels() -> None:
    import pandas as pd
    from crowdkit.aggregation import DawidSkene

    crowd, truth, _ = simulated_crowd(seed=1)
    gold = dict(list(truth.items())[:40])
    ours = combine(crowd, method="dawid-skene", gold=gold)
    true_labels = pd.Series({f"{q}|{d}": lab for (q, d), lab in gold.items()})
    probas, labels = _theirs(DawidSkene(n_iter=100), crowd, ours, true_labels=true_labels)
    assert np.abs(probas - ours.probabilities).max() < TOLERANCE["dawid-skene"]
    assert np.array_equal(labels, ours.labels)


# --------------------------------------------------------------------------- properties

from hypothesis import given, settings  # noqa: E402 - the properties' own imports
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 2), st.integers(0, 5), st.integers(0, 3)),
        min_size=1,
        max_size=40,
        unique_by=lambda r: (r[0], r[1], r[2]),
    ),
    seed=st.integers(0, 2**16),
    method=st.sampled_from(["majority", "dawid-skene", "one-coin", "glad"]),
)
def test_the_order_of_the_labels_does_not_matter(
    rows: list[tuple[int, int, int, int]], seed: int, method: str
) -> None:
    crowd = _crowd(*((f"w{w}", f"q{q}", f"d{d}", g) for w, q, d, g in rows))
    order = np.random.default_rng(seed).permutation(len(rows))
    shuffled = _crowd(*((f"w{w}", f"q{q}", f"d{d}", g) for w, q, d, g in (rows[i] for i in order)))
    a = combine(crowd, method=method)  # type: ignore[arg-type]
    b = combine(shuffled, method=method)  # type: ignore[arg-type]
    assert np.allclose(a.probabilities, b.probabilities, atol=1e-9)
    # labels equal wherever the best grade is clear (a tie within rounding may go either way)
    top2 = np.sort(a.probabilities, axis=1)[:, -2:] if a.probabilities.shape[1] > 1 else None
    clear = np.ones(a.labels.size, bool) if top2 is None else top2[:, 1] - top2[:, 0] > 1e-9
    assert a.labels[clear].tolist() == b.labels[clear].tolist()
    assert set(a.labels.tolist()) <= {g for *_, g in rows}  # a label some worker gave
    if method == "majority":  # the combined label is a most frequent one
        for q, d, lab, p in zip(a.queries, a.docs, a.labels, a.probabilities, strict=True):
            given_ = [g for w, qq, dd, g in rows if f"q{qq}" == q and f"d{dd}" == d]
            assert given_.count(lab) == max(given_.count(g) for g in set(given_))
            assert p.sum() == pytest.approx(1.0)
