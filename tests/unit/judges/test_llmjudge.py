"""The LLMJudge numbers of docs/many-judges.md, reproduced from the shared files with other
programs (scikit-learn's κ, the krippendorff package's α), and the aggregation of the 33
judges against crowd-kit (issue 33, part 2)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import REPO, SHARED, require

DATA = SHARED / "data" / "judges" / "llmjudge"
PAGE = REPO / "docs" / "many-judges.md"


def _docs_table() -> dict[str, list[float]]:
    """The judges' rows of the page's first table: kappa, linear, bin@2, alpha."""
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("```text\n", 1)[1].split("```", 1)[0]
    rows = {}
    for line in block.splitlines()[1:]:
        cells = line.split()
        rows[cells[0]] = [float(v) for v in cells[2:6]]
    return rows


def _grades(path: object) -> dict[tuple[str, str], int]:
    out = {}
    with open(path, encoding="utf-8") as lines:  # a plain reader: the oracle is not cranfield
        for line in lines:
            q, _, d, g = line.split()
            out[(q, d)] = int(g)
    return out


@pytest.mark.slow  # 33 files read twice and two oracles imported: about 10 s
def test_the_docs_kappas_are_reproduced_from_the_shared_files() -> None:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    rows = _docs_table()
    files = sorted(require(DATA / "scores").glob("*.txt"))
    assert len(rows) == len(files) == 33
    humans = _grades(DATA / "data" / "llmjudge_test_qrel_idx.txt")
    keys = sorted(humans)
    h = np.array([humans[k] for k in keys])
    for path in files:
        judge = _grades(path)
        m = np.array([judge[k] for k in keys])
        expected = [
            cohen_kappa_score(h, m),
            cohen_kappa_score(h, m, weights="linear"),
            cohen_kappa_score(h >= 2, m >= 2),
            krippendorff.alpha(np.vstack([h, m]).astype(float), level_of_measurement="ordinal"),
        ]
        assert rows[path.stem] == pytest.approx(expected, abs=5e-5), path.stem


def test_the_docs_name_the_best_judges_from_the_table() -> None:
    rows = _docs_table()
    best_grades = max(rows, key=lambda j: rows[j][0])
    best_binary = max(rows, key=lambda j: rows[j][2])
    text = PAGE.read_text(encoding="utf-8")
    assert (best_grades, best_binary) == ("willia-umbrela1", "h2oloo-fewself")
    assert f"willia-umbrela1: {rows['willia-umbrela1'][0]:.4f} over the grades" in text
    assert f"h2oloo-fewself: {rows['h2oloo-fewself'][2]:.4f}" in text
    assert sum(v[2] > 0.4 for v in rows.values()) == 1  # "the 32 others are fair or worse"


def _crowd() -> object:
    from cranfield.io.crowd_labels import crowd_from_qrels

    files = sorted(require(DATA / "scores").glob("*.txt"))
    return crowd_from_qrels(files, names=[f.stem for f in files], outside="skip")


def test_the_33_judges_as_a_crowd() -> None:
    crowd = _crowd()
    assert crowd.skipped == 3  # two judges' 5s and 10
    assert len(crowd) == 33 * 4423 - 3
    from cranfield.judges import combine

    result = combine(crowd, method="dawid-skene")  # type: ignore[arg-type]
    assert result.iterations == 2
    assert [int((result.labels == g).sum()) for g in range(4)] == [1964, 1149, 838, 472]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::Warning")  # crowd-kit's own warnings under pandas 3
@pytest.mark.parametrize("method", ["majority", "dawid-skene", "one-coin"])
def test_the_33_judges_combined_equal_crowdkit(method: str) -> None:
    import pandas as pd
    from crowdkit.aggregation import DawidSkene, MajorityVote, OneCoinDawidSkene

    from cranfield.judges import combine

    crowd = _crowd()
    ours = combine(crowd, method=method)  # type: ignore[arg-type]
    frame = pd.DataFrame(
        {
            "worker": crowd.workers.tolist(),  # type: ignore[attr-defined]
            "task": np.char.add(np.char.add(crowd.queries, "|"), crowd.docs).tolist(),  # type: ignore[attr-defined]
            "label": crowd.labels.tolist(),  # type: ignore[attr-defined]
        }
    )
    aggregator = {
        "majority": MajorityVote(),
        "dawid-skene": DawidSkene(n_iter=100),
        "one-coin": OneCoinDawidSkene(n_iter=100),
    }[method]
    probas = aggregator.fit_predict_proba(frame)
    keys = np.char.add(np.char.add(ours.queries, "|"), ours.docs)
    theirs = probas.loc[keys, list(ours.grades)].to_numpy()
    assert np.abs(theirs - ours.probabilities).max() < 1e-8
    assert np.array_equal(aggregator.labels_.loc[keys].to_numpy(), ours.labels)


GLAD_TOLERANCE = 0.01
"""GLAD against crowd-kit on real judges: the labels equal, the posteriors within 0.01. The
M-step is scipy's conjugate gradient stopped at tol 1e-2 after at most 25 steps, as crowd-kit
runs it; on these 12,704 labels the order of summation in the objective and gradient moves its
path enough that EM stops one iteration later (8 against 7) and the posteriors differ by up to
0.0066. On the simulated crowds of test_aggregation.py they agree within 1e-6."""


def test_glad_on_the_llmjudge_judges_equals_crowdkit_recorded() -> None:
    import json

    from cranfield.io.crowd_labels import CrowdLabels
    from cranfield.judges import combine

    fixture = json.loads(
        (
            REPO / "tests" / "unit" / "judges" / "fixtures" / "crowdkit_glad_llmjudge.json"
        ).read_text()
    )
    crowd = _crowd()
    keep = np.isin(crowd.queries, fixture["queries"])  # type: ignore[attr-defined]
    part = CrowdLabels(
        crowd.workers[keep],  # type: ignore[attr-defined]
        crowd.queries[keep],  # type: ignore[attr-defined]
        crowd.docs[keep],  # type: ignore[attr-defined]
        crowd.labels[keep],  # type: ignore[attr-defined]
    )
    assert len(part) == fixture["labels_in"] == 12704
    ours = combine(part, method="glad")
    keys = np.char.add(np.char.add(ours.queries, "|"), ours.docs).tolist()
    assert sorted(keys) == fixture["tasks"]
    at = {task: i for i, task in enumerate(fixture["tasks"])}
    rows = [at[k] for k in keys]
    assert list(ours.grades) == fixture["grades"]
    assert ours.labels.tolist() == [fixture["labels"][i] for i in rows]
    theirs = np.array(fixture["probabilities"])[rows]
    assert np.abs(theirs - ours.probabilities).max() < GLAD_TOLERANCE
    assert abs(ours.iterations - fixture["iterations"]) <= 1
