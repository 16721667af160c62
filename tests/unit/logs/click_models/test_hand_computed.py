"""Each model's estimates on tiny logs, computed by hand from the published update equations.

The expected values are worked out in the comments from the equations as Chuklin, Markov &
de Rijke (2015, ch. 4) state them, not from cranfield's code. Ranks are 1-based in comments.
"""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.logs.click_models import (
    DCM,
    PBM,
    SDBN,
    UBM,
    Cascade,
    DocumentCTR,
    GlobalCTR,
    RankCTR,
)

MLE = (0.0, 0.0)
"""No pseudo-counts: the published maximum-likelihood equations these cases work out."""

CTR_LOG = (
    [0, 0, 1],
    [[1, 2, 3], [2, 1, -1], [1, 2, 3]],
    [[1, 0, 0], [1, 1, 0], [0, 0, 1]],
)


def test_ctr_baselines() -> None:
    # 4 clicks on 8 shown results; per rank 2/3, 1/3, 1/2 (rank 3 shown twice).
    assert GlobalCTR.fit(*CTR_LOG, pseudo_counts=MLE).ctr == 0.5
    assert RankCTR.fit(*CTR_LOG, pseudo_counts=MLE).ctr.tolist() == pytest.approx(
        [2 / 3, 1 / 3, 1 / 2]
    )
    model = DocumentCTR.fit(*CTR_LOG, pseudo_counts=MLE)
    assert model.relevance().as_dict() == {
        (0, 1): 1.0,  # clicked at rank 1 (session 1) and rank 2 (session 2)
        (0, 2): 0.5,
        (0, 3): 0.0,
        (1, 1): 0.0,
        (1, 2): 0.0,
        (1, 3): 1.0,
    }
    # an unseen pair gets the prior; no click is predicted where no result is shown
    assert model.click_probabilities([0], [[4, 1, -1]]).tolist() == [[0.5, 1.0, 0.0]]


# PBM, two sessions of query 0: docs (1, 2) with a click on 1; docs (2, 1) without clicks.
PBM_LOG = ([0, 0], [[1, 2], [2, 1]], [[1, 0], [0, 0]])


def test_pbm_em_iterations() -> None:
    # From α = γ = 1/2, a skip has P(A=1|C=0) = α(1-γ)/(1-αγ) = (1/4)/(3/4) = 1/3, and the same
    # P(E=1|C=0). Iteration 1: α_1 = (1 + 1/3)/2 = 2/3, α_2 = (1/3 + 1/3)/2 = 1/3;
    # γ_1 = (1 + 1/3)/2 = 2/3 (a click, a skip), γ_2 = 1/3 (two skips).
    one = PBM.fit(*PBM_LOG, pseudo_counts=MLE, max_iterations=1)
    assert one.attractiveness.as_dict() == pytest.approx({(0, 1): 2 / 3, (0, 2): 1 / 3})
    assert one.examination.tolist() == pytest.approx([2 / 3, 1 / 3])
    # Iteration 2. α_1: the skip of doc 1 at rank 2 has (2/3)(2/3)/(1 - 2/9) = 4/7, so
    # α_1 = (1 + 4/7)/2 = 11/14. α_2: skips at rank 2 (1/3)(2/3)/(1 - 1/9) = 1/4 and at rank 1
    # (1/3)(1/3)/(1 - 2/9) = 1/7, so α_2 = 11/56. γ_1: click 1, skip of doc 2 at rank 1:
    # (2/3)(2/3)/(7/9) = 4/7 → 11/14; γ_2: (1/3)(2/3)/(8/9) = 1/4 and (1/3)(1/3)/(7/9) = 1/7
    # → 11/56.
    two = PBM.fit(*PBM_LOG, pseudo_counts=MLE, max_iterations=2)
    assert two.attractiveness.as_dict() == pytest.approx({(0, 1): 11 / 14, (0, 2): 11 / 56})
    assert two.examination.tolist() == pytest.approx([11 / 14, 11 / 56])
    assert two.iterations == 2


def test_ubm_em_iteration() -> None:
    # Sessions (1, 2) clicked on both, (1, 2) without clicks. From 1/2, a skip gives 1/3 to
    # P(A=1|C=0) and P(E=1|C=0) (as for PBM). α_1 = α_2 = (1 + 1/3)/2 = 2/3.
    # γ_{1,0} (rank 1, no click above): a click and a skip → 2/3; γ_{2,1} (rank 2 after a click
    # at rank 1): one click → 1; γ_{2,0}: one skip → 1/3.
    model = UBM.fit([0, 0], [[1, 2], [1, 2]], [[1, 1], [0, 0]], pseudo_counts=MLE, max_iterations=1)
    assert model.attractiveness.as_dict() == pytest.approx({(0, 1): 2 / 3, (0, 2): 2 / 3})
    assert model.examination[0, 0] == pytest.approx(2 / 3)
    assert np.isnan(model.examination[0, 1])
    assert model.examination[1].tolist() == pytest.approx([1 / 3, 1.0])


# One query; sessions (1, 2, 3) clicked at rank 2; (2, 1, 3) clicked at ranks 1 and 3;
# (3, 1, 2) without clicks.
CASCADE_LOG = ([0, 0, 0], [[1, 2, 3], [2, 1, 3], [3, 1, 2]], [[0, 1, 0], [1, 0, 1], [0, 0, 0]])


def test_cascade_closed_form() -> None:
    # Examined down to the first click: session 1 ranks 1-2, session 2 rank 1, session 3 all.
    # doc 1: skipped twice → 0; doc 2: clicked twice, skipped once → 2/3; doc 3: skipped once
    # (session 3; never examined in sessions 1, 2) → 0.
    model = Cascade.fit(*CASCADE_LOG, pseudo_counts=MLE)
    assert model.relevance().as_dict() == pytest.approx({(0, 1): 0.0, (0, 2): 2 / 3, (0, 3): 0.0})


