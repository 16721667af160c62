"""cranfield's click models give PyClick's figures on the Yandex WSCD sample (issue 35).

PyClick (github.com/markovi/PyClick, commit 98e7e46, the click-model library published with
the Yandex data) is the reference of the click-model literature's perplexities. It is not on
PyPI; its sources run under Python 3 unchanged. ``pyclick_yandex.json`` is its output, made
once with the driver beside this file (its own parser of the sample, PyClick's models,
``Perplexity`` and ``LogLikelihood``)::

    git clone https://github.com/markovi/PyClick /tmp/fidelity-pyclick   # at 98e7e46
    python3.11 -m venv /tmp/fidelity-venv
    /tmp/fidelity-venv/bin/python -W ignore tests/unit/logs/click_models/pyclick_oracle.py \\
        /tmp/fidelity-pyclick ../shared/data/clicks 50 > pyclick_yandex.json
    /tmp/fidelity-venv/bin/python -W ignore tests/unit/logs/click_models/pyclick_oracle.py \\
        /tmp/fidelity-pyclick ../shared/data/clicks 100 PBM > pyclick_yandex_pbm100.json

Every model trains on the 35,064 train sessions and is scored on the 21,413 test ones.
PyClick estimates every parameter as ``(k + 1) / (n + 2)`` (its ``ParamMLE`` and ``ParamEM``
start at 1/2), cranfield's default pseudo-counts (1, 1); its EM runs a fixed 50 iterations
from 1/2, so cranfield's PBM and UBM are run for 50 iterations with no stopping tolerance to
compare: the same algorithm, so the same figures to the last digits. Run to convergence
(cranfield's default: at most 100 iterations, stopping once no parameter moves 1e-6) PBM's
perplexity is 1.4335 against 1.4337 after 50, UBM's 1.4340 against 1.4342; PyClick run for
100 iterations (``pyclick_yandex_pbm100.json``) gives cranfield's default PBM exactly (on
this log PBM's EM runs the 100).

One deviation: PyClick's cascade model gives the conditional probability 1e-6 to every rank
below the first click, clicked or not, where the model says a rank below the first click is
never examined, so not clicking it has probability 1 (cranfield); its log-likelihood is
therefore not compared (its perplexity, from the marginal probabilities, is).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.data.sessions import Sessions
from cranfield.io.click_logs import read_sessions
from cranfield.logs.fitted_click_model import fit_click_model
from tests.conftest import SHARED, require

CLICKS = SHARED / "data" / "clicks"
PYCLICK = json.loads((Path(__file__).parent / "pyclick_yandex.json").read_text())
PYCLICK_PBM_100 = json.loads((Path(__file__).parent / "pyclick_yandex_pbm100.json").read_text())
CLOSED_FORMS = ("GlobalCTR", "RankCTR", "DocumentCTR", "Cascade", "DCM", "SDBN")
EM = ("PBM", "UBM")


@pytest.fixture(scope="module")
def logs() -> tuple[Sessions, Sessions]:
    train = read_sessions(require(CLICKS / "yandex-wscd-sample.train.txt.gz"))
    test = read_sessions(require(CLICKS / "yandex-wscd-sample.test.txt.gz"))
    assert (len(train), len(test)) == (PYCLICK["train_sessions"], PYCLICK["test_sessions"])
    return train, test


@pytest.mark.parametrize("name", [*CLOSED_FORMS, *EM])
def test_pyclick_figures(logs: tuple[Sessions, Sessions], name: str) -> None:
    train, test = logs
    options = {"max_iterations": 50, "tolerance": 0.0} if name in EM else {}
    score = fit_click_model(name, train, **options).score(test)
    theirs = PYCLICK[name]
    assert score.perplexity == pytest.approx(theirs["perplexity"], abs=1e-9)
    assert score.perplexity_at_rank.tolist() == pytest.approx(
        theirs["perplexity_at_rank"], abs=1e-9
    )
    if name != "Cascade":  # PyClick's cascade conditional probabilities: module notes
        assert score.mean_log_likelihood == pytest.approx(theirs["mean_log_likelihood"], abs=1e-9)


@pytest.mark.parametrize(("name", "converged"), [("PBM", 1.4335), ("UBM", 1.4340)])
def test_em_run_to_convergence(
    logs: tuple[Sessions, Sessions], name: str, converged: float
) -> None:
    """cranfield's default fit goes on past PyClick's 50 iterations: within 2e-4 of them."""
    train, test = logs
    fitted = fit_click_model(name, train)
    perplexity = fitted.score(test).perplexity
    assert perplexity == pytest.approx(converged, abs=5e-5)
    assert abs(perplexity - PYCLICK[name]["perplexity"]) < 2e-4
    if name == "PBM":
        assert fitted.parameters()["iterations"] == PYCLICK_PBM_100["em_iterations"] == 100
        assert perplexity == pytest.approx(PYCLICK_PBM_100["PBM"]["perplexity"], abs=1e-9)