def test_dcm_closed_form() -> None:
    # Examined down to the last click: session 1 ranks 1-2, session 2 ranks 1-3, session 3 all.
    # doc 1: three skips → 0; doc 2: two clicks, one skip → 2/3; doc 3: one click (session 2),
    # one skip (session 3) → 1/2. λ_r = 1 - (last clicks at r)/(clicks at r): rank 1: one
    # click, not the last → 1; rank 2: one click, the last → 0; rank 3: likewise → 0.
    model = DCM.fit(*CASCADE_LOG, pseudo_counts=MLE)
    assert model.relevance().as_dict() == pytest.approx({(0, 1): 0.0, (0, 2): 2 / 3, (0, 3): 0.5})
    assert model.continuation.tolist() == [1.0, 0.0, 0.0]


def test_sdbn_closed_form() -> None:
    # α as DCM's. σ = (times the last click)/(clicks): doc 2 clicked twice, last once → 1/2;
    # doc 3 clicked once, the last → 1; doc 1 never clicked → the prior.
    model = SDBN.fit(*CASCADE_LOG, pseudo_counts=MLE, prior=0.25)
    assert model.attractiveness.as_dict() == pytest.approx(
        {(0, 1): 0.0, (0, 2): 2 / 3, (0, 3): 0.5}
    )
    assert model.satisfaction.as_dict() == pytest.approx({(0, 1): 0.25, (0, 2): 0.5, (0, 3): 1.0})
    # relevance = α σ
    assert model.relevance().as_dict() == pytest.approx({(0, 1): 0.0, (0, 2): 1 / 3, (0, 3): 0.5})


def test_pseudo_counts_smooth_every_ratio() -> None:
    """The default pseudo-counts (1, 1): every ratio k / n above becomes (k + 1) / (n + 2),
    PyClick's estimate (its ``ParamMLE`` and ``ParamEM`` start at 1 / 2)."""
    # DocumentCTR: (0, 1) two clicks of two → 3/4; (0, 3) none of one → 1/3.
    ctr = DocumentCTR.fit(*CTR_LOG)
    assert ctr.relevance().as_dict() == pytest.approx(
        {(0, 1): 3 / 4, (0, 2): 2 / 4, (0, 3): 1 / 3, (1, 1): 1 / 3, (1, 2): 1 / 3, (1, 3): 2 / 3}
    )
    assert GlobalCTR.fit(*CTR_LOG).ctr == pytest.approx(5 / 10)
    assert RankCTR.fit(*CTR_LOG).ctr.tolist() == pytest.approx([3 / 5, 2 / 5, 2 / 4])
    # Cascade: doc 1 skipped twice → 1/4, doc 2 clicked 2 of 3 → 3/5, doc 3 skipped once → 1/3.
    cascade = Cascade.fit(*CASCADE_LOG)
    assert cascade.relevance().as_dict() == pytest.approx(
        {(0, 1): 1 / 4, (0, 2): 3 / 5, (0, 3): 1 / 3}
    )
    # DCM: doc 3 one click of two → 2/4; λ: rank 1 one click not the last → 2/3; ranks 2 and
    # 3 one click, the last → 1/3.
    dcm = DCM.fit(*CASCADE_LOG, pseudo_counts=(1, 1))
    assert dcm.relevance().as_dict() == pytest.approx({(0, 1): 1 / 5, (0, 2): 3 / 5, (0, 3): 2 / 4})
    assert dcm.continuation.tolist() == pytest.approx([2 / 3, 1 / 3, 1 / 3])
    # SDBN: σ of doc 1 (never clicked) → 1/2, doc 2 one last of two clicks → 2/4, doc 3 → 2/3.
    sdbn = SDBN.fit(*CASCADE_LOG, prior=0.25)
    assert sdbn.satisfaction.as_dict() == pytest.approx(
        {(0, 1): 1 / 2, (0, 2): 2 / 4, (0, 3): 2 / 3}
    )
    # PBM, one EM iteration from 1/2: the expected counts of test_pbm_em_iterations plus 1
    # over the impressions plus 2: α_1 = (1 + 1/3 + 1)/4 = 7/12, α_2 = (2/3 + 1)/4 = 5/12.
    pbm = PBM.fit(*PBM_LOG, max_iterations=1)
    assert pbm.attractiveness.as_dict() == pytest.approx({(0, 1): 7 / 12, (0, 2): 5 / 12})
    assert pbm.examination.tolist() == pytest.approx([7 / 12, 5 / 12])
    # (0, 0): the maximum likelihood; a pair never examined then gets the prior
    lone = Cascade.fit([0], [[1, 2]], [[1, 0]], pseudo_counts=(0, 0), prior=0.3)
    assert lone.relevance().as_dict() == {(0, 1): 1.0, (0, 2): 0.3}
    assert Cascade.fit([0], [[1, 2]], [[1, 0]], prior=0.3).relevance().as_dict() == {
        (0, 1): 2 / 3,
        (0, 2): 1 / 2,
    }


@pytest.mark.parametrize("bad", [(1,), (1, 2, 3), (-1, 1), "1,1", (float("nan"), 1)])
def test_pseudo_counts_are_checked(bad: object) -> None:
    from cranfield.errors import OptionError

    with pytest.raises(OptionError, match="pseudo_counts"):
        DocumentCTR.fit(*CTR_LOG, pseudo_counts=bad)  # type: ignore[arg-type]
